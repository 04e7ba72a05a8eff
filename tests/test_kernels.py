"""The compiled kernels give the same numbers as the NumPy reference implementation."""
import numpy as np
import pytest

import flexmbd.bodies.rigid as rigid
import flexmbd.constraints.dot as dot
import flexmbd.forces.loads as loads
import flexmbd.forces.spring_damper as sda
import flexmbd.constraints.normalization as normalization
from flexmbd.nodes import frame as frame_nodes
from flexmbd.nodes import rotvec as rotvec_nodes
from flexmbd.beams import inertia as beam_inertia
from flexmbd.beams import groups as beam_groups
from flexmbd.beams import se3_beam, se3_linear
from flexmbd.kernels import AVAILABLE
from test_jacobians import random_state, system

MODULES = (rigid, dot, loads, sda, normalization, frame_nodes, beam_inertia, se3_linear, se3_beam,
           beam_groups, rotvec_nodes)
pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not available")


_law_derivatives = sda._law_derivatives


def _complex_step(law, delta, rate):
    """User-law derivatives by complex steps (the test models' laws are analytic).

    The default central differences amplify last-bit differences between the two
    paths' δ, δ' by 1/h ≈ 1e6, which is not what this test is about.
    """
    if hasattr(law, "derivatives"):
        return _law_derivatives(law, delta, rate)
    h = 1e-30
    return float(law(delta, rate)), law(delta + 1j * h, rate).imag / h, law(delta, rate + 1j * h).imag / h


def evaluate_all(sys, q, v, a, lam, t, compiled, monkeypatch):
    monkeypatch.setattr(sda, "_law_derivatives", _complex_step)
    for mod in MODULES:
        monkeypatch.setattr(mod, "USE_KERNELS", compiled)
    return sys.evaluate(q, v, a, lam, t, cM=1.0, cD=0.3, cK=0.7)


@pytest.mark.parametrize("kind", ["spatial", "planar", "se3", "r3r3"])
@pytest.mark.parametrize("seed", range(5))
def test_kernels_match_numpy(kind, seed, monkeypatch):
    sys = system(kind)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys, rng)
    lam = rng.standard_normal(sys.m)
    ref = evaluate_all(sys, q, v, a, lam, 0.3, False, monkeypatch)
    out = evaluate_all(sys, q, v, a, lam, 0.3, True, monkeypatch)
    for r, o, what in zip(ref, out, ("residual", "constraints", "matrix")):
        r = r.toarray() if hasattr(r, "toarray") else r
        o = o.toarray() if hasattr(o, "toarray") else o
        assert np.allclose(o, r, rtol=1e-12, atol=1e-12 * np.max(np.abs(r))), what


@pytest.mark.parametrize("seed", range(5))
def test_linear_spring_damper_single_pass_kernel_matches_numpy(seed, monkeypatch):
    """Without user laws the SDAs take the one-pass compiled path (force law inside)."""
    import flexmbd as fm
    from flexmbd.system import System

    m = fm.Model()
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3))
    b = m.rigid_body("b", mass=1.5, inertia=(0.3, 0.2, 0.25), position=(1.0, -0.2, 0.4))
    m.spring_damper(a, b, at_i=(0.2, 0.1, 0), at_j=(0.9, 0.1, 0.2), k=120.0, c=7.0, rest_length=0.5,
                    actuator=fm.Polynomial((0.5, 1.0)))
    m.spring_damper(fm.GROUND, a, at_i=(0, 0, 1), k=50.0, c=3.0, tension_only=True, rest_length=0.1)
    m.spring_damper(b, a, k=80.0, c=2.0, tension_only=True, rest_length=2.0)  # slack
    sys_ = System(m, redundancy="keep")
    rng = np.random.default_rng(seed)
    q, v, acc = random_state(sys_, rng)
    lam = rng.standard_normal(sys_.m)
    ref = evaluate_all(sys_, q, v, acc, lam, 0.3, False, monkeypatch)
    out = evaluate_all(sys_, q, v, acc, lam, 0.3, True, monkeypatch)
    for r, o in zip(ref, out):
        assert np.allclose(o, r, rtol=1e-12, atol=1e-12 * np.max(np.abs(r)))


