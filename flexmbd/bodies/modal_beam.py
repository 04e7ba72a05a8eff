"""The floating-frame modal beam (P4; Shabana, Dynamics of Multibody Systems, ch. 5).

A straight uniform Bernoulli-Euler beam of length L along the x axis of a floating frame,
q = [R, p, η] (kind :class:`~flexmbd.nodes.modal.ModalKind`): frame origin R, Euler
parameters p with their normalisation constraint (P1), and modal coordinates η of the
exact vibration modes (axial, bending in both planes, torsion) of clamped-free,
pinned-pinned or free-free ends (:mod:`flexmbd.nodes.beam_modes`).  A material point
moves as r = R + A(p) x(ū, η), x = ū + S(ū) η.

**Inertia (P4 sec. 1, M q'' + Q_v; Shabana eqs. 5.14-5.30).**  The kinetic energy
T = ½ ∫ ρ ṙ·ṙ dV is that of the material points, r = R + Σ_c π_c(ū) ρ_c(q) with the
channels ρ₀ = R and ρ_(l,a) = ê_a C_l[p, p] (ê = [1, η], (A(p) x)_i = Σ_l x_l C_l[p, p]_i)
and point coefficients π₀ = 1, π_(l,a) = P(ū)_la, P = [ū, S(ū)].  Lagrange's equations of
points that move as r(q) give F = ∫ ρ J_rᵀ r̈ dV, so

    F = Σ_cd W_cd J_cᵀ ρ̈_d,   W_cd = ∫ ρ π_c π_d dV   (the inertia shape integrals),

computed once by Gauss quadrature over the mode shapes (mass, first moments ∫ρS,
∫ρ ū Sᵀ, ∫ρ Sᵀ S …, the classical invariants).  ρ̈_(l,a) = ë_a C_l[p,p] + 4 ė_a C_l[p,ṗ]
+ ê_a (2 C_l[ṗ,ṗ] + 2 C_l[p,p̈]) is a polynomial in (p, ṗ, p̈, η, η̇, η̈), so the mass
matrix M = Σ W J_cᵀ J_d, the quadratic-velocity vector (the rest of F) and the exact
∂F/∂q, ∂F/∂q' follow by differentiating polynomials.  With zero modes F differs from the
rigid body's 4 Gᵀ J' G p̈ + 8 Ġᵀ J' G ṗ (Nikravesh 1988, eq. 6.99) only by a multiple of p,
which the normalisation's multiplier takes: the motion is the same.

**Geometric stiffening by foreshortening (the default).**  The deflected axis is shorter
than the beam: a point at ξ moves along the frame's x axis by −½ ∫₀^ξ (v′² + w′²) dξ′
(measured from the frame origin), quadratic in η.  With ê = [1, η, (η_i η_j)] the channels
above carry over unchanged (ρ_(l,a) = ê_a a_l, π_(0,ij) = −½ c_ij G_ij(ξ)), so the inertia
(and the weight, and the markers) contain every axial force's stiffening exactly to second
order — the centrifugal one (P4's term below appears from the coupling with ū), the
frame's axial acceleration, weight, joint forces — from one Lagrangian (Mayo, Domínguez &
Shabana 1995; Sharf 1996).

**Elastic forces.**  U = ½ ∫ (EA u′² + EI₃ v″² + EI₂ w″² + GJ θ′²) ds gives the modal
stiffness K_ff (diagonal for exact modes, ω_i² m_i); modal damping C_ff = 2 ζ √(k_i m_i);
and, with ``geometric_stiffening: centrifugal`` instead, P4's axial-force term ½ ∫ f_x (v′² + w′²) ds with, for a beam turning about the
frame origin, the centrifugal axial force f_x(ξ) = ρA ω⊥² (ξ_e² − ξ²)/2 (ω⊥² = ω_y² + ω_z²
in frame axes, ξ_e the beam's end on the frame's x axis; Kane, Ryan & Banerjee 1987):
Q_η = −(K_ff + ω⊥² K_G) η − C_ff η̇, K_G = ∫ ρA (ξ_e² − ξ²)/2 (φ′ φ′ᵀ) ds, with exact
derivatives with respect to p, ṗ through ω' = 2 G(p) ṗ.

**Weight.**  Q = Σ_c W₀c J_cᵀ m g/m: the weight of every material point (exact Jacobian).
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field, field_validator

from ..beams.builder import BeamSection
from ..beams.section_specs import beam_section
from ..beams.sections import Section
from ..errors import ModelError
from ..groups import (CompiledSlot, ConstraintGroup, ForceGroup, InertiaGroup, float_array, floating_frame_layout,
                      int_array)
from ..nodes.beam_modes import gauss_rule
from ..nodes.modal import FAMILIES, ModalKind
from ..nodes import SPATIAL
from ..registry import Element, ElementType, register
from ..rotations import rotation_matrix
from ..spec import Name, SpecBase, Vec3
from ..visuals import BeamVisual
from .rigid import Body
from .shapes import Orientation, _orientation


# ------------------------------------------------------------------ shape integrals

def beam_invariants(kind: ModalKind, section: Section, rotary_inertia: bool = True) -> dict:
    """The inertia shape integrals W (nc, nc), the modal stiffness K_ff, the centrifugal
    stiffening matrix K_G (per unit ω⊥²) and the modal mass diagonal of a beam (module
    docstring), by Gauss quadrature over the mode shapes.

    Section points ū = (ξ, y, z) contribute through ∫ρ dA = ρA, ∫ρ y² dA = ρI₃,
    ∫ρ z² dA = ρI₂ (centroidal principal axes); ``rotary_inertia`` False drops the
    rotary inertia of the bending slopes (the −y v′, −z w′ axial displacements), which
    makes the modal masses those of Bernoulli-Euler theory."""
    n, L, x0 = kind.n, kind.length, kind.start
    s, w = gauss_rule(L, max(kind.counts + (1,)))
    m = len(s)
    (fu, fv, fw, ft), (du, dv, dw, dt), (_, ddv, ddw, _) = (kind.mode_values(s, d) for d in (0, 1, 2))
    sl = kind.slices
    na = kind.na
    P0 = kind.point_coefficients(np.c_[x0 + s, np.zeros(m), np.zeros(m)])
    Py = np.zeros((m, 3, na))
    Pz = np.zeros((m, 3, na))
    Py[:, 1, 0] = 1.0
    Pz[:, 2, 0] = 1.0
    b = lambda f: 1 + np.arange(n)[sl[f]]          # noqa: E731  columns of a family in P
    if rotary_inertia:
        Py[:, 0, b("bending_y")] = -dv
        Pz[:, 0, b("bending_z")] = -dw
    Py[:, 2, b("torsion")] = ft
    Pz[:, 1, b("torsion")] = -ft
    nc = 1 + 3 * na

    def channels(P, const):
        out = np.zeros((m, nc))
        out[:, 0] = const
        out[:, 1:] = P.reshape(m, -1)
        return out
    pi0, piy, piz = channels(P0, 1.0), channels(Py, 0.0), channels(Pz, 0.0)
    W = (section.rhoA * np.einsum("k,kc,kd->cd", w, pi0, pi0) + section.rhoI3 * np.einsum("k,kc,kd->cd", w, piy, piy)
         + section.rhoI2 * np.einsum("k,kc,kd->cd", w, piz, piz))
    K = np.zeros((n, n))
    KG = np.zeros((n, n))
    for f, (d, stiff) in {"axial": (du, section.EA), "bending_y": (ddv, section.EI3), "bending_z": (ddw, section.EI2),
                          "torsion": (dt, section.GJ)}.items():
        K[sl[f], sl[f]] = stiff * np.einsum("k,ki,kj->ij", w, d, d)
    xe = x0 + L
    fx = section.rhoA * 0.5 * (xe ** 2 - (x0 + s) ** 2)          # centrifugal axial force per unit ω⊥²
    for f, d in (("bending_y", dv), ("bending_z", dw)):
        KG[sl[f], sl[f]] = np.einsum("k,k,ki,kj->ij", w, fx, d, d)
    Mff = np.zeros((n, n))
    for l in range(3):
        Mff += W[2 + l * na: 2 + l * na + n, 2 + l * na: 2 + l * na + n]
    return dict(W=W, K=0.5 * (K + K.T), KG=0.5 * (KG + KG.T), Mff=Mff)


def rigid_properties(W: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass (3,) and inertia tensor about the frame origin (3, 3) of the
    undeformed body from W (channels 0 and (l, 0))."""
    n1 = (W.shape[0] - 1) // 3
    idx = 1 + np.arange(3) * n1
    mass = W[0, 0]
    c = W[0, idx] / mass
    second = W[np.ix_(idx, idx)]                                  # ∫ρ ū ūᵀ
    J = np.trace(second) * np.eye(3) - second
    return float(mass), c, J


