"""A static equilibrium's Newton iterations in one compiled call.

solvers/static.py ``CompiledStatic`` calls :func:`static_newton` once per load step for a
system whose every group has a compiled slot (kernels/assembly.py ``evaluate_all``) and
whose coordinates are vectors: the same full Newton, convergence test and outcome as
solvers/newton.py ``NewtonSolver.solve`` (policy "newton", ``error_estimate``) on the
static residual of solvers/static.py (c_M = c_D = 0, c_K = 1, q' = q'' = 0, loads scaled
by the load factor), with the Newton matrix dense or banded (kernels/assembly.py
``_matrix``, ``_factor``, ``_solve``: the LUs the compiled dynamic step uses).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .assembly import CONVERGED, MAX_ITER, NOT_FINITE, SINGULAR, ZERO_LENGTH, _factor, _matrix, _solve, _sum_into
from .assembly import evaluate_all

#: a residual norm at or above this has diverged (solvers/newton.py ``_DIVERGED``)
DIVERGED = 1e154


@njit(cache=True)
def _static_residual(vec, vec_index, phi, n, chk):
    """chk = [F; Φ] from the slots' buffers; its 2-norm (inf once diverged or not finite)."""
    F = np.zeros(n + 1)
    _sum_into(vec, vec_index, F)
    norm = 0.0
    for i in range(n):
        chk[i] = F[i]
    for i in range(phi.shape[0]):
        chk[n + i] = phi[i]
    big = 0.0
    for i in range(chk.shape[0]):
        big = max(big, abs(chk[i]))
    if not np.isfinite(big):
        return np.inf
    if big == 0.0:
        return 0.0
    for i in range(chk.shape[0]):     # scaled, as BLAS's nrm2: no overflow before DIVERGED
        norm += (chk[i] / big) ** 2
    norm = big * np.sqrt(norm)
    return norm if norm < DIVERGED else np.inf


@njit(cache=True)
def static_newton(x0, n, load_factor, tol, increment, max_iter, last_iterations, ground_q, n_ext, layout, vsize,
                  bsize, vec_index, pos, band, vec, blk, ib, fb, tb, tab, LU, piv, stats):
    """Newton on the static residual [F; Φ](x) = 0, x = [q; λ], at ``load_factor``.

    F = −s Q_load − Q_int + Φ_qᵀ λ at q' = q'' = 0 and its matrix with c_K = 1
    (solvers/static.py).  Full Newton as solvers/newton.py ``NewtonSolver.solve``:
    ``increment`` False: the residual test ‖[F; Φ]‖₂ < tol, the residual alone at an
    iterate after the first (at the second only when ``last_iterations`` ≠ 1) and the
    matrix only when the iterate is not accepted; True: the increment test on the error
    estimate θ/(1−θ)‖Δx‖₂ < tol (θ the ratio of successive increments), then the residual
    at the accepted iterate must be finite.  A zero residual is converged under either.
    stats += [iterations, refreshes, factorizations, residual evaluations].
    Returns (code, x, residual norm, [F; Φ], iterations): kernels/assembly.py codes
    CONVERGED, NOT_FINITE, MAX_ITER, SINGULAR (norm nan, [F; Φ] nan), ZERO_LENGTH (a
    spring of undefined direction)."""
    N = x0.shape[0]
    m = N - n
    qe = np.empty(n + ground_q.shape[0])
    qe[n:] = ground_q
    ve = np.zeros(n_ext)
    ae = np.zeros(n_ext)
    phi = np.empty(m)
    chk = np.empty(N)
    r = np.empty(N)
    x = x0.copy()
    need = True
    it = 0
    prev_step = np.inf
    while True:
        for i in range(n):
            qe[i] = x[i]
        for attempt in range(2):
            shortest = evaluate_all(qe, ve, ae, x[n:], 0.0, 0.0, 1.0, load_factor, need, layout, vsize, bsize, vec,
                                    blk, phi, ib, fb, tb, tab)
            stats[3] += 1
            if shortest == 0.0:
                return ZERO_LENGTH, x, np.nan, chk, it
            norm = _static_residual(vec, vec_index, phi, n, chk)
            if not np.isfinite(norm):
                return NOT_FINITE, x, norm, chk, it
            if attempt == 1 or (not increment and norm < tol) or norm == 0.0 or it >= max_iter or need:
                break
            need = True     # the residual alone was not enough: the same iterate again, for its matrix
        if (not increment and norm < tol) or norm == 0.0:
            return CONVERGED, x, norm, chk, it
        if it >= max_iter:
            return MAX_ITER, x, norm, chk, it
        LU[:, :] = _matrix(blk, pos, N, band)
        stats[1] += 1
        stats[2] += 1
        if not _factor(LU, piv, band):
            chk[:] = np.nan
            return SINGULAR, x, np.nan, chk, it
        for i in range(N):
            r[i] = -chk[i]
        dx = _solve(LU, piv, r, band)
        size = 0.0
        for i in range(N):
            x[i] += dx[i]
            size += dx[i] * dx[i]
        size = np.sqrt(size)
        it += 1
        stats[0] += 1
        need = increment or (it == 1 and last_iterations != 1)
        if increment:
            theta = size / prev_step if np.isfinite(prev_step) else np.inf
            prev_step = size
            if theta < 1.0:
                size = theta / (1.0 - theta) * size
            if size < tol:
                for i in range(n):
                    qe[i] = x[i]
                shortest = evaluate_all(qe, ve, ae, x[n:], 0.0, 0.0, 1.0, load_factor, not increment, layout,
                                        vsize, bsize, vec, blk, phi, ib, fb, tb, tab)
                if shortest == 0.0:
                    return ZERO_LENGTH, x, np.nan, chk, it
                norm = _static_residual(vec, vec_index, phi, n, chk)
                if np.isfinite(norm):
                    return CONVERGED, x, norm, chk, it
