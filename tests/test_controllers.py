"""Joint actuators, PD controllers and DC motors against closed forms of their linear models.

* A pendulum (J about the pin, centre of mass l below it) driven by a DC motor
  (F = F_s (u − q'/ω₀)) whose command is a PD law u = k_p (q_d − q) − k_d q': linearised,
  J q'' + c q' + k q = F_s k_p q_d with c = F_s (k_d + 1/ω₀), k = m g l + F_s k_p — a damped
  oscillator with the closed-form step response (overshoot exp(−πζ/√(1−ζ²)) over the
  steady state F_s k_p q_d / k, peak at π/ω_d).  Small set-point (0.02 rad): the sine's
  non-linearity is O(q²) ≈ 1e-4 relative.
* An inverted pendulum (a rod, centre of mass l above its pin on a cart) balanced by a
  state feedback on the cart, F = −K [x, φ, x', φ'] with K placed for the poles
  −2, −3, −4, −5 of the linearised model: the run follows the linear closed loop
  exp(A_cl t) x₀ to O(φ₀²) and the pendulum stands up.
"""
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.signal as ss

import flexmbd as fm
from flexmbd.io.model_file import load_model_text

G = 9.81


def motor_pendulum(m=1.0, l=0.25, J=0.1, stall=2.0, w0=30.0, kp=20.0, kd=1.0, qd=0.02):
    model = fm.Model(gravity=(0, -G, 0))
    rod = model.planar_body("rod", mass=m, inertia=J - m * l**2, position=(0, -l))
    pin = model.revolute("ground", rod, at=(0, 0), name="pin")
    model.joint_motor(joint=pin, stall_force=stall, no_load_speed=w0, command=f"{kp}*({qd} - q) - {kd}*q_rate",
                      name="motor")
    k = m * G * l + stall * kp
    c = stall * (kd + 1 / w0)
    return model, k, c, stall * kp * qd / k


def test_motor_driven_pendulum_reaches_the_set_point_with_the_closed_form_response():
    J = 0.1
    model, k, c, q_ss = motor_pendulum(J=J)
    res = model.simulate(t_end=2.0, h=1e-3)
    assert res.success
    wn = np.sqrt(k / J)
    zeta = c / (2 * np.sqrt(k * J))
    wd = wn * np.sqrt(1 - zeta**2)
    t = res.t
    exact = q_ss * (1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * t)))
    q = res["rod.orientation"]
    assert np.abs(q - exact).max() < 2e-4 * q_ss          # measured 2.5e-5: sin q ≈ q to q²/6, (ω h)²/12
    overshoot = (q.max() - q_ss) / q_ss
    assert overshoot == pytest.approx(np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2)), abs=2e-3)
    assert t[np.argmax(q)] == pytest.approx(np.pi / wd, abs=2e-3)
    # the motor's power is external work: the energy balance closes
    balance = res["energy.total"] + res["energy.dissipated"] - res["energy.external_work"]
    assert np.ptp(balance) < 1e-6


def cart_pendulum(M=2.0, m=0.5, l=0.4, poles=(-2.0, -3.0, -4.0, -5.0), phi0=0.05, law="expression"):
    Jc = m * (2 * l) ** 2 / 12
    # linearised about upright: (M+m) x'' − m l φ'' = F;  −m l x'' + (Jc + m l²) φ'' − m g l φ = 0
    Mm = np.array([[M + m, -m * l], [-m * l, Jc + m * l**2]])
    Km = np.array([[0.0, 0.0], [0.0, -m * G * l]])
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(Mm, Km), np.zeros((2, 2))]])
    B = np.r_[0.0, 0.0, np.linalg.solve(Mm, [1.0, 0.0])][:, None]
    K = [float(k) for k in ss.place_poles(A, B, poles).gain_matrix[0]]
    model = fm.Model(gravity=(0, -G, 0))
    cart = model.planar_body("cart", mass=M, inertia=0.1)
    pend = model.planar_body("pend", mass=m, inertia=Jc, position=(-l * np.sin(phi0), l * np.cos(phi0)), angle=phi0)
    rail = model.prismatic("ground", cart, at=(0, 0), axis=(1, 0, 0), name="rail")
    pin = model.revolute(cart, pend, at=(0, 0), name="pin")
    if law == "expression":
        f = f"-({K[0]!r}*q + {K[1]!r}*(phi + {phi0!r}) + {K[2]!r}*q_rate + {K[3]!r}*phi_rate)"
    else:
        def f(t, q, q_rate, phi, phi_rate):
            return -(K[0] * q + K[1] * (phi + phi0) + K[2] * q_rate + K[3] * phi_rate)
    model.joint_actuator(joint=rail, law=f, inputs={"phi": pin}, name="control")
    return model, A - B @ np.array(K)[None, :], np.array([0.0, phi0, 0.0, 0.0])


