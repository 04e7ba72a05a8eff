"""The gradient-deficient ANCF cable element (``formulation="ancf-cable"``).

Nodes of kind :data:`~flexmbd.nodes.ANCF_CABLE` carry e_k = (r_k, r_x,k); a two-node
element interpolates the axis with cubic Hermite polynomials in the reference arc length
x ∈ [0, L] (Shabana, *Dynamics of Multibody Systems*, 4th ed., sec. 7.3; Gerstmayr &
Irschik 2008, eq. for the planar element with the same shape functions), ξ = x/L:

    r(x) = h1 r_A + h2 r_x,A + h3 r_B + h4 r_x,B,
    h1 = 1 − 3ξ² + 2ξ³, h2 = L (ξ − 2ξ² + ξ³), h3 = 3ξ² − 2ξ³, h4 = L (ξ³ − ξ²),

12 coordinates per element (``hermite``).  Strain energy per element, r′ = ∂r/∂x,
r″ = ∂²r/∂x², with the interpolated reference r₀ (the nodes' initial state) giving
c₀ = |r₀′| and κ₀:

    U = ∫ [½ EA ε² + ½ EI (κ − κ₀)²] c₀ dx,
    ε = |r′|/c₀ − 1,        κ = |r′ × r″| / |r′|³

(the axial strain of the centre line and the exact curvature of the elastic line,
Gerstmayr & Irschik 2008, "On the correct representation of bending and axial
deformation in the absolute nodal coordinate formulation with an elastic line
approach", J. Sound Vib. 318; their planar κ is the signed version of this one).
``bending="linear"``: the small-strain form ½ EI r″·r″ (Berzeri & Shabana 2000,
"Development of simple models for the elastic forces in the absolute nodal coordinate
formulation", J. Sound Vib. 235: κ ≈ |r″| when |r′| ≈ 1), a constant bending stiffness;
straight references only (r₀″ = 0).

Derivatives are exact and analytic.  With y = (a, b) = (r′, r″), m = a·a,
P = |a × b|² = m |b|² − (a·b)², κ² = g = P/m³ (smooth, also at κ = 0):

    ∇_a P = 2|b|² a − 2(a·b) b,  ∇_b P = 2m b − 2(a·b) a,
    ∇²P = [[2|b|² I − 2bbᵀ, 4abᵀ − 2baᵀ − 2(a·b) I], [·ᵀ, 2m I − 2aaᵀ]],
    ∇g = ∇P/m³ − 3P ∇m/m⁴,
    ∇²g = ∇²P/m³ − 3(∇P∇mᵀ + ∇m∇Pᵀ)/m⁴ + 12P ∇m∇mᵀ/m⁵ − 3P ∇²m/m⁴,
    ½(κ − κ₀)² = ½ g − κ₀ √g + ½ κ₀²,  ∇√g = ∇g/(2κ),  ∇²√g = ∇²g/(2κ) − ∇g∇gᵀ/(4κ³),

and for the axial part ∇_a(½ε²) = ε â/c₀, ∇²_a = ââᵀ/c₀² + ε (I − ââᵀ)/(c₀|a|).  The
element force is f_k = Σ_g W_g (h′_k ∇_aψ + h″_k ∇_bψ), its stiffness the same
contraction of ∇²ψ, vectorised over elements × Gauss points (``elastic_forces``).

Mass and gravity are constant: M = ρA ∫ Sᵀ S c₀ dx, Q_g = ρA ∫ Sᵀ g c₀ dx, S = [h_k I]
(5-point Gauss: exact for the degree-6 products on straight references).
"""
from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..errors import ModelError
from ..groups import CompiledSlot, ConstantMassGroup, ForceGroup, float_array, int_array
from ..nodes import ANCF_CABLE
from .formulations import BeamFormulation, register_formulation
from .shape import gauss_legendre
from .strain_energy import StrainEnergyGroup

#: Gauss points per element (axial, bending) of each integration rule
RULES = {"full": (5, 5), "reduced": (3, 3)}
#: points of the mass matrix and gravity (exact for the Hermite products on straight elements)
N_MASS = 5


