"""Lie-group toolkit for SO(3) and SE(3): exponential/logarithm maps, tangent operators.

Pure NumPy; every function accepts leading batch dimensions (``(..., 3)`` rotation
vectors, ``(..., 6)`` twists, ``(..., 3, 3)`` / ``(..., 4, 4)`` matrices).  Conventions
follow Sonneville, Cardona & Brüls (2014), *Geometrically exact beam finite element
formulated on the special Euclidean group SE(3)*, CMAME 268, and Brüls & Cardona (2010);
see ``docs/lie-groups.md`` for the formulas, the series thresholds and the tests.

SO(3)
    ψ ∈ R³ is a rotation vector, θ = |ψ|, ψ̃ = ``so3_hat(ψ)`` (ψ̃ w = ψ × w).
    ``so3_exp(ψ) = I + α ψ̃ + b ψ̃²``  with α = sin θ/θ, b = (1 − cos θ)/θ² (= β/2).
    **Tangent operator, right-trivialised**:  for a variation δψ,
        d/dε exp(ψ + ε δψ)|₀ = exp(ψ) (T(ψ) δψ)~,
        T(ψ) = I − b ψ̃ + c ψ̃²,  c = (θ − sin θ)/θ³,
        T⁻¹(ψ) = I + ½ ψ̃ + g ψ̃²,  g = (1 − (θ/2) cot(θ/2))/θ²,
    and T(ψ)ᵀ = T(−ψ) is the left-trivialised operator (d exp = (Tᵀ δψ)~ exp(ψ)).
    ``so3_log`` returns the rotation vector with θ ∈ [0, π] (quaternion route, no
    division by sin θ).

SE(3)
    A frame is the 4×4 matrix H = [[R, x], [0, 1]].  A twist is the 6-vector
    h = (U, Ω): **translational part first**, as in Sonneville et al.;
    ``se3_hat(h) = [[Ω̃, U], [0, 0]]``.
    ``se3_exp(h) = [[exp(Ω), T(Ω)ᵀ U], [0, 1]]``, ``ad(h) = [[Ω̃, Ũ], [0, Ω̃]]``,
    d/dε exp(h + ε δh)|₀ = exp(h) (T_SE3(h) δh)~ with
    T_SE3(h) = [[T(Ω), T_UΩ(U, Ω)], [0, T(Ω)]] = Σ_k (−1)^k ad(h)^k / (k+1)!.

Quaternions
    p = [e0, e1, e2, e3] with A(p) = ``flexmbd.rotations.rotation_matrix(p)``;
    ``quat_from_rotvec(ψ)`` gives A = exp(ψ̃); ``quat_multiply`` is the Hamilton product,
    A(p ⊗ q) = A(p) A(q); ``quat_increment(p, Δθ) = p ⊗ exp(Δθ)`` is the body-frame
    (right) update A → A exp(Δθ̃).

Scalar coefficients (functions of θ² only) are evaluated by their Taylor series below
``THRESHOLDS[name]`` and by the closed form above it; both branches agree to a few ulp
at the threshold (see the docs for how the thresholds were chosen).
"""
from __future__ import annotations

import numpy as np

from .rotations import skew

__all__ = [
    "THRESHOLDS",
    "coefficient",
    "quat_conjugate",
    "quat_from_matrix",
    "quat_from_rotvec",
    "quat_increment",
    "quat_multiply",
    "quat_to_rotvec",
    "se3_Ad",
    "se3_T",
    "se3_TUO",
    "se3_Tinv",
    "se3_act",
    "se3_ad",
    "se3_compose",
    "se3_dT",
    "se3_dTinv",
    "se3_ddT",
    "se3_exp",
    "se3_from_Rx",
    "se3_hat",
    "se3_inv",
    "se3_log",
    "se3_to_Rx",
    "se3_vee",
    "so3_T",
    "so3_Tinv",
    "so3_dT",
    "so3_dTinv",
    "so3_ddT",
    "so3_exp",
    "so3_hat",
    "so3_log",
    "so3_vee",
]

# --------------------------------------------------------------------------------------
# scalar coefficients
# --------------------------------------------------------------------------------------

