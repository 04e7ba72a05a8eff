"""A modal body from finite-element data (component mode synthesis; the floating frame of
reference of Shabana, *Dynamics of Multibody Systems*, ch. 5, and paper P4).

The FE model's nodes move as r_k = R + A(θ)(X_k + Φ_k η) (kind
:class:`~flexmbd.nodes.fe_modal.FEModalKind`); the mode shapes Φ come from the data file
(Craig-Bampton or free-free elastic modes) or are computed from its mass and stiffness
matrices (:mod:`.fe_data`: free-free modes without the six rigid-body modes, or
Craig-Bampton modes of given interface nodes).  The inertia shape integrals
W = Πᵀ M_s Π, the modal stiffness Φᵀ K Φ and the damping are computed once; the groups are
the modal beam's (:mod:`.modal_beam`: one implementation of the inertia forces
Σ W_cd J_cᵀ ρ̈_d, the modal elastic forces, the distributed weight and the normalisation,
all with exact Jacobians).  There is no geometric stiffening (the FE data carries no
stress-stiffness matrix).
"""
from __future__ import annotations

import pathlib
from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, field_validator

from ..errors import ModelError
from ..nodes.fe_modal import fe_kind_from_key, register_shapes
from ..registry import Element, ElementType, register
from ..rotations import rotation_matrix
from ..spec import Name, SpecBase, Vec3
from .fe_data import check_fe_data, digest, load_fe_data, modal_damping, normalised, reduced, select_modes
from .modal_beam import build_modal_beams, momenta, rigid_properties
from .rigid import Body
from .shapes import Orientation, _orientation


def _path_or_arrays(v):
    return str(v) if isinstance(v, pathlib.PurePath) else v


class ModalBodySpec(SpecBase):
    """A floating-frame modal body from finite-element data (component mode synthesis)."""

    model_config = ConfigDict(title="Body: modal")

    name: Optional[Name] = Field(None, description="unique name; outputs NAME.position (the frame origin), "
                                                   "NAME.modal_coordinates, NAME.node_displacements")
    type: Literal["modal"] = Field(description="modal")
    data: Annotated[Union[str, dict], BeforeValidator(_path_or_arrays)] = Field(
        description="the FE data: a .npz or HDF5 file (relative to the model file) with nodes, mass, stiffness "
                    "and optionally modes, interface and edges (docs/elements/modal-body.md); in Python also a dict of "
                    "those arrays")
    modes: Optional[int] = Field(None, ge=0, description="number of modes: of the file's modes (default all), "
                                                         "of free-free modes, or of fixed-interface modes "
                                                         "(craig-bampton; the 3b − 6 static modes come on top)")
    mode_type: Optional[Literal["file", "free-free", "craig-bampton"]] = Field(
        None, description="where the modes come from: the file's key modes (default when present), the free-free "
                          "elastic modes of mass and stiffness (default otherwise), or Craig-Bampton modes of the "
                          "interface nodes")
    interface_nodes: Optional[list[int]] = Field(None, description="Craig-Bampton interface: node indices "
                                                                   "(default: the file's key interface)")
    attitude: Literal["euler-parameters", "euler-313"] = Field(
        "euler-parameters", description="coordinates of the frame's attitude: euler-parameters or euler-313")
    position: Vec3 = Field([0.0, 0.0, 0.0], description="initial position of the frame origin (the FE model's "
                                                        "origin) [m]")
    orientation: Annotated[Optional[Orientation], BeforeValidator(_orientation)] = Field(
        None, description="initial orientation of the frame (the FE model's axes; default: the global axes)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the frame origin [m/s]")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    damping_ratio: float = Field(0.0, ge=0, description="modal damping ratio ζ of every mode of the reduced model")
    rayleigh: Optional[tuple[float, float]] = Field(None, description="Rayleigh damping (α, β): C = α M_ff + β K_ff")
    modal_coordinates: Optional[list[float]] = Field(None, description="initial modal coordinates (modes scaled to "
                                                                       "a largest node displacement of 1) [m]")
    modal_velocities: Optional[list[float]] = Field(None, description="initial modal velocities [m/s]")

    @field_validator("modal_coordinates", "modal_velocities")
    @classmethod
    def _finite(cls, v):
        if v is not None and not np.all(np.isfinite(v)):
            raise ValueError("must be finite numbers")
        return v


