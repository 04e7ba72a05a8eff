"""Contact models (docs/elements/contact.md): a Kelvin impact of two masses, a Hertz ball
striking a plane, and P4's pounding of two bridge decks under a ground motion, with their
closed forms (Goldsmith 1960; Johnson, Contact Mechanics, 1985, §11.4; Hunt & Crossley 1975)."""
from __future__ import annotations

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

import flexmbd as fm

from ..forces.contact import effective_modulus, hertz_constant


def kelvin_closed_form(k: float, c: float, ms: float) -> tuple[float, float, float]:
    """e = exp(−πζ/√(1−ζ²)), ω_n = √(k/m*) and the contact time π/ω_d of a linear
    spring-dashpot impact (ζ = c/(2√(k m*)))."""
    wn = np.sqrt(k / ms)
    zeta = c / (2 * np.sqrt(k * ms))
    return float(np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2))), float(wn), float(np.pi / (wn * np.sqrt(1 - zeta**2)))


def two_masses(h: float, k: float, c: float, v0: float, m1: float = 2.0, m2: float = 3.0, t_end: float = 0.1):
    """Body a (m1) at v0 meets body b (m2) 0.1 m away through a Kelvin contact: the result."""
    m = fm.Model()
    a = m.rigid_body("a", mass=m1, inertia=(0.1, 0.1, 0.1), velocity=(v0, 0, 0))
    b = m.rigid_body("b", mass=m2, inertia=(0.1, 0.1, 0.1), position=(0.1, 0, 0))
    m.kelvin_contact(a, b, at_i=(0, 0, 0), at_j=(0.1, 0, 0), normal=(1, 0, 0), stiffness=k, damping=c,
                     name="pound")
    return m.simulate(t_end=t_end, h=h)


def hertz_ball(R: float, E: float, nu: float, v0: float, cr: float = 0.0, rho: float = 7800.0):
    """(mass, model): a ball of radius R striking the ground plane z = 0 at v0 (1 µm above it)."""
    mass = rho * 4 / 3 * np.pi * R**3
    m = fm.Model()
    z0 = R + 1e-6
    ball = m.rigid_body("ball", mass=mass, inertia=[0.4 * mass * R**2] * 3, position=(0, 0, z0), velocity=(0, 0, -v0))
    m.hertz_contact("ground", ball, center=(0, 0, z0), radius=R, normal=(0, 0, 1), point=(0, 0, 0),
                    youngs_modulus=E, poisson_ratio=nu, damping=cr, name="hit")
    return mass, m


def hertz_closed_form(mass: float, R: float, E: float, nu: float, v0: float) -> dict:
    """Hertz impact of a sphere on a half-space of the same material: K, δ_m, F_m, the exact
    contact time and Johnson's 2.87 (m²/(R E*² v₀))^{1/5}."""
    Es = effective_modulus(E, nu)
    K = hertz_constant(Es, R)
    dm = (5 * mass * v0**2 / (4 * K)) ** 0.4
    tc = 2 * dm / v0 * quad(lambda x: 1 / np.sqrt(1 - x**2.5), 0, 1)[0]
    return dict(K=K, delta=dm, force=K * dm**1.5, time=tc, johnson=2.87 * (mass**2 / (R * Es**2 * v0)) ** 0.2)


def hunt_crossley_rebound(cr: float, v0: float) -> float:
    """v_e of α v₀ − ln(1 + α v₀) = −α v_e − ln(1 − α v_e), α = (3/2) c_r."""
    alpha = 1.5 * cr
    return float(brentq(lambda x: alpha * v0 - np.log1p(alpha * v0) + alpha * x + np.log1p(-alpha * x), 1e-9,
                        1 / alpha - 1e-12))


def bridge(h: float, t_end: float, mu: float = 0.3):
    """Two decks (lumped masses on translation-only carriers) on piers (bushings to a base
    driven by the ground motion), 20 mm apart, pounding through a Kelvin element: the result."""
    m = fm.Model()
    base = m.rigid_body("base", mass=1e4, inertia=(1e3,) * 3)
    m.prismatic("ground", base, at=(0, 0, 0), axis=(1, 0.5, 0), name="ground_slide")
    m.translation_driver("ground", base, at=(0, 0, 0), axis=(1, 0.5, 0),
                         displacement="0.12*sin(7.5*t)*(1-exp(-2*t))", name="quake")
    decks = []
    for k, (x, md, kp) in enumerate([(-10.0, 1.0e6, 4e7), (10.02, 1.5e6, 1.2e8)]):
        car = m.rigid_body(f"carrier{k + 1}", mass=1e4, inertia=(1e3,) * 3, position=(x, 0, 0))
        m.prismatic("ground", car, at=(x, 0, 0), axis=(1, 0, 0))
        deck = m.rigid_body(f"deck{k + 1}", mass=md, inertia=(1e7,) * 3, position=(x, 0, 0))
        m.prismatic(car, deck, at=(x, 0, 0), axis=(0, 1, 0))
        c = 2 * 0.05 * np.sqrt(kp * md)
        m.bushing(base, deck, at=(x, 0, 0), stiffness=(kp, kp, 0), damping=(c, c, 0), name=f"pier{k + 1}")
        decks.append(deck)
    m.kelvin_contact(decks[0], decks[1], at_i=(0, 0, 0), at_j=(0.02, 0, 0), normal=(1, 0, 0), stiffness=1e9,
                     damping=2 * 0.1 * np.sqrt(1e9 * 6e5), friction=mu, regularization=0.01, name="pounding")
    return m.simulate(t_end=t_end, h=h)


def friction_work(res, eps: float = 0.01) -> np.ndarray:
    """∫ f σ·t dt of the bridge's pounding from its outputs: |f| s²/√(s² + ε²), s the slip
    speed (trapezoidal rule)."""
    s = res["pounding.slip_velocity"]
    p = np.linalg.norm(res["pounding.friction_force"], axis=1) * s**2 / np.sqrt(s**2 + eps**2)
    return np.r_[0.0, np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(res.t))]
