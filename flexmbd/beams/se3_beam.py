"""n-node geometrically exact beam element formulated on SE(3): vectorised kernel.

Formulation of Sonneville, Cardona & Brüls (2014) [SCB14] (2 nodes), extended to n
nodes by relative interpolation on SE(3):

* node k has the frame H_k = (R_k, x_k); increments are right-trivialised twists,
  H_k ← H_k exp(δh_k), δh_k = (δU, δΘ) in the node frame (translational part first);
* relative twists ξ_k = log(H_1⁻¹ H_k) (ξ_1 = 0), interpolation H(s) = H_1 exp(ξ(s)),
  ξ(s) = Σ_k N_k(s) ξ_k (for n = 2 and linear N_k, the interpolation of [SCB14]);
* strain ε = H⁻¹ H′ = T_SE3(ξ) ξ′, ξ′ = Σ_k N_k′ ξ_k (right-trivialised derivative of
  exp, ``lie.se3_T``; [SCB14] for n = 2, where it reduces to ξ_2/L),
  deformation e = ε − ε₀, section forces σ = D e, energy V = Σ_g w_g ½ eᵀ D e;
* variations: from exp(−δh_1) exp(ξ_k) exp(δh_k) = exp(ξ_k + δξ_k) to first order and
  T(ξ)⁻¹ Ad(exp(−ξ)) = T(−ξ)⁻¹ (since T(−ξ) = exp(ad ξ) T(ξ)),
      δξ_k = T(ξ_k)⁻¹ δh_k − T(−ξ_k)⁻¹ δh_1      (k ≥ 2),
  and δε = ∂(T(ξ) a)/∂ξ|_{a=ξ′} δξ + T(ξ) δξ′ (``lie.se3_dT``).

Internal forces f = ∂V/∂(δh) = Qᵀ g with g_k = ∂V/∂ξ_k = Σ_g w_g B_kᵀ σ,
B_k = N_k ∂(T a)/∂ξ + N_k′ T, and Q the map δh ↦ δξ above.  The tangent stiffness is the
exact derivative of f along the increments:
    K = Qᵀ (Σ_g w_g [Bᵀ D B + G_g]) Q + L,
    G_g,kl = N_k N_l Σ_i σ_i ∂²(T a)_i/∂ξ² + N_k N_l′ M + N_k′ N_l Mᵀ,
             M = (∂(T(ξ)ᵀ σ)/∂ξ)ᵀ,  a = ξ′   (``lie.se3_ddT``, ``lie.se3_dT``),
    L: rows of node k: ∂(T⁻ᵀ(ξ_k) g_k)/∂ξ Q_k, rows of node 1:
       ∂(T⁻ᵀ(η) g_k)/∂η|_{η=−ξ_k} Q_k  (``lie.se3_dTinv``; second derivative of the log).
K is not symmetric away from equilibrium (derivative along right-trivialised increments).

``elastic_forces`` takes the nodes' configurations (positions and Euler parameters) and
runs the compiled kernel (:func:`flexmbd.kernels.se3_beam.n_node_forces`) when Numba is
available; ``internal_forces`` is the NumPy reference it is tested against.

Shape functions are supplied by the caller: values N (n_gauss, n_nodes) or
(n_el, n_gauss, n_nodes), arc-length derivatives dN (n_el, n_gauss, n_nodes) and
arc-length weights w (n_el, n_gauss).  Section ordering: axial, shear 2, shear 3,
torsion, bending 2, bending 3 (= twist ordering (U, Ω)).
"""
from __future__ import annotations

import numpy as np

from .. import lie
from ..kernels import AVAILABLE as USE_KERNELS
from ..rotations import rotation_matrix

if USE_KERNELS:
    from ..kernels import se3_beam as _kernel

__all__ = ["elastic_forces", "internal_forces", "reference_strains", "relative_twists", "section_forces",
           "section_velocity_map", "twist_variation_map"]


def relative_twists(R, x):
    """ξ_k = log(H_1⁻¹ H_k) (n_el, n_nodes, 6); ξ_1 = 0 exactly."""
    R = np.asarray(R, dtype=float)
    x = np.asarray(x, dtype=float)
    R1t = np.swapaxes(R[:, :1], -1, -2)
    Rrel = R1t @ R
    xrel = np.einsum("enij,enj->eni", R1t, x - x[:, :1])
    xi = lie.se3_log(lie.se3_from_Rx(Rrel, xrel))
    xi[:, 0] = 0.0
    return xi


