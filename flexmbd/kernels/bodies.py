"""Compiled inertia forces of spatial rigid bodies (see bodies/rigid.py for the maths)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import DG

DG_ = np.ascontiguousarray(DG)


@njit(cache=True, inline="always")
def _G(p, G):
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    G[0, 0], G[0, 1], G[0, 2], G[0, 3] = -e1, e0, e3, -e2
    G[1, 0], G[1, 1], G[1, 2], G[1, 3] = -e2, -e3, e0, e1
    G[2, 0], G[2, 1], G[2, 2], G[2, 3] = -e3, e2, -e1, e0


@njit(cache=True)
def spatial_inertia(qb, vb, ab, mass, inertia, jacobians, F, K, D, M):
    nb = qb.shape[0]
    work = np.empty(54)     # the work arrays as views of one buffer (one allocation)
    G, Gd = work[:12].reshape((3, 4)), work[12:24].reshape((3, 4))
    Ga, JG = work[24:36].reshape((3, 4)), work[36:48].reshape((3, 4))
    w1, w2 = work[48:51], work[51:54]
    for b in range(nb):
        p, pd, pa = qb[b, 3:7], vb[b, 3:7], ab[b, 3:7]
        _G(p, G)
        _G(pd, Gd)
        _G(pa, Ga)
        Jb = inertia[b]
        for i in range(3):
            for j in range(4):
                s = 0.0
                for k in range(3):
                    s += Jb[i, k] * G[k, j]
                JG[i, j] = s
        w1[:] = 0.0
        w2[:] = 0.0
        for i in range(3):
            for j in range(4):
                w1[i] += JG[i, j] * pa[j]
                w2[i] += JG[i, j] * pd[j]
        for i in range(3):
            F[b, i] = mass[b] * ab[b, i]
        for j in range(4):
            s = 0.0
            for i in range(3):
                s += 4.0 * G[i, j] * w1[i] + 8.0 * Gd[i, j] * w2[i]
            F[b, 3 + j] = s
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
                m_ = 0.0
                jga = 0.0
                jgd = 0.0
                dw1 = 0.0
                dw2 = 0.0
                gdjg = 0.0
                for i in range(3):
                    m_ += G[i, j] * JG[i, k]
                    dw1 += w1[i] * DG_[i, j, k]
                    dw2 += w2[i] * DG_[i, j, k]
                    gdjg += Gd[i, j] * JG[i, k]
                    # (J Ga)[i, k] and (J Gd)[i, k]
                    jgak = 0.0
                    jgdk = 0.0
                    for l in range(3):
                        jgak += Jb[i, l] * Ga[l, k]
                        jgdk += Jb[i, l] * Gd[l, k]
                    jga += G[i, j] * jgak
                    jgd += Gd[i, j] * jgdk
                M[b, 3 + j, 3 + k] = 4.0 * m_
                K[b, 3 + j, 3 + k] = 4.0 * (dw1 - jga) - 8.0 * jgd
                D[b, 3 + j, 3 + k] = 8.0 * (dw2 + gdjg)


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
