"""Kinematic analysis of driven mechanisms and driver loads by inverse dynamics.

Reference: a slider-crank (crank r, rod l, slider on the x axis through the crank pivot)
driven at constant speed ω, θ = θ0 + ω t.  With s = sin θ, c = cos θ, D = √(l² − r² s²):
    x = r c + D,   x_θ = −r s + D_θ,   x_θθ = −r c + D_θθ,
    D_θ = −r² s c / D,   D_θθ = −r² [(c² − s²)/D + r² s² c² / D³],
the rod angle ψ (sin ψ = −r s / l): ψ_θ = −r c / D, ψ_θθ = r s / D − r³ s c² / D³.
Driver torque from Lagrange's equation in the single coordinate θ (θ'' = 0):
    τ = ½ m'(θ) ω² − Q_θ,   m(θ) = Σ m_i |∂c_i/∂θ|² + Σ I_i (∂φ_i/∂θ)²,
Q_θ = F_s x_θ − g Σ m_i ∂y_i/∂θ (slider force F_s along x, gravity −g y).
"""
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.model import ModelError
from flexmbd.system import RedundantConstraintWarning

R, LR, W, TH0 = 0.3, 1.0, 2.0, 0.4           # crank, rod, speed, initial crank angle
M1, I1, M2, I2, M3 = 2.0, 0.05, 3.0, 0.3, 1.5
G, FS = 9.81, -50.0


def slider_crank(kind, driven=True):
    """The slider-crank with planar, spatial (Euler-parameter) or rotation-vector bodies, gravity −y."""
    m = fm.Model(gravity=(0, -G, 0))
    s0 = np.sin(TH0)
    A = R * np.array([np.cos(TH0), s0, 0])
    D = np.sqrt(LR**2 - (R * s0) ** 2)
    B = np.array([R * np.cos(TH0) + D, 0, 0])
    psi = np.arctan2(-R * s0, D)
    if kind == "planar":
        crank = m.planar_body("crank", mass=M1, inertia=I1, position=A[:2] / 2, angle=TH0)
        rod = m.planar_body("rod", mass=M2, inertia=I2, position=(A + B)[:2] / 2, angle=psi)
        slider = m.planar_body("slider", mass=M3, inertia=0.01, position=B[:2])
    else:
        q = fm.quaternion_from_axis_angle
        par = dict(parameterization="rotation" if kind == "spatial-lie" else "quaternion")
        crank = m.rigid_body("crank", mass=M1, inertia=(0.01, I1, I1), position=A / 2, orientation=q((0, 0, 1), TH0),
                             **par)
        rod = m.rigid_body("rod", mass=M2, inertia=(0.02, I2, I2), position=(A + B) / 2, orientation=q((0, 0, 1), psi),
                           **par)
        slider = m.rigid_body("slider", mass=M3, inertia=(0.01, 0.01, 0.01), position=B, **par)
    m.revolute(fm.GROUND, crank, at=(0, 0, 0), name="crank_pin")
    m.revolute(crank, rod, at=A, name="elbow")
    m.revolute(rod, slider, at=B, name="wrist")
    m.prismatic(fm.GROUND, slider, at=B, axis=(1, 0, 0), name="slide")
    if driven:
        m.rotation_driver(fm.GROUND, crank, speed=W, name="motor")
    m.force(slider, (FS, 0, 0), name="load")
    return m


def reference(t):
    """Slider x, x', x'' and the driver torque at times t (closed form, see module doc)."""
    th = TH0 + W * np.asarray(t)
    s, c = np.sin(th), np.cos(th)
    D = np.sqrt(LR**2 - R**2 * s**2)
    Dt = -R**2 * s * c / D
    Dtt = -R**2 * ((c**2 - s**2) / D + R**2 * s**2 * c**2 / D**3)
    xt, xtt = -R * s + Dt, -R * c + Dtt
    psit, psitt = -R * c / D, R * s / D - R**3 * s * c**2 / D**3
    c1t, c1tt = R / 2 * np.array([-s, c]), -R / 2 * np.array([c, s])
    c2t, c2tt = np.array([-R * s + Dt / 2, R * c / 2]), np.array([-R * c + Dtt / 2, -R * s / 2])
    dm = 2 * (M1 * (c1t * c1tt).sum(0) + M2 * (c2t * c2tt).sum(0) + I2 * psit * psitt + M3 * xt * xtt)
    Q = FS * xt - G * (M1 * c1t[1] + M2 * c2t[1])
    return R * c + D, W * xt, W**2 * xtt, 0.5 * dm * W**2 - Q


