"""The Moreau–Jean time-stepping scheme for joint friction against closed forms.

Block on a ramp of angle α (mass m, axis pointing down the ramp, normal force m g cos α):

* sliding (tan α > μ): s'' = g (sin α − μ cos α), so s(t) = s0 + v0 t + ½ g (sin α − μ cos α) t²;
* sliding down with tan α < μ: it decelerates at g (μ cos α − sin α) and stops at
  t* = v0 / (g (μ cos α − sin α)), then stays stuck (tan α < μ0) with the friction force
  −m g sin α along the axis;
* released at rest with tan α ≤ μ0: it never moves (the static coefficient holds it even
  when tan α > μ).

Mass-spring on a belt (stick–slip).  The block (mass m) sits on a belt moving at the
constant speed v_b along x, joined to it by a prismatic joint with friction (μ, μ0 > μ,
normal force m g: gravity is perpendicular to the belt) and to ground by a spring k, x
its position measured from the spring's rest point.  Let x_s = μ0 m g / k,
x_e = μ m g / k, d = x_s − x_e = (μ0 − μ) m g / k and ω = √(k/m).

* Stick: the block rides with the belt (x' = v_b) while the spring force stays below the
  static bound, |k x| ≤ μ0 m g, i.e. up to x = x_s.
* Slip: the belt is faster than the block, so friction pushes it forwards:
  m x'' = −k x + μ m g, harmonic about x_e: with u = x − x_e and w = x'/ω the state turns
  on the circle u² + w² = A², A² = d² + (v_b/ω)², at angular rate ω.  It starts at
  (u, w) = (d, v_b/ω) and the relative velocity x' − v_b, negative in between, returns to
  zero at the mirror point (−d, v_b/ω), after the angle 2π − 2ψ0, ψ0 = atan(d ω / v_b):
  T_slip = (2π − 2 atan(d ω / v_b)) / ω.  There x = x_e − d = (2μ − μ0) m g / k and
  |k x| ≤ μ0 m g, so the block sticks again.
* Stick again from x_e − d to x_s = x_e + d at speed v_b: T_stick = 2 d / v_b.

The steady period is T = T_stick + T_slip, the block's largest position x_e + A.  The
scheme is of order one, so times of switches are checked to a few steps h.
"""
import re

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.solvers.time_stepping import time_stepping
from flexmbd.verify.cases.friction import belt_model

G = 9.81


def ramp(alpha, mu, v0, mu_static=None, mass=2.0):
    m = fm.Model(gravity=(0, -G, 0))
    axis = (np.cos(alpha), -np.sin(alpha), 0.0)
    b = m.planar_body("block", mass=mass, inertia=0.1, velocity=(v0 * axis[0], v0 * axis[1]))
    slot = m.prismatic("ground", b, at=(0, 0), axis=axis, name="slot")
    m.joint_friction(joint=slot, mu=mu, mu_static=mu_static, name="fric")
    return m, np.array(axis[:2])


def slide(res, axis):
    return res["block.position"][:, :2] @ axis


def test_sliding_block_follows_the_closed_form_to_first_order():
    alpha, mu, v0, t_end = np.radians(30.0), 0.2, 1.0, 1.0
    m, axis = ramp(alpha, mu, v0)
    system = m.freeze()
    acc = G * (np.sin(alpha) - mu * np.cos(alpha))
    errors = []
    for h in (0.02, 0.01):
        res = time_stepping(system, t_end, h, theta=1.0)
        assert res.success and res.t[-1] == pytest.approx(t_end)
        errors.append(np.abs(slide(res, axis) - (v0 * res.t + 0.5 * acc * res.t**2)).max())
        # kinetic friction throughout: slipping forwards with μ m g cos α against the motion
        assert np.all(res["fric.slip_state"] == 1)
        np.testing.assert_allclose(res["fric.friction_force"], -mu * 2.0 * G * np.cos(alpha), rtol=1e-12)
        np.testing.assert_allclose(np.abs(res.lam[:, 0]), 2.0 * G * np.cos(alpha), rtol=1e-12)
        np.testing.assert_allclose(res["block.velocity"][:, :2] @ axis, v0 + acc * res.t, atol=1e-12)
    # first order: the error of the implicit Euler positions is ½ a h t, halved with h
    assert errors[0] / errors[1] == pytest.approx(2.0, rel=0.02)
    assert errors[1] < 0.5 * acc * 0.01 * t_end * 1.01
    # the midpoint rule (θ = ½) integrates the constant acceleration exactly
    res = time_stepping(system, t_end, 0.02)
    np.testing.assert_allclose(slide(res, axis), v0 * res.t + 0.5 * acc * res.t**2, atol=1e-12)