# ------------------------------------------------------------------ SE(3) beams
def _node_pairs(rng, n, angle):
    """Node configurations whose relative rotation has the given angle (random axes)."""
    from flexmbd.lie import quat_from_rotvec, quat_multiply

    qa, qb = np.empty((n, 7)), np.empty((n, 7))
    qa[:, :3] = rng.standard_normal((n, 3))
    qa[:, 3:] = quat_from_rotvec(rng.standard_normal((n, 3)))
    axis = rng.standard_normal((n, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    qb[:, :3] = qa[:, :3] + rng.standard_normal((n, 3))
    qb[:, 3:] = quat_multiply(qa[:, 3:], quat_from_rotvec(angle * axis))
    return qa, qb


def _rel_close(out, ref, what):
    assert out.shape == ref.shape, what
    assert np.max(np.abs(out - ref)) <= 1e-12 * max(np.max(np.abs(ref)), 1e-300), what


@pytest.mark.parametrize("angle", [0.0, 1e-9, 1e-4, 0.7, 1.9, 2.6, np.pi - 1e-3, np.pi - 1e-6])
def test_se3_beam_element_kernel_matches_numpy(angle, monkeypatch):
    from flexmbd.beams import se3_linear

    rng = np.random.default_rng(int(1e3 * angle) + 1)
    n = 40
    qa, qb = _node_pairs(rng, n, angle)
    d0 = 0.3 * rng.standard_normal((n, 6))
    d0[::3] = 0.0                                   # straight reference elements too
    length = rng.uniform(0.05, 2.0, n)
    B = rng.standard_normal((n, 6, 6))
    D = B @ B.transpose(0, 2, 1) + np.eye(6)
    for jac in (True, False):
        monkeypatch.setattr(se3_linear, "USE_KERNELS", False)
        ref = se3_linear.elastic_forces(qa, qb, d0, length, D, jac)
        monkeypatch.setattr(se3_linear, "USE_KERNELS", True)
        out = se3_linear.elastic_forces(qa, qb, d0, length, D, jac)
        for o, r, what in zip(out, ref, ("f", "K", "V", "sigma")):
            if r is None:
                assert o is None
            else:
                _rel_close(o, r, what)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("amp", [1e-5, 0.4, 1.3])
def test_n_node_se3_beam_kernel_matches_numpy(n, amp, monkeypatch):
    """kernels/se3_beam.py n_node_forces against se3_beam.internal_forces (the NumPy
    reference): forces, exact tangent and energy of n-node elements on random deformed
    states (relative rotations up to ~3 rad at amp = 1.3; near the reference at 1e-5).

    Rounding: the two paths compute the relative twists by different roundings
    (quaternions vs rotation matrices), a strain difference δε ≈ ε_mach |ε|.  Near the
    reference f and V are differences of nearly equal strains, so besides 1e-12 of the
    value each may differ by 100 × its first-order response to δε: |D| Σw δε for f and
    |f| δε for V."""
    from test_se3_beam import deformed, element_data, random_D

    from flexmbd.lie import quat_from_matrix

    rng = np.random.default_rng(100 * n + int(10 * amp))
    n_el = 6
    N, dN, w = element_data(n_el, n)
    (R0, x0), (R, x) = deformed(rng, n_el, n, amp)
    eps0 = se3_beam.reference_strains(R0, x0, N, dN)
    D = random_D(rng, n_el)
    q = np.concatenate([x, quat_from_matrix(R)], -1)
    d_eps = np.finfo(float).eps * np.abs(eps0).max()
    for jac in (True, False):
        monkeypatch.setattr(se3_beam, "USE_KERNELS", False)
        ref = se3_beam.elastic_forces(q, N, dN, w, eps0, D, jac)
        monkeypatch.setattr(se3_beam, "USE_KERNELS", True)
        out = se3_beam.elastic_forces(q, N, dN, w, eps0, D, jac)
        rounding = (100 * np.abs(D).max() * w.sum(1).max() * d_eps, 0.0, 100 * np.abs(ref[0]).max() * d_eps)
        for o, r, what, floor in zip(out, ref, ("f", "K", "V"), rounding):
            if r is None:
                assert o is None
                continue
            assert o.shape == r.shape, what
            assert np.max(np.abs(o - r)) <= 1e-12 * np.max(np.abs(r)) + floor, what


@pytest.mark.parametrize("seed", range(3))
def test_r3r3_beam_kernels_match_numpy(seed, monkeypatch):
    """kernels/r3r3.py against the NumPy groups (beams/groups.py with beams/r3r3.py): elastic
    forces, stiffness and energy in the modes full, hw and reduced, and the inertia force with
    its three Jacobians, on random states where half the nodes sit on another branch of their
    rotation vector (so that the elements' branch alignment and its chain rule are used)."""
    from flexmbd.nodes.rotvec_branch import nearest_branch

    sys_ = system("r3r3")
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys_, rng)
    qe, ve, ae = sys_.extend(q), sys_.extend_velocity(v), sys_.extend_velocity(a)
    groups = [g for g in sys_.force_groups + sys_.body_groups if type(g).__name__.startswith("R3R3")]
    assert {getattr(g, "mode", "inertia") for g in groups} == {"full", "hw", "reduced", "inertia"}
    shifted = 0
    for g in groups:
        qb = qe[g.config_index]
        shifted += int(np.count_nonzero(nearest_branch(qb[:, 9:12], qb[:, 3:6])))
        for jac in (True, False):
            out = []
            for compiled in (False, True):
                monkeypatch.setattr(beam_groups, "USE_KERNELS", compiled)
                if g.role == "inertia":
                    out.append(g.inertia_force(qb, ve[g.dof_index], ae[g.dof_index], jac))
                else:
                    out.append(g._forces(qe, jac))
            for r, o in zip(*out):
                if r is None:
                    assert o is None
                else:
                    _rel_close(o, r, f"{type(g).__name__} {getattr(g, 'mode', '')}")
    assert shifted > 0


@pytest.mark.parametrize("scale", [0.0, 1e-7, 0.5, 3.0, 6.0])
def test_r3r3_marker_kernels_match_numpy(scale, monkeypatch):
    """kernels/r3r3.py markers, marker_contract, marker_dJv against nodes/rotvec.py's NumPy
    (rotation vectors from zero to beyond π: the node states between rescalings)."""
    rng = np.random.default_rng(int(10 * scale))
    n = 40
    q = rng.standard_normal((n, 6))
    q[:, 3:] *= scale
    u, g, v = rng.standard_normal((n, 3)), rng.standard_normal((n, 3)), rng.standard_normal((n, 6))
    point = (np.arange(n) % 2).astype(float)
    out = []
    for compiled in (False, True):
        monkeypatch.setattr(rotvec_nodes, "USE_KERNELS", compiled)
        out.append(rotvec_nodes.marker(q, u, point) + (rotvec_nodes.marker_contract(q, u, point, g),
                                                        rotvec_nodes.marker_dJv(q, u, point, v)))
    for r, o, what in zip(*out, ("x", "J", "contract", "dJv")):
        _rel_close(o, r, what)


@pytest.mark.parametrize("nodes", [2, 3, 4])
@pytest.mark.parametrize("per_element", [False, True])
@pytest.mark.parametrize("matrix_map", [False, True])
def test_beam_inertia_kernel_matches_numpy(nodes, per_element, matrix_map, monkeypatch):
    """Scalar shape values N and full velocity maps P (η_g = P_g η_e, with zero entries as
    in the maps of real elements), one map for all elements or one per element."""
    from flexmbd.beams import inertia

    rng = np.random.default_rng(100 * matrix_map + 10 * nodes + per_element)
    E, G = 17, 3
    v, a = rng.standard_normal((E, nodes, 6)), rng.standard_normal((E, nodes, 6))
    N = rng.standard_normal((E, G, nodes) if per_element else (G, nodes))
    if matrix_map:
        N = rng.standard_normal((E if per_element else 1, G, 6, 6 * nodes)) * (rng.random((G, 6, 6 * nodes)) < 0.6)
    w = rng.uniform(0.1, 1.0, (E, G))
    B = rng.standard_normal((E, 6, 6))
    Ms = B @ B.transpose(0, 2, 1)
    for jac in (True, False):
        monkeypatch.setattr(inertia, "USE_KERNELS", False)
        ref = inertia.inertia_forces(v, a, N, w, Ms, jac) + (inertia.kinetic_energy(v, N, w, Ms),)
        monkeypatch.setattr(inertia, "USE_KERNELS", True)
        out = inertia.inertia_forces(v, a, N, w, Ms, jac) + (inertia.kinetic_energy(v, N, w, Ms),)
        for o, r, what in zip(out, ref, ("F", "D", "M", "T")):
            if r is None:
                assert o is None
            else:
                _rel_close(o, r, what)
    # a known (cached) mass is returned as given and leaves F and D unchanged
    M0 = ref[2] if ref[2] is not None else inertia.inertia_forces(v, a, N, w, Ms)[2]
    F, D, M = inertia.inertia_forces(v, a, N, w, Ms, True)
    Fc, Dc, Mc = inertia.inertia_forces(v, a, N, w, Ms, True, mass=M0)
    np.testing.assert_array_equal(Fc, F)
    np.testing.assert_array_equal(Dc, D)
    np.testing.assert_array_equal(Mc, M0)
    assert Mc is not M0


@pytest.mark.parametrize("scale", [0.0, 1e-9, 0.3, 3.0])
def test_frame_increment_and_tangent_kernels_match_numpy(scale, monkeypatch):
    from flexmbd.lie import quat_from_rotvec

    rng = np.random.default_rng(7)
    n = 30
    q = np.empty((n, 7))
    q[:, :3] = rng.standard_normal((n, 3))
    q[:, 3:] = quat_from_rotvec(rng.standard_normal((n, 3)))
    dv = scale * rng.standard_normal((n, 6))
    dv[:, 3:] *= np.minimum(1.0, 3.1 / np.linalg.norm(dv[:, 3:], axis=1, keepdims=True).clip(1e-300))
    for args in ((q, dv), (q.reshape(5, 6, 7), dv.reshape(5, 6, 6)), (q[0], dv)):   # last: broadcast
        monkeypatch.setattr(frame_nodes, "USE_KERNELS", False)
        ref = frame_nodes.SE3.increment(*args), frame_nodes.SE3.tangent(args[1])
        monkeypatch.setattr(frame_nodes, "USE_KERNELS", True)
        out = frame_nodes.SE3.increment(*args), frame_nodes.SE3.tangent(args[1])
        for o, r in zip(out, ref):
            assert o.shape == r.shape
            assert np.max(np.abs(o - r)) <= 1e-12 * np.max(np.abs(r))


@pytest.mark.parametrize("seed", range(3))
def test_beam_model_kernels_match_numpy(seed, monkeypatch):
    """A whole SE(3) beam mechanism (P3's crank-slider: beams, joints on beam nodes, a rigid
    slider, a torque), evaluated with and without the kernels."""
    from flexmbd.examples import p3_beams
    from flexmbd.system import System

    sys_ = System(p3_beams.crank_slider("I", (2, 3)).model)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys_, rng)
    lam = rng.standard_normal(sys_.m)
    ref = evaluate_all(sys_, q, v, a, lam, 0.01, False, monkeypatch)
    out = evaluate_all(sys_, q, v, a, lam, 0.01, True, monkeypatch)
    for r, o, what in zip(ref[:2], out[:2], ("residual", "constraints")):
        assert np.allclose(o, r, rtol=1e-12, atol=1e-12 * np.max(np.abs(r))), what
    # the stiff elastic blocks dwarf the constraint blocks: scale by row and column
    r = ref[2].toarray() if hasattr(ref[2], "toarray") else ref[2]
    o = out[2].toarray() if hasattr(out[2], "toarray") else out[2]
    scale = np.minimum(np.max(np.abs(r), axis=1)[:, None], np.max(np.abs(r), axis=0)[None, :])
    assert np.all(np.abs(o - r) <= 1e-12 * scale), "matrix"