# --------------------------------------------------------------------------- shapes
def hermite(xi: np.ndarray, L: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cubic Hermite shape functions and their x-derivatives at ξ (ng,) for elements of
    lengths L (n,): H, H′, H″ each (n, ng, 4) in the order (r_A, r_x,A, r_B, r_x,B)."""
    xi = np.asarray(xi, dtype=float)[None, :]
    L = np.asarray(L, dtype=float)[:, None]
    one = np.ones_like(xi)
    H = np.stack(np.broadcast_arrays(1 - 3 * xi**2 + 2 * xi**3, L * (xi - 2 * xi**2 + xi**3),
                                     3 * xi**2 - 2 * xi**3, L * (xi**3 - xi**2)), -1)
    dH = np.stack(np.broadcast_arrays((-6 * xi + 6 * xi**2) / L, one - 4 * xi + 3 * xi**2,
                                      (6 * xi - 6 * xi**2) / L, 3 * xi**2 - 2 * xi), -1)
    ddH = np.stack(np.broadcast_arrays((-6 + 12 * xi) / L**2, (-4 + 6 * xi) / L, (6 - 12 * xi) / L**2,
                                       (-2 + 6 * xi) / L), -1)
    return H, dH, ddH


def _gradients(e: np.ndarray, dH: np.ndarray, ddH: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """r′ and r″ (n, ng, 3) of element coordinates e (n, 12)."""
    E = np.asarray(e, dtype=float).reshape(len(e), 4, 3)
    return np.einsum("ngk,nki->ngi", dH, E), np.einsum("ngk,nki->ngi", ddH, E)


def curvature(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """κ = |a × b|/|a|³ (Gerstmayr & Irschik 2008) of r′ = a, r″ = b."""
    return np.linalg.norm(np.cross(a, b), axis=-1) / np.linalg.norm(a, axis=-1) ** 3


# --------------------------------------------------------------------------- energy
def _axial(a, c0, EA, jacobians):
    """Energy density ½ EA ε² (per unit reference length), gradient and Hessian in a."""
    na = np.linalg.norm(a, axis=-1)
    eps = na / c0 - 1.0
    ah = a / na[..., None]
    psi = 0.5 * EA[:, None] * eps**2
    grad = (EA[:, None] * eps / c0)[..., None] * ah
    if not jacobians:
        return psi, grad, None
    P = ah[..., :, None] * ah[..., None, :]
    H = (EA[:, None] / c0**2)[..., None, None] * P + (EA[:, None] * eps / (c0 * na))[..., None, None] * (np.eye(3) - P)
    return psi, grad, H


def _bending(a, b, kappa0, EI, linear, jacobians):
    """Energy density ½ EI (κ − κ₀)² (or ½ EI b·b), gradient (n, ng, 6) and Hessian
    (n, ng, 6, 6) in y = (a, b); formulas in the module docstring."""
    EI = EI[:, None]
    n, ng = a.shape[:2]
    if linear:
        psi = 0.5 * EI * np.einsum("ngi,ngi->ng", b, b)
        grad = np.concatenate([np.zeros_like(a), EI[..., None] * b], -1)
        H = None
        if jacobians:
            H = np.zeros((n, ng, 6, 6))
            H[..., 3:, 3:] = EI[..., None, None] * np.eye(3)
        return psi, grad, H
    eye = np.eye(3)
    m = np.einsum("ngi,ngi->ng", a, a)
    bb = np.einsum("ngi,ngi->ng", b, b)
    ab = np.einsum("ngi,ngi->ng", a, b)
    P = m * bb - ab**2
    dP = np.concatenate([2 * bb[..., None] * a - 2 * ab[..., None] * b, 2 * m[..., None] * b - 2 * ab[..., None] * a], -1)
    dm = np.concatenate([2 * a, np.zeros_like(a)], -1)
    g = P / m**3
    dg = dP / (m**3)[..., None] - (3 * P / m**4)[..., None] * dm
    curved = kappa0 > 0
    kap = np.sqrt(np.maximum(g, 0.0))
    ksafe = np.where(curved, np.maximum(kap, 1e-300), 1.0)
    psi = 0.5 * EI * (g - 2 * kappa0 * kap + kappa0**2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dk = np.where(curved[..., None], dg / (2 * ksafe)[..., None], 0.0)
    grad = 0.5 * EI[..., None] * dg - (EI * kappa0)[..., None] * dk
    if not jacobians:
        return psi, grad, None
    outer = lambda u, v: u[..., :, None] * v[..., None, :]   # noqa: E731
    ddP = np.zeros((n, ng, 6, 6))
    ddP[..., :3, :3] = 2 * bb[..., None, None] * eye - 2 * outer(b, b)
    ddP[..., :3, 3:] = 4 * outer(a, b) - 2 * outer(b, a) - 2 * ab[..., None, None] * eye
    ddP[..., 3:, :3] = np.swapaxes(ddP[..., :3, 3:], -1, -2)
    ddP[..., 3:, 3:] = 2 * m[..., None, None] * eye - 2 * outer(a, a)
    ddm = np.zeros((6, 6))
    ddm[:3, :3] = 2 * eye
    c = lambda x: x[..., None, None]   # noqa: E731
    ddg = (ddP / c(m**3) - 3 * (outer(dP, dm) + outer(dm, dP)) / c(m**4) + 12 * c(P / m**5) * outer(dm, dm)
           - 3 * c(P / m**4) * ddm)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # κ → 0 on a curved reference: singular
        ddk = np.where(c(curved), ddg / c(2 * ksafe) - outer(dg, dg) / c(4 * ksafe**3), 0.0)
    H = 0.5 * c(EI) * ddg - c(EI * kappa0) * ddk
    return psi, grad, H


def elastic_forces(e, dH_a, ddH_a, W_a, c0_a, dH_b, ddH_b, W_b, kappa0_b, EA, EI, linear=False, jacobians=True,
                   maps=None):
    """Internal forces f = ∂U/∂e (n, 12), tangent stiffness K = ∂²U/∂e² (n, 12, 12) and
    energy U (n,) of cable elements e (n, 12); axial terms on their Gauss points
    (shape derivatives dH_a, ddH_a (n, g_a, 4), weights W_a = w L c₀, reference stretch
    c0_a), bending terms on theirs (κ₀ = kappa0_b).  ``maps``: the constant strain maps
    (Ba, Bb) of ``strain_maps`` if precomputed.  Returns (f, K, U); K is None without
    ``jacobians``."""
    a, _ = _gradients(e, dH_a, ddH_a)
    psi_a, g_a, H_a = _axial(a, c0_a, EA, jacobians)
    a2, b2 = _gradients(e, dH_b, ddH_b)
    psi_b, g_b, H_b = _bending(a2, b2, kappa0_b, EI, linear, jacobians)
    U = np.einsum("ng,ng->n", W_a, psi_a) + np.einsum("ng,ng->n", W_b, psi_b)
    Ba, Bb = strain_maps(dH_a, dH_b, ddH_b) if maps is None else maps
    f = (np.einsum("ng,ngi,ngij->nj", W_a, g_a, Ba) + np.einsum("ng,ngi,ngij->nj", W_b, g_b, Bb))
    if not jacobians:
        return f, None, U
    BaT, BbT = np.swapaxes(Ba, -1, -2), np.swapaxes(Bb, -1, -2)
    K = (BaT @ (W_a[..., None, None] * H_a) @ Ba).sum(1) + (BbT @ (W_b[..., None, None] * H_b) @ Bb).sum(1)
    return f, K, U


def strain_maps(dH_a: np.ndarray, dH_b: np.ndarray, ddH_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ba (n, g_a, 3, 12) with r′ = Ba e at the axial points and Bb (n, g_b, 6, 12) with
    (r′, r″) = Bb e at the bending points (constant per element)."""
    return _strain_map(dH_a), np.concatenate([_strain_map(dH_b), _strain_map(ddH_b)], 2)


def _strain_map(dH: np.ndarray) -> np.ndarray:
    """B (n, g, 3, 12) with B e = Σ_k dH_k e_k (e_k the 3-blocks of e): B = [dH_k I₃]."""
    n, g, _ = dH.shape
    return (dH[:, :, None, :, None] * np.eye(3)[None, None, :, None, :]).reshape(n, g, 3, 12)


# --------------------------------------------------------------------------- groups
class _Part(NamedTuple):
    """Elements of one integration rule and bending form within a CableElasticGroup."""

    rows: slice
    rules: dict
    EA: np.ndarray
    EI: np.ndarray
    linear: bool
    maps: tuple


class CableElasticGroup(StrainEnergyGroup):
    """Elastic forces of ANCF cable elements (Q = −f, ∂Q/∂q = −K): vectorised over
    elements and Gauss points in NumPy (``elastic_forces``, the reference; one call per
    part of one integration rule and bending form), and in one compiled loop over all
    elements in the compiled assembly (slot ``cable_elastic``, flexmbd/kernels/ancf_cable.py)."""

    kind = ANCF_CABLE
    output_names = ("strain_energy", "axial_force", "curvature")

    def __init__(self, parts):
        """``parts``: [(names, dof_index, config_index, rules, EA, EI, linear)], one per
        (integration rule, bending form); ``rules`` the arrays per element of
        ``AncfCableFormulation.reference`` (dH_a, ddH_a, W_a, c0_a, dH_b, …)."""
        self.element_names, self.parts, start = [], [], 0
        for names, _, _, rules, EA, EI, linear in parts:
            n = len(names)
            self.element_names += list(names)
            self.parts.append(_Part(slice(start, start + n), rules, np.asarray(EA, float), np.asarray(EI, float),
                                    bool(linear), strain_maps(rules["dH_a"], rules["dH_b"], rules["ddH_b"])))
            start += n
        self.dof_index = np.concatenate([np.asarray(p[1], dtype=int) for p in parts])
        self.config_index = np.concatenate([np.asarray(p[2], dtype=int) for p in parts])
        self.EA = np.concatenate([p.EA for p in self.parts])
        self.mid = {k: np.concatenate([p.rules[k] for p in self.parts]) for k in ("dH_m", "ddH_m", "c0_m")}
        self.stage = 1          # structural forces after the applied loads (summation order)

    def compiled_slot(self):
        """All parts in one slot: the Gauss arrays padded to the largest rule by repeating
        a part's last point with weight zero, and the bending form per element."""
        ga = max(p.rules["dH_a"].shape[1] for p in self.parts)
        gb = max(p.rules["dH_b"].shape[1] for p in self.parts)

        def cat(key, g, weight=False):
            return float_array(np.concatenate([_pad(p.rules[key], g, weight) for p in self.parts]))
        linear = np.concatenate([np.full(p.rows.stop - p.rows.start, int(p.linear)) for p in self.parts])
        return CompiledSlot("cable_elastic", (
            int_array(self.config_index), cat("dH_a", ga), cat("W_a", ga, True), cat("c0_a", ga), cat("dH_b", gb),
            cat("ddH_b", gb), cat("W_b", gb, True), cat("kappa0_b", gb), float_array(self.EA),
            float_array(np.concatenate([p.EI for p in self.parts])), int_array(linear)))

    def _part_forces(self, qe, jacobians):
        out = []
        for p in self.parts:
            r = p.rules
            out.append(elastic_forces(qe[self.config_index[p.rows]], r["dH_a"], r["ddH_a"], r["W_a"], r["c0_a"],
                                      r["dH_b"], r["ddH_b"], r["W_b"], r["kappa0_b"], p.EA, p.EI, p.linear, jacobians,
                                      p.maps))
        return out

    def outputs(self, qe, ve, t, lam=None):
        """Strain energy; axial force EA ε and curvature κ at the element's midpoint."""
        e = qe[self.config_index]
        a, b = _gradients(e, self.mid["dH_m"], self.mid["ddH_m"])
        eps = np.linalg.norm(a, axis=-1)[:, 0] / self.mid["c0_m"] - 1.0
        return {"strain_energy": self._forces(qe, False)[2], "axial_force": self.EA * eps,
                "curvature": curvature(a, b)[:, 0]}


def _pad(x: np.ndarray, g: int, weight: bool) -> np.ndarray:
    """x (n, g0, …) per Gauss point padded to g points: the last point repeated (zero for
    weights), so that padded points add exactly zero."""
    extra = np.repeat(x[:, -1:], g - x.shape[1], axis=1)
    return np.concatenate([x, np.zeros_like(extra) if weight else extra], axis=1)


class CableInertiaGroup(ConstantMassGroup):
    """Constant consistent mass of ANCF cable elements: F = M q̈ (no velocity terms)."""

    kind = ANCF_CABLE

    def __init__(self, names, dof_index, config_index, M):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.M = np.asarray(M, float)

    def compiled_slot(self):
        return CompiledSlot("cable_inertia", (int_array(self.dof_index), float_array(self.M)))



class CableGravityGroup(ForceGroup):
    """Exact weight of ANCF cable elements: the constant Q = ρA ∫ Sᵀ g c₀ dx (an applied load)."""

    kind = ANCF_CABLE
    is_load = True

    def __init__(self, names, dof_index, config_index, Q):
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int)
        self.config_index = np.asarray(config_index, dtype=int)
        self.Q = np.asarray(Q, float)

    def compiled_slot(self):
        return CompiledSlot("cable_weight", (float_array(self.Q),))

    def evaluate(self, qe, ve, t, jacobians=True):
        return self.Q, None, None

    def potential_energy(self, qe, t):
        return float(-np.sum(self.Q * qe[self.config_index]))   # r linear in q: V = −Qᵀ q


