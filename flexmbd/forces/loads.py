"""Gravity, point forces and torques (constant or functions of time).

A body-fixed force f' at body point u has global value A(p) f'; its generalised force is
J_uᵀ A f' whose Jacobian has the two terms Σ_i (A f')_i ∂²x_u,i/∂q² + J_uᵀ ∂(A f')/∂q.
A torque n on a spatial body does virtual work n·δπ with δπ = 2 E δp (global) or
δπ' = 2 G δp (body frame), so Q_p = 2 Eᵀ n or 2 Gᵀ n' (Nikravesh 1988, sec. 6.4).
On a rotation-vector body (increment Δθ in body axes, δπ = A δθ) Q_θ = Aᵀ n or n', and
∂(Aᵀ n)/∂Δθ = (Aᵀ n)~.  On an R³×R³ node (total rotation vector ψ, δπ = R T(ψ) δψ)
Q_ψ = T(ψ) n or T(ψ)ᵀ n' (``beams.r3r3.torque_force``).
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..kinds import POINT, VECTOR, FrameKind, MarkerSet, PlanarKind, RotationKind, RotationVectorKind, SpatialKind
from ..rotations import DE, DG, E_matrix, G_matrix, rotation_matrix, skew
from ..timefunctions import Constant
from .base import ForceGroup

if USE_KERNELS:
    from ..kernels import loads as _loads
    from ..kernels.dot import KIND_CODES as _KIND_CODES


def _scales(functions, t):
    return np.array([f.derivatives(t)[0] for f in functions])


def _config(dof_index, config_index, kind):
    """Configuration gather index (N, nq); for nq == nv kinds it defaults to dof_index."""
    if config_index is None:
        if kind.nq != kind.nv:
            raise ValueError(f"{kind.name} bodies need a config_index")
        return dof_index
    return np.asarray(config_index, dtype=int).reshape(dof_index.shape[0], -1)


class GravityGroup(ForceGroup):
    is_load = True

    def __init__(self, kind, bodies, dof_index, gravity, config_index=None):
        self.kind = kind
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(bodies), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        g = np.asarray(gravity, dtype=float)
        self.g = g if kind is not PlanarKind else g[:2]
        self.ntr = len(self.g)

    def evaluate(self, qe, ve, t, jacobians=True):
        Q = np.zeros(self.dof_index.shape)
        if self.kind is FrameKind:
            # body-frame translational increments: Q_U = Aᵀ m g, ∂(Aᵀ m g)/∂Θ = (Aᵀ m g)~
            A = rotation_matrix(qe[self.config_index[:, 3:7]])
            b = np.einsum("nji,j->ni", A, self.g) * self.mass[:, None]
            Q[:, :3] = b
            if not jacobians:
                return Q, None, None
            K = np.zeros(Q.shape + (6,))
            K[:, :3, 3:] = skew(b)
            return Q, K, None
        Q[:, : self.ntr] = self.mass[:, None] * self.g
        return Q, None, None

    def potential_energy(self, qe, t):
        R = qe[self.config_index[:, : self.ntr]]
        return float(-np.sum(self.mass * (R @ self.g)))


class PointForceGroup(ForceGroup):
    """Forces F(t) = f · s(t) at body points; f global or body-fixed."""

    is_load = True

    def __init__(self, kind, names, dof_index, u_point, f, body_fixed, scale_functions, config_index=None):
        self.kind = kind
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(names), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        n = len(names)
        self.points = MarkerSet(kind, u_point, np.full(n, POINT))
        self.f = np.asarray(f, dtype=float).reshape(n, 3)
        self.body_fixed = np.asarray(body_fixed, dtype=bool)
        self.fixed_dirs = MarkerSet(kind, self.f, np.where(self.body_fixed, VECTOR, 0))
        self.functions = list(scale_functions)
        self.constant = all(isinstance(fn, Constant) for fn in self.functions)
        self._s = _scales(self.functions, 0.0) if self.constant else None

    def evaluate(self, qe, ve, t, jacobians=True):
        qb = qe[self.config_index]
        s = self._s if self.constant else _scales(self.functions, t)
        if USE_KERNELS and self.kind.compiled:
            n, nv = qb.shape[0], self.kind.nv
            Q = np.empty((n, nv))
            K = np.empty((n, nv, nv)) if jacobians else np.empty((0, nv, nv))
            _loads.point_forces(_KIND_CODES[self.kind.name], qb, self.points.u, self.f, self.body_fixed, s,
                                jacobians, Q, K)
            return Q, (K if jacobians else None), None
        x, J = self.points.evaluate(qb)
        fx, fJ = self.fixed_dirs.evaluate(qb)
        F = np.where(self.body_fixed[:, None], fx, self.f) * s[:, None]
        Q = np.einsum("nij,ni->nj", J, F)
        if not jacobians:
            return Q, None, None
        K = self.points.contract(qb, F) + np.einsum("nij,nik->njk", J, fJ) * s[:, None, None]
        return Q, K, None


class TorqueGroup(ForceGroup):
    """Torques n(t) = n · s(t) on bodies, global or body-fixed components."""

    is_load = True

    def __init__(self, kind, names, dof_index, torque, body_fixed, scale_functions, config_index=None):
        self.kind = kind
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(names), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        self.n = np.asarray(torque, dtype=float).reshape(len(names), 3)
        self.body_fixed = np.asarray(body_fixed, dtype=bool)
        self.functions = list(scale_functions)

    def evaluate(self, qe, ve, t, jacobians=True):
        qb = qe[self.config_index]
        s = _scales(self.functions, t)
        n = self.n * s[:, None]
        Q = np.zeros(self.dof_index.shape)
        K = np.zeros(Q.shape + (Q.shape[1],)) if jacobians else None
        if self.kind is RotationKind or self.kind is FrameKind:
            b = np.where(self.body_fixed[:, None], n, np.einsum("nji,nj->ni", rotation_matrix(qb[:, 3:7]), n))
            Q[:, 3:] = b
            if jacobians:
                K[:, 3:, 3:] = np.where(self.body_fixed[:, None, None], 0.0, skew(b))
        elif self.kind is RotationVectorKind:
            from ..beams.r3r3 import torque_force

            Q, dQ = torque_force(qb, n, self.body_fixed)
            K = dQ if jacobians else None
        elif self.kind is SpatialKind:
            p = qb[:, 3:7]
            T = np.where(self.body_fixed[:, None, None], G_matrix(p), E_matrix(p))
            Q[:, 3:] = 2.0 * np.einsum("nij,ni->nj", T, n)
            if jacobians:
                KE = 2.0 * np.einsum("ni,ijk->njk", n, DE)
                KG = 2.0 * np.einsum("ni,ijk->njk", n, DG)
                K[:, 3:, 3:] = np.where(self.body_fixed[:, None, None], KG, KE)
        else:
            Q[:, 2] = n[:, 2]
        return Q, K, None
