"""Kinematic analysis of fully driven mechanisms, with driver loads by inverse dynamics.

When the drivers remove every degree of freedom (after the redundant equations have been
dropped, Φ_q is square and regular), the motion follows from the constraints alone.  At
each requested time t (Haug 1989, ch. 3; Nikravesh 1988, ch. 5):

    positions       Φ(q, t) = 0                by Newton, Φ_q Δq = −Φ, starting from
                                                the previous time's q + h q' + ½ h² q'';
    velocities      Φ_q q' = −Φ_t;
    accelerations   Φ_q q'' = γ = −(Φ_q q')_q q' − 2 Φ_qt q' − Φ_tt;
    multipliers     Φ_qᵀ λ = Q − M q'' − Q_v     (inverse dynamics; exact because Φ_q
                                                is square).

The driver loads are −λ of the driver equations (the torque or force the driver exerts
on body j, as in a dynamic :class:`~flexmbd.results.Result`: ``res["motor.torque"]``).
"""
from __future__ import annotations

import time as _time
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..linalg import DENSE_LIMIT
from ..errors import ModelError
from ..results import Result
from ..services import provide
from ..system import freeze_reporting
from .dynamics import StepState


class KinematicsResult(Result):
    """Positions, velocities, accelerations and multipliers at the requested times.

    ``q``, ``v``, ``qdd`` (also as ``a``) and ``lam`` have one row per time; named outputs as for a
    dynamic result; :meth:`driver_loads` gives every driver's torque or force.
    """

    def driver_loads(self):
        """{driver name: torque (rotation driver) or force (translation driver) on body j}."""
        out = {}
        for e in self.system.model.elements:
            if e.type.prescribes_motion and e.name in self.system.owner_equations:
                out[e.name] = -self.lam[:, self.system.owner_equations[e.name][0]]
        return out


class _SquareSolver:
    """LU of the square Φ_q, solves with Φ_q and Φ_qᵀ, and a condition estimate.

    ``condition``: LAPACK's 1-norm estimate (dense), or the ratio of the largest to the
    smallest pivot of SuperLU's U (sparse, a cheaper and rougher indicator); inf if singular.
    """

    def __init__(self, Jq):
        n = Jq.shape[0]
        self.dense = n <= DENSE_LIMIT
        if self.dense:
            Ad = Jq.toarray() if hasattr(Jq, "toarray") else np.asarray(Jq)
            with warnings.catch_warnings():  # singularity is checked below
                warnings.simplefilter("ignore", sla.LinAlgWarning)
                self.lu = sla.lu_factor(Ad, check_finite=False)
            d = np.abs(np.diag(self.lu[0]))
            if d.min() == 0.0 or not np.all(np.isfinite(d)):
                self.condition = np.inf
            else:
                rcond, _ = sla.lapack.dgecon(self.lu[0], np.linalg.norm(Ad, 1), norm="1")
                self.condition = 1.0 / rcond if rcond > 0 else np.inf
        else:
            try:
                self.lu = spla.splu(sp.csc_matrix(Jq), permc_spec="COLAMD")
            except RuntimeError:
                self.condition = np.inf
            else:
                d = np.abs(self.lu.U.diagonal())
                self.condition = float(d.max() / d.min()) if d.min() > 0 else np.inf
        self.singular = not np.isfinite(self.condition) or self.condition > 1e15

    def solve(self, b, transpose=False):
        if self.dense:
            return sla.lu_solve(self.lu, b, trans=1 if transpose else 0, check_finite=False)
        return self.lu.solve(b, trans="T" if transpose else "N")


def _constraints_and_jacobian(system, qe, t):
    """Φ (m,) and Φ_q (m × n; dense for small systems) from one evaluation of every group."""
    if system.n > DENSE_LIMIT:
        return system.constraints(qe, t), system.constraint_jacobian(qe, t)
    Phi = np.empty(system.m)
    Jq = np.zeros((system.m, system.n + 1))  # column n collects ground entries (dropped)
    for g, off in zip(system.constraint_groups, system.constraint_offsets):
        phi, J = g.evaluate(qe, t)
        Phi[off:off + len(g)] = phi
        idx = np.minimum(g.dof_index, system.n)
        rows = np.broadcast_to((off + np.arange(len(g)))[:, None], idx.shape)
        np.add.at(Jq, (rows, idx), J)
    return Phi, Jq[:, :system.n]


