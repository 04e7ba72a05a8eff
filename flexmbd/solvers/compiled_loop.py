"""The step loop of a run in compiled code, in blocks of steps.

For a system whose whole Newton step is compiled (:class:`~.dynamics.CompiledNewton`:
compiled assembly, dense or banded Newton matrix), :func:`~.dynamics.simulate` hands blocks of
time targets to one compiled call (kernels/time_loop.py ``run_steps``), which makes each
step exactly as the per-step path does (same kernel, same step sizes, same refresh
policy and factorization carried from step to step) and returns the states as arrays.
Python then records the block: stored rows, ``on_step`` and ``progress`` calls, the
statistics — everything the user sees is unchanged; only the per-step Python work
(state objects, the boxing of the kernel's arguments, the bookkeeping) is gone.

A step that fails inside a block ends it; the run then halves that step on the per-step
path, starting from the failure the block reports (:func:`~.halving.advance` with
``failed``), and goes on in blocks.  Functions of time (drivers, load scales, actuator
forces) are evaluated before a block at its steps' times and handed over by row
(:func:`time_rows`).  What needs Python between steps keeps the run on the per-step path,
and :func:`loop_reason` says which (``Result.stats["time_loop"]``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .initial import StepState

#: the first block's steps; each block doubles the last, up to LARGEST_BLOCK
FIRST_BLOCK, LARGEST_BLOCK = 16, 4096
#: the numbers a block's arrays may hold (8 MB) when a run without callbacks starts with
#: one block as large as that allows (:func:`first_block`)
BLOCK_BUDGET = 1 << 20


def first_block(steps: int, n: int, m: int, callbacks: bool) -> int:
    """The first block's steps: FIRST_BLOCK when the run reports its steps (progress,
    ``on_step``: their first report comes soon), else as many of the run's ``steps`` as
    the block's arrays (4 n + m + 6 numbers a step) hold within BLOCK_BUDGET, so that a
    short run of a small model is one compiled call (each call costs its arguments'
    dispatch, the block's arrays and their recording: ≈ 0.1 ms)."""
    if callbacks:
        return FIRST_BLOCK
    fits = BLOCK_BUDGET // (4 * n + m + 6)
    return int(max(FIRST_BLOCK, min(steps, fits, LARGEST_BLOCK)))


@dataclass
class Block:
    """The steps of one compiled call: times, states and counters by row (``done`` rows),
    and the outcome of the step after them if it failed."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    qdd: np.ndarray
    a: np.ndarray
    lam: np.ndarray
    counts: np.ndarray         #: (done, 5): iterations, refreshes, factorizations, residual evaluations, rounding stops
    seconds: float
    #: the next step's failed attempt: the arguments of :meth:`~.dynamics.CompiledNewton.outcome`
    failure: tuple | None = None
    #: the next step converged but its consistent accelerations met a singular matrix
    singular_consistent: bool = False

    @property
    def done(self) -> int:
        return len(self.t)

    def state(self, j: int) -> StepState:
        return StepState(float(self.t[j]), self.q[j], self.v[j], self.qdd[j], self.a[j], self.lam[j])


def loop_reason(stepper, watch, controller, consistent=None) -> str | None:
    """None when the run's steps can be made in compiled blocks, else why not.

    Time-dependent inputs (driver terms, load scales, actuator forces: functions of t
    alone) are evaluated before each block for its steps' times (:func:`time_rows`), and
    so are the rates of driven constraints (their Φ_t for the velocity projection, Φ_qt
    and Φ_tt for the consistent multipliers)."""
    if stepper.compiled is None:
        return f"the Newton step is not compiled ({stepper.not_compiled})"
    ca = stepper.compiled.ca
    if ca.rheonomic and not ca.rates_compiled and (stepper.project_velocities or consistent is not None):
        return "the time derivatives of driven constraints (Φ_t, Φ_tt) are evaluated in Python at every step"
    if watch:
        return "events (switching groups) are watched in Python after every step"
    if controller is not None:
        return "error-controlled steps (rtol) are chosen in Python"
    return None


def step_times(t: float, targets: np.ndarray) -> np.ndarray:
    """The times the steps to ``targets`` end at, as the kernel forms them: t + (target − t)
    from the previous step's time (not always the target to the last bit)."""
    times = np.empty(len(targets))
    for j, target in enumerate(targets.tolist()):
        t = t + (target - t)
        times[j] = t
    return times


def time_rows(ca, t: float, targets: np.ndarray, rates: bool = False):
    """The time-dependent arrays of the compiled assembly (``ca.time_values``) at the end
    of each step from t to ``targets`` (one row a step), or their one row when the model
    has none: the functions of time evaluated in Python before the block, where the
    per-step path evaluates them at every step's t_{n+1} (its Newton step, its consistent
    solve).  Each is a function of t alone, so the block's rows equal the per-step path's
    arrays to the last bit.  Returns (rows, first rates, second rates): the rates
    (``ca.rate_values``) by row too when ``rates`` and the model has driven constraints,
    else one row of length 0."""
    none = np.zeros((1, 0))
    if not ca._varying:
        return ca.time_values(t).reshape(1, -1), none, none
    times = step_times(t, targets).tolist()
    first = ca.time_values(times[0])      # lays the buffer out at a run's first call
    rows = np.empty((len(times), first.size))
    rows[0] = first
    for j in range(1, len(times)):
        rows[j] = ca.time_values(times[j])
    if not (rates and ca.rheonomic):
        return rows, none, none
    d1, d2 = np.empty_like(rows), np.empty_like(rows)
    for j, tj in enumerate(times):
        d1[j], d2[j] = ca.rate_values(tj)
    return rows, d1, d2


class CompiledLoop:
    """Blocks of steps of one run by the compiled Newton step (:func:`run`)."""

    def __init__(self, stepper, first: int = FIRST_BLOCK):
        from ..kernels import time_loop

        self.kernel = time_loop.run_steps
        self.stepper, self.cn = stepper, stepper.compiled
        self.size = first

    def run(self, state: StepState, targets: np.ndarray, consistent: bool) -> Block:
        """The steps from ``state`` to each of ``targets`` in turn, until one fails;
        ``consistent``: q'' and λ of each step from the index-1 equations (``multipliers =
        'consistent'``; kernels/assembly.py ``consistent_accelerations``)."""
        cn, st = self.cn, self.stepper
        nw, ca, k = cn.newton, cn.ca, cn.k
        am, af, beta, gamma = st.coeffs
        count, n, m = len(targets), st.sys.n, st.sys.m
        T = np.empty(count)
        Q, V, QDD, A = (np.empty((count, n)) for _ in range(4))
        LAM = np.empty((count, m))
        STATS = np.zeros((count, 5), dtype=np.int64)
        key = nw.matrix_key if isinstance(nw.matrix_key, float) else np.nan
        c0 = time.perf_counter()
        targets = np.ascontiguousarray(targets, dtype=float)
        rows, d1, d2 = time_rows(ca, state.t, targets, bool(st.project_velocities) or consistent)
        done, code, x, norm, chk, q1, key = self.kernel(
            state.t, targets, state.q, state.v, state.qdd, state.a, state.lam, key,
            am, af, beta, gamma, nw.tol, cn.scaled, nw.max_iter, cn.policy, cn.kept, bool(st.project_velocities),
            bool(consistent), ca.ground_q, ca.n_ext, ca.layout, ca.vsize, ca.bsize, ca.vec_index, cn.pos, cn.band, ca.vec,
            ca.blk, ca.ib, ca.fb, rows, ca.tab, cn.LU, cn.piv, cn.status, cn.P, cn.Ppiv, T, Q, V, QDD, A, LAM,
            STATS, d1, d2, ca.rate_layout)
        seconds = time.perf_counter() - c0
        nw.stats.compiled_seconds += seconds     # as the per-step path's, with the time functions' evaluation
        nw.matrix_key = None if np.isnan(key) else float(key)
        block = Block(T[:done], Q[:done], V[:done], QDD[:done], A[:done], LAM[:done], STATS[:done], seconds)
        if code == k.SINGULAR_CONSISTENT:     # the per-step path makes that step again and says so
            block.singular_consistent = True
        elif code != k.CONVERGED:
            if code == k.ZERO_LENGTH:     # the force's own error, as on the per-step path
                cn.count(STATS[done])
                t0 = state.t if done == 0 else T[done - 1]
                ca.raise_undefined(st.sys.extend(q1), np.zeros(st.sys.n_ext), t0 + (targets[done] - t0))
            block.failure = (code, x, norm, chk, STATS[done])
        self.size = min(2 * self.size, LARGEST_BLOCK)
        return block