class FEModalNode(Body):
    """The node of a modal body (a :class:`~flexmbd.bodies.rigid.Body` whose kind is an
    :class:`~flexmbd.nodes.fe_modal.FEModalKind`): ``position`` and ``orientation`` are the
    frame's; ``mass`` and ``inertia`` those of the undeformed body, the inertia about the
    frame origin."""

    def node_position(self, k) -> np.ndarray:
        """Global positions of FE nodes k (an index or indices) in the initial undeformed
        configuration: where to attach joints, springs and loads."""
        A = self.kind.orientation_matrix(np.asarray(self.orientation)[None])[0]
        return np.asarray(self.position) + self.kind.nodes[k] @ A.T


def _resolve(model, path: str) -> pathlib.Path:
    p = pathlib.Path(path)
    base = getattr(model, "base_dir", None)
    return p if p.is_absolute() or base is None else pathlib.Path(base) / p


@register
class ModalBodyType(ElementType):
    """A modal body from FE data (module docstring)."""

    name = "modal"
    section = "bodies"
    noun = "modal body"
    Spec = ModalBodySpec
    builder = staticmethod(build_modal_beams)

    def create(self, model, spec):
        name = model.new_name(spec.name, "body")
        what = self.label(name)

        def fail(msg, key):
            return ModelError(f"{what}: {msg}", element=name, key=key)
        try:
            if isinstance(spec.data, str):
                path = _resolve(model, spec.data)
                fe = load_fe_data(path, label=spec.data)
            else:
                fe = check_fe_data(spec.data, "data")
            method = spec.mode_type or ("file" if fe.modes is not None else "free-free")
            iface = None if spec.interface_nodes is None else np.asarray(spec.interface_nodes)
            Phi, how = select_modes(fe, spec.modes, method, iface)
            Phi = normalised(Phi)
            inv = reduced(fe, Phi)
        except ModelError as exc:
            raise fail(str(exc), exc.key or "data") from None
        n = Phi.shape[1]
        key = digest(fe.nodes, Phi)
        register_shapes(key, fe.nodes, Phi)
        kind = fe_kind_from_key(key if spec.attitude == "euler-parameters" else f"{key}:{spec.attitude}")
        for k in ("modal_coordinates", "modal_velocities"):
            val = getattr(spec, k)
            if val is not None and len(val) != n:
                raise fail(f"{k} has {len(val)} values but the body has {n} modes ({how})", k)
        C = modal_damping(inv["K"], inv["Mff"], spec.damping_ratio, spec.rayleigh or (0.0, 0.0))
        mass, c, J = rigid_properties(inv["W"])
        p = np.array([1.0, 0, 0, 0]) if spec.orientation is None else spec.orientation.quaternion_value()
        if spec.attitude == "euler-313" and abs(rotation_matrix(p)[2, 2]) > 1.0 - 1e-8:
            raise fail("3-1-3 Euler angles are singular for this orientation (the frame's z axis along the global "
                       "z axis): choose another orientation or attitude euler-parameters", "orientation")
        node = FEModalNode(name, kind, mass, J, np.array(spec.position, dtype=float), p,
                           np.array(spec.velocity, dtype=float), np.array(spec.angular_velocity, dtype=float))
        node.modal_coordinates = None if spec.modal_coordinates is None else np.array(spec.modal_coordinates)
        node.modal_velocities = None if spec.modal_velocities is None else np.array(spec.modal_velocities)
        model.add_node(node)
        data = dict(W=inv["W"], K=inv["K"], KG=inv["KG"], Mff=inv["Mff"], C=C, stiffening=0.0, centre=c,
                    modes=Phi, description=how, edges=fe.edges)
        return Element(self.name, name, (node,), data, spec.model_copy(update={"name": name}), nodes=(node,))

    def added(self, model, element):
        return element.nodes[0]

    def dump(self, element):
        if not isinstance(element.spec.data, str):
            from ..spec import DumpError

            raise DumpError(f"{self.label(element.name)}: FE data given as arrays cannot go into a model file "
                            "(save them to a .npz file and give its path)")
        out = element.spec.model_dump(mode="python", exclude_defaults=True)
        return {"name": out.pop("name"), **out}

    def geometry(self, element):
        """The data's ``edges`` as lines between FE nodes (pictures place their ends with the
        kind's markers, so they show the deformation); nothing without edges."""
        edges = element.data.get("edges")
        if edges is None:
            return []
        node = element.nodes[0]
        x = node.node_position(np.arange(len(node.kind.nodes)))
        return [("line", f"{element.name}.edge{k}", node, node, x[i], x[j]) for k, (i, j) in enumerate(edges)]

    # ------------------------------------------------------------------ outputs
    def outputs(self, element, system):
        return ("modal_coordinates", "node_displacements", "node_positions", "linear_momentum", "angular_momentum")

    def output(self, element, what, result):
        """modal_coordinates (steps, n); node_displacements: every FE node's elastic
        displacement Φ_k η in frame axes (steps, N, 3); node_positions: their global positions
        R + A (X_k + Φ_k η) (steps, N, 3); linear_momentum and angular_momentum
        (about the global origin) (steps, 3)."""
        node = element.nodes[0]
        kind = node.kind
        sys = result.system
        eta = result.q[:, sys.config_slice(node)][:, kind.eta]
        if what == "modal_coordinates":
            return eta
        if what == "node_displacements":
            return np.einsum("kin,tn->tki", kind.modes, eta)
        if what == "node_positions":
            q = result.q[:, sys.config_slice(node)]
            R, A = kind.pose(q)
            x = kind.nodes[None] + np.einsum("kin,tn->tki", kind.modes, eta)
            return R[:, None, :] + np.einsum("tij,tkj->tki", A, x)
        lin, ang = momenta(kind, element.data["W"], result.q[:, sys.config_slice(node)],
                           result.v[:, sys.body_slice(node)])
        return lin if what == "linear_momentum" else ang

    def sample(self, model, a, b):
        """On spatial models: modal bodies from a small truss's FE data (free-free modes with
        damping, Craig-Bampton modes with 3-1-3 angles), joined to the rigid bodies and to
        ground at FE nodes, loaded at nodes."""
        from ..nodes import SPATIAL

        if a.kind != SPATIAL:
            return
        from .fe_lattice import truss_beam
        from ..ground import GROUND

        fe = truss_beam(length=0.4, bays=2, width=0.1, E=2e6, area=1e-4, node_mass=0.1)
        arrays = {k: fe[k] for k in ("nodes", "mass", "stiffness")}
        rot = rotation_matrix(np.array([0.8, -0.3, 0.2, 0.4]) / np.linalg.norm([0.8, -0.3, 0.2, 0.4]))
        free = model.modal(name="fe_free", data=arrays, modes=3, position=(0.3, -0.2, 0.6), orientation=rot,
                           damping_ratio=0.03, angular_velocity=(0.4, -0.6, 0.9),
                           modal_coordinates=[0.01, -0.02, 0.015])
        cb = model.modal(name="fe_cb", data=dict(arrays, interface=fe["root"]), modes=1, mode_type="craig-bampton",
                         attitude="euler-313", position=(-0.4, 0.3, 0.2), orientation=rot.T, rayleigh=(0.1, 1e-3),
                         modal_velocities=list(np.linspace(-0.1, 0.1, 7)))
        model.spherical(a, free, at=free.node_position(0), name="sph_fe")
        model.revolute(GROUND, cb, at=cb.node_position(1), axis=(0, 1, 1), name="rev_fe")
        model.fixed(free, b, at=free.node_position(11), name="fix_fe")
        model.spring_damper(GROUND, free, at_i=(0.0, 0.5, 0.5), at_j=free.node_position(9), k=30.0, c=0.5,
                            name="sd_fe")
        model.force(cb, (0.2, -0.1, 0.3), at=cb.node_position(10), body_fixed=True, name="f_fe")
        model.torque(cb, (0.1, 0.2, -0.1), name="t_fe")


__all__ = ["ModalBodySpec", "ModalBodyType", "FEModalNode"]
