"""Time integration of the index-3 DAE  M q'' + Q_v + Φ_qᵀ λ = Q,  Φ(q, t) = 0.

At each step Newton solves for q''_{n+1} and λ_{n+1} (P1: "Newton from the previous
step's accelerations and multipliers"), with q and q' given by the integrator formulas
(:mod:`.integrators`).  Writing β' = h² β (1−α_f)/(1−α_m) and γ' = h γ (1−α_f)/(1−α_m),
the Newton matrix is

    [ M + γ' ∂F/∂q' + β' ∂F/∂q    Φ_qᵀ ]
    [ Φ_q                          0    ]

where the constraint rows were divided by β' so that the matrix stays well conditioned
as h → 0 (Bottasso, Bauchau & Cardona 2007).  Convergence is tested, as in P1, on the
2-norm of the unscaled residual [F; Φ].
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..errors import ModelError
from ..compile_watch import CompileWatch
from ..system import JACOBIAN_TERMS, freeze_reporting, jacobian_terms
from .initial import ConsistentAccelerations, StepState, characteristic_scales, initial_state  # noqa: F401
from ..linalg import DENSE_LIMIT, LinearSolver, SingularMatrixError, band_plan
from ..services import provide, service
from .diagnose import dependent_constraints, nonfinite_time_function
from .events import EventWatch
from .adaptive import Controller, ErrorControl
from .halving import advance
from .compiled_loop import CompiledLoop, first_block, loop_reason
from .newton import (AGE_LIMIT, CONTRACTION_LIMIT, ROUNDING_FLOOR, STAGNATION, NewtonOutcome, NewtonSolver,
                     _same_key, scaled_increment_error)
from .settings import DynamicSettings, SettingError

if TYPE_CHECKING:
    from ..model import Model
    from ..results import Result
    from ..system import System


class StepFailure(RuntimeError):
    pass


def finite_difference_matrix(fun, x, eps=1e-7):
    """Dense forward-difference Jacobian of fun at x (for comparison runs only)."""
    r0 = fun(x)
    Jm = np.empty((len(r0), len(x)))
    for j in range(len(x)):
        dx = eps * max(1.0, abs(x[j]))
        xp = x.copy()
        xp[j] += dx
        Jm[:, j] = (fun(xp) - r0) / dx
    return Jm


class DynamicsStepper:
    """Advances a frozen system by one integrator step with Newton."""

    def __init__(self, system, integrator, newton: NewtonSolver, terms, finite_difference=False,
                 project_velocities=False, linear_solver="auto", newton_start="previous"):
        self.sys = system
        self.project_velocities = project_velocities
        self.zero_start = newton_start == "zero"
        self.projector = LinearSolver(linear_solver)
        self.coeffs = integrator.coefficients()
        self.newton = newton
        self.terms = terms
        self.fd = finite_difference
        #: (rtol, a_c, f_c) of the scaled convergence test (set by the run: :meth:`set_scales`)
        self.scaled = (1e-8, 1.0, 1.0)
        # the compiled Newton step starts from the previous accelerations only
        self.compiled = None if self.zero_start else CompiledNewton.for_system(system, newton, terms,
                                                                                finite_difference)
        #: why the Newton step is not compiled (None: it is)
        self.not_compiled = None if self.compiled is not None else (
            "newton_start = zero" if self.zero_start else
            CompiledNewton.reason(system, newton, terms, finite_difference) or "not available")

    def set_scales(self, rtol: float, accel_scale: float, force_scale: float) -> None:
        """The scaled Newton test's tolerance and the model's characteristic acceleration
        and force (:func:`~flexmbd.solvers.initial.characteristic_scales`)."""
        self.scaled = (rtol, accel_scale, force_scale)
        if self.compiled is not None:
            self.compiled.scaled = (np.array(self.scaled + (ROUNDING_FLOOR, STAGNATION))
                                    if self.newton.convergence == "scaled" else np.zeros(0))

    def step(self, s: StepState, h: float):
        if self.compiled is not None:
            return self._compiled_step(s, h)
        sys, n = self.sys, self.sys.n
        am, af, beta, gamma = self.coeffs
        c1 = (1 - af) / (1 - am)
        bp, gp = h * h * beta * c1, h * gamma * c1
        a_base = (af * s.qdd - am * s.a) / (1 - am)
        dq_base = h * s.v + h * h * ((0.5 - beta) * s.a + beta * a_base)
        v_base = s.v + h * ((1 - gamma) * s.a + gamma * a_base)
        t1 = s.t + h

        def residual(x, matrix):
            qdd, lam = x[:n], x[n:]
            dq = dq_base + bp * qdd
            q = sys.increment(s.q, dq)
            v = v_base + gp * qdd
            # Lie-group bodies: the Newton matrix carries the tangent operator T(Δq)
            F, Phi, A = sys.evaluate(q, v, qdd, lam, t1, cM=1.0, cD=gp, cK=bp, terms=self.terms,
                                     matrix=matrix and not self.fd, tangent=None if sys.additive else dq)
            r = np.concatenate((F, Phi / bp))
            if matrix and self.fd:
                A = finite_difference_matrix(lambda y: residual(y, False)[0], x)
            return r, np.concatenate((F, Phi)), A

        weights = scaled = None
        if self.newton.convergence == "increment":
            # P3's test: the change of the configuration, ‖Δq‖ = h²β' ‖Δq''‖ (multipliers not measured)
            weights = np.concatenate((np.full(n, bp), np.zeros(sys.m)))
        elif self.newton.convergence == "scaled":
            rtol, a_c, f_c = self.scaled
            floor = ROUNDING_FLOOR * max(1.0, np.abs(s.q).max(initial=0.0)) / bp

            def scaled(x, dx):
                return scaled_increment_error(x, dx, n, rtol, a_c, f_c, floor)
        start = np.zeros(n) if self.zero_start else s.qdd
        out = self.newton.solve(residual, np.concatenate((start, s.lam)), key=h, increment_weights=weights,
                                scaled_error=scaled)
        if not out.converged:
            return None, out
        qdd, lam = out.x[:n], out.x[n:]
        q1, v1 = sys.increment(s.q, dq_base + bp * qdd), v_base + gp * qdd
        if self.project_velocities and sys.m:
            v1 = self._project(q1, v1, t1)
        # R³×R³ nodes: rotation vectors back to |ψ| ≤ π, velocities/accelerations transformed
        q1, v1, (qdd, a1), _ = sys.rescale(q1, v1, (qdd, a_base + c1 * qdd))
        return StepState(t1, q1, v1, qdd, a1, lam), out

    def _compiled_step(self, s, h):
        out, q1, v1, a1 = self.compiled.solve(s, h, self.coeffs, self.project_velocities)
        if not out.converged:
            return None, out
        t1 = s.t + h
        if self.project_velocities and not self.compiled.ca.rates_compiled and self.sys.m:
            v1 = self._project(q1, v1, t1)   # Φ_t ≠ 0 not compiled: projected here (compiled systems need no rescaling)
        n = self.sys.n
        return StepState(t1, q1, v1, out.x[:n], a1, out.x[n:]), out

    def _project(self, q, v, t):
        """Mass-orthogonal projection of q' onto Φ_q q' + Φ_t = 0:
        [M Φ_qᵀ; Φ_q 0] [Δq'; μ] = [0; −Φ_q q' − Φ_t]."""
        sys = self.sys
        qe = sys.extend(q)
        A = sys.projection_matrix(q, t)
        Jq = A[sys.n:, :sys.n]
        r = -(Jq @ v) - sys.constraint_time_derivative(qe, t)
        self.projector.factorize(A)
        return v + self.projector.solve(np.concatenate((np.zeros(sys.n), r)))[: sys.n]


def compiled_newton_reason(system, linear_solver: str) -> str | None:
    """None if ``system``'s Newton iterations can run in compiled code (every group with a
    compiled slot; a dense Newton matrix or one the banded LU factorizes), else why not.
    Shared by the dynamic step (:class:`CompiledNewton`) and the static solve
    (solvers/compiled_static.py)."""
    if system.compiled is None:
        return "generic assembly"
    if system.compiled.generic:
        return "groups evaluated in NumPy"
    if not _dense_newton(system, linear_solver) and band_plan(system._pattern, linear_solver) is None:
        return (f"{system.n + system.m} unknowns: sparse Newton matrix without the banded LU "
                f"(linear_solver = {linear_solver})")
    return None


def _dense_newton(system, linear_solver: str) -> bool:
    """Whether the compiled Newton matrix is dense: the system's storage
    (linalg.dense_storage), or ``linear_solver = dense`` for a system of at most
    linalg.DENSE_LIMIT unknowns stored sparse because its band is narrow (the Python path
    factorizes such a CSR matrix densely too)."""
    return system.dense or (linear_solver == "dense" and system.n + system.m <= DENSE_LIMIT)


def newton_storage(system, linear_solver: str) -> tuple[np.ndarray, np.ndarray, int]:
    """The compiled Newton matrix's storage (kernels/assembly.py ``_matrix``): ``band``
    empty (dense, N × N) or [kl, ku, permutation] (the band of the renumbered unknowns,
    :func:`~flexmbd.linalg.band_plan`), the block entries' places ``pos`` in it, and the
    storage's row width."""
    N = system.n + system.m
    if system.dense:
        return np.zeros(0, dtype=np.int64), system.compiled.pos, N
    if _dense_newton(system, linear_solver):   # compiled.pos: places among the nonzeros (+ trash)
        return np.zeros(0, dtype=np.int64), np.append(system._keys, N * N).astype(np.int64)[system.compiled.pos], N
    plan = band_plan(system._pattern, linear_solver)
    band = np.concatenate(([plan.kl, plan.ku], plan.p)).astype(np.int64)
    return band, np.append(plan.pos, N * plan.shape[1]).astype(np.int64)[system.compiled.pos], plan.shape[1]


