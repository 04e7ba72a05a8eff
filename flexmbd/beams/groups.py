"""Beam element groups as the System sees them.

A beam contributes three groups, all on its nodes (SE(3) frames,
:data:`~flexmbd.nodes.SE3`, or R³×R³ nodes, :data:`~flexmbd.nodes.R3R3`):
``BeamInertiaGroup`` (a body group: consistent mass and gyroscopic terms,
:mod:`.inertia`), ``BeamElasticGroup`` (a force group: internal forces Q = −f and
∂Q/∂Δ = −K of the element kernel) and, with gravity, a weight group (the nodal shares of
the distributed weight ρA g, the consistent load of a uniform distributed force on
linear elements).
"""
from __future__ import annotations

import numpy as np

from ..groups import ForceGroup, InertiaGroup
from ..kernels import AVAILABLE as USE_KERNELS
from ..nodes import R3R3, SE3
from ..nodes import rotvec_branch as _branch
from . import inertia as _inertia
from . import r3r3 as _r3r3
from . import se3_beam as _se3_n
from .se3_linear import elastic_forces as _se3_linear

if USE_KERNELS:
    from ..kernels import r3r3 as _r3r3_kernel

#: integration modes of the R³×R³ elastic kernel (``kernels/r3r3.py``)
_R3R3_MODES = {"reduced": 0, "full": 1, "hw": 2}


class BeamInertiaGroup(InertiaGroup):
    """Consistent inertia of every element of the beams of one interpolation: section
    twists η_g = P_g η_e by the constant velocity maps ``P`` (E or 1, G, 6, 6n) at the
    Gauss points (:mod:`.inertia`)."""

    kind = SE3
    configuration_dependent = False   # F = F(η, η') of the nodes' body-frame twists alone

    def __init__(self, names, dof_index, config_index, P, w, Ms):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.n_nodes = self.dof_index.shape[1] // 6
        self.P, self.w, self.Ms = _inertia.velocity_map(P), np.asarray(w, float), np.asarray(Ms, float)
        zero = np.zeros((len(self), self.n_nodes, 6))
        #: the constant mass matrices Σ w Pᵀ M_s P (E, 6n, 6n), summed once
        self.M = _inertia.inertia_forces(zero, zero, self.P, self.w, self.Ms)[2]

    def __len__(self):
        return len(self.element_names)

    def _nodes(self, x):
        return x.reshape(len(self), self.n_nodes, 6)

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F, D, M = _inertia.inertia_forces(self._nodes(vb), self._nodes(ab), self.P, self.w, self.Ms, jacobians,
                                          self.M)
        if not jacobians:
            return F, None, None, None
        return F, np.zeros_like(M), D, M

    def mass_matrix(self, qb):
        return self.M.copy()

    def element_kinetic_energy(self, qb, vb):
        return _inertia.kinetic_energy(self._nodes(vb), self.P, self.w, self.Ms)


class _ElasticBeamGroup(ForceGroup):
    """Common part of the elastic groups: ``_forces(qe, jacobians)`` returns the internal
    forces f = ∂V/∂Δ, their derivative K and the strain energy V first; the applied
    generalised force is Q = −f with ∂Q/∂Δ = −K."""

    def evaluate(self, qe, ve, t, jacobians=True):
        f, K = self._forces(qe, jacobians)[:2]
        return -f, (None if K is None else -K), None

    def potential_energy(self, qe, t):
        return float(np.sum(self._forces(qe, False)[2]))


class BeamElasticGroup(_ElasticBeamGroup):
    """Elastic forces of two-node SE(3) beam elements (:mod:`.se3_linear`)."""

    kind = SE3
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

    def outputs(self, qe, ve, t, lam=None):
        _, _, V, sig = self._forces(qe, False)
        out = {"strain_energy": V}
        for i, key in enumerate(self.output_names[1:]):
            out[key] = sig[:, i]
        return out


