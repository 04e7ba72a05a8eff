"""Results on disk: an HDF5 file written step by step, loaded back as a Result, resumed.

Layout (``format = "flexmbd-results"``, ``format_version = 1``; see
docs/results-and-pictures.md for every dataset and attribute with its unit)::

    /t  (N,)      /q /v /qdd /a  (N, n)      /lam  (N, m)
    /stats/iterations, refreshes, factorizations, substeps  (N,) int    /stats/seconds (N,)
    /layout/coordinate_names (n)  equation_owner, equation_label (m)  body_names, body_kinds, body_offsets
    /layout/kind_data/<i>         arrays of kinds described by data (attribute key; NodeKind.stored_data)
    /geometry/...   inertia-equivalent boxes, spring/distance lines, joint markers (for pictures)
    /outputs/<name> every named output, written by :meth:`ResultWriter.close`
    attrs: flexmbd_version, status, complete, success, message, wall_time, n_saved,
           settings (JSON), model_text, model_format, model_name, model_dir, resumed_at (JSON) ...

Crash safety.  The writer writes to the final path and keeps ``status = "running"``,
``complete = False`` there until :meth:`ResultWriter.close` sets the final status.  Steps
are buffered in memory and touch the file only every ``chunk`` steps: the datasets are
extended, written, the row count ``n_saved`` is updated last, and the file is flushed.
A run killed at any moment (SIGKILL, power cut after the OS wrote its cache) leaves a file
that opens with every flushed step; rows past ``n_saved`` (an interrupted flush) are
ignored by the reader.  Ctrl-C (KeyboardInterrupt) inside ``with ResultWriter(...)``
flushes every step already computed and closes with ``status = "interrupted"``.

Resume.  :func:`resume_state` gives the last saved :class:`~flexmbd.solvers.dynamics.StepState`;
:func:`resume_run` continues a file to its ``t_end`` on the same time grid
``t_start + k h`` as an uninterrupted run, so (with the default full Newton,
``refresh='newton'``) the continued run is bit-for-bit the uninterrupted one.
"""
from __future__ import annotations

import json
import os
import pathlib
import sys
import time
from datetime import datetime, timezone

import numpy as np

from ..bodies.rigid import box_half_extents  # noqa: F401  (pictures use it from here)
from ..nodes import POINT, kind_from_key
from ..results import NODE_OUTPUTS, STAT_FIELDS, Result
from ..services import provide
from ..solvers.settings import DynamicSettings, SettingError, Settings, integrator_from_json, integrator_to_json
from .file_guard import FileBusyError, WriteLock, os_reason
from .results_check import (ARRAYS, FORMAT, FORMAT_VERSION, ResultsFileError, ResultsWriteError,  # noqa: F401
                            check_format, check_structure, reading, saved_rows, settings_of)

INT_STATS = ("iterations", "refreshes", "factorizations", "substeps")
ARRAY_UNITS = {
    "t": "s",
    "q": "per coordinate: m (x, y, z), 1 (Euler parameters e0..e3), rad (planar theta)",
    "v": "time derivative of q: m/s, 1/s, rad/s",
    "qdd": "second time derivative of q: m/s^2, 1/s^2, rad/s^2",
    "a": "integrator acceleration-like variable (units of qdd); equals qdd for Newmark",
    "lam": "Lagrange multipliers, one per constraint equation (N, N m or N/m^... by equation)",
}
STATUSES = ("running", "completed", "failed", "interrupted", "stopped")




#: Free space [bytes] kept for the final status and closing the file: a flush that
#: would leave less stops the run cleanly instead of letting HDF5 hit a full disk.
RESERVE_BYTES = 1 << 20

#: Files whose HDF5 handle broke on a write error: HDF5 cannot close them safely (it
#: crashes closing a file whose metadata it could not write), so they are kept open
#: and never touched again; :func:`broken_files` tells the command line to exit
#: without HDF5's clean-up.
_BROKEN: list = []


def broken_files() -> list:
    """Paths of results files left open after a write error (see :data:`_BROKEN`)."""
    return [w.path for w in _BROKEN]


def _h5py():
    try:
        import h5py
    except ImportError as exc:  # pragma: no cover - h5py is a dependency
        raise ResultsFileError("HDF5 results need the h5py package: pip install h5py") from exc
    return h5py


def flexmbd_version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flexmbd")
    except PackageNotFoundError:
        from .._version import __version__

        return __version__


# ====================================================================== settings
#: An integrator object (or name) as a JSON-able dict ``{"name": ..., params...}``.
integrator_settings = integrator_to_json


def solver_settings(settings=None, **kw):
    """The ``settings`` attribute of a results file, a JSON-able dict: a settings object's
    :meth:`~flexmbd.solvers.settings.Settings.to_json` and/or keyword arguments of
    ``simulate`` (plus anything else worth keeping, e.g. ``outputs``), normalised the same
    way.  Values that JSON cannot hold (callables) are stored as their ``repr``.
    """
    out = settings.to_json() if settings is not None else {}
    for k, v in kw.items():
        if k == "integrator":
            out[k] = integrator_to_json(v)
        elif k == "jacobian" and not isinstance(v, str) and v is not None:
            out[k] = sorted(v)
        elif isinstance(v, (np.floating, np.integer)):
            out[k] = v.item()
        elif isinstance(v, tuple):
            out[k] = list(v)
        elif v is None or isinstance(v, (bool, int, float, str, list, dict)):
            out[k] = v
        else:
            out[k] = repr(v)
    return out


def _as_dict(settings):
    """A writer's ``settings`` argument (a settings object or a dict) as the stored dict."""
    if settings is None:
        return {}
    return solver_settings(settings) if isinstance(settings, Settings) else solver_settings(**settings)


def stored_settings(path, settings: dict, t_first=None) -> DynamicSettings:
    """The :class:`~flexmbd.solvers.settings.DynamicSettings` stored in a results file's
    ``settings`` (:func:`solver_settings`); keys that are not settings are ignored, and
    ``t_start`` defaults to the first saved time.  A bad or missing value is a
    :class:`ResultsFileError` naming it."""
    data = dict(settings)
    if t_first is not None:
        data.setdefault("t_start", t_first)
    try:
        return DynamicSettings.from_json(data)
    except SettingError as exc:
        raise ResultsFileError(f"{path}: the stored settings cannot be used: {exc}") from None


# ====================================================================== geometry
def _local(body, point):
    """A global point of the initial configuration in the body's frame (ground: itself)."""
    from ..ground import GROUND
    from ..model import body_position, body_rotation

    p = np.asarray(point, dtype=float)
    if body is GROUND:
        return p.copy()
    return body_rotation(body).T @ (p - body_position(body))


