"""Compiled point forces (see forces/loads.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .dot import ANCF, FRAME, SPATIAL
from .markers import (
    ancf_marker,
    frame_contract,
    frame_marker,
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
    C, Cf = work[o:o + 48].reshape((3, 4, 4)), work[o + 48:o + 96].reshape((3, 4, 4))
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