def kinematic_analysis(model, times, tol=1e-10, max_iter=25, system=None, loads=True, condition_growth=1e3,
                       max_condition=None, redundancy=None):
    """Kinematics (and, if ``loads``, driver loads) of a fully driven mechanism at ``times``.

    ``times``: non-decreasing; each solution starts Newton from the previous one.
    ``tol``: 2-norm of Φ at convergence.  Raises :class:`ModelError` if the drivers do
    not remove every degree of freedom.  The analysis stops (``success = False``, a
    message naming the time and the worst equation, the times solved so far kept) when
    Newton fails or when Φ_q becomes (nearly) singular: its condition number exceeds
    ``max_condition`` (default: ``condition_growth`` times its value at the first time).
    Near a dead point the solution may jump to another assembly branch, so it is safer
    to stop; ``res.condition`` holds the condition number at every time.
    ``redundancy``: "remove" (default) or "keep" redundant equations when the model is
    frozen here; not with ``system``.
    """
    times = np.asarray(times, dtype=float).reshape(-1)
    if times.size == 0 or not np.all(np.isfinite(times)) or np.any(np.diff(times) < 0):
        raise ValueError("times must be a non-empty, non-decreasing sequence of finite numbers")
    system = freeze_reporting(model, redundancy, system)
    n, m = system.n, system.m
    if m != n:
        drivers = [e.name for e in system.model.elements if e.type.prescribes_motion]
        raise ModelError(
            f"kinematic analysis needs a fully driven mechanism: {n} coordinates but {m} independent constraint "
            f"equations ({n - m} degree(s) of freedom left; drivers: {drivers or 'none'}). Add {n - m} driver(s) "
            "or use simulate()")
    res = KinematicsResult(system)
    conditions = []
    limit = max_condition
    q, v, a = system.q0.copy(), np.zeros(n), np.zeros(n)
    t_prev = times[0]
    zeros_m = np.zeros(m)
    for k, t in enumerate(times):
        c0 = _time.perf_counter()
        dt = t - t_prev
        if k:
            q = system.increment(q, dt * v + 0.5 * dt * dt * a)
        it, failure = 0, None
        while True:
            qe = system.extend(q)
            Phi, Jq = _constraints_and_jacobian(system, qe, t)
            norm = float(np.linalg.norm(Phi))
            if not np.isfinite(norm):
                failure = "constraint residual is not finite"
                break
            if norm < tol:
                break
            if it >= max_iter:
                failure = f"position Newton did not converge in {max_iter} iterations (|Φ| = {norm:.3g})"
                break
            lu = _SquareSolver(Jq)
            if lu.singular:
                failure = "singular constraint Jacobian during the position iteration"
                break
            q = system.increment(q, lu.solve(-Phi))
            it += 1
        if failure is None:
            lu = _SquareSolver(Jq)
            if limit is None:
                limit = condition_growth * lu.condition
            if lu.singular or lu.condition > limit:
                failure = (f"constraint Jacobian (nearly) singular: condition number {lu.condition:.3g} > "
                           f"{limit:.3g}; a dead point of the mechanism, or drivers that do not fix its motion")
        if failure is not None:
            res.fail(f"kinematic analysis stopped at t = {t:.6g} s: {failure}; " + _blame(system, Phi, Jq))
            break
        v = lu.solve(-system.constraint_time_derivative(qe, t))
        a = lu.solve(system.gamma(qe, system.extend_velocity(v), t))
        if loads:
            F, _, _ = system.evaluate(q, v, a, zeros_m, t, matrix=False)  # M q'' + Q_v − Q
            lam = lu.solve(-F, transpose=True)
        else:
            lam = np.full(m, np.nan)
        res.append(StepState(float(t), q.copy(), v.copy(), a.copy(), a.copy(), lam), iterations=it, refreshes=it,
                   factorizations=it + 1, seconds=_time.perf_counter() - c0, substeps=0)
        conditions.append(lu.condition)
        t_prev = t
    if res.success:
        res.message = f"kinematic analysis completed at {len(times)} times"
    res.finish()
    res.condition = np.array(conditions)
    return res


def _blame(system, Phi, Jq):
    """Name the worst equation, or, if Φ is satisfied, the equations that became dependent."""
    n = system.n
    if np.all(np.isfinite(Phi)) and np.linalg.norm(Phi) > 1e-8:
        worst = int(np.argmax(np.abs(Phi)))
        return f"worst equation: {system.describe_row(n + worst)} (|Φ| = {abs(Phi[worst]):.3g})"
    if n > 2000 or not np.all(np.isfinite(Jq.toarray() if hasattr(Jq, "toarray") else Jq)):
        return "the constraint equations are (nearly) dependent"
    U, sv, _ = np.linalg.svd(Jq.toarray() if hasattr(Jq, "toarray") else Jq)
    u = U[:, -1]
    rows = [i for i in np.argsort(-np.abs(u)) if abs(u[i]) > 0.2 * np.abs(u).max()][:4]
    return ("the equations becoming dependent (smallest singular value "
            f"{sv[-1]:.2g}): " + "; ".join(system.describe_row(n + i) for i in rows))

provide("kinematics", kinematic_analysis)
