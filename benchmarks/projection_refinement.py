"""Slider-crank-100-modified: does the velocity projection's refinement with the Newton
factorization (kernels/assembly.py ``_velocity``, ``_refine``) work as well with a matrix
kept across steps (``refresh='contraction'``) as with one made in the step (``'step'``)?
Prints, at a few states of each run, the spectral radius of I − B⁻¹A (B the Newton matrix
at hand, A the projection matrix [M Φ_qᵀ; Φ_q 0] at q_{n+1}: the refinement's contraction
factor) and the sweeps a Python replica of ``_refine`` needs to its rounding-level stop.
(Since 2026-11-28 afternoon, dense systems of up to ``PROJECTION_LU_LIMIT`` unknowns, the
slider-crank's 41 included, factorize the projection matrix instead: benchmarks/projection_lu.py.)

    PYTHONPATH=. python benchmarks/projection_refinement.py
"""
import warnings, numpy as np
warnings.simplefilter("ignore")
from benchmarks.models import BENCHMARKS
from flexmbd.kernels import assembly as k
import flexmbd.solvers.dynamics as dyn
cap = []
orig = dyn.CompiledNewton.for_system
def grab(*a, **kw):
    obj = orig(*a, **kw); cap.append(obj); return obj
dyn.CompiledNewton.for_system = staticmethod(grab) if isinstance(dyn.CompiledNewton.__dict__['for_system'], staticmethod) else classmethod(lambda cls, *a, **kw: grab(*a, **kw))
b = BENCHMARKS["slider-crank-100-modified"]
for refresh in ("step", "contraction"):
    out = []
    for nsteps in (5, 20, 40, 60, 80, 100):
        cap.clear()
        r = b.build().simulate(t_end=nsteps*b.h, h=b.h, multipliers="integrator", refresh=refresh)
        cn = cap[-1]; sysm = r.system; ca = sysm.compiled
        n, mm = sysm.n, sysm.m; N = n+mm
        qe = sysm.extend(r.q[-1]); ve = np.zeros(sysm.n_ext); ae = np.zeros(sysm.n_ext); phi = np.empty(mm)
        A = k._projection_matrix(qe, ve, ae, n, mm, ca.layout, ca.vsize, ca.bsize, ca.pos, np.zeros(0, dtype=np.int64), ca.vec, ca.blk, phi, *ca.arrays(0.0), True)
        # B^-1 A via the kept LU
        BinvA = np.column_stack([k.lu_solve(cn.LU, cn.piv, A[:, j].copy()) for j in range(N)])
        rho = max(abs(np.linalg.eigvals(np.eye(N) - BinvA)))
        out.append(f"{nsteps}: {rho:.3g}")
    print(refresh, "spectral radius of I - B^-1 A (refinement contraction; > 0.5 falls back to own LU):", ", ".join(out))
print("refinement sweeps to the rounding stop (python replica of kernels/assembly.py _refine):")
for refresh in ("step", "contraction"):
    out = []
    for nsteps in (5, 20, 40, 60, 80, 100):
        cap.clear()
        r = b.build().simulate(t_end=nsteps*b.h, h=b.h, multipliers="integrator", refresh=refresh, project_velocities=False)
        cn = cap[-1]; sysm = r.system; ca = sysm.compiled
        n, mm = sysm.n, sysm.m; N = n+mm
        qe = sysm.extend(r.q[-1]); ve = np.zeros(sysm.n_ext); ae = np.zeros(sysm.n_ext); phi = np.empty(mm)
        A = k._projection_matrix(qe, ve, ae, n, mm, ca.layout, ca.vsize, ca.bsize, ca.pos, np.zeros(0, dtype=np.int64), ca.vec, ca.blk, phi, *ca.arrays(0.0), True)
        v1 = r.v[-1]; rhs = np.zeros(N); rhs[n:] = -(A[n:, :n] @ v1)
        z = k.lu_solve(cn.LU, cn.piv, rhs.copy()); scale = abs(v1).max(); prev = np.inf; sweeps = 0; ok = False
        for _ in range(k.REFINEMENTS):
            d = k.lu_solve(cn.LU, cn.piv, rhs - A @ z); z = z + d; sweeps += 1
            size = abs(d[:n]).max()
            if size <= 4 * 2.220446049250313e-16 * scale: ok = True; break
            if size > 0.5 * prev: break
            prev = size
        out.append(f"{nsteps}: {sweeps}{'' if ok else ' (fails: own LU)'} (|Φ_q v|/|v| {abs(rhs).max()/scale:.1e})")
    print(refresh, ", ".join(out))
