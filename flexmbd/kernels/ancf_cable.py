"""Compiled elastic forces and exact tangent stiffness of ANCF cable elements.

The formulas (energy, its gradient and Hessian in y = (r′, r″), the contraction with
the Hermite shape derivatives) are those of the module docstring of
:mod:`flexmbd.beams.ancf_cable`, whose NumPy ``elastic_forces`` is the reference
(tests/test_kernels.py compares the two); here one loop over elements × Gauss points
accumulates f and K without temporaries.  The element functions divide with NumPy's
semantics (``error_model="numpy"``: inf or nan, not an exception, at a degenerate state
such as r′ = 0 or κ = 0 on a curved reference), as the reference does under
``np.errstate``; the solvers then report a non-finite residual.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _slope(E, c, i):
    """Σ_k c_k E[k, i] (r′ or r″ from the element's 4 × 3 coordinate blocks)."""
    return c[0] * E[0, i] + c[1] * E[1, i] + c[2] * E[2, i] + c[3] * E[3, i]


@njit(cache=True, error_model="numpy")
def _axial(a, c0, EA, hessian, grad, H):
    """½ EA ε² per unit reference length, its gradient (3,) and (if ``hessian``) Hessian
    (3, 3) in a = r′."""
    na = np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    eps = na / c0 - 1.0
    s1 = EA * eps / c0
    s2 = EA / c0 ** 2
    s3 = EA * eps / (c0 * na)
    for i in range(3):
        ai = a[i] / na
        grad[i] = s1 * ai
        if not hessian:
            continue
        for j in range(3):
            P = ai * (a[j] / na)
            H[i, j] = s2 * P + s3 * ((1.0 if i == j else 0.0) - P)
    return 0.5 * EA * eps ** 2


@njit(cache=True, error_model="numpy")
def _bending(a, b, kappa0, EI, linear, hessian, grad, H):
    """½ EI (κ − κ₀)² (or ½ EI b·b with ``linear``), its gradient (6,) and (if ``hessian``)
    Hessian (6, 6) in y = (a, b) = (r′, r″); formulas in flexmbd/beams/ancf_cable.py's
    docstring."""
    bb = b[0] * b[0] + b[1] * b[1] + b[2] * b[2]
    if linear:
        for i in range(6):
            grad[i] = EI * b[i - 3] if i >= 3 else 0.0
            for j in range(6):
                H[i, j] = EI if (i == j and i >= 3) else 0.0
        return 0.5 * EI * bb
    m = a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
    ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    P = m * bb - ab ** 2
    dP = np.empty(6)
    dm = np.zeros(6)
    for i in range(3):
        dP[i] = 2 * bb * a[i] - 2 * ab * b[i]
        dP[3 + i] = 2 * m * b[i] - 2 * ab * a[i]
        dm[i] = 2 * a[i]
    m3, m4 = m ** 3, m ** 4
    g = P / m3
    curved = kappa0 > 0
    kap = np.sqrt(max(g, 0.0))
    ksafe = max(kap, 1e-300) if curved else 1.0
    dg = np.empty(6)
    for i in range(6):
        dg[i] = dP[i] / m3 - (3 * P / m4) * dm[i]
        dk = dg[i] / (2 * ksafe) if curved else 0.0
        grad[i] = 0.5 * EI * dg[i] - (EI * kappa0) * dk
    psi = 0.5 * EI * (g - 2 * kappa0 * kap + kappa0 ** 2)
    if not hessian:
        return psi
    m5 = m ** 5
    c12 = 12 * (P / m5)
    c3 = 3 * (P / m4)
    im3, im4 = 1.0 / m3, 1.0 / m4           # reciprocals: no divisions in the 6 × 6 loop
    i2k, i4k3 = 1.0 / (2 * ksafe), 1.0 / (4 * ksafe ** 3)
    for i in range(6):
        for j in range(6):
            # ∇²P (the blocks of the module docstring) and ∇²m = [[2I, 0], [0, 0]]
            d = 1.0 if (i % 3) == (j % 3) else 0.0
            if i < 3 and j < 3:
                ddP = 2 * bb * d - 2 * b[i] * b[j]
                ddm = 2.0 * d
            elif i < 3:
                ddP = 4 * a[i] * b[j - 3] - 2 * b[i] * a[j - 3] - 2 * ab * d
                ddm = 0.0
            elif j < 3:
                ddP = 4 * a[j] * b[i - 3] - 2 * b[j] * a[i - 3] - 2 * ab * d
                ddm = 0.0
            else:
                ddP = 2 * m * d - 2 * a[i - 3] * a[j - 3]
                ddm = 0.0
            ddg = (ddP * im3 - 3 * (dP[i] * dm[j] + dm[i] * dP[j]) * im4 + c12 * (dm[i] * dm[j])
                   - c3 * ddm)
            ddk = ddg * i2k - dg[i] * dg[j] * i4k3 if curved else 0.0
            H[i, j] = 0.5 * EI * ddg - (EI * kappa0) * ddk
    return psi


@njit(cache=True, error_model="numpy")
def elastic_forces(qe, cfg, dH_a, W_a, c0_a, dH_b, ddH_b, W_b, kappa0_b, EA, EI, linear, jacobians, f, K, U):
    """f = ∂U/∂e (n, 12), K = ∂²U/∂e² (n, 12, 12) (if ``jacobians``) and U (n,) of cable
    elements with coordinates qe[cfg] (n, 12); the arrays of ``CableElasticGroup.r``
    (flexmbd/beams/ancf_cable.py: shape derivatives, weights W = w L c₀, c₀, κ₀) and
    ``linear`` (n,) the small-strain bending form per element."""
    n = cfg.shape[0]
    ga, gb = dH_a.shape[1], dH_b.shape[1]
    E = np.empty((4, 3))
    a = np.empty(3)
    b = np.empty(3)
    g3 = np.empty(3)
    H3 = np.empty((3, 3))
    g6 = np.empty(6)
    H6 = np.empty((6, 6))
    X = np.empty((4, 3, 3))
    Y = np.empty((4, 3, 3))
    for e in range(n):
        for k in range(4):
            for i in range(3):
                E[k, i] = qe[cfg[e, 3 * k + i]]
        fe = f[e]
        fe[:] = 0.0
        if jacobians:
            Ke = K[e]
            Ke[:, :] = 0.0
        u = 0.0
        for gp in range(ga):
            c = dH_a[e, gp]
            for i in range(3):
                a[i] = _slope(E, c, i)
            W = W_a[e, gp]
            u += W * _axial(a, c0_a[e, gp], EA[e], jacobians, g3, H3)
            for k in range(4):
                for i in range(3):
                    fe[3 * k + i] += W * c[k] * g3[i]
            if jacobians:   # the blocks l ≥ k (K is symmetric; mirrored below)
                for k in range(4):
                    for l in range(k, 4):
                        w = W * c[k] * c[l]
                        for i in range(3):
                            for j in range(3):
                                Ke[3 * k + i, 3 * l + j] += w * H3[i, j]
        for gp in range(gb):
            c, cc = dH_b[e, gp], ddH_b[e, gp]
            for i in range(3):
                a[i] = _slope(E, c, i)
                b[i] = _slope(E, cc, i)
            W = W_b[e, gp]
            u += W * _bending(a, b, kappa0_b[e, gp], EI[e], linear[e] != 0, jacobians, g6, H6)
            for k in range(4):
                for i in range(3):
                    fe[3 * k + i] += W * (c[k] * g6[i] + cc[k] * g6[3 + i])
            if jacobians:
                # K_kl += W (c_l X_k + c̃_l Y_k), X_k = c_k H_aa + c̃_k H_ba, Y_k = c_k H_ab + c̃_k H_bb
                # (c = h′, c̃ = h″ at the point), blocks l ≥ k
                for k in range(4):
                    for i in range(3):
                        for j in range(3):
                            X[k, i, j] = W * (c[k] * H6[i, j] + cc[k] * H6[3 + i, j])
                            Y[k, i, j] = W * (c[k] * H6[i, 3 + j] + cc[k] * H6[3 + i, 3 + j])
                for k in range(4):
                    for l in range(k, 4):
                        for i in range(3):
                            for j in range(3):
                                Ke[3 * k + i, 3 * l + j] += c[l] * X[k, i, j] + cc[l] * Y[k, i, j]
        if jacobians:
            for k in range(4):
                for l in range(k + 1, 4):
                    for i in range(3):
                        for j in range(3):
                            Ke[3 * l + j, 3 * k + i] = Ke[3 * k + i, 3 * l + j]
        U[e] = u


@njit(cache=True)
def constant_mass(dof, M, ae, cM, matrix, vec, blk):
    """F = M a (constant mass matrices M (n, w, w)) into vec and c_M M into blk."""
    n, w = dof.shape
    V = vec.reshape((n, w))
    for e in range(n):
        for i in range(w):
            s = 0.0
            for j in range(w):
                s += M[e, i, j] * ae[dof[e, j]]
            V[e, i] = s
    if matrix:
        B = blk.reshape((n, w, w))
        for e in range(n):
            for i in range(w):
                for j in range(w):
                    B[e, i, j] = cM * M[e, i, j]


@njit(cache=True)
def constant_load(Q, scale, matrix, vec, blk):
    """A constant applied load Q (n, w): −scale Q into vec, a zero block."""
    n, w = Q.shape
    V = vec.reshape((n, w))
    for e in range(n):
        for i in range(w):
            V[e, i] = -scale * Q[e, i]
    if matrix:
        blk[:] = 0.0
