"""``Model.beam``: a beam is a chain of nodes plus element groups.

The nodes are massless bodies of the kind of the beam's formulation (the plug-in seam
:mod:`.formulations`: ``se3`` frames, ``r3r3`` positions and total rotation vectors,
``ancf-cable`` positions and slopes) named ``<beam>.n0 … <beam>.n<N>``; joints,
loads and markers attach to them like to any body (``beam.node(i)``, ``beam.first``,
``beam.last``).  The elements (``<beam>.e0 …``) are evaluated together by the groups of
:mod:`.groups` once the model is frozen.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, PlainSerializer, Tag, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from ..bodies.rigid import Body
from ..errors import ModelError
from ..registry import Element, ElementType, register
from ..spec import UNION_ERRORS, UNION_KEYS, Axis, DumpError, Name, Point, SpecBase, Vec3, describe, point3
from ..lie import quat_from_matrix
from ..visuals import BeamVisual
from .exact import default_integration, nodal_weights  # noqa: F401  (the built-in formulations; old import path)
from .formulations import FORMULATIONS, beam_formulation
from .geometry import CircularArc, StraightLine
from .section_specs import SECTION_SHAPES, Arc, beam_section, section_data
from .sections import Section

#: keys of ``beams:`` entries that only some formulations take (``BeamFormulation.options``)
BEAM_OPTIONS = ("bending", "locking")


@dataclass
class Beam:
    """Handle returned by ``Model.beam``."""

    name: str
    nodes: list
    section: Section
    formulation: str
    order: int
    integration: str
    interpolation: str
    length: float
    spec: object = None

    def node(self, i):
        return self.nodes[i]

    @property
    def first(self):
        return self.nodes[0]

    @property
    def last(self):
        return self.nodes[-1]

    @property
    def node_names(self):
        return [b.name for b in self.nodes]

    @property
    def elements(self):
        return len(self.spec.data["conn"])

    @property
    def dofs(self):
        """Unknowns of the beam: the increments of its nodes (6 per SE(3) or R³×R³ node,
        NURBS: control frames; 6 per ANCF cable node)."""
        return sum(n.kind.nv for n in self.nodes)

    def positions(self, result, s):
        """Positions (rows, 3) of the beam's axis at reference arc length ``s`` for every
        row of ``result``, from the element's interpolation (its formulation's
        :meth:`~.formulations.BeamFormulation.positions`)."""
        return FORMULATIONS[self.formulation].positions(self, result, s)

    def __repr__(self):
        return (f"Beam({self.name!r}, {self.elements} elements, {self.formulation}, {self.interpolation} "
                f"order {self.order}, {self.integration} integration)")


def _section_tag(v):
    if isinstance(v, dict):
        t = v.get("shape")
        return f"<{t}>" if isinstance(t, str) and t in SECTION_SHAPES else None
    if isinstance(v, Section):
        return "<python>"
    if isinstance(v, SpecBase):
        return f"<{v.shape}>"
    return None


def _section_to_data(v):
    if isinstance(v, Section):
        return section_data(v)
    return v.model_dump() if isinstance(v, SpecBase) else v


BeamSection = Annotated[
    Union[tuple(Annotated[cls, Tag(f"<{t}>")] for t, cls in SECTION_SHAPES.items())
          + (SkipJsonSchema[Annotated[Any, Tag("<python>")]],)],
    Discriminator(_section_tag, custom_error_type="section_shape",
                  custom_error_message="a section is a mapping with shape: " + " | ".join(SECTION_SHAPES)),
    PlainSerializer(_section_to_data),
]
UNION_ERRORS["section_shape"] = ("section shape", SECTION_SHAPES)
UNION_KEYS["section_shape"] = "shape"


def _geometry_object(v):
    if v is not None and not hasattr(v, "nodes"):
        raise PydanticCustomError("geometry", "geometry must be a StraightLine, CircularArc or NurbsReference "
                                  "(flexmbd.beams), got {what}", {"what": describe(v)})
    return v


class BeamSpec(SpecBase):
    """A geometrically exact beam (docs/elements/beam-se3.md) of ``elements`` elements.  Its
    nodes are bodies named NAME.n0 … NAME.nN (NAME.first and NAME.last are aliases of the
    end nodes) that joints, drivers and loads name like any body; its elements NAME.e0 …
    have outputs such as NAME.e0.strain_energy.  Give either start and end (a straight
    beam) or arc."""

    model_config = ConfigDict(title="Beam")

    type: Literal["beam"] = Field("beam", description="beam (the only type of this section)")
    name: Optional[Name] = Field(None, description="unique name; the nodes are NAME.n0 … and the elements NAME.e0 …")
    section: BeamSection = Field(description="the cross section: a mapping with shape and its dimensions and material")
    elements: int = Field(ge=1, le=100000, description="number of elements")
    start: Optional[Point] = Field(None, description="first node of a straight beam [m]")
    end: Optional[Point] = Field(None, description="last node of a straight beam [m]")
    e2: Optional[Axis] = Field(None, description="direction of the section axis e2 of a straight beam, global "
                                                 "(default: chosen from the beam axis)")
    arc: Optional[Arc] = Field(None, description="a circular-arc beam instead of start and end")
    geometry: SkipJsonSchema[Annotated[Optional[Any], BeforeValidator(_geometry_object)]] = None
    order: int = Field(1, ge=1, le=10, description="polynomial order of the elements (≥ 2 for nurbs)")
    interpolation: Literal["lagrange", "nurbs"] = Field("lagrange", description="shape functions")
    formulation: str = Field("se3", min_length=1, max_length=50,
                             description="beam formulation: se3 (SE(3) nodes), r3r3 (positions and total "
                                         "rotation vectors, first-order Lagrange elements only), ancf-cable "
                                         "(gradient-deficient ANCF: positions and slopes, cubic Hermite elements), "
                                         "ancf (fully parameterized ANCF: positions and three gradients, continuum "
                                         "elastic forces), or another registered one (flexmbd.beams.formulations)")
    locking: Optional[Literal["strain-split", "plain"]] = Field(
        None, description="ancf only: strain-split (default: the Poisson coupling from the centre-line strains, "
                          "against Poisson locking) or plain (the continuum form, which locks for nu > 0)")
    bending: Optional[Literal["curvature", "linear"]] = Field(
        None, description="ancf-cable only: bending energy from the curvature |r′ × r″|/|r′|³ (curvature, the "
                          "default) or the small-strain form ½ EI r″·r″ (linear; straight references)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the point about [m/s] (the beam "
                                                         "starts in a rigid motion)")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    about: Optional[Point] = Field(None, description="the point whose initial velocity is given [m] (default: the "
                                                     "first node)")
    visual: Optional[BeamVisual] = Field(None, description="how the beam is drawn: color and the tube radius (default: "
                                                           "from the section); no effect on the dynamics")
    integration: Optional[Literal["full", "reduced", "hw"]] = Field(
        None, description="Gauss integration of the elastic forces: full, reduced, or hw (Hu-Washizu, first "
                          "order); default: the rule that does not lock, reduced for order ≥ 2 and for r3r3, "
                          "full for first-order se3 and for ancf-cable")

    @model_validator(mode="after")
    def _one_geometry(self):
        straight = self.start is not None or self.end is not None
        given = [w for w, v in (("start and end", straight), ("arc", self.arc is not None),
                                ("geometry", self.geometry is not None)) if v]
        if len(given) > 1:
            raise ValueError(f"give either start and end or arc, not both ({' and '.join(given)} given)"
                             if self.geometry is None else "give one of geometry, arc, or start and end")
        if not given:
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


def build_beams(elements, system):
    """The groups of every beam: each formulation builds its own beams' groups
    (:meth:`~.formulations.BeamFormulation.build`), formulations in registration order."""
    groups = []
    for name, formulation in FORMULATIONS.items():
        mine = [e for e in elements if e.data["formulation"] == name]
        if mine:
            groups += formulation.build(system, mine)
    return groups


@register
class BeamType(ElementType):
    """A beam (``Model.beam``): reference geometry and section here, the rest in its
    formulation (:mod:`.formulations`: se3, r3r3, ancf-cable, …)."""

    name = "beam"
    section = "beams"
    Spec = BeamSpec
    builder = staticmethod(build_beams)

    def validate(self, data, name=None):
        return super().validate({k: v for k, v in data.items() if k != "type"} | {"type": "beam"}, name)

    def create(self, model, spec):
        name = model.new_name(spec.name, "beam")
        what = f"beam {name!r}"
        order, interpolation = spec.order, spec.interpolation
        form = beam_formulation(spec.formulation, what, name)
        integration = spec.integration or form.default_integration(order, interpolation)
        options = {k: (getattr(spec, k) if getattr(spec, k) is not None else v) for k, v in form.options.items()}
        for key in BEAM_OPTIONS:
            if key not in form.options and getattr(spec, key) is not None:
                takers = ", ".join(n for n, f in FORMULATIONS.items() if key in f.options)
                raise ModelError(f"{what}: {key} is an option of {takers} beams, not of formulation {form.name!r}",
                                 element=name, key=key)
        form.check(what, name, order, interpolation, integration, options)
        with np.errstate(all="ignore"):
            try:
                section = spec.section if isinstance(spec.section, Section) else beam_section(spec.section)
            except (ValueError, ArithmeticError) as exc:
                raise ModelError(f"{what}: {str(exc).replace('Section: ', '')}", element=name, key="section") \
                    from None
            geometry = spec.geometry
            if spec.arc is not None:
                a = spec.arc
                try:
                    geometry = CircularArc(a.center, a.radius, a.angle0, a.angle1, normal=a.normal)
                except (ValueError, ArithmeticError) as exc:
                    raise ModelError(f"{what}: {str(exc).replace('CircularArc: ', '')}", element=name,
                                     key="arc") from None
                if not np.isfinite(geometry.length) or geometry.length <= 0:
                    raise ModelError(f"{what}: the arc's length {geometry.length:g} m is not a positive finite "
                                     "number", element=name, key="arc")
            elif geometry is None:
                start, end = point3(spec.start), point3(spec.end)
                if not np.isfinite(np.linalg.norm(end - start)):
                    raise ModelError(f"{what}: the beam's length overflows; give start and end of moderate size",
                                     element=name, key="end")
                try:
                    geometry = StraightLine(start, end, e2=spec.e2)
                except (ValueError, ArithmeticError) as exc:
                    raise ModelError(f"{what}: {exc}", element=name, key="e2") from None
        n_el = spec.elements
        try:
            data = form.topology(geometry, n_el, order, interpolation, integration)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            raise ModelError(f"{what}: {exc}", element=name) from None
        nodes = []
        xs = data.pop("x")
        # a rigid motion: v(x) = v + ω × (x − about), the same ω at every node
        w = np.asarray(spec.angular_velocity, dtype=float)
        about = xs[0] if spec.about is None else point3(spec.about)
        for i, (x, R) in enumerate(zip(xs, data.pop("R"))):
            nm = model.new_name(f"{name}.n{i}", "node")
            b = Body(nm, form.kind, 0.0, np.zeros((3, 3)), x.copy(), quat_from_matrix(R),
                     np.asarray(spec.velocity, dtype=float) + np.cross(w, x - about), w.copy())
            model.add_node(b)
            nodes.append(b)
        q = np.array([np.r_[b.position, b.orientation] for b in nodes])
        data.update(section=section, formulation=form.name, order=order, integration=integration,
                    interpolation=interpolation, length_total=float(geometry.length), options=options, name=name)
        form.reference(data, q)
        return Element(self.name, name, tuple(nodes), data, spec.model_copy(update={"name": name}),
                       nodes=tuple(nodes))

    def added(self, model, element):
        d = element.data
        return Beam(element.name, list(element.nodes), d["section"], d["formulation"], d["order"], d["integration"],
                    d["interpolation"], d["length_total"], element)

    def node_aliases(self, element):
        return {"first": element.nodes[0], "last": element.nodes[-1]}

    def dump(self, element):
        spec = element.spec
        if spec.geometry is not None:
            g = spec.geometry
            if isinstance(g, StraightLine):
                spec = spec.model_copy(update=dict(geometry=None, start=g.start.tolist(), end=g.end.tolist(),
                                                   e2=g._R[:, 1].tolist()))
            elif isinstance(g, CircularArc):
                spec = spec.model_copy(update=dict(geometry=None, arc=Arc(
                    center=g.center.tolist(), radius=g.radius, angle0=g.angle0, angle1=g.angle1,
                    normal=g.normal.tolist())))
            else:
                raise DumpError(f"beam {element.name!r}: a {type(g).__name__} reference cannot be written to a "
                                "model file (straight and circular-arc beams can)")
        out = spec.model_dump(mode="python", exclude_defaults=True, exclude={"geometry"})
        return {"name": out.pop("name"), **out}

    def node_boxes(self, element):
        """Small cubes, a tenth of the distance to the nearest neighbour node."""
        size = {}
        nodes = element.nodes
        for n0, n1 in zip(nodes[:-1], nodes[1:]):
            d = float(np.linalg.norm(np.asarray(n1.position, float) - np.asarray(n0.position, float)))
            for n in (n0, n1):
                if d > 0 and np.isfinite(d):
                    size[id(n)] = min(size.get(id(n), np.inf), 0.1 * d)
        return [(n, np.full(3, size.get(id(n), 0.01)), np.eye(3)) for n in nodes]

    def geometry(self, element):
        """The axis as a polyline through the nodes."""
        return [("line", f"{element.name}.{k}", n0, n1, n0.position, n1.position)
                for k, (n0, n1) in enumerate(zip(element.nodes[:-1], element.nodes[1:]))]

