"""Compiled SE(3) beam kernels: the two-node element's internal forces and exact stiffness
(reference: :func:`flexmbd.beams.se3_linear.elastic_forces`), the n-node element's
(Lagrange of any order or NURBS; reference: :func:`flexmbd.beams.se3_beam.internal_forces`)
and the beam inertia (reference: :func:`flexmbd.beams.inertia.inertia_forces`,
``kinetic_energy``)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lie import (
    coefficients,
    coef_b,
    coef_c,
    coef_db,
    coef_dc,
    coef_ddb,
    coef_ddc,
    quat_to_rotvec,
    rotation_matrix,
    se3_dT,
    se3_dTt,
    se3_hessian,
    se3_T,
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
def _geometric(x, sig, Ti, z, dT, D1, D2U, k8, G):
    """G = ∂(T_SE3⁻ᵀ(x) σ)/∂x = −T⁻ᵀ ∂(T_SE3ᵀ(x) z)/∂x at z = T⁻ᵀ σ (``lie.se3_dTinv``).

    ∂(T_SE3ᵀ z)/∂x from ``lie.se3_dTt``.  Ti (6, 6) must hold T_SE3(x)⁻¹; dT (6, 6), D1,
    D2U (3, 3) and k8 (8,) are scratch.
    """
    for i in range(6):
        s = 0.0
        for k in range(6):
            s += Ti[k, i] * sig[k]
        z[i] = s
    th = math.sqrt(x[3] * x[3] + x[4] * x[4] + x[5] * x[5])
    k8[0], k8[1], k8[2], k8[3] = coef_b(th), coef_c(th), coef_db(th), coef_dc(th)
    k8[4], k8[5] = coef_ddb(th), coef_ddc(th)      # se3_dTt needs no third-order coefficients
    se3_dTt(x, z, k8, dT, D1, D2U)
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
    k8 = np.empty(8)
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
                _geometric(dm, sig, Tm, z, dT, D1, D2U, k8, G)
            else:
                _geometric(d, sig, Tp, z, dT, D1, D2U, k8, G)
            r0 = 6 * half
            for i in range(6):
                for b in range(12):
                    s = 0.0
                    for k in range(6):
                        s += G[i, k] * P[k, b]
                    Kel[r0 + i, b] += s


@njit(cache=True)
def inertia_forces(v, a, P, w, Ms, jacobians, with_mass, F, D, M):
    """Element loop of ``inertia.inertia_forces``.  v, a (E, n, 6); P (E or 1, G, 6, 6n) the
    velocity map η_g = P_g η_e at the Gauss points (zero entries skipped); w (E, G);
    Ms (E, 6, 6).  Fills F (E, 6n) and, if ``jacobians``, D = Σ w Pᵀ (∂g/∂η) P and, if
    ``with_mass`` (else M is left as given), M = Σ w Pᵀ M_s P (E, 6n, 6n)."""
    E, n = v.shape[0], v.shape[1]
    m = 6 * n
    ng = w.shape[1]
    eta = np.empty(6)
    acc = np.empty(6)
    p = np.empty(6)
    g = np.empty(6)
    dg = np.empty((6, 6))
    X = np.empty((6, m))
    Y = np.empty((6, m))
    for el in range(E):
        Pe = P[el if P.shape[0] > 1 else 0]
        for a_ in range(m):
            F[el, a_] = 0.0
            if jacobians:
                for b_ in range(m):
                    D[el, a_, b_] = 0.0
                    if with_mass:
                        M[el, a_, b_] = 0.0
        for gp in range(ng):
            for i in range(6):
                s = 0.0
                r = 0.0
                for k in range(n):
                    for j in range(6):
                        pij = Pe[gp, i, 6 * k + j]
                        if pij != 0.0:
                            s += pij * v[el, k, j]
                            r += pij * a[el, k, j]
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
            for i in range(6):
                c = wg * g[i]
                for a_ in range(m):
                    pia = Pe[gp, i, a_]
                    if pia != 0.0:
                        F[el, a_] += pia * c
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
            # X = w dg P, Y = w M_s P (6, 6n); D += Pᵀ X, M += Pᵀ Y
            for i in range(6):
                for b_ in range(m):
                    X[i, b_] = 0.0
                    Y[i, b_] = 0.0
            for j in range(6):
                for b_ in range(m):
                    pjb = Pe[gp, j, b_]
                    if pjb != 0.0:
                        for i in range(6):
                            X[i, b_] += dg[i, j] * pjb
                            if with_mass:
                                Y[i, b_] += Ms[el, i, j] * pjb
            for i in range(6):
                for a_ in range(m):
                    pia = Pe[gp, i, a_]
                    if pia != 0.0:
                        c = wg * pia
                        for b_ in range(m):
                            D[el, a_, b_] += c * X[i, b_]
                        if with_mass:
                            for b_ in range(m):
                                M[el, a_, b_] += c * Y[i, b_]


@njit(cache=True)
def kinetic_energy(v, P, w, Ms, T):
    """½ Σ_g w_g η_gᵀ M_s η_g per element, η_g = P_g η_e (``inertia.kinetic_energy``)."""
    E, n = v.shape[0], v.shape[1]
    ng = w.shape[1]
    eta = np.empty(6)
    for el in range(E):
        Pe = P[el if P.shape[0] > 1 else 0]
        t = 0.0
        for gp in range(ng):
            for i in range(6):
                s = 0.0
                for k in range(n):
                    for j in range(6):
                        pij = Pe[gp, i, 6 * k + j]
                        if pij != 0.0:
                            s += pij * v[el, k, j]
                eta[i] = s
            q = 0.0
            for i in range(6):
                for j in range(6):
                    q += eta[i] * Ms[el, i, j] * eta[j]
            t += w[el, gp] * q
        T[el] = 0.5 * t


@njit(cache=True)
def _times_Tinv(Y, Ti, c, out):
    """out += c · Y T⁻¹ for Y (6, 6) and T⁻¹ = [[A, B], [0, A]] (its zero block skipped)."""
    for i in range(6):
        y0, y1, y2, y3, y4, y5 = Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5]
        for j in range(3):
            out[i, j] += c * (y0 * Ti[0, j] + y1 * Ti[1, j] + y2 * Ti[2, j])
            out[i, j + 3] += c * (y0 * Ti[0, j + 3] + y1 * Ti[1, j + 3] + y2 * Ti[2, j + 3]
                                  + y3 * Ti[3, j + 3] + y4 * Ti[4, j + 3] + y5 * Ti[5, j + 3])


@njit(cache=True)
def _Tinv_t_times(Ti, Y, c, out):
    """out += c · T⁻ᵀ Y for Y (6, 6) and T⁻¹ = [[A, B], [0, A]] (its zero block skipped)."""
    for j in range(6):
        y0, y1, y2, y3, y4, y5 = Y[0, j], Y[1, j], Y[2, j], Y[3, j], Y[4, j], Y[5, j]
        for i in range(3):
            out[i, j] += c * (Ti[0, i] * y0 + Ti[1, i] * y1 + Ti[2, i] * y2)
            out[i + 3, j] += c * (Ti[0, i + 3] * y0 + Ti[1, i + 3] * y1 + Ti[2, i + 3] * y2
                                  + Ti[3, i + 3] * y3 + Ti[4, i + 3] * y4 + Ti[5, i + 3] * y5)


@njit(cache=True)
def n_node_forces(q, N, dN, w, eps0, D, jacobians, f, K, V):
    """Element loop of ``se3_beam.internal_forces`` for node configurations q (E, n, 7)
    (positions, Euler parameters); N (E or 1, G, n), dN (E, G, n), w (E, G), eps0 (E, G, 6),
    D (E, 6, 6).  Fills f (E, 6n), K (E, 6n, 6n) (if ``jacobians``) and V (E,).

    Per Gauss point (x = Σ N_k ξ_k, a = Σ N_k′ ξ_k): ε = T(x) a, σ = D (ε − ε₀),
    B_k = N_k ∂(T a)/∂x + N_k′ T, g_k = Σ w Bₖᵀ σ, H_kl = Σ w (B_kᵀ D B_l + N_k N_l S
    + N_k N_l′ M + N_k′ N_l Mᵀ) with S = ∂²(σᵀ T a)/∂x², M = (∂(Tᵀ σ)/∂x)ᵀ; then
    f = Qᵀ g and K = Qᵀ H Q + L with the block-sparse Q (δξ_k = T⁻¹(ξ_k) δh_k − T⁻¹(−ξ_k) δh_1)
    and L from ∂(T⁻ᵀ(±ξ_k) g_k)/∂ξ (``_geometric``).  Node 1's ξ is zero, so only the
    blocks k, l ≥ 2 of g and H are formed.
    """
    E, n = q.shape[0], q.shape[1]
    ng = w.shape[1]
    xi = np.zeros((n, 6))
    Tp = np.empty((n, 6, 6))
    Tm = np.empty((n, 6, 6))
    g = np.empty((n, 6))
    H = np.empty((n, n, 6, 6))
    HQ = np.empty((n, n, 6, 6))
    B = np.empty((n, 6, 6))
    DB = np.empty((n, 6, 6))
    x = np.empty(6)
    a = np.empty(6)
    e = np.empty(6)
    sig = np.empty(6)
    neg = np.empty(6)
    k8 = np.empty(8)
    T = np.empty((6, 6))
    A = np.empty((6, 6))
    S = np.empty((6, 6))
    J = np.empty((6, 6))
    G = np.empty((6, 6))
    dT = np.empty((6, 6))
    R3 = np.empty((3, 3))
    W1 = np.empty((3, 3))
    W2 = np.empty((3, 3))
    z = np.empty(6)
    for el in range(E):
        Ne = N[el if N.shape[0] > 1 else 0]
        for k in range(1, n):
            _relative_twist(q[el, 0], q[el, k], xi[k], R3, W1)
            for i in range(6):
                neg[i] = -xi[k, i]
            se3_Tinv(xi[k], Tp[k], W1, W2)
            se3_Tinv(neg, Tm[k], W1, W2)
        g[:, :] = 0.0
        if jacobians:
            H[:, :, :, :] = 0.0
        v = 0.0
        for gp in range(ng):
            for i in range(6):
                s = 0.0
                r = 0.0
                for k in range(1, n):
                    s += Ne[gp, k] * xi[k, i]
                    r += dN[el, gp, k] * xi[k, i]
                x[i] = s
                a[i] = r
            se3_T(x, T)
            for i in range(6):
                s = 0.0
                for j in range(6):
                    s += T[i, j] * a[j]
                e[i] = s - eps0[el, gp, i]
            wg = w[el, gp]
            for i in range(6):
                s = 0.0
                for j in range(6):
                    s += D[el, i, j] * e[j]
                sig[i] = s
                v += 0.5 * wg * e[i] * s
            coefficients(math.sqrt(x[3] * x[3] + x[4] * x[4] + x[5] * x[5]), k8)
            se3_dT(x, a, k8, A, W1, W2)
            for k in range(1, n):
                nk, dk = Ne[gp, k], dN[el, gp, k]
                for i in range(6):
                    for j in range(6):
                        B[k, i, j] = nk * A[i, j] + dk * T[i, j]
                for j in range(6):
                    s = 0.0
                    for i in range(6):
                        s += B[k, i, j] * sig[i]
                    g[k, j] += wg * s
            if not jacobians:
                continue
            se3_hessian(x, a, sig, k8, S, W1, W2)
            se3_dTt(x, sig, k8, J, W1, W2)      # M = Jᵀ
            for k in range(1, n):
                for i in range(6):
                    for j in range(6):
                        s = 0.0
                        for m in range(6):
                            s += D[el, i, m] * B[k, m, j]
                        DB[k, i, j] = wg * s
            for k in range(1, n):
                nk, dk = Ne[gp, k], dN[el, gp, k]
                for l_ in range(k, n):         # Bₖᵀ D B_l = (B_lᵀ D Bₖ)ᵀ: each pair once
                    nl, dl = Ne[gp, l_], dN[el, gp, l_]
                    cs, c1, c2 = wg * nk * nl, wg * nk * dl, wg * dk * nl
                    Hkl = H[k, l_]
                    Hlk = H[l_, k]
                    for i in range(6):
                        for j in range(6):
                            s = 0.0
                            for m in range(6):
                                s += B[k, m, i] * DB[l_, m, j]
                            Hkl[i, j] += s + cs * S[i, j] + c1 * J[j, i] + c2 * J[i, j]
                            if l_ > k:
                                Hlk[j, i] += s + cs * S[j, i] + c2 * J[i, j] + c1 * J[j, i]
        V[el] = v
        # f = Qᵀ g: f_1 = −Σ_k T⁻ᵀ(−ξ_k) g_k, f_k = T⁻ᵀ(ξ_k) g_k
        fe = f[el]
        for i in range(6):
            fe[i] = 0.0
        for k in range(1, n):
            for j in range(6):
                sp = 0.0
                sm = 0.0
                for i in range(6):
                    sp += Tp[k, i, j] * g[k, i]
                    sm += Tm[k, i, j] * g[k, i]
                fe[6 * k + j] = sp
                fe[j] -= sm
        if not jacobians:
            continue
        # HQ[k, b] = Σ_l H[k, l] Q[l, b]:  b ≥ 2: H[k, b] T⁻¹(ξ_b);  b = 1: −Σ_l H[k, l] T⁻¹(−ξ_l)
        HQ[:, :, :, :] = 0.0
        for k in range(1, n):
            for l_ in range(1, n):
                _times_Tinv(H[k, l_], Tp[l_], 1.0, HQ[k, l_])
                _times_Tinv(H[k, l_], Tm[l_], -1.0, HQ[k, 0])
        # K[a, b] = Σ_k Q[k, a]ᵀ HQ[k, b], viewed as (n, 6, n, 6) blocks
        Ke = K[el]
        Ke[:, :] = 0.0
        for k in range(1, n):
            for b_ in range(n):
                _Tinv_t_times(Tp[k], HQ[k, b_], 1.0, Ke[6 * k:6 * k + 6, 6 * b_:6 * b_ + 6])
                _Tinv_t_times(Tm[k], HQ[k, b_], -1.0, Ke[0:6, 6 * b_:6 * b_ + 6])
        # L: the derivative of Qᵀ at fixed g (second derivative of the log map)
        for k in range(1, n):
            _geometric(xi[k], g[k], Tp[k], z, dT, W1, W2, k8, G)
            _times_Tinv(G, Tp[k], 1.0, Ke[6 * k:6 * k + 6, 6 * k:6 * k + 6])
            _times_Tinv(G, Tm[k], -1.0, Ke[6 * k:6 * k + 6, 0:6])
            for i in range(6):
                neg[i] = -xi[k, i]
            _geometric(neg, g[k], Tm[k], z, dT, W1, W2, k8, G)
            _times_Tinv(G, Tp[k], 1.0, Ke[0:6, 6 * k:6 * k + 6])
            _times_Tinv(G, Tm[k], -1.0, Ke[0:6, 0:6])
