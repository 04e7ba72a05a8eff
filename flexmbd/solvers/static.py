"""Static equilibrium by Newton-Raphson on (q, λ) with load stepping.

At rest (q' = q'' = 0) the equations of motion reduce to

    −s Q_load(q) − Q_int(q, t) + Φ_qᵀ λ = 0,      Φ(q, t) = 0,

where Q_load are the groups marked as loads (gravity, point forces, torques), scaled by
the load factor s, and Q_int the internal forces (spring-damper-actuators, rotational
springs), which are not scaled.  Newton's matrix is System.evaluate's with c_M = c_D = 0,
c_K = 1:

    [ −s ∂Q_load/∂q − ∂Q_int/∂q + ∂(Φ_qᵀ λ)/∂q    Φ_qᵀ ]
    [ Φ_q                                         0    ]

It is regular only if the stiffness (the first block) is positive definite on the
null space of Φ_q, i.e. every mechanism degree of freedom is held by a spring or by the
load's geometric stiffness.  P1's "M1" matrix leaves out ∂Q/∂q of the
spring-damper-actuators; at an unloaded start (λ = 0) nothing is left to hold the
mechanism and the matrix is singular: P1's finding that statics "does not converge at
all" without the SDA Jacobian (docs/solvers-static-kinematic.md gives the numbers).

The load factor goes 0, 1/N, …, 1 (``load_steps`` = N); a step that fails is retried
with the increment halved (``max_cuts`` times).  Convergence, as in P1: 2-norm of the
residual [F; Φ] < ``tol``.

Frames on SE(3) (beam nodes, kind ``se3``) are first moved by their own update
H_b exp(Δ).  From the first load step that fails with it on (and for the rest of the
analysis) they are moved in the chart x = x_b + R_b ΔU, R = R_b exp(ΔΩ) of the load
step's base (positions and rotations apart;
:meth:`flexmbd.nodes.frame.FrameKind.chart_config`), and the equations solved are the
derivatives of the potential in that chart (:class:`_Charts`); the failed step is
retried in the chart before its increment is cut.  The chart costs about three times
as much per iteration (its matrix is Jᵀ K J plus a geometric term), so mild problems,
which converge in the SE(3) update, do not pay for it.  The SE(3) update — positions along a screw —
turns a bending increment into a spurious axial shortening of second order (the node
moves back by ≈ ΔΩ ΔU/2), and the residual in body-frame components has a tangent
whose skew part is proportional to the out-of-balance force.  For stiff sections
(EA L²/EI = 1e8) the first Newton step then leaves compressive forces far above the
buckling load, the next matrix is nearly singular (condition 1e20) and Newton diverges
until the residual overflows; in the chart above the same problems converge like the
R³×R³ formulation (docs/verification-beams.md, "Stiff sections").
"""
from __future__ import annotations

import time as _time
import warnings
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..results import Result
from ..services import provide
from ..system import freeze_reporting, jacobian_terms
from .diagnose import nonfinite_time_function
from .dynamics import StepState
from .initial import AssemblyError, assemble_positions
from .compiled_static import CompiledStatic
from .newton import NewtonSolver
from .settings import StaticSettings

if TYPE_CHECKING:
    from ..model import Model
    from ..system import System


class StaticResult(Result):
    """Equilibria along the load path.

    Row k of ``q``, ``lam`` is the equilibrium at ``load_factor[k]`` (row 0: load factor
    0); ``iterations[k]`` the Newton iterations it took (all cut sub-steps included).
    Named outputs work as for a dynamic Result (``res["sda.force"]``, positions,
    ``res["joint.reaction"]``…); ``t`` holds the (fixed) time at which drivers and
    actuators were evaluated.
    """

    def __init__(self, system, time_value):
        super().__init__(system)
        self.time = time_value
        self._load = []
        self._norms = []
        self.jacobian = None

    def add(self, state, load_factor, iterations, cuts, seconds, norm):
        self.append(state, iterations=iterations, refreshes=iterations, factorizations=iterations,
                    seconds=seconds, substeps=cuts)
        self._load.append(load_factor)
        self._norms.append(norm)

    def finish(self):
        super().finish()
        self.load_factor = np.array(self._load)
        self.residual_norm = np.array(self._norms)
        self.iterations = self.stats["iterations"]
        #: "compiled" (the load steps' Newton iterations in compiled code,
        #: solvers/compiled_static.py) or "python: <why not>"
        if getattr(self, "newton_path", None):
            self.stats["newton_path"] = self.newton_path

    @property
    def load_steps(self):
        return len(self.load_factor) - 1

    def summary(self):
        it = self.iterations[1:]
        reached = f"{self.load_factor[-1]:.4g}" if len(self.load_factor) else "none (not even the unloaded state)"
        s = (f"{'converged' if self.success else 'FAILED'}: {max(self.load_steps, 0)} load steps to load factor "
             f"{reached}, {int(it.sum())} Newton iterations (max {int(it.max()) if len(it) else 0} "
             f"per step), jacobian = {self.jacobian}")
        if not self.success:
            s += "\n" + self.message
        return s