#: Taylor coefficients in powers of t = θ² (exact rationals rounded to double; generated
#: with sympy from the closed forms in ``_DIRECT``).
_SERIES = {
    "a": np.array([1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06, -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13, 2.8114572543455206e-15, -8.22063524662433e-18, 1.9572941063391263e-20, -3.868170170630684e-23]),
    "b": np.array([0.5, -0.041666666666666664, 0.001388888888888889, -2.48015873015873e-05, 2.755731922398589e-07, -2.08767569878681e-09, 1.1470745597729725e-11, -4.779477332387385e-14, 1.5619206968586225e-16, -4.110317623312165e-19, 8.896791392450574e-22, -1.6117375710961184e-24]),
    "c": np.array([0.16666666666666666, -0.008333333333333333, 0.0001984126984126984, -2.7557319223985893e-06, 2.505210838544172e-08, -1.6059043836821613e-10, 7.647163731819816e-13, -2.8114572543455206e-15, 8.22063524662433e-18, -1.9572941063391263e-20, 3.868170170630684e-23, -6.446950284384474e-26]),
    "g": np.array([0.08333333333333333, 0.001388888888888889, 3.306878306878307e-05, 8.267195767195768e-07, 2.08767569878681e-08, 5.284190138687493e-10, 1.3382536530684679e-11, 3.3896802963225827e-13, 8.586062056277845e-15, 2.174868698558062e-16, 5.5090028283602295e-18, 1.3954464685812522e-19, 3.534707039629467e-21, 8.953517427037546e-23, 2.267952452337683e-24, 5.744790668872202e-26, 1.455172475614865e-27, 3.6859949406653103e-29, 9.336734257095045e-31, 2.36502241570063e-32, 5.990671762482134e-34, 1.5174548844682903e-35, 3.843758125454189e-37, 9.736353072646691e-39, 2.466247044200681e-40, 6.247076741820743e-42, 1.5824030244644914e-43, 4.008273685948936e-45, 1.0153075855569557e-46, 2.5718041582418717e-48, 6.514456035233815e-50, 1.6501309906896525e-51]),
    "db": np.array([-0.08333333333333333, 0.005555555555555556, -0.00014880952380952382, 2.204585537918871e-06, -2.08767569878681e-08, 1.376489471727567e-10, -6.691268265342339e-13, 2.499073114973796e-15, -7.398571721961897e-18, 1.7793582784901146e-20, -3.54582265641146e-23, 5.951031031739514e-26]),
    "dc": np.array([-0.016666666666666666, 0.0007936507936507937, -1.6534391534391536e-05, 2.0041686708353376e-07, -1.6059043836821615e-09, 9.17659647818378e-12, -3.936040156083729e-14, 1.3153016394598927e-16, -3.523129391410427e-19, 7.736340341261368e-22, -1.4183290625645841e-24, 2.204085567310931e-27]),
    "dg": np.array([0.002777777777777778, 0.00013227513227513228, 4.96031746031746e-06, 1.670140559029448e-07, 5.2841901386874934e-09, 1.6059043836821613e-10, 4.745552414851616e-12, 1.3737699290044552e-13, 3.914763657404511e-15, 1.1018005656720459e-16, 3.069982230878755e-18, 8.483296895110721e-20, 2.327914531029762e-21, 6.350266866545513e-23, 1.7234372006616606e-24, 4.656551921967568e-26, 1.2532382798262054e-27, 3.3612243325542163e-29, 8.987085179662393e-31, 2.3962687049928537e-32, 6.373310514766819e-34, 1.6912535751998429e-35, 4.478722413417478e-37, 1.183798581216327e-38, 3.1235383709103717e-40, 8.228495727215355e-42, 2.1644677904124254e-43, 5.685722479118952e-45, 1.4916464117802855e-46, 3.908673621140289e-48, 1.0230812142275845e-49, 2.6750916022652644e-51]),
    "hs": np.array([0.5, -0.020833333333333332, 0.00026041666666666666, -1.5500992063492063e-06, 5.382288910934745e-09, -1.2232474797578965e-11, 1.9603324996120133e-14, -2.333729166204778e-17, 2.1449716601146855e-20, -1.5679617398499164e-23, 9.333105594344741e-27, -4.6112181790240814e-30]),
    "ddb": np.array([0.011111111111111112, -0.0005952380952380953, 1.3227513227513228e-05, -1.670140559029448e-07, 1.376489471727567e-09, -8.029521918410807e-12, 3.498702360963315e-14, -1.1837714755139035e-16, 3.2028449012822063e-19, -7.091645312822921e-22, 1.309226826982693e-24, -2.046650883931579e-27, 2.744550993777979e-30, -3.192328234077984e-33, 3.251671234100315e-36, -2.9247836497198605e-39, 2.340242962969305e-42, -1.676644656727632e-45, 1.0818458231562988e-48, -6.3198960404701995e-52, 3.3583988620856136e-55, -1.6304283567200504e-58, 7.2597923119260134e-62, -2.9755198340571564e-65]),
    "ddc": np.array([0.0015873015873015873, -6.613756613756614e-05, 1.2025012025012026e-06, -1.2847235069457292e-08, 9.17659647818378e-11, -4.723248187300475e-13, 1.8414222952438498e-15, -5.6370070262566834e-18, 1.3925412614270462e-20, -2.836658125129168e-23, 4.848988248084048e-26, -7.057416841143375e-29, 8.853390302509611e-32, -9.673721921448438e-35, 9.290489240286615e-38, -7.904820674918542e-41, 6.000622981972577e-44, -4.0893772115308096e-47, 2.5159205189681365e-50, -1.4044213423267111e-53, 7.145529493799178e-57, -3.327404809632756e-60, 1.4234886886129437e-63, -5.614188366145579e-67]),
    "dddb": np.array([-0.0011904761904761906, 5.291005291005291e-05, -1.0020843354176687e-06, 1.1011915773820535e-08, -8.029521918410807e-11, 4.198442833155978e-13, -1.6572800657194648e-15, 5.12455184205153e-18, -1.2764961563081257e-20, 2.6184536539653863e-23, -4.5026319446494734e-26, 6.58692238506715e-29, -8.30005340860276e-32, 9.104679455480883e-35, -8.774350949159582e-38, 7.488777481501776e-41, -5.700591832873948e-44, 3.8946449633626755e-47, -2.401560495378676e-50, 1.3433595448342453e-53, -6.847799098224212e-57, 3.194308617247446e-60, -1.368739123666292e-63, 5.406255463695742e-67]),
    "dddc": np.array([-0.00013227513227513228, 4.81000481000481e-06, -7.708341041674375e-08, 7.341277182547024e-10, -4.723248187300475e-12, 2.2097067542926197e-14, -7.891809836759357e-17, 2.228066018283274e-19, -5.105984625232503e-22, 9.697976496168096e-25, -1.5526317050515426e-27, 2.1248136726023066e-30, -2.515167699576594e-33, 2.6013369872802523e-36, -2.3714462024755626e-39, 1.9201993542312247e-42, -1.3903882519204752e-45, 9.057313868285292e-49, -5.336801100841502e-52, 2.858211797519671e-55, -1.3975100200457576e-58, 6.263350229896952e-62, -2.5825266484269663e-65, 9.829555388537713e-69]),
}

