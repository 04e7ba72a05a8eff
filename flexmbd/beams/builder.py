"""``Model.beam``: a beam is a chain of nodes plus element groups.

The nodes are massless bodies of kind ``se3`` (``formulation="se3"``) or ``r3r3``
(``formulation="r3r3"``: positions and total rotation vectors, two-node elements) named ``<beam>.n0 … <beam>.n<N>``; joints,
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
from ..forces.loads import GravityGroup
from ..nodes import R3R3, SE3
from ..registry import Element, ElementType, register
from ..spec import UNION_ERRORS, UNION_KEYS, Axis, DumpError, Name, Point, SpecBase, Vec3, describe, point3
from ..lie import quat_from_matrix, quat_to_rotvec, se3_exp, se3_from_Rx, se3_inv, se3_log
from ..rotations import rotation_matrix
from .ancf_formulation import ancf_groups, create_ancf_beam
from .geometry import CircularArc, NurbsReference, StraightLine
from .se3_beam import reference_strains, relative_twists
from .se3_linear import relative_twist
from .section_specs import SECTION_SHAPES, Arc, beam_section, section_data
from .sections import Section
from .shape import NurbsCurve, gauss_legendre, lagrange, nurbs_elements

FORMULATIONS = ("se3", "r3r3", "ancf")
INTEGRATIONS = ("full", "reduced", "hw")
INTERPOLATIONS = ("lagrange", "nurbs")


def default_integration(formulation: str, order: int, interpolation: str = "lagrange") -> str:
    """The Gauss rule of the elastic forces when ``Model.beam`` is given none: the one that
    does not lock.

    ``"reduced"`` (p points for order p) for elements whose strain varies along them —
    SE(3) elements of order ≥ 2 (Lagrange or NURBS) and the R³×R³ element — since full
    integration (p + 1 points) makes them lock: on the elastica with EA = GA = 1e6 EI/L²,
    16 quadratic SE(3) elements err by 2.5e-4 L with full integration (16 first-order
    ones: 2.6e-4 L) and 1.0e-6 L with reduced, and R³×R³ is 97 % too stiff on P3's
    cantilever (docs/verification-beams.md, "Locking versus order and integration").
    ``"full"`` for the first-order SE(3) element: its strain is constant along the element
    (screw interpolation, Sonneville, Cardona & Brüls 2014), so every rule gives the same
    forces and stiffness.  The beam's inertia always takes p + 1 points, which integrate the
    consistent mass Σ N_k N_l exactly (with p points its rank drops by 6 per element).
    """
    if formulation == "se3" and order == 1 and interpolation == "lagrange":
        return "full"
    return "reduced"


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
        """Unknowns of the beam: 6 per node (control frame for NURBS), 12 per ANCF node."""
        return self.nodes[0].kind.nv * len(self.nodes)

    def positions(self, result, s):
        """Positions (rows, 3) of the beam's axis at reference arc length ``s`` for every
        row of ``result``, from the element's interpolation H(s) = H_1 exp(Σ N_k ξ_k)."""
        data = self.spec.data
        e, N = _shape_at(data, float(s))
        idx = data["conn"][e]
        if self.formulation == "r3r3":   # positions interpolated linearly
            return sum(Nk * result[f"{self.nodes[k].name}.position"] for Nk, k in zip(N, idx))
        q = np.stack([np.c_[result[f"{self.nodes[k].name}.position"], result[f"{self.nodes[k].name}.orientation"]]
                      for k in idx], axis=1)                                  # (rows, n, 7)
        R = rotation_matrix(q[..., 3:].reshape(-1, 4)).reshape(q.shape[:2] + (3, 3))
        xi = relative_twists(R, q[..., :3])
        h = np.einsum("k,rki->ri", N, xi)
        H = se3_exp(h)
        return q[:, 0, :3] + np.einsum("rij,rj->ri", R[:, 0], H[:, :3, 3])

    def __repr__(self):
        return (f"Beam({self.name!r}, {self.elements} elements, {self.formulation}, {self.interpolation} "
                f"order {self.order}, {self.integration} integration)")


