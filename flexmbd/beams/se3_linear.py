"""The two-node geometrically exact beam on SE(3) (Sonneville, Cardona & Brüls 2014).

Nodes A and B are frames H_A, H_B; their increments are body-frame twists δh_A, δh_B
(H ← H exp(δh̃), :data:`~flexmbd.nodes.SE3`).  The element interpolates the
relative motion along a screw,

    H(s) = H_A exp((s/L) d̃),    d = log(H_A⁻¹ H_B),

so its strain ε = H⁻¹ H′ = d/L is constant along the element (Sonneville et al. 2014,
sec. 4): any Gauss rule integrates it exactly, and pure bending (constant curvature) is
represented exactly by a single element.  With the reference relative twist d₀,

    e = (d − d₀)/L,   σ = D e,   V = ½ L eᵀ D e.

Variations (right-trivialised tangent operator T of SE(3), ``flexmbd.lie``):

    δd = T⁻¹(d) δh_B − T⁻¹(−d) δh_A = P δh,     P = [−T⁻¹(−d), T⁻¹(d)]

(using T(d)⁻¹ Ad(exp(−d)) = T(−d)⁻¹), so the internal force f = ∂V/∂h and its exact
derivative along the increments are

    f = Pᵀ σ,   K = Pᵀ D P / L + [G(−d); G(d)] P,   G(x) = ∂(T⁻ᵀ(x) σ)/∂x,

the second term being the geometric stiffness.  Everything depends on H_A⁻¹ H_B only:
f, K and V are invariant under rigid motion of the element.
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..lie import (
    quat_conjugate,
    quat_multiply,
    quat_to_rotvec,
    se3_dTinv,
    se3_Tinv,
    so3_Tinv,
)
from ..rotations import rotation_matrix

if USE_KERNELS:
    from ..kernels import se3_beam as _kernel


def relative_twist(qa, qb):
    """d = log(H_A⁻¹ H_B) for node configurations q = [x (3), p (4)] (…, 7) → (…, 6)."""
    pa, pb = qa[..., 3:7], qb[..., 3:7]
    p_ab = quat_multiply(quat_conjugate(pa), pb)
    om = quat_to_rotvec(p_ab)
    Ra = rotation_matrix(pa.reshape(-1, 4)).reshape(pa.shape[:-1] + (3, 3))
    x_ab = np.einsum("...ji,...j->...i", Ra, qb[..., :3] - qa[..., :3])
    # U = T(Ω)⁻ᵀ x_AB  (se3_exp: x = T(Ω)ᵀ U)
    u = np.einsum("...ji,...j->...i", so3_Tinv(om), x_ab)
    return np.concatenate([u, om], axis=-1)


def elastic_forces(qa, qb, d0, length, D, jacobians=True):
    """Internal forces of n two-node elements.

    qa, qb (n, 7) node configurations; d0 (n, 6) reference relative twists; length (n,);
    D (n, 6, 6) section stiffness.  Returns f (n, 12) = ∂V/∂(δh_A, δh_B), K (n, 12, 12)
    = ∂f/∂(δh_A, δh_B) (None unless ``jacobians``), energy V (n,) and σ (n, 6).
    Compiled (:mod:`flexmbd.kernels.se3_beam`) when Numba is available; the NumPy code
    below is the reference.
    """
    if USE_KERNELS:
        return _elastic_forces_compiled(qa, qb, d0, length, D, jacobians)
    d = relative_twist(qa, qb)
    L = np.asarray(length, dtype=float)
    e = (d - d0) / L[:, None]
    sig = np.einsum("nij,nj->ni", D, e)
    Tin_m, Tin_p = se3_Tinv(-d), se3_Tinv(d)
    f = np.empty((len(d), 12))
    f[:, :6] = -np.einsum("nji,nj->ni", Tin_m, sig)
    f[:, 6:] = np.einsum("nji,nj->ni", Tin_p, sig)
    V = 0.5 * L * np.einsum("ni,ni->n", e, sig)
    if not jacobians:
        return f, None, V, sig
    P = np.concatenate([-Tin_m, Tin_p], axis=2)                       # (n, 6, 12)
    K = np.einsum("nki,nkl,nlj->nij", P, D, P) / L[:, None, None]
    K[:, :6] += np.einsum("nik,nkj->nij", se3_dTinv(-d, sig, transpose=True), P)
    K[:, 6:] += np.einsum("nik,nkj->nij", se3_dTinv(d, sig, transpose=True), P)
    return f, K, V, sig


def _elastic_forces_compiled(qa, qb, d0, length, D, jacobians):
    n = len(qa)
    c = np.ascontiguousarray
    f, V, sig = np.empty((n, 12)), np.empty(n), np.empty((n, 6))
    K = np.empty((n, 12, 12)) if jacobians else np.empty((0, 12, 12))
    L = np.asarray(length, dtype=float)
    _kernel.elastic_forces(c(qa, dtype=float), c(qb, dtype=float), c(d0, dtype=float),
                           c(L if L.shape == (n,) else np.broadcast_to(L, (n,))), c(D, dtype=float),
                           jacobians, f, K, V, sig)
    return f, (K if jacobians else None), V, sig
