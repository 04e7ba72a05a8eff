"""Gravity, point forces and torques (constant or functions of time).

A body-fixed force f' at body point u has global value A(p) f'; its generalised force is
J_uᵀ A f' whose Jacobian has the two terms Σ_i (A f')_i ∂²x_u,i/∂q² + J_uᵀ ∂(A f')/∂q.
A torque n on a spatial body does virtual work n·δπ with δπ = 2 E δp (global) or
δπ' = 2 G δp (body frame), so Q_p = 2 Eᵀ n or 2 Gᵀ n' (Nikravesh 1988, sec. 6.4).
On a rotation-vector body (increment Δθ in body axes, δπ = A δθ) Q_θ = Aᵀ n or n', and
∂(Aᵀ n)/∂Δθ = (Aᵀ n)~.  On an R³×R³ node (total rotation vector ψ, δπ = R T(ψ) δψ)
Q_ψ = T(ψ) n or T(ψ)ᵀ n' (``nodes.rotvec.torque_force``).  These generalised forces are
the node kinds' (:meth:`flexmbd.nodes.NodeKind.torque_force`, ``weight``).
"""
from __future__ import annotations

import copy
from typing import Literal, Optional

import numpy as np
from pydantic import ConfigDict, Field

from ..errors import ModelError
from ..ground import GROUND
from ..groups import (CompiledSlot, ForceGroup, Unsupported, float_array, floating_frame_kinds, floating_frame_layout,
                      floating_frame_markers, int_array, kernel_suffix)
from ..kernels import AVAILABLE as USE_KERNELS
from ..memo import Recent, inputs_key
from ..nodes import POINT, VECTOR
from ..registry import ElementType, register
from ..spec import BodyRef, Name, Point, SpecBase, TimeFunctionSpec, Vec3, point3, time_function
from ..timefunctions import Constant, Polynomial

if USE_KERNELS:
    from ..kernels import loads as _loads


def _scales(functions, t):
    return np.array([f.derivatives(t)[0] for f in functions])


def _config(dof_index, config_index, kind):
    """Configuration gather index (N, nq); for nq == nv kinds it defaults to dof_index."""
    if config_index is None:
        if kind.nq != kind.nv:
            raise ValueError(f"{kind.name} bodies need a config_index")
        return dof_index
    return np.asarray(config_index, dtype=int).reshape(dof_index.shape[0], -1)


class GravityGroup(ForceGroup):
    """Weights m g of nodes at their origins (the node kind gives the generalised force)."""

    is_load = True

    def __init__(self, kind, bodies, dof_index, gravity, config_index=None):
        self.kind = kind
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(bodies), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        self.g = np.asarray(gravity, dtype=float)

    def evaluate(self, qe, ve, t, jacobians=True):
        Q, K = self.kind.weight(qe[self.config_index], self.mass, self.g, jacobians)
        return Q, K, None

    def compiled_slot(self):
        suffix = kernel_suffix(self.kind)
        g = self.g[:2] if suffix == "planar" else self.g
        return CompiledSlot(f"gravity_{suffix}", (float_array(self.mass), float_array(g)))

    def potential_energy(self, qe, t):
        R = self.kind.pose(qe[self.config_index])[0]
        return float(-np.sum(self.mass * (R @ self.g)))


class _AppliedLoad(ForceGroup):
    """Loads from outside the system: their power Q·q' is external work."""

    is_load = True

    def external_power(self, qe, ve, t, lam):
        Q = self.evaluate(qe, ve, t, jacobians=False)[0]
        return float(np.sum(Q * ve[self.dof_index]))