@pytest.mark.parametrize("curved,bending", [(False, "curvature"), (False, "linear"), (True, "curvature")])
def test_ancf_cable_kernel_matches_numpy(curved, bending):
    """kernels/ancf_cable.py elastic_forces against the NumPy reference of
    flexmbd/beams/ancf_cable.py: forces, exact tangent and energy on random states."""
    import flexmbd as fm
    from flexmbd.beams import CircularArc, Section
    from flexmbd.beams.ancf_cable import elastic_forces
    from flexmbd.kernels.ancf_cable import elastic_forces as compiled_forces

    sec = Section.rectangle(0.05, 0.05, E=1e5, nu=0.3, rho=100.0)
    m = fm.Model()
    geo = dict(geometry=CircularArc((0, 0, 0), 1.0, 0.0, np.pi / 2)) if curved else dict(start=(0, 0, 0),
                                                                                        end=(1, 0, 0))
    rod = m.beam("rod", section=sec, elements=3, formulation="ancf-cable", bending=bending,
                 integration="reduced" if curved else "full", **geo)
    d = rod.spec.data
    c, n = d["cable"], len(d["conn"])
    EA, EI = np.full(n, sec.EA), np.full(n, sec.EI2)
    rng = np.random.default_rng(5)
    for _ in range(3):
        e = d["e0"] + 0.2 * rng.standard_normal(d["e0"].shape)
        F, K, U = elastic_forces(e, c["dH_a"], c["ddH_a"], c["W_a"], c["c0_a"], c["dH_b"], c["ddH_b"], c["W_b"],
                                 c["kappa0_b"], EA, EI, bending == "linear", True)
        f, Kc, Uc = np.empty((n, 12)), np.empty((n, 12, 12)), np.empty(n)
        compiled_forces(e.ravel(), np.arange(12 * n).reshape(n, 12), c["dH_a"], c["W_a"], c["c0_a"], c["dH_b"],
                        c["ddH_b"], c["W_b"], c["kappa0_b"], EA, EI, np.full(n, int(bending == "linear")), True,
                        f, Kc, Uc)
        np.testing.assert_allclose(f, F, rtol=0, atol=1e-12 * np.max(np.abs(F)))
        np.testing.assert_allclose(Kc, K, rtol=0, atol=1e-12 * np.max(np.abs(K)))
        np.testing.assert_allclose(Uc, U, rtol=1e-12, atol=0)
        f2, U2 = np.empty((n, 12)), np.empty(n)   # forces only (no Hessians evaluated)
        compiled_forces(e.ravel(), np.arange(12 * n).reshape(n, 12), c["dH_a"], c["W_a"], c["c0_a"], c["dH_b"],
                        c["ddH_b"], c["W_b"], c["kappa0_b"], EA, EI, np.full(n, int(bending == "linear")), False,
                        f2, np.empty((0, 12, 12)), U2)
        np.testing.assert_array_equal(f2, f)
        np.testing.assert_array_equal(U2, Uc)
    # a degenerate state (r′ = 0): non-finite numbers as in NumPy, not an exception
    compiled_forces(np.zeros(12 * n), np.arange(12 * n).reshape(n, 12), c["dH_a"], c["W_a"], c["c0_a"], c["dH_b"],
                    c["ddH_b"], c["W_b"], c["kappa0_b"], EA, EI, np.full(n, int(bending == "linear")), True, f, Kc, Uc)
    assert not np.all(np.isfinite(Kc))