@pytest.mark.parametrize("degrees", [20.0, 28.0])
def test_block_released_at_rest_below_the_static_angle_stays(degrees):
    alpha, mu, mu0 = np.radians(degrees), 0.5, 0.6     # atan μ = 26.6°, atan μ0 = 31.0°
    m, axis = ramp(alpha, mu, 0.0, mu_static=mu0)
    res = time_stepping(m.freeze(), 1.0, 0.01)
    assert np.abs(slide(res, axis)).max() < 1e-12
    assert np.all(res["fric.slip_state"] == 0) and not res.events
    np.testing.assert_allclose(res["fric.friction_force"], -2.0 * G * np.sin(alpha), rtol=1e-12)


def test_block_released_above_the_static_angle_slides_with_the_kinetic_coefficient():
    alpha, mu, mu0 = np.radians(33.0), 0.5, 0.6
    m, axis = ramp(alpha, mu, 0.0, mu_static=mu0)
    res = time_stepping(m.freeze(), 0.5, 0.01)
    acc = G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(slide(res, axis), 0.5 * acc * res.t**2, atol=1e-12)
    assert res.events == [(pytest.approx(0.01), "fric", "slip")]
    np.testing.assert_allclose(res["fric.friction_force"][1:], -mu * 2.0 * G * np.cos(alpha), rtol=1e-12)


def test_block_sliding_on_a_shallow_ramp_stops_at_the_closed_form_time_and_sticks():
    alpha, mu, mu0, v0 = np.radians(20.0), 0.5, 0.6, 1.0
    dec = G * (mu * np.cos(alpha) - np.sin(alpha))
    t_stop = v0 / dec                                   # 0.7976 s
    m, axis = ramp(alpha, mu, v0, mu_static=mu0)
    system = m.freeze()
    for h in (0.01, 0.005):
        res = time_stepping(system, 1.5, h)
        events = [e for e in res.events if e[1] == "fric"]
        assert [e[2] for e in events] == ["stick"]
        assert abs(events[0][0] - t_stop) <= h
        s = slide(res, axis)
        stuck = res.t >= events[0][0]
        assert np.ptp(s[stuck]) < 1e-12
        assert np.all(res["fric.slip_state"][stuck] == 0) and np.all(res["fric.slip_state"][~stuck] == 1)
        np.testing.assert_allclose(res["fric.friction_force"][stuck][1:], -2.0 * G * np.sin(alpha), rtol=1e-12)
        # the distance travelled, v0²/(2 dec), to first order
        assert s[-1] == pytest.approx(v0**2 / (2 * dec), abs=2 * v0 * h)


