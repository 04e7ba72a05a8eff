"""Moreau–Jean time-stepping for Coulomb friction in joints (P2's time-stepping
alternative when friction switches many times).

The scheme (Moreau 1988, "Unilateral contact and dry friction in finite freedom dynamics";
Jean 1999, "The non-smooth contact dynamics method", Comput. Methods Appl. Mech. Engrg.
177; Acary & Brogliato 2008, "Numerical Methods for Nonsmooth Dynamical Systems", ch. 10)
integrates velocities and impulses, never accelerations and forces, so a stick–slip
switch costs nothing more than a step.  Step k → k+1 (h, θ ∈ [0, 1], t_θ = t_k + θ h):

    q_θ = q_k + θ h v_k,
    M (v_{k+1} − v_k) + h F₀ + Φ_qᵀ P + Σ_e W_eᵀ P_T,e = 0,            (momentum)
    Φ_q v_{k+1} = −Φ_t − Φ(q_k, t_k) / h,                               (joints)
    q_{k+1} = q_k + h ((1 − θ) v_k + θ v_{k+1}),

with M, F₀ = Q_v − Q (the smooth forces at q'' = 0, λ = 0), Φ_q and Φ_t at (q_θ, t_θ)
(``System.evaluate(..., set_valued=True)``: the friction groups contribute nothing), P the
joints' impulses over the step (λ = P/h is stored) and P_T,e the friction impulse of
friction element e.  The term −Φ(q_k)/h pulls the joints back to Φ = 0: the linearised
drift e_k = Φ(q_k) obeys e_{k+1} = (1 − θ)(e_k − e_{k−1}), whose roots have modulus
√(1 − θ) (√½ for θ = ½, zero for θ = 1): it decays instead of accumulating.

Coulomb's law is imposed at impulse level on the slip velocity at the end of the step,
v_r,e = W_e v_{k+1} (W_e = ∂m_e/∂q of :meth:`~flexmbd.groups.FrictionGroup.slip_kinematics`
at q_θ):

    |P_T,e| ≤ μ*_e ℓ_e P_N,e  if v_r,e = 0,    P_T,e = μ_e ℓ_e P_N,e sgn(v_r,e)  otherwise,

P_T has the sign of v_r (the generalised friction force is −W_eᵀ P_T,e / h), ℓ_e is the
lever (1 for sliding, the pin radius for pins) and P_N,e = ‖P[coupling_index[e]]‖ the
normal impulse.  The bound at stick μ*_e is the static coefficient μ0_e for an element that
stuck at the end of the previous step and μ_e for one that slipped; an element that was
stuck and slips now is re-solved with μ_e (so a sliding element always feels μ, a stuck
one is released only above μ0).

Eliminating v_{k+1} and P with one LU factorisation of the saddle-point matrix
S = [[M, Φ_qᵀ], [Φ_q, 0]] per step leaves v_r = a − G P_T and P = P_free − H P_T
(G = W S⁻¹_vv Wᵀ).  The normal impulse is linearised about its direction: P_N,e = n̂_eᵀ
P_c,e with n̂_e = P_c,e / ‖P_c,e‖ of the previous iterate — for one row (planar sliding)
n̂_e = ±1 and the linearisation is exact once its sign is right (in place of P2's split
P_N = P⁺ − P⁻ into two more unknowns; a sign that flips is re-solved); for two or three rows (spatial sliding, pins)
this is a fixed-point iteration on the norm, repeated until n̂ no longer changes
(‖P_c‖ − n̂ᵀ P_c ≤ 1e-12 ‖P_c‖ and the friction impulses settle).  With P_T = β⁺ − β⁻ and
the slack ζ (= |v_r| when slipping), the friction law is the LCP (Glocker & Pfeiffer 1992;
Anitescu & Potra 1997) in z = (β⁺, β⁻, ζ) ≥ 0:

    w₁ = ζ − v_r ≥ 0 ⊥ β⁺,   w₂ = ζ + v_r ≥ 0 ⊥ β⁻,   w₃ = μ* ℓ P_N − β⁺ − β⁻ ≥ 0 ⊥ ζ,

solved by Lemke's method (:func:`flexmbd.solvers.lcp.lemke`).  A ray termination (no
solution reachable, e.g. a Painlevé-type inconsistency) raises
:class:`TimeSteppingError` naming the friction elements and the time.

The scheme is of order one in the velocities (and positions) whatever θ: the impulse
of a step is a one-point quadrature of the forces (Acary & Brogliato 2008, ch. 10).
It runs on vector (additive) node kinds only — Euler parameters included, but not the
Lie-group kinds, whose configuration is not updated by addition.
"""
from __future__ import annotations

