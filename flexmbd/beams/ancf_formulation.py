"""The fully parameterized ANCF beam as a beam formulation (``Model.beam(...,
formulation="ancf")``): its nodes, its groups and its outputs.

Nodes are of kind :data:`~flexmbd.nodes.ANCF` (r, r_x, r_y, r_z), made from the reference
geometry: r = x(s), r_x = the unit tangent e1 (the axial parameter is the reference arc
length), r_y = e2, r_z = e3 (the section axes).  Joints, loads and markers see them through
the kind's markers x = r + [r_x r_y r_z] u; a ``fixed`` joint to ground fixes r and the
section's rotation (a beam-theory clamp: the section's own stretch and shear stay free,
as in the continuum under a clamp of the section's rigid motion).  The element maths is
:mod:`.ancf_beam`.

Groups (one per beam): the constant consistent mass (:class:`AncfInertiaGroup`), the
elastic forces (:class:`AncfElasticGroup`) and, with gravity, the exact weight ρ ∫ Sᵀ g dV
(:class:`AncfWeightGroup`).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..groups import ForceGroup, InertiaGroup
from ..nodes import ANCF
from ..rotations import rotation_matrix
from .ancf_beam import LOCKING, AncfElements, hermite_shapes, reference_coordinates, section_rule
from .formulations import BeamFormulation, register_formulation

__all__ = ["AncfElasticGroup", "AncfFormulation", "AncfInertiaGroup", "AncfWeightGroup", "ancf_groups",
           "material"]


def material(section, what: str, name: str):
    """(E, ν, ρ) and the section's quadrature rule, or a ModelError naming the key."""
    definition = getattr(section, "definition", None) or {}
    try:
        rule = section_rule(definition)
    except (ValueError, KeyError) as exc:
        raise ModelError(f"{what}: {exc}", element=name, key="section") from None
    E = float(definition["E"])
    nu, G = definition.get("nu"), definition.get("G")
    nu = float(nu) if nu is not None else E / (2.0 * float(G)) - 1.0
    if not -1.0 < nu < 0.5:
        raise ModelError(f"{what}: the ANCF beam's continuum law needs -1 < nu < 0.5, got {nu:g}",
                         element=name, key="section")
    return E, nu, float(definition.get("rho") or 0.0), rule


class AncfFormulation(BeamFormulation):
    """``formulation="ancf"``: two-node fully parameterized ANCF elements on nodes of kind
    ancf; the option ``locking`` picks the elastic form (:data:`.ancf_beam.LOCKING`)."""

    name = "ancf"
    kind = ANCF
    summary = "fully parameterized ANCF beam (r, r_x, r_y, r_z per node; continuum elastic forces)"
    options = {"locking": LOCKING[0]}

    def check(self, what, name, order, interpolation, integration, options):
        if order != 1 or interpolation != "lagrange":
            raise ModelError(f"{what}: the ANCF beam has its own two-node Hermite elements (order=1, interpolation="
                             f"'lagrange'), got order={order!r}, interpolation={interpolation!r}",
                             element=name, key="order" if order != 1 else "interpolation")
        if integration != "full":
            raise ModelError(f"{what}: the ANCF beam's Gauss rule is fixed (5 × 3 × 3 points); its remedy against "
                             f"Poisson locking is the option locking (strain-split or plain), got integration="
                             f"{integration!r}", element=name, key="integration")

    def topology(self, geometry, n_el, order, interpolation, integration):
        ref = geometry.nodes(n_el + 1)
        return dict(x=ref.x, R=ref.R, conn=np.c_[np.arange(n_el), np.arange(1, n_el + 1)],
                    length=np.diff(ref.s), s_range=np.c_[ref.s[:-1], ref.s[1:]])

    def reference(self, data, q):
        """The elements (:class:`.ancf_beam.AncfElements`) on the nodes' initial coordinates
        (r = x, gradients = the columns of the node frames)."""
        what, name = f"beam {data['name']!r}", data["name"]
        E, nu, rho, rule = material(data["section"], what, name)
        q_ref = reference_coordinates(q[:, :3], rotation_matrix(q[:, 3:7]).reshape(-1, 3, 3))
        conn = data["conn"]
        try:
            data["ancf"] = AncfElements(q_ref[conn].reshape(len(conn), 24), data["length"], rule, E, nu, rho,
                                        data["options"]["locking"])
        except ValueError as exc:
            raise ModelError(f"{what}: {exc}", element=name, key="section") from None

    def build(self, system, elements):
        inertia, forces = ancf_groups(system, elements)
        return inertia + forces

    def positions(self, beam, result, s):
        """r(s) = Σ_k s_k d_k on the centre line of the element holding s (Hermite)."""
        data = beam.spec.data
        s0, s1 = data["s_range"][:, 0], data["s_range"][:, 1]
        e = int(np.clip(np.searchsorted(s1, float(s)), 0, len(s1) - 1))
        xi = (float(s) - s0[e]) / (s1[e] - s0[e])
        sh = hermite_shapes(xi, 0.0, 0.0, data["length"][e])[0]
        sysm = result.system
        d = np.concatenate([result.q[:, sysm.config_slice(beam.nodes[k])] for k in data["conn"][e]], axis=1)
        return np.einsum("k,rki->ri", sh, d.reshape(len(d), 8, 3))


