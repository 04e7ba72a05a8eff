"""Compiled inertia forces of spatial rigid bodies (see bodies/rigid.py for the maths)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import DG

DG_ = np.ascontiguousarray(DG)


@njit(cache=True, inline="always")
def _G(w, o, e0, e1, e2, e3):
    """G(p) (3 × 4, row-major) into w[o:o + 12]."""
    w[o + 0], w[o + 1], w[o + 2], w[o + 3] = -e1, e0, e3, -e2
    w[o + 4], w[o + 5], w[o + 6], w[o + 7] = -e2, -e3, e0, e1
    w[o + 8], w[o + 9], w[o + 10], w[o + 11] = -e3, e2, -e1, e0


# offsets of a body's work values in one flat buffer (no views: each view of an array costs
# an atomic reference count, which made the bodies' kernel several times its arithmetic)
_GO, _GD, _GA, _JG, _W1, _W2, _WORK = 0, 12, 24, 36, 48, 51, 54


@njit(cache=True, inline="always")
def _body(w, inertia, b, p0, p1, p2, p3, d0, d1, d2, d3, a0, a1, a2, a3):
    """G, Ġ, G̈-like G(p''), J G, w1 = J G p'', w2 = J G p' of body b into w; returns
    the rotational forces F_p = 4 Gᵀ w1 + 8 Ġᵀ w2 (bodies/rigid.py)."""
    _G(w, _GO, p0, p1, p2, p3)
    _G(w, _GD, d0, d1, d2, d3)
    _G(w, _GA, a0, a1, a2, a3)
    for i in range(3):
        for j in range(4):
            w[_JG + 4 * i + j] = (inertia[b, i, 0] * w[_GO + j] + inertia[b, i, 1] * w[_GO + 4 + j]
                                  + inertia[b, i, 2] * w[_GO + 8 + j])
    for i in range(3):
        o = _JG + 4 * i
        w[_W1 + i] = w[o] * a0 + w[o + 1] * a1 + w[o + 2] * a2 + w[o + 3] * a3
        w[_W2 + i] = w[o] * d0 + w[o + 1] * d1 + w[o + 2] * d2 + w[o + 3] * d3


@njit(cache=True, inline="always")
def _force_p(w, j):
    s = 0.0
    for i in range(3):
        s += 4.0 * w[_GO + 4 * i + j] * w[_W1 + i] + 8.0 * w[_GD + 4 * i + j] * w[_W2 + i]
    return s


@njit(cache=True, inline="always")
def _pp_entries(w, inertia, b, j, k):
    """(M, K, D)[3 + j, 3 + k]: M = 4 Gᵀ J G, K = ∂F/∂p, D = ∂F/∂p' (bodies/rigid.py)."""
    m_ = 0.0
    jga = 0.0
    jgd = 0.0
    dw1 = 0.0
    dw2 = 0.0
    gdjg = 0.0
    for i in range(3):
        gij = w[_GO + 4 * i + j]
        gdij = w[_GD + 4 * i + j]
        m_ += gij * w[_JG + 4 * i + k]
        dw1 += w[_W1 + i] * DG_[i, j, k]
        dw2 += w[_W2 + i] * DG_[i, j, k]
        gdjg += gdij * w[_JG + 4 * i + k]
        # (J Ga)[i, k] and (J Gd)[i, k]
        jgak = 0.0
        jgdk = 0.0
        for l in range(3):
            jgak += inertia[b, i, l] * w[_GA + 4 * l + k]
            jgdk += inertia[b, i, l] * w[_GD + 4 * l + k]
        jga += gij * jgak
        jgd += gdij * jgdk
    return 4.0 * m_, 4.0 * (dw1 - jga) - 8.0 * jgd, 8.0 * (dw2 + gdjg)


@njit(cache=True)
def spatial_inertia(qb, vb, ab, mass, inertia, jacobians, F, K, D, M):
    """F = M a + Q_v and its K = ∂F/∂q, D = ∂F/∂q', M of bodies with coordinates qb (nb, 7)."""
    nb = qb.shape[0]
    w = np.empty(_WORK)
    for b in range(nb):
        _body(w, inertia, b, qb[b, 3], qb[b, 4], qb[b, 5], qb[b, 6], vb[b, 3], vb[b, 4], vb[b, 5], vb[b, 6],
              ab[b, 3], ab[b, 4], ab[b, 5], ab[b, 6])
        for i in range(3):
            F[b, i] = mass[b] * ab[b, i]
        for j in range(4):
            F[b, 3 + j] = _force_p(w, j)
        if not jacobians:
            continue
        for i in range(7):
            for j in range(7):
                K[b, i, j] = 0.0
                D[b, i, j] = 0.0
                M[b, i, j] = 0.0
        for i in range(3):
            M[b, i, i] = mass[b]
        for j in range(4):
            for k in range(4):
                M[b, 3 + j, 3 + k], K[b, 3 + j, 3 + k], D[b, 3 + j, 3 + k] = _pp_entries(w, inertia, b, j, k)


