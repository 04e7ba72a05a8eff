"""Banded Newton matrices in compiled code: kernels/banded.py (SciPy's LAPACK ``dgbtrf`` /
``dgbtrs`` called from Numba) against the Python path's banded LU, linalg.grouped_order's
band against plain reverse Cuthill–McKee, and the compiled step loop of a chain whose
Newton matrix is banded against the per-step and the Python (NewtonSolver) paths."""
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from flexmbd import linalg
from flexmbd.kernels import AVAILABLE
from flexmbd.solvers import dynamics

pytestmark = [pytest.mark.skipif(not AVAILABLE, reason="Numba not available (FLEXMBD_NUMBA=0)"),
              pytest.mark.filterwarnings("ignore::flexmbd.system.RedundantConstraintWarning")]

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
from benchmarks.models import chain  # noqa: E402
from test_linalg import saddle_point  # noqa: E402


def _band_array(plan, A):
    """A (CSR, the plan's pattern) in the plan's band storage, as kernels/banded.py keeps it."""
    ab = np.zeros(plan.shape)
    ab.ravel()[plan.pos] = A.data
    return ab


def _descriptor(plan):
    return np.concatenate(([plan.kl, plan.ku], plan.p)).astype(np.int64)


@pytest.mark.parametrize("seed", [3, 4])
def test_compiled_banded_lu_is_lapacks(seed):
    """The compiled factorization and solve are LAPACK's, from the library the Python path
    calls: the same factors, row interchanges and solution to the last bit, on a saddle-point
    matrix that needs pivoting (zero diagonal block)."""
    from flexmbd.kernels import banded as kb

    A = saddle_point(n=300, m=40, seed=seed)
    ref = linalg._Banded(A)
    ref.factor(A)
    plan = linalg._Banded(A)
    ab, piv = _band_array(plan, A), np.zeros(A.shape[0], dtype=np.int64)
    assert kb.factor(ab, piv, plan.kl, plan.ku)
    assert np.array_equal(ab, ref.lu.T) and np.array_equal(piv, ref.piv + 1)
    assert np.any(piv != np.arange(1, A.shape[0] + 1))     # rows were interchanged
    b = np.random.default_rng(seed).standard_normal(A.shape[0])
    x = kb.solve(ab, piv, _descriptor(plan), b)
    assert np.array_equal(x, ref.solve(b))
    assert np.linalg.norm(A @ x - b, np.inf) < 1e3 * np.finfo(float).eps * abs(A).sum(axis=1).max() * np.abs(x).max()


def test_compiled_banded_lu_reports_a_singular_matrix():
    from flexmbd.kernels import banded as kb

    A = saddle_point(n=120, m=20, seed=5).tolil()
    A[:, 7] = 0.0           # a zero column: exactly singular
    A = A.tocsr()
    A.eliminate_zeros()
    plan = linalg._Banded(A)
    ab = _band_array(plan, A)
    assert not kb.factor(ab, np.zeros(A.shape[0], dtype=np.int64), plan.kl, plan.ku)


def test_band_product_is_the_matrix_product():
    from flexmbd.kernels import banded as kb

    A = saddle_point(n=180, m=30, seed=6)
    plan = linalg._Banded(A)
    z = np.random.default_rng(6).standard_normal(A.shape[0])
    y = kb.matvec(_band_array(plan, A), _descriptor(plan), z)
    assert np.allclose(y, A @ z, rtol=0, atol=1e-13 * np.abs(A @ z).max())


def test_grouped_order_narrows_a_chains_band():
    """Bodies' coordinates kept together and each joint's equations beside them: chain-30's
    Newton matrix gets a narrower band than reverse Cuthill–McKee of the unknowns gives."""
    system = chain(30).simulate(t_end=1e-3, h=1e-3).system
    A = system._pattern
    S = sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    S = (S + S.T).tocsr()
    p = linalg.grouped_order(S)
    assert np.array_equal(np.sort(p), np.arange(A.shape[0]))
    kl, ku, _, _ = linalg._band(A, p)
    kl0, ku0, _, _ = linalg._band(A, reverse_cuthill_mckee(S, symmetric_mode=True).astype(np.intp))
    assert kl + ku < kl0 + ku0
    # 7 coordinates and 4 equations a bar: one bar and its neighbours' couplings within the band
    assert max(kl, ku) <= 2 * 11


def _run(python, per_step=False, n=20, **opts):
    with pytest.MonkeyPatch.context() as mp:
        if python:
            mp.setattr(dynamics.CompiledNewton, "reason", staticmethod(lambda *a: "Python for the comparison"))
        if per_step:
            mp.setattr(dynamics, "loop_reason", lambda *a: "per step for the comparison")
        return chain(n).simulate(t_end=0.08, h=1e-3, **opts)


