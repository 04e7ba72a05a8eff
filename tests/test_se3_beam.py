"""n-node SE(3) beam kernel (flexmbd.beams.se3_beam).

Tolerances: derivatives are checked with central differences along right-trivialised
increments H_k → H_k exp(±h e_j), h = 1e-6: truncation ≈ h²|f‴|/6 ~ 1e-12 and rounding
≈ ε|f|/h ~ 2e-10 relative, far below the 1e-6 bound.  Invariance and exactness checks are
rounding-level (1e-12 and 1e-10 relative).
"""
import numpy as np
import pytest

import flexmbd.lie as L
from flexmbd.beams import se3_beam as B

# ---------------------------------------------------------------- helpers


def lagrange(n, length, s):
    """Lagrange shape functions on n equally spaced nodes of [0, length], at points s."""
    sn = np.linspace(0.0, length, n)
    N = np.ones((len(s), n))
    dN = np.zeros((len(s), n))
    for k in range(n):
        others = [m for m in range(n) if m != k]
        for m in others:
            N[:, k] *= (s - sn[m]) / (sn[k] - sn[m])
        for j in others:
            t = np.full(len(s), 1.0 / (sn[k] - sn[j]))
            for m in others:
                if m != j:
                    t = t * (s - sn[m]) / (sn[k] - sn[m])
            dN[:, k] += t
    return N, dN


def gauss_rule(length, ng):
    gp, gw = np.polynomial.legendre.leggauss(ng)
    return 0.5 * length * (gp + 1.0), 0.5 * length * gw


def element_data(n_el, n, length=2.0, ng=None):
    ng = ng or n
    s, w = gauss_rule(length, ng)
    N, dN = lagrange(n, length, s)
    return N, np.broadcast_to(dN, (n_el, ng, n)).copy(), np.broadcast_to(w, (n_el, ng)).copy()


def straight(n_el, n, length=2.0):
    R = np.broadcast_to(np.eye(3), (n_el, n, 3, 3)).copy()
    x = np.zeros((n_el, n, 3))
    x[..., 0] = np.linspace(0.0, length, n)
    return R, x


def random_D(rng, n_el):
    Ds = []
    for _ in range(n_el):
        A = rng.normal(size=(6, 6))
        Ds.append(np.diag(rng.uniform(1.0, 3.0, 6)) + 0.2 * (A + A.T))
    return np.array(Ds)


def deformed(rng, n_el, n, amp, length=2.0):
    """Straight reference, nodes moved by random twists of size amp and a rigid motion."""
    R0, x0 = straight(n_el, n, length)
    H = L.se3_from_Rx(R0, x0) @ L.se3_exp(amp * rng.normal(size=(n_el, n, 6)))
    H = L.se3_exp(rng.normal(size=(n_el, 1, 6))) @ H
    return (R0, x0), L.se3_to_Rx(H)


def perturb(R, x, k, j, h):
    """Right-trivialised increment H_k → H_k exp(h e_j) on every element."""
    dh = np.zeros(x.shape[:2] + (6,))
    dh[:, k, j] = h
    return L.se3_to_Rx(L.se3_from_Rx(R, x) @ L.se3_exp(dh))


def rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


# ---------------------------------------------------------------- (a) derivatives

STATES = {
    "moderate": 0.4,  # relative rotations ~1 rad: closed-form branches of the coefficients
    "large": 0.9,  # relative rotations up to ~2.5 rad
    "small": 1e-5,  # near the reference: series branches
}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("state", sorted(STATES))
def test_forces_and_stiffness_against_finite_differences(n, state):
    rng = np.random.default_rng(10 * n + len(state))
    n_el = 3
    N, dN, w = element_data(n_el, n)
    (R0, x0), (R, x) = deformed(rng, n_el, n, STATES[state])
    eps0 = B.reference_strains(R0, x0, N, dN)
    D = random_D(rng, n_el)
    f, K, V = B.internal_forces(R, x, N, dN, w, eps0, D)
    assert f.shape == (n_el, 6 * n) and K.shape == (n_el, 6 * n, 6 * n) and V.shape == (n_el,)
    h = 1e-6
    f_fd = np.zeros_like(f)
    K_fd = np.zeros_like(K)
    for k in range(n):
        for j in range(6):
            fp, _, Vp = B.internal_forces(*perturb(R, x, k, j, h), N, dN, w, eps0, D, jacobians=False)
            fm, _, Vm = B.internal_forces(*perturb(R, x, k, j, -h), N, dN, w, eps0, D, jacobians=False)
            f_fd[:, 6 * k + j] = (Vp - Vm) / (2 * h)
            K_fd[:, :, 6 * k + j] = (fp - fm) / (2 * h)
    assert rel(f_fd, f) <= 1e-6
    assert rel(K_fd, K) <= 1e-6
    # the geometric part matters: K is not symmetric away from equilibrium
    if state != "small":
        assert np.abs(K - np.swapaxes(K, 1, 2)).max() > 1e-3 * np.abs(K).max()


