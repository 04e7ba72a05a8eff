"""ANCF node kinds (flexmbd/nodes/ancf.py): markers, poses, twists, loads.

Markers are linear in q: x and J are checked against central differences, contract and
dJv are zero; the pose of nodes in a rigid rotation is that rotation (fully
parameterized) or has its x axis along r_x (cable); initial_state ↔ pose/twist round
trips; the torque's generalised force is the virtual work of the torque under a rigid
virtual rotation and its Jacobian matches central differences.
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.errors import ModelError
from flexmbd.lie import so3_exp
from flexmbd.nodes import ANCF, ANCF_CABLE, KINDS, POINT, VECTOR, CONSTANT, kind_from_key
from flexmbd.rotations import rotation_matrix
from flexmbd.lie import quat_from_matrix

RNG = np.random.default_rng(7)


def rotations(n, rng=RNG):
    return so3_exp(rng.standard_normal((n, 3)))


def central(f, q, eps=1e-6):
    out = []
    for j in range(q.shape[1]):
        d = np.zeros_like(q)
        d[:, j] = eps
        out.append((f(q + d) - f(q - d)) / (2 * eps))
    return np.stack(out, -1)


def test_registered_with_keys_and_names():
    assert KINDS["ancf"] is ANCF and KINDS["ancf-cable"] is ANCF_CABLE
    assert kind_from_key("ancf-cable") == ANCF_CABLE
    assert (ANCF.nq, ANCF.nv, ANCF_CABLE.nq, ANCF_CABLE.nv) == (12, 12, 6, 6)
    assert ANCF.coordinate_names[3:6] == ("rx_x", "rx_y", "rx_z") and len(ANCF_CABLE.coordinate_names) == 6
    # ground's slot: the identity frame at the origin, so that ground markers are x = u
    u = RNG.standard_normal((3, 3))
    for kind in (ANCF, ANCF_CABLE):
        x, _ = kind.markers(u, [POINT, VECTOR, CONSTANT]).evaluate(np.tile(kind.ground_q, (3, 1)))
        np.testing.assert_allclose(x, u, atol=1e-15)


@pytest.mark.parametrize("kind", [ANCF, ANCF_CABLE])
def test_marker_values_and_jacobians(kind):
    n = 9
    q = RNG.standard_normal((n, kind.nq))
    u = RNG.standard_normal((n, 3))
    if kind is ANCF_CABLE:
        u[:, 1:] = 0.0
    mt = np.array([POINT, VECTOR, CONSTANT] * 3)
    ms = kind.markers(u, mt)
    x, J = ms.evaluate(q)
    G = q[:, 3:].reshape(n, -1, 3)
    m = G.shape[1]
    expect = np.einsum("ni,nij->nj", u[:, :m], G)
    expect[mt == POINT] += q[mt == POINT, :3]
    expect[mt == CONSTANT] = u[mt == CONSTANT]
    np.testing.assert_allclose(x, expect, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(J, central(lambda y: ms.evaluate(y)[0], q), atol=1e-9)
    assert not np.any(ms.contract(q, RNG.standard_normal((n, 3))))
    assert not np.any(ms.dJv(q, RNG.standard_normal((n, kind.nv))))


def test_pose_of_a_rigid_rotation_and_round_trips():
    n = 6
    A = rotations(n)
    x, xd, w = (RNG.standard_normal((n, 3)) for _ in range(3))
    quat = quat_from_matrix(A)
    q, v = ANCF.initial_state(x, quat, xd, w, A)
    np.testing.assert_allclose(q[:, 3:].reshape(n, 3, 3), np.swapaxes(A, 1, 2))   # r_x, r_y, r_z = columns
    r, R = ANCF.pose(q)
    np.testing.assert_allclose(r, x)
    np.testing.assert_allclose(R, A, atol=1e-14)
    xd2, w2 = ANCF.twist(q, v)
    np.testing.assert_allclose(xd2, xd)
    np.testing.assert_allclose(w2, w, atol=1e-13)
    np.testing.assert_allclose(ANCF.velocity_from_twist(q, xd, w), v, atol=1e-14)
    np.testing.assert_allclose(rotation_matrix(ANCF.output("orientation", q, v)).reshape(n, 3, 3), A, atol=1e-13)
    # cable: x axis along r_x; angular velocity: the part normal to the axis is ω's,
    # the spin about the axis is the smallest-rotation frame's
    qc, vc = ANCF_CABLE.initial_state(x, quat, xd, w, A)
    np.testing.assert_allclose(qc[:, 3:], A[:, :, 0])
    rc, Rc = ANCF_CABLE.pose(qc)
    np.testing.assert_allclose(Rc[:, :, 0], A[:, :, 0], atol=1e-14)
    np.testing.assert_allclose(np.swapaxes(Rc, 1, 2) @ Rc, np.broadcast_to(np.eye(3), (n, 3, 3)), atol=1e-13)
    _, wc = ANCF_CABLE.twist(qc, vc)
    e1 = A[:, :, 0]
    perp = lambda a: a - np.einsum("ni,ni->n", a, e1)[:, None] * e1   # noqa: E731
    np.testing.assert_allclose(perp(wc), perp(w), atol=1e-13)
    np.testing.assert_allclose(ANCF_CABLE.velocity_from_twist(qc, xd, w), vc, atol=1e-14)


@pytest.mark.parametrize("kind", [ANCF, ANCF_CABLE])
def test_twist_is_the_derivative_of_the_pose(kind):
    """ω̃ = Ṙ Rᵀ along q(t) = q + t v, for general (not rigid) gradients."""
    n = 5
    q = RNG.standard_normal((n, kind.nq))
    v = RNG.standard_normal((n, kind.nv))
    eps = 1e-6
    Rd = (kind.pose(q + eps * v)[1] - kind.pose(q - eps * v)[1]) / (2 * eps)
    W = Rd @ np.swapaxes(kind.pose(q)[1], 1, 2)
    w = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], -1)
    np.testing.assert_allclose(kind.twist(q, v)[1], w, atol=1e-7)
    np.testing.assert_allclose(W + np.swapaxes(W, 1, 2), 0, atol=1e-7)


def test_torque_is_virtual_work_under_rigid_rotation_and_its_jacobian():
    n = 6
    A = rotations(n)
    q, _ = ANCF.initial_state(RNG.standard_normal((n, 3)), quat_from_matrix(A), np.zeros((n, 3)),
                              np.zeros((n, 3)), A)
    torque = RNG.standard_normal((n, 3))
    for bf in (False, True):
        Q, _ = ANCF.torque_force(q, torque, bf)
        ng = np.einsum("nij,nj->ni", A, torque) if bf else torque
        dth = RNG.standard_normal((n, 3))
        dq = np.c_[np.zeros((n, 3)), np.cross(dth[:, None, :], q[:, 3:].reshape(n, 3, 3)).reshape(n, 9)]
        np.testing.assert_allclose(np.einsum("ni,ni->n", Q, dq), np.einsum("ni,ni->n", ng, dth), atol=1e-13)
    qg = q + 0.3 * RNG.standard_normal(q.shape)               # general gradients
    bfs = np.array([True, False] * 3)
    Q, K = ANCF.torque_force(qg, torque, bfs)
    np.testing.assert_allclose(K, central(lambda y: ANCF.torque_force(y, torque, bfs)[0], qg), atol=1e-9)


def test_cable_refuses_torques_and_offsets_across_its_axis():
    m = fm.Model()
    rod = m.beam("rod", section=fm.beams.Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7800),
                 elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf-cable") \
        if "ancf-cable" in _formulations() else None
    with pytest.raises(ModelError, match="no rotation coordinates"):
        ANCF_CABLE.torque_force(np.zeros((1, 6)), np.ones((1, 3)), False)
    with pytest.raises(ModelError, match="on the beam's axis"):
        ANCF_CABLE.check_offsets(["rod.n1"], [[0.1, 0.2, 0.0]])
    ANCF_CABLE.check_offsets(["rod.n1"], [[0.1, 0.0, 0.0]])
    if rod is not None:
        with pytest.raises(ModelError, match="no rotation coordinates") as e:
            m.torque(rod.last, (0, 0, 1), name="t")
        assert e.value.element == "t"


def _formulations():
    try:
        from flexmbd.beams.formulations import FORMULATIONS
    except ImportError:
        return ()
    return tuple(FORMULATIONS)
