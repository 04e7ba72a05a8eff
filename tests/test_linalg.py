"""flexmbd.linalg: every linear solver on unsymmetric saddle-point systems."""
import numpy as np
import pytest
import scipy.sparse as sp

from flexmbd import linalg
from flexmbd.linalg import LinearSolver, SingularMatrixError

EPS = np.finfo(float).eps
SCIPY_METHODS = ["auto", "dense", "banded", "superlu"]
OPTIONAL = ["klu", "umfpack"]


def _methods():
    """Every method; the kvxopt ones are skipped where kvxopt is not installed."""
    mark = pytest.mark.skipif(not linalg.kvxopt_available(), reason="kvxopt is not installed")
    return SCIPY_METHODS + [pytest.param(m, marks=mark) for m in OPTIONAL]


def saddle_point(n=120, m=30, seed=0, chain=True):
    """[[K, Gᵀ], [H, 0]]: K unsymmetric, sparse (a chain of coupled 6-blocks, or random),
    H ≠ G (unsymmetric constraint rows), a zero diagonal block for the multipliers."""
    rng = np.random.default_rng(seed)
    if chain:
        K = sp.bmat([[rng.standard_normal((6, 6)) if abs(i - j) <= 1 else None for j in range(n // 6)]
                     for i in range(n // 6)], format="csr")
    else:
        K = sp.random(n, n, density=0.05, random_state=rng, data_rvs=rng.standard_normal).tocsr()
    K = K + 4.0 * sp.eye(n)
    cols = rng.choice(n, size=m, replace=False)
    G = sp.csr_matrix((rng.standard_normal(m) + 3.0, (np.arange(m), cols)), shape=(m, n))
    G = G + sp.random(m, n, density=0.02, random_state=rng, data_rvs=rng.standard_normal)
    H = G + 0.1 * sp.csr_matrix((rng.standard_normal(G.nnz), G.nonzero()), shape=G.shape)
    A = sp.bmat([[K, G.T], [H, None]], format="csr")
    A.sort_indices()
    return A


def relative_residual(A, x, b):
    """‖b − A x‖∞ / (‖A‖∞ ‖x‖∞): a backward-stable LU gives a small multiple of ε."""
    return np.linalg.norm(b - A @ x, np.inf) / (abs(A).sum(axis=1).max() * np.linalg.norm(x, np.inf))


@pytest.mark.parametrize("method", _methods())
@pytest.mark.parametrize("chain", [True, False])
def test_every_method_solves_a_saddle_point_system(method, chain):
    A = saddle_point(chain=chain)
    assert np.all(A.diagonal()[-30:] == 0.0)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    lin = LinearSolver(method)
    lin.factorize(A)
    x = lin.solve(b)
    # backward error of LU with partial (KLU, UMFPACK: threshold) pivoting: ε times a modest
    # growth factor; 1e3 ε leaves room for the threshold pivoting, not for a wrong answer
    assert relative_residual(A, x, b) < 1e3 * EPS
    # and the same with several right-hand sides
    B = np.random.default_rng(2).standard_normal((A.shape[0], 3))
    X = lin.solve(B)
    assert X.shape == B.shape
    assert np.linalg.norm(B - A @ X) <= 1e3 * EPS * abs(A).sum(axis=1).max() * np.linalg.norm(X)


@pytest.mark.parametrize("method", _methods())
def test_same_pattern_reuses_the_analysis_with_new_values(method):
    A = saddle_point(seed=3)
    lin = LinearSolver(method)
    lin.factorize(A)
    rng = np.random.default_rng(4)
    for _ in range(3):
        B = A.copy()  # new arrays, same pattern: what the system assembles every iteration
        B.data = A.data * (1.0 + 0.3 * rng.standard_normal(A.nnz))
        b = rng.standard_normal(A.shape[0])
        lin.factorize(B)
        assert relative_residual(B, lin.solve(b), b) < 1e3 * EPS
    assert lin.analyses == 1


@pytest.mark.parametrize("method", _methods())
def test_a_new_pattern_gets_a_new_analysis(method):
    lin = LinearSolver(method)
    A = saddle_point(seed=5)
    lin.factorize(A)
    C = saddle_point(seed=6)  # same size, other pattern
    assert C.shape == A.shape and not (C.nnz == A.nnz and np.array_equal(C.indices, A.indices))
    b = np.ones(C.shape[0])
    lin.factorize(C)
    assert relative_residual(C, lin.solve(b), b) < 1e3 * EPS
    assert lin.analyses == 2
    lin.factorize(saddle_point(n=60, m=10, seed=7))  # other size
    assert lin.analyses == 3


@pytest.mark.parametrize("method", _methods())
def test_singular_matrix_raises(method):
    A = saddle_point(seed=8).tolil()
    A[5, :] = 0.0  # a zero row (kept in the pattern as explicit zeros)
    A = A.tocsr()
    lin = LinearSolver(method)
    with pytest.raises(SingularMatrixError):
        lin.factorize(A)
    with pytest.raises(RuntimeError):
        lin.solve(np.ones(A.shape[0]))
    # a multiplier that acts on no equation: a zero column of Gᵀ (explicit zeros again).
    # Only exact singularity is detected (a zero pivot, as LAPACK's info > 0): a numerically
    # singular matrix, e.g. two equal constraint rows, may leave a rounding-size pivot.
    B = saddle_point(seed=9).tolil()
    n = B.shape[0]
    B[:, n - 1] = 0.0
    with pytest.raises(SingularMatrixError):
        LinearSolver(method).factorize(B.tocsr())
    # non-finite entries
    C = saddle_point(seed=10)
    C.data[3] = np.nan
    with pytest.raises(SingularMatrixError):
        LinearSolver(method).factorize(C)


def test_dense_arrays_are_factorized_densely():
    A = saddle_point(n=48, m=12, seed=11)
    b = np.arange(A.shape[0], dtype=float)
    for method in SCIPY_METHODS:
        lin = LinearSolver(method)
        lin.factorize(A.toarray())
        assert lin.used == "dense"
        assert relative_residual(A, lin.solve(b), b) < 1e3 * EPS
    with pytest.raises(SingularMatrixError):
        LinearSolver().factorize(np.zeros((4, 4)))


def test_banded_needs_pivoting():
    """Zero diagonal everywhere: elimination without row interchanges breaks down at once."""
    n = 40
    rng = np.random.default_rng(12)
    A = sp.diags([rng.uniform(1, 2, n - 1), np.zeros(n), rng.uniform(1, 2, n - 1)], [-1, 0, 1], format="csr")
    A = (A + sp.diags([1e-3 * rng.standard_normal(n - 2)], [2])).tocsr()  # n even: regular
    lin = LinearSolver("banded")
    b = rng.standard_normal(n)
    lin.factorize(A)
    assert lin._plan.kl >= 1
    assert relative_residual(A, lin.solve(b), b) < 1e2 * EPS
    # a tiny pivot on the diagonal must not be taken either
    D = (A + 1e-14 * sp.eye(n)).tocsr()
    lin.factorize(D)
    x = lin.solve(b)
    assert relative_residual(D, x, b) < 1e2 * EPS


def test_auto_picks_banded_for_a_chain_and_not_for_a_wide_band():
    chain = saddle_point(n=600, m=60, seed=13)  # a chain of 6-blocks with a few long couplings
    lin = LinearSolver("auto")
    lin.factorize(chain)
    assert lin.used in ("banded", "superlu", "klu", "umfpack")
    band = linalg._Banded(chain)
    limit = linalg.BAND_FLOPS_PER_NNZ_KVXOPT if linalg.kvxopt_available() else linalg.BAND_FLOPS_PER_NNZ
    expect_banded = band.flops <= limit * chain.nnz
    assert (lin.used == "banded") == expect_banded
    # a pure block chain: narrow band whatever n
    K = saddle_point(n=600, m=0, seed=14)
    lin.factorize(K)
    assert lin.used == "banded"
    # random sparse pattern of 2000 unknowns: RCM leaves a wide band, so sparse LU
    R = (sp.random(2000, 2000, density=0.003, random_state=15) + 5.0 * sp.eye(2000)).tocsr()
    lin.factorize(R)
    assert lin.used in ("superlu", "klu", "umfpack")
    # small and nearly full: dense LU
    S = sp.csr_matrix(np.random.default_rng(16).standard_normal((30, 30)))
    lin.factorize(S)
    assert lin.used == "dense"


def test_unknown_method_and_missing_package(monkeypatch):
    with pytest.raises(ValueError, match="banded"):
        LinearSolver("cholesky")

    def missing():
        raise ImportError("linear solvers 'klu' and 'umfpack' need the package kvxopt: pip install kvxopt")

    monkeypatch.setattr(linalg, "_kvxopt", missing)
    for m in OPTIONAL:
        with pytest.raises(ImportError, match="pip install kvxopt"):
            LinearSolver(m)
    # auto falls back to SciPy
    monkeypatch.setattr(linalg, "kvxopt_available", lambda: False)
    R = (sp.random(500, 500, density=0.01, random_state=17) + 5.0 * sp.eye(500)).tocsr()
    lin = LinearSolver("auto")
    lin.factorize(R)
    assert lin.used == "superlu"


def test_model_file_names_are_the_methods():
    import typing

    from flexmbd.io import model_schema

    assert typing.get_args(model_schema.LinearSolverName) == linalg.METHODS


def test_a_chain_simulates_alike_with_every_method():
    """End to end: 30 spherical-joint bars (340 unknowns, so a sparse Newton matrix), 10 steps."""
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.models import chain

    model = chain(30)
    tips = {}
    for method in SCIPY_METHODS + [m for m in OPTIONAL if linalg.kvxopt_available()]:
        res = model.simulate(t_end=0.01, h=1e-3, linear_solver=method)
        assert res.success
        tips[method] = res["tip.position"][-1]
    for method, tip in tips.items():
        assert np.allclose(tip, tips["superlu"], rtol=0, atol=1e-9), method