register_formulation(AncfFormulation())


def _rows(system, spec, which):
    nodes = spec.bodies
    rows = (system.dof_rows if which == "dof" else system.config_rows)(nodes, ANCF)
    return rows[spec.data["conn"]].reshape(len(spec.data["conn"]), 24)


class _AncfGroup:
    kind = ANCF

    def _setup(self, names, dof_index, config_index, elements):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.elements = elements


class AncfInertiaGroup(_AncfGroup, InertiaGroup):
    """Constant consistent mass ρ ∫ Sᵀ S dV of a beam's elements: F = M q̈, no velocity terms."""

    def __init__(self, names, dof_index, config_index, elements: AncfElements):
        self._setup(names, dof_index, config_index, elements)
        self.M = elements.mass_matrix()
        self._zero = np.zeros_like(self.M)

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F = np.einsum("nij,nj->ni", self.M, ab)
        if not jacobians:
            return F, None, None, None
        return F, self._zero, self._zero, self.M

    def mass_matrix(self, qb):
        return self.M

    def element_kinetic_energy(self, qb, vb):
        return 0.5 * np.einsum("ni,nij,nj->n", vb, self.M, vb)


class AncfElasticGroup(_AncfGroup, ForceGroup):
    """Elastic forces Q = −∂V/∂e and ∂Q/∂e = −K of a beam's elements (:mod:`.ancf_beam`)."""

    output_names = ("strain_energy", "axial_force", "curvature")

    def __init__(self, names, dof_index, config_index, elements: AncfElements):
        self._setup(names, dof_index, config_index, elements)

    def evaluate(self, qe, ve, t, jacobians=True):
        f, K, _ = self.elements.elastic_forces(qe[self.config_index], jacobians)
        return -f, (None if K is None else -K), None

    def potential_energy(self, qe, t):
        return float(np.sum(self.elements.elastic_forces(qe[self.config_index], False)[2]))

    def outputs(self, qe, ve, t):
        e = qe[self.config_index]
        out = {"strain_energy": self.elements.elastic_forces(e, False)[2]}
        out["axial_force"] = self.elements.axial_force(e)
        out["curvature"] = self.elements.curvature(e)
        return out


class AncfWeightGroup(_AncfGroup, ForceGroup):
    """Weight ρ ∫ Sᵀ g dV of a beam's elements (constant; a load in static load stepping)."""

    is_load = True

    def __init__(self, names, dof_index, config_index, elements: AncfElements, gravity):
        self._setup(names, dof_index, config_index, elements)
        self.Q = elements.weight(gravity)

    def evaluate(self, qe, ve, t, jacobians=True):
        return self.Q, None, None

    def potential_energy(self, qe, t):
        return float(-np.sum(self.Q * qe[self.config_index]))


def ancf_groups(system, specs):
    """(inertia groups, force groups) of the ANCF beams ``specs``: one group of each per beam."""
    inertia, forces = [], []
    gravity = np.asarray(system.model.gravity, dtype=float)
    for spec in specs:
        d = spec.data
        el = d["ancf"]
        names = [f"{spec.name}.e{i}" for i in range(len(d["conn"]))]
        dofs, cfgs = _rows(system, spec, "dof"), _rows(system, spec, "config")
        if el.rho > 0:
            inertia.append(AncfInertiaGroup(names, dofs, cfgs, el))
            if np.any(gravity != 0):
                g = AncfWeightGroup([f"{n}.weight" for n in names], dofs, cfgs, el, gravity)
                forces.append(g)
        elastic = AncfElasticGroup(names, dofs, cfgs, el)
        elastic.stage = 1       # structural forces after the applied loads (summation order)
        forces.append(elastic)
    return inertia, forces
