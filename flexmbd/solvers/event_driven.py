"""P2's event-driven method for Coulomb friction in joints.

Wang, Wang & Zhuang (2014) write the planar equations at acceleration level,

    M q'' + Φ_qᵀ λ + Σ_e ℓ_e μ_e |λ_N,e| s_e W_eᵀ = Q − Q_v,
    Φ_q q'' = γ − 2α Φ' − β² Φ                       (Baumgarte, P2 eq. for Φ'' + 2αΦ' + β²Φ = 0),

with s_e = sgn(v_r,e) the slip direction of friction element e (v_r = W q',
:class:`~flexmbd.groups.FrictionGroup`) and λ_N,e its joint's normal multiplier.  Because
|λ_N| enters, they split λ_N = λ⁺ − λ⁻, |λ_N| = λ⁺ + λ⁻ with λ⁺, λ⁻ ≥ 0, λ⁺λ⁻ = 0: with
x = K⁻¹(b − D u) the normal multipliers are λ_N = a₀ − B u, u = |λ_N|, and

    (I + B) λ⁺ = a₀ + (I − B) λ⁻,

a linear complementarity problem in (λ⁺, λ⁻) (the "horizontal" LCP of P2), solved by
Lemke's method (:mod:`.lcp`); a ray termination is the Painlevé-type inconsistency, reported
naming the joints.  A spatial joint's normal force is the norm of several multipliers; those
are solved by Newton's method on u = ‖λ_N(u)‖ instead.

A sticking element adds the constraint W_e q'' + W_e' q' = −2α v_r with multiplier λ_T,e
(its friction force is −λ_T,e) and holds while |λ_T,e| ≤ ℓ_e μ0_e N_e.  Switching functions,
located by Brent's method along the integrator's own step (so the state at the event is the
integrator's): s_e v_r,e (slip ends), ℓ μ0 N − |λ_T| (stick ends) and λ_N,e (contact side
switches, one-row normal forces).  At the end of a slip the element sticks if the
stick problem is solvable within the static bound; otherwise it slips in the direction
sgn(λ_T) of the needed friction, or, when sticking is kinematically impossible (the
crank-rocker, whose motion is prescribed), in the direction its acceleration takes.

Between events the classical fourth-order Runge-Kutta method advances (q, q') on the
output grid t₀ + k h, cut at each event (vector node kinds, q' = v).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.optimize as so

from ..errors import ModelError
from .events import EventWatch
from .lcp import lemke


class FrictionInconsistency(RuntimeError):
    """The friction problem has no solution (Painlevé-type) or no consistent mode."""


@dataclass
class Acceleration:
    """One solve of the acceleration-level problem."""

    a: np.ndarray
    lam: np.ndarray
    normal: np.ndarray       # N_e ≥ 0
    side: np.ndarray         # signed λ_N,e (one-row normal forces; NaN otherwise)
    friction: np.ndarray     # friction force (torque for pins) on body j along the slip measure
    slip_velocity: np.ndarray
    slip_acceleration: np.ndarray
    lam_t: np.ndarray        # stick multipliers (0 for sliding elements)


class AccelerationProblem:
    """The acceleration-level problem of a system with friction groups (module docstring)."""

    def __init__(self, system, alpha: float, beta: float):
        if not system.additive:
            raise ModelError("the event-driven solver runs on vector node kinds (rigid bodies with Euler "
                             "parameters, planar bodies, ANCF nodes); this model has Lie-group nodes")
        self.sys, self.alpha, self.beta = system, float(alpha), float(beta)
        self.groups = system.friction_groups
        self.names = [nm for g in self.groups for nm in g.element_names]
        self.labels = [g.describe(e) for g in self.groups for e in range(len(g))]
        self.nf = len(self.names)
        self.rows = [r for g in self.groups for r in g.coupling_index]
        self.one_row = np.array([len(r) == 1 for r in self.rows], dtype=bool)
        self.mu = np.concatenate([g.mu for g in self.groups]) if self.groups else np.zeros(0)
        self.mu0 = np.concatenate([g.mu_static for g in self.groups]) if self.groups else np.zeros(0)
        self.lever = np.concatenate([g.lever for g in self.groups]) if self.groups else np.zeros(0)
        self.solves = 0

    # ------------------------------------------------------------ kinematics
    def slip_rows(self, qe, ve):
        """W (nf, n) over the free coordinates, W' q' (nf,) and v_r (nf,)."""
        n = self.sys.n
        W = np.zeros((self.nf, n))
        dWv, vr = np.zeros(self.nf), np.zeros(self.nf)
        k = 0
        for g in self.groups:
            rate, J, d = g.slip_kinematics(qe, ve)
            for e in range(len(g)):
                cols = g.dof_index[e]
                free = cols < n
                np.add.at(W[k], cols[free], J[e, free])
                k += 1
            dWv[k - len(g):k], vr[k - len(g):k] = d, rate
        return W, dWv, vr

    # ----------------------------------------------------------------- solve
    def solve(self, t: float, q: np.ndarray, v: np.ndarray, modes: np.ndarray) -> Acceleration:
        """q'', λ and the friction quantities for slip directions / stick ``modes`` (+1, −1, 0).
        Raises FrictionInconsistency if the problem has no solution."""
        sys, n, m = self.sys, self.sys.n, self.sys.m
        self.solves += 1
        qe, ve = sys.extend(q), sys.extend_velocity(v)
        F0, _, A = sys.evaluate(q, v, np.zeros(n), np.zeros(m), t, cM=1.0, cD=0.0, cK=0.0, set_valued=True)
        A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
        rhs_c = np.zeros(m)
        if m:
            phi = sys.constraints(qe, t)
            dphi = A[n:, :n] @ v + sys.constraint_time_derivative(qe, t)
            rhs_c = sys.gamma(qe, ve, t) - 2.0 * self.alpha * dphi - self.beta ** 2 * phi
        W, dWv, vr = self.slip_rows(qe, ve)
        stick = np.flatnonzero(modes == 0)
        slip = np.flatnonzero(modes != 0)
        ns = len(stick)
        K = np.zeros((n + m + ns, n + m + ns))
        K[:n + m, :n + m] = A
        K[n + m:, :n] = W[stick]
        K[:n, n + m:] = W[stick].T
        b = np.r_[-F0, rhs_c, -dWv[stick] - 2.0 * self.alpha * vr[stick]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)     # singular: checked below
            lu = sla.lu_factor(K, check_finite=False)
        diag = np.abs(np.diag(lu[0]))
        if diag.min(initial=np.inf) <= 1e-11 * diag.max(initial=1.0):
            raise np.linalg.LinAlgError("singular")
        D = np.zeros((n + m + ns, len(slip)))
        D[:n, :] = (self.lever[slip] * self.mu[slip] * modes[slip])[None, :] * W[slip].T
        xb = sla.lu_solve(lu, b, check_finite=False)
        u = np.zeros(len(slip))
        if len(slip):
            KD = sla.lu_solve(lu, D, check_finite=False)
            u = self._normal_forces(slip, xb, KD)
            x = xb - KD @ u
        else:
            x = xb
        a, lam, lam_t = x[:n], x[n:n + m], np.zeros(self.nf)
        lam_t[stick] = x[n + m:]
        normal = np.array([np.linalg.norm(lam[r]) for r in self.rows])
        side = np.array([lam[r[0]] if len(r) == 1 else np.nan for r in self.rows])
        friction = -lam_t
        friction[slip] = -self.lever[slip] * self.mu[slip] * normal[slip] * modes[slip]
        return Acceleration(a, lam, normal, side, friction, vr, W @ a + dWv, lam_t)

    def _normal_forces(self, slip, xb, KD):
        """u = |λ_N| of the slipping elements: the HLCP by Lemke (one-row normal forces) or
        Newton's method on u = ‖λ_N(u)‖ (several rows)."""
        n = self.sys.n
        rows = [np.asarray(self.rows[e]) + n for e in slip]
        if all(len(r) == 1 for r in rows):
            idx = np.array([r[0] for r in rows])
            a0, B = xb[idx], KD[idx]
            I = np.eye(len(slip))
            try:
                Minv = np.linalg.inv(I + B)
            except np.linalg.LinAlgError:
                Minv = None
            sol = lemke(Minv @ (I - B), Minv @ a0) if Minv is not None else None
            if sol is None or not sol.solved:
                raise FrictionInconsistency(
                    "the friction problem has no solution (Painlevé-type inconsistency) for "
                    + ", ".join(self.labels[e] for e in slip)
                    + ": the normal force cannot be found with the friction it causes")
            return sol.z + sol.w
        u = np.array([np.linalg.norm(xb[r]) for r in rows])
        for _ in range(50):
            lam = [xb[r] - KD[r] @ u for r in rows]
            norms = np.array([np.linalg.norm(x) for x in lam])
            G = u - norms
            if np.abs(G).max() <= 1e-13 * (1.0 + np.abs(u).max()):
                return u
            Jg = np.eye(len(u))
            for i, (r, x, nx) in enumerate(zip(rows, lam, norms)):
                if nx > 0:
                    Jg[i] += (x / nx) @ KD[r]
            u = u - np.linalg.solve(Jg, G)
        raise FrictionInconsistency("the normal forces of "
                                    + ", ".join(self.labels[e] for e in slip)
                                    + " did not converge (friction too large for the joints' geometry?)")

    # ------------------------------------------------------------------ modes
    def decide(self, t, q, v, modes, e, previous: int) -> int:
        """The new mode of element e whose slip velocity is zero (module docstring)."""
        trial = modes.copy()
        trial[e] = 0
        try:
            acc = self.solve(t, q, v, trial)
        except (np.linalg.LinAlgError, FrictionInconsistency):
            acc = None
        if acc is not None:
            if abs(acc.lam_t[e]) <= self.lever[e] * self.mu0[e] * acc.normal[e] * (1 + 1e-9) + 1e-300:
                return 0
            candidates = [int(np.sign(acc.lam_t[e])) or 1]
        else:
            candidates = [-previous or 1, previous or -1]
        for s in candidates:
            trial[e] = s
            try:
                acc = self.solve(t, q, v, trial)
            except (np.linalg.LinAlgError, FrictionInconsistency):
                continue
            if s * acc.slip_acceleration[e] >= -1e-9 * (1.0 + abs(acc.slip_acceleration[e])):
                return s
        raise FrictionInconsistency(f"{self.labels[e]} can neither stick nor slip "
                                    "consistently (Painlevé-type inconsistency)")

    def initial_modes(self, t, q, v, v_tol):
        W, _, vr = self.slip_rows(self.sys.extend(q), self.sys.extend_velocity(v))
        modes = np.where(np.abs(vr) > v_tol, np.sign(vr), 0).astype(int)
        for e in np.flatnonzero(modes == 0):
            modes[e] = 1                  # a provisional slip; decided below
        for e in np.flatnonzero(np.abs(vr) <= v_tol):
            modes[e] = self.decide(t, q, v, modes, e, 1)
        return modes


