"""Slider-crank: the cost of each operation of a Newton iteration measured alone (a
compiled loop repeating it at a state of the run: no Python, no call overhead), against
what a step of the run costs (the compiled time loop's seconds per step) and what the
operations it counted would cost at those prices.

    PYTHONPATH=. python benchmarks/profile_iteration.py [steps h]     # default 100 0.01

Times are the minimum over repeats (µs; short repeats, so that a loaded machine still lends
a whole core to some of them); on a shared machine compare the rows of one run.
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from numba import njit

from flexmbd.examples import slider_crank
from flexmbd.kernels import assembly as k
from flexmbd.solvers.newton import ROUNDING_FLOOR, STAGNATION


@njit
def _evaluate(count, matrix, qe, ve, ae, lam, layout, vsize, bsize, vec, blk, phi, ib, fb, tb, tab, vec_index, n):
    for _ in range(count):
        k.evaluate_all(qe, ve, ae, lam, 1.0, 0.005, 2.5e-5, 1.0, matrix, layout, vsize, bsize, vec, blk, phi,
                       ib, fb, tb, tab)
        F = np.zeros(n + 1)
        k._sum_into(vec, vec_index, F)


@njit
def _scatter(count, blk, pos, N):
    for _ in range(count):
        k._dense_matrix(blk, pos, N)


@njit
def _factorize(count, A, piv):
    for _ in range(count):
        k.lu_factor(A.copy(), piv)


@njit
def _solve(count, LU, piv, b):
    for _ in range(count):
        k.lu_solve(LU, piv, b)


@njit
def _project(count, x, v_base, gp, qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib, fb, tb, tab,
             LU, piv, factored):
    for _ in range(count):
        k._velocity(True, x, v_base, gp, qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib, fb, tb,
                    tab, LU, piv, factored, np.zeros((0, 0)), np.zeros(0, dtype=np.int64), np.zeros(0), layout)


@njit
def _consistent(count, q, v, ground_q, n_ext, m, layout, vsize, bsize, vec_index, pos, band, vec, blk, ib, fb, tb,
                tab, P, Ppiv, kept):
    for _ in range(count):
        k.consistent_accelerations(q, v, ground_q, n_ext, m, layout, vsize, bsize, vec_index, pos, band, vec, blk, ib,
                                   fb, tb, tab, True, P.copy(), Ppiv, kept, np.zeros(0), np.zeros(0), layout)


def _time(fun, *args, count=200, repeat=25):
    fun(3, *args)
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fun(count, *args)
        best = min(best, (time.perf_counter() - t0) / count)
    return 1e6 * best


def main(steps=100, h=0.01):
    steps, h = int(steps), float(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = slider_crank.build(k=2e4, c=1e3)
        run = model.simulate(t_end=steps * h, h=h, multipliers="integrator")
    system, ca = run.system, run.system.compiled
    n, m = system.n, system.m
    N = n + m
    j = len(run.t) // 2
    qe, ve = system.extend(run.q[j]), system.extend_velocity(run.v[j])
    ae, lam, phi = system.extend_velocity(run.qdd[j]), run.lam[j].copy(), np.empty(m)
    args = (qe, ve, ae, lam, ca.layout, ca.vsize, ca.bsize, ca.vec, ca.blk, phi, *ca.arrays(0.0), ca.vec_index, n)
    cost = {"residual": _time(_evaluate, False, *args), "matrix": _time(_evaluate, True, *args)}
    cost["scatter"] = _time(_scatter, ca.blk, ca.pos, N)
    A = k._dense_matrix(ca.blk, ca.pos, N)
    piv = np.zeros(N, dtype=np.int64)
    cost["factorization"] = _time(_factorize, A, piv)
    LU = A.copy()
    k.lu_factor(LU, piv)
    cost["solve"] = _time(_solve, LU, piv, np.ones(N))
    ve2, ae2 = np.zeros(system.n_ext), np.zeros(system.n_ext)
    dense = np.zeros(0, dtype=np.int64)      # the dense storage (kernels/assembly.py ``_matrix``)
    pargs = (run.qdd[j].copy(), run.v[j].copy(), 0.0, qe.copy(), ve2, ae2, n, m, ca.layout, ca.vsize, ca.bsize, ca.pos,
             dense, ca.vec, ca.blk, phi, *ca.arrays(0.0))
    # the Newton LU at hand or not: below k.PROJECTION_LU_LIMIT unknowns both factorize the
    # projection matrix (kernels/assembly.py ``_projection_factorized``), above it the first refines
    cost["projection"] = _time(_project, *pargs, LU, piv, True)
    cost["projection (no Newton LU)"] = _time(_project, *pargs, LU, piv, False)
    cargs = (run.q[j], run.v[j], ca.ground_q, ca.n_ext, m, ca.layout, ca.vsize, ca.bsize, ca.vec_index, ca.pos, dense,
             ca.vec, ca.blk, *ca.arrays(0.0))
    P = k._projection_matrix(qe.copy(), ve2, ae2, n, m, ca.layout, ca.vsize, ca.bsize, ca.pos, dense, ca.vec, ca.blk,
                             phi, *ca.arrays(0.0), True)
    Ppiv = np.zeros(N, dtype=np.int64)
    cost["consistent q'', λ"] = _time(_consistent, *cargs, P, Ppiv, False)
    k.lu_factor(P, Ppiv)    # the projection's factorization at the same q (kernels/assembly.py ``_velocity``)
    cost["consistent (projection's LU)"] = _time(_consistent, *cargs, P, Ppiv, True)
    print(f"slider-crank, {N} unknowns, at t = {run.t[j]:.3g} s of a {steps}-step run (h = {h:g} s)")
    print("\none operation alone (µs):")
    for key, value in cost.items():
        print(f"  {key:24s} {value:7.1f}")
    print("\nsteps of the run (µs per step; predicted: its counts × the prices above — a refresh is a matrix, its "
          "scatter and a factorization; every step a projection)")
    print(f"  {'policy':12s} {'multipliers':11s} {'it.':>5s} {'res.':>5s} {'fact.':>5s} {'measured':>9s} "
          f"{'predicted':>9s}")
    for refresh in ("newton", "step", "contraction"):
        for multipliers in ("integrator", "consistent"):
            best, res = np.inf, None
            for _ in range(9):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = slider_crank.build(k=2e4, c=1e3).simulate(t_end=steps * h, h=h, refresh=refresh,
                                                                    multipliers=multipliers)
                best = min(best, res.newton.compiled_seconds)
            nw = res.newton
            residuals = nw.residual_evaluations - nw.factorizations     # evaluations without the matrix
            predicted = (residuals * cost["residual"]
                         + nw.factorizations * (cost["matrix"] + cost["scatter"] + cost["factorization"])
                         + (nw.iterations + residuals) * cost["solve"]       # corrections and error estimates
                         + steps * cost["projection"]
                         + (steps * cost["consistent (projection's LU)"] if multipliers == "consistent" else 0))
            print(f"  {refresh:12s} {multipliers:11s} {nw.iterations / steps:5.2f} {nw.residual_evaluations / steps:5.2f} "
                  f"{nw.factorizations / steps:5.2f} {1e6 * best / steps:9.1f} {predicted / steps:9.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