class CompiledNewton:
    """The Newton iterations of a step in one compiled call (kernels/assembly.py
    ``newton_step``): for systems with a compiled assembly, full Jacobian and the residual
    or scaled test, whose Newton matrix is dense (``linalg.dense_storage``, or ``linear_solver`` dense)
    or factorized by the banded LU (``linear_solver`` banded, or auto choosing it: the
    analysis of :class:`~flexmbd.linalg.LinearSolver`, the LU in kernels/banded.py).  Same iterates,
    policies and counters as :class:`NewtonSolver` (whose statistics it updates); the
    assembly/linear split of the time is not measured inside.  :mod:`.compiled_loop` runs
    many such steps in one call.
    """

    def __init__(self, system, newton):
        from ..kernels import assembly as k

        self.k, self.sys, self.newton = k, system, newton
        self.ca = system.compiled
        N = system.n + system.m
        #: the Newton matrix's storage (:func:`newton_storage`)
        self.band, self.pos, width = newton_storage(system, newton.lin.method)
        self.LU, self.piv = np.zeros((N, width)), np.zeros(N, dtype=np.int64)
        #: the projection matrix or its factorization, handed from the compiled loop's Newton
        #: step to its consistent solve (empty: not kept, the per-step path)
        self.P, self.Ppiv = np.zeros((N, width)), np.zeros(N, dtype=np.int64)
        self._no_P = (np.zeros((0, 0)), np.zeros(0, dtype=np.int64))
        self._no_rates = np.zeros(0)
        self.status = np.zeros(3, dtype=np.int64)     # has factor, factor age, iterations of the last solve
        self.stats = np.zeros(5, dtype=np.int64)
        self.policy = {"newton": k.FULL, "step": k.ONCE_PER_STEP, "contraction": k.CONTRACTION}.get(newton.policy,
                                                                                                     newton.policy)
        #: the contraction policy's [limit, age limit, θ of the factorization at hand]
        self.kept = np.array([CONTRACTION_LIMIT, AGE_LIMIT, 0.0])
        self.scaled = np.zeros(0)     # the scaled test's [rtol, a_c, f_c, …] (DynamicsStepper.set_scales)

    @classmethod
    def for_system(cls, system, newton, terms, fd):
        return cls(system, newton) if cls.reason(system, newton, terms, fd) is None else None

    @staticmethod
    def reason(system, newton, terms, fd) -> str | None:
        """None if a step of ``system`` can be made by the compiled Newton step, else why not."""
        why = compiled_newton_reason(system, newton.lin.method)
        if why is not None:
            return why
        if fd or len(terms) != len(JACOBIAN_TERMS):
            return "partial or finite-difference Jacobian"
        if newton.convergence not in ("residual", "scaled"):
            return f"convergence = {newton.convergence}"
        return None

    def solve(self, s, h, coeffs, project):
        """Newton's outcome and q_{n+1}, q'_{n+1}, a_{n+1} at its last iterate; q'_{n+1} is
        projected if ``project`` and the Φ_t of driven constraints is compiled
        (``CompiledAssembly.rates_compiled``; else the caller projects)."""
        nw, ca, k = self.newton, self.ca, self.k
        am, af, beta, gamma = coeffs
        if not _same_key(h, nw.matrix_key):
            self.status[0] = 0
            nw.matrix_key = h
        self.stats[:] = 0
        t1 = s.t + h
        c0 = time.perf_counter()
        project = bool(project) and ca.rates_compiled
        td = ca.rate_values(t1)[0] if project and ca.rheonomic else self._no_rates
        code, x, norm, chk, q1, v1, a1 = k.newton_step(
            s.q, s.v, s.qdd, s.a, s.lam, h, am, af, beta, gamma, nw.tol, self.scaled, nw.max_iter, self.policy,
            self.kept, project, ca.ground_q, ca.n_ext, ca.layout, ca.vsize, ca.bsize,
            ca.vec_index, self.pos, self.band, ca.vec, ca.blk, *ca.arrays(t1), self.LU, self.piv, self.status,
            self.stats, *self._no_P, td, ca.rate_layout)
        nw.stats.compiled_seconds += time.perf_counter() - c0
        if code == k.ZERO_LENGTH:
            ca.raise_undefined(self.sys.extend(q1), np.zeros(self.sys.n_ext), t1)
        return self.outcome(code, x, norm, chk, self.stats), q1, v1, a1

    def count(self, counts) -> None:
        """Add a step's counters (iterations, refreshes, factorizations, residual
        evaluations, rounding stops) to the Newton solver's statistics."""
        st, nw = self.newton.stats, self.newton
        st.iterations += int(counts[0])
        st.refreshes += int(counts[1])
        st.factorizations += int(counts[2])
        st.residual_evaluations += int(counts[3])
        st.rounding_stops += int(counts[4])
        nw.nnz = self.sys.nnz
        nw.last_iterations = int(counts[0])

    def outcome(self, code, x, norm, chk, counts) -> NewtonOutcome:
        """The step's :class:`NewtonOutcome` from the kernel's code; its counters counted."""
        nw, k = self.newton, self.k
        self.count(counts)
        if code == k.CONVERGED:
            return NewtonOutcome(True, x, int(counts[0]), norm, chk)
        nw.stats.failures += 1
        self.status[0] = 0
        message = {k.NOT_FINITE: "residual is not finite", k.MAX_ITER: f"no convergence in {nw.max_iter} iterations",
                   k.SINGULAR: "singular iteration matrix (iteration matrix is singular)",
                   k.SINGULAR_PROJECTION: "singular velocity-projection matrix"}[code]
        if code == k.SINGULAR:
            chk = np.full(len(x), np.nan)
        return NewtonOutcome(False, x, int(counts[0]), norm, chk, message)


