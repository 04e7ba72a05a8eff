"""Consistent initial conditions: assembly of the initial configuration, velocity
projection, and initial accelerations and multipliers.

Position assembly solves min ½|q − q_user|² subject to Φ(q, t0) = 0 by Gauss-Newton
steps Δq = −Φ_qᵀ (Φ_q Φ_qᵀ)⁻¹ Φ (the minimum-norm correction); velocities are projected
the same way onto Φ_q q' = −Φ_t; accelerations and multipliers solve
[M Φ_qᵀ; Φ_q 0] [q''; λ] = [Q − Q_v; γ].
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg as spla

from ..linalg import LinearSolver


class AssemblyError(RuntimeError):
    pass


@dataclass
class AssemblyReport:
    iterations: int
    constraint_norm: float
    moved: dict  # body name -> distance its coordinates moved (position part, m)

    def summary(self, threshold=1e-9):
        moved = {k: v for k, v in self.moved.items() if v > threshold}
        if not moved:
            return "initial configuration satisfies the constraints"
        return "initial configuration assembled; bodies moved: " + ", ".join(f"{k} by {v:.3g} m" for k, v in moved.items())


#: systems with at most this many constraint equations take dense arrays here (scipy.sparse's
#: overhead dominates small models: 1 of the 1.5 ms of the slider-crank's initial conditions)
DENSE_CONSTRAINTS = 200


def _jacobian(system, qe, t):
    """Φ_q at (qe, t): a dense array for small systems, else sparse."""
    return system.constraint_jacobian(qe, t, dense=system.m <= DENSE_CONSTRAINTS)


def _min_norm_solve(Jq, r):
    """Minimum-norm solution of Jq x = r (Jq sparse or dense, full row rank)."""
    if isinstance(Jq, np.ndarray):
        try:
            y = np.linalg.solve(Jq @ Jq.T, r)
        except np.linalg.LinAlgError as exc:
            raise RuntimeError(f"singular constraint Jacobian ({exc})") from None
        return Jq.T @ y
    JJt = (Jq @ Jq.T).tocsc()
    y = spla.spsolve(JJt, r) if JJt.shape[0] > 1 else r / JJt.toarray()[0, 0]
    return Jq.T @ np.atleast_1d(y)


def assemble_positions(system, q, t=0.0, tol=1e-12, max_iter=50):
    q = q.copy()
    q_user = q.copy()
    it = 0
    for it in range(max_iter + 1):
        qe = system.extend(q)
        Phi = system.constraints(qe, t)
        norm = float(np.linalg.norm(Phi)) if Phi.size else 0.0
        if norm < tol:
            break
        if it == max_iter:
            worst = int(np.argmax(np.abs(Phi)))
            raise AssemblyError(
                f"cannot assemble the initial configuration: |Φ| = {norm:.3g} after {max_iter} iterations; "
                f"worst: {system.describe_row(system.n + worst)}")
        Jq = _jacobian(system, qe, t)
        try:
            dq = _min_norm_solve(Jq, -Phi)
        except RuntimeError as exc:
            raise AssemblyError(f"cannot assemble the initial configuration: {exc}") from None
        if not np.all(np.isfinite(dq)):
            raise AssemblyError("cannot assemble the initial configuration: singular constraint Jacobian")
        q = system.increment(q, dq)
    moved = _moved(system, q, q_user) if it else dict.fromkeys((b.name for b in system.model.bodies), 0.0)
    return q, AssemblyReport(it, norm, moved)


def _moved(system, q, q_user):
    """Body name -> distance its origin moved from q_user to q, per kind at once."""
    bodies = system.model.bodies
    dist = np.zeros(len(bodies))
    for kind in dict.fromkeys(b.kind for b in bodies):
        bs = [b for b in bodies if b.kind == kind]
        rows = system.config_rows(bs, kind)
        dist[[b.index for b in bs]] = np.linalg.norm(kind.pose(q[rows])[0] - kind.pose(q_user[rows])[0], axis=1)
    return {b.name: float(dist[b.index]) for b in bodies}


def project_velocities(system, q, v, t=0.0):
    if system.m == 0:
        return v
    qe = system.extend(q)
    phi_t = system.constraint_time_derivative(qe, t)
    if not v.any() and np.linalg.norm(phi_t) < 1e-14:    # at rest, no driver moving: r = −Φ_t, nothing to do
        return v
    Jq = _jacobian(system, qe, t)
    r = -phi_t - Jq @ v
    if np.linalg.norm(r) < 1e-14:
        return v
    return v + _min_norm_solve(Jq, r)


class ConsistentAccelerations:
    """q'' and λ from [M Φ_qᵀ; Φ_q 0] [q''; λ] = [Q − Q_v; γ] at a given (q, q', t).

    Forces that depend on multipliers (joint friction, F(λ)) make this nonlinear in λ: it is
    then solved by Newton's method with the coupling block ∂F/∂λ in the upper right, to
    |Δx| ≤ 1e-12 (1 + |x|).  One object keeps its linear solver (and the matrix pattern's
    analysis) from call to call: the dynamics runs call it after every step
    (``multipliers = 'consistent'``)."""

    def __init__(self, system, linear_solver: str = "auto", max_iter: int = 30) -> None:
        self.sys, self.max_iter = system, max_iter
        self.lin = LinearSolver(linear_solver)

    def __call__(self, q: np.ndarray, v: np.ndarray, t: float, start: np.ndarray | None = None):
        """(q'', λ); raises :class:`~flexmbd.linalg.SingularMatrixError` when the matrix is
        singular (a redundant constraint kept, a coordinate without mass or constraint)."""
        system = self.sys
        n, m = system.n, system.m
        qe = system.extend(q)
        gamma = system.gamma(qe, system.extend_velocity(v), t)
        coupled = bool(system.coupled_groups)
        if not coupled:     # linear in (q'', λ): one solve from zero
            F, _, A = system.evaluate(q, v, np.zeros(n), np.zeros(m), t, cM=1.0, cD=0.0, cK=0.0)
            self.lin.factorize(A)
            x = self.lin.solve(np.concatenate((-F, gamma)))
            return x[:n], x[n:]
        x = np.zeros(n + m) if start is None else start.copy()
        for _ in range(self.max_iter):
            F, _, A = system.evaluate(q, v, x[:n], x[n:], t, cM=1.0, cD=0.0, cK=0.0)
            acc = system.constraint_jacobian(qe, t) @ x[:n]
            self.lin.factorize(A)
            dx = self.lin.solve(np.concatenate((-F, gamma - acc)))
            x = x + dx
            if np.linalg.norm(dx) <= 1e-12 * (1.0 + np.linalg.norm(x)):
                break
        return x[:n], x[n:]


def consistent_accelerations(system, q, v, t=0.0, linear_solver="auto", max_iter=30):
    """q'' and λ consistent with (q, q', t) (:class:`ConsistentAccelerations`)."""
    return ConsistentAccelerations(system, linear_solver, max_iter)(q, v, t)


def characteristic_scales(system, state) -> tuple[float, float]:
    """The model's characteristic acceleration a_c and force f_c, the floors of the scaled
    Newton test (:func:`~flexmbd.solvers.newton.scaled_increment_error`), from its
    consistent initial state: a_c = max(‖q''₀‖∞, |g|), f_c = max(‖λ₀‖∞, ‖Q₀ − Q_v,₀‖∞)
    (the multipliers and the applied forces at the start).  A model that starts at rest
    without any force has neither: 1 m/s² and 1 N stand in (in its units), until its motion
    supplies its own scale (the test is relative to the iterate's size too)."""
    n, m = system.n, system.m
    F = system.evaluate(state.q, state.v, np.zeros(n), np.zeros(m), state.t, matrix=False)[0]
    g = float(np.linalg.norm(getattr(system.model, "gravity", np.zeros(3))))
    a_c = max(np.abs(state.qdd).max(initial=0.0), g)
    f_c = max(np.abs(state.lam).max(initial=0.0), np.abs(F).max(initial=0.0))
    return (a_c if a_c > 0 else 1.0), (f_c if f_c > 0 else 1.0)


@dataclass
class StepState:
    """The state of a run at one time: q, q', the accelerations q'' and the integrator's
    acceleration-like variables a, and the multipliers λ."""

    t: float
    q: np.ndarray
    v: np.ndarray
    qdd: np.ndarray
    a: np.ndarray
    lam: np.ndarray


def initial_state(system, t0=0.0, assemble=True, linear_solver="auto", q=None):
    """The consistent state at t0 from the model's initial configuration (or from ``q``,
    e.g. a static equilibrium) and velocities: positions assembled onto the constraints,
    velocities projected, accelerations and multipliers solved (:func:`consistent_accelerations`)."""
    q, v = (system.q0 if q is None else np.asarray(q, dtype=float)).copy(), system.v0.copy()
    for g in system.constraint_groups:   # groups that count turns start from the initial configuration
        restart = getattr(g, "restart", None)
        if restart is not None:
            restart()
    report = None
    if assemble and system.m:
        q, report = assemble_positions(system, q, t0)
        system.check_removed_equations(q, t0)
        v = project_velocities(system, q, v, t0)
    qdd, lam = consistent_accelerations(system, q, v, t0, linear_solver)
    return StepState(t0, q, v, qdd, qdd.copy(), lam), report
