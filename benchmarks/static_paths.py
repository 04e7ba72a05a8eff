"""The static Newton iterations compiled against the Python path, in one process.

    PYTHONPATH=. python benchmarks/static_paths.py [REPEAT]

Each model's static solve (the benchmark rows' settings) is timed on the compiled path
(solvers/compiled_static.py) and on the Python path, alternately, ``REPEAT`` times; the
minimum wall time of each, their ratio, and the largest difference of the equilibria.
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np

from flexmbd.examples.slider_crank import build
from flexmbd.solvers import static as static_module
from flexmbd.verify.cases import beams as vb

MODELS = {
    "ancf-cable-cantilever-32": lambda: (vb.cantilever("straight", 32, formulation="ancf-cable")[0], vb.solve),
    "ancf-cantilever-32": lambda: (vb.cantilever("straight", 32, formulation="ancf")[0], vb.solve),
    "slider-crank (P1, SDA spring)": lambda: (build(k=2e4, c=0.0), lambda m: m.static_equilibrium(load_steps=10)),
}


def timed(model, solve, python: bool):
    original = static_module.CompiledStatic.for_system
    if python:
        static_module.CompiledStatic.for_system = classmethod(lambda cls, *a: None)
    try:
        c0 = time.perf_counter()
        res = solve(model)
        return time.perf_counter() - c0, res
    finally:
        static_module.CompiledStatic.for_system = original


def main(repeat: int = 5) -> None:
    warnings.simplefilter("ignore")
    print(f"{'model':32s} {'compiled [ms]':>14s} {'python [ms]':>12s} {'ratio':>6s} {'iterations':>10s} {'max |Δq|':>9s}")
    for name, make in MODELS.items():
        model, solve = make()
        timed(model, solve, False), timed(model, solve, True)     # freeze, load the kernels
        best = {False: np.inf, True: np.inf}
        res = {}
        for _ in range(repeat):
            for python in (False, True):
                t, res[python] = timed(model, solve, python)
                best[python] = min(best[python], t)
        dq = np.abs(res[False].q - res[True].q).max()
        print(f"{name:32s} {1e3 * best[False]:14.2f} {1e3 * best[True]:12.2f} {best[False] / best[True]:6.2f} "
              f"{res[False].newton.iterations:>10d} {dq:9.1e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
