"""The spring-damper-actuator (SDA) of P1 with its exact Jacobians.

Between point P_i on body I and P_j on body J (P1, sec. 2):

    h = r_Pj − r_Pi,  l = |h|,  e = h / l,  l' = e·(r_Pj' − r_Pi'),
    F = k (l − l0) + c l' + f_a(t)      (or a user law F(δ, δ'), δ = l − l0),

F > 0 is tension.  With J_h = ∂h/∂q (= B_j − B_i in P1's notation) the generalised force
is Q = −F J_hᵀ e and, exactly,

    ∂Q/∂q  = −[ J_hᵀ e ⊗ ∂F/∂q + F J_hᵀ (I − e eᵀ)/l J_h + F Σ_i e_i ∂²h_i/∂q² ],
    ∂F/∂q  = F_δ eᵀ J_h + F_δ' ( h'ᵀ (I − e eᵀ)/l J_h + eᵀ ∂(J_h q')/∂q ),
    ∂Q/∂q' = −F_δ' J_hᵀ e eᵀ J_h          (symmetric, as P1 notes).

The first is P1's "M2" part of the Newton matrix and the last its "M3" part.  A
tension-only element (cable) carries no force and has zero Jacobians while slack (δ ≤ 0)
or when the law would make it push (F < 0).  Stored energy ½ k max(δ, 0)²; dissipated
power (F − k δ_s − f_a) l' with δ_s the stored stretch — c l'² while engaged.
"""
from __future__ import annotations

import copy
from typing import Literal, Optional

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from ..errors import ModelError
from ..groups import CompiledSlot, ForceGroup, Unsupported, float_array, int_array, kernel_suffix
from ..kernels import AVAILABLE as USE_KERNELS
from ..memo import Recent, inputs_key
from ..nodes import POINT
from ..registry import ElementType, pair_kind, register
from ..spec import LawSpec, PairSpec, Point, TimeFunctionSpec, law_function, point3, time_function
from ..ground import GROUND
from ..timefunctions import Constant, Polynomial
from .loads import _config

if USE_KERNELS:
    from ..kernels import spring_damper as _sda


def _law_derivatives(law, delta, rate):
    """F, ∂F/∂δ, ∂F/∂δ' of a user law.

    A law object with a ``derivatives(δ, δ')`` method gives them exactly; a plain callable
    is differentiated by central differences (relative accuracy about 1e-8 for smooth
    laws, enough for Newton; complex steps are not used because laws with abs() or
    max() would silently give wrong derivatives).
    """
    if hasattr(law, "derivatives"):
        F, dd, dr = law.derivatives(delta, rate)
        return float(F), float(dd), float(dr)
    F = float(law(delta, rate))
    hd = 1e-6 * max(1.0, abs(delta))
    hr = 1e-6 * max(1.0, abs(rate))
    dd = (law(delta + hd, rate) - law(delta - hd, rate)) / (2 * hd)
    dr = (law(delta, rate + hr) - law(delta, rate - hr)) / (2 * hr)
    return F, float(dd), float(dr)


