"""Rigid bodies in absolute coordinates.

Spatial bodies use q = [R, p] with Euler parameters p (P1, N = 7).  With ω' = 2 G ṗ the
kinetic energy is T = ½ m Ṙ·Ṙ + 2 ṗᵀ Gᵀ J' G ṗ and Lagrange's equations give
(Nikravesh 1988, eq. 6.99; P1 sec. 1)

    m R̈ = f,     4 Gᵀ J' G p̈ + 8 G(ṗ)ᵀ J' G(p) ṗ = n_p,

the second term being the quadratic-velocity (gyroscopic) force written with the
identity G(p) s = −G(s) p.  The 4×4 mass block is singular along p; the
normalisation constraint p·p − 1 = 0 (its own multiplier) makes the system regular.
Planar bodies use q = [x, y, θ] with the constant mass matrix diag(m, m, I_z).

Rotation-vector bodies (:data:`~flexmbd.nodes.ROTATION`) keep q = [R, p] but their
velocities are v = [Ṙ, Ω] (Ω in body axes) and their increments (ΔR, Δθ) act as
p ⊗ exp(Δθ).  Their inertia force is the body-frame Newton-Euler form

    F = [m R̈;  J Ω̇ + Ω × J Ω],   ∂F/∂v = [0; Ω̃ J − (J Ω)~],   ∂F/∂Δ = 0,   M = diag(m I, J).

SE(3) bodies (:data:`~flexmbd.nodes.SE3`) have body-frame twists v = (U, Ω),
ẋ = A U, and obey M η̇ − ad(η)ᵀ M η = f on SE(3) (Sonneville et al. 2014, eq. for rigid
bodies), with the centre of mass at the frame origin:

    F = [m (U̇ + Ω × U);  J Ω̇ + Ω × J Ω],
    ∂F/∂v = [[m Ω̃, −m Ũ], [0, Ω̃ J − (J Ω)~]],   ∂F/∂Δ = 0,   M = diag(m I, J).

Every group has ``config_index`` (into the extended configuration vector) and
``dof_index`` (into the extended velocity/increment vector: residual rows, matrix columns).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails

from ..constraints.normalization import NormalizationGroup
from .ancf_rigid import AncfBodyGroup, RigidityGroup
from ..visuals import BodyVisualField
from ..errors import ModelError
from ..forces.loads import GravityGroup
from ..groups import CompiledSlot, InertiaGroup, float_array, int_array
from ..kernels import AVAILABLE as USE_KERNELS
from ..nodes import ANCF, PLANAR, ROTATION, SE3, SPATIAL, NodeKind
from ..registry import Element, ElementType, register
from ..rotations import DG, G_matrix, rotation_matrix, skew
from ..spec import Inertia, Name, SpecBase, Vec2, Vec3, check_inertia
from .shapes import BoxShape, Orientation, Shape, _orientation, mass_properties

if USE_KERNELS:
    from ..kernels.bodies import frame_inertia as _kernel_frame_inertia
    from ..kernels.bodies import inertia_force as _kernel_inertia


@dataclass(eq=False)
class Body:
    """A rigid body.  Its frame origin is the centre of mass.

    ``inertia`` is the 3×3 inertia tensor about the centre of mass in body axes (a
    3-vector means principal values).  ``orientation`` is a rotation matrix or Euler
    parameters; ``angular_velocity`` is given in the global frame.
    """

    name: str
    kind: NodeKind
    mass: float
    inertia: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    index: int = -1  # position in the model's body list, set by the model
    #: the solids the body was made of (:mod:`.shapes`) and the origin of their shape frame
    #: relative to the centre of mass, body axes (None: a body given by mass and inertia)
    shape: list | None = None
    shape_origin: np.ndarray | None = None

    def __repr__(self):
        return f"Body({self.name!r}, {self.kind.name})"


class SpatialBodyGroup(InertiaGroup):
    """All spatial bodies, evaluated together as arrays."""

    kind = SPATIAL

    def __init__(self, bodies, dof_index, config_index=None):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 7)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 7)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        self.inertia = np.ascontiguousarray(np.array([b.inertia for b in bodies], dtype=float).reshape(-1, 3, 3))

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def compiled_slot(self):
        return CompiledSlot("spatial_bodies", (int_array(self.config_index), int_array(self.dof_index),
                                               float_array(self.mass), float_array(self.inertia)))

    def mass_matrix(self, qb):
        G = G_matrix(qb[:, 3:7])
        M = np.zeros((len(self), 7, 7))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        M[:, 3:, 3:] = 4.0 * np.einsum("nji,njk,nkl->nil", G, self.inertia, G)
        return M

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = M(q) a + (quadratic velocity terms); with ∂F/∂q, ∂F/∂v and M."""
        if USE_KERNELS:
            return _kernel_inertia(self, qb, vb, ab, jacobians)
        p, pd, pa = qb[:, 3:7], vb[:, 3:7], ab[:, 3:7]
        G, Gd, Ga = G_matrix(p), G_matrix(pd), G_matrix(pa)
        Jw = self.inertia
        w1 = np.einsum("nij,njk,nk->ni", Jw, G, pa)      # J' G a_p
        w2 = np.einsum("nij,njk,nk->ni", Jw, G, pd)      # J' G ṗ  (= ω'/2 · J')
        F = np.empty((len(self), 7))
        F[:, :3] = self.mass[:, None] * ab[:, :3]
        F[:, 3:] = 4.0 * np.einsum("nij,ni->nj", G, w1) + 8.0 * np.einsum("nij,ni->nj", Gd, w2)
        if not jacobians:
            return F, None, None, None
        M = np.zeros((len(self), 7, 7))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        JG = np.einsum("nij,njk->nik", Jw, G)
        M[:, 3:, 3:] = 4.0 * np.einsum("nji,njk->nik", G, JG)
        K = np.zeros_like(M)
        K[:, 3:, 3:] = 4.0 * (
            np.einsum("ni,ijk->njk", w1, DG) - np.einsum("nji,njk->nik", G, np.einsum("nij,njk->nik", Jw, Ga))
        ) - 8.0 * np.einsum("nji,njk->nik", Gd, np.einsum("nij,njk->nik", Jw, Gd))
        D = np.zeros_like(M)
        D[:, 3:, 3:] = 8.0 * (np.einsum("ni,ijk->njk", w2, DG) + np.einsum("nji,njk->nik", Gd, JG))
        return F, K, D, M

    def element_kinetic_energy(self, qb, vb):
        G = G_matrix(qb[:, 3:7])
        w = np.einsum("nij,nj->ni", G, vb[:, 3:7])
        return 0.5 * self.mass * np.einsum("ni,ni->n", vb[:, :3], vb[:, :3]) + 2.0 * np.einsum(
            "ni,nij,nj->n", w, self.inertia, w
        )


