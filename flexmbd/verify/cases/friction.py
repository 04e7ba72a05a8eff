"""Reference comparisons: Coulomb friction in joints (P2; cases registered below).

* ``p2-crank-rocker``: P2's crank-rocker (rocker OA about O, crank O1B driven at
  ω = 3 rad/s, the point mass m3 at B sliding in the rocker's slot with μ = 0.2) by the
  event-driven solver, against the independent Newton-Euler formulation of
  :mod:`flexmbd.verify.crank_rocker_reference`, for c ∈ {0, 8} N m s/rad and g ∈ {0, 9.81}:
  rocker angle θ1, its acceleration θ1'' (which vanishes at θ2 = 0 and π), motor torque,
  normal and friction forces away from the slip reversals; the reversal times against
  θ2 = π (t = π/3 s); the slider never sticks.
* ``friction-ramp``: a block on a ramp, closed forms — at rest below atan μ0 it stays;
  above, it slides with s'' = g (sin α − μ cos α); sliding down a ramp flatter than
  atan μ it stops at t* = v0 / (g (μ cos α − sin α)) after s* = v0 t*/2 and sticks.
* ``friction-belt``: a mass-spring on a belt moving at v_b (stick-slip): period
  T = 2d/v_b + (2π − 2 atan(dω/v_b))/ω, d = (μ0 − μ) m g / k, ω = √(k/m) (the derivation is
  in :func:`belt_period`), by the event-driven and the time-stepping solvers.

The slider of the crank-rocker is a point mass pinned at the crank's end: it is lumped
into the crank (mass m2 + m3, the same moment of inertia about O1 plus m3 L3²), and the
slot is a ``point_on_line`` joint between the rocker's axis and B, which carries the
friction.  The rotation of a point mass is undefined, so nothing else is lost.
"""
from __future__ import annotations

import numpy as np

from ...model import Model
from ..crank_rocker_reference import crank_rocker_driven, crank_rocker_parameters
from ..registry import case, compare

G = 9.81
P2 = "P2 (Wang, Wang & Zhuang 2014), crank-rocker"


# ====================================================================== models
def crank_rocker_model(c: float = 0.0, g: float = 0.0, mu: float = 0.2, omega: float = 3.0) -> Model:
    """P2's crank-rocker as a flexmbd model (angles from +y, counter-clockwise; O at the
    origin, O1 = (0, L4)); bodies "rocker", "crank", joints "O", "O1", slot "slot" with
    friction "friction", driver "motor", damper "damper" (c > 0)."""
    p = crank_rocker_parameters()
    m = Model(gravity=(0.0, -g, 0.0), name="crank-rocker")
    # a uniform rod from O: J about its centre of mass J1 − m1 L1²
    rocker = m.planar_body("rocker", mass=p.m1, inertia=p.J1 - p.m1 * p.L1**2, position=(0.0, p.L1))
    mc = p.m2 + p.m3
    xc = (p.m2 * p.L2 + p.m3 * p.L3) / mc                      # crank + slider centre of mass from O1
    crank = m.planar_body("crank", mass=mc, inertia=p.J2 + p.m3 * p.L3**2 - mc * xc**2,
                          position=(0.0, p.L4 + xc))
    m.revolute("ground", rocker, at=(0.0, 0.0), name="O")
    m.revolute("ground", crank, at=(0.0, p.L4), name="O1")
    slot = m.point_on_line(rocker, crank, at=(0.0, p.L4 + p.L3), axis=(0.0, 1.0, 0.0), name="slot")
    m.joint_friction(joint=slot, mu=mu, name="friction")
    m.rotation_driver("ground", crank, speed=omega, name="motor")
    if c:
        m.rotational_spring_damper("ground", rocker, c=c, name="damper")
    return m


def ramp_model(alpha: float, mu: float, v0: float = 0.0, mu_static: float | None = None,
               mass: float = 2.0) -> tuple[Model, np.ndarray]:
    """A block (planar body "block") in a prismatic joint "slot" down a ramp of angle α with
    friction "fric"; returns the model and the unit axis pointing down the ramp (x, y)."""
    m = Model(gravity=(0.0, -G, 0.0), name="ramp")
    axis = np.array([np.cos(alpha), -np.sin(alpha)])
    b = m.planar_body("block", mass=mass, inertia=0.1, velocity=tuple(v0 * axis))
    slot = m.prismatic("ground", b, at=(0.0, 0.0), axis=(axis[0], axis[1], 0.0), name="slot")
    m.joint_friction(joint=slot, mu=mu, mu_static=mu_static, name="fric")
    return m, axis


