"""SO(3)/SE(3) exponential, logarithm and tangent operators (flexmbd.lie).

Tolerances are derived from double-precision arithmetic (ε = 2.2e-16), never tuned:
* closed-form identities (orthogonality, T T⁻¹ = I, commutators): a few tens of ε times
  the magnitude of the entries involved;
* derivatives are checked with the 4th-order central difference
  f′ ≈ [f(x−2h) − 8 f(x−h) + 8 f(x+h) − f(x+2h)] / (12 h), h = 1e-3, whose error is
  ≈ h⁴ |f⁽⁵⁾|/30 + 3ε|f|/(2h) ≲ 3e-14·M + 3e-13·M (M: size of f and its derivatives,
  ~ (1 + |x|)^k); the tolerance 1e-10·scale leaves a factor > 100 of headroom;
* continuity across the series thresholds: both branches are within ~10 ulp of the exact
  value (checked against mpmath), so values either side of a threshold agree to 1e-13.
"""
import math

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

import flexmbd.lie as L
from flexmbd.rotations import rotation_matrix

EPS = np.finfo(float).eps
PI = np.pi


# ---------------------------------------------------------------- strategies

def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


directions = st.lists(st.floats(-1, 1), min_size=3, max_size=3).filter(
    lambda v: np.linalg.norm(v) > 0.1
).map(_unit)

#: thresholds above π (those of the higher derivative coefficients) are covered by the
#: coefficient and continuity tests; the strategies stay in [0, π]
_special = [0.0, PI, PI - 1e-12, 1e-300, 1e-12] + [
    t * f for t in L.THRESHOLDS.values() if t < 3.1 for f in (1 - 1e-12, 1.0, 1 + 1e-12)
]
angles = st.one_of(
    st.sampled_from(_special),
    st.floats(0.0, PI),
    st.floats(1e-300, 1e-3),
    st.floats(0.0, 1e-6).map(lambda d: PI - d),
)
#: angles strictly below π (the log returns ψ itself there), leaving room for rounding of
#: e0 = cos(θ/2) ≈ (π − θ)/2
angles_open = st.one_of(
    st.sampled_from([a for a in _special if a < PI - 1e-10]),
    st.floats(0.0, PI - 1e-8),
    st.floats(1e-300, 1e-3),
)


@st.composite
def rotvecs(draw, angle=angles):
    return draw(angle) * draw(directions)


@st.composite
def twists(draw, angle=angles):
    u = np.array(draw(st.lists(st.floats(-5, 5), min_size=3, max_size=3)))
    return np.r_[u, draw(angle) * draw(directions)]


@st.composite
def quaternions(draw):
    """Unit quaternions, including e0 = 0 (rotations by exactly π)."""
    p = np.array(draw(st.lists(st.floats(-1, 1), min_size=4, max_size=4)))
    if draw(st.booleans()):
        p[0] = 0.0
    if np.linalg.norm(p) < 0.1:
        p = np.array([0.0, 1.0, 0.0, 0.0])
    return p / np.linalg.norm(p)


def norm(v):
    """Euclidean norm without underflow for tiny (subnormal-squared) vectors."""
    m = np.abs(v).max()
    return 0.0 if m == 0 else m * np.linalg.norm(v / m)


def fd(f, x, h=1e-3):
    """4th-order central difference of f at x: result[..., j] = ∂f/∂x_j."""
    cols = []
    for e in np.eye(len(x)):
        cols.append(
            (f(x - 2 * h * e) - 8 * f(x - h * e) + 8 * f(x + h * e) - f(x + 2 * h * e)) / (12 * h)
        )
    return np.stack(cols, -1)


# ---------------------------------------------------------------- hat / vee

@given(rotvecs(), rotvecs())
def test_so3_hat_is_cross_product_and_vee_inverts(a, b):
    np.testing.assert_array_equal(L.so3_vee(L.so3_hat(a)), a)
    assert np.allclose(L.so3_hat(a) @ b, np.cross(a, b), rtol=0, atol=4 * EPS * PI * PI)


@given(twists())
def test_se3_hat_vee(h):
    X = L.se3_hat(h)
    np.testing.assert_array_equal(L.se3_vee(X), h)
    np.testing.assert_array_equal(X[:3, 3], h[:3])  # translational part first
    np.testing.assert_array_equal(X[3], 0.0)


