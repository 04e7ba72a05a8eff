"""Euler-parameter normalisation φ = p·p − 1 = 0, one equation per spatial body (P1)."""
from __future__ import annotations

import numpy as np

from ..groups import CompiledSlot, ConstraintGroup, int_array
from ..kernels import AVAILABLE as USE_KERNELS
from ..nodes import SPATIAL

if USE_KERNELS:
    from ..kernels import normalization as _norm


class NormalizationGroup(ConstraintGroup):
    kind = SPATIAL

    def __init__(self, bodies, dof_index, config_index=None):
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 7)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 7)
        self.owner = [b.name for b in bodies]
        self.label = ["Euler-parameter normalisation p·p = 1"] * len(bodies)

    def __len__(self):
        return len(self.owner)

    def subset(self, keep):
        raise ValueError("the Euler-parameter normalisation is never redundant")

    def compiled_slot(self):
        return CompiledSlot("normalization", (int_array(self.config_index),))

    def evaluate(self, qe, t):
        p = qe[self.config_index[:, 3:]]
        Jq = np.zeros(self.dof_index.shape)
        Jq[:, 3:] = 2.0 * p
        return np.einsum("ni,ni->n", p, p) - 1.0, Jq

    def hessian(self, qe, t, lam):
        H = np.zeros((len(self), 7, 7))
        idx = np.arange(3, 7)
        H[:, idx, idx] = 2.0 * lam[:, None]
        return H

    def assemble(self, qe, t, lam, hessian=True):
        if USE_KERNELS:
            n = len(self)
            phi, Jq = np.empty(n), np.empty((n, 7))
            H = np.empty((n, 7, 7)) if hessian else np.empty((0, 7, 7))
            _norm.assemble(qe, self.config_index, lam, hessian, phi, Jq, H)
            return phi, Jq, (H if hessian else None)
        phi, Jq = self.evaluate(qe, t)
        return phi, Jq, self.hessian(qe, t, lam) if hessian else None

    def time_derivative(self, qe, t):
        return np.zeros(len(self))

    def gamma(self, qe, ve, t):
        pd = ve[self.dof_index[:, 3:]]
        return -2.0 * np.einsum("ni,ni->n", pd, pd)
