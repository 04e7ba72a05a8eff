"""Run a study on Dask: a local cluster of processes, or an existing scheduler.

Each case is one Dask task (:func:`flexmbd.sweep.case.run_case`) submitted with a key of
its own; :func:`distributed.as_completed` hands the results back as cases finish and
each is written to the table at once (:class:`~.table.StudyWriter`).  Scheduling,
load balancing and re-running the tasks of a worker that died are Dask's (its
``allowed_failures``): the study only writes what comes back, once per case key.  A task
that Dask gives up on (``KilledWorker``) is recorded as a failed case with that error.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time

from .case import run_case
from .keypath import KeyPathError, resolve
from .spec import Param, SweepSpecError, case_key, make_cases, parse_param, parse_values
from .table import Study, StudyWriter, read_study

INSTALL_HINT = 'flexmbd sweep needs Dask: pip install "flexmbd[sweep]"'


class DaskMissing(ImportError):
    """Dask (distributed) is not installed."""


def _dask():
    try:
        import distributed
    except ImportError:
        raise DaskMissing(INSTALL_HINT) from None
    return distributed


def _params(params) -> list[Param]:
    if isinstance(params, dict):
        return [parse_values(str(k), v) for k, v in params.items()]
    return [p if isinstance(p, Param) else parse_param(p) for p in params]


class Progress:
    """Cases done / failed / running and the ETA, on one line (a terminal) or a line
    every few seconds (a log)."""

    def __init__(self, total, stream=None, enabled=True, every=5.0):
        self.total, self.stream, self.enabled = total, stream or sys.stderr, enabled
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every = 0.2 if self.tty else every
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.done = self.failed = 0

    def line(self, running) -> str:
        n = self.done + self.failed
        el = time.perf_counter() - self.t0
        eta = (self.total - n) * el / n if n else float("nan")
        eta_s = f"ETA {eta:.0f} s" if n and n < self.total else ("done" if n >= self.total else "ETA -")
        return (f"cases {n}/{self.total}: {self.done} completed, {self.failed} failed, {running} running, "
                f"{el:.0f} s, {eta_s}")

    def update(self, running, force=False):
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < self.every):
            return
        self.last = now
        text = self.line(running() if callable(running) else running)
        try:
            if self.tty:
                self.stream.write("\r" + text.ljust(100))
                if force:
                    self.stream.write("\n")
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False


def _client(distributed, scheduler, workers, stream, quiet):
    """(client, cluster or None)."""
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout="15s")
        except (OSError, TimeoutError) as exc:
            raise SweepSpecError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({exc})") from None
        return client, None
    n = int(workers) if workers else max(1, os.cpu_count() or 1)
    if n < 1:
        raise SweepSpecError("--workers must be ≥ 1")
    with _sigint_ignored():  # Ctrl-C stops the study (this process), not the workers mid-task
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           silence_logs=logging.ERROR, dashboard_address=":0")
    return distributed.Client(cluster), cluster


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while the local workers start: they inherit that, so a Ctrl-C on the
    terminal (sent to the whole process group) interrupts the study here, which then closes
    the cluster in order, instead of each worker printing its own KeyboardInterrupt."""
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, old)


def _dashboard(client) -> str | None:
    try:
        if "dashboard" in client.scheduler_info().get("services", {}):
            return client.dashboard_link
    except Exception:  # noqa: BLE001 - the link is a courtesy
        return None
    return None


def plan(model, params, mode="grid", samples=None, seed=0):
    """(text, file, [Param], [(case number, {path: value}, {index path: value}, key)])
    of a study; bad key paths and parameter specs raise :class:`SweepSpecError`."""
    from ..io.model_file import ModelFileError, load_model_text, parse_text, read_file

    file = str(model)
    text = read_file(file)
    data, _ = parse_text(text, file)
    plist = _params(params)
    index = {}
    for p in plist:
        try:
            index[p.path] = resolve(data, p.path)
        except KeyPathError as exc:
            raise SweepSpecError(str(exc)) from None
    cases = []
    for i, vals in enumerate(make_cases(plist, mode, samples, seed)):
        cases.append((i, vals, {index[k]: v for k, v in vals.items()}, case_key(vals)))
    try:  # a value the file cannot take stops the study before it starts (the first case)
        load_model_text(text, file, values=cases[0][2])
    except ModelFileError:
        raise
    return text, file, plist, cases