def test_variation_of_relative_twists():
    """δξ_k = T⁻¹(ξ_k) δh_k − T⁻¹(−ξ_k) δh_1 = T⁻¹(ξ_k)(δh_k − Ad(exp(−ξ_k)) δh_1)."""
    rng = np.random.default_rng(5)
    _, (R, x) = deformed(rng, 2, 3, 0.8)
    xi = B.relative_twists(R, x)
    h = 1e-6
    for k in (1, 2):
        Tp, Tm = L.se3_Tinv(xi[:, k]), L.se3_Tinv(-xi[:, k])
        np.testing.assert_allclose(Tm, Tp @ L.se3_Ad(L.se3_exp(-xi[:, k])), rtol=0, atol=1e-13)
        for j in range(6):
            num_k = (B.relative_twists(*perturb(R, x, k, j, h))[:, k]
                     - B.relative_twists(*perturb(R, x, k, j, -h))[:, k]) / (2 * h)
            num_1 = (B.relative_twists(*perturb(R, x, 0, j, h))[:, k]
                     - B.relative_twists(*perturb(R, x, 0, j, -h))[:, k]) / (2 * h)
            np.testing.assert_allclose(num_k, Tp[:, :, j], rtol=0, atol=1e-8)
            np.testing.assert_allclose(num_1, -Tm[:, :, j], rtol=0, atol=1e-8)


@pytest.mark.parametrize("n, amp", [(3, 1e-5), (3, 0.5), (4, 0.9)])
def test_section_velocity_map_is_the_derivative_of_the_interpolation(n, amp):
    """η(s) = P(s) η_e (``section_velocity_map``, the inertia's map) equals the body twist of
    the interpolated section H(s) = H_1 exp(Σ N_k ξ_k) when the nodes move as
    H_k(t) = H_k exp(t η_k): central difference of log(H(s, 0)⁻¹ H(s, t)) over t = ±h,
    h = 1e-6 (truncation ~ h² ~ 1e-12, rounding ~ ε/h ~ 1e-10).  Near the reference and
    with relative rotations up to ~2.5 rad."""
    rng = np.random.default_rng(40 + n)
    _, (R, x) = deformed(rng, 2, n, amp)
    s = np.array([0.13, 0.9, 1.71])
    N = lagrange(n, 2.0, s)[0]
    eta = rng.normal(size=(2, n, 6))
    P = B.section_velocity_map(R, x, N)

    def sections(t):
        Rt, xt = L.se3_to_Rx(L.se3_from_Rx(R, x) @ L.se3_exp(t * eta))
        xi = B.relative_twists(Rt, xt)
        H1 = L.se3_from_Rx(Rt[:, :1], xt[:, :1])
        return H1 @ L.se3_exp(np.einsum("gk,eki->egi", N, xi))

    h = 1e-6
    H0 = sections(0.0)
    fd = (L.se3_log(L.se3_inv(H0) @ sections(h)) - L.se3_log(L.se3_inv(H0) @ sections(-h))) / (2 * h)
    np.testing.assert_allclose(np.einsum("egia,ea->egi", P, eta.reshape(2, -1)), fd, rtol=0, atol=1e-8)
    # and not the interpolated node twists Σ N_k η_k once the element is deformed
    if amp > 0.1:
        assert rel(np.einsum("gk,eki->egi", N, eta), fd) > 1e-2


