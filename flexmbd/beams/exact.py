"""The geometrically exact beams behind the formulation seam: ``se3`` (SE(3) frames,
Lagrange or NURBS elements of any order) and ``r3r3`` (positions and total rotation
vectors, first-order elements); see docs/elements/beam-se3.md and beam-r3r3.md.

The nodes sit on the reference curve with its frames (Lagrange: equally spaced in arc
length; NURBS: control frames, ``_control_frames``); the elements keep the reference
relative twists (``d0``, first-order SE(3)), reference strains (``eps0``) or reference
coordinates (``q_ref``, R³×R³).  Their groups are :mod:`.groups`.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..forces.loads import GravityGroup
from ..lie import quat_to_rotvec, se3_exp, se3_from_Rx, se3_inv, se3_log
from ..nodes import R3R3, SE3
from ..rotations import rotation_matrix
from .formulations import BeamFormulation, register_formulation
from .geometry import CircularArc, NurbsReference, StraightLine
from .inertia import velocity_map
from .se3_beam import reference_strains, relative_twists, section_velocity_map
from .se3_linear import relative_twist
from .shape import NurbsCurve, gauss_legendre, lagrange, nurbs_elements

INTEGRATIONS = ("full", "reduced", "hw")


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
    forces and stiffness.  The beam's inertia always takes p + 1 points, which integrate
    Σ N_k N_l exactly (with p points the mass's rank drops by 6 per element); the Galerkin
    mass of n-node elements (:mod:`.inertia`) has integrands of higher degree, which more
    points change by less than the discretization error (docs/elements/beam-se3.md).
    """
    if formulation == "se3" and order == 1 and interpolation == "lagrange":
        return "full"
    return "reduced"


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


def _positions(beam, result, s):
    """Positions (rows, 3) of the beam's axis at reference arc length ``s`` for every
    row of ``result``, from the element's interpolation H(s) = H_1 exp(Σ N_k ξ_k)."""
    data = beam.spec.data
    e, N = _shape_at(data, float(s))
    idx = data["conn"][e]
    if beam.formulation == "r3r3":   # positions interpolated linearly
        return sum(Nk * result[f"{beam.nodes[k].name}.position"] for Nk, k in zip(N, idx))
    q = np.stack([np.c_[result[f"{beam.nodes[k].name}.position"], result[f"{beam.nodes[k].name}.orientation"]]
                  for k in idx], axis=1)                                  # (rows, n, 7)
    R = rotation_matrix(q[..., 3:].reshape(-1, 4)).reshape(q.shape[:2] + (3, 3))
    xi = relative_twists(R, q[..., :3])
    h = np.einsum("k,rki->ri", N, xi)
    H = se3_exp(h)
    return q[:, 0, :3] + np.einsum("rij,rj->ri", R[:, 0], H[:, :3, 3])


def build_exact_beams(elements, system):
    """Inertia, weight (consistent nodal shares of ρA g) and elastic groups of every beam
    (one group per element type, vectorised over all beams)."""
    inertia, forces = beam_groups(system, elements)
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
        g.stage = 1   # structural forces after the applied loads (summation order)
    return inertia + weights + forces


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
                                                                "P_inertia", "w_inertia")}
        for spec in group:
            d, nodes = spec.data, spec.bodies
            k = len(d["conn"])
            names += [f"{spec.name}.e{i}" for i in range(k)]
            dofs.append(_element_rows(system.dof_rows(nodes, nodes[0].kind), d["conn"]))
            cfgs.append(_element_rows(system.config_rows(nodes, nodes[0].kind), d["conn"]))
            for key in ("N", "dN", "w", "length", "w_inertia"):
                parts[key].append(d[key])
            if kind == "se3-n":
                parts["P_inertia"].append(d["P_inertia"])
            parts["d0" if kind == "se3-2" else "eps0"].append(d["d0" if kind == "se3-2" else "eps0"])
            parts["D"].append(np.broadcast_to(d["section"].stiffness_matrix(), (k, 6, 6)))
            parts["Ms"].append(np.broadcast_to(d["section"].inertia_matrix(), (k, 6, 6)))
        cat = {key: np.concatenate(v) for key, v in parts.items() if v}
        dofs, cfgs = np.concatenate(dofs), np.concatenate(cfgs)
        if kind == "se3-2":
            forces.append(BeamElasticGroup(names, dofs, cfgs, cat["d0"], cat["length"], cat["D"]))
            # two Gauss points integrate the (cubic) inertia integrands of linear elements exactly;
            # the nodes' twists interpolated linearly ([SCB14], inertia.py)
            zg, wg = gauss_legendre(2)
            P, w = velocity_map(lagrange(1, zg)[0]), cat["length"][:, None] * wg[None, :]
        else:
            forces.append(BeamElasticGroupN(names, dofs, cfgs, cat["N"], cat["dN"], cat["w"], cat["eps0"], cat["D"]))
            P, w = cat["P_inertia"], cat["w_inertia"]        # p + 1 points whatever the elastic rule
        if np.any(cat["Ms"] != 0):
            inertia.append(BeamInertiaGroup(names, dofs, cfgs, P, w, cat["Ms"]))
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