@pytest.mark.parametrize("refresh", ["newton", "step", "contraction"])
@pytest.mark.parametrize("multipliers", ["consistent", "integrator"])
def test_a_banded_chain_runs_compiled_as_on_the_other_paths(refresh, multipliers):
    """chain-20 (220 unknowns: sparse, factorized banded) runs in the compiled loop.  With
    the integrator's multipliers its blocks equal the compiled step made per step to the
    last bit; with consistent ones (solved in the loop by refinement with the Newton LU,
    per step by NumPy) they agree to rounding, as they do with the Python Newton solver
    (the same LAPACK band LU, the matrix assembled through CSR)."""
    fast = _run(False, refresh=refresh, multipliers=multipliers)
    assert fast.stats["time_loop"] == "compiled" and fast.success
    step = _run(False, per_step=True, refresh=refresh, multipliers=multipliers)
    assert step.stats["time_loop"].startswith("per step") and step.success
    if multipliers == "integrator":
        for k in ("q", "v", "a", "qdd", "lam"):
            assert np.array_equal(getattr(fast, k), getattr(step, k)), k
    ref = _run(True, refresh=refresh, multipliers=multipliers)
    assert "not compiled" in ref.stats["time_loop"] and ref.success
    for other in (step, ref):
        for k in ("iterations", "refreshes", "factorizations"):
            assert getattr(fast.newton, k) == getattr(other.newton, k), k
        # positions to rounding (the Newton tolerance is far above: the iterates agree)
        assert np.max(np.abs(fast.q - other.q)) < 1e-13
        assert np.max(np.abs(fast.v - other.v)) < 1e-9 * np.max(np.abs(other.v))
        # accelerations and multipliers: that rounding times the stiff joints' rates (torsion
        # 1.4 N m/rad and damping on the bars' axial inertia 5e-6 kg m²: ω² ≈ 3e5 s⁻², c/I ≈
        # 2.4e3 s⁻¹) gives ≈ 1e-7 of q'' ≈ 60; the Python path with the integrator's
        # multipliers (no refinement anywhere) differs by as much
        for k in ("qdd", "lam"):
            a, b = getattr(fast, k), getattr(other, k)
            assert np.max(np.abs(a - b)) < 1e-8 * np.max(np.abs(b)), k


def test_the_storage_follows_the_band_not_the_size():
    """linalg.dense_storage: a narrow band takes the banded LU below DENSE_LIMIT unknowns
    too (chain-10: 110 unknowns, half-band 17: 0.15 of dense LU's flops); a small, nearly
    full pattern stays dense; above DENSE_LIMIT nothing is dense."""
    narrow = saddle_point(n=120, m=0, seed=21)   # a chain of 6-blocks: half-band 11
    assert narrow.shape[0] <= linalg.DENSE_LIMIT and not linalg.dense_storage(narrow)
    full = sp.csr_matrix(np.random.default_rng(22).standard_normal((30, 30)))
    assert linalg.dense_storage(full)
    assert not linalg.dense_storage(saddle_point(n=600, m=0, seed=23))
    # the row-length bound that spares the analysis agrees with auto's choice
    for k in (2, 6, 12, 20, 30):
        B = sp.diags([np.ones(60 - abs(d)) * (1.0 + abs(d)) for d in range(-k, k + 1)], list(range(-k, k + 1)),
                     format="csr")
        assert linalg.dense_storage(B) == (not isinstance(linalg._choose(B), linalg._Banded)), k
    # the benchmark chain-10 (110 unknowns) is stored sparse and factorized banded
    system = chain(10).simulate(t_end=1e-3, h=1e-3).system
    assert system.n + system.m <= linalg.DENSE_LIMIT and not system.dense
    assert linalg.band_plan(system._pattern, "auto") is not None


@pytest.mark.skipif(not AVAILABLE, reason="Numba not available (FLEXMBD_NUMBA=0)")
@pytest.mark.parametrize("method", ["auto", "dense"])
def test_a_small_narrow_chain_runs_compiled_with_either_storage(method):
    """chain-10 (110 unknowns, stored sparse by the band rule): 'auto' gives the banded
    compiled step, linear_solver = dense the dense one; either way the compiled loop's
    blocks equal the compiled step made per step to the last bit, and the Python Newton
    solver with the same method agrees to rounding."""
    opts = dict(n=10, linear_solver=method, multipliers="integrator")
    fast = _run(False, **opts)
    assert fast.stats["time_loop"] == "compiled" and fast.success
    step = _run(False, per_step=True, **opts)
    for k in ("q", "v", "a", "qdd", "lam"):
        assert np.array_equal(getattr(fast, k), getattr(step, k)), k
    ref = _run(True, **opts)
    assert "not compiled" in ref.stats["time_loop"] and ref.success
    for k in ("iterations", "factorizations"):
        assert getattr(fast.newton, k) == getattr(ref.newton, k), k
    assert np.max(np.abs(fast.q - ref.q)) < 1e-13
    assert np.max(np.abs(fast.v - ref.v)) < 1e-9 * np.max(np.abs(ref.v))