import time

import numpy as np

from ..linalg import LinearSolver
from ..results import Result
from .initial import StepState
from .initial import assemble_positions, project_velocities
from .events import EventWatch
from .lcp import lemke


class TimeSteppingError(RuntimeError):
    """The time-stepping scheme cannot make a step (no solution of the friction LCP, a
    singular joint matrix, or a normal-force iteration that does not settle)."""


def time_stepping(system, t_end: float, h: float, *, t_start: float = 0.0, theta: float = 0.5,
                  state=None, on_step=None) -> Result:
    """Integrate ``system`` (a frozen :class:`~flexmbd.system.System`) from t_start to t_end
    with the Moreau–Jean scheme of step ``h`` (see the module docstring).

    theta:   the midpoint parameter θ ∈ [0, 1] (½: the midpoint rule of Jean 1999).
    state:   a :class:`~flexmbd.solvers.dynamics.StepState` to start from (t_start is then
             state.t); by default the system's initial state, assembled and with its
             velocities projected onto the joints.
    on_step: ``on_step(state, stats)`` after every step; returning False stops the run.

    Every stored step holds q, v, q'' = a = (v_{k+1} − v_k)/h, λ = P/h (the mean
    multipliers of the step) and, per friction element, ``<name>.friction_force`` = −P_T/h
    (the mean force on body j along the slip direction, a torque for pins) and
    ``<name>.slip_state`` (+1 or −1: slipping in that direction, 0: stuck); the first row
    repeats the first step's q'', λ and friction forces (impulse averages over [t0, t0 + h]).
    ``Result.events`` lists (t, element, "stick" | "slip") at every change of state;
    the statistic ``iterations`` counts Lemke pivots.
    """
    if not system.additive:
        raise NotImplementedError("the Moreau–Jean time-stepping runs on vector node kinds (additive "
                                  "coordinates, Euler parameters included); this model has Lie-group nodes")
    if not (h > 0.0):
        raise ValueError(f"h must be positive, got {h}")
    if not (0.0 <= theta <= 1.0):
        raise ValueError(f"theta must lie in [0, 1], got {theta}")
    n, m = system.n, system.m
    if state is None:
        q, v = system.q0.copy(), system.v0.copy()
        if m:
            q, _ = assemble_positions(system, q, t_start)
            system.check_removed_equations(q, t_start)
            v = project_velocities(system, q, v, t_start)
        state = StepState(float(t_start), q, v, np.zeros(n), np.zeros(n), np.zeros(m))
        fresh = True
    else:
        t_start, fresh = float(state.t), False
    n_steps = round((t_end - t_start) / h)
    stepper = _Stepper(system, h, theta)
    res = Result(system, {"name": "moreau-jean", "theta": float(theta)}, h)
    slip = stepper.initial_slip_state(state)
    names = stepper.names
    zero_stats = dict(iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0)
    watch = EventWatch(system)          # penalty elements' switches (joint limits)
    if watch:
        watch.start(state.t, state.q, state.v)
    clock0 = time.perf_counter()
    first = None
    for k in range(1, n_steps + 1):
        c0 = time.perf_counter()
        t1 = t_start + k * h
        try:
            new, force, new_slip, pivots = stepper.step(state, t1, slip)
        except TimeSteppingError as exc:       # stop with the diagnosis, keep every step so far
            if first is None:
                nan = StepState(state.t, state.q, state.v, np.full(n, np.nan), np.full(n, np.nan), np.full(m, np.nan))
                res.append(nan, extra=_extra(names, np.full(len(names), np.nan), slip), **zero_stats)
                if on_step is not None and fresh:
                    on_step(nan, dict(zero_stats))
                first = True
            res.fail(str(exc))
            break
        stats = dict(iterations=pivots, refreshes=0, factorizations=1, seconds=time.perf_counter() - c0,
                     substeps=1)
        if first is None:       # the initial row, with the first step's mean accelerations and forces
            s0 = state if not fresh else StepState(state.t, state.q, state.v, new.qdd, new.a, new.lam)
            res.append(s0, extra=_extra(names, force, slip), **zero_stats)
            if on_step is not None and fresh:
                on_step(s0, dict(zero_stats, extra=_extra(names, force, slip)))
            first = True
        for name, a, b in zip(names, slip, new_slip):
            if a != b:
                res.events.append((t1, name, "stick" if b == 0 else "slip"))
        state, slip = new, new_slip
        if watch:
            res.events += watch.step(state.t, state.q, state.v)
        res.append(state, extra=_extra(names, force, slip), **stats)
        if on_step is not None and on_step(state, dict(stats, extra=_extra(names, force, slip))) is False:
            res.fail(f"stopped by the caller at t = {state.t:.6g} s")
            break
    if first is None:
        res.append(state, extra=_extra(names, np.zeros(len(names)), slip), **zero_stats)
    res.events.sort()
    res.wall_time = time.perf_counter() - clock0
    res.finish()
    return res