# ---------------------------------------------------------------- SO(3) exp / log

@given(rotvecs())
def test_so3_exp_is_rotation_and_matches_expm(psi):
    R = L.so3_exp(psi)
    # entries of R carry ~3ε each; RᵀR and det (LU, 3 pivots) add a few ε per product
    np.testing.assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=16 * EPS)
    assert abs(np.linalg.det(R) - 1) <= 24 * EPS
    np.testing.assert_allclose(R, sla.expm(L.so3_hat(psi)), rtol=0, atol=16 * EPS)


@given(rotvecs(angle=angles_open))
def test_log_of_exp_is_identity_below_pi(psi):
    back = L.so3_log(L.so3_exp(psi))
    # absolute error of a few ε per entry of R, amplified by |T⁻¹| ≤ 1 + θ/2 + θ²/π²
    np.testing.assert_allclose(back, psi, rtol=0, atol=32 * EPS * max(1.0, np.linalg.norm(psi)))
    if norm(psi) < 1e-3:  # tiny angles are recovered to relative precision
        assert np.abs(back - psi).max() <= 8 * EPS * norm(psi)


@given(quaternions())
def test_exp_of_log_is_identity_for_any_rotation(p):
    R = rotation_matrix(p)
    psi = L.so3_log(R)
    assert np.linalg.norm(psi) <= PI * (1 + 2 * EPS)
    np.testing.assert_allclose(L.so3_exp(psi), R, rtol=0, atol=32 * EPS)


@pytest.mark.parametrize("axis", [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -2, 3]])
def test_log_at_exactly_pi(axis):
    n = _unit(axis)
    R = 2 * np.outer(n, n) - np.eye(3)  # exact half-turn
    psi = L.so3_log(R)
    assert abs(np.linalg.norm(psi) - PI) < 4 * EPS * PI
    assert min(np.abs(psi - PI * n).max(), np.abs(psi + PI * n).max()) < 8 * EPS * PI
    np.testing.assert_allclose(L.so3_exp(psi), R, rtol=0, atol=16 * EPS)
    # the quaternion at θ = π has e0 = 0 and must still round-trip
    np.testing.assert_allclose(rotation_matrix(L.quat_from_matrix(R)), R, rtol=0, atol=8 * EPS)


def test_log_identity_and_beyond_pi():
    np.testing.assert_array_equal(L.so3_log(np.eye(3)), np.zeros(3))
    n = _unit([1.0, 2.0, -0.5])
    psi = (PI + 0.3) * n  # equivalent to −(π − 0.3) n
    np.testing.assert_allclose(L.so3_log(L.so3_exp(psi)), -(PI - 0.3) * n, rtol=0, atol=64 * EPS)


# ---------------------------------------------------------------- SO(3) tangent operator

@given(rotvecs())
def test_T_times_Tinv_is_identity(psi):
    T, Ti = L.so3_T(psi), L.so3_Tinv(psi)
    np.testing.assert_allclose(T @ Ti, np.eye(3), rtol=0, atol=32 * EPS)
    np.testing.assert_allclose(L.so3_T(-psi), T.T, rtol=0, atol=4 * EPS)
    np.testing.assert_allclose(np.linalg.inv(T), Ti, rtol=0, atol=64 * EPS)


@settings(max_examples=60, deadline=None)
@given(rotvecs(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI))))
def test_T_is_the_right_trivialised_derivative_of_exp(psi):
    """d/dε exp(ψ + ε δψ) = exp(ψ) (T(ψ) δψ)~, column by column."""
    R = L.so3_exp(psi)
    num = fd(lambda x: L.so3_vee(R.T @ L.so3_exp(x)), psi)
    np.testing.assert_allclose(num, L.so3_T(psi), rtol=0, atol=1e-10)
    # left-trivialised: d exp = (Tᵀ δψ)~ exp(ψ)
    num_left = fd(lambda x: L.so3_vee(L.so3_exp(x) @ R.T), psi)
    np.testing.assert_allclose(num_left, L.so3_T(psi).T, rtol=0, atol=1e-10)


@settings(max_examples=60, deadline=None)
@given(rotvecs(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI))),
       st.lists(st.floats(-2, 2), min_size=3, max_size=3).map(np.array),
       st.booleans())
