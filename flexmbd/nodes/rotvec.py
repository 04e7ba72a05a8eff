"""Nodes of the R³×R³ formulation: q = [x (3), ψ (3)], ψ the *total* rotation vector
(R = exp(ψ̃)); velocities q̇ = [ẋ, ψ̇].  A vector kind: increments add.

ψ and −ψ(2π/|ψ| − 1) describe the same rotation; the solvers keep |ψ| ≤ π by rescaling
nodes between steps (:meth:`RotationVectorKind.rescale`, :mod:`.rotvec_branch`) and beam
elements bring their nodes onto one branch.  Markers: x = point·X + R u,
J = [point·I, −R ũ T(ψ)] (T the tangent operator of exp, R T(ψ) = T(ψ)ᵀ).
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..lie import quat_from_rotvec, quat_to_rotvec, so3_dT, so3_exp, so3_T, so3_Tinv
from ..rotations import skew
from .base import NodeKind, MarkerSet
from .rotvec_branch import rescale_state

if USE_KERNELS:
    from ..kernels import r3r3 as _kernel


def _c(x, shape=None):
    """x as a contiguous float array (of ``shape``, broadcast only when it differs)."""
    x = np.ascontiguousarray(x, dtype=float)
    if shape is not None and x.shape != shape:
        x = np.ascontiguousarray(np.broadcast_to(x, shape))
    return x


def _mv(A, v):
    return np.einsum("...ij,...j->...i", A, v)


def _tmv(A, v):
    return np.einsum("...ji,...j->...i", A, v)


def _tr(A):
    return np.swapaxes(A, -1, -2)


def _node_parts(q_node, u, point):
    q_node = np.asarray(q_node, dtype=float)
    u = np.asarray(u, dtype=float)
    point = np.asarray(point, dtype=float)
    psi = q_node[:, 3:6]
    return q_node, u, point, psi, so3_exp(psi), so3_T(psi)


def marker(q_node, u, point):
    """x = point·X + R u and J = ∂x/∂q = [point·I, −R ũ T] for nodes q = (X, ψ).

    q_node (N, 6), u (N, 3) in the node frame, point (N,) 1.0 (point) or 0.0
    (direction).  Returns x (N, 3), J (N, 3, 6).  Compiled (:mod:`flexmbd.kernels.r3r3`)
    when Numba is available; the NumPy code is the reference.
    """
    if USE_KERNELS:
        q_node, u = _c(q_node), _c(u)
        x, J = np.empty((len(u), 3)), np.empty((len(u), 3, 6))
        _kernel.markers(q_node, u, _c(point, (len(u),)), x, J)
        return x, J
    q_node, u, point, _, R, T = _node_parts(q_node, u, point)
    x = point[:, None] * q_node[:, 0:3] + _mv(R, u)
    J = np.zeros((len(u), 3, 6))
    J[:, :, 0:3] = point[:, None, None] * np.eye(3)
    J[:, :, 3:6] = -R @ skew(u) @ T
    return x, J


def marker_contract(q_node, u, point, g):
    """Σ_i g_i ∂²x_i/∂q² (N, 6, 6): only the ψψ block, with β = Rᵀ g,

        ∂²(gᵀ R u)/∂ψ² = dTᵀ(ψ, u × β) + Tᵀ ũ β̃ T   (gradient Tᵀ (u × β)).
    """
    if USE_KERNELS:
        out = np.empty((len(q_node), 6, 6))
        _kernel.marker_contract(_c(q_node), _c(u), _c(g, (len(q_node), 3)), out)
        return out
    q_node, u, point, psi, R, T = _node_parts(q_node, u, point)
    beta = _tmv(R, np.asarray(g, dtype=float))
    out = np.zeros((len(u), 6, 6))
    out[:, 3:6, 3:6] = so3_dT(psi, np.cross(u, beta), transpose=True) + _tr(T) @ skew(u) @ skew(
        beta
    ) @ T
    return out


def marker_dJv(q_node, u, point, v):
    """∂(J v)/∂q (N, 3, 6): J v = point·v_x + R (T v_ψ × u), so with y = T v_ψ × u

        ∂(J v)/∂ψ = −R ỹ T − R ũ dT(ψ, v_ψ).
    """
    if USE_KERNELS:
        out = np.empty((len(q_node), 3, 6))
        _kernel.marker_dJv(_c(q_node), _c(u), _c(v), out)
        return out
    q_node, u, point, psi, R, T = _node_parts(q_node, u, point)
    v = np.asarray(v, dtype=float)
    vp = v[:, 3:6]
    y = np.cross(_mv(T, vp), u)
    out = np.zeros((len(u), 3, 6))
    out[:, :, 3:6] = -R @ skew(y) @ T - R @ skew(u) @ so3_dT(psi, vp)
    return out


def torque_force(q_node, n, body_fixed=False):
    """Generalised force Q (N, 6) of a torque n on a node and its Jacobian ∂Q/∂q (N, 6, 6).

    Virtual work n_g·δπ with the global virtual rotation δπ = R T δψ.  For a global
    torque n_g = n: Q_ψ = Tᵀ Rᵀ n = T n (as R T(ψ) = T(ψ)ᵀ), ∂Q_ψ/∂ψ = dT(ψ, n).  For a
    node-fixed torque (``body_fixed``, n in node axes, n_g = R n): Q_ψ = Tᵀ n,
    ∂Q_ψ/∂ψ = dTᵀ(ψ, n).  ``body_fixed`` is a bool or an (N,) array.
    """
    q_node = np.asarray(q_node, dtype=float)
    n = np.asarray(n, dtype=float)
    psi = q_node[:, 3:6]
    bf = np.broadcast_to(np.asarray(body_fixed, dtype=bool), psi.shape[:1])
    sel = np.where(bf, -1.0, 1.0)[:, None]  # T(ψ)ᵀ = T(−ψ)
    Q = np.zeros((len(psi), 6))
    Q[:, 3:6] = _mv(so3_T(sel * psi), n)
    dQ = np.zeros((len(psi), 6, 6))
    dQ[:, 3:6, 3:6] = np.where(
        bf[:, None, None], so3_dT(psi, n, transpose=True), so3_dT(psi, n)
    )
    return Q, dQ


def angular_velocity(q, v):
    """Global angular velocity ω = R T(ψ) ψ̇ = T(ψ)ᵀ ψ̇ of rows q = [x, ψ], v = [ẋ, ψ̇]."""
    return np.einsum("nji,nj->ni", so3_T(q[:, 3:6]), v[:, 3:6])


class RotationVectorMarkers(MarkerSet):
    def evaluate(self, qb):
        x, J = marker(qb, self.u * self.rot[:, None], self.point)
        return x + self.const[:, None] * self.u, J

    def contract(self, qb, g):
        return marker_contract(qb, self.u * self.rot[:, None], self.point, g)

    def dJv(self, qb, vb):
        return marker_dJv(qb, self.u * self.rot[:, None], self.point, vb)


class RotationVectorKind(NodeKind):
    """A beam node of the R³×R³ formulation; see the module docstring."""

    name = "r3r3"
    nq = 6
    nv = 6
    coordinate_names = ("x", "y", "z", "psi_x", "psi_y", "psi_z")
    velocity_names = coordinate_names
    ground_q = np.zeros(6)
    has_branches = True
    marker_class = RotationVectorMarkers

    def rescale(self, q, v, accelerations=()):
        """ψ → ψ (1 − 2πk/|ψ|) onto |ψ| ≤ π; ψ̇ → G ψ̇ and a → G a + G″[ψ̇, ψ̇] (G = ∂ψ'/∂ψ),
        so that angular velocities and accelerations are unchanged (:func:`.rotvec_branch.rescale_state`)."""
        psi, psid, acc, changed = rescale_state(q[:, 3:6], None if v is None else v[:, 3:6],
                                                [a[:, 3:6] for a in accelerations])
        if not np.any(changed):
            return q, v, list(accelerations), changed
        q = q.copy()
        q[:, 3:6] = psi
        if v is not None:
            v = v.copy()
            v[:, 3:6] = psid
        out = []
        for a, a2 in zip(accelerations, acc):
            a = a.copy()
            a[:, 3:6] = a2
            out.append(a)
        return q, v, out, changed

    def orientation_matrix(self, orientation):
        from ..rotations import rotation_matrix

        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        psi = quat_to_rotvec(np.asarray(orientation, dtype=float))
        At = np.swapaxes(A, 1, 2)
        Om = np.matmul(At, w[:, :, None])[:, :, 0]
        return (np.concatenate([x, psi], axis=1),
                np.concatenate([xd, np.matmul(so3_Tinv(psi), Om[:, :, None])[:, :, 0]], axis=1))  # T ψ̇ = Ω

    def pose(self, q):
        return q[:, :3], so3_exp(q[:, 3:6])

    def twist(self, q, v):
        return v[:, :3], angular_velocity(q, v)

    def velocity_from_twist(self, q, xd, w):
        return np.concatenate([xd, np.einsum("nji,nj->ni", so3_Tinv(q[:, 3:6]), w)], axis=1)   # T(ψ)ᵀ ψ̇ = ω

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return quat_from_rotvec(q[:, 3:6])
        if what == "angular_velocity":
            return angular_velocity(q, v)
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        Q = np.zeros((len(mass), 6))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        Q, dQ = torque_force(q, n, body_fixed)
        return Q, (dQ if jacobians else None)


R3R3 = RotationVectorKind()
