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
    G = np.empty((3, 4))
    Gd = np.empty((3, 4))
    Ga = np.empty((3, 4))
    JG = np.empty((3, 4))
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
        w1 = np.zeros(3)
        w2 = np.zeros(3)
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
