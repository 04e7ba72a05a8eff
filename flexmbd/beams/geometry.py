"""Stress-free reference geometry of a beam: position x(s) and section frame R(s).

s is the arc length from the start of the curve, 0 <= s <= ``length``.  The frame
R(s) = [e1 e2 e3] has e1 = dx/ds (unit tangent); e2, e3 span the cross section.
For planar curves e3 is the (constant) plane normal and e2 = e3 x e1, which is the
rotation-minimising (twist-free) frame.  ``point`` and ``frame`` accept a scalar
((3,) and (3, 3)) or an array of m values ((m, 3) and (m, 3, 3)).

Default section orientation ("horizontal e2" rule)
    For a tangent t that is not vertical, e2 = Z x t / |Z x t| (horizontal) and
    e3 = t x e2, i.e. e3 is the unit projection of global Z on the section plane.
    For an axis along X this is the identity frame.  A (nearly) vertical tangent
    (|t x Z| < 1e-8) uses e2 = unit projection of global Y instead.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .shape import NurbsCurve, _plane_axes, gauss_legendre

__all__ = ["CircularArc", "Nodes", "NurbsReference", "StraightLine", "default_frame"]

_Z = np.array([0.0, 0.0, 1.0])
_Y = np.array([0.0, 1.0, 0.0])


class Nodes(NamedTuple):
    """Equally spaced nodes: arc lengths (n,), positions (n, 3), frames (n, 3, 3)."""

    s: np.ndarray
    x: np.ndarray
    R: np.ndarray


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def default_frame(tangent, e2=None) -> np.ndarray:
    """Frame [e1 e2 e3] for a straight axis: e1 = unit tangent; e2 given (orthogonalised
    against e1) or chosen by the module's "horizontal e2" rule; e3 = e1 x e2."""
    e1 = _unit(np.asarray(tangent, dtype=float).reshape(3))
    if e2 is None:
        h = np.cross(_Z, e1)
        ref = h if np.linalg.norm(h) > 1e-8 else _Y - (_Y @ e1) * e1
    else:
        ref = np.asarray(e2, dtype=float).reshape(3)
        ref = ref - (ref @ e1) * e1
        if np.linalg.norm(ref) < 1e-8 * max(1.0, np.linalg.norm(e2)):
            raise ValueError(f"e2 = {e2} is parallel to the beam axis")
    e2v = _unit(ref)
    return np.column_stack([e1, e2v, np.cross(e1, e2v)])


class _Reference:
    """Common interface: ``length``, ``point(s)``, ``frame(s)``, ``nodes(n)``."""

    length: float

    def _s(self, s):
        s = np.asarray(s, dtype=float)
        tol = 1e-12 * max(1.0, self.length)
        if not np.all(np.isfinite(s)) or np.any(s < -tol) or np.any(s > self.length + tol):
            raise ValueError(f"arc length outside [0, {self.length}]")
        return np.clip(np.atleast_1d(s), 0.0, self.length), s.ndim == 0

    def point(self, s):
        s1, scalar = self._s(s)
        x = self._point(s1)
        return x[0] if scalar else x

    def frame(self, s):
        s1, scalar = self._s(s)
        R = self._frame(s1)
        return R[0] if scalar else R

    def nodes(self, n: int) -> Nodes:
        """n >= 2 points equally spaced in arc length (s, x, R)."""
        if int(n) < 2:
            raise ValueError(f"nodes: n must be >= 2, got {n}")
        s = np.linspace(0.0, self.length, int(n))
        return Nodes(s, self._point(s), self._frame(s))


class StraightLine(_Reference):
    """Straight reference axis from ``start`` to ``end``; constant frame from
    ``default_frame(end - start, e2)`` (identity for an axis along global X)."""

    def __init__(self, start, end, e2=None):
        self.start = np.asarray(start, dtype=float).reshape(3)
        self.end = np.asarray(end, dtype=float).reshape(3)
        d = self.end - self.start
        self.length = float(np.linalg.norm(d))
        if not self.length > 0:
            raise ValueError("StraightLine: start and end coincide")
        self._R = default_frame(d, e2)

    def _point(self, s):
        return self.start + s[:, None] * self._R[:, 0]

    def _frame(self, s):
        return np.broadcast_to(self._R, (s.size, 3, 3)).copy()


