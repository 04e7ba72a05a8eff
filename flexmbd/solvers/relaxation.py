"""Dynamic relaxation: static equilibrium (form-finding) by damped time integration.

P1 (Kan, Peng & Chen 2017, example 2) finds the self-equilibrium of a tensegrity by
integrating its free motion with the cables' own dampers until it comes to rest.
:func:`relax` drives the implicit Newmark stepper of :mod:`.dynamics` step by step and
stops when the kinetic energy *and* the static out-of-balance force are below their
tolerances.  Three ways to take the energy out:

``"physical"``
    only the model's own dampers (and the integrator's numerical dissipation; P1's
    approach with Newmark β = 0.3, γ = 0.6).  Modes that do not stretch any damper to
    first order -- e.g. the infinitesimal mechanism of a prestress-stable tensegrity --
    are damped only by the integrator, so this can be slow.
``"kinetic"``
    kinetic damping (Cundall 1976; Barnes 1999): whenever the kinetic energy has passed
    a peak, the state of the peak step is restored with all velocities set to zero (and
    consistent accelerations).  The model's dampers stay active.
``"viscous"``
    artificial mass-proportional damping: a generalised force −α M(q) q' is added to the
    equations of motion (on a rigid body, −α m v and the torque −α J ω).  It is added by
    a thin wrapper around the frozen system's ``evaluate`` (residual α M q', Newton matrix
    c_D α M; the small ∂(M q')/∂q term is left out of the matrix, which only affects the
    Newton rate), so no core hook is needed.  Like the physical dampers it exerts no net
    force or moment on a free system at rest in the centre-of-mass frame: a system
    started with zero momentum keeps zero linear and angular momentum.  ``alpha``
    defaults to 2 ω_min estimated from the lowest non-zero frequency of the linearised
    initial system (critical damping of the slowest mode would be α = 2 ω_min; the
    default is then near-optimal for the slowest and over-damped for the others).

Convergence is declared when ``E_kin ≤ ke_tol`` and the static residual -- the
2-norm of ``−Q(q) + Φ_qᵀ λ`` at zero velocity, with λ chosen by least squares -- is
``≤ force_tol``.  The Newton tolerance ``tol`` of each step should be well below
``force_tol`` (default: force_tol / 10).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .dynamics import DynamicsStepper, StepState, initial_state
from .initial import consistent_accelerations
from .integrators import Newmark, integrator_from_name
from .newton import NewtonSolver

__all__ = ["relax", "RelaxationResult", "static_residual", "DAMPING_MODES"]

DAMPING_MODES = ("physical", "kinetic", "viscous")


@dataclass
class RelaxationResult:
    """Outcome of :func:`relax`.

    ``converged`` and ``message`` tell whether both tolerances were met; ``q``, ``v``
    (and ``state``, the full stepper state) are the final state at time ``t``;
    ``kinetic_energy`` and ``residual`` are per-step histories (index 0 = start;
    ``residual`` is NaN where it was not evaluated, i.e. while E_kin > ke_tol);
    ``times`` the step times; ``iterations`` the Newton iterations per step.
    ``resets`` counts kinetic-damping resets, ``halvings`` the step-size halvings after
    failed Newton solves.  ``result`` is a :class:`~flexmbd.results.Result` of the
    whole run when ``record=True`` (kinetic-damping resets show as velocity jumps).
    """

    converged: bool
    message: str
    system: object
    state: StepState
    steps: int
    t: float
    times: np.ndarray
    kinetic_energy: np.ndarray
    residual: np.ndarray
    iterations: np.ndarray
    resets: int
    halvings: int
    seconds: float
    damping: str
    alpha: float = 0.0
    result: object = None
    info: dict = field(default_factory=dict)

    @property
    def q(self):
        return self.state.q

    @property
    def v(self):
        return self.state.v

    @property
    def total_iterations(self):
        return int(np.sum(self.iterations))

    @property
    def final_residual(self):
        return float(self.residual[-1])

    def summary(self):
        head = "converged" if self.converged else "NOT converged"
        s = (f"{head} ({self.damping} damping): {self.steps} steps to t = {self.t:.6g} s, "
             f"{self.total_iterations} Newton iterations, E_kin = {self.kinetic_energy[-1]:.3g} J, "
             f"static residual {self.final_residual:.3g}, {self.seconds:.2f} s wall")
        if self.resets:
            s += f", {self.resets} kinetic-damping resets"
        if self.alpha:
            s += f", alpha = {self.alpha:.4g} 1/s"
        return s + f"\n{self.message}"


class _MassDampedSystem:
    """Wraps a frozen System: adds α M(q) q' to the residual and c_D α M to the matrix."""

    def __init__(self, system, alpha):
        self._sys = system
        self.alpha = float(alpha)
        #: its equations are not the wrapped system's: no compiled Newton step (solvers/dynamics.py)
        self.compiled = None

    def __getattr__(self, name):
        return getattr(self._sys, name)

    def evaluate(self, q, v, a, lam, t, *, cM=1.0, cD=0.0, cK=0.0, matrix=True, **kw):
        F, Phi, A = self._sys.evaluate(q, v, a, lam, t, cM=cM, cD=cD, cK=cK, matrix=matrix, **kw)
        if self.alpha == 0.0:
            return F, Phi, A
        M = self._sys.mass_matrix(q)
        F = F + self.alpha * (M @ v)
        if A is not None and cD != 0.0:
            n, N = self._sys.n, A.shape[0]
            Mp = sp.bmat([[cD * self.alpha * M, None], [None, sp.csr_matrix((N - n, N - n))]])
            if sp.issparse(A):
                A = (A + Mp).tocsc()
            else:
                A = np.asarray(A) + Mp.toarray()
        return F, Phi, A


