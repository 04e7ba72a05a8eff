"""Kernels of the R³×R³ geometrically exact beam (``flexmbd.beams.r3r3``).

Every analytic derivative is compared with central finite differences (step 1e-6,
truncation ~1e-12 × scale, rounding ~1e-10 × scale) at random states with rotation
vectors of length up to ~3 and of length 1e-6, against a 1e-6 relative tolerance.
The inertia force is checked against Lagrange's equations evaluated from the kinetic
energy alone by differences in velocity, state and time.
"""
import numpy as np
import pytest

from flexmbd.beams import r3r3 as B
from flexmbd.nodes import rotvec as NODE
from flexmbd.lie import so3_dT, so3_exp, so3_T, so3_vee

RTOL = 1e-6
MODES = ["full", "reduced", "hw"]
SCALES = [3.0, 1e-6]  # largest |ψ| of the random states


def fd(fun, x, h=1e-6):
    """Central differences of fun w.r.t. every entry of x: shape fun(x).shape + x.shape."""
    x = np.array(x, dtype=float)
    f0 = np.asarray(fun(x))
    J = np.zeros(f0.shape + x.shape)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        J[(...,) + i] = (np.asarray(fun(xp)) - np.asarray(fun(xm))) / (2.0 * h)
    return J


def fd_elementwise(fun, x, h=1e-6):
    """∂fun/∂x for a batched fun of x (n, m): result (n, …, m) (no cross-element terms)."""
    x = np.array(x, dtype=float)
    cols = []
    for j in range(x.shape[1]):
        xp, xm = x.copy(), x.copy()
        xp[:, j] += h
        xm[:, j] -= h
        cols.append((np.asarray(fun(xp)) - np.asarray(fun(xm))) / (2.0 * h))
    return np.stack(cols, -1)


def assert_close(a, b, rtol=RTOL):
    scale = max(np.abs(b).max(), 1e-300)
    err = np.abs(np.asarray(a) - np.asarray(b)).max() / scale
    assert err <= rtol, f"relative error {err:.3e}"


def random_rotvec(rng, n, scale):
    v = rng.normal(size=(n, 3))
    v /= np.linalg.norm(v, axis=1)[:, None]
    return v * rng.uniform(0.3, 1.0, size=(n, 1)) * scale


def random_elements(rng, n, scale):
    """Reference and current states (n, 12), L0, a symmetric positive definite D."""
    L0 = rng.uniform(0.5, 2.0, n)
    xA = rng.normal(size=(n, 3))
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    q_ref = np.concatenate(
        [xA, random_rotvec(rng, n, scale), xA + L0[:, None] * d, random_rotvec(rng, n, scale)], 1
    )
    q = q_ref.copy()
    q[:, [0, 1, 2, 6, 7, 8]] += 0.2 * rng.normal(size=(n, 6))
    for sl in (slice(3, 6), slice(9, 12)):
        q[:, sl] = random_rotvec(rng, n, scale)
    Araw = rng.normal(size=(n, 6, 6))
    D = np.einsum("nij,nkj->nik", Araw, Araw) + 3.0 * np.eye(6)
    return q, q_ref, L0, D


# ------------------------------------------------------------------ coefficients
def test_second_derivative_coefficients():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 80  # the closed forms cancel ~8 log10(1/θ) digits

    def ref(name, x):
        x = mp.mpf(x)
        a = mp.sin(x) / x
        b = (1 - mp.cos(x)) / x**2
        c = (x - mp.sin(x)) / x**3
        db = (a - 2 * b) / x**2
        dc = (b - 3 * c) / x**2
        if name == "ddb":
            return ((mp.cos(x) - a) / x**2 - 4 * db) / x**2
        return (db - 5 * dc) / x**2

    th = np.concatenate([np.geomspace(1e-4, 1.0, 20), np.linspace(1.0, 4.5, 36)])
    for name, lim in (("ddb", 1.0 / 90.0), ("ddc", 1.0 / 630.0)):
        got = B._dd_coefficient(name, th)
        exp = np.array([float(ref(name, t)) for t in th])
        assert np.abs(got - exp).max() / np.abs(exp).max() < 1e-14
        assert B._dd_coefficient(name, 0.0) == pytest.approx(lim, rel=1e-15)
        t0 = B._DD_THRESHOLD
        below = B._dd_coefficient(name, np.nextafter(t0, 0.0))
        at = B._dd_coefficient(name, t0)
        assert abs(below - at) <= 1e-14 * abs(at)