def _kinematics(model, t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return model.kinematics(t)


@pytest.mark.parametrize("kind", ["planar", "spatial", "spatial-lie"])
def test_driven_slider_crank_matches_closed_form(kind):
    t = np.linspace(0.0, np.pi / W, 41)  # half a revolution of the crank
    res = _kinematics(slider_crank(kind), t)
    assert res.success, res.message
    x, xd, xdd, tau = reference(t)
    assert np.max(np.abs(res["slider.position"][:, 0] - x)) < 1e-9  # Newton stops at |Φ| < 1e-10
    assert np.max(np.abs(res["slider.velocity"][:, 0] - xd)) < 1e-9
    sl = res.system.body_slice(res.system.model.body("slider"))
    assert np.max(np.abs(res.qdd[:, sl][:, 0] - xdd)) < 1e-9
    # crank angle follows the driver exactly
    assert np.allclose(res["crank.angular_velocity"][:, 2], W, atol=1e-10)
    # driver torque by inverse dynamics vs the one-coordinate Lagrange formula
    assert np.max(np.abs(res["motor.torque"] - tau)) < 1e-9 * np.max(np.abs(tau))
    assert np.allclose(res.driver_loads()["motor"], res["motor.torque"])
    assert res.stats["iterations"][1:].max() <= 3  # Newton from the second-order predictor
    assert res.message.startswith("kinematic analysis completed")


def test_spatial_slider_crank_reports_its_redundant_equations():
    with pytest.warns(RedundantConstraintWarning, match=r"3 redundant constraint equation"):
        res = slider_crank("spatial").kinematics([0.0, 0.1])
    assert res.success and len(res.system.removed_equations) == 3


def test_driver_torque_by_power_balance():
    """τ ω = dT/dt − P_applied, with T from the computed velocities (independent of λ)."""
    t = np.linspace(0.0, 1.0, 201)
    res = _kinematics(slider_crank("planar"), t)
    T = res["energy.kinetic"]
    dTdt = np.gradient(T, t, edge_order=2)
    P = FS * res["slider.velocity"][:, 0] - G * sum(M * res[f"{b}.velocity"][:, 1]
                                                   for b, M in (("crank", M1), ("rod", M2), ("slider", M3)))
    tau = (dTdt - P) / W
    assert np.max(np.abs(tau - res["motor.torque"])[1:-1]) < 1e-4 * np.max(np.abs(tau))  # measured 5e-6


@pytest.mark.parametrize("kind", ["planar", "spatial"])
def test_dynamics_with_the_same_driver_gives_the_same_torque(kind):
    """Generalized-α (ρ∞ = 0.8): the driver torque of the index-3 simulation converges to
    the inverse-dynamics torque at second order once the start-up transient has decayed
    (measured planar: 1.5e-4 at h = 0.01, 2.6e-5 at h = 0.005, for |τ| up to 18 N m)."""
    model = slider_crank(kind)
    errs = []
    for h in (0.01, 0.005):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RedundantConstraintWarning)
            res = model.simulate(0.8, h, integrator=fm.GeneralizedAlpha(0.8))
        assert res.success
        late = res.t >= 0.5
        errs.append(np.max(np.abs(res["motor.torque"] - reference(res.t)[3])[late]))
        assert np.max(np.abs(res["slider.position"][:, 0] - reference(res.t)[0])) < 1e-9
    assert errs[0] < 5e-4 and errs[1] < 1e-4
    assert errs[0] / errs[1] > 3.0  # second order (ratio 4 for h → h/2)


