"""The joints and drivers as element types (:mod:`flexmbd.registry`).

Every joint and driver is a set of dot-product equations between markers of two bodies
(:mod:`.joints` writes them, :mod:`.dot` evaluates them); all of a model's joints and
drivers on bodies of one kind become one :class:`~flexmbd.constraints.dot.DotConstraintGroup`,
equations in model order (so multipliers keep the order of the model).  Joints are placed
by a global point and global axes in the initial configuration.

Outputs: ``<joint>.multipliers`` (its equations' λ), ``<joint>.reaction`` (the force of
the joint on body j, or on body i negated when j is ground, global axes [N]), and for
drivers ``<driver>.torque`` [N m] / ``<driver>.force`` [N], the load the driver supplies.
"""
from __future__ import annotations

import copy
from typing import ClassVar, Literal, Optional

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from ..errors import ModelError
from ..memo import Recent, inputs_key as _inputs_key
from ..ground import GROUND
from ..nodes import PLANAR, POINT, SE3, VECTOR
from ..nodes.base import NodeKind
from ..registry import ElementType, pair_kind, register
from ..spec import Axis, PairSpec, Point, TimeFunctionSpec, point3, time_function, unit
from ..timefunctions import ConstantSpeed, Polynomial
from . import joints as J
from .dot import DotConstraintGroup, MixedDotConstraintGroup, TimeLaw, angle_law, offset_law
from .mixed import build_mixed_points, mixable


def _frames(system, element):
    """The joint's two frames; directions anchored at the joint's point ``at`` when its
    bodies are deformable (a modal beam's axes turn with the section there)."""
    bi, bj = element.bodies
    at = element.data.get("at")
    anchor = at if at is not None and any(getattr(b.kind, "deformable", False) for b in (bi, bj)
                                          if b is not GROUND) else None
    return (J.Frame(0, system.body_position(bi), system.rotation(bi), anchor),
            J.Frame(1, system.body_position(bj), system.rotation(bj), anchor))


def _check_slots(element, equations):
    """Points and directions on the joint's nodes that their kind cannot carry (ANCF cable
    nodes: only along the axis; modal beams: points off the beam) are a ModelError naming
    the joint (``NodeKind.check_offsets``, ``check_directions``)."""
    sides = [side for side, body in enumerate(element.bodies) if body is not GROUND and _checks_slots(body.kind)]
    if not sides:
        return
    found = {}      # (side, marker type) -> the vectors, in equation order
    for eq in equations:
        for term in eq.terms:
            for slot in term:
                if isinstance(slot, tuple) and len(slot) >= 3 and slot[1] in (POINT, VECTOR):
                    found.setdefault((slot[0], slot[1]), []).append(slot[2])
    for side in sides:
        body = element.bodies[side]
        kind = body.kind
        for mtype, check in ((POINT, kind.check_offsets), (VECTOR, kind.check_directions)):
            u = found.get((side, mtype))
            if u:
                check([body.name] * len(u), u, element=element.name)


def _checks_slots(kind) -> bool:
    """False for a kind that carries every point and direction (NodeKind's checks)."""
    t = type(kind)
    return t.check_offsets is not NodeKind.check_offsets or t.check_directions is not NodeKind.check_directions


def euler_frames(bodies) -> bool:
    """Two non-ground nodes of different kinds whose markers are Euler-parameter frames
    (``NodeKind.euler_frame``: rigid bodies and floating-frame modal beams), which every
    joint and driver joins (:class:`~flexmbd.constraints.dot.MixedDotConstraintGroup`)."""
    nodes = [b for b in bodies if b is not GROUND]
    return len(nodes) == 2 and nodes[0].kind != nodes[1].kind and all(b.kind.euler_frame for b in nodes)


