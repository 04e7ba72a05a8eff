"""Is an open HDF5 file a usable flexmbd results file?  One line naming what is wrong.

Readers (``load_result``, ``--resume``, plot, export, animate) used to index the file
directly, so a damaged or hand-edited file (a dataset missing, ``n_saved`` out of range,
settings that are not JSON) ended in a KeyError, IndexError, OverflowError or
JSONDecodeError traceback.  :func:`check_structure` looks at everything the readers
rely on before they use it, and :func:`reading` turns whatever a damaged file still
raises into a :class:`ResultsFileError`.
"""
from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator

from ..results import STAT_FIELDS

FORMAT = "flexmbd-results"
FORMAT_VERSION = 1
ARRAYS = ("t", "q", "v", "qdd", "a", "lam")
LAYOUT_NAMES = ("coordinate_names", "equation_owner", "equation_label", "body_names", "body_kinds")


class ResultsFileError(ValueError):
    """A results file that cannot be used; the message is one line naming the file."""


class ResultsWriteError(ResultsFileError):
    """Writing the results failed (disk full, file-size limit, I/O error): the run must
    stop.  The file keeps every step flushed before; the message says how many."""


def _text(x) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


@contextlib.contextmanager
def reading(path) -> Iterator[None]:
    """Any error while reading ``path`` becomes one line: the file is damaged."""
    try:
        yield
    except ResultsFileError:
        raise
    except (KeyError, ValueError, TypeError, IndexError, OverflowError, OSError, RuntimeError, AttributeError,
            json.JSONDecodeError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ResultsFileError(f"{path}: damaged results file: {reason}") from None


def damaged(path, what: str) -> ResultsFileError:
    return ResultsFileError(f"{path}: damaged results file: {what}")


def check_format(f, path) -> None:
    fmt = _text(f.attrs.get("format", ""))
    if fmt != FORMAT:
        raise ResultsFileError(f"{path}: not a flexmbd results file (no format = {FORMAT!r} attribute)")
    try:
        ver = int(f.attrs.get("format_version", 0))
    except (TypeError, ValueError, OverflowError):
        raise damaged(path, f"format_version = {f.attrs.get('format_version')!r} is not a number") from None
    if ver > FORMAT_VERSION:
        raise ResultsFileError(f"{path}: written by a newer flexmbd (format version {ver} > {FORMAT_VERSION})")


def saved_rows(f, path) -> int:
    """The number of rows to read: ``n_saved``, but no more than every dataset holds."""
    raw = f.attrs.get("n_saved", 0)
    try:
        value = float(raw)
        if not math.isfinite(value) or value != int(value) or value < 0:
            raise ValueError
        n_saved = int(value)
    except (TypeError, ValueError, OverflowError):
        raise damaged(path, f"n_saved = {_text(raw)!r} is not a row count") from None
    lengths = [f[k].shape[0] for k in ARRAYS] + [f["stats"][k].shape[0] for k in STAT_FIELDS]
    return min([n_saved] + lengths)


def settings_of(f, path) -> dict:
    """The ``settings`` attribute as a dict."""
    raw = _text(f.attrs.get("settings", "{}")) or "{}"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise damaged(path, f"the settings attribute is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise damaged(path, "the settings attribute is not a JSON object")
    return value


def check_structure(f, path) -> int:
    """Check everything the readers rely on; return the number of rows to read."""
    check_format(f, path)
    for name in ARRAYS + ("stats", "layout"):
        if name not in f:
            raise damaged(path, f"/{name} is missing")
    for k in STAT_FIELDS:
        if k not in f["stats"]:
            raise damaged(path, f"/stats/{k} is missing")
    lay = f["layout"]
    for k in LAYOUT_NAMES + ("body_offsets",):
        if k not in lay:
            raise damaged(path, f"/layout/{k} is missing")
    if len(f["t"].shape) != 1:
        raise damaged(path, "/t is not a one-dimensional dataset")
    for k in ARRAYS[1:]:
        if len(f[k].shape) != 2:
            raise damaged(path, f"/{k} is not a two-dimensional dataset")
    n, n_q, m = f["v"].shape[1], f["q"].shape[1], f["lam"].shape[1]
    if f["qdd"].shape[1] != n or f["a"].shape[1] != n:
        raise damaged(path, "/v, /qdd and /a differ in width")
    # coordinate names are of q (configuration: one more than v for each Lie-group node)
    if len(lay["coordinate_names"]) not in (n, n_q) or len(lay["equation_owner"]) != m:
        raise damaged(path, "/layout does not match the widths of /v and /lam")
    nb = len(lay["body_names"])
    if len(lay["body_kinds"]) != nb or len(lay["body_offsets"]) != nb:
        raise damaged(path, "/layout/body_names, body_kinds and body_offsets differ in length")
    from ..nodes import kind_from_key, restore_kind_data

    try:   # kinds described by data (NodeKind.stored_data): given back before their keys are read
        for g in (lay["kind_data"].values() if "kind_data" in lay else ()):
            restore_kind_data(_text(g.attrs["key"]), {k: g[k][()] for k in g})
    except (KeyError, ValueError, TypeError) as exc:
        raise damaged(path, f"/layout/kind_data: {exc}") from None
    config = lay["body_config_offsets"][()] if "body_config_offsets" in lay else lay["body_offsets"][()]
    for i, (kind_key, o, oc) in enumerate(zip(lay["body_kinds"][()], lay["body_offsets"][()], config)):
        try:
            kind = kind_from_key(_text(kind_key))
        except ValueError as exc:
            raise damaged(path, f"body {i}: {exc}") from None
        if not (0 <= int(o) and int(o) + kind.nv <= n and 0 <= int(oc) and int(oc) + kind.nq <= n_q):
            raise damaged(path, f"body {i}: its offsets lie outside /q and /v")
    settings_of(f, path)
    return saved_rows(f, path)


#: The geometry datasets the pictures use, with their shapes (B bodies, L lines, M markers).
GEOMETRY = {"box_half_extents": ("B", 3), "box_axes": ("B", 3, 3), "line_bodies": ("L", 2),
            "line_points": ("L", 2, 3), "marker_bodies": ("M",), "marker_points": ("M", 3)}
#: The geometry's name lists (strings), with their lengths.
GEOMETRY_NAMES = {"line_names": "L", "line_kinds": "L", "marker_names": "M", "marker_kinds": "M"}


def check_geometry(geometry: dict, n_bodies: int, path) -> None:
    """The /geometry of a loaded result can be drawn: every dataset of :data:`GEOMETRY`
    is there with its shape, and every body index is a body (or -1, the ground)."""
    import numpy as np

    sizes = {"B": n_bodies}
    for name, shape in GEOMETRY.items():
        if name not in geometry:
            raise damaged(path, f"/geometry/{name} is missing")
        a = np.asarray(geometry[name])
        if a.dtype.kind not in "fiu" or a.ndim != len(shape):
            raise damaged(path, f"/geometry/{name} has the wrong shape {a.shape}")
        for dim, want in zip(a.shape, shape):
            if isinstance(want, str):
                want = sizes.setdefault(want, dim)
            if dim != want:
                raise damaged(path, f"/geometry/{name} has the wrong shape {a.shape}")
        if name.endswith("_bodies") and a.size and (a.min() < -1 or a.max() >= n_bodies):
            raise damaged(path, f"/geometry/{name} names a body that does not exist")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            raise damaged(path, f"/geometry/{name} holds values that are not finite")
    for name, size in GEOMETRY_NAMES.items():
        names = geometry.get(name)
        if names is None:
            raise damaged(path, f"/geometry/{name} is missing")
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise damaged(path, f"/geometry/{name} is not a list of names")
        if len(names) != sizes.get(size, len(names)):
            raise damaged(path, f"/geometry/{name} has {len(names)} entries, not {sizes[size]}")


__all__ = ["GEOMETRY", "GEOMETRY_NAMES", "check_geometry", "FORMAT", "FORMAT_VERSION", "ARRAYS", "ResultsFileError", "ResultsWriteError", "reading", "damaged",
           "check_format", "check_structure", "saved_rows", "settings_of"]