class _ExactFormulation(BeamFormulation):
    """Common part of the SE(3) and R³×R³ formulations."""

    def default_integration(self, order, interpolation):
        return default_integration(self.name, order, interpolation)

    def check(self, what, name, order, interpolation, integration, options):
        if integration not in INTEGRATIONS:
            raise ModelError(f"{what}: integration must be one of {INTEGRATIONS} for formulation {self.name!r}, "
                             f"got {integration!r}", element=name, key="integration")
        if interpolation == "nurbs" and order < 2:
            raise ModelError(f"{what}: order must be an integer ≥ 1 (≥ 2 for NURBS), got {order!r}",
                             element=name, key="order")
        if integration == "hw" and not (order == 1 and interpolation == "lagrange"):
            raise ModelError(f"{what}: the Hu-Washizu form (integration='hw') is a remedy for first-order elements",
                             element=name, key="integration")

    def topology(self, geometry, n_el, order, interpolation, integration):
        n_gauss = order + 1 if integration == "full" else order
        if interpolation == "lagrange":
            return _lagrange_topology(geometry, n_el, order, n_gauss)
        return _nurbs_topology(geometry, n_el, order, n_gauss)

    def build(self, system, elements):
        return build_exact_beams(elements, system)

    def positions(self, beam, result, s):
        return _positions(beam, result, s)


class SE3Formulation(_ExactFormulation):
    """SE(3) beam nodes; Lagrange or NURBS elements of any order (docs/elements/beam-se3.md)."""

    name = "se3"
    kind = SE3
    summary = "SE(3) nodes (frames), Lagrange or NURBS elements"

    def reference(self, data, q):
        conn = data["conn"]
        if data["order"] == 1 and data["interpolation"] == "lagrange":
            data["d0"] = relative_twist(q[conn[:, 0]], q[conn[:, 1]])
        else:
            Rn = rotation_matrix(q[:, 3:]).reshape(-1, 3, 3)
            data["eps0"] = reference_strains(Rn[conn], q[conn][..., :3], data["N"], data["dN"])
            # the inertia's velocity map: the Galerkin one of the interpolation about the reference
            data["P_inertia"] = section_velocity_map(Rn[conn], q[conn][..., :3], data["N_inertia"])


class R3R3Formulation(_ExactFormulation):
    """Positions and total rotation vectors, first-order elements (docs/elements/beam-r3r3.md)."""

    name = "r3r3"
    kind = R3R3
    summary = "positions and total rotation vectors, first-order Lagrange elements"

    def check(self, what, name, order, interpolation, integration, options):
        if interpolation == "nurbs" and order < 2:
            raise ModelError(f"{what}: order must be an integer ≥ 1 (≥ 2 for NURBS), got {order!r}",
                             element=name, key="order")
        if not (order == 1 and interpolation == "lagrange"):
            raise ModelError(f"{what}: the R³×R³ formulation has first-order Lagrange elements only "
                             f"(order=1, interpolation='lagrange'), got order={order!r}, "
                             f"interpolation={interpolation!r}", element=name, key="formulation")
        super().check(what, name, order, interpolation, integration, options)

    def reference(self, data, q):
        data["q_ref"] = _r3r3_reference(q, data["conn"])


SE3_BEAM = register_formulation(SE3Formulation())
R3R3_BEAM = register_formulation(R3R3Formulation())
