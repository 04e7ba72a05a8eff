"""Newton-Raphson with a Jacobian refresh policy and counters.

Policies (P3 compares the last three):
    "newton"     refresh and factorize the matrix at every iteration (full Newton);
    "step"       refresh at the first iteration of every step (modified Newton);
    int i        keep the factorization across steps (and step-size rounding noise) and
                 refresh it once it has served i iterations of the current step without
                 convergence (P3's "NNI ≥ i": a step needing ≥ i iterations refreshes);
    "contraction"  keep the factorization across steps and refresh it when an iteration
                 shrinks the error by less than :data:`CONTRACTION_LIMIT` (the observed
                 contraction θ of the fixed-point iteration with the kept matrix), or once it
                 has served :data:`AGE_LIMIT` iterations of a step — the kept-matrix Newton
                 of DAE codes (Hairer & Wanner, Solving ODEs II, sec. IV.8) and of Exudyn's
                 default "modified Newton".
Whatever the policy, an iteration whose residual grows with a stale matrix triggers a
refresh before the step is declared failed.  Full Newton evaluates the residual alone at
an iterate after the first, and the matrix only when that iterate is not accepted (with
the scaled and residual tests, where the residual decides): the same iterates as a matrix
at every iterate, without the matrix of the last one.  At the second iterate it does so
only when the last solve ended there (a step of a run whose steps take more iterations
would pay a residual for nothing).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dnrm2 as _nrm2

from ..linalg import LinearSolver, SingularMatrixError


@dataclass
class NewtonStatistics:
    iterations: int = 0
    refreshes: int = 0
    factorizations: int = 0
    residual_evaluations: int = 0
    failures: int = 0
    #: scaled test: solves ended at the rounding level (:data:`STAGNATION`)
    rounding_stops: int = 0
    #: wall time in residual/matrix evaluation (assembly) and in factorization + solves
    assembly_seconds: float = 0.0
    linear_seconds: float = 0.0
    #: wall time of Newton solves run whole in compiled code (solvers/dynamics.py
    #: ``CompiledNewton``), where assembly and linear solves are not timed apart
    compiled_seconds: float = 0.0

    def add(self, other):
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))


@dataclass
class NewtonOutcome:
    converged: bool
    x: np.ndarray
    iterations: int
    residual_norm: float
    residual: np.ndarray
    message: str = ""


class NewtonSolver:
    """Solves G(x) = 0 where a problem object supplies residual and matrix.

    ``problem(x, matrix: bool) -> (residual, check_vector, matrix or None)``; the
    ``check_vector`` is what the convergence test measures (P1: the 2-norm of the
    residual), the residual is what the linear system uses (it may be scaled).
    """

    def __init__(self, tol=1e-7, max_iter=25, policy="newton", convergence="residual",
                 linear_solver="auto", increment_tol=None, error_estimate=False):
        if not (policy in POLICIES or (isinstance(policy, int) and policy >= 1)):
            raise ValueError("Jacobian refresh policy must be 'newton', 'step', 'contraction' or an integer ≥ 1, "
                             f"got {policy!r}")
        if convergence not in ("residual", "increment", "scaled"):
            raise ValueError(f"convergence test must be 'residual', 'increment' or 'scaled', got {convergence!r}")
        self.tol, self.max_iter, self.policy, self.convergence = tol, max_iter, policy, convergence
        self.increment_tol = tol if increment_tol is None else increment_tol
        # increment test on the estimated remaining error θ/(1−θ)‖Δx_k‖, θ = ‖Δx_k‖/‖Δx_{k−1}‖
        # (the bound for a contraction; saves the last, rounding-level iteration of a
        # quadratically converging Newton — Hairer & Wanner, Solving ODEs II, sec. IV.8)
        self.error_estimate = error_estimate
        self.lin = LinearSolver(linear_solver)
        self.stats = NewtonStatistics()
        self.has_factor = False
        self.last_iterations = 0
        self.matrix_key = None
        self.factor_age = 0
        #: contraction θ of the factorization at hand, last observed (policy "contraction")
        self.theta = 0.0
        self.nnz = 0

    def invalidate(self):
        self.has_factor = False

    def solve(self, problem, x0, key=None, increment_weights=None, scaled_error=None):
        """Iterate from x0; ``key`` identifies the matrix (e.g. the step size).

        ``increment_weights``: the increment test measures ‖w ∘ Δx‖ (e.g. the change of
        the configuration, h²β Δq'', when the unknowns are accelerations).
        ``scaled_error(x, Δx)``: the scaled test's error of a correction (convergence =
        'scaled', :func:`scaled_increment_error`): at each iterate the correction the
        factorization at hand gives (a back-substitution, no new matrix) estimates the
        iterate's error; when it is ≤ 1 the correction is applied and the solve ends."""
        x = x0.copy()
        if not _same_key(key, self.matrix_key):
            self.has_factor = False
            self.matrix_key = key
        policy, st = self.policy, self.stats
        contraction, kept = policy == "contraction", isinstance(policy, int) or policy == "contraction"
        need_matrix = policy in ("newton", "step") or not self.has_factor
        # full Newton with a test the residual decides: the residual first at later iterates
        lazy = policy == "newton" and self.convergence != "increment"
        it, prev_norm, prev_step, prev_error, last_step = 0, np.inf, np.inf, np.inf, np.inf
        theta = self.theta if contraction and self.has_factor else 0.0   # contraction of the factorization at hand
        fresh = False   # a factorization made in this solve
        self.factor_age = 0  # iterations of this solve served by the current factorization (P3's NNI)
        try:
            while True:
                c0 = time.perf_counter()
                r, chk, A = problem(x, need_matrix)
                st.assembly_seconds += time.perf_counter() - c0
                st.residual_evaluations += 1
                norm = _norm(chk)
                if not np.isfinite(norm):
                    return self._fail(x, it, norm, chk, "residual is not finite")
                if self.convergence == "residual" and norm < self.tol or norm == 0.0:
                    break  # (an exactly zero residual, e.g. an unloaded structure, needs no increment test)
                if self.convergence == "residual" and self.factor_age > 0:
                    theta = norm / prev_norm
                if self.convergence == "scaled" and self.has_factor and (fresh or kept):
                    # the iterate's error, estimated by the correction the factorization at hand
                    # gives (one back-substitution); small enough: apply it and stop.  Only a
                    # factorization of this step (or one a kept-matrix policy keeps on purpose):
                    # a run resumed from a file, which has none, takes the same iterates

                    c0 = time.perf_counter()
                    dx = self.lin.solve(-r)
                    st.linear_seconds += time.perf_counter() - c0
                    error = scaled_error(x + dx, dx)
                    if self.factor_age > 0:     # against the last correction of the same factorization
                        theta = error / last_step
                    if contraction and self.factor_age > 0 and theta <= CONTRACTION_LIMIT:
                        # a contraction observed in this solve: the corrected iterate's error is
                        # at most θ/(1 − θ) times the correction's (Hairer & Wanner, sec. IV.8)
                        accept = theta / (1.0 - theta) * error <= 1.0
                    else:
                        accept = error <= 1.0 and (not contraction or theta <= CONTRACTION_LIMIT)
                    if not accept and stagnated(error, prev_error, it, policy, contraction and fresh
                                                and self.factor_age == 1):
                        accept = True
                        st.rounding_stops += error > 1.0
                    if accept:
                        x = x + dx
                        break
                    prev_error = error
                if it >= self.max_iter:
                    return self._fail(x, it, norm, chk, f"no convergence in {self.max_iter} iterations")
                if A is None and (lazy or norm > prev_norm and self.factor_age > 0
                                  or isinstance(policy, int) and self.factor_age >= policy
                                  or contraction and (theta > CONTRACTION_LIMIT or self.factor_age >= AGE_LIMIT)):
                    c0 = time.perf_counter()
                    r, chk, A = problem(x, True)  # stale matrix: refresh at this iterate
                    st.assembly_seconds += time.perf_counter() - c0
                    st.residual_evaluations += 1
                c0 = time.perf_counter()
                if A is not None:
                    st.refreshes += 1
                    self.nnz = A.nnz if hasattr(A, "nnz") else int(np.count_nonzero(A))
                    self.lin.factorize(A)
                    st.factorizations += 1
                    self.has_factor, self.factor_age, fresh = True, 0, True
                    theta = 0.0
                dx = self.lin.solve(-r)
                st.linear_seconds += time.perf_counter() - c0
                if self.convergence == "scaled":
                    last_step = scaled_error(x + dx, dx)
                x = x + dx
                it += 1
                st.iterations += 1
                self.factor_age += 1
                prev_norm = norm
                # full Newton: the residual first at later iterates — at the second only after a
                # solve that ended there (else it rarely ends there and the residual is wasted)
                need_matrix = policy == "newton" and (not lazy or it == 1 and self.last_iterations != 1)
                if self.convergence == "scaled":
                    continue
                step = dx if increment_weights is None else increment_weights * dx
                size = _norm(step)
                theta_step = size / prev_step if np.isfinite(prev_step) else np.inf
                prev_step = size
                if contraction and self.convergence == "increment" and self.factor_age > 1:
                    theta = theta_step
                if self.error_estimate and theta_step < 1.0:
                    size = theta_step / (1.0 - theta_step) * size
                if self.convergence == "increment" and size < self.increment_tol:
                    c0 = time.perf_counter()
                    r, chk, _ = problem(x, False)
                    st.assembly_seconds += time.perf_counter() - c0
                    norm = _norm(chk)
                    if np.isfinite(norm):
                        break
        except SingularMatrixError as exc:
            return self._fail(x, it, np.nan, np.full(len(x), np.nan), f"singular iteration matrix ({exc})")
        if contraction:
            self.theta = theta
        self.last_iterations = it
        return NewtonOutcome(True, x, it, norm, chk)

    def _fail(self, x, it, norm, chk, message):
        self.stats.failures += 1
        self.has_factor = False
        self.last_iterations = it
        return NewtonOutcome(False, x, it, norm, chk, message)