def belt_model(mass: float, k: float, mu: float, mu0: float, vb: float, L: float = 1.0) -> Model:
    """A block on a belt (planar body driven at v_b along x) joined to it by a prismatic joint
    "contact" with friction "fric" (normal force m g) and to ground by a spring k whose force
    along x is exactly −k x (anchored at −L with rest length L)."""
    m = Model(gravity=(0.0, -G, 0.0), name="belt")
    belt = m.planar_body("belt", mass=5.0, inertia=1.0, velocity=(vb, 0.0))
    m.prismatic("ground", belt, at=(0.0, 0.0), axis=(1.0, 0.0, 0.0), name="track")
    m.translation_driver("ground", belt, at=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0), speed=vb, name="drive")
    block = m.planar_body("block", mass=mass, inertia=0.1, velocity=(vb, 0.0))
    slot = m.prismatic(belt, block, at=(0.0, 0.0), axis=(1.0, 0.0, 0.0), name="contact")
    m.joint_friction(joint=slot, mu=mu, mu_static=mu0, name="fric")
    m.spring_damper("ground", block, at_i=(-L, 0.0, 0.0), at_j=(0.0, 0.0, 0.0), k=k, rest_length=L, name="spring")
    return m


def belt_period(mass: float, k: float, mu: float, mu0: float, vb: float) -> tuple[float, float, float]:
    """(T_stick, T_slip, first slip time) of the mass-spring on a belt, starting at x = 0 stuck.

    Stick: the block rides at v_b until the spring force reaches the static bound,
    x_s = μ0 m g / k.  Slip: m x'' = −k x + μ m g, harmonic about x_e = μ m g / k; with
    u = x − x_e, w = x'/ω the state turns on the circle of radius A = √(d² + (v_b/ω)²),
    d = x_s − x_e, from (d, v_b/ω) to the mirror point (−d, v_b/ω) where x' = v_b again:
    T_slip = (2π − 2 atan(d ω / v_b)) / ω.  There |k x| ≤ μ0 m g, so it sticks and rides
    from x_e − d to x_s: T_stick = 2 d / v_b."""
    omega = np.sqrt(k / mass)
    d = (mu0 - mu) * mass * G / k
    return 2 * d / vb, (2 * np.pi - 2 * np.arctan(d * omega / vb)) / omega, mu0 * mass * G / k / vb


# ====================================================================== comparisons
def crank_rocker_errors(c: float, g: float, h: float = 1e-3, t_end: float = 2 * np.pi / 3,
                        method: str = "event-driven") -> dict:
    """Run the crank-rocker and compare with the Newton-Euler reference away from the slip
    reversals (|θ2 mod π| > 0.02): max relative errors and the events."""
    model = crank_rocker_model(c, g)
    res = model.simulate(t_end=t_end, h=h, method=method)
    t = res.t
    ref = crank_rocker_driven(t, c=c, g=g)
    th2 = np.mod(3.0 * t + 1e-9, np.pi)
    away = np.minimum(th2, np.pi - th2) > 0.02
    rocker = model.resolve_body("rocker")
    qdd = res.qdd[:, res.system.body_slice(rocker)][:, 2]

    def rel(x, y):
        return float(np.abs(x - y)[away].max() / np.abs(y).max())

    return dict(result=res, theta1=rel(res["rocker.orientation"][:, 2] if res["rocker.orientation"].ndim == 2
                                      else res["rocker.orientation"], ref.theta1),
                theta1_dd=rel(qdd, ref.ddtheta1), tau=rel(res["motor.torque"], ref.tau),
                normal=rel(res["friction.normal_force"], np.abs(ref.N)),
                friction=rel(res["friction.friction_force"], ref.F_f),
                reversals=[e[0] for e in res.events if e[2] == "slip reversal"],
                sticks=int(np.sum(res["friction.slip_state"] == 0)))


