"""Jacobian refresh policies of the Newton solver (P3's "NNI ≥ i")."""
import numpy as np

from flexmbd.solvers.newton import NewtonSolver


def problem_family(scale):
    """G(x) = A x + 0.05 x³ − b: a mildly non-linear system whose matrix changes a little."""
    A = np.array([[4.0, 1.0], [1.0, 3.0]]) * scale
    b = np.array([1.0, 2.0])

    def problem(x, matrix):
        r = A @ x + 0.05 * x**3 - b
        return r, r, (A + np.diag(0.15 * x**2) if matrix else None)
    return problem


def test_kept_factorization_serves_steps_that_converge_quickly():
    newton = NewtonSolver(tol=1e-9, max_iter=50, policy=3, convergence="residual")
    x = newton.solve(problem_family(1.0), np.zeros(2), key=0.1).x
    r0 = newton.stats.refreshes
    for k in range(1, 20):
        h = 0.1 * (1 + 1e-15 * (k % 3))          # equal up to rounding: the same matrix key
        out = newton.solve(problem_family(1.0 + 1e-5 * k), x, key=h)
        assert out.converged and out.iterations < 3
        x = out.x
    assert newton.stats.refreshes == r0          # no step needed 3 iterations: no refresh


def test_slow_step_or_new_step_size_refreshes():
    newton = NewtonSolver(tol=1e-9, max_iter=50, policy=3, convergence="residual")
    x = newton.solve(problem_family(1.0), np.zeros(2), key=0.1).x
    r0 = newton.stats.refreshes
    newton.solve(problem_family(1.0 + 1e-5), x, key=0.05)           # another step size
    assert newton.stats.refreshes == r0 + 1
    r1 = newton.stats.refreshes
    out = newton.solve(problem_family(1.5), x, key=0.05)            # a big change: slow with the old matrix
    assert out.converged and newton.stats.refreshes > r1
