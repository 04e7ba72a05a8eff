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


@njit(cache=True)
def assemble_into(qe, dof_index, lam, cK, matrix, hessian, phi, vec, blk, jac):
    """:func:`assemble` written straight into the assembly buffers (kernels/assembly.py):
    λ Φ_qᵀ into vec (n · 7), c_K λ ∂²φ/∂q² into blk (n · 49, zero without ``hessian``),
    Φ_q twice into jac (the lower-left and upper-right blocks)."""
    n = dof_index.shape[0]
    for b in range(n):
        s = -1.0
        for a in range(3):
            vec[7 * b + a] = 0.0
        for j in range(4):
            p = qe[dof_index[b, 3 + j]]
            s += p * p
            vec[7 * b + 3 + j] = 2.0 * p * lam[b]
        phi[b] = s
        if matrix:
            for a in range(3):
                jac[7 * b + a] = 0.0
                jac[7 * (n + b) + a] = 0.0
            for j in range(4):
                jp = 2.0 * qe[dof_index[b, 3 + j]]
                jac[7 * b + 3 + j] = jp
                jac[7 * (n + b) + 3 + j] = jp
            o = 49 * b
            for a in range(49):
                blk[o + a] = 0.0
            if hessian:
                for j in range(3, 7):
                    blk[o + 8 * j] = cK * (2.0 * lam[b])
