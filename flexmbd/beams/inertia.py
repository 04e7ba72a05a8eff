"""Inertia of beam elements on SE(3) nodes.

The velocity field is interpolated in the local frames, η(s) = Σ_k N_k(s) η_k, with η_k
the nodes' body-frame twists (exact for a straight element in rigid motion, where the
local twist varies linearly along the axis).  At every section the balance of momentum is
that of a rigid body on SE(3), M_s η̇ − ad(η)ᵀ M_s η (Sonneville et al. 2014, sec. 5), so

    F_k = Σ_g w_g N_k(s_g) [M_s η̇_g − ad(η_g)ᵀ M_s η_g],
    M_kl = Σ_g w_g N_k N_l M_s (constant),   ∂F_k/∂η_l = Σ_g w_g N_k N_l ∂g/∂η,
    ∂g/∂η = −ad(η)ᵀ M_s − [[0, p̃_U], [p̃_U, p̃_Ω]],   p = M_s η,

and ∂F/∂Δ = 0.  The power of the gyroscopic terms vanishes (η_gᵀ ad(η_g)ᵀ p_g = 0), so the
semi-discrete kinetic energy ½ Σ_g w_g η_gᵀ M_s η_g is conserved by them.
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..lie import se3_ad
from ..rotations import skew

if USE_KERNELS:
    from ..kernels import se3_beam as _kernel


def _shapes(N):
    """N as a contiguous (E or 1, G, n) array for the kernels."""
    N = np.asarray(N, dtype=float)
    return np.ascontiguousarray(N[None] if N.ndim == 2 else N)


def _gauss_values(N, X):
    """Σ_k N[g, k] X[e, k, :] for N (G, n) or (E, G, n) and X (E, n, 6) → (E, G, 6)."""
    return np.einsum("gk,eki->egi", N, X) if N.ndim == 2 else np.einsum("egk,eki->egi", N, X)


def inertia_forces(v, a, N, w, Ms, jacobians=True):
    """Inertia forces of beam elements.

    v, a (E, n, 6) node twists and their rates; N (G, n) or (E, G, n) shape values at the
    Gauss points; w (E, G) arc-length weights; Ms (E, 6, 6) section inertia per length.
    Returns F (E, 6n), D = ∂F/∂v (E, 6n, 6n), M (E, 6n, 6n) (None unless ``jacobians``).
    Compiled (:mod:`flexmbd.kernels.se3_beam`) when Numba is available.
    """
    E, n = v.shape[:2]
    if USE_KERNELS:
        m = 6 * n
        F = np.empty((E, m))
        D, M = (np.empty((E, m, m)), np.empty((E, m, m))) if jacobians else (np.empty((0, m, m)),) * 2
        c = np.ascontiguousarray
        _kernel.inertia_forces(c(v, dtype=float), c(a, dtype=float), _shapes(N), c(w, dtype=float),
                               c(Ms, dtype=float), jacobians, F, D, M)
        return (F, D, M) if jacobians else (F, None, None)
    eta, acc = _gauss_values(N, v), _gauss_values(N, a)
    p = np.einsum("eij,egj->egi", Ms, eta)
    adT = np.swapaxes(se3_ad(eta), -1, -2)
    g = np.einsum("egij,egj->egi", Ms[:, None], acc) - np.einsum("egij,egj->egi", adT, p)
    Ne = np.broadcast_to(N, (E,) + N.shape[-2:]) if N.ndim == 2 else N
    F = np.einsum("eg,egk,egi->eki", w, Ne, g).reshape(E, 6 * n)
    if not jacobians:
        return F, None, None
    dg = -np.einsum("egij,ejk->egik", adT, Ms)
    pU, pO = skew(p[..., :3]), skew(p[..., 3:])
    dg[..., :3, 3:] -= pU
    dg[..., 3:, :3] -= pU
    dg[..., 3:, 3:] -= pO
    NN = np.einsum("eg,egk,egl->egkl", w, Ne, Ne)
    D = np.einsum("egkl,egij->ekilj", NN, dg).reshape(E, 6 * n, 6 * n)
    M = np.einsum("egkl,eij->ekilj", NN, Ms).reshape(E, 6 * n, 6 * n)
    return F, D, M


def kinetic_energy(v, N, w, Ms):
    """½ Σ_g w_g η_gᵀ M_s η_g per element (E,)."""
    if USE_KERNELS:
        T = np.empty(len(v))
        c = np.ascontiguousarray
        _kernel.kinetic_energy(c(v, dtype=float), _shapes(N), c(w, dtype=float), c(Ms, dtype=float), T)
        return T
    eta = _gauss_values(N, v)
    return 0.5 * np.einsum("eg,egi,eij,egj->e", w, eta, Ms, eta)