def system_geometry(system):
    """What the pictures need, from a System: a box per node, lines (springs, distances,
    beam axes) and joint markers, as the element types declare them
    (:meth:`flexmbd.registry.ElementType.geometry`, ``node_boxes``)."""
    from ..ground import GROUND

    model = system.model
    boxes = {}
    for e in model.elements:
        for node, hb, ab in e.type.node_boxes(e):
            boxes[id(node)] = (hb, ab)
    half = [boxes.get(id(b), (np.full(3, 0.01), np.eye(3)))[0] for b in model.bodies]
    axes = [boxes.get(id(b), (np.full(3, 0.01), np.eye(3)))[1] for b in model.bodies]
    idx = {id(b): b.index for b in model.bodies}

    def bi(b):
        return -1 if b is GROUND else idx[id(b)]

    lines, markers = [], []
    line_global, marker_global, attachments, line_sections, marker_axes, grounded = [], [], [], [], [], []
    line_elements = []
    for e in model.elements:
        for item in e.type.geometry(e):
            if item[0] == "line":
                _, name, b0, b1, p0, p1 = item
                lines.append((name, e.kind, bi(b0), bi(b1), _local(b0, p0), _local(b1, p1)))
                line_global += [np.asarray(p0, float), np.asarray(p1, float)]
                line_sections.append(e.type.section)
                line_elements.append(e.name)
                if e.type.section != "beams":
                    attachments += [(bi(b0), _local(b0, p0)), (bi(b1), _local(b1, p1))]
            else:
                _, name, host, p = item
                markers.append((name, e.kind, bi(host), _local(host, p)))
                marker_global.append(np.asarray(p, float))
                grounded.append(any(b is GROUND for b in e.bodies))
                for b in e.bodies:          # a joint's point belongs to both its bodies
                    if b is not GROUND and id(b) in idx:
                        attachments.append((bi(b), _local(b, p)))
                axis = e.data.get("axis") if isinstance(e.data, dict) else None
                if axis is not None and host is not GROUND:
                    from ..model import body_rotation
                    axis = body_rotation(host).T @ np.asarray(axis, float)
                marker_axes.append(None if axis is None else np.asarray(axis, float).tolist())
    nb = len(model.bodies)
    from ..visuals import resolve, to_json

    vis = resolve(system, {"box_half_extents": np.array(half).reshape(nb, 3), "box_axes": np.array(axes).reshape(nb, 3, 3),
                           "line_global": line_global, "marker_global": marker_global, "attachments": attachments,
                           "line_kinds": [x[1] for x in lines], "line_sections": line_sections,
                           "line_elements": line_elements,
                           "marker_kinds": [x[1] for x in markers], "marker_axes": marker_axes,
                           "marker_grounded": grounded})
    return {
        "visuals": [to_json(vis)],
        "box_half_extents": np.array(half).reshape(nb, 3),
        "box_axes": np.array(axes).reshape(nb, 3, 3),
        "body_mass": np.array([b.mass for b in model.bodies], dtype=float),
        "body_inertia": np.array([b.inertia for b in model.bodies], dtype=float).reshape(nb, 3, 3),
        "line_names": [x[0] for x in lines], "line_kinds": [x[1] for x in lines],
        "line_bodies": np.array([(x[2], x[3]) for x in lines], dtype=np.int64).reshape(-1, 2),
        "line_points": np.array([(x[4], x[5]) for x in lines], dtype=float).reshape(-1, 2, 3),
        "marker_names": [x[0] for x in markers], "marker_kinds": [x[1] for x in markers],
        "marker_bodies": np.array([x[2] for x in markers], dtype=np.int64),
        "marker_points": np.array([x[3] for x in markers], dtype=float).reshape(-1, 3),
    }


# ====================================================================== units
def output_unit(name):
    """The SI unit of a named output (by its suffix)."""
    what = name.rsplit(".", 1)[-1]
    if name.startswith("energy."):
        return "J"
    return {"position": "m", "velocity": "m/s", "orientation": "1 (Euler parameters) or rad (planar)",
            "angular_velocity": "rad/s", "length": "m", "length_rate": "m/s", "force": "N", "torque": "N m",
            "reaction": "N", "multipliers": "N, N m or N/m by equation", "normal_force": "N",
            "friction_force": "N (sliding) or N m (pins)", "slip_velocity": "m/s (sliding) or rad/s (pins)",
            "slip_state": "1 (+1/−1 slipping that way, 0 sticking)", "position_error": "m (norm of Φ)",
            "velocity_error": "m/s (norm of Φ')", "tip_deflection": "m", "node_displacements": "m",
            "node_positions": "m", "linear_momentum": "kg m/s", "angular_momentum": "kg m²/s"}.get(what, "")


# ====================================================================== writer
def _str_list(xs):
    return np.array([str(x) for x in xs], dtype=object)