class BeamElasticGroupN(_ElasticBeamGroup):
    """Elastic forces of n-node SE(3) beam elements (Lagrange or NURBS, :mod:`.se3_beam`)."""

    kind = SE3
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
        return _se3_n.elastic_forces(qb, self.N, self.dN, self.w, self.eps0, self.D, jacobians)

    def outputs(self, qe, ve, t, lam=None):
        return {"strain_energy": self._forces(qe, False)[2]}


# --------------------------------------------------------------------------------------
# R³×R³ beams (nodes of kind r3r3, coordinates (x, ψ) with total rotation vectors)
# --------------------------------------------------------------------------------------


def _r3r3_aligned(qb, order):
    """Element coordinates with node B's ψ moved onto the branch nearest node A's
    (``nodes.rotvec_branch.nearest_branch``) and the derivatives of that map (None if no element
    needs a shift, i.e. the map is the identity)."""
    m = _branch.nearest_branch(qb[:, 9:12], qb[:, 3:6])
    if not np.any(m):
        return qb, None
    g, G1, G2, G3 = _branch.shift_jet(qb[:, 9:12], m, order)
    q2 = qb.copy()
    q2[:, 9:12] = g
    return q2, (G1, G2, G3)


def _rows_cols(X, G1, rows=True, cols=True):
    """Eᵀ X E with E = blockdiag(I₉, G1): node B's ψ rows and columns mapped by G1."""
    X = X.copy()
    if cols:
        X[:, :, 9:12] = X[:, :, 9:12] @ G1
    if rows:
        X[:, 9:12, :] = np.swapaxes(G1, -1, -2) @ X[:, 9:12, :]
    return X


class R3R3ElasticGroup(_ElasticBeamGroup):
    """Elastic forces of two-node R³×R³ beam elements (:mod:`.r3r3`, integration full,
    reduced or hw).  Node B's rotation vector is brought onto node A's branch first; the
    forces and stiffness carry the exact chain rule of that map."""

    kind = R3R3
    output_names = ("strain_energy", "axial_force", "shear_force_2", "shear_force_3", "torque",
                    "bending_moment_2", "bending_moment_3")

    def __init__(self, names, dof_index, config_index, q_ref, length, D, mode):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.q_ref = np.asarray(q_ref, float)
        self.length = np.asarray(length, float)
        self.D = np.asarray(D, float)
        self.mode = mode

    def _forces(self, qe, jacobians):
        if USE_KERNELS:
            return self._forces_compiled(qe[self.config_index], jacobians)
        q2, jet = _r3r3_aligned(qe[self.config_index], 2 if jacobians else 1)
        out = _r3r3.elastic_forces(q2, self.q_ref, self.length, self.D, self.mode, jacobians)
        if jet is None:
            return out if jacobians else (out[0], None, out[1])
        G1, G2, _ = jet
        f = out[0]
        fc = f.copy()
        fc[:, 9:12] = np.einsum("nij,ni->nj", G1, f[:, 9:12])
        if not jacobians:
            return fc, None, out[1]
        K = _rows_cols(out[1], G1)
        K[:, 9:12, 9:12] += np.einsum("ni,nijl->njl", f[:, 9:12], G2)
        return fc, K, out[2]

    def _forces_compiled(self, qb, jacobians):
        n = len(qb)
        f, V = np.empty((n, 12)), np.empty(n)
        K = np.empty((n, 12, 12)) if jacobians else np.empty((0, 12, 12))
        _r3r3_kernel.elastic_forces(np.ascontiguousarray(qb, dtype=float), self.q_ref, self.length, self.D,
                                    _R3R3_MODES[self.mode], jacobians, f, K, V)
        return f, (K if jacobians else None), V

    def outputs(self, qe, ve, t, lam=None):
        q2, _ = _r3r3_aligned(qe[self.config_index], 1)
        _, V = _r3r3.elastic_forces(q2, self.q_ref, self.length, self.D, self.mode, jacobians=False)
        sig = _r3r3.section_forces(q2, self.q_ref, self.length, self.D, self.mode).mean(axis=1)
        out = {"strain_energy": V}
        for i, key in enumerate(self.output_names[1:]):
            out[key] = sig[:, i]
        return out


