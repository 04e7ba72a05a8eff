"""Joint actuators: forces and torques along a joint's free motion that depend on the state.

A joint actuator acts along the motion its joint leaves free (:mod:`.joint_motion`: the
sliding coordinate q of a prismatic or point-on-line joint, the relative angle q of a
revolute joint, both from the initial configuration) with a force (torque) F on body j
and its reaction on body i, F given by a law of time and of *signals*: the coordinate and
rate of its own joint (q, q_rate) and of the inputs it reads (x, x_rate) — other joints'
coordinates, or global coordinates of markers (``"tip.y"``: e_y·x of the marker's point)
— the sensors of a controller (:mod:`.actuator_laws`).  Three element types share the group:

* ``joint_actuator`` — F from an expression (model files and Python) or a Python function;
* ``pd_controller`` — F = k_p (q_d(t) − q) + k_d (q_d'(t) − q_rate), optionally saturated;
* ``joint_motor`` — a DC motor's torque-speed curve F = F_stall (u − q_rate/ω₀), command u.

With Jᵢ = ∂qᵢ/∂q and Hᵢ = ∂Jᵢ/∂Δ of each signal joint i (own joint 0), the generalised
force is Q = F J₀ᵀ and, exactly for symbolic laws,

    ∂Q/∂q  = J₀ᵀ ⊗ Σᵢ (F_qᵢ Jᵢ + F_q̇ᵢ Hᵢᵀ q') + F H₀,     ∂Q/∂q' = J₀ᵀ ⊗ Σᵢ F_q̇ᵢ Jᵢ,

(F_qᵢ, F_q̇ᵢ the law's derivatives).  The actuator is a source: its power F q_rate is
counted as external work in the energy balance.
"""
from __future__ import annotations

import keyword
from typing import Annotated, Any, Literal, Optional, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from ..expressions import CONSTANTS, FUNCTIONS
from ..ground import GROUND
from ..groups import ForceGroup
from ..nodes import PLANAR, POINT
from ..registry import register
from ..spec import DumpError, Name, SpecBase, TimeFunctionSpec, time_function
from ..timefunctions import Polynomial
from .actuator_laws import CallableLaw, ExpressionLaw, MotorLaw, PDLaw
from .joint_motion import FAMILIES, JointElementType, JointMotion, joint_ref, resolve_joint


class _JointSignal:
    """The coordinate of a joint's free motion (:mod:`.joint_motion`) on the pair's columns."""

    def __init__(self, kind, joints, system, names):
        self.kind = kind
        self.dof_index = system.pair_dofs(joints, kind)
        self.config_index = system.pair_config(joints, kind)
        self.motion = JointMotion(kind, joints, system, names, "joint actuator")

    def __call__(self, ql, vl, hessian):
        nq = self.kind.nq
        kin = self.motion(ql[:, :nq], ql[:, nq:], vl, hessian)
        return kin["value"], kin["rate"], kin["J"], kin.get("H"), vl


class _PointSignal:
    """One global coordinate e_k·x of a point fixed on a body (a marker), on its columns:
    value e_k·x, gradient J_k = e_k·∂x/∂Δ and H = ∂J_k/∂Δ from the node kind's markers."""

    def __init__(self, kind, points, system):
        bodies = [system.model.element(m).bodies[0] for m, _ in points]
        u = [system.rotation(b).T @ (system.model.element(m).data["at"] - system.body_position(b))
             for b, (m, _) in zip(bodies, points)]
        self.axis = np.eye(3)[[k for _, k in points]]
        self.markers = kind.markers(u, np.full(len(points), POINT))
        self.dof_index = system.dof_rows(bodies, kind)
        self.config_index = system.config_rows(bodies, kind)

    def __call__(self, qb, vl, hessian):
        x, Jm = self.markers.evaluate(qb)
        J = np.einsum("nk,nkj->nj", self.axis, Jm)
        H = self.markers.contract(qb, self.axis) if hessian else None
        return np.einsum("nk,nk->n", self.axis, x), np.einsum("nj,nj->n", J, vl), J, H, vl


