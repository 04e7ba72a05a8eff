"""Lemke's method against brute-force enumeration of complementary bases."""
import itertools

import numpy as np
import pytest

from flexmbd.solvers.lcp import lemke


def brute_force(M, q):
    """Every solution: for each support set S, z_S solves (M z + q)_S = 0, z elsewhere 0."""
    n = len(q)
    sols = []
    for r in range(n + 1):
        for S in itertools.combinations(range(n), r):
            S = list(S)
            z = np.zeros(n)
            if S:
                try:
                    z[S] = np.linalg.solve(M[np.ix_(S, S)], -q[S])
                except np.linalg.LinAlgError:
                    continue
            w = M @ z + q
            if np.all(z >= -1e-10) and np.all(w >= -1e-10):
                sols.append(z)
    return sols


@pytest.mark.parametrize("seed", range(40))
def test_positive_definite_problems_match_the_unique_solution(seed):
    rng = np.random.default_rng(seed)
    n = 1 + seed % 6
    A = rng.standard_normal((n, n))
    M = A @ A.T + 0.1 * np.eye(n) + rng.standard_normal((n, n)) * 0.3 * (seed % 2)  # P-matrices
    M = M if np.all(np.linalg.eigvals(M + M.T).real > 0) else A @ A.T + np.eye(n)
    q = rng.standard_normal(n)
    sol = lemke(M, q)
    ref = brute_force(M, q)
    assert sol.solved and len(ref) == 1
    np.testing.assert_allclose(sol.z, ref[0], atol=1e-10)
    assert np.all(sol.w >= -1e-10) and abs(sol.z @ sol.w) < 1e-10


def test_degenerate_problem_terminates():
    """A degenerate LCP (ties in the first ratio test) of Cottle, Pang & Stone's kind."""
    M = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 2.0], [2.0, 0.0, 1.0]])
    q = np.array([-1.0, -1.0, -1.0])
    sol = lemke(M, q)
    assert sol.solved
    np.testing.assert_allclose(sol.z, [1 / 3, 1 / 3, 1 / 3], atol=1e-12)


def test_ray_termination_reports_no_solution():
    """w = −z − 1 ≥ 0 with z ≥ 0 has no solution."""
    assert not lemke(np.array([[-1.0]]), np.array([-1.0])).solved
