"""Bodies on a Lie group (RotationKind, "spatial-lie") join the same solvers.

* the layout keeps configurations (n_q) apart from increments (n);
* q ⊕ Δ is the kind's multiplicative update and keeps the quaternion unit;
* a heavy top, a spatial double pendulum and P1's slider-crank built with rotation-vector
  bodies move like the Euler-parameter versions (both O(h²) against the references,
  and within O(h²) of each other).
"""
import functools
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.examples.slider_crank import build as slider_crank
from flexmbd.nodes import ROTATION, SPATIAL
from flexmbd.lie import quat_from_rotvec as quaternion_exp, quat_multiply as quaternion_product
from flexmbd.rotations import rotation_matrix, skew
from flexmbd.verify.cases import conservative as C
from flexmbd.verify.references import heavy_top_minimal_ode, slider_crank_minimal

PARS = ("quaternion", "rotation", "se3")
LIE = ("rotation", "se3")


def _sim(model, t_end, h, integrator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.simulate(t_end=t_end, h=h, tol=C.NEWTON_TOL, integrator=C.INTEGRATORS[integrator])


def test_layout_separates_configuration_and_increments():
    m = fm.Model(gravity=(0, -9.81, 0))
    a = m.rigid_body("a", mass=1.0, inertia=(1, 2, 3), position=(0, 0, 1), parameterization="rotation",
                     angular_velocity=(0.1, 0.2, 0.3), orientation=fm.quaternion_from_axis_angle((1, 1, 0), 0.4))
    b = m.rigid_body("b", mass=1.0, inertia=(1, 2, 3), position=(1, 0, 1))
    p = m.planar_body("p", mass=1.0, inertia=0.5, position=(0, 2))
    m.spherical(fm.GROUND, a, at=(0, 0, 0))
    m.spherical(fm.GROUND, b, at=(1, 0, 0))
    s = m.freeze()
    assert a.kind == ROTATION and b.kind == SPATIAL
    assert (s.n_q, s.n) == (7 + 7 + 3, 6 + 7 + 3)
    assert s.config_slice(a) == slice(0, 7) and s.body_slice(a) == slice(0, 6)
    assert s.config_slice(b) == slice(7, 14) and s.body_slice(b) == slice(6, 13)
    assert s.config_slice(p) == slice(14, 17) and s.body_slice(p) == slice(13, 16)
    # Ω in body axes: ω = A Ω
    A = rotation_matrix(s.q0[3:7])
    assert np.allclose(A @ s.v0[3:6], (0.1, 0.2, 0.3))
    # q ⊕ Δ: additive for vector kinds, p ⊗ exp(Δθ) for the rotation kind
    rng = np.random.default_rng(0)
    d = rng.standard_normal(s.n)
    q1 = s.increment(s.q0, d)
    assert np.allclose(q1[:3], s.q0[:3] + d[:3])
    assert np.allclose(q1[3:7], quaternion_product(s.q0[3:7], quaternion_exp(d[3:6])))
    assert np.isclose(np.linalg.norm(q1[3:7]), 1.0)
    assert np.allclose(rotation_matrix(q1[3:7]), A @ rotation_matrix(quaternion_exp(d[3:6])))
    assert np.allclose(q1[7:], s.q0[7:] + d[6:])
    # exp of a small vector: A ≈ I + θ~
    th = 1e-7 * np.array([1.0, -2.0, 0.5])
    assert np.allclose(rotation_matrix(quaternion_exp(th)), np.eye(3) + skew(th), atol=1e-13)
    # one normalisation equation (b only), 3 + 3 spherical equations
    assert s.m == 7
    res = _sim(m, 0.05, 5e-3, "newmark")
    assert res.success and res.q.shape[1] == s.n_q and res.v.shape[1] == s.n
    assert res["a.position"].shape == (len(res.t), 3)
    E = res["energy.total"]
    assert abs(E[-1] - E[0]) < 1e-3 * max(1.0, abs(E[0]))


def test_bodies_of_different_spatial_kinds_join_by_spherical_joints_only():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(1, 1, 1), parameterization="rotation")
    b = m.rigid_body("b", mass=1.0, inertia=(1, 1, 1), position=(1, 0, 0))
    m.spherical(a, b, at=(0.5, 0, 0), name="mixed")
    with pytest.raises(fm.ModelError, match="connects a spatial and a spatial-lie body"):
        m.revolute(a, b, at=(0.5, 0, 0), axis=(0, 0, 1), name="hinge")
    with pytest.raises(fm.ModelError, match="parameterization"):
        fm.Model().rigid_body(mass=1.0, inertia=(1, 1, 1), parameterization="euler")