def test_newmark_trapezoidal_multipliers_oscillate_without_projection():
    """P1's Newmark (β = ¼, γ = ½) on the index-3 equations, its Newton solution's
    multipliers kept (``multipliers='integrator'``): positions are exact but the
    accelerations and multipliers carry an undamped error of alternating sign that does
    not shrink with h (measured 0.45 N m on the torque at h = 0.01 and at 0.005).
    The mean of two neighbouring steps converges.  With the mass-orthogonal velocity
    projection the error shrinks with h (first order: 0.012, 0.006, 0.003 N m).  The
    default, multipliers solved from the index-1 equations at each step's (q, q', t), is
    exact here up to rounding with the projection (the crank is driven: q and q' are
    exact) and second order without it (the velocities' error: 2.3e-5, 5.7e-6 N m)."""
    model = slider_crank("planar")
    amp, amp_projected, amp_unprojected = [], [], []
    for h in (0.01, 0.005):
        res = model.simulate(1.0, h, project_velocities=False, multipliers="integrator")
        e = res["motor.torque"] - reference(res.t)[3]
        amp.append(np.max(np.abs(e)))
        assert np.all(np.sign(e[2:40]) == -np.sign(e[1:39]))  # alternating
        assert np.max(np.abs(0.5 * (e[1:] + e[:-1]))) < h  # neighbour mean is O(h)
        res = model.simulate(1.0, h, multipliers="integrator")
        amp_projected.append(np.max(np.abs(res["motor.torque"] - reference(res.t)[3])))
        res = model.simulate(1.0, h)
        torque = reference(res.t)[3]
        assert np.max(np.abs(res["motor.torque"] - torque)) < 1e-9 * np.max(np.abs(torque))
        res = model.simulate(1.0, h, project_velocities=False)
        amp_unprojected.append(np.max(np.abs(res["motor.torque"] - reference(res.t)[3])))
    assert amp[1] > 0.5 * amp[0] > 0.1
    assert amp_unprojected[0] < 1e-4 * amp[0] and 3.6 < amp_unprojected[0] / amp_unprojected[1] < 4.4
    assert amp_projected[0] < 0.05 * amp[0]
    assert 1.8 < amp_projected[0] / amp_projected[1] < 2.2  # first order in h


def test_translation_driver_force():
    """A block on a prismatic joint pushed along x by x(t) = 0.1 t + 0.3 t², against a
    spring to ground (k = 200): driver force = m x'' + k (x − x0) (spring along x)."""
    m = fm.Model()
    block = m.rigid_body("block", mass=2.0, inertia=(0.1, 0.1, 0.1), position=(1.0, 0, 0))
    m.prismatic(fm.GROUND, block, at=(1.0, 0, 0), axis=(1, 0, 0))
    m.translation_driver(fm.GROUND, block, at=(1.0, 0, 0), axis=(1, 0, 0),
                         displacement=fm.Polynomial((0.0, 0.1, 0.3)), name="ram")
    m.spring_damper(fm.GROUND, block, at_i=(0, 0, 0), k=200.0)
    t = np.linspace(0, 1, 11)
    res = m.kinematics(t)
    assert res.success, res.message
    d = 0.1 * t + 0.3 * t**2
    assert np.allclose(res["block.position"][:, 0], 1.0 + d, atol=1e-12)
    assert np.allclose(res["ram.force"], 2.0 * 0.6 + 200.0 * d, atol=1e-9)


def test_not_fully_driven_is_an_error():
    with pytest.raises(ModelError, match=r"1 degree\(s\) of freedom left"):
        slider_crank("planar", driven=False).kinematics([0.0])


def test_dead_point_stops_the_analysis():
    """P1's slider-crank (equal links) driven through φ = 90°, where the slider reaches the
    crank pivot and Φ_q is singular: the analysis stops there and says why."""
    from flexmbd.examples.slider_crank import build

    m = build(k=2e4)
    m.rotation_driver(fm.GROUND, "crank", speed=1.0, name="motor")
    t = np.r_[np.linspace(0, np.pi / 4, 11), np.pi / 4 + 0.1]
    res = _kinematics(m, t)
    assert not res.success
    assert "t = 0.785398 s" in res.message and "singular" in res.message
    assert len(res.t) == 10  # the times before the dead point are kept
    assert res.condition[-1] > res.condition[0]
