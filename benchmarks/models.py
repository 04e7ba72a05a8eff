"""The benchmark models.

Each benchmark is a :class:`Benchmark`: ``build()`` makes the model (not timed),
``run(model)`` is timed and returns the Result, ``check(result)`` compares the answer
with a reference (a faster wrong answer does not count) and returns a one-line verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from flexmbd.examples import slider_crank


@dataclass
class Benchmark:
    description: str
    build: Callable
    run: Callable
    check: Callable


def _slider_crank(steps, h):
    def check(res):
        from flexmbd.verify.references import slider_crank_minimal

        ref = slider_crank_minimal(2e4, 1e3, t_end=steps * h)
        err = float(np.max(np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t))))
        return f"max slider error vs minimal coordinates {err:.2e} m"

    return Benchmark(f"P1 slider-crank (k = 2e4, c = 1e3), {steps} Newmark steps of {h} s",
                     lambda: slider_crank.build(k=2e4, c=1e3),
                     lambda m: m.simulate(t_end=steps * h, h=h), check)


def _tensegrity(steps):
    from flexmbd.examples import tensegrity
    from flexmbd.solvers.integrators import Newmark

    def check(res):
        e = res["energy.numerical_dissipation"]
        return f"completed {res.success}; |numerical dissipation| {abs(e[-1]):.2e} J of {res['energy.total'][0]:.3f} J"

    return Benchmark(f"P1 tensegrity tower (6 bars, 24 cables, k = 200, c = 10), {steps} Newmark steps of 0.01 s",
                     lambda: tensegrity.build_tower(k=200.0, c=10.0).model,
                     lambda m: m.simulate(t_end=steps * 0.01, h=0.01, integrator=Newmark(0.3, 0.6)), check)


BENCHMARKS = {
    "slider-crank-100": _slider_crank(100, 0.01),
    "slider-crank-10000": _slider_crank(10000, 1e-4),
    "tensegrity-100": _tensegrity(100),
}
