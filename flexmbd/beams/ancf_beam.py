"""Pure kernels of the fully parameterized 3D ANCF beam element (two nodes, 24 coordinates).

Each node carries its position r and the three gradients r_x, r_y, r_z (12
coordinates, a vector kind).  The element coordinates are the eight 3-vectors
d = [r_A, r_x,A, r_y,A, r_z,A, r_B, r_x,B, r_y,B, r_z,B] (e = 24 numbers, node by node).

Kinematics (Yakoub & Shabana, "Three dimensional absolute nodal coordinate formulation
for beam elements: implementation and applications", J. Mech. Des. 123 (2001) 614-621,
eq. (3); Gerstmayr & Shabana, Nonlinear Dyn. 45 (2006) 109-130): with the element
parameters p = (x, y, z), x = ξ L ∈ [0, L] along the axis and (y, z) across the section,

    r(p) = Σ_k s_k(p) d_k,
    s = [h1, L h2, y (1 − ξ), z (1 − ξ), h3, L h4, y ξ, z ξ],
    h1 = 1 − 3ξ² + 2ξ³, h2 = ξ − 2ξ² + ξ³, h3 = 3ξ² − 2ξ³, h4 = ξ³ − ξ²,

cubic Hermite along the axis, linear across.  The reference X(p) is the same
interpolation of the reference coordinates (a straight or curved axis with r_x the unit
tangent and r_y, r_z the section axes), J0 = ∂X/∂p.  J0 = Q U (QR, Q the local frame at
the point, first column along ∂X/∂x), and the deformation gradient on Q's axes is

    F = (∂r/∂p) U⁻¹ = Σ_k d_k ⊗ b_k,   b_k = U⁻ᵀ ∂s_k/∂p,

so that F is linear in e.  Green-Lagrange strain E = ½ (Fᵀ F − I) on the local axes and
the energy density, with a diagonal term that the strain split needs,

    W(E) = λ/2 (tr E)² + μ tr(E²) + c Σ_i E_ii²,
    S = ∂W/∂E = λ tr(E) I + 2 μ E + 2 c diag(E),   P = F S,

St. Venant-Kirchhoff with (λ, μ, c) = (λ, μ, 0).  Energy V = ∫ W dV0 (dV0 = det J0 dp)
by Gauss quadrature; the elastic force and its exact tangent are (``_svk``)

    f_k = ∂V/∂d_k = ∫ P b_k dV0,
    ∂f_k,i/∂d_l,m = ∫ [δ_im b_kᵀ S b_l                                   (geometric)
                      + λ a_k,i a_l,m + μ ((b_k·b_l)(F Fᵀ)_im + a_l,i a_k,m)
                      + 2c Σ_j F_ij F_mj b_k,j b_l,j] dV0,   a_k = F b_k.     (material)

Poisson locking and the strain split (``locking``).  Linear interpolation across the
section cannot represent the transverse strain ∝ −ν κ y of bending, so the plain
continuum form (``"plain"``) bends with the plane-strain modulus λ + 2μ instead of E
(1.346 E at ν = 0.3).  The strain-split method (Gerstmayr, Matikainen & Mikkola, "A
geometrically exact beam element based on the absolute nodal coordinate formulation",
Multibody Syst. Dyn. 20 (2008) 359-384, section 3; used in P3, Tang et al. 2021) writes
W = W₀ + W_ν with W₀ the energy with the Poisson coupling removed (normal stiffness E,
shear stiffness G) and W_ν = W − W₀ the coupling, and integrates W₀ over the volume and
W_ν with the centre-line strain E(x, 0, 0) only:

    V = ∫ W₀(E) dV0 + ∫ A W_ν(E(x, 0, 0)) det J0(x, 0, 0) dx,
    W₀: (λ, μ, c) = (0, G, E/2 − G),   W_ν: (λ, 0, G − E/2).

Under any uniform strain (the patch test) both forms give the same energy, so both give
the exact stretch and lateral contraction; in bending the split form has the stiffness E I.

Quadrature (``rule``): 5 Gauss points along the axis and 3 × 3 across a rectangle (3
radial × 6 angular on a circle or tube).  For a straight reference F is quadratic in ξ and
linear in (y, z), so W is of degree 8 in ξ and 4 in (y, z): 5 points (exact to degree 9)
and 3 points (degree 5) integrate it exactly; the 6-point trapezoidal rule in the angle
is exact for trigonometric polynomials of degree ≤ 5.  A curved reference makes U⁻¹ and
det J0 rational in (y, z); the same rule then integrates them approximately.  The mass
ρ ∫ Sᵀ S dV0 (degree 6 in ξ, 2 across) and the weight are exact with it.
"""
from __future__ import annotations

