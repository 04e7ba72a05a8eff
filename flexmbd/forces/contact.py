"""Contact force elements: P4's Kelvin pounding element and the Hertz point contact.

Both act between a point (or sphere) of body i and one of body j, through markers, so they
serve every node kind (rigid bodies, beam nodes, floating-frame modal beams, ground) and
join bodies of two different spatial kinds.  With x_i, x_j the two points, r = x_i − x_j
and n the contact normal (pointing from body i towards body j), the penetration is

    δ = n · r + d₀                                                    (contact while δ > 0)

* ``kelvin_contact`` and the sphere-plane ``hertz_contact``: n = A_i n̄ is fixed in body i
  (global for ground) and δ is the signed distance of x_j past the plane through x_i
  normal to n, shifted by d₀ (P4: δ = x_i − x_j − g_p, so d₀ = −g_p when the points
  coincide initially; sphere-plane: d₀ = the sphere's radius);
* sphere-sphere ``hertz_contact``: n = −r/|r| along the centre line and d₀ = R_i + R_j,
  so δ = R_i + R_j − |x_i − x_j|.

The normal force while δ > 0 (zero otherwise) is

    F = k δ^p (1 + α δ') + c δ',

Kelvin (P4, Wu, Zhong & Liang 2006): p = 1, α = 0, F = k δ + c δ' (linear spring-dashpot;
an impact of effective mass m* rebounds with e = exp(−πζ/√(1−ζ²)), ζ = c/(2√(k m*)),
Goldsmith 1960); Hertz (Johnson, *Contact Mechanics*, 1985, eqs. 4.22-4.23 and §11.4):
p = 3/2, k = K = (4/3) E* √R*, 1/E* = (1−ν_i²)/E_i + (1−ν_j²)/E_j, 1/R* = 1/R_i + 1/R_j
(R_i = ∞ for a plane), with Hunt & Crossley's (1975) damping α = (3/2) c_r, c = 0:
F = K δ^{3/2}(1 + (3/2) c_r δ'); for small damping 1 − e ≈ c_r v₀, and exactly
α v₀ − ln(1 + α v₀) = −α v_e − ln(1 − α v_e) (v_e the rebound speed).

The generalised force is Q = −F (∂δ/∂q)ᵀ, exact with the marker Jacobians:

    ∂δ/∂q = nᵀ J_r + rᵀ J_n,       H = ∂(∂δ/∂q)ᵀ/∂q = J_rᵀ J_n + J_nᵀ J_r + C_r(n) + C_n(r)
    (spheres: ∂δ/∂q = nᵀ J_r, H = C_r(n) − J_rᵀ (I − n nᵀ) J_r / |r|),
    ∂Q/∂q = −[(∂δ/∂q)ᵀ ⊗ (F_δ ∂δ/∂q + F_δ' Hᵀ q') + F H],   ∂Q/∂q' = −F_δ' (∂δ/∂q)ᵀ ∂δ/∂q,

J_r, J_n the Jacobians of r and n, C_x(g) = ∂(J_xᵀ g)/∂q the markers' contractions (as
in :mod:`.bushing`).  Coulomb friction (Kelvin element, P4: F_y, F_z = ∓ μ F_x by the sign
of the tangential relative velocity) acts at the two points against the tangential
relative velocity t = (I − n nᵀ)(x_i' − x_j'):

    f = μ max(F, 0),   σ = t / √(t·t + ε²),   Q_f = −f J_rᵀ σ,

the isotropic (vector) sign, regularised with ε > 0 (``regularization``, as the project's
joint friction) or the plain sign t/|t| with ε = 0; its exact derivatives use
∂σ/∂t = I/ρ − t tᵀ/ρ³ (ρ = √(t·t + ε²)) and ∂t/∂q = P ∂(J_r q')/∂q − n (v_rᵀ J_n) − (n·v_r) J_n.

Regularity: Q is continuous in the state but its derivatives jump where the contact
closes (δ = 0: by k + α… for Kelvin, and F itself jumps by c δ' there), where F changes
sign (the friction's max) and, with ε = 0, at t = 0; the derivatives above are exact
everywhere else.  Energies: stored k δ^{p+1}/(p+1), dissipated (c + k α δ^p) δ'² +
f σ·t ≥ 0 (while closed).  Events: δ crossing zero is "contact closed" / "contact opened"
in ``Result.events``, the opening event carrying the impulse ∫F dt of that contact
(:mod:`flexmbd.solvers.events`, trapezoidal over the steps).  No compiled kernel: a model
with a contact runs its groups in NumPy (``Result.stats["assembly"]`` says so).
"""
from __future__ import annotations

