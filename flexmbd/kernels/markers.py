"""Marker kinematics for one marker, compiled (see :mod:`flexmbd.nodes` for the maths)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rotations import CHAT
from .lie import rotation_matrix

ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3


CHAT_ = np.ascontiguousarray(CHAT)

# The Euler-parameter marker, one source for every kernel: x = [r +] A(p) u with
# (A(p) u)_i = Σ_jk C_ijk p_j p_k, C(u)_ijk = Σ_l CHAT_ijkl u_l (rotations.CHAT), so that
# J = [I (points only), 2 C(u) p], Σ_i g_i ∂²x_i/∂p² = 2 Σ_i g_i C_i and ∂(J v)/∂p = 2 C(u) v_p.
# C(u) is kept flat (C_ijk at c[oc + 16 i + 4 j + k]) and the helpers take scalars and
# offsets and are inlined: no views, no temporaries (docs/performance.md, "Slot kernels
# without views or temporaries").


@njit(cache=True, inline="always")
def c_tensor_into(u0, u1, u2, c, oc):
    """C(u) of the marker vector u into c[oc:oc + 48]."""
    for i in range(3):
        for j in range(4):
            for k in range(4):
                c[oc + 16 * i + 4 * j + k] = CHAT_[i, j, k, 0] * u0 + CHAT_[i, j, k, 1] * u1 + CHAT_[i, j, k, 2] * u2


@njit(cache=True, inline="always")
def marker_row(c, oc, i, p0, p1, p2, p3):
    """Row i of P = C(u) p (J_p = 2 P) and (A(p) u)_i = Σ_j P_ij p_j:
    returns P_i0, P_i1, P_i2, P_i3, (A(p) u)_i."""
    o = oc + 16 * i
    a0 = c[o] * p0 + c[o + 1] * p1 + c[o + 2] * p2 + c[o + 3] * p3
    a1 = c[o + 4] * p0 + c[o + 5] * p1 + c[o + 6] * p2 + c[o + 7] * p3
    a2 = c[o + 8] * p0 + c[o + 9] * p1 + c[o + 10] * p2 + c[o + 11] * p3
    a3 = c[o + 12] * p0 + c[o + 13] * p1 + c[o + 14] * p2 + c[o + 15] * p3
    return a0, a1, a2, a3, a0 * p0 + a1 * p1 + a2 * p2 + a3 * p3


@njit(cache=True, inline="always")
def contract_entry(c, oc, j, k, g0, g1, g2):
    """Σ_i g_i ∂²x_i/∂p_j∂p_k = 2 Σ_i g_i C_ijk."""
    o = oc + 4 * j + k
    return 2.0 * (g0 * c[o] + g1 * c[o + 16] + g2 * c[o + 32])


@njit(cache=True, inline="always")
def djv_entry(c, oc, i, k, v0, v1, v2, v3):
    """∂(J v)_i/∂p_k = 2 Σ_j C_ijk v_pj (v_p: the p part of v)."""
    o = oc + 16 * i + k
    return 2.0 * (c[o] * v0 + c[o + 4] * v1 + c[o + 8] * v2 + c[o + 12] * v3)


@njit(cache=True)
def marker_tensors(u, mtype):
    """C(u) (n, 3, 4, 4) of spatial markers, computed once per joint group; a constant
    vector keeps its value in C[:, 0, 0] (its C is not used for derivatives)."""
    n = u.shape[0]
    C = np.zeros((n, 3, 4, 4))
    c = C.reshape(n * 48)
    for s in range(n):
        if mtype[s] == CONSTANT:
            for i in range(3):
                c[48 * s + 16 * i] = u[s, i]
        elif mtype[s] != ZERO:
            c_tensor_into(u[s, 0], u[s, 1], u[s, 2], c, 48 * s)
    return C


@njit(cache=True)
def spatial_marker(q, u, mtype, x, J, c):
    """x (3,), J (3, 7) of a marker on a spatial body with coordinates q (7,).  Fills
    C(u) into c (48,: :func:`c_tensor_into`; zero for ZERO/CONSTANT markers)."""
    for i in range(3):
        x[i] = 0.0
        for j in range(7):
            J[i, j] = 0.0
    if mtype == ZERO or mtype == CONSTANT:
        for a in range(48):
            c[a] = 0.0
        if mtype == CONSTANT:
            for i in range(3):
                x[i] = u[i]
        return
    c_tensor_into(u[0], u[1], u[2], c, 0)
    for i in range(3):
        P0, P1, P2, P3, xi = marker_row(c, 0, i, q[3], q[4], q[5], q[6])
        J[i, 3], J[i, 4], J[i, 5], J[i, 6] = 2.0 * P0, 2.0 * P1, 2.0 * P2, 2.0 * P3
        if mtype == POINT:
            xi += q[i]
            J[i, i] = 1.0
        x[i] = xi


@njit(cache=True)
def spatial_contract(c, g, out, off, scale):
    """out[off+3:off+7, off+3:off+7] += scale · Σ_i g_i ∂²x_i/∂p² (C(u) flat in c)."""
    for j in range(4):
        for k in range(4):
            out[off + 3 + j, off + 3 + k] += scale * contract_entry(c, 0, j, k, g[0], g[1], g[2])


@njit(cache=True)
def spatial_djv(c, v, out, off, scale):
    """out[:, off:off+7] += scale · ∂(J v)/∂q (only the p columns are non-zero; C(u) flat in c)."""
    for i in range(3):
        for k in range(4):
            out[i, off + 3 + k] += scale * djv_entry(c, 0, i, k, v[3], v[4], v[5], v[6])


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


@njit(cache=True)
def frame_marker(q, u, mtype, x, J, A):
    """x (3,), J (3, 6) of a marker on an SE(3) frame q = [X, p] (FrameKind): x = X + A u,
    J = [A·point, −A ũ] along body-frame twist increments.  Fills A = A(p) (zero for
    ZERO/CONSTANT markers)."""
    for i in range(3):
        x[i] = 0.0
        for j in range(6):
            J[i, j] = 0.0
        for j in range(3):
            A[i, j] = 0.0
    if mtype == ZERO:
        return
    if mtype == CONSTANT:
        for i in range(3):
            x[i] = u[i]
        return
    rotation_matrix(q[3:7], A)
    u0, u1, u2 = u[0], u[1], u[2]
    for i in range(3):
        a0, a1, a2 = A[i, 0], A[i, 1], A[i, 2]
        x[i] = a0 * u0 + a1 * u1 + a2 * u2
        # −A ũ, ũ = [[0, −u2, u1], [u2, 0, −u0], [−u1, u0, 0]]
        J[i, 3] = -(a1 * u2 - a2 * u1)
        J[i, 4] = -(-a0 * u2 + a2 * u0)
        J[i, 5] = -(a0 * u1 - a1 * u0)
    if mtype == POINT:
        for i in range(3):
            x[i] += q[i]
            for j in range(3):
                J[i, j] = A[i, j]


@njit(cache=True)
def frame_contract(A, u, mtype, g, out, off, scale):
    """out[off:off+6, off:off+6] += scale · ∂(Jᵀ g)/∂Δ: [[0, point · b̃], [0, ũ b̃]], b = Aᵀ g."""
    b0 = A[0, 0] * g[0] + A[1, 0] * g[1] + A[2, 0] * g[2]
    b1 = A[0, 1] * g[0] + A[1, 1] * g[1] + A[2, 1] * g[2]
    b2 = A[0, 2] * g[0] + A[1, 2] * g[1] + A[2, 2] * g[2]
    if mtype == POINT:
        out[off + 0, off + 4] -= scale * b2
        out[off + 1, off + 3] += scale * b2
        out[off + 0, off + 5] += scale * b1
        out[off + 2, off + 3] -= scale * b1
        out[off + 1, off + 5] -= scale * b0
        out[off + 2, off + 4] += scale * b0
    # ũ b̃ = b uᵀ − (u·b) I
    ub = u[0] * b0 + u[1] * b1 + u[2] * b2
    for i in range(3):
        bi = b0 if i == 0 else (b1 if i == 1 else b2)
        for j in range(3):
            out[off + 3 + i, off + 3 + j] += scale * bi * u[j]
        out[off + 3 + i, off + 3 + i] -= scale * ub


@njit(cache=True)
def frame_djv(A, u, mtype, v, out, off, scale):
    """out[:, off:off+6] += scale · ∂(J v)/∂Δ = [0, −A c̃],  c = point · U + Ω × u."""
    pt = 1.0 if mtype == POINT else 0.0
    c0 = pt * v[0] + v[4] * u[2] - v[5] * u[1]
    c1 = pt * v[1] + v[5] * u[0] - v[3] * u[2]
    c2 = pt * v[2] + v[3] * u[1] - v[4] * u[0]
    for i in range(3):
        a0, a1, a2 = A[i, 0], A[i, 1], A[i, 2]
        out[i, off + 3] -= scale * (a1 * c2 - a2 * c1)
        out[i, off + 4] -= scale * (-a0 * c2 + a2 * c0)
        out[i, off + 5] -= scale * (a0 * c1 - a1 * c0)


@njit(cache=True)
def ancf_marker(q, u, mtype, x, J):
    """x (3,), J (3, nv) of a marker on an ANCF node q = [r, r_(1), …, r_(m)] with
    m = (nv − 3)/3 gradients (12 coordinates fully parameterized, 6 for the cable):
    :class:`flexmbd.nodes.ancf.AncfMarkers` (module docstring of flexmbd/nodes/ancf.py).
    Linear in q: J is constant and the second-derivative terms (contract, dJv) are zero."""
    nv = J.shape[1]
    m = (nv - 3) // 3
    for i in range(3):
        x[i] = 0.0
        for j in range(nv):
            J[i, j] = 0.0
    if mtype == ZERO:
        return
    if mtype == CONSTANT:
        for i in range(3):
            x[i] = u[i]
        return
    if mtype == POINT:
        for i in range(3):
            x[i] = q[i]
            J[i, i] = 1.0
    for k in range(m):
        w = u[k]
        for i in range(3):
            x[i] += w * q[3 + 3 * k + i]
            J[i, 3 + 3 * k + i] = w
    if m == 1:   # the cable: u2, u3 as a constant global vector (exact on ground's slot)
        x[1] += u[1]
        x[2] += u[2]

