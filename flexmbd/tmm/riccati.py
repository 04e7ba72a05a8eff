"""One DT-TMM time step's linear equations and their two solutions: the Riccati
transfer (P5, "Riccati transfer") and, as an independent check, a direct sparse solve of
all station equations at once.

Element relations (flexmbd/tmm/elements.py for the derivation): for an element with mass
between stations i (left) and i+1 (right), with generalised end loads g = (−f_i, f_{i+1}),

    [a_i; a_{i+1}] = C g + b,          C = U D⁻¹ Uᵀ (4×4),  b = U D⁻¹ r;

for a massless spring-damper f_{i+1} = f_i and a_{i+1} = a_i + diag(D_s) f_i + d_s.

Riccati transfer.  P5 writes the forces of station i as f_i = P_i a_i + S_i, starting
from the free left boundary with P₀ = 0, S₀ = 0.  Here the same transfer is carried in
its inverse (compliance) form a_i = R_i f_i + T_i (R_i = P_i⁻¹) behind every element with
mass, and as f = P_f u + s_f, a = P_a u + s_a at the boundary and behind springs, so
that clamped and pinned ends (P = ∞) and rigid springs (D_s = 0) need no special case:

    Y = (P_a + C₀₀ P_f)⁻¹,    u_i = Y C₀ₗ f_{i+1} + Y (b₀ − s_a − C₀₀ s_f),
    R_{i+1} = C_ℓℓ − C_ℓ₀ P_f Y C₀ₗ,   T_{i+1} = b_ℓ − C_ℓ₀ (P_f Y (b₀ − s_a − C₀₀ s_f) + s_f),

a Schur complement of positive (semi)definite compliances, bounded however stiff or
short an element and however small the step (the reason P5 transfers accelerations).
The right boundary E_f f + E_a a = 0 gives its two unknowns, and the stored maps
u_i = Y C₀ₗ f_{i+1} + … recover every station backwards.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import ModelError
from ..kernels import AVAILABLE
from ..kernels.tmm import riccati_sweep

_SWEEP = riccati_sweep if AVAILABLE else riccati_sweep.py_func

MASS, SPRING, SPRING_FORCE = 0, 1, 2


def sweep(kind, C, b, Dspr, dspr, left, right):
    """Station forces f (N+1, 2) = (Q, M) and accelerations a (N+1, 2) = (z'', θ'') of one
    step by the Riccati transfer; ``left`` = (P_f, P_a) descriptor, ``right`` = (E_f, E_a)."""
    n = len(kind)
    f = np.empty((n + 1, 2))
    a = np.empty((n + 1, 2))
    u = np.empty((n + 1, 2))
    mindet = _SWEEP(np.asarray(kind, dtype=np.int64), C, b, Dspr, dspr, left[0], left[1], right[0], right[1],
                    f, a, u)
    if mindet == 0.0 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(f))):
        raise ModelError("the chain's step equations are singular (a free end behind massless springs only, "
                         "or an element without mass between two free ends)", key="elements")
    return f, a


def direct(kind, C, b, Dspr, dspr, left, right, spring_force=None):
    """The same station equations solved at once (sparse LU of all 4(N+1) unknowns): the
    check of :func:`sweep`.  With ``spring_force`` (N, 2) the springs' forces are given
    instead of their acceleration relation (used for the initial accelerations)."""
    n = len(kind)
    nx = 4 * (n + 1)                          # per station (Q, M, z'', θ'')
    rows, cols, vals, rhs = [], [], [], np.zeros(nx)
    eq = [0]

    def add(r, c, v):
        rows.append(r)
        cols.append(c)
        vals.append(v)

    def F(s, i):
        return 4 * s + i

    def A(s, i):
        return 4 * s + 2 + i

    # left boundary: [E_f E_a] orthogonal to the descriptor's range
    Pf, Pa = left
    basis = np.vstack([Pf, Pa])
    q, _ = np.linalg.qr(basis, mode="complete")
    El = q[:, 2:].T                           # (2, 4)
    for r in range(2):
        for j in range(4):
            if El[r, j] != 0.0:
                add(eq[0], F(0, j) if j < 2 else A(0, j - 2), El[r, j])
        eq[0] += 1
    for e in range(n):
        if kind[e] == MASS:
            # a_e − (−C₀₀ f_e + C₀ₗ f_{e+1}) = b₀ ; a_{e+1} − (−C_ℓ₀ f_e + C_ℓℓ f_{e+1}) = b_ℓ
            for i in range(4):
                s_a = e if i < 2 else e + 1
                add(eq[0], A(s_a, i % 2), 1.0)
                for j in range(2):
                    add(eq[0], F(e, j), C[e, i, j])
                    add(eq[0], F(e + 1, j), -C[e, i, 2 + j])
                rhs[eq[0]] = b[e, i]
                eq[0] += 1
        else:
            for i in range(2):
                add(eq[0], F(e + 1, i), 1.0)
                add(eq[0], F(e, i), -1.0)
                eq[0] += 1
            for i in range(2):
                if spring_force is not None:
                    add(eq[0], F(e, i), 1.0)
                    rhs[eq[0]] = spring_force[e, i]
                else:
                    add(eq[0], A(e + 1, i), 1.0)
                    add(eq[0], A(e, i), -1.0)
                    add(eq[0], F(e, i), -Dspr[e, i])
                    rhs[eq[0]] = dspr[e, i]
                eq[0] += 1
    Ef, Ea = right
    for r in range(2):
        for j in range(2):
            add(eq[0], F(n, j), Ef[r, j])
            add(eq[0], A(n, j), Ea[r, j])
        eq[0] += 1
    K = sp.csc_matrix((vals, (rows, cols)), shape=(nx, nx))
    with np.errstate(all="ignore"):
        try:
            x = spla.spsolve(K, rhs)
        except RuntimeError:
            x = np.full(nx, np.nan)
    if not np.all(np.isfinite(x)):
        raise ModelError("the chain's step equations are singular", key="elements")
    x = x.reshape(n + 1, 4)
    return x[:, :2].copy(), x[:, 2:].copy()
