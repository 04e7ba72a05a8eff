"""Many time steps in one compiled call (solvers/compiled_loop.py): the step loop of
:func:`flexmbd.solvers.dynamics.simulate` for systems whose whole Newton step is compiled
(``assembly.newton_step``), so that a step pays no Python call, no boxing of some thirty
arguments and no state objects; the states come back in arrays, one row a step."""
from __future__ import annotations

import numpy as np
from numba import njit

from .assembly import CONVERGED, SINGULAR_CONSISTENT, consistent_accelerations, newton_step


@njit(cache=True)
def run_steps(t, targets, q, v, qdd, a, lam, key, am, af, beta, gamma, tol, scaled, max_iter, policy, kept, project,
              consistent, ground_q, n_ext, layout, vsize, bsize, vec_index, pos, band, vec, blk, ib, fb, TB, tab, LU, piv,
              status, P, Ppiv, T, Q, V, QDD, A, LAM, STATS, TD, TDD, rates):
    """Steps from (t, q, q', q'', a, λ) to targets[0], targets[1], …, each by
    :func:`~flexmbd.kernels.assembly.newton_step` with h = target − t (as the per-step path,
    so the same times to the last bit).  Row k of T, Q, V, QDD, A, LAM is the state after
    step k (with ``consistent``, q'' and λ solved from the index-1 equations at its q and q',
    as solvers/dynamics.py ``_consistent``) and STATS[k] its counters (iterations, refreshes, factorizations, residual
    evaluations, rounding stops).  P, Ppiv (LU's and piv's shapes) carry the projection
    matrix or its factorization from the Newton step to the consistent solve
    (``assembly.consistent_accelerations``).  ``key`` is the step size the factorization at
    hand was made for (NaN: none); a step size that differs by more than rounding
    (relative 1e-9, solvers/newton.py ``_same_key``) drops it.

    TB holds the time-dependent arrays of ``evaluate_all`` (compiled_assembly.py
    ``time_values``) at the end time of each step, one row a step (row k at the time of
    target k, where the per-step path evaluates them for the Newton step and the
    consistent solve), or one row for every step (a model without time-dependent inputs).
    TD and TDD: the rates of those arrays (first, second derivatives) on the slots of driven
    constraints (``rates``, compiled_assembly.py ``rate_values``), by row as TB, for Φ_t
    in the velocity projection and Φ_qt, Φ_tt in the consistent accelerations; rows of
    length 0 when the model has no driven constraints.

    Stops at the first step that does not converge.  Returns (steps done, its code or
    CONVERGED, Newton's last x, residual norm, [F; Φ] and q_{n+1} of the failed step, the
    matrix key)."""
    n = q.shape[0]
    count = targets.shape[0]
    stats = np.zeros(STATS.shape[1], dtype=np.int64)
    for k in range(count):
        h = targets[k] - t
        if not abs(h - key) <= 1e-9 * max(abs(h), abs(key)):
            status[0] = 0
            key = h
        stats[:] = 0
        tb = TB[k] if TB.shape[0] > 1 else TB[0]
        td = TD[k] if TD.shape[0] > 1 else TD[0]
        tdd = TDD[k] if TDD.shape[0] > 1 else TDD[0]
        code, x, norm, chk, q1, v1, a1 = newton_step(
            q, v, qdd, a, lam, h, am, af, beta, gamma, tol, scaled, max_iter, policy, kept, project, ground_q, n_ext,
            layout, vsize, bsize, vec_index, pos, band, vec, blk, ib, fb, tb, tab, LU, piv, status, stats, P, Ppiv, td,
            rates)
        STATS[k, :] = stats
        if code != CONVERGED:
            return k, code, x, norm, chk, q1, key
        if consistent:      # q'' and λ from the index-1 equations at (q_{n+1}, q'_{n+1})
            ok, qdd1, lam1 = consistent_accelerations(q1, v1, ground_q, n_ext, lam.shape[0], layout, vsize, bsize,
                                                      vec_index, pos, band, vec, blk, ib, fb, tb, tab, consistent, P,
                                                      Ppiv, project and lam.shape[0] > 0, td, tdd, rates)
            if not ok:
                return k, SINGULAR_CONSISTENT, x, norm, chk, q1, key
        else:
            qdd1, lam1 = x[:n], x[n:]
        t = t + h
        T[k] = t
        Q[k, :] = q1
        V[k, :] = v1
        QDD[k, :] = qdd1
        A[k, :] = a1
        LAM[k, :] = lam1
        q, v, qdd, a, lam = Q[k], V[k], QDD[k], A[k], LAM[k]
    return count, CONVERGED, np.empty(0), 0.0, np.empty(0), np.empty(0), key