class _LoadStepFailure(RuntimeError):
    pass


def static_equilibrium(model: Model, load_steps: int | None = None, *, settings: StaticSettings | None = None,
                       system: System | None = None, on_step: Callable | None = None,
                       progress: Callable | None = None, redundancy: str | None = None,
                       **overrides: Any) -> StaticResult:
    """Equilibrium of ``model`` under its loads, reached in ``load_steps`` equal increments.

    The settings are one :class:`~flexmbd.solvers.settings.StaticSettings` (``settings``);
    ``load_steps`` and the other keyword arguments (``tol``, ``convergence``, ``max_iter``,
    ``max_cuts``, ``jacobian``, ``time``, ``linear_solver``, ``assemble``) override its
    fields, or make it when ``settings`` is None.  Each is described, with its default
    and bounds, there; a bad value is a :class:`~flexmbd.solvers.settings.SettingError`
    (ValueError) naming it.

    convergence: "residual" (P1: 2-norm of [F; Φ] < tol) or "increment" (the estimated
    error θ/(1−θ)‖Δx‖ of the Newton iterate below tol, θ the ratio of successive
    increment norms; for stiff structures, whose residual cannot get below the rounding
    noise of their internal forces, ~1e-16 EA per node).

    on_step:  ``on_step(state, stats: dict)`` after each converged load step, as in
              ``simulate`` (``state.t`` is the load factor): a writer stores the load path
              as it goes, so an analysis stopped early keeps what it reached; returning
              False stops it (``success`` False, the message says so).
    progress: ``progress(load_factor, k, load_steps, newton_stats)`` after each load step.
    redundancy: "remove" (default) or "keep" redundant constraint equations when the model
              is frozen here; not with ``system``.

    Returns a :class:`StaticResult` (``success``, ``message``, ``q``, ``lam``,
    ``iterations``, ``load_factor``); a failure never raises.
    """
    if load_steps is not None:
        overrides["load_steps"] = load_steps
    st = StaticSettings.create(settings, **overrides)
    load_steps, tol, max_iter, jacobian, time = st.load_steps, st.tol, st.max_iter, st.jacobian, st.time
    max_cuts, assemble, linear_solver, convergence = st.max_cuts, st.assemble, st.linear_solver, st.convergence
    terms = jacobian_terms(jacobian)
    system = freeze_reporting(model, redundancy, system)
    n, m = system.n, system.m
    res = StaticResult(system, float(time))
    res.jacobian = jacobian if isinstance(jacobian, str) else "+".join(sorted(terms))
    q = system.q0.copy()
    if assemble and m:
        try:
            q, res.assembly = assemble_positions(system, q, time)
        except AssemblyError as exc:
            res.fail(str(exc))
            res.finish()
            return res
    zeros = np.zeros(n)
    newton = NewtonSolver(tol, max_iter, "newton", convergence, linear_solver, error_estimate=True)
    # Vector kinds: the unknowns are q itself.  Lie-group kinds (n_q ≠ n): the unknowns
    # are an increment Δ from a base configuration, q = base ⊕ Δ, rebased after each
    # load step (the Newton matrix carries the tangent operator T(Δ), so it is ∂F/∂Δ).
    base = {"q": q}

    # the static charts of kinds that have one (SE(3) frames), taken from the first load
    # step that fails with the kinds' own increments (and kept from then on): they cost
    # more per iteration and converge in a few more iterations on mild problems, but
    # rescue stiff ones (module docstring)
    chart = None if system.additive else _Charts(system)
    charted = {"on": False}

    def config(x):
        if system.additive:
            return x[:n]
        return chart.config(base["q"], x[:n]) if charted["on"] else system.increment(base["q"], x[:n])

    def problem(s):
        def residual(x, matrix):
            on = charted["on"]
            F, Phi, A = system.evaluate(config(x), zeros, zeros, x[n:], time, cM=0.0, cD=0.0, cK=1.0, terms=terms,
                                        load_factor=s, matrix=matrix,
                                        tangent=None if system.additive else (chart.tangent(x[:n]) if on else x[:n]))
            r = np.concatenate((F, Phi))
            if not on:
                return r, r, A
            g, A = chart.equations(x[:n], F, A)
            return np.concatenate((g, Phi)), r, A
        return residual

    # the load steps' Newton iterations in compiled code where the system allows it
    compiled = CompiledStatic.for_system(system, newton, terms, time)
    res.newton_path = "compiled" if compiled is not None else f"python: {CompiledStatic.reason(system, newton, terms)}"

    def solve(x, s):
        if compiled is not None:
            out = compiled.solve(x, s)
            if out.converged:
                return out
            raise _LoadStepFailure(out)
        with warnings.catch_warnings():  # a singular matrix is reported in the result's message
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            out = newton.solve(problem(s), x)
        if out.converged:
            return out
        raise _LoadStepFailure(out)

    def advance(x, s0, s1, depth):
        """Newton from x (equilibrium at s0) to s1, halving the increment on failure."""
        try:
            out = solve(x, s1)
            return out.x, out.iterations, 0, out.residual_norm
        except _LoadStepFailure as exc:
            if chart is not None and chart.frames and not charted["on"]:
                charted["on"] = True            # the same step again, in the charts
                x1, its, cuts, norm = advance(x, s0, s1, depth)
                return x1, exc.args[0].iterations + its, cuts, norm
            if depth >= max_cuts:
                raise _LoadStepFailure(exc.args[0], s1) from None
            sm = 0.5 * (s0 + s1)
            xm, it1, c1, _ = advance(x, s0, sm, depth + 1)
            x1, it2, c2, norm = advance(xm, sm, s1, depth + 1)
            return x1, exc.args[0].iterations + it1 + it2, 1 + c1 + c2, norm

    x = np.r_[q if system.additive else zeros, np.zeros(m)]
    factors = np.linspace(0.0, 1.0, load_steps + 1)
    s_prev = 0.0
    for k, s in enumerate(factors):
        c0 = _time.perf_counter()
        try:
            x, its, cuts, norm = advance(x, s_prev, s, 0 if k else max_cuts)
        except _LoadStepFailure as exc:
            out, s_fail = exc.args[0], exc.args[1] if len(exc.args) > 1 else s
            res.fail(_failure_message(system, problem(s_fail), out, k, s_fail, max_cuts if k else 0, time))
            break
        q_s = config(x).copy()
        q_s, _, _, rescaled = system.rescale(q_s)   # R³×R³ nodes: |ψ| ≤ π between load steps
        if rescaled and system.additive:
            x = np.r_[q_s, x[n:]]
        if not system.additive:
            base["q"], x = q_s, np.r_[zeros, x[n:]]
        seconds = _time.perf_counter() - c0
        res.add(StepState(float(time), q_s, zeros.copy(), zeros.copy(), zeros.copy(), x[n:].copy()),
                float(s), its, cuts, seconds, norm)
        s_prev = s
        if progress is not None:
            progress(float(s), k, load_steps, newton.stats)
        if on_step is not None:
            row = StepState(float(s), q_s, zeros.copy(), zeros.copy(), zeros.copy(), x[n:].copy())
            stats = dict(iterations=its, refreshes=its, factorizations=its, seconds=seconds, substeps=cuts)
            if on_step(row, stats) is False:
                res.fail(f"stopped by the caller at load factor {s:.4g} (load step {k} of {load_steps})")
                break
    res.newton = newton.stats
    res.nnz = newton.nnz
    if res.success:
        res.message = f"equilibrium found in {load_steps} load steps"
    res.finish()
    return res