def sweep(model, params, mode: str = "grid", samples: int | None = None, seed: int = 0,
          scheduler: str | None = None, workers: int | None = None, output=None, series: bool = False,
          resume: bool = False, force: bool = False, progress: bool = True, stream=None) -> Study:
    """Run a parameter study of a model file on Dask and return its table (a :class:`Study`).

    ``params``: {key path: values} (a list, or a text such as ``"log:1e2:1e6:5"``) or
    ``["PATH=VALUES", ...]`` as on the command line; ``mode``: "grid", "zip" or
    "samples" (``samples`` random cases drawn with ``seed``).  ``scheduler``: the address
    of a running Dask scheduler; without it a local cluster of ``workers`` processes is
    started and stopped.  ``output``: a .h5 or .parquet file written as cases finish
    (``resume`` runs only the cases it lacks; ``force`` replaces it); ``series`` also
    stores each case's histories.  See docs/sweep.md."""
    distributed = _dask()
    stream = stream or sys.stderr
    text, file, plist, cases = plan(model, params, mode, samples, seed)
    paths = [p.path for p in plist]
    from ..io.model_file import parse_text

    name = (parse_text(text, file)[0] or {}).get("name", "")
    meta = {"model_text": text, "model_file": os.path.abspath(file), "model_name": name, "mode": mode,
            "samples": samples or 0, "seed": seed}
    writer = StudyWriter(output, paths, meta, resume=resume, force=force, series=series) if output else None
    rows = {} if writer is None else None
    todo = [c for c in cases if writer is None or c[3] not in writer.keys]
    prog = Progress(len(todo), stream, enabled=progress)
    if progress and writer is not None and len(todo) < len(cases):
        print(f"{output}: {len(cases) - len(todo)} of {len(cases)} cases already done; running the other "
              f"{len(todo)}", file=stream)
    complete = False
    client = cluster = None
    try:
        if todo:
            client, cluster = _client(distributed, scheduler, workers, stream, not progress)
            link = _dashboard(client)
            if progress:
                where = f"scheduler {scheduler}" if scheduler else \
                    f"a local Dask cluster of {len(client.scheduler_info()['workers'])} worker processes"
                print(f"{len(todo)} cases on {where}" + (f"; dashboard: {link}" if link else ""), file=stream)
            futures = {}
            for i, vals, idx, key in todo:
                fut = client.submit(run_case, text, file, idx, series, key=f"flexmbd-case-{i}-{abs(hash(key))}",
                                    pure=False)
                futures[fut] = (i, vals, key)
            pending = set(futures)
            for fut in distributed.as_completed(list(futures)):
                i, vals, key = futures[fut]
                pending.discard(fut)
                hist = None
                if fut.status == "finished":
                    out = fut.result()
                    row, hist = out["row"], out["series"]
                else:
                    exc = fut.exception()
                    row = {"status": "failed", "message": f"{type(exc).__name__}: {exc}"}
                fut.release()
                row = {"case": i, "key": key, **vals, **row}
                if writer is not None:
                    writer.add(row, hist)
                else:
                    rows.setdefault(key, row)
                if row["status"] == "completed":
                    prog.done += 1
                else:
                    prog.failed += 1
                prog.update(lambda: min(len(pending), _n_workers(client)))  # asked only when shown
            prog.update(0, force=True)
        complete = True
    finally:
        if writer is not None:
            writer.close(complete=complete)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    if writer is not None:
        return read_study(output)
    return Study(list(rows.values()), paths, meta)


def _n_workers(client) -> int:
    try:
        return sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
    except Exception:  # noqa: BLE001
        return 0


__all__ = ["sweep", "plan", "DaskMissing", "INSTALL_HINT", "Progress"]
