"""Compiled torques and rotational spring-damper-actuators (see forces/loads.py and
forces/rotational_spring.py for the maths; the NumPy code there is the reference)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import DE, DG
from .dot import FRAME, SPATIAL
from .markers import (
    frame_contract,
    frame_marker,
    planar_contract,
    planar_marker,
    spatial_contract,
    spatial_marker,
)

DE_ = np.ascontiguousarray(DE)
DG_ = np.ascontiguousarray(DG)
#: E(p) and G(p) as p[index] · sign (rotations.E_matrix, G_matrix)
_IDX = np.array([[1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]])
_E_SIGN = np.array([[-1.0, 1, -1, 1], [-1, 1, 1, -1], [-1, -1, 1, 1]])
_G_SIGN = np.array([[-1.0, 1, 1, -1], [-1, -1, 1, 1], [-1, 1, -1, 1]])


@njit(cache=True)
def torques(kcode, qb, torque, body_fixed, s, jacobians, Q, K):
    """Torques n = torque · s on Euler-parameter bodies (Q_p = 2 Eᵀ n global, 2 Gᵀ n body
    axes; ∂Q_p/∂p = 2 Σ_i n_i ∂E_i/∂p resp. ∂G_i/∂p) or planar bodies (Q_θ = n_z)."""
    n = qb.shape[0]
    nv = Q.shape[1]
    for e in range(n):
        for a in range(nv):
            Q[e, a] = 0.0
            if jacobians:
                for b in range(nv):
                    K[e, a, b] = 0.0
        if kcode != SPATIAL:
            Q[e, 2] = torque[e, 2] * s[e]
            continue
        bf = body_fixed[e]
        for j in range(4):
            acc = 0.0
            for i in range(3):
                sign = _G_SIGN[i, j] if bf else _E_SIGN[i, j]
                acc += sign * qb[e, 3 + _IDX[i, j]] * torque[e, i] * s[e]
            Q[e, 3 + j] = 2.0 * acc
        if jacobians:
            for j in range(4):
                for k in range(4):
                    acc = 0.0
                    for i in range(3):
                        d = DG_[i, j, k] if bf else DE_[i, j, k]
                        acc += torque[e, i] * s[e] * d
                    K[e, 3 + j, 3 + k] = 2.0 * acc


@njit(cache=True)
def _vector(kcode, q, u, x, J, C, A, R):
    if kcode == SPATIAL:
        spatial_marker(q, u, 2, x, J, C)
    elif kcode == FRAME:
        frame_marker(q, u, 2, x, J, R)
    else:
        planar_marker(q, u, 2, x, J, A)


@njit(cache=True)
def _contract(kcode, C, A, R, u, g, out, off, scale):
    if kcode == SPATIAL:
        spatial_contract(C, g, out, off, scale)
    elif kcode == FRAME:
        frame_contract(R, u, 2, g, out, off, scale)
    else:
        planar_contract(A, g, out, off, scale)


@njit(cache=True)
def rotational_springs(kcode, ql, vl, fi, gi, fj, k, c, ta, jacobians, Q, K, D):
    """Rotational spring-damper-actuators: δ = atan2(g_i·f_j, f_i·f_j), T = −k δ − c δ' + τ_a,
    Q = T ∂δ/∂q, K = ∂δᵀ ⊗ (−k ∂δ − c Hᵀ q') + T H, D = −c ∂δᵀ ∂δ (forces/rotational_spring.py).
    Returns the smallest r² = x² + y² (0: f_j along the axis, the angle is undefined)."""
    n = ql.shape[0]
    nq, m = ql.shape[1] // 2, vl.shape[1]
    nv = m // 2
    Fi, Gi, Fj = np.empty(3), np.empty(3), np.empty(3)
    JFi, JGi, JFj = np.empty((3, nv)), np.empty((3, nv)), np.empty((3, nv))
    CFi, CGi, CFj = np.empty(48), np.empty(48), np.empty(48)   # C(u), flat (markers.c_tensor_into)
    AFi, AGi, AFj = np.empty(2), np.empty(2), np.empty(2)
    RFi, RGi, RFj = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    gx, gy, Jd = np.empty(m), np.empty(m), np.empty(m)
    Hx, Hy, H = np.empty((m, m)), np.empty((m, m)), np.empty((m, m))
    smallest = np.inf
    for e in range(n):
        qi, qj = ql[e, :nq], ql[e, nq:]
        _vector(kcode, qi, fi[e], Fi, JFi, CFi, AFi, RFi)
        _vector(kcode, qi, gi[e], Gi, JGi, CGi, AGi, RGi)
        _vector(kcode, qj, fj[e], Fj, JFj, CFj, AFj, RFj)
        x = Fi[0] * Fj[0] + Fi[1] * Fj[1] + Fi[2] * Fj[2]
        y = Gi[0] * Fj[0] + Gi[1] * Fj[1] + Gi[2] * Fj[2]
        r2 = x * x + y * y
        smallest = min(smallest, r2)
        if r2 < 1e-300:
            continue
        for a in range(nv):
            gx[a] = Fj[0] * JFi[0, a] + Fj[1] * JFi[1, a] + Fj[2] * JFi[2, a]
            gx[nv + a] = Fi[0] * JFj[0, a] + Fi[1] * JFj[1, a] + Fi[2] * JFj[2, a]
            gy[a] = Fj[0] * JGi[0, a] + Fj[1] * JGi[1, a] + Fj[2] * JGi[2, a]
            gy[nv + a] = Gi[0] * JFj[0, a] + Gi[1] * JFj[1, a] + Gi[2] * JFj[2, a]
        rate = 0.0
        for a in range(m):
            Jd[a] = (x * gy[a] - y * gx[a]) / r2
            rate += Jd[a] * vl[e, a]
        T = -k[e] * np.arctan2(y, x) - c[e] * rate + ta[e]
        for a in range(m):
            Q[e, a] = T * Jd[a]
        if not jacobians:
            continue
        Hx[:, :] = 0.0
        Hy[:, :] = 0.0
        _contract(kcode, CFi, AFi, RFi, fi[e], Fj, Hx, 0, 1.0)
        _contract(kcode, CFj, AFj, RFj, fj[e], Fi, Hx, nv, 1.0)
        _contract(kcode, CGi, AGi, RGi, gi[e], Fj, Hy, 0, 1.0)
        _contract(kcode, CFj, AFj, RFj, fj[e], Gi, Hy, nv, 1.0)
        for a in range(nv):
            for b in range(nv):
                hx = JFi[0, a] * JFj[0, b] + JFi[1, a] * JFj[1, b] + JFi[2, a] * JFj[2, b]
                hy = JGi[0, a] * JFj[0, b] + JGi[1, a] * JFj[1, b] + JGi[2, a] * JFj[2, b]
                Hx[a, nv + b] = hx
                Hx[nv + b, a] = hx
                Hy[a, nv + b] = hy
                Hy[nv + b, a] = hy
        for a in range(m):
            for b in range(m):
                H[a, b] = (gy[a] * gx[b] - gx[a] * gy[b] + x * Hy[a, b] - y * Hx[a, b]) / r2 \
                    - 2.0 * Jd[a] * (x * gx[b] + y * gy[b]) / r2
        for b in range(m):
            hv = 0.0
            for a in range(m):
                hv += H[a, b] * vl[e, a]
            dT = -k[e] * Jd[b] - c[e] * hv
            for a in range(m):
                K[e, a, b] = Jd[a] * dT + T * H[a, b]
                D[e, a, b] = -c[e] * Jd[a] * Jd[b]
    return smallest
