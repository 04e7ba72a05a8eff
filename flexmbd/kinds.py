"""Coordinate kinds of bodies and vectorised marker kinematics.

A *kind* says how many configuration coordinates a body owns (``nq``), how many
increment/velocity coordinates (``nv``), what ground looks like in them, how an
increment is applied (``increment``, the node's state increment q ⊕ Δ), and how a
marker — a point or a direction fixed on the body — depends on its configuration.
For vector kinds nq = nv and q ⊕ Δ = q + Δ; a kind on a Lie group (``RotationKind``)
has nv < nq and a multiplicative update.  Elements (joints, springs, loads) only see
markers, so one spring or joint serves every kind (DESIGN.md, "markers").

For a batch of N markers, :class:`MarkerSet` returns
    x   (N, 3)        position of a point / a body-fixed direction in the global frame
    J   (N, 3, nv)    ∂x(q ⊕ Δ)/∂Δ at Δ = 0 (= ∂x/∂q for vector kinds)
and the exact second-derivative terms the Newton matrix needs, all derivatives along
increments (∂/∂Δ at Δ = 0):
    contract(g)   (N, nv, nv)  ∂(Jᵀ g)/∂Δ, g fixed       (= Σ_i g_i ∂²x_i/∂q² for vector kinds)
    dJv(v)        (N, 3, nv)   ∂(J v)/∂Δ                 (velocity-dependent forces)
For Lie-group kinds contract need not be symmetric.
Marker types: ZERO (x = 0), POINT (x = R + A u), VECTOR (x = A u), CONSTANT (x = u).
"""
from __future__ import annotations

import numpy as np

from .kernels import AVAILABLE as USE_KERNELS
from .lie import se3_T, so3_T
from .rotations import CHAT, rotation_matrix, skew

if USE_KERNELS:
    from .kernels import frames as _frames

ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3
#: CHAT as a (48, 3) matrix: C(u) = (CHAT_ROWS u).reshape(3, 4, 4)
_CHAT_ROWS = CHAT.reshape(48, 3)


class SpatialKind:
    """Spatial rigid body, q = [R (3), p (4) Euler parameters] (P1, N = 7).

    The Euler parameters live in R^4 with the normalisation constraint p·p − 1 = 0,
    so the increment is a plain sum.
    """

    name = "spatial"
    nq = 7
    nv = 7
    compiled = True  # numba kernels exist for this kind
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    @staticmethod
    def increment(q, dq):
        return q + dq


class PlanarKind:
    """Planar rigid body in the global x-y plane, q = [x, y, θ]."""

    name = "planar"
    nq = 3
    nv = 3
    compiled = True
    ground_q = np.zeros(3)

    @staticmethod
    def increment(q, dq):
        return q + dq


def quaternion_product(p, r):
    """Hamilton product p ⊗ r of (..., 4) quaternions [w, x, y, z]: A(p ⊗ r) = A(p) A(r)."""
    p0, pv, r0, rv = p[..., :1], p[..., 1:], r[..., :1], r[..., 1:]
    w = p0 * r0 - np.sum(pv * rv, axis=-1, keepdims=True)
    v = p0 * rv + r0 * pv + np.cross(pv, rv)
    return np.concatenate([w, v], axis=-1)


def quaternion_exp(theta):
    """Unit quaternion of the rotation vector θ (..., 3): [cos(|θ|/2), sin(|θ|/2) θ/|θ|]."""
    a = np.linalg.norm(theta, axis=-1, keepdims=True)
    return np.concatenate([np.cos(0.5 * a), 0.5 * np.sinc(a / (2 * np.pi)) * theta], axis=-1)


class RotationKind:
    """Spatial rigid body on R³ × SO(3): q = [R (3), p (4) unit quaternion],
    increments and velocities v = [Ṙ (3), Ω (3)] with Ω the body-frame angular velocity.

    The increment (ΔR, Δθ) acts as R + ΔR, p ⊗ exp(Δθ) (right multiplication by the
    body-frame rotation vector Δθ, result normalised), so there is no normalisation
    constraint and the rotation block has 3 unknowns.  Groundwork for SE(3) beam nodes.
    """

    name = "spatial-lie"
    nq = 7
    nv = 6
    compiled = False  # NumPy path only
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    @staticmethod
    def increment(q, dv):
        q = np.asarray(q, dtype=float)
        dv = np.asarray(dv, dtype=float)
        out = np.empty(np.broadcast_shapes(q.shape, dv.shape[:-1] + (7,)))
        out[..., :3] = q[..., :3] + dv[..., :3]
        p = quaternion_product(q[..., 3:7], quaternion_exp(dv[..., 3:6]))
        out[..., 3:7] = p / np.linalg.norm(p, axis=-1, keepdims=True)
        return out

    @staticmethod
    def tangent(dv):
        """T(Δ) (N, 6, 6) with q ⊕ (Δ + δ) = (q ⊕ Δ) ⊕ (T(Δ) δ) to first order in δ:
        identity on ΔR, the right-trivialised tangent of exp on Δθ,
        T(θ) = I − (1 − cos a)/a² θ̃ + (a − sin a)/a³ θ̃²,  a = |θ|."""
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


