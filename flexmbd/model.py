"""The user-facing model: add bodies, joints, drivers, force elements; then freeze.

    m = Model(gravity=(0, 0, -9.81))
    crank = m.rigid_body("crank", mass=50, inertia=(15, 15, 0.02), position=..., orientation=...)
    m.revolute(GROUND, crank, at=(0, 0, 0), axis=(0, 0, 1))
    m.spring_damper(crank, link, k=2e4, c=1e3)
    res = m.simulate(t_end=1.0, h=1e-2)

Everything is placed in global coordinates in the initial configuration; local marker
vectors are computed when the model is frozen into a :class:`~flexmbd.system.System`.

Every element type is declared in its own module (:mod:`flexmbd.registry`); the methods
here are thin sugar that validate their arguments with the type's specification and
:meth:`Model.add` the element.  ``Model.add(type_name, ...)`` or ``Model.add(spec)`` adds
any registered type, and every registered type without a method here is reachable as
``model.<type name>(body_i, body_j, **keys)`` too.
"""
from __future__ import annotations

import difflib
from typing import Any

import numpy as np

from .bodies.rigid import Body
from .errors import ModelError
from .ground import GROUND, Ground
from .registry import Element, element_type
from .rotations import quaternion_from_axis_angle
from .services import service
from .spec import SpecBase, validate, Vec3


class _Settings(SpecBase):
    gravity: Vec3


