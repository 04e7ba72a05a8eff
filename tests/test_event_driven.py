"""P2's event-driven method for joint friction against closed forms and an independent
Newton-Euler formulation (flexmbd.verify.crank_rocker_reference).

* The crank-rocker (P2): θ1, θ1'', motor torque and friction force within 1e-6 relative
  of the Newton-Euler solution away from the slip reversals (RK4 at h = 2e-3: errors
  ~1e-9); the reversal located at θ2 = π; the slider never sticks; with c = g = 0 the
  normal force and the slip velocity vanish together at the reversal (two switches at
  one instant).
* Baumgarte: without it (α = β = 0) the constraint drift grows from revolution to
  revolution; with α = β = 2 it stays at its first revolution's level (P2's finding).
* Block on a ramp, belt stick-slip: closed forms of verify.cases.friction.
* Painlevé: a rod whose end slides along a line (bilateral), J = m (2l)²/12, angle θ to the
  line, sliding towards the side it leans from: m l²/J = 3 and the normal force solves
  N (1 + 3 cos²θ) − 3 μ sin θ cos θ |N| = m g (at rest in rotation), which has no solution
  for μ > μ* = (1 + 3 cos²θ) / (3 sin θ cos θ).
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.verify.cases.friction import belt_model, belt_period, crank_rocker_errors, crank_rocker_model, ramp_model

G = 9.81


def test_crank_rocker_agrees_with_newton_euler_and_never_sticks():
    e = crank_rocker_errors(8.0, 9.81, h=2e-3, t_end=1.2)
    assert e["result"].success
    for key in ("theta1", "theta1_dd", "tau", "normal", "friction"):
        assert e[key] < 1e-6, (key, e[key])
    assert len(e["reversals"]) == 1 and abs(e["reversals"][0] - np.pi / 3) < 1e-8
    assert e["sticks"] == 0


def test_crank_rocker_normal_force_and_slip_velocity_vanish_together():
    e = crank_rocker_errors(0.0, 0.0, h=4e-3, t_end=1.1)
    res = e["result"]
    assert res.success
    at = [(round(t, 6), kind) for t, _, kind in res.events]
    assert (round(np.pi / 3, 6), "slip reversal") in at and (round(np.pi / 3, 6), "contact side switch") in at
    assert e["theta1"] < 1e-6 and e["tau"] < 1e-6


def drift(alpha_beta, revolutions=3, h=0.02):
    res = crank_rocker_model(8.0, 9.81).simulate(t_end=revolutions * 2 * np.pi / 3, h=h, method="event-driven",
                                                 baumgarte_alpha=alpha_beta, baumgarte_beta=alpha_beta)
    assert res.success
    pe = res["constraints.position_error"]
    n = len(pe) // revolutions
    return pe[:n].max(), pe[-n:].max()


def test_baumgarte_stabilisation_bounds_the_drift_that_grows_without_it():
    first, last = drift(0.0)
    assert last > 10 * first                     # grows: 2.3e-6 → 4.6e-5 m over 3 revolutions
    first, last = drift(2.0)
    assert last < 1.2 * first and last < 1e-6    # bounded


@pytest.mark.parametrize("deg, mu, mu0, expect", [(15.0, 0.3, 0.4, "stick"), (20.0, 0.3, 0.4, "stick"),
                                                  (30.0, 0.3, 0.4, "slide")])
def test_block_released_on_a_ramp(deg, mu, mu0, expect):
    alpha = np.radians(deg)
    m, axis = ramp_model(alpha, mu, 0.0, mu0)
    res = m.simulate(t_end=0.5, h=1e-2, method="event-driven")
    s = res["block.position"][:, :2] @ axis
    if expect == "stick":
        assert np.abs(s).max() < 1e-12 and np.all(res["fric.slip_state"] == 0)
        np.testing.assert_allclose(res["fric.friction_force"], -2.0 * G * np.sin(alpha), rtol=1e-12)
    else:
        np.testing.assert_allclose(s, 0.5 * G * (np.sin(alpha) - mu * np.cos(alpha)) * res.t**2, atol=1e-12)
        np.testing.assert_allclose(res["fric.friction_force"][1:], -mu * 2.0 * G * np.cos(alpha), rtol=1e-12)


def test_sliding_block_stops_at_the_closed_form_time_and_distance():
    mu, alpha, v0 = 0.3, np.radians(10.0), 1.0
    m, axis = ramp_model(alpha, mu, v0, 0.4)
    res = m.simulate(t_end=1.0, h=1e-2, method="event-driven")
    t_stop = v0 / (G * (mu * np.cos(alpha) - np.sin(alpha)))
    assert [(e[1], e[2]) for e in res.events] == [("fric", "stick")]
    assert abs(res.events[0][0] - t_stop) < 1e-10
    s = res["block.position"][:, :2] @ axis
    assert abs(s[-1] - 0.5 * v0 * t_stop) < 1e-10


def test_belt_stick_slip_period_converges_at_fourth_order():
    mass, k, mu, mu0, vb = 1.0, 100.0, 0.4, 0.6, 0.1
    T_stick, T_slip, t_first = belt_period(mass, k, mu, mu0, vb)
    errors = []
    for h in (1e-2, 5e-3):
        res = belt_model(mass, k, mu, mu0, vb).simulate(t_end=2.5, h=h, method="event-driven")
        slips = np.array([e[0] for e in res.events if e[2] == "slip"])
        sticks = np.array([e[0] for e in res.events if e[2] == "stick"])
        assert abs(slips[0] - t_first) < 1e-12            # stuck phase: exact
        # the stick phase starts where RK4's slip phase ends: its error is that of RK4
        assert np.all(np.abs(slips[1:] - sticks[:len(slips) - 1] - T_stick) < 1e-7 * (h / 1e-2) ** 4)
        errors.append(np.abs(np.diff(slips) - (T_stick + T_slip)).max())
        v = res["block.velocity"][:, 0]
        np.testing.assert_allclose(v[res["fric.slip_state"] == 0], vb, atol=1e-12)
    assert 12 < errors[0] / errors[1] < 20              # RK4: 2⁴


@pytest.mark.parametrize("deg", [45.0, 70.0])
def test_painleve_inconsistency_is_reported_naming_the_joint(deg):
    theta, l = np.radians(deg), 0.5
    mu_star = (1 + 3 * np.cos(theta) ** 2) / (3 * np.sin(theta) * np.cos(theta))
    for mu, ok in ((0.98 * mu_star, True), (1.02 * mu_star, False)):
        m = fm.Model(gravity=(0, -G, 0))
        bar = m.planar_body("bar", mass=1.0, inertia=(2 * l) ** 2 / 12, position=(l * np.cos(theta), l * np.sin(theta)),
                            angle=theta, velocity=(-1.0, 0.0))
        slot = m.point_on_line("ground", bar, at=(0, 0), axis=(1, 0, 0), name="slot")
        m.joint_friction(joint=slot, mu=mu, name="fric")
        res = m.simulate(t_end=0.002, h=1e-3, method="event-driven")
        assert res.success == ok, res.message
        if not ok:
            assert "Painlevé" in res.message and "'fric' (in joint 'slot')" in res.message
            assert "t = 0 s" in res.message
            assert len(res.t) == 1                      # the initial state is kept


def test_lie_group_nodes_are_refused_with_a_clear_message():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(1, 1, 1), parameterization="se3")
    s = m.prismatic("ground", a, at=(0, 0, 0), axis=(1, 0, 0), name="slot")
    m.joint_friction(joint=s, mu=0.1)
    with pytest.raises(fm.ModelError, match="vector node kinds"):
        m.simulate(t_end=0.01, h=1e-3, method="event-driven")


def test_time_stepping_converges_at_first_order_to_the_same_crank_rocker():
    """Both set-valued solvers on the same mechanism: Moreau–Jean's forces converge at order
    one to the Newton-Euler solution that the event-driven run meets to 1e-9, through the
    slider's change of side (t ≈ 0.16 s, where the normal force is linearised anew) and the
    slip reversal."""
    errors = []
    for h in (1e-3, 5e-4):
        e = crank_rocker_errors(8.0, 9.81, h=h, t_end=1.2, method="time-stepping")
        assert e["result"].success, e["result"].message
        assert np.all(e["result"]["friction.slip_state"][1:] != 0)    # (at t = 0 the slip velocity is 0)
        errors.append(e["tau"])
    assert 1.7 < errors[0] / errors[1] < 2.3 and errors[1] < 5e-3


def test_spatial_joints_slide_and_turn_with_the_norm_of_their_normal_multipliers():
    """A block with Euler parameters in a spatial prismatic joint down a 30° ramp (normal
    force = norm of two multipliers, m g cos α: constant acceleration, exact) and a disc on a
    spatial revolute pin (normal force = norm of three, m g; ω' = −μ r m g / J, reached at
    RK4's fourth order: the Euler parameters turn at 10 rad/s), event-driven."""
    alpha, mu = np.radians(30.0), 0.2
    J, r, w0, mass = 0.05, 0.02, 10.0, 4.0
    errors = []
    for h in (1e-2, 5e-3):
        m = fm.Model(gravity=(0, -G, 0))
        axis = (np.cos(alpha), -np.sin(alpha), 0.0)
        b = m.rigid_body("block", mass=2.0, inertia=(0.1, 0.1, 0.1))
        slot = m.prismatic("ground", b, at=(0, 0, 0), axis=axis, name="slot")
        m.joint_friction(joint=slot, mu=mu, name="fric")
        disc = m.rigid_body("disc", mass=mass, inertia=(J, J, J), position=(2, 0, 0), angular_velocity=(0, 0, w0))
        pin = m.revolute("ground", disc, at=(2, 0, 0), axis=(0, 0, 1), name="pin")
        m.joint_friction(joint=pin, mu=0.3, radius=r, name="pin_fric")
        res = m.simulate(t_end=0.5, h=h, method="event-driven")
        assert res.success, res.message
        s = res["block.position"] @ np.array(axis)
        np.testing.assert_allclose(s, 0.5 * G * (np.sin(alpha) - mu * np.cos(alpha)) * res.t**2, atol=1e-9)
        np.testing.assert_allclose(res["fric.normal_force"], 2.0 * G * np.cos(alpha), rtol=1e-9)
        np.testing.assert_allclose(res["pin_fric.normal_force"], mass * G, rtol=1e-9)
        w = res["disc.angular_velocity"][:, 2]
        errors.append(np.abs(w - (w0 - 0.3 * r * mass * G / J * res.t)).max())
    assert errors[0] < 1e-5 and 12 < errors[0] / errors[1] < 20
