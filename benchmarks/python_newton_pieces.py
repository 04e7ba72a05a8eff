"""CPU time of the pieces of a Newton iteration on the generic (Python) path, for a row
whose nodes have no compiled assembly (SE(3) beams: p3-model-III by default).

    PYTHONPATH=. python benchmarks/python_newton_pieces.py [ROW] [--run N]

Prints µs per call (min over 5 loops of process time) of System.evaluate with the Newton
matrix and the tangent operator, without the matrix, the tangent maps, the state
increment, the scatter into the matrix pattern, the factorization and a solve — at a
state of the row's own run — and, with ``--run N``, the row's whole simulate (CPU
seconds, min of N).  docs/performance.md, "The Python Newton step of SE(3) models".
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def per_call(f, n=400, loops=5):
    """µs per call of f(), min over ``loops`` loops of process time."""
    best = np.inf
    for _ in range(loops):
        t0 = time.process_time()
        for _ in range(n):
            f()
        best = min(best, (time.process_time() - t0) / n)
    return 1e6 * best


def main():
    from flexmbd.linalg import LinearSolver

    from .models import BENCHMARKS

    ap = argparse.ArgumentParser()
    ap.add_argument("row", nargs="?", default="p3-model-III")
    ap.add_argument("--run", type=int, default=0, help="also time the whole simulate N times")
    args = ap.parse_args()
    bench = BENCHMARKS[args.row]
    res = bench.run(bench.build())
    sys_ = res.system
    k = len(res.t) // 2
    q, v, a, lam, t = res.q[k], res.v[k], res.qdd[k], res.lam[k], float(res.t[k])
    dq = 1e-4 * np.ones(sys_.n)     # an increment of the size of a step's
    coeffs = dict(cM=1.0, cD=0.01, cK=1e-6)
    F, Phi, A = sys_.evaluate(q, v, a, lam, t, matrix=True, tangent=dq, **coeffs)
    lin = LinearSolver("auto")
    lin.factorize(A)
    r = np.concatenate((F, Phi))
    data = np.random.default_rng(0).random(len(sys_._pos))
    print(f"{args.row}: {sys_.n + sys_.m} unknowns, time loop {res.time_loop!r}, linear solver {lin.used}")
    rows = [("evaluate, matrix and tangent", lambda: sys_.evaluate(q, v, a, lam, t, matrix=True, tangent=dq, **coeffs)),
            ("evaluate, residual alone", lambda: sys_.evaluate(q, v, a, lam, t, matrix=False, tangent=dq, **coeffs)),
            ("tangent maps", lambda: sys_._tangent_maps(dq)),
            ("increment q ⊕ Δq", lambda: sys_.increment(q, dq)),
            ("scatter into the pattern", lambda: sys_._scatter_matrix(data)),
            ("factorize", lambda: lin.factorize(A)),
            ("solve", lambda: lin.solve(r))]
    for name, f in rows:
        print(f"  {name:32s} {per_call(f):8.1f} µs")
    if args.run:
        times = []
        for _ in range(args.run):
            model = bench.build()
            t0 = time.process_time()
            bench.run(model)
            times.append(time.process_time() - t0)
        print(f"  simulate (CPU s, min of {args.run})  {min(times):8.4f}  (median {np.median(times):.4f})")


if __name__ == "__main__":
    main()