def build_mixed_dots(elements, system) -> list:
    """One MixedDotConstraintGroup per ordered pair of kinds: the equations of the joints
    and drivers between Euler-parameter frames of different kinds, in model order."""
    pairs = {}
    for e in elements:
        pairs.setdefault((e.bodies[0].kind.key, e.bodies[1].kind.key), []).append(e)
    groups = []
    for mine in pairs.values():
        ki, kj = mine[0].bodies[0].kind, mine[0].bodies[1].kind
        eqs, counts, laws = [], [], []
        for e in mine:
            fi, fj = _frames(system, e)
            new = e.type.equations(e, fi, fj, ki)
            _check_slots(e, new)
            law = e.type.law(e)
            if law is not None:
                laws.append(TimeLaw(len(eqs), law))
            eqs += new
            counts.append(len(new))
        dofs = np.hstack([system.dof_rows([e.bodies[0] for e in mine], ki), system.dof_rows([e.bodies[1] for e in mine], kj)])
        cfgs = np.hstack([system.config_rows([e.bodies[0] for e in mine], ki),
                          system.config_rows([e.bodies[1] for e in mine], kj)])
        groups.append(MixedDotConstraintGroup(ki, kj, eqs, np.repeat(dofs, counts, axis=0), laws,
                                              np.repeat(cfgs, counts, axis=0)))
    return groups


def build_dot_constraints(elements, system):
    """One DotConstraintGroup per node kind: every equation of every joint and driver of
    that kind, in model order (builder of all joint and driver types); joints between
    Euler-parameter frames of different kinds and spherical joints across kinds have
    their own groups.

    The groups are kept (:data:`_GROUPS`) by everything they are made from: the joints'
    types, names and data, their bodies' kinds, places in the layout and initial poses.
    A later model that gives the same inputs (a benchmark's repeats, a study over masses,
    springs or loads) gets copies of them instead of its joints' equations written again
    joint by joint; joints whose data is not plain numbers (drivers' time functions) are
    built every time."""
    key = _inputs_key(elements, system)
    if key is not None:
        kept = _GROUPS.get(key)
        if kept is not None:
            return [copy.copy(g) for g in kept]
    groups = _build_dot_constraints(elements, system)
    if key is not None:         # copies made before any system sets its rows on them
        for g in groups:        # the subsets freezing cuts from them, shared with their copies
            g.__dict__.setdefault("_subsets", {})
        _GROUPS.put(key, [copy.copy(g) for g in groups])
    return groups


#: the joint groups of the most recent inputs (:func:`build_dot_constraints`); their arrays
#: are shared by the systems given copies and never modified
_GROUPS = Recent()


def _build_dot_constraints(elements, system):
    """:func:`build_dot_constraints` without its cache."""
    across = [e for e in elements if e.type.joins_kinds(e.bodies)]
    elements = [e for e in elements if not e.type.joins_kinds(e.bodies)]
    frames = [e for e in across if euler_frames(e.bodies)]
    across = [e for e in across if not euler_frames(e.bodies)]
    kinds = {id(e): pair_kind(e) for e in elements}
    groups = []
    for kind in system.kinds:
        eqs, owners, counts, laws = [], [], [], []
        for e in elements:
            if kinds[id(e)] != kind:
                continue
            et = e.type
            fi, fj = _frames(system, e)
            new = et.equations(e, fi, fj, kind)
            _check_slots(e, new)
            law = et.law(e)
            if law is not None:
                laws.append(TimeLaw(len(eqs), law))
            eqs += new
            owners.append(e)
            counts.append(len(new))
        if eqs:
            # every equation of a joint acts on the pair of bodies of that joint
            dofs = np.repeat(system.pair_dofs(owners, kind), counts, axis=0)
            cfgs = np.repeat(system.pair_config(owners, kind), counts, axis=0)
            group = DotConstraintGroup(kind, eqs, dofs, laws, cfgs)
            #: the sides (body i, body j) of each equation that are ground (compiled kernels
            #: take their markers as constants)
            group.on_ground = cfgs[:, [0, kind.nq]] >= system.n_q
            groups.append(group)
    return groups + (build_mixed_points(across, system) if across else []) + \
        (build_mixed_dots(frames, system) if frames else [])


