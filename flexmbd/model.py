"""The user-facing model: add bodies, joints, drivers, force elements; then freeze.

    m = Model(gravity=(0, 0, -9.81))
    crank = m.rigid_body("crank", mass=50, inertia=(15, 15, 0.02), position=..., orientation=...)
    m.revolute(GROUND, crank, at=(0, 0, 0), axis=(0, 0, 1))
    m.spring_damper(crank, link, k=2e4, c=1e3)
    res = m.simulate(t_end=1.0, h=1e-2)

Everything is placed in global coordinates in the initial configuration; local marker
vectors are computed when the model is frozen into a :class:`~flexmbd.system.System`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .bodies.rigid import GROUND, Body, Ground
from .kinds import FrameKind, PlanarKind, RotationKind, SpatialKind
from .rotations import quaternion_from_axis_angle, quaternion_from_matrix, rotation_matrix
from .timefunctions import ConstantSpeed, as_time_function


class ModelError(ValueError):
    """Invalid model input; the message names the offending item."""


def _vec(x, n, what):
    try:
        a = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError(f"{what}: expected {n} numbers, got {x!r}") from None
    if a.size != n or not np.all(np.isfinite(a)):
        raise ModelError(f"{what}: expected {n} finite numbers, got {x!r}")
    return a


def _unit(x, what):
    a = _vec(x, 3, what)
    n = np.linalg.norm(a)
    if n < 1e-12:
        raise ModelError(f"{what}: axis has zero length")
    return a / n


@dataclass
class ElementSpec:
    """A joint, driver or force element as the user described it."""

    kind: str
    name: str
    bodies: tuple
    data: dict = field(default_factory=dict)


class Model:
    def __init__(self, gravity=(0.0, 0.0, 0.0), name: str = "model"):
        self.name = name
        self.gravity = _vec(gravity, 3, "gravity")
        self.bodies: list[Body] = []
        self.elements: list[ElementSpec] = []
        self._names: set[str] = set()

    # ------------------------------------------------------------ naming
    def _name(self, name, prefix):
        if name is None:
            i = 1
            while f"{prefix}{i}" in self._names:
                i += 1
            name = f"{prefix}{i}"
        if not isinstance(name, str) or not name:
            raise ModelError(f"{prefix}: name must be a non-empty string, got {name!r}")
        if name in self._names:
            raise ModelError(f"name {name!r} is used twice; every body and element needs its own name")
        return name

    def _body(self, b, what):
        if b is GROUND or isinstance(b, Ground) or b == "ground":
            return GROUND
        if isinstance(b, str):
            for body in self.bodies:
                if body.name == b:
                    return body
            raise ModelError(f"{what}: no body named {b!r} (bodies: {[x.name for x in self.bodies]})")
        if isinstance(b, Body) and b in self.bodies:
            return b
        raise ModelError(f"{what}: {b!r} is not a body of this model")

    def body(self, name: str) -> Body:
        return self._body(name, "body lookup")

    # ------------------------------------------------------------ bodies
    def rigid_body(self, name=None, *, mass, inertia, position=(0, 0, 0), orientation=None,
                   velocity=(0, 0, 0), angular_velocity=(0, 0, 0), parameterization="quaternion") -> Body:
        """A spatial rigid body.

        ``inertia``: principal moments (3,) or the 3×3 tensor about the centre of mass in
        body axes; ``orientation``: 3×3 rotation matrix or Euler parameters (4,).
        ``parameterization``: ``"quaternion"`` (default; P1's Euler parameters in R⁴ with the
        normalisation constraint, kind ``spatial``) or ``"rotation"`` (unit quaternion
        updated multiplicatively by body-frame rotation-vector increments, velocities
        [Ṙ, Ω] with Ω in body axes, no normalisation constraint; kind ``spatial-lie``) or
        ``"se3"`` (a frame on SE(3): body-frame twist velocities (U, Ω) and increments
        H exp(Δ); kind ``se3``, the kind of beam nodes — use it for bodies joined to beams).
        Joints and force elements connect bodies of the same kind only.
        """
        kinds = {"quaternion": SpatialKind, "rotation": RotationKind, "se3": FrameKind}
        if parameterization not in kinds:
            raise ModelError(f"parameterization must be 'quaternion', 'rotation' or 'se3', got {parameterization!r}")
        name = self._name(name, "body")
        what = f"body {name!r}"
        mass = float(mass)
        if not np.isfinite(mass) or mass <= 0:
            raise ModelError(f"{what}: mass must be positive, got {mass}")
        J = _inertia_tensor(inertia, what)
        if orientation is None:
            p = np.array([1.0, 0, 0, 0])
        else:
            o = np.asarray(orientation, dtype=float)
            if o.shape == (3, 3):
                if not np.allclose(o @ o.T, np.eye(3), atol=1e-9) or np.linalg.det(o) < 0:
                    raise ModelError(f"{what}: orientation is not a proper rotation matrix")
                p = quaternion_from_matrix(o)
            elif o.shape == (4,):
                if np.linalg.norm(o) < 1e-12:
                    raise ModelError(f"{what}: orientation quaternion has zero length")
                p = o / np.linalg.norm(o)
            else:
                raise ModelError(f"{what}: orientation must be a 3×3 matrix or 4 Euler parameters")
        b = Body(name, kinds[parameterization], mass, J, _vec(position, 3, f"{what} position"), p,
                 _vec(velocity, 3, f"{what} velocity"), _vec(angular_velocity, 3, f"{what} angular_velocity"))
        b.index = len(self.bodies)
        self.bodies.append(b)
        self._names.add(b.name)
        return b

    def planar_body(self, name=None, *, mass, inertia, position=(0, 0), angle=0.0,
                    velocity=(0, 0), angular_velocity=0.0) -> Body:
        """A planar rigid body in the x-y plane, q = [x, y, θ]; ``inertia`` = I_z."""
        name = self._name(name, "body")
        what = f"body {name!r}"
        mass, Iz = float(mass), float(inertia)
        if not np.isfinite(mass) or mass <= 0:
            raise ModelError(f"{what}: mass must be positive, got {mass}")
        if not np.isfinite(Iz) or Iz <= 0:
            raise ModelError(f"{what}: inertia I_z must be positive, got {Iz}")
        b = Body(name, PlanarKind, mass, np.diag([Iz, Iz, Iz]),
                 np.r_[_vec(position, 2, f"{what} position"), 0.0],
                 np.array([float(angle)]),
                 np.r_[_vec(velocity, 2, f"{what} velocity"), 0.0],
                 np.array([0.0, 0.0, float(angular_velocity)]))
        b.index = len(self.bodies)
        self.bodies.append(b)
        self._names.add(b.name)
        return b

    # ------------------------------------------------------------ joints
    def _pair(self, kind, i, j, name, prefix, **data):
        name = self._name(name, prefix)
        bi, bj = self._body(i, f"{prefix} {name!r}"), self._body(j, f"{prefix} {name!r}")
        if bi is bj:
            raise ModelError(f"{prefix} {name!r} connects a body to itself")
        e = ElementSpec(kind, name, (bi, bj), data)
        self.elements.append(e)
        self._names.add(e.name)
        return e

    def spherical(self, i, j, at, name=None):
        return self._pair("spherical", i, j, name, "spherical", at=_vec3(at, _what("spherical", name, "at")))

    def revolute(self, i, j, at, axis=(0, 0, 1), name=None):
        return self._pair("revolute", i, j, name, "revolute", at=_vec3(at, _what("revolute", name, "at")),
                          axis=_unit(axis, _what("revolute", name, "axis")))

    def prismatic(self, i, j, at, axis, name=None):
        return self._pair("prismatic", i, j, name, "prismatic", at=_vec3(at, _what("prismatic", name, "at")),
                          axis=_unit(axis, _what("prismatic", name, "axis")))

    def cylindrical(self, i, j, at, axis, name=None):
        return self._pair("cylindrical", i, j, name, "cylindrical", at=_vec3(at, _what("cylindrical", name, "at")),
                          axis=_unit(axis, _what("cylindrical", name, "axis")))

    def universal(self, i, j, at, axis_i, axis_j, name=None):
        ai, aj = _unit(axis_i, _what("universal", name, "axis_i")), _unit(axis_j, _what("universal", name, "axis_j"))
        if abs(ai @ aj) > 1e-9:
            raise ModelError("universal joint: axis_i and axis_j must be perpendicular")
        return self._pair("universal", i, j, name, "universal", at=_vec3(at, "at"), axis_i=ai, axis_j=aj)

    def fixed(self, i, j, at=None, name=None):
        return self._pair("fixed", i, j, name, "fixed", at=None if at is None else _vec3(at, "at"))

    def point_on_line(self, i, j, at, axis, name=None):
        return self._pair("point_on_line", i, j, name, "point_on_line", at=_vec3(at, _what("point_on_line", name, "at")),
                          axis=_unit(axis, _what("point_on_line", name, "axis")))

    def point_in_plane(self, i, j, at, normal, name=None):
        return self._pair("point_in_plane", i, j, name, "point_in_plane", at=_vec3(at, _what("point_in_plane", name, "at")),
                          normal=_unit(normal, _what("point_in_plane", name, "normal")))

    def distance(self, i, j, at_i, at_j, length=None, name=None):
        a, b = _vec3(at_i, "at_i"), _vec3(at_j, "at_j")
        L = float(np.linalg.norm(b - a)) if length is None else float(length)
        if L <= 0:
            raise ModelError("distance constraint: length must be positive (a zero distance is a spherical joint)")
        return self._pair("distance", i, j, name, "distance", at_i=a, at_j=b, length=L)

    # ----------------------------------------------------------- drivers
    def rotation_driver(self, i, j, axis=(0, 0, 1), angle=None, speed=None, name=None):
        """Prescribe the angle of j relative to i about ``axis`` (from the initial pose).

        Give ``angle`` (number, TimeFunction or callable of t) or a constant ``speed``.
        The multiplier is reported as the driving torque.
        """
        fn = _driver_function(angle, speed, "rotation_driver")
        return self._pair("rotation_driver", i, j, name, "rotation_driver",
                          axis=_unit(axis, _what("rotation_driver", name, "axis")), function=fn)

    def translation_driver(self, i, j, at, axis, displacement=None, speed=None, name=None):
        """Prescribe the displacement of j's point (initially at ``at``) along i's ``axis``."""
        fn = _driver_function(displacement, speed, "translation_driver")
        return self._pair("translation_driver", i, j, name, "translation_driver",
                          at=_vec3(at, _what("translation_driver", name, "at")),
                          axis=_unit(axis, _what("translation_driver", name, "axis")), function=fn)

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
        name = self._name(name, "spring_damper")
        what = f"spring_damper {name!r}"
        bi, bj = self._body(i, what), self._body(j, what)
        # ground has no centre of mass: its default point is the origin
        pi = getattr(bi, "position", np.zeros(3)) if at_i is None else _vec3(at_i, f"{what} at_i")
        pj = getattr(bj, "position", np.zeros(3)) if at_j is None else _vec3(at_j, f"{what} at_j")
        L = np.linalg.norm(pj - pi)
        if L < 1e-12:
            raise ModelError(f"{what}: the two attachment points coincide; its direction is undefined")
        k, c = float(k), float(c)
        if k < 0 or c < 0:
            raise ModelError(f"{what}: k and c must be non-negative (got k={k}, c={c})")
        if law is not None and not callable(law):
            raise ModelError(f"{what}: law must be a callable law(delta, delta_rate)")
        l0 = L if rest_length is None else float(rest_length)
        if l0 < 0:
            raise ModelError(f"{what}: rest_length must be non-negative")
        e = ElementSpec("spring_damper", name, (bi, bj), dict(at_i=pi, at_j=pj, k=k, c=c, rest_length=l0,
                        actuator=as_time_function(actuator), tension_only=bool(tension_only), law=law))
        self.elements.append(e)
        self._names.add(e.name)
        return e

    def rotational_spring_damper(self, i, j, axis=(0, 0, 1), k=0.0, c=0.0, angle0=0.0, actuator=0.0, name=None):
        """A torsional spring-damper-actuator about a revolute ``axis`` between i and j.

        Torque on j about +axis (reaction on i): T = −k (θ − θ0) − c θ' + τ_a(t), θ the
        angle of j relative to i from the initial configuration (exact for |θ − θ0| < π;
        see :mod:`flexmbd.forces.rotational_spring`).  Pair it with a revolute joint.
        """
        k, c = float(k), float(c)
        what = f"rotational_spring_damper {name!r}" if name is not None else "rotational_spring_damper"
        if not (np.isfinite(k) and np.isfinite(c)) or k < 0 or c < 0:
            raise ModelError(f"{what}: k and c must be finite and non-negative (got k={k}, c={c})")
        a = _unit(axis, f"{what} axis")
        planar = [b for b in (self._body(i, what), self._body(j, what)) if b is not GROUND and b.kind is PlanarKind]
        if planar and abs(abs(a[2]) - 1) > 1e-12:
            raise ModelError(f"{what}: planar bodies rotate about z; axis must be (0, 0, ±1)")
        return self._pair("rotational_spring_damper", i, j, name, "rotational_spring_damper", axis=a, k=k, c=c,
                          angle0=float(angle0), actuator=as_time_function(actuator))

    def force(self, body, force, at=None, body_fixed=False, scale=1.0, name=None):
        """A point force (global components, or body-fixed if ``body_fixed``) times scale(t)."""
        name = self._name(name, "force")
        b = self._body(body, f"force {name!r}")
        if b is GROUND:
            raise ModelError(f"force {name!r}: a force on ground does nothing")
        e = ElementSpec("force", name, (b,), dict(force=_vec3(force, f"force {name!r}"),
                        at=b.position.copy() if at is None else _vec3(at, "at"), body_fixed=bool(body_fixed),
                        scale=as_time_function(scale)))
        self.elements.append(e)
        self._names.add(e.name)
        return e

    def torque(self, body, torque, body_fixed=False, scale=1.0, name=None):
        name = self._name(name, "torque")
        b = self._body(body, f"torque {name!r}")
        if b is GROUND:
            raise ModelError(f"torque {name!r}: a torque on ground does nothing")
        e = ElementSpec("torque", name, (b,), dict(torque=_vec3(torque, f"torque {name!r}"),
                        body_fixed=bool(body_fixed), scale=as_time_function(scale)))
        self.elements.append(e)
        self._names.add(e.name)
        return e

    def beam(self, name=None, *, section, elements, geometry=None, start=None, end=None, e2=None, order=1,
             formulation="se3", integration: str | None = None, interpolation="lagrange"):
        """A geometrically exact beam of ``elements`` elements on SE(3) nodes
        (``formulation="se3"``) or on R³×R³ nodes (``formulation="r3r3"``: positions and
        total rotation vectors, two-node elements only; see docs/elements/beam-r3r3.md).

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
        ``order`` ≥ 2, one element per knot span, nodes = control frames).  Returns a :class:`~flexmbd.beams.builder.Beam`
        whose nodes (``beam.node(i)``, ``beam.first``, ``beam.last``) take joints and loads.
        """
        from .beams.builder import add_beam

        return add_beam(self, name, section, elements, geometry, start, end, e2, order, formulation, integration,
                        interpolation)

    def marker(self, body, at, name=None):
        """A named point fixed on a body (given in global coordinates in the initial
        configuration); results report ``<name>.position`` and ``<name>.velocity``."""
        name = self._name(name, "marker")
        b = self._body(body, f"marker {name!r}")
        if b is GROUND:
            raise ModelError(f"marker {name!r}: a marker on ground does not move; use a constant instead")
        e = ElementSpec("marker", name, (b,), dict(at=_vec3(at, f"marker {name!r} at")))
        self.elements.append(e)
        self._names.add(e.name)
        return e

    def element(self, name):
        for e in self.elements:
            if e.name == name:
                return e
        raise KeyError(f"no element named {name!r}")

    # ------------------------------------------------------------ solving
    def freeze(self, **options):
        """Fix the coordinate layout and sparsity pattern: a :class:`~flexmbd.system.System`."""
        from .system import System

        return System(self, **options)

    def simulate(self, t_end, h, **options):
        """Integrate the equations of motion; see :func:`flexmbd.solvers.dynamics.simulate`."""
        from .solvers.dynamics import simulate

        return simulate(self, t_end=t_end, h=h, **options)

    def static_equilibrium(self, **options):
        from .solvers.static import static_equilibrium

        return static_equilibrium(self, **options)

    def kinematics(self, times, **options):
        """Kinematic analysis of a fully driven mechanism; see :func:`flexmbd.solvers.kinematics.kinematic_analysis`."""
        from .solvers.kinematics import kinematic_analysis

        return kinematic_analysis(self, times, **options)


def _what(kind, name, field):
    """Label of an input field in error messages: "revolute 'hinge' axis"."""
    return f"{kind} {name!r} {field}" if name is not None else f"{kind} {field}"


def _vec3(x, what):
    a = np.asarray(x, dtype=float).reshape(-1)
    if a.size == 2:
        a = np.r_[a, 0.0]
    return _vec(a, 3, what)


def _inertia_tensor(inertia, what):
    a = np.asarray(inertia, dtype=float)
    if a.shape == (3,):
        J = np.diag(a)
    elif a.shape == (3, 3):
        J = a
    else:
        raise ModelError(f"{what}: inertia must be 3 principal moments or a 3×3 tensor")
    if not np.all(np.isfinite(J)) or not np.allclose(J, J.T, rtol=1e-12, atol=1e-14 * np.abs(J).max()):
        raise ModelError(f"{what}: inertia tensor must be symmetric and finite")
    ev = np.linalg.eigvalsh(J)
    if ev[0] <= 0:
        raise ModelError(f"{what}: inertia must be positive definite (principal moments {ev})")
    if ev[0] + ev[1] < ev[2] * (1 - 1e-9):
        raise ModelError(f"{what}: principal moments {ev} violate the triangle inequality I1 + I2 ≥ I3")
    return J


def _driver_function(value, speed, what):
    if (value is None) == (speed is None):
        raise ModelError(f"{what}: give exactly one of the prescribed value (function of t) or a constant speed")
    return ConstantSpeed(float(speed)) if speed is not None else as_time_function(value)


def body_rotation(body) -> np.ndarray:
    """Initial rotation matrix of a body (identity for ground)."""
    if body is GROUND:
        return np.eye(3)
    if body.kind is not PlanarKind:
        return rotation_matrix(body.orientation)
    c, s = np.cos(body.orientation[0]), np.sin(body.orientation[0])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def body_position(body) -> np.ndarray:
    return np.zeros(3) if body is GROUND else body.position


__all__ = ["Model", "ModelError", "GROUND", "quaternion_from_axis_angle"]