class R3R3InertiaGroup(InertiaGroup):
    """Consistent inertia of two-node R³×R³ beam elements (:func:`.r3r3.inertia_forces`),
    with node B's ψ, ψ̇, ψ̈ mapped onto node A's branch (exact chain rule: ψ̇' = G1 ψ̇,
    ψ̈' = G1 ψ̈ + G2[ψ̇, ψ̇])."""

    kind = R3R3

    def __init__(self, names, dof_index, config_index, length, rhoA, Js):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.length = np.asarray(length, float)
        self.rhoA = np.asarray(rhoA, float)
        self.Js = np.asarray(Js, float)

    def __len__(self):
        return len(self.element_names)

    @staticmethod
    def _mapped(vb, ab, jet):
        G1, G2, _ = jet
        v2, a2 = vb.copy(), ab.copy()
        w = vb[:, 9:12]
        v2[:, 9:12] = np.einsum("nij,nj->ni", G1, w)
        a2[:, 9:12] = np.einsum("nij,nj->ni", G1, ab[:, 9:12]) + np.einsum("nijl,nj,nl->ni", G2, w, w)
        return v2, a2

    def inertia_force(self, qb, vb, ab, jacobians=True):
        if USE_KERNELS:
            n, c = len(qb), np.ascontiguousarray
            F = np.empty((n, 12))
            K, D, M = (np.empty((n, 12, 12)) for _ in range(3)) if jacobians else (np.empty((0, 12, 12)),) * 3
            _r3r3_kernel.inertia_forces(c(qb, dtype=float), c(vb, dtype=float), c(ab, dtype=float), self.length,
                                        self.rhoA, self.Js, jacobians, F, K, D, M)
            return (F, K, D, M) if jacobians else (F, None, None, None)
        q2, jet = _r3r3_aligned(qb, 3 if jacobians else 2)
        v2, a2 = (vb, ab) if jet is None else self._mapped(vb, ab, jet)
        out = _r3r3.inertia_forces(q2, v2, a2, self.length, self.rhoA, self.Js, jacobians)
        if not jacobians:
            F = out
            if jet is not None:
                F = F.copy()
                F[:, 9:12] = np.einsum("nij,ni->nj", jet[0], out[:, 9:12])
            return F, None, None, None
        F, K, D, M = out
        if jet is None:
            return F, K, D, M
        G1, G2, G3 = jet
        w, acc = vb[:, 9:12], ab[:, 9:12]
        V1 = np.einsum("nijl,nj->nil", G2, w)                      # ∂ψ̇'/∂ψ = ∂ψ̈'/∂ψ̇ / 2
        A1 = np.einsum("nijl,nj->nil", G2, acc) + np.einsum("nijkl,nj,nk->nil", G3, w, w)   # ∂ψ̈'/∂ψ
        Kc = K.copy()
        Kc[:, :, 9:12] = K[:, :, 9:12] @ G1 + D[:, :, 9:12] @ V1 + M[:, :, 9:12] @ A1
        Kc = _rows_cols(Kc, G1, cols=False)
        Kc[:, 9:12, 9:12] += np.einsum("ni,nijl->njl", F[:, 9:12], G2)
        Dc = D.copy()
        Dc[:, :, 9:12] = D[:, :, 9:12] @ G1 + 2.0 * M[:, :, 9:12] @ V1
        Dc = _rows_cols(Dc, G1, cols=False)
        Mc = _rows_cols(M, G1)
        Fc = F.copy()
        Fc[:, 9:12] = np.einsum("nij,ni->nj", G1, F[:, 9:12])
        return Fc, Kc, Dc, Mc

    def mass_matrix(self, qb):
        z = np.zeros((len(self), 12))
        return self.inertia_force(qb, z, z, jacobians=True)[3]

    def element_kinetic_energy(self, qb, vb):
        q2, jet = _r3r3_aligned(qb, 1)
        if jet is not None:
            vb = vb.copy()
            vb[:, 9:12] = np.einsum("nij,nj->ni", jet[0], vb[:, 9:12])
        return _r3r3.kinetic_energy(q2, vb, self.length, self.rhoA, self.Js)
