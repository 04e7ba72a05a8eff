"""Coulomb friction in joints with the regularised law in the Newmark-family solvers.

Closed forms: a block sliding down a ramp of angle α with kinetic coefficient μ has
s'' = g (sin α − μ cos α) while it slides (normal force m g cos α, the multiplier of the
prismatic joint's normal equation); a wheel of inertia J on a pin of radius r, centre of
mass on the axis, spinning under gravity has ω' = −μ r m g / J.  Both accelerations are
constant, which the trapezoidal rule integrates exactly; what remains is the regularised
sign's error, ε²/(2 v²) relative (ε = 1e-6 here).
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.errors import ModelError

G = 9.81


def ramp(alpha, mu, v0, mu_static=None, **friction):
    m = fm.Model(gravity=(0, -G, 0))
    axis = (np.cos(alpha), -np.sin(alpha), 0.0)
    b = m.planar_body("block", mass=2.0, inertia=0.1, velocity=(v0 * axis[0], v0 * axis[1]))
    slot = m.prismatic("ground", b, at=(0, 0), axis=axis, name="slot")
    m.joint_friction(joint=slot, mu=mu, mu_static=mu_static, name="fric", **friction)
    return m, np.array(axis[:2])


def test_block_slides_down_a_ramp_with_the_kinetic_coefficient():
    alpha, mu, v0 = np.radians(30.0), 0.2, 1.0
    m, axis = ramp(alpha, mu, v0, regularization=1e-6)
    res = m.simulate(t_end=1.0, h=1e-2)
    assert res.success
    t = res.t
    s = res["block.position"][:, :2] @ axis
    acc = G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(s, v0 * t + 0.5 * acc * t**2, atol=1e-9)
    N = 2.0 * G * np.cos(alpha)
    np.testing.assert_allclose(res["fric.normal_force"], N, rtol=1e-10)
    np.testing.assert_allclose(res["fric.friction_force"], -mu * N, rtol=1e-9)
    np.testing.assert_allclose(res["fric.slip_velocity"], v0 + acc * t, atol=1e-9)
    # the energy balance closes: friction's dissipation is counted
    e = res["energy.total"] + res["energy.dissipated"]
    assert np.ptp(e) < 1e-8 * np.abs(res["energy.kinetic"]).max()


def test_pin_friction_decelerates_a_wheel_uniformly():
    mu, r, J, mass, w0 = 0.3, 0.02, 0.05, 4.0, 10.0
    m = fm.Model(gravity=(0, -G, 0))
    wheel = m.planar_body("wheel", mass=mass, inertia=J, angular_velocity=w0)
    pin = m.revolute("ground", wheel, at=(0, 0), name="pin")
    m.joint_friction(joint=pin, mu=mu, radius=r, regularization=1e-6, name="fric")
    res = m.simulate(t_end=1.0, h=1e-2)
    dw = -mu * r * mass * G / J
    np.testing.assert_allclose(res["wheel.angular_velocity"][:, 2], w0 + dw * res.t, atol=1e-9)
    np.testing.assert_allclose(res["fric.friction_force"], mu * r * mass * G * -1, rtol=1e-9)


@pytest.mark.parametrize("keys, match", [
    (dict(joint="slot", mu=0.3, mu_static=0.2), "below mu"),
    (dict(joint="slot", mu=-0.1), "mu"),
    (dict(joint="nowhere", mu=0.1), "no joint named 'nowhere'"),
    (dict(joint="ball", mu=0.1), "prismatic, point_on_line .* and revolute"),
    (dict(joint="pin", mu=0.1), "pin radius"),
    (dict(joint="slot", mu=0.1, radius=0.01), "radius applies to revolute"),
])
def test_inconsistent_friction_settings_are_refused_naming_the_key(keys, match):
    m = fm.Model()
    a = m.planar_body("a", mass=1.0, inertia=1.0)
    b = m.planar_body("b", mass=1.0, inertia=1.0, position=(1, 0))
    m.prismatic("ground", a, at=(0, 0), axis=(1, 0, 0), name="slot")
    m.revolute(a, b, at=(1, 0), name="pin")
    c = m.rigid_body("c", mass=1.0, inertia=(1, 1, 1))
    m.spherical("ground", c, at=(0, 0, 0), name="ball")
    with pytest.raises(ModelError, match=match):
        m.joint_friction(name="f", **keys)


def test_set_valued_outputs_and_events_survive_the_results_file(tmp_path):
    """The event-driven solver's own friction force, slip state and events are written to
    and read from the HDF5 file (not recomputed with the regularised law)."""
    alpha = np.radians(20.0)             # below atan μ: a block sliding down stops
    m, axis = ramp(alpha, 0.5, 1.0, mu_static=0.6)
    res = m.simulate(t_end=1.0, h=1e-2, method="event-driven")
    assert res.success and [e[2] for e in res.events] == ["stick"]
    path = res.save(tmp_path / "ramp.h5")
    back = fm.io.results_h5.load_result(path, model=m)
    np.testing.assert_array_equal(back["fric.friction_force"], res["fric.friction_force"])
    np.testing.assert_array_equal(back["fric.slip_state"], res["fric.slip_state"])
    assert back.events == [tuple(e) for e in res.events]
    stuck = res["fric.slip_state"] == 0
    np.testing.assert_allclose(res["fric.friction_force"][stuck], -2.0 * G * np.sin(alpha), rtol=1e-9)
