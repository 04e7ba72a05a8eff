"""Compiled floating-frame bodies: modal beams and modal bodies from FE data with Euler
parameters (the NumPy reference: :mod:`flexmbd.bodies.modal_beam` and
:mod:`flexmbd.nodes.modal`, whose docstrings derive every formula used here).

A body's coordinates are q = [R (3), p (4), η (n)]; its material points move as
r = R + Σ_l x_l a_l(p) with x = P(ū) ê(η), ê = [1, η, (η_i η_j)_pairs] and a_l = C_l[p, p]
the columns of A(p).  The inertia is F = Σ_cd W_cd J_cᵀ ρ̈_d over the channels
c = 0 (ρ₀ = R) and c = (l, a) (ρ = ê_a a_l).  Instead of forming every channel Jacobian
J_c (3 × nv) and multiplying by W (nc × nc) — O(nc² nv) — the kernels use the channels'
structure: J_(l,a) = [0, ê_a ∂a_l/∂p, a_l ⊗ ∂ê_a/∂η], and likewise for ∂ρ̈/∂q, ∂ρ̈/∂q'.
With J̃_d = Σ_c W_cd J_c (built from W contracted with ê and ∂ê/∂η),

    c_M M + c_K ∂F/∂q + c_D ∂F/∂q' = Σ_d J̃_dᵀ (c_M J_d + c_K ∂ρ̈_d/∂q + c_D ∂ρ̈_d/∂q')
                                      + c_K Σ_c ∂J_cᵀ/∂q G_c,      G_c = Σ_d W_cd ρ̈_d,

and the bracket of channel (l, b) is Σ_t s_t(b) D_t(l) on the attitude columns and
Σ_t u_t(l) ⊗ R_t(b) on the modal ones, so J̃ is contracted over b (or l) first.  Channels
whose inertia row is zero (``live``: the foreshortening moves points along the frame's x
axis only, so its l = 1, 2 channels carry no mass) are skipped.  Every kernel equals its
NumPy reference to rounding (tests/test_kernels.py).

Markers (joints, loads) are x = [R] + Σ_l x_l a_l with x = ū + P ê[1:] (points), the
anchored directions' P turning with the section (``ModalMarkers``); a rigid Euler-parameter
body is the case n = 0, so joints between rigid bodies and floating frames share the kernel.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import CHAT

#: C_L[l, i, j, k] = CHAT[i, j, k, l]: (A(p) x)_i = Σ_l x_l C_L[l, i, j, k] p_j p_k (symmetric in j, k)
C_L = np.ascontiguousarray(np.transpose(CHAT, (3, 0, 1, 2)))

ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3


# ------------------------------------------------------------------ frame and monomials
@njit(cache=True)
def _da(x, out):
    """out[l, i, j] = 2 Σ_k C_L[l, i, j, k] x_k: ∂a_l/∂p at p = x (linear in x)."""
    for l in range(3):
        for i in range(3):
            for j in range(4):
                s = 0.0
                for k in range(4):
                    s += C_L[l, i, j, k] * x[k]
                out[l, i, j] = 2.0 * s


@njit(cache=True)
def _frame(p, a, Dp):
    """The rotation's columns a[l] = A(p) e_l (3, 3) and their derivatives Dp (3, 3, 4)."""
    _da(p, Dp)
    for l in range(3):
        for i in range(3):
            s = 0.0
            for j in range(4):
                s += Dp[l, i, j] * p[j]
            a[l, i] = 0.5 * s