class PointForceGroup(_AppliedLoad):
    """Forces F(t) = f · s(t) at body points; f global or body-fixed."""

    def __init__(self, kind, names, dof_index, u_point, f, body_fixed, scale_functions, config_index=None):
        self.kind = kind
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(names), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        n = len(names)
        self.points = kind.markers(u_point, np.full(n, POINT))
        self.f = np.asarray(f, dtype=float).reshape(n, 3)
        self.body_fixed = np.asarray(body_fixed, dtype=bool)
        self.fixed_dirs = kind.markers(self.f, np.where(self.body_fixed, VECTOR, 0))
        self.set_scales(scale_functions)

    def set_scales(self, scale_functions):
        """The forces' factors s(t) (a copy of a kept group gets its model's here:
        :func:`build_point_forces`)."""
        self.functions = list(scale_functions)
        self.constant = all(isinstance(fn, Constant) for fn in self.functions)
        self._s = _scales(self.functions, 0.0) if self.constant else None

    def compiled_slot(self):
        def scales(t):
            return self._s if self.constant else _scales(self.functions, t)
        try:
            suffix = kernel_suffix(self.kind)
        except Unsupported:      # floating frames (kernels/floating_frame.py), global forces
            n, pairs = floating_frame_layout(self.kind)
            if self.body_fixed.any():
                raise Unsupported(f"body-fixed forces on {self.kind.noun}s have no compiled kernel") from None
            ur, _, P = floating_frame_markers(self.points, max(1, n + len(pairs)))
            table, prs = floating_frame_kinds([(n, pairs)])
            return CompiledSlot("modal_points", (int_array(self.config_index), int_array(table), int_array(prs),
                                                 float_array(ur), float_array(P), float_array(self.f)),
                                scales, self.constant)
        return CompiledSlot(f"points_{suffix}",
                            (int_array(self.config_index), float_array(self.points.u), float_array(self.f),
                             int_array(self.body_fixed)), scales, self.constant)

    def evaluate(self, qe, ve, t, jacobians=True):
        qb = qe[self.config_index]
        s = self._s if self.constant else _scales(self.functions, t)
        if USE_KERNELS and self.kind.kernel_code is not None:
            n, nv = qb.shape[0], self.kind.nv
            Q = np.empty((n, nv))
            K = np.empty((n, nv, nv)) if jacobians else np.empty((0, nv, nv))
            _loads.point_forces(self.kind.kernel_code, qb, self.points.u, self.f, self.body_fixed, s,
                                jacobians, Q, K)
            return Q, (K if jacobians else None), None
        x, J = self.points.evaluate(qb)
        fx, fJ = self.fixed_dirs.evaluate(qb)
        F = np.where(self.body_fixed[:, None], fx, self.f) * s[:, None]
        Q = np.einsum("nij,ni->nj", J, F)
        if not jacobians:
            return Q, None, None
        K = self.points.contract(qb, F) + np.einsum("nij,nik->njk", J, fJ) * s[:, None, None]
        return Q, K, None