class PlanarBodyGroup(InertiaGroup):
    """All planar bodies: M = diag(m, m, I_z), no velocity-dependent inertia."""

    kind = PLANAR

    def __init__(self, bodies, dof_index, config_index=None):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 3)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 3)
        self.diag = np.array([[b.mass, b.mass, np.asarray(b.inertia)[2, 2]] for b in bodies], dtype=float).reshape(-1, 3)

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def compiled_slot(self):
        return CompiledSlot("planar_bodies", (int_array(self.dof_index), float_array(self.diag)))

    def mass_matrix(self, qb):
        return np.einsum("ni,ij->nij", self.diag, np.eye(3))

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F = self.diag * ab
        if not jacobians:
            return F, None, None, None
        M = self.mass_matrix(qb)
        Z = np.zeros_like(M)
        return F, Z, Z.copy(), M

    def element_kinetic_energy(self, qb, vb):
        return 0.5 * np.einsum("ni,ni->n", self.diag, vb * vb)


class RotationBodyGroup(InertiaGroup):
    """All rotation-vector (Lie-group) bodies: body-frame Newton-Euler equations."""

    kind = ROTATION

    def __init__(self, bodies, dof_index, config_index):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 6)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, 7)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        self.inertia = np.array([b.inertia for b in bodies], dtype=float).reshape(-1, 3, 3)

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def mass_matrix(self, qb):
        M = np.zeros((len(self), 6, 6))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        M[:, 3:, 3:] = self.inertia
        return M

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = [m a; J Ω̇ + Ω × J Ω]; ∂F/∂Δ = 0, ∂F/∂v, M."""
        w, wd = vb[:, 3:6], ab[:, 3:6]
        Jw = np.einsum("nij,nj->ni", self.inertia, w)
        F = np.empty((len(self), 6))
        F[:, :3] = self.mass[:, None] * ab[:, :3]
        F[:, 3:] = np.einsum("nij,nj->ni", self.inertia, wd) + np.cross(w, Jw)
        if not jacobians:
            return F, None, None, None
        M = self.mass_matrix(qb)
        K = np.zeros_like(M)
        D = np.zeros_like(M)
        D[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(w), self.inertia) - skew(Jw)
        return F, K, D, M

    def element_kinetic_energy(self, qb, vb):
        w = vb[:, 3:6]
        return 0.5 * self.mass * np.einsum("ni,ni->n", vb[:, :3], vb[:, :3]) + 0.5 * np.einsum(
            "ni,nij,nj->n", w, self.inertia, w)


class FrameBodyGroup(RotationBodyGroup):
    """All SE(3) rigid bodies (kind ``se3``): body-frame Newton-Euler on SE(3)."""

    kind = SE3

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = [m (U̇ + Ω × U); J Ω̇ + Ω × J Ω]; ∂F/∂Δ = 0, ∂F/∂v, M."""
        if USE_KERNELS:
            n = len(self)
            F = np.empty((n, 6))
            K, D, M = (np.empty((n, 6, 6)) for _ in range(3)) if jacobians else (np.empty((0, 6, 6)),) * 3
            _kernel_frame_inertia(np.ascontiguousarray(vb), np.ascontiguousarray(ab), self.mass, self.inertia,
                                  jacobians, F, K, D, M)
            return (F, K, D, M) if jacobians else (F, None, None, None)
        F, K, D, M = super().inertia_force(qb, vb, ab, jacobians)
        U, w = vb[:, :3], vb[:, 3:6]
        F[:, :3] += self.mass[:, None] * np.cross(w, U)
        if jacobians:
            m = self.mass[:, None, None]
            D[:, :3, :3] = m * skew(w)
            D[:, :3, 3:] = -m * skew(U)
        return F, K, D, M


