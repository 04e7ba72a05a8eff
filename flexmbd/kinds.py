"""Coordinate kinds of bodies and vectorised marker kinematics.

A *kind* says how many coordinates a body owns, what ground looks like in them, how an
increment is applied (``increment``), and how a marker — a point or a direction fixed
on the body — depends on those coordinates.  Elements (joints, springs, loads) only see
markers, so one spring or joint serves every kind (DESIGN.md, "markers").

For a batch of N markers, :class:`MarkerSet` returns
    x   (N, 3)        position of a point / a body-fixed direction in the global frame
    J   (N, 3, nq)    ∂x/∂q_body
and the exact second-derivative terms the Newton matrix needs:
    contract(g)   (N, nq, nq)  Σ_i g_i ∂²x_i/∂q²        (for ∂(Jᵀ g)/∂q, P1 appendix)
    dJv(v)        (N, 3, nq)   ∂(J v)/∂q                 (velocity-dependent forces)
Marker types: ZERO (x = 0), POINT (x = R + A u), VECTOR (x = A u), CONSTANT (x = u).
"""
from __future__ import annotations

import numpy as np

from .rotations import CHAT

ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3


class SpatialKind:
    """Spatial rigid body, q = [R (3), p (4) Euler parameters] (P1, N = 7).

    The Euler parameters live in R^4 with the normalisation constraint p·p − 1 = 0,
    so the increment is a plain sum.
    """

    name = "spatial"
    nq = 7
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    @staticmethod
    def increment(q, dq):
        return q + dq


class PlanarKind:
    """Planar rigid body in the global x-y plane, q = [x, y, θ]."""

    name = "planar"
    nq = 3
    ground_q = np.zeros(3)

    @staticmethod
    def increment(q, dq):
        return q + dq


KINDS = {"spatial": SpatialKind, "planar": PlanarKind}


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
            self.Cu = np.einsum("ijkl,nl->nijk", CHAT, self.u) * self.rot[:, None, None, None]
        self.n = n

    # ----------------------------------------------------------------- values
    def evaluate(self, qb):
        """x (N,3) and J (N,3,nq) at body coordinates qb (N, nq)."""
        if self.kind is SpatialKind:
            return self._evaluate_spatial(qb)
        return self._evaluate_planar(qb)

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
        """Σ_i g_i ∂²x_i/∂q² for each marker: (N, nq, nq)."""
        out = np.zeros((self.n, self.kind.nq, self.kind.nq))
        if self.kind is SpatialKind:
            out[:, 3:, 3:] = 2.0 * np.einsum("ni,nijk->njk", g, self.Cu)
        else:
            Au, _ = self._planar_rotated(qb[:, 2])
            out[:, 2, 2] = -np.einsum("ni,ni->n", g[:, :2], Au)
        return out

    def dJv(self, qb, vb):
        """∂(J v)/∂q for each marker: (N, 3, nq)."""
        out = np.zeros((self.n, 3, self.kind.nq))
        if self.kind is SpatialKind:
            out[:, :, 3:] = 2.0 * np.einsum("nijk,nj->nik", self.Cu, vb[:, 3:7])
        else:
            Au, _ = self._planar_rotated(qb[:, 2])
            out[:, :2, 2] = -Au * vb[:, 2:3]
        return out