# ------------------------------------------------------------------ channel kinematics

def _jacobians(kind, qb, a, da):
    """J_c = ∂ρ_c/∂q (N, nc, 3, nv): ρ₀ = R, ρ_(l,a) = ê_a(η) a_l(θ) (a_l: the l-th column
    of A, ``da`` its derivatives (N, 3_l, 3_i, r); ê of ``ModalKind.e_hat``), and ê, ∂ê/∂η."""
    N, r, na = len(qb), kind.r, kind.na
    eta = qb[:, kind.eta]
    e_hat, dE = kind.e_hat(eta), kind.e_hat_d(eta)
    J = np.zeros((N, 3, na, 3, kind.nv))
    J[..., 3:3 + r] = e_hat[:, None, :, None, None] * da[:, :, None]
    J[..., 3 + r:] = np.einsum("nak,nli->nlaik", dE, a)
    J0 = np.zeros((N, 1, 3, kind.nv))
    J0[:, 0, 0, 0] = J0[:, 0, 1, 1] = J0[:, 0, 2, 2] = 1.0
    return np.concatenate([J0, J.reshape(N, -1, 3, kind.nv)], axis=1), e_hat, dE


def _geometric(kind, G, e_hat, dE, a, da, dda):
    """Σ_c ∂(J_cᵀ g_c)/∂q for channel vectors G (N, nc, 3) (the channels' second
    derivatives; channel 0 has none)."""
    N, r = len(G), kind.r
    Gl = G[:, 1:].reshape(N, 3, kind.na, 3)
    K = np.zeros((N, kind.nv, kind.nv))
    K[:, 3:3 + r, 3:3 + r] = np.einsum("na,nlai,nlijk->njk", e_hat, Gl, dda)
    te = np.einsum("nlai,nlij,nak->njk", Gl, da, dE)              # (N, r, n)
    K[:, 3:3 + r, 3 + r:] = te
    K[:, 3 + r:, 3:3 + r] = np.swapaxes(te, 1, 2)
    if kind.pairs:
        K[:, 3 + r:, 3 + r:] = np.einsum("nlai,nli,akm->nkm", Gl, a, kind.e_hat_dd)
    return K


