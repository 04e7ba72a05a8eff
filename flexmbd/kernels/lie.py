"""Scalar SO(3)/SE(3) helpers for compiled kernels (see :mod:`flexmbd.lie` for the maths).

Ports of the NumPy reference in ``flexmbd.lie`` for one rotation vector / twist at a time:
the scalar coefficients use the same Taylor series (``lie._SERIES``) below the same
thresholds (``lie.THRESHOLDS``) and the same closed forms above them, so both paths agree
to rounding.  Matrices are written into caller-provided arrays (no allocation).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..lie import _SERIES, THRESHOLDS

S_A = np.ascontiguousarray(_SERIES["a"])
S_B = np.ascontiguousarray(_SERIES["b"])
S_C = np.ascontiguousarray(_SERIES["c"])
S_G = np.ascontiguousarray(_SERIES["g"])
S_DB = np.ascontiguousarray(_SERIES["db"])
S_DC = np.ascontiguousarray(_SERIES["dc"])
S_DDB = np.ascontiguousarray(_SERIES["ddb"])
S_DDC = np.ascontiguousarray(_SERIES["ddc"])
S_HS = np.ascontiguousarray(_SERIES["hs"])
S_DDDB = np.ascontiguousarray(_SERIES["dddb"])
S_DDDC = np.ascontiguousarray(_SERIES["dddc"])
T_A, T_B, T_C, T_G = THRESHOLDS["a"], THRESHOLDS["b"], THRESHOLDS["c"], THRESHOLDS["g"]
T_DB, T_DC, T_DDB, T_DDC = THRESHOLDS["db"], THRESHOLDS["dc"], THRESHOLDS["ddb"], THRESHOLDS["ddc"]
T_HS = THRESHOLDS["hs"]
T_DDDB, T_DDDC = THRESHOLDS["dddb"], THRESHOLDS["dddc"]


# ------------------------------------------------------------------ coefficients
@njit(cache=True, inline="always")
def _horner(c, t):
    s = c[c.shape[0] - 1]
    for k in range(c.shape[0] - 2, -1, -1):
        s = s * t + c[k]
    return s


@njit(cache=True)
def _a_direct(x):
    return math.sin(x) / x


@njit(cache=True)
def _b_direct(x):
    s = math.sin(0.5 * x) / (0.5 * x)
    return 0.5 * s * s


@njit(cache=True)
def _c_direct(x):
    return (x - math.sin(x)) / (x * x * x)


@njit(cache=True)
def _db_direct(x):
    return (_a_direct(x) - 2.0 * _b_direct(x)) / (x * x)


@njit(cache=True)
def _dc_direct(x):
    return (_b_direct(x) - 3.0 * _c_direct(x)) / (x * x)


@njit(cache=True)
def coef_a(th):
    """sin θ/θ."""
    if th < T_A:
        return _horner(S_A, th * th)
    return _a_direct(th)


@njit(cache=True)
def coef_b(th):
    """(1 − cos θ)/θ²."""
    if th < T_B:
        return _horner(S_B, th * th)
    return _b_direct(th)


@njit(cache=True)
def coef_c(th):
    """(θ − sin θ)/θ³."""
    if th < T_C:
        return _horner(S_C, th * th)
    return _c_direct(th)


@njit(cache=True)
def coef_g(th):
    """(1 − (θ/2) cot(θ/2))/θ²."""
    if th < T_G:
        return _horner(S_G, th * th)
    h = 0.5 * th
    return (1.0 - h * math.cos(h) / math.sin(h)) / (th * th)


@njit(cache=True)
def coef_db(th):
    """b′(θ)/θ."""
    if th < T_DB:
        return _horner(S_DB, th * th)
    return _db_direct(th)


@njit(cache=True)
def coef_dc(th):
    """c′(θ)/θ."""
    if th < T_DC:
        return _horner(S_DC, th * th)
    return _dc_direct(th)


@njit(cache=True)
def coef_ddb(th):
    """(db)′(θ)/θ."""
    if th < T_DDB:
        return _horner(S_DDB, th * th)
    return _ddb_direct(th)


@njit(cache=True)
def coef_ddc(th):
    """(dc)′(θ)/θ."""
    if th < T_DDC:
        return _horner(S_DDC, th * th)
    return _ddc_direct(th)


@njit(cache=True)
def _ddb_direct(x):
    x2 = x * x
    return ((math.cos(x) - _a_direct(x)) / x2 - 4.0 * _db_direct(x)) / x2


@njit(cache=True)
def _ddc_direct(x):
    return (_db_direct(x) - 5.0 * _dc_direct(x)) / (x * x)


@njit(cache=True)
def coef_dddb(th):
    """(ddb)′(θ)/θ."""
    if th < T_DDDB:
        return _horner(S_DDDB, th * th)
    x2 = th * th
    a = _a_direct(th)
    da = (math.cos(th) - a) / x2
    dda = (-a - 3.0 * da) / x2
    return (dda - 6.0 * _ddb_direct(th)) / x2


@njit(cache=True)
def coef_dddc(th):
    """(ddc)′(θ)/θ."""
    if th < T_DDDC:
        return _horner(S_DDDC, th * th)
    return (_ddb_direct(th) - 7.0 * _ddc_direct(th)) / (th * th)


@njit(cache=True)
def coef_hs(th):
    """sin(θ/2)/θ."""
    if th < T_HS:
        return _horner(S_HS, th * th)
    return math.sin(0.5 * th) / th


# ------------------------------------------------------------------ quaternions
@njit(cache=True)
def quat_to_rotvec(p0, p1, p2, p3, out):
    """Rotation vector (|ψ| ∈ [0, π]) of a quaternion, as ``lie.quat_to_rotvec``."""
    sgn = -1.0 if p0 < 0.0 else 1.0
    e0 = p0 * sgn
    s = math.sqrt(p1 * p1 + p2 * p2 + p3 * p3)
    if s == 0.0 and e0 == 0.0:
        factor = 0.0
    elif s < 1e-8 * e0:
        r = s / e0
        factor = 2.0 / e0 * (1.0 - r * r / 3.0)
    else:
        factor = 2.0 * math.atan2(s, e0) / s
    factor *= sgn
    out[0] = factor * p1
    out[1] = factor * p2
    out[2] = factor * p3


@njit(cache=True)
def rotation_matrix(p, A):
    """A(p) of Euler parameters p (4,) (not normalised), as ``rotations.rotation_matrix``."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    d = e0 * e0 - (e1 * e1 + e2 * e2 + e3 * e3)
    A[0, 0] = d + 2.0 * e1 * e1
    A[1, 1] = d + 2.0 * e2 * e2
    A[2, 2] = d + 2.0 * e3 * e3
    A[0, 1] = 2.0 * (e1 * e2 - e0 * e3)
    A[1, 0] = 2.0 * (e1 * e2 + e0 * e3)
    A[0, 2] = 2.0 * (e1 * e3 + e0 * e2)
    A[2, 0] = 2.0 * (e1 * e3 - e0 * e2)
    A[1, 2] = 2.0 * (e2 * e3 - e0 * e1)
    A[2, 1] = 2.0 * (e2 * e3 + e0 * e1)