#: θ below which each coefficient is evaluated by its series (see docs/lie-groups.md).
THRESHOLDS = {
    "a": 1.0,  # sin θ / θ
    "b": 1.0,  # (1 − cos θ) / θ²
    "c": 1.5,  # (θ − sin θ) / θ³
    "g": 2.0,  # (1 − (θ/2) cot(θ/2)) / θ²
    "db": 2.0,  # b'(θ) / θ
    "dc": 2.5,  # c'(θ) / θ
    "dg": 3.0,  # g'(θ) / θ
    "hs": 1.0,  # sin(θ/2) / θ
    "ddb": 3.0,  # (db)'(θ) / θ
    "ddc": 4.0,  # (dc)'(θ) / θ
    "dddb": 4.0,  # (ddb)'(θ) / θ
    "dddc": 4.5,  # (ddc)'(θ) / θ
}


def _a(x):
    return np.sin(x) / x


def _b(x):
    s = np.sin(0.5 * x) / (0.5 * x)
    return 0.5 * s * s


def _c(x):
    return (x - np.sin(x)) / x**3


def _q(x):
    h = 0.5 * x
    return h * np.cos(h) / np.sin(h)


def _g(x):
    return (1.0 - _q(x)) / (x * x)


def _db(x):
    return (_a(x) - 2.0 * _b(x)) / (x * x)


def _dc(x):
    return (_b(x) - 3.0 * _c(x)) / (x * x)


def _dg(x):
    h = 0.5 * x
    s = h / np.sin(h)
    return ((s * s - _q(x)) / (x * x) - 2.0 * _g(x)) / (x * x)


def _hs(x):
    return np.sin(0.5 * x) / x


def _da(x):
    return (np.cos(x) - _a(x)) / (x * x)  # a'(θ)/θ


def _ddb(x):
    return (_da(x) - 4.0 * _db(x)) / (x * x)


def _ddc(x):
    return (_db(x) - 5.0 * _dc(x)) / (x * x)


def _dda(x):
    return (-_a(x) - 3.0 * _da(x)) / (x * x)  # (a'/θ)'/θ


def _dddb(x):
    return (_dda(x) - 6.0 * _ddb(x)) / (x * x)


def _dddc(x):
    return (_ddb(x) - 7.0 * _ddc(x)) / (x * x)


_DIRECT = {
    "a": _a, "b": _b, "c": _c, "g": _g, "db": _db, "dc": _dc, "dg": _dg, "hs": _hs,
    "ddb": _ddb, "ddc": _ddc, "dddb": _dddb, "dddc": _dddc,
}


def coefficient(name, theta):
    """Scalar coefficient ``name`` at angle(s) ``theta`` ≥ 0 (series below threshold).

    Names: ``a`` = sin θ/θ, ``b`` = (1−cos θ)/θ², ``c`` = (θ−sin θ)/θ³,
    ``g`` = (1 − (θ/2)cot(θ/2))/θ², ``db`` = b′/θ, ``dc`` = c′/θ, ``dg`` = g′/θ,
    ``hs`` = sin(θ/2)/θ, ``ddb`` = (db)′/θ, ``ddc`` = (dc)′/θ, ``dddb`` = (ddb)′/θ,
    ``dddc`` = (ddc)′/θ.
    """
    theta = np.asarray(theta, dtype=float)
    small = theta < THRESHOLDS[name]
    coeffs = _SERIES[name]
    t = theta * theta
    ser = np.full_like(t, coeffs[-1])
    for ck in coeffs[-2::-1]:
        ser = ser * t + ck
    safe = np.where(small, 1.0, theta)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = _DIRECT[name](safe)
    return np.where(small, ser, direct)


def _norm(v):
    return np.sqrt(np.einsum("...i,...i->...", v, v))


def _cross(a, b):
    return np.cross(a, b)


# --------------------------------------------------------------------------------------
# SO(3)
# --------------------------------------------------------------------------------------


def so3_hat(psi):
    """ψ̃ (…, 3, 3) with ψ̃ w = ψ × w (same as ``flexmbd.rotations.skew``)."""
    return skew(psi)


def so3_vee(X):
    """Inverse of ``so3_hat``: the axial vector of the skew part of X (…, 3, 3)."""
    X = np.asarray(X, dtype=float)
    return 0.5 * np.stack(
        [X[..., 2, 1] - X[..., 1, 2], X[..., 0, 2] - X[..., 2, 0], X[..., 1, 0] - X[..., 0, 1]],
        -1,
    )


def _quadratic(psi, c0, c1, c2, sign1=1.0):
    """c0 I + c1 ψ̃ + c2 ψ̃² with ψ̃² = ψψᵀ − θ² I (batched)."""
    psi = np.asarray(psi, dtype=float)
    t = np.einsum("...i,...i->...", psi, psi)
    eye = np.eye(3)
    return (
        (c0 - c2 * t)[..., None, None] * eye
        + (sign1 * c1)[..., None, None] * skew(psi)
        + c2[..., None, None] * psi[..., :, None] * psi[..., None, :]
    )