class ModalInertiaGroup(InertiaGroup):
    """Inertia of modal beams (and modal bodies from FE data, :mod:`.modal_body`) of one
    kind: F = Σ W_cd J_cᵀ ρ̈_d with exact ∂F/∂q, ∂F/∂q' and M (module docstring)."""

    def __init__(self, kind, bodies, dof_index, config_index, W):
        self.kind = kind
        self.bodies = list(bodies)
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, kind.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, kind.nq)
        self.W = np.asarray(W, dtype=float).reshape(len(self.bodies), *W.shape[-2:])

    def inertia_force(self, qb, vb, ab, jacobians=True):
        kind, n, N, nv, r = self.kind, self.kind.n, len(qb), self.kind.nv, self.kind.r
        a, da, dda, *rest = kind.attitude.derivatives(qb[:, 3:3 + r], 3 if jacobians else 2)
        thd, thdd = vb[:, 3:3 + r], ab[:, 3:3 + r]
        etad, etadd = vb[:, kind.eta], ab[:, kind.eta]
        e_dot, e_dd = kind.e_hat_rates(qb[:, kind.eta], etad, etadd)
        Jc, e_hat, dE = _jacobians(kind, qb, a, da)
        a_d = np.einsum("nlik,nk->nli", da, thd)                      # ȧ_l
        dda_d = np.einsum("nlijk,nk->nlij", dda, thd)                 # ∂ȧ_l/∂θ
        a_dd = np.einsum("nlij,nj->nli", dda_d, thd) + np.einsum("nlik,nk->nli", da, thdd)   # ä_l
        acc = (e_dd[:, None, :, None] * a[:, :, None] + 2.0 * e_dot[:, None, :, None] * a_d[:, :, None]
               + e_hat[:, None, :, None] * a_dd[:, :, None])                                  # (N, 3, na, 3)
        rdd = np.concatenate([ab[:, None, :3], acc.reshape(N, -1, 3)], axis=1)
        G = np.einsum("ncd,ndi->nci", self.W, rdd)
        F = np.einsum("ncik,nci->nk", Jc, G)
        if not jacobians:
            return F, None, None, None
        ddda = rest[0]
        M = np.einsum("ncik,ncil->nkl", Jc, np.einsum("ncd,ndik->ncik", self.W, Jc))
        # ∂ä_l/∂θ_m = ∂³a[θ̇, θ̇, m] + ∂²a[θ̈, m]
        a_dd_q = np.einsum("nlijkm,nj,nk->nlim", ddda, thd, thd) + np.einsum("nlijm,nj->nlim", dda, thdd)
        na = kind.na
        dq = np.zeros((N, 3, na, 3, nv))
        dq[..., 3:3 + r] = (e_dd[:, None, :, None, None] * da[:, :, None] + 2.0 * e_dot[:, None, :, None, None]
                            * dda_d[:, :, None] + e_hat[:, None, :, None, None] * a_dd_q[:, :, None])
        dv = np.zeros((N, 3, na, 3, nv))
        dv[..., 3:3 + r] = (2.0 * e_dot[:, None, :, None, None] * da[:, :, None]
                            + 2.0 * e_hat[:, None, :, None, None] * dda_d[:, :, None])
        # ∂ρ̈/∂η = ∂ê̈/∂η a + 2 ∂ê̇/∂η ȧ + ∂ê/∂η ä,  ∂ρ̈/∂η̇ = 2 ∂ê̇/∂η̇ ȧ + ∂ê̈/∂η̇ a
        dq[..., 3 + r:] = np.einsum("nak,nli->nlaik", dE, a_dd)
        dv[..., 3 + r:] = 2.0 * np.einsum("nak,nli->nlaik", dE, a_d)
        if kind.pairs:
            d_edot = np.einsum("akm,nm->nak", kind.e_hat_dd, etad)     # ∂ê̇/∂η = ½ ∂ê̈/∂η̇
            d_edd = np.einsum("akm,nm->nak", kind.e_hat_dd, etadd)
            dq[..., 3 + r:] += (np.einsum("nak,nli->nlaik", d_edd, a)
                                + 2.0 * np.einsum("nak,nli->nlaik", d_edot, a_d))
            dv[..., 3 + r:] += 2.0 * np.einsum("nak,nli->nlaik", d_edot, a)
        zero = np.zeros((N, 1, 3, nv))
        dq = np.concatenate([zero, dq.reshape(N, -1, 3, nv)], axis=1)
        dv = np.concatenate([zero, dv.reshape(N, -1, 3, nv)], axis=1)
        K = (np.einsum("ncik,ncil->nkl", Jc, np.einsum("ncd,ndil->ncil", self.W, dq))
             + _geometric(kind, G, e_hat, dE, a, da, dda))
        D = np.einsum("ncik,ncil->nkl", Jc, np.einsum("ncd,ndil->ncil", self.W, dv))
        return F, K, D, M

    def compiled_slot(self):
        """Euler-parameter frames: kernels/floating_frame.py ``inertia`` (channels whose
        inertia row is zero skipped)."""
        _, pairs = floating_frame_layout(self.kind)
        live = np.any(self.W != 0.0, axis=(0, 2))
        return CompiledSlot("modal_inertia", (int_array(self.config_index), int_array(self.dof_index),
                                              float_array(self.W), int_array(pairs), int_array(live)))

    def mass_matrix(self, qb):
        z = np.zeros((len(qb), self.kind.nv))
        return self.inertia_force(qb, z, z)[3]

    def element_kinetic_energy(self, qb, vb):
        _, rd = _channel_states(self.kind, qb, vb)
        return 0.5 * np.einsum("nci,ncd,ndi->n", rd, self.W, rd)