def static_residual(system, q, t=0.0):
    """2-norm of the out-of-balance generalised force at rest, min over λ of |−Q + Φ_qᵀ λ|.

    Returns (norm, residual vector).
    """
    n = system.n
    F, _, _ = system.evaluate(q, np.zeros(n), np.zeros(n), np.zeros(system.m), t, matrix=False)
    if system.m:
        Jq = system.constraint_jacobian(system.extend(q), t)
        Jq = Jq.toarray() if hasattr(Jq, "toarray") else np.asarray(Jq)
        lam, *_ = np.linalg.lstsq(Jq.T, -F, rcond=None)
        F = F + Jq.T @ lam
    return float(np.linalg.norm(F)), F


#: systems with at most this many unknowns (plus constraint rows): all modes, densely
DENSE_EIGEN_LIMIT = 200
#: a mode is a zero (rigid-body or mechanism) mode when its stiffness ω² vᵀMv is within
#: this many units of rounding of |v|ᵀ|K||v|, the size of the terms that cancel in vᵀKv
ZERO_MODE_ROUNDING = 10.0


def lowest_frequency(system, q, modes: int = 12) -> float:
    """Lowest non-zero natural frequency [rad/s] of the linearised system at (q, 0).

    The undamped modes of the system linearised at rest, constraints included (Lagrange
    multipliers μ), solve the generalised eigenproblem of the saddle-point pencil

        [K  Φ_qᵀ] [x]       [M  0] [x]
        [Φ_q  0 ] [μ] = ω²  [0  0] [μ],      K = ½ (∂F/∂q + ∂F/∂qᵀ)  (λ = 0),

    whose finite eigenvalues are the ω² of the motions x in the tangent space of the
    constraints.  They are computed in shift-invert mode (Lehoucq, Sorensen & Yang,
    *ARPACK Users' Guide*, SIAM 1998: the spectral transformation μ = 1/(ω² − σ), the
    eigenvalues of (P − σB)⁻¹B, P and B the matrices above, with the sparse LU of
    P − σB): all of them densely up to ``DENSE_EIGEN_LIMIT`` unknowns, else the ``modes``
    largest μ by ARPACK (``scipy.sparse.linalg.eigs``), and more while all of them are
    zero modes.  The lowest modes are found directly, whatever the largest eigenvalue: no
    floor relative to the stiffest mode, which for stiff structures (axial, shear and
    rotary modes of beams) can lie 1e12 above the bending modes.  The shift σ =
    −ε^¾ ‖K‖₁/‖M‖₁ (a choice of ours) makes P − σB regular when the system has zero
    modes, lifting them some 1e4 times above the rounding level ε ‖K‖₁/‖M‖₁ of their
    computed ω², so that their eigenvectors come out clean; it lies far below the
    stiffest modes, so σ + 1/μ loses no digits that matter.

    Zero modes (rigid-body motions, mechanisms) are recognised by rounding, not by size:
    a mode (ω², v) is a zero mode when ω² vᵀMv ≤ ``ZERO_MODE_ROUNDING`` · ε · |v|ᵀ|K||v|,
    i.e. when its stiffness vᵀKv is within the rounding noise of the terms that cancel in
    it (ω² from the shift-invert solve, not vᵀKv itself, which a rigid mode computed with
    a trace of the stiff modes would overstate; the error bound
    γ_n |x|ᵀ|y| of a computed inner product xᵀy, Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., SIAM 2002, ch. 3).  Negative ω² (an
    unstable linearisation) are skipped.  Returns 0.0 if no positive non-zero mode exists.
    """
    n, m = system.n, system.m
    _, _, A = system.evaluate(q, np.zeros(n), np.zeros(n), np.zeros(m), 0.0, cM=0.0, cD=0.0, cK=1.0)
    K = sp.csr_matrix(A)[:n, :n]
    K = (0.5 * (K + K.T)).tocsr()
    M = sp.csr_matrix(system.mass_matrix(q))
    J = sp.csr_matrix(system.constraint_jacobian(system.extend(q), 0.0)) if m else sp.csr_matrix((0, n))
    P = sp.bmat([[K, J.T], [J, None]], format="csc") if m else K.tocsc()
    B = sp.block_diag([M, sp.csr_matrix((m, m))], format="csc") if m else M.tocsc()
    N = n + m
    scale = spla.norm(K, 1) / max(spla.norm(M, 1), np.finfo(float).tiny)
    if scale == 0.0:                          # no stiffness at all: only zero modes
        return 0.0
    sigma = -np.finfo(float).eps ** 0.75 * scale
    try:
        lu = spla.splu((P - sigma * B).tocsc(), permc_spec="COLAMD")
    except RuntimeError:
        raise np.linalg.LinAlgError("lowest_frequency: the linearised system has a direction with neither "
                                    "stiffness nor mass (or redundant constraints)") from None
    if N <= DENSE_EIGEN_LIMIT:                # all eigenvalues μ = 1/(ω² − σ) of (P − σB)⁻¹ B
        mu, X = np.linalg.eig(lu.solve(B.toarray()))
        ok = np.isfinite(mu) & (np.abs(mu) > 0)
        return _lowest_positive((sigma + 1.0 / mu[ok], X[:, ok]), K, M, n)
    op = spla.LinearOperator((N, N), matvec=lambda x: lu.solve(np.asarray(B @ x, dtype=float)), dtype=float)
    k = min(max(int(modes), 1), N - 2)
    while True:
        mu, X = spla.eigs(op, k=k, which="LM", tol=1e-12)
        ok = np.isfinite(mu) & (np.abs(mu) > 0)
        found = _lowest_positive((sigma + 1.0 / mu[ok], X[:, ok]), K, M, n)
        if found > 0.0 or k >= N - 2:
            return found
        k = min(2 * k, N - 2)