class JointActuatorGroup(ForceGroup):
    """Actuators of one node kind whose own joint and inputs have the same kinds of signals
    (joint motions of each family, marker coordinates)."""

    output_names = ("force", "power")

    def __init__(self, kind, elements, system):
        self.kind = kind
        self.element_names = [e.name for e in elements]
        self.laws = [e.data["law"] for e in elements]
        sources = [e.data["sources"] for e in elements]
        self.signals = []
        for k in range(len(sources[0])):
            column = [src[k] for src in sources]
            if column[0][0] == "joint":
                self.signals.append(_JointSignal(kind, [system.model.element(c[1]) for c in column], system,
                                                 self.element_names))
            else:
                self.signals.append(_PointSignal(kind, [(c[1], c[2]) for c in column], system))
        self.dof_index = np.hstack([sg.dof_index for sg in self.signals])
        self.config_index = np.hstack([sg.config_index for sg in self.signals])
        self.widths = [sg.dof_index.shape[1] for sg in self.signals]
        vcut = np.cumsum([0] + self.widths)
        qcut = np.cumsum([0] + [sg.config_index.shape[1] for sg in self.signals])
        #: each signal's columns of the group's (configuration, velocity) indices
        self.cuts = [(slice(qcut[k], qcut[k + 1]), slice(vcut[k], vcut[k + 1])) for k in range(len(self.signals))]

    def _signals(self, qe, ve, hessian):
        kins = [sg(qe[self.config_index[:, qc]], ve[self.dof_index[:, vc]], hessian)
                for sg, (qc, vc) in zip(self.signals, self.cuts)]
        s = np.stack([x for kin in kins for x in kin[:2]], axis=1)
        return kins, s

    def _forces(self, t, s):
        out = [law(t, row) for law, row in zip(self.laws, s)]
        return np.array([f for f, _ in out]), np.array([d for _, d in out])

    def evaluate(self, qe, ve, t, jacobians=True):
        kins, s = self._signals(qe, ve, jacobians)
        F, dF = self._forces(t, s)
        w = self.widths[0]
        J0 = kins[0][2]
        Q = np.zeros(self.dof_index.shape)
        Q[:, :w] = F[:, None] * J0
        if not jacobians:
            return Q, None, None
        n, W = self.dof_index.shape
        dFq, dFv = np.zeros((n, W)), np.zeros((n, W))
        start = 0
        for k, (_, _, J, H, vl) in enumerate(kins):
            cols = slice(start, start + self.widths[k])
            start += self.widths[k]
            dFq[:, cols] = dF[:, 2 * k, None] * J + dF[:, 2 * k + 1, None] * np.einsum("nij,ni->nj", H, vl)
            dFv[:, cols] = dF[:, 2 * k + 1, None] * J
        K = np.zeros((n, W, W))
        D = np.zeros((n, W, W))
        K[:, :w, :] = J0[:, :, None] * dFq[:, None, :]
        K[:, :w, :w] += F[:, None, None] * kins[0][3]
        D[:, :w, :] = J0[:, :, None] * dFv[:, None, :]
        return Q, K, D

    def outputs(self, qe, ve, t, lam=None):
        """force F on body j along the joint's motion [N or N m] and its power F q_rate [W]."""
        _, s = self._signals(qe, ve, False)
        F, _ = self._forces(t, s)
        return {"force": F, "power": F * s[:, 1]}

    def external_power(self, qe, ve, t, lam):
        _, s = self._signals(qe, ve, False)
        F, _ = self._forces(t, s)
        return float(np.sum(F * s[:, 1]))


def build_joint_actuators(elements, system):
    """One group per node kind and tuple of signal kinds (own joint's family, inputs…)."""
    def key(e):
        joint = system.model.element(e.data["sources"][0][1])
        kind = next(b.kind for b in joint.bodies if b is not GROUND)
        sig = tuple(FAMILIES[system.model.element(src[1]).kind] if src[0] == "joint" else "point"
                    for src in e.data["sources"])
        return kind.key, sig
    groups = {}
    for e in elements:
        groups.setdefault(key(e), []).append(e)
    out = []
    for kind in system.kinds:
        for k, mine in groups.items():
            if k[0] == kind.key:
                out.append(JointActuatorGroup(kind, mine, system))
    return out