def so3_exp(psi):
    """Rotation matrix exp(ψ̃) (Rodrigues), (…, 3) → (…, 3, 3)."""
    psi = np.asarray(psi, dtype=float)
    th = _norm(psi)
    return _quadratic(psi, np.ones_like(th), coefficient("a", th), coefficient("b", th))


def so3_log(R):
    """Rotation vector ψ (|ψ| ∈ [0, π]) with exp(ψ̃) = R, via the unit quaternion.

    ψ = 2 atan2(|e|, e0) e/|e| with e0 ≥ 0; no division by sin θ, exact at θ = 0,
    accurate up to and at θ = π (where ±ψ are both logarithms).
    """
    return quat_to_rotvec(_quat_from_matrix_unnormalised(R))


def so3_T(psi):
    """Right-trivialised tangent operator T(ψ) = I − b ψ̃ + c ψ̃²  (…, 3, 3).

    d/dε exp(ψ + ε δψ) = exp(ψ) (T(ψ) δψ)~.  T(ψ)ᵀ = T(−ψ).
    """
    psi = np.asarray(psi, dtype=float)
    th = _norm(psi)
    return _quadratic(psi, np.ones_like(th), -coefficient("b", th), coefficient("c", th))


def so3_Tinv(psi):
    """T(ψ)⁻¹ = I + ½ ψ̃ + g ψ̃², g = (1 − (θ/2)cot(θ/2))/θ²  (singular only at θ = 2π)."""
    psi = np.asarray(psi, dtype=float)
    th = _norm(psi)
    return _quadratic(psi, np.ones_like(th), 0.5 * np.ones_like(th), coefficient("g", th))


def _d_quadratic(psi, w, c1, c2, dc1, dc2):
    """∂/∂ψ [c1(θ) ψ̃ w + c2(θ) ψ̃² w] with dcᵢ = cᵢ′(θ)/θ."""
    psi = np.asarray(psi, dtype=float)
    w = np.asarray(w, dtype=float)
    psi, w = np.broadcast_arrays(psi, w)
    pw = np.einsum("...i,...i->...", psi, w)
    pxw = _cross(psi, w)
    ppw = _cross(psi, pxw)  # ψ̃² w = ψ (ψ·w) − w θ²
    outer = lambda a, b: a[..., :, None] * b[..., None, :]
    eye = np.eye(3)
    d_ppw = outer(psi, w) + pw[..., None, None] * eye - 2.0 * outer(w, psi)
    return (
        dc1[..., None, None] * outer(pxw, psi)
        - c1[..., None, None] * skew(w)
        + dc2[..., None, None] * outer(ppw, psi)
        + c2[..., None, None] * d_ppw
    )


def so3_dT(psi, w, transpose=False):
    """∂(T(ψ) w)/∂ψ (…, 3, 3); with ``transpose=True``, ∂(T(ψ)ᵀ w)/∂ψ."""
    psi = np.asarray(psi, dtype=float)
    if transpose:
        return -so3_dT(-psi, w)
    th = _norm(psi)
    return _d_quadratic(
        psi, w, -coefficient("b", th), coefficient("c", th), -coefficient("db", th),
        coefficient("dc", th),
    )


def so3_dTinv(psi, w, transpose=False):
    """∂(T⁻¹(ψ) w)/∂ψ (…, 3, 3); with ``transpose=True``, ∂(T⁻ᵀ(ψ) w)/∂ψ."""
    psi = np.asarray(psi, dtype=float)
    if transpose:
        return -so3_dTinv(-psi, w)
    th = _norm(psi)
    half = 0.5 * np.ones_like(th)
    return _d_quadratic(psi, w, half, coefficient("g", th), np.zeros_like(th), coefficient("dg", th))


# --------------------------------------------------------------------------------------
# quaternions (Euler parameters, flexmbd.rotations convention)
# --------------------------------------------------------------------------------------