def _extra(names, force, slip):
    out = {}
    for name, f, s in zip(names, force, slip):
        out[f"{name}.friction_force"] = float(f)
        out[f"{name}.slip_state"] = int(s)
    return out


class _Stepper:
    """One Moreau–Jean step of a frozen system with its friction elements."""

    MAX_SWEEPS = 100

    def __init__(self, system, h, theta):
        self.sys, self.h, self.theta = system, float(h), float(theta)
        self.lin = LinearSolver("auto")
        self.groups = system.friction_groups
        self.names = [nm for g in self.groups for nm in g.element_names]
        self.labels = [g.describe(e) for g in self.groups for e in range(len(g))]
        self.nf = len(self.names)
        if self.nf:
            self.mu = np.concatenate([g.mu for g in self.groups])
            self.mu0 = np.concatenate([g.mu_static for g in self.groups])
            self.lever = np.concatenate([g.lever for g in self.groups])
            # the normal-force rows of every element (ragged: 1, 2 or 3 rows)
            self.rows = [np.asarray(r, dtype=int) for g in self.groups for r in g.coupling_index]
        #: the normal directions n̂_e of the last step (None: not yet known)
        self.direction = [None] * self.nf

    # ------------------------------------------------------------------ kinematics
    def slip_matrix(self, q, v):
        """v_r (n_f,) at (q, v) and W (n_f, n) over the free coordinates (ground columns dropped)."""
        sys = self.sys
        qe, ve = sys.extend(q), sys.extend_velocity(v)
        W = np.zeros((self.nf, sys.n))
        vr = np.zeros(self.nf)
        e = 0
        for g in self.groups:
            rate, J, _ = g.slip_kinematics(qe, ve)
            for i in range(len(g)):
                cols = g.dof_index[i]
                free = cols < sys.n
                np.add.at(W[e], cols[free], J[i][free])
                vr[e] = rate[i]
                e += 1
        return vr, W

    def initial_slip_state(self, state):
        if not self.nf:
            return np.zeros(0, dtype=int)
        vr, _ = self.slip_matrix(state.q, state.v)
        scale = 1e-12 * max(1.0, float(np.abs(state.v).max(initial=0.0)))
        return np.where(np.abs(vr) > scale, np.sign(vr), 0).astype(int)

    # ------------------------------------------------------------------ one step
    def step(self, s, t1, slip):
        sys, h, th = self.sys, self.h, self.theta
        n, m = sys.n, sys.m
        t_th = s.t + th * h
        q_th = s.q + th * h * s.v
        F0, _, A = sys.evaluate(q_th, s.v, np.zeros(n), np.zeros(m), t_th, cM=1.0, cD=0.0, cK=0.0,
                                set_valued=True)
        if m:
            qe_th = sys.extend(q_th)
            Phi_q = A[n:, :n]
            phi_t = sys.constraint_time_derivative(qe_th, t_th)
            phi_k = sys.constraints(sys.extend(s.q), s.t)
            b = -phi_t - phi_k / h - Phi_q @ s.v
        else:
            b = np.zeros(0)
        try:
            self.lin.factorize(A)
        except np.linalg.LinAlgError as exc:
            raise TimeSteppingError(f"time-stepping: singular joint matrix [[M, Φ_qᵀ], [Φ_q, 0]] at t = "
                                    f"{s.t:.6g} s (redundant joints kept, or a body without mass): {exc}") from None
        rhs = np.r_[-h * F0, b][:, None]
        if self.nf:
            _, W = self.slip_matrix(q_th, s.v)
            rhs = np.hstack([rhs, np.vstack([W.T, np.zeros((m, self.nf))])])
        # S⁻¹ [r, (Wᵀ; 0)] column by column: on these small matrices a many-column solve goes
        # through threaded level-3 BLAS, measured a hundred times slower than the columns
        X = np.column_stack([self.lin.solve(rhs[:, i]) for i in range(rhs.shape[1])])
        dv, P = X[:n, 0], X[n:, 0]
        pivots = 0
        if self.nf:
            Xv, XP = X[:n, 1:], X[n:, 1:]                         # the response to unit friction impulses
            a = W @ (s.v + dv)                                    # slip velocity without friction
            G = W @ Xv
            PT, state, pivots = self.friction(a, G, P, XP, slip, t1)
            dv = dv - Xv @ PT
            P = P - XP @ PT
            force = -PT / h
        else:
            state, force = np.zeros(0, dtype=int), np.zeros(0)
        v1 = s.v + dv
        q1 = s.q + h * ((1.0 - th) * s.v + th * v1)
        acc = dv / h
        return StepState(t1, q1, v1, acc, acc.copy(), P / h), force, state, pivots

    def friction(self, a, G, P0, XP, slip, t1):
        """The friction impulses P_T (n_f,), the slip states and the Lemke pivots made."""
        nf = self.nf
        bound = np.where(slip == 0, self.mu0, self.mu) * self.lever          # μ* ℓ
        dirs = []
        for e, r in enumerate(self.rows):
            d = self.direction[e]
            pc = P0[r]
            if d is None:
                d = pc / np.linalg.norm(pc) if np.linalg.norm(pc) > 0 else np.eye(len(r))[0]
            dirs.append(d)
        pivots, PT = 0, np.zeros(nf)
        flipped = False
        for sweep in range(self.MAX_SWEEPS):
            # P_N = N0 − Nm P_T (linear in P_T along the current directions)
            N0 = np.array([d @ P0[r] for d, r in zip(dirs, self.rows)])
            Nm = np.array([d @ XP[r] for d, r in zip(dirs, self.rows)])      # (n_f, n_f)
            C = np.diag(bound)
            I, Z = np.eye(nf), np.zeros((nf, nf))
            Mlcp = np.block([[G, -G, I], [-G, G, I], [-(C @ Nm) - I, C @ Nm - I, Z]])
            qlcp = np.r_[-a, a, bound * N0]
            sol = lemke(Mlcp, qlcp)
            pivots += sol.pivots
            if sol.z is None:
                # a normal force linearised about last step's side can be negative when the slider
                # changes side of the slot: take the side of the frictionless impulse, once
                wrong = [e for e, r in enumerate(self.rows) if N0[e] < 0.0]
                if wrong and not flipped:
                    flipped = True
                    for e in wrong:
                        pc = P0[self.rows[e]]
                        nrm = np.linalg.norm(pc)
                        dirs[e] = pc / nrm if nrm > 0.0 else -dirs[e]
                    continue
                raise TimeSteppingError(
                    f"time-stepping: the friction problem of the step to t = {t1:.6g} s has no solution "
                    f"(Lemke's method ended on a ray; a Painlevé-type inconsistency of {', '.join(self.labels)})")
            PT_new = sol.z[:nf] - sol.z[nf:2 * nf]
            zeta = sol.z[2 * nf:]
            vr = a - G @ PT_new
            tol = 1e-12 * (1.0 + np.abs(a))
            state = np.where(zeta > tol, np.sign(vr), 0).astype(int)
            P = P0 - XP @ PT_new
            # the normal directions at this solution, and how far the linearisation was off
            settled = True
            new_dirs = []
            for e, (d, r) in enumerate(zip(dirs, self.rows)):
                pc = P[r]
                norm = np.linalg.norm(pc)
                if norm > 0.0 and norm - d @ pc > 1e-12 * norm:
                    settled = False
                new_dirs.append(pc / norm if norm > 0.0 else d)
            released = (slip == 0) & (state != 0) & (bound > self.mu * self.lever)
            change = np.abs(PT_new - PT).max(initial=0.0) if sweep else np.inf
            PT = PT_new
            if released.any():        # stuck elements that slip now feel the kinetic coefficient
                bound = np.where(released, self.mu * self.lever, bound)
                settled = False
            dirs = new_dirs
            if settled or (change <= 1e-13 * (1.0 + np.abs(PT).max()) and not released.any()):
                break
        else:
            raise TimeSteppingError(
                f"time-stepping: the normal forces of {', '.join(self.labels)} did not settle "
                f"in {self.MAX_SWEEPS} sweeps in the step to t = {t1:.6g} s")
        self.direction = dirs
        return PT, state, pivots


__all__ = ["TimeSteppingError", "time_stepping"]