# ---------------------------------------------------------------------- formulation
def _element_rows(node_rows, conn):
    return node_rows[np.asarray(conn, dtype=int)].reshape(len(conn), -1)


class AncfCableFormulation(BeamFormulation):
    """``formulation="ancf-cable"``: see the module docstring."""

    name = "ancf-cable"
    kind = ANCF_CABLE
    summary = "gradient-deficient ANCF cable: positions and slopes, cubic Hermite elements"
    options: ClassVar[dict[str, Any]] = {"bending": "curvature"}

    def default_integration(self, order, interpolation):
        return "full"

    def check(self, what, name, order, interpolation, integration, options):
        if interpolation != "lagrange":
            raise ModelError(f"{what}: ANCF cable elements are cubic Hermite polynomials; interpolation must be "
                             f"left at 'lagrange', got {interpolation!r}", element=name, key="interpolation")
        if order not in (1, 3):
            raise ModelError(f"{what}: ANCF cable elements are cubic Hermite (order 3); leave order out or give 3, "
                             f"got {order!r}", element=name, key="order")
        if integration not in RULES:
            raise ModelError(f"{what}: integration must be one of {tuple(RULES)} for ANCF cables, got "
                             f"{integration!r}", element=name, key="integration")

    def topology(self, geometry, n_el, order, interpolation, integration):
        ref = geometry.nodes(n_el + 1)
        conn = np.c_[np.arange(n_el), np.arange(1, n_el + 1)]
        L = np.diff(ref.s)
        return dict(x=ref.x, R=ref.R, conn=conn, length=L, s_range=np.c_[ref.s[:-1], ref.s[1:]])

    def reference(self, data, q):
        """Gauss rules, reference stretch c₀ and curvature κ₀ at the Gauss points, from the
        nodes' initial state (r = x, r_x = the reference tangent)."""
        from ..rotations import rotation_matrix

        sec = data["section"]
        name = data.get("name", "beam")
        if not np.isclose(sec.EI2, sec.EI3, rtol=1e-12, atol=0.0):
            raise ModelError(f"an ANCF cable has one bending stiffness, but the section's EI2 = {sec.EI2:g} and "
                             f"EI3 = {sec.EI3:g} differ; use a section with equal bending stiffnesses "
                             "(square, circle, tube)", element=name, key="section")
        tangent = rotation_matrix(q[:, 3:]).reshape(-1, 3, 3)[:, :, 0]
        e0 = np.c_[q[:, :3], tangent][data["conn"]].reshape(len(data["conn"]), 12)
        L = data["length"]
        na, nb = RULES[data["integration"]]
        out = {}
        for tag, ng in (("a", na), ("b", nb), ("M", N_MASS)):
            z, w = gauss_legendre(ng)
            H, dH, ddH = hermite(z, L)
            a0, b0 = _gradients(e0, dH, ddH)
            c0 = np.linalg.norm(a0, axis=-1)
            out.update({f"H_{tag}": H, f"dH_{tag}": dH, f"ddH_{tag}": ddH, f"c0_{tag}": c0,
                        f"W_{tag}": w[None, :] * L[:, None] * c0, f"kappa0_{tag}": curvature(a0, b0)})
        H, dH, ddH = hermite(np.array([0.5]), L)
        out.update(dH_m=dH, ddH_m=ddH, c0_m=np.linalg.norm(_gradients(e0, dH, ddH)[0], axis=-1)[:, 0])
        straight = np.max(np.abs(out["kappa0_b"])) <= 1e-9 / max(float(np.max(L)), 1e-300)
        if data["options"]["bending"] == "linear" and not straight:
            raise ModelError("the small-strain bending form (bending: linear) needs a straight reference; use "
                             "bending: curvature for curved beams", element=name, key="bending")
        if straight:
            out["kappa0_b"] = np.zeros_like(out["kappa0_b"])
        data["cable"] = out
        data["e0"] = e0

    def build(self, system, elements):
        """One inertia, one weight and one elastic group for all cables (the elastic group
        in parts of one integration rule and bending form each)."""
        names, dofs, cfgs, Ms, Qg, elastic = [], [], [], [], [], {}
        g = np.asarray(system.model.gravity, dtype=float)
        for el in elements:
            d, nodes = el.data, el.bodies
            k = len(d["conn"])
            nm = [f"{el.name}.e{i}" for i in range(k)]
            dof = _element_rows(system.dof_rows(nodes, ANCF_CABLE), d["conn"])
            cfg = _element_rows(system.config_rows(nodes, ANCF_CABLE), d["conn"])
            names += nm
            dofs.append(dof)
            cfgs.append(cfg)
            sec, c = d["section"], d["cable"]
            S = c["H_M"]                                             # (k, g, 4)
            Mb = sec.rhoA * np.einsum("ng,ngk,ngl->nkl", c["W_M"], S, S)
            Ms.append(np.einsum("nkl,ij->nkilj", Mb, np.eye(3)).reshape(k, 12, 12))
            Qg.append(sec.rhoA * np.einsum("ng,ngk,i->nki", c["W_M"], S, g).reshape(k, 12))
            key = (d["integration"], d["options"]["bending"] == "linear")
            elastic.setdefault(key, []).append((nm, dof, cfg, c, np.full(k, sec.EA), np.full(k, sec.EI2)))
        dofs, cfgs = np.concatenate(dofs), np.concatenate(cfgs)
        M, Q = np.concatenate(Ms), np.concatenate(Qg)
        groups = []
        if np.any(M != 0):
            groups.append(CableInertiaGroup(names, dofs, cfgs, M))
        if np.any(Q != 0):
            groups.append(CableGravityGroup([f"{n}.weight" for n in names], dofs, cfgs, Q))
        parts = []
        for (_, linear), cables in elastic.items():
            nm, dof, cfg, c, EA, EI = zip(*cables)
            rule = {key: np.concatenate([r[key] for r in c]) for key in c[0]}
            parts.append(([x for names_e in nm for x in names_e], np.concatenate(dof), np.concatenate(cfg), rule,
                          np.concatenate(EA), np.concatenate(EI), linear))
        groups.append(CableElasticGroup(parts))
        return groups

    def positions(self, beam, result, s):
        """r(s) = Σ h_k e_k on the element holding s, from the nodes' stored coordinates."""
        d = beam.spec.data
        s = float(s)
        s0, s1 = d["s_range"][:, 0], d["s_range"][:, 1]
        e = int(np.clip(np.searchsorted(s1, s), 0, len(s1) - 1))
        H = hermite(np.array([(s - s0[e]) / (s1[e] - s0[e])]), d["length"][e:e + 1])[0][0, 0]
        sys = result.system
        q = np.concatenate([result.q[:, sys.config_slice(beam.nodes[k])] for k in d["conn"][e]], axis=1)
        return np.einsum("k,rki->ri", H, q.reshape(len(q), 4, 3))


ANCF_CABLE_BEAM = register_formulation(AncfCableFormulation())