def _shape_at(data, s):
    """Element index and shape values at reference arc length s."""
    s0, s1 = data["s_range"][:, 0], data["s_range"][:, 1]
    e = int(np.clip(np.searchsorted(s1, s), 0, len(s1) - 1))
    if data["interpolation"] == "nurbs":
        u = data["reference"].u_of_s(np.array([s]))
        idx, R, _ = data["curve"].rational_basis(np.atleast_1d(u))
        e = int(np.flatnonzero(np.all(data["conn"] == idx[0], axis=1))[0])
        return e, R[0]
    zeta = (s - s0[e]) / (s1[e] - s0[e])
    return e, lagrange(data["order"], np.array([zeta]))[0][0]


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
                                         "rotation vectors, first-order Lagrange elements only) or ancf (fully "
                                         "parameterized ANCF: positions and three gradients per node)")
    locking: Optional[Literal["strain-split", "plain"]] = Field(
        None, description="ancf only: strain-split (default: the Poisson coupling from the centre-line strains, "
                          "against Poisson locking) or plain (the continuum form, which locks for nu > 0)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the point about [m/s] (the beam "
                                                         "starts in a rigid motion)")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    about: Optional[Point] = Field(None, description="the point whose initial velocity is given [m] (default: the "
                                                     "first node)")
    integration: Optional[Literal["full", "reduced", "hw"]] = Field(
        None, description="Gauss integration of the elastic forces: full, reduced, or hw (Hu-Washizu, first "
                          "order); default: the rule that does not lock, reduced for order ≥ 2 and for r3r3, "
                          "full for first-order se3")

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
    """Inertia, weight (consistent nodal shares of ρA g) and elastic groups of every beam
    (one group per element type, vectorised over all beams)."""
    ancf = [e for e in elements if e.data["formulation"] == "ancf"]
    elements = [e for e in elements if e.data["formulation"] != "ancf"]
    inertia, forces = beam_groups(system, elements)
    ancf_inertia, ancf_forces = ancf_groups(system, ancf)
    inertia, forces = inertia + ancf_inertia, forces + ancf_forces
    gravity = system.model.gravity
    weights = []
    if np.any(gravity != 0):
        shares = nodal_weights(elements)
        for kind in system.kinds:
            mine = [(b, w) for b, w in shares if b.kind == kind]
            if mine:
                nodes = [b for b, _ in mine]
                g = GravityGroup(kind, nodes, system.dof_rows(nodes, kind), gravity, system.config_rows(nodes, kind))
                g.mass = np.array([m for _, m in mine])
                g.element_names = [f"{b.name}.weight" for b, _ in mine]
                weights.append(g)
    for g in forces:
        if not getattr(g, "is_load", False):
            g.stage = 1   # structural forces after the applied loads (summation order)
    return inertia + weights + forces