from typing import Literal, Optional, Union

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from ..errors import ModelError
from ..ground import GROUND
from ..groups import ForceGroup
from ..nodes import PLANAR, POINT, VECTOR
from ..registry import ElementType, register
from ..spec import Axis, PairSpec, Point, point3, unit

NORMAL, SPHERES = "normal", "spheres"


def _join(bodies) -> bool:
    """Two nodes of different spatial kinds whose markers a contact can mix (not planar,
    no rotation-vector branches: rigid bodies, SE(3) and ANCF beam nodes, modal beams)."""
    nodes = [b for b in bodies if b is not GROUND]
    return (len(nodes) == 2 and nodes[0].kind != nodes[1].kind
            and all(b.kind != PLANAR and not b.kind.has_branches for b in nodes))


class ContactGroup(ForceGroup):
    """Contacts of one geometry (``"normal"`` or ``"spheres"``) between a node of kind
    ``kind_i`` and one of ``kind_j`` (module docstring); columns [node i's, node j's]."""

    stiffness_term = "sda_stiffness"
    damping_term = "sda_damping"
    output_names = ("penetration", "penetration_rate", "normal_force", "friction_force", "slip_velocity")
    event_noun = "contact"

    def __init__(self, kind_i, kind_j, geometry, names, dof_index, config_index, u_i, u_j, n_local, d0,
                 k, p, c, alpha, mu, eps):
        n = len(names)
        self.kind_i, self.kind_j = kind_i, kind_j
        self.kind = kind_i if kind_i.nv >= kind_j.nv else kind_j
        if kind_i != kind_j:
            self.side_kinds = (kind_i, kind_j)     # columns: node i's increments, then node j's
        self.geometry = geometry
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, kind_i.nv + kind_j.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(n, kind_i.nq + kind_j.nq)
        self.mi = kind_i.markers(np.asarray(u_i, float).reshape(n, 3), np.full(n, POINT))
        self.mj = kind_j.markers(np.asarray(u_j, float).reshape(n, 3), np.full(n, POINT))
        self.mn = kind_i.markers(np.asarray(n_local, float).reshape(n, 3), np.full(n, VECTOR)) \
            if geometry == NORMAL else None
        self.d0, self.k, self.p, self.c, self.alpha, self.mu, self.eps = (
            np.asarray(x, dtype=float).reshape(n) for x in (d0, k, p, c, alpha, mu, eps))

    # ------------------------------------------------------------ kinematics
    def _kinematics(self, qe, ve, second):
        """δ, δ', ∂δ/∂q, r, n, J_r, J_n, v_r (and H, ∂(J_r q')/∂q if ``second``)."""
        ni, nqi = self.kind_i.nv, self.kind_i.nq
        ql, vl = qe[self.config_index], ve[self.dof_index]
        qi, qj, vi, vj = ql[:, :nqi], ql[:, nqi:], vl[:, :ni], vl[:, ni:]
        n_el, w = vl.shape
        xi, Ji = self.mi.evaluate(qi)
        xj, Jj = self.mj.evaluate(qj)
        r = xi - xj
        Jr = np.concatenate([Ji, -Jj], axis=2)
        vr = np.einsum("nij,nj->ni", Jr, vl)
        out = dict(r=r, Jr=Jr, vr=vr, vl=vl)
        if self.geometry == NORMAL:
            nv, Jn_i = self.mn.evaluate(qi)
            Jn = np.zeros((n_el, 3, w))
            Jn[:, :, :ni] = Jn_i
            delta = np.einsum("ni,ni->n", nv, r) + self.d0
            grad = np.einsum("ni,nia->na", nv, Jr) + np.einsum("ni,nia->na", r, Jn)
        else:
            dist = np.linalg.norm(r, axis=1)
            if np.any(dist == 0.0):
                bad = self.element_names[int(np.flatnonzero(dist == 0.0)[0])]
                raise FloatingPointError(f"contact {bad!r}: the sphere centres coincide, the normal is undefined")
            nv = -r / dist[:, None]
            P = np.eye(3)[None] - nv[:, :, None] * nv[:, None, :]
            Jn = -np.einsum("nij,njk->nik", P, Jr) / dist[:, None, None]
            delta = self.d0 - dist
            grad = np.einsum("ni,nia->na", nv, Jr)
        out.update(n=nv, Jn=Jn, delta=delta, grad=grad, rate=np.einsum("na,na->n", grad, vl))
        if second:
            H = np.zeros((n_el, w, w))
            H[:, :ni, :ni] = self.mi.contract(qi, nv)
            H[:, ni:, ni:] = -self.mj.contract(qj, nv)
            if self.geometry == NORMAL:
                X = np.einsum("nia,nib->nab", Jr, Jn)
                H += X + X.transpose(0, 2, 1)
                H[:, :ni, :ni] += self.mn.contract(qi, r)
            else:
                H -= np.einsum("nia,nij,njb->nab", Jr, P, Jr) / dist[:, None, None]
            dJv = np.zeros((n_el, 3, w))
            dJv[:, :, :ni] = self.mi.dJv(qi, vi)
            dJv[:, :, ni:] = -self.mj.dJv(qj, vj)
            out.update(H=H, dJv=dJv, qi=qi, qj=qj)
        return out

    def _law(self, delta, rate):
        """F, ∂F/∂δ, ∂F/∂δ' (zero while open, δ ≤ 0)."""
        on = delta > 0.0
        d = np.where(on, delta, 0.0)
        dp = d ** self.p
        dp1 = np.where(on, self.p * d ** np.where(on, self.p - 1.0, 0.0), 0.0)
        F = np.where(on, self.k * dp * (1.0 + self.alpha * rate) + self.c * rate, 0.0)
        Fd = np.where(on, self.k * dp1 * (1.0 + self.alpha * rate), 0.0)
        Fr = np.where(on, self.c + self.k * self.alpha * dp, 0.0)
        return F, Fd, Fr

    def _friction(self, kin, F):
        """f, σ, t, ρ of the friction (f = 0 where F ≤ 0 or μ = 0)."""
        nv, vr = kin["n"], kin["vr"]
        t = vr - np.einsum("ni,ni->n", nv, vr)[:, None] * nv
        rho = np.sqrt(np.einsum("ni,ni->n", t, t) + self.eps**2)
        safe = np.where(rho > 0.0, rho, 1.0)
        sig = np.where((rho > 0.0)[:, None], t / safe[:, None], 0.0)
        f = self.mu * np.maximum(F, 0.0)
        return f, sig, t, rho, safe

    # -------------------------------------------------------------- forces
    def evaluate(self, qe, ve, t, jacobians=True):
        kin = self._kinematics(qe, ve, jacobians)
        grad, vl = kin["grad"], kin["vl"]
        F, Fd, Fr = self._law(kin["delta"], kin["rate"])
        Q = -F[:, None] * grad
        fric = bool(np.any(self.mu > 0.0))
        if fric:
            f, sig, tt, rho, safe = self._friction(kin, F)
            Jr = kin["Jr"]
            Q -= f[:, None] * np.einsum("nia,ni->na", Jr, sig)
        if not jacobians:
            return Q, None, None
        H = kin["H"]
        dFq = Fd[:, None] * grad + Fr[:, None] * np.einsum("nab,na->nb", H, vl)
        dFv = Fr[:, None] * grad
        K = -(grad[:, :, None] * dFq[:, None, :] + F[:, None, None] * H)
        D = -(grad[:, :, None] * dFv[:, None, :])
        if fric:
            ni = self.kind_i.nv
            nv, Jn, vr = kin["n"], kin["Jn"], kin["vr"]
            pos = (F > 0.0) & (self.mu > 0.0)
            dfq = np.where(pos, self.mu, 0.0)[:, None] * dFq
            dfv = np.where(pos, self.mu, 0.0)[:, None] * dFv
            S = np.where((rho > 0.0)[:, None, None],
                         np.eye(3)[None] / safe[:, None, None] - tt[:, :, None] * tt[:, None, :] / safe[:, None, None]**3,
                         0.0)
            P = np.eye(3)[None] - nv[:, :, None] * nv[:, None, :]
            dt_q = (np.einsum("nij,nja->nia", P, kin["dJv"]) - nv[:, :, None] * np.einsum("ni,nia->na", vr, Jn)[:, None, :]
                    - np.einsum("ni,ni->n", nv, vr)[:, None, None] * Jn)
            dt_v = np.einsum("nij,nja->nia", P, Jr)
            Jrs = np.einsum("nia,ni->na", Jr, sig)
            C = np.zeros_like(K)
            C[:, :ni, :ni] = self.mi.contract(kin["qi"], sig)
            C[:, ni:, ni:] = -self.mj.contract(kin["qj"], sig)
            JS = np.einsum("nia,nij->naj", Jr, S)
            K -= Jrs[:, :, None] * dfq[:, None, :] + f[:, None, None] * (C + np.einsum("naj,njb->nab", JS, dt_q))
            D -= Jrs[:, :, None] * dfv[:, None, :] + f[:, None, None] * np.einsum("naj,njb->nab", JS, dt_v)
        return Q, K, D

    # ------------------------------------------------------------ outputs
    def outputs(self, qe, ve, t, lam=None):
        """penetration δ [m] (> 0 closed), its rate [m/s], the normal force F [N] (> 0
        pushes the bodies apart), the friction force on body j (global, [N]) and the
        tangential slip speed |t| [m/s]."""
        kin = self._kinematics(qe, ve, False)
        F, _, _ = self._law(kin["delta"], kin["rate"])
        f, sig, tt, _, _ = self._friction(kin, F)
        return {"penetration": kin["delta"], "penetration_rate": kin["rate"], "normal_force": F,
                "friction_force": f[:, None] * sig, "slip_velocity": np.linalg.norm(tt, axis=1)}

    def potential_energy(self, qe, t):
        delta = self._kinematics(qe, np.zeros_like(qe), False)["delta"]
        d = np.maximum(delta, 0.0)
        return float(np.sum(self.k * d ** (self.p + 1.0) / (self.p + 1.0)))

    def dissipation_power(self, qe, ve, t, lam=None):
        kin = self._kinematics(qe, ve, False)
        delta, rate = kin["delta"], kin["rate"]
        F, _, _ = self._law(delta, rate)
        on = delta > 0.0
        damper = np.where(on, (self.c + self.k * self.alpha * np.maximum(delta, 0.0) ** self.p) * rate**2, 0.0)
        f, sig, tt, _, _ = self._friction(kin, F)
        return float(np.sum(damper + f * np.einsum("ni,ni->n", sig, tt)))

    # ------------------------------------------------------------- events
    def switching(self, qe, ve, t):
        """δ: positive while the contact is closed."""
        return self._kinematics(qe, ve, False)["delta"][:, None]

    def switch_rate(self, qe, ve, t):
        """The normal-force law continued across δ = 0 (k sgn δ |δ|^p (1 + α δ') + c δ'),
        whose integral while δ > 0 is the contact's impulse."""
        kin = self._kinematics(qe, ve, False)
        d, rate = kin["delta"], kin["rate"]
        return (self.k * np.sign(d) * np.abs(d) ** self.p * (1.0 + self.alpha * rate) + self.c * rate)[:, None]

    def switch_event(self, e, j, rising, amount=None):
        if rising:
            return "contact closed"
        return "contact opened" if amount is None else f"contact opened, impulse {amount:.9g} N s"