def test_mass_spring_on_a_belt_sticks_and_slips_with_the_closed_form_period():
    mass, k, mu, mu0, vb = 1.0, 100.0, 0.4, 0.6, 0.1
    omega = np.sqrt(k / mass)
    x_s, x_e = mu0 * mass * G / k, mu * mass * G / k
    d = x_s - x_e
    T_stick = 2 * d / vb                                        # 0.392 s
    T_slip = (2 * np.pi - 2 * np.arctan(d * omega / vb)) / omega  # 0.408 s
    amplitude = np.hypot(d, vb / omega)
    system = belt_model(mass, k, mu, mu0, vb).freeze()
    for h in (2e-3, 1e-3):
        res = time_stepping(system, 2.5, h)
        assert res.success
        ev = [(t, kind) for t, name, kind in res.events if name == "fric"]
        kinds = [kind for _, kind in ev]
        assert kinds[:5] == ["slip", "stick", "slip", "stick", "slip"]
        slips = np.array([t for t, kind in ev if kind == "slip"])
        sticks = np.array([t for t, kind in ev if kind == "stick"])
        # first slip when the spring reaches the static bound, from x = 0 at the belt's speed
        assert abs(slips[0] - x_s / vb) <= 2 * h
        periods = np.diff(slips)
        stick_times = slips[1:] - sticks[:len(slips) - 1]
        assert np.all(np.abs(periods - (T_stick + T_slip)) <= 2 * h)
        assert np.all(np.abs(stick_times - T_stick) <= 2 * h)
        assert np.all(np.abs(stick_times / periods - T_stick / (T_stick + T_slip)) <= 4 * h)
        # sticking: the block rides with the belt; slipping: it lags behind it
        v = res["block.velocity"][:, 0]
        state = res["fric.slip_state"]
        np.testing.assert_allclose(v[state == 0], vb, atol=1e-12)
        assert np.all(v[state != 0] < vb) and np.all(state[state != 0] == -1)
        # the harmonic slip phase reaches x_e + A
        x = res["block.position"][:, 0]
        assert x.max() == pytest.approx(x_e + amplitude, abs=vb * h + omega * amplitude * h)
        # the belt's normal force m g in the contact (its one normal row)
        np.testing.assert_allclose(np.abs(res.multipliers("contact")[:, 0]), mass * G, rtol=1e-12)


def test_several_friction_joints_in_one_model():
    """A planar wheel on a pin (two normal rows), a spatial wheel on a revolute joint (three
    rows, Euler parameters) and a block on a ramp, each decelerating by its own law:
    ω' = −μ r m g / J while it turns (the centre of mass on the axis: normal force m g),
    then stuck."""
    mu, r, J, mass = 0.3, 0.02, 0.05, 4.0
    m = fm.Model(gravity=(0, -G, 0))
    w1 = m.planar_body("wheel", mass=mass, inertia=J, angular_velocity=2.0)
    m.joint_friction(joint=m.revolute("ground", w1, at=(0, 0), name="pin"), mu=mu, radius=r, name="f_pin")
    w2 = m.rigid_body("disc", mass=mass, inertia=(J, 0.03, 0.03), angular_velocity=(-1.0, 0, 0))
    m.joint_friction(joint=m.revolute("ground", w2, at=(0, 0, 0), axis=(1, 0, 0), name="axle"), mu=mu,
                     radius=r, name="f_axle")
    alpha = np.radians(20.0)
    axis = (np.cos(alpha), -np.sin(alpha), 0.0)
    b = m.planar_body("block", mass=2.0, inertia=0.1, position=(3, 0), velocity=(axis[0], axis[1]))
    m.joint_friction(joint=m.prismatic("ground", b, at=(3, 0), axis=axis, name="slot"), mu=0.5,
                     mu_static=0.6, name="f_slot")
    system = m.freeze()
    assert system.additive and len(system.friction_groups) == 3
    h = 0.005
    res = time_stepping(system, 1.5, h)
    dw = mu * r * mass * G / J                            # 0.4709 rad/s²
    for name, body, w0, k in (("f_pin", "wheel", 2.0, 2), ("f_axle", "disc", -1.0, 0)):
        w = res[f"{body}.angular_velocity"][:, k]
        t_stop = abs(w0) / dw
        np.testing.assert_allclose(w, np.sign(w0) * np.maximum(abs(w0) - dw * res.t, 0.0), atol=dw * h)
        ev = [e for e in res.events if e[1] == name]
        assert len(ev) == 1 and ev[0][2] == "stick" and abs(ev[0][0] - t_stop) <= h
        turning = res[f"{name}.slip_state"] != 0
        np.testing.assert_allclose(res[f"{name}.friction_force"][turning], -np.sign(w0) * mu * r * mass * G,
                                   rtol=1e-9)
    dec = G * (0.5 * np.cos(alpha) - np.sin(alpha))
    ev = [e for e in res.events if e[1] == "f_slot"]
    assert len(ev) == 1 and abs(ev[0][0] - 1.0 / dec) <= h
    assert res.stats["iterations"][1:].min() >= 0 and res.stats["iterations"].sum() > 0