def _lowest_positive(pairs, K, M, n):
    """√ of the smallest positive ω² among the eigenpairs whose mode is not a zero mode."""
    w2, X = pairs
    w2, X = np.real(w2), np.asarray(X)[:n]
    absK = abs(K)
    best = np.inf
    for i in np.argsort(w2):
        x = X[:, i]
        j = int(np.argmax(np.abs(x)))
        if x[j] == 0:
            continue
        v = np.real(x * (np.conj(x[j]) / abs(x[j])))   # the real mode (eigenvectors come with any phase)
        noise = float(np.abs(v) @ (absK @ np.abs(v)))
        if w2[i] * float(v @ (M @ v)) <= ZERO_MODE_ROUNDING * np.finfo(float).eps * noise:   # zero or negative
            continue
        best = w2[i]
        break
    return float(np.sqrt(best)) if np.isfinite(best) else 0.0


def relax(model, h=0.01, damping="kinetic", *, integrator=None, tol=None, max_iter=50, ke_tol=1e-14,
          force_tol=1e-9, max_steps=20000, alpha=None, system=None, record=False, max_halvings=6,
          linear_solver="auto", t_start=0.0, callback=None, project=True, free=False, settle=5):
    """Relax ``model`` (or a frozen ``system``) to static equilibrium by damped dynamics.

    Parameters
    ----------
    h : float
        Time step of the implicit integrator (the motion is fictitious; larger steps
        are fine as long as Newton converges).
    damping : 'physical' | 'kinetic' | 'viscous'
        See the module docstring.
    integrator : Newmark family object or name; default Newmark(β = 0.3, γ = 0.6) (P1).
    tol, max_iter : Newton tolerance (2-norm of the residual, default force_tol / 10)
        and iteration limit per step.
    ke_tol, force_tol : convergence tolerances on the kinetic energy [J] and on the
        static residual (:func:`static_residual`).  ``ke_tol=None`` drops the energy
        test: converged when the static residual is ≤ force_tol on ``settle``
        consecutive steps.  Use it with 'physical' damping: modes that no damper
        reaches (e.g. a bar spinning about its own axis, which the Newmark family in
        Euler parameters excites at O(h) for γ > ½) keep a small kinetic energy that
        does not change the equilibrium shape.
    max_steps : step budget; the result then says ``converged=False``.
    alpha : mass-proportional damping coefficient [1/s] for 'viscous' (default
        2 × the lowest non-zero natural frequency at the start).
    record : keep every step in a :class:`~flexmbd.results.Result` (``.result``).
    project : after every step, project the velocities onto the velocity-level
        constraints Φ_q q' = −Φ_t (min-norm).  The index-3 Newmark step satisfies the
        constraints only at position level; for Euler parameters the rate ṗ then has a
        spurious component along p, which the marker kinematics A(p)u read as a body
        dilation, so the dampers feel it.  Without the projection a mass-damped
        relaxation can lock into a period-2 oscillation (v → −v every step); see
        docs/tensegrity.md.
    free : the model is a free system with zero momentum (no supports, no loads):
        after every step remove the net linear and angular momentum by subtracting the
        rigid-body velocity field that carries it.  The Newmark family in Euler
        parameters conserves linear momentum but not angular momentum (the error is
        O(h) to O(h²)); a free structure relaxed with physical damping only would
        otherwise end in a slow rigid rotation that no damper can stop.
    callback : optional ``callback(step, state, kinetic_energy)``; returning True stops.
    """
    from ..results import Result

    if damping not in DAMPING_MODES:
        raise ValueError(f"damping must be one of {DAMPING_MODES}, got {damping!r}")
    if h <= 0:
        raise ValueError(f"need h > 0, got {h}")
    integ = integrator or Newmark(0.3, 0.6)
    if isinstance(integ, str):
        integ = integrator_from_name(integ)
    tol = force_tol / 10.0 if tol is None else tol
    if system is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            system = model.freeze()
    clock0 = time.perf_counter()
    state, _ = initial_state(system, t_start, True, linear_solver)
    a_used = 0.0
    step_sys = system
    if damping == "viscous":
        a_used = 2.0 * lowest_frequency(system, state.q) if alpha is None else float(alpha)
        step_sys = _MassDampedSystem(system, a_used)
        # the start is at rest, so the damping force vanishes: accelerations unchanged
    newton = NewtonSolver(tol, max_iter, "newton", "residual", linear_solver)
    rigid = bool(free)
    if rigid:
        _check_free(system)
    stepper = DynamicsStepper(step_sys, integ, newton, frozenset(_all_terms()))
    res = Result(system, integ, h) if record else None
    if res is not None:
        res.append(state, iterations=0, refreshes=0, factorizations=0, seconds=0.0, substeps=0)

    ke = [system.kinetic_energy(state.q, state.v)]
    r0 = static_residual(system, state.q, state.t)[0]
    resid = [r0]
    times, iters = [state.t], [0]
    resets = halvings = below = 0
    converged, message = False, ""
    if (ke_tol is None or ke[0] <= ke_tol) and r0 <= force_tol:
        converged, message = True, "the start is already in equilibrium"
    steps = 0
    while not converged and steps < max_steps:
        c0 = time.perf_counter()
        it0 = newton.stats.iterations
        new, nh = _step(stepper, state, h, max_halvings)
        halvings += nh
        if new is None:
            message = f"Newton failed at t = {state.t:.6g} s even after {max_halvings} step halvings"
            break
        steps += 1
        if project and system.m:
            new.v = _project_velocities(system, new.q, new.v, new.t)
        if rigid:
            new.v = remove_rigid_motion(system, new.q, new.v)
        k_new = system.kinetic_energy(new.q, new.v)
        n_it = newton.stats.iterations - it0
        if damping == "kinetic" and k_new < ke[-1] and ke[-1] > 0.0:
            # the kinetic energy peaked at the previous step: restart from there at rest
            new = _at_rest(system, state, linear_solver)
            k_new = 0.0
            resets += 1
        state = new
        ke.append(k_new)
        times.append(state.t)
        iters.append(n_it)
        if ke_tol is None or k_new <= ke_tol:
            r = static_residual(system, state.q, state.t)[0]
            resid.append(r)
            below = below + 1 if r <= force_tol else 0
            if ke_tol is not None and r <= force_tol:
                converged = True
                message = (f"equilibrium: E_kin = {k_new:.3g} J ≤ {ke_tol:g} and static residual "
                           f"{r:.3g} ≤ {force_tol:g}")
            elif ke_tol is None and below >= settle:
                converged = True
                message = (f"equilibrium: static residual ≤ {force_tol:g} for {settle} consecutive steps "
                           f"(last {r:.3g}; E_kin = {k_new:.3g} J not tested)")
        else:
            resid.append(np.nan)
            below = 0
        if res is not None:
            res.append(state, iterations=n_it, refreshes=0, factorizations=0,
                       seconds=time.perf_counter() - c0, substeps=1)
        if callback is not None and callback(steps, state, k_new):
            message = "stopped by callback"
            break
    if not np.isfinite(resid[-1]):
        resid[-1] = static_residual(system, state.q, state.t)[0]
    if not converged and not message:
        message = (f"no equilibrium within {max_steps} steps: E_kin = {ke[-1]:.3g} J "
                   f"(tolerance {ke_tol}), static residual {resid[-1]:.3g} (tolerance {force_tol:g})")
    if res is not None:
        res.wall_time = time.perf_counter() - clock0
        res.finish()
        if not converged:
            res.fail(message)
    return RelaxationResult(converged, message, system, state, steps, state.t, np.array(times), np.array(ke),
                            np.array(resid), np.array(iters), resets, halvings,
                            time.perf_counter() - clock0, damping, a_used, res)


