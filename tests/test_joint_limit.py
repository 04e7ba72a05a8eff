"""End stops (joint_limit) against the closed form of a linear spring-dashpot impact.

A body of effective inertia m_e (the moment of inertia for a pin) reaching a stop at speed
v0 is a damped oscillator while engaged: it rebounds with −e v0, e = exp(−πζ/√(1−ζ²)),
ζ = c/(2√(k m_e)), and penetrates at most δ_max = (v0/ω_d) exp(−ζω_n t*) sin(ω_d t*),
t* = atan(√(1−ζ²)/ζ)/ω_d.  Contact starts and ends between steps (a kink of the force), so
the trapezoidal rule meets e to O(ω_n h) (measured ≈ 0.1 ω_n h); the bound 0.3 ω_n h is
checked at two steps.
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.errors import ModelError


def closed_form(k, c, me, v0):
    wn = np.sqrt(k / me)
    zeta = c / (2 * np.sqrt(k * me))
    wd = wn * np.sqrt(1 - zeta**2)
    ts = np.arctan(np.sqrt(1 - zeta**2) / zeta) / wd
    return np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2)), v0 / wd * np.exp(-zeta * wn * ts) * np.sin(wd * ts), wn


@pytest.mark.parametrize("zeta", [0.05, 0.2])
def test_pendulum_on_a_rotational_stop_rebounds_with_its_restitution(zeta):
    J, k, w0, up = 0.1, 1e3, 2.0, 0.3
    c = 2 * zeta * np.sqrt(k * J)
    e, dmax, wn = closed_form(k, c, J, w0)
    errors = []
    for h in (5e-4, 1e-4):
        m = fm.Model()
        rod = m.planar_body("rod", mass=1.0, inertia=J, angular_velocity=w0)     # centre of mass on the pin
        pin = m.revolute("ground", rod, at=(0, 0), name="pin")
        m.joint_limit(joint=pin, upper=up, stiffness=k, damping=c, name="stop")
        res = m.simulate(t_end=0.3, h=h)
        assert res.success
        err = abs(res["rod.angular_velocity"][-1, 2] + e * w0) / (e * w0)
        assert err < 0.3 * wn * h
        assert abs(res["stop.penetration"].max() - dmax) < 0.3 * wn * h * dmax
        errors.append(err)
        # the stop engages when the rod reaches it (t = up/w0) and releases one contact time later
        kinds = [(name, kind) for _, name, kind in res.events]
        assert kinds == [("stop", "upper stop engaged"), ("stop", "upper stop released")]
        t_in, t_out = res.events[0][0], res.events[1][0]
        assert abs(t_in - up / w0) < h**2 * w0 * wn      # linear interpolation of a smooth crossing
        assert abs(t_out - t_in - np.pi / (wn * np.sqrt(1 - zeta**2))) < 0.3 * wn * h * np.pi / wn
        # between the stops no force; the energy balance closes with the dashpot's dissipation
        free = res["stop.penetration"] == 0
        assert np.all(res["stop.force"][free] == 0)
        total = res["energy.total"] + res["energy.dissipated"]
        assert np.ptp(total) < 0.3 * wn * h * total[0]
    assert errors[1] < errors[0]


def test_slider_stops_at_its_lower_limit():
    mass, k, v0, lo = 2.0, 5e3, -1.0, -0.2
    c = 2 * 0.1 * np.sqrt(k * mass)
    e, dmax, wn = closed_form(k, c, mass, abs(v0))
    m = fm.Model()
    b = m.planar_body("b", mass=mass, inertia=0.1, velocity=(v0, 0))
    rail = m.prismatic("ground", b, at=(0, 0), axis=(1, 0, 0), name="rail")
    m.joint_limit(joint=rail, lower=lo, stiffness=k, damping=c, name="stop")
    h = 1e-4
    res = m.simulate(t_end=0.5, h=h)
    assert abs(res["b.velocity"][-1, 0] - e * abs(v0)) < 0.3 * wn * h * e
    assert abs(-res["stop.penetration"].min() - dmax) < 0.3 * wn * h * dmax
    assert res["stop.position"].min() == pytest.approx(lo - dmax, abs=0.3 * wn * h * dmax)


@pytest.mark.parametrize("keys, match", [
    (dict(joint="rail", stiffness=1.0), "lower, upper or both"),
    (dict(joint="rail", lower=0.2, upper=0.1, stiffness=1.0), "must be below"),
    (dict(joint="rail", upper=0.1, stiffness=0.0), "stiffness"),
    (dict(joint="ball", upper=0.1, stiffness=1.0), "prismatic, point_on_line"),
])
def test_bad_limits_are_refused_naming_the_key(keys, match):
    m = fm.Model()
    b = m.planar_body("b", mass=1.0, inertia=1.0)
    m.prismatic("ground", b, at=(0, 0), axis=(1, 0, 0), name="rail")
    c = m.rigid_body("c", mass=1.0, inertia=(1, 1, 1))
    m.spherical("ground", c, at=(0, 0, 0), name="ball")
    with pytest.raises(ModelError, match=match):
        m.joint_limit(name="lim", **keys)


@pytest.mark.parametrize("method", ["event-driven", "time-stepping"])
def test_limits_work_and_report_events_with_the_set_valued_solvers(method):
    J, k, w0, up, zeta = 0.1, 1e3, 2.0, 0.3, 0.2
    c = 2 * zeta * np.sqrt(k * J)
    e, dmax, wn = closed_form(k, c, J, w0)
    m = fm.Model()
    rod = m.planar_body("rod", mass=1.0, inertia=J, angular_velocity=w0)
    pin = m.revolute("ground", rod, at=(0, 0), name="pin")
    m.joint_limit(joint=pin, upper=up, stiffness=k, damping=c, name="stop")
    h = 1e-4
    res = m.simulate(t_end=0.3, h=h, method=method)
    assert res.success
    assert [kind for _, _, kind in res.events] == ["upper stop engaged", "upper stop released"]
    # the stop's kink falls inside steps: O(ω_n h) for both (measured 1.2e-4 and 6.4e-4 relative)
    assert abs(res["rod.angular_velocity"][-1, 2] + e * w0) < 0.3 * wn * h * e * w0
