"""Branches of total rotation vectors for R³×R³ beams: shifts by 2πm along the axis.

The rotation vectors (θ + 2πm) n, m ∈ ℤ (θ = |ψ|, n = ψ/θ) all describe the rotation
exp(ψ̃).  Two tools keep the R³×R³ elements well defined when rotations grow large:

* ``shift_jet``: the map g(ψ) = ψ + 2πm ψ/|ψ| onto another branch, with its first,
  second and third derivatives (for the exact chain rule of forces, stiffness and
  inertia Jacobians when an element moves a node onto the branch of its other node);
* ``nearest_branch``: the integer m that brings ψ closest to a target vector;
* ``rescale_state``: the equivalent node state with |ψ| ≤ π (positions unchanged,
  ψ̇ and ψ̈ transformed by the chain rule so that the angular velocity and
  acceleration are unchanged).

Derivatives of n = ψ/θ, with P = I − n nᵀ (indices i: component, j, l, k: derivatives):

    ∂n_i/∂ψ_j         = P_ij/θ,
    ∂²n_i/∂ψ_j∂ψ_l     = −S_ijl/θ²,            S_ijl = n_l P_ij + n_j P_il + n_i P_jl,
    ∂³n_i/∂ψ_j∂ψ_l∂ψ_k = −(∂S_ijl/∂ψ_k)/θ² + 2 n_k S_ijl/θ³,

using ∂n_a/∂ψ_k = P_ak/θ and ∂P_ab/∂ψ_k = −(P_ak n_b + n_a P_bk)/θ.
"""
from __future__ import annotations

import numpy as np

TWO_PI = 2.0 * np.pi
#: below this |ψ| the axis is undefined; such vectors are never shifted
_TINY = 1e-8


def _unit(psi):
    th = np.linalg.norm(psi, axis=-1)
    safe = np.where(th > _TINY, th, 1.0)
    return th, safe, psi / safe[..., None]


def nearest_branch(psi, target):
    """m (…,) with (θ + 2πm) n closest to ``target`` (0 where |ψ| is tiny)."""
    psi = np.asarray(psi, dtype=float)
    th, _, n = _unit(psi)
    m = np.rint((np.einsum("...i,...i->...", n, np.asarray(target, dtype=float)) - th) / TWO_PI)
    return np.where(th > _TINY, m, 0.0)


def principal_branch(psi):
    """m (…,) with |θ + 2πm| ≤ π: the shift of ``beams.r3r3.rescale``."""
    th = np.linalg.norm(np.asarray(psi, dtype=float), axis=-1)
    return np.where(th > np.pi, -np.ceil((th - np.pi) / TWO_PI), 0.0)


def shift_jet(psi, m, order=3):
    """g(ψ) = ψ + 2πm n(ψ) and its derivatives up to ``order``.

    Returns (g (N,3), G1 (N,3,3), G2 (N,3,3,3), G3 (N,3,3,3,3)) with
    G1_ij = ∂g_i/∂ψ_j, G2_ijl = ∂²g_i/∂ψ_j∂ψ_l, G3_ijlk = ∂³g_i/∂ψ_j∂ψ_l∂ψ_k (entries
    beyond ``order`` are None).  Rows with m = 0 give g = ψ, G1 = I, G2 = G3 = 0.
    """
    psi = np.asarray(psi, dtype=float).reshape(-1, 3)
    m = np.broadcast_to(np.asarray(m, dtype=float), psi.shape[:1])
    c = TWO_PI * np.where(np.linalg.norm(psi, axis=1) > _TINY, m, 0.0)
    _, th, n = _unit(psi)
    eye = np.eye(3)
    P = eye - n[:, :, None] * n[:, None, :]
    g = psi + c[:, None] * n
    G1 = eye + (c / th)[:, None, None] * P
    if order < 2:
        return g, G1, None, None
    # S_ijl = n_l P_ij + n_j P_il + n_i P_jl
    S = (np.einsum("nl,nij->nijl", n, P) + np.einsum("nj,nil->nijl", n, P)
         + np.einsum("ni,njl->nijl", n, P))
    G2 = -(c / th**2)[:, None, None, None] * S
    if order < 3:
        return g, G1, G2, None
    dn = P / th[:, None, None]                                    # dn[a, k] = ∂n_a/∂ψ_k
    dP = -(np.einsum("nak,nb->nabk", dn, n) + np.einsum("na,nbk->nabk", n, dn))
    dS = (np.einsum("nlk,nij->nijlk", dn, P) + np.einsum("nl,nijk->nijlk", n, dP)
          + np.einsum("njk,nil->nijlk", dn, P) + np.einsum("nj,nilk->nijlk", n, dP)
          + np.einsum("nik,njl->nijlk", dn, P) + np.einsum("ni,njlk->nijlk", n, dP))
    d3n = -dS / th[:, None, None, None, None] ** 2 + 2.0 * np.einsum("nk,nijl->nijlk", n, S) / th[
        :, None, None, None, None] ** 3
    G3 = c[:, None, None, None, None] * d3n
    return g, G1, G2, G3


def rescale_state(psi, psid=None, psidds=()):
    """Node state with |ψ| ≤ π describing the same motion.

    ψ' = g(ψ), ψ̇' = G1 ψ̇ (same angular velocity T(ψ')ψ̇' = T(ψ)ψ̇), and for every
    acceleration-like vector a: a' = G1 a + G2[ψ̇, ψ̇] (same angular acceleration).
    Returns (ψ', ψ̇' or None, [a' …], changed (N,) bool).
    """
    psi = np.asarray(psi, dtype=float).reshape(-1, 3)
    m = principal_branch(psi)
    changed = m != 0
    if not np.any(changed):
        return psi, psid, list(psidds), changed
    g, G1, G2, _ = shift_jet(psi, m, order=2)
    out_v = None if psid is None else np.einsum("nij,nj->ni", G1, psid)
    out_a = []
    for a in psidds:
        quad = 0.0 if psid is None else np.einsum("nijl,nj,nl->ni", G2, psid, psid)
        out_a.append(np.einsum("nij,nj->ni", G1, a) + quad)
    return g, out_v, out_a, changed