@njit(cache=True)
def _monomials(eta, etad, etadd, pairs, e, ed, edd):
    """ê = [1, η, (η_i η_j)] (na,) and its rates ê̇ = ∂ê/∂η η̇, ê̈ = ∂ê/∂η η̈ + ∂²ê[η̇, η̇].
    ∂ê/∂η is I on the η rows and (η_j e_i + η_i e_j) on pair (i, j)'s: the kernels use
    that structure instead of forming it."""
    n = eta.shape[0]
    e[0] = 1.0
    ed[0] = 0.0
    edd[0] = 0.0
    for k in range(n):
        e[1 + k] = eta[k]
        ed[1 + k] = etad[k]
        edd[1 + k] = etadd[k]
    for b in range(pairs.shape[0]):
        i, j = pairs[b, 0], pairs[b, 1]
        e[1 + n + b] = eta[i] * eta[j]
        ed[1 + n + b] = etad[i] * eta[j] + eta[i] * etad[j]
        edd[1 + n + b] = etadd[i] * eta[j] + eta[i] * etadd[j] + 2.0 * etad[i] * etad[j]


@njit(cache=True)
def _shape_row(x, eta, pairs, n, out):
    """out[k] = Σ_a x_a ∂ê_a/∂η_k for x over ê's entries (na,): x[1 + k] plus the pairs'."""
    for k in range(n):
        out[k] = x[1 + k]
    for b in range(pairs.shape[0]):
        i, j = pairs[b, 0], pairs[b, 1]
        out[i] += x[1 + n + b] * eta[j]
        out[j] += x[1 + n + b] * eta[i]


# ------------------------------------------------------------------ channel forces
@njit(cache=True)
def _channel_force(G, e, eta, pairs, a, Dp, n, na, live, F, h):
    """F (nv,) = Σ_c J_cᵀ G_c for channel vectors G (nc, 3); h (na,) scratch."""
    for i in range(3):
        F[i] = G[0, i]
    for k in range(4):
        F[3 + k] = 0.0
    g = np.zeros(3)
    h[:] = 0.0
    for l in range(3):
        g[:] = 0.0
        for b in range(na):
            c = 1 + l * na + b
            if live[c] == 0:
                continue
            for i in range(3):
                g[i] += e[b] * G[c, i]
            h[b] += a[l, 0] * G[c, 0] + a[l, 1] * G[c, 1] + a[l, 2] * G[c, 2]
        for k in range(4):
            F[3 + k] += Dp[l, 0, k] * g[0] + Dp[l, 1, k] * g[1] + Dp[l, 2, k] * g[2]
    _shape_row(h, eta, pairs, n, F[7:])


@njit(cache=True)
def _channel_geometric(G, e, eta, pairs, a, Dp, n, na, live, scale, B):
    """B += scale Σ_c ∂(J_cᵀ)/∂q G_c (the channels' second derivatives; G fixed)."""
    g = np.zeros(3)
    u = np.zeros((n, 3))
    for l in range(3):
        g[:] = 0.0
        for b in range(na):
            c = 1 + l * na + b
            if live[c] == 0:
                continue
            for i in range(3):
                g[i] += e[b] * G[c, i]
        for j in range(4):
            for k in range(4):
                s = 0.0
                for i in range(3):
                    s += g[i] * C_L[l, i, j, k]
                B[3 + j, 3 + k] += 2.0 * scale * s
        # u_k = Σ_a G_(l,a) ∂ê_a/∂η_k
        for k in range(n):
            c = 1 + l * na + 1 + k
            for i in range(3):
                u[k, i] = G[c, i] if live[c] != 0 else 0.0
        for b in range(pairs.shape[0]):
            c = 1 + l * na + 1 + n + b
            if live[c] == 0:
                continue
            i, j = pairs[b, 0], pairs[b, 1]
            for m in range(3):
                u[i, m] += G[c, m] * eta[j]
                u[j, m] += G[c, m] * eta[i]
        for k in range(n):
            for j in range(4):
                t = scale * (Dp[l, 0, j] * u[k, 0] + Dp[l, 1, j] * u[k, 1] + Dp[l, 2, j] * u[k, 2])
                B[3 + j, 7 + k] += t
                B[7 + k, 3 + j] += t
    for b in range(pairs.shape[0]):
        i, j = pairs[b, 0], pairs[b, 1]
        h = 0.0
        for l in range(3):
            c = 1 + l * na + 1 + n + b
            if live[c] != 0:
                h += a[l, 0] * G[c, 0] + a[l, 1] * G[c, 1] + a[l, 2] * G[c, 2]
        B[7 + i, 7 + j] += scale * h
        B[7 + j, 7 + i] += scale * h


