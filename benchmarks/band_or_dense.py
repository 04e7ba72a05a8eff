"""Dense against banded storage of the Newton matrix, over sizes and half-bands
(docs/performance.md, "Linear solvers": the storage rule ``linalg.banded_storage``).

    python benchmarks/band_or_dense.py [--rows]      # --rows: also the benchmark rows' bands
    python benchmarks/band_or_dense.py --alternate ROW [ROUNDS]   # the old and new rule on a row

Per size N and half-band k (a matrix with every entry of |i − j| ≤ k filled, diagonally
dominant, so no row interchange widens the band beyond LAPACK's kl fill), the cost of one
Newton iteration's linear algebra — the block entries scattered into the storage, the LU
and one solve — in µs, minimum over 7 alternating rounds of 200 repeats each:

* Python: dense = ``np.bincount`` into N × N (system.py ``_scatter_matrix``) + LAPACK
  ``dgetrf``/``dgetrs`` (linalg ``_Dense``); banded = ``np.bincount`` into the nonzeros +
  linalg ``_Banded`` (band array, ``dgbtrf``/``dgbtrs``).
* compiled: kernels/assembly.py ``_matrix`` / ``_factor`` / ``_solve`` with band empty
  (dense) or [kl, ku, p] (banded), looped inside one compiled call.
"""
from __future__ import annotations

import sys
import time

import numpy as np
import scipy.sparse as sp
from numba import njit

from flexmbd import linalg
from flexmbd.kernels import assembly as ka

SIZES = (24, 41, 60, 80, 108, 150, 200)
HALF_BANDS = (3, 6, 11, 17, 25, 40)
ROUNDS, REPEATS = 7, 200


@njit(cache=True)
def _compiled_loop(blk, pos, N, band, b, reps):
    ld = N if band.shape[0] == 0 else 2 * band[0] + band[1] + 1
    LU = np.zeros((N, ld))
    piv = np.zeros(N, dtype=np.int64)
    x = b
    for _ in range(reps):
        LU[:, :] = ka._matrix(blk, pos, N, band)
        ka._factor(LU, piv, band)
        x = ka._solve(LU, piv, b, band)
    return x


def _case(N, k):
    rows, cols = [], []
    for i in range(N):
        for j in range(max(0, i - k), min(N, i + k + 1)):
            rows.append(i)
            cols.append(j)
    rows, cols = np.array(rows), np.array(cols)
    rng = np.random.default_rng(N * 100 + k)
    vals = rng.uniform(-1, 1, rows.size) + np.where(rows == cols, 4.0 * k + 4.0, 0.0)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(N, N))
    A.sort_indices()
    return A


def _python(A, reps):
    N = A.shape[0]
    keys = np.repeat(np.arange(N), np.diff(A.indptr)) * N + A.indices
    dense_pos = np.append(keys, N * N)
    sparse_pos = np.arange(A.nnz + 1)
    data = np.append(A.data, 0.0)
    band = linalg._Banded(A)
    b = np.ones(N)
    B = A.copy()

    def dense():
        t0 = time.perf_counter()
        for _ in range(reps):
            M = np.bincount(dense_pos, weights=data, minlength=N * N + 1)[: N * N].reshape(N, N)
            d = linalg._Dense()
            d.factor(M)
            x = d.solve(b)
        return (time.perf_counter() - t0) / reps, x

    def banded():
        t0 = time.perf_counter()
        for _ in range(reps):
            B.data = np.bincount(sparse_pos, weights=data, minlength=A.nnz + 1)[: A.nnz]
            band.factor(B)
            x = band.solve(b)
        return (time.perf_counter() - t0) / reps, x

    return dense, banded, band


def _compiled(A, band, reps):
    N = A.shape[0]
    keys = np.repeat(np.arange(N), np.diff(A.indptr)) * N + A.indices
    blk = A.data.copy()
    # dense: the compiled step factorizes Aᵀ (kernels/assembly.py lu_factor); any order of the
    # entries costs the same
    dpos = keys.astype(np.int64)
    bpos = band.pos.astype(np.int64)
    dband = np.zeros(0, dtype=np.int64)
    bband = np.concatenate(([band.kl, band.ku], band.p)).astype(np.int64)
    b = np.ones(N)

    def run(pos, bd):
        def f():
            t0 = time.perf_counter()
            x = _compiled_loop(blk, pos, N, bd, b, reps)
            return (time.perf_counter() - t0) / reps, x
        return f

    return run(dpos, dband), run(bpos, bband)