#: the named refresh policies (besides an integer i ≥ 1)
POLICIES = ("newton", "step", "contraction")
#: policy "contraction": refresh when an iteration shrinks the error by less than this
#: factor.  A solve ends when the error left after its last correction, at most θ/(1 − θ)
#: times the correction for a contraction θ observed in the solve (Hairer & Wanner,
#: sec. IV.8), is within the tolerance, so the answer is within the Newton tolerance like
#: full Newton's (tests/test_newton_policies.py)
CONTRACTION_LIMIT = 0.5
#: policy "contraction": refresh once the factorization has served this many iterations of a
#: step without convergence.  A refresh (matrix, scatter, LU) costs about three residuals on
#: the slider-crank and the 100-link chain alike, and a fresh matrix then converges in one or
#: two iterations, so a fourth iteration with the kept one costs more than it saves (measured:
#: docs/performance.md, "The step loop in compiled code and kept-matrix Newton")
AGE_LIMIT = 3


#: a residual whose squares' sum would overflow (norm ≥ √(float max) ≈ 1.3e154) has diverged
_DIVERGED = 1e154


#: the scaled test also ends a full-Newton solve whose error estimate, within this factor of
#: the tolerance, stopped contracting (see :func:`stagnated`)
STAGNATION = 10.0


def stagnated(error: float, previous: float, iteration: int, policy, fresh_matrix: bool = False) -> bool:
    """Full Newton (a fresh matrix at every iterate) contracts quadratically until rounding
    noise dominates the correction; a correction that no longer halves is that noise.  The
    scaled test's floor bounds the noise of q'' but not always that of λ (a long chain's
    first joint carries the inertia of all links: λ's noise is that of q'' times a mass far
    above the model's characteristic f_c/a_c), so a solve whose error estimate stays within
    :data:`STAGNATION` of the tolerance without halving, after two iterations, has reached
    what rounding allows and stops there (counted in ``rounding_stops``, noted in the
    results).  Kept-matrix policies contract linearly by design and never stop this way,
    but for the contraction policy at an iterate whose matrix was made at the last one
    (``fresh_matrix``: it then iterates as full Newton)."""
    return ((policy == "newton" or fresh_matrix) and iteration >= 2 and error <= STAGNATION
            and error > 0.5 * previous)