# ====================================================================== integration
def _switching(acc: Acceleration, modes, problem) -> np.ndarray:
    """Switching functions: (end of slip or stick) per element, then contact side."""
    end = np.where(modes != 0, modes * acc.slip_velocity,
                   problem.lever * problem.mu0 * acc.normal - np.abs(acc.lam_t))
    return np.r_[end, np.where(problem.one_row, acc.side, 0.0)]


def _rk4(problem, t, q, v, h, modes, acc0=None):
    f = problem.solve
    k1 = acc0 if acc0 is not None else f(t, q, v, modes)
    q2, v2 = q + 0.5 * h * v, v + 0.5 * h * k1.a
    k2 = f(t + 0.5 * h, q2, v2, modes)
    q3, v3 = q + 0.5 * h * v2, v + 0.5 * h * k2.a
    k3 = f(t + 0.5 * h, q3, v3, modes)
    q4, v4 = q + h * v3, v + h * k3.a
    k4 = f(t + h, q4, v4, modes)
    return (q + h / 6.0 * (v + 2 * v2 + 2 * v3 + v4),
            v + h / 6.0 * (k1.a + 2 * k2.a + 2 * k3.a + k4.a))


def event_driven(system, t_end: float, h: float, *, t_start: float = 0.0, alpha: float = 10.0,
                 beta: float = 10.0, state=None, on_step=None, progress=None, max_events: int = 100000):
    """Integrate ``system`` by P2's event-driven method (module docstring) from t_start (or
    ``state``) to t_end, output every h.  Returns a :class:`~flexmbd.results.Result` whose
    ``extra`` holds per friction element ``friction_force`` (set-valued) and ``slip_state``
    (+1/−1 slipping that way, 0 sticking), and ``constraints.position_error`` /
    ``constraints.velocity_error`` (‖Φ‖, ‖Φ_q q' + Φ_t‖, the drift Baumgarte controls);
    ``events`` lists (time, element, kind)."""
    from ..results import Result
    from .initial import StepState, initial_state

    problem = AccelerationProblem(system, alpha, beta)
    if state is None:
        state, report = initial_state(system, t_start)
    else:
        report = None
    t, q, v = state.t, state.q.copy(), state.v.copy()
    res = Result(system, {"name": "event-driven", "baumgarte_alpha": float(alpha), "baumgarte_beta": float(beta)}, h)
    res.assembly = report
    scale_v = 1e-12 * (1.0 + np.abs(v).max(initial=0.0))
    modes = np.zeros(problem.nf, dtype=int)

    def record(t, q, v, acc, stats):
        qe = system.extend(q)
        extra = {f"{nm}.friction_force": acc.friction[i] for i, nm in enumerate(problem.names)}
        extra.update({f"{nm}.slip_state": float(modes[i]) if np.isfinite(acc.friction[i]) else np.nan
                      for i, nm in enumerate(problem.names)})
        if system.m:
            phi = system.constraints(qe, t)
            dphi = system.constraint_jacobian(qe, t) @ v + system.constraint_time_derivative(qe, t)
            extra["constraints.position_error"] = float(np.linalg.norm(phi))
            extra["constraints.velocity_error"] = float(np.linalg.norm(dphi))
        st = StepState(t, q.copy(), v.copy(), acc.a.copy(), acc.a.copy(), acc.lam.copy())
        res.append(st, extra=extra, **stats)
        if on_step is not None:
            return on_step(st, dict(stats, extra=extra))
        return True

    try:
        modes = problem.initial_modes(t, q, v, scale_v)
        acc = problem.solve(t, q, v, modes)
    except (FrictionInconsistency, np.linalg.LinAlgError) as exc:
        # the initial state is kept (accelerations and multipliers unknown: NaN)
        nan = Acceleration(np.full(system.n, np.nan), np.full(system.m, np.nan), *(np.full(problem.nf, np.nan),) * 6)
        record(t, q, v, nan, dict(iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0))
        res.fail(f"event-driven run cannot start at t = {t:.9g} s: {exc}")
        res.finish()
        return res

    record(t, q, v, acc, dict(iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0))
    watch = EventWatch(system)          # penalty elements' switches (joint limits), between output steps
    if watch:
        watch.start(t, q, v)
    origin = t
    n_steps = int(round((t_end - origin) / h))
    muted: set[int] = set()
    clock0 = time.perf_counter()
    for k in range(1, n_steps + 1):
        c0, solves0, events0 = time.perf_counter(), problem.solves, len(res.events)
        target = origin + k * h
        try:
            while target - t > 1e-12 * max(1.0, abs(target)):
                dt = target - t
                q1, v1 = _rk4(problem, t, q, v, dt, modes, acc)
                acc1 = problem.solve(t + dt, q1, v1, modes)
                g0, g1 = _switching(acc, modes, problem), _switching(acc1, modes, problem)
                nf = problem.nf
                cross = np.r_[(g0[:nf] > 0) & (g1[:nf] <= 0), (g0[nf:] * g1[nf:] < 0)]
                cross[list(muted)] = False     # switched at this instant: not again
                crossed = np.flatnonzero(cross)
                if not crossed.size:
                    t, q, v, acc = t + dt, q1, v1, acc1
                    muted.clear()
                    break
                if len(res.events) >= max_events:
                    raise FrictionInconsistency(f"more than {max_events} events (chattering? the time-stepping "
                                                "method suits many switches)")
                taus = []
                for i in crossed:
                    def g(tau, i=i):
                        if tau == 0.0:
                            return g0[i]
                        qq, vv = _rk4(problem, t, q, v, tau, modes, acc)
                        return _switching(problem.solve(t + tau, qq, vv, modes), modes, problem)[i]
                    taus.append(so.brentq(g, 0.0, dt, xtol=1e-14 * max(1.0, abs(t)), rtol=4 * np.finfo(float).eps))
                tau = min(taus)
                q, v = _rk4(problem, t, q, v, tau, modes, acc)
                t = t + tau
                if tau > 1e-12 * max(1.0, abs(t)):
                    muted.clear()
                for i, ti in zip(crossed, taus):
                    if ti > tau + 1e-12 * max(1.0, abs(t)):
                        continue
                    muted.add(int(i))
                    if i >= nf:
                        res.events.append((t, problem.names[i - nf], "contact side switch"))
                        continue
                    old = int(modes[i])
                    if old != 0:
                        new = problem.decide(t, q, v, modes, i, old)
                    else:
                        trial = problem.solve(t, q, v, modes)
                        new = int(np.sign(trial.lam_t[i])) or 1
                    modes[i] = new
                    kind = ("stick" if new == 0 else "slip reversal" if old != 0 else "slip") if new != old else "slip"
                    res.events.append((t, problem.names[i], kind))
                acc = problem.solve(t, q, v, modes)
        except (FrictionInconsistency, np.linalg.LinAlgError) as exc:
            res.fail(f"event-driven run stopped at t = {t:.9g} s: {exc}")
            break
        stats = dict(iterations=problem.solves - solves0, refreshes=0, factorizations=problem.solves - solves0,
                     seconds=time.perf_counter() - c0, substeps=len(res.events) - events0)
        if watch:
            res.events += watch.step(t, q, v)
        if record(t, q, v, acc, stats) is False:
            res.fail(f"stopped by the caller at t = {t:.6g} s")
            break
        if progress is not None:
            progress(t, k, n_steps, None)
    res.events.sort()
    res.wall_time = time.perf_counter() - clock0
    res.finish()
    return res