class Model:
    """A multibody model: nodes (``bodies``: rigid bodies and beam nodes) and ``elements``
    (bodies, beams, joints, drivers, force elements, markers, in the order added)."""

    def __init__(self, gravity=(0.0, 0.0, 0.0), name: str = "model"):
        self.name = name
        self.gravity = np.asarray(validate(_Settings, {"gravity": gravity}, "model").gravity, dtype=float)
        self.bodies: list[Body] = []
        self.elements: list[Element] = []
        self._names: set[str] = set()
        #: visuals set with :meth:`set_visual` (body name → visual shapes)
        self.visuals: dict = {}

    # ------------------------------------------------------------ naming
    def new_name(self, name: str | None, prefix: str) -> str:
        """``name``, or the next free "<prefix><number>"; ModelError if it is taken."""
        if name is None:
            i = 1
            while f"{prefix}{i}" in self._names:
                i += 1
            name = f"{prefix}{i}"
        if not isinstance(name, str) or not name:
            raise ModelError(f"{prefix}: name must be a non-empty string, got {name!r}")
        if name == "ground":  # the model file's rule and words
            raise ModelError("'ground' is reserved for the fixed frame; choose another name", element=name, key="name")
        if name in self._names:
            raise ModelError(f"name {name!r} is used twice; every body and element needs its own name",
                             element=name, key="name")
        return name

    def add_node(self, body: Body) -> Body:
        """Give a node (a rigid body, a beam node) its index and coordinates in this model."""
        body.index = len(self.bodies)
        self.bodies.append(body)
        self._names.add(body.name)
        return body

    def resolve_body(self, ref: Any, what: str = "body lookup", key: str | None = None):
        """The body a reference names: GROUND or "ground", a body of this model or its name,
        or an owned node's alias ("rod.first", "rod.last")."""
        if ref is GROUND or isinstance(ref, Ground) or ref == "ground":
            return GROUND
        if isinstance(ref, Body):
            if ref in self.bodies:
                return ref
            raise ModelError(f"{what}: {ref!r} is not a body of this model", key=key)
        if isinstance(ref, str):
            for body in self.bodies:
                if body.name == ref:
                    return body
            owner, dot, alias = ref.rpartition(".")
            for e in self.elements:
                if len(e.nodes) > 1 and e.name == owner and dot:
                    node = e.type.node_aliases(e).get(alias)
                    if node is not None:
                        return node
                    raise ModelError(f"{what}: no node named {ref!r}: {e.kind} {owner!r} has nodes {e.nodes[0].name} "
                                     f"… {e.nodes[-1].name} (or {owner}.first and {owner}.last)", key=key)
            for e in self.elements:
                if e.nodes and e.name == ref and len(e.nodes) > 1:
                    raise ModelError(f"{what}: {ref!r} is a {e.kind}; name one of its nodes, {e.nodes[0].name} … "
                                     f"{e.nodes[-1].name} (or {ref}.first and {ref}.last)", key=key)
            names = [b.name for b in self.bodies]
            close = difflib.get_close_matches(ref, names + ["ground"], n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ModelError(f"{what}: no body named {ref!r}{hint} (bodies: {_listing(self)}, or ground)", key=key)
        raise ModelError(f"{what}: {ref!r} is not a body of this model", key=key)

    def body(self, name: str) -> Body:
        return self.resolve_body(name)

    @staticmethod
    def body_position(body) -> np.ndarray:
        """Initial position of a body's origin (ground: the origin)."""
        return np.zeros(3) if body is GROUND else np.asarray(body.position, dtype=float)

    def element(self, name: str) -> Element:
        for e in self.elements:
            if e.name == name:
                return e
        raise KeyError(f"no element named {name!r}")

    # ------------------------------------------------------------ adding
    def add(self, item: str | SpecBase, /, **keys):
        """Add an element: ``add("revolute", body_i=a, body_j=b, at=...)`` or
        ``add(spec)`` with a validated specification of any registered type.  Returns what
        the type's sugar returns (the element; a rigid body's :class:`Body`; a beam's
        :class:`~flexmbd.beams.builder.Beam`)."""
        if isinstance(item, str):
            etype = element_type(item)
            spec = etype.validate({k: v for k, v in keys.items() if v is not None or k == "name"}, keys.get("name"))
        elif isinstance(item, SpecBase) and not keys:
            etype = element_type(getattr(item, "type", None) or "")
            spec = item
        else:
            raise TypeError("add(type_name, **keys) or add(spec)")
        element = etype.create(self, spec)
        self.elements.append(element)
        self._names.add(element.name)
        return etype.added(self, element)

    def _add(self, type_name: str, name, **keys):
        return self.add(type_name, name=name, **{k: v for k, v in keys.items() if v is not None})

    def __getattr__(self, attr):
        # registered element types without a method of their own: model.<type>(body_i, body_j, **keys)
        if attr.startswith("_"):
            raise AttributeError(attr)
        from .registry import REGISTRY

        etype = REGISTRY.get(attr)
        if etype is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

        def sugar(*bodies, name=None, **keys):
            if len(bodies) > len(etype.body_fields):
                raise TypeError(f"{attr}() takes {len(etype.body_fields)} bodies ({', '.join(etype.body_fields)})")
            return self._add(attr, name, **dict(zip(etype.body_fields, bodies)), **keys)
        sugar.__doc__ = etype.Spec.__doc__
        sugar.__name__ = attr
        return sugar

    # ------------------------------------------------------------ bodies
    def rigid_body(self, name=None, *, mass=None, inertia=None, position=(0, 0, 0), orientation=None,
                   velocity=(0, 0, 0), angular_velocity=(0, 0, 0), parameterization="quaternion", shape=None,
                   density=None, visual=None) -> Body:
        """A spatial rigid body.

        Either ``mass`` and ``inertia``, or ``shape`` (a solid of ``flexmbd.shapes`` —
        ``Box``, ``Cylinder``, ``Tube``, ``Sphere``, ``Mesh`` — or a list of them) with
        ``density`` (or ``mass``, the total): the body's node is then the shapes' centre of
        mass, ``position`` places the origin of their shape frame (docs/elements/shapes.md).

        ``inertia``: principal moments (3,) or the 3×3 tensor about the centre of mass in
        body axes; ``orientation``: 3×3 rotation matrix or Euler parameters (4,).
        ``parameterization``: ``"quaternion"`` (default; P1's Euler parameters in R⁴ with the
        normalisation constraint, kind ``spatial``) or ``"rotation"`` (unit quaternion
        updated multiplicatively by body-frame rotation-vector increments, velocities
        [Ṙ, Ω] with Ω in body axes, no normalisation constraint; kind ``spatial-lie``) or
        ``"se3"`` (a frame on SE(3): body-frame twist velocities (U, Ω) and increments
        H exp(Δ); kind ``se3``, the kind of beam nodes — use it for bodies joined to beams)
        or ``"ancf"`` (natural coordinates: centre of mass and body axes with six rigidity
        constraints and a constant mass matrix; kind ``ancf`` — use it for bodies joined to
        ANCF beams).  Joints and force elements connect bodies of the same kind only.

        ``visual``: what the body looks like in pictures (``flexmbd.visuals.Box``,
        ``flexmbd.visuals.Cylinder``, ``flexmbd.visuals.Sphere``, ``flexmbd.visuals.Capsule``,
        ``flexmbd.visuals.Mesh``, or a list of them, in the body frame; default: bars between
        its joint points, docs/viewer.md).
        """
        return self._add("rigid", name, mass=mass, inertia=inertia, position=position, orientation=orientation,
                         velocity=velocity, angular_velocity=angular_velocity, parameterization=parameterization,
                         shape=shape, density=density, visual=visual)

    def planar_body(self, name=None, *, mass=None, inertia=None, position=(0, 0), angle=0.0,
                    velocity=(0, 0), angular_velocity=0.0, shape=None, density=None, visual=None) -> Body:
        """A planar rigid body in the x-y plane, q = [x, y, θ]; ``inertia`` = I_z, or
        ``shape`` with ``density`` (or ``mass``) as for :meth:`rigid_body` (I_z of the
        shapes about their centre of mass, the body's node)."""
        return self._add("planar", name, mass=mass, inertia=inertia, position=position, angle=angle,
                         velocity=velocity, angular_velocity=angular_velocity, shape=shape, density=density,
                         visual=visual)

    def beam(self, name=None, *, section, elements, geometry=None, start=None, end=None, e2=None, order=1,
             formulation="se3", integration: str | None = None, interpolation="lagrange", velocity=(0, 0, 0),
             angular_velocity=(0, 0, 0), about=None, bending=None, locking=None, visual=None):
        """A beam of ``elements`` elements: geometrically exact on SE(3) nodes
        (``formulation="se3"``) or on R³×R³ nodes (``formulation="r3r3"``: positions and
        total rotation vectors, two-node elements only; see docs/elements/beam-r3r3.md), or
        an ANCF cable (``formulation="ancf-cable"``: positions and slopes, cubic Hermite
        elements, no shear or torsion; ``bending`` "curvature" (default) or "linear";
        docs/elements/beam-ancf-cable.md), or a fully parameterized ANCF beam
        (``formulation="ancf"``: positions and three gradients per node, continuum elastic
        forces; ``locking`` "strain-split" (default) or "plain"; docs/elements/beam-ancf.md).
        Formulations are plug-ins
        (:mod:`flexmbd.beams.formulations`).

        ``geometry``: the stress-free reference curve (``flexmbd.beams.StraightLine``,
        ``CircularArc``, ``NurbsReference``), or ``start`` and ``end`` points (with
        ``e2``, the section's second axis) for a straight beam.  ``section``: a
        ``flexmbd.beams.Section``.  ``integration`` of the elastic forces: "full" (order + 1
        Gauss points), "reduced" (order points) or "hw" (Hu-Washizu, constant assumed shear
        strain; first order only); default (None) the one that does not lock, by element
        (``flexmbd.beams.builder.default_integration``): "reduced" for order ≥ 2 and for R³×R³,
        "full" for first-order SE(3), whose strain is constant so that every rule agrees.
        ``interpolation``: "lagrange"
        (``order`` 1, 2, 3 …: order + 1 nodes per element) or "nurbs" (isogeometric, degree
        ``order`` ≥ 2, one element per knot span, nodes = control frames).  ``velocity`` (of
        the point ``about``, default the first node) and ``angular_velocity`` (global) start
        the beam in a rigid motion: node velocities v + ω × (x − about).  Returns a
        :class:`~flexmbd.beams.builder.Beam` whose nodes (``beam.node(i)``, ``beam.first``,
        ``beam.last``) take joints and loads.
        """
        return self._add("beam", name, section=section, elements=elements, geometry=geometry, start=start, end=end,
                         e2=e2, order=order, formulation=formulation, integration=integration,
                         interpolation=interpolation, velocity=velocity, angular_velocity=angular_velocity,
                         about=about, bending=bending, locking=locking, visual=visual)

    def set_visual(self, body, visual) -> None:
        """Replace what a body looks like in pictures: a visual shape of
        :mod:`flexmbd.visuals` or a list of them, in the body frame (no effect on the dynamics)."""
        from .visuals import VisualShape

        from pydantic import TypeAdapter, ValidationError

        b = self.resolve_body(body, "set_visual")
        shapes = visual if isinstance(visual, (list, tuple)) else [visual]
        try:
            shapes = [TypeAdapter(VisualShape).validate_python(v) for v in shapes]
        except ValidationError as exc:
            raise ModelError(f"set_visual({b.name!r}): {exc.errors()[0]['msg']}", element=b.name, key="visual") from None
        self.visuals[b.name] = shapes

    # ------------------------------------------------------------ joints
    def spherical(self, i, j, at, name=None):
        return self._add("spherical", name, body_i=i, body_j=j, at=at)

    def revolute(self, i, j, at, axis=(0, 0, 1), name=None):
        return self._add("revolute", name, body_i=i, body_j=j, at=at, axis=axis)

    def prismatic(self, i, j, at, axis, name=None):
        return self._add("prismatic", name, body_i=i, body_j=j, at=at, axis=axis)

    def cylindrical(self, i, j, at, axis, name=None):
        return self._add("cylindrical", name, body_i=i, body_j=j, at=at, axis=axis)

    def universal(self, i, j, at, axis_i, axis_j, name=None):
        return self._add("universal", name, body_i=i, body_j=j, at=at, axis_i=axis_i, axis_j=axis_j)

    def fixed(self, i, j, at=None, name=None):
        return self._add("fixed", name, body_i=i, body_j=j, at=at)

    def point_on_line(self, i, j, at, axis, name=None):
        return self._add("point_on_line", name, body_i=i, body_j=j, at=at, axis=axis)

    def point_in_plane(self, i, j, at, normal, name=None):
        return self._add("point_in_plane", name, body_i=i, body_j=j, at=at, normal=normal)

    def distance(self, i, j, at_i, at_j, length=None, name=None):
        return self._add("distance", name, body_i=i, body_j=j, at_i=at_i, at_j=at_j, length=length)

    # ----------------------------------------------------------- drivers
    def rotation_driver(self, i, j, axis=(0, 0, 1), angle=None, speed=None, name=None, at=None):
        """Prescribe the angle of j relative to i about ``axis`` (from the initial pose).

        Give ``angle`` (number, TimeFunction or callable of t) or a constant ``speed``.
        The multiplier is reported as the driving torque.  ``at``: where it acts (on a
        modal beam the axes then turn with the section there).
        """
        return self._add("rotation_driver", name, body_i=i, body_j=j, axis=axis, angle=angle, speed=speed, at=at)

    def translation_driver(self, i, j, at, axis, displacement=None, speed=None, name=None):
        """Prescribe the displacement of j's point (initially at ``at``) along i's ``axis``."""
        return self._add("translation_driver", name, body_i=i, body_j=j, at=at, axis=axis,
                         displacement=displacement, speed=speed)

    # ------------------------------------------------------------ forces
    def spring_damper(self, i, j, at_i=None, at_j=None, *, k=0.0, c=0.0, rest_length=None,
                      actuator=0.0, tension_only=False, law=None, name=None):
        """The spring-damper-actuator of P1 between a point of i and a point of j.

        F = k (l − l0) + c l' + f_a(t) (tension positive), or ``law(δ, δ')`` + f_a(t) for a
        non-linear element (a callable of two floats; give it a ``derivatives(δ, δ')``
        method returning (F, ∂F/∂δ, ∂F/∂δ') for exact derivatives, otherwise they are
        taken by central differences).
        Points default to the bodies' centres of mass; ``rest_length`` to the initial
        length; ``tension_only`` makes a cable.
        """
        return self._add("spring_damper", name, body_i=i, body_j=j, at_i=at_i, at_j=at_j, k=k, c=c,
                         rest_length=rest_length, actuator=actuator, tension_only=tension_only, law=law)

    def rotational_spring_damper(self, i, j, axis=(0, 0, 1), k=0.0, c=0.0, angle0=0.0, actuator=0.0, name=None):
        """A torsional spring-damper-actuator about a revolute ``axis`` between i and j.

        Torque on j about +axis (reaction on i): T = −k (θ − θ0) − c θ' + τ_a(t), θ the
        angle of j relative to i from the initial configuration (exact for |θ − θ0| < π;
        see :mod:`flexmbd.forces.rotational_spring`).  Pair it with a revolute joint.
        """
        return self._add("rotational_spring_damper", name, body_i=i, body_j=j, axis=axis, k=k, c=c, angle0=angle0,
                         actuator=actuator)

    def force(self, body, force, at=None, body_fixed=False, scale=1.0, name=None):
        """A point force (global components, or body-fixed if ``body_fixed``) times scale(t)."""
        return self._add("force", name, body=body, force=force, at=at, body_fixed=body_fixed, scale=scale)

    def torque(self, body, torque, body_fixed=False, scale=1.0, name=None):
        """A torque (global components, or body-fixed if ``body_fixed``) times scale(t)."""
        return self._add("torque", name, body=body, torque=torque, body_fixed=body_fixed, scale=scale)

    def marker(self, body, at, name=None):
        """A named point fixed on a body (given in global coordinates in the initial
        configuration); results report ``<name>.position`` and ``<name>.velocity``."""
        return self._add("marker", name, body=body, at=at)

    # ------------------------------------------------------------ solving
    def freeze(self, **options):
        """Fix the coordinate layout and sparsity pattern: a :class:`~flexmbd.system.System`."""
        return service("freeze")(self, **options)

    def simulate(self, t_end=None, h=None, **options):
        """Integrate the equations of motion; see :func:`flexmbd.solvers.dynamics.simulate`
        (the settings: keyword arguments, or ``settings=DynamicSettings(...)``)."""
        return service("simulate")(self, t_end=t_end, h=h, **options)

    def static_equilibrium(self, **options):
        """Static equilibrium by load stepping; see :func:`flexmbd.solvers.static.static_equilibrium`."""
        return service("static_equilibrium")(self, **options)

    def kinematics(self, times, **options):
        """Kinematic analysis of a fully driven mechanism; see :func:`flexmbd.solvers.kinematics.kinematic_analysis`."""
        return service("kinematics")(self, times, **options)


def _listing(model) -> str:
    rigid = [b.name for b in model.bodies if b.mass > 0]
    owned = [f"{e.nodes[0].name} … {e.nodes[-1].name}" for e in model.elements if len(e.nodes) > 1]
    return ", ".join(rigid + owned) or "none"


def body_rotation(body) -> np.ndarray:
    """Initial rotation matrix of a body (identity for ground)."""
    if body is GROUND:
        return np.eye(3)
    return body.kind.orientation_matrix(np.asarray(body.orientation, dtype=float)[None])[0]


def body_position(body) -> np.ndarray:
    return np.zeros(3) if body is GROUND else body.position


__all__ = ["Model", "ModelError", "GROUND", "quaternion_from_axis_angle"]
