"""Contact elements against closed forms, and P4's bridge-deck pounding (docs/elements/contact.md).

    python -m benchmarks.contact_study         # the verification table and docs/contact_pounding.png

* Kelvin: two masses (2 and 3 kg, k = 1e5 N/m, v₀ = 1.5 m/s) meet; restitution, contact time
  and impulse against e = exp(−πζ/√(1−ζ²)), π/ω_d and m*(1 + e) v₀;
* Hertz: a steel ball (R = 10 mm) strikes a steel half-space at 1 m/s; contact time and peak
  force against Johnson's (Contact Mechanics, §11.4), rebound with Hunt-Crossley damping
  against its exact relation;
* two bridge decks on piers under a ground motion pound through a Kelvin element with
  friction: the energy balance, and the picture.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from flexmbd.examples.contact import bridge, friction_work, hertz_ball, hertz_closed_form, kelvin_closed_form, two_masses
from flexmbd.forces.contact import contact_impacts

DOCS = Path(__file__).resolve().parents[1] / "docs"


def kelvin_table():
    m1, m2, k, v0 = 2.0, 3.0, 1e5, 1.5
    ms = m1 * m2 / (m1 + m2)
    for zeta in (0.0, 0.1, 0.3):
        c = 2 * zeta * np.sqrt(k * ms)
        e, wn, tc = kelvin_closed_form(k, c, ms)
        for h in (1e-4, 2.5e-5):
            res = two_masses(h, k, c, v0)
            en = (res["b.velocity"][-1, 0] - res["a.velocity"][-1, 0]) / v0
            (imp,) = contact_impacts(res)
            print(f"kelvin ζ={zeta:.1f} h={h:.1e} ω_n h={wn * h:.4f}: e {en:.6f} (closed form {e:.6f}, "
                  f"error {abs(en - e) / e:.2e}); contact time {imp['opened'] - imp['closed']:.6e} "
                  f"({tc:.6e}); impulse {imp['impulse']:.6f} ({ms * (1 + e) * v0:.6f})")


def hertz_table():
    R, E, nu, v0 = 0.01, 2.1e11, 0.3, 1.0
    mass, model = hertz_ball(R, E, nu, v0)
    closed = hertz_closed_form(mass, R, E, nu, v0)
    K, Fm, tc = closed["K"], closed["force"], closed["time"]
    print(f"hertz: m = {mass:.6g} kg, K = {K:.6g} N/m^1.5, Johnson t_c = "
          f"{closed['johnson']:.6e} s, exact {tc:.6e} s, F_max {Fm:.6f} N")
    for n in (50, 200):
        res = model.simulate(t_end=1e-6 / v0 + 1.5 * tc, h=tc / n)
        (imp,) = contact_impacts(res)
        print(f"hertz h = t_c/{n}: contact time {imp['opened'] - imp['closed']:.6e} s "
              f"(error {abs(imp['opened'] - imp['closed'] - tc) / tc:.1e}), peak {res['hit.normal_force'].max():.4f} N "
              f"(error {abs(res['hit.normal_force'].max() - Fm) / Fm:.1e}), impulse {imp['impulse']:.6e} "
              f"({2 * mass * v0:.6e})")
    cr = 0.25
    alpha = 1.5 * cr
    ve = brentq(lambda x: alpha * v0 - np.log1p(alpha * v0) + alpha * x + np.log1p(-alpha * x), 1e-9, 1 / alpha - 1e-12)
    mass, model = hertz_ball(R, E, nu, v0, cr)
    for n in (100, 400):
        res = model.simulate(t_end=1e-6 / v0 + 1.5 * tc, h=tc / n)
        v = res["ball.velocity"][-1, 2]
        print(f"hunt-crossley c_r = {cr}: h = t_c/{n}: rebound {v:.6f} m/s, exact {ve:.6f} "
              f"(error {abs(v - ve) / ve:.1e}; first order 1 − c_r v₀ = {1 - cr * v0:.3f})")


def pounding(h=1e-3, t_end=6.0, path=DOCS / "contact_pounding.png"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = bridge(h, t_end)
    t = res.t
    E = {k: res[f"energy.{k}"] for k in ("kinetic", "potential", "dissipated", "external_work",
                                         "numerical_dissipation")}
    fw = friction_work(res)
    cont = res["pounding.normal_force"]
    rate = res["pounding.penetration_rate"]
    c = 2 * 0.1 * np.sqrt(1e9 * 6e5)
    pd = np.where(res["pounding.penetration"] > 0, c * rate**2, 0.0)
    dash = np.r_[0.0, np.cumsum(0.5 * (pd[1:] + pd[:-1]) * np.diff(t))]
    piers = E["dissipated"] - fw - dash
    impacts = contact_impacts(res)
    print(f"pounding h = {h}: {len(impacts)} impacts, impulses "
          f"{[round(i['impulse'] / 1e3, 1) for i in impacts if i['impulse'] is not None]} kN s; at {t_end} s: "
          f"input {E['external_work'][-1]:.6e} J = kinetic {E['kinetic'][-1]:.6e} + potential {E['potential'][-1]:.6e} "
          f"+ piers' dampers {piers[-1]:.6e} + contact dashpot {dash[-1]:.6e} + friction {fw[-1]:.6e} "
          f"+ residual {E['numerical_dissipation'][-1]:.3e} "
          f"(max |residual| / max input {np.abs(E['numerical_dissipation']).max() / np.abs(E['external_work']).max():.2e})")
    fig, ax = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    ax[0].plot(t, 1e3 * (res["deck1.position"][:, 0] + 10.0), label="deck 1 x [mm]")
    ax[0].plot(t, 1e3 * (res["deck2.position"][:, 0] - 10.02), label="deck 2 x [mm]")
    ax[0].plot(t, 1e3 * res["base.position"][:, 0], "k:", lw=1, label="ground x [mm]")
    ax[0].set_ylabel("displacement [mm]")
    ax[0].legend(loc="upper left", fontsize=8)
    ax[0].set_title("P4: Kelvin pounding of two bridge decks (gap 20 mm, μ = 0.3)")
    ax[1].plot(t, cont / 1e6, label="normal force [MN]")
    ax[1].plot(t, np.linalg.norm(res["pounding.friction_force"], axis=1) / 1e6, label="friction force [MN]")
    ax[1].set_ylabel("force [MN]")
    ax[1].legend(loc="upper left", fontsize=8)
    ax[2].plot(t, E["external_work"] / 1e6, "k", lw=2, label="input (ground motion)")
    ax[2].stackplot(t, E["kinetic"] / 1e6, E["potential"] / 1e6, piers / 1e6, dash / 1e6, fw / 1e6,
                    labels=["kinetic", "potential", "piers' dampers", "contact dashpot", "friction"], alpha=0.6)
    ax[2].plot(t, 100 * E["numerical_dissipation"] / 1e6, "r", lw=1, label="residual × 100")
    ax[2].set_ylabel("energy [MJ]")
    ax[2].set_xlabel("time [s]")
    ax[2].legend(loc="upper left", fontsize=8)
    for a in ax:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return res


if __name__ == "__main__":
    kelvin_table()
    hertz_table()
    pounding(2e-3)
    pounding(1e-3)