class SpringDamperGroup(ForceGroup):
    """All spring-damper-actuators between bodies of one kind."""

    stiffness_term = "sda_stiffness"
    damping_term = "sda_damping"
    output_names = ("length", "length_rate", "force")

    def __init__(self, kind, names, dof_index, u_i, u_j, k, c, rest_length, actuators,
                 tension_only, laws, config_index=None):
        n = len(names)
        self.kind = kind
        self.nq = kind.nq
        self.nv = kind.nv
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, 2 * kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        self.mi = kind.markers(u_i, np.full(n, POINT))
        self.mj = kind.markers(u_j, np.full(n, POINT))
        self.set_values(k, c, rest_length, actuators, tension_only, laws)

    def set_values(self, k, c, rest_length, actuators, tension_only, laws):
        """The elements' laws and parameters (a copy of a kept group gets its model's
        values here: :func:`build_spring_dampers`)."""
        self.k = np.asarray(k, dtype=float)
        self.c = np.asarray(c, dtype=float)
        self.l0 = np.asarray(rest_length, dtype=float)
        self.actuators = list(actuators)
        self.constant_actuators = all(isinstance(a, Constant) for a in self.actuators)
        self._fa0 = np.array([a.derivatives(0.0)[0] for a in self.actuators])
        self.tension_only = np.asarray(tension_only, dtype=bool)
        self.laws = list(laws)
        self.law_index = [i for i, law in enumerate(self.laws) if law is not None]

    def compiled_slot(self):
        if self.law_index:
            raise Unsupported("a non-linear law is evaluated in Python")

        def fa(t):
            return self._fa0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        return CompiledSlot(f"springs_{kernel_suffix(self.kind)}",
                            (int_array(self.config_index), int_array(self.dof_index), float_array(self.mi.u),
                             float_array(self.mj.u), float_array(self.k), float_array(self.c), float_array(self.l0),
                             int_array(self.tension_only)), fa, self.constant_actuators)

    # ------------------------------------------------------------ kinematics
    def _kinematics(self, qe, ve):
        nq, nv = self.nq, self.nv
        ql, vl = qe[self.config_index], ve[self.dof_index]
        qi, qj, vi, vj = ql[:, :nq], ql[:, nq:], vl[:, :nv], vl[:, nv:]
        xi, Ji = self.mi.evaluate(qi)
        xj, Jj = self.mj.evaluate(qj)
        Jh = np.concatenate([-Ji, Jj], axis=2)
        h = xj - xi
        l = np.linalg.norm(h, axis=1)
        if np.any(l == 0.0):
            bad = [self.element_names[i] for i in np.flatnonzero(l == 0.0)]
            raise FloatingPointError(f"spring-damper {bad[0]!r} has zero length: its direction is undefined")
        e = h / l[:, None]
        hd = np.einsum("nij,nj->ni", Jh, vl)
        ld = np.einsum("ni,ni->n", e, hd)
        return dict(qi=qi, qj=qj, vi=vi, vj=vj, Jh=Jh, l=l, e=e, hd=hd, ld=ld)

    def _force(self, t, delta, rate):
        fa = self._fa0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        F = self.k * delta + self.c * rate + fa
        Fd, Fr = self.k.copy(), self.c.copy()
        for i in self.law_index:
            Fi, Fdi, Fri = _law_derivatives(self.laws[i], delta[i], rate[i])
            F[i], Fd[i], Fr[i] = Fi + fa[i], Fdi, Fri
        # a cable carries no force while slack (δ ≤ 0), nor may it push (F < 0)
        slack = self.tension_only & ((delta <= 0.0) | (F < 0.0))
        F = np.where(slack, 0.0, F)
        Fd = np.where(slack, 0.0, Fd)
        Fr = np.where(slack, 0.0, Fr)
        return F, Fd, Fr

    # -------------------------------------------------------------- forces
    def evaluate(self, qe, ve, t, jacobians=True):
        if USE_KERNELS and self.kind.kernel_code is not None:
            return self._evaluate_compiled(qe, ve, t, jacobians)
        kin = self._kinematics(qe, ve)
        Jh, e, l, hd = kin["Jh"], kin["e"], kin["l"], kin["hd"]
        F, Fd, Fr = self._force(t, l - self.l0, kin["ld"])
        Jte = np.einsum("nij,ni->nj", Jh, e)
        Q = -F[:, None] * Jte
        if not jacobians:
            return Q, None, None
        nq = self.nv
        P = (np.eye(3)[None] - e[:, :, None] * e[:, None, :]) / l[:, None, None]
        PJ = np.einsum("nij,njk->nik", P, Jh)
        dJv = np.zeros_like(Jh)  # ∂(J_h q')/∂q
        dJv[:, :, :nq] = -self.mi.dJv(kin["qi"], kin["vi"])
        dJv[:, :, nq:] = self.mj.dJv(kin["qj"], kin["vj"])
        dld_dq = np.einsum("ni,nij->nj", hd, PJ) + np.einsum("ni,nij->nj", e, dJv)
        dF_dq = Fd[:, None] * Jte + Fr[:, None] * dld_dq
        H = np.zeros((len(F), 2 * nq, 2 * nq))
        H[:, :nq, :nq] = -self.mi.contract(kin["qi"], e)
        H[:, nq:, nq:] = self.mj.contract(kin["qj"], e)
        K = -(
            Jte[:, :, None] * dF_dq[:, None, :]
            + F[:, None, None] * (np.einsum("nij,nik->njk", Jh, PJ) + H)
        )
        D = -Fr[:, None, None] * Jte[:, :, None] * Jte[:, None, :]
        return Q, K, D

    def _evaluate_compiled(self, qe, ve, t, jacobians):
        ql, vl = qe[self.config_index], ve[self.dof_index]
        kcode = self.kind.kernel_code
        n, m = vl.shape
        length, rate = np.empty(n), np.empty(n)
        if not self.law_index:
            fa = self._fa0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
            Q, F = np.empty((n, m)), np.empty(n)
            K, D = (np.empty((n, m, m)), np.empty((n, m, m))) if jacobians else (np.empty((0, m, m)),) * 2
            _sda.linear_forces(kcode, ql, vl, self.mi.u, self.mj.u, self.k, self.c, self.l0, fa,
                               self.tension_only, jacobians, Q, K, D, length, rate, F)
            if np.any(length == 0.0):
                bad = self.element_names[int(np.flatnonzero(length == 0.0)[0])]
                raise FloatingPointError(f"spring-damper {bad!r} has zero length: its direction is undefined")
            return (Q, K, D) if jacobians else (Q, None, None)
        _sda.kinematics(kcode, ql, vl, self.mi.u, self.mj.u, length, rate)
        if np.any(length == 0.0):
            bad = self.element_names[int(np.flatnonzero(length == 0.0)[0])]
            raise FloatingPointError(f"spring-damper {bad!r} has zero length: its direction is undefined")
        F, Fd, Fr = self._force(t, length - self.l0, rate)
        Q = np.empty((n, m))
        K, D = (np.empty((n, m, m)), np.empty((n, m, m))) if jacobians else (np.empty((0, m, m)),) * 2
        _sda.forces(kcode, ql, vl, self.mi.u, self.mj.u, F, Fd, Fr, jacobians, Q, K, D)
        return (Q, K, D) if jacobians else (Q, None, None)

    # ------------------------------------------------------------ outputs
    def outputs(self, qe, ve, t, lam=None):
        kin = self._kinematics(qe, ve)
        F, _, _ = self._force(t, kin["l"] - self.l0, kin["ld"])
        return {"length": kin["l"], "length_rate": kin["ld"], "force": F}

    def potential_energy(self, qe, t):
        """½ k δ² of the linear springs (slack cables store nothing)."""
        kin = self._kinematics(qe, np.zeros_like(qe))
        delta = kin["l"] - self.l0
        active = ~(self.tension_only & (delta < 0.0))
        linear = np.ones(len(delta), dtype=bool)
        linear[self.law_index] = False
        return float(np.sum(0.5 * self.k * delta**2 * active * linear))

    def external_power(self, qe, ve, t, lam):
        """The actuators' power −f_a l' (tension f_a shortens the element: it works on
        the system when l' < 0)."""
        if not np.any(self._fa0) and self.constant_actuators:
            return 0.0
        kin = self._kinematics(qe, ve)
        delta = kin["l"] - self.l0
        F, _, _ = self._force(t, delta, kin["ld"])
        fa = self._fa0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        engaged = F != 0.0   # a slack cable transmits no actuator force either
        return float(np.sum(-fa * kin["ld"] * engaged))

    def dissipation_power(self, qe, ve, t, lam=None):
        """Power F l' minus the rate of stored energy and the actuator's power."""
        kin = self._kinematics(qe, ve)
        delta = kin["l"] - self.l0
        F, _, _ = self._force(t, delta, kin["ld"])
        stored = np.where(self.tension_only, np.maximum(delta, 0.0), delta)
        fa = self._fa0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        fa = fa * (F != 0.0)   # a slack cable transmits no actuator force either
        linear = np.ones(len(F), dtype=bool)
        linear[self.law_index] = False
        return float(np.sum((F - self.k * stored - fa) * kin["ld"] * linear))