@pytest.mark.parametrize("curved", [False, True])
@pytest.mark.parametrize("locking,shape", [("strain-split", "rectangle"), ("plain", "rectangle"),
                                          ("strain-split", "circle")])
def test_ancf_beam_kernel_matches_numpy(curved, locking, shape):
    """kernels/ancf_beam.py elastic_forces, fed the arrays of the elastic group's compiled
    slot, against AncfElements.elastic_forces (flexmbd/beams/ancf_beam.py): forces, exact
    tangent and energy on random states, both elastic forms, straight and curved."""
    import flexmbd as fm
    from flexmbd.beams import CircularArc, Section
    from flexmbd.beams.ancf_formulation import AncfElasticGroup
    from flexmbd.kernels.ancf_beam import elastic_forces as compiled_forces

    sec = (Section.rectangle(0.05, 0.03, E=1e5, nu=0.3, rho=100.0) if shape == "rectangle"
           else Section.circle(0.04, E=1e5, nu=0.3, rho=100.0))
    m = fm.Model()
    geo = dict(geometry=CircularArc((0, 0, 0), 1.0, 0.0, np.pi / 2)) if curved else dict(start=(0, 0, 0),
                                                                                        end=(1, 0, 0))
    rod = m.beam("rod", section=sec, elements=3, formulation="ancf", locking=locking, **geo)
    el = rod.spec.data["ancf"]
    n = len(el.e_ref)
    cfg = np.arange(24 * n).reshape(n, 24)
    slot = AncfElasticGroup([([f"e{i}" for i in range(n)], cfg, cfg, el)]).compiled_slot()
    assert slot.name == "ancf_elastic"
    _, b, w, coef = slot.arrays
    rng = np.random.default_rng(7)
    for _ in range(3):
        e = el.e_ref + 0.1 * rng.standard_normal(el.e_ref.shape)
        F, K, U = el.elastic_forces(e, True)
        f, Kc, Uc = np.empty((n, 24)), np.empty((n, 24, 24)), np.empty(n)
        compiled_forces(e.ravel(), cfg, b, w, coef, True, f, Kc, Uc)
        np.testing.assert_allclose(f, F, rtol=0, atol=1e-13 * np.max(np.abs(F)))
        np.testing.assert_allclose(Kc, K, rtol=0, atol=1e-13 * np.max(np.abs(K)))
        np.testing.assert_allclose(Uc, U, rtol=1e-13, atol=0)
        f2, U2 = np.empty((n, 24)), np.empty(n)   # forces only (no tangent evaluated)
        compiled_forces(e.ravel(), cfg, b, w, coef, False, f2, np.empty((0, 24, 24)), U2)
        np.testing.assert_array_equal(f2, f)
        np.testing.assert_array_equal(U2, Uc)


def test_ancf_markers_match_numpy():
    """kernels/markers.py ancf_marker against AncfMarkers.evaluate (flexmbd/nodes/ancf.py)
    for both ANCF kinds and every marker type (the cable's u2, u3 included: exact on
    ground's slot)."""
    from flexmbd.kernels.markers import ancf_marker
    from flexmbd.nodes import ANCF, ANCF_CABLE

    rng = np.random.default_rng(11)
    for kind in (ANCF, ANCF_CABLE):
        mt = np.array([0, 1, 2, 3] * 3)
        q, u = rng.standard_normal((len(mt), kind.nq)), rng.standard_normal((len(mt), 3))
        X, JJ = kind.markers(u, mt).evaluate(q)
        x, J = np.empty(3), np.empty((3, kind.nv))
        for s in range(len(mt)):
            ancf_marker(q[s], u[s], mt[s], x, J)
            np.testing.assert_allclose(x, X[s], rtol=1e-15, atol=1e-15)
            np.testing.assert_array_equal(J, JJ[s])