def _initial(system, s, t0):
    """The run's initial state: the model's configuration, or with ``initial: static`` the
    static equilibrium at t0 (a failed equilibrium stops the run with the static solver's
    diagnosis)."""
    q = None
    if s.initial == "static":
        st = service("static_equilibrium")(system.model, system=system, time=t0, linear_solver=s.linear_solver)
        if not st.success:
            raise ModelError(f"initial: static — the static equilibrium at t = {t0:g} s was not found: {st.message}",
                             key="initial")
        q = st.q[-1]
    return initial_state(system, t0, s.assemble, s.linear_solver, q=q)


def simulate(model: Model, t_end: float | None = None, h: float | None = None, *,
             settings: DynamicSettings | None = None, system: System | None = None,
             progress: Callable | None = None, raise_on_failure: bool = False, start: StepState | None = None,
             on_step: Callable | None = None, grid_origin: float | None = None, redundancy: str | None = None,
             **overrides: Any) -> Result:
    """Integrate ``model`` from t_start to t_end with step h.

    The solver settings are one :class:`~flexmbd.solvers.settings.DynamicSettings`
    (``settings``); ``t_end``, ``h`` and the other keyword arguments (``integrator``,
    ``tol``, ``max_iter``, ``jacobian``, ``refresh``, ``convergence``, ``max_halvings``,
    ``linear_solver``, ``assemble``, ``t_start``, ``project_velocities``, ``newton_start``) override its
    fields, or make it when ``settings`` is None.  Each is described, with its default
    and bounds, in :class:`~flexmbd.solvers.settings.DynamicSettings`; a bad value is a
    :class:`~flexmbd.solvers.settings.SettingError` (ValueError) naming it.

    A failed step is retried with h/2, h/4, … (``max_halvings`` times, :mod:`.halving`); if
    it still fails the run stops and the returned Result holds every step computed so far,
    with ``success = False`` and a message naming time, residual and the worst equation
    (``raise_on_failure``: a StepFailure is raised instead).

    system:   the frozen system (default: ``model.freeze()``, redundancy warnings shown).
    redundancy: "remove" (default) or "keep" redundant constraint equations when the model
              is frozen here (as a model file's ``solver: redundancy``); not with ``system``.
    start:    a :class:`StepState` to continue from (a resumed run); t_start is then start.t.
    grid_origin: with ``start``, the time grid of the original run (targets are
              grid_origin + k h exactly, so a resumed run repeats the same steps).
    on_step:  ``on_step(state, stats: dict)`` after every stored step (e.g. a writer; every
              ``output_every``-th step of the grid, the last one and the last before a failure);
              returning False stops the run cleanly (``Result.message`` says so).
    progress: ``progress(t, step, n_steps, newton_stats)`` after every step.
    """
    from ..results import Result

    if t_end is not None:
        overrides["t_end"] = t_end
    if h is not None:
        overrides["h"] = h
    s = DynamicSettings.create(settings, **overrides)
    h, t_end, t_start, integ = s.h, s.t_end, s.t_start, s.integrator
    fd = s.jacobian == "fd"
    terms = jacobian_terms(None if fd else s.jacobian)
    system = freeze_reporting(model, redundancy, system)
    if s.method != "index-3":
        return _set_valued_run(system, s, start, on_step, progress)
    newton = NewtonSolver(s.tol, s.max_iter, s.refresh, s.convergence, s.linear_solver)
    project_velocities = s.project_velocities
    if project_velocities is None:
        am, af, _, gamma = integ.coefficients()
        project_velocities = am == af == 0.0 and gamma == 0.5
    stepper = DynamicsStepper(system, integ, newton, terms, fd, project_velocities, s.linear_solver, s.newton_start)
    if start is None:
        state, report = _initial(system, s, t_start)
    else:
        state, report, t_start = start, None, start.t
    origin = t_start if grid_origin is None else float(grid_origin)
    # the scales of the Newton test from the run's initial state (a resumed run: the same)
    scales = characteristic_scales(system, state if start is None else _initial(system, s, origin)[0])
    stepper.set_scales(s.newton_rtol, *scales)
    k0 = int(round((t_start - origin) / h))
    n_steps = int(round((t_end - origin) / h)) - k0
    res = Result(system, integ, h)
    res.output_every = s.output_every
    res.assembly = report
    _tolerance_notes(res, s, *scales)
    res.append(state, iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0)
    if on_step is not None and start is None:
        on_step(state, dict(iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0))
    watch = EventWatch(system)
    if watch:
        watch.start(state.t, state.q, state.v)
    consistent = ConsistentAccelerations(system, s.linear_solver) if s.multipliers == "consistent" and system.m else None
    controller = None
    if s.rtol is not None:      # error-controlled steps between the output times
        controller = _controller(system, s, stepper, state, consistent, res, watch)
        consistent = None       # the controller makes the multipliers consistent itself
    targets, stored = _targets(s, origin, k0, n_steps, state.t, controller is not None)
    why = loop_reason(stepper, watch, controller, consistent)
    loop = (CompiledLoop(stepper, first_block(len(targets), system.n, system.m, progress is not None or on_step is not None))
            if why is None else None)
    res.time_loop = "compiled" if why is None else f"per step: {why}"
    box = {"pending": None}     # (state, summed stats) of steps computed since the last stored one

    def record(state: StepState, stats: dict, k: int) -> bool:
        """Step k (1-based) done: events, progress, stored or held; False when the caller stops the run."""
        pending = box["pending"]
        if pending is not None:          # counts of the steps not stored go to the next stored one
            stats = {f: stats[f] + pending[1][f] for f in stats}
        if watch and controller is None:
            res.events += watch.step(state.t, state.q, state.v)
        if progress is not None:
            progress(state.t, k, len(targets), newton.stats)
        if not stored[k - 1]:
            box["pending"] = (state, stats)
            return True
        box["pending"] = None
        res.append(state, **stats)
        if on_step is not None and on_step(state, stats) is False:
            res.fail(f"stopped by the caller at t = {state.t:.6g} s")
            return False
        return True

    clock0 = time.perf_counter()
    k = 0       # targets reached
    with CompileWatch(announce=False) as compiling:   # the first run compiles kernels: not wall time
        while k < len(targets):
            failed = None
            if loop is not None:
                block = loop.run(state, targets[k:k + loop.size], consistent is not None)
                if block.done:
                    state = block.state(block.done - 1)
                    if progress is None and on_step is None:
                        _record_block(block, k, stored, res, box, stepper.compiled)
                    else:
                        replayed = _replay_block(block, k, record, stepper.compiled)
                        if replayed < block.done:    # stopped by the caller
                            k += replayed
                            break
                k += block.done
                if block.failure is None and not block.singular_consistent:
                    continue
                failed = block.failure
            k += 1
            target = targets[k - 1]
            c0 = time.perf_counter()
            st0 = vars(newton.stats).copy()
            if failed is not None:      # the step failed in the block: counted from here, then halved
                failed = stepper.compiled.outcome(*failed)
            if controller is not None:
                step = controller.advance(state, target)
            else:
                step = advance(stepper.step, state, target - state.t, s.max_halvings, failed=failed)
            if step.state is None:
                pending = box["pending"]
                if pending is not None:      # keep the last step computed
                    res.append(*pending[:1], **pending[1])
                    if on_step is not None:
                        on_step(*pending)
                exc = StepFailure(step.message if controller is not None else
                                  _failure_message(stepper.sys, step.failure, s.max_halvings))
                res.fail(str(exc))
                if raise_on_failure:
                    raise exc
                break
            state, substeps = step.state, step.substeps
            if consistent is not None:
                state, consistent = _consistent(consistent, state, res)
            st1 = vars(newton.stats)
            stats = dict(iterations=st1["iterations"] - st0["iterations"], refreshes=st1["refreshes"] - st0["refreshes"],
                         factorizations=st1["factorizations"] - st0["factorizations"],
                         seconds=time.perf_counter() - c0, substeps=substeps)
            if not record(state, stats, k):
                break
    if s.output_times is not None and controller is None:
        res.steps_taken = k     # the steps of the merged grid (not the rows stored)
    if controller is not None:
        res.adaptive = controller.stats.as_dict()
    elif s.convergence != "scaled" and np.any(np.asarray(res._stats["substeps"][1:]) > 1):
        res.note(f"steps were halved because Newton did not meet the absolute {s.convergence} test (tol = {s.tol:g}): "
                 "a tolerance below the rounding noise of the model's terms cannot be met; convergence = 'scaled' "
                 "tests relative to the model's own scales")
    if newton.stats.rounding_stops:
        res.note(f"{newton.stats.rounding_stops} Newton solves stopped at the rounding level: their error estimate "
                 f"stayed within {STAGNATION:g}× newton_rtol without contracting (the multipliers of long load "
                 "paths carry more rounding noise than the model's characteristic force suggests)")
    res.compile_seconds = compiling.seconds
    res.wall_time = time.perf_counter() - clock0 - compiling.seconds
    res.newton = newton.stats
    res.nnz = newton.nnz
    res.finish()
    return res