# ---------------------------------------------------------------- (b) invariance


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rigid_motion_invariance_and_reference_state(n):
    rng = np.random.default_rng(20 + n)
    n_el = 4
    N, dN, w = element_data(n_el, n)
    (R0, x0), (R, x) = deformed(rng, n_el, n, 0.5)
    eps0 = B.reference_strains(R0, x0, N, dN)
    D = random_D(rng, n_el)
    f, K, V = B.internal_forces(R, x, N, dN, w, eps0, D)
    G = L.se3_exp(3.0 * rng.normal(size=(n_el, 1, 6)))
    Rg, xg = L.se3_to_Rx(G @ L.se3_from_Rx(R, x))
    fg, Kg, Vg = B.internal_forces(Rg, xg, N, dN, w, eps0, D)
    assert rel(fg, f) <= 1e-12 and rel(Kg, K) <= 1e-12 and rel(Vg, V) <= 1e-12
    # reference configuration: no forces, no energy, symmetric (material) stiffness
    f0, K0, V0 = B.internal_forces(R0, x0, N, dN, w, eps0, D)
    np.testing.assert_array_equal(f0, 0.0)
    np.testing.assert_array_equal(V0, 0.0)
    np.testing.assert_allclose(K0, np.swapaxes(K0, 1, 2), rtol=0, atol=1e-13 * np.abs(K0).max())
    # ... and a rigidly moved reference configuration
    Rr, xr = L.se3_to_Rx(G @ L.se3_from_Rx(R0, x0))
    fr, Kr, Vr = B.internal_forces(Rr, xr, N, dN, w, eps0, D)
    assert np.abs(fr).max() <= 1e-12 * np.abs(D).max()
    assert np.abs(Vr).max() <= 1e-24 * np.abs(D).max()
    assert rel(Kr, K0) <= 1e-12
    # the 6 rigid modes (same twist Ad(H_k⁻¹)·v at every node) are in the kernel of K0
    Hr = L.se3_from_Rx(Rr, xr)
    modes = L.se3_Ad(L.se3_inv(Hr))  # (n_el, n, 6, 6): δh_k = Ad(H_k⁻¹) v
    Z = np.einsum("eij,ejm->eim", Kr, modes.reshape(n_el, 6 * n, 6))
    assert np.abs(Z).max() <= 1e-11 * np.abs(Kr).max()


# ---------------------------------------------------------------- (c)–(e) exact states


@pytest.mark.parametrize("rule", ["gauss1", "gauss2", "gauss3", "random"])
def test_two_node_linear_element_has_constant_strain(rule):
    rng = np.random.default_rng(7)
    n_el, length = 5, 1.7
    if rule == "random":
        s = np.sort(rng.uniform(0, length, 4))
    else:
        s = gauss_rule(length, int(rule[-1]))[0]
    N, dN = lagrange(2, length, s)
    dN = np.broadcast_to(dN, (n_el,) + dN.shape)
    H = L.se3_exp(rng.normal(size=(n_el, 2, 6)))
    R, x = L.se3_to_Rx(H)
    eps = B.reference_strains(R, x, N, dN)
    expected = L.se3_log(L.se3_inv(H[:, 0]) @ H[:, 1]) / length
    np.testing.assert_allclose(eps, np.broadcast_to(expected[:, None], eps.shape), rtol=0,
                               atol=1e-14 * np.abs(expected).max() * 10)


def _arc(kappa, axis, s):
    """Frames of a unit-speed circular arc from the origin along e1, bent about e2 or e3."""
    n = np.eye(3)[axis]
    t = kappa * s
    R = np.array([np.cos(ti) * (np.eye(3) - np.outer(n, n)) + np.sin(ti) * L.so3_hat(n)
                  + np.outer(n, n) for ti in t])
    e1 = np.eye(3)[0]
    x = np.array([np.sin(ti) / kappa * e1 + (1 - np.cos(ti)) / kappa * np.cross(n, e1) for ti in t])
    return R, x


