"""P2's crank-rocker with Coulomb friction in the slot: the paper's figures and the
Baumgarte drift study, by the event-driven solver.

    python -m benchmarks.p2_crank_rocker figures   # docs/p2_crank_rocker.png (+ table vs Newton-Euler)
    python -m benchmarks.p2_crank_rocker drift     # constraint drift, α = β ∈ {0, 2, 10}, h ∈ {0.02, 0.01, 0.001}

Figures (P2's): θ1' and θ2' versus θ2; the rocker's angular acceleration θ1'' versus θ2
(zero at θ2 = 0 and π); the normal force λ_N (signed: the side of the slot) and the
friction force F_f versus θ2 (F_f jumps where the sliding reverses) — for c = 0 and
8 N m s/rad, g = 0 and 9.81 m/s², one crank revolution at h = 1e-3.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from flexmbd.verify.cases.friction import crank_rocker_errors, crank_rocker_model

DOCS = Path(__file__).resolve().parents[1] / "docs"
CASES = [(0.0, 0.0), (8.0, 0.0), (0.0, 9.81), (8.0, 9.81)]


def figures(h: float = 1e-3) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5), constrained_layout=True)
    print("| c [N m s/rad] | g [m/s²] | θ1 | θ1'' | motor torque | normal force | friction force | reversal − π/3 [s] | events | wall [s] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c, g in CASES:
        t0 = time.perf_counter()
        e = crank_rocker_errors(c, g, h=h)
        wall = time.perf_counter() - t0
        res = e["result"]
        th2 = 3.0 * res.t
        rocker = res.system.model.resolve_body("rocker")
        sl = res.system.body_slice(rocker)
        lam_n = res.multipliers("slot")[:, 0]
        label = f"c = {c:g}, g = {g:g}"
        ax[0, 0].plot(th2, res.v[:, sl][:, 2], label=f"θ1', {label}")
        ax[0, 1].plot(th2, res.qdd[:, sl][:, 2], label=label)
        ax[1, 0].plot(th2, lam_n, label=label)
        ax[1, 1].plot(th2, res["friction.friction_force"], label=label)
        print(f"| {c:g} | {g:g} | {e['theta1']:.1e} | {e['theta1_dd']:.1e} | {e['tau']:.1e} | {e['normal']:.1e} | "
              f"{e['friction']:.1e} | {e['reversals'][0] - np.pi / 3:.1e} | {len(res.events)} | {wall:.1f} |")
    ax[0, 0].axhline(3.0, color="k", lw=0.8, ls="--", label="θ2' = ω")
    titles = ["rocker and crank angular velocity [rad/s]", "rocker angular acceleration θ1'' [rad/s²]",
              "normal force λ_N (multiplier; sign = side of the slot) [N]", "friction force on the slider F_f [N]"]
    for a, title in zip(ax.flat, titles):
        a.set_title(title, fontsize=10)
        a.set_xlabel("crank angle θ2 [rad]")
        a.axvline(np.pi, color="0.6", lw=0.8, ls=":")
        a.grid(alpha=0.3)
        a.legend(fontsize=7)
    fig.suptitle("P2 crank-rocker, μ = 0.2, ω = 3 rad/s: event-driven solver (h = 1e-3, Baumgarte α = β = 10)")
    out = DOCS / "p2_crank_rocker.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def drift() -> None:
    print("| h [s] | α = β [1/s] | max ‖Φ‖, revolution 1 [m] | max ‖Φ‖, revolution 10 [m] | max ‖Φ'‖, rev. 10 [m/s] | wall [s] |")
    print("|---|---|---|---|---|---|")
    model = crank_rocker_model(8.0, 9.81)
    for h in (0.02, 0.01, 1e-3):
        for ab in (0.0, 2.0, 10.0):
            t0 = time.perf_counter()
            res = model.simulate(t_end=10 * 2 * np.pi / 3, h=h, method="event-driven", baumgarte_alpha=ab,
                                 baumgarte_beta=ab)
            pe, ve = res["constraints.position_error"], res["constraints.velocity_error"]
            n = len(pe) // 10
            print(f"| {h:g} | {ab:g} | {pe[:n].max():.2e} | {pe[-n:].max():.2e} | {ve[-n:].max():.2e} | "
                  f"{time.perf_counter() - t0:.1f} |", flush=True)


if __name__ == "__main__":
    {"figures": figures, "drift": drift}[sys.argv[1] if len(sys.argv) > 1 else "figures"]()
