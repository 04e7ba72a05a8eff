"""The measured numbers of docs/solvers/tmm.md's verification table (the tests assert the
tolerances; this prints the values):

    PYTHONPATH=. python -m benchmarks.tmm_checks
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import test_tmm_beam as tb  # noqa: E402

from flexmbd.tmm.chain import Chain  # noqa: E402
from flexmbd.tmm.frequency import natural_frequencies  # noqa: E402
from flexmbd.tmm.modes import free_free_roots  # noqa: E402


def main():
    L, C = tb.L, tb.C_BEAM
    # simply supported, step load
    segs = tb.segments(8)
    chain = Chain(segs, "pinned", "pinned")
    w1 = (np.pi / L) ** 2 * C
    load = tb.shaped_load(segs, lambda x: 2e4 * np.sin(np.pi * x / L))
    t, acc, _, _ = chain.simulate(2 * np.pi / w1 / 200, 600, load=lambda t: load)
    ref = 2e4 / tb.RHOA * np.cos(w1 * t)
    print(f"SS step: mid {tb.relative_error(acc[:, 4, 0], ref):.2e}, "
          f"quarter {tb.relative_error(acc[:, 2, 0], ref * np.sin(np.pi / 4)):.2e}")
    # cantilever harmonic
    chain = Chain(segs, "clamped", "free")
    _, w1 = tb.cantilever_mode(0.0)
    Om = 0.6 * w1
    shape = tb.shaped_load(segs, lambda x: 5e3 * tb.cantilever_mode(x)[0])
    t, acc, _, _ = chain.simulate(2 * np.pi / w1 / 200, 800, load=lambda t: shape * np.sin(Om * t))
    qdd = 5e3 / tb.RHOA * Om * (w1 * np.sin(w1 * t) - Om * np.sin(Om * t)) / (w1 ** 2 - Om ** 2)
    print(f"cantilever harmonic: tip {tb.relative_error(acc[:, 8, 0], 2 * qdd):.2e}, "
          f"mid {tb.relative_error(acc[:, 4, 0], tb.cantilever_mode(L / 2)[0] * qdd):.2e}")
    # Riccati vs direct on the mixed chain
    worst = 0.0
    for left, right in [("free", "free"), ("clamped", "free"), ("pinned", "pinned"), ("free", "clamped")]:
        rng = np.random.default_rng(3)
        a, b = tb.mixed_chain(left, right), tb.mixed_chain(left, right)
        ld = rng.normal(size=a.zero_load().shape) * 1e3
        q, qd = rng.normal(size=a.q.shape) * 1e-5, rng.normal(size=a.q.shape) * 1e-3
        q[a._rigid[:, 0]] = qd[a._rigid[:, 0]] = 0.0
        for c in (a, b):
            c.q, c.qd = q.copy(), qd.copy()
        for h in (1e-3, 1e-5, 1e-7):
            fa, aa = a.step(h, ld, "riccati")
            fb, ab = b.step(h, ld, "direct")
            worst = max(worst, np.max(np.abs(aa - ab)) / np.max(np.abs(ab)), np.max(np.abs(fa - fb)) / np.max(np.abs(fb)))
    print(f"Riccati vs direct: worst relative difference {worst:.1e}")
    c = C / (2 * np.pi)
    ff = natural_frequencies(tb.segments(4), "free", "free", 5000.0)[:5]
    ss = natural_frequencies(tb.segments(4), "pinned", "pinned", 5000.0)[:5]
    print("FD-TMM free-free rel. errors", ff / ((free_free_roots(5) / L) ** 2 * c) - 1)
    print("FD-TMM pinned rel. errors", ss / ((np.arange(1, 6) * np.pi / L) ** 2 * c) - 1)
    se3_comparison()


def se3_comparison():
    """The numbers of test_cantilever_matches_flexmbd_geometrically_exact_beam_at_small_amplitude."""
    err = tb.se3_comparison()
    print(f"vs SE(3) beams: tip deflection {err['tip']:.2e}, mid {err['mid']:.2e}, "
          f"tip acceleration {err['tip acceleration']:.2e}")


if __name__ == "__main__":
    main()
