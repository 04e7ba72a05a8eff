"""Beam sections and arcs in specifications (model files and ``Model.beam``).

A section is a mapping with ``shape`` (rectangle, circle, tube or user) and its dimensions
and material, or from Python a :class:`~flexmbd.beams.sections.Section`; :func:`beam_section`
makes the Section of a mapping and :func:`section_data` writes a Section back.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import ConfigDict, Discriminator, Field, Tag, model_validator
from pydantic_core import PydanticCustomError

from ..spec import Axis, SpecBase, Vec3
from .sections import Section


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


class _Material(SpecBase):
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


class UserSection(SpecBase):
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


class Arc(SpecBase):
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


def beam_section(spec) -> Section:
    """The :class:`~flexmbd.beams.sections.Section` of a validated section mapping
    (ValueError for values the section constructors reject)."""
    if spec.shape == "user":
        return Section.user(**spec.model_dump(exclude={"shape"}))
    kw = dict(E=spec.E, nu=spec.nu, G=spec.G, rho=spec.rho, shear_factor=spec.shear_factor)
    if spec.shape == "rectangle":
        return Section.rectangle(spec.width2, spec.height3, **kw)
    if spec.shape == "circle":
        return Section.circle(spec.d, **kw)
    return Section.tube(spec.d_outer, spec.d_inner, **kw)


def section_data(section: Section) -> dict:
    """A Section as a model-file mapping: its shape and parameters when it was made by a
    shape constructor, else its nine constants (shape user)."""
    definition = getattr(section, "definition", None)
    if definition is not None:
        return {k: v for k, v in definition.items() if v is not None}
    return {"shape": "user", **{k: float(getattr(section, k)) for k in
                                ("EA", "GA2", "GA3", "GJ", "EI2", "EI3", "rhoA", "rhoI2", "rhoI3")}}
