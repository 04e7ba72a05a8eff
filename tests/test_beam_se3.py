"""The two-node SE(3) beam: exact derivatives, invariance, P3's static tests."""
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams import inertia as beam_inertia
from flexmbd.beams.geometry import CircularArc
from flexmbd.beams.se3_linear import elastic_forces, relative_twist
from flexmbd.beams.sections import Section
from flexmbd.nodes import SE3 as FrameKind
from flexmbd.lie import quat_from_rotvec, quat_multiply, quat_to_rotvec
from flexmbd.rotations import rotation_matrix

SECTION = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3)  # P3's static tests
ABAQUS_STRAIGHT, ABAQUS_CURVED = 0.5143, 0.6138             # P3: ABAQUS B31 tip z-displacement


def random_pairs(rng, n, spread=0.6):
    """n deformed two-node elements: node B near node A ⊕ (L e1) with random strains."""
    qa = FrameKind.increment(np.tile([0, 0, 0, 1.0, 0, 0, 0], (n, 1)), rng.standard_normal((n, 6)))
    d = np.c_[np.full(n, 0.3), np.zeros((n, 5))] + spread * 0.3 * rng.standard_normal((n, 6))
    qb = FrameKind.increment(qa, d)
    d0 = np.c_[np.full(n, 0.3), np.zeros((n, 5))] + 0.05 * rng.standard_normal((n, 6))
    A = rng.standard_normal((n, 6, 6))
    D = np.einsum("nij,nkj->nik", A, A) + 6 * np.eye(6)
    return qa, qb, d0, np.full(n, 0.3), D


def central_along_increments(fun, qa, qb, eps=1e-6):
    """d fun(qa ⊕ δa, qb ⊕ δb)/d(δa, δb) by central differences, per element."""
    n = len(qa)
    f0 = fun(qa, qb)
    out = np.empty(f0.shape + (12,))
    for j in range(12):
        e = np.zeros((n, 6))
        e[:, j % 6] = eps
        if j < 6:
            fp, fm_ = fun(FrameKind.increment(qa, e), qb), fun(FrameKind.increment(qa, -e), qb)
        else:
            fp, fm_ = fun(qa, FrameKind.increment(qb, e)), fun(qa, FrameKind.increment(qb, -e))
        out[..., j] = (fp - fm_) / (2 * eps)
    return out


def test_forces_and_stiffness_are_the_exact_derivatives():
    rng = np.random.default_rng(1)
    qa, qb, d0, L, D = random_pairs(rng, 40)
    f, K, _, _ = elastic_forces(qa, qb, d0, L, D)
    fd_f = central_along_increments(lambda a, b: elastic_forces(a, b, d0, L, D, False)[2], qa, qb)
    fd_K = central_along_increments(lambda a, b: elastic_forces(a, b, d0, L, D, False)[0], qa, qb)
    for e in range(len(qa)):
        assert np.max(np.abs(f[e] - fd_f[e])) <= 1e-6 * np.max(np.abs(fd_f[e]))
        assert np.max(np.abs(K[e] - fd_K[e])) <= 1e-6 * np.max(np.abs(fd_K[e]))


def test_relative_twist_near_half_turn_and_zero():
    qa = np.array([[0.1, 0.2, 0.3, 1.0, 0, 0, 0]] * 2)
    d = np.array([[0.3, 0.01, -0.02, 0.0, 0.0, 1e-9], [0.3, 0.01, -0.02, 0.0, 0.0, np.pi - 1e-7]])
    np.testing.assert_allclose(relative_twist(qa, FrameKind.increment(qa, d)), d, atol=1e-12)


def test_invariant_under_rigid_motion():
    rng = np.random.default_rng(2)
    qa, qb, d0, L, D = random_pairs(rng, 10)
    f, K, V, _ = elastic_forces(qa, qb, d0, L, D)
    for _ in range(3):
        pg = quat_from_rotvec(2.0 * rng.standard_normal(3))
        G = rotation_matrix(pg[None])[0]
        c = rng.standard_normal(3)

        def moved(q, G=G, c=c, pg=pg):
            return np.c_[q[:, :3] @ G.T + c, quat_multiply(np.broadcast_to(pg, q[:, 3:].shape), q[:, 3:])]
        f2, K2, V2, _ = elastic_forces(moved(qa), moved(qb), d0, L, D)
        np.testing.assert_allclose(f2, f, rtol=0, atol=1e-10 * np.max(np.abs(f)))
        np.testing.assert_allclose(K2, K, rtol=0, atol=1e-10 * np.max(np.abs(K)))
        np.testing.assert_allclose(V2, V, rtol=1e-10)
    # the reference configuration, moved rigidly, carries no force
    f0, _, V0, _ = elastic_forces(moved(qa), moved(FrameKind.increment(qa, d0)), d0, L, D)
    assert np.max(np.abs(f0)) < 1e-12 * np.max(np.abs(D)) and np.max(np.abs(V0)) < 1e-20


