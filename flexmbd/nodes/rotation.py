"""Spatial rigid bodies on R³ × SO(3): q = [R (3), p (4) unit quaternion], velocities
v = [Ṙ (3), Ω (3)] with Ω the body-frame angular velocity.

An increment (ΔR, Δθ) acts as R + ΔR, p ⊗ exp(Δθ) (right multiplication by the
body-frame rotation vector Δθ, result normalised), so there is no normalisation
constraint and the rotation block has 3 unknowns.  A body-fixed vector u: x = R + A u,
δx = δR − A ũ δθ (δA = A δθ̃).
"""
from __future__ import annotations

import numpy as np

from ..lie import quat_from_rotvec, quat_multiply
from ..rotations import rotation_matrix, skew
from .base import NodeKind, MarkerSet


class RotationMarkers(MarkerSet):
    def _parts(self, qb):
        return rotation_matrix(qb[:, 3:7]), self.u * self.rot[:, None]

    def _value(self, qb, A, ur):
        """x = point·R + A u + const·u (positions and unit quaternions: this kind and SE(3))."""
        return self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", A, ur) + self.const[:, None] * self.u

    def evaluate(self, qb):
        A, ur = self._parts(qb)
        x = self._value(qb, A, ur)
        J = np.zeros((self.n, 3, 6))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(ur))
        return x, J

    def contract(self, qb, g):
        # Jᵀ g = [g; ũ Aᵀ g],  Aᵀ g → (I − Δθ~) Aᵀ g  ⇒  ∂/∂Δθ = ũ (Aᵀ g)~
        out = np.zeros((self.n, 6, 6))
        A, ur = self._parts(qb)
        b = np.einsum("nji,nj->ni", A, g)
        out[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(ur), skew(b))
        return out

    def dJv(self, qb, vb):
        # J v = Ṙ + A (Ω × u),  A → A exp(Δθ~)  ⇒  ∂/∂Δθ = −A (Ω × u)~
        out = np.zeros((self.n, 3, 6))
        A, ur = self._parts(qb)
        c = np.cross(vb[:, 3:6], ur)
        out[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(c))
        return out


def so3_right_tangent(dv):
    """T(Δ) (N, 6, 6) of increments (ΔR, Δθ): identity on ΔR, the right-trivialised
    tangent of exp on Δθ, T(θ) = I − (1 − cos a)/a² θ̃ + (a − sin a)/a³ θ̃², a = |θ|."""
    th = np.asarray(dv, dtype=float).reshape(-1, 6)[:, 3:6]
    a = np.linalg.norm(th, axis=1)
    small = a < 1e-4
    a_ = np.where(small, 1.0, a)
    c1 = np.where(small, 0.5 - a * a / 24.0, (1.0 - np.cos(a_)) / a_**2)
    c2 = np.where(small, 1.0 / 6.0 - a * a / 120.0, (a_ - np.sin(a_)) / a_**3)
    S = skew(th)
    T = np.zeros((len(th), 6, 6))
    T[:, :3, :3] = np.eye(3)
    T[:, 3:, 3:] = np.eye(3) - c1[:, None, None] * S + c2[:, None, None] * (S @ S)
    return T


def unit_quaternion_pose(q):
    """Origins (N, 3) and rotation matrices of [x, p] configurations (p normalised)."""
    p = q[:, 3:7]
    return q[:, :3], rotation_matrix(p / np.linalg.norm(p, axis=1, keepdims=True))


def body_frame_torque(q, n, body_fixed, jacobians):
    """Q_θ = Aᵀ n (global n) or n' (body axes), ∂(Aᵀ n)/∂Δθ = (Aᵀ n)~, for kinds whose
    rotation increments are body-frame rotation vectors (δπ = A δθ)."""
    Q = np.zeros((len(q), 6))
    b = np.where(body_fixed[:, None], n, np.einsum("nji,nj->ni", rotation_matrix(q[:, 3:7]), n))
    Q[:, 3:] = b
    if not jacobians:
        return Q, None
    K = np.zeros((len(q), 6, 6))
    K[:, 3:, 3:] = np.where(body_fixed[:, None, None], 0.0, skew(b))
    return Q, K


class RotationKind(NodeKind):
    """Spatial rigid body on R³ × SO(3) (``parameterization="rotation"``); see the module
    docstring."""

    name = "spatial-lie"
    nq = 7
    nv = 6
    coordinate_names = ("x", "y", "z", "e0", "e1", "e2", "e3")
    velocity_names = ("x", "y", "z", "theta_x", "theta_y", "theta_z")
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    marker_class = RotationMarkers

    def increment(self, q, dv):
        q = np.asarray(q, dtype=float)
        dv = np.asarray(dv, dtype=float)
        out = np.empty(np.broadcast_shapes(q.shape, dv.shape[:-1] + (7,)))
        out[..., :3] = q[..., :3] + dv[..., :3]
        p = quat_multiply(q[..., 3:7], quat_from_rotvec(dv[..., 3:6]))
        out[..., 3:7] = p / np.linalg.norm(p, axis=-1, keepdims=True)
        return out

    def tangent(self, dv):
        return so3_right_tangent(dv)

    def orientation_matrix(self, orientation):
        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        At = np.swapaxes(A, 1, 2)
        q = np.concatenate([x, np.asarray(orientation, dtype=float)], axis=1)
        return q, np.concatenate([xd, np.matmul(At, w[:, :, None])[:, :, 0]], axis=1)  # Ω = Aᵀ ω

    def pose(self, q):
        return unit_quaternion_pose(q)

    def twist(self, q, v):
        return v[:, :3], np.einsum("nij,nj->ni", rotation_matrix(q[:, 3:7]), v[:, 3:6])

    def velocity_from_twist(self, q, xd, w):
        return np.concatenate([xd, np.einsum("nji,nj->ni", rotation_matrix(q[:, 3:7]), w)], axis=1)

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return q[:, 3:7]
        if what == "angular_velocity":
            return np.einsum("nij,nj->ni", rotation_matrix(q[:, 3:7]), v[:, 3:6])   # ω = A Ω
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        Q = np.zeros((len(mass), 6))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        return body_frame_torque(q, n, body_fixed, jacobians)


ROTATION = RotationKind()
