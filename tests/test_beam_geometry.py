"""Reference geometry of beams: positions, arc length and section frames."""
import numpy as np
import pytest

from flexmbd.beams.geometry import (
    CircularArc,
    NurbsReference,
    StraightLine,
    default_frame,
)
from flexmbd.beams.shape import NurbsCurve


def assert_frames(ref, s, tol_fd=1e-7):
    """Orthonormal right-handed frames whose e1 is the finite-difference tangent."""
    R = ref.frame(s)
    np.testing.assert_allclose(np.einsum("mki,mkj->mij", R, R), np.broadcast_to(np.eye(3), R.shape), atol=1e-13)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-13)
    h = 1e-6
    sc = np.clip(s, h, ref.length - h)
    t = (ref.point(sc + h) - ref.point(sc - h)) / (2 * h)
    np.testing.assert_allclose(np.linalg.norm(t, axis=1), 1.0, atol=tol_fd)       # unit speed in s
    np.testing.assert_allclose(t, ref.frame(sc)[:, :, 0], atol=tol_fd)
    return R


# ---------------------------------------------------------------- straight line
def test_straight_line_along_x_has_identity_frame():
    line = StraightLine([1, 2, 3], [6, 2, 3])
    assert line.length == 5.0
    np.testing.assert_array_equal(line.frame(2.0), np.eye(3))
    np.testing.assert_allclose(line.point(2.0), [3, 2, 3])
    nodes = line.nodes(6)
    np.testing.assert_allclose(nodes.s, np.linspace(0, 5, 6))
    np.testing.assert_allclose(nodes.x[:, 0], np.linspace(1, 6, 6))
    assert nodes.R.shape == (6, 3, 3)


@pytest.mark.parametrize("d", [(1, 1, 0), (0, 1, 0), (1, 2, 3), (-1, 0.5, -2), (0, 0, 1), (0, 0, -2)])
def test_straight_line_default_frame_rule(d):
    line = StraightLine([0, 0, 0], d)
    R = assert_frames(line, np.linspace(0, line.length, 5))[0]
    np.testing.assert_allclose(R[:, 0], np.asarray(d) / np.linalg.norm(d), atol=1e-15)
    if abs(R[2, 0]) < 1 - 1e-12:
        assert abs(R[2, 1]) < 1e-15          # e2 horizontal
        assert R[2, 2] > 0                   # e3 points "up"
    else:
        np.testing.assert_allclose(R[:, 1], [0, 1, 0], atol=1e-15)


def test_straight_line_given_e2():
    line = StraightLine([0, 0, 0], [1, 0, 0], e2=[0, 1, 1])
    R = line.frame(0.5)
    np.testing.assert_allclose(R[:, 1], [0, 1 / np.sqrt(2), 1 / np.sqrt(2)], atol=1e-15)
    np.testing.assert_allclose(R[:, 2], [0, -1 / np.sqrt(2), 1 / np.sqrt(2)], atol=1e-15)
    with pytest.raises(ValueError):
        StraightLine([0, 0, 0], [1, 0, 0], e2=[2, 0, 0])
    with pytest.raises(ValueError):
        StraightLine([0, 0, 0], [0, 0, 0])
    with pytest.raises(ValueError):
        line.point(1.5)


def test_default_frame_is_proper_rotation():
    R = default_frame([0.3, -0.2, 0.9])
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
    assert np.linalg.det(R) == pytest.approx(1.0)