class CircularArc(_Reference):
    """Arc x = c + r (cos a ex + sin a ey), a = angle0 + sign(angle1 - angle0) s / r.

    (ex, ey) as in ``NurbsCurve.circular_arc`` (for normal = Z: global X and Y).
    e1 = dx/ds, e3 = normal, e2 = e3 x e1 (towards the centre for a counter-clockwise arc).
    """

    def __init__(self, center, radius, angle0, angle1, normal=(0.0, 0.0, 1.0)):
        self.center = np.asarray(center, dtype=float).reshape(3)
        self.radius = float(radius)
        self.angle0, self.angle1 = float(angle0), float(angle1)
        sweep = self.angle1 - self.angle0
        if not (self.radius > 0 and np.isfinite(self.radius)):
            raise ValueError(f"CircularArc: radius must be > 0, got {radius}")
        if sweep == 0.0 or not np.isfinite(sweep):
            raise ValueError("CircularArc: angle1 must differ from angle0")
        self._sign = np.sign(sweep)
        self.ex, self.ey, self.normal = _plane_axes(normal)
        self.length = self.radius * abs(sweep)

    def angle(self, s):
        """Polar angle a(s) in the (ex, ey) plane."""
        return self.angle0 + self._sign * np.asarray(s, dtype=float) / self.radius

    def _point(self, s):
        a = self.angle(s)[:, None]
        return self.center + self.radius * (np.cos(a) * self.ex + np.sin(a) * self.ey)

    def _frame(self, s):
        a = self.angle(s)[:, None]
        e1 = self._sign * (-np.sin(a) * self.ex + np.cos(a) * self.ey)
        e3 = np.broadcast_to(self.normal, e1.shape)
        return np.stack([e1, np.cross(e3, e1), e3], axis=-1)