def contact_impacts(result, name: str | None = None) -> list[dict]:
    """The impacts of a run's contacts from ``result.events``: dicts with ``element``,
    ``closed`` and ``opened`` (times [s], None if still closed at the end) and ``impulse``
    [N s] (∫F dt, None if still closed), in time order; ``name`` keeps one element's."""
    out, open_ = [], {}
    for t, element, kind in result.events:
        if name is not None and element != name:
            continue
        if kind == "contact closed":
            open_[element] = dict(element=element, closed=t, opened=None, impulse=None)
            out.append(open_[element])
        elif kind.startswith("contact opened"):
            rec = open_.pop(element, None)
            if rec is None:
                rec = dict(element=element, closed=None, opened=None, impulse=None)
                out.append(rec)
            rec["opened"] = t
            if "impulse" in kind:
                rec["impulse"] = float(kind.split("impulse")[1].split()[0])
    return out


# ============================================================== specifications
class KelvinContact(PairSpec):
    """P4's Kelvin pounding element: a spring-dashpot along a normal fixed in body i while
    the gap between a point of body i and one of body j is closed, with Coulomb friction."""

    model_config = ConfigDict(title="Force: kelvin_contact")

    type: Literal["kelvin_contact"]
    at: Optional[Point] = Field(None, description="one point of both bodies (P4: the two deck ends), global, "
                                                  "initial configuration [m]; or give at_i and at_j")
    at_i: Optional[Point] = Field(None, description="the contact point of body i, global, initial configuration [m]")
    at_j: Optional[Point] = Field(None, description="the contact point of body j, global, initial configuration [m]")
    normal: Axis = Field(description="contact normal from body i towards body j, global, initial configuration; "
                                     "turns with body i")
    gap: Optional[float] = Field(None, description="initial gap g_p along the normal [m] (default: the points' "
                                                   "separation normal·(at_j − at_i); 0 with at); negative: closed "
                                                   "(pre-compressed by −gap) at the start")
    stiffness: float = Field(gt=0, description="contact stiffness k [N/m]")
    damping: float = Field(0.0, ge=0, description="contact damping c [N s/m]; restitution e = exp(−πζ/√(1−ζ²)), "
                                                  "ζ = c/(2√(k m*))")
    friction: float = Field(0.0, ge=0, description="Coulomb friction coefficient μ (tangential force μ F)")
    regularization: float = Field(0.0, ge=0, description="friction regularisation speed ε [m/s]: sign "
                                                         "v/√(v²+ε²) (0: the plain sign v/|v|)")

    @model_validator(mode="after")
    def _points(self):
        if (self.at is None) == (self.at_i is None and self.at_j is None):
            raise ValueError("give either at (one point) or both at_i and at_j")
        if self.at is None and (self.at_i is None or self.at_j is None):
            raise ValueError("give both at_i and at_j")
        return self


