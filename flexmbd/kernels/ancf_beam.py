"""Compiled elastic forces and exact tangent stiffness of fully parameterized ANCF beam elements.

The formulas (F = Σ_k d_k ⊗ b_k, Green-Lagrange strain on the local axes, the energy
density W = λ/2 (tr E)² + μ tr(E²) + c Σ E_ii², the force ∫ P b_k dV0 and its exact
tangent, the strain split into parts) are those of the module docstring of
:mod:`flexmbd.beams.ancf_beam`, whose NumPy ``AncfElements.elastic_forces`` is the
reference (tests/test_kernels.py compares the two).  Here one loop over elements ×
quadrature points accumulates f and K without temporaries; the parts of the energy are
data: every point carries its own (λ, μ, c) (the strain split's volume and centre-line
points, or the plain form's volume points), points of weight zero are skipped (padding
of the plain form or of smaller section rules).  The material part of the tangent is
written as Σ_r h_r g_rᵀ over the six strain components, g_r = ∂E_r/∂e and h_r the
weighted combination ∂²W/∂E_r∂E_s g_s, accumulated on the upper triangle and mirrored.
Divisions follow NumPy's semantics (``error_model="numpy"``), as the cable kernel's.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: the strain components (a, b) of the rows g_r: the diagonal, then (2,3), (1,3), (1,2)
_A = (0, 1, 2, 1, 0, 0)
_B = (0, 1, 2, 2, 2, 1)


@njit(cache=True, error_model="numpy")
def elastic_forces(qe, cfg, b, w, coef, jacobians, f, K, U):
    """f = ∂V/∂e (n, 24), K = ∂²V/∂e² (n, 24, 24) (if ``jacobians``) and V (n,) of ANCF
    beam elements with coordinates qe[cfg] (n, 24) (node by node: r, r_x, r_y, r_z);
    ``b`` (n, g, 8, 3) the vectors b_k = U⁻ᵀ ∂s_k/∂p at the points, ``w`` (n, g) the
    weights (with det J0), ``coef`` (n, g, 3) the (λ, μ, c) of each point's part."""
    n, ng = w.shape
    D = np.empty((8, 3))
    F = np.empty((3, 3))
    E = np.empty((3, 3))
    S = np.empty((3, 3))
    P = np.empty((3, 3))
    G = np.empty((6, 24))
    H = np.empty((6, 24))
    Sb = np.empty((8, 3))
    for e in range(n):
        for k in range(8):
            for i in range(3):
                D[k, i] = qe[cfg[e, 3 * k + i]]
        fe = f[e]
        fe[:] = 0.0
        if jacobians:
            Ke = K[e]
            Ke[:, :] = 0.0
        u = 0.0
        for gp in range(ng):
            W = w[e, gp]
            if W == 0.0:
                continue
            be = b[e, gp]
            lam, mu, c = coef[e, gp, 0], coef[e, gp, 1], coef[e, gp, 2]
            for i in range(3):
                for a in range(3):
                    s = 0.0
                    for k in range(8):
                        s += D[k, i] * be[k, a]
                    F[i, a] = s
            for a in range(3):
                for bb in range(a, 3):
                    s = F[0, a] * F[0, bb] + F[1, a] * F[1, bb] + F[2, a] * F[2, bb]
                    E[a, bb] = 0.5 * (s - (1.0 if a == bb else 0.0))
                    E[bb, a] = E[a, bb]
            tr = E[0, 0] + E[1, 1] + E[2, 2]
            psi = 0.5 * lam * tr * tr + c * (E[0, 0] ** 2 + E[1, 1] ** 2 + E[2, 2] ** 2)
            for a in range(3):
                for bb in range(3):
                    psi += mu * E[a, bb] * E[a, bb]
                    S[a, bb] = 2.0 * mu * E[a, bb]
                S[a, a] += lam * tr + 2.0 * c * E[a, a]
            u += W * psi
            for i in range(3):
                for a in range(3):
                    P[i, a] = W * (F[i, 0] * S[0, a] + F[i, 1] * S[1, a] + F[i, 2] * S[2, a])
            for k in range(8):
                for i in range(3):
                    fe[3 * k + i] += P[i, 0] * be[k, 0] + P[i, 1] * be[k, 1] + P[i, 2] * be[k, 2]
            if not jacobians:
                continue
            # g_r = ∂E_ab/∂d_k,i = ½ (F_ia b_k,b + F_ib b_k,a); h_r = W ∂²W/∂E_r∂E_s g_s
            for k in range(8):
                for i in range(3):
                    p = 3 * k + i
                    for r in range(6):
                        a, bb = _A[r], _B[r]
                        G[r, p] = 0.5 * (F[i, a] * be[k, bb] + F[i, bb] * be[k, a])
                    t = G[0, p] + G[1, p] + G[2, p]
                    for r in range(3):
                        H[r, p] = W * (lam * t + 2.0 * (mu + c) * G[r, p])
                    for r in range(3, 6):
                        H[r, p] = W * 4.0 * mu * G[r, p]
            for p in range(24):
                h0, h1, h2, h3, h4, h5 = H[0, p], H[1, p], H[2, p], H[3, p], H[4, p], H[5, p]
                row = Ke[p]
                for q in range(p, 24):
                    row[q] += (h0 * G[0, q] + h1 * G[1, q] + h2 * G[2, q] + h3 * G[3, q] + h4 * G[4, q]
                               + h5 * G[5, q])
            # geometric part δ_im W b_kᵀ S b_l, blocks l ≥ k
            for l in range(8):
                for a in range(3):
                    Sb[l, a] = W * (S[a, 0] * be[l, 0] + S[a, 1] * be[l, 1] + S[a, 2] * be[l, 2])
            for k in range(8):
                for l in range(k, 8):
                    s = be[k, 0] * Sb[l, 0] + be[k, 1] * Sb[l, 1] + be[k, 2] * Sb[l, 2]
                    for i in range(3):
                        Ke[3 * k + i, 3 * l + i] += s
        if jacobians:
            for p in range(24):
                for q in range(p + 1, 24):
                    Ke[q, p] = Ke[p, q]
        U[e] = u
