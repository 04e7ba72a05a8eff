"""Compiled SE(3) beam kernels: the two-node element's internal forces and exact stiffness
(reference: :func:`flexmbd.beams.se3_linear.elastic_forces`) and the beam inertia
(reference: :func:`flexmbd.beams.inertia.inertia_forces`, ``kinetic_energy``)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lie import (
    coef_b,
    coef_c,
    coef_db,
    coef_dc,
    coef_ddb,
    coef_ddc,
    dTt,
    quat_to_rotvec,
    rotation_matrix,
    se3_Tinv,
    so3_Tinv,
)


@njit(cache=True)
def _relative_twist(qa, qb, d, A, W):
    """d = log(H_A⁻¹ H_B) = (U, Ω)  (``se3_linear.relative_twist``)."""
    a0, a1, a2, a3 = qa[3], -qa[4], -qa[5], -qa[6]           # conj(p_A)
    b0, b1, b2, b3 = qb[3], qb[4], qb[5], qb[6]
    p0 = a0 * b0 - (a1 * b1 + a2 * b2 + a3 * b3)
    p1 = a0 * b1 + b0 * a1 + (a2 * b3 - a3 * b2)
    p2 = a0 * b2 + b0 * a2 + (a3 * b1 - a1 * b3)
    p3 = a0 * b3 + b0 * a3 + (a1 * b2 - a2 * b1)
    quat_to_rotvec(p0, p1, p2, p3, d[3:6])
    rotation_matrix(qa[3:7], A)
    x0, x1, x2 = qb[0] - qa[0], qb[1] - qa[1], qb[2] - qa[2]
    so3_Tinv(d[3:6], W)
    for i in range(3):   # x_AB = Aᵀ (x_B − x_A),  U = T⁻ᵀ(Ω) x_AB
        xi = A[0, i] * x0 + A[1, i] * x1 + A[2, i] * x2
        for j in range(3):
            if i == 0:
                d[j] = 0.0
            d[j] += W[i, j] * xi


@njit(cache=True)
def _geometric(x, sig, Ti, z, dT, D1, D2U, W1, W2, G):
    """G = ∂(T_SE3⁻ᵀ(x) σ)/∂x = −T⁻ᵀ ∂(T_SE3ᵀ(x) z)/∂x at z = T⁻ᵀ σ (``lie.se3_dTinv``).

    ∂(T_SE3ᵀ z)/∂x = [[0, F′(z_U)], [F′(z_U), F′(z_Ω) + F″(z_U)·U]], F(w) = T(Ω)ᵀ w.
    Ti (6, 6) must hold T_SE3(x)⁻¹.
    """
    for i in range(6):
        s = 0.0
        for k in range(6):
            s += Ti[k, i] * sig[k]
        z[i] = s
    U = x[0:3]
    Om = x[3:6]
    th = math.sqrt(Om[0] * Om[0] + Om[1] * Om[1] + Om[2] * Om[2])
    b, c, db, dc = coef_b(th), coef_c(th), coef_db(th), coef_dc(th)
    ddb, ddc = coef_ddb(th), coef_ddc(th)
    dTt(Om, z[0:3], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            dT[i, j] = 0.0
            dT[i, j + 3] = D1[i, j]
            dT[i + 3, j] = D1[i, j]
            dT[i + 3, j + 3] = D2U[i, j]
    dTt(Om, z[3:6], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            dT[i + 3, j + 3] += D1[i, j]
    for i in range(6):
        for j in range(6):
            s = 0.0
            for k in range(6):
                s += Ti[k, i] * dT[k, j]
            G[i, j] = -s


@njit(cache=True)
def elastic_forces(qa, qb, d0, length, D, jacobians, f, K, V, sig_out):
    """Element loop of ``se3_linear.elastic_forces``: fills f (n, 12), K (n, 12, 12) (if
    ``jacobians``), V (n,) and σ (n, 6)."""
    n = qa.shape[0]
    d = np.empty(6)
    dm = np.empty(6)
    e = np.empty(6)
    A = np.empty((3, 3))
    W1 = np.empty((3, 3))
    W2 = np.empty((3, 3))
    Tp = np.empty((6, 6))
    Tm = np.empty((6, 6))
    P = np.empty((6, 12))
    DP = np.empty((6, 12))
    z = np.empty(6)
    dT = np.empty((6, 6))
    D1 = np.empty((3, 3))
    D2U = np.empty((3, 3))
    G = np.empty((6, 6))
    for el in range(n):
        L = length[el]
        _relative_twist(qa[el], qb[el], d, A, W1)
        sig = sig_out[el]
        for i in range(6):
            e[i] = (d[i] - d0[el, i]) / L
            dm[i] = -d[i]
        v = 0.0
        for i in range(6):
            s = 0.0
            for j in range(6):
                s += D[el, i, j] * e[j]
            sig[i] = s
            v += e[i] * s
        V[el] = 0.5 * L * v
        se3_Tinv(dm, Tm, W1, W2)
        se3_Tinv(d, Tp, W1, W2)
        for i in range(6):           # P = [−T⁻¹(−d), T⁻¹(d)]
            for j in range(6):
                P[i, j] = -Tm[i, j]
                P[i, j + 6] = Tp[i, j]
        for a in range(12):          # f = Pᵀ σ
            s = 0.0
            for k in range(6):
                s += P[k, a] * sig[k]
            f[el, a] = s
        if not jacobians:
            continue
        for i in range(6):
            for a in range(12):
                s = 0.0
                for k in range(6):
                    s += D[el, i, k] * P[k, a]
                DP[i, a] = s / L
        Kel = K[el]
        for a in range(12):
            for b in range(12):
                s = 0.0
                for k in range(6):
                    s += P[k, a] * DP[k, b]
                Kel[a, b] = s
        for half in range(2):
            if half == 0:
                _geometric(dm, sig, Tm, z, dT, D1, D2U, W1, W2, G)
            else:
                _geometric(d, sig, Tp, z, dT, D1, D2U, W1, W2, G)
            r0 = 6 * half
            for i in range(6):
                for b in range(12):
                    s = 0.0
                    for k in range(6):
                        s += G[i, k] * P[k, b]
                    Kel[r0 + i, b] += s


@njit(cache=True)
def inertia_forces(v, a, N, w, Ms, jacobians, F, D, M):
    """Element loop of ``inertia.inertia_forces``.  v, a (E, n, 6); N (E or 1, G, n);
    w (E, G); Ms (E, 6, 6).  Fills F (E, 6n) and, if ``jacobians``, D, M (E, 6n, 6n)."""
    E, n = v.shape[0], v.shape[1]
    ng = w.shape[1]
    eta = np.empty(6)
    acc = np.empty(6)
    p = np.empty(6)
    g = np.empty(6)
    dg = np.empty((6, 6))
    for el in range(E):
        Ne = N[el if N.shape[0] > 1 else 0]
        for a_ in range(6 * n):
            F[el, a_] = 0.0
            if jacobians:
                for b_ in range(6 * n):
                    D[el, a_, b_] = 0.0
                    M[el, a_, b_] = 0.0
        for gp in range(ng):
            for i in range(6):
                s = 0.0
                r = 0.0
                for k in range(n):
                    s += Ne[gp, k] * v[el, k, i]
                    r += Ne[gp, k] * a[el, k, i]
                eta[i] = s
                acc[i] = r
            for i in range(6):
                s = 0.0
                r = 0.0
                for j in range(6):
                    s += Ms[el, i, j] * eta[j]
                    r += Ms[el, i, j] * acc[j]
                p[i] = s
                g[i] = r
            # g = M_s η̇ − ad(η)ᵀ p,  ad(η)ᵀ p = (−Ω × p_U, −U × p_U − Ω × p_Ω)
            U0, U1, U2, O0, O1, O2 = eta[0], eta[1], eta[2], eta[3], eta[4], eta[5]
            g[0] += O1 * p[2] - O2 * p[1]
            g[1] += O2 * p[0] - O0 * p[2]
            g[2] += O0 * p[1] - O1 * p[0]
            g[3] += U1 * p[2] - U2 * p[1] + O1 * p[5] - O2 * p[4]
            g[4] += U2 * p[0] - U0 * p[2] + O2 * p[3] - O0 * p[5]
            g[5] += U0 * p[1] - U1 * p[0] + O0 * p[4] - O1 * p[3]
            wg = w[el, gp]
            for k in range(n):
                c = wg * Ne[gp, k]
                for i in range(6):
                    F[el, 6 * k + i] += c * g[i]
            if not jacobians:
                continue
            # dg = −ad(η)ᵀ M_s − [[0, p̃_U], [p̃_U, p̃_Ω]];  ad(η)ᵀ = [[−Ω̃, 0], [−Ũ, −Ω̃]]
            for j in range(6):
                m0, m1, m2 = Ms[el, 0, j], Ms[el, 1, j], Ms[el, 2, j]
                m3, m4, m5 = Ms[el, 3, j], Ms[el, 4, j], Ms[el, 5, j]
                dg[0, j] = O1 * m2 - O2 * m1
                dg[1, j] = O2 * m0 - O0 * m2
                dg[2, j] = O0 * m1 - O1 * m0
                dg[3, j] = U1 * m2 - U2 * m1 + O1 * m5 - O2 * m4
                dg[4, j] = U2 * m0 - U0 * m2 + O2 * m3 - O0 * m5
                dg[5, j] = U0 * m1 - U1 * m0 + O0 * m4 - O1 * m3
            for blk in range(3):    # subtract p̃_U at (0,1), (1,0) and p̃_Ω at (1,1)
                r0 = 0 if blk == 0 else 3
                c0 = 3 if blk != 1 else 0
                q0 = 3 if blk == 2 else 0
                x0, x1, x2 = p[q0], p[q0 + 1], p[q0 + 2]
                dg[r0 + 0, c0 + 1] += x2
                dg[r0 + 1, c0 + 0] -= x2
                dg[r0 + 0, c0 + 2] -= x1
                dg[r0 + 2, c0 + 0] += x1
                dg[r0 + 1, c0 + 2] += x0
                dg[r0 + 2, c0 + 1] -= x0
            for k in range(n):
                for l_ in range(n):
                    c = wg * Ne[gp, k] * Ne[gp, l_]
                    for i in range(6):
                        for j in range(6):
                            D[el, 6 * k + i, 6 * l_ + j] += c * dg[i, j]
                            M[el, 6 * k + i, 6 * l_ + j] += c * Ms[el, i, j]


@njit(cache=True)
def kinetic_energy(v, N, w, Ms, T):
    """½ Σ_g w_g η_gᵀ M_s η_g per element (``inertia.kinetic_energy``)."""
    E, n = v.shape[0], v.shape[1]
    ng = w.shape[1]
    eta = np.empty(6)
    for el in range(E):
        Ne = N[el if N.shape[0] > 1 else 0]
        t = 0.0
        for gp in range(ng):
            for i in range(6):
                s = 0.0
                for k in range(n):
                    s += Ne[gp, k] * v[el, k, i]
                eta[i] = s
            q = 0.0
            for i in range(6):
                for j in range(6):
                    q += eta[i] * Ms[el, i, j] * eta[j]
            t += w[el, gp] * q
        T[el] = 0.5 * t
