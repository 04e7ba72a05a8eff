"""Compiled elastic forces and exact tangent stiffness of fully parameterized ANCF beam elements.

The formulas (F = Σ_k d_k ⊗ b_k, Green-Lagrange strain on the local axes, the energy
density W = λ/2 (tr E)² + μ tr(E²) + c Σ E_ii², the force ∫ P b_k dV0 and its exact
tangent, the strain split into parts) are those of the module docstring of
:mod:`flexmbd.beams.ancf_beam`, whose NumPy ``AncfElements.elastic_forces`` is the
reference (tests/test_kernels.py compares the two).  Here one loop over elements ×
quadrature points accumulates f and K without temporaries; the parts of the energy are
data: every point carries its own (λ, μ, c) (the strain split's volume and centre-line
points, or the plain form's volume points), points of weight zero are skipped (padding
of the plain form or of smaller section rules).  The tangent is accumulated
by 3 × 3 blocks (k, l ≥ k, mirrored) as Σ_ac b_k,a b_l,c T_ac, the 3 × 3 matrices T_ac of
one point holding the material and geometric terms; zero components of b (a straight
reference has many) are skipped.
Divisions follow NumPy's semantics (``error_model="numpy"``), as the cable kernel's.
"""
from __future__ import annotations

import numpy as np
from numba import njit


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
    FF = np.empty((3, 3))
    T = np.empty((3, 3, 3, 3))
    V = np.empty((8, 3, 3, 3))
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
            # the tangent's 3 × 3 blocks (k, l): Σ_ac b_k,a b_l,c T_ac with T_ac[i, m] = W [λ F_ia F_mc
            # + μ (δ_ac (F Fᵀ)_im + F_ic F_ma) + 2c δ_ac F_ia F_ma + δ_im S_ac] (the module
            # docstring's material and geometric terms); zero entries of b are skipped
            for i in range(3):
                for m in range(3):
                    FF[i, m] = F[i, 0] * F[m, 0] + F[i, 1] * F[m, 1] + F[i, 2] * F[m, 2]
            for a in range(3):
                for cc in range(3):
                    for i in range(3):
                        for m in range(3):
                            t = lam * F[i, a] * F[m, cc] + mu * F[i, cc] * F[m, a]
                            if a == cc:
                                t += mu * FF[i, m] + 2.0 * c * F[i, a] * F[m, a]
                            if i == m:
                                t += S[a, cc]
                            T[a, cc, i, m] = W * t
            for l in range(8):
                for a in range(3):
                    for i in range(3):
                        for m in range(3):
                            V[l, a, i, m] = 0.0
                    for cc in range(3):
                        blc = be[l, cc]
                        if blc == 0.0:
                            continue
                        for i in range(3):
                            for m in range(3):
                                V[l, a, i, m] += blc * T[a, cc, i, m]
            for k in range(8):
                for a in range(3):
                    bka = be[k, a]
                    if bka == 0.0:
                        continue
                    for l in range(k, 8):
                        for i in range(3):
                            for m in range(3):
                                Ke[3 * k + i, 3 * l + m] += bka * V[l, a, i, m]
        if jacobians:
            for p in range(24):
                for q in range(p + 1, 24):
                    Ke[q, p] = Ke[p, q]
        U[e] = u