import numpy as np

from typing import NamedTuple

from .shape import gauss_legendre

__all__ = ["LOCKING", "AncfElements", "hermite_shapes", "section_rule", "reference_coordinates"]

#: Elastic-force forms: the plain continuum form and the strain split against Poisson locking.
LOCKING = ("strain-split", "plain")

#: Gauss points along the axis and across the section (see the module docstring).
N_AXIAL = 5
N_SECTION = 3
N_ANGLE = 6


def hermite_shapes(xi, y, z, L):
    """Shape functions s (…, 8) and their derivatives ∂s/∂(x, y, z) (…, 8, 3) at
    ξ = x/L, y, z (broadcast), element length L (Yakoub & Shabana 2001, eq. (3))."""
    xi, y, z, L = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (xi, y, z, L)))
    x2, x3 = xi * xi, xi * xi * xi
    one, zero = np.ones_like(xi), np.zeros_like(xi)
    s = np.stack([1.0 - 3.0 * x2 + 2.0 * x3, L * (xi - 2.0 * x2 + x3), y * (1.0 - xi), z * (1.0 - xi),
                  3.0 * x2 - 2.0 * x3, L * (x3 - x2), y * xi, z * xi], axis=-1)
    dx = np.stack([(6.0 * x2 - 6.0 * xi) / L, 1.0 - 4.0 * xi + 3.0 * x2, -y / L, -z / L,
                   (6.0 * xi - 6.0 * x2) / L, 3.0 * x2 - 2.0 * xi, y / L, z / L], axis=-1)
    dy = np.stack([zero, zero, 1.0 - xi, zero, zero, zero, xi, zero], axis=-1)
    dz = np.stack([zero, zero, zero, 1.0 - xi, zero, zero, zero, xi], axis=-1)
    return s, np.stack([dx, dy, dz], axis=-1) * one[..., None, None]


def section_rule(definition: dict):
    """Quadrature points (y, z) and weights (Σ w = A) over a cross section given by its
    definition (``Section.definition``: rectangle width2 × height3, circle d, tube
    d_outer/d_inner).  Raises ValueError for sections without a shape."""
    shape = definition.get("shape")
    if shape == "rectangle":
        b, h = float(definition["width2"]), float(definition["height3"])
        t, w = gauss_legendre(N_SECTION)
        y, z = np.meshgrid(b * (t - 0.5), h * (t - 0.5), indexing="ij")
        return y.ravel(), z.ravel(), (b * h * np.outer(w, w)).ravel()
    if shape in ("circle", "tube"):
        ro = 0.5 * float(definition["d"] if shape == "circle" else definition["d_outer"])
        ri = 0.0 if shape == "circle" else 0.5 * float(definition["d_inner"])
        t, w = gauss_legendre(N_SECTION)
        r = ri + (ro - ri) * t
        wr = (ro - ri) * w * r                       # ∫ f r dr
        a = 2.0 * np.pi * np.arange(N_ANGLE) / N_ANGLE
        rr, aa = np.meshgrid(r, a, indexing="ij")
        ww = np.outer(wr, np.full(N_ANGLE, 2.0 * np.pi / N_ANGLE))
        return (rr * np.cos(aa)).ravel(), (rr * np.sin(aa)).ravel(), ww.ravel()
    raise ValueError("the ANCF beam integrates over the cross section and needs its shape (rectangle, circle "
                     f"or tube), got {shape or 'a section given by its constants'}")