class HertzContact(PairSpec):
    """Hertz point contact F = K δ^{3/2} (1 + (3/2) c_r δ') (Hunt-Crossley damping) of a
    sphere of body j on a plane of body i or on a sphere of body i."""

    model_config = ConfigDict(title="Force: hertz_contact")

    type: Literal["hertz_contact"]
    center: Point = Field(description="centre of body j's sphere, global, initial configuration [m]")
    radius: float = Field(gt=0, description="radius of body j's sphere [m]")
    normal: Optional[Axis] = Field(None, description="normal of body i's plane, pointing out of body i (towards "
                                                     "the sphere), global, initial configuration")
    point: Optional[Point] = Field(None, description="a point of body i's plane, global, initial configuration [m]")
    center_i: Optional[Point] = Field(None, description="centre of body i's sphere (sphere-sphere contact), global, "
                                                        "initial configuration [m]")
    radius_i: Optional[float] = Field(None, gt=0, description="radius of body i's sphere [m]")
    stiffness: Optional[float] = Field(None, gt=0, description="Hertz constant K [N/m^1.5] (default: "
                                                               "(4/3) E* √R* from the materials)")
    youngs_modulus: Optional[Union[float, list[float]]] = Field(None, description="Young's modulus E [Pa], one "
                                                                "for both bodies or [E_i, E_j]")
    poisson_ratio: Union[float, list[float]] = Field(0.3, description="Poisson's ratio ν, one for both bodies or "
                                                                      "[ν_i, ν_j]")
    damping: float = Field(0.0, ge=0, description="Hunt-Crossley damping c_r [s/m]: F = K δ^1.5 (1 + 1.5 c_r δ'); "
                                                  "restitution 1 − e ≈ c_r v₀ at impact speed v₀")

    @model_validator(mode="after")
    def _shape(self):
        plane = self.normal is not None or self.point is not None
        sphere = self.center_i is not None or self.radius_i is not None
        if plane == sphere:
            raise ValueError("give either a plane of body i (normal and point) or a sphere of body i "
                             "(center_i and radius_i)")
        if plane and (self.normal is None or self.point is None):
            raise ValueError("a plane needs both normal and point")
        if sphere and (self.center_i is None or self.radius_i is None):
            raise ValueError("a sphere of body i needs both center_i and radius_i")
        if (self.stiffness is None) == (self.youngs_modulus is None):
            raise ValueError("give either stiffness (K) or youngs_modulus (with poisson_ratio)")
        for key in ("youngs_modulus", "poisson_ratio"):
            v = getattr(self, key)
            if isinstance(v, list) and len(v) not in (1, 2):
                raise ValueError(f"{key}: give one value or two ([body i, body j]), not {len(v)}")
        return self