class TorqueGroup(_AppliedLoad):
    """Torques n(t) = n · s(t) on bodies, global or body-fixed components."""

    def __init__(self, kind, names, dof_index, torque, body_fixed, scale_functions, config_index=None):
        self.kind = kind
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(len(names), kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        self.n = np.asarray(torque, dtype=float).reshape(len(names), 3)
        self.body_fixed = np.asarray(body_fixed, dtype=bool)
        self.functions = list(scale_functions)
        self.constant = all(isinstance(fn, Constant) for fn in self.functions)
        self._s = _scales(self.functions, 0.0) if self.constant else None

    def compiled_slot(self):
        def scales(t):
            return self._s if self.constant else _scales(self.functions, t)
        try:
            name = f"torques_{kernel_suffix(self.kind)}"
        except Unsupported:      # floating frames with Euler parameters: the same Q_p = 2 Eᵀ n, 2 Gᵀ n'
            floating_frame_layout(self.kind)
            name = "modal_torques"
        return CompiledSlot(name,
                            (int_array(self.config_index), float_array(self.n), int_array(self.body_fixed)),
                            scales, self.constant)

    def evaluate(self, qe, ve, t, jacobians=True):
        s = _scales(self.functions, t)
        Q, K = self.kind.torque_force(qe[self.config_index], self.n * s[:, None], self.body_fixed, jacobians)
        return Q, K, None


# ---------------------------------------------------------------------- element types


class _LoadSpec(SpecBase):
    type: str = Field(description="the element type")
    name: Optional[Name] = Field(None, description="unique name")
    body: BodyRef = Field(description="the loaded body")


class PointForce(_LoadSpec):
    """A force at a point of a body: force × scale(t)."""

    model_config = ConfigDict(title="Force: force")

    type: Literal["force"]
    force: Vec3 = Field(description="force [N], global components (body axes if body_fixed)")
    at: Optional[Point] = Field(None, description="point of application [m] (default: the centre of mass)")
    body_fixed: bool = Field(False, description="true: the force turns with the body")
    scale: TimeFunctionSpec = Field(1.0, description="dimensionless factor scale(t)")


class Torque(_LoadSpec):
    """A torque on a body: torque × scale(t)."""

    model_config = ConfigDict(title="Force: torque")

    type: Literal["torque"]
    torque: Vec3 = Field(description="torque [N m], global components (body axes if body_fixed)")
    body_fixed: bool = Field(False, description="true: the torque turns with the body")
    scale: TimeFunctionSpec = Field(1.0, description="dimensionless factor scale(t)")


class _LoadType(ElementType):
    section = "forces"
    body_fields = ("body",)
    applied_load = True

    def prepare(self, model, spec, bodies, name):
        if bodies[0] is GROUND:
            raise ModelError(f"{self.name} {name!r}: a {self.name} on ground does nothing; name a body",
                             element=name, key="body")
        return dict(body_fixed=bool(spec.body_fixed), scale=time_function(spec.scale))


def build_point_forces(elements, system):
    """One PointForceGroup per node kind.

    The groups are kept (:data:`_KEPT`) by what they are made from but their factors s(t)
    (the layout, the elements' names, bodies with their initial poses, points, forces and
    body_fixed flags); a later model that gives the same gets copies with its own factors."""
    key = inputs_key(elements, system, ("at", "force", "body_fixed"))
    kept = _KEPT.get(key) if key is not None else None
    if kept is not None:
        groups = []
        for group, mine in kept:
            g = copy.copy(group)
            g.set_scales([elements[i].data["scale"] for i in mine])
            groups.append(g)
        return groups
    kept = []
    for kind in system.kinds:
        mine = [i for i, e in enumerate(elements) if e.bodies[0].kind == kind]
        if mine:
            on = [elements[i].bodies[0] for i in mine]
            d = [elements[i].data for i in mine]
            kept.append((PointForceGroup(kind, [elements[i].name for i in mine], system.dof_rows(on, kind),
                                         system.local_points(on, [x["at"] for x in d]), [x["force"] for x in d],
                                         [x["body_fixed"] for x in d], [x["scale"] for x in d],
                                         system.config_rows(on, kind)), mine))
    if key is not None:     # copies: the systems' own groups may be given attributes
        _KEPT.put(key, [(copy.copy(g), mine) for g, mine in kept])
    return [g for g, _ in kept]


#: the point-force groups of the most recent inputs (:func:`build_point_forces`), their
#: arrays and markers shared by the copies and never modified
_KEPT = Recent()


def build_torques(elements, system):
    """One TorqueGroup per node kind."""
    groups = []
    for kind in system.kinds:
        torques = [e for e in elements if e.bodies[0].kind == kind]
        if torques:
            on = [e.bodies[0] for e in torques]
            d = [e.data for e in torques]
            groups.append(TorqueGroup(kind, [e.name for e in torques], system.dof_rows(on, kind),
                                      [x["torque"] for x in d], [x["body_fixed"] for x in d], [x["scale"] for x in d],
                                      system.config_rows(on, kind)))
    return groups


@register
class PointForceType(_LoadType):
    """A point force (global components, or body-fixed) times scale(t)."""

    name = "force"
    Spec = PointForce
    builder = staticmethod(build_point_forces)

    def prepare(self, model, spec, bodies, name):
        return super().prepare(model, spec, bodies, name) | dict(
            force=np.asarray(spec.force, dtype=float),
            at=model.body_position(bodies[0]).copy() if spec.at is None else point3(spec.at))

    def sample(self, model, a, b):
        """Global, time-scaled on b; body-fixed on a."""
        z = 0.0 if a.kind.name == "planar" else 1.0
        model.force(b, (1, 2, 3 * z), at=(1.1, 0, 0.2 * z), scale=Polynomial((1.0, 2.0)))
        model.force(a, (3, -1, 2 * z), at=(0.3, 0.2, 0.1 * z), body_fixed=True)


@register
class TorqueType(_LoadType):
    """A torque (global components, or body-fixed) times scale(t)."""

    name = "torque"
    Spec = Torque
    builder = staticmethod(build_torques)

    def prepare(self, model, spec, bodies, name):
        if bodies[0] is not GROUND and not bodies[0].kind.rotations:
            raise ModelError(f"torque {name!r}: {bodies[0].name!r} is a node of kind {bodies[0].kind.name}, which "
                             "has no rotation coordinates for a torque to act on; apply a force couple, or join a "
                             "rigid body to the node and load that", element=name, key="body")
        return super().prepare(model, spec, bodies, name) | dict(torque=np.asarray(spec.torque, dtype=float))

    def sample(self, model, a, b):
        """Global on a; body-fixed on b (spatial kinds)."""
        if a.kind.name == "planar":
            model.torque(a, (0, 0, -0.2))
            return
        model.torque(a, (0.3, 0.1, -0.2))
        model.torque(b, (0.1, 0.5, 0.2), body_fixed=True)
