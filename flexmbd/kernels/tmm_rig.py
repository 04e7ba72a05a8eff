"""P5's roller-rig time loop in one compiled function (flexmbd/tmm/rig.py is the interface
and holds the NumPy reference loop, ``Rig.run(..., compiled=False)``; P5, "predictor-corrector
loop").

Per step: Zhai's explicit predictor for the frame and the rollers; Newmark predictors of the
wheelset's coordinates; then repeat {primary-suspension and Hertz contact forces from the
current axle-box and wheel displacements; the Riccati sweep with these loads on the four
coupled elements; their displacements at t + h} until the displacements change by less
than ``tol``; commit the Newmark update; the lumped accelerations from the converged forces.
The algebra is the reference loop's, statement for statement, so both paths agree to
rounding (tests/test_tmm_rig.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .tmm import riccati_sweep


@njit(cache=True)
def _hertz(delta, G):
    return (delta / G) ** 1.5 if delta > 0.0 else 0.0


@njit(cache=True)
def rig_loop(kind, U, D, UD, C, Ds, kk, cc, mc, mk, load, Pf0, Pa0, Ef, Ea,
             q, qd, qdd, f, a,
             X, V, A, A_prev, have_prev,
             idx, mid_station, irr, h, beta, gamma, psi, phi,
             F_p, P, delta0, G, kp, cp, frame_m, frame_k, frame_c, roller_m, roller_k, roller_c,
             tol, max_iter, every, record_last, out, iters, station_el, station_end, zs_out):
    """Run ``irr.shape[0]`` steps from the state (q, qd, qdd, f, a; X, V, A, A_prev,
    have_prev[0]) and leave the final state in those arrays.

    ``idx`` = (box1, box12, wheel4, wheel9) element indices; ``irr`` (n, 2) the irregularity
    under each wheel at each new time; ``mc``, ``mk`` the elements' damping and stiffness
    (the chain's c, k); ``frame_c``/``roller_c`` already include any settling boost.  Writes
    rows of ``out`` (12 columns, the order of rig.OUTPUT_NAMES) every ``every`` steps (and
    after the last if ``record_last``), the station displacements (z, θ) of those rows into
    ``zs_out`` (from the element with mass ``station_el`` at its end row ``station_end``; NaN
    where none) and the iteration counts into ``iters``.
    Returns (rows written, −1 or the step that did not converge, its last change)."""
    n_el, nmax = q.shape
    n_steps = irr.shape[0]
    bh2 = beta * h * h
    qs = np.empty_like(q)
    qds = np.empty_like(q)
    rl = np.empty_like(q)
    b = np.empty((n_el, 4))
    b2 = np.empty((n_el, 4))
    ds = np.empty((n_el, 2))
    fw = np.empty((n_el + 1, 2))
    aw = np.empty((n_el + 1, 2))
    uw = np.empty((n_el + 1, 2))
    value = np.empty(4)
    zb = np.empty(2)
    zw = np.empty(2)
    vbs = np.empty(2)
    susp = np.empty(2)
    Fc = np.empty(2)
    Xn = np.empty(3)
    Vn = np.empty(3)
    g = np.empty(4)
    rows = 0
    for n in range(n_steps):
        # Zhai's predictor (ψ = φ = 0 on the very first step)
        for j in range(3):
            if have_prev[0]:
                Xn[j] = X[j] + V[j] * h + (0.5 + psi) * A[j] * h * h - psi * A_prev[j] * h * h
                Vn[j] = V[j] + (1.0 + phi) * A[j] * h - phi * A_prev[j] * h
            else:
                Xn[j] = X[j] + V[j] * h + 0.5 * A[j] * h * h
                Vn[j] = V[j] + A[j] * h
        # Newmark predictors, right-hand sides of the step's element relations
        for e in range(n_el):
            for k in range(nmax):
                qs[e, k] = q[e, k] + h * qd[e, k] + h * h * (0.5 - beta) * qdd[e, k]
                qds[e, k] = qd[e, k] + h * (1.0 - gamma) * qdd[e, k]
                rl[e, k] = load[e, k] - mc[e, k] * qds[e, k] - mk[e, k] * qs[e, k]
            for i in range(4):
                s = 0.0
                for k in range(nmax):
                    s += UD[e, i, k] * rl[e, k]
                b[e, i] = s
            for i in range(2):
                ds[e, i] = -(kk[e, i] * qs[e, i] + cc[e, i] * qds[e, i])
        for j in range(2):
            vbs[j] = qds[idx[j], 0]
            zb[j] = qs[idx[j], 0]
            zw[j] = qs[idx[2 + j], 0]
        converged = False
        change = 0.0
        it = 0
        for it in range(max_iter):
            for j in range(2):
                vb = vbs[j] + gamma / (beta * h) * (zb[j] - qs[idx[j], 0])
                susp[j] = 0.5 * F_p + kp * (zb[j] - Xn[0]) + cp * (vb - Vn[0])
                Fc[j] = _hertz(delta0[j] + Xn[1 + j] - zw[j] + irr[n, j], G)
                value[j] = -susp[j]
                value[2 + j] = Fc[j]
            for e in range(n_el):
                for i in range(4):
                    b2[e, i] = b[e, i]
            for j in range(4):
                e = idx[j]
                for i in range(4):
                    b2[e, i] += UD[e, i, 0] * value[j]
            riccati_sweep(kind, C, b2, Ds, ds, Pf0, Pa0, Ef, Ea, fw, aw, uw)
            change = 0.0
            for j in range(4):
                e = idx[j]
                g[0] = -fw[e, 0]
                g[1] = -fw[e, 1]
                g[2] = fw[e + 1, 0]
                g[3] = fw[e + 1, 1]
                s = rl[e, 0] + value[j]
                for i in range(4):
                    s += U[e, i, 0] * g[i]
                qnew = qs[e, 0] + bh2 * s / D[e, 0]
                old = zb[j] if j < 2 else zw[j - 2]
                if abs(qnew - old) > change:
                    change = abs(qnew - old)
                if j < 2:
                    zb[j] = qnew
                else:
                    zw[j - 2] = qnew
            if change < tol:
                converged = True
                break
        if not converged:
            return rows, n, change
        iters[n] = it + 1
        # commit: Newmark update of every element with the converged loads
        for j in range(4):
            rl[idx[j], 0] += value[j]
        for e in range(n_el):
            if kind[e] == 0:
                for k in range(nmax):
                    s = rl[e, k]
                    s += U[e, 0, k] * (-fw[e, 0]) + U[e, 1, k] * (-fw[e, 1])
                    s += U[e, 2, k] * fw[e + 1, 0] + U[e, 3, k] * fw[e + 1, 1]
                    qdd[e, k] = s / D[e, k]
            else:
                for k in range(nmax):
                    qdd[e, k] = Ds[e, k] * fw[e, k] + ds[e, k] if k < 2 else 0.0
            for k in range(nmax):
                q[e, k] = qs[e, k] + bh2 * qdd[e, k]
                qd[e, k] = qds[e, k] + gamma * h * qdd[e, k]
        for s_ in range(n_el + 1):
            for i in range(2):
                f[s_, i] = fw[s_, i]
                a[s_, i] = aw[s_, i]
        # lumped accelerations at t + h from the converged forces
        for j in range(2):
            susp[j] = 0.5 * F_p + kp * (zb[j] - Xn[0]) + cp * (qd[idx[j], 0] - Vn[0])
            Fc[j] = _hertz(delta0[j] + Xn[1 + j] - zw[j] + irr[n, j], G)
        for j in range(3):
            A_prev[j] = A[j]
        A[0] = (susp[0] + susp[1] - F_p - frame_k * Xn[0] - frame_c * Vn[0]) / frame_m
        for j in range(2):
            A[1 + j] = (-Fc[j] + P[j] - roller_k * Xn[1 + j] - roller_c * Vn[1 + j]) / roller_m
        have_prev[0] = True
        for j in range(3):
            X[j] = Xn[j]
            V[j] = Vn[j]
        if ((n + 1) % every == 0 or (record_last and n == n_steps - 1)) and rows < out.shape[0]:
            out[rows, 0] = qdd[idx[0], 0]
            out[rows, 1] = qdd[idx[1], 0]
            out[rows, 2] = qdd[idx[2], 0]
            out[rows, 3] = qdd[idx[3], 0]
            out[rows, 4] = a[mid_station, 0]
            out[rows, 5] = Fc[0]
            out[rows, 6] = Fc[1]
            out[rows, 7] = A[0]
            out[rows, 8] = A[1]
            out[rows, 9] = A[2]
            out[rows, 10] = zw[0]
            out[rows, 11] = irr[n, 0]
            for s_ in range(n_el + 1):
                e = station_el[s_]
                for i in range(2):
                    if e < 0:
                        zs_out[rows, s_, i] = np.nan
                    else:
                        acc = 0.0
                        for k in range(nmax):
                            acc += U[e, station_end[s_] + i, k] * q[e, k]
                        zs_out[rows, s_, i] = acc
            rows += 1
    return rows, -1, 0.0
