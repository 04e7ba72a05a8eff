"""Compiled spring-damper-actuator kinematics and Jacobians (see forces/spring_damper.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .dot import ANCF, FRAME, SPATIAL
from .markers import (
    ancf_marker,
    c_tensor_into,
    contract_entry,
    djv_entry,
    frame_contract,
    frame_djv,
    frame_marker,
    marker_row,
    planar_contract,
    planar_djv,
    planar_marker,
    spatial_contract,
    spatial_djv,
    spatial_marker,
)


@njit(cache=True)
def _kin(kcode, q, v, ui, uj, nq, nv, Jh, Ci, Cj, Ai, Aj, Fi, Fj, h, hd):
    """Kinematics of one element; kcode as in kernels/dot.py, nq/nv configuration and
    increment coordinates per body."""
    x = np.empty(3)
    J = np.empty((3, nv))
    for side in range(2):
        qb = q[side * nq:(side + 1) * nq]
        u = ui if side == 0 else uj
        if kcode == SPATIAL:
            spatial_marker(qb, u, 1, x, J, Ci if side == 0 else Cj)
        elif kcode == FRAME:
            frame_marker(qb, u, 1, x, J, Fi if side == 0 else Fj)
        elif kcode == ANCF:
            ancf_marker(qb, u, 1, x, J)
        else:
            planar_marker(qb, u, 1, x, J, Ai if side == 0 else Aj)
        sg = -1.0 if side == 0 else 1.0
        for i in range(3):
            h[i] += sg * x[i]
            for a in range(nv):
                Jh[i, side * nv + a] = sg * J[i, a]
    for i in range(3):
        s = 0.0
        for a in range(2 * nv):
            s += Jh[i, a] * v[a]
        hd[i] = s


@njit(cache=True)
def kinematics(kcode, ql, vl, ui, uj, length, rate):
    n = ql.shape[0]
    nq, m = ql.shape[1] // 2, vl.shape[1]
    Jh = np.empty((3, m))
    Ci = np.empty(48)
    Cj = np.empty(48)
    Ai = np.empty(2)
    Aj = np.empty(2)
    Fi = np.empty((3, 3))
    Fj = np.empty((3, 3))
    h = np.empty(3)
    hd = np.empty(3)
    for e in range(n):
        h[:] = 0.0
        _kin(kcode, ql[e], vl[e], ui[e], uj[e], nq, m // 2, Jh, Ci, Cj, Ai, Aj, Fi, Fj, h, hd)
        l = np.sqrt(h[0] ** 2 + h[1] ** 2 + h[2] ** 2)
        length[e] = l
        rate[e] = (h[0] * hd[0] + h[1] * hd[1] + h[2] * hd[2]) / l if l > 0 else 0.0


@njit(cache=True)
def forces(kcode, ql, vl, ui, uj, F, Fd, Fr, jacobians, Q, K, D):
    """Q, ∂Q/∂q, ∂Q/∂q' for given force values F and slopes Fd = ∂F/∂δ, Fr = ∂F/∂δ'."""
    n = ql.shape[0]
    _forces(kcode, ql, vl, ui, uj, F, Fd, Fr, jacobians, Q, K, D, False,
            np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.zeros(n, np.bool_), np.empty(n), np.empty(n))


@njit(cache=True)
def _forces(kcode, ql, vl, ui, uj, F, Fd, Fr, jacobians, Q, K, D, linear, k, c, l0, fa, tension_only,
            length, rate):
    """The element loop; with ``linear`` it also evaluates F = k δ + c l' + f_a (cable rule)."""
    n = ql.shape[0]
    nq, m = ql.shape[1] // 2, vl.shape[1]
    nv = m // 2
    # the work arrays as views of one buffer (an allocation costs about as much as the
    # kinematics of an element: docs/performance.md)
    work = np.empty(11 * m + 155)
    Jh, PJ, dJv = work[:3 * m].reshape((3, m)), work[3 * m:6 * m].reshape((3, m)), work[6 * m:9 * m].reshape((3, m))
    Jte, dld = work[9 * m:10 * m], work[10 * m:11 * m]
    o = 11 * m
    Ci, Cj = work[o:o + 48], work[o + 48:o + 96]   # C(u), flat (markers.c_tensor_into)
    Fi, Fj, P = work[o + 96:o + 105].reshape((3, 3)), work[o + 105:o + 114].reshape((3, 3)), \
        work[o + 114:o + 123].reshape((3, 3))
    Ai, Aj, h, hd, e_ = work[o + 123:o + 125], work[o + 125:o + 127], work[o + 127:o + 130], \
        work[o + 130:o + 133], work[o + 133:o + 136]
    for el in range(n):
        h[:] = 0.0
        _kin(kcode, ql[el], vl[el], ui[el], uj[el], nq, nv, Jh, Ci, Cj, Ai, Aj, Fi, Fj, h, hd)
        l = np.sqrt(h[0] ** 2 + h[1] ** 2 + h[2] ** 2)
        length[el] = l
        if l == 0.0:
            rate[el] = 0.0
            continue
        for i in range(3):
            e_[i] = h[i] / l
        rate[el] = e_[0] * hd[0] + e_[1] * hd[1] + e_[2] * hd[2]
        if linear:
            delta = l - l0[el]
            f = k[el] * delta + c[el] * rate[el] + fa[el]
            if tension_only[el] and (delta <= 0.0 or f < 0.0):
                F[el], Fd[el], Fr[el] = 0.0, 0.0, 0.0
            else:
                F[el], Fd[el], Fr[el] = f, k[el], c[el]
        for a in range(m):
            Jte[a] = Jh[0, a] * e_[0] + Jh[1, a] * e_[1] + Jh[2, a] * e_[2]
            Q[el, a] = -F[el] * Jte[a]
        if not jacobians:
            continue
        for i in range(3):
            for j in range(3):
                P[i, j] = ((1.0 if i == j else 0.0) - e_[i] * e_[j]) / l
        for i in range(3):
            for a in range(m):
                PJ[i, a] = P[i, 0] * Jh[0, a] + P[i, 1] * Jh[1, a] + P[i, 2] * Jh[2, a]
        dJv[:, :] = 0.0
        Kel = K[el]
        Kel[:, :] = 0.0
        if kcode == SPATIAL:
            spatial_djv(Ci, vl[el, :nv], dJv, 0, -1.0)
            spatial_djv(Cj, vl[el, nv:], dJv, nv, 1.0)
            spatial_contract(Ci, e_, Kel, 0, -1.0)
            spatial_contract(Cj, e_, Kel, nv, 1.0)
        elif kcode == FRAME:
            frame_djv(Fi, ui[el], 1, vl[el, :nv], dJv, 0, -1.0)
            frame_djv(Fj, uj[el], 1, vl[el, nv:], dJv, nv, 1.0)
            frame_contract(Fi, ui[el], 1, e_, Kel, 0, -1.0)
            frame_contract(Fj, uj[el], 1, e_, Kel, nv, 1.0)
        elif kcode == ANCF:
            pass   # linear markers: dJv and the second-derivative terms are zero
        else:
            planar_djv(Ai, vl[el, :nv], dJv, 0, -1.0)
            planar_djv(Aj, vl[el, nv:], dJv, nv, 1.0)
            planar_contract(Ai, e_, Kel, 0, -1.0)
            planar_contract(Aj, e_, Kel, nv, 1.0)
        for a in range(m):
            dld[a] = 0.0
            for i in range(3):
                dld[a] += hd[i] * PJ[i, a] + e_[i] * dJv[i, a]
        f = F[el]
        for a in range(m):
            for b in range(m):
                jpj = Jh[0, a] * PJ[0, b] + Jh[1, a] * PJ[1, b] + Jh[2, a] * PJ[2, b]
                dfdq = Fd[el] * Jte[b] + Fr[el] * dld[b]
                Kel[a, b] = -(Jte[a] * dfdq + f * (jpj + Kel[a, b]))
                D[el, a, b] = -Fr[el] * Jte[a] * Jte[b]