class ResultWriter:
    """Write a run to ``path`` incrementally; use as ``simulate(..., on_step=w.on_step)``.

    system:     the frozen :class:`~flexmbd.system.System` the run uses (a Model is frozen).
    model_text: the model file's text, stored so the file is self-contained.
    settings:   the solver settings, a settings object (``DynamicSettings``…) or a dict
                (see :func:`solver_settings`); stored as JSON.
    chunk:      steps buffered in memory between flushes (a crash loses at most these).
    flush_seconds: also flush when this much wall time has passed since the last flush.
    append:     reopen an existing file and continue its datasets (a resumed run).

    ``with ResultWriter(...) as w:`` closes the file on exit: with status "interrupted"
    on KeyboardInterrupt, "failed" on another exception (after flushing every step).
    """

    def __init__(self, path, system, model_text=None, settings=None, chunk=100, append=False,
                 flush_seconds=30.0, model_format=None, lock=None):
        if hasattr(system, "freeze") and not hasattr(system, "coordinate_names"):
            system = system.freeze()
        self.path = os.fspath(path)
        self.system = system
        self.chunk = max(1, int(chunk))
        self.flush_seconds = flush_seconds
        self._buf = []
        self._clock0 = time.perf_counter()
        self._last_flush = self._clock0
        self.closed = False
        self.file = None
        self.write_error = None
        self.status = "running"
        self._broken = False
        self._chunk_bytes = 0
        self._lock = lock if lock is not None else _take_lock(self.path, create=not append, append=append)
        _quiet_h5py_cleanup()
        try:
            if append:
                with reading(self.path):
                    self._reopen(system, model_text, settings)
            else:
                self._create(system, model_text, settings, model_format)
        except BaseException:
            if self.file is not None:
                _close_quietly(self.file)
            if append:
                self._lock.release()
            else:
                self._lock.discard()
            raise

    def _reopen(self, system, model_text, settings):
        """Open an existing file to continue it (``append``)."""
        h5py = _h5py()
        m = system.m
        try:
            self.file = h5py.File(self.path, "r+", **_no_hdf5_lock(self._lock))
        except OSError as exc:
            raise ResultsFileError(f"{self.path}: cannot reopen for appending: {os_reason(exc)}") from None
        f = self.file
        _check_format(f, self.path)
        names = [_s(x) for x in f["layout/coordinate_names"][()]]
        if names != list(system.coordinate_names) or f["lam"].shape[1] != m:
            raise ResultsFileError(f"{self.path}: the model's coordinates or constraints differ from the "
                                   "file's; resume with the same model")
        self.n_saved = int(f.attrs["n_saved"])
        for k in ARRAYS:
            f[k].resize(self.n_saved, axis=0)
        for k in STAT_FIELDS:
            f["stats"][k].resize(self.n_saved, axis=0)
        if "outputs" in f:  # recomputed for the whole run at close
            del f["outputs"]
        if settings is not None:
            old = json.loads(_s(f.attrs.get("settings", "{}")))
            old.update(_as_dict(settings))
            f.attrs["settings"] = json.dumps(old)
        if model_text is not None:
            f.attrs["model_text"] = model_text
        resumed = json.loads(_s(f.attrs.get("resumed_at", "[]")))
        resumed.append(float(f["t"][self.n_saved - 1]) if self.n_saved else 0.0)
        f.attrs["resumed_at"] = json.dumps(resumed)
        self._wall0 = float(f.attrs.get("wall_time", 0.0))
        self._set_status("running", "running (or the writer stopped without closing the file)")
        self._chunk_bytes = _chunk_total(f)
        f.flush()

    def _create(self, system, model_text, settings, model_format):
        """Create (or replace) the file: only ever called with the write lock held."""
        h5py = _h5py()
        n, m = system.n, system.m
        try:
            self.file = h5py.File(self.path, "w", **_no_hdf5_lock(self._lock))
        except OSError as exc:
            raise ResultsFileError(f"{self.path}: cannot create: {os_reason(exc)}") from None
        f = self.file
        self.n_saved = 0
        self._wall0 = 0.0
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["flexmbd_version"] = flexmbd_version()
        f.attrs["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        f.attrs["model_name"] = str(getattr(system.model, "name", ""))
        f.attrs["model_text"] = model_text if model_text is not None else ""
        f.attrs["model_format"] = model_format or _guess_format(model_text)
        base = getattr(system.model, "base_dir", None)
        if base is not None:   # data files the model names relative to itself (a modal body's FE data)
            f.attrs["model_dir"] = str(base)
        f.attrs["settings"] = json.dumps(_as_dict(settings))
        f.attrs["resumed_at"] = "[]"
        f.attrs["n"], f.attrs["m"] = n, m
        f.attrs["n_saved"] = 0
        f.attrs["wall_time"] = 0.0
        f.attrs["success"] = False
        f.attrs["complete"] = False
        self._set_status("running", "running (or the writer stopped without closing the file)")
        rows_per_chunk = max(1, min(self.chunk, (1 << 20) // (8 * max(n, m, 1))))
        for k in ARRAYS:
            width = {"t": None, "lam": m, "q": getattr(system, "n_q", n)}.get(k, n)
            shape, maxshape = ((0,), (None,)) if width is None else ((0, width), (None, width))
            chunks = (rows_per_chunk,) if width is None else ((rows_per_chunk, width) if width else True)
            ds = f.create_dataset(k, shape=shape, maxshape=maxshape, dtype="f8", chunks=chunks)
            ds.attrs["unit"] = ARRAY_UNITS[k]
        g = f.create_group("stats")
        for k in STAT_FIELDS:
            ds = g.create_dataset(k, shape=(0,), maxshape=(None,), dtype="i8" if k in INT_STATS else "f8",
                                  chunks=(rows_per_chunk,))
            ds.attrs["unit"] = "s" if k == "seconds" else "count"
        lay = f.create_group("layout")
        sdt = h5py.string_dtype()
        model = system.model
        lay.create_dataset("coordinate_names", data=_str_list(system.coordinate_names), dtype=sdt)
        lay.create_dataset("equation_owner", data=_str_list(system.equation_owner), dtype=sdt)
        lay.create_dataset("equation_label", data=_str_list(system.equation_label), dtype=sdt)
        lay.create_dataset("body_names", data=_str_list(b.name for b in model.bodies), dtype=sdt)
        lay.create_dataset("body_kinds", data=_str_list(b.kind.key for b in model.bodies), dtype=sdt)
        lay.create_dataset("body_offsets", data=np.asarray(system.offsets, dtype=np.int64))
        kinds = {b.kind.key: b.kind for b in model.bodies}
        for i, (key, kind) in enumerate(kinds.items()):   # kinds described by data (NodeKind.stored_data)
            data = kind.stored_data()
            if data:
                g = lay.create_group(f"kind_data/{i}")
                g.attrs["key"] = key
                for k, val in data.items():
                    g.create_dataset(k, data=np.asarray(val))
        lay.create_dataset("body_config_offsets",
                           data=np.asarray(getattr(system, "config_offsets", system.offsets), dtype=np.int64))
        geo = f.create_group("geometry")
        for k, val in system_geometry(system).items():
            if isinstance(val, list):
                geo.create_dataset(k, data=_str_list(val), dtype=sdt)
            else:
                geo.create_dataset(k, data=val)
        self._chunk_bytes = _chunk_total(f)
        f.flush()

    # ------------------------------------------------------------ recording
    def on_step(self, state, stats):
        """The ``on_step`` hook of ``simulate``: buffer one step, flush every ``chunk``."""
        row = (float(state.t), np.array(state.q, dtype=float), np.array(state.v, dtype=float),
               np.array(state.qdd, dtype=float), np.array(state.a, dtype=float), np.array(state.lam, dtype=float),
               tuple(stats.get(k, 0) for k in STAT_FIELDS), dict(stats.get("extra") or {}))
        self._buf.append(row)  # one append: a KeyboardInterrupt cannot leave half a row
        if len(self._buf) >= self.chunk or time.perf_counter() - self._last_flush > self.flush_seconds:
            self.flush()
        return None

    def flush(self):
        """Write the buffered steps; ``n_saved`` is updated only once they are all written.

        Before writing, the free space (and the file-size limit) is checked: when the
        rows would leave less than :data:`RESERVE_BYTES`, nothing is written and a
        :class:`ResultsWriteError` is raised, so the file can still be closed with its
        status.  A write that fails all the same (another program filled the disk)
        raises it too, and the file is then left as it is (see :data:`_BROKEN`)."""
        if self.write_error is not None:
            raise self.write_error
        buf = list(self._buf)
        if not buf:
            self._guarded(self.file.flush)
            return
        self._check_space(self._chunk_bytes + sum(sum(np.asarray(x).nbytes for x in row[1:6]) + 64 for row in buf))
        self._guarded(self._write_rows, buf)
        del self._buf[: len(buf)]
        self._last_flush = time.perf_counter()

    def _datasets(self):
        """The growing datasets, opened once: a handle released while a write fails
        makes h5py print a traceback of its own, so none is released mid-write."""
        if getattr(self, "_ds", None) is None:
            f = self.file
            self._ds = {k: f[k] for k in ARRAYS}
            self._ds.update({"stats/" + k: f["stats"][k] for k in STAT_FIELDS})
        return self._ds

    def _write_rows(self, buf):
        f, n0 = self.file, self.n_saved
        n1 = n0 + len(buf)
        cols = list(zip(*buf))
        dsets = self._datasets()
        for k, col in zip(ARRAYS, cols[:6]):
            ds = dsets[k]
            ds.resize(n1, axis=0)
            ds[n0:n1] = np.array(col, dtype=float).reshape((n1 - n0,) + ds.shape[1:])
        st = np.array(cols[6])
        for j, k in enumerate(STAT_FIELDS):
            ds = dsets["stats/" + k]
            ds.resize(n1, axis=0)
            ds[n0:n1] = st[:, j]
        extras = cols[7]
        for name in dict.fromkeys(k for ex in extras for k in ex):   # outputs the solver recorded itself
            g = f.require_group("extra")
            if name not in g:
                g.create_dataset(name, shape=(n0,), maxshape=(None,), dtype="f8", chunks=True,
                                 fillvalue=np.nan).attrs["unit"] = output_unit(name)
            ds = g[name]
            ds.resize(n1, axis=0)
            ds[n0:n1] = [float(ex.get(name, np.nan)) for ex in extras]
        f.attrs["n_saved"] = n1
        f.attrs["wall_time"] = self._wall0 + time.perf_counter() - self._clock0
        f.flush()
        self.n_saved = n1

    def _saved_until(self):
        """'the N steps up to t = T s' of the file as last flushed."""
        if not self.n_saved:
            return "no step"
        try:
            t = float(self.file["t"][self.n_saved - 1]) if not self._broken else None
        except Exception:  # noqa: BLE001
            t = None
        return f"the {self.n_saved} steps" + (f" up to t = {t:.6g}" if t is not None else "")

    def _check_space(self, nbytes):
        """Raise :class:`ResultsWriteError` (file untouched) when writing ``nbytes``
        would leave less than :data:`RESERVE_BYTES` on the disk or under the file-size
        limit (``ulimit -f``)."""
        need = int(nbytes) + RESERVE_BYTES
        reason = None
        try:
            st = os.statvfs(os.path.dirname(os.path.abspath(self.path)))
            free = st.f_bavail * st.f_frsize
            if free < need:
                reason = f"the disk is full ({free / 2**20:.1f} MiB free)"
        except (AttributeError, OSError):  # no statvfs (Windows): HDF5's error is the check
            pass
        try:
            import resource

            limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
            if limit != resource.RLIM_INFINITY and os.path.getsize(self.path) + need > limit:
                reason = f"the file-size limit (ulimit -f, {limit / 2**20:.1f} MiB) is reached"
        except (ImportError, OSError, ValueError):
            pass
        if reason is not None:
            self.write_error = ResultsWriteError(f"cannot write {self.path}: {reason}; it keeps "
                                                 f"{self._saved_until()}")
            raise self.write_error

    def _guarded(self, fn, *args):
        """Call an HDF5 write; a failure marks the writer broken (see :data:`_BROKEN`)."""
        try:
            return fn(*args)
        except (OSError, RuntimeError, ValueError) as exc:
            self._broken = True
            _BROKEN.append(self)
            self.write_error = ResultsWriteError(f"cannot write {self.path}: {os_reason(exc)}; HDF5 could not "
                                                 f"finish the file, which may be unreadable (it held "
                                                 f"{self._saved_until()} at its last complete write)")
            raise self.write_error from None

    def _set_status(self, status, message):
        f = self.file
        f.attrs["status"] = status
        f.attrs["message"] = message
        f.attrs["complete"] = status == "completed"
        f.attrs["success"] = status == "completed"

    # ------------------------------------------------------------ closing
    def close(self, result=None, status=None, message=None, outputs=True, stop=None, progress=None):
        """Flush, write the final status and (``outputs``) every named output; close.
        Returns the status written.

        status defaults from ``result``: "completed" if it succeeded, "stopped" if the
        ``on_step`` hook stopped it, else "failed"; without a result, "interrupted".
        ``outputs``: True (all), False, or a list of names to store under /outputs.
        ``stop``: a callable; when it returns True (Ctrl-C) while the outputs are being
        computed, they are left out and a "completed" run is closed as "interrupted" (a
        ``--resume`` writes them).  ``progress(i, n, name)`` before each output.
        A write error (disk full) closes the file as "failed" with every step flushed
        before it, or, when HDF5 could not even write that, leaves it "running"; the
        error is kept in ``write_error``, not raised.
        """
        if self.closed:
            return self.status
        try:
            try:
                self.flush()
            except ResultsWriteError:
                pass  # kept in self.write_error
            if status is None:
                if result is None:
                    status = "interrupted"
                elif result.success:
                    status = "completed"
                elif "stopped by the caller" in result.message:
                    status = "stopped"
                else:
                    status = "failed"
            if message is None:
                message = result.message if result is not None else status
            if self._broken:
                self.status = "running"
                return self.status
            if result is not None and getattr(result, "events", None):
                self._guarded(self.file.attrs.__setitem__, "events",
                              json.dumps([[float(t), str(e), str(k)] for t, e, k in result.events]))
            if result is not None and getattr(result, "notes", None):
                self._guarded(self.file.attrs.__setitem__, "notes", json.dumps(list(result.notes)))
            if result is not None and getattr(result, "adaptive", None):
                self._guarded(self.file.attrs.__setitem__, "adaptive", json.dumps(result.adaptive))
            if self.write_error is not None:
                status, message = "failed", str(self.write_error)
            elif outputs and self.n_saved:
                missing = self._write_outputs(outputs, stop, progress)
                if missing is not None:
                    if status == "completed":
                        status = "interrupted" if missing == "interrupted" else "failed"
                    message = (f"{message}; all {self.n_saved} steps are saved, but the outputs are not: "
                               f"{missing} (run again with --resume to write them)")
            self._guarded(self._set_status, status, message)
            self.file.attrs["wall_time"] = self._wall0 + time.perf_counter() - self._clock0
            self._guarded(self.file.flush)
            self.status = status
            return status
        except ResultsWriteError:
            self.status = "running" if self._broken else "failed"
            return self.status
        finally:
            self.closed = True
            if not self._broken:
                self._ds = None
                _close_quietly(self.file)
            self._lock.release()

    def abandon(self):
        """Leave the file as a crash would: closed without a final status (it stays
        "running" with every flushed step) and the write lock released.  For tests and
        tools that simulate a killed run."""
        if not self.closed:
            self.closed = True
            self._ds = None
            _close_quietly(self.file)
            self._lock.release()

    def _write_outputs(self, which, stop=None, progress=None):
        """Compute and store the named outputs; None when all were written, else why
        not ("interrupted", or the write error)."""
        f = self.file
        res = _result_from_file(f, self.path, system=self.system)
        names = res.names() if which is True else list(which)
        recorded = set(f["extra"]) if "extra" in f else set()
        names = [nm for nm in names if nm not in recorded]   # the solver's own values stay in /extra
        g = f.require_group("outputs")
        errors = []
        try:
            for i, nm in enumerate(names):
                if stop is not None and stop():
                    return "interrupted"
                if progress is not None:
                    progress(i, len(names), nm)
                try:
                    y = np.asarray(res[nm], dtype=float)
                except Exception as exc:  # noqa: BLE001 - one output must not spoil the file
                    errors.append(f"{nm}: {type(exc).__name__}: {exc}")
                    continue
                self._check_space(y.nbytes + 4096)
                if nm in g:
                    self._guarded(g.__delitem__, nm)
                ds = self._guarded(lambda: g.create_dataset(nm, data=y))
                ds.attrs["unit"] = output_unit(nm)
        except KeyboardInterrupt:
            return "interrupted"
        except ResultsWriteError as exc:
            if self._broken:
                raise
            return str(exc)
        finally:
            if not self._broken:
                g.attrs["errors"] = json.dumps(errors)
        if stop is not None and stop():
            return "interrupted"
        return None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.closed:
            return False
        if exc_type is None:
            self.close(None, status="interrupted", message="the writer was closed before the run finished",
                       outputs=False)
        elif issubclass(exc_type, KeyboardInterrupt):
            self.close(None, status="interrupted", message="interrupted (Ctrl-C); resume with --resume",
                       outputs=False)
        else:
            self.close(None, status="failed", message=f"{exc_type.__name__}: {exc}", outputs=False)
        return False


def save_result(result, path, model_text=None, settings=None, outputs=True):
    """Write a finished in-memory :class:`Result` to ``path`` in one go."""
    if settings is None:
        settings = {"h": result.h, "integrator": integrator_settings(result.integrator),
                    "t_start": float(result.t[0]), "t_end": float(result.t[-1])}
    from ..solvers.dynamics import StepState

    w = ResultWriter(path, result.system, model_text=model_text, settings=settings, chunk=max(1, len(result.t)))
    try:
        for k in range(len(result.t)):
            st = StepState(result.t[k], result.q[k], result.v[k], result.qdd[k], result.a[k], result.lam[k])
            w.on_step(st, {**{s: result.stats[s][k] for s in STAT_FIELDS},
                           "extra": {nm: y[k] for nm, y in getattr(result, "extra", {}).items()}})
        w._wall0 = result.wall_time
        w._clock0 = time.perf_counter()
        w.close(result, outputs=outputs)
    finally:
        if not w.closed:
            w.close(None, status="failed", outputs=False)
    return path


# ====================================================================== reading
class StoredResult(Result):
    """A :class:`Result` read from a file.  Named outputs come from /outputs when stored,
    else are computed (needs ``system``; body kinematics and multipliers need only the
    stored layout)."""

    def __init__(self, arrays, stats, attrs, layout, geometry, outputs, system=None, path=None):
        self._system = system
        self._rebuild = False  # set by load_result: rebuild the System from model_text on first need
        self.path = path
        for k in ARRAYS:
            setattr(self, k, arrays[k])
        self.stats = stats
        self.attrs = attrs
        self.layout = layout
        self.geometry = geometry
        self.stored_outputs = outputs
        self.extra = {}
        try:
            self.events = [tuple(e) for e in json.loads(attrs.get("events", "[]") or "[]")]
        except (ValueError, TypeError):
            self.events = []
        try:
            self.notes = [str(n) for n in json.loads(attrs.get("notes", "[]") or "[]")]
        except (ValueError, TypeError):
            self.notes = []
        try:
            self.adaptive = json.loads(attrs.get("adaptive", "null") or "null")
        except (ValueError, TypeError):
            self.adaptive = None
        self.settings = json.loads(attrs.get("settings", "{}") or "{}")
        self.h = self.settings.get("h")
        self.output_every = int(self.settings.get("output_every", 1) or 1)
        integ = self.settings.get("integrator")
        self.integrator = None
        if isinstance(integ, dict):
            try:
                self.integrator = integrator_from_json(integ)
            except (ValueError, TypeError):
                self.integrator = None
        self.status = attrs.get("status", "running")
        self.complete = bool(attrs.get("complete", False))
        self.success = bool(attrs.get("success", False))
        self.message = attrs.get("message", "")
        self.wall_time = float(attrs.get("wall_time", 0.0))
        self.model_text = attrs.get("model_text", "")
        self.assembly = None
        self._cache = {}

    @property
    def system(self):
        """The System (given, or rebuilt from the stored model text when first needed; may be None)."""
        if self._system is None and self._rebuild:
            self._rebuild = False
            self._system = _rebuild_system(self)
        return self._system

    @system.setter
    def system(self, value):
        self._system = value
        self._rebuild = False

    # the recording API of Result does not apply
    def append(self, state, **stats):  # noqa: D401
        raise TypeError("a stored result is read-only; use ResultWriter(..., append=True) to continue it")

    def summary(self):
        s = Result.summary(self)
        if self.status != "completed":
            s = f"[{self.status}] " + s
        return s

    @property
    def body_names(self):
        return list(self.layout["body_names"])

    def names(self):
        """Every output: all of Result's when the model is known, else the stored ones and those
        the layout gives (body kinematics, multipliers)."""
        if self.system is not None:
            names = Result.names(self)
            return names + [nm for nm in self.stored_outputs if nm not in names]
        out = list(self.stored_outputs)
        for b in self.layout["body_names"]:
            out += [f"{b}.{k}" for k in ("position", "velocity", "orientation", "angular_velocity")]
        for owner in dict.fromkeys(self.layout["equation_owner"]):
            out.append(f"{owner}.multipliers")
        return list(dict.fromkeys(out))

    def _energy(self):
        # Result._energy computes all six energies at once; compute them once, not per name
        if " energy" not in self._cache:
            self._cache[" energy"] = Result._energy(self)
        return self._cache[" energy"]

    def _output(self, name):
        if name in self.stored_outputs:
            return self.stored_outputs[name]
        if self.system is not None:
            try:
                return Result._output(self, name)
            except KeyError:
                pass
        else:
            y = self._layout_output(name)
            if y is not None:
                return y
        import difflib

        close = difflib.get_close_matches(name, self.names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        need = "" if self.system is not None else (
            " (outputs of force elements and energies of an unfinished run without a stored model file "
            "need the model: load_result(path, model=...))")
        raise KeyError(f"no output named {name!r} in {self.path or 'this result'}{hint}{need}")

    def _layout_output(self, name):
        owner, _, what = name.rpartition(".")
        lay = self.layout
        if owner in lay["body_names"] and what in NODE_OUTPUTS:
            kind, q, v = self._body_state(lay["body_names"].index(owner))
            return kind.output(what, q, v)
        if what == "multipliers" and owner in lay["equation_owner"]:
            idx = [j for j, o in enumerate(lay["equation_owner"]) if o == owner]
            return self.lam[:, idx]
        return None

    def _body_state(self, i, rows=None):
        """Node kind of body i and its rows of q and v (all rows, or ``rows``)."""
        lay = self.layout
        kind = kind_from_key(lay["body_kinds"][i])
        o, oc = int(lay["body_offsets"][i]), int(_config_offsets(lay)[i])
        q, v = (self.q, self.v) if rows is None else (self.q[rows], self.v[rows])
        return kind, q[:, oc:oc + kind.nq], v[:, o:o + kind.nv]

    # ---------------------------------------------------------- poses for pictures
    def body_poses(self, rows=None):
        """Positions (F, nb, 3) and rotation matrices (F, nb, 3, 3) of every body at ``rows``."""
        rows = np.arange(len(self.t)) if rows is None else np.asarray(rows)
        nb = len(self.layout["body_names"])
        R = np.zeros((len(rows), nb, 3))
        A = np.zeros((len(rows), nb, 3, 3))
        for i in range(nb):
            kind, q, _ = self._body_state(i, rows)
            R[:, i], A[:, i] = kind.pose(q)
        return R, A

    def body_points(self, i, u, rows=None):
        """Global positions (F, 3) of the point with local vector u (3,) of body i at ``rows``,
        through its kind's markers (points of deformable nodes, such as modal beams, move
        with the deformation)."""
        kind, q, _ = self._body_state(i, rows)
        n = len(q)
        x, _ = kind.markers(np.tile(np.asarray(u, dtype=float), (n, 1)), np.full(n, POINT)).evaluate(q)
        return x

    def body_twists(self, rows=None):
        """Origin velocities (F, nb, 3) and angular velocities (F, nb, 3) of every body at ``rows``."""
        rows = np.arange(len(self.t)) if rows is None else np.asarray(rows)
        nb = len(self.layout["body_names"])
        vR = np.zeros((len(rows), nb, 3))
        w = np.zeros((len(rows), nb, 3))
        for i in range(nb):
            kind, q, v = self._body_state(i, rows)
            vR[:, i], w[:, i] = kind.twist(q, v)
        return vR, w


def _s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def _take_lock(path, create, append=False):
    """The :class:`~.file_guard.WriteLock` of a writer, or a one-line ResultsFileError."""
    try:
        return WriteLock(path, create=create)
    except FileBusyError:
        raise ResultsWriteError(f"{path}: is being written by another run (or is open in another program); "
                                "choose another file name or wait until it has finished") from None
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file") from None
    except OSError as exc:
        what = "cannot reopen for appending" if append else "cannot create"
        raise ResultsWriteError(f"{path}: {what}: {os_reason(exc)}") from None


def _no_hdf5_lock(lock):
    """h5py keywords while our own lock is held: HDF5's lock would conflict with it."""
    return {"locking": False} if lock.held else {}


def _chunk_total(f):
    """Bytes of one chunk of every growing dataset: what a flush may allocate at most
    besides its rows (HDF5 allocates whole chunks)."""
    total = 0
    for ds in [f[k] for k in ARRAYS] + [f["stats"][k] for k in STAT_FIELDS]:
        if ds.chunks:
            total += int(np.prod(ds.chunks)) * ds.dtype.itemsize
    return total


def _quiet_h5py_cleanup():
    """After a write error (disk full), h5py reports every later release of an HDF5
    object of the broken file as an "Exception ignored" traceback, some of them while
    the failing write is still unwinding; those are noise (the error is reported once,
    by the writer): hide them, and only them.  Installed when a writer opens a file."""
    if getattr(sys.unraisablehook, "_flexmbd", False):
        return
    previous = sys.unraisablehook

    def hook(unraisable):
        text = f"{unraisable.exc_value}"
        if "h5py" in repr(getattr(unraisable, "object", "")) and "write failed" in text:
            return
        previous(unraisable)

    hook._flexmbd = True
    sys.unraisablehook = hook


def _close_quietly(f):
    """Close an h5py file; after a write error (disk full) closing can fail too, and
    must not raise again: the status already written is what the file says."""
    try:
        f.close()
    except Exception:  # noqa: BLE001
        pass


def _short(exc):
    return " ".join(str(exc).split())


def _guess_format(text):
    if not text:
        return ""
    return "json" if text.lstrip().startswith("{") else "yaml"


def _check_format(f, path):
    check_format(f, path)


def _open_read(path):
    h5py = _h5py()
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ResultsFileError(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError as exc:
        msg = _short(exc)
        if "lock" in msg.lower():  # being written by a live run: read what is flushed
            try:
                return h5py.File(path, "r", locking=False)
            except OSError as exc2:
                msg = _short(exc2)
        raise ResultsFileError(f"{path}: cannot read as HDF5: {_h5_reason(msg)}") from None


def _h5_reason(msg):
    """HDF5's open error without its internals: 'Unable to synchronously open file
    (file signature not found)' -> 'not an HDF5 file (file signature not found)'."""
    if "signature not found" in msg:
        return "not an HDF5 file (no HDF5 signature)"
    if "truncated file" in msg:
        return "the file is truncated (shorter than HDF5 wrote it)"
    return msg.split(", flags =")[0]


def _result_from_file(f, path, system=None, outputs=True):
    with reading(path):
        return _read_result(f, path, system, outputs)


def _read_result(f, path, system=None, outputs=True):
    n_rows = check_structure(f, path)
    attrs = {k: (_s(v) if isinstance(v, (bytes, str)) else (v.item() if hasattr(v, "item") else v))
             for k, v in f.attrs.items()}
    arrays = {k: f[k][:n_rows] for k in ARRAYS}
    stats = {k: f["stats"][k][:n_rows] for k in STAT_FIELDS}
    lay = f["layout"]
    layout = {k: [_s(x) for x in lay[k][()]] for k in ("coordinate_names", "equation_owner", "equation_label",
                                                        "body_names", "body_kinds")}
    layout["body_offsets"] = lay["body_offsets"][()]
    # velocity-space offsets above; configuration offsets differ for Lie-group bodies
    layout["body_config_offsets"] = lay["body_config_offsets"][()] if "body_config_offsets" in lay \
        else layout["body_offsets"]
    geometry = {}
    for k, ds in (f["geometry"].items() if "geometry" in f else ()):
        val = ds[()]
        geometry[k] = [_s(x) for x in val] if ds.dtype.kind == "O" else val
    stored = {}
    if outputs and "outputs" in f:
        for k, ds in f["outputs"].items():
            if ds.shape[:1] == (n_rows,) and ds.dtype.kind in "fiu":  # anything else is not an output we wrote
                stored[k] = ds[()]
    for k, ds in (f["extra"].items() if "extra" in f else ()):   # recorded by the solver: they win
        if ds.shape[:1] and ds.shape[0] >= n_rows and ds.dtype.kind == "f":
            stored[k] = ds[:n_rows]
    return StoredResult(arrays, stats, attrs, layout, geometry, stored, system=system, path=path)


#: the ``format`` attribute of DT-TMM results files (flexmbd.io.tmm_file.FORMAT)
TMM_FORMAT = "flexmbd-tmm-results"


def _attr(f, name):
    v = f.attrs.get(name)
    return v.decode() if isinstance(v, bytes) else v


def load_result(path, model=None, rebuild=True):
    """Read a results file as a :class:`StoredResult` (a :class:`Result`); a DT-TMM results
    file (``format = "flexmbd-tmm-results"``) as a :class:`~flexmbd.io.tmm_file.TmmResult`.

    Works on unfinished files (crashed, killed or still running): it holds every flushed
    step and ``status`` tells what happened.  Named outputs are read from /outputs when
    stored; otherwise they are computed with ``model`` (a Model or System) or, when
    ``rebuild``, with the model rebuilt from the stored model-file text.
    """
    f = _open_read(path)
    try:
        if _attr(f, "format") == TMM_FORMAT:   # a DT-TMM run (flexmbd.io.tmm_file): time series only
            tmm = True
        else:
            tmm = False
            res = _result_from_file(f, os.fspath(path))
    finally:
        f.close()
    if tmm:
        from .tmm_file import TmmResult

        if model is not None:
            raise ResultsFileError(f"{path}: a DT-TMM results file holds its outputs; it takes no model")
        try:
            return TmmResult(path)
        except (OSError, KeyError, ValueError) as exc:
            raise ResultsFileError(f"{path}: cannot read the DT-TMM results: {exc}") from None
    if model is not None:
        system = _freeze(model)
        if list(system.coordinate_names) != res.layout["coordinate_names"]:
            raise ResultsFileError(f"{path}: the given model's coordinates differ from the file's")
        res.system = system
    elif rebuild and res.model_text:
        res._rebuild = True  # only when an output that is not stored is asked for
    return res


def _rebuild_system(res):
    """Rebuild the System from the stored model text (None if that is not possible)."""
    model = model_from_text(res.model_text, res.attrs.get("model_format", ""), res.attrs.get("model_dir"))
    if model is None:
        return None
    try:
        system = _freeze(model)
    except Exception:  # noqa: BLE001
        return None
    if list(system.coordinate_names) != res.layout["coordinate_names"]:
        return None
    return system


def _freeze(model):
    """A System from a System, a Model or a model file's LoadedModel (warnings silenced)."""
    import warnings

    if hasattr(model, "coordinate_names"):
        return model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.freeze()


def model_from_text(text, fmt="", model_dir=None):
    """The model of stored model-file text: a :class:`~flexmbd.io.model_file.LoadedModel`
    (``.model``, ``.freeze()``), or None when the text is empty or cannot be loaded.
    ``model_dir``: the model file's directory (attribute ``model_dir``), against which the
    data files it names are found."""
    if not text:
        return None
    try:
        from .model_file import load_model_text
    except ImportError:
        return None
    try:
        file = None if not model_dir else str(pathlib.Path(model_dir) / "model")
        return load_model_text(text, file, fmt or None)
    except Exception:  # noqa: BLE001 - an invalid stored model: no rebuild
        return None


def existing_results(path) -> dict | None:
    """What an existing file is, to decide whether a new run may replace it: None when
    it is not a readable flexmbd results file (a text file, an empty or damaged file),
    else its ``model_name``, ``model_text`` and ``status``.  Read without HDF5's lock
    (the caller holds the write lock of :mod:`.file_guard`)."""
    h5py = _h5py()
    try:
        with h5py.File(os.fspath(path), "r", locking=False) as f:
            if _s(f.attrs.get("format", "")) != FORMAT:
                return None
            return {"model_name": _s(f.attrs.get("model_name", "")), "model_text": _s(f.attrs.get("model_text", "")),
                    "status": _s(f.attrs.get("status", ""))}
    except Exception:  # noqa: BLE001 - anything unreadable is "not a results file"
        return None


def replace_refusal(path, model_name: str, model_text: str) -> str | None:
    """Why ``path`` must not be replaced by a run of the model (``model_name``,
    ``model_text``) without being told to (``--force``), or None when it may: it does
    not exist, or it is a flexmbd results file of the same model (same name, or the
    same model-file text)."""
    if not os.path.lexists(path):
        return None
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        return None  # an empty file holds nothing to lose
    info = existing_results(path)
    if info is None:
        return f"{path} exists and is not a flexmbd results file"
    same = (model_name and info["model_name"] == model_name) or (model_text and info["model_text"] == model_text)
    if not same:
        return f"{path} holds the results of another model ({info['model_name'] or 'unnamed'!s})"
    return None


def resume_state(path):
    """The :class:`~flexmbd.solvers.dynamics.StepState` of the last saved step of ``path`` (to continue a run)."""
    from ..solvers.dynamics import StepState

    f = _open_read(path)
    try:
        with reading(path):
            n = check_structure(f, os.fspath(path))
            if n == 0:
                raise ResultsFileError(f"{path}: holds no saved step to resume from")
            row = {k: f[k][n - 1] for k in ARRAYS}
    finally:
        f.close()
    return StepState(float(row["t"]), row["q"].copy(), row["v"].copy(), row["qdd"].copy(), row["a"].copy(),
                     row["lam"].copy())


def resume_info(path):
    """Settings, status, model text and last saved time of a file, as a dict."""
    f = _open_read(path)
    try:
        with reading(path):
            return _info(f, os.fspath(path))
    finally:
        f.close()


def _info(f, path):
    n = check_structure(f, path)
    if n and not (np.isfinite(f["t"][0]) and np.isfinite(f["t"][n - 1])):
        raise ResultsFileError(f"{path}: damaged results file: the saved times are not numbers")
    return {"settings": settings_of(f, path),
            "status": _s(f.attrs.get("status", "running")),
            "model_text": _s(f.attrs.get("model_text", "")),
            "model_format": _s(f.attrs.get("model_format", "")),
            "n_saved": n, "t_last": float(f["t"][n - 1]) if n else None,
            "t_first": float(f["t"][0]) if n else None}


def check_same_model(path, info: dict, model_text: str | None) -> None:
    """Raise ResultsFileError when ``model_text`` (the model file given to resume
    ``path``) is not the one stored in it (``info`` from :func:`resume_info`)."""
    stored_text = info["model_text"]
    if model_text is not None and stored_text and model_text != stored_text:
        raise ResultsFileError(f"{path}: was written for a different model file (the stored model text differs); "
                               "resume with the same model file")


def resume_run(path, model=None, t_end=None, chunk=100, progress=None, model_text=None, outputs=None,
               stop=None, check_model=True, output_progress=None):
    """Continue the run stored in ``path`` to ``t_end`` (default: its stored t_end).

    The steps land on the grid ``t_start + k h`` of the original run, with the stored
    solver settings (:func:`stored_settings`), so the result equals the uninterrupted run
    (bit-for-bit with full Newton; a Jacobian kept across steps, ``refresh=i``, is rebuilt
    at the first step).

    model:      a Model, System or LoadedModel (default: rebuilt from the stored model text).
    model_text: the text of the model file given for the resumed run; with
                ``check_model`` it must equal the stored text (same model, same run).
    progress:   ``progress(t, step, n_steps, newton_stats)`` as in ``simulate``.
    outputs:    named outputs stored at the end (as in :meth:`ResultWriter.close`); default:
                the ``outputs`` list of the stored settings, or all of them.
    stop:       a callable; when it returns True the run stops after the current step
                (or while the outputs are written) and the file is closed with status
                "interrupted" (resumable again).
    output_progress: ``output_progress(i, n, name)`` while the outputs are written.
    Ctrl-C (KeyboardInterrupt) also closes the file as "interrupted" and re-raises.
    A completed file that needs no more steps (``t_end`` not past its last time) is
    not opened for writing at all: it is returned as it is.
    Returns the whole run as a :class:`StoredResult`; the file is closed with its status.
    """
    from ..solvers.dynamics import simulate

    info = resume_info(path)
    settings = dict(info["settings"])
    if info["n_saved"] == 0:
        raise ResultsFileError(f"{path}: holds no saved step to resume from")
    if settings.get("analysis") in ("static", "kinematic"):
        raise ResultsFileError(f"{path}: holds a {settings['analysis']} analysis, which is not resumed; run it again")
    if check_model:
        check_same_model(path, info, model_text)
    stored_text = info["model_text"]
    if model is None:
        model = model_from_text(stored_text, info["model_format"])
        if model is None:
            raise ResultsFileError(f"{path}: no model given and none can be rebuilt from the file; "
                                   "pass the model (flexmbd run MODEL --resume FILE)")
    if t_end is not None:
        settings["t_end"] = float(t_end)
    run = stored_settings(path, settings, info["t_first"] or 0.0)
    if info["status"] == "completed" and run.t_end <= info["t_last"] + 1e-9 * max(1.0, abs(info["t_last"])):
        return load_result(path, model=model)
    if run.t_end < info["t_last"] - 1e-9 * max(1.0, abs(info["t_last"])):
        raise ResultsFileError(f"{path}: the end time {run.t_end:.6g} s is before the last saved time "
                               f"{info['t_last']:.6g} s")
    h, t_end, t0 = run.h, run.t_end, run.t_start
    if outputs is None:
        outputs = settings.get("outputs") or True
    state = resume_state(path)
    system = _freeze(model)
    n_total = int(round((t_end - t0) / h))
    k0 = int(round((state.t - t0) / h))
    if abs(t0 + k0 * h - state.t) > 1e-9 * max(1.0, abs(state.t)):
        raise ResultsFileError(f"{path}: the last saved time {state.t:.17g} s is not on the grid t_start + k h")
    writer = ResultWriter(path, system, model_text=model_text, settings=settings, chunk=chunk, append=True)
    with writer:
        def on_step(st, stats):
            writer.on_step(st, stats)
            if stop is not None and stop():
                return False

        def report(t, k, n, newton_stats):
            if progress is not None:
                progress(t, k, n, newton_stats)

        last = simulate(system.model, settings=run.replace(t_end=t0 + n_total * h), start=state, grid_origin=t0,
                        system=system, on_step=on_step, progress=report)
        interrupted = not last.success and last.message.startswith("stopped by the caller")
        if last.steps:
            state = _last_state(last)
        if interrupted:
            writer.close(None, status="interrupted", message=f"interrupted at t = {state.t:.6g} s; resume again "
                         "with --resume", outputs=False)
        elif last.success:
            writer.close(None, status="completed", message="completed", outputs=outputs, stop=stop,
                         progress=output_progress)
        else:
            writer.close(last, outputs=outputs, stop=stop, progress=output_progress)
        if writer.write_error is not None:
            raise writer.write_error
    return load_result(path, model=system)


def _last_state(r):
    from ..solvers.dynamics import StepState

    return StepState(float(r.t[-1]), r.q[-1], r.v[-1], r.qdd[-1], r.a[-1], r.lam[-1])


def _config_offsets(layout):
    """Configuration-space offsets of the bodies (files written before they were stored:
    the velocity-space offsets, which were the same)."""
    return layout.get("body_config_offsets", layout["body_offsets"])

provide("save_result", save_result)
provide("load_result", load_result)