def test_derivatives_of_T_and_Tinv_products(psi, w, transpose):
    tr = (lambda M: M.T) if transpose else (lambda M: M)
    num = fd(lambda x: tr(L.so3_T(x)) @ w, psi)
    np.testing.assert_allclose(num, L.so3_dT(psi, w, transpose), rtol=0, atol=1e-10)
    num = fd(lambda x: tr(L.so3_Tinv(x)) @ w, psi)
    np.testing.assert_allclose(num, L.so3_dTinv(psi, w, transpose), rtol=0, atol=1e-10)


def test_T_at_zero_and_pi():
    np.testing.assert_array_equal(L.so3_T(np.zeros(3)), np.eye(3))
    np.testing.assert_array_equal(L.so3_Tinv(np.zeros(3)), np.eye(3))
    n = _unit([0.3, -1.0, 2.0])
    psi = PI * n
    # b = 2/π², c = 1/π², g = 1/π² at θ = π
    N = L.so3_hat(n)
    T = np.eye(3) - 2 / PI * N + N @ N
    Ti = np.eye(3) + PI / 2 * N + N @ N
    np.testing.assert_allclose(L.so3_T(psi), T, rtol=0, atol=8 * EPS)
    np.testing.assert_allclose(L.so3_Tinv(psi), Ti, rtol=0, atol=8 * EPS)


# ---------------------------------------------------------------- coefficients and thresholds

def _mp_reference(name, x):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    x = mp.mpf(x)
    f = {
        "a": lambda y: mp.sin(y) / y,
        "b": lambda y: (1 - mp.cos(y)) / y**2,
        "c": lambda y: (y - mp.sin(y)) / y**3,
        "g": lambda y: (1 - (y / 2) * mp.cot(y / 2)) / y**2,
        "hs": lambda y: mp.sin(y / 2) / y,
    }
    if name in f:
        return float(f[name](x))
    if name in ("ddb", "ddc", "dddb", "dddc"):  # (1/θ d/dθ)ⁿ f = 2ⁿ dⁿf/d(θ²)ⁿ
        base, order = f[name[-1]], len(name) - 1
        return float(2**order * mp.diff(lambda t: base(mp.sqrt(t)), x * x, order))
    base = {"db": f["b"], "dc": f["c"], "dg": f["g"]}[name]
    return float(mp.diff(base, x) / x)


@pytest.mark.parametrize("name", sorted(L.THRESHOLDS))
def test_coefficients_match_high_precision(name):
    thr = L.THRESHOLDS[name]
    xs = np.r_[np.geomspace(1e-5, 0.1, 7), np.linspace(0.1, 3.6, 36), thr * (1 + np.r_[-1e-9, 0, 1e-9]),
               np.linspace(3.7, 6.0, 8)]
    got = L.coefficient(name, xs)
    ref = np.array([_mp_reference(name, x) for x in xs])
    # both branches are within ~10 ulp (measured max 9 ulp, for dg's closed form at 3.0)
    np.testing.assert_allclose(got, ref, rtol=32 * EPS, atol=0)


@pytest.mark.parametrize("name", sorted(L.THRESHOLDS))
def test_coefficient_limits_at_zero(name):
    limits = {"a": 1, "b": 0.5, "c": 1 / 6, "g": 1 / 12, "db": -1 / 12, "dc": -1 / 60,
              "dg": 1 / 360, "hs": 0.5, "ddb": 1 / 90, "ddc": 1 / 630,
              "dddb": -1 / 840, "dddc": -1 / 7560}
    assert L.coefficient(name, 0.0) == pytest.approx(limits[name], rel=EPS, abs=0)


@pytest.mark.parametrize("name", sorted(L.THRESHOLDS))
def test_coefficient_continuous_across_threshold(name):
    thr = L.THRESHOLDS[name]
    below = np.nextafter(thr, 0.0)
    lo, hi = L.coefficient(name, below), L.coefficient(name, thr)
    assert below < thr
    assert abs(hi - lo) <= 1e-13 * abs(hi)