@pytest.mark.parametrize("scale", [3.0, 1.0, 1e-6, 0.0])
def test_second_derivatives_of_T(scale):
    rng = np.random.default_rng(1)
    for _ in range(5):
        psi = random_rotvec(rng, 1, max(scale, 1e-300))[0] if scale else np.zeros(3)
        a, m, v = rng.normal(size=(3, 3))
        H = B._hess_T(psi, a, m)
        assert_close(H, fd(lambda p, a=a, m=m: so3_dT(p, a).T @ m, psi))
        assert_close(H, H.T, 1e-14)
        assert_close(B._d2T(psi, a, v), fd(lambda p, a=a, v=v: so3_dT(p, a) @ v, psi))
        assert_close(B._dT_dir(psi, v), np.einsum("ijk,k->ij", fd(so3_T, psi), v))


# ------------------------------------------------------------------ rescale
def test_rescale_keeps_rotation():
    rng = np.random.default_rng(2)
    psi = random_rotvec(rng, 200, 1.0) * rng.uniform(0.0, 9.0, size=(200, 1))
    psi[:3] = [[0.0, 0.0, 0.0], [np.pi, 0.0, 0.0], [0.0, 0.0, 3.0 * np.pi + 0.1]]
    r = B.rescale(psi)
    assert np.all(np.linalg.norm(r, axis=1) <= np.pi + 1e-15)
    assert np.abs(so3_exp(r) - so3_exp(psi)).max() < 1e-14
    small = np.linalg.norm(psi, axis=1) <= np.pi
    assert np.array_equal(r[small], psi[small])
    big = psi[np.linalg.norm(psi, axis=1) > np.pi]
    one = big[np.linalg.norm(big, axis=1) <= 3.0 * np.pi]
    th = np.linalg.norm(one, axis=1)[:, None]
    assert np.abs(B.rescale(one) - one * (1.0 - 2.0 * np.pi / th)).max() < 1e-14
    assert B.rescale(psi.reshape(10, 20, 3)).shape == (10, 20, 3)


