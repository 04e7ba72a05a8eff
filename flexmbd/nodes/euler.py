"""Spatial rigid bodies in Euler parameters: q = [R (3), p (4)] (P1, N = 7).

The Euler parameters live in R⁴ with the normalisation constraint p·p − 1 = 0 (its own
equation, :mod:`flexmbd.constraints.normalization`), so increments add and velocities are
q' = [Ṙ, ṗ].  A body-fixed vector u has the global value A(p) u = C(u)[p, p] with
C(u)_ijk constant (P1 appendix; ``rotations.CHAT``), which makes every marker quantity a
polynomial in p: J = [I, 2 C(u) p], ∂(Jᵀ g)/∂p = 2 gᵢ C(u)_i, ∂(J v)/∂p = 2 C(u)[·, ṗ].
Angular velocity ω = 2 E(p) ṗ (global), ω' = 2 G(p) ṗ (body axes) (Nikravesh 1988, ch. 6).
"""
from __future__ import annotations

import functools

import numpy as np

from ..rotations import CHAT, DE, DG, E_matrix, G_matrix, rotation_matrix
from .base import NodeKind, MarkerSet

#: CHAT as a (48, 3) matrix: C(u) = (CHAT_ROWS u).reshape(3, 4, 4)
_CHAT_ROWS = CHAT.reshape(48, 3)


def _matvec(A, x):
    """A[k] @ x[k] for stacks A (N, r, c), x (N, c) (the same rounding as one ``@`` per row)."""
    return np.matmul(A, x[:, :, None])[:, :, 0]


class EulerParameterMarkers(MarkerSet):
    """Markers on Euler-parameter bodies: x = point·R + C(u)[p, p] + const·u."""

    @functools.cached_property
    def Cu(self) -> np.ndarray:
        """C(u)[i, j, k] with (A u)_i = C_ijk p_j p_k, zeroed for non-rotating markers, as a
        product with CHAT's (48, 3) matrix (one ±1 per row: exact in any order); made at
        the first NumPy evaluation (compiled kernels take their own marker tensors, so
        freezing does not make it)."""
        return (self.u @ _CHAT_ROWS.T).reshape(self.n, 3, 4, 4) * self.rot[:, None, None, None]

    def evaluate(self, qb):
        p = qb[:, 3:7]
        Cp = np.einsum("nijk,nk->nij", self.Cu, p)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", Cp, p)
        x += self.const[:, None] * self.u
        J = np.zeros((self.n, 3, 7))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:] = 2.0 * Cp
        return x, J

    def contract(self, qb, g):
        out = np.zeros((self.n, 7, 7))
        out[:, 3:, 3:] = 2.0 * np.einsum("ni,nijk->njk", g, self.Cu)
        return out

    def dJv(self, qb, vb):
        out = np.zeros((self.n, 3, 7))
        out[:, :, 3:] = 2.0 * np.einsum("nijk,nj->nik", self.Cu, vb[:, 3:7])
        return out


class EulerParameterKind(NodeKind):
    """Spatial rigid body, q = [R (3), p (4) Euler parameters] (P1, N = 7); see the module
    docstring."""

    name = "spatial"
    nq = 7
    nv = 7
    coordinate_names = ("x", "y", "z", "e0", "e1", "e2", "e3")
    velocity_names = coordinate_names
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    kernel_code = 1   # kernels/dot.py SPATIAL
    marker_tensors = True
    marker_class = EulerParameterMarkers
    euler_frame = True

    def orientation_matrix(self, orientation):
        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        p = np.asarray(orientation, dtype=float)
        q = np.concatenate([x, p], axis=1)
        v = np.concatenate([xd, _matvec(0.5 * np.swapaxes(E_matrix(p), 1, 2), w)], axis=1)  # ṗ = ½ Eᵀ ω
        return q, v

    def pose(self, q):
        p = q[:, 3:7]
        return q[:, :3], rotation_matrix(p / np.linalg.norm(p, axis=1, keepdims=True))

    def twist(self, q, v):
        return v[:, :3], 2.0 * np.einsum("nij,nj->ni", E_matrix(q[:, 3:7]), v[:, 3:7])

    def velocity_from_twist(self, q, xd, w):
        p = q[:, 3:7] / np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
        return np.concatenate([xd, 0.5 * np.einsum("nji,nj->ni", E_matrix(p), w)], axis=1)

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return q[:, 3:7]
        if what == "angular_velocity":
            return 2.0 * np.einsum("nij,nj->ni", E_matrix(q[:, 3:7]), v[:, 3:7])
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        Q = np.zeros((len(mass), 7))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        # virtual work n·δπ, δπ = 2 E δp (global) or δπ' = 2 G δp (body axes):
        # Q_p = 2 Eᵀ n or 2 Gᵀ n' (Nikravesh 1988, sec. 6.4)
        p = q[:, 3:7]
        Q = np.zeros((len(q), 7))
        T = np.where(body_fixed[:, None, None], G_matrix(p), E_matrix(p))
        Q[:, 3:] = 2.0 * np.einsum("nij,ni->nj", T, n)
        if not jacobians:
            return Q, None
        K = np.zeros((len(q), 7, 7))
        KE = 2.0 * np.einsum("ni,ijk->njk", n, DE)
        KG = 2.0 * np.einsum("ni,ijk->njk", n, DG)
        K[:, 3:, 3:] = np.where(body_fixed[:, None, None], KG, KE)
        return Q, K


SPATIAL = EulerParameterKind()
