"""Timings of the linear solvers on the benchmarks' Newton matrices (docs/performance.md,
"Linear solvers").

    python -m benchmarks.linear_solvers --dump DIR [NAMES]   # capture one Newton matrix per benchmark
    python -m benchmarks.linear_solvers --grids DIR                   # + synthetic wide-band matrices
    python -m benchmarks.linear_solvers DIR [NAMES] [--methods auto,banded,...]   # time them

A captured matrix is the sixth matrix the benchmark factorizes (a Newton matrix of its
first steps; systems stored dense by linalg.dense_storage are made to assemble sparse for this).
Per matrix and method: "first" = analysis of the pattern + factorization + one solve (a
new LinearSolver), "numeric" = factorization + one solve of a matrix with the same pattern
and other values (what every Newton iteration costs), "solve" = one back-substitution;
each the minimum over repeats.  Also SuperLU with its other orderings, and PARDISO
(pypardiso, not a flexmbd method) when installed: phase 12 + 33, and 22 + 33 (numeric
factorization reusing the analysis).  The backward error is ‖b − A x‖∞ / (‖A‖∞ ‖x‖∞).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

NAMES = ["slider-crank-100", "tensegrity-100", "cantilever-16", "chain-10", "p3-model-III", "p3-model-II-300",
         "cantilever-64", "chain-100", "cantilever-256", "chain-1000"]


def dump(folder, names):
    import flexmbd.linalg
    import flexmbd.system

    from .models import BENCHMARKS

    flexmbd.system.dense_storage = lambda pattern: False  # every system assembles CSR
    folder.mkdir(parents=True, exist_ok=True)

    class Enough(Exception):
        pass

    original = flexmbd.linalg.LinearSolver.factorize
    for name in names:
        seen = []

        def factorize(self, A):
            seen.append(A)
            if len(seen) == 6:
                raise Enough
            return original(self, A)

        flexmbd.linalg.LinearSolver.factorize = factorize
        try:
            b = BENCHMARKS[name]
            b.run(b.build())
        except Enough:
            pass
        finally:
            flexmbd.linalg.LinearSolver.factorize = original
        A = sp.csr_matrix(seen[-1])
        sp.save_npz(folder / f"{name}.npz", A)
        print(f"{name}: n = {A.shape[0]}, nnz = {A.nnz}", flush=True)


def grid(m, seed=0):
    """A saddle-point matrix of an m × m grid of 6-unknown nodes, each coupled to its four
    neighbours by a full unsymmetric block, every fourth node held in 3 directions by
    constraint rows (zero diagonal block).  RCM leaves a band of half-width ≈ 6 m + 6 (a
    net, not a chain): the matrices that decide when 'auto' leaves the banded LU."""
    rng = np.random.default_rng(seed)
    s, nodes = 6, m * m
    n = s * nodes
    pairs = [(i, i) for i in range(nodes)]
    for a in range(m):
        for b in range(m):
            i = a * m + b
            if a + 1 < m:
                pairs += [(i, i + m), (i + m, i)]
            if b + 1 < m:
                pairs += [(i, i + 1), (i + 1, i)]
    i, j = np.array(pairs).T
    k = np.arange(s)
    rows = (s * i[:, None, None] + k[None, :, None] + 0 * k[None, None, :]).ravel()
    cols = (s * j[:, None, None] + 0 * k[None, :, None] + k[None, None, :]).ravel()
    K = sp.csr_matrix((rng.standard_normal(rows.size), (rows, cols)), shape=(n, n)) + 10.0 * s * sp.eye(n)
    held = np.arange(0, nodes, 4)
    mc = 3 * held.size
    G = sp.csr_matrix((rng.standard_normal(mc) + 2.0, (np.arange(mc), (s * held[:, None] + np.arange(3)).ravel())),
                      shape=(mc, n))
    return sp.bmat([[K, G.T], [G, None]], format="csr")


GRIDS = (6, 10, 16, 24, 32)


def best(f, budget=0.3, most=500):
    t, start, k = np.inf, time.perf_counter(), 0
    while k < 3 or (time.perf_counter() - start < budget and k < most):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
        k += 1
    return t


def backward_error(A, x, b):
    return np.linalg.norm(b - A @ x, np.inf) / (abs(A).sum(axis=1).max() * np.linalg.norm(x, np.inf))


def time_method(make, A, A2, b):
    """(first, numeric, solve) in ms and the backward error; make() -> object with factorize/solve."""
    s = make()
    s.factorize(A)
    x = s.solve(b)
    err = backward_error(A, x, b)
    first = best(lambda: (lambda t: (t.factorize(A), t.solve(b)))(make()))
    pair, k = (A, A2), [0]

    def numeric():
        k[0] ^= 1
        s.factorize(pair[k[0]])
        s.solve(b)

    num = best(numeric)
    s.factorize(A)
    return 1e3 * first, 1e3 * num, 1e3 * best(lambda: s.solve(b)), err, getattr(s, "used", None)


class _SuperLUOrdering:
    def __init__(self, spec):
        self.spec = spec

    def factorize(self, A):
        self.lu = spla.splu(A.tocsc(), permc_spec=self.spec)

    def solve(self, b):
        return self.lu.solve(b)


class _Pardiso:
    """pypardiso with phase 12 (analysis + numeric) the first time and, with reuse, 22 after."""

    handle = None  # one PARDISO handle (its first creation costs ~0.2 s); phase 12 starts afresh

    def __init__(self, reuse):
        import pypardiso

        if _Pardiso.handle is None:
            _Pardiso.handle = pypardiso.PyPardisoSolver()
        self.s, self.reuse, self.fresh = _Pardiso.handle, reuse, True

    def factorize(self, A):
        self.s.set_phase(22 if self.reuse and not self.fresh else 12)
        self.fresh, self.A = False, A
        self.s._call_pardiso(A, np.zeros(A.shape[0]))

    def solve(self, b):
        self.s.set_phase(33)
        return self.s._call_pardiso(self.A, b)


def measure(folder, names, methods):
    from flexmbd import linalg

    extra = {"superlu MMD_AT_PLUS_A": lambda: _SuperLUOrdering("MMD_AT_PLUS_A"),
             "superlu NATURAL": lambda: _SuperLUOrdering("NATURAL")}
    try:
        import pypardiso  # noqa: F401

        extra.update({"pardiso 12+33": lambda: _Pardiso(False), "pardiso 22+33": lambda: _Pardiso(True)})
    except ImportError:
        pass
    rng = np.random.default_rng(0)
    print("| matrix | n | nnz | method | first [ms] | numeric [ms] | solve [ms] | backward error |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for name in names:
        A = sp.load_npz(folder / f"{name}.npz").tocsr()
        n = A.shape[0]
        A2 = A.copy()
        A2.data = A.data * (1.0 + 0.01 * rng.standard_normal(A.nnz))
        b = A @ rng.standard_normal(n)
        for m in methods:
            if m in ("klu", "umfpack") and not linalg.kvxopt_available():
                continue
            if m in extra:
                make = extra[m]
            elif m in linalg.METHODS:
                make = (lambda m: lambda: linalg.LinearSolver(m))(m)
            else:
                continue
            if n > 3000 and m in ("dense", "superlu MMD_AT_PLUS_A", "superlu NATURAL"):
                continue  # seconds to minutes each
            first, num, sol, err, used = time_method(make, A, A2, b)
            label = f"{m} → {used}" if m == "auto" else m
            print(f"| {name} | {n} | {A.nnz} | {label} | {first:.3f} | {num:.3f} | {sol:.3f} | {err:.0e} |",
                  flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.linear_solvers", description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path)
    p.add_argument("names", nargs="?", default=",".join(NAMES), help="comma-separated benchmark names")
    p.add_argument("--dump", action="store_true", help="capture the matrices into FOLDER")
    p.add_argument("--grids", action="store_true", help="write the synthetic grid-M matrices into FOLDER")
    p.add_argument("--methods", default="auto,dense,banded,superlu,klu,umfpack,superlu MMD_AT_PLUS_A,"
                   "superlu NATURAL,pardiso 12+33,pardiso 22+33")
    a = p.parse_args(argv)
    names = a.names.split(",")
    if a.grids:
        a.folder.mkdir(parents=True, exist_ok=True)
        for m in GRIDS:
            sp.save_npz(a.folder / f"grid-{m}.npz", grid(m))
        print("names:", ",".join(f"grid-{m}" for m in GRIDS))
    elif a.dump:
        dump(a.folder, names)
    else:
        measure(a.folder, names, a.methods.split(","))


if __name__ == "__main__":
    sys.exit(main())
