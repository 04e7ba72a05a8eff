"""Frames on SE(3): beam nodes and rigid bodies of beam models (kind ``se3``).

Configuration q = [x (3), p (4) unit quaternion] (the frame H = (A(p), x)); increments
and velocities are body-frame twists v = (U, Ω) with ẋ = A U, and an increment acts as
H ⊕ Δ = H exp(Δ̃) on SE(3) (Sonneville, Cardona & Brüls 2014):
    x ← x + A T(Ω_Δ)ᵀ U_Δ,   A ← A exp(Ω̃_Δ).
Everything an element sees in these coordinates is frame-invariant, so the internal
forces and stiffness of a beam on SE(3) nodes do not change under rigid motion.  A
body-fixed vector u: x = X + A u, δx = A δU − A ũ δΘ.
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..lie import quat_from_rotvec, quat_multiply, se3_T, so3_dT, so3_exp, so3_hat, so3_T
from ..rotations import rotation_matrix, skew
from .base import NodeKind
from .rotation import RotationMarkers, body_frame_torque, unit_quaternion_pose

if USE_KERNELS:
    from ..kernels import frames as _frames


class FrameMarkers(RotationMarkers):
    """As on R³ × SO(3), but the translational increments are body-frame: J_U = A."""

    def evaluate(self, qb):
        A, ur = self._parts(qb)
        x = self._value(qb, A, ur)
        J = np.empty((self.n, 3, 6))
        J[:, :, :3] = A * self.point[:, None, None]
        J[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(ur))
        return x, J

    def contract(self, qb, g):
        # Jᵀ g = [point · b; ũ b] with b = Aᵀ g, and ∂b/∂Θ = b̃
        out = np.zeros((self.n, 6, 6))
        A, ur = self._parts(qb)
        bt = skew(np.einsum("nji,nj->ni", A, g))
        out[:, :3, 3:] = bt * self.point[:, None, None]
        out[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(ur), bt)
        return out

    def dJv(self, qb, vb):
        # J v = A c, c = point · U + Ω × u  ⇒  ∂/∂Θ = −A c̃
        out = np.zeros((self.n, 3, 6))
        A, ur = self._parts(qb)
        c = self.point[:, None] * vb[:, :3] + np.cross(vb[:, 3:6], ur)
        out[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(c))
        return out


class FrameKind(NodeKind):
    """A frame on SE(3) (``parameterization="se3"``, beam nodes); see the module docstring."""

    name = "se3"
    nq = 7
    nv = 6
    coordinate_names = ("x", "y", "z", "e0", "e1", "e2", "e3")
    velocity_names = ("U_x", "U_y", "U_z", "theta_x", "theta_y", "theta_z")
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    # Numba kernels (kernels/: markers in dot.py, spring_damper.py, loads.py; frames.py for
    # the increment and tangent); the NumPy code here is the reference.
    kernel_code = 2   # kernels/dot.py FRAME
    marker_class = FrameMarkers

    def increment(self, q, dv):
        q = np.asarray(q, dtype=float)
        dv = np.asarray(dv, dtype=float)
        if USE_KERNELS and q.shape[:-1] == dv.shape[:-1] and q.shape[-1] == 7 and dv.shape[-1] == 6:
            out = np.empty(q.shape)
            _frames.increment(np.ascontiguousarray(q.reshape(-1, 7)), np.ascontiguousarray(dv.reshape(-1, 6)),
                              out.reshape(-1, 7))
            return out
        out = np.empty(np.broadcast_shapes(q.shape, dv.shape[:-1] + (7,)))
        A = rotation_matrix(q[..., 3:7].reshape(-1, 4)).reshape(q.shape[:-1] + (3, 3))
        step = np.einsum("...ji,...j->...i", so3_T(dv[..., 3:6]), dv[..., :3])   # T(Ω)ᵀ U
        out[..., :3] = q[..., :3] + np.einsum("...ij,...j->...i", A, step)
        p = quat_multiply(q[..., 3:7], quat_from_rotvec(dv[..., 3:6]))
        out[..., 3:7] = p / np.linalg.norm(p, axis=-1, keepdims=True)
        return out

    def tangent(self, dv):
        """T_SE3(Δ) (N, 6, 6)."""
        dv = np.asarray(dv, dtype=float).reshape(-1, 6)
        if USE_KERNELS:
            T = np.empty((len(dv), 6, 6))
            _frames.tangent(np.ascontiguousarray(dv), T)
            return T
        return se3_T(dv)

    # The static chart (flexmbd.solvers.static): with base H_b = (R_b, x_b) the unknowns
    # Δ = (ΔU, ΔΩ) give q(Δ) = (x_b + R_b ΔU, R_b exp(ΔΩ̃)), positions and rotations apart.
    # Under Δ → Δ + δ its body-frame twist is J(Δ) δ, J = diag(exp(ΔΩ̃)ᵀ, T(ΔΩ)) (T the
    # right-trivialised tangent of SO(3)); for the residual's force and moment (n, m),
    # H = ∂(Jᵀ f)/∂Δ = [[0, −exp(ΔΩ̃) ñ T(ΔΩ)], [0, ∂(T(ΔΩ)ᵀ m)/∂ΔΩ]] (the derivative of
    # exp(Ω̃) n is −exp(Ω̃) ñ T(Ω); lie.so3_dT).  H_b exp(Δ) — positions along a screw —
    # turns a bending increment into a spurious axial shortening of second order, which
    # makes stiff sections diverge (docs/verification-beams.md, "Stiff sections").
    static_chart = True

    def chart_config(self, qb, d):
        Rb = rotation_matrix(qb[:, 3:7])
        q = np.empty_like(qb)
        q[:, :3] = qb[:, :3] + np.einsum("nij,nj->ni", Rb, d[:, :3])
        p = quat_multiply(qb[:, 3:7], quat_from_rotvec(d[:, 3:6]))
        q[:, 3:7] = p / np.linalg.norm(p, axis=1, keepdims=True)
        return q

    def chart_equations(self, d, f):
        R, T = so3_exp(d[:, 3:]), so3_T(d[:, 3:])
        J = np.zeros((len(d), 6, 6))
        J[:, :3, :3] = np.swapaxes(R, -1, -2)
        J[:, 3:, 3:] = T
        H = np.zeros((len(d), 6, 6))
        H[:, :3, 3:] = -R @ so3_hat(f[:, :3]) @ T
        H[:, 3:, 3:] = so3_dT(d[:, 3:], f[:, 3:], transpose=True)
        return J, H

    def orientation_matrix(self, orientation):
        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        At = np.swapaxes(A, 1, 2)
        q = np.concatenate([x, np.asarray(orientation, dtype=float)], axis=1)
        U = np.matmul(At, xd[:, :, None])[:, :, 0]   # U = Aᵀ ẋ
        W = np.matmul(At, w[:, :, None])[:, :, 0]    # Ω = Aᵀ ω
        return q, np.concatenate([U, W], axis=1)

    def pose(self, q):
        return unit_quaternion_pose(q)

    def twist(self, q, v):
        A = rotation_matrix(q[:, 3:7])
        return np.einsum("nij,nj->ni", A, v[:, :3]), np.einsum("nij,nj->ni", A, v[:, 3:6])

    def velocity_from_twist(self, q, xd, w):
        A = rotation_matrix(q[:, 3:7])
        return np.concatenate([np.einsum("nji,nj->ni", A, xd), np.einsum("nji,nj->ni", A, w)], axis=1)

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return np.einsum("nij,nj->ni", rotation_matrix(q[:, 3:7]), v[:, :3])    # ẋ = A U
        if what == "orientation":
            return q[:, 3:7]
        if what == "angular_velocity":
            return np.einsum("nij,nj->ni", rotation_matrix(q[:, 3:7]), v[:, 3:6])   # ω = A Ω
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        # body-frame translational increments: Q_U = Aᵀ m g, ∂(Aᵀ m g)/∂Θ = (Aᵀ m g)~
        if USE_KERNELS:
            n = len(mass)
            Q = np.empty((n, 6))
            K = np.empty((n, 6, 6)) if jacobians else np.empty((0, 6, 6))
            _frames.weight(np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(mass, dtype=float),
                           np.ascontiguousarray(g, dtype=float), jacobians, Q, K)
            return Q, (K if jacobians else None)
        A = rotation_matrix(q[:, 3:7])
        b = np.einsum("nji,j->ni", A, g) * mass[:, None]
        Q = np.zeros((len(mass), 6))
        Q[:, :3] = b
        if not jacobians:
            return Q, None
        K = np.zeros((len(mass), 6, 6))
        K[:, :3, 3:] = skew(b)
        return Q, K

    def torque_force(self, q, n, body_fixed, jacobians=True):
        return body_frame_torque(q, n, body_fixed, jacobians)


SE3 = FrameKind()
