"""Runs with time-dependent inputs: the compiled step loop against the per-step path.

    python -m benchmarks.time_inputs                 # both rows, alternating in one process
    python -m benchmarks.time_inputs --runner ffr-spin-up --no-save
                                                     # the runner with the per-step path forced

Rows (docs/performance.md, "Time-dependent inputs in the compiled loop"): ffr-spin-up
with the runner's settings (1000 steps, hub driven by its angle law), and the
``driven-crank`` model file (motor angle expression, ramped push; its own settings:
generalized-α, h = 1e-3 s, consistent multipliers) run for 2000 steps.  Each run's
``Result.wall_time``; the per-step path by replacing ``solvers.dynamics.loop_reason``
(what the code before the compiled loop took these runs for).  Also the cost of
evaluating the spin-up's time rows alone.
"""
from __future__ import annotations

import runpy
import sys
import time
import warnings

import numpy as np

from flexmbd.solvers import dynamics

ORIGINAL = dynamics.loop_reason


def _path(which: str) -> None:
    dynamics.loop_reason = ORIGINAL if which == "compiled" else (lambda *a: "per step (forced)")


def spin_up():
    from flexmbd.examples.ffr_beams import spin_up_model

    return (lambda: spin_up_model("modal", stiffening=False, modes=3, omega=2.0),
            dict(t_end=20.0, h=0.02, project_velocities=False, multipliers="integrator"))


def driven_crank():
    from pathlib import Path

    import flexmbd
    from flexmbd.io.model_file import load_model_file

    path = Path(flexmbd.__file__).parent / "models" / "driven-crank.yaml"
    settings = load_model_file(path, t_end=2.0).simulate_settings()
    return (lambda: load_model_file(path).model), dict(settings=settings)


def compare(name: str, rows, repeat: int = 6) -> None:
    build, options = rows
    times, last = {"compiled": [], "per step": []}, {}
    for r in range(repeat + 1):
        for which in times:
            _path(which)
            res = build().simulate(**options)
            assert res.success, res.message
            if r:
                times[which].append(res.wall_time)
            last[which] = res
    _path("compiled")
    a, b = last["compiled"], last["per step"]
    steps = len(a.t) - 1
    print(f"{name}: {steps} steps; time_loop: {a.stats['time_loop']!r}")
    for which, v in times.items():
        print(f"  {which:9s} min {min(v) * 1e3:8.1f} ms  median {np.median(v) * 1e3:8.1f} ms  "
              f"{min(v) / steps * 1e6:6.1f} µs a step")
    print(f"  max |Δq| {np.max(np.abs(a.q - b.q)):.2e}, max |Δλ| / max |λ| "
          f"{np.max(np.abs(a.lam - b.lam)) / max(np.max(np.abs(b.lam)), 1e-300):.2e}")


def time_rows_cost() -> None:
    from flexmbd.solvers.compiled_loop import time_rows

    ca = spin_up()[0]().freeze().compiled
    targets = 0.02 * np.arange(1, 1001)
    best = np.inf
    for _ in range(5):
        c0 = time.perf_counter()
        time_rows(ca, 0.0, targets)
        best = min(best, time.perf_counter() - c0)
    print(f"ffr-spin-up time rows alone: {best * 1e6 / len(targets):.1f} µs a step")


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--runner":
        _path("per step")
        sys.argv = ["benchmarks", *argv[1:]]
        runpy.run_module("benchmarks", run_name="__main__", alter_sys=True)
        return
    warnings.simplefilter("ignore")
    compare("ffr-spin-up", spin_up())
    compare("driven-crank", driven_crank())
    time_rows_cost()


if __name__ == "__main__":
    main(sys.argv[1:])
