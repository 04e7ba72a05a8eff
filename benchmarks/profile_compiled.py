"""Where the time of a compiled evaluation goes (slider-crank, or P3's double pendulum of
ANCF cables): each piece called many times from a compiled loop, so that no Python call
overhead is counted.

    python benchmarks/profile_compiled.py [cable-pendulum]
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from numba import njit

from flexmbd.examples import slider_crank
from flexmbd.kernels import assembly as k


@njit
def _evaluations(count, matrix, qe, ve, ae, lam, layout, vsize, bsize, vec, blk, phi, ib, fb, tb, tab):
    for _ in range(count):
        k.evaluate_all(qe, ve, ae, lam, 1.0, 0.1, 0.1, 1.0, matrix, layout, vsize, bsize, vec, blk, phi, ib, fb, tb, tab)


@njit
def _scatters(count, vec, vec_index, n, blk, pos, size):
    for _ in range(count):
        k.scatter(vec, vec_index, n, blk, pos, size, True)


@njit
def _factorizations(count, A, piv):
    for _ in range(count):
        k.lu_factor(A.copy(), piv)


def _time(label, fun, *args, count=200, repeat=25):
    """The minimum over short repeats: on a loaded machine some of them still get a core."""
    fun(10, *args)
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fun(count, *args)
        best = min(best, (time.perf_counter() - t0) / count)
    print(f"{label:40s} {best * 1e6:7.1f} µs")


def main(model="slider-crank"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if model == "cable-pendulum":
            from flexmbd.examples import p3_beams

            system = p3_beams.double_pendulum("III", (6, 10), formulation="ancf-cable").model.freeze()
        else:
            system = slider_crank.build(k=2e4, c=1e3).freeze()
    ca = system.compiled
    qe, ve = system.extend(system.q0), system.extend_velocity(system.v0)
    ae, lam, phi = system.extend_velocity(np.zeros(system.n)), np.ones(system.m), np.empty(system.m)
    args = (qe, ve, ae, lam, ca.layout, ca.vsize, ca.bsize, ca.vec, ca.blk, phi, *ca.arrays(0.0))
    _time("evaluation with the Newton matrix", _evaluations, True, *args)
    _time("evaluation, residual only", _evaluations, False, *args)
    empty = ca.layout.copy()
    empty[:, 0] = -1
    _time("evaluation of no slot (the call alone)", _evaluations, True, qe, ve, ae, lam, empty, *args[5:])
    for slot, name in enumerate(k.SLOTS):
        if ca.layout[slot, 0] >= 0:
            only = ca.layout.copy()
            only[:, 0] = -1
            only[slot, 0] = ca.layout[slot, 0]
            _time(f"· {name} (with matrix)", _evaluations, True, qe, ve, ae, lam, only, *args[5:])
            _time(f"· {name} (residual only)", _evaluations, False, qe, ve, ae, lam, only, *args[5:])
    _time("scatter into the dense matrix", _scatters, ca.vec, ca.vec_index, ca.n, ca.blk, ca.pos, ca.size)
    N = system.n + system.m
    A = np.random.default_rng(0).random((N, N)) + N * np.eye(N)
    _time(f"dense LU {N} × {N}", _factorizations, A, np.zeros(N, dtype=np.int64))


if __name__ == "__main__":
    main(*sys.argv[1:])
