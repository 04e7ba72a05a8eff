"""Throughput of ``flexmbd sweep``: cases per minute on 1 and 2 Dask worker processes of
this machine, and the same cases one by one in one process (docs/sweep.md).

    python -m benchmarks.sweep_throughput              # 24 cases of P1's slider-crank study
    python -m benchmarks.sweep_throughput --cases 48 --workers 1,2

The study: benchmarks/sweeps/slider-crank-p1.yaml (100 Newmark steps), k on a log range
× the Newton matrix with and without the SDA's ∂Q/∂q (P1's study A, with more k values).
For each worker count a local cluster of processes is started (not timed), every worker
runs one case first (Numba's cached machine code is loaded then: not timed), then the
study is timed from submission to the last row written, table included.  "one by one"
runs :func:`flexmbd.sweep.case.run_case` in a loop in this process (warm).  The figures
and the machine are appended to benchmarks/sweep_throughput.jsonl.
"""
from __future__ import annotations

import argparse
import io
import json
import logging
import os
import pathlib
import platform
import subprocess
import tempfile
import time

HERE = pathlib.Path(__file__).parent
MODEL = HERE / "sweeps" / "slider-crank-p1.yaml"


def params(n):
    return {"forces.sda.k": f"log:1e2:1e6:{max(1, n // 2)}", "solver.jacobian": ["full", "M1+M3"]}


def one_by_one(n):
    from flexmbd.io.model_file import parse_text, read_file
    from flexmbd.sweep.case import run_case
    from flexmbd.sweep.keypath import resolve
    from flexmbd.sweep.spec import make_cases, parse_values

    text = read_file(MODEL)
    data = parse_text(text, str(MODEL))[0]
    cases = make_cases([parse_values(k, v) for k, v in params(n).items()])
    idx = [{resolve(data, k): v for k, v in c.items()} for c in cases]
    run_case(text, str(MODEL), idx[0])  # warm
    t0 = time.perf_counter()
    for v in idx:
        assert run_case(text, str(MODEL), v)["row"]["status"] == "completed"
    return len(idx), time.perf_counter() - t0


def on_cluster(n, workers):
    import distributed

    from flexmbd.sweep import sweep

    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  silence_logs=logging.ERROR, dashboard_address=None) as cluster:
        with tempfile.TemporaryDirectory() as tmp:
            # warm-up: one case per worker (kernels loaded from Numba's cache)
            sweep(MODEL, {"forces.sda.k": [1e3 + i for i in range(workers)]}, scheduler=cluster.scheduler_address,
                  progress=False)
            out = os.path.join(tmp, "study.h5")
            t0 = time.perf_counter()
            study = sweep(MODEL, params(n), scheduler=cluster.scheduler_address, output=out, progress=False,
                          stream=io.StringIO())
            wall = time.perf_counter() - t0
    assert set(study.column("status")) == {"completed"}
    return len(study), wall


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=24)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args(argv)
    rows = []
    n, wall = one_by_one(args.cases)
    rows.append(("one by one (1 process)", n, wall))
    for w in [int(x) for x in args.workers.split(",")]:
        n, wall = on_cluster(args.cases, w)
        rows.append((f"sweep, {w} worker{'s' if w > 1 else ''}", n, wall))
    print("| run | cases | wall [s] | cases/min |\n|---|---:|---:|---:|")
    for name, n, wall in rows:
        print(f"| {name} | {n} | {wall:.2f} | {60 * n / wall:.0f} |")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=HERE).stdout.strip()
    except OSError:
        commit = ""
    rec = {"benchmark": "sweep-throughput", "model": MODEL.name, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
           "commit": commit, "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
           "runs": [{"run": name, "cases": n, "wall_s": wall, "cases_per_min": 60 * n / wall}
                    for name, n, wall in rows]}
    with open(HERE / "sweep_throughput.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