def twist_variation_map(xi):
    """Q (n_el, n, 6, 6n): δξ_k = Q_k δh for the node increments δh = (δh_1, …, δh_n),
    δξ_k = T⁻¹(ξ_k) δh_k − T⁻¹(−ξ_k) δh_1 (k ≥ 2), Q_1 = 0 (module docstring)."""
    n_el, n = xi.shape[:2]
    Ti_p = lie.se3_Tinv(xi[:, 1:])
    Ti_m = lie.se3_Tinv(-xi[:, 1:])
    Q = np.zeros((n_el, n, 6, 6 * n))
    for k in range(1, n):
        Q[:, k, :, 6 * k:6 * k + 6] = Ti_p[:, k - 1]
        Q[:, k, :, :6] = -Ti_m[:, k - 1]
    return Q


def section_velocity_map(R, x, N):
    """P (n_el, n_points, 6, 6n): the twist of the section at the points with shape values
    N (n_points, n) or (n_el, n_points, n), η(s) = P(s) (η_1, …, η_n), for the interpolation
    H(s) = H_1 exp(ξ(s)), ξ(s) = Σ_k N_k(s) ξ_k, of node frames (R, x) (n_el, n, …).

    Varying H_k ← H_k exp(δh_k) in exp(−ξ) exp(δh_1) exp(ξ + δξ) = exp(δh(s)) gives, to
    first order, the section increment (equally its body-frame twist, δh → η dt)

        δh(s) = Ad(exp(−ξ(s))) δh_1 + T_SE3(ξ(s)) Σ_k N_k(s) δξ_k,

    δξ_k from :func:`twist_variation_map` — the variation the strain ε = T(ξ) ξ′ is built
    on, so a mass built with P is the Bubnov-Galerkin mass of the same interpolation
    (test functions = variations of the trial functions; contrast the interpolated
    velocities Σ N_k η_k, a Petrov-Galerkin choice: Eugster & Harsch, "A family of total
    Lagrangian Petrov-Galerkin Cosserat rod finite element formulations", 2023,
    arXiv:2304.05036).  Exact for rigid motions of the element, H_k(t) = G(t) H_k.
    """
    R = np.asarray(R, dtype=float)
    x = np.asarray(x, dtype=float)
    xi = relative_twists(R, x)
    n_el, n = xi.shape[:2]
    N = np.broadcast_to(np.asarray(N, dtype=float), (n_el,) + np.shape(N)[-2:])
    xi_s = np.einsum("egk,eki->egi", N, xi)
    T = lie.se3_T(xi_s)
    P = np.einsum("egij,egk,ekjb->egib", T, N, twist_variation_map(xi), optimize=True)
    P[..., :6] += lie.se3_Ad(lie.se3_exp(-xi_s))
    return P


def _gauss_fields(xi, N, dN):
    """ξ and ξ′ at the Gauss points (n_el, n_gauss, 6) and N broadcast to dN's shape."""
    dN = np.asarray(dN, dtype=float)
    N = np.broadcast_to(np.asarray(N, dtype=float), dN.shape)
    return np.einsum("egk,eki->egi", N, xi), np.einsum("egk,eki->egi", dN, xi), N, dN


def _strains(xi_g, dxi_g):
    T = lie.se3_T(xi_g)
    return T, np.einsum("...ij,...j->...i", T, dxi_g)


def reference_strains(R0, x0, N, dN):
    """ε₀ = T_SE3(ξ) ξ′ at the Gauss points of the reference configuration (n_el, n_gauss, 6)."""
    xi_g, dxi_g, _, _ = _gauss_fields(relative_twists(R0, x0), N, dN)
    return _strains(xi_g, dxi_g)[1]


def section_forces(R, x, N, dN, eps0, D):
    """σ = D (ε − ε₀) at the Gauss points (n_el, n_gauss, 6)."""
    xi_g, dxi_g, _, _ = _gauss_fields(relative_twists(R, x), N, dN)
    e = _strains(xi_g, dxi_g)[1] - eps0
    return np.einsum("eij,egj->egi", np.asarray(D, dtype=float), e)


