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
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .dynamics import DynamicsStepper, StepState, initial_state
from .halving import advance
from .initial import consistent_accelerations
from .newton import NewtonSolver
from .settings import DAMPING_MODES, RelaxSettings

if TYPE_CHECKING:
    from ..model import Model
    from ..system import System

__all__ = ["relax", "RelaxationResult", "static_residual", "DAMPING_MODES", "RelaxSettings"]


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


def relax(model: Model, h: float | None = None, damping: str | None = None, *,
          settings: RelaxSettings | None = None, system: System | None = None, record: bool = False,
          callback: Callable | None = None, **overrides: Any) -> RelaxationResult:
    """Relax ``model`` (or a frozen ``system``) to static equilibrium by damped dynamics.

    The settings are one :class:`~flexmbd.solvers.settings.RelaxSettings` (``settings``);
    ``h``, ``damping`` and the other keyword arguments override its fields, or make it when
    ``settings`` is None.  Each is described, with its default and bounds, there; a bad
    value is a :class:`~flexmbd.solvers.settings.SettingError` (ValueError) naming it.

    system : the frozen system to relax (default: ``model.freeze()``).
    record : keep every step in a :class:`~flexmbd.results.Result` (``.result``).
    callback : optional ``callback(step, state, kinetic_energy)``; returning True stops.
    """
    from ..results import Result

    if h is not None:
        overrides["h"] = h
    if damping is not None:
        overrides["damping"] = damping
    s = RelaxSettings.create(settings, **overrides)
    h, damping, integ, linear_solver = s.h, s.damping, s.integrator, s.linear_solver
    ke_tol, force_tol, max_halvings, settle = s.ke_tol, s.force_tol, s.max_halvings, s.settle
    tol = force_tol / 10.0 if s.tol is None else s.tol
    if system is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            system = model.freeze()
    clock0 = time.perf_counter()
    state, _ = initial_state(system, s.t_start, True, linear_solver)
    a_used = 0.0
    step_sys = system
    if damping == "viscous":
        a_used = 2.0 * lowest_frequency(system, state.q) if s.alpha is None else s.alpha
        step_sys = _MassDampedSystem(system, a_used)
        # the start is at rest, so the damping force vanishes: accelerations unchanged
    newton = NewtonSolver(tol, s.max_iter, "newton", "residual", linear_solver)
    rigid = s.free
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
    while not converged and steps < s.max_steps:
        c0 = time.perf_counter()
        it0 = newton.stats.iterations
        step = advance(stepper.step, state, h, max_halvings)
        new = step.state
        # relax has always counted, for a failed step, one more halving per second half on
        # the way down to the sub-step that failed; kept so the reported numbers stay the same
        halvings += step.halvings + (sum(step.failure.path) if new is None else 0)
        if new is None:
            message = f"Newton failed at t = {state.t:.6g} s even after {max_halvings} step halvings"
            break
        steps += 1
        if s.project and system.m:
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
        message = (f"no equilibrium within {s.max_steps} steps: E_kin = {ke[-1]:.3g} J "
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
    from ..ground import GROUND

    for e in system.model.elements:
        if any(b is GROUND for b in e.bodies) or e.type.applied_load:
            raise ValueError(f"free=True needs a free system, but {e.kind} {e.name!r} acts from outside")
    if np.any(system.model.gravity):
        raise ValueError("free=True needs a free system, but the model has gravity")


def momenta(system, q, v):
    """Total mass, centre of mass, linear momentum, angular momentum about the centre
    of mass and the inertia tensor about it (global axes) of a system of rigid bodies
    (their poses and twists from the node kinds)."""
    mt, mr = 0.0, np.zeros(3)
    parts = []
    for b in system.model.bodies:
        qb, vb = q[system.config_slice(b)][None], v[system.body_slice(b)][None]
        R, A = b.kind.pose(qb)
        Rd, w = b.kind.twist(qb, vb)
        R, A, Rd, w = R[0], A[0], Rd[0], w[0]
        parts.append((b.mass, R, Rd, w, A @ b.inertia @ A.T))
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
    mt, c, P, L, Ic = momenta(system, q, v)
    V = P / mt
    Om = np.linalg.lstsq(Ic, L, rcond=None)[0]
    v = v.copy()
    for b in system.model.bodies:
        s = system.body_slice(b)
        qb = q[system.config_slice(b)][None]
        R = b.kind.pose(qb)[0][0]
        v[s] -= b.kind.velocity_from_twist(qb, (V + np.cross(Om, R - c))[None], Om[None])[0]
    return v


def _all_terms():
    from ..system import JACOBIAN_TERMS

    return JACOBIAN_TERMS


def _at_rest(system, state, linear_solver):
    """The state with zero velocity and consistent accelerations and multipliers."""
    v = np.zeros_like(state.v)
    qdd, lam = consistent_accelerations(system, state.q, v, state.t, linear_solver)
    return StepState(state.t, state.q.copy(), v, qdd, qdd.copy(), lam)
