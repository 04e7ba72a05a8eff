"""Compiled evaluation of the dot-product constraint equations (see constraints/dot.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .markers import (
    CONSTANT,
    ancf_marker,
    frame_contract,
    frame_marker,
    planar_contract,
    planar_marker,
    spatial_contract,
    spatial_marker_c,
)

#: the node kinds' ``kernel_code`` values this kernel serves (flexmbd.nodes); ANCF: both
#: ANCF kinds (markers linear in q, flexmbd/nodes/ancf.py), told apart by nv
PLANAR, SPATIAL, FRAME, ANCF = 0, 1, 2, 3
#: spatial markers remembered within one evaluation (:func:`_assemble`)
MEMO = 8


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


@njit(cache=True)
def _assemble(kcode, nv, qe, slot_dof, u, mtype, side, sign, w, s, lam, hessian, phi, Jq, H, Cpre):
    """kcode: PLANAR, SPATIAL, FRAME or ANCF; nq = slot_dof.shape[1] configuration and nv
    increment coordinates per body (Jacobian columns).  Cpre: the spatial markers'
    tensors C(u) (markers.marker_tensors; empty for other kinds)."""
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
    # spatial markers met recently (the equations of a joint share them: a revolute's five
    # use two points and three vectors): body, type, u → x, J, reused instead of evaluated again
    memo_dof = np.full(MEMO, -1, dtype=np.int64)
    memo_type = np.zeros(MEMO, dtype=np.int64)
    memo_u = np.empty((MEMO, 3))
    memo_x = np.empty((MEMO, 3))
    memo_J = np.empty((MEMO, 3, nv))
    memo_next = 0
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
                    if kcode == SPATIAL:
                        hit = -1
                        if mtype[sl] != CONSTANT:
                            for c in range(MEMO):
                                if (memo_dof[c] == slot_dof[sl, 0] and memo_type[c] == mtype[sl]
                                        and memo_u[c, 0] == u[sl, 0] and memo_u[c, 1] == u[sl, 1]
                                        and memo_u[c, 2] == u[sl, 2]):
                                    hit = c
                                    break
                        if hit >= 0:
                            x[:] = memo_x[hit]
                            J[:, :] = memo_J[hit]
                        else:
                            for a in range(nq):
                                qb[a] = qe[slot_dof[sl, a]]
                            spatial_marker_c(qb, Cpre[sl], mtype[sl], x, J)
                            if mtype[sl] != CONSTANT:
                                memo_dof[memo_next] = slot_dof[sl, 0]
                                memo_type[memo_next] = mtype[sl]
                                memo_u[memo_next] = u[sl]
                                memo_x[memo_next] = x
                                memo_J[memo_next] = J
                                memo_next = (memo_next + 1) % MEMO
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
            wl = wk * lam[e]
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
                    if kcode == SPATIAL:
                        spatial_contract(Cpre[sl], g, H[e], off, wl * sign[sl])
                    elif kcode == FRAME:
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
              group.sign_flat, w, s, lam, hessian, phi, Jq, H, group.marker_tensors)
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
        _assemble(kcode, nv, QE[k], slot_dof, u, mtype, side, sign, W[k], S[k], lam, False, phi, Jq[k], H, Cpre)


def jacobian_steps(group, QE, W, S):
    """Φ_q (steps, n, 2 nv) of a DotConstraintGroup at configurations QE (steps, n_q_ext)."""
    Jq = np.empty((QE.shape[0], len(group), 2 * group.nv))
    _jacobian_steps(group.kind.kernel_code, group.nv, np.ascontiguousarray(QE), group.slot_dof, group.markers.u,
                    group.markers.mtype, group.side_flat, group.sign_flat, np.ascontiguousarray(W),
                    np.ascontiguousarray(S), Jq, group.marker_tensors)
    return Jq
