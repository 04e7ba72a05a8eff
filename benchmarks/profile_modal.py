"""Time per step of the crank-slider with modal beams (docs/elements/ffr-beam.md, "Performance"):

    python -m benchmarks.profile_modal                 # ms per step
    python -m pyinstrument -m benchmarks.profile_modal # where the time goes

P3's Model II with pinned-pinned modal beams (3 bending modes each, foreshortening),
generalized-α ρ∞ = 0.8, h = 3e-5 s: a short warm-up run, then 200 steps timed.
"""
from __future__ import annotations

import time

import flexmbd as fm
from flexmbd.examples.ffr_beams import crank_slider_model


def main(steps: int = 200, modes: int = 3) -> float:
    model = crank_slider_model("II", modes)
    run = dict(h=3e-5, integrator=fm.GeneralizedAlpha(0.8))
    model.simulate(t_end=10 * run["h"], **run)            # warm-up (kernels compiled, caches filled)
    t0 = time.perf_counter()
    res = model.simulate(t_end=steps * run["h"], **run)
    ms = 1e3 * (time.perf_counter() - t0) / steps
    print(f"{res.summary().splitlines()[0]}\n{ms:.2f} ms per step")
    return ms


if __name__ == "__main__":
    main()