# ------------------------------------------------------------------ SO(3) / SE(3)
@njit(cache=True)
def quadratic(psi, c0, c1, c2, M):
    """M = c0 I + c1 ψ̃ + c2 ψ̃²  (ψ̃² = ψψᵀ − θ² I)."""
    t = psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2]
    for i in range(3):
        for j in range(3):
            M[i, j] = c2 * psi[i] * psi[j]
        M[i, i] += c0 - c2 * t
    M[0, 1] -= c1 * psi[2]
    M[1, 0] += c1 * psi[2]
    M[0, 2] += c1 * psi[1]
    M[2, 0] -= c1 * psi[1]
    M[1, 2] -= c1 * psi[0]
    M[2, 1] += c1 * psi[0]


@njit(cache=True)
def so3_Tinv(psi, M):
    """T(ψ)⁻¹ = I + ½ ψ̃ + g ψ̃²."""
    th = math.sqrt(psi[0] * psi[0] + psi[1] * psi[1] + psi[2] * psi[2])
    quadratic(psi, 1.0, 0.5, coef_g(th), M)


@njit(cache=True)
def se3_TUO(U, Om, M):
    """T_UΩ = −b Ũ + c (ŨΩ̃ + Ω̃Ũ) + (Ωᵀ U)(−db Ω̃ + dc Ω̃²)  (``lie.se3_TUO``)."""
    th = math.sqrt(Om[0] * Om[0] + Om[1] * Om[1] + Om[2] * Om[2])
    b, c, db, dc = coef_b(th), coef_c(th), coef_db(th), coef_dc(th)
    ou = Om[0] * U[0] + Om[1] * U[1] + Om[2] * U[2]
    t = th * th
    # ŨΩ̃ + Ω̃Ũ = UΩᵀ + ΩUᵀ − 2 (U·Ω) I,  Ω̃² = ΩΩᵀ − θ² I
    for i in range(3):
        for j in range(3):
            M[i, j] = c * (U[i] * Om[j] + Om[i] * U[j]) + ou * dc * Om[i] * Om[j]
        M[i, i] -= 2.0 * c * ou + ou * dc * t
    k = -ou * db
    M[0, 1] += b * U[2] - k * Om[2]
    M[1, 0] += -b * U[2] + k * Om[2]
    M[0, 2] += -b * U[1] + k * Om[1]
    M[2, 0] += b * U[1] - k * Om[1]
    M[1, 2] += b * U[0] - k * Om[0]
    M[2, 1] += -b * U[0] + k * Om[0]