class FrameKind:
    """A frame on SE(3): beam nodes and rigid bodies of beam models.

    Configuration q = [x (3), p (4) unit quaternion] (the frame H = (A(p), x)); increments
    and velocities are body-frame twists v = (U, Ω) with ẋ = A U, and an increment acts
    as H ⊕ Δ = H exp(Δ̃) on SE(3) (Sonneville, Cardona & Brüls 2014):
        x ← x + A T(Ω_Δ)ᵀ U_Δ,   A ← A exp(Ω̃_Δ).
    Everything an element sees in these coordinates is frame-invariant, so the internal
    forces and stiffness of a beam on SE(3) nodes do not change under rigid motion.
    """

    name = "se3"
    nq = 7
    nv = 6
    # Numba kernels (kernels/: markers in dot.py, spring_damper.py, loads.py; frames.py for
    # the increment and tangent); the NumPy code here and in MarkerSet is the reference.
    compiled = True
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    @staticmethod
    def increment(q, dv):
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
        p = quaternion_product(q[..., 3:7], quaternion_exp(dv[..., 3:6]))
        out[..., 3:7] = p / np.linalg.norm(p, axis=-1, keepdims=True)
        return out

    @staticmethod
    def tangent(dv):
        """T_SE3(Δ) (N, 6, 6): q ⊕ (Δ + δ) = (q ⊕ Δ) ⊕ (T(Δ) δ) to first order in δ."""
        dv = np.asarray(dv, dtype=float).reshape(-1, 6)
        if USE_KERNELS:
            T = np.empty((len(dv), 6, 6))
            _frames.tangent(np.ascontiguousarray(dv), T)
            return T
        return se3_T(dv)


class RotationVectorKind:
    """A beam node of the R³×R³ formulation: q = [x (3), ψ (3)], ψ the *total* rotation
    vector (R = exp(ψ̃)); velocities q̇ = [ẋ, ψ̇].  A vector kind: increments add.

    ψ and −ψ(2π/|ψ| − 1) describe the same rotation; the solvers keep |ψ| ≤ π by
    rescaling nodes between steps (:meth:`flexmbd.system.System.rescale`) and beam
    elements bring their nodes onto one branch (:mod:`flexmbd.beams.r3r3_branch`).
    """

    name = "r3r3"
    nq = 6
    nv = 6
    compiled = False
    ground_q = np.zeros(6)

    @staticmethod
    def increment(q, dq):
        return q + dq


KINDS = {"spatial": SpatialKind, "planar": PlanarKind, "spatial-lie": RotationKind, "se3": FrameKind,
         "r3r3": RotationVectorKind}


