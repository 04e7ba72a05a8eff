"""Compiled point forces (see forces/loads.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .dot import ANCF, FRAME, SPATIAL
from .markers import (
    ancf_marker,
    c_tensor_into,
    contract_entry,
    frame_contract,
    frame_marker,
    marker_row,
    planar_contract,
    planar_marker,
    spatial_contract,
    spatial_marker,
)


@njit(cache=True)
def point_forces(kcode, qb, u, f, body_fixed, s, jacobians, Q, K):
    """kcode as in kernels/dot.py; Q (n, nv), K (n, nv, nv)."""
    n = qb.shape[0]
    nq = Q.shape[1]
    # the work arrays as views of one buffer (an allocation costs about as much as a marker)
    work = np.empty(6 * nq + 127)
    J, fJ = work[:3 * nq].reshape((3, nq)), work[3 * nq:6 * nq].reshape((3, nq))
    o = 6 * nq
    C, Cf = work[o:o + 48], work[o + 48:o + 96]   # C(u), flat (markers.c_tensor_into)
    R, Rf = work[o + 96:o + 105].reshape((3, 3)), work[o + 105:o + 114].reshape((3, 3))
    x, fx, F = work[o + 114:o + 117], work[o + 117:o + 120], work[o + 120:o + 123]
    A, Af = work[o + 123:o + 125], work[o + 125:o + 127]
    for e in range(n):
        if kcode == SPATIAL:
            spatial_marker(qb[e], u[e], 1, x, J, C)
        elif kcode == FRAME:
            frame_marker(qb[e], u[e], 1, x, J, R)
        elif kcode == ANCF:
            ancf_marker(qb[e], u[e], 1, x, J)
        else:
            planar_marker(qb[e], u[e], 1, x, J, A)
        if body_fixed[e]:
            if kcode == SPATIAL:
                spatial_marker(qb[e], f[e], 2, fx, fJ, Cf)
            elif kcode == FRAME:
                frame_marker(qb[e], f[e], 2, fx, fJ, Rf)
            elif kcode == ANCF:
                ancf_marker(qb[e], f[e], 2, fx, fJ)
            else:
                planar_marker(qb[e], f[e], 2, fx, fJ, Af)
            for i in range(3):
                F[i] = fx[i] * s[e]
        else:
            for i in range(3):
                F[i] = f[e, i] * s[e]
        for a in range(nq):
            Q[e, a] = J[0, a] * F[0] + J[1, a] * F[1] + J[2, a] * F[2]
        if not jacobians:
            continue
        K[e, :, :] = 0.0
        if kcode == SPATIAL:
            spatial_contract(C, F, K[e], 0, 1.0)
        elif kcode == FRAME:
            frame_contract(R, u[e], 1, F, K[e], 0, 1.0)
        elif kcode == ANCF:
            pass   # linear markers: no second-derivative term
        else:
            planar_contract(A, F, K[e], 0, 1.0)
        if body_fixed[e]:
            for a in range(nq):
                for b in range(nq):
                    K[e, a, b] += s[e] * (J[0, a] * fJ[0, b] + J[1, a] * fJ[1, b] + J[2, a] * fJ[2, b])


# offsets in the flat work buffer of :func:`spatial_point_into`: C(u), C(f), J, f's J (no
# views or temporaries: each costs an allocation or an atomic reference count)
_C, _CF, _J, _FJ, _PWORK = 0, 48, 96, 117, 138


@njit(cache=True, inline="always")
def _marker(w, oc, oj, qe, cfg, e, u0, u1, u2, point):
    """x = [r +] A(p) u and J = [I, 2 C(u) p] (3 × 7 at w[oj:], C at w[oc:]) of
    markers.spatial_marker, read through the config row cfg[e]; returns x."""
    c_tensor_into(u0, u1, u2, w, oc)
    p0, p1, p2, p3 = qe[cfg[e, 3]], qe[cfg[e, 4]], qe[cfg[e, 5]], qe[cfg[e, 6]]
    x0 = x1 = x2 = 0.0
    for i in range(3):
        P0, P1, P2, P3, s = marker_row(w, oc, i, p0, p1, p2, p3)
        o = oj + 7 * i
        w[o + 3], w[o + 4], w[o + 5], w[o + 6] = 2.0 * P0, 2.0 * P1, 2.0 * P2, 2.0 * P3
        for a in range(3):
            w[oj + 7 * i + a] = 1.0 if (point and a == i) else 0.0
        if point:
            s += qe[cfg[e, i]]
        if i == 0:
            x0 = s
        elif i == 1:
            x1 = s
        else:
            x2 = s
    return x0, x1, x2


@njit(cache=True)
def spatial_point_into(cfg, u, f, body_fixed, s, qe, scale, cK, matrix, vec, blk):
    """:func:`point_forces` on Euler-parameter bodies (``SPATIAL``) read through the config
    rows, −scale Q into vec (n · 7) and −c_K scale ∂Q/∂q into blk (n · 49) directly."""
    n = cfg.shape[0]
    w = np.empty(_PWORK)
    for e in range(n):
        _marker(w, _C, _J, qe, cfg, e, u[e, 0], u[e, 1], u[e, 2], True)
        if body_fixed[e]:
            fx0, fx1, fx2 = _marker(w, _CF, _FJ, qe, cfg, e, f[e, 0], f[e, 1], f[e, 2], False)
            F0, F1, F2 = fx0 * s[e], fx1 * s[e], fx2 * s[e]
        else:
            F0, F1, F2 = f[e, 0] * s[e], f[e, 1] * s[e], f[e, 2] * s[e]
        for a in range(7):
            vec[7 * e + a] = -scale * (w[_J + a] * F0 + w[_J + 7 + a] * F1 + w[_J + 14 + a] * F2)
        if not matrix:
            continue
        ob = 49 * e
        c = -cK * scale
        for a in range(7):
            for b in range(7):
                kab = 0.0
                if a >= 3 and b >= 3:   # Σ_i F_i ∂²x_i/∂p²
                    kab = contract_entry(w, _C, a - 3, b - 3, F0, F1, F2)
                if body_fixed[e]:
                    kab += s[e] * (w[_J + a] * w[_FJ + b] + w[_J + 7 + a] * w[_FJ + 7 + b]
                                   + w[_J + 14 + a] * w[_FJ + 14 + b])
                blk[ob + 7 * a + b] = c * kab