# ============================================================================ specifications
_RESERVED = {"t", "q", "q_rate", *CONSTANTS, *FUNCTIONS}


def _law_or_callable(v):
    if isinstance(v, str) or callable(v):
        return v
    raise ValueError("expected an expression in t, q, q_rate and the inputs (or, from Python, a callable "
                     "law(t, q, q_rate, **inputs))")


def _law_to_data(v):
    if v is None or isinstance(v, (str, int, float)):
        return v
    raise DumpError("a Python actuator law cannot be written to a model file; use an expression")


Law = Annotated[Union[str, SkipJsonSchema[Any]], BeforeValidator(_law_or_callable)]
JointRef = Annotated[str, BeforeValidator(joint_ref)]


class _ActuatorBase(SpecBase):
    name: Optional[Name] = Field(None, description="unique name")
    joint: JointRef = Field(description="the prismatic, point_on_line or revolute joint it drives")
    inputs: dict[str, JointRef] = Field({}, description="signals the law reads: variable name → a joint (its "
                                                        "coordinate) or a marker coordinate '<marker>.x|y|z' "
                                                        "(variables x and x_rate in the law)")

    @field_validator("inputs")
    @classmethod
    def _input_names(cls, v):
        for name in v:
            if not name.isidentifier() or keyword.iskeyword(name) or name in _RESERVED or name.endswith("_rate"):
                raise ValueError(f"input name {name!r} must be an identifier, not ending in _rate and none of "
                                 "t, q, q_rate, a constant or a function")
        return v


class JointActuator(_ActuatorBase):
    """A force (torque) along a joint's motion from a law of t, q, q_rate and input joints."""

    model_config = ConfigDict(title="Force: joint_actuator")
    type: Literal["joint_actuator"]
    law: Annotated[Law, Field(description="expression in t, q [m or rad], q_rate and inputs x, x_rate; "
                                          "F on body j along the motion [N or N m]")]


class PDController(_ActuatorBase):
    """Proportional-derivative control of a joint towards a set-point q_d(t)."""

    model_config = ConfigDict(title="Force: pd_controller")
    type: Literal["pd_controller"]
    setpoint: TimeFunctionSpec = Field(description="set-point q_d(t) [m or rad, from the initial configuration]")
    kp: float = Field(ge=0, description="proportional gain [N/m or N m/rad]")
    kd: float = Field(0.0, ge=0, description="derivative gain [N s/m or N m s/rad]")
    max_force: Optional[float] = Field(None, gt=0, description="saturation ±F_max [N or N m] (none: no limit)")


class JointMotor(_ActuatorBase):
    """A DC motor on a joint: F = F_stall (u − q_rate/ω₀), the command u clipped to [−1, 1]."""

    model_config = ConfigDict(title="Force: joint_motor")
    type: Literal["joint_motor"]
    stall_force: float = Field(gt=0, description="stall torque (force) at u = 1 [N m or N]")
    no_load_speed: float = Field(gt=0, description="no-load speed at u = 1 [rad/s or m/s]")
    command: Union[float, Law] = Field(1.0, description="command u (number, or expression in t, q, q_rate and "
                                                        "inputs), clipped to [−1, 1]")