def quat_multiply(p, q):
    """Hamilton product p ⊗ q, so that A(p ⊗ q) = A(p) A(q)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    p0, pv = p[..., 0], p[..., 1:]
    q0, qv = q[..., 0], q[..., 1:]
    s = p0 * q0 - np.einsum("...i,...i->...", pv, qv)
    v = p0[..., None] * qv + q0[..., None] * pv + _cross(pv, qv)
    return np.concatenate([s[..., None], v], -1)


def quat_conjugate(p):
    """p* = [e0, −e]; A(p*) = A(p)ᵀ."""
    p = np.asarray(p, dtype=float)
    return np.concatenate([p[..., :1], -p[..., 1:]], -1)


def quat_from_rotvec(psi):
    """Unit quaternion [cos(θ/2), sin(θ/2) ψ/θ] with A(p) = exp(ψ̃)."""
    psi = np.asarray(psi, dtype=float)
    th = _norm(psi)
    return np.concatenate([np.cos(0.5 * th)[..., None], coefficient("hs", th)[..., None] * psi], -1)


def quat_to_rotvec(p):
    """Rotation vector of a (not necessarily normalised) quaternion, |ψ| ∈ [0, π].

    Scale invariant: ψ = 2 atan2(|e|, |e0|) sign(e0) e/|e|, with the limit
    2 sign(e0) e/|e0| (1 − |e|²/(3 e0²)) for |e| < 1e-8 |e0| (no loss for tiny or
    subnormal e).
    """
    p = np.asarray(p, dtype=float)
    e0, e = p[..., 0], p[..., 1:]
    sgn = np.where(e0 < 0.0, -1.0, 1.0)
    e0 = e0 * sgn
    s = _norm(e)
    th = 2.0 * np.arctan2(s, e0)
    # θ/s, and its limit (2/e0)(1 − r²/3), r = s/e0, when s ≪ e0 (also covers s
    # underflowing to 0 for |e| < 1e-154, where θ/s is not computable)
    tiny = s < 1e-8 * e0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = s / np.where(tiny, e0, 1.0)
        factor = np.where(
            tiny, 2.0 / np.where(tiny, e0, 1.0) * (1.0 - r * r / 3.0), th / np.where(tiny, 1.0, s)
        )
    factor = np.where((s == 0.0) & (e0 == 0.0), 0.0, factor)
    return (factor * sgn)[..., None] * e


def _quat_from_matrix_unnormalised(R):
    """Shepperd's method, batched; returns 2r·p (not unit) with e0 ≥ 0."""
    R = np.asarray(R, dtype=float)
    d = np.stack([R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], -1)
    tr = d.sum(-1)
    cands = np.concatenate([tr[..., None], d], -1)
    choice = np.argmax(cands, axis=-1)
    # skew and symmetric off-diagonal combinations
    k0 = R[..., 2, 1] - R[..., 1, 2]
    k1 = R[..., 0, 2] - R[..., 2, 0]
    k2 = R[..., 1, 0] - R[..., 0, 1]
    s01 = R[..., 0, 1] + R[..., 1, 0]
    s02 = R[..., 0, 2] + R[..., 2, 0]
    s12 = R[..., 1, 2] + R[..., 2, 1]
    # each candidate is 4 r p with r² = 4 (the chosen component)², i.e. scaled quaternion
    with np.errstate(invalid="ignore"):
        r0 = 1.0 + tr
        r1 = 1.0 + 2.0 * d[..., 0] - tr
        r2 = 1.0 + 2.0 * d[..., 1] - tr
        r3 = 1.0 + 2.0 * d[..., 2] - tr
    q = np.stack(
        [
            np.stack([r0, k0, k1, k2], -1),
            np.stack([k0, r1, s01, s02], -1),
            np.stack([k1, s01, r2, s12], -1),
            np.stack([k2, s02, s12, r3], -1),
        ],
        -2,
    )  # q[..., i, :] = 4 p_i p   (exact identities for a rotation matrix)
    p = np.take_along_axis(q, choice[..., None, None], axis=-2)[..., 0, :]
    sgn = np.where(p[..., 0] < 0.0, -1.0, 1.0)
    return p * sgn[..., None]


def quat_from_matrix(R):
    """Unit quaternion (e0 ≥ 0) of rotation matrices (…, 3, 3); batched Shepperd."""
    p = _quat_from_matrix_unnormalised(R)
    return p / _norm(p)[..., None]


def quat_increment(p, dtheta):
    """Body-frame update p ⊗ exp(Δθ): A(result) = A(p) exp(Δθ̃)."""
    return quat_multiply(p, quat_from_rotvec(dtheta))


# --------------------------------------------------------------------------------------
# SE(3)
# --------------------------------------------------------------------------------------


def se3_hat(h):
    """h = (U, Ω) (…, 6) → [[Ω̃, U], [0, 0]] (…, 4, 4)."""
    h = np.asarray(h, dtype=float)
    out = np.zeros(h.shape[:-1] + (4, 4))
    out[..., :3, :3] = skew(h[..., 3:])
    out[..., :3, 3] = h[..., :3]
    return out


def se3_vee(X):
    """Inverse of ``se3_hat``: (…, 4, 4) → (U, Ω) (…, 6)."""
    X = np.asarray(X, dtype=float)
    return np.concatenate([X[..., :3, 3], so3_vee(X[..., :3, :3])], -1)


def se3_from_Rx(R, x):
    """Homogeneous matrix [[R, x], [0, 1]] (…, 4, 4)."""
    R = np.asarray(R, dtype=float)
    x = np.asarray(x, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], x.shape[:-1])
    H = np.zeros(shape + (4, 4))
    H[..., :3, :3] = R
    H[..., :3, 3] = x
    H[..., 3, 3] = 1.0
    return H


def se3_to_Rx(H):
    """(R, x) of a homogeneous matrix."""
    H = np.asarray(H, dtype=float)
    return H[..., :3, :3], H[..., :3, 3]


def se3_compose(H1, H2):
    """H1 H2 (frame H2 expressed in H1)."""
    return np.matmul(H1, H2)


def se3_inv(H):
    """H⁻¹ = [[Rᵀ, −Rᵀ x], [0, 1]]."""
    R, x = se3_to_Rx(H)
    Rt = np.swapaxes(R, -1, -2)
    return se3_from_Rx(Rt, -np.einsum("...ij,...j->...i", Rt, x))


def se3_act(H, y):
    """Point transformation R y + x."""
    R, x = se3_to_Rx(H)
    return np.einsum("...ij,...j->...i", R, np.asarray(y, dtype=float)) + x