class ModalElasticGroup(ForceGroup):
    """Modal stiffness, damping and centrifugal stiffening of modal beams and bodies of one kind:
    Q_η = −(K + s ω⊥² K_G) η − C η̇, ω' = 2 G(p) ṗ (module docstring; s = 1 with geometric
    stiffening)."""

    stage = 1

    def __init__(self, kind, bodies, dof_index, config_index, K, C, KG, stiffening):
        self.kind = kind
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, kind.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, kind.nq)
        self.K, self.C, self.KG = (np.asarray(a, dtype=float) for a in (K, C, KG))
        self.s = np.asarray(stiffening, dtype=float)

    def compiled_slot(self):
        floating_frame_layout(self.kind)          # Euler parameters (ω' = 2 G ṗ)
        return CompiledSlot("modal_elastic", (int_array(self.config_index), int_array(self.dof_index),
                                              float_array(np.broadcast_to(self.K, (len(self.s),) + self.K.shape[-2:])),
                                              float_array(np.broadcast_to(self.C, (len(self.s),) + self.C.shape[-2:])),
                                              float_array(np.broadcast_to(self.KG, (len(self.s),) + self.KG.shape[-2:])),
                                              float_array(self.s)))

    def _spin(self, q, v):
        """ω⊥² (N,) and its derivatives with respect to the attitude coordinates and their
        rates (N, r), from the frame's body angular velocity ω' (``ModalKind.body_omega``)."""
        w, dw, dwd = self.kind.body_omega(q, v)
        w2 = w[:, 1] ** 2 + w[:, 2] ** 2
        return w2, 2.0 * np.einsum("ni,nij->nj", w[:, 1:], dw[:, 1:]), 2.0 * np.einsum("ni,nij->nj", w[:, 1:], dwd[:, 1:])

    def evaluate(self, qe, ve, t, jacobians=True):
        q, v = qe[self.config_index], ve[self.dof_index]
        e, r = self.kind.eta, self.kind.r
        eta, etad = q[:, e], v[:, e]
        w2, dp, dpd = self._spin(q, v)
        sw = self.s * w2
        KGe = np.einsum("nij,nj->ni", self.KG, eta)
        Q = np.zeros(q.shape)
        Q[:, e] = -np.einsum("nij,nj->ni", self.K, eta) - sw[:, None] * KGe - np.einsum("nij,nj->ni", self.C, etad)
        if not jacobians:
            return Q, None, None
        N, nv = q.shape
        Kq = np.zeros((N, nv, nv))
        Kq[:, e, e] = -self.K - sw[:, None, None] * self.KG
        Kq[:, e, 3:3 + r] = -self.s[:, None, None] * KGe[:, :, None] * dp[:, None, :]
        Dq = np.zeros((N, nv, nv))
        Dq[:, e, e] = -self.C
        Dq[:, e, 3:3 + r] = -self.s[:, None, None] * KGe[:, :, None] * dpd[:, None, :]
        return Q, Kq, Dq

    def potential_energy(self, qe, t):
        eta = qe[self.config_index][:, self.kind.eta]
        return float(0.5 * np.einsum("ni,nij,nj->", eta, self.K, eta))

    def dissipation_power(self, qe, ve, t, lam=None):
        """η̇ᵀ C η̇ and the power s ω⊥² ηᵀ K_G η̇ drawn by the velocity-dependent centrifugal
        stiffening force (it has no potential), so that the energy balance closes."""
        q, v = qe[self.config_index], ve[self.dof_index]
        eta, etad = q[:, self.kind.eta], v[:, self.kind.eta]
        w2, _, _ = self._spin(q, v)
        return float(np.einsum("ni,nij,nj->", etad, self.C, etad)
                     + np.sum(self.s * w2 * np.einsum("ni,nij,nj->n", eta, self.KG, etad)))


