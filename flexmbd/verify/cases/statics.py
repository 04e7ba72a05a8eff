"""Reference comparisons: static equilibrium (P1's slider-crank held by its SDA spring).

Closed form (minimal coordinate φ, the crank angle): the SDA joins the centres of mass
c1 = (L/2)(cos φ, sin φ) and c2 = (3L/2 cos φ, L/2 sin φ), so its length is L cos φ; the
slider sits at x = 2 L cos φ.  With the force F on the slider along +x,

    V(φ) = ½ k (L cos φ − l0)² − F · 2 L cos φ,
    dV/dφ = −L sin φ [k (L cos φ − l0) − 2 F] = 0   ⇒   cos φ* = l0/L + 2F/(k L),

and the spring carries the tension k (L cos φ* − l0) = 2F whatever k.  With l0 = L cos 45°
the equilibrium exists (0 < φ* < 45°) for k > 2F / (L (1 − cos 45°)) ≈ 3.41e3 N/m.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..registry import case, compare

CLOSED_FORM = "closed form: dV/dφ = 0 with V = ½k(L cos φ − l0)² − 2FL cos φ"


def slider_crank_equilibrium_angle(k, F=1000.0, L=2.0, phi0=np.pi / 4):
    """φ* of the P1 slider-crank under F on the slider (spring rest length L cos φ0)."""
    c = np.cos(phi0) + 2.0 * F / (k * L)
    if not -1.0 < c < 1.0:
        raise ValueError(f"no equilibrium with 0 < φ < π for k = {k}: cos φ* = {c:.4g}")
    return float(np.arccos(c))


def run_slider_crank_static(k, jacobian="full", load_steps=10):
    from ...examples.slider_crank import build

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build(k=k, c=0.0).static_equilibrium(load_steps=load_steps, jacobian=jacobian)


@case("slider-crank-static", description="P1 slider-crank static equilibrium (1 kN vs SDA spring) vs closed form")
def slider_crank_static():
    name = "slider-crank-static"
    rows = []
    for k in (1e4, 2e4, 1e5):
        res = run_slider_crank_static(k)
        phi = np.arccos(res["slider.position"][-1, 0] / 4.0) if res.success else np.nan
        ref = slider_crank_equilibrium_angle(k)
        rows.append(compare(name, f"equilibrium crank angle, k = {k:.0e} N/m", np.degrees(ref), np.degrees(phi),
                            unit="deg", tolerance=1e-9, source=CLOSED_FORM))
        if k == 2e4:
            rows.append(compare(name, "SDA tension at equilibrium (= 2F), k = 2e4", 2000.0,
                                res["sda.force"][-1] if res.success else np.nan, unit="N", tolerance=1e-9,
                                source=CLOSED_FORM))
            rows.append(compare(name, "max Newton iterations per load step (10 steps), exact Jacobian", 3,
                                res.iterations[1:].max() if res.success else np.nan, tolerance=0.0,
                                source="P1: 3 iterations per step with the SDA Jacobian", mode="max"))
            m1 = run_slider_crank_static(k, jacobian="M1")
            rows.append(compare(name, "load steps completed with jacobian='M1' (no SDA stiffness)", 0,
                                m1.load_steps, tolerance=0.0, mode="abs",
                                source="P1: statics does not converge without the SDA Jacobian "
                                       "(flexmbd: singular matrix at the unloaded start)"))
    return rows