@njit(cache=True)
def linear_forces(kcode, ql, vl, ui, uj, k, c, l0, fa, tension_only, jacobians, Q, K, D, length, rate, F):
    """Linear elements in one pass: kinematics, F = k δ + c l' + f_a (cable rule), Q, K, D."""
    n = ql.shape[0]
    _forces(kcode, ql, vl, ui, uj, F, np.empty(n), np.empty(n), jacobians, Q, K, D, True, k, c, l0, fa,
            tension_only, length, rate)


# offsets in the flat work buffer of :func:`spatial_linear_into` (m = 14 columns): no views or
# per-call temporaries, each of which costs an allocation or an atomic reference count —
# together several times the arithmetic of a spring (docs/performance.md)
_C0, _P0, _JH, _PJ, _DJV, _JTE, _DLD, _PR, _SWORK = 0, 96, 120, 162, 204, 246, 260, 274, 283


@njit(cache=True)
def spatial_linear_into(cfg, dof, ui, uj, k, c, l0, fa, tension_only, qe, ve, cD, cK, matrix, vec, blk):
    """:func:`linear_forces` of springs between Euler-parameter bodies (``SPATIAL``), read
    from the extended vectors through the config and dof rows (14 each), −Q into vec
    (n · 14) and −c_K ∂Q/∂q − c_D ∂Q/∂q' into blk (n · 196) directly.  The same kinematics
    (markers x = r + A(p) u, J = [I, 2 C(u) p]: markers.c_tensor_into, marker_row, djv_entry,
    contract_entry) and the same Jacobians as :func:`_forces`.  Returns the shortest length."""
    n = cfg.shape[0]
    m = 14
    w = np.empty(_SWORK)
    shortest = np.inf
    for el in range(n):
        h0 = h1 = h2 = 0.0
        hd0 = hd1 = hd2 = 0.0
        for side in range(2):
            sg = -1.0 if side == 0 else 1.0
            oc = _C0 + 48 * side
            op = _P0 + 12 * side
            c7 = 7 * side
            if side == 0:
                u0, u1, u2 = ui[el, 0], ui[el, 1], ui[el, 2]
            else:
                u0, u1, u2 = uj[el, 0], uj[el, 1], uj[el, 2]
            c_tensor_into(u0, u1, u2, w, oc)
            p0, p1, p2, p3 = qe[cfg[el, c7 + 3]], qe[cfg[el, c7 + 4]], qe[cfg[el, c7 + 5]], qe[cfg[el, c7 + 6]]
            for i in range(3):
                o = op + 4 * i
                w[o], w[o + 1], w[o + 2], w[o + 3], x = marker_row(w, oc, i, p0, p1, p2, p3)
                x += qe[cfg[el, c7 + i]]
                # J v = v_r + 2 P p' (the columns of Jh in _kin's order)
                xd = ve[dof[el, c7 + i]]
                for j in range(4):
                    xd += 2.0 * w[op + 4 * i + j] * ve[dof[el, c7 + 3 + j]]
                if i == 0:
                    h0 += sg * x
                    hd0 += sg * xd
                elif i == 1:
                    h1 += sg * x
                    hd1 += sg * xd
                else:
                    h2 += sg * x
                    hd2 += sg * xd
        l = np.sqrt(h0 ** 2 + h1 ** 2 + h2 ** 2)
        shortest = min(shortest, l)
        if l == 0.0:
            continue
        e0, e1, e2 = h0 / l, h1 / l, h2 / l
        rate = e0 * hd0 + e1 * hd1 + e2 * hd2
        delta = l - l0[el]
        f = k[el] * delta + c[el] * rate + fa[el]
        if tension_only[el] and (delta <= 0.0 or f < 0.0):
            f, fd, fr = 0.0, 0.0, 0.0
        else:
            fd, fr = k[el], c[el]
        ov = el * m
        for side in range(2):
            sg = -1.0 if side == 0 else 1.0
            op = _P0 + 12 * side
            for i in range(3):
                jte = sg * (e0 if i == 0 else (e1 if i == 1 else e2))
                w[_JTE + 7 * side + i] = jte
            for j in range(4):
                jte = 2.0 * sg * (w[op + j] * e0 + w[op + 4 + j] * e1 + w[op + 8 + j] * e2)
                w[_JTE + 7 * side + 3 + j] = jte
        for a in range(m):
            vec[ov + a] = f * w[_JTE + a]
        if not matrix:
            continue
        # Jh (3 × 14) = [−I, −2 P_i, I, 2 P_j]
        for i in range(3):
            for side in range(2):
                sg = -1.0 if side == 0 else 1.0
                op = _P0 + 12 * side
                o = _JH + 14 * i + 7 * side
                for a in range(3):
                    w[o + a] = sg if a == i else 0.0
                for j in range(4):
                    w[o + 3 + j] = sg * (2.0 * w[op + 4 * i + j])
        # the projector P = (I − e eᵀ)/l and P Jh
        ee = (e0, e1, e2)
        for i in range(3):
            for j in range(3):
                w[_PR + 3 * i + j] = ((1.0 if i == j else 0.0) - ee[i] * ee[j]) / l
        for i in range(3):
            for a in range(m):
                w[_PJ + 14 * i + a] = (w[_PR + 3 * i] * w[_JH + a] + w[_PR + 3 * i + 1] * w[_JH + 14 + a]
                                       + w[_PR + 3 * i + 2] * w[_JH + 28 + a])
        # ∂(Jh v)/∂q: only the p columns, 2 C(u) p' per side
        for a in range(3 * m):
            w[_DJV + a] = 0.0
        for side in range(2):
            sg = -1.0 if side == 0 else 1.0
            oc = _C0 + 48 * side
            c7 = 7 * side
            v0, v1, v2, v3 = ve[dof[el, c7 + 3]], ve[dof[el, c7 + 4]], ve[dof[el, c7 + 5]], ve[dof[el, c7 + 6]]
            for i in range(3):
                for kk in range(4):
                    w[_DJV + 14 * i + c7 + 3 + kk] += sg * djv_entry(w, oc, i, kk, v0, v1, v2, v3)
        hd = (hd0, hd1, hd2)
        for a in range(m):
            s = 0.0
            for i in range(3):
                s += hd[i] * w[_PJ + 14 * i + a] + ee[i] * w[_DJV + 14 * i + a]
            w[_DLD + a] = s
        ob = el * m * m
        for a in range(m):
            for b in range(m):
                blk[ob + m * a + b] = 0.0
        # the second-derivative terms Σ_i e_i ∂²x_i/∂p² of both markers
        for side in range(2):
            sg = -1.0 if side == 0 else 1.0
            oc = _C0 + 48 * side
            o3 = 7 * side + 3
            for j in range(4):
                for kk in range(4):
                    blk[ob + m * (o3 + j) + o3 + kk] += sg * contract_entry(w, oc, j, kk, e0, e1, e2)
        for a in range(m):
            ja = w[_JTE + a]
            for b in range(m):
                jpj = (w[_JH + a] * w[_PJ + b] + w[_JH + 14 + a] * w[_PJ + 14 + b]
                       + w[_JH + 28 + a] * w[_PJ + 28 + b])
                dfdq = fd * w[_JTE + b] + fr * w[_DLD + b]
                kab = -(ja * dfdq + f * (jpj + blk[ob + m * a + b]))
                dab = -fr * ja * w[_JTE + b]
                blk[ob + m * a + b] = -cK * kab - cD * dab
    return shortest