@register
class BeamType(ElementType):
    """A geometrically exact beam on SE(3) or R³×R³ nodes (``Model.beam``)."""

    name = "beam"
    section = "beams"
    Spec = BeamSpec
    builder = staticmethod(build_beams)

    def validate(self, data, name=None):
        return super().validate({k: v for k, v in data.items() if k != "type"} | {"type": "beam"}, name)

    def create(self, model, spec):
        name = model.new_name(spec.name, "beam")
        what = f"beam {name!r}"
        order, interpolation, formulation = spec.order, spec.interpolation, spec.formulation
        integration = spec.integration or default_integration(formulation, order, interpolation)
        if formulation not in FORMULATIONS:
            raise ModelError(f"{what}: formulation must be one of {FORMULATIONS}, got {formulation!r}",
                             element=name, key="formulation")
        if interpolation == "nurbs" and order < 2:
            raise ModelError(f"{what}: order must be an integer ≥ 1 (≥ 2 for NURBS), got {order!r}",
                             element=name, key="order")
        if formulation == "r3r3" and not (order == 1 and interpolation == "lagrange"):
            raise ModelError(f"{what}: the R³×R³ formulation has first-order Lagrange elements only "
                             f"(order=1, interpolation='lagrange'), got order={order!r}, "
                             f"interpolation={interpolation!r}", element=name, key="formulation")
        if integration == "hw" and not (order == 1 and interpolation == "lagrange"):
            raise ModelError(f"{what}: the Hu-Washizu form (integration='hw') is a remedy for first-order elements",
                             element=name, key="integration")
        if spec.locking is not None and formulation != "ancf":
            raise ModelError(f"{what}: 'locking' is an option of the ANCF beam (formulation: ancf)",
                             element=name, key="locking")
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
        if formulation == "ancf":
            nodes, data = create_ancf_beam(model, spec, name, geometry, section, spec.locking)
            data.update(section=section, formulation=formulation, order=1, integration="full",
                        interpolation="lagrange", length_total=float(geometry.length))
            return Element(self.name, name, tuple(nodes), data, spec.model_copy(update={"name": name}),
                           nodes=tuple(nodes))
        n_gauss = order + 1 if integration == "full" else order
        try:
            if interpolation == "lagrange":
                data = _lagrange_topology(geometry, n_el, order, n_gauss)
            else:
                data = _nurbs_topology(geometry, n_el, order, n_gauss)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            raise ModelError(f"{what}: {exc}", element=name) from None
        nodes = []
        node_kind = R3R3 if formulation == "r3r3" else SE3
        xs = data.pop("x")
        # a rigid motion: v(x) = v + ω × (x − about), the same ω at every node
        w = np.asarray(spec.angular_velocity, dtype=float)
        about = xs[0] if spec.about is None else point3(spec.about)
        for i, (x, R) in enumerate(zip(xs, data.pop("R"))):
            nm = model.new_name(f"{name}.n{i}", "node")
            b = Body(nm, node_kind, 0.0, np.zeros((3, 3)), x.copy(), quat_from_matrix(R),
                     np.asarray(spec.velocity, dtype=float) + np.cross(w, x - about), w.copy())
            model.add_node(b)
            nodes.append(b)
        q = np.array([np.r_[b.position, b.orientation] for b in nodes])
        conn = data["conn"]
        Rn = rotation_matrix(q[:, 3:]).reshape(-1, 3, 3)
        data.update(section=section, formulation=formulation, order=order, integration=integration,
                    interpolation=interpolation, length_total=float(geometry.length))
        if formulation == "r3r3":
            data["q_ref"] = _r3r3_reference(q, conn)
        elif order == 1 and interpolation == "lagrange":
            data["d0"] = relative_twist(q[conn[:, 0]], q[conn[:, 1]])
        else:
            data["eps0"] = reference_strains(Rn[conn], q[conn][..., :3], data["N"], data["dN"])
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


def _r3r3_reference(q, conn):
    """Reference element coordinates [x_A, ψ_A, x_B, ψ_B] (n_el, 12) of R³×R³ elements:
    the nodes' principal rotation vectors (as the System's initial state), node B's on
    the branch of node A's, as the elements use them."""
    from ..nodes.rotvec_branch import nearest_branch, shift_jet

    psi = quat_to_rotvec(q[:, 3:7])
    qa, qb = np.c_[q[conn[:, 0], :3], psi[conn[:, 0]]], np.c_[q[conn[:, 1], :3], psi[conn[:, 1]]]
    qb[:, 3:] = shift_jet(qb[:, 3:], nearest_branch(qb[:, 3:], qa[:, 3:]), order=1)[0]
    return np.c_[qa, qb]


def _control_frames(curve, ref, frame):
    """Control frames H_k whose SE(3) interpolation H_1 exp(Σ R_k(u) ξ_k) passes through
    the reference frames at the Greville abscissae u_j (collocation, linear in the
    relative twists ξ_k = log(H_1⁻¹ H_k); exact for constant-strain references such as
    lines, arcs and helices once the element uses its own first frame, since the twists
    along a screw are proportional to arc length).  The control points of the geometric
    NURBS are not used as positions: they would make the reference sag off the curve by
    O(h²) under the SE(3) interpolation."""
    U, p = curve.knots, curve.degree
    greville = np.array([np.mean(U[k + 1:k + p + 1]) for k in range(curve.n_points)])
    xg = curve.point(greville)
    Rg = np.asarray(frame(ref.s_of_u(greville)))
    Hg = se3_from_Rx(Rg, xg)
    xi_ref = se3_log(np.einsum("ij,njk->nik", se3_inv(Hg[0]), Hg))
    idx, Rb, _ = curve.rational_basis(greville)
    C = np.zeros((curve.n_points, curve.n_points))
    np.put_along_axis(C, idx, Rb, axis=1)
    xi = np.linalg.solve(C, xi_ref)
    H = np.einsum("ij,njk->nik", Hg[0], se3_exp(xi))
    return H[:, :3, 3].copy(), H[:, :3, :3].copy()


