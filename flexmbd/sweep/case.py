"""One case of a study, run where Dask puts it (a worker process, maybe on another machine).

:func:`run_case` gets the model file's *text* (workers need not see the file) and the
values to set by index path, loads the model as ``flexmbd run`` does
(:func:`flexmbd.io.model_file.load_model_text`, so a ``parameters:`` change re-evaluates
the expressions that depend on it), runs its analysis quietly and returns one table row:
status, message, the run's statistics and, for every named output of the file, its final
value and extrema.  It never raises: a bad value or a failed run is a row with status
"failed" and the reason, so one case cannot stop a study.
"""
from __future__ import annotations

import io
import math
import os
import socket
import time
import warnings

import numpy as np

#: Columns every row has (after the case's parameters), in this order.
STAT_COLUMNS = ("status", "message", "t_final", "steps", "mean_iterations", "max_iterations", "iterations",
                "step_seconds", "wall_time", "worker")


def _components(name, arr):
    """(column stem, 1-D history) of each scalar component of an output history."""
    a = np.asarray(arr, dtype=float)
    if a.ndim <= 1:
        return [(name, a.reshape(-1))]
    flat = a.reshape(a.shape[0], -1)
    return [(f"{name}[{i}]", flat[:, i]) for i in range(flat.shape[1])]


def _finite(x):
    x = float(x)
    return x if math.isfinite(x) else float("nan")


def summarize(res, outputs) -> tuple[dict, dict]:
    """(scalar columns, histories) of a result: statistics, then ``NAME.final``,
    ``NAME.min``, ``NAME.max`` for each scalar component of each named output."""
    row, series = {}, {}
    t = np.asarray(getattr(res, "t", []), dtype=float)
    row["t_final"] = _finite(t[-1]) if len(t) else float("nan")
    row["steps"] = int(max(len(t) - 1, 0))
    lf = getattr(res, "load_factor", None)
    if lf is not None and len(lf):  # a static analysis: its load path instead of a time
        row["t_final"] = _finite(np.asarray(lf)[-1])
        row["steps"] = int(max(len(lf) - 1, 0))  # load steps after the unloaded start
    stats = getattr(res, "stats", {}) or {}
    it = np.asarray(stats.get("iterations", []), dtype=float)[1:]
    try:
        row["mean_iterations"] = float(res.mean_iterations())
        row["max_iterations"] = int(res.max_iterations())
    except Exception:  # noqa: BLE001 - an analysis without Newton statistics
        row["mean_iterations"] = float(it.mean()) if len(it) else float("nan")
        row["max_iterations"] = int(it.max()) if len(it) else 0
    if not len(it):  # no step completed: no mean
        row["mean_iterations"] = float("nan")
    row["iterations"] = int(it.sum()) if len(it) else 0
    sec = np.asarray(stats.get("seconds", []), dtype=float)[1:]
    row["step_seconds"] = float(sec.sum()) if len(sec) else _finite(getattr(res, "wall_time", float("nan")))
    if len(t):
        series["t"] = t
    if "iterations" in stats:
        series["iterations"] = np.asarray(stats["iterations"])
    for name in outputs:
        try:
            hist = res[name]
        except Exception:  # noqa: BLE001 - an output the failed run never reached
            continue
        for stem, h in _components(name, hist):
            if not len(h):
                continue
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row[f"{stem}.final"] = _finite(h[-1])
                row[f"{stem}.min"] = _finite(np.nanmin(h)) if np.isfinite(h).any() else float("nan")
                row[f"{stem}.max"] = _finite(np.nanmax(h)) if np.isfinite(h).any() else float("nan")
            series[stem] = h
    return row, series


def _output_names(loaded) -> list:
    """The file's ``outputs`` as written (``rod.last.position``, not the node it stands for,
    which changes with the element count), else as validated."""
    raw = (loaded.data or {}).get("outputs")
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw) and len(raw) == len(loaded.spec.outputs):
        return list(raw)
    return list(loaded.spec.outputs)


def run_case(text: str, file: str | None, values: dict, series: bool = False) -> dict:
    """Run one case; returns {"row": {...}, "series": {name: array} or None}.

    ``values``: {index path: value} (:func:`flexmbd.sweep.keypath.resolve` paths)."""
    from ..io.model_file import load_model_text
    from ..io.model_run import _run_with_writer

    c0 = time.perf_counter()
    row = {"status": "failed", "message": "", "worker": f"{socket.gethostname()}:{os.getpid()}"}
    hist = None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            loaded = load_model_text(text, file, values=values)
            system = loaded.freeze()
            if loaded.kinematic:
                loaded.check_kinematic(system)
            elif not loaded.static:
                loaded.initial_state()
        sink = io.StringIO()
        outcome = _run_with_writer(loaded, system, None, None, True, sink, sink, float("inf"), None)
        outputs = _output_names(loaded)
        if outcome.result is not None:
            stats, hist = summarize(outcome.result, outputs)
            row.update(stats)
        row["status"] = "completed" if outcome.status == 0 else "failed"
        row["message"] = " ".join(str(outcome.message or "").split())
    except Exception as exc:  # noqa: BLE001 - a case's failure is a row, never the study's end
        msg = " ".join(str(exc).split()) or type(exc).__name__
        row["message"] = msg if type(exc).__name__ in ("ModelFileError", "RunError") else \
            f"{type(exc).__name__}: {msg}"
    row["wall_time"] = time.perf_counter() - c0
    return {"row": row, "series": hist if series else None}


__all__ = ["run_case", "summarize", "STAT_COLUMNS"]
