"""Rigid bodies from shapes: mass, centre of mass and inertia tensor of solids of uniform density.

A shape is a box, cylinder, sphere, tube or triangle mesh (STL/OBJ, through the optional
``trimesh`` package: ``pip install flexmbd[shapes]``), placed in the body's shape frame by
``offset`` (its centre, or a mesh's own origin) and ``rotation``.  A body may be made of
several shapes (their volumes must not overlap; each shape's density is the body's).
With density ρ (or the body's total mass, which sets ρ = m / V) the solids give

    m = Σ ρ V_k,   c = Σ m_k c_k / m,
    J_c = Σ [R_k J_k R_kᵀ + m_k ((d_k·d_k) I − d_k d_kᵀ)],   d_k = c_k − c,

J_k being shape k's inertia tensor about its own centroid in its own axes (Steiner's
parallel-axis theorem moves it to the common centre of mass):

    box a × b × c:   J = m/12 diag(b² + c², a² + c², a² + b²)
    cylinder R, L:   J_axis = m R²/2,          J_⊥ = m (3R² + L²)/12
    tube R_o, R_i:   J_axis = m (R_o² + R_i²)/2, J_⊥ = m (3(R_o² + R_i²) + L²)/12
    sphere R:        J = 2 m R²/5
    mesh:            the divergence-theorem integrals of the closed triangle mesh (trimesh).

A rigid body's node is its centre of mass (:class:`~flexmbd.bodies.rigid.Body`), so a body
from shapes puts its node at c, in the body axes of the shape frame.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, model_validator
from pydantic_core import PydanticCustomError

from ..errors import ModelError
from ..lie import quat_from_matrix
from ..rotations import quaternion_from_axis_angle, rotation_matrix
from ..spec import Axis, Mat3, SpecBase, Vec3, Vec4


class Orientation(SpecBase):
    """Initial orientation of a rigid body: exactly one of ``matrix``, ``quaternion``,
    or ``axis`` with ``angle``."""

    model_config = ConfigDict(title="Orientation")

    matrix: Optional[Mat3] = Field(None, description="3×3 rotation matrix, rows; columns are the body axes in global coordinates")
    quaternion: Optional[Vec4] = Field(None, description="Euler parameters [e0, e1, e2, e3] (normalised on input)")
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

    def quaternion_value(self) -> np.ndarray:
        """Euler parameters (e0 ≥ 0 for matrices) of the orientation."""
        if self.matrix is not None:
            return quat_from_matrix(np.array(self.matrix, dtype=float))
        if self.quaternion is not None:
            p = np.array(self.quaternion, dtype=float)
            return p / np.linalg.norm(p)
        return quaternion_from_axis_angle(self.axis, self.angle)


def _orientation(v):
    """Python input: a 3×3 rotation matrix or 4 Euler parameters stand for the mapping."""
    if isinstance(v, (list, tuple, np.ndarray)):
        a = np.asarray(v, dtype=float)
        if a.shape == (3, 3):
            return {"matrix": a.tolist()}
        if a.shape == (4,):
            return {"quaternion": a.tolist()}
        raise PydanticCustomError("orientation", "orientation must be a 3×3 matrix or 4 Euler parameters "
                                  "(or a mapping with matrix, quaternion, or axis and angle)")
    return v


OrientationField = Annotated[Optional[Orientation], BeforeValidator(_orientation)]


class _Shape(SpecBase):
    type: str = Field(description="the shape")
    offset: Vec3 = Field([0.0, 0.0, 0.0], description="centre of the shape in the body's shape frame [m] (a "
                                                       "mesh: its own origin)")
    rotation: OrientationField = Field(None, description="orientation of the shape's axes in the shape frame "
                                                         "(default: aligned)")

    def rotation_matrix(self) -> np.ndarray:
        return np.eye(3) if self.rotation is None else rotation_matrix(self.rotation.quaternion_value())

    def unit_properties(self) -> tuple[float, np.ndarray, np.ndarray]:
        """Volume V, centroid in the shape's own axes (3,), and the inertia tensor per unit
        density about the centroid in its own axes (3, 3)."""
        raise NotImplementedError


def _axial(axis, Ja, Jt):
    n = np.asarray(axis, float) / np.linalg.norm(axis)
    return Jt * (np.eye(3) - np.outer(n, n)) + Ja * np.outer(n, n)


class BoxShape(_Shape):
    """A box a × b × c along its x, y, z axes, centred at ``offset``."""

    model_config = ConfigDict(title="Shape: box")
    type: Literal["box"] = Field(description="box")
    size: Annotated[list[Annotated[float, Field(gt=0)]], Field(min_length=3, max_length=3)] = Field(
        description="side lengths [a, b, c] along the shape's x, y, z [m]")

    def unit_properties(self):
        a, b, c = self.size
        V = a * b * c
        return V, np.zeros(3), V / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


class CylinderShape(_Shape):
    """A solid circular cylinder, centred at ``offset``."""

    model_config = ConfigDict(title="Shape: cylinder")
    type: Literal["cylinder"] = Field(description="cylinder")
    radius: float = Field(gt=0, description="radius [m]")
    length: float = Field(gt=0, description="length along the axis [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis in the shape's axes (default z)")

    def unit_properties(self):
        R, L = self.radius, self.length
        V = np.pi * R * R * L
        return V, np.zeros(3), _axial(self.axis, V * R * R / 2.0, V * (3 * R * R + L * L) / 12.0)


class TubeShape(_Shape):
    """A hollow circular cylinder (tube), centred at ``offset``."""

    model_config = ConfigDict(title="Shape: tube")
    type: Literal["tube"] = Field(description="tube")
    outer_radius: float = Field(gt=0, description="outer radius [m]")
    inner_radius: float = Field(ge=0, description="inner radius [m], below the outer radius")
    length: float = Field(gt=0, description="length along the axis [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis in the shape's axes (default z)")

    @model_validator(mode="after")
    def _radii(self):
        if not self.inner_radius < self.outer_radius:
            raise ValueError(f"inner_radius = {self.inner_radius} must be below outer_radius = {self.outer_radius}")
        return self

    def unit_properties(self):
        Ro, Ri, L = self.outer_radius, self.inner_radius, self.length
        V = np.pi * (Ro * Ro - Ri * Ri) * L
        s = Ro * Ro + Ri * Ri
        return V, np.zeros(3), _axial(self.axis, V * s / 2.0, V * (3 * s + L * L) / 12.0)


class SphereShape(_Shape):
    """A solid sphere, centred at ``offset``."""

    model_config = ConfigDict(title="Shape: sphere")
    type: Literal["sphere"] = Field(description="sphere")
    radius: float = Field(gt=0, description="radius [m]")

    def unit_properties(self):
        R = self.radius
        V = 4.0 / 3.0 * np.pi * R**3
        return V, np.zeros(3), 0.4 * V * R * R * np.eye(3)


class MeshShape(_Shape):
    """A closed triangle mesh read from a file (STL, OBJ, … through trimesh)."""

    model_config = ConfigDict(title="Shape: mesh")
    type: Literal["mesh"] = Field(description="mesh (needs the optional trimesh package: pip install flexmbd[shapes])")
    path: str = Field(description="mesh file (STL, OBJ, PLY, …), relative to the working directory")
    scale: float = Field(1.0, gt=0, description="factor from the file's units to metres (0.001 for mm)")

    def unit_properties(self):
        try:
            import trimesh
        except ImportError:
            raise ModelError(f"mesh shape {self.path!r}: reading meshes needs the optional package trimesh "
                             "(pip install flexmbd[shapes])", key="shape") from None
        try:
            mesh = trimesh.load(self.path, force="mesh")
        except Exception as exc:   # noqa: BLE001  (any reader failure is a bad input file)
            raise ModelError(f"mesh shape: cannot read {self.path!r}: {exc}", key="shape") from None
        if self.scale != 1.0:
            mesh.apply_scale(self.scale)
        if not mesh.is_watertight:
            raise ModelError(f"mesh shape {self.path!r}: the mesh is not closed (watertight), so it has no volume",
                             key="shape")
        if mesh.volume < 0:
            mesh.invert()
        return float(mesh.volume), np.array(mesh.center_mass, float), np.array(mesh.moment_inertia, float)


Shape = Annotated[Union[BoxShape, CylinderShape, TubeShape, SphereShape, MeshShape], Discriminator("type")]


def mass_properties(shapes, density=None, mass=None):
    """(m, c (3,), J_c (3, 3)) of shapes of one density in the shape frame (module
    docstring); exactly one of ``density`` and ``mass`` (the total, which sets the density)."""
    shapes = list(shapes) if isinstance(shapes, (list, tuple)) else [shapes]
    parts = []
    for s in shapes:
        V, c0, J0 = s.unit_properties()
        R = s.rotation_matrix()
        parts.append((V, np.asarray(s.offset, float) + R @ c0, R @ J0 @ R.T))
    volume = sum(V for V, _, _ in parts)
    if (density is None) == (mass is None):
        raise ModelError("a body from shapes needs exactly one of density and mass", key="density")
    rho = float(density) if density is not None else float(mass) / volume
    m = rho * volume
    c = sum(rho * V * ck for V, ck, _ in parts) / m
    J = np.zeros((3, 3))
    for V, ck, Jk in parts:
        d = ck - c
        J += rho * Jk + rho * V * (d @ d * np.eye(3) - np.outer(d, d))
    return m, c, 0.5 * (J + J.T)


# ------------------------------------------------------------------ Python sugar


def Box(a, b, c, *, offset=(0, 0, 0), rotation=None) -> BoxShape:
    """A box a × b × c [m] along the shape's x, y, z, centred at ``offset``."""
    return BoxShape(type="box", size=[a, b, c], offset=list(offset), rotation=rotation)