def _project_velocities(system, q, v, t):
    """Min-norm correction of v onto Φ_q v = −Φ_t (dense; the systems here are small)."""
    qe = system.extend(q)
    Jq = system.constraint_jacobian(qe, t)
    Jq = Jq.toarray() if hasattr(Jq, "toarray") else np.asarray(Jq)
    r = -system.constraint_time_derivative(qe, t) - Jq @ v
    if not np.any(r):
        return v
    try:
        y = np.linalg.solve(Jq @ Jq.T, r)
    except np.linalg.LinAlgError:
        y = np.linalg.lstsq(Jq @ Jq.T, r, rcond=None)[0]
    return v + Jq.T @ y


def _check_free(system):
    from ..bodies.rigid import GROUND

    for e in system.model.elements:
        if any(b is GROUND for b in e.bodies) or e.kind in ("force", "torque"):
            raise ValueError(f"free=True needs a free system, but {e.kind} {e.name!r} acts from outside")
    if np.any(system.model.gravity):
        raise ValueError("free=True needs a free system, but the model has gravity")


def momenta(system, q, v):
    """Total mass, centre of mass, linear momentum, angular momentum about the centre
    of mass and the inertia tensor about it (global axes) of a system of rigid bodies."""
    from ..kinds import RotationKind, SpatialKind
    from ..rotations import E_matrix, rotation_matrix

    mt, mr = 0.0, np.zeros(3)
    parts = []
    for b in system.model.bodies:
        qb, vb = q[system.config_slice(b)], v[system.body_slice(b)]
        if b.kind is RotationKind:
            A = rotation_matrix(qb[3:7])
            R, Rd = qb[:3], vb[:3]
            w = A @ vb[3:6]
            Jg = A @ b.inertia @ A.T
        elif b.kind is SpatialKind:
            p = qb[3:7] / np.linalg.norm(qb[3:7])
            A = rotation_matrix(p)
            R, Rd = qb[:3], vb[:3]
            w = 2.0 * E_matrix(p) @ vb[3:7]
            Jg = A @ b.inertia @ A.T
        else:
            R, Rd = np.r_[qb[:2], 0.0], np.r_[vb[:2], 0.0]
            w = np.array([0.0, 0.0, vb[2]])
            Jg = np.diag([0.0, 0.0, b.inertia[2, 2]])
        parts.append((b.mass, R, Rd, w, Jg))
        mt += b.mass
        mr += b.mass * R
    c = mr / mt
    P, L, Ic = np.zeros(3), np.zeros(3), np.zeros((3, 3))
    for m, R, Rd, w, Jg in parts:
        r = R - c
        P += m * Rd
        L += m * np.cross(r, Rd) + Jg @ w
        Ic += Jg + m * (r @ r * np.eye(3) - np.outer(r, r))
    return mt, c, P, L, Ic