def test_inertia_derivatives_and_energy_balance():
    rng = np.random.default_rng(3)
    E, n, G = 5, 2, 2
    v, a = rng.standard_normal((E, n, 6)), rng.standard_normal((E, n, 6))
    N = np.array([[0.8, 0.2], [0.2, 0.8]])
    w = rng.uniform(0.1, 0.3, (E, G))
    A = rng.standard_normal((E, 6, 6))
    Ms = np.einsum("eij,ekj->eik", A, A) + np.eye(6)
    _, D, M = beam_inertia.inertia_forces(v, a, N, w, Ms)
    eps = 1e-6
    for j in range(12):
        dv = np.zeros((E, 12))
        dv[:, j] = eps
        fp = beam_inertia.inertia_forces(v + dv.reshape(E, n, 6), a, N, w, Ms, False)[0]
        fm_ = beam_inertia.inertia_forces(v - dv.reshape(E, n, 6), a, N, w, Ms, False)[0]
        np.testing.assert_allclose(D[:, :, j], (fp - fm_) / (2 * eps), atol=1e-7 * np.max(np.abs(D)))
    np.testing.assert_allclose(np.einsum("eij,ej->ei", M, a.reshape(E, 12)),
                               beam_inertia.inertia_forces(0 * v, a, N, w, Ms, False)[0], atol=1e-12)
    # gyroscopic forces do no work: vᵀ F(v, a = 0) = 0
    F0 = beam_inertia.inertia_forces(v, 0 * a, N, w, Ms, False)[0]
    assert np.max(np.abs(np.einsum("ei,ei->e", v.reshape(E, 12), F0))) < 1e-12 * np.max(np.abs(F0))


# ------------------------------------------------------------------ statics (P3)
def cantilever(n, geometry=None, force=(30, 20, 400), **beam):
    m = fm.Model()
    b = m.beam("rod", section=SECTION, elements=n, geometry=geometry,
               start=None if geometry else (0, 0, 0), end=None if geometry else (1, 0, 0), **beam)
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, force, at=b.last.position)
    return m, b


def tip(m, b, steps=10, tol=1e-10):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = m.static_equilibrium(load_steps=steps, convergence="increment", tol=tol)
    assert res.success, res.message
    return res, res[f"{b.name}.n{len(b.nodes) - 1}.position"][-1] - b.last.position


QUARTER = CircularArc((0, 0, 0), 1.0, np.pi / 2, 0.0)   # clamped at (0, 1, 0), tip at (1, 0, 0)


def test_straight_cantilever_meets_abaqus_and_converges_at_second_order():
    z = {n: tip(*cantilever(n))[1][2] for n in (8, 16, 32)}
    limit = z[32] + (z[32] - z[16]) / 3
    assert 3.6 < (limit - z[8]) / (limit - z[16]) < 4.4          # second order in the element size
    assert abs(z[32] - ABAQUS_STRAIGHT) < 2e-4                     # ABAQUS B31: 0.5143 m
    assert abs(limit - ABAQUS_STRAIGHT) < 1e-4


def test_curved_cantilever_meets_abaqus():
    z = {n: tip(*cantilever(n, QUARTER, force=(30, 20, 100)))[1][2] for n in (8, 16, 32)}
    limit = z[32] + (z[32] - z[16]) / 3
    assert 3.5 < (limit - z[8]) / (limit - z[16]) < 4.5
    assert abs(limit - ABAQUS_CURVED) < 5e-4, z                   # ABAQUS B31: 0.6138 m


@pytest.mark.parametrize("n", [1, 3])
def test_pure_bending_is_exact_with_any_mesh(n):
    EI = SECTION.EI3
    m, b = cantilever(n, force=(0, 0, 0))
    m.torque(b.last, (0, 0, -np.pi * EI / 2), body_fixed=True)
    res, d = tip(m, b, tol=1e-12)
    p = res[f"rod.n{n}.orientation"][-1]
    np.testing.assert_allclose(quat_to_rotvec(p), [0, 0, -np.pi / 2], atol=1e-8)
    np.testing.assert_allclose(d + b.last.position, [2 / np.pi, -2 / np.pi, 0], atol=1e-10)


