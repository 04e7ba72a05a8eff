"""Compiled evaluation of the dot-product constraint equations (see constraints/dot.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .markers import (
    CONSTANT,
    POINT,
    ancf_marker,
    contract_entry,
    frame_contract,
    frame_marker,
    marker_row,
    planar_contract,
    planar_marker,
)

#: the node kinds' ``kernel_code`` values this kernel serves (flexmbd.nodes); ANCF: both
#: ANCF kinds (markers linear in q, flexmbd/nodes/ancf.py), told apart by nv
PLANAR, SPATIAL, FRAME, ANCF = 0, 1, 2, 3


@njit(cache=True)
def _accumulate(J, sg, off, nv, JX):
    for i in range(3):
        for a in range(nv):
            JX[i, off + a] += sg * J[i, a]


@njit(cache=True)
def _columns(JX, cols):
    """Indices of the non-zero columns of JX (3, m) into cols; returns their number."""
    k = 0
    for a in range(JX.shape[1]):
        if JX[0, a] != 0.0 or JX[1, a] != 0.0 or JX[2, a] != 0.0:
            cols[k] = a
            k += 1
    return k


#: offsets of :func:`_spatial`'s work values
_PS, _X, _Y, _G = 24, 120, 123, 126


@njit(cache=True)
def _spatial(qe, slot_dof, u, mtype, side, sign, w, s, lam, hessian, hscale, phi, Jq, H, Cpre):
    """:func:`_assemble` for Euler-parameter bodies (SPATIAL).  A marker x = r + A(p) u
    (points) or A(p) u (vectors) has x_i = Σ C_ijk p_j p_k and J_p = 2 C(u) p
    (markers.marker_row, contract_entry), so each slot keeps x and P = C(u) p (3 × 4),
    reused from the equation before when it is the same marker (a joint's equations are
    consecutive and share them).  Φ_q is summed slot by slot (gᵀ J with g the other side's vector), and the
    Hessian of X·Y as the slot pairs' J_xᵀ J_y plus each slot's 2 Σ g_i C_i — no
    per-equation 3 × m Jacobians (the generic loop below builds and scans them)."""
    n = phi.shape[0]
    m = Jq.shape[1]
    # one allocation for the work values, indexed flat: a slot's x_i at wb[3 loc + i], its
    # P_ia at wb[_PS + 12 loc + 4 i + a], X, Y, g at wb[_X:], wb[_Y:], wb[_G:] (a view or a
    # slice assignment in the loop costs atomic reference counts, more than the arithmetic)
    wb = np.empty(_G + 3)
    src = np.full(8, -1, dtype=np.int64)   # the slot whose marker the entries of loc hold
    for e in range(n):
        phi[e] = -s[e]
        for a in range(m):
            Jq[e, a] = 0.0
        if hessian:
            for a in range(m):
                for b in range(m):
                    H[e, a, b] = 0.0
        for k in range(2):
            wk = w[e, k]
            if wk == 0.0:
                continue
            for i in range(3):
                wb[_X + i] = 0.0
                wb[_Y + i] = 0.0
            for j in range(4):
                sl = e * 8 + k * 4 + j
                loc = k * 4 + j
                t = mtype[sl]
                if t == 0:
                    continue
                if t == CONSTANT:
                    src[loc] = -1
                    for i in range(3):
                        wb[3 * loc + i] = Cpre[48 * sl + 16 * i]   # (marker_tensors)
                else:
                    pr = src[loc]   # an equation skipped (w = 0) leaves its slots' entries older
                    if not (pr >= 0 and mtype[pr] == t and slot_dof[pr, 0] == slot_dof[sl, 0]
                            and u[pr, 0] == u[sl, 0] and u[pr, 1] == u[sl, 1] and u[pr, 2] == u[sl, 2]):
                        src[loc] = sl
                        p0, p1, p2, p3 = (qe[slot_dof[sl, 3]], qe[slot_dof[sl, 4]], qe[slot_dof[sl, 5]],
                                          qe[slot_dof[sl, 6]])
                        for i in range(3):
                            o = _PS + 12 * loc + 4 * i
                            wb[o], wb[o + 1], wb[o + 2], wb[o + 3], xi = marker_row(Cpre, 48 * sl, i, p0, p1, p2, p3)
                            if t == POINT:
                                xi += qe[slot_dof[sl, i]]
                            wb[3 * loc + i] = xi
                sg = sign[sl]
                if j < 2:
                    for i in range(3):
                        wb[_X + i] += sg * wb[3 * loc + i]
                else:
                    for i in range(3):
                        wb[_Y + i] += sg * wb[3 * loc + i]
            phi[e] += wk * (wb[_X] * wb[_Y] + wb[_X + 1] * wb[_Y + 1] + wb[_X + 2] * wb[_Y + 2])
            for j in range(4):
                sl = e * 8 + k * 4 + j
                t = mtype[sl]
                if t == 0 or t == CONSTANT:
                    continue
                loc = k * 4 + j
                f = wk * sign[sl]
                off = side[sl] * 7
                for i in range(3):
                    wb[_G + i] = f * (wb[_Y + i] if j < 2 else wb[_X + i])
                if t == POINT:
                    for i in range(3):
                        Jq[e, off + i] += wb[_G + i]
                o = _PS + 12 * loc
                for a in range(4):
                    Jq[e, off + 3 + a] += 2.0 * (wb[_G] * wb[o + a] + wb[_G + 1] * wb[o + 4 + a]
                                                 + wb[_G + 2] * wb[o + 8 + a])
            if not hessian:
                continue
            wl = wk * lam[e] * hscale
            # cross terms wl (JXᵀ JY + JYᵀ JX), slot by slot
            for jx in range(2):
                sx = e * 8 + k * 4 + jx
                tx = mtype[sx]
                if tx == 0 or tx == CONSTANT:
                    continue
                ox = side[sx] * 7
                lx = k * 4 + jx
                for jy in range(2, 4):
                    sy = e * 8 + k * 4 + jy
                    ty = mtype[sy]
                    if ty == 0 or ty == CONSTANT:
                        continue
                    oy = side[sy] * 7
                    ly = k * 4 + jy
                    c = wl * sign[sx] * sign[sy]
                    px, py = _PS + 12 * lx, _PS + 12 * ly
                    # J = [I (points only), 2 P]
                    if tx == POINT and ty == POINT:
                        for i in range(3):
                            H[e, ox + i, oy + i] += c
                            H[e, oy + i, ox + i] += c
                    if tx == POINT:
                        for i in range(3):
                            for b in range(4):
                                t2 = 2.0 * c * wb[_PS + 12 * ly + 4 * i + b]
                                H[e, ox + i, oy + 3 + b] += t2
                                H[e, oy + 3 + b, ox + i] += t2
                    if ty == POINT:
                        for i in range(3):
                            for a in range(4):
                                t2 = 2.0 * c * wb[_PS + 12 * lx + 4 * i + a]
                                H[e, ox + 3 + a, oy + i] += t2
                                H[e, oy + i, ox + 3 + a] += t2
                    for a in range(4):
                        for b in range(4):
                            t2 = 4.0 * c * (wb[px + a] * wb[py + b] + wb[px + 4 + a] * wb[py + 4 + b]
                                            + wb[px + 8 + a] * wb[py + 8 + b])
                            H[e, ox + 3 + a, oy + 3 + b] += t2
                            H[e, oy + 3 + b, ox + 3 + a] += t2
            for j in range(4):
                sl = e * 8 + k * 4 + j
                t = mtype[sl]
                if t == 0 or t == CONSTANT:
                    continue
                # wl sign · Σ_i g_i ∂²x_i/∂p² on the slot's p block
                g0, g1, g2 = (wb[_Y], wb[_Y + 1], wb[_Y + 2]) if j < 2 else (wb[_X], wb[_X + 1], wb[_X + 2])
                o3 = side[sl] * 7 + 3
                sc = wl * sign[sl]
                for a in range(4):
                    for b in range(4):
                        H[e, o3 + a, o3 + b] += sc * contract_entry(Cpre, 48 * sl, a, b, g0, g1, g2)


@njit(cache=True)
def _assemble(kcode, nv, qe, slot_dof, u, mtype, side, sign, w, s, lam, hessian, hscale, phi, Jq, H, Cpre):
    """Φ (n,), Φ_q (n, m) and hscale · Σ λ ∂²Φ/∂q² (n, m, m) of dot-product equations.
    kcode: PLANAR, SPATIAL, FRAME or ANCF; nq = slot_dof.shape[1] configuration and nv
    increment coordinates per body (Jacobian columns).  Cpre: the spatial markers'
    tensors C(u), flat (markers.marker_tensors, 48 a slot; empty for other kinds).  H may
    be the Newton matrix's block buffer itself (hscale = c_K): every entry is written."""
    if kcode == SPATIAL:
        _spatial(qe, slot_dof, u, mtype, side, sign, w, s, lam, hessian, hscale, phi, Jq, H, Cpre)
        return
    n = phi.shape[0]
    nq = slot_dof.shape[1]
    m = 2 * nv
    x = np.empty(3)
    J = np.empty((3, nv))
    Aus = np.zeros((8, 2))
    As = np.zeros((8, 3, 3))
    qb = np.empty(nq)
    X = np.empty(3)
    Y = np.empty(3)
    JX = np.empty((3, m))
    JY = np.empty((3, m))
    colsX = np.empty(m, dtype=np.int64)
    colsY = np.empty(m, dtype=np.int64)
    for e in range(n):
        phi[e] = -s[e]
        for a in range(m):
            Jq[e, a] = 0.0
            if hessian:
                for b in range(m):
                    H[e, a, b] = 0.0
        for k in range(2):
            if w[e, k] == 0.0:
                continue
            X[:] = 0.0
            Y[:] = 0.0
            JX[:, :] = 0.0
            JY[:, :] = 0.0
            for xy in range(2):
                for ab in range(2):
                    sl = e * 8 + k * 4 + xy * 2 + ab
                    loc = k * 4 + xy * 2 + ab
                    if mtype[sl] == 0:
                        continue
                    for a in range(nq):
                        qb[a] = qe[slot_dof[sl, a]]
                    if kcode == FRAME:
                        frame_marker(qb, u[sl], mtype[sl], x, J, As[loc])
                    elif kcode == ANCF:
                        ancf_marker(qb, u[sl], mtype[sl], x, J)
                    else:
                        planar_marker(qb, u[sl], mtype[sl], x, J, Aus[loc])
                    sg = sign[sl]
                    off = side[sl] * nv
                    if xy == 0:
                        for i in range(3):
                            X[i] += sg * x[i]
                        _accumulate(J, sg, off, nv, JX)
                    else:
                        for i in range(3):
                            Y[i] += sg * x[i]
                        _accumulate(J, sg, off, nv, JY)
            wk = w[e, k]
            phi[e] += wk * (X[0] * Y[0] + X[1] * Y[1] + X[2] * Y[2])
            for a in range(m):
                Jq[e, a] += wk * (Y[0] * JX[0, a] + Y[1] * JX[1, a] + Y[2] * JX[2, a]
                                  + X[0] * JY[0, a] + X[1] * JY[1, a] + X[2] * JY[2, a])
            if not hessian:
                continue
            wl = wk * lam[e] * hscale
            # H += wl (JXᵀ JY + JYᵀ JX) over the columns where JX, JY have entries: a marker
            # moves with one body, often through its rotation only (4 of 14 columns)
            nx = _columns(JX, colsX)
            ny = _columns(JY, colsY)
            for ia in range(nx):
                a = colsX[ia]
                for ib in range(ny):
                    b = colsY[ib]
                    t = wl * (JX[0, a] * JY[0, b] + JX[1, a] * JY[1, b] + JX[2, a] * JY[2, b])
                    H[e, a, b] += t
                    H[e, b, a] += t
            if kcode == ANCF:   # linear markers: no second-derivative terms
                continue
            for xy in range(2):
                for ab in range(2):
                    sl = e * 8 + k * 4 + xy * 2 + ab
                    loc = k * 4 + xy * 2 + ab
                    if mtype[sl] == 0 or mtype[sl] == 3:
                        continue
                    g = Y if xy == 0 else X
                    off = side[sl] * nv
                    if kcode == FRAME:
                        frame_contract(As[loc], u[sl], mtype[sl], g, H[e], off, wl * sign[sl])
                    else:
                        planar_contract(Aus[loc], g, H[e], off, wl * sign[sl])


def assemble(group, qe, w, s, lam, hessian):
    """Φ, Φ_q and λ-weighted Hessians of a DotConstraintGroup."""
    n = len(group)
    kcode = group.kind.kernel_code
    m = 2 * group.nv
    phi = np.empty(n)
    Jq = np.empty((n, m))
    H = np.empty((n, m, m)) if hessian else np.empty((0, m, m))
    lam = np.zeros(n) if lam is None else lam
    _assemble(kcode, group.nv, qe, group.slot_dof, group.markers.u, group.markers.mtype, group.side_flat,
              group.sign_flat, w, s, lam, hessian, 1.0, phi, Jq, H, group.marker_tensors.reshape(-1))
    return phi, Jq, (H if hessian else None)


@njit(cache=True)
def _jacobian_steps(kcode, nv, QE, slot_dof, u, mtype, side, sign, W, S, Jq, Cpre):
    """Φ_q at every configuration QE[k] (weights W[k], offsets S[k]) into Jq[k]."""
    n = W.shape[1]
    m = Jq.shape[2]
    lam = np.zeros(n)
    phi = np.empty(n)
    H = np.empty((0, m, m))
    for k in range(QE.shape[0]):
        _assemble(kcode, nv, QE[k], slot_dof, u, mtype, side, sign, W[k], S[k], lam, False, 1.0, phi, Jq[k], H,
                  Cpre)


def jacobian_steps(group, QE, W, S):
    """Φ_q (steps, n, 2 nv) of a DotConstraintGroup at configurations QE (steps, n_q_ext)."""
    Jq = np.empty((QE.shape[0], len(group), 2 * group.nv))
    _jacobian_steps(group.kind.kernel_code, group.nv, np.ascontiguousarray(QE), group.slot_dof, group.markers.u,
                    group.markers.mtype, group.side_flat, group.sign_flat, np.ascontiguousarray(W),
                    np.ascontiguousarray(S), Jq, group.marker_tensors.reshape(-1))
    return Jq
