"""Compiled pieces of a Newton iteration on SE(3) increments (issue 18: the compiled static
path of the SE(3) cantilevers; not yet a slot of kernels/assembly.py ``evaluate_all``).

With the configuration q = q_b ⊕ Δ (every frame node H_b exp(Δ̃), nodes/frame.py) the
Newton matrix in the unknowns Δ is ∂F/∂Δ = (∂F/∂h) T(Δ): each node's six columns of the
derivative along body-frame increments h times T_SE3(Δ_node) (``FrameKind.tangent``;
``System.evaluate(..., tangent=Δ)`` on the generic path, groups.py ``tangent_map``).
:func:`node_tangents` makes the T(Δ) of a set of nodes (with an identity for nodes that
do not move by an increment: ground, vector kinds); :func:`se3_beam_elastic` is the
two-node SE(3) beam's elastic slot with them applied, in ``evaluate_all``'s conventions
(f = −Q into ``vec``, c_K ∂F/∂Δ into ``blk``, element by element in the order of the
group's ``dof_index``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .lie import se3_T
from .se3_beam import elastic_forces


@njit(cache=True)
def node_tangents(delta, rows, T):
    """T[r] = T_SE3(Δ[rows[r] : rows[r] + 6]) for r < len(rows) and T[len(rows)] = I (the
    entry of nodes without an increment).  delta: the increments (n,); rows (N,) the
    first increment row of each SE(3) node; T (N + 1, 6, 6)."""
    for r in range(rows.shape[0]):
        se3_T(delta[rows[r]:rows[r] + 6], T[r])
    last = rows.shape[0]
    for i in range(6):
        for j in range(6):
            T[last, i, j] = 1.0 if i == j else 0.0


@njit(cache=True)
def se3_beam_elastic(cfg, tnode, d0, length, D, qe, T, cK, matrix, vec, blk):
    """Two-node SE(3) beam elements (kernels/se3_beam.py ``elastic_forces``) on increments:
    f = −Q into vec (n · 12) and c_K K T(Δ) into blk (n · 144), where K = ∂f/∂h and each
    node's six columns are multiplied by its T(Δ) = T[tnode[e, j]] (j = 0: node A, 1: B).

    cfg (n, 14): the configuration rows of nodes A and B in qe; d0 (n, 6) the reference
    relative twists, length (n,), D (n, 6, 6) the section stiffness (``BeamElasticGroup``)."""
    n = cfg.shape[0]
    qa = np.empty((n, 7))
    qb = np.empty((n, 7))
    for e in range(n):
        for i in range(7):
            qa[e, i] = qe[cfg[e, i]]
            qb[e, i] = qe[cfg[e, 7 + i]]
    K = np.empty((n, 12, 12)) if matrix else np.empty((0, 12, 12))
    elastic_forces(qa, qb, d0, length, D, matrix, vec.reshape((n, 12)), K, np.empty(n), np.empty((n, 6)))
    if not matrix:
        return
    B = blk.reshape((n, 12, 12))
    for e in range(n):
        for j in range(2):
            Tn = T[tnode[e, j]]
            c0 = 6 * j
            for a in range(12):
                for c in range(6):
                    s = 0.0
                    for k in range(6):
                        s += K[e, a, c0 + k] * Tn[k, c]
                    B[e, a, c0 + c] = cK * s