class NurbsReference(_Reference):
    """Reference axis given by a ``NurbsCurve``, parametrised by arc length.

    Arc length: composite Gauss-Legendre quadrature of |C'(u)| (``n_gauss`` points on
    ``n_sub`` equal parts of every knot span); s -> u by Newton's method on
    s(u) - s = 0 inside the bracketing part.
    Frame: e1 = C'/|C'|.  If the control points are coplanar, e3 = plane normal
    (``normal`` if given, else the SVD normal oriented so that its first non-zero
    component among (z, y, x) is positive) and e2 = e3 x e1.  If they are collinear,
    the constant ``default_frame``.  Otherwise a rotation-minimising frame obtained by
    the double-reflection method (Wang, Juettler, Zheng & Liu, ACM TOG 27, 2008) on
    ``n_rmf`` equal parameter steps per span, started from ``default_frame`` at s = 0
    and carried by one more reflection step to the requested s (error O(h^4)).
    """

    def __init__(self, curve: NurbsCurve, normal=None, n_gauss: int = 16, n_sub: int = 4, n_rmf: int = 64):
        self.curve = curve
        self._xg, self._wg = gauss_legendre(n_gauss)
        U, p = curve.knots, curve.degree
        spans = [(U[i], U[i + 1]) for i in range(p, curve.n_points) if U[i + 1] > U[i]]
        self._ub = np.unique(np.concatenate([np.linspace(a, b, n_sub + 1) for a, b in spans]))
        seg = np.array([self._integral(np.array([a]), np.array([b]))[0]
                        for a, b in zip(self._ub[:-1], self._ub[1:])])
        self._sb = np.concatenate([[0.0], np.cumsum(seg)])
        self.length = float(self._sb[-1])
        self._kind, self._normal, self._R0 = self._classify(normal)
        if self._kind == "spatial":
            self._ug = np.unique(np.concatenate([np.linspace(a, b, n_rmf + 1) for a, b in spans]))
            self._rmf_grid()

    # ---- arc length
    def _speed(self, u):
        return np.linalg.norm(self.curve.evaluate(np.ravel(u))[1], axis=1).reshape(np.shape(u))

    def _integral(self, a, b):
        """int_a^b |C'(u)| du for arrays a, b (b - a within one quadrature part)."""
        ug = a[:, None] + (b - a)[:, None] * self._xg
        return (b - a) * (self._speed(ug) @ self._wg)

    def u_of_s(self, s):
        """Curve parameter u at arc length s (vectorised)."""
        s1, scalar = self._s(s)
        j = np.clip(np.searchsorted(self._sb, s1, side="right") - 1, 0, self._ub.size - 2)
        ua, ub, sa, sb = self._ub[j], self._ub[j + 1], self._sb[j], self._sb[j + 1]
        u = ua + (ub - ua) * (s1 - sa) / (sb - sa)
        for _ in range(50):
            du = -(sa + self._integral(ua, u) - s1) / self._speed(u)
            u_new = np.clip(u + du, ua, ub)
            done = np.max(np.abs(u_new - u)) <= 4e-16 * max(1.0, np.max(np.abs(u_new)))
            u = u_new
            if done:
                break
        return u[0] if scalar else u

    def s_of_u(self, u):
        """Arc length at parameter u (vectorised)."""
        u = np.atleast_1d(np.asarray(u, dtype=float))
        j = np.clip(np.searchsorted(self._ub, u, side="right") - 1, 0, self._ub.size - 2)
        return self._sb[j] + self._integral(self._ub[j], u)

    # ---- frames
    def _classify(self, normal):
        P = self.curve.control_points
        scale = max(np.ptp(P, axis=0).max(), 1e-300)
        _, sv, vt = np.linalg.svd(P - P.mean(axis=0))
        sv = np.concatenate([sv, np.zeros(3 - sv.size)])
        if sv[1] <= 1e-12 * scale * np.sqrt(len(P)):
            return "straight", None, default_frame(self.curve.evaluate(self.curve.domain[0])[1])
        if normal is not None:
            n = _unit(np.asarray(normal, dtype=float).reshape(3))
            return "planar", n, None
        if sv[2] <= 1e-12 * scale * np.sqrt(len(P)):
            n = vt[2]
            for k in (2, 1, 0):
                if abs(n[k]) > 1e-12:
                    n = n if n[k] > 0 else -n
                    break
            return "planar", n, None
        return "spatial", None, None

    @staticmethod
    def _reflect(x0, t0, r0, x1, t1):
        """Double-reflection step carrying e2 = r0 from (x0, t0) to (x1, t1)."""
        v1 = x1 - x0
        c1 = np.sum(v1 * v1, axis=-1, keepdims=True)
        c1 = np.where(c1 > 0, c1, 1.0)
        rL = r0 - (2.0 / c1) * np.sum(v1 * r0, axis=-1, keepdims=True) * v1
        tL = t0 - (2.0 / c1) * np.sum(v1 * t0, axis=-1, keepdims=True) * v1
        v2 = t1 - tL
        c2 = np.sum(v2 * v2, axis=-1, keepdims=True)
        c2 = np.where(c2 > 0, c2, 1.0)
        r1 = rL - (2.0 / c2) * np.sum(v2 * rL, axis=-1, keepdims=True) * v2
        r1 = r1 - np.sum(r1 * t1, axis=-1, keepdims=True) * t1
        return _unit(r1)

    def _rmf_grid(self):
        x, d1, _ = self.curve.evaluate(self._ug)
        t = _unit(d1)
        r = np.empty_like(t)
        r[0] = default_frame(t[0])[:, 1]
        for k in range(1, len(t)):
            r[k] = self._reflect(x[k - 1], t[k - 1], r[k - 1], x[k], t[k])
        self._gx, self._gt, self._gr = x, t, r

    def _point(self, s):
        return self.curve.point(np.atleast_1d(self.u_of_s(s)))

    def _frame(self, s):
        u = np.atleast_1d(self.u_of_s(s))
        if self._kind == "straight":
            return np.broadcast_to(self._R0, (u.size, 3, 3)).copy()
        x, d1, _ = self.curve.evaluate(u)
        e1 = _unit(d1)
        if self._kind == "planar":
            e3 = np.broadcast_to(self._normal, e1.shape)
            e2 = _unit(np.cross(e3, e1))
            return np.stack([e1, e2, np.cross(e1, e2)], axis=-1)
        j = np.clip(np.searchsorted(self._ug, u, side="right") - 1, 0, self._ug.size - 1)
        e2 = self._reflect(self._gx[j], self._gt[j], self._gr[j], x, e1)
        return np.stack([e1, e2, np.cross(e1, e2)], axis=-1)