def _best(fns):
    best = [np.inf] * len(fns)
    for _ in range(ROUNDS):
        for i, f in enumerate(fns):
            best[i] = min(best[i], f()[0])
    return [1e6 * t for t in best]


def grid():
    print(f"{'N':>4} {'k':>3} {'flops_band':>10} {'N^3/3':>9} | {'py dense':>8} {'py band':>8} {'ratio':>5} | "
          f"{'nb dense':>8} {'nb band':>8} {'ratio':>5}")
    for N in SIZES:
        for k in HALF_BANDS:
            if k >= N // 2:
                continue
            A = _case(N, k)
            pd, pb, band = _python(A, REPEATS)
            cd, cb = _compiled(A, band, REPEATS)
            # same solution from both storages (to rounding)
            assert np.allclose(pd()[1], pb()[1], rtol=1e-10, atol=1e-12)
            assert np.allclose(cd()[1], cb()[1], rtol=1e-10, atol=1e-12)
            tpd, tpb, tcd, tcb = _best([pd, pb, cd, cb])
            print(f"{N:4d} {k:3d} {band.flops:10.0f} {N ** 3 / 3:9.0f} | {tpd:8.1f} {tpb:8.1f} {tpb / tpd:5.2f} | "
                  f"{tcd:8.1f} {tcb:8.1f} {tcb / tcd:5.2f}", flush=True)


def rows():
    """The benchmark rows' Newton-matrix bands and the storage the rule gives them."""
    sys.path.insert(0, ".")
    from benchmarks.models import BENCHMARKS

    for name in ("slider-crank-100", "slider-crank-100-modified", "tensegrity-100", "chain-10", "cantilever-16",
                 "cantilever-64", "p3-model-III"):
        b = BENCHMARKS[name]
        s = b.run(b.build()).system
        pat = s._pattern
        band = linalg._Banded(pat)
        N = pat.shape[0]
        print(f"{name:28s} N={N:4d} nnz={pat.nnz:5d} kl={band.kl:3d} ku={band.ku:3d} flops={band.flops:9.0f} "
              f"N^3/3={N ** 3 / 3:9.0f} dense={s.dense}")


def alternate(name: str, rounds: int = 8) -> None:
    """CPU time (min over ``rounds``) of a benchmark row's timed run with the storage rule
    before this change (dense whenever N ≤ DENSE_LIMIT) and with ``linalg.dense_storage``,
    alternated in one process (the pattern cache emptied before each build)."""
    import warnings

    import flexmbd.system as S

    sys.path.insert(0, ".")
    from benchmarks.models import BENCHMARKS

    warnings.simplefilter("ignore")
    b = BENCHMARKS[name]
    rules = {"dense up to DENSE_LIMIT": lambda p: p.shape[0] <= linalg.DENSE_LIMIT, "dense_storage": linalg.dense_storage}
    best = dict.fromkeys(rules, np.inf)
    try:
        for _ in range(rounds):
            for label, rule in rules.items():
                S.dense_storage = rule
                S._PATTERNS.items.clear()
                b.run(b.build())        # untimed: the pattern's analysis, first calls
                model = b.build()
                t0 = time.process_time()
                b.run(model)
                best[label] = min(best[label], time.process_time() - t0)
    finally:
        S.dense_storage = linalg.dense_storage
    for label, t in best.items():
        print(f"{name} {label}: min CPU {1e3 * t:.2f} ms")


if __name__ == "__main__":
    if "--alternate" in sys.argv:
        i = sys.argv.index("--alternate")
        alternate(sys.argv[i + 1], int(sys.argv[i + 2]) if len(sys.argv) > i + 2 else 8)
    else:
        grid()
        if "--rows" in sys.argv:
            rows()
