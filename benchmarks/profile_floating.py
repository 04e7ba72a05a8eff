"""Cost of one evaluation of the floating-frame runner rows (docs/performance.md,
"Floating-frame bodies against Exudyn's ObjectFFRFreducedOrder"):

    python -m benchmarks.profile_floating            # fe-modal-body ffr-spin-up ffr-chain-10
    python -m benchmarks.profile_floating ffr-spin-up

For each row's model at its initial state: the whole compiled evaluation (``evaluate_all``)
with and without the Newton matrix, each floating-frame group's kernel alone, and the sum
of the blocks into the dense matrix, in µs (mean of 2000 calls after one warm-up call).
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np


def _mean_us(f, calls=2000):
    f()
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return 1e6 * (time.perf_counter() - t0) / calls


def profile(name: str) -> dict:
    from flexmbd.kernels import assembly as k
    from flexmbd.kernels import floating_frame as ff

    from .models import BENCHMARKS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = BENCHMARKS[name].build().freeze()
    ca = s.compiled
    qe, ve, ae = s.extend(s.q0), s.extend_velocity(np.full(s.n, 0.01)), s.extend_velocity(np.full(s.n, 0.02))
    lam, phi = np.ones(s.m), np.empty(s.m)
    out = {}
    for matrix in (True, False):
        out["evaluate_all, matrix" if matrix else "evaluate_all, residual"] = _mean_us(
            lambda: k.evaluate_all(qe, ve, ae, lam, 1.0, 0.1, 0.01, 1.0, matrix, ca.layout, ca.vsize, ca.bsize,
                                   ca.vec, ca.blk, phi, *ca.arrays(0.1)))
    for g in s.body_groups + s.constraint_groups:
        cs = g.compiled_slot()
        A = cs.arrays
        if cs.name.startswith("modal_inertia"):
            N, nv = A[0].shape
            F, B = np.empty((N, nv)), np.empty((N, nv, nv))
            for matrix in (True, False):
                out[f"inertia ({N} bodies), {'matrix' if matrix else 'residual'}"] = _mean_us(
                    lambda: ff.inertia(*A, qe, ve, ae, 1.0, 0.1, 0.01, matrix, F, B))
        elif cs.name.startswith("modal_dots"):
            w, sv = cs.values(0.1)
            n, m = len(w), A[0].shape[1]
            Jq, H, ph = np.empty((n, m)), np.empty((n, m, m)), np.empty(n)
            for matrix in (True, False):
                out[f"joints ({n} equations), {'Hessians' if matrix else 'no Hessians'}"] = _mean_us(
                    lambda: ff.dots(*A, w, sv, qe, lam[:n], matrix, ph, Jq, H))
    N = s.n + s.m
    if s.dense:
        out[f"blocks into the {N} × {N} matrix ({ca.blk.size} entries)"] = _mean_us(
            lambda: k._dense_matrix(ca.blk, ca.pos, N))
    return out


def main(argv=None):
    names = (argv if argv is not None else sys.argv[1:]) or ["fe-modal-body", "ffr-spin-up", "ffr-chain-10"]
    for name in names:
        print(name)
        for what, us in profile(name).items():
            print(f"  {what:48s} {us:8.1f} µs")


if __name__ == "__main__":
    main()