class ModalWeightGroup(ForceGroup):
    """The weight of every material point of modal beams and bodies: Q = Σ_c S_c J_cᵀ g with
    S_c = W₀c = ∫ ρ π_c dV (module docstring), exact ∂Q/∂q."""

    is_load = True

    def __init__(self, kind, bodies, dof_index, config_index, first_moments, gravity):
        self.kind = kind
        self.element_names = [b.name for b in bodies]
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, kind.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, kind.nq)
        self.S = np.asarray(first_moments, dtype=float)          # (N, nc)
        self.g = np.asarray(gravity, dtype=float)

    def evaluate(self, qe, ve, t, jacobians=True):
        q = qe[self.config_index]
        r = self.kind.r
        a, da, dda = self.kind.attitude.derivatives(q[:, 3:3 + r], 2)
        Jc, e_hat, dE = _jacobians(self.kind, q, a, da)
        G = self.S[:, :, None] * self.g[None, None, :]
        Q = np.einsum("ncik,nci->nk", Jc, G)
        return Q, (_geometric(self.kind, G, e_hat, dE, a, da, dda) if jacobians else None), None

    def compiled_slot(self):
        _, pairs = floating_frame_layout(self.kind)
        return CompiledSlot("modal_weight", (int_array(self.config_index), float_array(self.S), float_array(self.g),
                                             int_array(pairs), int_array(np.any(self.S != 0.0, axis=0))))

    def potential_energy(self, qe, t):
        q = qe[self.config_index]
        rho, _ = _channel_states(self.kind, q, np.zeros(q.shape))
        return float(-np.sum(np.einsum("nc,nci->ni", self.S, rho) @ self.g))


class ModalNormalizationGroup(ConstraintGroup):
    """The Euler-parameter normalisation p·p − 1 = 0 of modal beams and bodies (P1)."""

    def __init__(self, kind, bodies, dof_index, config_index):
        self.kind = kind
        self.owner = [b.name for b in bodies]
        self.label = ["Euler-parameter normalisation p·p = 1"] * len(bodies)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, kind.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, kind.nq)

    def __len__(self):
        return len(self.owner)

    def subset(self, keep):
        raise ValueError("the Euler-parameter normalisation is never redundant")

    def compiled_slot(self):
        return CompiledSlot("modal_normalization", (int_array(self.config_index),))

    def evaluate(self, qe, t):
        p = qe[self.config_index[:, 3:7]]
        Jq = np.zeros(self.dof_index.shape)
        Jq[:, 3:7] = 2.0 * p
        return np.einsum("ni,ni->n", p, p) - 1.0, Jq

    def hessian(self, qe, t, lam):
        H = np.zeros((len(self), self.kind.nv, self.kind.nv))
        idx = np.arange(3, 7)
        H[:, idx, idx] = 2.0 * lam[:, None]
        return H

    def assemble(self, qe, t, lam, hessian=True):
        phi, Jq = self.evaluate(qe, t)
        return phi, Jq, (self.hessian(qe, t, lam) if hessian else None)

    def gamma(self, qe, ve, t):
        pd = ve[self.dof_index[:, 3:7]]
        return -2.0 * np.einsum("ni,ni->n", pd, pd)


# ---------------------------------------------------------------------- specification

class ModeCounts(SpecBase):
    """How many exact modes of each direction the beam keeps."""

    model_config = ConfigDict(title="Modal beam: modes")
    axial: int = Field(0, ge=0, le=40, description="axial (extension) modes")
    bending_y: int = Field(0, ge=0, le=40, description="bending modes with deflection along the frame's y axis "
                                                       "(section axis 2, stiffness EI3)")
    bending_z: int = Field(0, ge=0, le=40, description="bending modes with deflection along the frame's z axis "
                                                       "(section axis 3, stiffness EI2)")
    torsion: int = Field(0, ge=0, le=40, description="torsion modes")


def _stiffening(v):
    """true/false of earlier model files: foreshortening/none."""
    if v is True:
        return "foreshortening"
    if v is False:
        return "none"
    return v


class ModalBeamSpec(SpecBase):
    """A floating-frame modal beam (P4): a straight uniform beam along the x axis of its
    frame, deformed by exact vibration modes."""

    model_config = ConfigDict(title="Body: modal_beam")

    name: Optional[Name] = Field(None, description="unique name; outputs NAME.position (the frame origin), "
                                                   "NAME.modal_coordinates, NAME.tip_deflection, NAME.strain, "
                                                   "NAME.stress")
    type: Literal["modal_beam"] = Field(description="modal_beam")
    length: float = Field(gt=0, description="beam length [m]")
    section: BeamSection = Field(description="the cross section (with density: a modal beam needs mass); shear "
                                             "stiffness is not used (Bernoulli-Euler)")
    ends: Literal["clamped-free", "pinned-pinned", "free-free"] = Field(
        description="boundary conditions of the modes: clamped-free (cantilever on the frame at the beam's start), "
                    "pinned-pinned (frame through both ends), free-free (frame at its mean position)")
    modes: ModeCounts = Field(description="number of modes per direction")
    attitude: Literal["euler-parameters", "euler-313"] = Field(
        "euler-parameters", description="coordinates of the frame's attitude: euler-parameters (4, with their "
                                        "normalisation constraint) or euler-313 (P4's 3-1-3 Euler angles φ, θ, ψ; "
                                        "singular when the frame's z axis is along the global z axis)")
    frame: Literal["start", "center"] = Field("start", description="where the frame origin is on the beam axis: its "
                                                                   "start or its centre")
    position: Vec3 = Field([0.0, 0.0, 0.0], description="initial position of the frame origin [m]")
    orientation: Annotated[Optional[Orientation], BeforeValidator(_orientation)] = Field(
        None, description="initial orientation of the frame (its x axis is the beam axis; default: the global axes)")
    velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial velocity of the frame origin [m/s]")
    angular_velocity: Vec3 = Field([0.0, 0.0, 0.0], description="initial angular velocity, global axes [rad/s]")
    damping_ratio: float = Field(0.0, ge=0, description="modal damping ratio ζ of every mode")
    geometric_stiffening: Annotated[Literal["foreshortening", "centrifugal", "none"],
                                    BeforeValidator(_stiffening)] = Field(
        "foreshortening", description="geometric stiffening: foreshortening (the deflected axis shortens, second "
                                      "order in the bending coordinates, in the inertia and at the markers: the "
                                      "stiffening of every axial force — rotation, the frame's acceleration, joint "
                                      "and applied forces, weight; true), centrifugal (P4's axial-force term with "
                                      "the centrifugal axial force of rotation about the frame origin only) or none "
                                      "(false; the linear model, which diverges in fast rotation)")
    rotary_inertia: bool = Field(True, description="include the rotary inertia of the sections' bending slopes "
                                                   "(false: Bernoulli-Euler modal masses)")
    modal_coordinates: Optional[list[float]] = Field(None, description="initial modal coordinates (one per mode, "
                                                                       "in the order axial, bending_y, bending_z, "
                                                                       "torsion) [m]")
    modal_velocities: Optional[list[float]] = Field(None, description="initial modal velocities [m/s]")
    stress_points: Optional[list[Vec3]] = Field(None, description="points (x along the beam in the frame, y, z in "
                                                                  "the section) [m] whose axial strain and stress "
                                                                  "are outputs")
    visual: Optional[BeamVisual] = Field(None, description="how the beam is drawn: color and the tube radius "
                                                           "(default: from the section; a rectangle section is "
                                                           "drawn as a box section); no effect on the dynamics")

    @field_validator("modal_coordinates", "modal_velocities")
    @classmethod
    def _finite(cls, v):
        if v is not None and not np.all(np.isfinite(v)):
            raise ValueError("must be finite numbers")
        return v