@njit(cache=True)
def se3_Tinv(h, M, W1, W2):
    """T_SE3(h)⁻¹ (6, 6) = [[T⁻¹, −T⁻¹ T_UΩ T⁻¹], [0, T⁻¹]]; W1, W2 (3, 3) scratch."""
    so3_Tinv(h[3:6], W1)
    se3_TUO(h[0:3], h[3:6], W2)
    for i in range(3):
        for j in range(3):
            M[i, j] = W1[i, j]
            M[i + 3, j + 3] = W1[i, j]
            M[i + 3, j] = 0.0
    for i in range(3):           # top right = −W1 W2 W1
        for j in range(3):
            s = 0.0
            for k in range(3):
                r = 0.0
                for m in range(3):
                    r += W1[i, m] * W2[m, k]
                s += r * W1[k, j]
            M[i, j + 3] = -s


@njit(cache=True)
def se3_T(h, M):
    """T_SE3(h) (6, 6) = [[T, T_UΩ], [0, T]],  T = I − b Ω̃ + c Ω̃²."""
    Om = h[3:6]
    th = math.sqrt(Om[0] * Om[0] + Om[1] * Om[1] + Om[2] * Om[2])
    b, c = coef_b(th), coef_c(th)
    t = th * th
    for i in range(3):
        for j in range(3):
            v = c * Om[i] * Om[j]
            M[i, j] = v
            M[i + 3, j + 3] = v
            M[i + 3, j] = 0.0
        M[i, i] += 1.0 - c * t
        M[i + 3, i + 3] += 1.0 - c * t
    for o in (0, 3):
        M[o + 0, o + 1] += b * Om[2]
        M[o + 1, o + 0] -= b * Om[2]
        M[o + 0, o + 2] -= b * Om[1]
        M[o + 2, o + 0] += b * Om[1]
        M[o + 1, o + 2] += b * Om[0]
        M[o + 2, o + 1] -= b * Om[0]
    se3_TUO(h[0:3], Om, M[0:3, 3:6])


