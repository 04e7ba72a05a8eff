"""Compiled kernels of the two-node R³×R³ beam (reference: :mod:`flexmbd.beams.r3r3` with
the branch alignment of :mod:`flexmbd.beams.groups`): elastic forces and exact stiffness
for the integration modes full, reduced and hw, and the inertia forces with their three
Jacobians, one loop over the elements of a group.

Each element first brings node B's rotation vector onto the branch nearest node A's
(``nodes.rotvec_branch``: g(ψ) = ψ + 2πm ψ/|ψ|) and applies the exact chain rule of that
map to its results (G1 = ∂g/∂ψ, G2, G3 its second and third derivatives), as the NumPy
groups do.  Element coordinates q = [x_A, ψ_A, x_B, ψ_B] (12).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lie import coef_a, coef_b, coef_c, coef_db, coef_dc, coef_ddb, coef_ddc, dTt, quadratic, \
    quadratic_form_hessian, se3_TUO

TWO_PI = 2.0 * math.pi
#: below this |ψ| the axis is undefined and ψ is never shifted (``rotvec_branch._TINY``)
TINY = 1e-8
#: integration modes (``r3r3._mode_rule``)
REDUCED, FULL, HW = 0, 1, 2
_G = 0.5 / math.sqrt(3.0)


# ------------------------------------------------------------------ branch alignment
@njit(cache=True)
def _shift(q, q2, G1, G2, G3, order):
    """q2 = q with ψ_B on the branch nearest ψ_A (``rotvec_branch.nearest_branch``) and the
    derivatives of that map up to ``order`` (G1 (3, 3), G2 (3, 3, 3), G3 (3, 3, 3, 3); see
    ``rotvec_branch.shift_jet``).  Returns False (q2 = q, maps untouched) if no shift."""
    for i in range(12):
        q2[i] = q[i]
    th = math.sqrt(q[9] * q[9] + q[10] * q[10] + q[11] * q[11])
    if not th > TINY:
        return False
    nv = np.empty(3)
    proj = 0.0
    for i in range(3):
        nv[i] = q[9 + i] / th
        proj += nv[i] * q[3 + i]
    m = np.rint((proj - th) / TWO_PI)
    if m == 0.0:
        return False
    c = TWO_PI * m
    P = np.empty((3, 3))
    for i in range(3):
        q2[9 + i] = q[9 + i] + c * nv[i]
        for j in range(3):
            P[i, j] = (1.0 if i == j else 0.0) - nv[i] * nv[j]
            G1[i, j] = (1.0 if i == j else 0.0) + c / th * P[i, j]
    if order < 2:
        return True
    S = np.empty((3, 3, 3))     # S_ijl = n_l P_ij + n_j P_il + n_i P_jl
    for i in range(3):
        for j in range(3):
            for l_ in range(3):
                S[i, j, l_] = nv[l_] * P[i, j] + nv[j] * P[i, l_] + nv[i] * P[j, l_]
                G2[i, j, l_] = -c / (th * th) * S[i, j, l_]
    if order < 3:
        return True
    # ∂S_ijl/∂ψ_k with ∂n_a/∂ψ_k = P_ak/θ, ∂P_ab/∂ψ_k = −(P_ak n_b + n_a P_bk)/θ
    for i in range(3):
        for j in range(3):
            for l_ in range(3):
                for k in range(3):
                    dPij = -(P[i, k] * nv[j] + nv[i] * P[j, k]) / th
                    dPil = -(P[i, k] * nv[l_] + nv[i] * P[l_, k]) / th
                    dPjl = -(P[j, k] * nv[l_] + nv[j] * P[l_, k]) / th
                    dS = (P[l_, k] / th * P[i, j] + nv[l_] * dPij + P[j, k] / th * P[i, l_] + nv[j] * dPil
                          + P[i, k] / th * P[j, l_] + nv[i] * dPjl)
                    G3[i, j, l_, k] = c * (-dS / (th * th) + 2.0 * nv[k] * S[i, j, l_] / (th * th * th))
    return True


@njit(cache=True)
def _map_rows(X, G1, n_cols):
    """X[9:12, :n_cols] ← G1ᵀ X[9:12, :n_cols] (node B's ψ rows)."""
    Y = np.empty((3, n_cols))
    for i in range(3):
        for j in range(n_cols):
            s = 0.0
            for k in range(3):
                s += G1[k, i] * X[9 + k, j]
            Y[i, j] = s
    for i in range(3):
        for j in range(n_cols):
            X[9 + i, j] = Y[i, j]


@njit(cache=True)
def _map_cols(X, G1):
    """X[:, 9:12] ← X[:, 9:12] G1 (node B's ψ columns) for X (12, 12)."""
    for i in range(12):
        a0, a1, a2 = X[i, 9], X[i, 10], X[i, 11]
        for j in range(3):
            X[i, 9 + j] = a0 * G1[0, j] + a1 * G1[1, j] + a2 * G1[2, j]


# ------------------------------------------------------------------ SO(3) at a point
@njit(cache=True)
def _so3(psi, R, T, k6):
    """R = exp(ψ̃), T = T(ψ) and k6 = (θ, b, c, db, dc, ddb, ddc) at ψ."""
    th = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    b, c = coef_b(th), coef_c(th)
    quadratic(psi, 1.0, coef_a(th), b, R)
    quadratic(psi, 1.0, -b, c, T)
    k6[0], k6[1], k6[2], k6[3], k6[4], k6[5], k6[6] = th, b, c, coef_db(th), coef_dc(th), coef_ddb(th), coef_ddc(th)


@njit(cache=True)
def _dT(psi, a, U, k6, D1, D2U, neg):
    """D1 = ∂(T(ψ) a)/∂ψ and D2U = Σ_k ∂²(T(ψ) a)/∂ψ∂ψ_k U_k, from ``dTt`` at −ψ
    (T(ψ) = T(−ψ)ᵀ: the first derivative changes sign, the second does not)."""
    for i in range(3):
        neg[i] = -psi[i]
    dTt(neg, a, U, k6[0], k6[1], k6[2], k6[3], k6[4], k6[5], k6[6], D1, D2U)
    for i in range(3):
        for j in range(3):
            D1[i, j] = -D1[i, j]


@njit(cache=True)
def _dTt(psi, w, k6, D1, D2U, zero):
    """D1 = ∂(T(ψ)ᵀ w)/∂ψ (``lie.so3_dT(…, transpose=True)``)."""
    dTt(psi, w, zero, k6[0], k6[1], k6[2], k6[3], k6[4], k6[5], k6[6], D1, D2U)


@njit(cache=True)
def _rule(mode, zeta, w):
    """Gauss points and weights on [0, 1] of an integration mode; returns their number."""
    if mode == REDUCED:
        zeta[0], w[0] = 0.5, 1.0
        return 1
    zeta[0], zeta[1] = 0.5 - _G, 0.5 + _G
    w[0], w[1] = 0.5, 0.5
    return 2


@njit(cache=True)
def _state(q, L, z, dx, psi, dpsi):
    for i in range(3):
        dx[i] = (q[6 + i] - q[i]) / L
        psi[i] = (1.0 - z) * q[3 + i] + z * q[9 + i]
        dpsi[i] = (q[9 + i] - q[3 + i]) / L


@njit(cache=True)
def _strains(q, L, z, R, T, k6, dx, psi, dpsi, e, sign):
    """e += sign · (Γ, κ) = sign · (Rᵀ x′, T ψ′) at ζ = z; R, T, k6 of ψ(z) are left set."""
    _state(q, L, z, dx, psi, dpsi)
    _so3(psi, R, T, k6)
    for i in range(3):
        g = 0.0
        k = 0.0
        for j in range(3):
            g += R[j, i] * dx[j]
            k += T[i, j] * dpsi[j]
        e[i] += sign * g
        e[3 + i] += sign * k


# ------------------------------------------------------------------ elastic forces
@njit(cache=True)
def elastic_forces(q, q_ref, length, D, mode, jacobians, f, K, V):
    """Element loop of ``R3R3ElasticGroup._forces`` (``r3r3.elastic_forces`` after the branch
    alignment): q, q_ref (E, 12), length (E,), D (E, 6, 6), mode ``REDUCED``/``FULL``/``HW``.
    Fills f (E, 12) = ∂V/∂q, K (E, 12, 12) = ∂f/∂q (if ``jacobians``) and V (E,).

    Per Gauss point h: e_h = (Γ − Γ₀, κ − κ₀), ê_g = Σ_h A_gh e_h (A = I; for hw the shear
    rows averaged over the points), σ_g = D ê_g, s_h = Σ_g A_ghᵀ w_g σ_g;
    E_h = ∂e_h/∂q = B_h P_h with B_h = [[Rᵀ, Γ̃T, 0], [0, dT(ψ, ψ′), T]] in y = (x′, ψ, ψ′);
    f = L Σ_h E_hᵀ s_h, K = L Σ_hk E_hᵀ C_hk E_k + L Σ_h P_hᵀ G(s_h) P_h (``r3r3.elastic_forces``).
    """
    n_el = q.shape[0]
    zeta = np.empty(2)
    wq = np.empty(2)
    ng = _rule(mode, zeta, wq)
    A = np.zeros((ng, ng, 6, 6))
    for g in range(ng):
        for h in range(ng):
            for i in range(6):
                shear = i == 1 or i == 2
                if mode == HW:
                    A[g, h, i, i] = (1.0 if g == h and not shear else 0.0) + (wq[h] if shear else 0.0)
                elif g == h:
                    A[g, h, i, i] = 1.0
    q2 = np.empty(12)
    G1 = np.empty((3, 3))
    G2 = np.empty((3, 3, 3))
    G3 = np.empty((1, 1, 1, 1))
    R = np.empty((ng, 3, 3))
    T = np.empty((ng, 3, 3))
    K6 = np.empty((ng, 7))
    Gam = np.empty((ng, 3))
    PSI = np.empty((ng, 3))
    DPSI = np.empty((ng, 3))
    e = np.empty((ng, 6))
    eh = np.empty(6)
    sig = np.empty((ng, 6))
    s = np.empty((ng, 6))
    E = np.empty((ng, 6, 12))
    CE = np.empty((6, 12))
    C = np.empty((6, 6))
    Rr = np.empty((3, 3))
    Tr = np.empty((3, 3))
    k6r = np.empty(7)
    dx = np.empty(3)
    psi = np.empty(3)
    dpsi = np.empty(3)
    neg = np.empty(3)
    zero = np.zeros(3)
    D1 = np.empty((3, 3))
    D2U = np.empty((3, 3))
    Hs = np.empty((3, 3))
    W = np.empty((3, 3))
    G9 = np.empty((9, 9))
    pm = np.empty((3, 4))
    fe = np.empty(12)
    nxg = np.empty(3)
    k8 = np.zeros(8)
    for el in range(n_el):
        shifted = _shift(q[el], q2, G1, G2, G3, 2 if jacobians else 1)
        L = length[el]
        for h in range(ng):
            for i in range(6):
                e[h, i] = 0.0
            _strains(q_ref[el], L, zeta[h], Rr, Tr, k6r, dx, psi, dpsi, e[h], -1.0)
            _strains(q2, L, zeta[h], R[h], T[h], K6[h], dx, psi, dpsi, e[h], 1.0)
            for i in range(3):       # Γ itself (e holds Γ − Γ₀)
                PSI[h, i] = psi[i]
                DPSI[h, i] = dpsi[i]
                g_ = 0.0
                for j in range(3):
                    g_ += R[h, j, i] * dx[j]
                Gam[h, i] = g_
        v = 0.0
        for g in range(ng):
            for i in range(6):
                acc = 0.0
                for h in range(ng):
                    acc += A[g, h, i, i] * e[h, i]
                eh[i] = acc
            for i in range(6):
                acc = 0.0
                for j in range(6):
                    acc += D[el, i, j] * eh[j]
                sig[g, i] = acc
                v += 0.5 * L * wq[g] * eh[i] * acc
        V[el] = v
        for h in range(ng):
            for i in range(6):
                acc = 0.0
                for g in range(ng):
                    acc += A[g, h, i, i] * wq[g] * sig[g, i]
                s[h, i] = acc
        # E_h = B_h P_h
        for h in range(ng):
            z = zeta[h]
            _dT(PSI[h], DPSI[h], zero, K6[h], D1, D2U, neg)       # dT(ψ, ψ′)
            Eh = E[h]
            for i in range(6):
                for j in range(12):
                    Eh[i, j] = 0.0
            for i in range(3):
                for j in range(3):
                    gt = 0.0                                        # (Γ̃ T)_ij
                    gt += (-Gam[h, 2] * T[h, 1, j] + Gam[h, 1] * T[h, 2, j]) if i == 0 else 0.0
                    gt += (Gam[h, 2] * T[h, 0, j] - Gam[h, 0] * T[h, 2, j]) if i == 1 else 0.0
                    gt += (-Gam[h, 1] * T[h, 0, j] + Gam[h, 0] * T[h, 1, j]) if i == 2 else 0.0
                    rt = R[h, j, i] / L
                    Eh[i, j] = -rt
                    Eh[i, 6 + j] = rt
                    Eh[i, 3 + j] = (1.0 - z) * gt
                    Eh[i, 9 + j] = z * gt
                    tl = T[h, i, j] / L
                    Eh[3 + i, 3 + j] = (1.0 - z) * D1[i, j] - tl
                    Eh[3 + i, 9 + j] = z * D1[i, j] + tl
        for j in range(12):
            acc = 0.0
            for h in range(ng):
                for i in range(6):
                    acc += E[h, i, j] * s[h, i]
            fe[j] = L * acc
        if not jacobians:
            if shifted:
                _map_vector(fe, G1)
            for j in range(12):
                f[el, j] = fe[j]
            continue
        Ke = K[el]
        for i in range(12):
            for j in range(12):
                Ke[i, j] = 0.0
        for h in range(ng):
            for k in range(ng):
                for i in range(6):            # C_hk = Σ_g A_ghᵀ w_g D A_gk (diagonal A)
                    for j in range(6):
                        acc = 0.0
                        for g in range(ng):
                            acc += A[g, h, i, i] * wq[g] * D[el, i, j] * A[g, k, j, j]
                        C[i, j] = acc
                for i in range(6):
                    for j in range(12):
                        acc = 0.0
                        for m in range(6):
                            acc += C[i, m] * E[k, m, j]
                        CE[i, j] = acc
                for a in range(12):
                    for b in range(12):
                        acc = 0.0
                        for m in range(6):
                            acc += E[h, m, a] * CE[m, b]
                        Ke[a, b] += L * acc
        # geometric part: G(s_h) in y = (x′, ψ, ψ′), scattered by P_h = p_h ⊗ I₃
        for h in range(ng):
            Nv = s[h, 0:3]
            Mv = s[h, 3:6]
            for i in range(9):
                for j in range(9):
                    G9[i, j] = 0.0
            # G_x′ψ = −R Ñ T
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for m in range(3):
                        nt = 0.0          # (Ñ T)_mj
                        if m == 0:
                            nt = -Nv[2] * T[h, 1, j] + Nv[1] * T[h, 2, j]
                        elif m == 1:
                            nt = Nv[2] * T[h, 0, j] - Nv[0] * T[h, 2, j]
                        else:
                            nt = -Nv[1] * T[h, 0, j] + Nv[0] * T[h, 1, j]
                        acc += R[h, i, m] * nt
                    G9[i, 3 + j] = -acc
                    G9[3 + j, i] = -acc
            # G_ψψ = ∂(Tᵀ (N × Γ))/∂ψ + Tᵀ Ñ Γ̃ T + ∂²(Mᵀ T ψ′)/∂ψ²
            nxg[0] = Nv[1] * Gam[h, 2] - Nv[2] * Gam[h, 1]
            nxg[1] = Nv[2] * Gam[h, 0] - Nv[0] * Gam[h, 2]
            nxg[2] = Nv[0] * Gam[h, 1] - Nv[1] * Gam[h, 0]
            _dTt(PSI[h], nxg, K6[h], D1, D2U, zero)
            k8[0], k8[1], k8[2], k8[3], k8[4], k8[5] = K6[h, 1], K6[h, 2], K6[h, 3], K6[h, 4], K6[h, 5], K6[h, 6]
            quadratic_form_hessian(PSI[h], DPSI[h], Mv, zero, k8, False, Hs, D2U)
            # W = Ñ Γ̃ = Γ Nᵀ − (N·Γ) I
            ng_ = Nv[0] * Gam[h, 0] + Nv[1] * Gam[h, 1] + Nv[2] * Gam[h, 2]
            for i in range(3):
                for j in range(3):
                    W[i, j] = Gam[h, i] * Nv[j] - (ng_ if i == j else 0.0)
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for a in range(3):
                        for b in range(3):
                            acc += T[h, a, i] * W[a, b] * T[h, b, j]
                    G9[3 + i, 3 + j] = D1[i, j] + acc + Hs[i, j]
            _dTt(PSI[h], Mv, K6[h], D1, D2U, zero)
            for i in range(3):
                for j in range(3):
                    G9[3 + i, 6 + j] = D1[j, i]
                    G9[6 + i, 3 + j] = D1[i, j]
            z = zeta[h]
            for r in range(3):
                for c in range(4):
                    pm[r, c] = 0.0
            pm[0, 0], pm[0, 2] = -1.0 / L, 1.0 / L
            pm[1, 1], pm[1, 3] = 1.0 - z, z
            pm[2, 1], pm[2, 3] = -1.0 / L, 1.0 / L
            for c in range(4):
                for d in range(4):
                    for r in range(3):
                        pr = pm[r, c]
                        if pr == 0.0:
                            continue
                        for t in range(3):
                            ps = pm[t, d]
                            if ps == 0.0:
                                continue
                            cf = L * pr * ps
                            for i in range(3):
                                for j in range(3):
                                    Ke[3 * c + i, 3 * d + j] += cf * G9[3 * r + i, 3 * t + j]
        if shifted:
            # K ← Eᵀ K E with E = blockdiag(I₉, G1), + Σ_i f_i G2[i] on node B's ψ block
            _map_cols(Ke, G1)
            _map_rows(Ke, G1, 12)
            for j in range(3):
                for l_ in range(3):
                    acc = 0.0
                    for i in range(3):
                        acc += fe[9 + i] * G2[i, j, l_]
                    Ke[9 + j, 9 + l_] += acc
            _map_vector(fe, G1)
        for j in range(12):
            f[el, j] = fe[j]


@njit(cache=True)
def _map_vector(F, G1):
    """F[9:12] ← G1ᵀ F[9:12]."""
    a0, a1, a2 = F[9], F[10], F[11]
    for j in range(3):
        F[9 + j] = G1[0, j] * a0 + G1[1, j] * a1 + G1[2, j] * a2


# ------------------------------------------------------------------ inertia
@njit(cache=True)
def inertia_forces(q, qd, qdd, length, rhoA, Js, jacobians, F, K, Dv, M):
    """Element loop of ``R3R3InertiaGroup.inertia_force`` (``r3r3.inertia_forces`` after the
    branch alignment of ψ_B, ψ̇_B, ψ̈_B): q, qd, qdd (E, 12), length, rhoA (E,), Js (E, 3, 3).
    Fills F (E, 12) and, if ``jacobians``, K = ∂F/∂q, Dv = ∂F/∂q̇, M = ∂F/∂q̈ (E, 12, 12).

    Per Gauss point (2-point rule): ω = T ψ̇, ω̇ = T ψ̈ + dT(ψ, ψ̇) ψ̇, h = J ω,
    z = J ω̇ + ω × h, F_ψ = Tᵀ z; M_g = Tᵀ J T, C_g = Tᵀ [J (dT(ψ, ψ̇) + T′[ψ̇]) + (ω̃J − h̃) T],
    K_g = ∂(Tᵀ z)/∂ψ + Tᵀ [J (dT(ψ, ψ̈) + ∂(dT(ψ, ψ̇) ψ̇)/∂ψ) + (ω̃J − h̃) dT(ψ, ψ̇)];
    the translational part is the constant consistent mass ρA L [[1/3, 1/6], [1/6, 1/3]] ⊗ I.
    """
    n_el = q.shape[0]
    zeta = np.array([0.5 - _G, 0.5 + _G])
    q2 = np.empty(12)
    v2 = np.empty(12)
    a2 = np.empty(12)
    G1 = np.empty((3, 3))
    G2 = np.empty((3, 3, 3))
    G3 = np.empty((3, 3, 3, 3))
    R = np.empty((3, 3))
    T = np.empty((3, 3))
    k6 = np.empty(7)
    psi = np.empty(3)
    pd = np.empty(3)
    pdd = np.empty(3)
    om = np.empty(3)
    al = np.empty(3)
    hv = np.empty(3)
    zv = np.empty(3)
    Fg = np.empty(3)
    neg = np.empty(3)
    zero = np.zeros(3)
    dTv = np.empty((3, 3))
    d2 = np.empty((3, 3))
    dTa = np.empty((3, 3))
    scratch = np.empty((3, 3))
    TUO = np.empty((3, 3))
    gyro = np.empty((3, 3))
    X = np.empty((3, 3))
    TMg = np.empty((3, 3))
    TCg = np.empty((3, 3))
    Mg = np.empty((3, 3))
    Cg = np.empty((3, 3))
    Kg = np.empty((3, 3))
    V1 = np.empty((3, 3))
    A1 = np.empty((3, 3))
    Fe = np.empty(12)
    for el in range(n_el):
        shifted = _shift(q[el], q2, G1, G2, G3, 3 if jacobians else 2)
        for i in range(12):
            v2[i] = qd[el, i]
            a2[i] = qdd[el, i]
        if shifted:
            for i in range(3):
                sv = 0.0
                sa = 0.0
                for j in range(3):
                    sv += G1[i, j] * qd[el, 9 + j]
                    sa += G1[i, j] * qdd[el, 9 + j]
                    for l_ in range(3):
                        sa += G2[i, j, l_] * qd[el, 9 + j] * qd[el, 9 + l_]
                v2[9 + i] = sv
                a2[9 + i] = sa
        L = length[el]
        mass = rhoA[el] * L
        J = Js[el]
        for a in range(2):
            for i in range(3):
                Fe[6 * a + i] = mass * (qdd[el, 6 * a + i] / 3.0 + qdd[el, 6 * (1 - a) + i] / 6.0)
                Fe[6 * a + 3 + i] = 0.0
        if jacobians:
            for X12 in (K[el], Dv[el], M[el]):
                for i in range(12):
                    for j in range(12):
                        X12[i, j] = 0.0
            for a in range(2):
                for b in range(2):
                    mab = mass / 3.0 if a == b else mass / 6.0
                    for i in range(3):
                        M[el, 6 * a + i, 6 * b + i] = mab
        for g in range(2):
            z = zeta[g]
            for i in range(3):
                psi[i] = (1.0 - z) * q2[3 + i] + z * q2[9 + i]
                pd[i] = (1.0 - z) * v2[3 + i] + z * v2[9 + i]
                pdd[i] = (1.0 - z) * a2[3 + i] + z * a2[9 + i]
            _so3(psi, R, T, k6)
            _dT(psi, pd, pd, k6, dTv, d2, neg)          # dT(ψ, ψ̇), ∂(dT(ψ, ψ̇) ψ̇)/∂ψ
            for i in range(3):
                so = 0.0
                sa = 0.0
                for j in range(3):
                    so += T[i, j] * pd[j]
                    sa += T[i, j] * pdd[j] + dTv[i, j] * pd[j]
                om[i] = so
                al[i] = sa
            for i in range(3):
                sh = 0.0
                sz = 0.0
                for j in range(3):
                    sh += J[i, j] * om[j]
                    sz += J[i, j] * al[j]
                hv[i] = sh
                zv[i] = sz
            zv[0] += om[1] * hv[2] - om[2] * hv[1]
            zv[1] += om[2] * hv[0] - om[0] * hv[2]
            zv[2] += om[0] * hv[1] - om[1] * hv[0]
            for i in range(3):
                acc = 0.0
                for j in range(3):
                    acc += T[j, i] * zv[j]
                Fg[i] = acc
            wt = L * 0.5
            for a in range(2):
                Na = 1.0 - z if a == 0 else z
                for i in range(3):
                    Fe[6 * a + 3 + i] += wt * Na * Fg[i]
            if not jacobians:
                continue
            # gyro = ω̃ J − h̃
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    if i == 0:
                        acc = -om[2] * J[1, j] + om[1] * J[2, j]
                    elif i == 1:
                        acc = om[2] * J[0, j] - om[0] * J[2, j]
                    else:
                        acc = -om[1] * J[0, j] + om[0] * J[1, j]
                    gyro[i, j] = acc
            gyro[0, 1] += hv[2]
            gyro[1, 0] -= hv[2]
            gyro[0, 2] -= hv[1]
            gyro[2, 0] += hv[1]
            gyro[1, 2] += hv[0]
            gyro[2, 1] -= hv[0]
            se3_TUO(pd, psi, TUO)                        # T′[ψ̇]
            _dT(psi, pdd, zero, k6, dTa, scratch, neg)   # dT(ψ, ψ̈)
            _dTt(psi, zv, k6, Kg, scratch, zero)         # ∂(Tᵀ z)/∂ψ
            # Mg = Tᵀ J T; Cg = Tᵀ (J (dTv + TUO) + gyro T); Kg += Tᵀ (J (dTa + d2) + gyro dTv)
            for i in range(3):
                for j in range(3):
                    sm = 0.0
                    sc = 0.0
                    sk = 0.0
                    for m in range(3):
                        sm += J[i, m] * T[m, j]
                        sc += J[i, m] * (dTv[m, j] + TUO[m, j]) + gyro[i, m] * T[m, j]
                        sk += J[i, m] * (dTa[m, j] + d2[m, j]) + gyro[i, m] * dTv[m, j]
                    Mg[i, j] = sm
                    Cg[i, j] = sc
                    X[i, j] = sk
            for i in range(3):
                for j in range(3):
                    sm = 0.0
                    sc = 0.0
                    sk = 0.0
                    for m in range(3):
                        sm += T[m, i] * Mg[m, j]
                        sc += T[m, i] * Cg[m, j]
                        sk += T[m, i] * X[m, j]
                    TMg[i, j] = sm
                    TCg[i, j] = sc
                    Kg[i, j] += sk
            for a in range(2):
                Na = 1.0 - z if a == 0 else z
                for b in range(2):
                    Nb = 1.0 - z if b == 0 else z
                    cf = wt * Na * Nb
                    for i in range(3):
                        for j in range(3):
                            M[el, 6 * a + 3 + i, 6 * b + 3 + j] += cf * TMg[i, j]
                            Dv[el, 6 * a + 3 + i, 6 * b + 3 + j] += cf * TCg[i, j]
                            K[el, 6 * a + 3 + i, 6 * b + 3 + j] += cf * Kg[i, j]
        if shifted and jacobians:
            w = qd[el, 9:12]
            acc_ = qdd[el, 9:12]
            for i in range(3):
                for l_ in range(3):
                    sv = 0.0
                    sa = 0.0
                    for j in range(3):
                        sv += G2[i, j, l_] * w[j]
                        sa += G2[i, j, l_] * acc_[j]
                        for k in range(3):
                            sa += G3[i, j, k, l_] * w[j] * w[k]
                    V1[i, l_] = sv
                    A1[i, l_] = sa
            Ke, De, Me = K[el], Dv[el], M[el]
            # columns of node B's ψ: K G1 + D V1 + M A1, D G1 + 2 M V1, M G1
            for r in range(12):
                for j in range(3):
                    sk = 0.0
                    sd = 0.0
                    for m in range(3):
                        sk += Ke[r, 9 + m] * G1[m, j] + De[r, 9 + m] * V1[m, j] + Me[r, 9 + m] * A1[m, j]
                        sd += De[r, 9 + m] * G1[m, j] + 2.0 * Me[r, 9 + m] * V1[m, j]
                    X[0, j] = sk
                    X[1, j] = sd
                for j in range(3):
                    Ke[r, 9 + j] = X[0, j]
                    De[r, 9 + j] = X[1, j]
            _map_cols(Me, G1)
            _map_rows(Ke, G1, 12)
            _map_rows(De, G1, 12)
            _map_rows(Me, G1, 12)
            for j in range(3):
                for l_ in range(3):
                    acc = 0.0
                    for i in range(3):
                        acc += Fe[9 + i] * G2[i, j, l_]
                    Ke[9 + j, 9 + l_] += acc
        if shifted:
            _map_vector(Fe, G1)
        for i in range(12):
            F[el, i] = Fe[i]


# ------------------------------------------------------------------ node markers
@njit(cache=True)
def _skew_times(u, X, out):
    """out = ũ X for X (3, 3)."""
    for j in range(3):
        out[0, j] = -u[2] * X[1, j] + u[1] * X[2, j]
        out[1, j] = u[2] * X[0, j] - u[0] * X[2, j]
        out[2, j] = -u[1] * X[0, j] + u[0] * X[1, j]


@njit(cache=True)
def markers(q, u, point, x, J):
    """``nodes.rotvec.marker``: x = point·X + R u and J = [point·I, −R ũ T] for node rows
    q (N, 6) = (X, ψ), u (N, 3) in the node frame; fills x (N, 3), J (N, 3, 6)."""
    R = np.empty((3, 3))
    T = np.empty((3, 3))
    k6 = np.empty(7)
    UT = np.empty((3, 3))
    for e in range(q.shape[0]):
        _so3(q[e, 3:6], R, T, k6)
        _skew_times(u[e], T, UT)
        for i in range(3):
            s = 0.0
            for j in range(3):
                s += R[i, j] * u[e, j]
                r = 0.0
                for m in range(3):
                    r += R[i, m] * UT[m, j]
                J[e, i, 3 + j] = -r
                J[e, i, j] = point[e] if i == j else 0.0
            x[e, i] = point[e] * q[e, i] + s


@njit(cache=True)
def marker_contract(q, u, g, out):
    """``nodes.rotvec.marker_contract``: Σ_i g_i ∂²x_i/∂q² (N, 6, 6), only the ψψ block:
    ∂(Tᵀ (u × β))/∂ψ + Tᵀ ũ β̃ T with β = Rᵀ g."""
    R = np.empty((3, 3))
    T = np.empty((3, 3))
    k6 = np.empty(7)
    D1 = np.empty((3, 3))
    D2U = np.empty((3, 3))
    W = np.empty((3, 3))
    beta = np.empty(3)
    uxb = np.empty(3)
    zero = np.zeros(3)
    for e in range(q.shape[0]):
        psi = q[e, 3:6]
        _so3(psi, R, T, k6)
        for i in range(3):
            beta[i] = R[0, i] * g[e, 0] + R[1, i] * g[e, 1] + R[2, i] * g[e, 2]
        ue = u[e]
        uxb[0] = ue[1] * beta[2] - ue[2] * beta[1]
        uxb[1] = ue[2] * beta[0] - ue[0] * beta[2]
        uxb[2] = ue[0] * beta[1] - ue[1] * beta[0]
        _dTt(psi, uxb, k6, D1, D2U, zero)
        ub = ue[0] * beta[0] + ue[1] * beta[1] + ue[2] * beta[2]
        for i in range(3):          # ũ β̃ = β uᵀ − (u·β) I
            for j in range(3):
                W[i, j] = beta[i] * ue[j] - (ub if i == j else 0.0)
        for i in range(6):
            for j in range(6):
                out[e, i, j] = 0.0
        for i in range(3):
            for j in range(3):
                s = 0.0
                for a in range(3):
                    for b in range(3):
                        s += T[a, i] * W[a, b] * T[b, j]
                out[e, 3 + i, 3 + j] = D1[i, j] + s


@njit(cache=True)
def marker_dJv(q, u, v, out):
    """``nodes.rotvec.marker_dJv``: ∂(J v)/∂q (N, 3, 6), only the ψ columns:
    −R ỹ T − R ũ dT(ψ, v_ψ) with y = T v_ψ × u."""
    R = np.empty((3, 3))
    T = np.empty((3, 3))
    k6 = np.empty(7)
    D1 = np.empty((3, 3))
    D2U = np.empty((3, 3))
    X = np.empty((3, 3))
    Y = np.empty((3, 3))
    tv = np.empty(3)
    y = np.empty(3)
    neg = np.empty(3)
    zero = np.zeros(3)
    for e in range(q.shape[0]):
        psi = q[e, 3:6]
        vp = v[e, 3:6]
        ue = u[e]
        _so3(psi, R, T, k6)
        for i in range(3):
            tv[i] = T[i, 0] * vp[0] + T[i, 1] * vp[1] + T[i, 2] * vp[2]
        y[0] = tv[1] * ue[2] - tv[2] * ue[1]
        y[1] = tv[2] * ue[0] - tv[0] * ue[2]
        y[2] = tv[0] * ue[1] - tv[1] * ue[0]
        _dT(psi, vp, zero, k6, D1, D2U, neg)
        _skew_times(y, T, X)
        _skew_times(ue, D1, Y)
        for i in range(3):
            for j in range(3):
                s = 0.0
                for m in range(3):
                    s += R[i, m] * (X[m, j] + Y[m, j])
                out[e, i, j] = 0.0
                out[e, i, 3 + j] = -s