# ------------------------------------------------------------------ elastic forces
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scale", SCALES)
def test_force_is_energy_gradient(mode, scale):
    rng = np.random.default_rng(3)
    q, q_ref, L0, D = random_elements(rng, 5, scale)
    f, V = B.elastic_forces(q, q_ref, L0, D, mode, jacobians=False)
    fdf = fd_elementwise(lambda x: B.elastic_forces(x, q_ref, L0, D, mode, False)[1], q)
    assert_close(f, fdf)
    f2, _, V2 = B.elastic_forces(q, q_ref, L0, D, mode)
    assert np.array_equal(f, f2) and np.array_equal(V, V2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scale", SCALES)
def test_stiffness_exact(mode, scale):
    rng = np.random.default_rng(4)
    q, q_ref, L0, D = random_elements(rng, 5, scale)
    _, K, _ = B.elastic_forces(q, q_ref, L0, D, mode)
    Kfd = fd_elementwise(lambda x: B.elastic_forces(x, q_ref, L0, D, mode, False)[0], q)
    assert_close(K, Kfd)
    assert_close(K, np.swapaxes(K, 1, 2), 1e-13)


@pytest.mark.parametrize("mode", MODES)
def test_zero_rotation_at_gauss_point_and_batching(mode):
    """ψ_B = −ψ_A puts θ = 0 exactly at the midpoint; batched = one element at a time."""
    rng = np.random.default_rng(12)
    q, q_ref, L0, D = random_elements(rng, 4, 2.0)
    q[:, 9:12] = -q[:, 3:6]
    q[0, 3:6] = q[0, 9:12] = 0.0
    f, K, _ = B.elastic_forces(q, q_ref, L0, D, mode)
    assert np.all(np.isfinite(K))
    assert_close(K, fd_elementwise(lambda x: B.elastic_forces(x, q_ref, L0, D, mode, False)[0], q))
    for i in range(4):
        fi, Ki, _ = B.elastic_forces(q[i : i + 1], q_ref[i : i + 1], L0[i : i + 1], D[i : i + 1], mode)
        assert np.allclose(fi[0], f[i], rtol=1e-14, atol=1e-14 * np.abs(f[i]).max())
        assert np.allclose(Ki[0], K[i], rtol=1e-14, atol=1e-14 * np.abs(K[i]).max())


@pytest.mark.parametrize("mode", MODES)
def test_reference_state_is_stress_free(mode):
    rng = np.random.default_rng(5)
    _, q_ref, L0, D = random_elements(rng, 4, 3.0)
    f, _, V = B.elastic_forces(q_ref, q_ref, L0, D, mode)
    assert np.all(f == 0.0) and np.all(V == 0.0)
    assert np.all(B.section_forces(q_ref, q_ref, L0, D, mode) == 0.0)
    # rigid translation: still stress free
    q = q_ref.copy()
    q[:, [0, 1, 2]] += 1.7
    q[:, [6, 7, 8]] += 1.7
    assert np.abs(B.elastic_forces(q, q_ref, L0, D, mode, False)[0]).max() < 1e-12


def test_section_forces_and_hw_shear():
    rng = np.random.default_rng(6)
    q, q_ref, L0, D = random_elements(rng, 3, 2.0)
    for mode, ng in (("full", 2), ("reduced", 1), ("hw", 2)):
        s = B.section_forces(q, q_ref, L0, D, mode)
        assert s.shape == (3, ng, 6)
    # with a diagonal D the hw shear force is constant per element and equals the
    # average of the full-integration shear forces; the other resultants are pointwise
    Dd = np.einsum("nii->ni", D)[:, :, None] * np.eye(6)
    sh = B.section_forces(q, q_ref, L0, Dd, "hw")
    sf = B.section_forces(q, q_ref, L0, Dd, "full")
    assert np.allclose(sh[:, 0, 1:3], sh[:, 1, 1:3], rtol=1e-14, atol=0)
    assert np.allclose(sh[:, :, 1:3], sf[:, :, 1:3].mean(1, keepdims=True), rtol=1e-13)
    assert np.allclose(sh[:, :, [0, 3, 4, 5]], sf[:, :, [0, 3, 4, 5]], rtol=1e-14)
    # and the hw energy is L0 Σ w ½ σ̂ᵀ D⁻¹ σ̂
    _, V = B.elastic_forces(q, q_ref, L0, Dd, "hw", jacobians=False)
    Vs = 0.5 * L0 * np.einsum("g,ngi,ngi->n", [0.5, 0.5], sh, sh / np.einsum("nii->ni", Dd)[:, None])
    assert np.allclose(V, Vs, rtol=1e-13)


@pytest.mark.parametrize("mode", MODES)
def test_pure_bending_exact_curvature(mode):
    """A circular arc with rotation vectors collinear with the bending axis: κ exact."""
    L, kap = 0.8, 2.5
    rng = np.random.default_rng(7)
    for axis in (np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])):
        alpha = 0.7  # initial rotation of node A about the same axis
        R0 = so3_exp(alpha * axis)
        t = R0 @ np.array([1.0, 0.0, 0.0])  # tangent at A
        nrm = np.cross(axis, t)  # towards the centre of curvature
        xA = rng.normal(size=3)
        xB = xA + (np.sin(kap * L) * t + (1.0 - np.cos(kap * L)) * nrm) / kap
        q = np.concatenate([xA, alpha * axis, xB, (alpha + kap * L) * axis])[None]
        q_ref = np.concatenate([xA, alpha * axis, xA + L * t, alpha * axis])[None]
        zeta = B._mode_rule(mode)[0]
        _, k = B.strains(q, [L], zeta)
        assert np.abs(k - kap * axis).max() < 1e-14
        EI = 3.0
        D = np.diag([1e3, 1e3, 1e3, 2.0, EI, EI])[None]
        sig = B.section_forces(q, q_ref, [L], D, mode)
        assert np.abs(sig[..., 3:] - EI * kap * axis).max() < 1e-13
        # the midpoint tangent is exactly material axis 1 on a symmetric arc
        G1, _ = B.strains(q, [L], [0.5])
        assert np.abs(G1[..., 1:]).max() < 1e-15