def test_the_scheme_refuses_lie_group_kinds():
    m = fm.Model(gravity=(0, -G, 0))
    b = m.rigid_body("b", mass=1.0, inertia=(1, 1, 1), parameterization="rotation")
    m.joint_friction(joint=m.revolute("ground", b, at=(0, 0, 0), name="pin"), mu=0.1, radius=0.01)
    with pytest.raises(NotImplementedError, match="vector node kinds"):
        time_stepping(m.freeze(), 0.1, 0.01)


def test_a_frictionless_model_is_plain_moreau_and_runs():
    """No friction element: the scheme reduces to the velocity-level midpoint scheme (a
    pendulum keeps its length to the drift correction's accuracy)."""
    m = fm.Model(gravity=(0, -G, 0))
    b = m.planar_body("bob", mass=1.0, inertia=0.01, position=(1, 0))
    m.revolute("ground", b, at=(0, 0), name="pin")
    res = time_stepping(m.freeze(), 1.0, 1e-3)
    length = np.linalg.norm(res["bob.position"][:, :2], axis=1)
    assert np.abs(length - 1.0).max() < 3e-5                      # measured 9.7e-6


def test_spatial_sliding_uses_the_norm_of_two_normal_rows():
    """A spatial block (Euler parameters) in a prismatic joint down a 30° ramp: the normal
    force is the norm of the two point-on-line multipliers, m g cos α."""
    alpha, mu, v0 = np.radians(30.0), 0.2, 1.0
    m = fm.Model(gravity=(0, -G, 0))
    axis = np.array([np.cos(alpha), -np.sin(alpha), 0.0])
    b = m.rigid_body("block", mass=2.0, inertia=(0.1, 0.1, 0.1), velocity=v0 * axis)
    m.joint_friction(joint=m.prismatic("ground", b, at=(0, 0, 0), axis=axis, name="slot"), mu=mu, name="fric")
    res = time_stepping(m.freeze(), 1.0, 0.01)
    acc = G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(res["block.position"] @ axis, v0 * res.t + 0.5 * acc * res.t**2, atol=1e-12)
    np.testing.assert_allclose(res["fric.friction_force"], -mu * 2.0 * G * np.cos(alpha), rtol=1e-12)


def test_a_friction_problem_without_solution_names_the_elements_and_the_time(monkeypatch):
    from flexmbd.solvers import time_stepping as ts
    from flexmbd.solvers.lcp import LCPSolution

    m, _ = ramp(np.radians(30.0), 0.2, 1.0)
    monkeypatch.setattr(ts, "lemke", lambda M, q: LCPSolution(None, None, 3))
    res = time_stepping(m.freeze(), 0.1, 0.01)     # the run stops with the diagnosis, keeping its steps
    assert not res.success and len(res.t) == 1
    assert re.search(r"t = 0\.01 s.*Painlevé.*'fric' \(in joint 'slot'\)", res.message)


def test_the_painleve_rod_jams_instead_of_failing():
    """The rod whose acceleration-level problem has no solution (tests/test_event_driven.py)
    is resolved at impulse level by a tangential impact: the sliding end jams (sticks) —
    the known resolution of Painlevé's paradox (Génot & Brogliato 1999)."""
    theta, l = np.radians(45.0), 0.5
    mu_star = (1 + 3 * np.cos(theta) ** 2) / (3 * np.sin(theta) * np.cos(theta))
    m = fm.Model(gravity=(0, -G, 0))
    bar = m.planar_body("bar", mass=1.0, inertia=(2 * l) ** 2 / 12, position=(l * np.cos(theta), l * np.sin(theta)),
                        angle=theta, velocity=(-1.0, 0.0))
    slot = m.point_on_line("ground", bar, at=(0, 0), axis=(1, 0, 0), name="slot")
    m.joint_friction(joint=slot, mu=1.5 * mu_star, name="fric")
    res = m.simulate(t_end=0.01, h=1e-3, method="time-stepping")
    assert res.success and res["fric.slip_state"][1] == 0 and np.all(res["fric.slip_state"][1:] == 0)
    # stuck: v_r = W(q_θ) v = 0 at the step's midpoint, so W(q) v at the step's end is O(h) (1.9e-4 m/s)
    assert np.abs(res["fric.slip_velocity"][1:]).max() < 1e-3 * 1.0