def internal_forces(R, x, N, dN, w, eps0, D, jacobians=True):
    """Internal forces, tangent stiffness and strain energy of n-node SE(3) beam elements.

    Returns ``(f, K, energy)`` with f (n_el, 6n) = ∂V/∂(δh), K (n_el, 6n, 6n) = ∂f/∂(δh)
    at δh = 0 (``None`` if ``jacobians`` is false) and energy (n_el,).  Node increments
    δh = (δh_1, …, δh_n), each (δU, δΘ) in its node frame.  See the module docstring.
    """
    D = np.asarray(D, dtype=float)
    w = np.asarray(w, dtype=float)
    xi = relative_twists(R, x)
    n_el, n = xi.shape[:2]
    xi_g, dxi_g, N, dN = _gauss_fields(xi, N, dN)
    T, eps = _strains(xi_g, dxi_g)
    e = eps - eps0
    sig = np.einsum("eij,egj->egi", D, e)
    energy = 0.5 * np.einsum("eg,egi,egi->e", w, e, sig)

    A = lie.se3_dT(xi_g, dxi_g)  # ∂(T(ξ) a)/∂ξ at a = ξ′  (n_el, n_gauss, 6, 6)
    B = N[..., None, None] * A[:, :, None] + dN[..., None, None] * T[:, :, None]  # (e,g,k,6,6)
    g = np.einsum("eg,egkij,egi->ekj", w, B, sig, optimize=True)  # ∂V/∂ξ_k

    Q = twist_variation_map(xi)
    f = np.einsum("ekij,eki->ej", Q, g)
    if not jacobians:
        return f, None, energy

    # Hessian of V in Ξ = (ξ_1, …, ξ_n): material + geometric part of T_SE3
    S = np.einsum("egi,egijk->egjk", sig, lie.se3_ddT(xi_g, dxi_g))  # Σ σ_i ∂²(T a)_i/∂ξ²
    M = np.swapaxes(lie.se3_dT(xi_g, sig, transpose=True), -1, -2)  # ∂²(σᵀ T(ξ) a)/∂ξ∂a
    ng = B.shape[1]
    Bg = np.swapaxes(B, 2, 3).reshape(n_el, ng, 6, 6 * n)  # δε = Bg δΞ at each Gauss point
    Hm = (np.swapaxes(w[..., None, None] * Bg, -1, -2) @ (D[:, None] @ Bg)).sum(1)
    wNN = w[..., None, None] * N[..., :, None] * N[..., None, :]
    wNdN = w[..., None, None] * N[..., :, None] * dN[..., None, :]
    Hg = (np.einsum("egkl,egjm->ekjlm", wNN, S, optimize=True)
          + np.einsum("egkl,egjm->ekjlm", wNdN, M, optimize=True)
          + np.einsum("eglk,egmj->ekjlm", wNdN, M, optimize=True))
    H = Hm + Hg.reshape(n_el, 6 * n, 6 * n)
    Qf = Q.reshape(n_el, 6 * n, 6 * n)
    K = np.swapaxes(Qf, -1, -2) @ H @ Qf

    # derivative of Qᵀ with g held fixed (second derivative of the log map)
    Lp = lie.se3_dTinv(xi[:, 1:], g[:, 1:], transpose=True)  # ∂(T⁻ᵀ(ξ_k) g_k)/∂ξ_k
    Lm = lie.se3_dTinv(-xi[:, 1:], g[:, 1:], transpose=True)  # ∂(T⁻ᵀ(η) g_k)/∂η, η = −ξ_k
    for k in range(1, n):
        K[:, 6 * k:6 * k + 6] += Lp[:, k - 1] @ Q[:, k]
        K[:, :6] += Lm[:, k - 1] @ Q[:, k]
    return f, K, energy


def elastic_forces(q, N, dN, w, eps0, D, jacobians=True):
    """``internal_forces`` for node configurations q (n_el, n_nodes, 7) = (x, Euler
    parameters): ``(f, K or None, energy)``.  Compiled when Numba is available."""
    q = np.asarray(q, dtype=float)
    if not USE_KERNELS:
        R = rotation_matrix(q[..., 3:].reshape(-1, 4)).reshape(q.shape[:2] + (3, 3))
        return internal_forces(R, q[..., :3], N, dN, w, eps0, D, jacobians)
    E, n = q.shape[:2]
    c = np.ascontiguousarray
    N = np.asarray(N, dtype=float)
    f, V = np.empty((E, 6 * n)), np.empty(E)
    K = np.empty((E, 6 * n, 6 * n)) if jacobians else np.empty((0, 6 * n, 6 * n))
    _kernel.n_node_forces(c(q), c(N[None] if N.ndim == 2 else N), c(np.broadcast_to(dN, (E,) + np.shape(dN)[-2:]),
                          dtype=float), c(w, dtype=float), c(eps0, dtype=float), c(D, dtype=float), jacobians, f, K, V)
    return f, (K if jacobians else None), V
