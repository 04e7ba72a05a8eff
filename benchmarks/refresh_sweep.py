"""The kept-matrix Newton policy's refresh limits against ``refresh='step'`` on a benchmark
row: counts (iterations, factorizations, residual evaluations: exact) and times (CPU and
wall, min over repeats; on a shared machine read the counts, or compare runs made in the
same minutes).

    PYTHONPATH=. python benchmarks/refresh_sweep.py ROW REPEAT LIMIT:AGE[,LIMIT:AGE…] [project]

LIMIT is the contraction θ above which the matrix is refreshed
(solvers/newton.py ``CONTRACTION_LIMIT``), AGE the kept iterations of a step after which it
is (``AGE_LIMIT``); both reach the compiled step as arguments, so no recompilation.
``project``: ``both`` (default: with and without the velocity projection), ``on`` or
``off`` (docs/performance.md, "Kept-matrix iterations").
"""
from __future__ import annotations

import sys
import time
import warnings

import flexmbd.solvers.dynamics as dynamics
from benchmarks.models import BENCHMARKS


def main(row: str, repeat: str, cases: str, project: str = "both") -> None:
    warnings.simplefilter("ignore")
    bench = BENCHMARKS[row]
    runs = [("step", dynamics.CONTRACTION_LIMIT, dynamics.AGE_LIMIT)]
    for case in cases.split(","):
        limit, age = case.split(":")
        runs.append(("contraction", float(limit), int(age)))
    projections = {"both": (None, False), "on": (None,), "off": (False,)}[project]
    defaults = dynamics.CONTRACTION_LIMIT, dynamics.AGE_LIMIT
    for proj in projections:
        for refresh, limit, age in runs:
            dynamics.CONTRACTION_LIMIT, dynamics.AGE_LIMIT = limit, age
            wall = cpu = float("inf")
            for _ in range(int(repeat)):
                model = bench.build()
                c0, w0 = time.process_time(), time.perf_counter()
                res = model.simulate(t_end=bench.steps * bench.h, h=bench.h, multipliers="integrator",
                                     refresh=refresh, project_velocities=proj)
                wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
            nw = res.newton
            label = "step" if refresh == "step" else f"contraction θ > {limit:g}, age {age}"
            print(f"{label:32s} projection {'off' if proj is False else 'on ':3s}  CPU {1e3 * cpu:9.2f} ms  "
                  f"wall {1e3 * wall:9.2f} ms  iterations {nw.iterations:5d}  factorizations "
                  f"{nw.factorizations:4d}  residual evaluations {nw.residual_evaluations:5d}", flush=True)
    dynamics.CONTRACTION_LIMIT, dynamics.AGE_LIMIT = defaults


if __name__ == "__main__":
    main(*sys.argv[1:])