class _Charts:
    """The charts of the static Newton iteration for kinds that have one
    (:meth:`flexmbd.nodes.NodeKind.static_chart`: frames on SE(3) move positions and
    rotations apart, x_b + R_b ΔU and R_b exp(ΔΩ̃)); other kinds move by their increment.

    With q(Δ) the chart and J(Δ) its Jacobian in the kind's increments, the equations are
    g = Jᵀ F (for conservative loads the gradient of the potential in Δ) and their Newton
    matrix is exact: ∂g/∂Δ = Jᵀ (∂F/∂h) J + H, H = ∂(Jᵀ f)/∂Δ at fixed f, the kind's
    ``chart_equations``.  At Δ = 0 the chart is the increment to first order, so an
    equilibrium is the same; only the Newton path differs.
    """

    def __init__(self, system):
        self.system = system
        self.kinds = []
        for kind in system.kinds:
            if kind.static_chart:
                nodes = [b for b in system.model.bodies if b.kind == kind]
                self.kinds.append((kind, system.config_rows(nodes, kind), system.dof_rows(nodes, kind)))
        self.frames = sum(len(ci) for _, ci, _ in self.kinds)

    def config(self, base, dx):
        """q(Δ): nodes with a chart in it, other bodies by their kind's increment."""
        if not self.frames:
            return self.system.increment(base, dx)
        other = dx.copy()
        for _, _, vi in self.kinds:
            other[vi] = 0.0
        q = self.system.increment(base, other)
        for kind, ci, vi in self.kinds:
            q[ci] = kind.chart_config(base[ci], dx[vi])
        return q

    def tangent(self, dx):
        """The increments whose tangent operator ``System.evaluate`` applies: those of
        the other Lie-group bodies (charted nodes get theirs from :meth:`equations`)."""
        t = dx.copy()
        for _, _, vi in self.kinds:
            t[vi] = 0.0
        return t

    def equations(self, dx, F, A):
        """(Jᵀ F for the charted rows, F elsewhere; Jᵀ A J + H) for the residual F and the
        matrix A (derivatives along the kinds' increments)."""
        g = F.copy()
        N = None if A is None else A.shape[0]
        rows, cols, Jv, Hv, charted = [], [], [], [], []
        for kind, _, vi in self.kinds:
            f = F[vi]
            J, H = kind.chart_equations(dx[vi], f)
            g[vi] = np.einsum("nji,nj->ni", J, f)
            k = vi.shape[1]
            rows.append(np.repeat(vi, k, axis=1).ravel())
            cols.append(np.tile(vi, (1, k)).ravel())
            Jv.append(J.ravel())
            Hv.append(H.ravel())
            charted.append(vi.ravel())
        if A is None:
            return g, None
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        keep = np.setdiff1d(np.arange(N), np.concatenate(charted))
        P = sp.csr_matrix((np.r_[np.concatenate(Jv), np.ones(len(keep))], (np.r_[rows, keep], np.r_[cols, keep])),
                          shape=(N, N))
        Hs = sp.csr_matrix((np.concatenate(Hv), (rows, cols)), shape=(N, N))
        if sp.issparse(A):
            return g, (P.T @ A @ P + Hs).tocsr()
        return g, P.T @ (P.T @ np.asarray(A).T).T + Hs.toarray()