def se3_exp(h):
    """exp(h̃) = [[exp(Ω̃), T(Ω)ᵀ U], [0, 1]] for h = (U, Ω) (…, 6) → (…, 4, 4)."""
    h = np.asarray(h, dtype=float)
    U, Om = h[..., :3], h[..., 3:]
    th = _norm(Om)
    b = coefficient("b", th)[..., None]
    c = coefficient("c", th)[..., None]
    oxu = _cross(Om, U)
    x = U + b * oxu + c * _cross(Om, oxu)  # T(Ω)ᵀ U = T(−Ω) U
    return se3_from_Rx(so3_exp(Om), x)


def se3_log(H):
    """h = (U, Ω) with exp(h̃) = H; Ω = so3_log(R), U = T(Ω)⁻ᵀ x."""
    R, x = se3_to_Rx(H)
    Om = so3_log(R)
    th = _norm(Om)
    g = coefficient("g", th)[..., None]
    oxx = _cross(Om, x)
    U = x - 0.5 * oxx + g * _cross(Om, oxx)  # T⁻ᵀ(Ω) = T⁻¹(−Ω)
    return np.concatenate([U, Om], -1)


def se3_ad(h):
    """ad(h) = [[Ω̃, Ũ], [0, Ω̃]] (…, 6, 6): ad(h1) h2 = vee([h̃1, h̃2])."""
    h = np.asarray(h, dtype=float)
    out = np.zeros(h.shape[:-1] + (6, 6))
    W = skew(h[..., 3:])
    out[..., :3, :3] = W
    out[..., 3:, 3:] = W
    out[..., :3, 3:] = skew(h[..., :3])
    return out


def se3_Ad(H):
    """Ad(H) = [[R, x̃ R], [0, R]] (…, 6, 6): H h̃ H⁻¹ = (Ad(H) h)~."""
    R, x = se3_to_Rx(H)
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = R
    out[..., 3:, 3:] = R
    out[..., :3, 3:] = np.matmul(skew(x), R)
    return out


def se3_TUO(U, Om):
    """Coupling block T_UΩ(U, Ω) of T_SE3 (Sonneville et al. 2014, appendix).

    T_UΩ = −b Ũ + c (Ũ Ω̃ + Ω̃ Ũ) + (Ωᵀ U) (−db Ω̃ + dc Ω̃²), i.e. in the paper's
    notation −β/2 Ũ + (1−α)/θ² (ŨΩ̃ + Ω̃Ũ) + (ΩᵀU)/θ² ((β−α) Ω̃ + (β/2 − 3(1−α)/θ²) Ω̃²).
    """
    U = np.asarray(U, dtype=float)
    Om = np.asarray(Om, dtype=float)
    th = _norm(Om)
    b = coefficient("b", th)[..., None, None]
    c = coefficient("c", th)[..., None, None]
    db = coefficient("db", th)[..., None, None]
    dc = coefficient("dc", th)[..., None, None]
    Ut = skew(U)
    Wt = skew(Om)
    ou = np.einsum("...i,...i->...", Om, U)[..., None, None]
    return -b * Ut + c * (Ut @ Wt + Wt @ Ut) + ou * (-db * Wt + dc * (Wt @ Wt))


def se3_T(h):
    """Right-trivialised tangent operator of SE(3), (…, 6) → (…, 6, 6).

    d/dε exp(h + ε δh) = exp(h) (T_SE3(h) δh)~;  T_SE3 = [[T(Ω), T_UΩ], [0, T(Ω)]].
    """
    h = np.asarray(h, dtype=float)
    T = so3_T(h[..., 3:])
    out = np.zeros(h.shape[:-1] + (6, 6))
    out[..., :3, :3] = T
    out[..., 3:, 3:] = T
    out[..., :3, 3:] = se3_TUO(h[..., :3], h[..., 3:])
    return out


def se3_Tinv(h):
    """T_SE3(h)⁻¹ = [[T⁻¹, −T⁻¹ T_UΩ T⁻¹], [0, T⁻¹]] (…, 6, 6)."""
    h = np.asarray(h, dtype=float)
    Ti = so3_Tinv(h[..., 3:])
    out = np.zeros(h.shape[:-1] + (6, 6))
    out[..., :3, :3] = Ti
    out[..., 3:, 3:] = Ti
    out[..., :3, 3:] = -Ti @ se3_TUO(h[..., :3], h[..., 3:]) @ Ti
    return out


# --------------------------------------------------------------------------------------
# derivatives of the tangent operators (exact stiffness of SE(3) beams)
# --------------------------------------------------------------------------------------
#
# T(ψ) w = w − b(θ) ψ̃w + c(θ) ψ̃²w is a sum of products "scalar function of θ" × "vector
# polynomial in ψ".  Its derivatives of any order follow from the Leibniz rule with
#   ∂f/∂ψ_j = f₁ ψ_j,  ∂²f/∂ψ_j∂ψ_k = f₂ ψ_jψ_k + f₁ δ_jk,
#   ∂³f/∂ψ_j∂ψ_k∂ψ_m = f₃ ψ_jψ_kψ_m + f₂ (δ_jk ψ_m + δ_jm ψ_k + δ_km ψ_j),
# where f₁ = f′/θ, f₂ = f₁′/θ, f₃ = f₂′/θ (``db``, ``ddb``, … — all even in θ), and
#   ψ̃w:  ∂_j = −w̃_ij;   ψ̃²w = ψ(ψ·w) − θ²w:  ∂_j = δ_ij(ψ·w) + ψ_i w_j − 2 w_i ψ_j,
#   ∂_jk = δ_ij w_k + δ_ik w_j − 2 δ_jk w_i.
# Jets are lists [value, first, second, …] of arrays (…, 3), (…, 3, 3), (…, 3, 3, 3), …;
# derivative indices follow the output index.

