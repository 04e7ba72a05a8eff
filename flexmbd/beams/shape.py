"""Interpolation along the beam axis: Gauss rules, Lagrange polynomials, B-splines, NURBS.

Conventions
    * Every parameter lives on [0, 1]: Gauss points, Lagrange nodes and the knot vectors
      built by the constructors below.
    * Basis routines are vectorised over the evaluation parameters and always return
      arrays with a leading axis of length ``len(u)``.
    * B-spline formulas follow Piegl & Tiller, *The NURBS Book*, 2nd ed. (1997): span
      search (A2.1), Cox-de Boor recurrence (eq. 2.5, A2.2), derivatives by the degree
      recurrence (eq. 2.7/2.9), rational derivatives (eq. 4.8), knot insertion (Boehm,
      eq. 5.15, A5.1) and the quadratic circular arc (section 7.5, A7.1).
    * NURBS operations work in homogeneous coordinates Pw = (w P, w) and return new
      curves; a ``NurbsCurve`` is never modified in place.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.polynomial.legendre import leggauss

__all__ = [
    "NurbsCurve",
    "NurbsElement",
    "bspline_basis",
    "bspline_basis_derivatives",
    "find_span",
    "gauss_legendre",
    "lagrange",
    "nurbs_elements",
    "open_uniform_knots",
]


# --------------------------------------------------------------------------- Gauss
def gauss_legendre(n: int):
    """n-point Gauss-Legendre rule on [0, 1]: ``(points, weights)``, weights sum to 1.

    Exact for polynomials of degree 2n - 1 (mapped from ``numpy.polynomial.legendre.leggauss``).
    """
    if int(n) < 1:
        raise ValueError(f"gauss_legendre: n must be >= 1, got {n}")
    x, w = leggauss(int(n))
    return 0.5 * (x + 1.0), 0.5 * w


# --------------------------------------------------------------------------- Lagrange
def lagrange(order: int, zeta):
    """Lagrange polynomials of order p on p + 1 equally spaced nodes of [0, 1].

    Returns ``(N, dN)``, both ``(len(zeta), p + 1)``; column i belongs to node i/p
    (ordered from zeta = 0 to zeta = 1).  N_i = prod_{j != i} (z - z_j)/(z_i - z_j);
    the derivative is the sum over k != i of the products with factor k left out,
    so no division by (z - z_j) is ever made (exact at the nodes).
    """
    p = int(order)
    if p < 1:
        raise ValueError(f"lagrange: order must be >= 1, got {order}")
    z = np.atleast_1d(np.asarray(zeta, dtype=float))
    nodes = np.linspace(0.0, 1.0, p + 1)
    diff = z[:, None] - nodes[None, :]                       # (m, p+1)
    N = np.empty((z.size, p + 1))
    dN = np.zeros((z.size, p + 1))
    for i in range(p + 1):
        others = [j for j in range(p + 1) if j != i]
        denom = np.prod(nodes[i] - nodes[others])
        N[:, i] = np.prod(diff[:, others], axis=1) / denom
        for k in others:
            rest = [j for j in others if j != k]
            dN[:, i] += np.prod(diff[:, rest], axis=1) / denom
    return N, dN


# --------------------------------------------------------------------------- B-splines
def open_uniform_knots(degree: int, n_spans: int) -> np.ndarray:
    """Clamped (open) uniform knot vector on [0, 1]: p + 1 zeros, n_spans - 1 interior
    knots i/n_spans, p + 1 ones.  It carries n_spans + p basis functions."""
    p, n = int(degree), int(n_spans)
    if p < 0 or n < 1:
        raise ValueError(f"open_uniform_knots: need degree >= 0 and n_spans >= 1, got {degree}, {n_spans}")
    return np.concatenate([np.zeros(p), np.linspace(0.0, 1.0, n + 1), np.ones(p)])


def _check_knots(knots, degree):
    U = np.asarray(knots, dtype=float)
    p = int(degree)
    if U.ndim != 1 or U.size < 2 * p + 2:
        raise ValueError(f"knot vector of degree {p} needs at least {2 * p + 2} entries, got {U.size}")
    if np.any(np.diff(U) < 0) or not np.all(np.isfinite(U)):
        raise ValueError("knot vector must be finite and non-decreasing")
    if U[-p - 1] <= U[p]:
        raise ValueError("knot vector has an empty parameter domain")
    return U, p


def find_span(knots, degree: int, u) -> np.ndarray:
    """Knot-span index i with U_i <= u < U_{i+1} (the last non-empty span for u at the
    end of the domain); Piegl & Tiller A2.1, vectorised with a binary search."""
    U, p = _check_knots(knots, degree)
    u = np.atleast_1d(np.asarray(u, dtype=float))
    n_basis = U.size - p - 1
    lo, hi = U[p], U[n_basis]
    tol = 1e-12 * max(1.0, abs(hi - lo))
    if np.any(u < lo - tol) or np.any(u > hi + tol) or not np.all(np.isfinite(u)):
        raise ValueError(f"parameter outside the curve domain [{lo}, {hi}]")
    span = np.searchsorted(U, np.clip(u, lo, hi), side="right") - 1
    return np.clip(span, p, n_basis - 1)


def _safe_div(num, den):
    """num/den with the B-spline convention 0/0 = 0 (den == 0 only where num's factor is 0)."""
    out = np.zeros(np.broadcast(num, den).shape)
    mask = np.broadcast_to(den != 0.0, out.shape)
    num_b = np.broadcast_to(num, out.shape)
    den_b = np.broadcast_to(den, out.shape)
    out[mask] = num_b[mask] / den_b[mask]
    return out


def _basis_table(U, p, span, u):
    """Non-zero basis functions of every degree q = 0..p on each span (Cox-de Boor, eq. 2.5).

    ``table[q]`` is (m, q+1) with column r holding N_{i-q+r, q}(u), i = span.
    """
    m = u.size
    table = [np.ones((m, 1))]
    for q in range(1, p + 1):
        P = np.zeros((m, q + 2))
        P[:, 1:-1] = table[-1]
        k = span[:, None] - q + np.arange(q + 1)
        a = _safe_div(u[:, None] - U[k], U[k + q] - U[k])
        b = _safe_div(U[k + q + 1] - u[:, None], U[k + q + 1] - U[k + 1])
        table.append(a * P[:, :-1] + b * P[:, 1:])
    return table


def _raise_derivative(U, span, D, q):
    """One step of N^{(d)}_{k,q} = q (N^{(d-1)}_{k,q-1}/(U_{k+q}-U_k) - N^{(d-1)}_{k+1,q-1}/(U_{k+q+1}-U_{k+1}))
    (Piegl & Tiller eq. 2.9); D holds the degree q-1 quantities, shape (m, q)."""
    m = D.shape[0]
    P = np.zeros((m, q + 2))
    P[:, 1:-1] = D
    k = span[:, None] - q + np.arange(q + 1)
    return q * (_safe_div(P[:, :-1], U[k + q] - U[k]) - _safe_div(P[:, 1:], U[k + q + 1] - U[k + 1]))


def bspline_basis_derivatives(knots, degree: int, u, n_der: int = 1):
    """Span indices and the derivatives 0..n_der of the degree + 1 non-zero basis functions.

    Returns ``(span, [N, dN, d2N, ...])`` with each array (len(u), degree + 1); column r
    belongs to basis function span - degree + r.  The k-th derivative is obtained from
    the degree p - k functions by k applications of eq. 2.9 of The NURBS Book.
    """
    U, p = _check_knots(knots, degree)
    u = np.atleast_1d(np.asarray(u, dtype=float))
    span = find_span(U, p, u)
    u = np.clip(u, U[p], U[-p - 1])
    table = _basis_table(U, p, span, u)
    ders = []
    for d in range(int(n_der) + 1):
        if d > p:
            ders.append(np.zeros((u.size, p + 1)))
            continue
        D = table[p - d]
        for q in range(p - d + 1, p + 1):
            D = _raise_derivative(U, span, D, q)
        ders.append(D)
    return span, ders


def bspline_basis(knots, degree: int, u):
    """``(span, N, dN)``: span index and the degree + 1 non-zero B-spline basis values and
    first derivatives at each u (Piegl & Tiller A2.1-A2.3, vectorised)."""
    span, (N, dN) = bspline_basis_derivatives(knots, degree, u, 1)
    return span, N, dN


def _collocation_matrix(U, p, u):
    """Full (len(u), n_basis) matrix of B-spline basis values."""
    span, (N,) = bspline_basis_derivatives(U, p, u, 0)
    B = np.zeros((u.size, U.size - p - 1))
    cols = span[:, None] - p + np.arange(p + 1)
    np.put_along_axis(B, cols, N, axis=1)
    return B


def _plane_axes(normal):
    """Orthonormal in-plane axes (ex, ey, n) for a plane with the given normal.

    ex is the unit projection of global X onto the plane (of global Y if the normal is
    within ~0.1 degree of X), ey = n x ex; for normal = Z this is the global frame.
    """
    n = np.asarray(normal, dtype=float).reshape(3)
    nn = np.linalg.norm(n)
    if not np.isfinite(nn) or nn == 0.0:
        raise ValueError(f"normal must be a non-zero finite vector, got {normal}")
    n = n / nn
    ref = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 1.0 - 1e-6 else np.array([0.0, 1.0, 0.0])
    ex = ref - (ref @ n) * n
    ex /= np.linalg.norm(ex)
    return ex, np.cross(n, ex), n


# --------------------------------------------------------------------------- NURBS
@dataclass(eq=False)
class NurbsCurve:
    """Non-uniform rational B-spline curve C(u) = sum N_i w_i P_i / sum N_i w_i.

    ``control_points`` is (n, 3) (an (n, 2) input is padded with z = 0), ``weights`` is
    (n,) and positive, ``knots`` has n + degree + 1 non-decreasing entries.
    """

    degree: int
    knots: np.ndarray
    control_points: np.ndarray
    weights: np.ndarray

    def __post_init__(self):
        self.degree = int(self.degree)
        if self.degree < 1:
            raise ValueError(f"NurbsCurve: degree must be >= 1, got {self.degree}")
        P = np.array(self.control_points, dtype=float)
        if P.ndim != 2 or P.shape[1] not in (2, 3):
            raise ValueError(f"NurbsCurve: control_points must be (n, 3), got shape {P.shape}")
        if P.shape[1] == 2:
            P = np.column_stack([P, np.zeros(len(P))])
        w = np.array(self.weights, dtype=float).reshape(-1)
        U, _ = _check_knots(self.knots, self.degree)
        if w.size != len(P):
            raise ValueError(f"NurbsCurve: {len(P)} control points but {w.size} weights")
        if U.size != len(P) + self.degree + 1:
            raise ValueError(f"NurbsCurve: {len(P)} control points of degree {self.degree} need "
                             f"{len(P) + self.degree + 1} knots, got {U.size}")
        if not (np.all(np.isfinite(P)) and np.all(np.isfinite(w)) and np.all(w > 0)):
            raise ValueError("NurbsCurve: control points must be finite and weights finite and > 0")
        self.knots, self.control_points, self.weights = U.copy(), P, w

    # ---- construction helpers
    @property
    def n_points(self) -> int:
        """Number of control points."""
        return len(self.weights)

    @property
    def domain(self):
        """Parameter interval (U_p, U_n)."""
        return float(self.knots[self.degree]), float(self.knots[self.n_points])

    def homogeneous(self) -> np.ndarray:
        """(n, 4) homogeneous control points (w P, w)."""
        return np.column_stack([self.control_points * self.weights[:, None], self.weights])

    @classmethod
    def from_homogeneous(cls, degree, knots, Pw) -> NurbsCurve:
        """Curve from (n, 4) homogeneous control points (w P, w)."""
        Pw = np.asarray(Pw, dtype=float)
        return cls(degree, knots, Pw[:, :3] / Pw[:, 3:4], Pw[:, 3])

    @classmethod
    def line(cls, a, b, degree: int = 3, n_spans: int = 1) -> NurbsCurve:
        """Straight segment a -> b with C(u) = a + u (b - a) exactly (uniform speed):
        control points at the Greville abscissae of the open uniform knot vector."""
        a, b = np.asarray(a, dtype=float).reshape(3), np.asarray(b, dtype=float).reshape(3)
        U = open_uniform_knots(degree, n_spans)
        p = int(degree)
        n = U.size - p - 1
        g = np.array([U[i + 1:i + p + 1].mean() for i in range(n)])
        return cls(p, U, a + g[:, None] * (b - a), np.ones(n))

    @classmethod
    def circular_arc(cls, center, radius, angle0, angle1, normal=(0.0, 0.0, 1.0), degree: int = 3) -> NurbsCurve:
        """Exact circular arc C + r (cos a ex + sin a ey), a from angle0 to angle1 (radians).

        Rational quadratic pieces of at most 90 degrees (The NURBS Book, section 7.5):
        end points with weight 1, the tangent intersection with weight cos(da/2), double
        interior knots at equal parameter steps; elevated to ``degree`` (>= 2) afterwards.
        (ex, ey) are the in-plane axes: ex = global X projected on the plane (global Y if
        the normal is along X), ey = normal x ex.
        """
        r = float(radius)
        sweep = float(angle1) - float(angle0)
        if not (r > 0 and np.isfinite(r)):
            raise ValueError(f"circular_arc: radius must be > 0, got {radius}")
        if sweep == 0.0 or abs(sweep) > 2 * np.pi * (1 + 1e-14) or not np.isfinite(sweep):
            raise ValueError(f"circular_arc: need 0 < |angle1 - angle0| <= 2 pi, got {sweep}")
        if int(degree) < 2:
            raise ValueError("circular_arc: an exact arc needs degree >= 2")
        ex, ey, _ = _plane_axes(normal)
        c = np.asarray(center, dtype=float).reshape(3)
        nseg = max(1, int(np.ceil(abs(sweep) / (0.5 * np.pi) - 1e-12)))
        da = sweep / nseg
        a = float(angle0) + da * np.arange(2 * nseg + 1) / 2.0     # end/mid angles
        dist = np.where(np.arange(2 * nseg + 1) % 2 == 0, r, r / np.cos(0.5 * da))
        P = c + dist[:, None] * (np.cos(a)[:, None] * ex + np.sin(a)[:, None] * ey)
        w = np.where(np.arange(2 * nseg + 1) % 2 == 0, 1.0, np.cos(0.5 * da))
        interior = np.repeat(np.arange(1, nseg) / nseg, 2)
        U = np.concatenate([np.zeros(3), interior, np.ones(3)])
        curve = cls(2, U, P, w)
        for _ in range(int(degree) - 2):
            curve = curve.elevate_degree()
        return curve

    # ---- evaluation
    def _local(self, u, n_der):
        span, ders = bspline_basis_derivatives(self.knots, self.degree, u, n_der)
        idx = span[:, None] - self.degree + np.arange(self.degree + 1)
        return idx, ders

    def evaluate(self, u):
        """Points C(u), first and second derivatives dC/du, d2C/du2 (exact rational
        derivatives, The NURBS Book eq. 4.8).  Arrays (m, 3), or (3,) for a scalar u."""
        scalar = np.ndim(u) == 0
        idx, ders = self._local(u, 2)
        Pw = self.homogeneous()[idx]                               # (m, p+1, 4)
        A, A1, A2 = (np.einsum("mr,mrk->mk", D, Pw) for D in ders)
        W, W1, W2 = A[:, 3:], A1[:, 3:], A2[:, 3:]
        C = A[:, :3] / W
        C1 = (A1[:, :3] - W1 * C) / W
        C2 = (A2[:, :3] - 2.0 * W1 * C1 - W2 * C) / W
        if scalar:
            return C[0], C1[0], C2[0]
        return C, C1, C2

    def point(self, u):
        """C(u) only: (m, 3) or (3,)."""
        return self.evaluate(u)[0]

    def rational_basis(self, u):
        """``(indices, R, dR)`` per u: the degree + 1 control-point indices with non-zero
        basis, R_i = N_i w_i / W and dR_i/du = (N_i' w_i W - N_i w_i W') / W^2."""
        idx, (N, dN) = self._local(u, 1)
        w = self.weights[idx]
        W = np.sum(N * w, axis=1, keepdims=True)
        W1 = np.sum(dN * w, axis=1, keepdims=True)
        R = N * w / W
        dR = (dN * w * W - N * w * W1) / W ** 2
        return idx, R, dR

    # ---- refinement
    def insert_knot(self, u: float, times: int = 1) -> NurbsCurve:
        """New curve with knot u inserted ``times`` times; geometry and parametrisation are
        unchanged (Boehm's algorithm in homogeneous coordinates, The NURBS Book eq. 5.15).
        The multiplicity of u may not exceed the degree."""
        p, U, Pw = self.degree, self.knots.copy(), self.homogeneous()
        u = float(u)
        lo, hi = self.domain
        if not lo < u < hi:
            raise ValueError(f"insert_knot: u = {u} must lie strictly inside ({lo}, {hi})")
        s = int(np.count_nonzero(U == u))
        if times < 0 or s + times > p:
            raise ValueError(f"insert_knot: multiplicity {s} + {times} would exceed the degree {p}")
        for _ in range(int(times)):
            k = int(np.searchsorted(U, u, side="right")) - 1
            n = len(Pw)
            Q = np.empty((n + 1, 4))
            Q[:k - p + 1] = Pw[:k - p + 1]
            Q[k + 1:] = Pw[k:]
            i = np.arange(k - p + 1, k + 1)
            alpha = ((u - U[i]) / (U[i + p] - U[i]))[:, None]
            Q[i] = alpha * Pw[i] + (1.0 - alpha) * Pw[i - 1]
            U = np.insert(U, k + 1, u)
            Pw = Q
        return NurbsCurve.from_homogeneous(p, U, Pw)

    def refine(self, n_spans: int) -> NurbsCurve:
        """Uniform h-refinement: every non-empty knot span is split into ``n_spans`` equal
        sub-spans by knot insertion (n_spans = 1 returns an identical copy)."""
        n_spans = int(n_spans)
        if n_spans < 1:
            raise ValueError(f"refine: n_spans must be >= 1, got {n_spans}")
        breaks = np.unique(self.knots[self.degree:self.n_points + 1])
        new = [a + (b - a) * j / n_spans for a, b in itertools.pairwise(breaks) for j in range(1, n_spans)]
        curve = NurbsCurve(self.degree, self.knots, self.control_points, self.weights)
        for u in new:
            curve = curve.insert_knot(u)
        return curve

    def elevate_degree(self) -> NurbsCurve:
        """Same curve with degree p + 1 (every distinct knot gets one more multiplicity).

        The homogeneous curve is a piecewise polynomial that lies in the elevated spline
        space, so its new control points are obtained exactly by collocation at the
        Greville abscissae of the new knot vector (non-singular by Schoenberg-Whitney).
        """
        p, U = self.degree, self.knots
        values, counts = np.unique(U, return_counts=True)
        U_new = np.repeat(values, counts + 1)
        q = p + 1
        n_new = U_new.size - q - 1
        g = np.array([U_new[i + 1:i + q + 1].mean() for i in range(n_new)])
        idx, (N,) = self._local(g, 0)
        rhs = np.einsum("mr,mrk->mk", N, self.homogeneous()[idx])
        Pw_new = np.linalg.solve(_collocation_matrix(U_new, q, g), rhs)
        return NurbsCurve.from_homogeneous(q, U_new, Pw_new)


# --------------------------------------------------------------------------- IGA elements
@dataclass(eq=False)
class NurbsElement:
    """One knot span of a NURBS curve used as a beam element.

    ``indices`` (p+1,) control points; ``u`` (n_gauss,) Gauss parameters; ``R`` and
    ``dR_ds`` (n_gauss, p+1) rational basis and its arc-length derivative;
    ``weights`` (n_gauss,) arc-length quadrature weights w_g |C'(u_g)| (u1 - u0);
    ``span`` = (u0, u1).
    """

    indices: np.ndarray
    u: np.ndarray
    R: np.ndarray
    dR_ds: np.ndarray
    weights: np.ndarray
    span: tuple


def nurbs_elements(curve: NurbsCurve, n_gauss: int):
    """List of ``NurbsElement`` (one per non-empty knot span) with n_gauss Gauss points;
    dR/ds = (dR/du) / |C'(u)| and the weights sum to the curve length over all spans."""
    xg, wg = gauss_legendre(n_gauss)
    U, p = curve.knots, curve.degree
    elements = []
    for i in range(p, curve.n_points):
        a, b = U[i], U[i + 1]
        if b <= a:
            continue
        u = a + (b - a) * xg
        idx, R, dR = curve.rational_basis(u)
        speed = np.linalg.norm(curve.evaluate(u)[1], axis=1)
        elements.append(NurbsElement(indices=idx[0].copy(), u=u, R=R, dR_ds=dR / speed[:, None],
                                     weights=wg * speed * (b - a), span=(float(a), float(b))))
    return elements