@njit(cache=True)
def dTt(psi, w, U, th, b, c, db, dc, ddb, ddc, D1, D2U):
    """First derivative D1 = ∂(T(ψ)ᵀ w)/∂ψ (3, 3) and the second derivative contracted
    with U, D2U[i, j] = Σ_k ∂²(T(ψ)ᵀ w)_i/∂ψ_j∂ψ_k U_k (3, 3).

    T(ψ)ᵀ w = w + b ψ×w + c ψ̃²w (b, c even in θ); Leibniz rule with ∂b/∂ψ_j = db ψ_j,
    ∂²b/∂ψ_j∂ψ_k = ddb ψ_j ψ_k + db δ_jk (same for c), see ``lie._so3_T_jet``.
    """
    pw = psi[0] * w[0] + psi[1] * w[1] + psi[2] * w[2]
    pu = psi[0] * U[0] + psi[1] * U[1] + psi[2] * U[2]
    wu = w[0] * U[0] + w[1] * U[1] + w[2] * U[2]
    t = th * th
    # g1 = ψ×w, g2 = ψ̃²w = ψ(ψ·w) − θ² w
    g1 = (psi[1] * w[2] - psi[2] * w[1], psi[2] * w[0] - psi[0] * w[2], psi[0] * w[1] - psi[1] * w[0])
    # (∂g1/∂ψ) U = −w̃ U = U × w
    g1u = (U[1] * w[2] - U[2] * w[1], U[2] * w[0] - U[0] * w[2], U[0] * w[1] - U[1] * w[0])
    sb2 = ddb * pu
    sc2 = ddc * pu
    for i in range(3):
        g2i = psi[i] * pw - t * w[i]
        g2u = U[i] * pw + psi[i] * wu - 2.0 * w[i] * pu        # (∂g2/∂ψ) U
        for j in range(3):
            dij = 1.0 if i == j else 0.0
            # ∂g1_i/∂ψ_j = −w̃_ij = ε_ijk w_k
            g1ij = 0.0
            if i != j:
                k = 3 - i - j
                g1ij = w[k] if (j - i) % 3 == 1 else -w[k]
            g2ij = dij * pw + psi[i] * w[j] - 2.0 * w[i] * psi[j]
            D1[i, j] = db * psi[j] * g1[i] + b * g1ij + dc * psi[j] * g2i + c * g2ij
            g2iju = dij * wu + U[i] * w[j] - 2.0 * U[j] * w[i]  # Σ_k ∂²g2_i/∂ψ_j∂ψ_k U_k
            D2U[i, j] = (g1[i] * (sb2 * psi[j] + db * U[j]) + db * psi[j] * g1u[i] + db * pu * g1ij
                         + g2i * (sc2 * psi[j] + dc * U[j]) + dc * psi[j] * g2u + dc * pu * g2ij
                         + c * g2iju)


# ------------------------------------------------------------------ derivatives of T_SE3
@njit(cache=True)
def coefficients(th, k):
    """k = (b, c, db, dc, ddb, ddc, dddb, dddc) at θ (8,)."""
    k[0], k[1], k[2], k[3] = coef_b(th), coef_c(th), coef_db(th), coef_dc(th)
    k[4], k[5], k[6], k[7] = coef_ddb(th), coef_ddc(th), coef_dddb(th), coef_dddc(th)