# ------------------------------------------------------------------ inertia
def inertia_data(rng, n, scale):
    q, _, L0, _ = random_elements(rng, n, scale)
    qd = rng.normal(size=(n, 12))
    qdd = rng.normal(size=(n, 12))
    qd[:, [3, 4, 5, 9, 10, 11]] *= 2.0
    rhoA = rng.uniform(0.5, 2.0, n)
    Js = np.zeros((n, 3, 3))
    Js[:, [0, 1, 2], [0, 1, 2]] = rng.uniform(0.2, 1.0, (n, 3))
    Js[:, 0, 0] = Js[:, 1, 1] + Js[:, 2, 2]
    return q, qd, qdd, L0, rhoA, Js


@pytest.mark.parametrize("scale", SCALES)
def test_inertia_jacobians(scale):
    rng = np.random.default_rng(8)
    q, qd, qdd, L0, rhoA, Js = inertia_data(rng, 4, scale)
    F, dFq, dFv, M = B.inertia_forces(q, qd, qdd, L0, rhoA, Js)
    assert np.array_equal(F, B.inertia_forces(q, qd, qdd, L0, rhoA, Js, jacobians=False))
    assert_close(dFq, fd_elementwise(lambda x: B.inertia_forces(x, qd, qdd, L0, rhoA, Js, False), q))
    assert_close(dFv, fd_elementwise(lambda x: B.inertia_forces(q, x, qdd, L0, rhoA, Js, False), qd))
    assert_close(M, fd_elementwise(lambda x: B.inertia_forces(q, qd, x, L0, rhoA, Js, False), qdd))
    assert_close(M, np.swapaxes(M, 1, 2), 1e-14)
    # T = ½ q̇ᵀ M q̇ (the kinetic energy is a quadratic form with Hessian M)
    T = B.kinetic_energy(q, qd, L0, rhoA, Js)
    assert np.allclose(T, 0.5 * np.einsum("ni,nij,nj->n", qd, M, qd), rtol=1e-13)


def _d1(fun, x, h):
    """4th-order central difference of a scalar/vector function of a scalar."""
    return (-fun(x + 2 * h) + 8 * fun(x + h) - 8 * fun(x - h) + fun(x - 2 * h)) / (12 * h)


@pytest.mark.parametrize("scale", SCALES)
def test_inertia_force_is_lagrange(scale):
    """F = d/dt ∂T/∂q̇ − ∂T/∂q, all from kinetic_energy by differences."""
    rng = np.random.default_rng(9)
    q, qd, qdd, L0, rhoA, Js = inertia_data(rng, 3, scale)
    F = B.inertia_forces(q, qd, qdd, L0, rhoA, Js, jacobians=False)

    def energy(x, v):
        return B.kinetic_energy(x, v, L0, rhoA, Js)

    def p(x, v):
        # T is quadratic in q̇: a central difference of step 1 is exact up to rounding
        return fd_elementwise(lambda vv: energy(x, vv), v, h=1.0)

    dpdt = _d1(lambda t: p(q + t * qd + 0.5 * t * t * qdd, qd + t * qdd), 0.0, 1e-3)
    dTdq = np.stack(
        [
            _d1(lambda s, j=j: energy(q + s * np.eye(12)[j], qd), 0.0, 1e-3)
            for j in range(12)
        ],
        -1,
    )
    assert_close(F, dpdt - dTdq, 1e-8)


# ------------------------------------------------------------------ markers and torques
def marker_data(rng, n, scale):
    qn = np.concatenate([rng.normal(size=(n, 3)), random_rotvec(rng, n, scale)], 1)
    u = rng.normal(size=(n, 3))
    point = (np.arange(n) % 2).astype(float)
    return qn, u, point