def _modulus(section, name):
    definition = getattr(section, "definition", None) or {}
    if definition.get("E") is not None:
        return float(definition["E"])
    return None


class ModalBeamNode(Body):
    """The node of a modal beam (a :class:`~flexmbd.bodies.rigid.Body` whose kind is a
    :class:`~flexmbd.nodes.modal.ModalKind`), with its initial modal coordinates; its
    ``position`` is the frame origin's, ``mass`` and ``inertia`` those of the undeformed
    beam, the inertia about the frame origin (not the centre of mass, unless
    ``frame: center``)."""


def build_modal_beams(elements, system):
    """Inertia, elastic forces, weight and normalisation of the modal beams (or of the modal
    bodies from FE data: the same element data W, K, C, KG, stiffening), one group each per
    node kind."""
    groups = []
    gravity = system.model.gravity
    for kind in system.kinds:
        mine = [e for e in elements if e.nodes[0].kind == kind]
        if not mine:
            continue
        bodies = [e.nodes[0] for e in mine]
        dofs, cfgs = system.dof_rows(bodies, kind), system.config_rows(bodies, kind)
        W = np.array([e.data["W"] for e in mine])
        groups.append(ModalInertiaGroup(kind, bodies, dofs, cfgs, W))
        if kind.n:
            groups.append(ModalElasticGroup(kind, bodies, dofs, cfgs, [e.data["K"] for e in mine],
                                            [e.data["C"] for e in mine], [e.data["KG"] for e in mine],
                                            [e.data["stiffening"] for e in mine]))
        if np.any(gravity != 0):
            groups.append(ModalWeightGroup(kind, bodies, dofs, cfgs, W[:, 0, :], gravity))
        if kind.attitude.name == "euler-parameters":
            groups.append(ModalNormalizationGroup(kind, bodies, dofs, cfgs))
    return groups


