"""Beam element groups as the System sees them.

A beam contributes three groups, all on SE(3) nodes (:class:`~flexmbd.kinds.FrameKind`):
``BeamInertiaGroup`` (a body group: consistent mass and gyroscopic terms,
:mod:`.inertia`), ``BeamElasticGroup`` (a force group: internal forces Q = −f and
∂Q/∂Δ = −K of the element kernel) and, with gravity, a weight group (the nodal shares of
the distributed weight ρA g, the consistent load of a uniform distributed force on
linear elements).
"""
from __future__ import annotations

import numpy as np

from ..forces.base import ForceGroup
from ..kinds import FrameKind
from . import inertia as _inertia
from ..rotations import rotation_matrix
from . import se3_beam as _se3_n
from .se3_linear import elastic_forces as _se3_linear


class BeamInertiaGroup:
    """Consistent inertia of every element of the beams of one interpolation."""

    kind = FrameKind

    def __init__(self, names, dof_index, config_index, N, w, Ms):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.n_nodes = self.dof_index.shape[1] // 6
        self.N, self.w, self.Ms = N, np.asarray(w, float), np.asarray(Ms, float)

    def __len__(self):
        return len(self.element_names)

    def _nodes(self, x):
        return x.reshape(len(self), self.n_nodes, 6)

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F, D, M = _inertia.inertia_forces(self._nodes(vb), self._nodes(ab), self.N, self.w, self.Ms, jacobians)
        if not jacobians:
            return F, None, None, None
        return F, np.zeros_like(M), D, M

    def mass_matrix(self, qb):
        zero = np.zeros((len(self), self.n_nodes, 6))
        return _inertia.inertia_forces(zero, zero, self.N, self.w, self.Ms)[2]

    def kinetic_energy(self, qb, vb):
        return _inertia.kinetic_energy(self._nodes(vb), self.N, self.w, self.Ms)


class BeamElasticGroup(ForceGroup):
    """Elastic forces of two-node SE(3) beam elements (:mod:`.se3_linear`)."""

    kind = FrameKind
    output_names = ("strain_energy", "axial_force", "shear_force_2", "shear_force_3", "torque",
                    "bending_moment_2", "bending_moment_3")

    def __init__(self, names, dof_index, config_index, d0, length, D):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.d0 = np.asarray(d0, float)
        self.length = np.asarray(length, float)
        self.D = np.asarray(D, float)

    def _forces(self, qe, jacobians):
        qb = qe[self.config_index]
        return _se3_linear(qb[:, :7], qb[:, 7:], self.d0, self.length, self.D, jacobians)

    def evaluate(self, qe, ve, t, jacobians=True):
        f, K, _, _ = self._forces(qe, jacobians)
        return -f, (None if K is None else -K), None

    def potential_energy(self, qe, t):
        return float(np.sum(self._forces(qe, False)[2]))

    def outputs(self, qe, ve, t):
        _, _, V, sig = self._forces(qe, False)
        out = {"strain_energy": V}
        for i, key in enumerate(self.output_names[1:]):
            out[key] = sig[:, i]
        return out


class BeamElasticGroupN(ForceGroup):
    """Elastic forces of n-node SE(3) beam elements (Lagrange or NURBS, :mod:`.se3_beam`)."""

    kind = FrameKind
    output_names = ("strain_energy",)

    def __init__(self, names, dof_index, config_index, N, dN, w, eps0, D):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.N, self.dN, self.w = np.asarray(N, float), np.asarray(dN, float), np.asarray(w, float)
        self.eps0, self.D = np.asarray(eps0, float), np.asarray(D, float)
        self.n_nodes = self.dof_index.shape[1] // 6

    def _forces(self, qe, jacobians):
        qb = qe[self.config_index].reshape(len(self), self.n_nodes, 7)
        R = rotation_matrix(qb[..., 3:].reshape(-1, 4)).reshape(qb.shape[:2] + (3, 3))
        return _se3_n.internal_forces(R, qb[..., :3], self.N, self.dN, self.w, self.eps0, self.D, jacobians)

    def evaluate(self, qe, ve, t, jacobians=True):
        f, K, _ = self._forces(qe, jacobians)
        return -f, (None if K is None else -K), None

    def potential_energy(self, qe, t):
        return float(np.sum(self._forces(qe, False)[2]))

    def outputs(self, qe, ve, t):
        return {"strain_energy": self._forces(qe, False)[2]}