def test_state_feedback_balances_an_inverted_pendulum_on_a_cart():
    model, Acl, x0 = cart_pendulum()
    res = model.simulate(t_end=5.0, h=2e-3)
    assert res.success
    lin = np.array([sla.expm(Acl * t) @ x0 for t in res.t])
    phi = res["pend.orientation"]               # the absolute angle is φ: the cart does not turn
    x = res["cart.position"][:, 0]
    assert np.abs(phi - lin[:, 1]).max() < 0.02 * x0[1]
    assert np.abs(x - lin[:, 0]).max() < 0.02 * np.abs(lin[:, 0]).max()
    assert abs(phi[-1]) < 1e-3 * x0[1] and abs(x[-1]) < 1e-3
    # the signals the controller reads are outputs of the joints (one vocabulary)
    np.testing.assert_allclose(res["rail.coordinate"], x, atol=1e-14)
    np.testing.assert_allclose(res["pin.coordinate"], phi - x0[1], atol=1e-12)
    np.testing.assert_allclose(res["rail.coordinate_rate"], res["cart.velocity"][:, 0], atol=1e-14)


def test_python_law_with_finite_differences_matches_the_expression():
    a = cart_pendulum(law="expression")[0].simulate(t_end=1.0, h=2e-3)
    b = cart_pendulum(law="python")[0].simulate(t_end=1.0, h=2e-3)
    np.testing.assert_allclose(b.q, a.q, atol=1e-9)
    assert b.mean_iterations() <= a.mean_iterations() + 0.5


def test_pd_controller_in_a_model_file_equals_the_python_model():
    text = """
format: 1
gravity: [0.0, -9.81, 0.0]
bodies:
  - {type: planar, name: rod, mass: 1.0, inertia: 0.0375, position: [0.0, -0.25]}
joints:
  - {type: revolute, name: pin, body_i: ground, body_j: rod, at: [0.0, 0.0]}
forces:
  - {type: pd_controller, name: pd, joint: pin, setpoint: "0.3*(1 - exp(-5*t))", kp: 20.0, kd: 2.0, max_force: 2.0}
solver: {t_end: 1.0, h: 0.001}
"""
    loaded = load_model_text(text)
    res_file = loaded.model.simulate(t_end=1.0, h=1e-3)
    m = fm.Model(gravity=(0, -G, 0))
    rod = m.planar_body("rod", mass=1.0, inertia=0.0375, position=(0, -0.25))
    pin = m.revolute("ground", rod, at=(0, 0), name="pin")
    m.pd_controller(joint=pin, setpoint="0.3*(1 - exp(-5*t))", kp=20.0, kd=2.0, max_force=2.0, name="pd")
    res_py = m.simulate(t_end=1.0, h=1e-3)
    np.testing.assert_array_equal(res_file.q, res_py.q)
    assert np.abs(res_py["pd.force"]).max() == pytest.approx(2.0)          # saturated at first
    assert abs(res_py["rod.orientation"][-1] - 0.3) < 0.05
    dumped = fm.io.model_file.dump_model(loaded.model) if hasattr(fm.io.model_file, "dump_model") else None
    if dumped is not None:
        assert "pd_controller" in dumped


def test_bundled_robot_arm_holds_its_pose_against_gravity():
    """The robot-arm example (shapes, parameters, two PD controllers, an elbow stop): once
    settled, each controller's torque equals the gravity moment of the links beyond its
    joint (statics of the held pose), and the stop is not touched."""
    from pathlib import Path

    from flexmbd.io.model_file import load_model_file

    loaded = load_model_file(Path(fm.__file__).parent / "models" / "robot-arm.yaml")
    res = loaded.model.simulate(t_end=3.0, h=2e-3)
    assert res.success
    bodies = {b.name: b for b in loaded.model.bodies}
    x = {n: res[f"{n}.position"][-1, 0] for n in ("upper", "fore", "tool")}
    mass = {n: bodies[n].mass for n in x}
    elbow_x = 2 * x["upper"]                                 # the elbow is the upper link's far end
    shoulder_moment = G * sum(mass[n] * x[n] for n in x)     # about the shoulder at the origin
    elbow_moment = G * sum(mass[n] * (x[n] - elbow_x) for n in ("fore", "tool"))
    assert res["shoulder_pd.force"][-1] == pytest.approx(shoulder_moment, rel=1e-5)   # balances −g Σ m x
    assert res["elbow_pd.force"][-1] == pytest.approx(elbow_moment, rel=1e-5)
    assert np.all(res["elbow_stop.force"] == 0) and not res.events
    assert abs(res["shoulder.coordinate"][-1] - 100 * np.pi / 180) < 0.1      # PD: a gravity droop remains


def test_marker_coordinates_are_signals_like_joint_coordinates():
    """A controller reading a marker's global x behaves as one reading the joint coordinate
    it equals (x = 1 + q for a marker at the block's initial position 1 m)."""
    runs = []
    for law, inputs in (("-50*(x - 1.2) - 5*x_rate", {"x": "tip.x"}), ("-50*(q - 0.2) - 5*q_rate", {})):
        m = fm.Model()
        b = m.planar_body("b", mass=2.0, inertia=0.1, position=(1.0, 0.0))
        rail = m.prismatic("ground", b, at=(1.0, 0.0), axis=(1, 0, 0), name="rail")
        m.marker(b, at=(1.0, 0.0), name="tip")
        m.joint_actuator(joint=rail, law=law, inputs=inputs, name="control")
        runs.append(m.simulate(t_end=4.0, h=2e-3))
    np.testing.assert_allclose(runs[0].q, runs[1].q, atol=1e-13)
    assert runs[0]["rail.coordinate"][-1] == pytest.approx(0.2, abs=5e-3)
    np.testing.assert_allclose(runs[0]["tip.position"][:, 0], 1.0 + runs[0]["rail.coordinate"], atol=1e-14)