@case("p2-crank-rocker", slow=True, description="P2 crank-rocker with slot friction, event-driven vs Newton-Euler")
def p2_crank_rocker():
    name = "p2-crank-rocker"
    out = []
    src = P2 + "; independent Newton-Euler reference (flexmbd.verify.crank_rocker_reference)"
    for c in (0.0, 8.0):
        for g in (0.0, 9.81):
            e = crank_rocker_errors(c, g)
            tag = f"c = {c:g}, g = {g:g}"
            out += [compare(name, f"{tag}: θ1 max rel. error (1 revolution, h = 1e-3)", 0.0, e["theta1"],
                            tolerance=1e-6, source=src, mode="abs"),
                    compare(name, f"{tag}: motor torque max rel. error", 0.0, e["tau"], tolerance=1e-6,
                            source=src, mode="abs"),
                    compare(name, f"{tag}: θ1'' max rel. error (zero at θ2 = 0, π)", 0.0, e["theta1_dd"],
                            tolerance=1e-6, source=src, mode="abs"),
                    compare(name, f"{tag}: friction force max rel. error", 0.0, e["friction"], tolerance=1e-6,
                            source=src, mode="abs"),
                    compare(name, f"{tag}: slip reversal at θ2 = π", np.pi / 3, e["reversals"][0], unit="s",
                            tolerance=1e-8, source=P2 + ": relative velocity reverses at θ2 = 0, π", mode="abs"),
                    compare(name, f"{tag}: steps sticking", 0.0, float(e["sticks"]), tolerance=0.0,
                            source=P2 + ": the slider never sticks", mode="abs")]
    return out


@case("friction-ramp", description="block on a ramp: sticking, sliding and stopping against closed forms")
def friction_ramp():
    name = "friction-ramp"
    src = "closed form: s'' = g (sin α − μ cos α); stop at t* = v0 / (g (μ cos α − sin α))"
    out = []
    mu, mu0 = 0.3, 0.4
    for deg, expect in ((15.0, "stick"), (20.0, "stick"), (30.0, "slide")):   # atan μ = 16.7°, atan μ0 = 21.8°
        alpha = np.radians(deg)
        m, axis = ramp_model(alpha, mu, 0.0, mu0)
        res = m.simulate(t_end=0.5, h=1e-2, method="event-driven")
        s = res["block.position"][:, :2] @ axis
        exact = 0.5 * G * (np.sin(alpha) - mu * np.cos(alpha)) * res.t**2 if expect == "slide" else 0 * res.t
        out.append(compare(name, f"α = {deg:g}° from rest ({expect}): max |s − s_exact|", 0.0,
                           float(np.abs(s - exact).max()), unit="m", tolerance=1e-12, source=src, mode="abs"))
    alpha, v0 = np.radians(10.0), 1.0
    m, axis = ramp_model(alpha, mu, v0, mu0)
    res = m.simulate(t_end=1.0, h=1e-2, method="event-driven")
    t_stop = v0 / (G * (mu * np.cos(alpha) - np.sin(alpha)))
    stops = [e[0] for e in res.events if e[2] == "stick"]
    s = res["block.position"][:, :2] @ axis
    out += [compare(name, "stopping time t*", t_stop, stops[0] if stops else np.nan, unit="s", tolerance=1e-10,
                    source=src),
            compare(name, "stopping distance s*", 0.5 * v0 * t_stop, float(s[-1]), unit="m", tolerance=1e-10,
                    source=src)]
    return out


@case("friction-belt", description="mass-spring on a moving belt: stick-slip period, event-driven and time-stepping")
def friction_belt():
    name = "friction-belt"
    mass, k, mu, mu0, vb = 1.0, 100.0, 0.4, 0.6, 0.1
    T_stick, T_slip, t_first = belt_period(mass, k, mu, mu0, vb)
    src = "closed form (flexmbd.verify.cases.friction.belt_period)"
    out = []
    # RK4 between located events: error ∝ (ω h)⁴ (3e-7 s at h = 1e-2); Moreau–Jean: O(h)
    for method, h, tol in (("event-driven", 2.5e-3, 1e-8), ("time-stepping", 1e-3, 2e-3)):
        res = belt_model(mass, k, mu, mu0, vb).simulate(t_end=2.5, h=h, method=method)
        slips = np.array([e[0] for e in res.events if e[2] in ("slip", "slip reversal")])
        sticks = np.array([e[0] for e in res.events if e[2] == "stick"])
        out += [compare(name, f"{method}: first slip", t_first, float(slips[0]), unit="s", tolerance=tol,
                        source=src, mode="abs"),
                compare(name, f"{method}: period (mean of {len(slips) - 1})", T_stick + T_slip,
                        float(np.mean(np.diff(slips))), unit="s", tolerance=tol, source=src, mode="abs"),
                compare(name, f"{method}: stick phase", T_stick, float(np.mean(slips[1:] - sticks[:len(slips) - 1])),
                        unit="s", tolerance=tol, source=src, mode="abs")]
    return out