# ------------------------------------------------------------------ inertia
@njit(cache=True)
def inertia(cfg, dof, W, pairs, live, qe, ve, ae, cM, cD, cK, matrix, F, B):
    """Modal inertia of N bodies (``ModalInertiaGroup``): F (N, nv) = Σ W_cd J_cᵀ ρ̈_d and,
    if ``matrix``, B (N, nv, nv) = c_M M + c_K ∂F/∂q + c_D ∂F/∂q' (module docstring)."""
    N, nv = cfg.shape
    n = nv - 7
    npair = pairs.shape[0]
    na = 1 + n + npair
    nc = 1 + 3 * na
    q, v, acc = np.empty(nv), np.empty(nv), np.empty(nv)
    a, ad, add = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    Dp, Dv, Da = np.empty((3, 3, 4)), np.empty((3, 3, 4)), np.empty((3, 3, 4))
    e, ed, edd = np.empty(na), np.empty(na), np.empty(na)
    rdd = np.empty((nc, 3))
    G = np.empty((nc, 3))
    Jt = np.zeros((nc, 3, nv))
    beta = np.empty(n)
    JP, JV, JA = np.empty((3, nv)), np.empty((3, nv)), np.empty((3, nv))
    za, zad, zadd = np.empty(nv), np.empty(nv), np.empty(nv)
    sP, sV, sA = np.empty(na), np.empty(na), np.empty(na)
    h = np.empty(na)
    for body in range(N):
        for k in range(nv):
            q[k] = qe[cfg[body, k]]
            v[k] = ve[dof[body, k]]
            acc[k] = ae[dof[body, k]]
        Wb = W[body]
        eta, etad, etadd = q[7:], v[7:], acc[7:]
        _frame(q[3:7], a, Dp)
        _da(v[3:7], Dv)
        _da(acc[3:7], Da)
        for l in range(3):
            for i in range(3):
                s1 = 0.0
                s2 = 0.0
                for j in range(4):
                    s1 += Dp[l, i, j] * v[3 + j]
                    s2 += Dv[l, i, j] * v[3 + j] + Dp[l, i, j] * acc[3 + j]
                ad[l, i] = s1
                add[l, i] = s2
        _monomials(eta, etad, etadd, pairs, e, ed, edd)
        # channel accelerations and G_c = Σ_d W_cd ρ̈_d
        for i in range(3):
            rdd[0, i] = acc[i]
        for l in range(3):
            for b in range(na):
                c = 1 + l * na + b
                for i in range(3):
                    rdd[c, i] = edd[b] * a[l, i] + 2.0 * ed[b] * ad[l, i] + e[b] * add[l, i]
        for c in range(nc):
            if live[c] == 0:
                G[c, 0] = G[c, 1] = G[c, 2] = 0.0
                continue
            g0 = g1 = g2 = 0.0
            for d in range(nc):
                w = Wb[c, d]
                g0 += w * rdd[d, 0]
                g1 += w * rdd[d, 1]
                g2 += w * rdd[d, 2]
            G[c, 0], G[c, 1], G[c, 2] = g0, g1, g2
        _channel_force(G, e, eta, pairs, a, Dp, n, na, live, F[body], h)
        if not matrix:
            continue
        Bb = B[body]
        Bb[:, :] = 0.0
        # J̃_d = Σ_c W_cd J_c: [W_0d I, Σ_l α_dl ∂a_l/∂p, Σ_l a_l ⊗ β_dl] (W symmetric)
        for d in range(nc):
            if live[d] == 0:
                continue
            Jd = Jt[d]
            Wd = Wb[d]
            Jd[:, :] = 0.0
            for i in range(3):
                Jd[i, i] = Wd[0]
            for l in range(3):
                alpha = 0.0
                for b in range(na):
                    alpha += Wd[1 + l * na + b] * e[b]
                _shape_row(Wd[1 + l * na:1 + (l + 1) * na], eta, pairs, n, beta)
                for i in range(3):
                    for k in range(4):
                        Jd[i, 3 + k] += alpha * Dp[l, i, k]
                    for k in range(n):
                        Jd[i, 7 + k] += a[l, i] * beta[k]
        # channel 0: c_M J̃_0ᵀ [I, 0, 0]
        if live[0] != 0:
            for r in range(nv):
                for i in range(3):
                    Bb[r, i] += cM * Jt[0, i, r]
        # attitude columns: Σ_l Σ_b J̃_(l,b)ᵀ (sP_b ∂a_l/∂p|p + sV_b ∂a_l/∂p|ṗ + sA_b ∂a_l/∂p|p̈)
        for b in range(na):
            sP[b] = cM * e[b] + cK * edd[b] + 2.0 * cD * ed[b]
            sV[b] = 2.0 * cK * ed[b] + 2.0 * cD * e[b]
            sA[b] = cK * e[b]
        for l in range(3):
            JP[:, :] = 0.0
            JV[:, :] = 0.0
            JA[:, :] = 0.0
            for b in range(na):
                c = 1 + l * na + b
                if live[c] == 0:
                    continue
                for i in range(3):
                    for r in range(nv):
                        x = Jt[c, i, r]
                        JP[i, r] += sP[b] * x
                        JV[i, r] += sV[b] * x
                        JA[i, r] += sA[b] * x
            for r in range(nv):
                for k in range(4):
                    s = 0.0
                    for i in range(3):
                        s += JP[i, r] * Dp[l, i, k] + JV[i, r] * Dv[l, i, k] + JA[i, r] * Da[l, i, k]
                    Bb[r, 3 + k] += s
        # modal columns: Σ_b (z^a_b R1_b + z^ȧ_b R2_b + z^ä_b R3_b), z^u_b = Σ_l J̃_(l,b)ᵀ u_l,
        # R1 = c_M ∂ê/∂η + c_K ∂ê̈/∂η + 2 c_D ∂ê̇/∂η, R2 = 2 c_K ∂ê̇/∂η + 2 c_D ∂ê/∂η, R3 = c_K ∂ê/∂η
        for b in range(1, na):
            za[:] = 0.0
            zad[:] = 0.0
            zadd[:] = 0.0
            for l in range(3):
                c = 1 + l * na + b
                if live[c] == 0:
                    continue
                for r in range(nv):
                    x0, x1, x2 = Jt[c, 0, r], Jt[c, 1, r], Jt[c, 2, r]
                    za[r] += x0 * a[l, 0] + x1 * a[l, 1] + x2 * a[l, 2]
                    zad[r] += x0 * ad[l, 0] + x1 * ad[l, 1] + x2 * ad[l, 2]
                    zadd[r] += x0 * add[l, 0] + x1 * add[l, 1] + x2 * add[l, 2]
            if b <= n:
                r1, r2, r3 = cM, 2.0 * cD, cK
                for r in range(nv):
                    Bb[r, 6 + b] += za[r] * r1 + zad[r] * r2 + zadd[r] * r3
                continue
            i, j = pairs[b - 1 - n, 0], pairs[b - 1 - n, 1]
            for col, o in ((i, j), (j, i)):   # ∂ê_b/∂η_col = η_o, ∂ê̇_b/∂η_col = η̇_o, ∂ê̈_b/∂η_col = η̈_o
                r1 = cM * eta[o] + cK * etadd[o] + 2.0 * cD * etad[o]
                r2 = 2.0 * cK * etad[o] + 2.0 * cD * eta[o]
                r3 = cK * eta[o]
                for r in range(nv):
                    Bb[r, 7 + col] += za[r] * r1 + zad[r] * r2 + zadd[r] * r3
        if cK != 0.0:
            _channel_geometric(G, e, eta, pairs, a, Dp, n, na, live, cK, Bb)


