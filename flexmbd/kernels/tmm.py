"""The Riccati sweep of the discrete-time transfer matrix method (flexmbd/tmm/riccati.py
is the interface and documents the algebra; P5, "Riccati transfer").

Per station the states are kept as f = P_f u + s_f, a = P_a u + s_a with two unknowns u
(forces f = (Q, M), accelerations a = (z'', θ'')); after every element with mass P_f = I,
so that a = R f + T with R the inverse of P5's Riccati matrix P.  All matrices are 2×2.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _inv2(A, out):
    det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    out[0, 0] = A[1, 1] / det
    out[1, 1] = A[0, 0] / det
    out[0, 1] = -A[0, 1] / det
    out[1, 0] = -A[1, 0] / det
    return det


@njit(cache=True)
def riccati_sweep(kind, C, b, Dspr, dspr, Pf0, Pa0, Ef, Ea, f_out, a_out, u_out):
    """Forward Riccati transfer from the left boundary (descriptor Pf0, Pa0), the right
    boundary equations Ef f + Ea a = 0, backward recovery.

    kind[e]: 0 element with mass (end compliance C[e] (4×4), b[e] (4)), 1 spring
    (a_R = a_L + diag(Dspr[e]) f + dspr[e]).  Writes f_out, a_out (N+1, 2), u_out (N+1, 2).
    Returns the smallest |det| met (≤ 0 flags a singular chain)."""
    n = kind.shape[0]
    Pf = np.empty((n + 1, 2, 2))
    Pa = np.empty((n + 1, 2, 2))
    sf = np.zeros((n + 1, 2))
    sa = np.zeros((n + 1, 2))
    Gu = np.zeros((n, 2, 2))
    hu = np.zeros((n, 2))
    Pf[0] = Pf0
    Pa[0] = Pa0
    M = np.empty((2, 2))
    Y = np.empty((2, 2))
    W = np.empty((2, 2))
    r = np.empty(2)
    mindet = np.inf
    for e in range(n):
        if kind[e] == 1:
            for i in range(2):
                for j in range(2):
                    Pf[e + 1, i, j] = Pf[e, i, j]
                    Pa[e + 1, i, j] = Pa[e, i, j] + Dspr[e, i] * Pf[e, i, j]
                sf[e + 1, i] = sf[e, i]
                sa[e + 1, i] = sa[e, i] + Dspr[e, i] * sf[e, i] + dspr[e, i]
            continue
        # (P_a + C00 P_f) u = C0L g_L + b0 − s_a − C00 s_f
        for i in range(2):
            for j in range(2):
                M[i, j] = Pa[e, i, j] + C[e, i, 0] * Pf[e, 0, j] + C[e, i, 1] * Pf[e, 1, j]
            r[i] = b[e, i] - sa[e, i] - C[e, i, 0] * sf[e, 0] - C[e, i, 1] * sf[e, 1]
        det = abs(_inv2(M, Y))
        if det < mindet:
            mindet = det
        for i in range(2):
            hu[e, i] = Y[i, 0] * r[0] + Y[i, 1] * r[1]
            for j in range(2):
                Gu[e, i, j] = Y[i, 0] * C[e, 0, 2 + j] + Y[i, 1] * C[e, 1, 2 + j]
        # a_L = −C_L0 (P_f u + s_f) + C_LL g_L + b_L, with u = Gu g_L + hu
        for i in range(2):
            for j in range(2):
                W[i, j] = C[e, 2 + i, 0] * Pf[e, 0, j] + C[e, 2 + i, 1] * Pf[e, 1, j]     # C_L0 P_f
        for i in range(2):
            for j in range(2):
                Pa[e + 1, i, j] = C[e, 2 + i, 2 + j] - W[i, 0] * Gu[e, 0, j] - W[i, 1] * Gu[e, 1, j]
                Pf[e + 1, i, j] = 1.0 if i == j else 0.0
            sf[e + 1, i] = 0.0
            sa[e + 1, i] = (b[e, 2 + i] - W[i, 0] * hu[e, 0] - W[i, 1] * hu[e, 1]
                            - C[e, 2 + i, 0] * sf[e, 0] - C[e, 2 + i, 1] * sf[e, 1])
    # right boundary: (Ef P_f + Ea P_a) u = −(Ef s_f + Ea s_a)
    for i in range(2):
        for j in range(2):
            M[i, j] = (Ef[i, 0] * Pf[n, 0, j] + Ef[i, 1] * Pf[n, 1, j]
                       + Ea[i, 0] * Pa[n, 0, j] + Ea[i, 1] * Pa[n, 1, j])
        r[i] = -(Ef[i, 0] * sf[n, 0] + Ef[i, 1] * sf[n, 1] + Ea[i, 0] * sa[n, 0] + Ea[i, 1] * sa[n, 1])
    det = abs(_inv2(M, Y))
    if det < mindet:
        mindet = det
    u = np.empty(2)
    u[0] = Y[0, 0] * r[0] + Y[0, 1] * r[1]
    u[1] = Y[1, 0] * r[0] + Y[1, 1] * r[1]
    for s in range(n, -1, -1):
        u_out[s, 0] = u[0]
        u_out[s, 1] = u[1]
        for i in range(2):
            f_out[s, i] = Pf[s, i, 0] * u[0] + Pf[s, i, 1] * u[1] + sf[s, i]
            a_out[s, i] = Pa[s, i, 0] * u[0] + Pa[s, i, 1] * u[1] + sa[s, i]
        if s > 0 and kind[s - 1] == 0:
            e = s - 1
            u0 = Gu[e, 0, 0] * f_out[s, 0] + Gu[e, 0, 1] * f_out[s, 1] + hu[e, 0]
            u1 = Gu[e, 1, 0] * f_out[s, 0] + Gu[e, 1, 1] * f_out[s, 1] + hu[e, 1]
            u[0] = u0
            u[1] = u1
    return mindet
