"""Reference comparisons for the contact elements (docs/elements/contact.md): the Kelvin
restitution against its closed form, the Hertz impact against Johnson's contact time and
peak force, Hunt-Crossley's rebound against its exact relation, and the energy balance of
P4's bridge-deck pounding."""
from __future__ import annotations

import numpy as np

from ...examples.contact import (bridge, hertz_ball, hertz_closed_form, hunt_crossley_rebound, kelvin_closed_form,
                                 two_masses)
from ...forces.contact import contact_impacts
from ..registry import case, compare


@case("contact-kelvin", description="Kelvin impact of two masses (ζ = 0.1, ω_n h = 0.0072): restitution, contact "
      "time and impulse vs the linear spring-dashpot's closed form")
def kelvin_case():
    m1, m2, k, v0, h = 2.0, 3.0, 1e5, 1.5, 2.5e-5
    ms = m1 * m2 / (m1 + m2)
    c = 2 * 0.1 * np.sqrt(k * ms)
    e, wn, tc = kelvin_closed_form(k, c, ms)
    res = two_masses(h, k, c, v0)
    (imp,) = contact_impacts(res)
    tol = 0.3 * wn * h                       # O(ω_n h) at the kinks where the contact opens and closes
    src = "e = exp(−πζ/√(1−ζ²)) (Goldsmith 1960)"
    return [compare("contact-kelvin", "restitution", e, (res["b.velocity"][-1, 0] - res["a.velocity"][-1, 0]) / v0,
                    tolerance=tol, source=src),
            compare("contact-kelvin", "contact time", tc, imp["opened"] - imp["closed"], unit="s", tolerance=tol,
                    source="π/ω_d"),
            compare("contact-kelvin", "impulse", ms * (1 + e) * v0, imp["impulse"], unit="N s", tolerance=tol,
                    source="m*(1 + e) v₀")]


@case("contact-hertz", description="steel ball (R = 10 mm) on a steel half-space at 1 m/s, h = t_c/200: contact "
      "time and peak force vs Hertz; Hunt-Crossley rebound (c_r = 0.25 s/m) vs its exact relation")
def hertz_case():
    R, E, nu, v0 = 0.01, 2.1e11, 0.3, 1.0
    mass, model = hertz_ball(R, E, nu, v0)
    ref = hertz_closed_form(mass, R, E, nu, v0)
    h = ref["time"] / 200
    res = model.simulate(t_end=1e-6 / v0 + 1.5 * ref["time"], h=h)
    (imp,) = contact_impacts(res)
    tol = (np.pi / ref["time"] * h) ** 2
    src = "Johnson, Contact Mechanics (1985), §11.4"
    out = [compare("contact-hertz", "contact time", ref["time"], imp["opened"] - imp["closed"], unit="s",
                   tolerance=tol, source=src + " (exact integral; eq. 11.24's 2.87 rounds it)"),
           compare("contact-hertz", "peak force", ref["force"], float(res["hit.normal_force"].max()), unit="N",
                   tolerance=tol, source=src)]
    ve = hunt_crossley_rebound(0.25, v0)
    mass, model = hertz_ball(R, E, nu, v0, 0.25)
    h = ref["time"] / 400
    res = model.simulate(t_end=1e-6 / v0 + 1.5 * ref["time"], h=h)
    out.append(compare("contact-hertz", "Hunt-Crossley rebound speed", ve, float(res["ball.velocity"][-1, 2]),
                       unit="m/s", tolerance=0.3 * np.pi / ref["time"] * h,
                       source="α v₀ − ln(1 + α v₀) = −α v_e − ln(1 − α v_e) (Hunt & Crossley 1975)"))
    return out


@case("contact-pounding", slow=True, description="P4: two bridge decks on piers pounding under a ground motion "
      "(Kelvin element with friction, 4 s, h = 2 ms): energy balance")
def pounding_case():
    res = bridge(2e-3, 4.0)
    residual = float(np.abs(res["energy.numerical_dissipation"]).max() / np.abs(res["energy.external_work"]).max())
    return [compare("contact-pounding", "max |input − kinetic − potential − dissipated| / max input", 2e-4, residual,
                    tolerance=0.0, mode="max",
                    source="trapezoidal rule, O(h²) (over 6 s: 5.7e-5 at 2 ms, 2.3e-5 at 1 ms)")]