# ---------------------------------------------------------------------- element types


def _shape_list(v):
    """One shape or a list of them (Python: shape objects; files: mappings)."""
    return v


ShapeField = Annotated[Optional[Union[Shape, list[Shape]]], BeforeValidator(_shape_list)]


def _missing_mass_keys(cls, data):
    """Without shape, mass and inertia are required: a "missing" error at the key (so a
    model file points at it), as for any required key (unknown keys are reported first)."""
    if isinstance(data, dict) and data.get("shape") is None and all(k in cls.model_fields for k in data):
        missing = [InitErrorDetails(type="missing", loc=(k,), input=data) for k in ("mass", "inertia")
                   if data.get(k) is None]
        if missing:
            raise ValidationError.from_exception_data("rigid body", missing)
    return data


def _check_shape_keys(spec):
    """mass and inertia, or shape with exactly one of density and mass."""
    if spec.shape is None:
        missing = [k for k in ("mass", "inertia") if getattr(spec, k) is None]
        if missing:
            raise ValueError(f"give mass and inertia, or shape with density (missing {' and '.join(missing)})")
        if spec.density is not None:
            raise ValueError("density needs shape")
        return
    if spec.inertia is not None:
        raise ValueError("give inertia or shape, not both (the shape gives the inertia)")
    if (spec.density is None) == (spec.mass is None):
        raise ValueError("with shape, give exactly one of density and mass (the total mass)")
    if isinstance(spec.shape, list) and not spec.shape:
        raise ValueError("shape: the list of shapes is empty")


