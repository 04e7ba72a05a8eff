"""The linear complementarity problem by Lemke's complementary pivoting.

Find z with  w = M z + q,  w ≥ 0,  z ≥ 0,  wᵀ z = 0  (Cottle, Pang & Stone 1992,
"The Linear Complementarity Problem", sec. 4.4).  Lemke's method adds an artificial
variable z₀ with the covering vector d = 1 and pivots complementarily until z₀ leaves the
basis (a solution) or no pivot row exists (a secondary ray: no solution is reachable,
e.g. a Painlevé-type inconsistency of friction).  Ties in the ratio test are broken
lexicographically with the rows of the basis inverse, which rules out cycling on
degenerate problems (Cottle et al., sec. 4.9).

The problems of joint friction have as many unknowns as sliding joints, so a dense
tableau is the right tool.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LCPSolution:
    """z and w = M z + q, or ``z`` None when Lemke's method ended on a ray; ``pivots`` made."""

    z: np.ndarray | None
    w: np.ndarray | None
    pivots: int

    @property
    def solved(self) -> bool:
        return self.z is not None


def lemke(M: np.ndarray, q: np.ndarray, max_pivots: int | None = None) -> LCPSolution:
    """Solve the LCP (M, q) (see the module docstring)."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    q = np.asarray(q, dtype=float).reshape(-1)
    n = len(q)
    if M.shape != (n, n):
        raise ValueError(f"M must be {n}×{n}, got {M.shape}")
    if np.all(q >= 0.0):
        return LCPSolution(np.zeros(n), q.copy(), 0)
    max_pivots = max_pivots or 50 * (n + 1) ** 2
    # tableau columns: w (n), z (n), z0, rhs; rows: basic variables.  B⁻¹ = tableau[:, :n].
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = list(range(n))                       # variable index: w_i = i, z_i = n + i, z0 = 2n
    z0 = 2 * n
    scale = max(1.0, float(np.abs(M).max(initial=0.0)), float(np.abs(q).max()))
    tol = 1e-12 * scale
    row = int(np.argmin(q))
    entering = z0
    for pivots in range(1, max_pivots + 1):
        leaving = basis[row]
        _pivot(T, row, entering)
        basis[row] = entering
        if leaving == z0:
            break
        entering = leaving + n if leaving < n else leaving - n      # the complement
        row = _ratio_test(T, entering, tol)
        if row is None:
            return LCPSolution(None, None, pivots)
    else:
        return LCPSolution(None, None, max_pivots)
    values = np.zeros(2 * n + 1)
    values[basis] = T[:, -1]
    z = np.maximum(values[n:2 * n], 0.0)
    return LCPSolution(z, M @ z + q, pivots)


def _pivot(T: np.ndarray, row: int, col: int) -> None:
    T[row] /= T[row, col]
    others = np.arange(T.shape[0]) != row
    T[others] -= np.outer(T[others, col], T[row])


def _ratio_test(T: np.ndarray, col: int, tol: float) -> int | None:
    """The leaving row: minimum of rhs/column over rows with a positive column entry, ties
    broken lexicographically by (rhs, B⁻¹ row) / column entry."""
    n = T.shape[0]
    c = T[:, col]
    rows = np.flatnonzero(c > tol)
    if rows.size == 0:
        return None
    keys = np.hstack([T[rows, -1:], T[rows, :n]]) / c[rows, None]
    best = rows[0]
    best_key = keys[0]
    for r, key in zip(rows[1:], keys[1:]):
        diff = key - best_key
        nz = np.flatnonzero(np.abs(diff) > 1e-12 * (1.0 + np.abs(best_key)))
        if nz.size and diff[nz[0]] < 0:
            best, best_key = r, key
    return int(best)