# ------------------------------------------------------------------ weight
@njit(cache=True)
def weight(cfg, S, g, pairs, live, qe, scale, cK, matrix, vec, blk):
    """The distributed weight (``ModalWeightGroup``): Q = Σ_c J_cᵀ S_c g; −scale Q into vec
    and −c_K scale ∂Q/∂q into blk."""
    N, nv = cfg.shape
    n = nv - 7
    na = 1 + n + pairs.shape[0]
    nc = 1 + 3 * na
    V = vec.reshape((N, nv))
    q = np.empty(nv)
    a, Dp = np.empty((3, 3)), np.empty((3, 3, 4))
    e, ed, edd, h = np.empty(na), np.empty(na), np.empty(na), np.empty(na)
    zero = np.zeros(n)
    G = np.empty((nc, 3))
    Q = np.empty(nv)
    for body in range(N):
        for k in range(nv):
            q[k] = qe[cfg[body, k]]
        _frame(q[3:7], a, Dp)
        _monomials(q[7:], zero, zero, pairs, e, ed, edd)
        for c in range(nc):
            for i in range(3):
                G[c, i] = S[body, c] * g[i]
        _channel_force(G, e, q[7:], pairs, a, Dp, n, na, live, Q, h)
        for k in range(nv):
            V[body, k] = -scale * Q[k]
        if matrix:
            Bb = blk.reshape((N, nv, nv))[body]
            Bb[:, :] = 0.0
            if cK != 0.0:
                _channel_geometric(G, e, q[7:], pairs, a, Dp, n, na, live, -cK * scale, Bb)