def body_shape(spec):
    """(mass, centre of mass in the shape frame (3,), J_c (3, 3), shapes) of a body spec
    with shape (ModelError naming the key for a mesh that cannot be read)."""
    shapes = spec.shape if isinstance(spec.shape, list) else [spec.shape]
    m, c, J = mass_properties(shapes, spec.density, spec.mass)
    return m, c, J, shapes


class _MassOrShape(SpecBase):
    """Mass and inertia, or a shape with a density or mass (the checks both body specs share)."""

    @model_validator(mode="before")
    @classmethod
    def _mass_and_inertia(cls, data):
        return _missing_mass_keys(cls, data)

    @model_validator(mode="after")
    def _mass_or_shape(self):
        _check_shape_keys(self)
        return self


class RigidBody(_MassOrShape):
    """A spatial rigid body (Euler parameters, 7 coordinates)."""

    model_config = ConfigDict(title="Body: rigid")

    name: Optional[Name] = Field(None, description="unique name (letters, digits, _ and -); its outputs are NAME.position, "
                                                   "NAME.velocity, ...")
    type: Literal["rigid"] = Field("rigid", description="rigid (spatial) or planar")
    mass: Optional[float] = Field(None, gt=0, description="mass [kg] (with shape: the total mass, which sets the "
                                                          "density)")
    inertia: Optional[Inertia] = Field(None, description="about the centre of mass in body axes [kg m²]: 3 principal "
                                                         "moments or a 3×3 tensor (not with shape)")
    shape: ShapeField = Field(None, description="instead of inertia: a solid (box, cylinder, tube, sphere, mesh) or "
                                                "a list of them in the body's shape frame, with density or mass; "
                                                "the body's node is their centre of mass")
    density: Optional[float] = Field(None, gt=0, description="with shape: density [kg/m³]")
    position: Vec3 = Field([0.0, 0.0, 0.0], description="initial position of the centre of mass [m] (with shape: "
                                                        "of the shape frame's origin)")
    orientation: Annotated[Optional[Orientation], BeforeValidator(_orientation)] = Field(
        None, description="initial orientation (default: aligned with the global axes)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the centre of mass [m/s]")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    visual: BodyVisualField = Field(None, description="what the body looks like in pictures: a visual shape (box, "
                                                      "cylinder, sphere, capsule, mesh) or a list of them in the body "
                                                      "frame, with colours (default: bars between its joint points, "
                                                      "docs/viewer.md); no effect on the dynamics")
    parameterization: Literal["quaternion", "rotation", "se3", "ancf"] = Field(
        "quaternion", description="quaternion (Euler parameters with their normalisation constraint), rotation "
                                  "(unit quaternion updated by body-frame rotation vectors, no normalisation "
                                  "constraint), se3 (a Lie-group frame, as beam nodes: bodies joined to se3 beam nodes "
                                  "must use se3) or ancf (natural coordinates: the centre of mass and the three body "
                                  "axes with six rigidity constraints, as the nodes of ancf beams: bodies joined to "
                                  "them must use ancf)")

    @field_validator("inertia")
    @classmethod
    def _inertia(cls, v):
        if v is not None:
            check_inertia(v)
        return v



