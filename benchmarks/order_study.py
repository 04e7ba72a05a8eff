"""Order of accuracy of positions, velocities and multipliers (reactions) of the index-3
runs, against independent references (docs/solvers/time-integration.md, "Multipliers and
accelerations").

    python -m benchmarks.order_study      # docs/order_study.png and the table of ratios

P1's slider-crank (k = 2e4, c = 1e3; free, closed loop) against its one-coordinate Lagrange
solution and Newton-Euler reactions from it (flexmbd/verify/references.py); P2's
crank-rocker without friction (a closed loop driven by the time-dependent constraint
θ2 = 3 t, gravity, rocker damper) against its Newton-Euler solution
(flexmbd/verify/crank_rocker_reference.py).  Each for Newmark and generalized-α (ρ∞ = 0.8)
with the default multipliers and with the index-3 Newton solution's.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from flexmbd.examples.slider_crank import build
from flexmbd.verify.cases.friction import crank_rocker_model
from flexmbd.verify.crank_rocker_reference import crank_rocker_driven
from flexmbd.verify.references import slider_crank_minimal

DOCS = Path(__file__).resolve().parents[1] / "docs"
STEPS = (4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4)
VARIANTS = [("newmark", "consistent"), ("newmark", "integrator"), ("generalized-alpha", "consistent"),
            ("generalized-alpha", "integrator")]


def _max_rel(x, y):
    return float(np.abs(x - y).max() / np.abs(y).max())


def slider_crank_errors(h, integrator, multipliers, ref):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=2e4, c=1e3).simulate(t_end=1.0, h=h, integrator=integrator, multipliers=multipliers)
    guide, pivot = ref.joint_forces(res.t)
    return {"q": _max_rel(res["slider.position"][:, 0], ref.slider_x(res.t)),
            "v": _max_rel(res["slider.velocity"][:, 0], ref.slider_velocity(res.t)),
            "λ": max(_max_rel(res["slide.reaction"][:, 1], guide[:, 1]),
                     _max_rel(res["crank_pin.reaction"][:, :2], pivot))}


def crank_rocker_errors(h, integrator, multipliers):
    res = crank_rocker_model(c=0.5, g=9.81, mu=0.0).simulate(t_end=1.0, h=h, integrator=integrator,
                                                             multipliers=multipliers)
    ref = crank_rocker_driven(res.t, c=0.5, g=9.81, mu=0.0)
    th, w = res["rocker.orientation"], res["rocker.angular_velocity"]
    th, w = (th[:, 2] if th.ndim == 2 else th), (w[:, 2] if w.ndim == 2 else w)
    return {"q": _max_rel(th, ref.theta1), "v": _max_rel(w, ref.dtheta1),
            "λ": max(_max_rel(res["motor.torque"], ref.tau), _max_rel(res["friction.normal_force"], np.abs(ref.N)))}


def study():
    ref = slider_crank_minimal(2e4, 1e3, t_end=1.0, rtol=1e-12, atol=1e-12)
    out = {}
    for integ, mult in VARIANTS:
        out["slider-crank", integ, mult] = [slider_crank_errors(h, integ, mult, ref) for h in STEPS]
        out["crank-rocker", integ, mult] = [crank_rocker_errors(h, integ, mult) for h in STEPS]
    return out


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = study()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5), sharex=True)
    styles = {("newmark", "consistent"): ("C0", "-o"), ("newmark", "integrator"): ("C0", ":x"),
              ("generalized-alpha", "consistent"): ("C1", "-s"), ("generalized-alpha", "integrator"): ("C1", ":+")}
    h = np.array(STEPS)
    for row, model in enumerate(("slider-crank", "crank-rocker")):
        for col, what in enumerate(("q", "v", "λ")):
            ax = axes[row, col]
            for integ, mult in VARIANTS:
                err = np.array([e[what] for e in data[model, integ, mult]])
                color, style = styles[integ, mult]
                ax.loglog(h, np.maximum(err, 1e-16), style, color=color, label=f"{integ}, multipliers: {mult}")
            ax.loglog(h, 1e-4 * (h / h[0]) ** 2, "k--", lw=0.8, label="slope 2")
            ax.loglog(h, 1e-3 * (h / h[0]), "k-.", lw=0.8, label="slope 1")
            ax.set_title(f"{model}: {dict(q='position', v='velocity', λ='reactions (λ)')[what]}")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_xticks(h, [f"{x:g}" for x in h], minor=False)
            ax.set_xticks([], minor=True)
            if row == 1:
                ax.set_xlabel("h [s]")
            if col == 0:
                ax.set_ylabel("max relative error over 1 s")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Order of accuracy against independent references (P1 slider-crank: Lagrange + Newton-Euler; "
                 "P2 crank-rocker, driven: Newton-Euler)", fontsize=10)
    fig.tight_layout()
    fig.savefig(DOCS / "order_study.png", dpi=110)
    print(f"wrote {DOCS / 'order_study.png'}")
    print("ratio of errors h = 2e-3 → 1e-3 (q, v, λ):")
    for (model, integ, mult), rows in data.items():
        print(f"  {model:13s} {integ:18s} {mult:10s} " + "  ".join(
            f"{k} {rows[1][k] / rows[2][k]:5.2f} ({rows[2][k]:.1e})" for k in ("q", "v", "λ")))


if __name__ == "__main__":
    main()