# ---------------------------------------------------------------- heavy top
TOP_T_END = 0.5


@functools.lru_cache(maxsize=None)
def _top(par, h):
    model = C.heavy_top(*C.top_state_from_euler(C.NUTATING_EULER0, C.NUTATING_RATES0), parameterization=par)
    res = _sim(model, TOP_T_END, h, C.TOP_INTEGRATOR)
    assert res.success, res.message
    ref = heavy_top_minimal_ode(*C.top_parameters(), C.NUTATING_EULER0, C.NUTATING_RATES0, TOP_T_END, g=C.G,
                                t_eval=res.t)
    return res, ref


def test_heavy_top_rotation_vector_matches_euler_parameters():
    err, com = {}, {}
    for par in PARS:
        for h in (2e-3, 1e-3):
            res, ref = _top(par, h)
            com[par, h] = res["top.position"]
            err[par, h] = np.max(np.linalg.norm(com[par, h] - ref.com, axis=1)) / C.TOP_COM
            assert C.position_constraint_violation(res) < 1e-9
            assert res.max_iterations() <= 3  # the Newton matrix carries T(Δ)
    for par in PARS:  # both second order against the Euler-angle ODE
        assert 3.5 < err[par, 2e-3] / err[par, 1e-3] < 4.5, err
        assert err[par, 1e-3] < 5e-3, err
    for lie in LIE:
        diff = {h: np.max(np.linalg.norm(com["quaternion", h] - com[lie, h], axis=1)) / C.TOP_COM
                for h in (2e-3, 1e-3)}
        assert 3.5 < diff[2e-3] / diff[1e-3] < 4.5, (lie, diff)  # within O(h²) of each other


# ------------------------------------------------------- double pendulum
DP_T_END = 1.0


@functools.lru_cache(maxsize=None)
def _double(par, h):
    res = _sim(C.spatial_double_pendulum(parameterization=par), DP_T_END, h, "newmark")
    assert res.success, res.message
    return res


def test_double_pendulum_rotation_vector_matches_euler_parameters():
    pos, dE = {}, {}
    for par in PARS:
        for h in (4e-3, 2e-3):
            res = _double(par, h)
            pos[par, h] = np.c_[res["upper.position"], res["lower.position"]]
            E = res["energy.total"]
            dE[par, h] = np.max(np.abs(E - E[0]))
            assert C.position_constraint_violation(res) < 1e-9
    for par in PARS:
        assert 3.0 < dE[par, 4e-3] / dE[par, 2e-3] < 5.0, dE
    for lie in LIE:
        diff = {h: np.max(np.abs(pos["quaternion", h] - pos[lie, h])) for h in (4e-3, 2e-3)}
        assert 3.5 < diff[4e-3] / diff[2e-3] < 4.5, (lie, diff)
        # SE(3) integrates the translation in the body frame (x ← x + A T(Ω)ᵀ U): same
        # order, an error constant ≈ 2.5× larger on this pendulum (2.2e-5 m at h = 2 ms)
        assert diff[2e-3] < (1e-5 if lie == "rotation" else 3e-5), (lie, diff)


# ------------------------------------------------------- P1 slider-crank
@pytest.mark.parametrize("par", LIE)
def test_slider_crank_rotation_vector_matches_minimal_coordinates(par):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = slider_crank(k=2e4, c=1e3, parameterization=par).simulate(t_end=1.0, h=1e-3)
    assert res.success
    assert res.system.n == 18 and res.system.n_q == 21  # 3 × 6 increments, 3 × 7 configurations
    ref = slider_crank_minimal(2e4, 1e3, t_end=1.0)
    err = np.max(np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t)))
    assert err <= 1e-5, err
    assert res.max_iterations() <= 4