def _pair(v) -> np.ndarray:
    return np.resize(np.atleast_1d(np.asarray(v, dtype=float)), 2)


def effective_modulus(E, nu) -> float:
    """E* of Johnson's eq. (4.22): 1/E* = (1 − ν_i²)/E_i + (1 − ν_j²)/E_j."""
    E, nu = _pair(E), _pair(nu)
    return 1.0 / float(np.sum((1.0 - nu**2) / E))


def hertz_constant(E_star: float, R_star: float) -> float:
    """K = (4/3) E* √R* (Johnson, eq. 4.23: P = (4/3) E* R*^{1/2} δ^{3/2})."""
    return 4.0 / 3.0 * E_star * np.sqrt(R_star)


def _planar_check(bodies, name, normal, what="normal"):
    if any(b is not GROUND and b.kind == PLANAR for b in bodies) and abs(normal[2]) > 1e-12:
        raise ModelError(f"contact {name!r}: between planar bodies the {what} must lie in the x-y plane",
                         element=name, key=what)


# ===================================================================== builder
def build_contacts(elements, system):
    """One ContactGroup per (kind of body i, kind of body j, geometry)."""
    def kind(e, side):
        b = e.bodies[side]
        return (b if b is not GROUND else e.bodies[1 - side]).kind

    sets = {}
    for e in elements:
        sets.setdefault((kind(e, 0).key, kind(e, 1).key, e.data["geometry"]), []).append(e)
    groups = []
    for (_, _, geometry), mine in sets.items():
        ki, kj = kind(mine[0], 0), kind(mine[0], 1)
        bi, bj = [e.bodies[0] for e in mine], [e.bodies[1] for e in mine]
        u_i = system.local_points(bi, [e.data["x_i"] for e in mine])
        u_j = system.local_points(bj, [e.data["x_j"] for e in mine])
        n_loc = np.array([system.rotation(b).T @ e.data["normal"] for b, e in zip(bi, mine)])
        if geometry == NORMAL:
            for b, e, nl in zip(bi, mine, n_loc):
                if b is not GROUND:
                    b.kind.check_directions([b.name], nl[None], element=e.name)
        dofs = np.hstack([system.dof_rows(bi, ki), system.dof_rows(bj, kj)])
        cfgs = np.hstack([system.config_rows(bi, ki), system.config_rows(bj, kj)])
        d = [e.data for e in mine]
        groups.append(ContactGroup(ki, kj, geometry, [e.name for e in mine], dofs, cfgs, u_i, u_j, n_loc,
                                   *([x[key] for x in d] for key in ("d0", "k", "p", "c", "alpha", "mu", "eps"))))
    return groups


