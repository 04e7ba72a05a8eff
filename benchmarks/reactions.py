"""Joint reactions over a long stored run against the run itself.

    python -m benchmarks.reactions [steps]      # default 100000

The P1 slider-crank (k = 2e4, c = 1e3) over 1 s with h = 1/steps, every step stored: wall
time of the simulation (compiled kernels warm), then of the four joint reaction outputs
(each one computed from the stored q and λ of all steps at once, Result.reaction), the
first of them including the one-time compilation of the batched Jacobian kernel when the
cache is cold.
"""
from __future__ import annotations

import sys
import time
import warnings

from flexmbd.examples.slider_crank import build

JOINTS = ("crank_pin", "elbow", "wrist", "slide")


def main(steps: int = 100_000) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build().simulate(t_end=0.01, h=1e-3)["slide.reaction"]        # warm the kernels
        res = build(k=2e4, c=1e3).simulate(t_end=1.0, h=1.0 / steps)
    print(f"P1 slider-crank, {steps} steps stored: simulation {res.wall_time:.2f} s wall")
    total = 0.0
    for j in JOINTS:
        c0 = time.perf_counter()
        res[f"{j}.reaction"]
        dt = time.perf_counter() - c0
        total += dt
        print(f"  {j}.reaction: {dt:.3f} s")
    print(f"  all four: {total:.3f} s ({total / res.wall_time:.1%} of the simulation)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
