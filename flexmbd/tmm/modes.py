"""Free-free modes of a uniform Euler-Bernoulli beam segment: the modal basis of the
DT-TMM beam element (P5, elastic axle segment: modal expansion of the distributed-mass
beam).

Mode 0 is the rigid translation φ = 1, mode 1 the rigid rotation φ = x − ℓ/2, modes
k ≥ 2 the elastic free-free modes

    φ(x) = cos βx + cosh βx − σ (sin βx + sinh βx),   cos βℓ cosh βℓ = 1,
    σ = (cosh βℓ − cos βℓ) / (sinh βℓ − sin βℓ),

evaluated in the cancellation-free form cosh βx − σ sinh βx = e^{−βx} + (1 − σ) sinh βx
(so any number of modes keeps full precision).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

#: Gauss-Legendre points for modal integrals (exact for the mode products used)
_GAUSS = np.polynomial.legendre.leggauss(96)


def free_free_roots(n: int) -> np.ndarray:
    """The first ``n`` roots βℓ of cos βℓ cosh βℓ = 1 (4.7300, 7.8532, 10.9956, …)."""
    f = lambda x: np.cos(x) - 1.0 / np.cosh(x)  # noqa: E731
    return np.array([brentq(f, (k + 1.5) * np.pi - 0.5, (k + 1.5) * np.pi + 0.5, xtol=1e-15)
                     for k in range(n)])


def shapes(n_modes: int, length: float, x: np.ndarray, derivative: int = 0) -> np.ndarray:
    """Mode shapes (or their ``derivative``-th x-derivative, 0..2) at points ``x``:
    array (len(x), n_modes); modes 0, 1 rigid, the rest elastic free-free."""
    x = np.asarray(x, dtype=float)
    out = np.zeros((x.size, n_modes))
    if n_modes > 0:
        out[:, 0] = 1.0 if derivative == 0 else 0.0
    if n_modes > 1:
        out[:, 1] = (x - 0.5 * length) if derivative == 0 else (1.0 if derivative == 1 else 0.0)
    if n_modes > 2:
        bl = free_free_roots(n_modes - 2)
        b = bl / length
        L = bl
        one_minus_sigma = (-np.exp(-L) - np.sin(L) + np.cos(L)) / (np.sinh(L) - np.sin(L))
        sigma = 1.0 - one_minus_sigma
        bx = np.outer(x, b)
        e = np.exp(-bx)
        sh, ch = np.sinh(bx), np.cosh(bx)
        s, c = np.sin(bx), np.cos(bx)
        if derivative == 0:
            val = c - sigma * s + e + one_minus_sigma * sh
        elif derivative == 1:
            val = b * (-s - sigma * c - e + one_minus_sigma * ch)
        elif derivative == 2:
            val = b ** 2 * (-c + sigma * s + e + one_minus_sigma * sh)
        else:
            raise ValueError("derivative must be 0, 1 or 2")
        out[:, 2:] = val
    return out


def integrate(length: float, f) -> np.ndarray:
    """∫₀^ℓ f(x) dx by Gauss-Legendre (``f`` maps points (m,) to values (m, ...))."""
    xi, w = _GAUSS
    x = 0.5 * length * (xi + 1.0)
    return np.tensordot(0.5 * length * w, f(x), axes=(0, 0))


def _ritz_basis(n: int, length: float, x: np.ndarray, derivative: int = 0) -> np.ndarray:
    """The segment's Ritz basis at x (len(x), n): the cubics 1, s, s², s³ (s = x/ℓ; they hold
    the rigid motions and the exact static deflections under end loads) and n − 4 elastic
    free-free modes."""
    s = np.asarray(x, dtype=float) / length
    if derivative == 0:
        cub = np.column_stack([np.ones_like(s), s, s ** 2, s ** 3])
    elif derivative == 1:
        cub = np.column_stack([np.zeros_like(s), np.ones_like(s), 2 * s, 3 * s ** 2]) / length
    elif derivative == 2:
        cub = np.column_stack([np.zeros_like(s), np.zeros_like(s), 2 * np.ones_like(s), 6 * s]) / length ** 2
    else:
        raise ValueError("derivative must be 0, 1 or 2")
    if n == 4:
        return cub
    return np.hstack([cub, shapes(n - 2, length, x, derivative)[:, 2:]])


class BeamModes:
    """Modal data of a uniform segment (P5: modal expansion of the elastic axle segment).

    The modes are the eigenvectors of the segment's free-free mass and stiffness in the
    Ritz space of the cubics and the first n − 4 elastic free-free modes: two rigid
    modes, then elastic ones.  The cubics make the end compliance statically exact (with
    free-free modes alone, an end moment's rotation converges like 1/n and a chain comes
    out ≈ 10 % too stiff with 6 modes per segment); with n = 4 the segment is the
    consistent-mass cubic (Hermite) beam.  Attributes: end values (4, n), modal masses,
    stiffnesses, circular frequencies, ∫φ dx."""

    def __init__(self, n_modes: int, length: float, EI: float, rhoA: float):
        if n_modes < 4:
            raise ValueError(f"a beam segment needs at least 4 modes (2 rigid + 2 elastic), got {n_modes}")
        from scipy.linalg import eigh

        self.n = n_modes
        self.length = length
        Mr = rhoA * integrate(length, lambda x: np.einsum("pi,pj->pij", *(2 * [_ritz_basis(n_modes, length, x)])))
        B2 = lambda x: _ritz_basis(n_modes, length, x, 2)  # noqa: E731
        Kr = EI * integrate(length, lambda x: np.einsum("pi,pj->pij", B2(x), B2(x)))
        Kr = 0.5 * (Kr + Kr.T)
        lam, V = eigh(Kr, Mr)                          # V ᵀ M V = I
        lam[:2] = 0.0                                  # the rigid modes (round-off ~ 1e-10)
        # scale each mode to the modal mass ρAℓ (well-scaled numbers)
        V = V * np.sqrt(rhoA * length)
        self.V = V
        self.mass = np.full(n_modes, rhoA * length)
        self.stiffness = lam * rhoA * length
        self.omega = np.sqrt(lam)
        ends = np.array([0.0, length])
        phi = self.shape(ends)
        dphi = self.shape(ends, 1)
        #: rows z(0), θ(0), z(ℓ), θ(ℓ) (θ = ∂z/∂x)
        self.ends = np.vstack([phi[0], dphi[0], phi[1], dphi[1]])
        self.integral = integrate(length, lambda x: self.shape(x))

    def shape(self, x, derivative: int = 0) -> np.ndarray:
        """Mode shapes at points x (len(x), n)."""
        return _ritz_basis(self.n, self.length, np.atleast_1d(np.asarray(x, dtype=float)), derivative) @ self.V