class JointType(ElementType):
    """A joint: ``equations`` between the bodies' initial frames."""

    section = "joints"
    body_fields = ("body_i", "body_j")
    builder = staticmethod(build_dot_constraints)
    #: not available between planar bodies
    spatial_only: ClassVar[bool] = False

    def prepare(self, model, spec, bodies, name):
        kinds = {b.kind for b in bodies if b is not GROUND}
        if PLANAR in kinds and self.spatial_only:
            raise ModelError(f"{self.name} {name!r}: not available for planar bodies", element=name, key="type")
        data = {}
        for key, value in spec:
            if key in ("type", "name", "body_i", "body_j"):
                continue
            if value is None or not isinstance(value, list):
                data[key] = value
            elif key in ("axis", "axis_i", "axis_j", "normal"):
                data[key] = unit(value)
            else:
                data[key] = point3(value)
        if PLANAR in kinds and "axis" in data and self.planar_axis_z and abs(abs(data["axis"][2]) - 1) > 1e-12:
            raise ModelError(f"{self.name} {name!r}: planar bodies rotate about z; axis must be (0, 0, ±1)",
                             element=name, key="axis")
        return data

    #: the axis of planar bodies must be z
    planar_axis_z: ClassVar[bool] = False

    def law(self, element):
        """Time law of a driver's equation (None for joints)."""
        return None

    def equations(self, element, fi, fj, kind):
        raise NotImplementedError

    #: the joint leaves a sliding or turning motion free: outputs ``coordinate`` and
    #: ``coordinate_rate`` (:func:`flexmbd.forces.joint_motion.joint_coordinate`)
    free_motion: ClassVar[bool] = False

    def outputs(self, element, system):
        """``reaction`` when some of its equations are kept (multipliers exist); the
        coordinate of the free motion and its rate for prismatic, point-on-line and
        revolute joints."""
        out = ("reaction",) if element.name in system.owner_equations else ()
        turns_ok = self.name != "revolute" or all(b.kind.rotations for b in element.bodies if b is not GROUND)
        return out + (("coordinate", "coordinate_rate") if self.free_motion and turns_ok else ())

    def output(self, element, what, result):
        if what in ("coordinate", "coordinate_rate"):
            from ..forces.joint_motion import joint_coordinate     # forces build on constraints, not back
            value, rate = joint_coordinate(element, result)
            return value if what == "coordinate" else rate
        return result.reaction(element) if what == "reaction" else None

    def geometry(self, element):
        at = element.data.get("at")
        if at is None:
            return []
        bi, bj = element.bodies
        return [("marker", element.name, bj if bj is not GROUND else bi, at)]

    def joins_kinds(self, bodies):
        """Between Euler-parameter frames of different kinds (a rigid body and a modal
        beam): :class:`~flexmbd.constraints.dot.MixedDotConstraintGroup`."""
        return euler_frames(bodies)

    #: keyword arguments of the sample between two spatial / two planar bodies
    sample_spatial: ClassVar[dict | None] = None
    sample_planar: ClassVar[dict | None] = None

    def sample(self, model, a, b):
        """The joint between a and b and between ground and a (``<type>_ground``)."""
        planar = a.kind == PLANAR
        opts = self.sample_planar if planar else self.sample_spatial
        if opts is None or (planar and self.spatial_only):
            return
        model.add(self.name, body_i=a, body_j=b, **opts)
        model.add(self.name, body_i=GROUND, body_j=a, name=f"{self.name}_ground", **opts)


def _body_frame(element, fi, fj, kind):
    """SE(3) bodies: point coincidence in a body frame (body i, or j when i is ground), so
    the joint's Jacobian, like the beams' stiffness, is invariant under rigid motion."""
    if kind != SE3:
        return None
    return fj if element.bodies[0] is GROUND else fi