def test_mixed_kinds_assembled_matrix_matches_residual_derivatives():
    """Rotation-vector, Euler-parameter and planar bodies in one system: the scattered
    Newton matrix equals the derivatives of the residual along q ⊕ Δ."""
    from flexmbd.system import System

    m = fm.Model(gravity=(0.3, -9.81, 0.0))
    p = m.planar_body("p", mass=1.2, inertia=0.3, position=(2, 1), angle=0.2)
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3),
                     orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.7), parameterization="rotation")
    c = m.rigid_body("c", mass=1.0, inertia=(0.2, 0.3, 0.4), position=(-1, 0, 0.5))
    b = m.rigid_body("b", mass=1.5, inertia=(0.3, 0.2, 0.25), position=(1.0, -0.2, 0.4), parameterization="rotation")
    m.revolute(a, b, at=(0.5, 0, 0.3), axis=(0, 1, 1))
    m.spherical(fm.GROUND, a, at=(0, 0, 0.3))
    m.spherical(fm.GROUND, c, at=(-1, 0, 0))
    m.revolute(fm.GROUND, p, at=(2, 0))
    m.spring_damper(a, b, at_i=(0.2, 0.1, 0), at_j=(0.9, 0.1, 0.2), k=120.0, c=7.0, rest_length=0.5)
    m.rotational_spring_damper(a, b, axis=(0, 1, 1), k=30.0, c=2.0)
    m.torque(b, (0.1, 0.5, 0.2))
    m.force(a, (3, -1, 2), at=(0.3, 0.2, 0.1), body_fixed=True)
    sys = System(m, redundancy="keep")
    rng = np.random.default_rng(3)
    q = sys.increment(sys.q0, 0.3 * rng.standard_normal(sys.n))
    v, acc = rng.standard_normal(sys.n), rng.standard_normal(sys.n)
    lam = rng.standard_normal(sys.m)
    n, t, eps = sys.n, 0.3, 1e-6

    def central(f, x):
        cols = []
        for i in range(len(x)):
            dx = np.zeros_like(x)
            dx[i] = eps
            cols.append((f(x + dx) - f(x - dx)) / (2 * eps))
        return np.array(cols).T

    def dense(A):
        return A.toarray() if hasattr(A, "toarray") else A

    K = dense(sys.evaluate(q, v, acc, lam, t, cM=0, cD=0, cK=1)[2])
    D = dense(sys.evaluate(q, v, acc, lam, t, cM=0, cD=1, cK=0)[2])
    M = dense(sys.evaluate(q, v, acc, lam, t, cM=1, cD=0, cK=0)[2])
    num_K = central(lambda x: sys.evaluate(sys.increment(q, x), v, acc, lam, t, matrix=False)[0], np.zeros(n))
    num_D = central(lambda x: sys.evaluate(q, x, acc, lam, t, matrix=False)[0], v)
    num_M = central(lambda x: sys.evaluate(q, v, x, lam, t, matrix=False)[0], acc)
    num_J = central(lambda x: sys.evaluate(sys.increment(q, x), v, acc, lam, t, matrix=False)[1], np.zeros(n))
    for A, N in ((K[:n, :n], num_K), (D[:n, :n], num_D), (M[:n, :n], num_M), (K[n:, :n], num_J), (K[:n, n:], num_J.T)):
        assert np.max(np.abs(A - N)) <= 1e-6 * max(1.0, np.max(np.abs(N)))


def test_results_file_round_trip_with_rotation_vector_bodies(tmp_path):
    pytest.importorskip("h5py")
    from flexmbd.io.results_h5 import ResultWriter, load_result
    from flexmbd.solvers.dynamics import simulate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = slider_crank(k=2e4, c=1e3, parameterization="rotation")
        system = model.freeze()
        w = ResultWriter(tmp_path / "r.h5", system)
        res = simulate(model, 0.05, 0.01, system=system, on_step=w.on_step)
        w.close(res)
    back = load_result(tmp_path / "r.h5")
    assert back.q.shape == res.q.shape == (len(res.t), 21) and back.v.shape == (len(res.t), 18)
    for name in ("link.position", "link.velocity", "link.orientation", "link.angular_velocity", "slider.position"):
        np.testing.assert_allclose(back[name], res[name], atol=1e-12, err_msg=name)
    R, A = back.body_poses()
    np.testing.assert_allclose(R[:, 1], res["link.position"], atol=1e-12)
    np.testing.assert_allclose(A[:, 1], rotation_matrix(res["link.orientation"]), atol=1e-12)


