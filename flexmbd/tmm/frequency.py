"""Frequency-domain transfer matrices (classical TMM) of the same chains: natural
frequencies as the zeros of the boundary determinant — an independent check of the
time-domain elements (P5 checks its wheelset's modes; the beam field matrix is exact,
not modal).

State y = (z, θ, M, Q) of harmonic amplitudes at ω; the beam field obeys
y' = A y with z' = θ, θ' = M/EI, M' = −Q, Q' = −ρAω² z (flexmbd/tmm/elements.py's
conventions), so its transfer matrix is exp(Aℓ), written in closed form with the
Krylov-Duncan functions of βℓ, β⁴ = ρAω²/EI (:func:`beam_field_matrix`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import expm
from scipy.optimize import brentq

from . import boundary
from .elements import BeamSegment, RigidBody, SpringDamper


def _field_generator(EI: float, rhoA: float, omega: float) -> np.ndarray:
    A = np.zeros((4, 4))
    A[0, 1] = 1.0
    A[1, 2] = 1.0 / EI
    A[2, 3] = -1.0
    A[3, 0] = -rhoA * omega * omega
    return A


def beam_field_matrix(EI: float, rhoA: float, length: float, omega: float) -> np.ndarray:
    """exp(Aℓ) of the Euler-Bernoulli field y' = A y (module docstring) in closed form:
    z⁗ = β⁴ z with β⁴ = ρAω²/EI, so with the Krylov-Duncan functions of u = βℓ,
    S = (cosh u + cos u)/2, T = (sinh u + sin u)/2, U = (cosh u − cos u)/2,
    V = (sinh u − sin u)/2 (S' = βV, T' = βS, U' = βT, V' = βU; e.g. Pestel & Leckie,
    *Matrix Methods in Elastomechanics*, 1963):

        z_R = S z + T θ/β + U M/(β²EI) − V Q/(β³EI),   θ_R = βV z + S θ + T M/(βEI) − U Q/(β²EI),
        M_R = EIβ²U z + EIβV θ + S M − T Q/β,          Q_R = −EIβ³T z − EIβ²U θ − βV M + S Q.

    Below u = 0.5 (V/β³ loses digits to cancellation as u → 0; ω = 0 has β = 0) it is
    ``scipy.linalg.expm`` of Aℓ.  The closed form avoids expm's cost: the frequency search
    calls this thousands of times, and expm's BLAS calls oversubscribe shared cores."""
    beta = (rhoA * omega * omega / EI) ** 0.25
    u = beta * length
    if u < 0.5:
        return expm(_field_generator(EI, rhoA, omega) * length)
    ch, sh, c, s = np.cosh(u), np.sinh(u), np.cos(u), np.sin(u)
    S, T, U, V = 0.5 * (ch + c), 0.5 * (sh + s), 0.5 * (ch - c), 0.5 * (sh - s)
    b2, b3 = beta * beta, beta ** 3
    return np.array([[S, T / beta, U / (b2 * EI), -V / (b3 * EI)],
                     [beta * V, S, T / (beta * EI), -U / (b2 * EI)],
                     [EI * b2 * U, EI * beta * V, S, -T / beta],
                     [-EI * b3 * T, -EI * b2 * U, -beta * V, S]])


def element_matrix(e, omega: float) -> np.ndarray:
    """Transfer matrix (4×4) of one element at circular frequency ``omega``."""
    w2 = omega * omega
    if isinstance(e, BeamSegment):
        return beam_field_matrix(e.EI, e.rhoA, e.length, omega)
    if isinstance(e, RigidBody):
        l, lc = e.length, e.com
        # z_R = z_L + lθ; Q_R = Q_L − mω²(z_L + lc θ); M_R = M_L − Jω²θ − (l − lc) Q_R − lc Q_L
        T = np.eye(4)
        T[0, 1] = l
        T[3, 0] = -e.mass_ * w2
        T[3, 1] = -e.mass_ * w2 * lc
        row_Q = T[3].copy()
        T[2] = np.array([0.0, -e.J * w2, 1.0, -lc]) - (l - lc) * row_Q
        return T
    if isinstance(e, SpringDamper):
        T = np.eye(4)
        T[0, 3] = 0.0 if np.isinf(e.k) else 1.0 / e.k
        T[1, 2] = 0.0 if np.isinf(e.k_theta) else 1.0 / e.k_theta
        return T
    raise TypeError(f"not a DT-TMM element: {e!r}")


def _boundary_rows(name, where):
    """Rows selecting the boundary's two unknown quantities and its two zero ones in y."""
    Ef, Ea = boundary.equations(name, where)
    # E_f (Q, M) + E_a (z, θ) = 0 on the displacement amplitudes (harmonic: a = −ω² z)
    E = np.zeros((2, 4))
    E[:, 0], E[:, 1], E[:, 2], E[:, 3] = Ea[:, 0], Ea[:, 1], Ef[:, 1], Ef[:, 0]
    return E


def determinant(elements: Sequence, left: str, right: str, omega: float) -> float:
    """Boundary determinant at ``omega`` (zero at a natural frequency)."""
    T = np.eye(4)
    for e in elements:
        T = element_matrix(e, omega) @ T
    El, Er = _boundary_rows(left, "left"), _boundary_rows(right, "right")
    _, _, vt = np.linalg.svd(El)
    basis = vt[2:].T                          # y_0 = basis u
    M = Er @ T @ basis
    # scale-free: normalise by the magnitude of the matrix entries
    return float(np.linalg.det(M) / max(np.max(np.abs(M)) ** 2, 1e-300))


def natural_frequencies(elements: Sequence, left: str = "free", right: str = "free",
                        f_max: float = 1000.0, n_scan: int = 4000) -> np.ndarray:
    """Natural frequencies [Hz] up to ``f_max`` (sign changes of the determinant on a scan
    of ``n_scan`` points, refined by Brent's method; rigid-body zeros at 0 Hz excluded)."""
    f = np.linspace(f_max / n_scan, f_max, n_scan)
    d = np.array([determinant(elements, left, right, 2 * np.pi * x) for x in f])
    out = []
    for i in np.nonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)[0]:
        g = lambda x: determinant(elements, left, right, 2 * np.pi * x)  # noqa: E731
        r = brentq(g, f[i], f[i + 1], xtol=1e-12 * f[i + 1])
        # a sign change through a pole is not a zero: the determinant must be small there
        if abs(g(r)) < 1e-6:
            out.append(r)
    return np.array(out)