# ---------------------------------------------------------------- circular arc
def test_quarter_circle_frame_and_nodes():
    arc = CircularArc([0, 0, 0], 1.0, 0.0, np.pi / 2)
    assert arc.length == pytest.approx(np.pi / 2, rel=1e-15)
    n = arc.nodes(5)
    ang = np.linspace(0, np.pi / 2, 5)
    np.testing.assert_allclose(n.x, np.column_stack([np.cos(ang), np.sin(ang), 0 * ang]), atol=1e-15)
    for a, R in zip(ang, n.R):
        e1 = np.array([-np.sin(a), np.cos(a), 0])
        np.testing.assert_allclose(R[:, 0], e1, atol=1e-15)
        np.testing.assert_allclose(R[:, 2], [0, 0, 1], atol=1e-15)
        np.testing.assert_allclose(R[:, 1], np.cross([0, 0, 1], e1), atol=1e-15)
    np.testing.assert_allclose(arc.frame(0.0), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    assert_frames(arc, np.linspace(0, arc.length, 9))


@pytest.mark.parametrize("center,r,a0,a1,normal", [
    ((1, 2, 3), 2.0, 0.5, 2.5, (0, 0, 1)),
    ((0, 0, 0), 0.5, 3.0, 1.0, (0, 0, 1)),          # clockwise
    ((0, 1, 0), 1.5, -1.0, 4.0, (1, -1, 2)),
])
def test_arc_general(center, r, a0, a1, normal):
    arc = CircularArc(center, r, a0, a1, normal)
    s = np.linspace(0, arc.length, 11)
    R = assert_frames(arc, s)
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    np.testing.assert_allclose(R[:, :, 2], np.broadcast_to(n, (11, 3)), atol=1e-15)
    x = arc.point(s)
    np.testing.assert_allclose(np.linalg.norm(x - center, axis=1), r, atol=1e-14)
    # nodes at exact angles: consecutive chords all equal 2 r sin(dphi / 2)
    nd = arc.nodes(7)
    dphi = abs(a1 - a0) / 6
    np.testing.assert_allclose(np.linalg.norm(np.diff(nd.x, axis=0), axis=1), 2 * r * np.sin(dphi / 2), atol=1e-14)
    np.testing.assert_allclose(arc.angle(nd.s), np.linspace(a0, a1, 7), atol=1e-14)


# ---------------------------------------------------------------- NURBS reference
@pytest.mark.parametrize("a0,a1,degree", [(0.0, np.pi / 2, 3), (0.2, 0.2 + 4.0, 3), (0.0, 2.5, 2)])
def test_nurbs_arc_matches_circular_arc(a0, a1, degree):
    c, r = np.array([0.5, -1.0, 2.0]), 1.7
    ref = NurbsReference(NurbsCurve.circular_arc(c, r, a0, a1, degree=degree))
    arc = CircularArc(c, r, a0, a1)
    assert ref.length == pytest.approx(arc.length, rel=1e-13)
    s = np.linspace(0, arc.length, 23)
    np.testing.assert_allclose(ref.point(s), arc.point(s), atol=1e-12)
    np.testing.assert_allclose(ref.frame(s), arc.frame(s), atol=1e-12)
    nr, na = ref.nodes(9), arc.nodes(9)
    np.testing.assert_allclose(nr.x, na.x, atol=1e-12)
    np.testing.assert_allclose(ref.s_of_u(ref.u_of_s(s)), s, atol=1e-12)


def test_nurbs_line_along_x():
    ref = NurbsReference(NurbsCurve.line([0, 0, 0], [2, 0, 0], n_spans=3))
    assert ref.length == pytest.approx(2.0, rel=1e-14)
    np.testing.assert_allclose(ref.frame(np.linspace(0, 2, 5)), np.broadcast_to(np.eye(3), (5, 3, 3)), atol=1e-15)
    np.testing.assert_allclose(ref.point(0.5), [0.5, 0, 0], atol=1e-14)


def planar_curve(rotation=None):
    rotation = np.eye(3) if rotation is None else rotation
    P = np.array([[0, 0, 0], [1, 0.8, 0], [2, -0.5, 0], [3, 1.0, 0], [4, 0.2, 0], [5, 0, 0.0]])
    U = np.array([0, 0, 0, 0, 0.3, 0.6, 1, 1, 1, 1.0])
    return NurbsCurve(3, U, P @ rotation.T, [1, 1.5, 0.8, 1.2, 1, 1])


def test_nurbs_planar_curve_frame():
    ref = NurbsReference(planar_curve())
    s = np.linspace(0, ref.length, 31)
    R = assert_frames(ref, s)
    np.testing.assert_allclose(R[:, :, 2], np.broadcast_to([0, 0, 1.0], (31, 3)), atol=1e-15)
    # arc length: a fine polygon converges to the same length
    x = ref.curve.point(np.linspace(0, 1, 20001))
    assert np.sum(np.linalg.norm(np.diff(x, axis=0), axis=1)) == pytest.approx(ref.length, rel=1e-8)
    # nodes equally spaced in arc length
    nd = ref.nodes(6)
    np.testing.assert_allclose(ref.s_of_u(ref.u_of_s(nd.s)), nd.s, atol=1e-12)
    np.testing.assert_allclose(np.diff(ref.s_of_u(ref.u_of_s(nd.s))), ref.length / 5, atol=1e-12)


def test_nurbs_tilted_planar_curve_uses_plane_normal():
    th = 0.4
    Q = np.array([[1, 0, 0], [0, np.cos(th), -np.sin(th)], [0, np.sin(th), np.cos(th)]])
    ref = NurbsReference(planar_curve(Q))
    R = assert_frames(ref, np.linspace(0, ref.length, 13))
    np.testing.assert_allclose(R[:, :, 2], np.broadcast_to(Q[:, 2], (13, 3)), atol=1e-12)
    ref2 = NurbsReference(planar_curve(Q), normal=-Q[:, 2])
    np.testing.assert_allclose(ref2.frame(0.3)[:, 2], -Q[:, 2], atol=1e-12)


def test_nurbs_spatial_curve_rotation_minimising_frame():
    P = np.array([[0, 0, 0], [1, 0, 0.3], [1.5, 1, 0.6], [0.5, 1.8, 1.0], [-0.5, 1.2, 1.4], [0, 0.2, 2.0]])
    U = np.array([0, 0, 0, 0, 0.35, 0.65, 1, 1, 1, 1.0])
    ref = NurbsReference(NurbsCurve(3, U, P, [1, 1.2, 0.9, 1, 1.1, 1]))
    s = np.linspace(0.01, ref.length - 0.01, 41)
    R = assert_frames(ref, s)
    # start frame follows the default rule
    np.testing.assert_allclose(ref.frame(0.0), default_frame(ref.frame(0.0)[:, 0]), atol=1e-13)
    # twist-free: the section axes do not rotate about the tangent, (de2/ds) . e3 = 0
    h = 1e-5
    de2 = (ref.frame(s + h)[:, :, 1] - ref.frame(s - h)[:, :, 1]) / (2 * h)
    curvature = np.linalg.norm(de2, axis=1)
    twist = np.sum(de2 * R[:, :, 2], axis=1)
    assert np.max(np.abs(twist)) < 1e-6 * max(1.0, curvature.max())
    assert curvature.max() > 0.1     # the curve does bend out of any plane


def test_scalar_and_vector_shapes():
    arc = CircularArc([0, 0, 0], 1.0, 0.0, 1.0)
    assert arc.point(0.5).shape == (3,)
    assert arc.frame(0.5).shape == (3, 3)
    assert arc.point([0.1, 0.5]).shape == (2, 3)
    assert arc.frame(np.array([0.1, 0.5, 0.9])).shape == (3, 3, 3)
    with pytest.raises(ValueError):
        arc.nodes(1)


def test_nurbs_spatial_frame_matches_parallel_transport_ode():
    """e2 obeys the rotation-minimising ODE de2/ds = -(de1/ds . e2) e1 (Bishop frame)."""
    from scipy.integrate import solve_ivp

    P = np.array([[0, 0, 0], [1, 0, 0.3], [1.5, 1, 0.6], [0.5, 1.8, 1.0], [-0.5, 1.2, 1.4], [0, 0.2, 2.0]])
    U = np.array([0, 0, 0, 0, 0.35, 0.65, 1, 1, 1, 1.0])
    ref = NurbsReference(NurbsCurve(3, U, P, [1, 1.2, 0.9, 1, 1.1, 1]))
    c = ref.curve

    def rhs(u, r):
        _, c1, c2 = c.evaluate(u)
        speed = np.linalg.norm(c1)
        t = c1 / speed
        return -(((c2 - (c2 @ t) * t) / speed) @ r) * t

    s = np.linspace(0, ref.length, 11)
    sol = solve_ivp(rhs, (0.0, 1.0), ref.frame(0.0)[:, 1], t_eval=ref.u_of_s(s), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(sol.y.T, ref.frame(s)[:, :, 1], atol=1e-7)