@register
class ModalBeamType(ElementType):
    """A floating-frame modal beam (module docstring)."""

    name = "modal_beam"
    section = "bodies"
    noun = "modal beam"
    Spec = ModalBeamSpec
    builder = staticmethod(build_modal_beams)

    def create(self, model, spec):
        name = model.new_name(spec.name, "body")
        what = self.label(name)
        try:
            section = spec.section if isinstance(spec.section, Section) else beam_section(spec.section)
        except (ValueError, ArithmeticError) as exc:
            raise ModelError(f"{what}: {str(exc).replace('Section: ', '')}", element=name, key="section") from None
        if not section.rhoA > 0:
            raise ModelError(f"{what}: the section has no mass (give rho > 0): a modal beam needs inertia",
                             element=name, key="section")
        L = float(spec.length)
        counts = (spec.modes.axial, spec.modes.bending_y, spec.modes.bending_z, spec.modes.torsion)
        kind = ModalKind(spec.ends, L, 0.0 if spec.frame == "start" else -0.5 * L, counts, spec.attitude,
                         foreshortening=spec.geometric_stiffening == "foreshortening")
        for key in ("modal_coordinates", "modal_velocities"):
            val = getattr(spec, key)
            if val is not None and len(val) != kind.n:
                raise ModelError(f"{what}: {key} has {len(val)} values but the beam has {kind.n} modes "
                                 f"({', '.join(f'{f} {c}' for f, c in zip(FAMILIES, counts))})",
                                 element=name, key=key)
        E = _modulus(section, name)
        if spec.stress_points is not None:
            if E is None:
                raise ModelError(f"{what}: stress_points need a section given by shape and E (a user section has "
                                 "no Young's modulus)", element=name, key="stress_points")
            kind.check_offsets([name] * len(spec.stress_points), np.array(spec.stress_points), element=what)
        inv = beam_invariants(kind, section, spec.rotary_inertia)
        mass, c, J = rigid_properties(inv["W"])
        kdiag, mdiag = np.diag(inv["K"]), np.diag(inv["Mff"])
        C = np.diag(2.0 * spec.damping_ratio * np.sqrt(kdiag * mdiag))
        p = np.array([1.0, 0, 0, 0]) if spec.orientation is None else spec.orientation.quaternion_value()
        if spec.attitude == "euler-313" and abs(rotation_matrix(p)[2, 2]) > 1.0 - 1e-8:
            raise ModelError(f"{what}: 3-1-3 Euler angles are singular for this orientation (the frame's z axis "
                             "along the global z axis): choose another orientation or attitude euler-parameters",
                             element=name, key="orientation")
        node = ModalBeamNode(name, kind, mass, J, np.array(spec.position, dtype=float), p,
                             np.array(spec.velocity, dtype=float), np.array(spec.angular_velocity, dtype=float))
        node.modal_coordinates = None if spec.modal_coordinates is None else np.array(spec.modal_coordinates)
        node.modal_velocities = None if spec.modal_velocities is None else np.array(spec.modal_velocities)
        model.add_node(node)
        data = dict(W=inv["W"], K=inv["K"], KG=inv["KG"], Mff=inv["Mff"], C=C, stiffening=float(spec.geometric_stiffening == "centrifugal"),
                    section=section, E=E, centre=c,
                    stress_points=None if spec.stress_points is None else np.array(spec.stress_points, dtype=float))
        return Element(self.name, name, (node,), data, spec.model_copy(update={"name": name}), nodes=(node,))

    def added(self, model, element):
        return element.nodes[0]

    def dump(self, element):
        out = element.spec.model_dump(mode="python", exclude_defaults=True)
        return {"name": out.pop("name"), **out}

    #: segments of the beam's axis drawn in pictures
    picture_segments = 16

    def geometry(self, element):
        """The beam's axis as a polyline of points on the beam (pictures place them with the
        kind's markers, so they show the deformation)."""
        node = element.nodes[0]
        kind = node.kind
        A = kind.orientation_matrix(np.asarray(node.orientation)[None])[0]
        xi = np.linspace(kind.start, kind.start + kind.length, self.picture_segments + 1)
        pts = node.position + xi[:, None] * A[:, 0]
        return [("line", f"{element.name}.axis{k}", node, node, pts[k], pts[k + 1]) for k in range(len(xi) - 1)]

    # ------------------------------------------------------------------ outputs
    def outputs(self, element, system):
        names = ("modal_coordinates", "tip_deflection", "linear_momentum", "angular_momentum")
        if element.data["stress_points"] is not None:
            names += ("strain", "stress")
        return names

    def output(self, element, what, result):
        """modal_coordinates (steps, n); tip_deflection: the elastic displacement of the
        beam's end in frame axes (steps, 3); linear_momentum and angular_momentum (about
        the global origin) (steps, 3); strain and stress ε = u′ − y v″ − z w″,
        σ = E ε at the stress points (steps, k)."""
        node = element.nodes[0]
        kind = node.kind
        eta = result.q[:, result.system.config_slice(node)][:, kind.eta]
        if what == "modal_coordinates":
            return eta
        if what == "tip_deflection":
            return deflection(kind, eta, [kind.start + kind.length])[:, 0]
        if what in ("linear_momentum", "angular_momentum"):
            sys = result.system
            lin, ang = momenta(kind, element.data["W"], result.q[:, sys.config_slice(node)],
                               result.v[:, sys.body_slice(node)])
            return lin if what == "linear_momentum" else ang
        pts = element.data["stress_points"]
        eps = axial_strain(kind, eta, pts)
        return eps if what == "strain" else element.data["E"] * eps

    def sample(self, model, a, b):
        """On spatial models: a modal beam with every direction's modes, damping and
        stiffening, joined to rigid bodies (a spherical, a revolute, a fixed joint and a
        driver across kinds), to ground and loaded (markers of the modal kind)."""
        if a.kind != SPATIAL:
            return
        from ..ground import GROUND
        sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)
        rot = rotation_matrix(np.array([0.9, 0.2, -0.3, 0.25]) / np.linalg.norm([0.9, 0.2, -0.3, 0.25]))
        beam = model.modal_beam(name="flex", length=1.2, section=sec, ends="clamped-free",
                                modes=dict(axial=1, bending_y=2, bending_z=1, torsion=1), position=(0.2, -0.1, 0.5),
                                orientation=rot, damping_ratio=0.05, modal_coordinates=[0.01, 0.05, -0.02, 0.03, 0.1])
        free = model.modal_beam(name="flex_free", length=0.8, section=sec, ends="free-free", frame="center",
                                modes=dict(bending_y=1, bending_z=1, torsion=1), position=(0.5, 0.5, -0.2))
        tip = beam.position + rot @ np.array([1.1, 0.02, -0.01])
        model.spring_damper(GROUND, beam, at_i=(0.3, 0.3, 0.3), at_j=tip, k=50.0, c=1.0, name="sd_flex")
        model.force(beam, (0.3, -0.2, 0.5), at=beam.position + rot @ np.array([0.6, 0.01, 0.0]), body_fixed=True,
                    name="f_flex")
        model.spherical(a, beam, at=beam.position + rot @ np.array([0.4, 0.0, 0.01]), name="sph_flex")
        model.revolute(GROUND, free, at=(0.6, 0.5, -0.2), axis=(0, 1, 1), name="rev_flex")
        # joints and a driver between the rigid body and the modal beams (kinds side by side)
        model.revolute(a, beam, at=beam.position + rot @ np.array([0.9, 0.01, 0.0]), axis=(1, 0, 1), name="rev_ab")
        model.fixed(free, b, at=(0.7, 0.5, -0.2), name="fix_ba")
        model.rotation_driver(a, free, axis=(0, 0, 1), angle=lambda t: 0.3 * t * t, name="drive_af", at=(0.7, 0.5, -0.2))
        # P4's 3-1-3 Euler angles: inertia, stiffening, weight, a torque, joints across kinds
        angles = model.modal_beam(name="flex_313", length=0.9, section=sec, ends="pinned-pinned", attitude="euler-313",
                                  modes=dict(axial=1, bending_y=1, bending_z=2, torsion=1), position=(-0.3, 0.4, 0.1),
                                  orientation=rot.T, damping_ratio=0.02, angular_velocity=(0.5, -1.0, 2.0),
                                  modal_coordinates=[0.001, 0.02, -0.01, 0.01, 0.05])
        model.torque(angles, (0.2, -0.1, 0.3), name="torque_313")
        model.torque(angles, (0.1, 0.3, -0.2), body_fixed=True, name="torque_313_body")
        model.revolute(b, angles, at=(-0.3, 0.4, 0.1), axis=(1, 1, 0), name="rev_313")
        model.spring_damper(GROUND, angles, at_i=(0.0, 1.0, 0.0), at_j=angles.position + rot.T @ [0.5, 0.0, 0.01],
                            k=20.0, c=0.5, name="sd_313")


