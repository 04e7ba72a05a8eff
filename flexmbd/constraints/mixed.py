"""Spherical joints between nodes of two different spatial kinds (a rigid body and an
ANCF cable node, an SE(3) beam node and an ANCF beam node, say).

The dot-product engine (:mod:`.dot`) evaluates one node kind per group; a point joint
between kinds K_i and K_j is three equations along the global axes,

    φ_k = e_k · (x_j − x_i),   x = the POINT markers of each side (its kind's markers),

with Φ_q = [−e_kᵀ J_i, e_kᵀ J_j], λ_k ∂²φ_k/∂q² = blockdiag(−C_i(λ_k e_k), C_j(λ_k e_k))
(C the kinds' marker ``contract``) and γ_k = −e_k · (∂(J_j v_j)/∂q v_j − ∂(J_i v_i)/∂q v_i)
(``dJv``): the same exact derivatives as every marker-based joint, one group per pair
of kinds.  Markers give their Jacobians along each kind's increments (q ⊕ Δ), so the
equations hold for Lie-group kinds too; the group names its two kinds
(``side_kinds``) and the Newton matrix multiplies each Lie-group side's columns by that
node's T(Δ) (:func:`flexmbd.groups.tangent_map`).  Planar nodes move in a plane of their
own and are not joined to spatial ones; R³×R³ nodes, whose rotation vectors the solvers
rescale between steps, join only their own kind (not tested across kinds).
"""
from __future__ import annotations

import numpy as np

from ..ground import GROUND
from ..groups import ConstraintGroup
from ..nodes import PLANAR, POINT

_AXES = ("x", "y", "z")


def mixable(bodies) -> bool:
    """Two non-ground nodes of different kinds that a point joint across kinds can join."""
    nodes = [b for b in bodies if b is not GROUND]
    return (len(nodes) == 2 and nodes[0].kind != nodes[1].kind
            and all(b.kind != PLANAR and not b.kind.has_branches for b in nodes))


class MixedPointGroup(ConstraintGroup):
    """Point coincidence of spherical joints between a node of kind ``kind_i`` and one of
    ``kind_j``: three equations per joint (module docstring)."""

    def __init__(self, kind_i, kind_j, owners, dof_index, config_index, u_i, u_j, axes):
        self.kind = kind_i if kind_i.nv >= kind_j.nv else kind_j
        self.kind_i, self.kind_j = kind_i, kind_j
        self.side_kinds = (kind_i, kind_j)     # columns: node i's increments, then node j's
        self.owner = list(owners)
        self.label = [f"point coincidence along {_AXES[int(np.argmax(a))]}" for a in axes]
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.u_i, self.u_j = np.asarray(u_i, float), np.asarray(u_j, float)
        self.axes = np.asarray(axes, float)
        n = len(self.owner)
        self.mi = kind_i.markers(self.u_i, np.full(n, POINT))
        self.mj = kind_j.markers(self.u_j, np.full(n, POINT))

    def __len__(self):
        return len(self.owner)

    def _split(self, X, ni):
        return X[:, :ni], X[:, ni:]

    def assemble(self, qe, t, lam, hessian=True):
        qi, qj = self._split(qe[self.config_index], self.kind_i.nq)
        xi, Ji = self.mi.evaluate(qi)
        xj, Jj = self.mj.evaluate(qj)
        a = self.axes
        phi = np.einsum("ni,ni->n", a, xj - xi)
        Jq = np.concatenate([-np.einsum("ni,nij->nj", a, Ji), np.einsum("ni,nij->nj", a, Jj)], axis=1)
        H = None
        if hessian:
            g = a * (np.zeros(len(self)) if lam is None else lam)[:, None]
            ni = self.kind_i.nv
            H = np.zeros((len(self), Jq.shape[1], Jq.shape[1]))
            H[:, :ni, :ni] = -self.mi.contract(qi, g)
            H[:, ni:, ni:] = self.mj.contract(qj, g)
        return phi, Jq, H

    def hessian(self, qe, t, lam):
        """λ_e ∂²φ_e/∂q² (n, w, w)."""
        return self.assemble(qe, t, lam)[2]

    def gamma(self, qe, ve, t):
        qi, qj = self._split(qe[self.config_index], self.kind_i.nq)
        vi, vj = self._split(ve[self.dof_index], self.kind_i.nv)
        ai = np.einsum("nij,nj->ni", self.mi.dJv(qi, vi), vi)
        aj = np.einsum("nij,nj->ni", self.mj.dJv(qj, vj), vj)
        return -np.einsum("ni,ni->n", self.axes, aj - ai)

    def subset(self, keep):
        keep = np.asarray(keep, dtype=bool)
        return MixedPointGroup(self.kind_i, self.kind_j, [o for o, k in zip(self.owner, keep) if k],
                               self.dof_index[keep], self.config_index[keep], self.u_i[keep], self.u_j[keep],
                               self.axes[keep])


def build_mixed_points(elements, system) -> list:
    """One MixedPointGroup per ordered pair of kinds: three equations per spherical joint
    (its point ``at``, global axes)."""
    groups = {}
    for e in elements:
        bi, bj = e.bodies
        groups.setdefault((bi.kind.key, bj.kind.key), []).append(e)
    out = []
    for mine in groups.values():
        bi, bj = mine[0].bodies
        ki, kj = bi.kind, bj.kind
        at = np.array([e.data["at"] for e in mine])
        u_i = system.local_points([e.bodies[0] for e in mine], at)
        u_j = system.local_points([e.bodies[1] for e in mine], at)
        dofs = np.hstack([system.dof_rows([e.bodies[0] for e in mine], ki),
                          system.dof_rows([e.bodies[1] for e in mine], kj)])
        cfgs = np.hstack([system.config_rows([e.bodies[0] for e in mine], ki),
                          system.config_rows([e.bodies[1] for e in mine], kj)])
        rep = lambda x: np.repeat(x, 3, axis=0)   # noqa: E731  (three equations per joint)
        out.append(MixedPointGroup(ki, kj, [e.name for e in mine for _ in range(3)], rep(dofs), rep(cfgs),
                                   rep(u_i), rep(u_j), np.tile(np.eye(3), (len(mine), 1))))
    return out


__all__ = ["MixedPointGroup", "build_mixed_points", "mixable"]