# ------------------------------------------------------------------ modal stiffness and damping
@njit(cache=True)
def _g_matrix(p, out):
    """Body-frame G(p) (3, 4): ω' = 2 G ṗ (flexmbd.rotations.G_matrix)."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3] = -e1, e0, e3, -e2
    out[1, 0], out[1, 1], out[1, 2], out[1, 3] = -e2, -e3, e0, e1
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = -e3, e2, -e1, e0


@njit(cache=True)
def elastic(cfg, dof, K, C, KG, s, qe, ve, cD, cK, matrix, vec, blk):
    """Q_η = −(K + s ω⊥² K_G) η − C η̇ (``ModalElasticGroup``; ω' = 2 G(p) ṗ, ω⊥² = ω'_y² + ω'_z²):
    −Q into vec, −c_K ∂Q/∂q − c_D ∂Q/∂q' into blk."""
    N, nv = cfg.shape
    n = nv - 7
    V = vec.reshape((N, nv))
    q, v = np.empty(nv), np.empty(nv)
    Gp, Gv = np.empty((3, 4)), np.empty((3, 4))
    w = np.empty(3)
    dp, dpd = np.empty(4), np.empty(4)
    KGe = np.empty(n)
    for body in range(N):
        for k in range(nv):
            q[k] = qe[cfg[body, k]]
            v[k] = ve[dof[body, k]]
        w2 = 0.0
        if s[body] != 0.0:
            _g_matrix(q[3:7], Gp)
            _g_matrix(v[3:7], Gv)
            for i in range(3):
                t = 0.0
                for j in range(4):
                    t += Gp[i, j] * v[3 + j]
                w[i] = 2.0 * t
            w2 = w[1] * w[1] + w[2] * w[2]
            for j in range(4):   # ∂ω⊥²/∂p = 2 ω'·(−2 G(ṗ)),  ∂ω⊥²/∂ṗ = 2 ω'·(2 G(p))
                dp[j] = -4.0 * (w[1] * Gv[1, j] + w[2] * Gv[2, j])
                dpd[j] = 4.0 * (w[1] * Gp[1, j] + w[2] * Gp[2, j])
        sw = s[body] * w2
        for k in range(7):
            V[body, k] = 0.0
        for i in range(n):
            t = 0.0
            kg = 0.0
            for j in range(n):
                t += K[body, i, j] * q[7 + j] + C[body, i, j] * v[7 + j]
                kg += KG[body, i, j] * q[7 + j]
            KGe[i] = kg
            V[body, 7 + i] = t + sw * kg
        if not matrix:
            continue
        Bb = blk.reshape((N, nv, nv))[body]
        Bb[:, :] = 0.0
        for i in range(n):
            for j in range(n):
                Bb[7 + i, 7 + j] = cK * (K[body, i, j] + sw * KG[body, i, j]) + cD * C[body, i, j]
            if s[body] != 0.0:
                for j in range(4):
                    Bb[7 + i, 3 + j] = s[body] * KGe[i] * (cK * dp[j] + cD * dpd[j])


# ------------------------------------------------------------------ normalisation
@njit(cache=True)
def normalization(cfg, qe, lam, hessian, phi, Jq, H):
    """p·p − 1 = 0 of floating frames (rows of width nv; p at columns 3..6)."""
    N, nv = cfg.shape
    for b in range(N):
        s = -1.0
        for a in range(nv):
            Jq[b, a] = 0.0
        for j in range(4):
            p = qe[cfg[b, 3 + j]]
            s += p * p
            Jq[b, 3 + j] = 2.0 * p
        phi[b] = s
        if hessian:
            for a in range(nv):
                for c in range(nv):
                    H[b, a, c] = 0.0
            for j in range(3, 7):
                H[b, j, j] = 2.0 * lam[b]


# ------------------------------------------------------------------ markers
@njit(cache=True)
def _marker(q, n, pairs, mtype, ur, u, P, x, J, a, Dp, xf, Se, jacobian):
    """x (3,) and, if ``jacobian``, J (3, 7 + n) of a marker on a floating frame with
    coordinates q; leaves a, Dp, xf, Se for :func:`_contract`.  P (3, ≥ n + pairs): the
    marker's point coefficients of ê[1:] (zero columns for directions that follow the frame):
    x_f = ū + P ê[1:], ∂x_f/∂η = P ∂ê[1:]/∂η."""
    if mtype == ZERO:
        for i in range(3):
            x[i] = 0.0
        return
    if mtype == CONSTANT:
        for i in range(3):
            x[i] = u[i]
        return
    _frame(q[3:7], a, Dp)
    for l in range(3):
        s = ur[l]
        for k in range(n):
            s += P[l, k] * q[7 + k]
            Se[l, k] = P[l, k]
        for b in range(pairs.shape[0]):
            i, j = pairs[b, 0], pairs[b, 1]
            c = P[l, n + b]
            s += c * q[7 + i] * q[7 + j]
            Se[l, i] += c * q[7 + j]
            Se[l, j] += c * q[7 + i]
        xf[l] = s
    for i in range(3):
        x[i] = xf[0] * a[0, i] + xf[1] * a[1, i] + xf[2] * a[2, i]
    if mtype == POINT:
        for i in range(3):
            x[i] += q[i]
    if not jacobian:
        return
    for i in range(3):
        for k in range(3):
            J[i, k] = 0.0
        if mtype == POINT:
            J[i, i] = 1.0
        for k in range(4):
            J[i, 3 + k] = xf[0] * Dp[0, i, k] + xf[1] * Dp[1, i, k] + xf[2] * Dp[2, i, k]
        for k in range(n):
            J[i, 7 + k] = a[0, i] * Se[0, k] + a[1, i] * Se[1, k] + a[2, i] * Se[2, k]


@njit(cache=True)
def _contract(n, pairs, mtype, P, g, a, Dp, xf, Se, H, off, c):
    """H[off:, off:] += c Σ_i g_i ∂²x_i/∂q² of the marker last evaluated by :func:`_marker`."""
    if mtype == ZERO or mtype == CONSTANT:
        return
    for l in range(3):
        for j in range(4):
            for k in range(4):
                s = 0.0
                for i in range(3):
                    s += g[i] * C_L[l, i, j, k]
                H[off + 3 + j, off + 3 + k] += 2.0 * c * xf[l] * s
    for j in range(4):
        gd0 = g[0] * Dp[0, 0, j] + g[1] * Dp[0, 1, j] + g[2] * Dp[0, 2, j]
        gd1 = g[0] * Dp[1, 0, j] + g[1] * Dp[1, 1, j] + g[2] * Dp[1, 2, j]
        gd2 = g[0] * Dp[2, 0, j] + g[1] * Dp[2, 1, j] + g[2] * Dp[2, 2, j]
        for k in range(n):
            t = c * (gd0 * Se[0, k] + gd1 * Se[1, k] + gd2 * Se[2, k])
            H[off + 3 + j, off + 7 + k] += t
            H[off + 7 + k, off + 3 + j] += t
    if pairs.shape[0]:
        h0 = g[0] * a[0, 0] + g[1] * a[0, 1] + g[2] * a[0, 2]
        h1 = g[0] * a[1, 0] + g[1] * a[1, 1] + g[2] * a[1, 2]
        h2 = g[0] * a[2, 0] + g[1] * a[2, 1] + g[2] * a[2, 2]
        for b in range(pairs.shape[0]):
            i, j = pairs[b, 0], pairs[b, 1]
            t = c * (h0 * P[0, n + b] + h1 * P[1, n + b] + h2 * P[2, n + b])
            H[off + 7 + i, off + 7 + j] += t
            H[off + 7 + j, off + 7 + i] += t


@njit(cache=True)
def _columns(JX, cols):
    k = 0
    for a in range(JX.shape[1]):
        if JX[0, a] != 0.0 or JX[1, a] != 0.0 or JX[2, a] != 0.0:
            cols[k] = a
            k += 1
    return k


@njit(cache=True)
def dots(cfg, kinds, pairs, side, mtype, sign, ur, u, P, moving, fixed, same, w, s, qe, lam, hessian, phi, Jq, H):
    """Dot-product equations (constraints/dot.py) between two floating frames (or a rigid
    Euler-parameter body, n = 0, and a floating frame): φ = Σ_k w_k X_k·Y_k − s with the
    eight marker slots of each equation (sides, types, signs, ū, u, P per slot, flattened
    as e·8 + term·4 + X/Y·2 + a/b); the columns are side 0's coordinates, then side 1's.
    ``kinds`` (2, 2): each side's number of modes and of pairs; ``pairs`` (2, ≥ pairs, 2).
    ``moving``: 0 for slots on ground, whose value is ``fixed`` (their Jacobian columns are
    dropped by the assembly); ``same``: 1 where a slot is the previous equation's slot (the
    three equations of a point joint), whose marker is then not evaluated again."""
    n_eq = phi.shape[0]
    n0, n1 = kinds[0, 0], kinds[1, 0]
    pairs0, pairs1 = pairs[0, :kinds[0, 1]], pairs[1, :kinds[1, 1]]
    nv0, nv1 = 7 + n0, 7 + n1
    m = nv0 + nv1
    nmax = max(n0, n1)
    xs = np.zeros((8, 3))
    Js = np.zeros((8, 3, 7 + nmax))
    a = np.empty((8, 3, 3))
    Dp = np.empty((8, 3, 3, 4))
    xf = np.empty((8, 3))
    Se = np.empty((8, 3, nmax))
    qb = np.empty(7 + nmax)
    X, Y = np.empty(3), np.empty(3)
    JX, JY = np.empty((3, m)), np.empty((3, m))
    colsX = np.empty(m, dtype=np.int64)
    colsY = np.empty(m, dtype=np.int64)
    filled = np.full(8, -2, dtype=np.int64)      # the equation whose marker each loc holds
    for eq in range(n_eq):
        phi[eq] = -s[eq]
        for c in range(m):
            Jq[eq, c] = 0.0
            if hessian:
                for d in range(m):
                    H[eq, c, d] = 0.0
        for k in range(2):
            if w[eq, k] == 0.0:
                continue
            X[:] = 0.0
            Y[:] = 0.0
            JX[:, :] = 0.0
            JY[:, :] = 0.0
            for xy in range(2):
                for ab in range(2):
                    loc = k * 4 + xy * 2 + ab
                    sl = eq * 8 + loc
                    if mtype[sl] == ZERO:
                        continue
                    sd = side[sl]
                    n = n0 if sd == 0 else n1
                    off = 0 if sd == 0 else nv0
                    x, J = xs[loc], Js[loc]
                    if moving[sl] == 0:
                        x[:] = fixed[sl]
                        filled[loc] = -2
                    elif same[sl] == 1 and filled[loc] == eq - 1:
                        filled[loc] = eq
                    else:
                        filled[loc] = eq
                        for c in range(7 + n):
                            qb[c] = qe[cfg[eq, off + c]]
                        _marker(qb, n, pairs0 if sd == 0 else pairs1, mtype[sl], ur[sl], u[sl], P[sl], x, J,
                                a[loc], Dp[loc], xf[loc], Se[loc], True)
                    sg = sign[sl]
                    if xy == 0:
                        for i in range(3):
                            X[i] += sg * x[i]
                    else:
                        for i in range(3):
                            Y[i] += sg * x[i]
                    if moving[sl] == 0 or mtype[sl] == CONSTANT:
                        continue
                    JA = JX if xy == 0 else JY
                    for i in range(3):
                        for c in range(7 + n):
                            JA[i, off + c] += sg * J[i, c]
            wk = w[eq, k]
            phi[eq] += wk * (X[0] * Y[0] + X[1] * Y[1] + X[2] * Y[2])
            for c in range(m):
                Jq[eq, c] += wk * (Y[0] * JX[0, c] + Y[1] * JX[1, c] + Y[2] * JX[2, c]
                                   + X[0] * JY[0, c] + X[1] * JY[1, c] + X[2] * JY[2, c])
            if not hessian:
                continue
            wl = wk * lam[eq]
            nx = _columns(JX, colsX)
            ny = _columns(JY, colsY)
            for ia in range(nx):
                c = colsX[ia]
                for ib in range(ny):
                    d = colsY[ib]
                    t = wl * (JX[0, c] * JY[0, d] + JX[1, c] * JY[1, d] + JX[2, c] * JY[2, d])
                    H[eq, c, d] += t
                    H[eq, d, c] += t
            for xy in range(2):
                for ab in range(2):
                    loc = k * 4 + xy * 2 + ab
                    sl = eq * 8 + loc
                    if mtype[sl] == ZERO or mtype[sl] == CONSTANT or moving[sl] == 0:
                        continue
                    sd = side[sl]
                    _contract(n0 if sd == 0 else n1, pairs0 if sd == 0 else pairs1, mtype[sl], P[sl],
                              Y if xy == 0 else X, a[loc], Dp[loc], xf[loc], Se[loc], H[eq], 0 if sd == 0 else nv0,
                              wl * sign[sl])


@njit(cache=True)
def point_forces(cfg, kinds, pairs, ur, P, f, scale, qe, hessian, Q, K):
    """Global forces f s(t) at points of floating frames: Q = Jᵀ f s, K = Σ_i f_i s ∂²x_i/∂q²."""
    N, nv = cfg.shape
    n = kinds[0, 0]
    prs = pairs[0, :kinds[0, 1]]
    x, J = np.empty(3), np.empty((3, nv))
    a, Dp = np.empty((3, 3)), np.empty((3, 3, 4))
    xf, Se = np.empty(3), np.empty((3, n))
    q, g, u0 = np.empty(nv), np.empty(3), np.zeros(3)
    for b in range(N):
        for k in range(nv):
            q[k] = qe[cfg[b, k]]
        _marker(q, n, prs, POINT, ur[b], u0, P[b], x, J, a, Dp, xf, Se, True)
        for i in range(3):
            g[i] = f[b, i] * scale[b]
        for k in range(nv):
            Q[b, k] = J[0, k] * g[0] + J[1, k] * g[1] + J[2, k] * g[2]
        if hessian:
            K[b, :, :] = 0.0
            _contract(n, prs, POINT, P[b], g, a, Dp, xf, Se, K[b], 0, 1.0)
