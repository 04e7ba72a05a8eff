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


def _drifting_roots(steps=40):
    """G_k(x) = A x + c x³ − b_k with b_k chosen so that the root is x*_k (a closed form):
    a sequence of 'time steps' whose roots move a little, as a Newmark run's q'' do."""
    A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
    c = np.array([0.6, 0.4, 0.8])
    for k in range(steps):
        root = np.array([1.0 + 0.3 * np.sin(0.2 * k), -0.8 + 0.2 * np.cos(0.15 * k), 0.5 + 0.01 * k])
        b = A @ root + c * root**3

        def problem(x, matrix, b=b):
            r = A @ x + c * x**3 - b
            return r, r, (A + np.diag(3.0 * c * x**2) if matrix else None)
        yield root, problem


def test_contraction_policy_meets_the_scaled_tolerance_at_closed_form_roots():
    """The kept-matrix policy stops on the error left after its last correction, estimated
    as θ/(1 − θ) times the correction (θ the contraction observed in the solve; Hairer &
    Wanner II, sec. IV.8).  Every root must then be within the scaled test's tolerance, as
    full Newton's are, while one factorization serves several solves."""
    from flexmbd.solvers.newton import scaled_increment_error

    rtol = 1e-6

    def scaled(x, dx):
        return scaled_increment_error(x, dx, 3, rtol, 1.0, 1.0)

    runs = {}
    for policy in ("newton", "contraction"):
        newton = NewtonSolver(tol=1e-12, max_iter=30, policy=policy, convergence="scaled")
        x, errors = np.zeros(3), []
        for root, problem in _drifting_roots():
            out = newton.solve(problem, x, key=0.01, scaled_error=scaled)
            assert out.converged
            x = out.x
            errors.append(np.abs(x - root).max() / (rtol * max(1.0, np.abs(root).max())))
        runs[policy] = (max(errors), newton.stats)
    worst, kept = runs["contraction"]
    assert worst <= 1.0                                  # within the tolerance at every root
    assert kept.factorizations < 40 / 2                  # a factorization served several solves
    assert kept.iterations > runs["newton"][1].iterations   # (linear, not quadratic, contraction)