_FUNCS = {
    "so3_exp": lambda v: L.so3_exp(v[3:]),
    "so3_T": lambda v: L.so3_T(v[3:]),
    "so3_Tinv": lambda v: L.so3_Tinv(v[3:]),
    "so3_dT": lambda v: L.so3_dT(v[3:], v[:3]),
    "so3_dTT": lambda v: L.so3_dT(v[3:], v[:3], transpose=True),
    "so3_dTinv": lambda v: L.so3_dTinv(v[3:], v[:3]),
    "so3_dTinvT": lambda v: L.so3_dTinv(v[3:], v[:3], transpose=True),
    "quat_from_rotvec": lambda v: L.quat_from_rotvec(v[3:]),
    "se3_exp": L.se3_exp,
    "se3_T": L.se3_T,
    "se3_Tinv": L.se3_Tinv,
    "so3_ddT": lambda v: L.so3_ddT(v[3:], v[:3]),
    "so3_ddTT": lambda v: L.so3_ddT(v[3:], v[:3], transpose=True),
    "se3_dT": lambda v: L.se3_dT(v, v[::-1]),
    "se3_dTT": lambda v: L.se3_dT(v, v[::-1], transpose=True),
    "se3_dTinv": lambda v: L.se3_dTinv(v, v[::-1]),
    "se3_dTinvT": lambda v: L.se3_dTinv(v, v[::-1], transpose=True),
    "se3_ddT": lambda v: L.se3_ddT(v, v[::-1]),
    "se3_ddTT": lambda v: L.se3_ddT(v, v[::-1], transpose=True),
}


@pytest.mark.parametrize("func", sorted(_FUNCS))
@pytest.mark.parametrize("thr", sorted(set(L.THRESHOLDS.values())))
def test_functions_continuous_across_thresholds(func, thr):
    f = _FUNCS[func]
    n = _unit([0.4, -0.7, 1.3])
    u = np.array([0.5, -1.2, 0.8])
    # entrywise change over a wider step, for the linear prediction of the jump (some
    # derivatives, e.g. of T⁻¹ towards its singularity at 2π, have |f′| ≫ 10 above π)
    wide = np.abs(f(np.r_[u, thr * (1 + 1e-6) * n]) - f(np.r_[u, thr * (1 - 1e-6) * n]))
    for d in (1e-12, 1e-9):
        lo = f(np.r_[u, thr * (1 - d) * n])
        hi = f(np.r_[u, thr * (1 + d) * n])
        # the functions are smooth: the jump must be of the order of the step itself
        # (2 d θ |f′|, with |f′| ≲ 10 here, or the linear prediction) plus a few ulp
        slack = np.maximum(20 * d * thr, 2 * (d / 1e-6) * wide)
        assert np.all(np.abs(hi - lo) <= slack + 1e-13 * max(1.0, np.abs(hi).max()))


# ---------------------------------------------------------------- SE(3)

@given(twists(), twists())
def test_ad_is_the_commutator(h1, h2):
    X1, X2 = L.se3_hat(h1), L.se3_hat(h2)
    np.testing.assert_allclose(
        L.se3_ad(h1) @ h2, L.se3_vee(X1 @ X2 - X2 @ X1), rtol=0, atol=64 * EPS * 25
    )
    np.testing.assert_allclose(L.se3_ad(h1) @ h1, 0.0, rtol=0, atol=64 * EPS * 25)


@given(twists(), st.tuples(quaternions(), st.lists(st.floats(-5, 5), min_size=3, max_size=3)))
def test_Ad_conjugation(h, px):
    p, x = px
    H = L.se3_from_Rx(rotation_matrix(p), np.array(x))
    lhs = H @ L.se3_hat(h) @ L.se3_inv(H)
    np.testing.assert_allclose(L.se3_vee(lhs), L.se3_Ad(H) @ h, rtol=0, atol=256 * EPS * 25)
    np.testing.assert_allclose(lhs[3], 0.0, atol=0)


