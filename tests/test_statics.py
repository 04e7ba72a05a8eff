"""Static equilibrium: P1's slider-crank held by its SDA spring, torsional springs under
gravity, and what happens without the spring stiffness in the Newton matrix."""
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

import flexmbd as fm
from flexmbd.examples.slider_crank import build
from flexmbd.solvers.newton import NewtonSolver
from flexmbd.system import jacobian_terms
from flexmbd.verify.cases.statics import run_slider_crank_static, slider_crank_equilibrium_angle

F, L = 1000.0, 2.0


def test_closed_form_is_a_minimum_of_the_energy():
    """φ* from the formula is where V(φ) = ½k(L cos φ − l0)² − 2FL cos φ is smallest."""
    k = 2e4
    phi = np.linspace(1e-3, np.pi / 2, 200001)
    V = 0.5 * k * (L * np.cos(phi) - L * np.cos(np.pi / 4)) ** 2 - 2 * F * L * np.cos(phi)
    assert abs(phi[np.argmin(V)] - slider_crank_equilibrium_angle(k)) < 1e-4
    assert np.degrees(slider_crank_equilibrium_angle(k)) == pytest.approx(40.7902, abs=1e-4)


@pytest.mark.parametrize("k", [1e4, 2e4, 1e5])
def test_slider_crank_equilibrium_matches_closed_form(k):
    res = run_slider_crank_static(k)
    assert res.success, res.message
    assert np.allclose(res.load_factor, np.linspace(0, 1, 11))
    phi_ref = slider_crank_equilibrium_angle(k)
    x = res["slider.position"][-1]
    assert np.arccos(x[0] / (2 * L)) == pytest.approx(phi_ref, abs=1e-10)
    assert abs(x[1]) < 1e-12 and abs(x[2]) < 1e-12
    crank_tip = 2 * res["crank.position"][-1]  # centre of mass at mid-length
    assert np.allclose(crank_tip, [L * np.cos(phi_ref), L * np.sin(phi_ref), 0], atol=1e-10)
    assert res["sda.force"][-1] == pytest.approx(2 * F, rel=1e-10)  # the spring carries 2F whatever k
    # exact Jacobian: quadratic convergence, at most 3 iterations per load step (P1), 2 measured
    assert res.iterations[1:].max() <= 3
    assert res.residual_norm[-1] < 1e-7
    # intermediate steps are equilibria for the scaled load s F
    for s, xs in zip(res.load_factor[1:], res["slider.position"][1:, 0]):
        assert np.arccos(xs / (2 * L)) == pytest.approx(np.arccos(np.cos(np.pi / 4) + 2 * s * F / (k * L)), abs=1e-9)


def test_one_load_step_suffices_with_the_exact_jacobian():
    res = run_slider_crank_static(2e4, load_steps=1)
    assert res.success and res.iterations[1] <= 4
    assert np.arccos(res["slider.position"][-1, 0] / 4) == pytest.approx(slider_crank_equilibrium_angle(2e4), abs=1e-10)


def test_without_the_sda_stiffness_the_matrix_is_singular():
    """P1: statics 'does not converge at all' without ∂Q/∂q of the SDA.

    Measured: at the unloaded start λ = 0, so with 'M1' the matrix has no stiffness at
    all along the mechanism's degree of freedom and is exactly singular; the load
    increment is halved 4 times, each try singular, and the result says so.
    """
    for jac in ("M1", "M1+M3"):
        res = run_slider_crank_static(2e4, jacobian=jac)
        assert not res.success
        assert res.load_steps == 0  # only the unloaded state (load factor 0) was found
        assert "load step 1" in res.message and "singular" in res.message
        assert "slider.x" in res.message  # worst equation and the free direction are named
    full = run_slider_crank_static(2e4, jacobian="M1+M2")  # the SDA stiffness is what matters
    assert full.success and full.iterations[1:].max() <= 3


