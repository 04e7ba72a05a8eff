"""Rigid bodies on ANCF coordinates (``parameterization="ancf"``): natural coordinates.

The node (kind :data:`~flexmbd.nodes.ANCF`) carries the centre of mass r and the body
axes g_1, g_2, g_3 (the columns of the rotation matrix A = [g_1 g_2 g_3]), so that a
body point is x = r + A u, linear in the coordinates, as on the nodes of ANCF beams:
such a body joins ANCF beam nodes with any joint.  Rigidity is six constraints

    g_k · g_l − δ_kl = 0   (k ≤ l),

and the kinetic energy T = ½ ∫ |ṙ + Σ_k u_k ġ_k|² dm = ½ m |ṙ|² + ½ Σ_kl J̄_kl ġ_k · ġ_l,
J̄ = ∫ u uᵀ dm = ½ tr(I) 𝟙 − I (I the inertia tensor about the centre of mass, body axes),
gives the constant mass matrix M = blockdiag(m 𝟙₃, J̄ ⊗ 𝟙₃) and no velocity terms
(García de Jalón & Bayo, *Kinematic and Dynamic Simulation of Multibody Systems*, 1994,
chapters 2-3: natural coordinates).
"""
from __future__ import annotations

import numpy as np

from ..groups import ConstantMassGroup, ConstraintGroup
from ..nodes import ANCF

__all__ = ["AncfBodyGroup", "RigidityGroup", "second_moments"]

#: the six pairs (k, l), k ≤ l, of the rigidity constraints
PAIRS = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))


def second_moments(inertia) -> np.ndarray:
    """J̄ = ∫ u uᵀ dm = ½ tr(I) 𝟙 − I (3, 3) from the inertia tensor I about the centre of mass."""
    inertia = np.asarray(inertia, dtype=float)
    return 0.5 * np.trace(inertia, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - inertia


class AncfBodyGroup(ConstantMassGroup):
    """Rigid bodies on ANCF nodes: F = M q̈ with the constant M = blockdiag(m 𝟙, J̄ ⊗ 𝟙)."""

    kind = ANCF

    def __init__(self, bodies, dof_index, config_index=None):
        self.bodies = list(bodies)
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 12)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 12)
        n = len(bodies)
        M = np.zeros((n, 4, 3, 4, 3))
        M[:, 0, :, 0, :] = np.array([b.mass for b in bodies])[:, None, None] * np.eye(3)
        Jb = second_moments(np.array([b.inertia for b in bodies]))
        M[:, 1:, :, 1:, :] = Jb[:, :, None, :, None] * np.eye(3)[None, None, :, None, :]
        self.M = M.reshape(n, 12, 12)



class RigidityGroup(ConstraintGroup):
    """g_k · g_l = δ_kl (k ≤ l): six equations per rigid body on ANCF coordinates."""

    kind = ANCF

    def __init__(self, bodies, dof_index, config_index=None):
        dofs = np.asarray(dof_index, dtype=int).reshape(-1, 12)
        cfgs = dofs if config_index is None else np.asarray(config_index, int).reshape(-1, 12)
        self.dof_index = np.repeat(dofs, len(PAIRS), axis=0)
        self.config_index = np.repeat(cfgs, len(PAIRS), axis=0)
        pairs = np.array(PAIRS * len(dofs))
        self.k, self.l = pairs[:, 0], pairs[:, 1]
        self.owner = [b.name for b in bodies for _ in PAIRS]
        self.label = [f"rigidity g{k + 1}·g{l + 1} = {int(k == l)}" for _ in bodies for k, l in PAIRS]

    def __len__(self):
        return len(self.owner)

    def subset(self, keep):
        keep = np.asarray(keep, dtype=bool)
        out = object.__new__(RigidityGroup)
        out.dof_index, out.config_index = self.dof_index[keep], self.config_index[keep]
        out.k, out.l = self.k[keep], self.l[keep]
        out.owner = [o for o, kp in zip(self.owner, keep) if kp]
        out.label = [o for o, kp in zip(self.label, keep) if kp]
        return out

    def _columns(self):
        rows = np.arange(len(self))
        return rows, 3 + 3 * self.k, 3 + 3 * self.l

    def assemble(self, qe, t, lam, hessian=True):
        G = qe[self.config_index][:, 3:].reshape(-1, 3, 3)            # rows g_1, g_2, g_3
        rows, ck, cl = self._columns()
        gk, gl = G[rows, self.k], G[rows, self.l]
        phi = np.einsum("ni,ni->n", gk, gl) - (self.k == self.l)
        Jq = np.zeros(self.dof_index.shape)
        for i in range(3):
            Jq[rows, ck + i] += gl[:, i]
            Jq[rows, cl + i] += gk[:, i]
        if not hessian:
            return phi, Jq, None
        H = np.zeros((len(self), 12, 12))
        for i in range(3):
            H[rows, ck + i, cl + i] += lam
            H[rows, cl + i, ck + i] += lam
        return phi, Jq, H

    def hessian(self, qe, t, lam):
        """λ_e ∂²φ_e/∂q² (constant)."""
        return self.assemble(qe, t, np.asarray(lam, dtype=float), hessian=True)[2]

    def time_derivative(self, qe, t):
        return np.zeros(len(self))

    def gamma(self, qe, ve, t):
        """γ = −(Φ_q q̇)_q q̇ = −2 ġ_k · ġ_l."""
        V = ve[self.dof_index][:, 3:].reshape(-1, 3, 3)
        rows = np.arange(len(self))
        return -2.0 * np.einsum("ni,ni->n", V[rows, self.k], V[rows, self.l])