@given(twists())
def test_se3_exp_equals_matrix_exponential(h):
    H = L.se3_exp(h)
    np.testing.assert_allclose(H, sla.expm(L.se3_hat(h)), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(H[3], [0, 0, 0, 1])


@given(twists(angle=angles_open))
def test_se3_log_exp_round_trip(h):
    np.testing.assert_allclose(
        L.se3_log(L.se3_exp(h)), h, rtol=0, atol=64 * EPS * max(1.0, np.abs(h).max())
    )


@given(quaternions(), st.lists(st.floats(-5, 5), min_size=3, max_size=3))
def test_se3_exp_log_any_frame(p, x):
    H = L.se3_from_Rx(rotation_matrix(p), np.array(x))
    np.testing.assert_allclose(L.se3_exp(L.se3_log(H)), H, rtol=0, atol=64 * EPS * 5)


@given(twists())
def test_se3_T_is_series_of_ad_and_inverse(h):
    ad = L.se3_ad(h)
    S, P = np.zeros((6, 6)), np.eye(6)
    for k in range(60):  # |ad| ≤ |Ω| + |U| < 13: terms below 1e-20 long before k = 60
        S += (-1) ** k / math.factorial(k + 1) * P
        P = P @ ad
    T = L.se3_T(h)
    np.testing.assert_allclose(T, S, rtol=0, atol=1e-13)
    np.testing.assert_allclose(T @ L.se3_Tinv(h), np.eye(6), rtol=0, atol=1e-13)


@given(twists())
def test_TUO_is_the_directional_derivative_of_T(h):
    """T_UΩ w = (∂(T(Ω) w)/∂Ω) U for every w: the SE(3) coupling block against so3_dT."""
    U, Om = h[:3], h[3:]
    cols = np.stack([L.so3_dT(Om, e) @ U for e in np.eye(3)], -1)
    np.testing.assert_allclose(L.se3_TUO(U, Om), cols, rtol=0, atol=64 * EPS * (1 + np.abs(U).max()))


@settings(max_examples=60, deadline=None)
@given(twists(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI))))
def test_se3_T_is_the_right_trivialised_derivative_of_exp(h):
    Hi = L.se3_inv(L.se3_exp(h))
    num = fd(lambda y: L.se3_vee(Hi @ L.se3_exp(y)), h)
    np.testing.assert_allclose(num, L.se3_T(h), rtol=0, atol=1e-10 * (1 + np.abs(h[:3]).max()))


@settings(max_examples=60, deadline=None)
@given(rotvecs(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI))),
       st.lists(st.floats(-2, 2), min_size=3, max_size=3).map(np.array),
       st.booleans())
def test_so3_second_derivative_of_T(psi, w, transpose):
    num = fd(lambda x: L.so3_dT(x, w, transpose), psi)
    dd = L.so3_ddT(psi, w, transpose)
    np.testing.assert_allclose(num, dd, rtol=0, atol=1e-10)
    np.testing.assert_allclose(dd, np.swapaxes(dd, -1, -2), rtol=0, atol=16 * EPS)


def _se3_products(transpose):
    tr = (lambda M: M.T) if transpose else (lambda M: M)
    return (lambda x, w: tr(L.se3_T(x)) @ w), (lambda x, w: tr(L.se3_Tinv(x)) @ w)


@settings(max_examples=60, deadline=None)
@given(twists(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI))),
       st.lists(st.floats(-2, 2), min_size=6, max_size=6).map(np.array),
       st.booleans())
def test_se3_derivatives_of_T_and_Tinv_products(h, w, transpose):
    """se3_dT, se3_dTinv (plain and transposed) against 4th-order differences."""
    fT, fTi = _se3_products(transpose)
    scale = (1 + np.abs(h[:3]).max()) ** 2
    num = fd(lambda x: fT(x, w), h)
    np.testing.assert_allclose(num, L.se3_dT(h, w, transpose), rtol=0, atol=1e-10 * scale)
    if np.linalg.norm(h[3:]) < 3.2:  # T⁻¹ grows like 1/(2π − θ)
        num = fd(lambda x: fTi(x, w), h)
        np.testing.assert_allclose(num, L.se3_dTinv(h, w, transpose), rtol=0, atol=1e-10 * scale)


@pytest.mark.parametrize("theta", [0.0, 1e-9, 1e-5, 0.3, 1.7, 3.0, PI - 1e-6, PI])
@pytest.mark.parametrize("transpose", [False, True])
def test_se3_dT_dTinv_relative_accuracy(theta, transpose):
    """Relative agreement ≤ 1e-7 with the 2nd-order central difference, step 1e-5.

    Truncation ≈ h²|f‴|/6 ~ 2e-11, rounding ≈ ε|f|/h ~ 2e-11 (|f| ~ 10): both far below
    the 1e-7 bound at every angle, including the series branches (tiny θ) and θ → π.
    """
    rng = np.random.default_rng(int(theta * 1e3) + 7 * transpose)
    n = _unit(rng.normal(size=3))
    h = np.r_[rng.normal(size=3), theta * n]
    w = rng.normal(size=6)
    step = 1e-5
    for f, an in zip(_se3_products(transpose), (L.se3_dT, L.se3_dTinv)):
        num = np.stack([(f(h + step * e, w) - f(h - step * e, w)) / (2 * step) for e in np.eye(6)], -1)
        exact = an(h, w, transpose)
        assert np.abs(num - exact).max() <= 1e-7 * np.abs(exact).max()


