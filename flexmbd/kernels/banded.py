"""Banded LU with partial pivoting for the compiled Newton step of systems whose Newton
matrix is banded after a renumbering (flexmbd/linalg.py ``_Banded`` makes the analysis:
the permutation and the band): LAPACK's ``dgbtrf``/``dgbtrs`` — the same routines, from
the same library, as the Python path's ``_Banded`` — called from compiled code.

How LAPACK is called from compiled code: kernels/lapack.py.  Measured (docs/performance.md,
"Banded Newton matrices in compiled code"): ``dgbtrf`` of chain-100's Newton matrix 216 µs
against 662 µs for the same algorithm (LAPACK's unblocked ``dgbtf2``) written in Numba — so no LU is written
here.

Storage: the matrix B = P A Pᵀ of the renumbered unknowns in LAPACK's band layout,
kept as its transpose (an N × ld C array = LAPACK's ld × N Fortran array AB,
ld = 2 kl + ku + 1): B[i, j] at ``ab[j, kl + ku + i − j]``; the first kl entries of each
row receive the fill of the row interchanges.  ``piv`` holds LAPACK's (1-based) row
interchanges.

``band`` (the descriptor the kernels receive) = [kl, ku, p_0, …, p_{N−1}]: B's row i is
A's row p_i.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .lapack import dgbtrf as _dgbtrf
from .lapack import dgbtrs as _dgbtrs


@njit(cache=True)
def factor(ab, piv, kl, ku):
    """LAPACK ``dgbtrf`` in place; piv: its row interchanges.  False if the matrix is
    singular (a zero pivot) or a pivot is not finite."""
    N, ld = ab.shape
    ints = np.empty(6, dtype=np.int32)      # N, N, kl, ku, ld, info
    ints[0], ints[1], ints[2], ints[3], ints[4], ints[5] = N, N, kl, ku, ld, 0
    ip = np.empty(N, dtype=np.int32)
    _dgbtrf(ints[0:].ctypes, ints[1:].ctypes, ints[2:].ctypes, ints[3:].ctypes, ab.ctypes, ints[4:].ctypes, ip.ctypes,
            ints[5:].ctypes)
    for i in range(N):
        piv[i] = ip[i]
    if ints[5] != 0:
        return False
    kv = kl + ku
    for j in range(N):
        if not np.isfinite(ab[j, kv]):
            return False
    return True


@njit(cache=True)
def solve(ab, piv, band, b):
    """x of A x = b from :func:`factor`'s LU of B = P A Pᵀ (band = [kl, ku, p...]):
    LAPACK ``dgbtrs``."""
    N, ld = ab.shape
    x = np.empty(N)
    for i in range(N):
        x[i] = b[band[2 + i]]
    ints = np.empty(7, dtype=np.int32)      # N, kl, ku, nrhs, ld, ldb, info
    ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6] = N, band[0], band[1], 1, ld, N, 0
    ip = np.empty(N, dtype=np.int32)
    for i in range(N):
        ip[i] = piv[i]
    trans = np.empty(1, dtype=np.uint8)
    trans[0] = 78       # 'N'
    _dgbtrs(trans.ctypes, ints[0:].ctypes, ints[1:].ctypes, ints[2:].ctypes, ints[3:].ctypes, ab.ctypes,
            ints[4:].ctypes, ip.ctypes, x.ctypes, ints[5:].ctypes, ints[6:].ctypes)
    out = np.empty(N)
    for i in range(N):
        out[band[2 + i]] = x[i]
    return out


@njit(cache=True)
def matvec(ab, band, z):
    """A z for A stored (not factorized) as B = P A Pᵀ in band layout."""
    N = ab.shape[0]
    kl, ku = band[0], band[1]
    kv = kl + ku
    y = np.zeros(N)
    for j in range(N):
        zj = z[band[2 + j]]
        if zj == 0.0:
            continue
        col = ab[j]
        for i in range(max(0, j - ku), min(N - 1, j + kl) + 1):
            y[i] += col[kv + i - j] * zj
    out = np.empty(N)
    for i in range(N):
        out[band[2 + i]] = y[i]
    return out


@njit(cache=True)
def assemble(values, index, N, ld):
    """The band array (N, ld) from block entries: Σ values[k] into its flat position
    index[k] (N·ld: the trash slot of ground rows and columns); zeros skipped."""
    flat = np.zeros(N * ld + 1)
    for k in range(values.shape[0]):
        v = values[k]
        if v != 0.0:
            flat[index[k]] += v
    return flat[:N * ld].reshape((N, ld))