def reference_coordinates(x, R):
    """Nodal coordinates (n, 12) [r, r_x, r_y, r_z] of a reference with positions x (n, 3)
    and frames R (n, 3, 3) = [e1 e2 e3] (arc-length parameter: r_x = e1)."""
    x, R = np.asarray(x, float), np.asarray(R, float)
    return np.concatenate([x, R[..., 0], R[..., 1], R[..., 2]], axis=-1)


def _moduli(E, nu):
    lam = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    mu = E / (2.0 * (1.0 + nu))
    return lam, mu


class _Points(NamedTuple):
    """Quadrature points of one part of the energy: shape values s (n, g, 8), b (n, g, 8, 3),
    weights w (n, g) (with det J0) and the constant products b_k·b_l (n, g, 64)."""

    s: np.ndarray
    b: np.ndarray
    w: np.ndarray
    bb: np.ndarray


def _t(x):
    return np.swapaxes(x, -1, -2)


def _svk(d, pts, lam, mu, c, jacobians):
    """Force, tangent and energy of W = λ/2 (tr E)² + μ tr(E²) + c Σ E_ii² at the points
    ``pts`` (:class:`_Points`): (f (n, 24), K or None, V (n,)).  Every sum over the points
    is a batched matrix product."""
    b, w = pts.b, pts.w
    n, ng = w.shape
    F = _t(d)[:, None] @ b                                                   # Σ_k d_k ⊗ b_k
    E = 0.5 * (_t(F) @ F - np.eye(3))
    trE = np.trace(E, axis1=-2, axis2=-1)
    dE = np.diagonal(E, axis1=-2, axis2=-1)
    S = 2.0 * mu * E + (lam * trE)[..., None, None] * np.eye(3)
    if c:
        S = S + 2.0 * c * dE[..., None] * np.eye(3)
    W = 0.5 * lam * trE ** 2 + mu * np.sum(E * E, axis=(-2, -1)) + c * np.sum(dE ** 2, axis=-1)
    V = np.sum(w * W, axis=1)
    P = F @ S
    wb = b * w[..., None, None]
    f = np.sum(wb @ _t(P), axis=1).reshape(n, 24)                            # Σ w P b_k
    if not jacobians:
        return f, None, V
    a = (b @ _t(F)).reshape(n, ng, 24)                                       # a_k = F b_k
    aa = (_t(a * w[..., None]) @ a).reshape(n, 8, 3, 8, 3)                   # Σ w a_k,i a_l,m
    bSb = (wb @ S).transpose(0, 2, 1, 3).reshape(n, 8, ng * 3) @ _t(b).reshape(n, ng * 3, 8)
    K = bSb[:, :, None, :, None] * np.eye(3)[None, None, :, None, :]
    if lam:
        K = K + lam * aa
    if mu:
        FF = (F @ _t(F)).reshape(n, ng, 9)
        t1 = (_t(pts.bb * w[..., None]) @ FF).reshape(n, 8, 8, 3, 3).transpose(0, 1, 3, 2, 4)
        K = K + mu * (t1 + aa.transpose(0, 1, 4, 3, 2))
    if c:
        T = (F[:, :, None, :, :] * b[:, :, :, None, :]).transpose(0, 1, 4, 2, 3).reshape(n, ng * 3, 24)
        K = K + 2.0 * c * (_t(T * np.repeat(w, 3, axis=1)[..., None]) @ T).reshape(n, 8, 3, 8, 3)
    return f, K.reshape(n, 24, 24), V