class PlanarBody(_MassOrShape):
    """A planar rigid body moving in the global x-y plane (x, y, θ)."""

    model_config = ConfigDict(title="Body: planar")

    name: Optional[Name] = Field(None, description="unique name")
    type: Literal["planar"] = Field(description="planar")
    mass: Optional[float] = Field(None, gt=0, description="mass [kg] (with shape: the total mass, which sets the "
                                                          "density)")
    inertia: Optional[float] = Field(None, gt=0, description="moment of inertia about the centre of mass, I_z [kg m²] "
                                                             "(not with shape)")
    shape: ShapeField = Field(None, description="instead of inertia: solids in the shape frame (x-y the plane of "
                                                "motion), with density or mass; I_z about their centre of mass, "
                                                "which is the body's node")
    density: Optional[float] = Field(None, gt=0, description="with shape: density [kg/m³]")
    position: Vec2 = Field([0.0, 0.0], description="initial position of the centre of mass [m] (with shape: of the "
                                                   "shape frame's origin)")
    angle: float = Field(0.0, description="initial angle θ of the body x axis from the global x axis [rad]")
    velocity: Vec2 = Field([0.0, 0.0], description="initial velocity [m/s]")
    angular_velocity: float = Field(0.0, description="initial angular velocity θ' [rad/s]")
    visual: BodyVisualField = Field(None, description="what the body looks like in pictures: a visual shape (box, "
                                                      "cylinder, sphere, capsule, mesh) or a list of them in the body "
                                                      "frame, with colours (default: bars between its joint points, "
                                                      "docs/viewer.md); no effect on the dynamics")



#: the inertia group of rigid bodies by node kind
_INERTIA_GROUPS = {SPATIAL: SpatialBodyGroup, PLANAR: PlanarBodyGroup, ROTATION: RotationBodyGroup,
                   SE3: FrameBodyGroup, ANCF: AncfBodyGroup}


def build_rigid_bodies(elements, system):
    """Inertia and weight of the rigid bodies (one group per node kind) and the
    Euler-parameter normalisation of the spatial ones."""
    bodies = [e.nodes[0] for e in elements]
    groups = []
    for kind, cls in _INERTIA_GROUPS.items():
        bs = [b for b in bodies if b.kind == kind and (b.mass > 0 or np.any(b.inertia != 0))]
        if bs:
            groups.append(cls(bs, system.dof_rows(bs, kind), system.config_rows(bs, kind)))
    gravity = system.model.gravity
    if np.any(gravity != 0):
        for kind in system.kinds:
            bs = [b for b in bodies if b.kind == kind and b.mass > 0]
            if bs:
                if kind == PLANAR and gravity[2] != 0:
                    raise ModelError("gravity has a z component, but planar bodies move in the x-y plane")
                groups.append(GravityGroup(kind, bs, system.dof_rows(bs, kind), gravity, system.config_rows(bs, kind)))
    spatial = [b for b in bodies if b.kind == SPATIAL]
    if spatial:
        groups.append(NormalizationGroup(spatial, system.dof_rows(spatial, SPATIAL), system.config_rows(spatial, SPATIAL)))
    natural = [b for b in bodies if b.kind == ANCF]
    if natural:
        groups.append(RigidityGroup(natural, system.dof_rows(natural, ANCF), system.config_rows(natural, ANCF)))
    return groups


def box_half_extents(mass, inertia):
    """Half side lengths and axes (columns, body frame) of the homogeneous box with the
    body's mass and inertia tensor: I_xx = m (b² + c²)/3 ⇒ a² = 3 (I_yy + I_zz − I_xx)/(2 m).

    Sides are clamped below to 2 % of the longest so that a slender rod stays visible.
    """
    J = np.asarray(inertia, dtype=float)
    ev, axes = np.linalg.eigh(0.5 * (J + J.T))
    tr = ev.sum()
    sq = 3.0 / (2.0 * mass) * (tr - 2.0 * ev)
    half = np.sqrt(np.clip(sq, 0.0, None))
    top = half.max() if half.max() > 0 else 1.0
    half = np.maximum(half, 0.02 * top)
    if np.linalg.det(axes) < 0:
        axes[:, 2] *= -1
    return half, axes