def _lagrange_topology(geometry, n_el, p, n_gauss):
    ref = geometry.nodes(n_el * p + 1)
    conn = np.arange(n_el)[:, None] * p + np.arange(p + 1)[None, :]
    zg, wg = gauss_legendre(n_gauss)
    N, dNz = lagrange(p, zg)
    L = ref.s[conn[:, -1]] - ref.s[conn[:, 0]]
    zm, wm = gauss_legendre(p + 1)                       # inertia: exact for N_k N_l
    Nm = lagrange(p, zm)[0]
    return dict(x=ref.x, R=ref.R, conn=conn, N=np.broadcast_to(N, (n_el,) + N.shape).copy(),
                dN=dNz[None] / L[:, None, None], w=wg[None, :] * L[:, None], length=L,
                N_inertia=np.broadcast_to(Nm, (n_el,) + Nm.shape).copy(), w_inertia=wm[None, :] * L[:, None],
                s_range=np.c_[ref.s[conn[:, 0]], ref.s[conn[:, -1]]])


def _nurbs_topology(geometry, n_el, p, n_gauss):
    """Isogeometric elements: one knot span each; nodes are the control frames, at the
    control points with the reference frame at their Greville abscissae."""
    if isinstance(geometry, StraightLine):
        curve = NurbsCurve.line(geometry.point(0.0), geometry.point(geometry.length), degree=p, n_spans=n_el)
        ref = NurbsReference(curve)
        frame = geometry.frame
    elif isinstance(geometry, CircularArc):
        curve = NurbsCurve.circular_arc(geometry.center, geometry.radius, geometry.angle0, geometry.angle1,
                                        normal=geometry.normal, degree=p)
        curve = curve.refine(int(np.ceil(n_el / len(nurbs_elements(curve, 1)))))
        ref = NurbsReference(curve, normal=geometry.normal)
        frame = ref.frame
    else:
        curve = geometry.curve
        while curve.degree < p:
            curve = curve.elevate_degree()
        curve = curve.refine(int(np.ceil(n_el / len(nurbs_elements(curve, 1)))))
        ref = NurbsReference(curve)
        frame = ref.frame
    els = nurbs_elements(curve, n_gauss)
    els_m = nurbs_elements(curve, p + 1)                 # inertia: exact for N_k N_l (polynomial spans)
    x, R = _control_frames(curve, ref, frame)
    s_of = ref.s_of_u
    return dict(x=x, R=R, conn=np.array([e.indices for e in els]),
                N=np.array([e.R for e in els]), dN=np.array([e.dR_ds for e in els]),
                w=np.array([e.weights for e in els]), length=np.array([np.sum(e.weights) for e in els]),
                N_inertia=np.array([e.R for e in els_m]), w_inertia=np.array([e.weights for e in els_m]),
                s_range=np.array([[float(s_of(np.array([e.span[0]]))[0]), float(s_of(np.array([e.span[1]]))[0])]
                                  for e in els]), curve=curve, reference=ref)


