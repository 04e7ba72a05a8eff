"""Shape functions along the beam axis checked against closed forms."""
import numpy as np
import pytest

from flexmbd.beams.shape import (
    NurbsCurve,
    bspline_basis,
    bspline_basis_derivatives,
    find_span,
    gauss_legendre,
    lagrange,
    nurbs_elements,
    open_uniform_knots,
)

ZETA = np.linspace(0.0, 1.0, 37)


# ---------------------------------------------------------------- Gauss
@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 10])
def test_gauss_integrates_degree_2n_minus_1(n):
    x, w = gauss_legendre(n)
    assert np.all((x > 0) & (x < 1))
    assert w.sum() == pytest.approx(1.0, abs=1e-15)
    for k in range(2 * n):
        assert np.sum(w * x ** k) == pytest.approx(1.0 / (k + 1), rel=1e-13)
    # and not degree 2n
    assert abs(np.sum(w * x ** (2 * n)) - 1.0 / (2 * n + 1)) > 1e-12


# ---------------------------------------------------------------- Lagrange
@pytest.mark.parametrize("p", [1, 2, 3, 4, 5])
def test_lagrange_partition_of_unity_and_kronecker(p):
    N, dN = lagrange(p, ZETA)
    assert N.shape == (ZETA.size, p + 1)
    np.testing.assert_allclose(N.sum(axis=1), 1.0, atol=1e-13)
    np.testing.assert_allclose(dN.sum(axis=1), 0.0, atol=1e-11)
    Nn, _ = lagrange(p, np.linspace(0, 1, p + 1))
    np.testing.assert_allclose(Nn, np.eye(p + 1), atol=1e-14)


@pytest.mark.parametrize("p", [1, 2, 3, 4, 5])
def test_lagrange_reproduces_polynomials(p):
    nodes = np.linspace(0.0, 1.0, p + 1)
    N, dN = lagrange(p, ZETA)
    for k in range(p + 1):
        f = nodes ** k
        np.testing.assert_allclose(N @ f, ZETA ** k, atol=1e-12)
        exact_d = k * ZETA ** (k - 1) if k > 0 else np.zeros_like(ZETA)
        np.testing.assert_allclose(dN @ f, exact_d, atol=1e-10)
    # degree p + 1 is not reproduced
    assert np.max(np.abs(N @ nodes ** (p + 1) - ZETA ** (p + 1))) > 1e-4


def test_lagrange_linear_closed_form():
    N, dN = lagrange(1, [0.25])
    np.testing.assert_allclose(N, [[0.75, 0.25]])
    np.testing.assert_allclose(dN, [[-1.0, 1.0]])


# ---------------------------------------------------------------- B-splines
KNOT_CASES = [
    (1, open_uniform_knots(1, 3)),
    (2, open_uniform_knots(2, 4)),
    (3, open_uniform_knots(3, 5)),
    (3, np.array([0, 0, 0, 0, 0.2, 0.5, 0.5, 0.7, 1, 1, 1, 1.0])),     # non-uniform, double knot
    (4, np.array([0, 0, 0, 0, 0, 0.3, 0.3, 0.3, 0.6, 1, 1, 1, 1, 1.0])),
]


def full_basis(U, p, u, nder=1):
    span, ders = bspline_basis_derivatives(U, p, u, nder)
    n = len(U) - p - 1
    out = []
    for D in ders:
        F = np.zeros((len(u), n))
        np.put_along_axis(F, span[:, None] - p + np.arange(p + 1), D, axis=1)
        out.append(F)
    return out


def test_open_uniform_knots():
    np.testing.assert_allclose(open_uniform_knots(3, 2), [0, 0, 0, 0, 0.5, 1, 1, 1, 1])


def test_find_span_convention():
    U = np.array([0, 0, 0, 0.5, 0.5, 1, 1, 1.0])
    np.testing.assert_array_equal(find_span(U, 2, [0.0, 0.25, 0.5, 0.75, 1.0]), [2, 2, 4, 4, 4])
    with pytest.raises(ValueError):
        find_span(U, 2, 1.5)


