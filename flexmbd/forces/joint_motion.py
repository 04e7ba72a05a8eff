"""The free motion of a joint as a measure with exact derivatives, for elements acting along it.

A prismatic or point-on-line joint leaves a **sliding** motion, measured by the sliding
coordinate s = a_i·(P_j − P_i) (zero in the initial configuration); a revolute joint a
**turning** motion, measured by the relative angle θ about its axis (zero initially)
(:mod:`flexmbd.forces.pair_kinematics`).  Joint friction (:mod:`.joint_friction`) and joint
limits (:mod:`.joint_limit`) act along these measures, with the joint's bodies and the
joint's own points and axes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..constraints.joints import Frame
from ..errors import ModelError
from ..ground import GROUND
from ..nodes import POINT, VECTOR
from ..registry import Element, ElementType, pair_kind
from ..rotations import perpendicular_pair
from .pair_kinematics import relative_angle, sliding_coordinate

#: joint type → its free motion
FAMILIES = {"prismatic": "slide", "point_on_line": "slide", "revolute": "turn"}


class JointMotion:
    """The measure of one family's motion for a list of joints between nodes of one kind:
    ``motion(qi, qj, vl, hessian)`` → dict(value, J, rate[, H]) as in pair_kinematics."""

    def __init__(self, kind, joints: list[Element], system, names: list[str], what: str):
        self.family = FAMILIES[joints[0].kind]
        self.names, self.what = names, what
        frames = [(Frame(0, system.body_position(j.bodies[0]), system.rotation(j.bodies[0])),
                   Frame(1, system.body_position(j.bodies[1]), system.rotation(j.bodies[1]))) for j in joints]
        n = len(joints)
        vec, pt = np.full(n, VECTOR), np.full(n, POINT)
        if self.family == "slide":
            self.ma_i = kind.markers([fi.vector(j.data["axis"])[2] for j, (fi, _) in zip(joints, frames)], vec)
            self.mp_i = kind.markers([fi.point(j.data["at"])[2] for j, (fi, _) in zip(joints, frames)], pt)
            self.mp_j = kind.markers([fj.point(j.data["at"])[2] for j, (_, fj) in zip(joints, frames)], pt)
        else:
            f_i, g_i, f_j = [], [], []
            for j, (fi, fj) in zip(joints, frames):
                f, g = perpendicular_pair(j.data.get("axis", np.array([0.0, 0.0, 1.0])))
                f_i.append(fi.vector(f)[2])
                g_i.append(fi.vector(g)[2])
                f_j.append(fj.vector(f)[2])
            self.mf_i, self.mg_i, self.mf_j = kind.markers(f_i, vec), kind.markers(g_i, vec), kind.markers(f_j, vec)

    def __call__(self, qi, qj, vl, hessian):
        if self.family == "slide":
            return sliding_coordinate(self.ma_i, self.mp_i, self.mp_j, qi, qj, vl, hessian)
        return relative_angle(self.mf_i, self.mg_i, self.mf_j, qi, qj, vl, hessian, self.names, self.what)


class JointElementType(ElementType):
    """An element type that acts along a joint's free motion: its bodies are the joint's
    (``prepare`` returns them under ``bodies``) and its ``joint`` key names the joint."""

    section = "forces"

    def create(self, model, spec):
        element = super().create(model, spec)
        element.bodies = element.data.pop("bodies")
        return element

    def joint(self, model, spec, name: str) -> Element:
        return resolve_joint(model, spec.joint, self.name, name)


def joint_ref(v: Any) -> Any:
    """A joint given as its Element (Python) or its name (files): the name."""
    return v.name if isinstance(v, Element) else v


def resolve_joint(model, joint: str, what: str, name: str) -> Element:
    """The joint an element acts along (ModelError naming the key if it is missing or of a
    type without a free sliding or turning motion)."""
    try:
        j = model.element(joint)
    except KeyError:
        raise ModelError(f"{what} {name!r}: no joint named {joint!r}", element=name, key="joint") from None
    if j.kind not in FAMILIES:
        raise ModelError(f"{what} {name!r}: joint {joint!r} is a {j.kind}; {what} acts in prismatic, point_on_line "
                         "(a point sliding in a slot) and revolute joints", element=name, key="joint")
    return j


def by_kind_and_family(elements, system):
    """[(kind, elements, their joints)] with one node kind and one motion family each."""
    joints = {id(e): system.model.element(e.data["joint"]) for e in elements}
    out = []
    for kind in system.kinds:
        for family in ("slide", "turn"):
            mine = [e for e in elements if pair_kind(e) == kind and FAMILIES[joints[id(e)].kind] == family]
            if mine:
                out.append((kind, mine, [joints[id(e)] for e in mine]))
    return out


def joint_coordinate(element: Element, result) -> tuple[np.ndarray, np.ndarray]:
    """The joint's coordinate (sliding coordinate or relative angle, from the initial
    configuration) and its rate at every stored step of ``result`` — the signals joint
    actuators read, as outputs ``<joint>.coordinate`` and ``<joint>.coordinate_rate``."""
    system = result.system
    kind = next(b.kind for b in element.bodies if b is not GROUND)
    steps = len(result.t)
    motion = JointMotion(kind, [element] * steps, system, [element.name] * steps, "joint")
    cfg, dof = system.pair_config([element], kind)[0], system.pair_dofs([element], kind)[0]
    QE = np.array([system.extend(q) for q in result.q])
    VE = np.array([system.extend_velocity(v) for v in result.v])
    ql, vl = QE[:, cfg], VE[:, dof]
    kin = motion(ql[:, :kind.nq], ql[:, kind.nq:], vl, False)
    return kin["value"], kin["rate"]
