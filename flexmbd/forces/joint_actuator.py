"""Joint actuators: forces and torques along a joint's free motion that depend on the state.

A joint actuator acts along the motion its joint leaves free (:mod:`.joint_motion`: the
sliding coordinate q of a prismatic or point-on-line joint, the relative angle q of a
revolute joint, both from the initial configuration) with a force (torque) F on body j
and its reaction on body i, F given by a law of time and of *signals*: the coordinate and
rate of its own joint (q, q_rate) and of any other joints it reads (inputs x, x_rate) —
the sensors of a controller (:mod:`.actuator_laws`).  Three element types share the group:

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
from ..nodes import PLANAR
from ..registry import ElementType, register
from ..spec import DumpError, Name, SpecBase, TimeFunctionSpec, time_function
from ..timefunctions import Polynomial
from .actuator_laws import CallableLaw, ExpressionLaw, MotorLaw, PDLaw
from .joint_motion import FAMILIES, JointMotion, joint_ref, resolve_joint


class JointActuatorGroup(ForceGroup):
    """Actuators of one node kind whose own and input joints have the same motion families."""

    output_names = ("force", "power")

    def __init__(self, kind, elements, system):
        n = len(elements)
        self.kind = kind
        self.element_names = [e.name for e in elements]
        self.laws = [e.data["law"] for e in elements]
        joints = [[system.model.element(j) for j in e.data["joints"]] for e in elements]
        self.slots = len(joints[0])
        self.dof_index = np.hstack([system.pair_dofs([js[k] for js in joints], kind) for k in range(self.slots)])
        self.config_index = np.hstack([system.pair_config([js[k] for js in joints], kind)
                                       for k in range(self.slots)]).reshape(n, -1)
        self.motions = [JointMotion(kind, [js[k] for js in joints], system, self.element_names, "joint actuator")
                        for k in range(self.slots)]

    def _signals(self, qe, ve, hessian):
        nq, nv = self.kind.nq, self.kind.nv
        kins = []
        for k, motion in enumerate(self.motions):
            ql = qe[self.config_index[:, 2 * nq * k:2 * nq * (k + 1)]]
            vl = ve[self.dof_index[:, 2 * nv * k:2 * nv * (k + 1)]]
            kins.append((motion(ql[:, :nq], ql[:, nq:], vl, hessian), vl))
        s = np.stack([x for kin, _ in kins for x in (kin["value"], kin["rate"])], axis=1)
        return kins, s

    def _forces(self, t, s):
        out = [law(t, row) for law, row in zip(self.laws, s)]
        return np.array([f for f, _ in out]), np.array([d for _, d in out])

    def evaluate(self, qe, ve, t, jacobians=True):
        kins, s = self._signals(qe, ve, jacobians)
        F, dF = self._forces(t, s)
        w = 2 * self.kind.nv
        J0 = kins[0][0]["J"]
        Q = np.zeros(self.dof_index.shape)
        Q[:, :w] = F[:, None] * J0
        if not jacobians:
            return Q, None, None
        n, W = self.dof_index.shape
        dFq, dFv = np.zeros((n, W)), np.zeros((n, W))
        for k, (kin, vl) in enumerate(kins):
            cols = slice(w * k, w * (k + 1))
            dFq[:, cols] = dF[:, 2 * k, None] * kin["J"] + dF[:, 2 * k + 1, None] * np.einsum("nij,ni->nj", kin["H"], vl)
            dFv[:, cols] = dF[:, 2 * k + 1, None] * kin["J"]
        K = np.zeros((n, W, W))
        D = np.zeros((n, W, W))
        K[:, :w, :] = J0[:, :, None] * dFq[:, None, :]
        K[:, :w, :w] += F[:, None, None] * kins[0][0]["H"]
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
    """One group per node kind and tuple of motion families (own joint, inputs…)."""
    def key(e):
        joints = [system.model.element(j) for j in e.data["joints"]]
        kind = next(b.kind for b in joints[0].bodies if b is not GROUND)
        return kind.key, tuple(FAMILIES[j.kind] for j in joints)
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
    inputs: dict[str, JointRef] = Field({}, description="other joints the law reads: variable name → joint "
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
class _ActuatorType(ElementType):
    section = "forces"
    builder = staticmethod(build_joint_actuators)

    def create(self, model, spec):
        element = super().create(model, spec)
        element.bodies = element.data.pop("bodies")
        return element

    def prepare(self, model, spec, bodies, name):
        joint = resolve_joint(model, spec.joint, self.name, name)
        inputs = {x: resolve_joint(model, j, self.name, name).name for x, j in spec.inputs.items()}
        kind = {b.kind for b in joint.bodies if b is not GROUND}
        for x, j in inputs.items():
            if {b.kind for b in model.element(j).bodies if b is not GROUND} != kind:
                raise self.error(name, "inputs", f"input {x!r}: joint {j!r} joins bodies of another kind")
        try:
            law = self.law(spec, list(inputs))
        except ValueError as exc:
            raise self.error(name, self.law_key, str(exc)) from None
        return dict(joints=[joint.name, *inputs.values()], bodies=joint.bodies, law=law)

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