def Cylinder(radius, length, *, axis=(0, 0, 1), offset=(0, 0, 0), rotation=None) -> CylinderShape:
    """A solid cylinder of ``radius`` and ``length`` along ``axis``, centred at ``offset``."""
    return CylinderShape(type="cylinder", radius=radius, length=length, axis=list(axis), offset=list(offset),
                         rotation=rotation)


def Tube(outer_radius, inner_radius, length, *, axis=(0, 0, 1), offset=(0, 0, 0), rotation=None) -> TubeShape:
    """A tube (hollow cylinder) along ``axis``, centred at ``offset``."""
    return TubeShape(type="tube", outer_radius=outer_radius, inner_radius=inner_radius, length=length,
                     axis=list(axis), offset=list(offset), rotation=rotation)


def Sphere(radius, *, offset=(0, 0, 0)) -> SphereShape:
    """A solid sphere of ``radius`` centred at ``offset``."""
    return SphereShape(type="sphere", radius=radius, offset=list(offset))


def Mesh(path, *, scale=1.0, offset=(0, 0, 0), rotation=None) -> MeshShape:
    """A closed triangle mesh from a file (needs trimesh: ``pip install flexmbd[shapes]``)."""
    return MeshShape(type="mesh", path=str(path), scale=scale, offset=list(offset), rotation=rotation)


__all__ = ["Box", "Cylinder", "Tube", "Sphere", "Mesh", "BoxShape", "CylinderShape", "TubeShape", "SphereShape",
           "MeshShape", "Shape", "Orientation", "mass_properties"]