class _ContactType(ElementType):
    section = "forces"
    body_fields = ("body_i", "body_j")
    builder = staticmethod(build_contacts)

    def joins_kinds(self, bodies):
        """Between two spatial kinds (markers of each side's own kind)."""
        return _join(bodies)

    def geometry(self, element):
        bi, bj = element.bodies
        return [("marker", element.name, bj if bj is not GROUND else bi, element.data["x_j"])]


@register
class KelvinContactType(_ContactType):
    """P4's Kelvin pounding element (module docstring)."""

    name = "kelvin_contact"
    Spec = KelvinContact

    def prepare(self, model, spec, bodies, name):
        n = unit(spec.normal)
        _planar_check(bodies, name, n)
        xi = point3(spec.at if spec.at is not None else spec.at_i)
        xj = point3(spec.at if spec.at is not None else spec.at_j)
        sep = float(n @ (xj - xi))
        gap = sep if spec.gap is None else float(spec.gap)
        if spec.gap is None and gap < 0.0:
            raise ModelError(f"kelvin_contact {name!r}: the points overlap by {-gap:g} m along the normal at the "
                             "start (normal·(at_j − at_i) < 0); give gap, or points on the contact faces",
                             element=name, key="at_j")
        return dict(geometry=NORMAL, x_i=xi, x_j=xj, normal=n, d0=sep - gap, k=float(spec.stiffness), p=1.0,
                    c=float(spec.damping), alpha=0.0, mu=float(spec.friction), eps=float(spec.regularization))

    def sample(self, model, a, b):
        """Two closed contacts with friction (regularised and plain), one to ground: the
        random states of the derivative test keep δ > 0 and F > 0 (the kinks avoided)."""
        planar = a.kind == PLANAR
        pa = (0.4, 0.1) if planar else (0.4, 0.1, 0.2)
        model.kelvin_contact(a, b, at=pa, normal=(1.0, 0.3, 0.0) if planar else (1.0, 0.3, -0.2), gap=-4.0,
                             stiffness=50.0, damping=0.5, friction=0.3, regularization=0.2, name="kelvin_ab")
        # closed by 4 m initially: the sample's random motions keep it closed, F = k δ + c δ' > 0
        model.kelvin_contact(GROUND, a, at_i=(3.0, 0.0) if planar else (3.0, 0.0, 0.5),
                             at_j=(0.1, 0.2) if planar else (0.1, 0.2, 0.3), normal=(-1.0, 0.0, 0.0),
                             gap=-4.0, stiffness=30.0, damping=0.2, friction=0.4, name="kelvin_ground")


