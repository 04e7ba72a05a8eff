"""Coulomb friction in prismatic and point-on-line (sliding) and revolute (pin) joints.

P2 (Wang, Wang & Zhuang 2014) puts dry friction in a sliding joint whose normal force is a
joint multiplier: the slider's normal constraint φ_N = n_i·(P_j − P_i) = 0 has the
multiplier λ_N, |λ_N| is the normal force (n_i is a unit vector), and the friction force
on body j along the joint's axis a_i is

    F_f = −μ |λ_N| sgn(v_r),   v_r = s',   s = a_i·(P_j − P_i)

(:func:`~flexmbd.forces.pair_kinematics.sliding_coordinate`), set-valued (|F_f| ≤ μ0 |λ_N|)
while sticking.  Spatially the normal force is the norm of the two point-on-line
multipliers.  In a revolute joint of pin radius r the friction torque about the axis is
T_f = −μ r ‖λ_F‖ sgn(θ'), with λ_F the multipliers of its point coincidence (the joint's
reaction force, radial and axial together) and θ the relative angle
(:func:`~flexmbd.forces.pair_kinematics.relative_angle`) — the common engineering pin
model.  The law, its Jacobians and the solvers' two treatments (regularised,
set-valued) are those of :class:`flexmbd.groups.FrictionGroup`.

The element names a joint; it acts on the joint's bodies and refers to the joint's normal
equations, which must be kept (not removed as redundant).
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ..errors import ModelError
from ..ground import GROUND
from ..groups import FrictionGroup
from ..nodes import PLANAR
from ..registry import register
from ..spec import Name, SpecBase
from .joint_motion import JointElementType, JointMotion, by_kind_and_family, joint_ref

#: joint type → (measure, labels of its equations that carry the normal force)
#: the labels of the equations that carry a joint's normal force, by motion family
_NORMAL_LABELS = {"slide": ("point of j on line of i",), "turn": ("point coincidence",)}


class JointFrictionGroup(FrictionGroup):
    """Friction of the joints of one motion family (sliding or turning) between bodies of one kind."""

    def __init__(self, kind, elements, joints, system):
        n = len(elements)
        self.kind, self.elements = kind, list(elements)
        self.element_names = [e.name for e in elements]
        self.joints = joints
        self.dof_index = np.asarray(system.pair_dofs(joints, kind), dtype=int).reshape(n, 2 * kind.nv)
        self.config_index = np.asarray(system.pair_config(joints, kind), dtype=int).reshape(n, 2 * kind.nq)
        d = [e.data for e in elements]
        self.mu = np.array([x["mu"] for x in d])
        self.mu_static = np.array([x["mu_static"] for x in d])
        self.lever = np.array([x.get("radius") or 1.0 for x in d])
        self.epsilon = np.array([x["regularization"] for x in d])
        self.motion = JointMotion(kind, joints, system, self.element_names, "joint friction")

    def resolve_coupling(self, system):
        family = self.motion.family
        rows = []
        for e, j in zip(self.elements, self.joints):
            mine = system.owner_equations.get(j.name, [])
            normal = [r for r in mine if system.equation_label[r].startswith(_NORMAL_LABELS[family])]
            expected = (1 if self.kind == PLANAR else 2) if family == "slide" else (2 if self.kind == PLANAR else 3)
            if len(normal) != expected:
                raise ModelError(f"joint_friction {e.name!r}: the normal-force equations of joint {j.name!r} were "
                                 "removed as redundant; friction needs them (remove another joint, or use "
                                 "redundancy='keep')", element=e.name, key="joint")
            rows.append(normal)
        self.coupling_index = np.array(rows, dtype=np.int64)

    def describe(self, e):
        return f"joint_friction {self.element_names[e]!r} (in joint {self.joints[e].name!r})"

    def measure(self, qe, ve, hessian):
        nq = self.kind.nq
        ql, vl = qe[self.config_index], ve[self.dof_index]
        return self.motion(ql[:, :nq], ql[:, nq:], vl, hessian)


def build_joint_friction(elements, system):
    """One group per node kind and motion family (sliding, turning)."""
    return [JointFrictionGroup(kind, mine, joints, system) for kind, mine, joints in by_kind_and_family(elements, system)]


class JointFriction(SpecBase):
    """Coulomb friction in a prismatic or point_on_line joint (force μ N along the axis) or a
    revolute joint (torque μ r N about the axis), N the joint's normal force."""

    model_config = ConfigDict(title="Force: joint_friction")

    type: Literal["joint_friction"]
    name: Optional[Name] = Field(None, description="unique name (default: joint_friction and a number)")
    joint: Annotated[str, BeforeValidator(joint_ref)] = Field(description="the prismatic, point_on_line or revolute joint")
    mu: float = Field(ge=0, description="kinetic friction coefficient μ")
    mu_static: Optional[float] = Field(None, ge=0, description="static coefficient μ0 ≥ μ (default μ)")
    radius: Optional[float] = Field(None, gt=0, description="pin radius r of a revolute joint [m]")
    regularization: float = Field(1e-4, gt=0, description="velocity ε of the smooth sign v/√(v² + ε²) in the "
                                                          "Newmark-family solvers [m/s or rad/s]")

    @model_validator(mode="after")
    def _static_not_below_kinetic(self):
        if self.mu_static is not None and self.mu_static < self.mu:
            raise ValueError(f"mu_static = {self.mu_static} is below mu = {self.mu}: the static coefficient "
                             "cannot be smaller than the kinetic one")
        return self


@register
class JointFrictionType(JointElementType):
    """Coulomb friction in a joint (see the module docstring)."""

    name = "joint_friction"
    Spec = JointFriction
    builder = staticmethod(build_joint_friction)
    output_names = ()

    def prepare(self, model, spec, bodies, name):
        joint = self.joint(model, spec, name)
        if joint.kind == "revolute" and spec.radius is None:
            raise ModelError(f"joint_friction {name!r}: a revolute joint's friction needs the pin radius "
                             "(radius)", element=name, key="radius")
        if joint.kind != "revolute" and spec.radius is not None:
            raise ModelError(f"joint_friction {name!r}: radius applies to revolute joints; {spec.joint!r} is "
                             f"a {joint.kind}", element=name, key="radius")
        return dict(joint=joint.name, bodies=joint.bodies, mu=float(spec.mu),
                    mu_static=float(spec.mu if spec.mu_static is None else spec.mu_static),
                    radius=spec.radius, regularization=float(spec.regularization))

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        s = model.prismatic(a, b, at=(0.5, 0, 0.3) if not planar else (0.5, 0.0), axis=(1, 0, 1) if not planar else
                            (1, 1, 0), name="friction_slot")
        model.joint_friction(joint=s, mu=0.3, regularization=0.5)
        p = model.revolute(GROUND, a, at=(0.1, 0.2, 0.3) if not planar else (0.1, 0.2),
                           axis=(0, 1, 1) if not planar else (0, 0, 1), name="friction_pin")
        model.joint_friction(joint=p, mu=0.2, radius=0.05, regularization=0.3)

    def geometry(self, element):
        return []