# ============================================================================ types
class _ActuatorType(JointElementType):
    builder = staticmethod(build_joint_actuators)

    def prepare(self, model, spec, bodies, name):
        joint = self.joint(model, spec, name)
        kind = {b.kind for b in joint.bodies if b is not GROUND}
        sources = [("joint", joint.name)]
        for x, target in spec.inputs.items():
            src = self._source(model, name, x, target)
            element = model.element(src[1])
            if {b.kind for b in element.bodies if b is not GROUND} != kind:
                raise self.error(name, "inputs", f"input {x!r}: {target!r} is on bodies of another kind")
            sources.append(src)
        try:
            law = self.law(spec, list(spec.inputs))
        except ValueError as exc:
            raise self.error(name, self.law_key, str(exc)) from None
        return dict(sources=sources, bodies=joint.bodies, law=law)

    def _source(self, model, name, x, target):
        """("joint", joint) for a joint's coordinate, ("point", marker, axis) for "<marker>.x|y|z"."""
        marker, _, axis = target.rpartition(".")
        if marker and axis in ("x", "y", "z"):
            try:
                m = model.element(marker)
            except KeyError:
                m = None
            if m is not None and m.kind == "marker":
                return ("point", m.name, "xyz".index(axis))
        try:
            model.element(target)
        except KeyError:
            raise self.error(name, "inputs", f"input {x!r}: {target!r} is neither a joint nor a marker coordinate "
                                             "'<marker>.x', '.y' or '.z'") from None
        return ("joint", resolve_joint(model, target, self.name, name).name)

    law_key = "law"

    def error(self, name, key, message):
        from ..errors import ModelError
        return ModelError(f"{self.name} {name!r}: {message}", element=name, key=key)

    def dump(self, element):
        data = super().dump(element)
        if not data.get("inputs"):
            data.pop("inputs", None)
        return data


def _law(v, inputs):
    return CallableLaw(v, inputs) if callable(v) else ExpressionLaw(v, inputs)


@register
class JointActuatorType(_ActuatorType):
    """A state-dependent force or torque along a joint's motion (see the module docstring)."""

    name = "joint_actuator"
    Spec = JointActuator

    def law(self, spec, inputs):
        return _law(spec.law, inputs)

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        s = model.prismatic(a, b, at=(0.3, 0.2, 0.1) if not planar else (0.3, 0.2), axis=(0, 1, 1) if not planar
                            else (1, -0.5, 0), name="actuated_slot")
        p = model.revolute(GROUND, a, at=(0.1, 0.4, 0.2) if not planar else (0.1, 0.4),
                           axis=(1, 1, 0) if not planar else (0, 0, 1), name="actuated_pin")
        model.joint_actuator(joint=s, law="-30*q - 2*q_rate*abs(q_rate) + 5*sin(phi)*phi_rate + t", inputs={"phi": p})
        model.joint_actuator(joint=p, law="-4*q**3 - 0.5*q_rate + 2*x*x_rate", inputs={"x": s})
        model.marker(b, at=(1.2, 0.3, -0.1) if not planar else (1.2, 0.3), name="actuator_tip")
        model.joint_actuator(joint=s, law="-20*(y - 0.1)*abs(y) - 3*y_rate + z*q", inputs={"y": "actuator_tip.y",
                                                                                           "z": "actuator_tip.x"})


@register
class PDControllerType(_ActuatorType):
    """Proportional-derivative control of a joint (see the module docstring)."""

    name = "pd_controller"
    Spec = PDController
    law_key = "setpoint"

    def law(self, spec, inputs):
        return PDLaw(time_function(spec.setpoint), spec.kp, spec.kd, spec.max_force)

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        p = model.revolute(a, b, at=(0.6, -0.1, 0.3) if not planar else (0.6, -0.1),
                           axis=(0, 0, 1), name="controlled_pin")
        model.pd_controller(joint=p, setpoint=Polynomial((0.1, 0.5)), kp=40.0, kd=3.0)


@register
class JointMotorType(_ActuatorType):
    """A DC motor with a linear torque-speed curve on a joint (see the module docstring)."""

    name = "joint_motor"
    Spec = JointMotor
    law_key = "command"

    def law(self, spec, inputs):
        command = spec.command
        if isinstance(command, (int, float)):
            command = time_function(float(command))
        elif isinstance(command, str) or callable(command):
            command = _law(command, inputs)
        return MotorLaw(spec.stall_force, spec.no_load_speed, command)

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        p = model.revolute(GROUND, b, at=(0.9, 0.0, -0.2) if not planar else (0.9, 0.0),
                           axis=(0, 1, 0) if not planar else (0, 0, 1), name="motor_pin")
        model.joint_motor(joint=p, stall_force=3.0, no_load_speed=20.0, command="0.2 - 0.5*q")