def _failure_message(system, residual, out, k, s, cuts, time=0.0):
    """Which step failed, why, and which equation (or which free direction) is to blame."""
    culprit = nonfinite_time_function(getattr(system, "model", None), time)
    if culprit is not None:  # an input, not the stiffness: say so rather than "singular"
        return f"load step {k} (load factor {s:.4g}) failed: {culprit}"
    msg = (f"load step {k} (load factor {s:.4g}) failed" + (f" after {cuts} cuts of the increment" if cuts else "")
           + f": {out.message}")
    _, r, A = residual(out.x, True)   # r: the residual [F; Φ] (chart equations aside)
    if np.all(np.isfinite(r)) and r.size:
        worst = int(np.argmax(np.abs(r)))
        msg += f"; residual norm {np.linalg.norm(r):.3g}, worst equation: {system.describe_row(worst)}"
        msg += f" (|r| = {abs(r[worst]):.3g})"
    if "singular" in out.message and A is not None and A.shape[0] <= 2000:
        Ad = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
        _, sv, Vt = np.linalg.svd(Ad)
        null = Vt[-1]
        top = np.argsort(-np.abs(null))[:3]
        names = ", ".join(system.describe_row(i).replace("equation of motion of ", "") for i in top
                          if abs(null[i]) > 0.1 * np.abs(null).max())
        msg += (f"; the stiffness matrix has a free direction (smallest singular value {sv[-1]:.2g}) mainly in "
                f"{names}: a mechanism degree of freedom held by no spring, or the spring stiffness "
                "left out of the Jacobian")
    return msg

provide("static_equilibrium", static_equilibrium)