def _block_stats(block) -> tuple[np.ndarray, float]:
    """The per-step counters of a block (iterations, refreshes, factorizations) and the
    seconds of one of its steps (the block's time shared evenly)."""
    return block.counts[:, :3], block.seconds / block.done


def _replay_block(block, k: int, record: Callable, cn: CompiledNewton) -> int:
    """A block's steps k+1 … recorded one by one (progress, ``on_step``); the number
    recorded (fewer than the block's when the caller stopped the run: the steps after that
    one are dropped)."""
    counts, seconds = _block_stats(block)
    for j in range(block.done):
        cn.count(block.counts[j])
        stats = dict(iterations=int(counts[j, 0]), refreshes=int(counts[j, 1]), factorizations=int(counts[j, 2]),
                     seconds=seconds, substeps=1)
        if not record(block.state(j), stats, k + j + 1):
            return j + 1
    return block.done


def _record_block(block, k: int, stored: np.ndarray, res: Result, box: dict, cn: CompiledNewton) -> None:
    """A block's steps k+1 … recorded at once (no callbacks): the stored rows appended with
    the summed counters of the steps since the last stored one, as :func:`simulate`'s
    per-step record does; the last steps, if not stored, held in ``box["pending"]``."""
    counts, seconds = _block_stats(block)
    cn.count(block.counts.sum(axis=0))
    cn.newton.last_iterations = int(counts[-1, 0])
    done = block.done
    carry = np.zeros(3, dtype=np.int64)
    carry_seconds, carry_substeps = 0.0, 0
    if box["pending"] is not None:
        p = box["pending"][1]
        carry[:] = p["iterations"], p["refreshes"], p["factorizations"]
        carry_seconds, carry_substeps = p["seconds"], p["substeps"]
    total = np.cumsum(counts, axis=0) + carry
    rows = np.flatnonzero(stored[k:k + done])
    if rows.size:
        summed = total[rows]
        summed[1:] -= total[rows[:-1]]
        span = np.diff(rows, prepend=-1)     # steps each stored row covers
        sec = span * seconds
        sub = span.copy()
        sec[0] += carry_seconds
        sub[0] += carry_substeps
        res.extend(block.t[rows], block.q[rows], block.v[rows], block.qdd[rows], block.a[rows], block.lam[rows],
                   iterations=summed[:, 0], refreshes=summed[:, 1], factorizations=summed[:, 2], seconds=sec,
                   substeps=sub)
    last = rows[-1] if rows.size else -1
    if last < done - 1:
        rest = total[-1] - (total[last] if rows.size else 0)
        n = int(done - 1 - last)
        box["pending"] = (block.state(done - 1), dict(
            iterations=int(rest[0]), refreshes=int(rest[1]), factorizations=int(rest[2]),
            seconds=n * seconds + (0.0 if rows.size else carry_seconds), substeps=n + (0 if rows.size else carry_substeps)))
    else:
        box["pending"] = None


