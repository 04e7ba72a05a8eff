"""Pure kernels of the two-node R³×R³ geometrically exact beam (first order).

Each node carries q_k = (x_k, ψ_k): its position and its *total* rotation vector,
R_k = exp(ψ̃_k).  The coordinates are additive (a vector kind); ``rescale`` maps a
rotation vector to the equivalent one with |ψ| ≤ π and is applied between steps.
Element coordinates are q = [x_A, ψ_A, x_B, ψ_B] (12).

Kinematics (Simo & Vu-Quoc 1986; rotation-vector interpolation after Ibrahimbegović
1995): with ζ ∈ [0, 1], ds = L0 dζ and N_A = 1 − ζ, N_B = ζ,

    x(ζ) = N_A x_A + N_B x_B,   ψ(ζ) = N_A ψ_A + N_B ψ_B,   R(ζ) = exp(ψ̃(ζ)),
    Γ = Rᵀ x′,   κ = T(ψ) ψ′   (so that Rᵀ R′ = κ̃),

T(ψ) = I − b ψ̃ + c ψ̃² the right-trivialised tangent operator (Cardona & Géradin;
``flexmbd.lie``).  Deformation e = [Γ − Γ₀; κ − κ₀] ordered (axial, shear 2, shear 3,
torsion, bending 2, bending 3), section law σ = D e, energy V = L0 Σ_g w_g ½ eᵀ D e.

Variations used throughout (δR = R (T δψ)~):

    δΓ = Rᵀ δx′ + Γ̃ T δψ,      δκ = dT(ψ, ψ′) δψ + T δψ′,

with dT(ψ, w) = ∂(T(ψ) w)/∂ψ (``lie.so3_dT``).  The exact stiffness also needs the
second derivative of T(ψ) w; see ``_hess_T``, ``_d2T`` and docs/elements/beam-r3r3.md.

Inertia: T_kin = ½ ∫ ρA |ẋ|² ds + ½ ∫ ωᵀ J_s ω ds with ω = T(ψ) ψ̇ the material angular
velocity; Lagrange's equations give per Gauss point the rotational inertia force
Tᵀ (J_s ω̇ + ω × J_s ω), ω̇ = T ψ̈ + dT(ψ, ψ̇) ψ̇ (``inertia_forces``).
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np

from ..lie import coefficient, se3_TUO, so3_dT, so3_exp, so3_T
from ..nodes.rotvec import _mv, _tmv, _tr  # noqa: F401  (one home for the batched products)
from ..rotations import skew

__all__ = [
    "GAUSS",
    "elastic_forces",
    "inertia_forces",
    "kinetic_energy",
    "rescale",
    "section_forces",
    "strains",
]

# --------------------------------------------------------------------------------------
# second-derivative coefficients (private; series below the threshold)
# --------------------------------------------------------------------------------------

#: ddb = (db)′(θ)/θ = 2 d(db)/d(θ²),  ddc = (dc)′(θ)/θ; Taylor coefficients in t = θ²
#: from b = Σ (−1)^k t^k/(2k+2)!, c = Σ (−1)^k t^k/(2k+3)! (exact rationals → double).
_DD_SERIES = {
    "ddb": np.array(
        [float(Fraction(4 * (k + 1) * (k + 2) * (-1) ** k, factorial(2 * k + 6))) for k in range(16)]
    ),
    "ddc": np.array(
        [float(Fraction(4 * (k + 1) * (k + 2) * (-1) ** k, factorial(2 * k + 7))) for k in range(16)]
    ),
}
#: Both branches are within ~1e-15 relative of a 50-digit reference on either side of
#: θ = 3.5 (series error ≤ 2.2e-16 below, closed form ≤ 2.7e-15 above).
_DD_THRESHOLD = 3.5


def _dd_coefficient(name, theta):
    """ddb = ((cos θ − a)/θ² − 4 db)/θ² or ddc = (db − 5 dc)/θ² (series for θ < 3.5)."""
    theta = np.asarray(theta, dtype=float)
    small = theta < _DD_THRESHOLD
    coeffs = _DD_SERIES[name]
    t = theta * theta
    ser = np.full_like(t, coeffs[-1])
    for ck in coeffs[-2::-1]:
        ser = ser * t + ck
    x = np.where(small, _DD_THRESHOLD, theta)
    db = coefficient("db", x)
    if name == "ddb":
        direct = ((np.cos(x) - coefficient("a", x)) / (x * x) - 4.0 * db) / (x * x)
    else:
        direct = (db - 5.0 * coefficient("dc", x)) / (x * x)
    return np.where(small, ser, direct)


# --------------------------------------------------------------------------------------
# small batched helpers
# --------------------------------------------------------------------------------------


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def _outer(a, b):
    return a[..., :, None] * b[..., None, :]


def _col(c):
    return c[..., None, None]


def _norm(v):
    return np.sqrt(_dot(v, v))


def _coeffs(psi):
    th = _norm(psi)
    return {
        "b": coefficient("b", th),
        "c": coefficient("c", th),
        "db": coefficient("db", th),
        "dc": coefficient("dc", th),
        "ddb": _dd_coefficient("ddb", th),
        "ddc": _dd_coefficient("ddc", th),
    }


def _hess_T(psi, a, m):
    """Hessian ∂²(mᵀ T(ψ) a)/∂ψ² = ∂/∂ψ [dT(ψ, a)ᵀ m]  (…, 3, 3), symmetric.

    With s = ψ·(a × m), n = a × m, p = m·ψ, r = ψ·a, μ = m·a, t = θ², Q = p r − t μ,
    u = r m + p a − 2 μ ψ:   mᵀ T a = μ − b s + c Q, and (∇b = db ψ, ∇db = ddb ψ, …)

        H = (ddc Q − ddb s) ψψᵀ − db (s I + ψnᵀ + nψᵀ) + dc (Q I + ψuᵀ + uψᵀ)
            + c (m aᵀ + a mᵀ − 2 μ I).
    """
    psi, a, m = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (psi, a, m)))
    k = _coeffs(psi)
    n = np.cross(a, m)
    s = _dot(psi, n)
    p = _dot(m, psi)
    r = _dot(psi, a)
    mu = _dot(m, a)
    t = _dot(psi, psi)
    Q = p * r - t * mu
    u = r[..., None] * m + p[..., None] * a - 2.0 * mu[..., None] * psi
    eye = np.eye(3)
    e = _col
    return (
        e(k["ddc"] * Q - k["ddb"] * s) * _outer(psi, psi)
        - e(k["db"]) * (e(s) * eye + _outer(psi, n) + _outer(n, psi))
        + e(k["dc"]) * (e(Q) * eye + _outer(psi, u) + _outer(u, psi))
        + e(k["c"]) * (_outer(m, a) + _outer(a, m) - 2.0 * e(mu) * eye)
    )


def _d2T(psi, a, v):
    """∂/∂ψ [dT(ψ, a) v]  (…, 3, 3): derivative of the directional derivative of T a.

    dT(ψ, a) v = −db (ψ×a)(ψ·v) + b (a×v) + dc (ψ̃²a)(ψ·v) + c (ψ(a·v) + (ψ·a)v − 2a(ψ·v)),
    differentiated term by term with ∂(ψ×a)/∂ψ = −ã, ∂(ψ̃²a)/∂ψ = ψaᵀ + (ψ·a)I − 2aψᵀ.
    """
    psi, a, v = np.broadcast_arrays(*(np.asarray(w, dtype=float) for w in (psi, a, v)))
    k = _coeffs(psi)
    e = _col
    eye = np.eye(3)
    pv = _dot(psi, v)
    pa = _dot(psi, a)
    av = _dot(a, v)
    pxa = np.cross(psi, a)
    ppa = np.cross(psi, pxa)
    axv = np.cross(a, v)
    d_ppa = _outer(psi, a) + e(pa) * eye - 2.0 * _outer(a, psi)
    lin = psi * av[..., None] + v * pa[..., None] - 2.0 * a * pv[..., None]
    return (
        -e(k["ddb"] * pv) * _outer(pxa, psi)
        - e(k["db"]) * (-e(pv) * skew(a) + _outer(pxa, v))
        + e(k["db"]) * _outer(axv, psi)
        + e(k["ddc"] * pv) * _outer(ppa, psi)
        + e(k["dc"]) * (e(pv) * d_ppa + _outer(ppa, v))
        + e(k["dc"]) * _outer(lin, psi)
        + e(k["c"]) * (e(av) * eye + _outer(v, a) - 2.0 * _outer(a, v))
    )


def _dT_dir(psi, v):
    """Directional derivative of the matrix T(ψ) along v: Σ_j v_j ∂T/∂ψ_j (…, 3, 3)."""
    return se3_TUO(v, psi)


# --------------------------------------------------------------------------------------
# rescaling
# --------------------------------------------------------------------------------------


def rescale(psi):
    """Equivalent rotation vector with |ψ| ≤ π: ψ (1 − 2πk/|ψ|), k = ⌈(|ψ| − π)/(2π)⌉.

    For π < |ψ| ≤ 3π (the case after a time step) this is ψ (1 − 2π/|ψ|); vectors with
    |ψ| ≤ π are returned unchanged.  exp(ψ̃) is unchanged (rotation by −(2π − θ) about
    the same axis).  Batched over leading dimensions.
    """
    psi = np.asarray(psi, dtype=float)
    th = _norm(psi)
    big = th > np.pi
    k = np.where(big, np.ceil((th - np.pi) / (2.0 * np.pi)), 0.0)
    safe = np.where(big, th, 1.0)
    return psi * (1.0 - 2.0 * np.pi * k / safe)[..., None]


# --------------------------------------------------------------------------------------
# elastic forces
# --------------------------------------------------------------------------------------

_G = 0.5 / np.sqrt(3.0)
#: Gauss rules on ζ ∈ [0, 1]: (points, weights).
GAUSS = {
    1: (np.array([0.5]), np.array([1.0])),
    2: (np.array([0.5 - _G, 0.5 + _G]), np.array([0.5, 0.5])),
}


def _mode_rule(mode):
    """Gauss rule and the strain map ê_g = Σ_h A[g, h] e_h of an integration mode."""
    if mode == "reduced":
        zeta, w = GAUSS[1]
        A = np.eye(6)[None, None]
    elif mode == "full":
        zeta, w = GAUSS[2]
        A = np.zeros((2, 2, 6, 6))
        A[0, 0] = A[1, 1] = np.eye(6)
    elif mode == "hw":
        # assumed shear strain constant per element = average of the pointwise shear
        zeta, w = GAUSS[2]
        Pn = np.diag([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
        Ps = np.diag([0.0, 1.0, 1.0, 0.0, 0.0, 0.0])
        A = np.empty((2, 2, 6, 6))
        for g in range(2):
            for h in range(2):
                A[g, h] = (Pn if g == h else 0.0) + w[h] * Ps
    else:
        raise ValueError(f"unknown integration mode {mode!r} (full, reduced, hw)")
    return zeta, w, A


def _gauss_state(q, L0, zeta):
    """x′, ψ, ψ′ at the Gauss points: each (n_el, n_g, 3)."""
    q = np.asarray(q, dtype=float)
    L0 = np.asarray(L0, dtype=float)
    xA, pA, xB, pB = q[:, 0:3], q[:, 3:6], q[:, 6:9], q[:, 9:12]
    dx = ((xB - xA) / L0[:, None])[:, None, :] * np.ones((1, len(zeta), 1))
    dpsi = ((pB - pA) / L0[:, None])[:, None, :] * np.ones((1, len(zeta), 1))
    psi = (1.0 - zeta)[None, :, None] * pA[:, None, :] + zeta[None, :, None] * pB[:, None, :]
    return dx, psi, dpsi


def strains(q, L0, zeta):
    """Material strains (Γ, κ) at points ζ: Γ = Rᵀ x′, κ = T(ψ) ψ′, each (n_el, n_g, 3)."""
    dx, psi, dpsi = _gauss_state(q, L0, np.asarray(zeta, dtype=float))
    R = so3_exp(psi)
    return _tmv(R, dx), _mv(so3_T(psi), dpsi)


def _deformations(q, q_ref, L0, zeta):
    G, k = strains(q, L0, zeta)
    G0, k0 = strains(q_ref, L0, zeta)
    return np.concatenate([G - G0, k - k0], -1)


def _map_blocks(L0, zeta):
    """p (n_el, n_g, 3, 4): block r of y_g = (x′, ψ, ψ′) is Σ_c p[r, c] q_c, with the
    3-blocks q_c of q = [x_A, ψ_A, x_B, ψ_B] (the map y_g = P_g q, P_g = p ⊗ I₃)."""
    n, ng = len(L0), len(zeta)
    il = (1.0 / L0)[:, None]
    p = np.zeros((n, ng, 3, 4))
    p[:, :, 0, 0], p[:, :, 0, 2] = -il, il
    p[:, :, 1, 1], p[:, :, 1, 3] = 1.0 - zeta, zeta
    p[:, :, 2, 1], p[:, :, 2, 3] = -il, il
    return p


def section_forces(q, q_ref, L0, D, mode="full"):
    """Section forces σ = D ê at the Gauss points of ``mode``: (n_el, n_g, 6).

    ê is the deformation e = [Γ − Γ₀; κ − κ₀], with the shear part replaced by its
    element average for ``mode="hw"`` (so the shear force is constant per element).
    """
    L0 = np.asarray(L0, dtype=float)
    zeta, _, A = _mode_rule(mode)
    e = _deformations(q, q_ref, L0, zeta)
    eh = np.einsum("ghij,nhj->ngi", A, e)
    return np.einsum("nij,ngj->ngi", np.asarray(D, dtype=float), eh)


def elastic_forces(q, q_ref, L0, D, mode="full", jacobians=True):
    """Elastic forces f = ∂V/∂q (n_el, 12), exact stiffness K = ∂²V/∂q² and energy V.

    V = L0 Σ_g w_g ½ êᵀ D ê with ê_g = Σ_h A_gh e_h (A = I for ``"full"`` (2-point Gauss)
    and ``"reduced"`` (1 point); for ``"hw"`` the Hu-Washizu form with constant assumed
    shear strain and stress, condensed: shear of ê = element average of the shear of e
    over the 2-point rule).  With E_g = ∂e_g/∂q and s_h = Σ_g A_ghᵀ w_g D ê_g,

        f = L0 Σ_h E_hᵀ s_h,
        K = L0 Σ_{g,h,k} E_hᵀ A_ghᵀ w_g D A_gk E_k + L0 Σ_h P_hᵀ G(s_h) P_h  (y_h = P_h q),

    G the geometric matrix in y = (x′, ψ, ψ′) for stress resultants (N, M) = s_h:
        G_x′ψ = −R Ñ T,  G_ψψ = dTᵀ(ψ, N×Γ) + Tᵀ Ñ Γ̃ T + H(ψ; ψ′, M),
        G_ψψ′ = dTᵀ(ψ, M)ᵀ,  where H is ``_hess_T`` and dTᵀ(ψ, w) = ∂(Tᵀ w)/∂ψ.

    Returns (f, K, V) or, with ``jacobians=False``, (f, V).
    """
    q = np.asarray(q, dtype=float)
    L0 = np.asarray(L0, dtype=float)
    D = np.asarray(D, dtype=float)
    zeta, w, A = _mode_rule(mode)
    dx, psi, dpsi = _gauss_state(q, L0, zeta)
    R = so3_exp(psi)
    T = so3_T(psi)
    Gam = _tmv(R, dx)
    kap = _mv(T, dpsi)
    G0, k0 = strains(q_ref, L0, zeta)
    e = np.concatenate([Gam - G0, kap - k0], -1)
    eh = np.einsum("ghij,nhj->ngi", A, e)
    sig = np.einsum("nij,ngj->ngi", D, eh)
    V = 0.5 * L0 * np.einsum("g,ngi,ngi->n", w, eh, sig)
    s = np.einsum("ghji,g,ngj->nhi", A, w, sig)  # s_h = Σ_g A_ghᵀ w_g σ_g

    # B_h = ∂e_h/∂y (6 × 9), y = (x′, ψ, ψ′)
    n, ng = psi.shape[:2]
    dTk = so3_dT(psi, dpsi)
    B = np.zeros((n, ng, 6, 9))
    B[..., 0:3, 0:3] = _tr(R)
    B[..., 0:3, 3:6] = skew(Gam) @ T
    B[..., 3:6, 3:6] = dTk
    B[..., 3:6, 6:9] = T
    p = _map_blocks(L0, zeta)
    pe = p[:, :, None]  # (n, ng, 1, 3, 4)
    E = _tr(np.swapaxes(B.reshape(n, ng, 6, 3, 3), -1, -2) @ pe).reshape(n, ng, 6, 12)
    f = L0[:, None] * np.einsum("nhij,nhi->nj", E, s)
    if not jacobians:
        return f, V

    # C[h, k] = Σ_g A_ghᵀ w_g D A_gk as one (6 n_g × 6 n_g) matrix per element
    AtW = np.einsum("ghai,g->ghia", A, w)
    C = np.einsum("ghia,nab,gkbj->nhikj", AtW, D, A, optimize=True).reshape(n, 6 * ng, 6 * ng)
    Ef = E.reshape(n, 6 * ng, 12)
    K = L0[:, None, None] * (_tr(Ef) @ C @ Ef)

    N, M = s[..., 0:3], s[..., 3:6]
    Nt = skew(N)
    G = np.zeros((n, ng, 9, 9))
    Gxp = -R @ Nt @ T
    G[..., 0:3, 3:6] = Gxp
    G[..., 3:6, 0:3] = _tr(Gxp)
    G[..., 3:6, 3:6] = (
        so3_dT(psi, np.cross(N, Gam), transpose=True)
        + _tr(T) @ Nt @ skew(Gam) @ T
        + _hess_T(psi, dpsi, M)
    )
    dTtM = so3_dT(psi, M, transpose=True)
    G[..., 3:6, 6:9] = _tr(dTtM)
    G[..., 6:9, 3:6] = dTtM
    # Σ_h P_hᵀ G_h P_h with P_h = p_h ⊗ I₃, as two batched products
    T1 = (_tr(p) @ G.reshape(n, ng, 3, 27)).reshape(n, ng, 4, 3, 3, 3)  # [c, i, s, j]
    T2 = np.swapaxes(T1, -1, -2).reshape(n, ng, 36, 3) @ p  # [(c, i, j), d]
    Kg = T2.reshape(n, ng, 4, 3, 3, 4).sum(1).transpose(0, 1, 2, 4, 3)  # [c, i, d, j]
    K += L0[:, None, None] * Kg.reshape(n, 12, 12)
    return f, K, V


# --------------------------------------------------------------------------------------
# inertia
# --------------------------------------------------------------------------------------


def _inertia_gauss(q, qd, qdd, zeta):
    pA, pB = q[:, 3:6], q[:, 9:12]
    NA, NB = (1.0 - zeta)[None, :, None], zeta[None, :, None]
    psi = NA * pA[:, None] + NB * pB[:, None]
    psid = NA * qd[:, None, 3:6] + NB * qd[:, None, 9:12]
    psidd = NA * qdd[:, None, 3:6] + NB * qdd[:, None, 9:12]
    return psi, psid, psidd


def _mass_translational(L0, rhoA):
    m = (rhoA * L0)[:, None, None]
    Mt = np.zeros((len(L0), 12, 12))
    eye = np.eye(3)
    Mt[:, 0:3, 0:3] = Mt[:, 6:9, 6:9] = m * eye / 3.0
    Mt[:, 0:3, 6:9] = Mt[:, 6:9, 0:3] = m * eye / 6.0
    return Mt


def kinetic_energy(q, qd, L0, rhoA, Js):
    """T_kin = ½ ∫ ρA |ẋ|² ds + ½ ∫ ωᵀ J_s ω ds, ω = T(ψ) ψ̇ (2-point Gauss): (n_el,)."""
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    L0 = np.asarray(L0, dtype=float)
    Mt = _mass_translational(L0, np.asarray(rhoA, dtype=float))
    zeta, w = GAUSS[2]
    psi, psid, _ = _inertia_gauss(q, qd, qd, zeta)
    om = _mv(so3_T(psi), psid)
    Tr = 0.5 * L0 * np.einsum("g,ngi,nij,ngj->n", w, om, np.asarray(Js, dtype=float), om)
    return 0.5 * np.einsum("ni,nij,nj->n", qd, Mt, qd) + Tr


def inertia_forces(q, qd, qdd, L0, rhoA, Js, jacobians=True):
    """Generalised inertia force F = M(q) q̈ + Q_v(q, q̇) = d/dt ∂T/∂q̇ − ∂T/∂q.

    Translational part: the constant consistent mass ρA L0 [[1/3, 1/6], [1/6, 1/3]] ⊗ I.
    Rotational part, per Gauss point (2-point rule, ψ, ψ̇, ψ̈ interpolated linearly):

        ω = T ψ̇,  ω̇ = T ψ̈ + dT(ψ, ψ̇) ψ̇,  h = J_s ω,  z = J_s ω̇ + ω × h,  F_ψ = Tᵀ z,

    (Lagrange's equations with ∂T/∂ψ̇ = Tᵀ h; the terms Ṫᵀ h − dT(ψ, ψ̇)ᵀ h reduce
    to Tᵀ (ω × h)), scattered with L0 w_g N_a.  Jacobians:

        ∂F_ψ/∂ψ̈ = Tᵀ J_s T,
        ∂F_ψ/∂ψ̇ = Tᵀ [J_s (dT(ψ, ψ̇) + T′[ψ̇]) + (ω̃ J_s − h̃) T],
        ∂F_ψ/∂ψ = dTᵀ(ψ, z) + Tᵀ [J_s (dT(ψ, ψ̈) + ∂(dT(ψ, ψ̇) ψ̇)/∂ψ) + (ω̃ J_s − h̃) dT(ψ, ψ̇)],

    T′[v] = Σ v_j ∂T/∂ψ_j (``lie.se3_TUO(v, ψ)``), ∂(dT(ψ, a) v)/∂ψ from ``_d2T``.

    Returns F (n_el, 12) and, with ``jacobians``, also ∂F/∂q, ∂F/∂q̇, M = ∂F/∂q̈
    (each (n_el, 12, 12)).
    """
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    qdd = np.asarray(qdd, dtype=float)
    L0 = np.asarray(L0, dtype=float)
    Js = np.asarray(Js, dtype=float)
    Mt = _mass_translational(L0, np.asarray(rhoA, dtype=float))
    zeta, w = GAUSS[2]
    psi, psid, psidd = _inertia_gauss(q, qd, qdd, zeta)
    T = so3_T(psi)
    Jg = Js[:, None]
    dTv = so3_dT(psi, psid)
    om = _mv(T, psid)
    al = _mv(T, psidd) + _mv(dTv, psid)
    h = _mv(Jg, om)
    z = _mv(Jg, al) + np.cross(om, h)
    Fg = _tmv(T, z)  # (n, ng, 3)

    Nn = np.stack([1.0 - zeta, zeta], -1)  # (ng, 2): N_a(ζ_g)
    wt = L0[:, None] * w[None, :]  # (n, ng)
    F = np.einsum("nij,nj->ni", Mt, qdd)
    Fr = np.einsum("ng,ga,ngi->nai", wt, Nn, Fg)  # (n, 2, 3)
    F[:, 3:6] += Fr[:, 0]
    F[:, 9:12] += Fr[:, 1]
    if not jacobians:
        return F

    Tt = _tr(T)
    gyro = skew(om) @ Jg - skew(h)
    Mg = Tt @ Jg @ T
    Cg = Tt @ (Jg @ (dTv + _dT_dir(psi, psid)) + gyro @ T)
    Kg = so3_dT(psi, z, transpose=True) + Tt @ (
        Jg @ (so3_dT(psi, psidd) + _d2T(psi, psid, psid)) + gyro @ dTv
    )

    def scatter(Xg):
        blocks = np.einsum("ng,ga,gb,ngij->nabij", wt, Nn, Nn, Xg)
        out = np.zeros((len(L0), 12, 12))
        for a in range(2):
            for b in range(2):
                out[:, 6 * a + 3 : 6 * a + 6, 6 * b + 3 : 6 * b + 6] = blocks[:, a, b]
        return out

    M = Mt + scatter(Mg)
    return F, scatter(Kg), scatter(Cg), M