def test_end_moment_rolls_the_cantilever_into_a_circle():
    EI = SECTION.EI3
    m, b = cantilever(8, force=(0, 0, 0))
    m.torque(b.last, (0, 0, 2 * np.pi * EI), body_fixed=True)
    res, _ = tip(m, b, steps=20, tol=1e-12)
    x = res["rod.n8.position"][-1]
    assert np.linalg.norm(x) < 1e-10                              # the tip is back at the clamp
    R = rotation_matrix(res["rod.n8.orientation"][-1:])[0]
    np.testing.assert_allclose(R, np.eye(3), atol=1e-10)          # turned by 2π
    mid = res["rod.n4.position"][-1]
    np.testing.assert_allclose(mid, [0, 1 / np.pi, 0], atol=1e-10)  # a circle of radius L/2π


# ------------------------------------------------------- higher-order interpolation
@pytest.mark.parametrize("interpolation", ["lagrange", "nurbs"])
def test_cubic_elements_converge_to_the_same_tip_displacement(interpolation):
    """3rd-order Lagrange and cubic NURBS: straight and curved cantilevers within 0.1 % of
    ABAQUS with few elements, converging to the first-order elements' extrapolated limit."""
    for geom, force, ref in ((None, (30, 20, 400), ABAQUS_STRAIGHT), (QUARTER, (30, 20, 100), ABAQUS_CURVED)):
        z = {n: tip(*cantilever(n, geom, force=force, order=3, interpolation=interpolation))[1][2]
             for n in (4, 8, 16)}
        assert abs(z[8] - ref) < 1e-3 * ref, z
        assert (z[8] - z[4]) / (z[16] - z[8]) > 6.0, z      # at least ~3rd order (2nd would give 4)


def test_nurbs_control_frames_reproduce_the_arc():
    m, b = cantilever(6, QUARTER, force=(0, 0, 0), order=3, interpolation="nurbs")
    res, _ = tip(m, b, steps=1)
    s = np.linspace(0.0, b.length, 13)
    pts = np.array([b.positions(res, si)[-1] for si in s])
    np.testing.assert_allclose(np.linalg.norm(pts, axis=1), 1.0, atol=1e-12)        # on the circle
    # through the reference frames at the Greville points; in between the SE(3) interpolation
    # parameterises the circle slightly differently from the NURBS arc length (O(h⁴))
    np.testing.assert_allclose(np.arctan2(pts[:, 1], pts[:, 0]), np.pi / 2 - s, atol=1e-5)


# ------------------------------------------------------------ mass and stiffness
def linear_frequencies(model, clamped=6):
    """Natural frequencies (Hz) of the model linearised at its reference configuration,
    the first node clamped (its 6 unknowns removed)."""
    import scipy.linalg as sla

    sys = model.freeze()
    z = np.zeros(sys.n)
    K = sys.evaluate(sys.q0, z, z, np.zeros(sys.m), 0.0, cM=0.0, cK=1.0)[2]
    M = sys.evaluate(sys.q0, z, z, np.zeros(sys.m), 0.0, cM=1.0, cK=0.0)[2]
    K, M = (A.toarray() if hasattr(A, "toarray") else A for A in (K, M))
    free = np.arange(clamped, sys.n)
    w2 = sla.eigh(K[np.ix_(free, free)], M[np.ix_(free, free)], eigvals_only=True)
    return np.sqrt(np.abs(w2)) / (2 * np.pi)


