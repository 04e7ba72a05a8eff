"""The one interface between elements and the assembly: groups.

A *group* holds every element of one type on nodes of one kind, evaluated together as
arrays (scikit-fem's vectorised forms; Chrono's ``IntLoadResidual_F/_Mv/_CqL`` for a
whole type at once).  Element ``e`` of a group owns the columns ``dof_index[e]`` of the
extended velocity/increment vector (free coordinates followed by ground's fixed ones)
and reads the configuration at ``config_index[e]``.  The system evaluates a group with
an :class:`EvalContext` and receives a :class:`Contribution`:

    F   (n_el, w)        its part of the residual  F = M q'' + Q_v − Q + Φ_qᵀ λ
    B   (n_el, w, w)     its block of the Newton matrix c_M ∂F/∂q'' + c_D ∂F/∂q' + c_K ∂F/∂q
    phi (n_el,)          constraint values (constraint groups: one equation per element)
    Jq  (n_el, w)        their Jacobian rows Φ_q (times the tangent operator, lower left)
    JqT (n_el, w)        the same rows for Φ_qᵀ (upper right)
    C   (n_el, w, k)     ∂F/∂λ of forces that depend on multipliers (joint reactions), at
                         the multiplier rows ``coupling_index`` (n_el, k)

Derivatives with respect to the configuration are taken along increments (∂/∂Δ at
Δ = 0).  When the Newton unknowns move q = q_b ⊕ Δ on a Lie group, the context carries
``tangent``, which right-multiplies the ∂/∂q columns by T(Δ) of the group's nodes.

Three base classes turn the element maths into contributions, so an element writes
only its physics:

* :class:`InertiaGroup` — ``inertia_force(qb, vb, ab) → (F, ∂F/∂q, ∂F/∂q', M)``;
* :class:`ForceGroup` — ``evaluate(qe, ve, t) → (Q, ∂Q/∂q, ∂Q/∂q')`` of applied forces;
* :class:`ConstraintGroup` — ``assemble(qe, t, λ) → (Φ, Φ_q, ∂(Φ_qᵀ λ)/∂q)``, with
  ``time_derivative`` (Φ_t) and ``gamma`` (γ).

Each also reports energies and power (kinetic, potential, dissipated, external) and
named per-element outputs, and may offer a compiled slot (``compiled_slot``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, NamedTuple

import numpy as np

from .nodes import NodeKind

#: Names of the switchable parts of the Newton matrix.  P1's M1 is everything but the
#: spring-damper-actuator parts, M2 = "sda_stiffness" (∂Q/∂q), M3 = "sda_damping" (∂Q/∂q').
JACOBIAN_TERMS = ("inertia", "constraint_hessian", "force_stiffness", "force_damping",
                  "sda_stiffness", "sda_damping")


#: P1's Jacobian parts: M1 is everything but the spring-damper-actuator parts,
#: M2 = "sda_stiffness" (∂Q/∂q), M3 = "sda_damping" (∂Q/∂q') (names: groups.JACOBIAN_TERMS).
P1_PARTS = {"M1": {"inertia", "constraint_hessian", "force_stiffness", "force_damping"},
            "M2": {"sda_stiffness"}, "M3": {"sda_damping"}}


def jacobian_terms(spec) -> frozenset:
    """Parse 'full', 'M1+M2', or an iterable of term names into a set of enabled terms."""
    if spec is None or spec == "full":
        return frozenset(JACOBIAN_TERMS)
    if isinstance(spec, str):
        parts = [s.strip() for s in spec.split("+")]
        out = set()
        for s in parts:
            if s in P1_PARTS:
                out |= P1_PARTS[s]
            elif s in JACOBIAN_TERMS:
                out.add(s)
            else:
                raise ValueError(f"unknown Jacobian part {s!r}: use M1, M2, M3 or {JACOBIAN_TERMS}")
        return frozenset(out)
    out = frozenset(spec)
    bad = out - set(JACOBIAN_TERMS)
    if bad:
        raise ValueError(f"unknown Jacobian terms {sorted(bad)}; known: {JACOBIAN_TERMS}")
    return out


class Unsupported(Exception):
    """A group has no compiled part (the message says why)."""


class CompiledSlot(NamedTuple):
    """A group's part of the compiled assembly (``compiled_assembly.py``): the slot of
    ``kernels/assembly.py`` ``SLOTS`` it fills, its constant arrays, and a function of time
    giving its time-dependent arrays (``constant``: it does not depend on t).  A slot of
    constraints that depend on time (drivers: Φ = Σ w_k(t) d_k(q) − s(t)) gives ``rates``,
    t → (first, second) time derivatives of those arrays, e.g. ((ẇ, ṡ), (ẅ, s̈)): the
    slot's kernel evaluated with them gives Φ_t, Φ_qt and Φ_tt (the velocity projection
    and the consistent accelerations in compiled code)."""

    name: str
    arrays: tuple
    values: Callable | None = None
    constant: bool = True
    rates: Callable | None = None


def int_array(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.int64)


def float_array(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=float)


def kernel_suffix(kind: NodeKind) -> str:
    """"spatial", "planar", "ancf_cable" or "ancf": the vector kinds with compiled markers
    (a slot named with the suffix may still be missing:
    :class:`~flexmbd.compiled_assembly.CompiledAssembly` then says so)."""
    codes = {1: "spatial", 0: "planar", 3: kind.name.replace("-", "_")}
    suffix = codes.get(kind.kernel_code) if kind.additive else None
    if suffix is None:
        raise Unsupported(f"no compiled slot for nodes of kind {kind.name}")
    return suffix


def floating_frame_layout(kind: NodeKind) -> tuple[int, np.ndarray]:
    """(modes n, pairs (k, 2)) of a kind the compiled floating-frame kernels serve
    (kernels/floating_frame.py): floating frames with Euler parameters (their modal
    coordinates and the foreshortening's pairs η_i η_j), and rigid Euler-parameter bodies
    as n = 0 (joined to floating frames); :class:`Unsupported` otherwise."""
    attitude = getattr(kind, "attitude", None)
    if attitude is not None and hasattr(kind, "pairs"):
        if attitude.name != "euler-parameters":
            raise Unsupported(f"{kind.noun}s with {attitude.name} attitude have no compiled kernel")
        return kind.n, np.array(kind.pairs, dtype=np.int64).reshape(-1, 2)
    if kind.additive and kind.kernel_code == 1 and kind.nq == 7:
        return 0, np.zeros((0, 2), dtype=np.int64)
    raise Unsupported(f"no compiled floating-frame kernel for nodes of kind {kind.name}")


def floating_frame_markers(markers, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' arrays of markers on floating frames or rigid bodies: ū (N, 3) of
    points and directions, u (N, 3), and the point coefficients P of ê[1:] (N, 3, width),
    zero-padded (``ModalMarkers.P``; none for rigid bodies)."""
    P = np.zeros((markers.n, 3, width))
    own = getattr(markers, "P", None)
    if own is not None and own.shape[2]:
        P[:, :, :own.shape[2]] = own
    return markers.u * markers.rot[:, None], markers.u, P


def floating_frame_kinds(layouts) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' kind table (sides, 2) = (modes, pairs count) and pairs (sides, k, 2)."""
    kinds = np.array([[n, len(p)] for n, p in layouts], dtype=np.int64)
    pairs = np.zeros((len(layouts), max([1] + [len(p) for _, p in layouts]), 2), dtype=np.int64)
    for k, (_, p) in enumerate(layouts):
        pairs[k, :len(p)] = p
    return kinds, pairs


@dataclass
class EvalContext:
    """Everything a group may need for one evaluation (extended vectors, see the module docstring)."""

    qe: np.ndarray
    ve: np.ndarray
    ae: np.ndarray
    lam: np.ndarray
    t: float
    cM: float = 1.0
    cD: float = 0.0
    cK: float = 0.0
    load_factor: float = 1.0
    matrix: bool = True
    terms: frozenset = frozenset(JACOBIAN_TERMS)
    #: right(group, B): ∂/∂q columns of B times T(Δ) (None: vector kinds / no Δ)
    tangent: Callable | None = None
    #: set-valued forces (:class:`FrictionGroup`) are the solver's own: left out
    set_valued: bool = False

    def right(self, group: "Group", B: np.ndarray | None) -> np.ndarray | None:
        if B is None or self.tangent is None:
            return B
        return self.tangent(group, B)


class Contribution(NamedTuple):
    F: np.ndarray
    B: np.ndarray | None = None
    phi: np.ndarray | None = None
    Jq: np.ndarray | None = None
    JqT: np.ndarray | None = None
    C: np.ndarray | None = None


class Group:
    """Common part of every group (see the module docstring)."""

    #: "inertia", "force" or "constraint": the order of contributions (inertia, forces,
    #: constraints) and which group keeps multipliers
    role: ClassVar[str] = "force"
    #: the node kind of the group's nodes (one kind per group)
    kind: NodeKind
    element_names: list[str]
    dof_index: np.ndarray
    config_index: np.ndarray
    #: keys of :meth:`outputs`, reported per element as "<element>.<key>"
    output_names: ClassVar[tuple[str, ...]] = ()
    #: global multiplier rows (n_el, k) of the coupling block C (None: no coupling)
    coupling_index: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.element_names)

    @property
    def width(self) -> int:
        """Columns per element."""
        return self.dof_index.shape[1]

    def contribute(self, ctx: EvalContext) -> Contribution:
        raise NotImplementedError

    # ------------------------------------------------------ energies and power
    def kinetic_energy(self, qe: np.ndarray, ve: np.ndarray) -> float:
        return 0.0

    def potential_energy(self, qe: np.ndarray, t: float) -> float:
        return 0.0

    def dissipation_power(self, qe: np.ndarray, ve: np.ndarray, t: float, lam: np.ndarray | None = None) -> float:
        return 0.0

    def external_power(self, qe: np.ndarray, ve: np.ndarray, t: float, lam: np.ndarray) -> float:
        """Power of sources outside the system (applied loads, prescribed motions)."""
        return 0.0

    def outputs(self, qe: np.ndarray, ve: np.ndarray, t: float, lam: np.ndarray | None = None) -> dict:
        """Named per-element outputs, each an (n_el,) array (``lam``: the multipliers, for
        forces that depend on them)."""
        return {}

    def switching(self, qe: np.ndarray, ve: np.ndarray, t: float) -> np.ndarray | None:
        """Switching functions (n_el, k) whose sign changes are events (a stop engaging),
        or None; :meth:`switch_event` names them (:mod:`flexmbd.solvers.events`)."""
        return None

    def switch_rate(self, qe: np.ndarray, ve: np.ndarray, t: float) -> np.ndarray | None:
        """Rates (n_el, k) beside :meth:`switching` whose integral while a function is
        positive is reported when it falls (a contact's force: its impulse), or None."""
        return None

    def switch_event(self, e: int, j: int, rising: bool, amount: float | None = None) -> str:
        """The kind of event when function j of element e crosses zero upwards (``rising``) or
        downwards; ``amount``: the integral of :meth:`switch_rate` (falling crossings of groups with rates)."""
        return f"switch {j} {'up' if rising else 'down'}"

    def resolve_coupling(self, system) -> None:
        """Set ``coupling_index`` (n_el, k): the global multiplier rows the forces depend on,
        once the system has numbered its equations (``system.owner_equations``: element
        name → rows).  Groups without such forces do nothing."""

    def compiled_slot(self) -> CompiledSlot:
        """The group's slot of the compiled assembly (``compiled_assembly.py``); raises
        :class:`Unsupported` with the reason if it has none."""
        raise Unsupported(f"{type(self).__name__} has no compiled kernel")