def beam_groups(system, specs):
    """(inertia groups, force groups) of the beams ``specs`` of a System: one group per
    element type (two-node SE(3); n-node SE(3) with n nodes), vectorised over all beams."""
    from .groups import BeamElasticGroup, BeamElasticGroupN, BeamInertiaGroup

    inertia, forces = [], []
    by_type = {}
    r3r3 = [s for s in specs if s.data["formulation"] == "r3r3"]
    if r3r3:
        inertia, forces = _r3r3_groups(system, r3r3)
    for spec in specs:
        d = spec.data
        if d["formulation"] == "r3r3":
            continue
        nn = d["conn"].shape[1]
        key = ("se3-2" if nn == 2 and d["order"] == 1 and d["interpolation"] == "lagrange" else "se3-n", nn)
        by_type.setdefault(key, []).append(spec)
    for (kind, nn), group in by_type.items():
        names, dofs, cfgs, parts = [], [], [], {k: [] for k in ("N", "dN", "w", "d0", "length", "eps0", "D", "Ms",
                                                                "N_inertia", "w_inertia")}
        for spec in group:
            d, nodes = spec.data, spec.bodies
            k = len(d["conn"])
            names += [f"{spec.name}.e{i}" for i in range(k)]
            dofs.append(_element_rows(system.dof_rows(nodes, nodes[0].kind), d["conn"]))
            cfgs.append(_element_rows(system.config_rows(nodes, nodes[0].kind), d["conn"]))
            for key in ("N", "dN", "w", "length", "N_inertia", "w_inertia"):
                parts[key].append(d[key])
            parts["d0" if kind == "se3-2" else "eps0"].append(d["d0" if kind == "se3-2" else "eps0"])
            parts["D"].append(np.broadcast_to(d["section"].stiffness_matrix(), (k, 6, 6)))
            parts["Ms"].append(np.broadcast_to(d["section"].inertia_matrix(), (k, 6, 6)))
        cat = {key: np.concatenate(v) for key, v in parts.items() if v}
        dofs, cfgs = np.concatenate(dofs), np.concatenate(cfgs)
        if kind == "se3-2":
            forces.append(BeamElasticGroup(names, dofs, cfgs, cat["d0"], cat["length"], cat["D"]))
            # two Gauss points integrate the (cubic) inertia integrands of linear elements exactly
            zg, wg = gauss_legendre(2)
            N, w = lagrange(1, zg)[0], cat["length"][:, None] * wg[None, :]
        else:
            forces.append(BeamElasticGroupN(names, dofs, cfgs, cat["N"], cat["dN"], cat["w"], cat["eps0"], cat["D"]))
            N, w = cat["N_inertia"], cat["w_inertia"]        # p + 1 points whatever the elastic rule
        if np.any(cat["Ms"] != 0):
            inertia.append(BeamInertiaGroup(names, dofs, cfgs, N, w, cat["Ms"]))
    return inertia, forces


def _element_rows(node_rows, conn):
    """(elements, nodes per element × width): the rows of an element's nodes side by side."""
    conn = np.asarray(conn, dtype=int)
    return node_rows[conn].reshape(len(conn), -1)


def _r3r3_groups(system, specs):
    """R³×R³ groups: one elastic group per integration mode, one inertia group."""
    from .groups import R3R3ElasticGroup, R3R3InertiaGroup

    inertia, forces = [], []
    rows = []
    for spec in specs:
        d, nodes = spec.data, spec.bodies
        sec = d["section"]
        dofs = _element_rows(system.dof_rows(nodes, nodes[0].kind), d["conn"])
        cfgs = _element_rows(system.config_rows(nodes, nodes[0].kind), d["conn"])
        for i, c in enumerate(d["conn"]):
            rows.append(dict(name=f"{spec.name}.e{i}", mode=d["integration"], dofs=dofs[i], cfg=cfgs[i],
                             q_ref=d["q_ref"][i], L=d["length"][i], D=sec.stiffness_matrix(),
                             rhoA=sec.rhoA, Js=sec.inertia_matrix()[3:, 3:]))
    for mode in dict.fromkeys(r["mode"] for r in rows):
        rs = [r for r in rows if r["mode"] == mode]
        forces.append(R3R3ElasticGroup([r["name"] for r in rs], [r["dofs"] for r in rs], [r["cfg"] for r in rs],
                                       [r["q_ref"] for r in rs], [r["L"] for r in rs], [r["D"] for r in rs], mode))
    massive = [r for r in rows if r["rhoA"] > 0 or np.any(r["Js"] != 0)]
    if massive:
        inertia.append(R3R3InertiaGroup([r["name"] for r in massive], [r["dofs"] for r in massive],
                                        [r["cfg"] for r in massive], [r["L"] for r in massive],
                                        [r["rhoA"] for r in massive], [r["Js"] for r in massive]))
    return inertia, forces


def nodal_weights(specs):
    """Nodes and their shares Σ_g w_g N_k ρA of the beams' mass (consistent nodal loads
    of the distributed weight)."""
    share = {}
    order = []
    for spec in specs:
        d = spec.data
        rhoA = d["section"].rhoA
        shares = np.einsum("eg,egk->ek", d["w"], d["N"]) * rhoA
        for c, sh in zip(d["conn"], shares):
            for j, m in zip(c, sh):
                b = spec.bodies[j]
                if b.name not in share:
                    order.append(b)
                share[b.name] = share.get(b.name, 0.0) + m
    return [(b, share[b.name]) for b in order if share[b.name] > 0]