def _from_shape(spec, name):
    try:
        return body_shape(spec)
    except ModelError as exc:
        raise ModelError(f"body {name!r}: {exc}", element=name, key="shape") from None


class _BodyType(ElementType):
    section = "bodies"
    noun = "body"
    builder = staticmethod(build_rigid_bodies)

    def create(self, model, spec):
        name = model.new_name(spec.name, "body")
        node = self.node(model, spec, name)
        model.add_node(node)
        return Element(self.name, name, (node,), {}, spec.model_copy(update={"name": name}), nodes=(node,))

    def added(self, model, element):
        return element.nodes[0]

    def dump(self, element):
        out = element.spec.model_dump(mode="python", exclude_defaults=True)
        return {"name": out.pop("name"), **out}


@register
class RigidBodyType(_BodyType):
    """A spatial rigid body; its frame origin is the centre of mass."""

    name = "rigid"
    Spec = RigidBody

    def node_boxes(self, element):
        """The homogeneous box with the body's mass and inertia."""
        b = element.nodes[0]
        if b.shape is not None and len(b.shape) == 1 and isinstance(b.shape[0], BoxShape):
            return [(b, 0.5 * np.array(b.shape[0].size), b.shape[0].rotation_matrix())]   # the box itself
        return [(b, *box_half_extents(b.mass, b.inertia))]

    def node(self, model, spec, name):
        p = np.array([1.0, 0, 0, 0]) if spec.orientation is None else spec.orientation.quaternion_value()
        kind = {"quaternion": SPATIAL, "rotation": ROTATION, "se3": SE3, "ancf": ANCF}[spec.parameterization]
        x = np.array(spec.position, dtype=float)
        shapes = origin = None
        if spec.shape is None:
            mass, J = float(spec.mass), check_inertia(spec.inertia)
        else:
            mass, c, J, shapes = _from_shape(spec, name)
            x = x + rotation_matrix(p) @ c                      # the node is the centre of mass
            origin = -c
        return Body(name, kind, mass, J, x, p, np.array(spec.velocity, dtype=float),
                    np.array(spec.angular_velocity, dtype=float), shape=shapes, shape_origin=origin)


@register
class PlanarBodyType(_BodyType):
    """A planar rigid body in the x-y plane, q = [x, y, θ]."""

    name = "planar"
    Spec = PlanarBody

    def node_boxes(self, element):
        """A square plate in x-y with I_z = m (a² + b²)/3."""
        b = element.nodes[0]
        s = np.sqrt(1.5 * float(b.inertia[2, 2]) / b.mass)
        return [(b, np.array([s, s, 0.1 * s]), np.eye(3))]

    def node(self, model, spec, name):
        if model.gravity[2] != 0:
            raise ModelError(f"body {name!r}: planar bodies move in the x-y plane, so gravity must have no z "
                             "component", element=None, key=("gravity",))
        x = np.r_[np.array(spec.position, float), 0.0]
        shapes = origin = None
        if spec.shape is None:
            mass, Iz = float(spec.mass), float(spec.inertia)
        else:
            mass, c, J, shapes = _from_shape(spec, name)
            Iz = float(J[2, 2])                                  # about the centre of mass, normal to the plane
            cs, sn = np.cos(spec.angle), np.sin(spec.angle)
            x[:2] += np.array([[cs, -sn], [sn, cs]]) @ c[:2]      # the node is the centre of mass
            origin = -np.r_[c[:2], 0.0]
        return Body(name, PLANAR, mass, np.diag([Iz, Iz, Iz]), x, np.array([float(spec.angle)]),
                    np.r_[np.array(spec.velocity, float), 0.0], np.array([0.0, 0.0, float(spec.angular_velocity)]),
                    shape=shapes, shape_origin=origin)
