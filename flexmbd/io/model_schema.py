"""The model-file schema: pydantic v2 models, one per section and element type.

Every class forbids unknown keys (with a "did you mean" hint), numbers must be finite,
and every choice between alternative forms (a time function given as a number, an
expression or a mapping; inertia as three moments or a tensor; ...) is made by a
discriminator on the input, so a mistake gives one error at one key path.
Units are SI throughout: m, kg, s, rad, N, N m.

:func:`json_schema` is what ``flexmbd schema`` prints, and :func:`reference_markdown`
renders the key reference of docs/model-format.md from it.
"""
from __future__ import annotations

import difflib
from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, StringConstraints, Tag,
                      field_validator, model_validator)
from pydantic_core import PydanticCustomError

from .expressions import ExpressionError, LawExpression, parse

FORMAT_VERSION = 1
SCHEMA_ID = "https://flexmbd.invalid/schema/model-file-1.json"

#: Names of bodies and elements: they become the prefix of output names (``crank.position``).
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_\-]*$"
OUTPUT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_\-]*(\.[A-Za-z_][A-Za-z0-9_]*)?\.[A-Za-z_][A-Za-z0-9_]*$"


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_default=False)

    @model_validator(mode="before")
    @classmethod
    def _unknown_keys(cls, data):
        if isinstance(data, dict):
            allowed = list(cls.model_fields)
            for key in data:
                if key not in cls.model_fields:
                    low = {a.lower(): a for a in allowed}
                    close = [low[str(key).lower()]] if str(key).lower() in low else \
                        difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
                    hint = f"; did you mean {close[0]!r}?" if close else f"; allowed keys: {', '.join(allowed)}"
                    raise PydanticCustomError("unknown_key", "unknown key {key!r}{hint}", {"key": str(key), "hint": hint})
        return data


# ------------------------------------------------------------------ basic types


def _nonzero(v):
    with np.errstate(all="ignore"):
        n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise ValueError("zero-length axis: give a non-zero direction")
    if not np.isfinite(n):
        raise ValueError("the axis is too long to normalise (its length overflows); give a direction of moderate length")
    return v


def _count(lo, hi, what="numbers"):
    """A before-validator giving one clear message for a list of the wrong length."""

    def check(v):
        if isinstance(v, list) and not lo <= len(v) <= hi:
            exp = f"{lo}" if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"
            raise PydanticCustomError("wrong_count", "expected {exp} {what}, got {n}",
                                      {"exp": exp, "what": what, "n": len(v)})
        return v

    return BeforeValidator(check)


Vec3 = Annotated[list[float], Field(min_length=3, max_length=3), _count(3, 3)]
Vec2 = Annotated[list[float], Field(min_length=2, max_length=2), _count(2, 2)]
Point = Annotated[list[float], Field(min_length=2, max_length=3,
                                     description="global point [m]; two numbers mean z = 0"), _count(2, 3)]
Axis = Annotated[Vec3, AfterValidator(_nonzero)]
Mat3 = Annotated[list[Vec3], Field(min_length=3, max_length=3), _count(3, 3, "rows")]
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN, max_length=100)]
BodyRef = Annotated[str, Field(min_length=1, max_length=100, description='a body name, or "ground"')]


def _expression(text):
    try:
        parse(text)
    except ExpressionError as exc:
        raise ValueError(str(exc)) from None
    return text


Expression = Annotated[str, AfterValidator(_expression),
                       Field(description='expression in t [s], e.g. "0.5*sin(2*pi*t)"')]


def _law(text):
    try:
        LawExpression(text)
    except ExpressionError as exc:
        raise ValueError(str(exc)) from None
    return text


LawText = Annotated[str, AfterValidator(_law)]


# ------------------------------------------------------------------ time functions


class ConstantTF(_Base):
    """f(t) = value."""

    model_config = ConfigDict(title="Time function: constant")

    type: Literal["constant"]
    value: float = Field(description="the constant value (unit of the field)")


class ConstantSpeedTF(_Base):
    """f(t) = offset + speed·t."""

    model_config = ConfigDict(title="Time function: constant_speed")

    type: Literal["constant_speed"]
    speed: float = Field(description="rate (unit of the field per s)")
    offset: float = Field(0.0, description="value at t = 0 (unit of the field)")


class PolynomialTF(_Base):
    """f(t) = Σ c_k t^k."""

    model_config = ConfigDict(title="Time function: polynomial")

    type: Literal["polynomial"]
    coefficients: list[float] = Field(min_length=1, max_length=20,
                                      description="c_0, c_1, ... in increasing order of the power of t")


class RampTF(_Base):
    """Smooth quintic ramp from 0 at t = 0 to ``value`` at t = ``duration`` (zero end rates)."""

    model_config = ConfigDict(title="Time function: ramp")

    type: Literal["ramp"]
    value: float = Field(description="final value (unit of the field)")
    duration: float = Field(gt=0, description="ramp time [s]")


TF_TYPES = {"constant": ConstantTF, "constant_speed": ConstantSpeedTF, "polynomial": PolynomialTF, "ramp": RampTF}