def _targets(s: DynamicSettings, origin: float, k0: int, n_steps: int, t_now: float,
             controlled: bool) -> tuple[np.ndarray, np.ndarray]:
    """The times the run advances to, one after the other, and which of them are stored.

    Fixed steps: the grid origin + k h (k0 < k ≤ k0 + n_steps), every ``output_every``-th
    and the last stored; with ``output_times`` the grid and those times merged (the step
    crossing one is split there), those and the last stored.  Error-controlled steps
    (``controlled``): the grid, or the output times and t_end, all stored."""
    h = s.h
    grid = origin + h * np.arange(k0 + 1, k0 + n_steps + 1)
    if s.output_times is None:
        stored = (np.arange(k0 + 1, k0 + n_steps + 1) % s.output_every == 0)
        if n_steps:
            stored[-1] = True
        return grid, (stored | controlled) if controlled else stored
    outs = np.array([t for t in s.output_times if t > t_now + 1e-9 * h])
    end = grid[-1] if n_steps else t_now
    base = np.array([end]) if controlled else grid
    merged = np.union1d(base, outs)
    keep = np.r_[True, np.diff(merged) > 1e-9 * h]       # a time on the grid is one target
    merged = merged[keep]
    stored = np.array([np.any(np.abs(outs - t) <= 1e-9 * h) for t in merged])
    if merged.size:
        stored[-1] = True
    return merged, stored


