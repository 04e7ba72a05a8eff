"""The step's tail outside Newton on the slider-crank rows (kernels/assembly.py ``_velocity``,
``consistent_accelerations``), at the end states of 20-, 50- and 100-step runs with the Newton
LU of their last step: the velocity projection refined with the Newton LU and the
consistent solve refined with it too (which never reaches its stop and factorizes, as
before 2026-11-28 afternoon) against one LAPACK factorization of [M Φ_qᵀ; Φ_q 0] solved
twice (now); then the projection alone, refined against factorized, for two sizes of
Φ_q q' (µs, min over repeats of compiled loops: on a shared machine compare rows of one
run; docs/performance.md, "The projection's own factorization").

    PYTHONPATH=. python benchmarks/projection_lu.py
"""
import time
import warnings

import numpy as np
warnings.simplefilter("ignore")
from numba import njit
from benchmarks.models import BENCHMARKS
from flexmbd.kernels import assembly as k
import flexmbd.solvers.dynamics as dyn
cap = []
orig = dyn.CompiledNewton.__init__
def init(self, *a, **kw):
    orig(self, *a, **kw); cap.append(self)
dyn.CompiledNewton.__init__ = init

@njit(cache=True)
def old_tail(count, A, LU, piv, rp, v1, rc, qdd, band):
    N = A.shape[0]; n = v1.shape[0]
    for _ in range(count):
        z = k._refine(A, LU, piv, rp, v1, n, band)           # projection: refinement
        z2 = k._refine(A, LU, piv, rc, qdd, n, band)          # consistent: refinement (fails)
        if z2.shape[0] != N:
            B = A.copy(); own = np.empty(N, dtype=np.int64)
            k._factor(B, own, band); k._solve(B, own, rc, band)

@njit(cache=True)
def new_tail(count, A, rp, rc, band, P, Ppiv):
    N = A.shape[0]
    for _ in range(count):
        B = A.copy(); own = np.empty(N, dtype=np.int64)      # (the matrix is a fresh array in _velocity)
        k._factor(B, own, band)
        k._solve(B, own, rp, band)
        P[:, :] = B; Ppiv[:] = own
        k._solve(P, Ppiv, rc, band)

@njit(cache=True)
def count_sweeps(A, LU, piv, rp, v1, band):
    return k._refine(A, LU, piv, rp, v1, v1.shape[0], band).shape[0]

def best(f, *a, count=200, repeat=30):
    f(2, *a); b = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter(); f(count, *a); b = min(b, (time.perf_counter() - t0) / count)
    return 1e6 * b

dense = np.zeros(0, dtype=np.int64)
for name in ("slider-crank-100", "slider-crank-100-modified"):
    b = BENCHMARKS[name]
    for nsteps in (20, 50, 100):
        cap.clear()
        r = b.build().simulate(t_end=nsteps*b.h, h=b.h, **b.options)
        cn = cap[-1]; s = r.system; ca = s.compiled; n, m = s.n, s.m; N = n + m
        qe = s.extend(r.q[-1]); phi = np.empty(m)
        A = k._projection_matrix(qe, np.zeros(s.n_ext), np.zeros(s.n_ext), n, m, ca.layout, ca.vsize, ca.bsize, ca.pos, dense, ca.vec, ca.blk, phi, *ca.arrays(0.0), True)
        v1 = r.v[-1] + 1e-6 * np.sin(np.arange(n)) * abs(r.v[-1]).max()   # off the manifold by 1e-6 (as after a step)
        rp = np.r_[np.zeros(n), -(A[n:, :n] @ v1)]
        rc = A @ np.r_[r.qdd[-1], r.lam[-1]]
        P = np.zeros((N, N)); Ppiv = np.zeros(N, dtype=np.int64)
        o = best(old_tail, A, cn.LU, cn.piv, rp, v1, rc, r.qdd[-1].copy(), dense)
        w = best(new_tail, A, rp, rc, dense, P, Ppiv)
        print(f"{name:26s} step {nsteps:3d}: old tail {o:6.1f} us, new tail {w:6.1f} us", flush=True)

@njit(cache=True)
def proj_refine(count, A, LU, piv, rp, v1, band):
    for _ in range(count):
        k._refine(A, LU, piv, rp, v1, v1.shape[0], band)

@njit(cache=True)
def factor_solve(count, A, rp, band):
    N = A.shape[0]
    for _ in range(count):
        B = A.copy(); own = np.empty(N, dtype=np.int64)
        k._factor(B, own, band)
        k._solve(B, own, rp, band)

@njit(cache=True)
def one_solve(count, P, Ppiv, rc, band):
    for _ in range(count):
        k._solve(P, Ppiv, rc, band)

print("projection alone: refined (old) | own LU + solve (new); consistent solve with the projection's LU")
for nsteps in (20, 100):
    b = BENCHMARKS["slider-crank-100"]
    cap.clear()
    r = b.build().simulate(t_end=nsteps*b.h, h=b.h, **b.options)
    cn = cap[-1]; s = r.system; ca = s.compiled; n, m = s.n, s.m; N = n + m
    qe = s.extend(r.q[-1]); phi = np.empty(m)
    A = k._projection_matrix(qe, np.zeros(s.n_ext), np.zeros(s.n_ext), n, m, ca.layout, ca.vsize, ca.bsize, ca.pos, dense, ca.vec, ca.blk, phi, *ca.arrays(0.0), True)
    for off in (1e-7, 1e-5):
        v1 = r.v[-1] + off * np.sin(np.arange(n)) * abs(r.v[-1]).max()
        rp = np.r_[np.zeros(n), -(A[n:, :n] @ v1)]
        ok = count_sweeps(A, cn.LU, cn.piv, rp, v1, dense)
        P = A.copy(); Ppiv = np.zeros(N, dtype=np.int64); k.lu_factor(P, Ppiv)
        print(f"  step {nsteps}, |Φ_q v|/|v| ~ {off:g}: refined {best(proj_refine, A, cn.LU, cn.piv, rp, v1, dense):5.1f} us "
              f"(converged {ok == N}) | own {best(factor_solve, A, rp, dense):5.1f} us | solve {best(one_solve, P, Ppiv, rp, dense):5.1f} us", flush=True)