def _tf_tag(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return "<number>"
    if isinstance(v, str):
        return "<expression>"
    if isinstance(v, dict):
        t = v.get("type")
        return f"<{t}>" if isinstance(t, str) and t in TF_TYPES else None
    if isinstance(v, BaseModel):
        return f"<{v.type}>"
    return None


TimeFunction = Annotated[
    Union[Annotated[float, Tag("<number>")], Annotated[Expression, Tag("<expression>")],
          Annotated[ConstantTF, Tag("<constant>")], Annotated[ConstantSpeedTF, Tag("<constant_speed>")],
          Annotated[PolynomialTF, Tag("<polynomial>")], Annotated[RampTF, Tag("<ramp>")]],
    Discriminator(_tf_tag, custom_error_type="time_function",
                  custom_error_message="expected a number, an expression in t, or a mapping with "
                                       "type: constant | constant_speed | polynomial | ramp"),
]


# ------------------------------------------------------------------ bodies


class Orientation(_Base):
    """Initial orientation of a rigid body: exactly one of ``matrix``, ``quaternion``,
    or ``axis`` with ``angle``."""

    model_config = ConfigDict(title="Orientation")

    matrix: Optional[Mat3] = Field(None, description="3×3 rotation matrix, rows; columns are the body axes in global coordinates")
    quaternion: Optional[Annotated[list[float], Field(min_length=4, max_length=4), _count(4, 4)]] = Field(
        None, description="Euler parameters [e0, e1, e2, e3] (normalised on input)")
    axis: Optional[Axis] = Field(None, description="rotation axis, global (normalised on input)")
    angle: Optional[float] = Field(None, description="rotation angle about axis [rad]")

    @model_validator(mode="after")
    def _one_form(self):
        forms = [n for n, v in (("matrix", self.matrix), ("quaternion", self.quaternion)) if v is not None]
        if self.axis is not None or self.angle is not None:
            if self.axis is None or self.angle is None:
                raise ValueError("give both axis and angle")
            forms.append("axis/angle")
        if len(forms) != 1:
            raise ValueError("give exactly one of matrix, quaternion, or axis with angle"
                             + (f" (got {', '.join(forms)})" if forms else ""))
        if self.matrix is not None:
            R = np.array(self.matrix)
            if not np.allclose(R @ R.T, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
                raise ValueError("matrix is not a proper rotation matrix (orthonormal, det = +1)")
        if self.quaternion is not None:
            with np.errstate(all="ignore"):
                n = float(np.linalg.norm(self.quaternion))
            if n < 1e-12:
                raise ValueError("quaternion has zero length")
            if not np.isfinite(n):
                raise ValueError("quaternion is too long to normalise (its length overflows)")
        return self


def _inertia_tag(v):
    if isinstance(v, list):
        return "<tensor>" if v and all(isinstance(r, list) for r in v) else "<principal>"
    return None


Inertia = Annotated[
    Union[Annotated[Vec3, Tag("<principal>")], Annotated[Mat3, Tag("<tensor>")]],
    Discriminator(_inertia_tag, custom_error_type="inertia",
                  custom_error_message="expected 3 principal moments [kg m²] or a 3×3 tensor"),
]


def check_inertia(J) -> np.ndarray:
    """Symmetric, positive definite and satisfying the triangle inequality, or ValueError."""
    with np.errstate(all="ignore"):
        return _check_inertia(J)


def _check_inertia(J):
    J = np.array(J, dtype=float)
    if J.ndim == 1:
        J = np.diag(J)
    scale = max(float(np.abs(J).max()), 1e-300)
    if not np.allclose(J, J.T, rtol=1e-12, atol=1e-14 * scale):
        raise ValueError("the inertia tensor must be symmetric")
    ev = np.linalg.eigvalsh(J)
    if ev[0] <= 0:
        raise ValueError(f"inertia must be positive definite (principal moments {_fmt(ev)} kg m²)")
    if ev[0] + ev[1] < ev[2] * (1 - 1e-9):
        raise ValueError(f"principal moments {_fmt(ev)} kg m² violate the triangle inequality I1 + I2 ≥ I3")
    return J


def _fmt(v):
    return "[" + ", ".join(f"{x:.6g}" for x in v) + "]"


class RigidBody(_Base):
    """A spatial rigid body (Euler parameters, 7 coordinates)."""

    model_config = ConfigDict(title="Body: rigid")

    name: Name = Field(description="unique name (letters, digits, _ and -); its outputs are NAME.position, NAME.velocity, ...")
    type: Literal["rigid"] = Field("rigid", description="rigid (spatial) or planar")
    mass: float = Field(gt=0, description="mass [kg]")
    inertia: Inertia = Field(description="about the centre of mass in body axes [kg m²]: 3 principal moments or a 3×3 tensor")
    position: Vec3 = Field([0.0, 0.0, 0.0], description="initial position of the centre of mass [m]")
    orientation: Optional[Orientation] = Field(None, description="initial orientation (default: aligned with the global axes)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the centre of mass [m/s]")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    parameterization: Literal["quaternion", "se3"] = Field(
        "quaternion", description="quaternion (Euler parameters with their normalisation constraint) or se3 "
                                  "(a Lie-group frame, as beam nodes: bodies joined to beam nodes must use se3)")

    @field_validator("inertia")
    @classmethod
    def _inertia(cls, v):
        check_inertia(v)
        return v


class PlanarBody(_Base):
    """A planar rigid body moving in the global x-y plane (x, y, θ)."""

    model_config = ConfigDict(title="Body: planar")

    name: Name = Field(description="unique name")
    type: Literal["planar"] = Field(description="planar")
    mass: float = Field(gt=0, description="mass [kg]")
    inertia: float = Field(gt=0, description="moment of inertia about the centre of mass, I_z [kg m²]")
    position: Vec2 = Field([0.0, 0.0], description="initial position of the centre of mass [m]")
    angle: float = Field(0.0, description="initial angle θ of the body x axis from the global x axis [rad]")
    velocity: Vec2 = Field([0.0, 0.0], description="initial velocity [m/s]")
    angular_velocity: float = Field(0.0, description="initial angular velocity θ' [rad/s]")


def _body_tag(v):
    if isinstance(v, dict):
        t = v.get("type", "rigid")
        return f"<{t}>" if t in ("rigid", "planar") else None
    if isinstance(v, BaseModel):
        return f"<{v.type}>"
    return None


Body = Annotated[
    Union[Annotated[RigidBody, Tag("<rigid>")], Annotated[PlanarBody, Tag("<planar>")]],
    Discriminator(_body_tag, custom_error_type="body_type",
                  custom_error_message="a body is a mapping with type: rigid (default) or planar"),
]


# ------------------------------------------------------------------ beams


def _shear_tag(v):
    if isinstance(v, str):
        return "<name>"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return "<number>"
    return None


ShearFactor = Annotated[
    Union[Annotated[Literal["cowper"], Tag("<name>")], Annotated[float, Field(gt=0), Tag("<number>")]],
    Discriminator(_shear_tag, custom_error_type="shear_factor",
                  custom_error_message="expected cowper or a number > 0"),
]


class _Material(_Base):
    shape: str = Field(description="the section shape")
    E: float = Field(gt=0, description="Young's modulus [Pa]")
    nu: Optional[float] = Field(None, gt=-1.0, lt=0.5, description="Poisson's ratio (give nu or G, or both)")
    G: Optional[float] = Field(None, gt=0, description="shear modulus [Pa] (default: E / (2 (1 + nu)))")
    rho: float = Field(0.0, ge=0, description="density [kg/m³] (0: a massless beam)")
    shear_factor: ShearFactor = Field("cowper", description="shear correction factor: cowper (Cowper 1966, "
                                                            "needs nu) or a number")

    @model_validator(mode="after")
    def _moduli(self):
        if self.nu is None and self.G is None:
            raise ValueError("give nu or G (or both)")
        return self


class RectangleSection(_Material):
    """Solid rectangle: ``width2`` along the section axis e2, ``height3`` along e3."""

    model_config = ConfigDict(title="Beam section: rectangle")

    shape: Literal["rectangle"] = Field(description="selects this section shape")
    width2: float = Field(gt=0, description="side along e2 [m]")
    height3: float = Field(gt=0, description="side along e3 [m]")


class CircleSection(_Material):
    """Solid circle."""

    model_config = ConfigDict(title="Beam section: circle")

    shape: Literal["circle"] = Field(description="selects this section shape")
    d: float = Field(gt=0, description="diameter [m]")


class TubeSection(_Material):
    """Circular tube."""

    model_config = ConfigDict(title="Beam section: tube")

    shape: Literal["tube"] = Field(description="selects this section shape")
    d_outer: float = Field(gt=0, description="outer diameter [m]")
    d_inner: float = Field(ge=0, description="inner diameter [m], less than d_outer")

    @model_validator(mode="after")
    def _inner(self):
        if self.d_inner >= self.d_outer:
            raise PydanticCustomError("section_value", "d_inner = {a} m must be less than d_outer = {b} m",
                                      {"a": f"{self.d_inner:g}", "b": f"{self.d_outer:g}", "key": "d_inner"})
        return self


class UserSection(_Base):
    """The section constants given directly: stiffnesses > 0; inertias per unit length all
    > 0 or all 0 (massless)."""

    model_config = ConfigDict(title="Beam section: user")

    shape: Literal["user"] = Field(description="selects this section shape")
    EA: float = Field(gt=0, description="axial stiffness [N]")
    GA2: float = Field(gt=0, description="shear stiffness along e2, shear factor included [N]")
    GA3: float = Field(gt=0, description="shear stiffness along e3 [N]")
    GJ: float = Field(gt=0, description="torsional stiffness [N m²]")
    EI2: float = Field(gt=0, description="bending stiffness about e2 [N m²]")
    EI3: float = Field(gt=0, description="bending stiffness about e3 [N m²]")
    rhoA: float = Field(0.0, ge=0, description="mass per unit length [kg/m]")
    rhoI2: float = Field(0.0, ge=0, description="rotary inertia per unit length about e2 [kg m]")
    rhoI3: float = Field(0.0, ge=0, description="rotary inertia per unit length about e3 [kg m]")

    @model_validator(mode="after")
    def _all_or_none(self):
        vals = {"rhoA": self.rhoA, "rhoI2": self.rhoI2, "rhoI3": self.rhoI3}
        zero = [k for k, v in vals.items() if v == 0]
        if zero and len(zero) < 3:
            raise PydanticCustomError("section_value", "{k} is 0 while the other inertias are > 0: give all three "
                                      "(or none, for a massless beam)", {"k": zero[0], "key": zero[0]})
        return self


SECTION_SHAPES = {"rectangle": RectangleSection, "circle": CircleSection, "tube": TubeSection, "user": UserSection}


def _section_tag(v):
    if isinstance(v, dict):
        t = v.get("shape")
        return f"<{t}>" if isinstance(t, str) and t in SECTION_SHAPES else None
    if isinstance(v, BaseModel):
        return f"<{v.shape}>"
    return None


BeamSection = Annotated[
    Union[tuple(Annotated[cls, Tag(f"<{t}>")] for t, cls in SECTION_SHAPES.items())],
    Discriminator(_section_tag, custom_error_type="section_shape",
                  custom_error_message="a section is a mapping with shape: " + " | ".join(SECTION_SHAPES)),
]


class Arc(_Base):
    """A circular arc: x = center + radius (cos a ex + sin a ey), a from angle0 to angle1,
    in the plane normal to ``normal`` (ex, ey = global x, y for normal z).  The section axis
    e3 is the normal."""

    model_config = ConfigDict(title="Beam arc")

    center: Vec3 = Field(description="centre [m]")
    radius: float = Field(gt=0, description="radius [m]")
    angle0: float = Field(description="polar angle of the first node [rad]")
    angle1: float = Field(description="polar angle of the last node [rad]; the arc runs from angle0 to angle1")
    normal: Axis = Field([0.0, 0.0, 1.0], description="normal of the arc's plane, global")

    @model_validator(mode="after")
    def _sweep(self):
        if self.angle1 == self.angle0:
            raise PydanticCustomError("section_value", "angle1 must differ from angle0 (the arc has no length)",
                                      {"key": "angle1"})
        return self


class Beam(_Base):
    """A geometrically exact beam (docs/elements/beam-se3.md) of ``elements`` elements.  Its
    nodes are bodies named NAME.n0 … NAME.nN (NAME.first and NAME.last are aliases of the
    end nodes) that joints, drivers and loads name like any body; its elements NAME.e0 …
    have outputs such as NAME.e0.strain_energy.  Give either start and end (a straight
    beam) or arc."""

    model_config = ConfigDict(title="Beam")

    name: Name = Field(description="unique name; the nodes are NAME.n0 … and the elements NAME.e0 …")
    section: BeamSection = Field(description="the cross section: a mapping with shape and its dimensions and material")
    elements: int = Field(ge=1, le=100000, description="number of elements")
    start: Optional[Point] = Field(None, description="first node of a straight beam [m]")
    end: Optional[Point] = Field(None, description="last node of a straight beam [m]")
    e2: Optional[Axis] = Field(None, description="direction of the section axis e2 of a straight beam, global "
                                                 "(default: chosen from the beam axis)")
    arc: Optional[Arc] = Field(None, description="a circular-arc beam instead of start and end")
    order: int = Field(1, ge=1, le=10, description="polynomial order of the elements (≥ 2 for nurbs)")
    interpolation: Literal["lagrange", "nurbs"] = Field("lagrange", description="shape functions")
    formulation: str = Field("se3", min_length=1, max_length=50,
                             description="beam formulation, as Model.beam accepts it (se3)")
    integration: Optional[Literal["full", "reduced", "hw"]] = Field(
        None, description="Gauss integration: full, reduced, or hw (Hu-Washizu, first order); default: the one "
                          "that does not lock (reduced for order ≥ 2 and r3r3, full for first-order se3)")

    @model_validator(mode="after")
    def _geometry(self):
        straight = self.start is not None or self.end is not None
        if straight and self.arc is not None:
            raise ValueError("give either start and end or arc, not both")
        if not straight and self.arc is None:
            raise ValueError("give start and end (a straight beam) or arc")
        if straight and (self.start is None or self.end is None):
            raise PydanticCustomError("section_value", "a straight beam needs both start and end",
                                      {"key": "end" if self.end is None else "start"})
        if self.arc is not None and self.e2 is not None:
            raise PydanticCustomError("section_value", "e2 is for straight beams; an arc's section axes follow "
                                      "its plane", {"key": "e2"})
        if straight:
            d = np.r_[self.start, 0.0][:3] - np.r_[self.end, 0.0][:3]
            with np.errstate(all="ignore"):
                if not np.linalg.norm(d) > 0:
                    raise PydanticCustomError("section_value", "start and end coincide: the beam has no length",
                                              {"key": "end"})
        return self


# ------------------------------------------------------------------ joints


class _Pair(_Base):
    type: str = Field(description="the element type")
    name: Optional[Name] = Field(None, description="unique name (default: the type and a number, e.g. revolute1)")
    body_i: BodyRef = Field(description='first body, or "ground"')
    body_j: BodyRef = Field(description='second body, or "ground"')


class Spherical(_Pair):
    """Coincident points: 3 equations (2 planar)."""

    model_config = ConfigDict(title="Joint: spherical")

    type: Literal["spherical"]
    at: Point = Field(description="joint point, global, initial configuration [m]")


class Revolute(_Pair):
    """Coincident points and a common axis."""

    model_config = ConfigDict(title="Joint: revolute")

    type: Literal["revolute"]
    at: Point = Field(description="joint point [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="joint axis, global (must be z for planar bodies)")


class Prismatic(_Pair):
    """Sliding along an axis without rotation."""

    model_config = ConfigDict(title="Joint: prismatic")

    type: Literal["prismatic"]
    at: Point = Field(description="a point on the sliding axis [m]")
    axis: Axis = Field(description="sliding direction, global")


class Cylindrical(_Pair):
    """Sliding along and rotating about an axis (spatial bodies only)."""

    model_config = ConfigDict(title="Joint: cylindrical")

    type: Literal["cylindrical"]
    at: Point = Field(description="a point on the axis [m]")
    axis: Axis = Field(description="axis direction, global")


class Universal(_Pair):
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


class Fixed(_Pair):
    """Body j welded to body i."""

    model_config = ConfigDict(title="Joint: fixed")

    type: Literal["fixed"]
    at: Optional[Point] = Field(None, description="reference point [m] (default: body j's centre of mass)")


class PointOnLine(_Pair):
    """A point of body j stays on a line of body i."""

    model_config = ConfigDict(title="Joint: point_on_line")

    type: Literal["point_on_line"]
    at: Point = Field(description="the point, initially on the line [m]")
    axis: Axis = Field(description="line direction, global")


class PointInPlane(_Pair):
    """A point of body j stays in a plane of body i (spatial bodies only)."""

    model_config = ConfigDict(title="Joint: point_in_plane")

    type: Literal["point_in_plane"]
    at: Point = Field(description="the point, initially in the plane [m]")
    normal: Axis = Field(description="plane normal, global")


class Distance(_Pair):
    """Constant distance between a point of body i and a point of body j."""

    model_config = ConfigDict(title="Joint: distance")

    type: Literal["distance"]
    at_i: Point = Field(description="point on body i [m]")
    at_j: Point = Field(description="point on body j [m]")
    length: Optional[float] = Field(None, gt=0, description="distance [m] (default: the initial distance)")


JOINT_TYPES = {"spherical": Spherical, "revolute": Revolute, "prismatic": Prismatic, "cylindrical": Cylindrical,
               "universal": Universal, "fixed": Fixed, "point_on_line": PointOnLine,
               "point_in_plane": PointInPlane, "distance": Distance}


class RotationDriver(_Pair):
    """Prescribes the rotation of body j relative to body i about an axis, from the initial pose.
    Give exactly one of ``angle`` and ``speed``.  Its output NAME.torque is the driving torque [N m]."""

    model_config = ConfigDict(title="Driver: rotation_driver")

    type: Literal["rotation_driver"]
    axis: Axis = Field([0.0, 0.0, 1.0], description="rotation axis, global")
    angle: Optional[TimeFunction] = Field(None, description="prescribed angle θ(t) [rad]")
    speed: Optional[float] = Field(None, description="constant angular speed [rad/s] (θ = speed·t)")

    @model_validator(mode="after")
    def _one(self):
        if (self.angle is None) == (self.speed is None):
            raise ValueError("give exactly one of angle (a function of t) and speed")
        return self


class TranslationDriver(_Pair):
    """Prescribes the displacement of body j's point along body i's axis.
    Give exactly one of ``displacement`` and ``speed``.  Its output NAME.force is the driving force [N]."""

    model_config = ConfigDict(title="Driver: translation_driver")

    type: Literal["translation_driver"]
    at: Point = Field(description="the driven point of body j, initial configuration [m]")
    axis: Axis = Field(description="direction of the displacement, global")
    displacement: Optional[TimeFunction] = Field(None, description="prescribed displacement s(t) [m]")
    speed: Optional[float] = Field(None, description="constant speed [m/s] (s = speed·t)")

    @model_validator(mode="after")
    def _one(self):
        if (self.displacement is None) == (self.speed is None):
            raise ValueError("give exactly one of displacement (a function of t) and speed")
        return self


DRIVER_TYPES = {"rotation_driver": RotationDriver, "translation_driver": TranslationDriver}


# ------------------------------------------------------------------ force elements


class SpringDamper(_Pair):
    """Spring-damper-actuator between two points: F = k (l − l0) + c l' + actuator(t),
    tension positive."""

    model_config = ConfigDict(title="Force: spring_damper")

    type: Literal["spring_damper"]
    at_i: Optional[Point] = Field(None, description="attachment on body i [m] (default: its centre of mass; origin for ground)")
    at_j: Optional[Point] = Field(None, description="attachment on body j [m] (default: its centre of mass)")
    k: float = Field(0.0, ge=0, description="stiffness [N/m]")
    c: float = Field(0.0, ge=0, description="damping [N s/m]")
    rest_length: Optional[float] = Field(None, ge=0, description="rest length l0 [m] (default: the initial length)")
    actuator: TimeFunction = Field(0.0, description="actuator force f_a(t) [N], tension positive")
    tension_only: bool = Field(False, description="true for a cable (no force when slack)")
    law: Optional[LawText] = Field(None, description="non-linear law instead of k and c: an expression in delta = l − l0 [m] "
                                                     'and rate = l\' [m/s] giving F [N], e.g. "1e4*delta + 2e6*delta**3 + 50*rate"')

    @model_validator(mode="after")
    def _law_or_kc(self):
        if self.law is not None and (self.k != 0 or self.c != 0):
            raise ValueError("give either k and c or a law, not both")
        return self


class RotationalSpringDamper(_Pair):
    """Torsional spring-damper-actuator about a revolute axis: T = −k (θ − θ0) − c θ' + actuator(t)
    on body j (reaction on body i)."""

    model_config = ConfigDict(title="Force: rotational_spring_damper")

    type: Literal["rotational_spring_damper"]
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis, global (z for planar bodies)")
    k: float = Field(0.0, ge=0, description="torsional stiffness [N m/rad]")
    c: float = Field(0.0, ge=0, description="torsional damping [N m s/rad]")
    angle0: float = Field(0.0, description="unloaded angle θ0 relative to the initial configuration [rad]")
    actuator: TimeFunction = Field(0.0, description="actuator torque τ_a(t) [N m]")


class PointForce(_Base):
    """A force at a point of a body: force × scale(t)."""

    model_config = ConfigDict(title="Force: force")

    type: Literal["force"]
    name: Optional[Name] = Field(None, description="unique name")
    body: BodyRef = Field(description="the loaded body")
    force: Vec3 = Field(description="force [N], global components (body axes if body_fixed)")
    at: Optional[Point] = Field(None, description="point of application [m] (default: the centre of mass)")
    body_fixed: bool = Field(False, description="true: the force turns with the body")
    scale: TimeFunction = Field(1.0, description="dimensionless factor scale(t)")


class Torque(_Base):
    """A torque on a body: torque × scale(t)."""

    model_config = ConfigDict(title="Force: torque")

    type: Literal["torque"]
    name: Optional[Name] = Field(None, description="unique name")
    body: BodyRef = Field(description="the loaded body")
    torque: Vec3 = Field(description="torque [N m], global components (body axes if body_fixed)")
    body_fixed: bool = Field(False, description="true: the torque turns with the body")
    scale: TimeFunction = Field(1.0, description="dimensionless factor scale(t)")


FORCE_TYPES = {"spring_damper": SpringDamper, "rotational_spring_damper": RotationalSpringDamper,
               "force": PointForce, "torque": Torque}


def _typed_union(types, what, section):
    def tag(v):
        if isinstance(v, dict):
            t = v.get("type")
            return f"<{t}>" if isinstance(t, str) and t in types else None
        if isinstance(v, BaseModel):
            return f"<{v.type}>"
        return None

    members = tuple(Annotated[cls, Tag(f"<{t}>")] for t, cls in types.items())
    return Annotated[Union[members], Discriminator(
        tag, custom_error_type=f"{what}_type",
        custom_error_message=f"each entry of {section} is a mapping with a type: {' | '.join(types)}")]


Joint = _typed_union(JOINT_TYPES, "joint", "joints")
Driver = _typed_union(DRIVER_TYPES, "driver", "drivers")
ForceElement = _typed_union(FORCE_TYPES, "force", "forces")


# ------------------------------------------------------------------ solver


class NewmarkSpec(_Base):
    """Newmark (default β = ¼, γ = ½: trapezoidal rule, no numerical damping)."""

    model_config = ConfigDict(title="Integrator: newmark")

    type: Literal["newmark"]
    beta: float = Field(0.25, gt=0, description="β")
    gamma: float = Field(0.5, ge=0.5, description="γ")


class HHTSpec(_Base):
    """HHT-α."""

    model_config = ConfigDict(title="Integrator: hht")

    type: Literal["hht"]
    rho_inf: float = Field(0.8, ge=0.5, le=1.0, description="spectral radius at infinite frequency, ½ ≤ ρ∞ ≤ 1")


class GeneralizedAlphaSpec(_Base):
    """Generalized-α (Chung & Hulbert)."""

    model_config = ConfigDict(title="Integrator: generalized-alpha")

    type: Literal["generalized-alpha"]
    rho_inf: float = Field(0.8, ge=0.0, le=1.0, description="spectral radius at infinite frequency, 0 ≤ ρ∞ ≤ 1")


INTEGRATOR_TYPES = {"newmark": NewmarkSpec, "hht": HHTSpec, "generalized-alpha": GeneralizedAlphaSpec}


def _integrator_tag(v):
    if isinstance(v, str):
        return "<name>"
    if isinstance(v, dict):
        t = v.get("type")
        return f"<{t}>" if isinstance(t, str) and t in INTEGRATOR_TYPES else None
    if isinstance(v, BaseModel):
        return f"<{v.type}>"
    return None


Integrator = Annotated[
    Union[Annotated[Literal["newmark", "hht", "generalized-alpha"], Tag("<name>")],
          Annotated[NewmarkSpec, Tag("<newmark>")], Annotated[HHTSpec, Tag("<hht>")],
          Annotated[GeneralizedAlphaSpec, Tag("<generalized-alpha>")]],
    Discriminator(_integrator_tag, custom_error_type="integrator_type",
                  custom_error_message="expected newmark | hht | generalized-alpha, or a mapping with that type"),
]

def _refresh_tag(v):
    if isinstance(v, str):
        return "<policy>"
    if isinstance(v, int) and not isinstance(v, bool):
        return "<every>"
    return None


#: flexmbd.linalg.METHODS ('klu' and 'umfpack' need the optional package kvxopt)
LinearSolverName = Literal["auto", "dense", "banded", "superlu", "klu", "umfpack"]
LINEAR_SOLVER_DESCRIPTION = ("linear solver of the Newton matrix: auto (chosen from the sparsity pattern), dense, "
                             "banded, superlu, or klu / umfpack (need the package kvxopt)")

Refresh = Annotated[
    Union[Annotated[Literal["newton", "step"], Tag("<policy>")], Annotated[int, Field(ge=1), Tag("<every>")]],
    Discriminator(_refresh_tag, custom_error_type="refresh",
                  custom_error_message="expected newton, step, or an integer ≥ 1"),
]

#: Longest run a model file may ask for, in steps.
MAX_STEPS = 10_000_000


class Solver(_Base):
    """Time integration settings (see docs/user-guide.md, "Solver options")."""

    model_config = ConfigDict(title="Solver")

    analysis: Literal["dynamic"] = Field("dynamic", description="dynamic (time integration) or static "
                                                                 "(see Solver: static)")
    t_end: float = Field(gt=0, description="end time [s] (the run starts at t = 0)")
    h: float = Field(gt=0, description="time step [s]")
    integrator: Integrator = Field("newmark", description="a name (newmark, hht, generalized-alpha), or a mapping with type and parameters")
    tol: float = Field(1e-7, gt=0, description="Newton tolerance on the 2-norm of the residual")
    max_iter: int = Field(25, ge=1, le=10000, description="Newton iterations per step before the step is halved")
    jacobian: str = Field("full", max_length=200, description='Newton matrix: "full", P1 parts such as "M1+M2", or "fd"')
    refresh: Refresh = Field(
        "newton", description="Jacobian refresh: newton (every iteration), step (once a step), or an integer i")
    convergence: Literal["residual", "increment"] = Field("residual", description="Newton convergence test")
    max_halvings: int = Field(4, ge=0, le=20, description="times a failed step is halved before the run stops")
    linear_solver: LinearSolverName = Field("auto", description=LINEAR_SOLVER_DESCRIPTION)
    assemble: bool = Field(True, description="assemble the initial configuration (project positions and velocities onto the constraints)")
    redundancy: Literal["remove", "keep"] = Field("remove", description="remove redundant constraint equations (with a warning) or keep them")

    @field_validator("jacobian")
    @classmethod
    def _jacobian(cls, v):
        if v == "fd":
            return v
        from ..system import jacobian_terms

        try:
            jacobian_terms(v)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return v

    @model_validator(mode="after")
    def _steps(self):
        if self.h > self.t_end:
            raise PydanticCustomError("solver_h", "the step h = {h} s is longer than the run (t_end = {t} s)",
                                      {"h": f"{self.h:g}", "t": f"{self.t_end:g}", "key": "h"})
        n = self.t_end / self.h
        if n > MAX_STEPS:
            raise PydanticCustomError("solver_h", "t_end / h = {n} steps is more than the limit of {m}",
                                      {"n": f"{n:.3g}", "m": f"{MAX_STEPS:.0e}", "key": "h"})
        return self


class StaticSolver(_Base):
    """Static equilibrium under the loads, reached in ``load_steps`` equal increments of the
    load factor (Newton-Raphson; see docs/solvers-static-kinematic.md).  Results are one row
    per load step; in the results file ``t`` holds the load factor."""

    model_config = ConfigDict(title="Solver: static")

    analysis: Literal["static"] = Field(description="static")
    load_steps: int = Field(10, ge=1, le=100000, description="load increments from 0 to the full load")
    tol: float = Field(1e-7, gt=0, description="Newton tolerance (see convergence)")
    convergence: Literal["residual", "increment"] = Field(
        "residual", description="Newton convergence test: 2-norm of the residual, or of the Newton increment "
                                "(for stiff structures such as beams)")
    max_iter: int = Field(50, ge=1, le=10000, description="Newton iterations per load step before it is halved")
    max_cuts: int = Field(4, ge=0, le=20, description="times a failed load step is halved before the analysis stops")
    jacobian: str = Field("full", max_length=200, description='Newton matrix: "full" or P1 parts such as "M1+M2"')
    time: float = Field(0.0, ge=0, description="time at which drivers and time functions are evaluated [s]")
    linear_solver: LinearSolverName = Field("auto", description=LINEAR_SOLVER_DESCRIPTION)
    assemble: bool = Field(True, description="assemble the initial configuration first")
    redundancy: Literal["remove", "keep"] = Field("remove", description="remove redundant constraint equations (with a warning) or keep them")

    @field_validator("jacobian")
    @classmethod
    def _jacobian(cls, v):
        from ..system import jacobian_terms

        try:
            jacobian_terms(v)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return v


def _solver_tag(v):
    if isinstance(v, dict):
        a = v.get("analysis", "dynamic")
        return f"<{a}>" if a in ("dynamic", "static") else None
    if isinstance(v, BaseModel):
        return f"<{v.analysis}>"
    return None


AnySolver = Annotated[
    Union[Annotated[Solver, Tag("<dynamic>")], Annotated[StaticSolver, Tag("<static>")]],
    Discriminator(_solver_tag, custom_error_type="analysis",
                  custom_error_message="the solver is a mapping; its analysis is dynamic (default, with t_end and h) "
                                       "or static"),
]


# ------------------------------------------------------------------ the file


class ModelFile(_Base):
    """A flexmbd model file."""

    model_config = ConfigDict(title="flexmbd model file", json_schema_extra={"$id": SCHEMA_ID})

    format: Literal[1] = Field(1, description="version of the model-file format")
    name: str = Field("model", max_length=200, description="model name")
    description: str = Field("", max_length=10000, description="free text")
    gravity: Vec3 = Field([0.0, 0.0, 0.0], description="gravitational acceleration [m/s²]")
    bodies: list[Body] = Field([], description="the rigid bodies")
    beams: list[Beam] = Field([], description="flexible beams; their nodes are bodies NAME.n0 … NAME.nN")
    joints: list[Joint] = Field([], description="kinematic joints")
    drivers: list[Driver] = Field([], description="prescribed motions (rheonomic constraints)")
    forces: list[ForceElement] = Field([], description="force elements and applied loads")
    solver: AnySolver = Field(description="time integration (or static analysis) settings")
    outputs: list[Annotated[str, StringConstraints(pattern=OUTPUT_PATTERN, max_length=200)]] = Field(
        [], description="named outputs to report and store, e.g. slider.position, sda.force, energy.total, "
                      "rod.n16.position (rod.last.position), rod.e3.strain_energy")

    @model_validator(mode="after")
    def _something(self):
        if not self.bodies and not self.beams:
            raise PydanticCustomError("no_bodies", "the model needs at least one body or beam", {"key": "bodies"})
        return self


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a model file."""
    s = ModelFile.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **s}


# ------------------------------------------------------------------ docs


def _type_text(p, defs) -> str:
    if "$ref" in p:
        return defs[p["$ref"].split("/")[-1]].get("title", "mapping")
    if "const" in p:
        return f"`{p['const']}`"
    if "enum" in p:
        return " \\| ".join(f"`{e}`" for e in p["enum"])
    for key in ("anyOf", "oneOf"):
        if key in p:
            opts = [q for q in p[key] if q.get("type") != "null"]
            titles = [defs[q["$ref"].split("/")[-1]].get("title", "") for q in opts if "$ref" in q]
            kinds = {t.split(":")[0] for t in titles if ":" in t}
            if kinds == {"Time function"}:
                return "time function"
            if len(kinds) == 1 and len(titles) == len(opts):
                return f"{kinds.pop()} mapping"
            parts = [_type_text(q, defs) for q in opts if "$ref" not in q] + [t for t in titles if ":" not in t]
            if kinds:
                parts += [f"{k} mapping" for k in sorted(kinds)]
            return " or ".join(dict.fromkeys(parts))
    t = p.get("type")
    if t == "array":
        n0, n1 = p.get("minItems"), p.get("maxItems")
        item = p.get("items", {})
        if item.get("type") == "number" and n0 is not None and n1 is not None:
            return f"{n0} numbers" if n0 == n1 else f"{n0}–{n1} numbers"
        if item.get("type") == "array" and n0 == n1 == 3:
            return "3×3 numbers"
        inner = _type_text(item, defs)
        inner = {"number": "numbers", "string": "strings"}.get(inner, inner)
        return f"list of {inner}"
    return {"number": "number", "integer": "integer", "string": "string", "boolean": "boolean",
            "object": "mapping"}.get(t, "any")


def _limits(p) -> str:
    out = []
    for k, sym in (("exclusiveMinimum", ">"), ("minimum", "≥"), ("exclusiveMaximum", "<"), ("maximum", "≤")):
        if k in p:
            out.append(f"{sym} {p[k]}")
    for q in p.get("anyOf", []):
        out += [_limits(q)] if _limits(q) else []
    return ", ".join(out)


def reference_markdown() -> str:
    """The key reference of docs/model-format.md, rendered from the JSON Schema."""
    s = json_schema()
    defs = s.get("$defs", {})
    sections = [("ModelFile", s)] + sorted(defs.items(), key=lambda kv: _DOC_ORDER.get(kv[0], 99))
    lines = []
    for name, d in sections:
        if "properties" not in d:
            continue
        title = d.get("title", name)
        lines.append(f"### {title}")
        lines.append("")
        if d.get("description"):
            lines.append(" ".join(d["description"].split()))
            lines.append("")
        lines.append("| key | type | required / default | description |")
        lines.append("|---|---|---|---|")
        req = set(d.get("required", []))
        for key, p in d["properties"].items():
            typ = _type_text(p, defs)
            lim = _limits(p)
            if lim:
                typ += f" ({lim})"
            dflt = "required" if key in req else ("—" if p.get("default") is None else f"`{_json(p['default'])}`")
            desc = p.get("description", "").replace("|", "\\|")
            if key == "type" and not desc:
                desc = "selects this kind of entry"
            lines.append(f"| `{key}` | {typ} | {dflt} | {desc} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _json(v):
    import json

    return json.dumps(v)


_DOC_ORDER = {n: i for i, n in enumerate([
    "RigidBody", "PlanarBody", "Orientation", "Beam", "RectangleSection", "CircleSection", "TubeSection",
    "UserSection", "Arc", "Spherical", "Revolute", "Prismatic", "Cylindrical", "Universal",
    "Fixed", "PointOnLine", "PointInPlane", "Distance", "RotationDriver", "TranslationDriver", "SpringDamper",
    "RotationalSpringDamper", "PointForce", "Torque", "ConstantTF", "ConstantSpeedTF", "PolynomialTF", "RampTF",
    "Solver", "StaticSolver", "NewmarkSpec", "HHTSpec", "GeneralizedAlphaSpec"])}


def properties(schema: dict | None = None) -> set[str]:
    """Every property name anywhere in the schema."""
    s = schema or json_schema()
    out = set(s.get("properties", {}))
    for d in s.get("$defs", {}).values():
        out |= set(d.get("properties", {}))
    return out


__all__ = ["ModelFile", "json_schema", "reference_markdown", "properties", "check_inertia", "FORMAT_VERSION",
           "JOINT_TYPES", "DRIVER_TYPES", "FORCE_TYPES", "SECTION_SHAPES", "TF_TYPES", "INTEGRATOR_TYPES", "MAX_STEPS"]