def _channel_states(kind, q, v):
    """ρ_c and ρ̇_c (N, nc, 3) of every channel (module docstring)."""
    N, r = len(q), kind.r
    a, da = kind.attitude.derivatives(q[:, 3:3 + r], 1)
    a_d = np.einsum("nlik,nk->nli", da, v[:, 3:3 + r])
    e_hat = kind.e_hat(q[:, kind.eta])
    e_dot = kind.e_hat_rates(q[:, kind.eta], v[:, kind.eta])
    pos = (e_hat[:, None, :, None] * a[:, :, None]).reshape(N, -1, 3)
    rate = (e_dot[:, None, :, None] * a[:, :, None] + e_hat[:, None, :, None] * a_d[:, :, None]).reshape(N, -1, 3)
    return np.concatenate([q[:, None, :3], pos], axis=1), np.concatenate([v[:, None, :3], rate], axis=1)


def momenta(kind: ModalKind, W: np.ndarray, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear momentum ∫ρ ṙ dV and angular momentum about the global origin ∫ρ r × ṙ dV
    (N, 3) each, of states q (N, nq), v (N, nv): Σ_c W₀c ρ̇_c and Σ_cd W_cd ρ_c × ρ̇_d."""
    rho, rate = _channel_states(kind, q, v)
    lin = np.einsum("c,nci->ni", W[0], rate)
    ang = np.einsum("cd,nci,ndj,ijk->nk", W, rho, rate, _LEVI)
    return lin, ang


_LEVI = np.zeros((3, 3, 3))
_LEVI[0, 1, 2] = _LEVI[1, 2, 0] = _LEVI[2, 0, 1] = 1.0
_LEVI[0, 2, 1] = _LEVI[2, 1, 0] = _LEVI[1, 0, 2] = -1.0


def deflection(kind: ModalKind, eta: np.ndarray, x) -> np.ndarray:
    """Elastic displacements S(ξ) η in frame axes (steps, len(x), 3) of the axis points at
    frame coordinates x along the beam, for modal coordinates eta (steps, n)."""
    x = np.asarray(x, dtype=float).reshape(-1)
    S = kind.shape_matrix(np.c_[x, np.zeros(len(x)), np.zeros(len(x))])
    return np.einsum("kin,tn->tki", S, np.atleast_2d(eta))


def axial_strain(kind: ModalKind, eta: np.ndarray, points) -> np.ndarray:
    """ε = u′ − y v″ − z w″ (steps, k) at points (k, 3) = (ξ, y, z) in the frame."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    s = pts[:, 0] - kind.start
    sl = kind.slices
    du = kind.modes[0].values(s, 1)
    ddv = kind.modes[1].values(s, 2)
    ddw = kind.modes[2].values(s, 2)
    B = np.zeros((len(pts), kind.n))
    B[:, sl["axial"]] = du
    B[:, sl["bending_y"]] = -pts[:, 1:2] * ddv
    B[:, sl["bending_z"]] = -pts[:, 2:3] * ddw
    return np.atleast_2d(eta) @ B.T


__all__ = ["ModalBeamSpec", "ModalBeamType", "ModalInertiaGroup", "ModalElasticGroup", "ModalWeightGroup",
           "ModalNormalizationGroup", "beam_invariants", "rigid_properties", "momenta", "deflection", "axial_strain"]