@register
class HertzContactType(_ContactType):
    """Hertz point contact with Hunt-Crossley damping (module docstring)."""

    name = "hertz_contact"
    Spec = HertzContact

    def prepare(self, model, spec, bodies, name):
        c = point3(spec.center)
        if spec.normal is not None:
            n = unit(spec.normal)
            _planar_check(bodies, name, n)
            xi, d0, R_star = point3(spec.point), float(spec.radius), float(spec.radius)
            geometry = NORMAL
        else:
            xi, n = point3(spec.center_i), np.array([1.0, 0.0, 0.0])
            d0 = float(spec.radius + spec.radius_i)
            R_star = 1.0 / (1.0 / spec.radius + 1.0 / spec.radius_i)
            geometry = SPHERES
            if np.linalg.norm(xi - c) == 0.0:
                raise ModelError(f"hertz_contact {name!r}: the sphere centres coincide", element=name, key="center")
        if spec.stiffness is not None:
            K = float(spec.stiffness)
        else:
            E, nu = _pair(spec.youngs_modulus), _pair(spec.poisson_ratio)
            if np.any(E <= 0):
                raise ModelError(f"hertz_contact {name!r}: Young's modulus must be positive, not {E.min():g}",
                                 element=name, key="youngs_modulus")
            if np.any((nu <= -1.0) | (nu >= 0.5)):
                raise ModelError(f"hertz_contact {name!r}: Poisson's ratio must lie in (−1, 0.5), not "
                                 f"{nu[(nu <= -1.0) | (nu >= 0.5)][0]:g}", element=name, key="poisson_ratio")
            K = hertz_constant(effective_modulus(E, nu), R_star)
        return dict(geometry=geometry, x_i=xi, x_j=c, normal=n, d0=d0, k=K, p=1.5, c=0.0,
                    alpha=1.5 * float(spec.damping), mu=0.0, eps=0.0, R_star=R_star)

    def sample(self, model, a, b):
        """A ball of b pressed into a plane of a, and two spheres of ground and b, both
        closed in the derivative test's random states (δ > 0, F > 0)."""
        planar = a.kind == PLANAR
        p3 = (lambda x: x[:2]) if planar else (lambda x: x)
        model.hertz_contact(a, b, center=p3((1.0, -0.2, 0.4)), radius=6.0, normal=(1.0, 0.2, 0.0),
                            point=p3((0.2, 0.1, 0.3)), stiffness=10.0, damping=0.02, name="hertz_plane")
        model.hertz_contact(GROUND, b, center=p3((1.0, -0.2, 0.4)), radius=4.0, center_i=p3((0.0, 0.0, 0.0)),
                            radius_i=3.0, youngs_modulus=10.0, poisson_ratio=[0.3, 0.25], damping=0.05,
                            name="hertz_spheres")


__all__ = ["ContactGroup", "KelvinContact", "HertzContact", "contact_impacts", "effective_modulus",
           "hertz_constant", "build_contacts"]