# ---------------------------------------------------------------------- element type


class SpringDamper(PairSpec):
    """Spring-damper-actuator between two points: F = k (l − l0) + c l' + actuator(t),
    tension positive."""

    model_config = ConfigDict(title="Force: spring_damper")

    type: Literal["spring_damper"]
    at_i: Optional[Point] = Field(None, description="attachment on body i [m] (default: its centre of mass; origin for ground)")
    at_j: Optional[Point] = Field(None, description="attachment on body j [m] (default: its centre of mass)")
    k: float = Field(0.0, ge=0, description="stiffness [N/m]")
    c: float = Field(0.0, ge=0, description="damping [N s/m]")
    rest_length: Optional[float] = Field(None, ge=0, description="rest length l0 [m] (default: the initial length)")
    actuator: TimeFunctionSpec = Field(0.0, description="actuator force f_a(t) [N], tension positive")
    tension_only: bool = Field(False, description="true for a cable (no force when slack)")
    law: Optional[LawSpec] = Field(None, description="non-linear law instead of k and c: an expression in delta = l − l0 [m] "
                                                     'and rate = l\' [m/s] giving F [N], e.g. "1e4*delta + 2e6*delta**3 + 50*rate" '
                                                     "(from Python also a callable law(delta, rate), with an optional "
                                                     "derivatives(delta, rate) method for exact derivatives)")

    @model_validator(mode="after")
    def _law_or_kc(self):
        if self.law is not None and (self.k != 0 or self.c != 0):
            raise ValueError("give either k and c or a law, not both")
        return self


