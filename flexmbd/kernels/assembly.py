"""Compiled group contributions written straight into the assembly buffers.

Each function evaluates one group and writes its part of the residual vector (``vec``),
of the Newton-matrix blocks (``blk``) and, for constraints, of the constraint values
(``phi``) and the two Jacobian blocks Φ_q, Φ_qᵀ (``jac``), in exactly the layout
:meth:`flexmbd.system.System.evaluate` concatenates; :func:`scatter` then sums them into
the residual and the matrix data.  One call per group replaces the NumPy glue of the
generic path (temporaries, concatenations, products by c_M, c_D, c_K), which costs more
than the element kernels themselves on small models (docs/performance.md).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bodies import spatial_inertia
from .dot import _assemble as _dot_assemble
from .loads import point_forces
from .normalization import assemble as _norm_assemble
from .spring_damper import linear_forces


@njit(cache=True)
def gather(x, idx):
    out = np.empty(idx.shape)
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, j] = x[idx[i, j]]
    return out


@njit(cache=True)
def spatial_bodies(cfg, dof, mass, inertia, qe, ve, ae, cM, cD, cK, matrix, vec, blk):
    """F = M a + Q_v and c_M M + c_K ∂F/∂q + c_D ∂F/∂q' of Euler-parameter bodies."""
    qb, vb, ab = gather(qe, cfg), gather(ve, dof), gather(ae, dof)
    n = qb.shape[0]
    F = vec.reshape((n, 7))
    if matrix:
        K, D, M = np.empty((n, 7, 7)), np.empty((n, 7, 7)), np.empty((n, 7, 7))
    else:
        K = D = M = np.empty((0, 7, 7))
    spatial_inertia(qb, vb, ab, mass, inertia, matrix, F, K, D, M)
    if matrix:
        B = blk.reshape((n, 7, 7))
        for e in range(n):
            for i in range(7):
                for j in range(7):
                    B[e, i, j] = cM * M[e, i, j] + cK * K[e, i, j] + cD * D[e, i, j]


@njit(cache=True)
def planar_bodies(dof, diag, ae, cM, matrix, vec, blk):
    """F = diag(m, m, I_z) a; the matrix block c_M M."""
    n = dof.shape[0]
    F = vec.reshape((n, 3))
    for e in range(n):
        for i in range(3):
            F[e, i] = diag[e, i] * ae[dof[e, i]]
    if matrix:
        B = blk.reshape((n, 3, 3))
        for e in range(n):
            for i in range(3):
                for j in range(3):
                    B[e, i, j] = cM * diag[e, i] if i == j else 0.0


@njit(cache=True)
def _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac):
    n, m = Jq.shape
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = Jq[e, a] * lam[e]
    if not matrix:
        return
    B = blk.reshape((n, m, m))
    for e in range(n):
        for a in range(m):
            for b in range(m):
                B[e, a, b] = cK * H[e, a, b] if hess else 0.0
    k = 0
    for copy in range(2):  # Φ_q (lower left) and Φ_qᵀ (upper right) receive the same values
        for e in range(n):
            for a in range(m):
                jac[k] = Jq[e, a]
                k += 1


@njit(cache=True)
def normalization(cfg, qe, lam, cK, matrix, hess, phi, vec, blk, jac):
    n = cfg.shape[0]
    Jq = np.empty((n, 7))
    H = np.empty((n, 7, 7)) if hess else np.empty((0, 7, 7))
    _norm_assemble(qe, cfg, lam, hess, phi, Jq, H)
    _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac)


@njit(cache=True)
def dot_constraints(kcode, nv, slot_dof, u, mtype, side, sign, w, s, qe, lam, cK, matrix, hess, phi, vec, blk,
                    jac):
    n = phi.shape[0]
    m = 2 * nv
    Jq = np.empty((n, m))
    H = np.empty((n, m, m)) if hess else np.empty((0, m, m))
    _dot_assemble(kcode, nv, qe, slot_dof, u, mtype, side, sign, w, s, lam, hess, phi, Jq, H)
    _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac)


@njit(cache=True)
def linear_springs(kcode, cfg, dof, ui, uj, k, c, l0, fa, tension_only, qe, ve, cD, cK, matrix, vec, blk):
    """Linear spring-damper-actuators; returns the shortest length (zero: undefined direction)."""
    ql, vl = gather(qe, cfg), gather(ve, dof)
    n, m = vl.shape
    Q = np.empty((n, m))
    if matrix:
        K, D = np.empty((n, m, m)), np.empty((n, m, m))
    else:
        K = D = np.empty((0, m, m))
    length, rate, F = np.empty(n), np.empty(n), np.empty(n)
    linear_forces(kcode, ql, vl, ui, uj, k, c, l0, fa, tension_only, matrix, Q, K, D, length, rate, F)
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -Q[e, a]
    if matrix:
        B = blk.reshape((n, m, m))
        for e in range(n):
            for a in range(m):
                for b in range(m):
                    B[e, a, b] = -cK * K[e, a, b] - cD * D[e, a, b]
    shortest = np.inf
    for e in range(n):
        shortest = min(shortest, length[e])
    return shortest


@njit(cache=True)
def point_loads(kcode, cfg, u, f, body_fixed, s, qe, scale, cK, matrix, vec, blk):
    qb = gather(qe, cfg)
    n, m = cfg.shape[0], vec.shape[0] // cfg.shape[0]
    Q = np.empty((n, m))
    K = np.empty((n, m, m)) if matrix else np.empty((0, m, m))
    point_forces(kcode, qb, u, f, body_fixed, s, matrix, Q, K)
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -scale * Q[e, a]
    if matrix:
        B = blk.reshape((n, m, m))
        for e in range(n):
            for a in range(m):
                for b in range(m):
                    B[e, a, b] = -cK * scale * K[e, a, b]


@njit(cache=True)
def gravity(mass, g, scale, matrix, vec, blk):
    """Q = m g on the translational coordinates (vector kinds: no Jacobian)."""
    n = mass.shape[0]
    m = vec.shape[0] // n
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -scale * mass[e] * g[a] if a < g.shape[0] else 0.0
    if matrix:
        blk[:] = 0.0


@njit(cache=True)
def scatter(vec, vec_index, n, blk, pos, size, matrix):
    """Σ of the contributions into F (n,) and the matrix data (size,); index n and size
    are the trash slots of ground rows/columns."""
    F = np.zeros(n + 1)
    for k in range(vec.shape[0]):
        F[vec_index[k]] += vec[k]
    data = np.zeros(size + 1 if matrix else 0)
    if matrix:
        for k in range(blk.shape[0]):
            data[pos[k]] += blk[k]
    return F[:n], data[:size]
