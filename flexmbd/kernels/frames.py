"""Compiled state increment and tangent operator of SE(3) frames (flexmbd.nodes.frame)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lie import coef_b, coef_c, coef_hs, rotation_matrix, se3_T


@njit(cache=True)
def increment(q, dv, out):
    """H ⊕ Δ = H exp(Δ̃) row by row: q, out (N, 7), dv (N, 6) (``FrameKind.increment``, nodes/frame.py)."""
    A = np.empty((3, 3))
    for r in range(q.shape[0]):
        U0, U1, U2 = dv[r, 0], dv[r, 1], dv[r, 2]
        O0, O1, O2 = dv[r, 3], dv[r, 4], dv[r, 5]
        t = O0 * O0 + O1 * O1 + O2 * O2
        th = math.sqrt(t)
        b, c = coef_b(th), coef_c(th)
        ou = O0 * U0 + O1 * U1 + O2 * U2
        # T(Ω)ᵀ U = (1 − c θ²) U + b Ω × U + c Ω (Ω·U)
        s0 = (1.0 - c * t) * U0 + b * (O1 * U2 - O2 * U1) + c * O0 * ou
        s1 = (1.0 - c * t) * U1 + b * (O2 * U0 - O0 * U2) + c * O1 * ou
        s2 = (1.0 - c * t) * U2 + b * (O0 * U1 - O1 * U0) + c * O2 * ou
        rotation_matrix(q[r, 3:7], A)
        for i in range(3):
            out[r, i] = q[r, i] + A[i, 0] * s0 + A[i, 1] * s1 + A[i, 2] * s2
        # p ⊗ exp(Ω) with exp(Ω) = [cos(θ/2), sin(θ/2)/θ · Ω], normalised
        hs = coef_hs(th)
        r0, r1, r2, r3 = math.cos(0.5 * th), hs * O0, hs * O1, hs * O2
        p0, p1, p2, p3 = q[r, 3], q[r, 4], q[r, 5], q[r, 6]
        n0 = p0 * r0 - (p1 * r1 + p2 * r2 + p3 * r3)
        n1 = p0 * r1 + r0 * p1 + (p2 * r3 - p3 * r2)
        n2 = p0 * r2 + r0 * p2 + (p3 * r1 - p1 * r3)
        n3 = p0 * r3 + r0 * p3 + (p1 * r2 - p2 * r1)
        nrm = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2 + n3 * n3)
        out[r, 3] = n0 / nrm
        out[r, 4] = n1 / nrm
        out[r, 5] = n2 / nrm
        out[r, 6] = n3 / nrm


@njit(cache=True)
def tangent(dv, T):
    """T_SE3(Δ) (N, 6, 6) of increments dv (N, 6) (``FrameKind.tangent``)."""
    for r in range(dv.shape[0]):
        se3_T(dv[r], T[r])


@njit(cache=True)
def weight(q, mass, g, jacobians, Q, K):
    """Weight of frame nodes (``FrameKind.weight``): Q_U = Aᵀ m g and ∂Q_U/∂Θ = (Aᵀ m g)~
    for rows q (N, 7); fills Q (N, 6) and, if ``jacobians``, K (N, 6, 6)."""
    A = np.empty((3, 3))
    for r in range(q.shape[0]):
        rotation_matrix(q[r, 3:7], A)
        b0 = mass[r] * (A[0, 0] * g[0] + A[1, 0] * g[1] + A[2, 0] * g[2])
        b1 = mass[r] * (A[0, 1] * g[0] + A[1, 1] * g[1] + A[2, 1] * g[2])
        b2 = mass[r] * (A[0, 2] * g[0] + A[1, 2] * g[1] + A[2, 2] * g[2])
        Q[r, 0], Q[r, 1], Q[r, 2] = b0, b1, b2
        Q[r, 3], Q[r, 4], Q[r, 5] = 0.0, 0.0, 0.0
        if not jacobians:
            continue
        for i in range(6):
            for j in range(6):
                K[r, i, j] = 0.0
        K[r, 0, 4], K[r, 0, 5] = -b2, b1
        K[r, 1, 3], K[r, 1, 5] = b2, -b0
        K[r, 2, 3], K[r, 2, 4] = -b1, b0