def test_without_the_sda_stiffness_newton_diverges_from_a_loaded_state():
    """Starting M1-Newton from the exact half-load equilibrium (λ ≠ 0, so the matrix is
    regular) to full load: the residual explodes (measured 5e2 → 1e32 in one iteration),
    while the exact Jacobian converges in 3 iterations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = build(k=2e4, c=0.0)
        half = model.static_equilibrium(load_steps=2)
    sys = half.system
    n = sys.n
    x0 = np.r_[half.q[1], half.lam[1]]
    outcome = {}
    for jac in ("full", "M1"):
        terms = jacobian_terms(jac)

        def problem(x, matrix):
            Fr, Phi, A = sys.evaluate(x[:n], np.zeros(n), np.zeros(n), x[n:], 0.0, cM=0.0, cD=0.0, cK=1.0,
                                      terms=terms, load_factor=1.0, matrix=matrix)
            r = np.r_[Fr, Phi]
            return r, r, A

        with np.errstate(all="ignore"):
            outcome[jac] = NewtonSolver(1e-7, 50).solve(problem, x0)
    assert outcome["full"].converged and outcome["full"].iterations <= 3
    assert not outcome["M1"].converged


def _hinged_rod(kind, k, angle0=0.0):
    """A uniform rod (m, length l) hinged at the origin, horizontal along +x, gravity −y,
    held by a torsional spring k about z."""
    m, l = 3.0, 1.2
    model = fm.Model(gravity=(0, -9.81, 0))
    if kind == "planar":
        rod = model.planar_body("rod", mass=m, inertia=m * l**2 / 12, position=(l / 2, 0))
    else:
        rod = model.rigid_body("rod", mass=m, inertia=(0.01, m * l**2 / 12, m * l**2 / 12), position=(l / 2, 0, 0))
    model.revolute(fm.GROUND, rod, at=(0, 0, 0), axis=(0, 0, 1), name="hinge")
    model.rotational_spring_damper(fm.GROUND, rod, axis=(0, 0, 1), k=k, c=5.0, angle0=angle0, name="torsion")
    return model, m, l


@pytest.mark.parametrize("kind", ["planar", "spatial"])
def test_torsional_spring_holds_a_rod_against_gravity(kind):
    """k (θ − θ0) = −m g (l/2) cos θ at equilibrium (θ from the horizontal, positive up)."""
    k, angle0 = 40.0, 0.3
    model, m, l = _hinged_rod(kind, k, angle0)
    res = model.static_equilibrium(load_steps=4)
    assert res.success, res.message
    theta_ref = brentq(lambda th: k * (th - angle0) + m * 9.81 * l / 2 * np.cos(th), -np.pi / 2, np.pi / 2)
    p = res["rod.position"][-1]
    assert np.arctan2(p[1], p[0]) == pytest.approx(theta_ref, abs=1e-8)  # |r| < 1e-7, k = 40
    assert res.iterations[1:].max() <= 5


def test_static_failure_names_the_free_direction():
    """A rod on a hinge with no spring under gravity: no equilibrium in the start pose and a
    singular matrix; the message names the load step and the free coordinate."""
    model = fm.Model(gravity=(0, -9.81, 0))
    rod = model.planar_body("rod", mass=1.0, inertia=0.1, position=(0.5, 0))
    model.revolute(fm.GROUND, rod, at=(0, 0), name="hinge")
    res = model.static_equilibrium(load_steps=2, max_cuts=1)
    assert not res.success
    assert "load step 1" in res.message and "rod.theta" in res.message
    assert len(res.q) == 1  # the unloaded state is kept


# ------------------------------------------------------------ torsional spring dynamics
def _spring_angle(res, name):
    from flexmbd.forces.rotational_spring import RotationalSpringDamperGroup

    sys = res.system
    g = next(g for g in sys.force_groups if isinstance(g, RotationalSpringDamperGroup))
    i = g.element_names.index(name)
    return np.array([g.outputs(sys.extend(q), sys.extend_velocity(v), t)["angle"][i]
                     for t, q, v in zip(res.t, res.q, res.v)])


@pytest.mark.parametrize("kind", ["planar", "spatial"])
def test_torsional_oscillator_frequency(kind):
    """A body on a revolute joint through its centre of mass, held by a torsional spring:
    θ(t) = (ω0/ω) sin ωt with ω = √(k/I), I the moment of inertia about the joint axis.
    Spatial: a tilted axis a = (1, 2, 2)/3 and a rotated body with a full inertia tensor."""
    k, w0 = 20.0, 0.8
    m = fm.Model()
    if kind == "planar":
        axis, I = np.array([0.0, 0.0, 1.0]), 0.5
        body = m.planar_body("disk", mass=2.0, inertia=I, position=(0.3, 0.1), angular_velocity=w0)
    else:
        axis = np.array([1.0, 2.0, 2.0]) / 3
        J = np.array([[0.3, 0.02, 0.0], [0.02, 0.4, 0.05], [0.0, 0.05, 0.5]])
        p = fm.quaternion_from_axis_angle((0.3, -1.0, 0.5), 0.9)
        from flexmbd.rotations import rotation_matrix

        A = rotation_matrix(p)
        I = float(axis @ A @ J @ A.T @ axis)
        body = m.rigid_body("disk", mass=2.0, inertia=J, position=(0.3, 0.1, -0.2), orientation=p,
                            angular_velocity=w0 * axis)
    m.revolute(fm.GROUND, body, at=body.position, axis=axis, name="hinge")
    m.rotational_spring_damper(fm.GROUND, body, axis=axis, k=k, name="torsion")
    omega = np.sqrt(k / I)
    h = 2 * np.pi / omega / 200
    res = m.simulate(t_end=2 * np.pi / omega, h=h)
    assert res.success
    theta = _spring_angle(res, "torsion")
    ref = w0 / omega * np.sin(omega * res.t)
    # Newmark's period error (ωh)²/12 = 8e-5 gives a phase error ≈ 5e-4 rad after one period
    assert np.max(np.abs(theta - ref)) < 1e-3 * w0 / omega
    # ½ I θ'² + ½ k θ²: exactly conserved by the trapezoidal rule in the planar angle; with
    # Euler parameters it oscillates at O(h²) (measured 1.6e-6 relative)
    E = res["energy.total"]
    assert np.ptp(E) < (1e-8 if kind == "planar" else 1e-5) * E[0]


def test_torsional_damper_decay():
    """c gives the damped frequency ω_d = ω√(1 − ζ²) and the decay e^{−ζωt}, ζ = c/(2√(kI))."""
    k, I, c, w0 = 20.0, 0.5, 0.6, 0.8
    m = fm.Model()
    disk = m.planar_body("disk", mass=1.0, inertia=I, angular_velocity=w0)
    m.revolute(fm.GROUND, disk, at=(0, 0), name="hinge")
    m.rotational_spring_damper(fm.GROUND, disk, k=k, c=c, name="torsion")
    omega, zeta = np.sqrt(k / I), c / (2 * np.sqrt(k * I))
    wd = omega * np.sqrt(1 - zeta**2)
    res = m.simulate(t_end=2.0, h=2e-3)
    ref = w0 / wd * np.exp(-zeta * omega * res.t) * np.sin(wd * res.t)
    assert np.max(np.abs(_spring_angle(res, "torsion") - ref)) < 5e-4 * w0 / wd  # measured 5.1e-5
    dissipated = res["energy.dissipated"][-1]  # ∫ c θ'² dt = initial − remaining energy
    assert dissipated == pytest.approx(res["energy.total"][0] - res["energy.total"][-1], rel=2e-4)  # 4e-5
