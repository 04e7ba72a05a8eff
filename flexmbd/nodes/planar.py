"""Planar rigid bodies in the global x-y plane: q = [x, y, θ].

A body-fixed vector u turns with A(θ) about z: x = point·[x, y, 0] + [A u_xy, u_z], so
J = [point·I₂, ∂(A u)/∂θ], Σ gᵢ ∂²xᵢ/∂θ² = −g·(A u), ∂(J v)/∂θ = −A u θ̇.
"""
from __future__ import annotations

import numpy as np

from .base import NodeKind, MarkerSet


class PlanarMarkers(MarkerSet):
    def _rotated(self, theta):
        c, s = np.cos(theta), np.sin(theta)
        ux, uy = self.u[:, 0], self.u[:, 1]
        Au = np.stack([c * ux - s * uy, s * ux + c * uy], -1)
        dAu = np.stack([-s * ux - c * uy, c * ux - s * uy], -1)
        return Au * self.rot[:, None], dAu * self.rot[:, None]

    def evaluate(self, qb):
        Au, dAu = self._rotated(qb[:, 2])
        x = np.zeros((self.n, 3))
        x[:, :2] = self.point[:, None] * qb[:, :2] + Au
        x[:, 2] = self.rot * self.u[:, 2]
        x += self.const[:, None] * self.u
        J = np.zeros((self.n, 3, 3))
        J[:, 0, 0] = J[:, 1, 1] = self.point
        J[:, :2, 2] = dAu
        return x, J

    def contract(self, qb, g):
        out = np.zeros((self.n, 3, 3))
        Au, _ = self._rotated(qb[:, 2])
        out[:, 2, 2] = -np.einsum("ni,ni->n", g[:, :2], Au)
        return out

    def dJv(self, qb, vb):
        out = np.zeros((self.n, 3, 3))
        Au, _ = self._rotated(qb[:, 2])
        out[:, :2, 2] = -Au * vb[:, 2:3]
        return out


def _rotation_z(theta):
    c, s = np.cos(theta), np.sin(theta)
    A = np.zeros((len(theta), 3, 3))
    A[:, 0, 0], A[:, 0, 1], A[:, 1, 0], A[:, 1, 1], A[:, 2, 2] = c, -s, s, c, 1.0
    return A


class PlanarKind(NodeKind):
    """Planar rigid body in the global x-y plane, q = [x, y, θ]; stored orientation: [θ]."""

    name = "planar"
    nq = 3
    nv = 3
    coordinate_names = ("x", "y", "theta")
    velocity_names = coordinate_names
    ground_q = np.zeros(3)
    kernel_code = 0   # kernels/dot.py PLANAR
    marker_class = PlanarMarkers

    def orientation_matrix(self, orientation):
        return _rotation_z(np.asarray(orientation, dtype=float).reshape(-1, 1)[:, 0])

    def initial_state(self, x, orientation, xd, w, A):
        th = np.asarray(orientation, dtype=float).reshape(-1, 1)[:, 0]
        return (np.column_stack([x[:, 0], x[:, 1], th]),
                np.column_stack([xd[:, 0], xd[:, 1], w[:, 2]]))

    def pose(self, q):
        x = np.zeros((len(q), 3))
        x[:, :2] = q[:, :2]
        return x, _rotation_z(q[:, 2])

    def twist(self, q, v):
        xd, w = np.zeros((len(q), 3)), np.zeros((len(q), 3))
        xd[:, :2] = v[:, :2]
        w[:, 2] = v[:, 2]
        return xd, w

    def velocity_from_twist(self, q, xd, w):
        return np.column_stack([xd[:, 0], xd[:, 1], w[:, 2]])

    def output(self, what, q, v):
        z = np.zeros(len(q))
        if what == "position":
            return np.c_[q[:, :2], z]
        if what == "velocity":
            return np.c_[v[:, :2], z]
        if what == "orientation":
            return q[:, 2]
        if what == "angular_velocity":
            return np.c_[z, z, v[:, 2]]
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        Q = np.zeros((len(mass), 3))
        Q[:, :2] = mass[:, None] * g[:2]
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        Q = np.zeros((len(q), 3))
        Q[:, 2] = n[:, 2]
        return Q, (np.zeros((len(q), 3, 3)) if jacobians else None)


PLANAR = PlanarKind()