#: rounding floor of the scaled test, in units of the machine epsilon (see scaled_increment_error)
ROUNDING_FLOOR = 100.0 * np.finfo(float).eps


def scaled_increment_error(x, dx, n, rtol, accel_scale, force_scale, floor_accel=0.0):
    """The scaled test's error of a Newton correction Δx = [Δq''; Δλ] at x = [q''; λ]:

        max(‖Δq''‖∞ / (rtol · max(a_c, ‖q''‖∞) + δ_a),  ‖Δλ‖∞ / (rtol · max(f_c, ‖λ‖∞) + δ_a f_c/a_c))

    with the model's characteristic acceleration a_c and force f_c
    (:func:`~flexmbd.solvers.initial.characteristic_scales`).  Relative to the motion's
    own size, so a model in other force units (masses, forces and stiffnesses × 1000)
    iterates identically.  δ_a = 100 ε max(1, ‖q‖∞)/β' is the rounding floor of the
    index-3 equations: the configuration q = q_b + β' q'' carries rounding errors of
    ε |q|, so q'' cannot be known better than ε |q| / β' (which grows like 1/h²), nor λ
    better than that times the model's characteristic mass f_c/a_c; the test never asks
    for less."""
    a = np.abs(x[:n]).max(initial=0.0)
    f = np.abs(x[n:]).max(initial=0.0)
    ea = np.abs(dx[:n]).max(initial=0.0) / (rtol * max(accel_scale, a) + floor_accel)
    ef = (np.abs(dx[n:]).max(initial=0.0) / (rtol * max(force_scale, f) + floor_accel * force_scale / accel_scale)
          if len(x) > n else 0.0)
    return max(ea, ef)


def _norm(v):
    """2-norm; inf (never an overflow warning) for a diverged iterate, which the caller
    reports as a failure.  BLAS's nrm2 scales as it sums, so it neither overflows nor
    warns, and it costs a tenth of ``np.linalg.norm`` under ``np.errstate``."""
    v = np.asarray(v, dtype=float).ravel()
    if not v.size:
        return 0.0
    norm = float(_nrm2(v))
    return norm if norm < _DIVERGED else np.inf    # (and inf for nan)


def _same_key(a, b):
    """Matrix keys match; step sizes that differ by rounding only (a time grid t0 + k h
    gives h = t_k − t_(k−1) with last-bit noise) count as the same."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return a == b