def _controller(system, s: DynamicSettings, stepper: DynamicsStepper, state: StepState,
                consistent: ConsistentAccelerations | None, res: Result, watch: EventWatch) -> Controller:
    """The error-controlled stepping of a run with ``rtol`` (:mod:`.adaptive`)."""
    q0 = np.abs(state.q).max(initial=0.0)
    atol = s.atol if s.atol is not None else s.rtol * max(1.0, q0)
    span = s.t_end - s.t_start
    box = {"consistent": consistent}

    def finish(new: StepState) -> StepState:
        if box["consistent"] is None:
            return new
        new, box["consistent"] = _consistent(box["consistent"], new, res)
        return new

    def seen(new: StepState) -> None:
        if watch:
            res.events.extend(watch.step(new.t, new.q, new.v))

    beta = s.integrator.coefficients()[2]
    return Controller(ErrorControl(system, beta, s.rtol, atol, span), stepper.step, finish,
                      h_first=min(s.h, 1e-3 * span), h_max=s.h, h_min=s.h_min if s.h_min is not None else 1e-10 * span,
                      watch=seen)


def _tolerance_notes(res: Result, s: DynamicSettings, accel_scale: float, force_scale: float) -> None:
    """Notes on a tolerance that is loose for this model: the absolute residual test's tol
    against the model's characteristic force, the scaled test's rtol itself."""
    if s.convergence == "residual" and s.tol > 1e-6 * force_scale:
        res.note(f"the residual test's tol = {s.tol:g} is loose for this model, whose characteristic force is "
                 f"{force_scale:.3g} (relative {s.tol / force_scale:.2g}): Newton may stop with errors of that "
                 "relative size in q'' and λ; convergence = 'scaled' tests relative to the model's scales")
    elif s.convergence == "scaled" and s.newton_rtol > 1e-5:
        res.note(f"newton_rtol = {s.newton_rtol:g} is loose: Newton stops with relative errors up to that size in q'' and λ")