def test_static_equilibrium_with_rotation_vector_bodies():
    """Two links on revolute joints with rotational springs under gravity and a body-fixed
    torque: the same equilibrium with either parameterization (statics iterates on
    increments q = base ⊕ Δ for Lie-group bodies)."""
    out = {}
    for par in PARS:
        m = fm.Model(gravity=(0, 0, -9.81))
        a = m.rigid_body("a", mass=2.0, inertia=(0.1, 0.2, 0.2), position=(0.5, 0, 0), parameterization=par)
        b = m.rigid_body("b", mass=1.0, inertia=(0.1, 0.2, 0.2), position=(1.5, 0, 0), parameterization=par)
        m.revolute(fm.GROUND, a, at=(0, 0, 0), axis=(0, 1, 0))
        m.revolute(a, b, at=(1, 0, 0), axis=(0, 1, 0))
        m.rotational_spring_damper(fm.GROUND, a, axis=(0, 1, 0), k=40.0)
        m.rotational_spring_damper(a, b, axis=(0, 1, 0), k=15.0)
        m.torque(b, (0, 0, 1.0), body_fixed=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = m.static_equilibrium(load_steps=4, tol=1e-10)
        assert r.success, r.message
        out[par] = r["b.position"][-1]
        if par == "rotation":
            assert np.isclose(np.linalg.norm(r.q[-1][3:7]), 1.0)
    assert out["rotation"][2] < -0.5  # it hangs down
    np.testing.assert_allclose(out["rotation"], out["quaternion"], atol=1e-9)


@pytest.mark.parametrize("par", LIE)
def test_newton_matrix_with_tangent_operator_is_the_derivative_along_the_unknown_increment(par):
    """q = q_b ⊕ Δ: with tangent=Δ the K part and Φ_q are ∂F/∂Δ, ∂Φ/∂Δ (T(Δ) included)."""
    from flexmbd.nodes import KINDS
    from flexmbd.system import System

    kind = KINDS["spatial-lie" if par == "rotation" else par]
    rng = np.random.default_rng(5)
    d = 0.4 * rng.standard_normal(6)
    T = kind.tangent(d)[0]
    eps = 1e-6
    q = kind.increment(np.r_[0.1, 0, 0, 1, 0, 0, 0], rng.standard_normal(6))
    for j in range(6):  # q ⊕ (Δ + δ) = (q ⊕ Δ) ⊕ T(Δ) δ
        e = np.zeros(6)
        e[j] = eps
        np.testing.assert_allclose(kind.increment(q, d + e),
                                   kind.increment(kind.increment(q, d), T @ e), atol=1e-11)
    sys = System(C.spatial_double_pendulum(parameterization=par), redundancy="keep")
    n = sys.n
    qb = sys.q0
    delta = 0.5 * rng.standard_normal(n)
    v, acc, lam = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(sys.m)
    A = sys.evaluate(sys.increment(qb, delta), v, acc, lam, 0.0, cM=0, cD=0, cK=1, tangent=delta)[2]
    A = A.toarray() if hasattr(A, "toarray") else A
    num = np.zeros((n + sys.m, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = eps
        fp = np.concatenate(sys.evaluate(sys.increment(qb, delta + e), v, acc, lam, 0.0, matrix=False)[:2])
        fm_ = np.concatenate(sys.evaluate(sys.increment(qb, delta - e), v, acc, lam, 0.0, matrix=False)[:2])
        num[:, j] = (fp - fm_) / (2 * eps)
    assert np.max(np.abs(A[:, :n] - num)) <= 1e-6 * np.max(np.abs(num))
    # Φ_qᵀ (upper right) is ∂F/∂λ: no tangent operator there
    Jq = sys.constraint_jacobian(sys.extend(sys.increment(qb, delta)), 0.0).toarray()
    np.testing.assert_allclose(A[:n, n:], Jq.T, atol=1e-12)


@pytest.mark.parametrize("par", LIE)
def test_tangent_operator_carries_the_stiffness_factor_and_the_load_factor(par):
    """The tangent map applies a group's factor with T(Δ) (c_K, and −c_K s for loads at
    load factor s): the Newton matrix with c_M = c_D = 0 is c_K ∂[F; Φ]/∂Δ at load factor s
    (a pendulum of two Lie-group bodies under gravity, a load scaled by s)."""
    from flexmbd.system import System

    sys = System(C.spatial_double_pendulum(parameterization=par), redundancy="keep")
    n, rng = sys.n, np.random.default_rng(7)
    qb, delta = sys.q0, 0.3 * rng.standard_normal(sys.n)
    v, acc, lam = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(sys.m)
    cK, s, eps = 0.37, 0.6, 1e-6
    A = sys.evaluate(sys.increment(qb, delta), v, acc, lam, 0.0, cM=0, cD=0, cK=cK, load_factor=s, tangent=delta)[2]
    A = A.toarray() if hasattr(A, "toarray") else A
    num = np.zeros((n + sys.m, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = eps
        fp, fm_ = (np.concatenate(sys.evaluate(sys.increment(qb, delta + k * e), v, acc, lam, 0.0, load_factor=s,
                                               matrix=False)[:2]) for k in (1, -1))
        num[:, j] = cK * (fp - fm_) / (2 * eps)
    assert np.max(np.abs(A[:n, :n] - num[:n])) <= 1e-6 * np.max(np.abs(num))
    # the constraint rows Φ_q T(Δ) carry no factor
    assert np.max(np.abs(A[n:, :n] - num[n:] / cK)) <= 1e-6 * np.max(np.abs(num[n:] / cK))


def test_spherical_joints_across_lie_group_and_vector_kinds_have_exact_newton_matrices():
    """Spherical joints join nodes of different spatial kinds, Lie-group ones included
    (constraints/mixed.py): an SE(3) beam's tip pinned to an ANCF beam and to a
    rotation-vector body, that body pinned to an ANCF cable and to an Euler-parameter body.
    The scattered Newton matrix equals the derivatives of the residual along q ⊕ Δ (each
    Lie-group side's columns times its T(Δ)), at a state away from the reference."""
    from flexmbd.beams import Section
    from flexmbd.system import System

    sec = Section.rectangle(0.02, 0.03, E=2e8, nu=0.3, rho=800.0)
    m = fm.Model(gravity=(0.3, -9.81, 0.2))
    beam = m.beam("se3rod", section=sec, elements=2, start=(0, 0, 0), end=(1, 0, 0))
    ancf = m.beam("ancfrod", section=sec, elements=1, start=(1, 0, 0), end=(1, 1, 0), formulation="ancf")
    cable = m.beam("cable", section=Section.circle(0.02, E=2e8, nu=0.3, rho=800.0), elements=1,
                   start=(1, 0, 1), end=(2, 0, 1), formulation="ancf-cable")
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(1.0, 0.2, 0.5),
                     orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.7), parameterization="rotation")
    c = m.rigid_body("c", mass=1.0, inertia=(0.2, 0.3, 0.4), position=(1.5, 0.5, 1.0))
    m.fixed(fm.GROUND, beam.first)
    m.spherical(beam.last, ancf.first, at=(1, 0, 0))
    m.spherical(a, beam.last, at=(1, 0, 0))
    m.spherical(a, cable.first, at=(1, 0, 1))
    m.spherical(c, a, at=(1.2, 0.3, 0.8))
    sys = System(m, redundancy="keep")
    assert {tuple(k.key for k in g.side_kinds) for g in sys.constraint_groups if hasattr(g, "side_kinds")} >= {
        ("se3", "ancf"), ("spatial-lie", "se3"), ("spatial-lie", "ancf-cable"), ("spatial", "spatial-lie")}
    rng = np.random.default_rng(11)
    q = sys.increment(sys.q0, 0.05 * rng.standard_normal(sys.n))
    v, acc = rng.standard_normal(sys.n), rng.standard_normal(sys.n)
    lam = rng.standard_normal(sys.m)
    n, t, eps = sys.n, 0.0, 1e-6

    def central(f):
        cols = []
        for i in range(n):
            dx = np.zeros(n)
            dx[i] = eps
            cols.append((f(dx) - f(-dx)) / (2 * eps))
        return np.array(cols).T

    def dense(A):
        return A.toarray() if hasattr(A, "toarray") else A

    K = dense(sys.evaluate(q, v, acc, lam, t, cM=0, cD=0, cK=1)[2])
    num_K = central(lambda x: sys.evaluate(sys.increment(q, x), v, acc, lam, t, matrix=False)[0])
    num_J = central(lambda x: sys.evaluate(sys.increment(q, x), v, acc, lam, t, matrix=False)[1])
    for A, N in ((K[:n, :n], num_K), (K[n:, :n], num_J), (K[:n, n:], num_J.T)):
        assert np.max(np.abs(A - N)) <= 1e-6 * max(1.0, np.max(np.abs(N)))
    # q = q_b ⊕ Δ with a finite Δ: tangent=Δ gives ∂F/∂Δ and ∂Φ/∂Δ (T(Δ) on each Lie side)
    delta = 0.3 * rng.standard_normal(n)
    KT = dense(sys.evaluate(sys.increment(q, delta), v, acc, lam, t, cM=0, cD=0, cK=1, tangent=delta)[2])
    num_KT = central(lambda x: sys.evaluate(sys.increment(q, delta + x), v, acc, lam, t, matrix=False)[0])
    num_JT = central(lambda x: sys.evaluate(sys.increment(q, delta + x), v, acc, lam, t, matrix=False)[1])
    assert np.max(np.abs(KT[n:, :n] - num_JT)) <= 1e-6 * max(1.0, np.max(np.abs(num_JT)))
    assert np.max(np.abs(KT[:n, :n] - num_KT)) <= 1e-6 * max(1.0, np.max(np.abs(num_KT)))