@njit(cache=True)
def quadratic_form_hessian(Om, w, m, U, k, third, H, H3U):
    """Hessian H = ∂²f/∂Ω² of f(Ω) = mᵀ T(Ω) w and, if ``third``, its third derivative
    contracted with U, H3U[j, l] = Σ_r ∂³f/∂Ω_j∂Ω_l∂Ω_r U_r (both (3, 3), symmetric).

    f = μ − b s + c Q with μ = m·w, s = Ω·n (n = w × m), Q = (m·Ω)(w·Ω) − θ² μ
    (``lie.so3_ddT``/``lie.se3_ddT`` in the NumPy reference); Leibniz rule with ∂b = db Ω,
    ∂²b = ddb ΩΩᵀ + db I, ∂³b·U = dddb (Ω·U) ΩΩᵀ + ddb (UΩᵀ + ΩUᵀ + (Ω·U) I) (same for
    c), ∇s = n, ∇Q = u = (m·Ω) w + (w·Ω) m − 2μΩ, ∇²Q = m wᵀ + w mᵀ − 2μ I.
    k = ``coefficients(|Ω|)``.
    """
    b, c, db, dc, ddb, ddc, dddb, dddc = k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]
    n0, n1, n2 = w[1] * m[2] - w[2] * m[1], w[2] * m[0] - w[0] * m[2], w[0] * m[1] - w[1] * m[0]
    nv = (n0, n1, n2)
    s = Om[0] * n0 + Om[1] * n1 + Om[2] * n2
    mu = m[0] * w[0] + m[1] * w[1] + m[2] * w[2]
    p = m[0] * Om[0] + m[1] * Om[1] + m[2] * Om[2]
    r = w[0] * Om[0] + w[1] * Om[1] + w[2] * Om[2]
    t = Om[0] * Om[0] + Om[1] * Om[1] + Om[2] * Om[2]
    Q = p * r - t * mu
    u = (p * w[0] + r * m[0] - 2.0 * mu * Om[0], p * w[1] + r * m[1] - 2.0 * mu * Om[1],
         p * w[2] + r * m[2] - 2.0 * mu * Om[2])
    for j in range(3):
        for l in range(3):
            d = 1.0 if j == l else 0.0
            oo = Om[j] * Om[l]
            q2 = m[j] * w[l] + w[j] * m[l] - 2.0 * mu * d
            H[j, l] = (-((ddb * oo + db * d) * s + db * (Om[j] * nv[l] + nv[j] * Om[l]))
                       + (ddc * oo + dc * d) * Q + dc * (Om[j] * u[l] + u[j] * Om[l]) + c * q2)
    if not third:
        return
    pu = Om[0] * U[0] + Om[1] * U[1] + Om[2] * U[2]
    nU = n0 * U[0] + n1 * U[1] + n2 * U[2]
    uU = u[0] * U[0] + u[1] * U[1] + u[2] * U[2]
    wU = w[0] * U[0] + w[1] * U[1] + w[2] * U[2]
    mU = m[0] * U[0] + m[1] * U[1] + m[2] * U[2]
    b2U = (ddb * pu * Om[0] + db * U[0], ddb * pu * Om[1] + db * U[1], ddb * pu * Om[2] + db * U[2])
    c2U = (ddc * pu * Om[0] + dc * U[0], ddc * pu * Om[1] + dc * U[1], ddc * pu * Om[2] + dc * U[2])
    q2U = (m[0] * wU + w[0] * mU - 2.0 * mu * U[0], m[1] * wU + w[1] * mU - 2.0 * mu * U[1],
           m[2] * wU + w[2] * mU - 2.0 * mu * U[2])
    for j in range(3):
        for l in range(3):
            d = 1.0 if j == l else 0.0
            oo = Om[j] * Om[l]
            sym = U[j] * Om[l] + Om[j] * U[l] + pu * d
            q2 = m[j] * w[l] + w[j] * m[l] - 2.0 * mu * d
            H3U[j, l] = (-((dddb * pu * oo + ddb * sym) * s + (ddb * oo + db * d) * nU
                           + b2U[j] * nv[l] + nv[j] * b2U[l])
                         + (dddc * pu * oo + ddc * sym) * Q + (ddc * oo + dc * d) * uU
                         + c2U[j] * u[l] + u[j] * c2U[l]
                         + dc * (Om[j] * q2U[l] + q2U[j] * Om[l]) + dc * pu * q2)