@pytest.mark.parametrize("order, n, tol", [(1, 32, 2e-4), (3, 4, 1e-4)])
def test_cantilever_natural_frequencies(order, n, tol):
    """Bending frequencies vs Euler-Bernoulli (β L = 1.8751, 4.6941): the slender steel
    cantilever (L/h = 100) differs from it by shear and rotary inertia only (−7.9e-5 and
    −5.5e-4, test below).  Pinned to the full rule, with which this test was written: the
    cubic elements' discretization error (+1.1e-3 on mode 2) partly cancels the physical
    offset here; the reduced rule's (−5.2e-4) adds to it (−1.07e-3 from Euler-Bernoulli),
    though it is the closer one to the Timoshenko beam (next test)."""
    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
    m = fm.Model()
    m.beam("rod", section=sec, elements=n, start=(0, 0, 0), end=(1, 0, 0), order=order, integration="full")
    f = linear_frequencies(m)
    f_eb = np.array([1.875104, 4.694091]) ** 2 / (2 * np.pi) * np.sqrt(sec.EI3 / sec.rhoA)
    np.testing.assert_allclose(f[[0, 1]], f_eb[0], rtol=tol)      # two equal bending planes (square)
    np.testing.assert_allclose(f[[2, 3]], f_eb[1], rtol=10 * tol)


@pytest.mark.parametrize("order, integration, n, rate", [(1, None, 16, 2), (3, "full", 4, 4), (3, "reduced", 4, 4),
                                                        (3, None, 4, 4)])
def test_cantilever_frequencies_converge_to_the_timoshenko_beam(order, integration, n, rate):
    """The first two bending frequencies converge to the Timoshenko cantilever's (shear and
    rotary inertia included; shooting reference) at order 2 for linear and 4 for cubic
    elements, full or reduced (measured ratios per halving: 4.0 and 13.6-20); the default
    rule (None) is the reduced one for cubic elements."""
    from flexmbd.verify.references import timoshenko_cantilever_frequencies

    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
    ref = timoshenko_cantilever_frequencies(1.0, sec.EI3, sec.GA2, sec.rhoA, sec.rhoI3, 2) / (2 * np.pi)
    err = []
    for k in (n, 2 * n):
        m = fm.Model()
        b = m.beam("rod", section=sec, elements=k, start=(0, 0, 0), end=(1, 0, 0), order=order,
                   integration=integration)
        err.append(np.abs(linear_frequencies(m)[[0, 2]] - ref) / ref)
    assert np.all(err[0] / err[1] > 0.75 * 2.0**rate), err
    if integration is None:
        assert b.integration == ("full" if order == 1 else "reduced")


@pytest.mark.parametrize("order, interpolation, n, modes", [(2, "nurbs", 8, [0, 2]), (3, "nurbs", 8, [0, 2]),
                                                             (3, "lagrange", 2, [0, 2])])
def test_cantilever_frequencies_converge_at_order_2p(order, interpolation, n, modes):
    """Degree-p elements with the Galerkin mass of their own interpolation (inertia.py):
    bending frequencies converge to the Timoshenko cantilever's at O(h^{2p}), the rate of a
    consistent mass (Cottrell, Reali, Bazilevs & Hughes 2006 for isogeometric elements).
    Asserted: the error falls by more than 0.75 · 2^{2p} per halving (measured 2^5.6-2^5.8
    for quadratic NURBS 8 → 16 spans, 2^5.9-2^6.2 cubic NURBS, 2^6.1-2^7.9 cubic Lagrange
    2 → 4 elements; the cubic Lagrange mode 1 reaches the rounding of the eigenvalue
    problem, ~1e-8, beyond 4 elements).  Before, the inertia interpolated the nodes'
    twists: cubic NURBS converged at 2^2.0, cubic Lagrange at 2^3.9 (docs/elements/beam-se3.md)."""
    from flexmbd.verify.references import timoshenko_cantilever_frequencies

    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
    ref = timoshenko_cantilever_frequencies(1.0, sec.EI3, sec.GA2, sec.rhoA, sec.rhoI3, 2) / (2 * np.pi)
    err = []
    for k in (n, 2 * n):
        m = fm.Model()
        m.beam("rod", section=sec, elements=k, start=(0, 0, 0), end=(1, 0, 0), order=order,
               interpolation=interpolation)
        err.append(np.abs(linear_frequencies(m)[modes] - ref) / ref)
    assert np.all(err[0] / err[1] > 0.75 * 2.0 ** (2 * order)), err


def test_self_weight_deflection_matches_timoshenko():
    """Small distributed weight q = ρA g: tip deflection q L⁴/(8 EI) + q L²/(2 k G A)."""
    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.beam("rod", section=sec, elements=16, start=(0, 0, 0), end=(1, 0, 0), order=3)
    m.fixed(fm.GROUND, b.first)
    res, d = tip(m, b, steps=1, tol=1e-12)
    q = sec.rhoA * 9.81
    expected = q / (8 * sec.EI2) + q / (2 * sec.GA3)
    assert abs(-d[2] - expected) < 1e-3 * expected       # w ≈ 5.5 mm: non-linear effects ~ (w/L)² ≈ 3e-5