def _consistent(consistent: ConsistentAccelerations, state: StepState, res: Result):
    """The step's state with q'' and λ solved from the index-1 equations at its (q, q', t)
    (``multipliers = 'consistent'``); where that matrix is singular (a redundant constraint
    kept), the integrator's values from then on, said once in the result's notes."""
    try:
        qdd, lam = consistent(state.q, state.v, state.t, start=np.concatenate((state.qdd, state.lam)))
    except SingularMatrixError:
        res.note(f"from t = {state.t:.6g} s the multipliers and accelerations are the index-3 Newton solution's "
                 "(first order with Newmark): the index-1 matrix [M Φ_qᵀ; Φ_q 0] is singular there (a redundant "
                 "constraint kept, or a coordinate with neither mass nor constraint)")
        return state, None
    return StepState(state.t, state.q, state.v, qdd, state.a, lam), consistent


def _set_valued_run(system, s: DynamicSettings, start, on_step, progress):
    """The event-driven or time-stepping run of ``simulate`` (set-valued joint friction)."""
    if start is not None:
        raise SettingError("method", f"method = {s.method}: a run cannot be resumed (only index-3 runs can)")
    if s.method == "event-driven":
        from .event_driven import event_driven

        return event_driven(system, s.t_end, s.h, t_start=s.t_start, alpha=s.baumgarte_alpha, beta=s.baumgarte_beta,
                            on_step=on_step, progress=progress)
    from .time_stepping import time_stepping

    return time_stepping(system, s.t_end, s.h, t_start=s.t_start, theta=s.theta, on_step=on_step)


def _failure_message(sys, failure, max_halvings):
    """Why a step failed even after the last halving: time, step, Newton's message, the
    residual and its worst equation."""
    out, chk = failure.outcome, failure.outcome.residual
    t1 = failure.state.t + failure.h
    culprit = nonfinite_time_function(getattr(sys, "model", None), t1)
    if culprit is not None:  # an input, not the mechanics: say so rather than "singular"
        return f"step from t = {failure.state.t:.6g} s failed: {culprit}"
    if np.all(np.isfinite(chk)) and chk.size:
        worst = int(np.argmax(np.abs(chk)))
        where = f"; worst equation: {sys.describe_row(worst)} (|r| = {abs(chk[worst]):.3g})"
    else:
        where = ""
    dependent = dependent_constraints(sys, failure.state.q, failure.state.t)
    if dependent is not None:   # the cause is the constraint set, not the equation Newton stopped at
        where += f"\n{dependent}"
    return (f"step from t = {failure.state.t:.6g} s failed even with h = {failure.h:.3g} s after {max_halvings} "
            f"halvings: {out.message}; residual norm {out.residual_norm:.3g}{where}")


provide("simulate", simulate)
