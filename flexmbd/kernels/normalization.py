"""Compiled Euler-parameter normalisation φ = p·p − 1 (see constraints/normalization.py)."""
from __future__ import annotations

from numba import njit


@njit(cache=True)
def assemble(qe, dof_index, lam, hessian, phi, Jq, H):
    for b in range(dof_index.shape[0]):
        s = -1.0
        for a in range(7):
            Jq[b, a] = 0.0
        for j in range(4):
            p = qe[dof_index[b, 3 + j]]
            s += p * p
            Jq[b, 3 + j] = 2.0 * p
        phi[b] = s
        if hessian:
            for a in range(7):
                for c in range(7):
                    H[b, a, c] = 0.0
            for j in range(3, 7):
                H[b, j, j] = 2.0 * lam[b]