@pytest.mark.parametrize("beam", [{}, dict(order=3), dict(order=3, interpolation="nurbs")])
def test_free_flexible_beam_conserves_energy_at_second_order(beam):
    """A free beam spinning and vibrating (Lie-group Newmark, no damping): the energy error
    is bounded and falls 4× per halving of h — for the n-node elements too, whose mass and
    kinetic energy come from the Galerkin velocity map (measured 4.00 and 4.02)."""
    sec = Section.rectangle(0.01, 0.01, E=2.1e8, nu=0.3, rho=7850)

    def energy_error(h):
        m = fm.Model()
        b = m.beam("rod", section=sec, elements=6, start=(-0.5, 0, 0), end=(0.5, 0, 0), **beam)
        for nd in b.nodes:
            x = nd.position[0]
            nd.velocity = np.array([0, 2.0 * x, 0.3 * np.cos(np.pi * x)])          # spin about z + bending
            nd.angular_velocity = np.array([0, 0.3 * np.pi * np.sin(np.pi * x), 2.0])
        res = m.simulate(t_end=1.0, h=h, integrator=fm.Newmark())
        assert res.success and res.max_iterations() <= 3
        E = res["energy.total"]
        return np.max(np.abs(E - E[0])) / E[0]

    e1, e2 = energy_error(2e-3), energy_error(1e-3)
    assert e2 < 1e-6 and 3.5 < e1 / e2 < 4.5, (e1, e2)


@pytest.mark.parametrize("formulation", ["se3", "r3r3"])
def test_beams_start_in_a_rigid_motion(formulation):
    """velocity / angular_velocity: a beam in free flight translates (x = x₀ + v t exactly:
    the trapezoidal rule integrates uniform motion exactly), and a beam spinning about its
    own axis keeps ω and its kinetic energy ½ ρ(I₂ + I₃) ω² L."""
    from flexmbd.beams import Section

    sec = Section.rectangle(0.02, 0.01, E=2e9, nu=0.3, rho=1000.0)
    m = fm.Model()
    m.beam("rod", section=sec, elements=4, start=(0, 0, 0), end=(1, 0, 0), velocity=(0.5, -0.2, 0.1),
           formulation=formulation)
    r = m.simulate(t_end=0.2, h=0.01)
    x = np.array([1.0, 0, 0]) + np.outer(r.t, [0.5, -0.2, 0.1])
    np.testing.assert_allclose(r["rod.last.position"], x, rtol=0, atol=1e-13)   # the alias, in Python
    m = fm.Model()
    m.beam("rod", section=sec, elements=4, start=(0, 0, 0), end=(1, 0, 0), angular_velocity=(3.0, 0, 0),
           formulation=formulation)
    r = m.simulate(t_end=0.2, h=0.01)
    np.testing.assert_allclose(r["rod.n2.angular_velocity"], np.tile([3.0, 0, 0], (len(r.t), 1)), atol=1e-12)
    np.testing.assert_allclose(r["energy.kinetic"], 0.5 * (sec.rhoI2 + sec.rhoI3) * 9.0, rtol=1e-12)


def test_beam_velocity_in_model_files_and_node_aliases_after_loading(tmp_path):
    from flexmbd.io.model_file import load_model_text
    from flexmbd.io.results_h5 import load_result

    text = """
beams:
  - name: rod
    section: {shape: circle, d: 0.02, E: 2.0e9, nu: 0.3, rho: 1000}
    elements: 3
    start: [0, 0, 0]
    end: [1, 0, 0]
    angular_velocity: [0, 0, 2.0]
    about: [0.5, 0, 0]
solver: {t_end: 0.05, h: 0.01}
outputs: [rod.first.velocity, rod.last.position]
"""
    loaded = load_model_text(text, "spin.yaml")
    res = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
    np.testing.assert_allclose(res["rod.first.velocity"][0], [0, -1.0, 0], atol=1e-14)   # ω × (x − about)
    np.testing.assert_allclose(res["rod.last.velocity"][0], [0, 1.0, 0], atol=1e-14)
    path = tmp_path / "spin.h5"
    res.save(path)
    back = load_result(path, model=loaded.model)
    np.testing.assert_allclose(back["rod.last.position"], res["rod.n3.position"], rtol=0, atol=0)
