"""One-sided limits of a joint's free motion: end stops of revolute and prismatic joints.

A limit acts along the motion a joint leaves free (:mod:`.joint_motion`: the sliding
coordinate s of prismatic and point-on-line joints, the relative angle θ of revolute
joints, both zero in the initial configuration).  Beyond a stop the penetration
δ = m − upper > 0 (or lower − m > 0) meets a linear spring-dashpot (Kelvin–Voigt),

    F = −k δ − c m'     (upper stop; +k δ − c m' at the lower one; 0 between the stops),

a force on body j along the motion (a torque for revolute joints), with the reaction on
body i.  The generalised force is Q = F Jᵀ, J = ∂m/∂q, and exactly, while engaged,

    ∂Q/∂q = Jᵀ ⊗ (−k J − c Hᵀ q') + F H,     ∂Q/∂q' = −c Jᵀ J,     H = ∂J/∂Δ.

An impact on the stop of a body with effective inertia m_e (moment of inertia for pins)
rebounds with the coefficient of restitution of the linear spring-dashpot,

    e = exp(−π ζ / √(1 − ζ²)),     ζ = c / (2 √(k m_e)),

over the contact time π / (ω_n √(1 − ζ²)), ω_n = √(k / m_e) (Goldsmith 1960; the
"linear dashpot" contact model): choose c for a given e by ζ = −ln e / √(π² + ln² e).
The dashpot pulls slightly as the body leaves the stop (F < 0 at δ → 0⁺ while separating),
which that e accounts for.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ..ground import GROUND
from ..groups import ForceGroup
from ..nodes import PLANAR
from ..registry import register
from ..spec import Name, SpecBase
from .joint_motion import JointElementType, JointMotion, by_kind_and_family, joint_ref


class JointLimitGroup(ForceGroup):
    """The limits of the joints of one motion family between bodies of one kind."""

    output_names = ("position", "rate", "penetration", "force")

    def __init__(self, kind, elements, joints, system):
        n = len(elements)
        self.kind = kind
        self.element_names = [e.name for e in elements]
        self.dof_index = np.asarray(system.pair_dofs(joints, kind), dtype=int).reshape(n, 2 * kind.nv)
        self.config_index = np.asarray(system.pair_config(joints, kind), dtype=int).reshape(n, 2 * kind.nq)
        d = [e.data for e in elements]
        self.lower = np.array([x["lower"] for x in d])
        self.upper = np.array([x["upper"] for x in d])
        self.k = np.array([x["stiffness"] for x in d])
        self.c = np.array([x["damping"] for x in d])
        self.motion = JointMotion(kind, joints, system, self.element_names, "joint limit")

    def _state(self, qe, ve, hessian):
        nq = self.kind.nq
        ql, vl = qe[self.config_index], ve[self.dof_index]
        kin = self.motion(ql[:, :nq], ql[:, nq:], vl, hessian)
        m = kin["value"]
        pen = np.where(m > self.upper, m - self.upper, np.where(m < self.lower, m - self.lower, 0.0))
        active = pen != 0.0
        F = np.where(active, -self.k * pen - self.c * kin["rate"], 0.0)
        return kin, vl, pen, active, F

    def evaluate(self, qe, ve, t, jacobians=True):
        kin, vl, pen, active, F = self._state(qe, ve, jacobians)
        J = kin["J"]
        Q = F[:, None] * J
        if not jacobians:
            return Q, None, None
        H = kin["H"]
        on = active.astype(float)
        dF = on[:, None] * (-self.k[:, None] * J - self.c[:, None] * np.einsum("nij,ni->nj", H, vl))
        K = J[:, :, None] * dF[:, None, :] + F[:, None, None] * H
        D = -(on * self.c)[:, None, None] * J[:, :, None] * J[:, None, :]
        return Q, K, D

    def outputs(self, qe, ve, t, lam=None):
        """the joint coordinate (m or rad, from the initial configuration), its rate, the
        penetration (> 0 beyond the upper stop, < 0 beyond the lower) and the stop's force
        (torque) on body j along the motion."""
        kin, _, pen, _, F = self._state(qe, ve, False)
        return {"position": kin["value"], "rate": kin["rate"], "penetration": pen, "force": F}

    def switching(self, qe, ve, t):
        """m − upper and lower − m: positive while a stop is engaged."""
        kin, _, _, _, _ = self._state(qe, ve, False)
        return np.stack([kin["value"] - self.upper, self.lower - kin["value"]], axis=1)

    def switch_event(self, e, j, rising):
        return f"{('upper', 'lower')[j]} stop {'engaged' if rising else 'released'}"

    def potential_energy(self, qe, t):
        _, _, pen, _, _ = self._state(qe, np.zeros_like(qe), False)
        return float(np.sum(0.5 * self.k * pen**2))

    def dissipation_power(self, qe, ve, t, lam=None):
        kin, _, _, active, _ = self._state(qe, ve, False)
        return float(np.sum(np.where(active, self.c * kin["rate"] ** 2, 0.0)))


def build_joint_limits(elements, system):
    """One group per node kind and motion family (sliding, turning)."""
    return [JointLimitGroup(kind, mine, joints, system) for kind, mine, joints in by_kind_and_family(elements, system)]


class JointLimit(SpecBase):
    """End stops of a prismatic, point_on_line or revolute joint: a spring-dashpot beyond
    ``lower`` and ``upper`` (joint coordinate from the initial configuration)."""

    model_config = ConfigDict(title="Force: joint_limit")

    type: Literal["joint_limit"]
    name: Optional[Name] = Field(None, description="unique name (default: joint_limit and a number)")
    joint: Annotated[str, BeforeValidator(joint_ref)] = Field(description="the prismatic, point_on_line or revolute "
                                                                          "joint")
    lower: Optional[float] = Field(None, description="lower stop [m or rad] (none: no lower stop)")
    upper: Optional[float] = Field(None, description="upper stop [m or rad] (none: no upper stop)")
    stiffness: float = Field(gt=0, description="stop stiffness k [N/m or N m/rad]")
    damping: float = Field(0.0, ge=0, description="stop damping c [N s/m or N m s/rad]; restitution "
                                                  "e = exp(−πζ/√(1−ζ²)), ζ = c/(2√(k m_e))")

    @model_validator(mode="after")
    def _stops(self):
        if self.lower is None and self.upper is None:
            raise ValueError("give lower, upper or both")
        if self.lower is not None and self.upper is not None and not self.lower < self.upper:
            raise ValueError(f"lower = {self.lower} must be below upper = {self.upper}")
        return self


@register
class JointLimitType(JointElementType):
    """End stops of a joint (see the module docstring)."""

    name = "joint_limit"
    Spec = JointLimit
    builder = staticmethod(build_joint_limits)

    def prepare(self, model, spec, bodies, name):
        joint = self.joint(model, spec, name)
        return dict(joint=joint.name, bodies=joint.bodies, stiffness=float(spec.stiffness),
                    damping=float(spec.damping), lower=-np.inf if spec.lower is None else float(spec.lower),
                    upper=np.inf if spec.upper is None else float(spec.upper))

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        s = model.prismatic(a, b, at=(0.4, 0.1, 0.2) if not planar else (0.4, 0.1), axis=(1, 1, 0) if not planar
                            else (1, 0.5, 0), name="limit_slot")
        model.joint_limit(joint=s, lower=-0.05, upper=0.02, stiffness=300.0, damping=4.0)
        p = model.revolute(GROUND, b, at=(0.2, 0.3, 0.1) if not planar else (0.2, 0.3),
                           axis=(1, 0, 1) if not planar else (0, 0, 1), name="limit_pin")
        model.joint_limit(joint=p, upper=0.01, stiffness=50.0, damping=1.0)

    def geometry(self, element):
        return []