class MarkerSet:
    """A batch of markers of one kind with constant local vectors ``u`` (N, 3)."""

    def __init__(self, kind, u, mtype):
        self.kind = kind
        self.u = np.asarray(u, dtype=float).reshape(-1, 3)
        self.mtype = np.asarray(mtype, dtype=int).reshape(-1)
        n = len(self.mtype)
        self.point = (self.mtype == POINT).astype(float)
        self.rot = ((self.mtype == POINT) | (self.mtype == VECTOR)).astype(float)
        self.const = (self.mtype == CONSTANT).astype(float)
        if kind is SpatialKind:
            # C(u)[i, j, k] with (A u)_i = C_ijk p_j p_k, zeroed for non-rotating markers
            # as a product with CHAT's (48, 3) matrix (one ±1 per row: exact in any order)
            self.Cu = (self.u @ _CHAT_ROWS.T).reshape(n, 3, 4, 4) * self.rot[:, None, None, None]
        self.n = n

    # ----------------------------------------------------------------- values
    def evaluate(self, qb):
        """x (N,3) and J (N,3,nv) at body configurations qb (N, nq)."""
        if self.kind is SpatialKind:
            return self._evaluate_spatial(qb)
        if self.kind is RotationKind:
            return self._evaluate_lie(qb)
        if self.kind is FrameKind:
            return self._evaluate_frame(qb)
        if self.kind is RotationVectorKind:
            return self._evaluate_rotvec(qb)
        return self._evaluate_planar(qb)

    # ------------------------------------------------- total rotation vector kind
    def _evaluate_rotvec(self, qb):
        # x = point·X + exp(ψ̃) u, J = [point·I, −R ũ T(ψ)] (beams.r3r3.marker)
        from .beams.r3r3 import marker

        x, J = marker(qb, self.u * self.rot[:, None], self.point)
        return x + self.const[:, None] * self.u, J

    # --------------------------------------------------- rotation-vector kind
    def _lie_parts(self, qb):
        A = rotation_matrix(qb[:, 3:7])
        ur = self.u * self.rot[:, None]
        return A, ur

    def _evaluate_lie(self, qb):
        # x = R + A u;  δx = δR − A ũ δθ  (δA = A δθ~, body-frame increment)
        A, ur = self._lie_parts(qb)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", A, ur) + self.const[:, None] * self.u
        J = np.zeros((self.n, 3, 6))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(ur))
        return x, J

    def _evaluate_frame(self, qb):
        # x = X + A u;  δx = A δU − A ũ δΘ  (H ← H exp(δ), body-frame twist increment)
        A, ur = self._lie_parts(qb)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", A, ur) + self.const[:, None] * self.u
        J = np.empty((self.n, 3, 6))
        J[:, :, :3] = A * self.point[:, None, None]
        J[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(ur))
        return x, J

    def _evaluate_spatial(self, qb):
        p = qb[:, 3:7]
        Cp = np.einsum("nijk,nk->nij", self.Cu, p)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", Cp, p)
        x += self.const[:, None] * self.u
        J = np.zeros((self.n, 3, 7))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:] = 2.0 * Cp
        return x, J

    def _planar_rotated(self, theta):
        c, s = np.cos(theta), np.sin(theta)
        ux, uy = self.u[:, 0], self.u[:, 1]
        Au = np.stack([c * ux - s * uy, s * ux + c * uy], -1)
        dAu = np.stack([-s * ux - c * uy, c * ux - s * uy], -1)
        return Au * self.rot[:, None], dAu * self.rot[:, None]

    def _evaluate_planar(self, qb):
        Au, dAu = self._planar_rotated(qb[:, 2])
        x = np.zeros((self.n, 3))
        x[:, :2] = self.point[:, None] * qb[:, :2] + Au
        x[:, 2] = self.rot * self.u[:, 2]
        x += self.const[:, None] * self.u
        J = np.zeros((self.n, 3, 3))
        J[:, 0, 0] = J[:, 1, 1] = self.point
        J[:, :2, 2] = dAu
        return x, J

    # ------------------------------------------------------ second derivatives
    def contract(self, qb, g):
        """∂(Jᵀ g)/∂Δ for each marker (= Σ_i g_i ∂²x_i/∂q² for vector kinds): (N, nv, nv)."""
        out = np.zeros((self.n, self.kind.nv, self.kind.nv))
        if self.kind is RotationKind:
            # Jᵀ g = [g; ũ Aᵀ g],  Aᵀ g → (I − Δθ~) Aᵀ g  ⇒  ∂/∂Δθ = ũ (Aᵀ g)~
            A, ur = self._lie_parts(qb)
            b = np.einsum("nji,nj->ni", A, g)
            out[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(ur), skew(b))
        elif self.kind is FrameKind:
            # Jᵀ g = [point · b; ũ b] with b = Aᵀ g, and ∂b/∂Θ = b̃
            A, ur = self._lie_parts(qb)
            bt = skew(np.einsum("nji,nj->ni", A, g))
            out[:, :3, 3:] = bt * self.point[:, None, None]
            out[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(ur), bt)
        elif self.kind is SpatialKind:
            out[:, 3:, 3:] = 2.0 * np.einsum("ni,nijk->njk", g, self.Cu)
        elif self.kind is RotationVectorKind:
            from .beams.r3r3 import marker_contract

            out = marker_contract(qb, self.u * self.rot[:, None], self.point, g)
        else:
            Au, _ = self._planar_rotated(qb[:, 2])
            out[:, 2, 2] = -np.einsum("ni,ni->n", g[:, :2], Au)
        return out

    def dJv(self, qb, vb):
        """∂(J v)/∂Δ for each marker: (N, 3, nv)."""
        out = np.zeros((self.n, 3, self.kind.nv))
        if self.kind is RotationKind:
            # J v = Ṙ + A (Ω × u),  A → A exp(Δθ~)  ⇒  ∂/∂Δθ = −A (Ω × u)~
            A, ur = self._lie_parts(qb)
            c = np.cross(vb[:, 3:6], ur)
            out[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(c))
        elif self.kind is FrameKind:
            # J v = A c, c = point · U + Ω × u  ⇒  ∂/∂Θ = −A c̃
            A, ur = self._lie_parts(qb)
            c = self.point[:, None] * vb[:, :3] + np.cross(vb[:, 3:6], ur)
            out[:, :, 3:] = -np.einsum("nij,njk->nik", A, skew(c))
        elif self.kind is SpatialKind:
            out[:, :, 3:] = 2.0 * np.einsum("nijk,nj->nik", self.Cu, vb[:, 3:7])
        elif self.kind is RotationVectorKind:
            from .beams.r3r3 import marker_dJv

            out = marker_dJv(qb, self.u * self.rot[:, None], self.point, vb)
        else:
            Au, _ = self._planar_rotated(qb[:, 2])
            out[:, :2, 2] = -Au * vb[:, 2:3]
        return out