def build_spring_dampers(elements, system):
    """One SpringDamperGroup per node kind.

    The groups' index rows and markers are kept (:data:`_KEPT`) by what they are made
    from (the layout, the elements' names, bodies with their initial poses, and
    attachment points); a later model that gives the same (a benchmark's repeats, a study
    over stiffness, damping or actuators) gets copies of them with its own values."""
    key = inputs_key(elements, system, ("at_i", "at_j"))
    kept = _KEPT.get(key) if key is not None else None
    if kept is None:
        kept = []
        kinds = {id(e): pair_kind(e) for e in elements}
        for kind in system.kinds:
            mine = [i for i, e in enumerate(elements) if kinds[id(e)] == kind]
            if not mine:
                continue
            sdas = [elements[i] for i in mine]
            d = [e.data for e in sdas]
            group = SpringDamperGroup(
                kind, [e.name for e in sdas], system.pair_dofs(sdas, kind),
                system.local_points([e.bodies[0] for e in sdas], [x["at_i"] for x in d]),
                system.local_points([e.bodies[1] for e in sdas], [x["at_j"] for x in d]),
                [x["k"] for x in d], [x["c"] for x in d], [x["rest_length"] for x in d], [x["actuator"] for x in d],
                [x["tension_only"] for x in d], [x["law"] for x in d], system.pair_config(sdas, kind))
            kept.append((group, mine))
        if key is not None:     # copies: the systems' own groups may be given attributes
            _KEPT.put(key, [(copy.copy(g), mine) for g, mine in kept])
        return [g for g, _ in kept]
    groups = []
    for group, mine in kept:
        g = copy.copy(group)
        d = [elements[i].data for i in mine]
        g.set_values([x["k"] for x in d], [x["c"] for x in d], [x["rest_length"] for x in d],
                     [x["actuator"] for x in d], [x["tension_only"] for x in d], [x["law"] for x in d])
        groups.append(g)
    return groups


#: the spring-damper groups of the most recent inputs (:func:`build_spring_dampers`), their
#: index rows and markers shared by the copies and never modified
_KEPT = Recent()


@register
class SpringDamperType(ElementType):
    """The spring-damper-actuator of P1 between a point of body i and a point of body j."""

    name = "spring_damper"
    section = "forces"
    Spec = SpringDamper
    body_fields = ("body_i", "body_j")
    builder = staticmethod(build_spring_dampers)

    def prepare(self, model, spec, bodies, name):
        # ground has no centre of mass: its default point is the origin
        pi = point3(spec.at_i) if spec.at_i is not None else model.body_position(bodies[0])
        pj = point3(spec.at_j) if spec.at_j is not None else model.body_position(bodies[1])
        length = float(np.linalg.norm(pj - pi))
        if not length >= 1e-12:
            key = "at_j" if spec.at_j is not None else ("at_i" if spec.at_i is not None else None)
            raise ModelError(f"spring_damper {name!r}: the two attachment points coincide, so the spring has zero "
                             "length and no direction (give at_i and at_j)", element=name, key=key)
        return dict(at_i=pi, at_j=pj, k=float(spec.k), c=float(spec.c),
                    rest_length=length if spec.rest_length is None else float(spec.rest_length),
                    actuator=time_function(spec.actuator), tension_only=bool(spec.tension_only),
                    law=law_function(spec.law))

    def geometry(self, element):
        return [("line", element.name, *element.bodies, element.data["at_i"], element.data["at_j"])]

    def sample(self, model, a, b):
        """Linear with an actuator, a cable from ground, a non-linear Python law."""
        z = 0.0 if a.kind.name == "planar" else 1.0
        model.spring_damper(a, b, at_i=(0.2, 0.1, 0), at_j=(0.9, 0.1, 0.2 * z), k=120.0, c=7.0, rest_length=0.5,
                            actuator=Polynomial((0.5, 1.0)))
        model.spring_damper(GROUND, a, at_i=(0, 0, z), k=50.0, c=3.0, tension_only=True, rest_length=0.1)
        model.spring_damper(b, a, k=0.0, c=0.0, rest_length=0.3,
                            law=lambda d, r: 40 * d + 300 * d**3 + 2 * r * np.sqrt(1 + r * r))