def remove_rigid_motion(system, q, v):
    """v minus the rigid-body velocity field (V + Ω × (R − c), ω = Ω) that carries the
    net linear momentum and the angular momentum about the centre of mass; the result
    has zero momenta.  This is the mass-orthogonal projection off the rigid motions."""
    from ..kinds import PlanarKind, RotationKind, SpatialKind
    from ..rotations import E_matrix, rotation_matrix

    mt, c, P, L, Ic = momenta(system, q, v)
    V = P / mt
    if all(b.kind is PlanarKind for b in system.model.bodies):
        Om = np.array([0.0, 0.0, L[2] / Ic[2, 2]]) if Ic[2, 2] > 0 else np.zeros(3)
    else:
        Om = np.linalg.lstsq(Ic, L, rcond=None)[0]
    v = v.copy()
    for b in system.model.bodies:
        s = system.body_slice(b)
        qb = q[system.config_slice(b)]
        if b.kind is RotationKind:
            v[s.start:s.start + 3] -= V + np.cross(Om, qb[:3] - c)
            v[s.start + 3:s.start + 6] -= rotation_matrix(qb[3:7]).T @ Om
        elif b.kind is SpatialKind:
            R = qb[:3]
            vr = V + np.cross(Om, R - c)
            p = qb[3:7] / np.linalg.norm(qb[3:7])
            v[s.start:s.start + 3] -= vr
            v[s.start + 3:s.start + 7] -= 0.5 * E_matrix(p).T @ Om
        else:
            R = np.r_[qb[:2], 0.0]
            vr = V + np.cross(Om, R - c)
            v[s.start:s.start + 2] -= vr[:2]
            v[s.start + 2] -= Om[2]
    return v


def _all_terms():
    from ..system import JACOBIAN_TERMS

    return JACOBIAN_TERMS


def _step(stepper, state, h, max_halvings, depth=0):
    """One step of size h, retried as two halves (recursively) if Newton fails."""
    new, out = stepper.step(state, h)
    if new is not None:
        return new, 0
    if depth >= max_halvings:
        return None, depth
    mid, n1 = _step(stepper, state, h / 2, max_halvings, depth + 1)
    if mid is None:
        return None, n1
    end, n2 = _step(stepper, mid, h / 2, max_halvings, depth + 1)
    return end, 1 + n1 + n2


def _at_rest(system, state, linear_solver):
    """The state with zero velocity and consistent accelerations and multipliers."""
    v = np.zeros_like(state.v)
    qdd, lam = consistent_accelerations(system, state.q, v, state.t, linear_solver)
    return StepState(state.t, state.q.copy(), v, qdd, qdd.copy(), lam)
