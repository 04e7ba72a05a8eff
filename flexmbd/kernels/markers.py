"""Marker kinematics for one marker, compiled (see :mod:`flexmbd.kinds` for the maths)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import CHAT

ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3


@njit(cache=True, inline="always")
def c_tensor(u, C):
    """C[i, j, k] = Σ_l CHAT[i, j, k, l] u_l  ((A(p) u)_i = C_ijk p_j p_k)."""
    for i in range(3):
        for j in range(4):
            for k in range(4):
                C[i, j, k] = CHAT_[i, j, k, 0] * u[0] + CHAT_[i, j, k, 1] * u[1] + CHAT_[i, j, k, 2] * u[2]


CHAT_ = np.ascontiguousarray(CHAT)


@njit(cache=True)
def spatial_marker(q, u, mtype, x, J, C):
    """x (3,), J (3, 7) of a marker on a spatial body with coordinates q (7,).  Fills C."""
    for i in range(3):
        x[i] = 0.0
        for j in range(7):
            J[i, j] = 0.0
    if mtype == ZERO:
        C[:] = 0.0
        return
    if mtype == CONSTANT:
        C[:] = 0.0
        for i in range(3):
            x[i] = u[i]
        return
    c_tensor(u, C)
    for i in range(3):
        s = 0.0
        for j in range(4):
            cp = 0.0
            for k in range(4):
                cp += C[i, j, k] * q[3 + k]
            J[i, 3 + j] = 2.0 * cp
            s += cp * q[3 + j]
        x[i] = s
    if mtype == POINT:
        for i in range(3):
            x[i] += q[i]
            J[i, i] = 1.0


@njit(cache=True)
def spatial_contract(C, g, out, off, scale):
    """out[off+3:off+7, off+3:off+7] += scale · Σ_i g_i ∂²x_i/∂p² = scale · 2 Σ_i g_i C_i."""
    for j in range(4):
        for k in range(4):
            s = 0.0
            for i in range(3):
                s += g[i] * C[i, j, k]
            out[off + 3 + j, off + 3 + k] += 2.0 * scale * s


@njit(cache=True)
def spatial_djv(C, v, out, off, scale):
    """out[:, off:off+7] += scale · ∂(J v)/∂q (only the p columns are non-zero)."""
    for i in range(3):
        for k in range(4):
            s = 0.0
            for j in range(4):
                s += C[i, j, k] * v[3 + j]
            out[i, off + 3 + k] += 2.0 * scale * s


@njit(cache=True)
def planar_marker(q, u, mtype, x, J, Au):
    for i in range(3):
        x[i] = 0.0
        for j in range(3):
            J[i, j] = 0.0
    Au[0] = 0.0
    Au[1] = 0.0
    if mtype == ZERO:
        return
    if mtype == CONSTANT:
        for i in range(3):
            x[i] = u[i]
        return
    c, s = np.cos(q[2]), np.sin(q[2])
    Au[0] = c * u[0] - s * u[1]
    Au[1] = s * u[0] + c * u[1]
    x[0], x[1], x[2] = Au[0], Au[1], u[2]
    J[0, 2] = -Au[1]
    J[1, 2] = Au[0]
    if mtype == POINT:
        x[0] += q[0]
        x[1] += q[1]
        J[0, 0] = 1.0
        J[1, 1] = 1.0


@njit(cache=True)
def planar_contract(Au, g, out, off, scale):
    out[off + 2, off + 2] -= scale * (g[0] * Au[0] + g[1] * Au[1])


@njit(cache=True)
def planar_djv(Au, v, out, off, scale):
    out[0, off + 2] -= scale * Au[0] * v[2]
    out[1, off + 2] -= scale * Au[1] * v[2]