@njit(cache=True)
def spatial_inertia_into(cfg, dof, mass, inertia, qe, ve, ae, cM, cD, cK, matrix, vec, blk):
    """:func:`spatial_inertia` read from the extended vectors through the bodies' config and
    dof rows, F into vec (nb · 7) and c_M M + c_K K + c_D D into blk (nb · 49) directly."""
    nb = cfg.shape[0]
    w = np.empty(_WORK)
    for b in range(nb):
        _body(w, inertia, b, qe[cfg[b, 3]], qe[cfg[b, 4]], qe[cfg[b, 5]], qe[cfg[b, 6]],
              ve[dof[b, 3]], ve[dof[b, 4]], ve[dof[b, 5]], ve[dof[b, 6]],
              ae[dof[b, 3]], ae[dof[b, 4]], ae[dof[b, 5]], ae[dof[b, 6]])
        for i in range(3):
            vec[7 * b + i] = mass[b] * ae[dof[b, i]]
        for j in range(4):
            vec[7 * b + 3 + j] = _force_p(w, j)
        if not matrix:
            continue
        o = 49 * b
        for i in range(49):
            blk[o + i] = 0.0
        for i in range(3):
            blk[o + 8 * i] = cM * mass[b]
        for j in range(4):
            for k in range(4):
                m_, k_, d_ = _pp_entries(w, inertia, b, j, k)
                blk[o + 7 * (3 + j) + 3 + k] = cM * m_ + cK * k_ + cD * d_


def inertia_force(group, qb, vb, ab, jacobians=True):
    nb = len(group)
    F = np.empty((nb, 7))
    if jacobians:
        K, D, M = np.empty((nb, 7, 7)), np.empty((nb, 7, 7)), np.empty((nb, 7, 7))
    else:
        K = D = M = np.empty((0, 7, 7))
    spatial_inertia(np.ascontiguousarray(qb), np.ascontiguousarray(vb), np.ascontiguousarray(ab),
                    group.mass, group.inertia, jacobians, F, K, D, M)
    return (F, K, D, M) if jacobians else (F, None, None, None)


@njit(cache=True)
def frame_inertia(vb, ab, mass, inertia, jacobians, F, K, D, M):
    """SE(3) rigid bodies (``FrameBodyGroup``): F = [m (U̇ + Ω × U); J Ω̇ + Ω × J Ω],
    K = ∂F/∂Δ = 0, D = ∂F/∂v = [[m Ω̃, −m Ũ], [0, Ω̃ J − (J Ω)~]], M = diag(m I, J)."""
    nb = vb.shape[0]
    Jw = np.empty(3)
    for b in range(nb):
        m = mass[b]
        J = inertia[b]
        U0, U1, U2 = vb[b, 0], vb[b, 1], vb[b, 2]
        w0, w1, w2 = vb[b, 3], vb[b, 4], vb[b, 5]
        for i in range(3):
            Jw[i] = J[i, 0] * w0 + J[i, 1] * w1 + J[i, 2] * w2
        F[b, 0] = m * ab[b, 0] + m * (w1 * U2 - w2 * U1)
        F[b, 1] = m * ab[b, 1] + m * (w2 * U0 - w0 * U2)
        F[b, 2] = m * ab[b, 2] + m * (w0 * U1 - w1 * U0)
        for i in range(3):
            F[b, 3 + i] = J[i, 0] * ab[b, 3] + J[i, 1] * ab[b, 4] + J[i, 2] * ab[b, 5]
        F[b, 3] += w1 * Jw[2] - w2 * Jw[1]
        F[b, 4] += w2 * Jw[0] - w0 * Jw[2]
        F[b, 5] += w0 * Jw[1] - w1 * Jw[0]
        if not jacobians:
            continue
        for i in range(6):
            for j in range(6):
                K[b, i, j] = 0.0
                D[b, i, j] = 0.0
                M[b, i, j] = 0.0
        for i in range(3):
            M[b, i, i] = m
            for j in range(3):
                M[b, 3 + i, 3 + j] = J[i, j]
        # m Ω̃ and −m Ũ
        D[b, 0, 1], D[b, 0, 2], D[b, 1, 2] = -m * w2, m * w1, -m * w0
        D[b, 1, 0], D[b, 2, 0], D[b, 2, 1] = m * w2, -m * w1, m * w0
        D[b, 0, 4], D[b, 0, 5], D[b, 1, 5] = m * U2, -m * U1, m * U0
        D[b, 1, 3], D[b, 2, 3], D[b, 2, 4] = -m * U2, m * U1, -m * U0
        # Ω̃ J − (J Ω)~
        for j in range(3):
            D[b, 3, 3 + j] = w1 * J[2, j] - w2 * J[1, j]
            D[b, 4, 3 + j] = w2 * J[0, j] - w0 * J[2, j]
            D[b, 5, 3 + j] = w0 * J[1, j] - w1 * J[0, j]
        D[b, 3, 4] += Jw[2]
        D[b, 3, 5] -= Jw[1]
        D[b, 4, 5] += Jw[0]
        D[b, 4, 3] -= Jw[2]
        D[b, 5, 3] += Jw[1]
        D[b, 5, 4] -= Jw[0]