_COEFF_CHAIN = {"b": ("b", "db", "ddb", "dddb"), "c": ("c", "dc", "ddc", "dddc")}


def _scalar_jet(psi, name, order, sign=1.0):
    """Derivatives w.r.t. ψ of sign·f(|ψ|), f = ``coefficient(name)``, up to ``order``."""
    th = _norm(psi)
    d = [sign * coefficient(n, th) for n in _COEFF_CHAIN[name][: order + 1]]
    eye = np.eye(3)
    out = [d[0]]
    if order >= 1:
        out.append(d[1][..., None] * psi)
    if order >= 2:
        pp = psi[..., :, None] * psi[..., None, :]
        out.append(d[2][..., None, None] * pp + d[1][..., None, None] * eye)
    if order >= 3:
        pj, pk, pm = psi[..., :, None, None], psi[..., None, :, None], psi[..., None, None, :]
        sym = eye[:, :, None] * pm + eye[:, None, :] * pk + eye[None, :, :] * pj
        out.append(d[3][..., None, None, None] * (pp[..., None] * pm) + d[2][..., None, None, None] * sym)
    return out


def _cross_jet(psi, w):
    """Jet of ψ̃ w (linear in ψ)."""
    return [_cross(psi, w), -skew(w)]


def _cross2_jet(psi, w):
    """Jet of ψ̃² w = ψ(ψ·w) − θ² w (quadratic in ψ)."""
    eye = np.eye(3)
    pw = np.einsum("...i,...i->...", psi, w)
    t = np.einsum("...i,...i->...", psi, psi)
    v = psi * pw[..., None] - t[..., None] * w
    d1 = (pw[..., None, None] * eye + psi[..., :, None] * w[..., None, :]
          - 2.0 * w[..., :, None] * psi[..., None, :])
    wi, wj, wk = w[..., :, None, None], w[..., None, :, None], w[..., None, None, :]
    d2 = eye[:, :, None] * wk + eye[:, None, :] * wj - 2.0 * eye[None, :, :] * wi
    return [v, d1, d2]


def _product_jet(s, g, order, u=None):
    """Leibniz rule: jet of s(ψ) g(ψ) (scalar × vector) up to ``order``; missing terms of g
    are zero.  Index order [i, j, k, m] = [output, derivatives …].  If ``u`` is given, the
    third-order term is returned contracted with it over its last index, (…, 3, 3, 3)."""
    g2 = g[2] if len(g) > 2 else None
    out = [s[0][..., None] * g[0]]
    if order >= 1:
        out.append(g[0][..., :, None] * s[1][..., None, :] + s[0][..., None, None] * g[1])
    if order >= 2:
        acc = (g[0][..., :, None, None] * s[2][..., None, :, :]
               + g[1][..., :, :, None] * s[1][..., None, None, :]
               + g[1][..., :, None, :] * s[1][..., None, :, None])
        if g2 is not None:
            acc = acc + s[0][..., None, None, None] * g2
        out.append(acc)
    if order >= 3 and u is not None:
        s1, s2 = s[1], s[2]
        s2u = np.einsum("...jm,...m->...j", s2, u)
        s3u = np.einsum("...jkm,...m->...jk", s[3], u)
        g1u = np.einsum("...im,...m->...i", g[1], u)
        acc = (g[0][..., :, None, None] * s3u[..., None, :, :]
               + g[1][..., :, :, None] * s2u[..., None, None, :]
               + g[1][..., :, None, :] * s2u[..., None, :, None]
               + g1u[..., :, None, None] * s2[..., None, :, :])
        if g2 is not None:
            g2u = np.einsum("...ijm,...m->...ij", g2, u)
            acc = acc + (g2 * np.einsum("...m,...m->...", s1, u)[..., None, None, None]
                         + g2u[..., :, :, None] * s1[..., None, None, :]
                         + g2u[..., :, None, :] * s1[..., None, :, None])
        out.append(acc)
    elif order >= 3:
        s1, s2 = s[1], s[2]
        acc = (g[0][..., :, None, None, None] * s[3][..., None, :, :, :]
               + g[1][..., :, :, None, None] * s2[..., None, None, :, :]
               + g[1][..., :, None, :, None] * s2[..., None, :, None, :]
               + g[1][..., :, None, None, :] * s2[..., None, :, :, None])
        if g2 is not None:
            acc = acc + (g2[..., :, :, :, None] * s1[..., None, None, None, :]
                         + g2[..., :, :, None, :] * s1[..., None, None, :, None]
                         + g2[..., :, None, :, :] * s1[..., None, :, None, None])
        out.append(acc)
    return out


def _so3_T_jet(psi, w, order, transpose=False, u=None):
    """[T w, ∂(T w)/∂ψ, ∂²(T w)/∂ψ², …] up to ``order`` (Tᵀ w if ``transpose``); with ``u``,
    the third derivative is returned contracted with u over its last index."""
    psi = np.asarray(psi, dtype=float)
    w = np.asarray(w, dtype=float)
    psi, w = np.broadcast_arrays(psi, w)
    if transpose:  # Tᵀ(ψ) = T(−ψ): the n-th derivative picks up (−1)ⁿ
        jet = _so3_T_jet(-psi, w, order, u=u)
        return [(-1.0) ** n * d for n, d in enumerate(jet)]
    p1 = _product_jet(_scalar_jet(psi, "b", order, -1.0), _cross_jet(psi, w), order, u)
    p2 = _product_jet(_scalar_jet(psi, "c", order), _cross2_jet(psi, w), order, u)
    out = [a + b for a, b in zip(p1, p2)]
    out[0] = out[0] + w
    return out


