"""Elastic forces of elements given by a strain energy V(e), evaluated in parts.

A beam formulation whose elements of one group differ in integration rule or energy form
(the ANCF cable's rules and bending forms, the ANCF beam's locking forms) evaluates each
part with its own arrays; the group's force is the parts' results in row order (parts are
contiguous blocks of the group's elements).  Q = −∂V/∂e and ∂Q/∂e = −K.
"""
from __future__ import annotations

import numpy as np

from ..groups import ForceGroup


class StrainEnergyGroup(ForceGroup):
    """A force group of elastic elements whose ``_part_forces(qe, jacobians)`` returns, per
    part, (f = ∂V/∂e (n, w), K = ∂f/∂e (n, w, w) or None, V (n,))."""

    def _part_forces(self, qe: np.ndarray, jacobians: bool) -> list:
        raise NotImplementedError

    def _forces(self, qe: np.ndarray, jacobians: bool):
        """(f, K or None, V) of all elements, the parts concatenated."""
        out = self._part_forces(qe, jacobians)
        if len(out) == 1:
            return out[0]
        f, K, V = zip(*out)
        return np.concatenate(f), (np.concatenate(K) if jacobians else None), np.concatenate(V)

    def evaluate(self, qe, ve, t, jacobians=True):
        f, K, _ = self._forces(qe, jacobians)
        return -f, (None if K is None else -K), None

    def potential_energy(self, qe, t):
        return float(np.sum(self._forces(qe, False)[2]))