@njit(cache=True)
def se3_dT(h, a, k, out, D1, D2U):
    """out = ∂(T_SE3(h) a)/∂h (6, 6) (``lie.se3_dT``).  With F(v) = T(Ω) v and
    T(Ω) v = T(−Ω)ᵀ v, the blocks [[F′(a_Ω), F′(a_U) + F″(a_Ω)·U], [0, F′(a_Ω)]] come from
    ``dTt`` at −Ω (F′ = −D1, F″·U = D2U).  k = ``coefficients(|Ω|)``; D1, D2U (3, 3) scratch."""
    U = h[0:3]
    mO = np.empty(3)
    for i in range(3):
        mO[i] = -h[3 + i]
    th = math.sqrt(h[3] * h[3] + h[4] * h[4] + h[5] * h[5])
    b, c, db, dc, ddb, ddc = k[0], k[1], k[2], k[3], k[4], k[5]
    dTt(mO, a[3:6], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            out[i, j] = -D1[i, j]
            out[i + 3, j + 3] = -D1[i, j]
            out[i + 3, j] = 0.0
            out[i, j + 3] = D2U[i, j]
    dTt(mO, a[0:3], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            out[i, j + 3] -= D1[i, j]


@njit(cache=True)
def se3_dTt(h, w, k, out, D1, D2U):
    """out = ∂(T_SE3(h)ᵀ w)/∂h (6, 6) (``lie.se3_dT(…, transpose=True)``):
    [[0, F′(w_U)], [F′(w_U), F′(w_Ω) + F″(w_U)·U]] with F(v) = T(Ω)ᵀ v (``dTt``)."""
    U = h[0:3]
    Om = h[3:6]
    th = math.sqrt(h[3] * h[3] + h[4] * h[4] + h[5] * h[5])
    b, c, db, dc, ddb, ddc = k[0], k[1], k[2], k[3], k[4], k[5]
    dTt(Om, w[0:3], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            out[i, j] = 0.0
            out[i, j + 3] = D1[i, j]
            out[i + 3, j] = D1[i, j]
            out[i + 3, j + 3] = D2U[i, j]
    dTt(Om, w[3:6], U, th, b, c, db, dc, ddb, ddc, D1, D2U)
    for i in range(3):
        for j in range(3):
            out[i + 3, j + 3] += D1[i, j]


@njit(cache=True)
def se3_hessian(h, a, sig, k, S, H1, H2):
    """S = ∂²(σᵀ T_SE3(h) a)/∂h² (6, 6) = Σ_i σ_i ``lie.se3_ddT(h, a)[i]``.

    σᵀ T_SE3 a = f(a_U, σ_U) + ∇_Ω f(a_Ω, σ_U)·U + f(a_Ω, σ_Ω) with f(w, m) = mᵀ T(Ω) w,
    so S_UU = 0, S_UΩ = ∇²f(a_Ω, σ_U), S_ΩΩ = ∇²f(a_U, σ_U) + ∇²f(a_Ω, σ_Ω) + ∇³f(a_Ω, σ_U)·U
    (``quadratic_form_hessian``).  H1, H2 (3, 3) scratch."""
    U = h[0:3]
    Om = h[3:6]
    quadratic_form_hessian(Om, a[3:6], sig[0:3], U, k, True, H1, H2)
    for i in range(3):
        for j in range(3):
            S[i, j] = 0.0
            S[i, j + 3] = H1[i, j]
            S[i + 3, j] = H1[j, i]
            S[i + 3, j + 3] = H2[i, j]
    quadratic_form_hessian(Om, a[0:3], sig[0:3], U, k, False, H1, H2)
    for i in range(3):
        for j in range(3):
            S[i + 3, j + 3] += H1[i, j]
    quadratic_form_hessian(Om, a[3:6], sig[3:6], U, k, False, H1, H2)
    for i in range(3):
        for j in range(3):
            S[i + 3, j + 3] += H1[i, j]