class AncfElements:
    """Fully parameterized ANCF beam elements, evaluated together.

    ``e_ref`` (n, 24): reference element coordinates; ``length`` (n,): element lengths
    (the axial parameter range); ``section``: (y, z, w) of :func:`section_rule`;
    ``E``, ``nu``, ``rho``: material; ``locking``: ``"strain-split"`` or ``"plain"``.
    The quadrature and reference data are computed once here.
    """

    def __init__(self, e_ref, length, section, E, nu, rho=0.0, locking="strain-split"):
        if locking not in LOCKING:
            raise ValueError(f"locking must be one of {LOCKING}, got {locking!r}")
        self.e_ref = np.asarray(e_ref, dtype=float).reshape(-1, 24)
        n = len(self.e_ref)
        self.length = np.broadcast_to(np.asarray(length, dtype=float), (n,)).copy()
        self.locking, self.E, self.nu, self.rho = locking, float(E), float(nu), float(rho)
        ys, zs, ws = (np.asarray(v, dtype=float) for v in section)
        self.section = (ys, zs, ws)
        self.area = float(np.sum(ws))
        xg, wg = gauss_legendre(N_AXIAL)
        xi = np.repeat(xg, ys.size)
        y, z = np.tile(ys, xg.size), np.tile(zs, xg.size)
        wv = np.outer(wg, ws).ravel()
        self.volume = self._points(xi, y, z, wv)                    # over the volume
        self.axis = self._points(xg, np.zeros_like(xg), np.zeros_like(xg), wg * self.area)
        lam, mu = _moduli(self.E, self.nu)
        G, Ey = mu, self.E
        if locking == "plain":
            self.parts = [(self.volume, (lam, mu, 0.0))]
        else:
            self.parts = [(self.volume, (0.0, G, 0.5 * Ey - G)), (self.axis, (lam, 0.0, G - 0.5 * Ey))]

    def _points(self, xi, y, z, w):
        """Shape values s (n, g, 8), b = U⁻ᵀ ∂s/∂p (n, g, 8, 3) on the local axes Q of
        J0 = Q U, and weights w det J0 L (n, g) at the points (ξ, y, z) with weights w."""
        L = self.length[:, None]
        s, ds = hermite_shapes(xi[None, :], y[None, :], z[None, :], L)
        d0 = self.e_ref.reshape(-1, 8, 3)
        J0 = np.einsum("nki,ngkj->ngij", d0, ds)
        Q, U = np.linalg.qr(J0)
        sign = np.sign(np.diagonal(U, axis1=-2, axis2=-1))       # positive diagonal: Q is the frame
        U = U * sign[..., :, None]
        det = np.linalg.det(J0)
        if np.any(det <= 0):
            raise ValueError("the reference gradients are not a right-handed frame (det ∂X/∂p ≤ 0)")
        b = np.swapaxes(np.linalg.solve(np.swapaxes(U, -1, -2), np.swapaxes(ds, -1, -2)), -1, -2)
        bb = (b @ np.swapaxes(b, -1, -2)).reshape(b.shape[:2] + (64,))
        return _Points(s, b, w[None, :] * det * L, bb)

    # ------------------------------------------------------------------ elastic
    def elastic_forces(self, e, jacobians: bool = True):
        """Elastic forces f = ∂V/∂e (n, 24), tangent K = ∂f/∂e (n, 24, 24) or None, strain
        energy V (n,) at element coordinates e (n, 24)."""
        d = np.asarray(e, dtype=float).reshape(-1, 8, 3)
        f, K, V = 0.0, (0.0 if jacobians else None), 0.0
        for pts, (lam, mu, c) in self.parts:
            fi, Ki, Vi = _svk(d, pts, lam, mu, c, jacobians)
            f, V = f + fi, V + Vi
            if jacobians:
                K = K + Ki
        return f, K, V

    def strains(self, e, xi=0.5):
        """Green-Lagrange strain E (n, 3, 3) on the local axes at the centre line, ξ = xi."""
        s, b, _, _ = self._points(np.atleast_1d(float(xi)), np.zeros(1), np.zeros(1), np.ones(1))
        F = np.einsum("nki,nkj->nij", np.asarray(e, float).reshape(-1, 8, 3), b[:, 0])
        return 0.5 * (np.swapaxes(F, -1, -2) @ F - np.eye(3))

    def axial_force(self, e, xi: float = 0.5) -> np.ndarray:
        """Axial force (n,) at ξ = xi: the section resultant of the traction P n₀ (n₀ the
        reference axis, per unit reference area) along the deformed unit tangent, summed
        over the parts of the energy (the split's centre-line part with the weight A)."""
        d = np.asarray(e, dtype=float).reshape(-1, 8, 3)
        ys, zs, ws = self.section
        x = np.full(ys.size + 1, float(xi))
        s, b, _, _ = self._points(x, np.r_[ys, 0.0], np.r_[zs, 0.0], np.ones(ys.size + 1))
        F = np.einsum("nki,ngkj->ngij", d, b)
        t = F[:, -1, :, 0] / np.linalg.norm(F[:, -1, :, 0], axis=-1, keepdims=True)
        E = 0.5 * (np.swapaxes(F, -1, -2) @ F - np.eye(3))
        trE, dE = np.trace(E, axis1=-2, axis2=-1), np.diagonal(E, axis1=-2, axis2=-1)
        N = np.zeros(len(d))
        for (part, (lam, mu, c)) in self.parts:
            w = np.r_[ws, 0.0] if part is self.volume else np.r_[np.zeros(ys.size), self.area]
            S = 2.0 * mu * E + (lam * trE)[..., None, None] * np.eye(3) + 2.0 * c * dE[..., None] * np.eye(3)
            traction = np.einsum("ngij,ngj->ngi", F, S[..., :, 0])          # P n₀ = F S e₁
            N += np.einsum("g,ngi,ni->n", w, traction, t)
        return N

    def curvature(self, e, xi: float = 0.5) -> np.ndarray:
        """Curvature |r′ × r″| / |r′|³ (n,) of the deformed centre line at ξ = xi (r′ = ∂r/∂x)."""
        d = np.asarray(e, dtype=float).reshape(-1, 8, 3)
        L = self.length
        x = float(xi)
        d1 = hermite_shapes(x, 0.0, 0.0, L)[1][..., 0]                     # (n, 8)
        d2 = np.stack([(12 * x - 6) / L ** 2, (6 * x - 4) / L, 0 * L, 0 * L,
                       (6 - 12 * x) / L ** 2, (6 * x - 2) / L, 0 * L, 0 * L], axis=-1)
        r1 = np.einsum("nk,nki->ni", d1, d)
        r2 = np.einsum("nk,nki->ni", d2, d)
        return np.linalg.norm(np.cross(r1, r2), axis=-1) / np.linalg.norm(r1, axis=-1) ** 3

    # ------------------------------------------------------------------ inertia
    def mass_matrix(self) -> np.ndarray:
        """Constant consistent mass ρ ∫ Sᵀ S dV0 (n, 24, 24), S = s ⊗ I₃ (Shabana,
        *Dynamics of Multibody Systems*: the mass matrix of ANCF elements is constant)."""
        s, _, w, _ = self.volume
        m = self.rho * np.einsum("ng,ngk,ngl->nkl", w, s, s)
        return np.einsum("nkl,ij->nkilj", m, np.eye(3)).reshape(-1, 24, 24)

    def weight(self, g) -> np.ndarray:
        """Generalised weight ρ ∫ Sᵀ g dV0 (n, 24) of gravity g (3,)."""
        s, _, w, _ = self.volume
        return self.rho * np.einsum("ng,ngk,i->nki", w, s, np.asarray(g, float)).reshape(-1, 24)