@pytest.mark.parametrize("scale", SCALES)
def test_marker_derivatives(scale):
    rng = np.random.default_rng(10)
    qn, u, point = marker_data(rng, 6, scale)
    x, J = NODE.marker(qn, u, point)
    assert_close(x, point[:, None] * qn[:, :3] + np.einsum("nij,nj->ni", so3_exp(qn[:, 3:]), u), 1e-15)
    assert_close(J, fd_elementwise(lambda z: NODE.marker(z, u, point)[0], qn))
    g = rng.normal(size=(6, 3))
    C = NODE.marker_contract(qn, u, point, g)
    assert_close(C, fd_elementwise(lambda z: np.einsum("nij,ni->nj", NODE.marker(z, u, point)[1], g), qn))
    assert_close(C, np.swapaxes(C, 1, 2), 1e-14)
    v = rng.normal(size=(6, 6))
    dJv = NODE.marker_dJv(qn, u, point, v)
    assert_close(dJv, fd_elementwise(lambda z: np.einsum("nij,nj->ni", NODE.marker(z, u, point)[1], v), qn))


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("body_fixed", [False, True])
def test_torque_force(scale, body_fixed):
    rng = np.random.default_rng(11)
    qn, _, _ = marker_data(rng, 5, scale)
    n = rng.normal(size=(5, 3))
    Q, dQ = NODE.torque_force(qn, n, body_fixed)
    assert np.all(Q[:, :3] == 0.0)
    # virtual work n_g · δπ with δπ_j = vee((∂R/∂ψ_j) Rᵀ), from differences of exp
    R = so3_exp(qn[:, 3:])
    dR = fd_elementwise(lambda p: so3_exp(p), qn[:, 3:])  # (n, 3, 3, 3)
    dpi = so3_vee(np.einsum("nikj,nlk->njil", dR, R))  # (n, 3 [j], 3)
    ng = np.einsum("nij,nj->ni", R, n) if body_fixed else n
    assert_close(Q[:, 3:], np.einsum("nji,ni->nj", dpi, ng))
    assert_close(dQ, fd_elementwise(lambda z: NODE.torque_force(z, n, body_fixed)[0], qn))
    # mixed per-node flags
    flags = np.array([True, False, True, False, False])
    Qm, dQm = NODE.torque_force(qn, n, flags)
    for i, fl in enumerate(flags):
        Qi, dQi = NODE.torque_force(qn[i : i + 1], n[i : i + 1], bool(fl))
        assert np.array_equal(Qm[i], Qi[0]) and np.array_equal(dQm[i], dQi[0])


# ------------------------------------------------------------------ shear locking
def cantilever_tip(mode, n_el=10):
    """Linear tip deflection of a clamped straight cantilever under a 1 N tip force in z."""
    L, a, E, nu, F = 1.0, 0.01, 2.1e11, 0.3, 1.0
    G = E / (2.0 * (1.0 + nu))
    k = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)
    A, I, Jt = a * a, a**4 / 12.0, 0.1406 * a**4
    Dsec = np.diag([E * A, k * G * A, k * G * A, G * Jt, E * I, E * I])
    le = L / n_el
    X = np.linspace(0.0, L, n_el + 1)
    q_ref = np.zeros((n_el, 12))
    q_ref[:, 0] = X[:-1]
    q_ref[:, 6] = X[1:]
    _, Ke, _ = B.elastic_forces(q_ref, q_ref, np.full(n_el, le), np.repeat(Dsec[None], n_el, 0), mode)
    ndof = 6 * (n_el + 1)
    K = np.zeros((ndof, ndof))
    for e in range(n_el):
        K[6 * e : 6 * e + 12, 6 * e : 6 * e + 12] += Ke[e]
    f = np.zeros(ndof)
    f[6 * n_el + 2] = F
    u = np.linalg.solve(K[6:, 6:], f[6:])
    exact = F * L**3 / (3.0 * E * I) + F * L / (k * G * A)
    return u[-4] / exact


def test_shear_locking():
    ratio = {mode: cantilever_tip(mode) for mode in MODES}
    print("tip deflection / Timoshenko:", ratio)
    assert ratio["full"] < 0.1  # locks: far too stiff
    assert abs(ratio["reduced"] - 1.0) < 0.01
    assert abs(ratio["hw"] - 1.0) < 0.01
