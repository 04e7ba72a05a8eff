"""Exact vibration modes of a uniform straight beam (Bernoulli-Euler bending, axial and
torsional rods), the shape functions of the floating-frame modal beam (P4 sec. 1: the
deformation split into axial u, bending v (x-y plane), w (x-z plane) and twist θ, each a
sum of exact modes times modal coordinates).

Ends (the same for every direction):

* ``clamped-free``: bending φ = cosh βs − cos βs − σ (sinh βs − sin βs),
  σ = (cosh βL + cos βL)/(sinh βL + sin βL), 1 + cos βL cosh βL = 0; axial and torsion
  sin(k s), k = (2i − 1) π/(2L);
* ``pinned-pinned``: bending sin(iπs/L); axial and torsion fixed-fixed, sin(iπs/L);
* ``free-free``: elastic bending modes φ = cosh βs + cos βs − σ (sinh βs + sin βs),
  σ = (cosh βL − cos βL)/(sinh βL − sin βL), cos βL cosh βL = 1; axial and torsion
  cos(iπs/L), i ≥ 1 (the rigid modes are the floating frame's motion).

(Blevins, Formulas for Natural Frequency and Mode Shape, 1979, tables 8-1 and 8-16;
Shabana, Dynamics of Multibody Systems, sec. 5.4 for their use as shape functions.)
The hyperbolic parts are evaluated as ½[(1 − σ) e^{βs} + (1 + σ) e^{−βs}] with 1 − σ
written without cancellation, so high modes keep full accuracy.  Every mode is scaled
to ∫₀ᴸ φ² ds = L.
"""
from __future__ import annotations

import numpy as np

ENDS = ("clamped-free", "pinned-pinned", "free-free")


def _root(f, a, b):
    """The root of f in [a, b] (f(a) f(b) < 0) by bisection to rounding."""
    fa = f(a)
    for _ in range(200):
        m = 0.5 * (a + b)
        fm = f(m)
        if fm == 0.0 or b - a <= 4e-16 * m:
            return m
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


def bending_roots(ends: str, n: int) -> np.ndarray:
    """β_i L of the first n elastic bending modes (n,)."""
    i = np.arange(1, n + 1)
    if ends == "pinned-pinned":
        return i * np.pi
    if ends == "clamped-free":          # cos x + sech x = 0, one root in ((i−1)π, iπ)
        return np.array([_root(lambda x: np.cos(x) + 1.0 / np.cosh(x), (k - 1) * np.pi, k * np.pi) for k in i])
    if ends == "free-free":             # cos x − sech x = 0, one root in (iπ, (i+1)π)
        return np.array([_root(lambda x: np.cos(x) - 1.0 / np.cosh(x), k * np.pi, (k + 1) * np.pi) for k in i])
    raise ValueError(f"unknown ends {ends!r}; known: {', '.join(ENDS)}")


def rod_wavenumbers(ends: str, n: int, L: float) -> np.ndarray:
    """k_i of the axial and torsional modes sin(k s) or cos(k s) (n,)."""
    i = np.arange(1, n + 1)
    if ends == "clamped-free":
        return (2 * i - 1) * np.pi / (2 * L)
    return i * np.pi / L


class BeamModes:
    """The mode shapes of one direction family: ``kind`` "bending" or "rod" (axial,
    torsion), ``n`` modes for ``ends`` on a beam of length L.  ``values(s, d)`` gives the
    d-th derivative of every mode at s (len(s), n), normalised to ∫ φ² = L."""

    def __init__(self, family: str, ends: str, n: int, L: float):
        if ends not in ENDS:
            raise ValueError(f"unknown ends {ends!r}; known: {', '.join(ENDS)}")
        self.family, self.ends, self.n, self.L = family, ends, int(n), float(L)
        if family == "bending":
            self.beta = bending_roots(ends, self.n) / self.L
        else:
            self.beta = rod_wavenumbers(ends, self.n, self.L)
        self.scale = np.ones(self.n)
        s, w = gauss_rule(self.L, self.n)
        phi = self.values(s, 0)
        self.scale = np.sqrt(self.L / np.einsum("k,ki,ki->i", w, phi, phi))

    def _coefficients(self):
        """(a, b, c, d) with φ = a e^{β(s−L)} + b e^{−βs} + c cos βs + d sin βs (bending of
        clamped-free and free-free ends)."""
        bL = self.beta * self.L
        em, sn, cs = np.exp(-bL), np.sin(bL), np.cos(bL)
        if self.ends == "clamped-free":
            den = 1.0 - em * em + 2.0 * sn * em           # 2 e^{−βL} (sinh βL + sin βL)
            one_minus = 2.0 * em * (sn - cs - em) / den   # 1 − σ
            c = -1.0
            a = (sn - cs - em) / den                       # ½ (1 − σ) e^{βL}
            d = 1.0 - one_minus                            # σ
        else:
            den = 1.0 - em * em - 2.0 * sn * em           # 2 e^{−βL} (sinh βL − sin βL)
            one_minus = 2.0 * em * (cs - sn - em) / den
            c = 1.0
            a = (cs - sn - em) / den
            d = -(1.0 - one_minus)
        b = 0.5 * (2.0 - one_minus)                        # ½ (1 + σ)
        return a, b, c, d

    def values(self, s, d: int = 0) -> np.ndarray:
        """d-th derivative (d = 0 … 3) of every mode at positions s (m,) → (m, n)."""
        s = np.asarray(s, dtype=float).reshape(-1, 1)
        k = self.beta[None, :]
        shift = d * np.pi / 2
        if self.family == "rod" or self.ends == "pinned-pinned":
            if self.family == "rod" and self.ends == "free-free":
                out = k ** d * np.cos(k * s + shift)
            else:
                out = k ** d * np.sin(k * s + shift)
        else:
            a, b, c, dd = self._coefficients()
            out = k ** d * (a * np.exp(k * (s - self.L)) + b * (-1.0) ** d * np.exp(-k * s)
                            + c * np.cos(k * s + shift) + dd * np.sin(k * s + shift))
        return out * self.scale


def gauss_rule(L: float, n_modes: int, order: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre points and weights on [0, L], fine enough for products
    of the first ``n_modes`` modes and their derivatives (≥ 2 segments per half-wave)."""
    segments = max(8, 4 * (int(n_modes) + 2))
    x, w = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(0.0, L, segments + 1)
    h = np.diff(edges)
    s = (edges[:-1, None] + 0.5 * h[:, None] * (x[None, :] + 1.0)).ravel()
    return s, (0.5 * h[:, None] * w[None, :]).ravel()


__all__ = ["ENDS", "BeamModes", "bending_roots", "rod_wavenumbers", "gauss_rule"]
