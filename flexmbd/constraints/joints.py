"""Joint and driver definitions as dot-product equations (see :mod:`.dot`).

A joint is placed by a global point ``at`` and global axes in the *initial*
configuration; this module turns them into body-fixed marker vectors.  Joint frames:
``a`` is the joint axis, (f, g, a) a right-handed orthonormal triad.  Drivers prescribe
the joint coordinate measured from the initial configuration: a rotational driver the
angle of body j relative to body i about ``a`` (positive from f towards g), a
translational driver the displacement of j's point along ``a``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..nodes import POINT, VECTOR
from ..rotations import perpendicular_pair as _perpendicular_pair
from .dot import NO_SLOT, Equation, const

AXES = np.eye(3)
_CONST_AXES = tuple(const(a) for a in AXES)   # the global axes as constant slots


class Frame:
    """Initial pose of one side of a joint: converts global data to body-fixed slots.
    With an ``anchor`` (the joint's global point) direction slots carry where they sit
    on the body, so that deformable bodies turn them with the material there."""

    def __init__(self, side, position, rotation, anchor=None):
        self.side, self.R, self.A = side, np.asarray(position, float), np.asarray(rotation, float)
        self.anchor = None if anchor is None else tuple(self.A.T @ (np.asarray(anchor, float) - self.R))

    def point(self, x):
        return (self.side, POINT, tuple(self.A.T @ (np.asarray(x, float) - self.R)))

    def vector(self, v):
        u = tuple(self.A.T @ np.asarray(v, float))
        return (self.side, VECTOR, u) if self.anchor is None else (self.side, VECTOR, u, self.anchor)


def perpendicular_pair(axis):
    """:func:`flexmbd.rotations.perpendicular_pair` of a joint axis, computed once per
    axis (freezing asks for it per joint; many joints share their axis); read-only arrays."""
    return _pair(tuple(map(float, axis)))


@lru_cache(maxsize=1024)
def _pair(axis):
    f, g = _perpendicular_pair(np.array(axis))
    f.flags.writeable = g.flags.writeable = False
    return f, g


def _term(xa, xb, ya, yb=NO_SLOT):
    return [xa, xb, ya, yb]


def spherical(owner, fi, fj, at, planar=False, body_frame=None):
    """Point coincidence, 3 (planar: 2) equations (p_j − p_i)·e_k.

    ``body_frame``: None measures along the global axes; a Frame (fi or fj) measures
    along that body's axes, (p_j − p_i)·(A e_k) — the same constraint, whose Jacobian
    along body-frame increments is invariant under rigid motion of the pair (SE(3)
    bodies: the iteration matrix then changes only with the relative motion)."""
    eqs = []
    pj, pi = fj.point(at), fi.point(at)
    for k in range(2 if planar else 3):
        axis = _CONST_AXES[k] if body_frame is None else body_frame.vector(AXES[k])
        where = f"{'xyz'[k]}" if body_frame is None else f"{'xyz'[k]} of body {'ij'[body_frame.side]}"
        eqs.append(Equation(owner, f"point coincidence along {where}", [_term(pj, pi, axis)]))
    return eqs


def _dot1(owner, label, a_slot, b_slot):
    return Equation(owner, label, [_term(a_slot, NO_SLOT, b_slot)])


def _dot2(owner, label, a_slot, pj, pi):
    return Equation(owner, label, [_term(a_slot, NO_SLOT, pj, pi)])


def revolute(owner, fi, fj, at, axis, planar=False, body_frame=None):
    if planar:
        return spherical(owner, fi, fj, at, planar=True)
    f, g = perpendicular_pair(axis)
    return spherical(owner, fi, fj, at, body_frame=body_frame) + [
        _dot1(owner, "axis of j ⊥ f of i", fi.vector(f), fj.vector(axis)),
        _dot1(owner, "axis of j ⊥ g of i", fi.vector(g), fj.vector(axis)),
    ]


def universal(owner, fi, fj, at, axis_i, axis_j):
    return spherical(owner, fi, fj, at) + [
        _dot1(owner, "cross axes stay perpendicular", fi.vector(axis_i), fj.vector(axis_j))
    ]


def point_on_line(owner, fi, fj, at, axis, planar=False):
    if planar:
        n = np.cross(AXES[2], axis)
        return [_dot2(owner, "point of j on line of i", fi.vector(n), fj.point(at), fi.point(at))]
    f, g = perpendicular_pair(axis)
    return [
        _dot2(owner, "point of j on line of i (f)", fi.vector(f), fj.point(at), fi.point(at)),
        _dot2(owner, "point of j on line of i (g)", fi.vector(g), fj.point(at), fi.point(at)),
    ]


def cylindrical(owner, fi, fj, at, axis):
    f, g = perpendicular_pair(axis)
    return point_on_line(owner, fi, fj, at, axis) + [
        _dot1(owner, "axis of j ⊥ f of i", fi.vector(f), fj.vector(axis)),
        _dot1(owner, "axis of j ⊥ g of i", fi.vector(g), fj.vector(axis)),
    ]


def prismatic(owner, fi, fj, at, axis, planar=False):
    f, g = perpendicular_pair(axis)
    if planar:
        return point_on_line(owner, fi, fj, at, axis, planar=True) + [
            _dot1(owner, "no relative rotation", fi.vector(axis), fj.vector(np.cross(AXES[2], axis)))
        ]
    return cylindrical(owner, fi, fj, at, axis) + [
        _dot1(owner, "no rotation about the axis", fi.vector(f), fj.vector(g))
    ]


def point_in_plane(owner, fi, fj, at, normal):
    return [_dot2(owner, "point of j in plane of i", fi.vector(normal), fj.point(at), fi.point(at))]


def fixed(owner, fi, fj, at, planar=False, gradient_axes=False):
    """Point coincidence and no relative rotation: three dot products of the axes.  For
    nodes whose axes are gradients (``NodeKind.gradient_axes``, fully parameterized ANCF:
    x = r + [r_x r_y r_z] u), perpendicular axes would leave the gradients' stretch and
    shear free, so the weld makes every axis of j equal to that of i along the global
    axes, (a_j − a_i)·e_m = 0 (9 equations; to ground: r and all gradients fixed, the
    ANCF clamp)."""
    if gradient_axes:
        return spherical(owner, fi, fj, at) + [
            Equation(owner, f"axis {'xyz'[k]} equal along {'xyz'[m]}",
                     [_term(fj.vector(AXES[k]), fi.vector(AXES[k]), _CONST_AXES[m])])
            for k in range(3) for m in range(3)]
    if planar:
        return spherical(owner, fi, fj, at, planar=True) + [
            _dot1(owner, "no relative rotation", fi.vector(AXES[0]), fj.vector(AXES[1]))
        ]
    x, y, z = AXES
    return spherical(owner, fi, fj, at) + [
        _dot1(owner, "no rotation about z", fi.vector(x), fj.vector(y)),
        _dot1(owner, "no rotation about x", fi.vector(y), fj.vector(z)),
        _dot1(owner, "no rotation about y", fi.vector(z), fj.vector(x)),
    ]


def distance(owner, fi, fj, at_i, at_j, length):
    d = (fj.point(at_j), fi.point(at_i))
    return [Equation(owner, "distance", [_term(d[0], d[1], d[0], d[1])], target=length**2)]


def rotation_driver(owner, fi, fj, axis):
    """sin(θ − θ_d) = cos θ_d (g_i·f_j) − sin θ_d (f_i·f_j); weights set by the driver law."""
    f, g = perpendicular_pair(axis)
    return [Equation(owner, "prescribed relative angle",
                     [_term(fi.vector(g), NO_SLOT, fj.vector(f)),
                      _term(fi.vector(f), NO_SLOT, fj.vector(f))])]


def translation_driver(owner, fi, fj, at, axis):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    return [Equation(owner, "prescribed displacement",
                     [_term(fi.vector(a), NO_SLOT, fj.point(at), fi.point(at))])]
