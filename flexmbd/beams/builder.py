"""``Model.beam``: a beam is a chain of SE(3) nodes plus element groups.

The nodes are massless bodies of kind ``se3`` named ``<beam>.n0 … <beam>.n<N>``; joints,
loads and markers attach to them like to any body (``beam.node(i)``, ``beam.first``,
``beam.last``).  The elements (``<beam>.e0 …``) are evaluated together by the groups of
:mod:`.groups` once the model is frozen.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bodies.rigid import Body
from ..kinds import FrameKind
from ..rotations import quaternion_from_matrix
from .geometry import CircularArc, StraightLine
from .se3_linear import relative_twist
from .sections import Section
from .shape import gauss_legendre, lagrange

FORMULATIONS = ("se3",)
INTEGRATIONS = ("full", "reduced", "hw")


@dataclass
class Beam:
    """Handle returned by ``Model.beam``."""

    name: str
    nodes: list
    section: Section
    formulation: str
    order: int
    integration: str
    length: float

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

    def __repr__(self):
        return (f"Beam({self.name!r}, {len(self.nodes) - 1} elements, {self.formulation}, order {self.order}, "
                f"{self.integration} integration)")


def add_beam(model, name, section, elements, geometry=None, start=None, end=None, e2=None, order=1,
             formulation="se3", integration="full"):
    from ..model import ModelError

    name = model._name(name, "beam")
    what = f"beam {name!r}"
    if not isinstance(section, Section):
        raise ModelError(f"{what}: section must be a flexmbd.beams.Section (rectangle, circle, tube or user)")
    if formulation not in FORMULATIONS:
        raise ModelError(f"{what}: formulation must be one of {FORMULATIONS}, got {formulation!r}")
    if integration not in INTEGRATIONS:
        raise ModelError(f"{what}: integration must be one of {INTEGRATIONS}, got {integration!r}")
    if order != 1:
        raise ModelError(f"{what}: order {order} is not available yet for formulation {formulation!r}; use order=1")
    try:
        n_el = int(elements)
    except (TypeError, ValueError):
        raise ModelError(f"{what}: elements must be a positive integer, got {elements!r}") from None
    if n_el < 1 or n_el != elements:
        raise ModelError(f"{what}: elements must be a positive integer, got {elements!r}")
    if geometry is None:
        if start is None or end is None:
            raise ModelError(f"{what}: give a reference geometry (StraightLine, CircularArc, NurbsReference) "
                             "or start and end points")
        try:
            geometry = StraightLine(start, end, e2=e2)
        except ValueError as exc:
            raise ModelError(f"{what}: {exc}") from None
    elif not hasattr(geometry, "nodes"):
        raise ModelError(f"{what}: geometry must be a StraightLine, CircularArc or NurbsReference")
    ref = geometry.nodes(n_el + 1)
    nodes = []
    for i in range(n_el + 1):
        nm = model._name(f"{name}.n{i}", "node")
        b = Body(nm, FrameKind, 0.0, np.zeros((3, 3)), ref.x[i].copy(), quaternion_from_matrix(ref.R[i]))
        b.index = len(model.bodies)
        model.bodies.append(b)
        model._names.add(nm)
    from ..model import ElementSpec

    q = np.array([np.r_[b.position, b.orientation] for b in nodes or model.bodies[-(n_el + 1):]])
    nodes = model.bodies[-(n_el + 1):]
    d0 = relative_twist(q[:-1], q[1:])
    spec = ElementSpec("beam", name, tuple(nodes), dict(
        section=section, formulation=formulation, order=order, integration=integration,
        length=np.diff(ref.s), d0=d0, curved=isinstance(geometry, CircularArc)))
    model.elements.append(spec)
    model._names.add(name)
    return Beam(name, list(nodes), section, formulation, order, integration, float(geometry.length))


def beam_groups(system, specs):
    """(inertia groups, force groups) of the beams ``specs`` of a System."""
    from .groups import BeamElasticGroup, BeamInertiaGroup

    inertia, forces = [], []
    if not specs:
        return inertia, forces
    names, dofs, cfgs, d0, L, D, Ms, w = [], [], [], [], [], [], [], []
    for spec in specs:
        nodes = spec.bodies
        data = spec.data
        k = len(nodes) - 1
        names += [f"{spec.name}.e{i}" for i in range(k)]
        dofs += [np.r_[system.dofs(nodes[i]), system.dofs(nodes[i + 1])] for i in range(k)]
        cfgs += [np.r_[system.config_dofs(nodes[i]), system.config_dofs(nodes[i + 1])] for i in range(k)]
        d0.append(data["d0"])
        L.append(data["length"])
        D += [data["section"].stiffness_matrix()] * k
        Ms += [data["section"].inertia_matrix()] * k
    L = np.concatenate(L)
    forces.append(BeamElasticGroup(names, dofs, cfgs, np.concatenate(d0), L, np.array(D)))
    Ms = np.array(Ms)
    if np.any(Ms != 0):
        zg, wg = gauss_legendre(2)
        N, _ = lagrange(1, zg)
        inertia.append(BeamInertiaGroup(names, dofs, cfgs, N, L[:, None] * wg[None, :], Ms))
    return inertia, forces


def nodal_weights(system, specs):
    """Nodes and their shares ∫ N_k ρA ds of the beams' mass (for distributed weight)."""
    share = {}
    for spec in specs:
        rhoA = spec.data["section"].rhoA
        for i, Le in enumerate(spec.data["length"]):
            for b in (spec.bodies[i], spec.bodies[i + 1]):
                share[b.name] = share.get(b.name, 0.0) + 0.5 * rhoA * Le
    bodies = [b for spec in specs for b in spec.bodies]
    seen, out = set(), []
    for b in bodies:
        if b.name not in seen and share.get(b.name, 0.0) > 0:
            seen.add(b.name)
            out.append((b, share[b.name]))
    return out
