"""The fully parameterized ANCF beam as a beam formulation (``Model.beam(...,
formulation="ancf")``): its nodes, its groups and its outputs.

Nodes are of kind :data:`~flexmbd.nodes.ANCF` (r, r_x, r_y, r_z), made from the reference
geometry: r = x(s), r_x = the unit tangent e1 (the axial parameter is the reference arc
length), r_y = e2, r_z = e3 (the section axes).  Joints, loads and markers see them through
the kind's markers x = r + [r_x r_y r_z] u; a ``fixed`` joint to ground fixes r and the
section's rotation (a beam-theory clamp: the section's own stretch and shear stay free,
as in the continuum under a clamp of the section's rigid motion).  The element maths is
:mod:`.ancf_beam`.

Groups (one of each for all ANCF beams of a model): the constant consistent mass
(:class:`AncfInertiaGroup`), the elastic forces (:class:`AncfElasticGroup`) and, with
gravity, the exact weight ρ ∫ Sᵀ g dV (:class:`AncfWeightGroup`); each has a slot of the
compiled assembly (``ancf_inertia``, ``ancf_elastic``, ``ancf_weight``).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..groups import CompiledSlot, ConstantMassGroup, ForceGroup, float_array, int_array
from ..nodes import ANCF
from ..rotations import rotation_matrix
from .ancf_beam import LOCKING, AncfElements, hermite_shapes, reference_coordinates, section_rule
from .formulations import BeamFormulation, register_formulation
from .strain_energy import StrainEnergyGroup

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

    def _setup(self, names, dof_index, config_index):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)


class AncfInertiaGroup(_AncfGroup, ConstantMassGroup):
    """Constant consistent mass ρ ∫ Sᵀ S dV of the elements of all ANCF beams: F = M q̈, no
    velocity terms; compiled: slot ``ancf_inertia`` (the cable's constant-mass kernel)."""

    def __init__(self, names, dof_index, config_index, M):
        self._setup(names, dof_index, config_index)
        self.M = np.asarray(M, float)

    def compiled_slot(self):
        return CompiledSlot("ancf_inertia", (int_array(self.dof_index), float_array(self.M)))



class AncfElasticGroup(_AncfGroup, StrainEnergyGroup):
    """Elastic forces Q = −∂V/∂e and ∂Q/∂e = −K of the elements of all ANCF beams
    (:mod:`.ancf_beam`; formulas in its docstring): in NumPy one
    ``AncfElements.elastic_forces`` call per beam (the reference), compiled one loop over
    all elements × points (slot ``ancf_elastic``, flexmbd/kernels/ancf_beam.py)."""

    output_names = ("strain_energy", "axial_force", "curvature")

    def __init__(self, parts):
        """``parts``: [(names, dof_index, config_index, elements)], one per beam."""
        names, start, self.parts = [], 0, []
        for nm, _, _, el in parts:
            names += list(nm)
            self.parts.append((slice(start, start + len(nm)), el))
            start += len(nm)
        self._setup(names, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]))
        self.stage = 1          # structural forces after the applied loads (summation order)

    def compiled_slot(self):
        """All beams in one slot: each element's points (the volume's, then the centre
        line's for the strain split) with their (λ, μ, c), padded with zero-weight points
        to the largest count (the plain form, other section rules)."""
        bs, ws, cs = [], [], []
        for _, el in self.parts:
            n = len(el.e_ref)
            bs.append(np.concatenate([pts.b for pts, _ in el.parts], axis=1))
            ws.append(np.concatenate([pts.w for pts, _ in el.parts], axis=1))
            cs.append(np.concatenate([np.broadcast_to(np.asarray(cf, float), (n, pts.w.shape[1], 3))
                                      for pts, cf in el.parts], axis=1))
        g = max(w.shape[1] for w in ws)

        def pad(x):
            return np.concatenate([x, np.zeros((x.shape[0], g - x.shape[1]) + x.shape[2:])], axis=1)
        return CompiledSlot("ancf_elastic", (
            int_array(self.config_index), float_array(np.concatenate([pad(b) for b in bs])),
            float_array(np.concatenate([pad(w) for w in ws])), float_array(np.concatenate([pad(c) for c in cs]))))

    def _part_forces(self, qe, jacobians):
        return [el.elastic_forces(qe[self.config_index[rows]], jacobians) for rows, el in self.parts]

    def outputs(self, qe, ve, t, lam=None):
        e = qe[self.config_index]
        parts = [(el, e[rows]) for rows, el in self.parts]
        return {"strain_energy": self._forces(qe, False)[2],
                "axial_force": np.concatenate([el.axial_force(x) for el, x in parts]),
                "curvature": np.concatenate([el.curvature(x) for el, x in parts])}


class AncfWeightGroup(_AncfGroup, ForceGroup):
    """Weight ρ ∫ Sᵀ g dV of the elements of all ANCF beams (constant; a load in static
    load stepping); compiled: slot ``ancf_weight`` (the cable's constant-load kernel)."""

    is_load = True

    def __init__(self, names, dof_index, config_index, Q):
        self._setup(names, dof_index, config_index)
        self.Q = np.asarray(Q, float)

    def compiled_slot(self):
        return CompiledSlot("ancf_weight", (float_array(self.Q),))

    def evaluate(self, qe, ve, t, jacobians=True):
        return self.Q, None, None

    def potential_energy(self, qe, t):
        return float(-np.sum(self.Q * qe[self.config_index]))


def ancf_groups(system, specs):
    """(inertia groups, force groups) of the ANCF beams ``specs``: one inertia, one weight
    and one elastic group for all of them (the first two over the beams with ρ > 0)."""
    gravity = np.asarray(system.model.gravity, dtype=float)
    heavy, elastic = [], []
    for spec in specs:
        d = spec.data
        el = d["ancf"]
        names = [f"{spec.name}.e{i}" for i in range(len(d["conn"]))]
        part = (names, _rows(system, spec, "dof"), _rows(system, spec, "config"), el)
        elastic.append(part)
        if el.rho > 0:
            heavy.append(part)
    inertia, forces = [], []
    if heavy:
        names = [x for p in heavy for x in p[0]]
        dofs, cfgs = np.concatenate([p[1] for p in heavy]), np.concatenate([p[2] for p in heavy])
        inertia.append(AncfInertiaGroup(names, dofs, cfgs, np.concatenate([p[3].mass_matrix() for p in heavy])))
        if np.any(gravity != 0):
            forces.append(AncfWeightGroup([f"{n}.weight" for n in names], dofs, cfgs,
                                          np.concatenate([p[3].weight(gravity) for p in heavy])))
    if elastic:
        forces.append(AncfElasticGroup(elastic))
    return inertia, forces
