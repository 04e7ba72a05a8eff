"""CPU time a benchmark run spends outside its compiled step kernel: freezing, initial
conditions, settings, recording the results (the run's ``time.thread_time`` minus that of
``kernels/time_loop.run_steps``), min and median over repeated builds and runs of the
row's model, and the Python calls of one run (cProfile; a count the machine's load does
not change).

    PYTHONPATH=. python benchmarks/outside_loop.py slider-crank-100 [repeat]
    PYTHONPATH=. python benchmarks/outside_loop.py slider-crank-100 --first [--calls]

``--first``: the CPU time (or with ``--calls`` the Python calls) of the first freeze of
the row's model in this process, after a 2-body chain has loaded the kernels (the
runner's warm-up would have frozen P1's slider-crank already); one number a process.

docs/performance.md, "Freezing small models".
"""
from __future__ import annotations

import cProfile
import pstats
import sys
import time
import warnings

import numpy as np

from benchmarks.__main__ import warm_up
from benchmarks.models import BENCHMARKS
from flexmbd.kernels import time_loop


def main(name: str, repeat: int = 100) -> None:
    warnings.simplefilter("ignore")
    bench = BENCHMARKS[name]
    warm_up(True)
    for _ in range(5):
        bench.run(bench.build())
    kernel_run = time_loop.run_steps
    inside = [0.0]

    def timed(*args):
        t0 = time.thread_time()
        out = kernel_run(*args)
        inside[0] += time.thread_time() - t0
        return out

    time_loop.run_steps = timed      # CompiledLoop takes the kernel from the module when it is made
    runs, outside = [], []
    try:
        for _ in range(repeat):
            model = bench.build()
            inside[0] = 0.0
            t0 = time.thread_time()
            bench.run(model)
            runs.append(time.thread_time() - t0)
            outside.append(runs[-1] - inside[0])
    finally:
        time_loop.run_steps = kernel_run
    profile = cProfile.Profile()
    profile.runcall(bench.run, bench.build())
    print(f"{name}: run {min(runs) * 1e3:.2f} ms; outside the kernel min {min(outside) * 1e3:.2f} ms, "
          f"median {np.median(outside) * 1e3:.2f} ms; Python calls a run {pstats.Stats(profile).total_calls}")


def first_freeze(name: str, calls: bool = False) -> None:
    from benchmarks.models import chain
    from flexmbd.system import freeze_reporting

    warnings.simplefilter("ignore")
    chain(2).simulate(t_end=3e-3, h=1e-3)
    model = BENCHMARKS[name].build()
    if calls:
        profile = cProfile.Profile()
        profile.runcall(freeze_reporting, model)
        print(f"{name}: first freeze in this process: {pstats.Stats(profile).total_calls} Python calls")
        return
    t0 = time.thread_time()
    freeze_reporting(model)
    print(f"{name}: first freeze in this process: {(time.thread_time() - t0) * 1e3:.2f} ms CPU")


if __name__ == "__main__":
    if "--first" in sys.argv:
        first_freeze(sys.argv[1], "--calls" in sys.argv)
    else:
        main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100)