def so3_ddT(psi, w, transpose=False):
    """Second derivative ∂²(T(ψ) w)/∂ψ_j∂ψ_k as (…, 3, 3, 3) indexed [i, j, k].

    With ``transpose=True``, of T(ψ)ᵀ w.  Symmetric in (j, k); uses ``ddb``, ``ddc``.
    """
    return _so3_T_jet(psi, w, 2, transpose)[2]


def _se3_T_jet(h, w, order, transpose=False):
    """Jet of T_SE3(h) w (or T_SE3(h)ᵀ w) in h = (U, Ω), up to ``order`` ≤ 2.

    T_SE3 w = (T w_U + T_UΩ w_Ω, T w_Ω) with T_UΩ w_Ω = ∂(T(Ω) w_Ω)/∂Ω · U, and
    T_SE3ᵀ w = (Tᵀ w_U, Tᵀ w_Ω + T_UΩᵀ w_U) with T_UΩᵀ w_U = ∂(T(Ω)ᵀ w_U)/∂Ω · U.
    Each half is Z = F(x) + F′(y)·U with F(v) = T(Ω)v (or Tᵀ v), so
    ∂Z/∂U = F′(y), ∂Z/∂Ω = F′(x) + F″(y)·U, ∂²Z/∂U∂Ω = F″(y), ∂²Z/∂Ω² = F″(x) + F‴(y)·U.
    """
    h = np.asarray(h, dtype=float)
    w = np.asarray(w, dtype=float)
    h, w = np.broadcast_arrays(h, w)
    U, Om = h[..., :3], h[..., 3:]
    wU, wO = w[..., :3], w[..., 3:]
    jU = _so3_T_jet(Om, wU, order + 1, transpose, U)  # 3rd order: contracted with U
    jO = _so3_T_jet(Om, wO, order + 1, transpose, U)
    # (x, y) for the translational (top) and rotational (bottom) halves
    halves = [(jU, jO), (jO, None)] if not transpose else [(jU, None), (jO, jU)]
    batch = h.shape[:-1]
    out = [np.zeros(batch + (6,) + (6,) * n) for n in range(order + 1)]
    for r, (x, y) in enumerate(halves):
        rows = slice(3 * r, 3 * r + 3)
        out[0][..., rows] = x[0]
        if y is not None:
            out[0][..., rows] += np.einsum("...ij,...j->...i", y[1], U)
        if order >= 1:
            out[1][..., rows, 3:] = x[1]
            if y is not None:
                out[1][..., rows, :3] = y[1]
                out[1][..., rows, 3:] += np.einsum("...ijk,...k->...ij", y[2], U)
        if order >= 2:
            out[2][..., rows, 3:, 3:] = x[2]
            if y is not None:
                out[2][..., rows, :3, 3:] = y[2]
                out[2][..., rows, 3:, :3] = y[2]
                out[2][..., rows, 3:, 3:] += y[3]
    return out


def se3_dT(h, w, transpose=False):
    """∂(T_SE3(h) w)/∂h (…, 6, 6); with ``transpose=True``, ∂(T_SE3(h)ᵀ w)/∂h.

    Blocks (h = (U, Ω), w = (w_U, w_Ω), F(v) = ∂(T(Ω)v)/∂Ω = ``so3_dT``):
    [[F(w_Ω), F(w_U) + ∂(F(w_Ω)U)/∂Ω], [0, F(w_Ω)]]; the U-Ω block needs the second
    derivative of T(Ω) (coefficients ``ddb``, ``ddc``).
    """
    return _se3_T_jet(h, w, 1, transpose)[1]


def se3_dTinv(h, w, transpose=False):
    """∂(T_SE3(h)⁻¹ w)/∂h (…, 6, 6); with ``transpose=True``, ∂(T_SE3(h)⁻ᵀ w)/∂h.

    From T T⁻¹ = I: ∂(T⁻¹ w)/∂h = −T⁻¹ ∂(T z)/∂h at z = T⁻¹ w, and
    ∂(T⁻ᵀ w)/∂h = −T⁻ᵀ ∂(Tᵀ z)/∂h at z = T⁻ᵀ w.
    """
    h = np.asarray(h, dtype=float)
    w = np.asarray(w, dtype=float)
    Ti = se3_Tinv(h)
    if transpose:
        Ti = np.swapaxes(Ti, -1, -2)
    z = np.einsum("...ij,...j->...i", Ti, w)
    return -Ti @ se3_dT(h, z, transpose)


def se3_ddT(h, w, transpose=False):
    """Second derivative ∂²(T_SE3(h) w)_i/∂h_j∂h_k (…, 6, 6, 6) indexed [i, j, k].

    With ``transpose=True``, of T_SE3(h)ᵀ w.  Symmetric in (j, k).  The Ω-Ω block of the
    coupling part is a third derivative of T(Ω) contracted with U (``_se3_T_jet``),
    which brings in ``dddb``, ``dddc``.  Used for the geometric stiffness of SE(3) beams:
    ∂/∂h [(∂(T(h) a)/∂h)ᵀ σ] = Σ_i σ_i ``se3_ddT(h, a)[i]``.
    """
    return _se3_T_jet(h, w, 2, transpose)[2]