@pytest.mark.parametrize("axis", [1, 2])
@pytest.mark.parametrize("ng", [1, 2, 3])
def test_pure_bending_two_nodes(axis, ng):
    """Straight element of length ℓ bent into an arc of curvature κ about its e2 or e3 axis.

    Expected: ε = (1, 0, 0, 0, κ δ_a2, κ δ_a3) at every Gauss point, deformation
    e = (0, 0, 0, 0, κ δ_a2, κ δ_a3), σ = (0, …, EI_a κ), energy ½ EI_a κ² ℓ and nodal forces
    f = (0, 0, 0, −M) at node 1 and (0, 0, 0, +M) at node 2 with M = EI_a κ e_a (end
    moments, each in its node frame; T⁻ᵀ(±ξ) M = M because ad(ξ)ᵀ σ = 0 for σ ∥ Ω).
    """
    length, kappa = 1.3, 0.9
    EA, GA2, GA3, GJ, EI2, EI3 = 100.0, 40.0, 45.0, 3.0, 2.0, 2.5
    D = np.diag([EA, GA2, GA3, GJ, EI2, EI3])[None]
    s, w = gauss_rule(length, ng)
    N, dN = lagrange(2, length, s)
    R0, x0 = straight(1, 2, length)
    eps0 = B.reference_strains(R0, x0, N, dN[None])
    np.testing.assert_allclose(eps0, np.broadcast_to([1.0, 0, 0, 0, 0, 0], eps0.shape), atol=1e-15)
    R, x = _arc(kappa, axis, np.array([0.0, length]))
    G = L.se3_exp(np.array([0.3, -1.0, 2.0, 0.4, 0.2, -0.7]))  # arbitrary placement
    Rg, xg = L.se3_to_Rx(G @ L.se3_from_Rx(R, x))
    bend = np.zeros(6)
    bend[3 + axis] = kappa
    eps = B.reference_strains(Rg[None], xg[None], N, dN[None])
    np.testing.assert_allclose(eps[0], np.broadcast_to([1.0, 0, 0, 0, 0, 0] + bend, (ng, 6)), atol=1e-14)
    EI = D[0, 3 + axis, 3 + axis]
    sig = B.section_forces(Rg[None], xg[None], N, dN[None], eps0, D)
    np.testing.assert_allclose(sig[0], np.broadcast_to(EI * bend, (ng, 6)), atol=1e-13)
    f, _, V = B.internal_forces(Rg[None], xg[None], N, dN[None], w[None], eps0, D)
    np.testing.assert_allclose(f[0], np.r_[-EI * bend, EI * bend], atol=1e-13)
    assert V[0] == pytest.approx(0.5 * EI * kappa**2 * length, rel=1e-14)


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("eps_c", [
    [1.0, 0.1, -0.2, 0.5, 0.3, -0.4],  # helix with shear and extension
    [0.9, 0.0, 0.05, 0.2, -1.1, 0.8],  # relative rotation ≈ 2.8 rad over the element
])
def test_nodes_on_a_helix_reproduce_constant_strain(n, eps_c):
    """H_k = H_1 exp(s_k ε_c) ⇒ ξ_k = s_k ε_c, ξ(s) = s ε_c exactly (Lagrange interpolation
    of a linear function), ε = T(s ε_c) ε_c = ε_c at every point (ad(ε_c) ε_c = 0)."""
    rng = np.random.default_rng(n)
    eps_c = np.array(eps_c)
    length, n_el = 2.0, 3
    sn = np.linspace(0.0, length, n)
    H1 = L.se3_exp(rng.normal(size=(n_el, 1, 6)))
    H = H1 @ L.se3_exp(sn[None, :, None] * eps_c)
    R, x = L.se3_to_Rx(H)
    for ng in (n, n + 2):
        N, dN, w = element_data(n_el, n, length, ng)
        eps = B.reference_strains(R, x, N, dN)
        np.testing.assert_allclose(eps, np.broadcast_to(eps_c, eps.shape), rtol=0, atol=1e-10)
        f, _, V = B.internal_forces(R, x, N, dN, w, eps, random_D(rng, n_el))
        assert np.abs(f).max() == 0.0 and np.abs(V).max() == 0.0


# ---------------------------------------------------------------- API details


def test_batched_shapes_and_per_element_results():
    rng = np.random.default_rng(9)
    n_el, n = 4, 3
    N, dN, w = element_data(n_el, n)
    (R0, x0), (R, x) = deformed(rng, n_el, n, 0.6)
    eps0 = B.reference_strains(R0, x0, N, dN)
    D = random_D(rng, n_el)
    f, K, V = B.internal_forces(R, x, N, dN, w, eps0, D)
    Ne = np.broadcast_to(N, dN.shape)
    f2, K2, V2 = B.internal_forces(R, x, Ne, dN, w, eps0, D)
    np.testing.assert_array_equal(f, f2)
    np.testing.assert_array_equal(K, K2)
    np.testing.assert_array_equal(V, V2)
    for e in range(n_el):
        fe, Ke, Ve = B.internal_forces(R[e:e + 1], x[e:e + 1], N, dN[e:e + 1], w[e:e + 1],
                                       eps0[e:e + 1], D[e:e + 1])
        np.testing.assert_allclose(fe[0], f[e], rtol=1e-14, atol=1e-14 * np.abs(f).max())
        np.testing.assert_allclose(Ke[0], K[e], rtol=1e-14, atol=1e-14 * np.abs(K).max())
        assert Ve[0] == pytest.approx(V[e], rel=1e-14)
    f3, K3, V3 = B.internal_forces(R, x, N, dN, w, eps0, D, jacobians=False)
    assert K3 is None
    np.testing.assert_array_equal(V3, V)
    np.testing.assert_array_equal(f3, f)
    sig = B.section_forces(R, x, N, dN, eps0, D)
    assert sig.shape == (n_el, n, 6)