@settings(max_examples=60, deadline=None)
@given(twists(angle=st.one_of(st.sampled_from(_special), st.floats(0.0, PI), st.floats(PI, 5.0))),
       st.lists(st.floats(-2, 2), min_size=6, max_size=6).map(np.array),
       st.booleans())
def test_se3_second_derivative_of_T(h, w, transpose):
    """se3_ddT against differences of se3_dT (its ΩΩ block holds the third derivative of
    T(Ω), coefficients dddb, dddc), symmetry in the two derivative indices."""
    num = fd(lambda x: L.se3_dT(x, w, transpose), h)
    dd = L.se3_ddT(h, w, transpose)
    scale = (1 + np.abs(h[:3]).max()) ** 2
    np.testing.assert_allclose(num, dd, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(dd, np.swapaxes(dd, -1, -2), rtol=0, atol=64 * EPS * scale)


@pytest.mark.parametrize("theta", [0.0, 1e-9, 1e-5, 0.3, 1.7, 3.0, PI - 1e-6, 4.0, 4.5])
def test_se3_ddT_relative_accuracy(theta):
    rng = np.random.default_rng(int(theta * 1e3) + 3)
    h = np.r_[rng.normal(size=3), theta * _unit(rng.normal(size=3))]
    w = rng.normal(size=6)
    step = 1e-5
    for tr in (False, True):
        num = np.stack([(L.se3_dT(h + step * e, w, tr) - L.se3_dT(h - step * e, w, tr)) / (2 * step)
                        for e in np.eye(6)], -1)
        exact = L.se3_ddT(h, w, tr)
        assert np.abs(num - exact).max() <= 1e-7 * np.abs(exact).max()


@given(twists(), st.lists(st.floats(-2, 2), min_size=6, max_size=6).map(np.array))
def test_se3_dT_blocks(h, w):
    """Structure: ∂(T w)/∂U = [[so3_dT(Ω, w_Ω)], [0]] and the bottom rows are so3_dT(Ω, w_Ω)."""
    d = L.se3_dT(h, w)
    np.testing.assert_array_equal(d[3:, :3], 0.0)
    np.testing.assert_allclose(d[:3, :3], L.so3_dT(h[3:], w[3:]), rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(d[3:, 3:], L.so3_dT(h[3:], w[3:]), rtol=0, atol=64 * EPS)
    dt = L.se3_dT(h, w, transpose=True)
    np.testing.assert_array_equal(dt[:3, :3], 0.0)
    np.testing.assert_allclose(dt[3:, :3], L.so3_dT(h[3:], w[:3], True), rtol=0, atol=64 * EPS)


@given(st.tuples(quaternions(), quaternions()), st.lists(st.floats(-5, 5), min_size=6, max_size=6))
def test_se3_group_helpers(pq, xs):
    H1 = L.se3_from_Rx(rotation_matrix(pq[0]), np.array(xs[:3]))
    H2 = L.se3_from_Rx(rotation_matrix(pq[1]), np.array(xs[3:]))
    np.testing.assert_allclose(L.se3_compose(H1, L.se3_inv(H1)), np.eye(4), rtol=0, atol=64 * EPS * 5)
    y = np.array([0.3, -0.2, 1.1])
    np.testing.assert_allclose(
        L.se3_act(L.se3_compose(H1, H2), y), L.se3_act(H1, L.se3_act(H2, y)), rtol=0, atol=64 * EPS * 25
    )
    R, x = L.se3_to_Rx(H1)
    np.testing.assert_array_equal(R, rotation_matrix(pq[0]))
    np.testing.assert_array_equal(x, xs[:3])


# ---------------------------------------------------------------- quaternions

@given(rotvecs())
def test_quaternion_from_rotvec_matches_exp_and_rotations_module(psi):
    p = L.quat_from_rotvec(psi)
    assert abs(p @ p - 1) < 4 * EPS
    np.testing.assert_allclose(rotation_matrix(p), L.so3_exp(psi), rtol=0, atol=16 * EPS)


@given(rotvecs(angle=angles_open))
def test_quaternion_log_round_trip(psi):
    p = L.quat_from_rotvec(psi)
    np.testing.assert_allclose(L.quat_to_rotvec(p), psi, rtol=0, atol=16 * EPS * max(1, np.linalg.norm(psi)))
    # scale and sign invariance (q and −q are the same rotation)
    np.testing.assert_allclose(L.quat_to_rotvec(-3.0 * p), psi, rtol=0, atol=16 * EPS * max(1, np.linalg.norm(psi)))


@given(quaternions())
def test_quaternion_from_matrix_inverts_the_rotation_matrix(p):
    R = rotation_matrix(p)
    q = L.quat_from_matrix(R)
    assert q[0] >= 0.0
    np.testing.assert_allclose(rotation_matrix(q), R, rtol=0, atol=16 * EPS)
    assert min(np.abs(q - p).max(), np.abs(q + p).max()) < 16 * EPS


@given(quaternions(), quaternions(), rotvecs())
def test_quaternion_product_and_right_increment(p, q, dth):
    np.testing.assert_allclose(
        rotation_matrix(L.quat_multiply(p, q)), rotation_matrix(p) @ rotation_matrix(q), rtol=0, atol=16 * EPS
    )
    np.testing.assert_allclose(
        rotation_matrix(L.quat_conjugate(p)), rotation_matrix(p).T, rtol=0, atol=0
    )
    r = L.quat_increment(p, dth)
    assert abs(r @ r - 1) < 16 * EPS
    np.testing.assert_allclose(
        rotation_matrix(r), rotation_matrix(p) @ L.so3_exp(dth), rtol=0, atol=32 * EPS
    )


# ---------------------------------------------------------------- batching

def test_every_function_is_batched():
    rng = np.random.default_rng(4)
    shape = (4, 5)
    psi = rng.normal(size=shape + (3,))
    psi[0, 0] = 0.0
    psi[1, 1] *= PI / np.linalg.norm(psi[1, 1])
    psi[2, 2] *= 1e-9
    w = rng.normal(size=shape + (3,))
    h = np.concatenate([rng.normal(size=shape + (3,)), psi], -1)
    single = {
        "so3_exp": (L.so3_exp, (psi,)),
        "so3_log": (lambda v: L.so3_log(L.so3_exp(v)), (psi,)),
        "so3_T": (L.so3_T, (psi,)),
        "so3_Tinv": (L.so3_Tinv, (psi,)),
        "so3_dT": (L.so3_dT, (psi, w)),
        "so3_dTinv": (L.so3_dTinv, (psi, w)),
        "quat_from_rotvec": (L.quat_from_rotvec, (psi,)),
        "quat_roundtrip": (lambda v: L.quat_to_rotvec(L.quat_from_matrix(L.so3_exp(v))), (psi,)),
        "se3_exp": (L.se3_exp, (h,)),
        "se3_log": (lambda v: L.se3_log(L.se3_exp(v)), (h,)),
        "se3_ad": (L.se3_ad, (h,)),
        "se3_Ad": (lambda v: L.se3_Ad(L.se3_exp(v)), (h,)),
        "se3_T": (L.se3_T, (h,)),
        "se3_Tinv": (L.se3_Tinv, (h,)),
        "so3_ddT": (L.so3_ddT, (psi, w)),
        "se3_dT": (L.se3_dT, (h, h[..., ::-1])),
        "se3_dTT": (lambda a, b: L.se3_dT(a, b, True), (h, h[..., ::-1])),
        "se3_dTinv": (L.se3_dTinv, (h, h[..., ::-1])),
        "se3_dTinvT": (lambda a, b: L.se3_dTinv(a, b, True), (h, h[..., ::-1])),
        "se3_ddT": (L.se3_ddT, (h, h[..., ::-1])),
        "se3_ddTT": (lambda a, b: L.se3_ddT(a, b, True), (h, h[..., ::-1])),
        "se3_inv": (lambda v: L.se3_inv(L.se3_exp(v)), (h,)),
    }
    for name, (f, args) in single.items():
        batched = f(*args)
        for i in range(shape[0]):
            for j in range(shape[1]):
                one = f(*(a[i, j] for a in args))
                np.testing.assert_array_equal(batched[i, j], one, err_msg=name)