@pytest.mark.parametrize("p,U", KNOT_CASES)
def test_bspline_partition_of_unity_and_nonnegativity(p, U):
    u = np.linspace(0, 1, 201)
    span, N, dN = bspline_basis(U, p, u)
    assert N.shape == dN.shape == (u.size, p + 1)
    np.testing.assert_allclose(N.sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(dN.sum(axis=1), 0.0, atol=1e-11)
    assert np.all(N >= -1e-15)
    assert np.all((U[span] <= u) & (u <= U[span + 1]))


@pytest.mark.parametrize("p,U", KNOT_CASES)
def test_bspline_derivatives_match_finite_differences(p, U):
    u = np.linspace(0.013, 0.987, 53)
    u = u[np.min(np.abs(u[:, None] - np.unique(U)[None, :]), axis=1) > 1e-3]   # away from knots
    h = 1e-6
    _, dF, d2F = full_basis(U, p, u, 2)
    Fp, dFp = full_basis(U, p, u + h)[:2]
    Fm, dFm = full_basis(U, p, u - h)[:2]
    np.testing.assert_allclose(dF, (Fp - Fm) / (2 * h), atol=1e-7 * max(1, np.abs(dF).max()))
    np.testing.assert_allclose(d2F, (dFp - dFm) / (2 * h), atol=1e-6 * max(1, np.abs(d2F).max()))


def test_bspline_reproduces_linear_function_greville():
    p, U = 3, np.array([0, 0, 0, 0, 0.2, 0.5, 0.7, 1, 1, 1, 1.0])
    g = np.array([U[i + 1:i + p + 1].mean() for i in range(len(U) - p - 1)])
    u = np.linspace(0, 1, 41)
    F, dF = full_basis(U, p, u)
    np.testing.assert_allclose(F @ g, u, atol=1e-14)
    np.testing.assert_allclose(dF @ g, 1.0, atol=1e-12)


def test_bernstein_closed_form():
    # one span of degree 3 = Bernstein polynomials
    u = np.linspace(0, 1, 11)
    _, N, dN = bspline_basis(open_uniform_knots(3, 1), 3, u)
    B = np.column_stack([(1 - u) ** 3, 3 * u * (1 - u) ** 2, 3 * u ** 2 * (1 - u), u ** 3])
    dB = np.column_stack([-3 * (1 - u) ** 2, 3 * (1 - u) ** 2 - 6 * u * (1 - u), 6 * u * (1 - u) - 3 * u ** 2,
                          3 * u ** 2])
    np.testing.assert_allclose(N, B, atol=1e-15)
    np.testing.assert_allclose(dN, dB, atol=1e-13)


# ---------------------------------------------------------------- NURBS
U_TEST = np.linspace(0.0, 1.0, 401)


def random_curve(seed=0, p=3):
    rng = np.random.default_rng(seed)
    U = np.array([0, 0, 0, 0, 0.3, 0.45, 0.45, 0.8, 1, 1, 1, 1.0])
    if p != 3:
        U = open_uniform_knots(p, 4)
    n = len(U) - p - 1
    return NurbsCurve(p, U, rng.normal(size=(n, 3)), rng.uniform(0.5, 2.0, n))


def test_nurbs_rational_derivatives_match_finite_differences():
    c = random_curve()
    u = np.array([0.1, 0.2, 0.37, 0.6, 0.9])
    h = 1e-6
    C, C1, C2 = c.evaluate(u)
    np.testing.assert_allclose(C1, (c.point(u + h) - c.point(u - h)) / (2 * h), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(C2, (c.evaluate(u + h)[1] - c.evaluate(u - h)[1]) / (2 * h), rtol=1e-6, atol=1e-6)
    idx, R, dR = c.rational_basis(u)
    np.testing.assert_allclose(R.sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(dR.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.einsum("mr,mrk->mk", R, c.control_points[idx]), C, atol=1e-14)
    np.testing.assert_allclose(np.einsum("mr,mrk->mk", dR, c.control_points[idx]), C1, atol=1e-12)


def test_nurbs_scalar_evaluation_shapes():
    c = random_curve()
    C, C1, C2 = c.evaluate(0.3)
    assert C.shape == C1.shape == C2.shape == (3,)
    np.testing.assert_allclose(C, c.point([0.3])[0])


@pytest.mark.parametrize("u_new,times", [(0.2, 1), (0.45, 1), (0.6, 2), (0.6, 3), (0.3, 2)])
def test_knot_insertion_keeps_curve(u_new, times):
    c = random_curve()
    d = c.insert_knot(u_new, times)
    assert d.n_points == c.n_points + times
    assert np.count_nonzero(d.knots == u_new) == np.count_nonzero(c.knots == u_new) + times
    for a, b in zip(c.evaluate(U_TEST), d.evaluate(U_TEST)):
        np.testing.assert_allclose(b, a, atol=1e-12 * max(1, np.abs(a).max()))


def test_knot_insertion_rejects_excess_multiplicity():
    c = random_curve()
    with pytest.raises(ValueError):
        c.insert_knot(0.45, 2)          # multiplicity 2 + 2 > 3
    with pytest.raises(ValueError):
        c.insert_knot(1.0)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_refinement_keeps_curve(n):
    c = random_curve()
    d = c.refine(n)
    assert len(np.unique(d.knots)) - 1 == n * (len(np.unique(c.knots)) - 1)
    np.testing.assert_allclose(d.point(U_TEST), c.point(U_TEST), atol=1e-12)


@pytest.mark.parametrize("p", [2, 3, 4])
def test_degree_elevation_keeps_curve(p):
    c = random_curve(seed=p, p=p)
    d = c.elevate_degree()
    assert d.degree == p + 1
    vals, cnt = np.unique(c.knots, return_counts=True)
    vals2, cnt2 = np.unique(d.knots, return_counts=True)
    np.testing.assert_array_equal(vals, vals2)
    np.testing.assert_array_equal(cnt2, cnt + 1)
    assert np.all(d.weights > 0)
    for a, b in zip(c.evaluate(U_TEST), d.evaluate(U_TEST)):
        np.testing.assert_allclose(b, a, atol=1e-12 * max(1, np.abs(a).max()))


def test_line_is_uniformly_parametrised():
    a, b = np.array([1.0, -2.0, 0.5]), np.array([4.0, 2.0, 0.5])
    c = NurbsCurve.line(a, b, degree=3, n_spans=4)
    C, C1, C2 = c.evaluate(U_TEST)
    np.testing.assert_allclose(C, a + U_TEST[:, None] * (b - a), atol=1e-14)
    np.testing.assert_allclose(C1, np.broadcast_to(b - a, C1.shape), atol=1e-12)
    np.testing.assert_allclose(C2, 0.0, atol=1e-10)
    L = sum(e.weights.sum() for e in nurbs_elements(c, 2))
    assert L == pytest.approx(5.0, rel=1e-14)


ARCS = [  # center, radius, angle0, angle1, normal
    ((0, 0, 0), 1.0, 0.0, np.pi / 2, (0, 0, 1)),
    ((1, 2, -3), 2.5, 0.3, 0.3 + 2 * np.pi / 3, (0, 0, 1)),
    ((0.5, 0, 1), 0.7, -1.0, -1.0 + 1.9 * np.pi, (1, 1, 1)),
    ((0, 0, 0), 3.0, np.pi, 0.0, (0, 1, 0)),                  # clockwise, vertical plane
    ((0, 0, 0), 1.0, 0.0, 2 * np.pi, (0, 0, 1)),              # full circle
]


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("center,r,a0,a1,normal", ARCS)
def test_circular_arc_exact(center, r, a0, a1, normal, degree):
    c = NurbsCurve.circular_arc(center, r, a0, a1, normal=normal, degree=degree)
    assert c.degree == degree
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    C, C1, _ = c.evaluate(U_TEST)
    rel = C - np.asarray(center, float)
    np.testing.assert_allclose(np.linalg.norm(rel, axis=1), r, atol=1e-14 * r)
    np.testing.assert_allclose(rel @ n, 0.0, atol=1e-14 * r)
    # tangent perpendicular to the radius, end points at the requested angles
    np.testing.assert_allclose(np.sum(rel * C1, axis=1), 0.0, atol=1e-12 * np.abs(C1).max())
    ex = c.point(0.0) - center
    assert np.linalg.norm(c.point(1.0) - center - (np.cos(a1 - a0) * ex + np.sin(a1 - a0) * np.cross(n, ex))) < 1e-13
    # arc length from the element weights
    L = sum(e.weights.sum() for e in nurbs_elements(c.refine(2), 10))
    assert L == pytest.approx(r * abs(a1 - a0), rel=1e-10)


def test_quarter_circle_cubic_matches_quadratic():
    q2 = NurbsCurve.circular_arc((0, 0, 0), 1.0, 0.0, np.pi / 2, degree=2)
    q3 = NurbsCurve.circular_arc((0, 0, 0), 1.0, 0.0, np.pi / 2, degree=3)
    np.testing.assert_allclose(q2.control_points[1], [1, 1, 0], atol=1e-15)
    np.testing.assert_allclose(q2.weights, [1, np.sqrt(0.5), 1], atol=1e-15)
    for a, b in zip(q2.evaluate(U_TEST), q3.evaluate(U_TEST)):
        np.testing.assert_allclose(b, a, atol=1e-13)


def test_nurbs_elements_basis_and_arc_length_derivatives():
    c = NurbsCurve.circular_arc((0, 0, 0), 2.0, 0.0, 3.0, degree=3).refine(3)
    els = nurbs_elements(c, 4)
    spans = len(np.unique(c.knots)) - 1
    assert len(els) == spans
    for e in els:
        assert e.indices.shape == (4,) and e.R.shape == e.dR_ds.shape == (4, 4)
        np.testing.assert_allclose(e.R.sum(axis=1), 1.0, atol=1e-14)
        # dx/ds from the basis is the unit tangent of the circle
        t = e.dR_ds @ c.control_points[e.indices]
        np.testing.assert_allclose(np.linalg.norm(t, axis=1), 1.0, atol=1e-13)
        x = e.R @ c.control_points[e.indices]
        np.testing.assert_allclose(np.sum(t * x, axis=1), 0.0, atol=1e-13)
        assert e.span[0] < e.u.min() and e.u.max() < e.span[1]
    L = sum(e.weights.sum() for e in nurbs_elements(c, 8))
    assert L == pytest.approx(6.0, rel=1e-12)


def test_nurbs_validation():
    with pytest.raises(ValueError):
        NurbsCurve(2, [0, 0, 0, 1, 1, 1], np.zeros((3, 3)), [1, -1, 1])
    with pytest.raises(ValueError):
        NurbsCurve(2, [0, 0, 0, 1, 1], np.zeros((3, 3)), [1, 1, 1])
    with pytest.raises(ValueError):
        NurbsCurve.circular_arc((0, 0, 0), 1.0, 0.0, 0.0)
