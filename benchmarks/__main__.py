"""Benchmark runner: time per step and per Newton iteration, appended to results.

    python -m benchmarks                 # every benchmark, 3 repeats
    python -m benchmarks slider-crank-100 --repeat 5
    python -m benchmarks --list

Each benchmark builds its model, runs it ``repeat`` times and records min and median
wall time, steps, Newton iterations, per-step and per-iteration times, the machine and
the git commit, in benchmarks/results.jsonl (one JSON object per line) and prints a
table.  Timings live here and never in pass/fail tests.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

from .models import BENCHMARKS

RESULTS = Path(__file__).with_name("results.jsonl")


def machine():
    import numpy
    import scipy

    try:
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    except OSError:
        cpu = platform.processor()
    import os

    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "platform": platform.platform()}


def commit():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":!benchmarks/results.jsonl"], capture_output=True, text=True,
                               cwd=Path(__file__).parent.parent).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_one(name, repeat):
    bench = BENCHMARKS[name]
    times, res = [], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeat):
            model = bench.build()
            t0 = time.perf_counter()
            res = bench.run(model)
            times.append(time.perf_counter() - t0)
    tmin, tmed = min(times), statistics.median(times)
    steps, its = res.steps, int(res.stats["iterations"].sum())
    return {"benchmark": name, "description": bench.description, "wall_min_s": tmin, "wall_median_s": tmed,
            "repeat": repeat, "steps": steps, "newton_iterations": its, "success": res.success,
            "per_step_ms": 1e3 * tmin / max(steps, 1), "per_iteration_ms": 1e3 * tmin / max(its, 1),
            "check": bench.check(res), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "commit": commit(),
            "machine": machine()}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-save", action="store_true", help="do not append to results.jsonl")
    args = ap.parse_args(argv)
    if args.list:
        for n, b in BENCHMARKS.items():
            print(f"{n:28s} {b.description}")
        return 0
    names = args.names or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; known: {list(BENCHMARKS)}", file=sys.stderr)
        return 2
    print(f"{'benchmark':28s} {'min [s]':>9s} {'median [s]':>10s} {'steps':>6s} {'iters':>6s} "
          f"{'ms/step':>8s} {'ms/iter':>8s}  check")
    for n in names:
        row = run_one(n, args.repeat)
        print(f"{n:28s} {row['wall_min_s']:9.4f} {row['wall_median_s']:10.4f} {row['steps']:6d} "
              f"{row['newton_iterations']:6d} {row['per_step_ms']:8.3f} {row['per_iteration_ms']:8.3f}  {row['check']}")
        if not args.no_save:
            with open(RESULTS, "a") as f:
                f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