class InertiaGroup(Group):
    """Inertia of nodes or elements: ``inertia_force(qb, vb, ab, jacobians)`` returns
    F = M(q) q'' + Q_v(q, q') and ∂F/∂q, ∂F/∂q', M (the "inertia" Jacobian term)."""

    role = "inertia"
    #: False when ∂F/∂q is zero at every state (inertia in body-frame twists: SE(3) beams),
    #: so the Newton matrix needs neither it nor its tangent map
    configuration_dependent: ClassVar[bool] = True

    def inertia_force(self, qb, vb, ab, jacobians=True):
        raise NotImplementedError

    def mass_matrix(self, qb: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def contribute(self, ctx):
        qb, vb, ab = ctx.qe[self.config_index], ctx.ve[self.dof_index], ctx.ae[self.dof_index]
        F, K, D, M = self.inertia_force(qb, vb, ab, jacobians=ctx.matrix)
        if not ctx.matrix:
            return Contribution(F)
        B = ctx.cM * M
        if "inertia" in ctx.terms:
            B += ctx.cK * ctx.right(self, K) + ctx.cD * D if self.configuration_dependent else ctx.cD * D
        return Contribution(F, B)

    def kinetic_energy(self, qe, ve):
        return float(np.sum(self.element_kinetic_energy(qe[self.config_index], ve[self.dof_index])))

    def element_kinetic_energy(self, qb: np.ndarray, vb: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class ConstantMassGroup(InertiaGroup):
    """Inertia with a constant mass matrix per element, ``self.M`` (n, w, w): F = M q'' and
    no velocity or configuration terms (ANCF elements, rigid bodies in natural coordinates)."""

    M: np.ndarray

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F = np.einsum("nij,nj->ni", self.M, ab)
        if not jacobians:
            return F, None, None, None
        zero = np.zeros_like(self.M)
        return F, zero, zero, self.M

    def mass_matrix(self, qb: np.ndarray) -> np.ndarray:
        return self.M

    def element_kinetic_energy(self, qb: np.ndarray, vb: np.ndarray) -> np.ndarray:
        return 0.5 * np.einsum("ni,nij,nj->n", vb, self.M, vb)


class ForceGroup(Group):
    """Applied and internal forces: ``evaluate(qe, ve, t, jacobians)`` returns the
    generalised force Q (n_el, w) and ∂Q/∂q, ∂Q/∂q' (None where zero); the residual
    receives −Q (times the load factor for loads)."""

    role = "force"
    #: name of the Jacobian parts this group's K and D belong to (switchable by name)
    stiffness_term: ClassVar[str] = "force_stiffness"
    damping_term: ClassVar[str] = "force_damping"
    #: scaled by the load factor in static load stepping
    is_load: ClassVar[bool] = False

    def evaluate(self, qe, ve, t, jacobians=True):
        raise NotImplementedError

    def contribute(self, ctx):
        Q, K, D = self.evaluate(ctx.qe, ctx.ve, ctx.t, jacobians=ctx.matrix)
        scale = ctx.load_factor if self.is_load else 1.0
        F = -scale * Q
        if not ctx.matrix:
            return Contribution(F)
        K = ctx.right(self, K)
        stiff = K is not None and self.stiffness_term in ctx.terms
        damp = D is not None and self.damping_term in ctx.terms
        if stiff and damp:
            B = (-ctx.cK * scale) * K - (ctx.cD * scale) * D
        elif stiff:
            B = (-ctx.cK * scale) * K
        elif damp:
            B = (-ctx.cD * scale) * D
        else:
            B = None
        return Contribution(F, B)


class FrictionGroup(ForceGroup):
    """Dry (Coulomb) friction in joints: a force along a joint's free motion whose magnitude is
    μ times the norm of some of the joint's multipliers, its normal force (P2: Wang, Wang &
    Zhuang 2014, "frictional sliding joints"; the pin friction of engineering codes).

    Element e has a slip measure m_e(q) (a sliding coordinate or a relative angle,
    :mod:`flexmbd.forces.pair_kinematics`) with rate v_r = W_e q', W_e = ∂m_e/∂q (n_el, w), a
    lever ℓ_e (1 for sliding, the pin radius for turning), the normal force
    N_e = ‖λ[coupling_index[e]]‖ and the kinetic and static coefficients μ_e ≤ μ0_e.  The
    generalised friction force is

        Q = −ℓ μ N σ(v_r) Wᵀ,

    * with the regularised sign σ(v) = v/√(v² + ε²) in the smooth solvers (Newmark family,
      statics), where :meth:`evaluate` gives exact ∂Q/∂q, ∂Q/∂q' and :meth:`coupling` the
      block ∂F/∂λ = −∂Q/∂λ;
    * with the set-valued sign in the solvers that treat it as such (event-driven and
      time-stepping), which read :meth:`slip_kinematics` and the coefficients and ask the
      system to leave these forces out of the residual (``EvalContext.set_valued``).

    A subclass provides ``measure(qe, ve, hessian) → dict(value, J, rate[, H])``
    (H = ∂J/∂Δ, (n_el, w, w)) and sets ``mu``, ``mu_static``, ``lever``, ``epsilon``.
    """

    output_names = ("normal_force", "friction_force", "slip_velocity")
    mu: np.ndarray
    mu_static: np.ndarray
    lever: np.ndarray
    epsilon: np.ndarray

    def measure(self, qe: np.ndarray, ve: np.ndarray, hessian: bool) -> dict:
        raise NotImplementedError

    def describe(self, e: int) -> str:
        """Element e as messages name it."""
        return repr(self.element_names[e])

    def normal_force(self, lam: np.ndarray | None) -> np.ndarray:
        """N_e = ‖λ[coupling_index[e]]‖ (n_el,) (zero without multipliers)."""
        if lam is None or self.coupling_index is None:
            return np.zeros(len(self))
        return np.linalg.norm(lam[self.coupling_index], axis=1)

    def slip_kinematics(self, qe: np.ndarray, ve: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """v_r (n_el,), W (n_el, w) and W' q' = q'ᵀ Hᵀ q' (n_el,), so that v_r' = W q'' + W' q'
        (along vector-kind coordinates; the set-valued solvers run on those)."""
        kin = self.measure(qe, ve, True)
        vl = ve[self.dof_index]
        return kin["rate"], kin["J"], np.einsum("nj,nij,ni->n", vl, kin["H"], vl)

    def _sign(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = np.sqrt(v * v + self.epsilon ** 2)
        return v / r, self.epsilon ** 2 / r ** 3

    def evaluate(self, qe, ve, t, jacobians=True, lam=None):
        """Q, ∂Q/∂q, ∂Q/∂q' of the regularised law at the multipliers ``lam``."""
        return self._law(qe, ve, lam, jacobians)[:3]

    def coupling(self, qe, ve, lam):
        """C = ∂F/∂λ = −∂Q/∂λ at the rows ``coupling_index`` (n_el, w, k); ∂N/∂λ = λ/N (0 at N = 0)."""
        return self._law(qe, ve, lam, False)[3]

    def _law(self, qe, ve, lam, jacobians):
        """Q, ∂Q/∂q, ∂Q/∂q' (None without ``jacobians``) and C from one evaluation of the measure."""
        kin = self.measure(qe, ve, jacobians)
        J, rate = kin["J"], kin["rate"]
        sig, dsig = self._sign(rate)
        N = self.normal_force(lam)
        f = self.lever * self.mu * N                                   # friction magnitude
        Q = -(f * sig)[:, None] * J
        C = None
        if lam is not None and self.coupling_index is not None:
            rows = lam[self.coupling_index]
            dN = np.divide(rows, N[:, None], out=np.zeros_like(rows), where=N[:, None] > 0)
            C = (self.lever * self.mu * sig)[:, None, None] * J[:, :, None] * dN[:, None, :]
        if not jacobians:
            return Q, None, None, C
        H = kin["H"]
        vl = ve[self.dof_index]
        drate = np.einsum("nij,ni->nj", H, vl)                          # ∂v_r/∂q = Hᵀ q'
        K = -(f * sig)[:, None, None] * H - (f * dsig)[:, None, None] * J[:, :, None] * drate[:, None, :]
        D = -(f * dsig)[:, None, None] * J[:, :, None] * J[:, None, :]
        return Q, K, D, C

    def contribute(self, ctx):
        if ctx.set_valued:
            w = self.width
            return Contribution(np.zeros(self.dof_index.shape),
                                np.zeros((len(self), w, w)) if ctx.matrix else None,
                                C=np.zeros((len(self), w, self.coupling_index.shape[1])) if ctx.matrix else None)
        Q, K, D, C = self._law(ctx.qe, ctx.ve, ctx.lam, ctx.matrix)
        if not ctx.matrix:
            return Contribution(-Q)
        B = -ctx.cK * ctx.right(self, K) - ctx.cD * D
        return Contribution(-Q, B, C=C)

    def outputs(self, qe, ve, t, lam=None):
        """normal force N [N], friction force (torque about the axis for pins) on body j
        along the slip direction [N or N m] with the regularised sign, slip velocity v_r."""
        kin = self.measure(qe, ve, False)
        N = self.normal_force(lam)
        sig, _ = self._sign(kin["rate"])
        return {"normal_force": N, "friction_force": -self.lever * self.mu * N * sig, "slip_velocity": kin["rate"]}

    def dissipation_power(self, qe, ve, t, lam=None):
        """ℓ μ N σ(v_r) v_r ≥ 0 (the regularised law's power; the set-valued solvers report
        their own)."""
        kin = self.measure(qe, ve, False)
        sig, _ = self._sign(kin["rate"])
        return float(np.sum(self.lever * self.mu * self.normal_force(lam) * sig * kin["rate"]))


class ConstraintGroup(Group):
    """Constraint equations, one per element (row); ``first_row`` is the group's first
    multiplier row, set by the system.  ``owner``/``label`` name each equation."""

    role = "constraint"
    first_row: int = 0
    owner: list[str]
    label: list[str]

    def assemble(self, qe, t, lam, hessian=True):
        """Φ (n,), Φ_q (n, w) and, if asked, λ_e ∂²φ_e/∂q² (n, w, w)."""
        raise NotImplementedError

    def evaluate(self, qe, t):
        """Φ (n,) and Φ_q (n, w)."""
        return self.assemble(qe, t, None, hessian=False)[:2]

    def jacobian_steps(self, QE: np.ndarray, T: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Φ_q of the equations ``rows`` (local indices) at many states: QE (S, n_q_ext)
        extended configurations at times T (S,) → (S, len(rows), w).  For outputs over a
        whole run (joint reactions); a group may compute it for all states at once."""
        return np.stack([self.evaluate(qe, t)[1][rows] for qe, t in zip(QE, T)]) if len(T) else \
            np.zeros((0, len(rows), self.dof_index.shape[1]))

    def time_derivative(self, qe, t):
        """Φ_t (n,)."""
        return np.zeros(len(self))

    def gamma(self, qe, ve, t):
        """γ = −(Φ_q q')_q q' − 2 Φ_qt q' − Φ_tt (n,)."""
        raise NotImplementedError

    def subset(self, keep):
        """The group of the equations where ``keep`` is True (redundancy removal)."""
        raise NotImplementedError

    def external_power(self, qe, ve, t, lam):
        """Power of prescribed motions, λᵀ Φ_t: the constraint forces −Φ_qᵀ λ do the work
        −λᵀ Φ_q q' = λᵀ Φ_t on motions that satisfy Φ_q q' + Φ_t = 0 (zero for joints)."""
        phit = self.time_derivative(qe, t)
        if not np.any(phit):
            return 0.0
        return float(lam[self.first_row:self.first_row + len(self)] @ phit)

    @property
    def element_names(self):
        return self.owner

    def contribute(self, ctx):
        lam = ctx.lam[self.first_row:self.first_row + len(self)]
        want_h = ctx.matrix and "constraint_hessian" in ctx.terms and ctx.cK != 0.0
        phi, Jq, H = self.assemble(ctx.qe, ctx.t, lam, hessian=want_h)
        F = Jq * lam[:, None]
        if not ctx.matrix:
            return Contribution(F, phi=phi)
        B = ctx.cK * ctx.right(self, H) if want_h else None
        JT = Jq if ctx.tangent is None else ctx.tangent(self, Jq[:, None, :])[:, 0, :]
        return Contribution(F, B, phi, JT, Jq)


def tangent_map(kinds_rows, n_ext: int, cache: dict | None = None):
    """right(group, B) for increments Δ: B's column blocks of each Lie-group node times
    T(Δ) of that node.  ``kinds_rows``: [(kind, T (N, nv, nv), first increment row of
    each of the N nodes)].  ``cache``: a dict the caller keeps for one system (the same
    ``kinds_rows`` rows at every call), where the nodes each group's columns refer to are
    found once instead of at every call."""
    nv = max(k.nv for k, _, _ in kinds_rows)
    total = sum(len(rows) for _, _, rows in kinds_rows)
    # T of every Lie-group node, then the identity (slot ``total``) for every other row
    Tall = np.empty((total + 1, nv, nv))
    start = 0
    for kind, T, rows in kinds_rows:
        if kind.nv == nv:
            Tall[start:start + len(rows)] = T
        else:
            Tall[start:start + len(rows)] = np.eye(nv)
            Tall[start:start + len(rows), :kind.nv, :kind.nv] = T
        start += len(rows)
    Tall[total] = np.eye(nv)
    cache = {} if cache is None else cache
    slot = cache.get("slot")
    if slot is None:        # increment row → slot of its node in Tall
        slot = np.full(n_ext, total)
        start = 0
        for _, _, rows in kinds_rows:
            slot[rows] = start + np.arange(len(rows))
            start += len(rows)
        cache["slot"] = slot

    def nodes(g, cols):
        """Slots in Tall of the nodes of ``g``'s columns ``cols`` (a slice or a column)."""
        key = (id(g), cols if isinstance(cols, int) else (cols.start, cols.stop, cols.step))
        hit = cache.get(key)
        if hit is None or hit[0] is not g or hit[1] is not g.dof_index:
            hit = cache[key] = (g, g.dof_index, slot[g.dof_index[:, cols]])
        return hit[2]

    def right(g, B):
        sides = getattr(g, "side_kinds", None)
        if sides is not None:                  # a group joining nodes of different kinds
            return _right_by_side(Tall, nodes, g, B, sides)
        kind = getattr(g, "kind", None)
        if kind is None or kind.additive:
            return B
        k = kind.nv
        Tg = Tall[nodes(g, slice(None, None, k))]                     # (n_el, bodies, nv, nv)
        if k != nv:
            Tg = Tg[:, :, :k, :k]
        n_el, r = B.shape[0], B.shape[1]
        Bb = B.reshape(n_el, r, -1, k).transpose(0, 2, 1, 3)         # (n_el, bodies, r, k)
        return np.matmul(Bb, Tg).transpose(0, 2, 1, 3).reshape(B.shape)
    return right


def _right_by_side(Tall, nodes, g, B, sides):
    """B's column blocks of a group whose elements join one node of each kind in ``sides``
    (columns in that order), each Lie-group side times its node's T(Δ)."""
    out, col = B, 0
    for kind in sides:
        k = kind.nv
        if not kind.additive:
            Tg = Tall[nodes(g, col)][:, :k, :k]                          # (n_el, k, k)
            out = out.copy() if out is B else out
            out[..., col:col + k] = np.matmul(B[..., col:col + k], Tg)
        col += k
    return out


__all__ = ["JACOBIAN_TERMS", "P1_PARTS", "jacobian_terms", "EvalContext", "Contribution", "Group", "InertiaGroup",
           "ConstantMassGroup", "ForceGroup", "FrictionGroup",
           "ConstraintGroup", "Unsupported", "CompiledSlot", "tangent_map", "kernel_suffix", "int_array",
           "float_array"]