class Spherical(PairSpec):
    """Coincident points: 3 equations (2 planar)."""

    model_config = ConfigDict(title="Joint: spherical")
    type: Literal["spherical"]
    at: Point = Field(description="joint point, global, initial configuration [m]")


@register
class SphericalType(JointType):
    Spec = Spherical
    name = "spherical"
    sample_spatial = dict(at=(0.5, 0, 0.3))   # between planar bodies it is the revolute joint

    def joins_kinds(self, bodies):
        """Between nodes of two different spatial kinds (constraints/mixed.py; Euler-parameter
        frames: the dot-product equations, as every joint)."""
        return mixable(bodies) or euler_frames(bodies)

    def equations(self, e, fi, fj, kind):
        return J.spherical(e.name, fi, fj, e.data["at"], kind == PLANAR, body_frame=_body_frame(e, fi, fj, kind))



class Revolute(PairSpec):
    """Coincident points and a common axis."""

    model_config = ConfigDict(title="Joint: revolute")
    type: Literal["revolute"]
    at: Point = Field(description="joint point [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="joint axis, global (must be z for planar bodies)")


@register
class RevoluteType(JointType):
    free_motion = True
    Spec = Revolute
    name = "revolute"
    planar_axis_z = True
    sample_spatial, sample_planar = dict(at=(0.5, 0, 0.3), axis=(0, 1, 1)), dict(at=(0.5, 0))

    def equations(self, e, fi, fj, kind):
        return J.revolute(e.name, fi, fj, e.data["at"], e.data["axis"], kind == PLANAR,
                          body_frame=_body_frame(e, fi, fj, kind))


class Prismatic(PairSpec):
    """Sliding along an axis without rotation."""

    model_config = ConfigDict(title="Joint: prismatic")
    type: Literal["prismatic"]
    at: Point = Field(description="a point on the sliding axis [m]")
    axis: Axis = Field(description="sliding direction, global")


@register
class PrismaticType(JointType):
    free_motion = True
    Spec = Prismatic
    name = "prismatic"
    sample_spatial, sample_planar = dict(at=(0.5, 0, 0.3), axis=(1, 0, 1)), dict(at=(0.5, 0), axis=(1, 1, 0))

    def equations(self, e, fi, fj, kind):
        return J.prismatic(e.name, fi, fj, e.data["at"], e.data["axis"], kind == PLANAR)


class Cylindrical(PairSpec):
    """Sliding along and rotating about an axis (spatial bodies only)."""

    model_config = ConfigDict(title="Joint: cylindrical")
    type: Literal["cylindrical"]
    at: Point = Field(description="a point on the axis [m]")
    axis: Axis = Field(description="axis direction, global")


@register
class CylindricalType(JointType):
    Spec = Cylindrical
    name = "cylindrical"
    spatial_only = True
    sample_spatial = dict(at=(0.5, 0, 0.3), axis=(1, 1, 0))

    def equations(self, e, fi, fj, kind):
        return J.cylindrical(e.name, fi, fj, e.data["at"], e.data["axis"])


class Universal(PairSpec):
    """Coincident points; axis_i (on body i) stays perpendicular to axis_j (on body j)."""

    model_config = ConfigDict(title="Joint: universal")
    type: Literal["universal"]
    at: Point = Field(description="joint centre [m]")
    axis_i: Axis = Field(description="cross axis fixed in body i, global")
    axis_j: Axis = Field(description="cross axis fixed in body j, global; perpendicular to axis_i")

    @model_validator(mode="after")
    def _perpendicular(self):
        a, b = np.array(self.axis_i), np.array(self.axis_j)
        if abs(a @ b) > 1e-9 * np.linalg.norm(a) * np.linalg.norm(b):
            raise ValueError("axis_i and axis_j must be perpendicular")
        return self


@register
class UniversalType(JointType):
    Spec = Universal
    name = "universal"
    spatial_only = True
    sample_spatial = dict(at=(0.5, 0, 0.3), axis_i=(1, 0, 0), axis_j=(0, 1, 0))

    def equations(self, e, fi, fj, kind):
        return J.universal(e.name, fi, fj, e.data["at"], e.data["axis_i"], e.data["axis_j"])


class Fixed(PairSpec):
    """Body j welded to body i."""

    model_config = ConfigDict(title="Joint: fixed")
    type: Literal["fixed"]
    at: Optional[Point] = Field(None, description="reference point [m] (default: body j's centre of mass)")


@register
class FixedType(JointType):
    Spec = Fixed
    name = "fixed"
    sample_spatial, sample_planar = dict(at=(0.5, 0, 0.3)), dict(at=(0.5, 0))

    def equations(self, e, fi, fj, kind):
        at = e.data["at"] if e.data["at"] is not None else fj.R
        return J.fixed(e.name, fi, fj, at, kind == PLANAR, kind.gradient_axes)


class PointOnLine(PairSpec):
    """A point of body j stays on a line of body i."""

    model_config = ConfigDict(title="Joint: point_on_line")
    type: Literal["point_on_line"]
    at: Point = Field(description="the point, initially on the line [m]")
    axis: Axis = Field(description="line direction, global")


@register
class PointOnLineType(JointType):
    free_motion = True
    Spec = PointOnLine
    name = "point_on_line"
    sample_spatial, sample_planar = dict(at=(0.5, 0, 0.3), axis=(0, 0, 1)), dict(at=(0.5, 0), axis=(1, 0, 0))

    def equations(self, e, fi, fj, kind):
        return J.point_on_line(e.name, fi, fj, e.data["at"], e.data["axis"], kind == PLANAR)


class PointInPlane(PairSpec):
    """A point of body j stays in a plane of body i (spatial bodies only)."""

    model_config = ConfigDict(title="Joint: point_in_plane")
    type: Literal["point_in_plane"]
    at: Point = Field(description="the point, initially in the plane [m]")
    normal: Axis = Field(description="plane normal, global")


@register
class PointInPlaneType(JointType):
    Spec = PointInPlane
    name = "point_in_plane"
    spatial_only = True
    sample_spatial = dict(at=(0.5, 0, 0.3), normal=(0, 1, 0))

    def equations(self, e, fi, fj, kind):
        return J.point_in_plane(e.name, fi, fj, e.data["at"], e.data["normal"])


class Distance(PairSpec):
    """Constant distance between a point of body i and a point of body j."""

    model_config = ConfigDict(title="Joint: distance")
    type: Literal["distance"]
    at_i: Point = Field(description="point on body i [m]")
    at_j: Point = Field(description="point on body j [m]")
    length: Optional[float] = Field(None, gt=0, description="distance [m] (default: the initial distance)")


@register
class DistanceType(JointType):
    Spec = Distance
    name = "distance"
    sample_spatial = dict(at_i=(0.1, 0.3, 0.3), at_j=(1.2, 0, 0.5))
    sample_planar = dict(at_i=(0.1, 0.3), at_j=(1.2, 0))

    def prepare(self, model, spec, bodies, name):
        data = super().prepare(model, spec, bodies, name)
        if data["length"] is None:
            data["length"] = float(np.linalg.norm(data["at_j"] - data["at_i"]))
            if not data["length"] > 0:
                raise ModelError(f"{self.name} {name!r}: at_i and at_j coincide: a zero distance is a spherical "
                                 "joint", element=name, key="at_j")
        return data

    def equations(self, e, fi, fj, kind):
        return J.distance(e.name, fi, fj, e.data["at_i"], e.data["at_j"], e.data["length"])

    def geometry(self, element):
        return [("line", element.name, *element.bodies, element.data["at_i"], element.data["at_j"])]


class DriverType(JointType):
    """A prescribed motion: give exactly one of the function of time and a constant speed."""

    section = "drivers"
    prescribes_motion = True
    #: the key of the function of time
    function_key: ClassVar[str]
    #: the output with the driving load
    load_name: ClassVar[str]

    def outputs(self, element, system):
        return (self.load_name,) if element.name in system.owner_equations else ()

    def prepare(self, model, spec, bodies, name):
        data = super().prepare(model, spec, bodies, name)
        f = data.pop(self.function_key)
        speed = data.pop("speed")
        data["function"] = ConstantSpeed(float(speed)) if speed is not None else time_function(f)
        return data

    def output(self, element, what, result):
        return -result.multipliers(element.name)[:, 0] if what == self.load_name else None


def _one_of(spec, key):
    if (getattr(spec, key) is None) == (spec.speed is None):
        raise ValueError(f"give exactly one of {key} (a function of t) and speed")
    return spec


class RotationDriver(PairSpec):
    """Prescribes the rotation of body j relative to body i about an axis, from the initial pose.
    Give exactly one of ``angle`` and ``speed``.  Its output NAME.torque is the driving torque [N m]."""

    model_config = ConfigDict(title="Driver: rotation_driver")
    type: Literal["rotation_driver"]
    axis: Axis = Field([0.0, 0.0, 1.0], description="rotation axis, global")
    at: Optional[Point] = Field(None, description="where the driver acts, initial configuration [m]: on a "
                                                  "deformable body (a modal beam) the axes turn with the section "
                                                  "there (default: the bodies' frames)")
    angle: Optional[TimeFunctionSpec] = Field(None, description="prescribed angle θ(t) [rad]")
    speed: Optional[float] = Field(None, description="constant angular speed [rad/s] (θ = speed·t)")

    @model_validator(mode="after")
    def _one(self):
        return _one_of(self, "angle")


@register
class RotationDriverType(DriverType):
    Spec = RotationDriver
    name = "rotation_driver"
    function_key = "angle"
    load_name = "torque"

    def law(self, element):
        return angle_law(element.data["function"])

    def sample(self, model, a, b):
        axis = {} if a.kind == PLANAR else dict(axis=(0, 1, 1))
        model.add(self.name, body_i=a, body_j=b, angle=Polynomial((0.1, 0.5, -0.3)), **axis)

    def equations(self, e, fi, fj, kind):
        axis = e.data["axis"] if kind != PLANAR else np.array([0, 0, 1.0])
        return J.rotation_driver(e.name, fi, fj, axis)


class TranslationDriver(PairSpec):
    """Prescribes the displacement of body j's point along body i's axis.
    Give exactly one of ``displacement`` and ``speed``.  Its output NAME.force is the driving force [N]."""

    model_config = ConfigDict(title="Driver: translation_driver")
    type: Literal["translation_driver"]
    at: Point = Field(description="the driven point of body j, initial configuration [m]")
    axis: Axis = Field(description="direction of the displacement, global")
    displacement: Optional[TimeFunctionSpec] = Field(None, description="prescribed displacement s(t) [m]")
    speed: Optional[float] = Field(None, description="constant speed [m/s] (s = speed·t)")

    @model_validator(mode="after")
    def _one(self):
        return _one_of(self, "displacement")


@register
class TranslationDriverType(DriverType):
    Spec = TranslationDriver
    name = "translation_driver"
    function_key = "displacement"
    load_name = "force"

    def law(self, element):
        return offset_law(element.data["function"], 0.0)

    def sample(self, model, a, b):
        at = (1, 0) if a.kind == PLANAR else (1, 0, 0)
        model.add(self.name, body_i=GROUND, body_j=b, at=at, axis=(1, 0.5, 0),
                  displacement=Polynomial((0.0, 0.2, 0.7)))

    def equations(self, e, fi, fj, kind):
        return J.translation_driver(e.name, fi, fj, e.data["at"], e.data["axis"])
