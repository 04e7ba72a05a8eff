"""Compiled group contributions written straight into the assembly buffers.

Each function evaluates one group and writes its part of the residual vector (``vec``),
of the Newton-matrix blocks (``blk``) and, for constraints, of the constraint values
(``phi``) and the two Jacobian blocks Φ_q, Φ_qᵀ (``jac``), in exactly the layout
:meth:`flexmbd.system.System.evaluate` concatenates; :func:`scatter` then sums them into
the residual and the matrix data.  One call per group replaces the NumPy glue of the
generic path (temporaries, concatenations, products by c_M, c_D, c_K), which costs more
than the element kernels themselves on small models (docs/performance.md).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .ancf_cable import constant_load, constant_mass
from . import banded as _banded
from . import lapack as _lapack
from .ancf_beam import elastic_forces as _ancf_forces
from .ancf_cable import elastic_forces as _cable_forces
from .bodies import spatial_inertia_into
from .dot import SPATIAL
from .dot import _assemble as _dot_assemble
from . import floating_frame as _ff
from .loads import point_forces, spatial_point_into
from .normalization import assemble_into as _norm_into
from .spring_damper import linear_forces, spatial_linear_into
from .torques import rotational_springs as _rotational_springs
from .torques import torques as _torques


@njit(cache=True)
def gather(x, idx):
    out = np.empty(idx.shape)
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, j] = x[idx[i, j]]
    return out


@njit(cache=True)
def spatial_bodies(cfg, dof, mass, inertia, qe, ve, ae, cM, cD, cK, matrix, vec, blk):
    """F = M a + Q_v and c_M M + c_K ∂F/∂q + c_D ∂F/∂q' of Euler-parameter bodies."""
    spatial_inertia_into(cfg, dof, mass, inertia, qe, ve, ae, cM, cD, cK, matrix, vec, blk)


@njit(cache=True)
def planar_bodies(dof, diag, ae, cM, matrix, vec, blk):
    """F = diag(m, m, I_z) a; the matrix block c_M M."""
    n = dof.shape[0]
    F = vec.reshape((n, 3))
    for e in range(n):
        for i in range(3):
            F[e, i] = diag[e, i] * ae[dof[e, i]]
    if matrix:
        B = blk.reshape((n, 3, 3))
        for e in range(n):
            for i in range(3):
                for j in range(3):
                    B[e, i, j] = cM * diag[e, i] if i == j else 0.0


@njit(cache=True)
def _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac):
    n, m = Jq.shape
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = Jq[e, a] * lam[e]
    if not matrix:
        return
    B = blk.reshape((n, m, m))
    for e in range(n):
        for a in range(m):
            for b in range(m):
                B[e, a, b] = cK * H[e, a, b] if hess else 0.0
    k = 0
    for copy in range(2):  # Φ_q (lower left) and Φ_qᵀ (upper right) receive the same values
        for e in range(n):
            for a in range(m):
                jac[k] = Jq[e, a]
                k += 1


@njit(cache=True)
def normalization(cfg, qe, lam, cK, matrix, hess, phi, vec, blk, jac):
    _norm_into(qe, cfg, lam, cK, matrix, hess, phi, vec, blk, jac)


@njit(cache=True)
def dot_constraints(kcode, nv, slot_dof, u, mtype, side, sign, Cpre, w, s, qe, lam, cK, matrix, hess, phi, vec,
                    blk, jac):
    """Dot-product equations: Φ_q and c_K Σ λ ∂²Φ/∂q² written by the kernel straight into
    the Jacobian and matrix blocks (no per-equation buffers copied in)."""
    n = phi.shape[0]
    m = 2 * nv
    V = vec.reshape((n, m))
    Jq = jac[:n * m].reshape((n, m)) if matrix else V    # residual only: Φ_q in vec, scaled by λ in place
    H = blk.reshape((n, m, m)) if hess else blk[:0].reshape((0, m, m))    # (no allocation)
    _dot_assemble(kcode, nv, qe, slot_dof, u, mtype, side, sign, w, s, lam, hess, cK, phi, Jq, H, Cpre)
    for e in range(n):
        for a in range(m):
            V[e, a] = Jq[e, a] * lam[e]
    if matrix:
        if not hess:
            blk[:] = 0.0
        jac[n * m:] = jac[:n * m]   # Φ_q (lower left) and Φ_qᵀ (upper right) receive the same values


@njit(cache=True)
def _force_contribution(Q, K, D, cD, cK, matrix, vec, blk):
    """An internal force's −Q into vec and −c_K K − c_D D into blk."""
    n, m = Q.shape
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -Q[e, a]
    if matrix:
        B = blk.reshape((n, m, m))
        for e in range(n):
            for a in range(m):
                for b in range(m):
                    B[e, a, b] = -cK * K[e, a, b] - cD * D[e, a, b]


@njit(cache=True)
def linear_springs(kcode, cfg, dof, ui, uj, k, c, l0, fa, tension_only, qe, ve, cD, cK, matrix, vec, blk):
    """Linear spring-damper-actuators; returns the shortest length (zero: undefined direction)."""
    if kcode == SPATIAL:
        return spatial_linear_into(cfg, dof, ui, uj, k, c, l0, fa, tension_only, qe, ve, cD, cK, matrix, vec, blk)
    ql, vl = gather(qe, cfg), gather(ve, dof)
    n, m = vl.shape
    Q = np.empty((n, m))
    if matrix:
        K, D = np.empty((n, m, m)), np.empty((n, m, m))
    else:
        K = D = np.empty((0, m, m))
    length, rate, F = np.empty(n), np.empty(n), np.empty(n)
    linear_forces(kcode, ql, vl, ui, uj, k, c, l0, fa, tension_only, matrix, Q, K, D, length, rate, F)
    _force_contribution(Q, K, D, cD, cK, matrix, vec, blk)
    shortest = np.inf
    for e in range(n):
        shortest = min(shortest, length[e])
    return shortest


@njit(cache=True)
def _load_contribution(Q, K, scale, cK, matrix, vec, blk):
    """A load's −scale·Q into vec and −c_K·scale·K into blk."""
    n, m = Q.shape
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -scale * Q[e, a]
    if matrix:
        B = blk.reshape((n, m, m))
        for e in range(n):
            for a in range(m):
                for b in range(m):
                    B[e, a, b] = -cK * scale * K[e, a, b]


@njit(cache=True)
def point_loads(kcode, cfg, u, f, body_fixed, s, qe, scale, cK, matrix, vec, blk):
    if kcode == SPATIAL:
        spatial_point_into(cfg, u, f, body_fixed, s, qe, scale, cK, matrix, vec, blk)
        return
    qb = gather(qe, cfg)
    n, m = cfg.shape[0], vec.shape[0] // cfg.shape[0]
    Q = np.empty((n, m))
    K = np.empty((n, m, m)) if matrix else np.empty((0, m, m))
    point_forces(kcode, qb, u, f, body_fixed, s, matrix, Q, K)
    _load_contribution(Q, K, scale, cK, matrix, vec, blk)


@njit(cache=True)
def gravity(mass, g, scale, matrix, vec, blk):
    """Q = m g on the translational coordinates (vector kinds: no Jacobian)."""
    n = mass.shape[0]
    m = vec.shape[0] // n
    V = vec.reshape((n, m))
    for e in range(n):
        for a in range(m):
            V[e, a] = -scale * mass[e] * g[a] if a < g.shape[0] else 0.0
    if matrix:
        blk[:] = 0.0


@njit(cache=True)
def torque_loads(kcode, cfg, torque, body_fixed, s, qe, scale, cK, matrix, vec, blk):
    qb = gather(qe, cfg)
    n, m = cfg.shape[0], vec.shape[0] // cfg.shape[0]
    Q = np.empty((n, m))
    K = np.empty((n, m, m)) if matrix else np.empty((0, m, m))
    _torques(kcode, qb, torque, body_fixed, s, matrix, Q, K)
    _load_contribution(Q, K, scale, cK, matrix, vec, blk)


@njit(cache=True)
def rotational_springs(kcode, cfg, dof, fi, gi, fj, k, c, ta, qe, ve, cD, cK, matrix, vec, blk):
    """Rotational spring-damper-actuators; returns the smallest r² (0: undefined angle)."""
    ql, vl = gather(qe, cfg), gather(ve, dof)
    n, m = vl.shape
    Q = np.empty((n, m))
    if matrix:
        K, D = np.empty((n, m, m)), np.empty((n, m, m))
    else:
        K = D = np.empty((0, m, m))
    smallest = _rotational_springs(kcode, ql, vl, fi, gi, fj, k, c, ta, matrix, Q, K, D)
    _force_contribution(Q, K, D, cD, cK, matrix, vec, blk)
    return smallest


@njit(cache=True)
def cable_elastic(cfg, dH_a, W_a, c0_a, dH_b, ddH_b, W_b, kappa0_b, EA, EI, linear, qe, cK, matrix, vec, blk):
    """ANCF cable elements (kernels/ancf_cable.py): f = −Q into vec, c_K K into blk."""
    n = cfg.shape[0]
    K = blk.reshape((n, 12, 12)) if matrix else np.empty((0, 12, 12))
    _cable_forces(qe, cfg, dH_a, W_a, c0_a, dH_b, ddH_b, W_b, kappa0_b, EA, EI, linear, matrix,
                  vec.reshape((n, 12)), K, np.empty(n))
    if matrix:
        for k in range(blk.shape[0]):
            blk[k] *= cK


@njit(cache=True)
def ancf_elastic(cfg, b, w, coef, qe, cK, matrix, vec, blk):
    """Fully parameterized ANCF beam elements (kernels/ancf_beam.py): f = −Q into vec,
    c_K K into blk."""
    n = cfg.shape[0]
    K = blk.reshape((n, 24, 24)) if matrix else np.empty((0, 24, 24))
    _ancf_forces(qe, cfg, b, w, coef, matrix, vec.reshape((n, 24)), K, np.empty(n))
    if matrix:
        for k in range(blk.shape[0]):
            blk[k] *= cK


@njit(cache=True)
def modal_inertia(cfg, dof, W, pairs, live, qe, ve, ae, cM, cD, cK, matrix, vec, blk):
    """Floating-frame inertia (kernels/floating_frame.py): F into vec, c_M M + c_K K + c_D D into blk."""
    n, nv = cfg.shape
    B = blk.reshape((n, nv, nv)) if matrix else np.empty((0, nv, nv))
    _ff.inertia(cfg, dof, W, pairs, live, qe, ve, ae, cM, cD, cK, matrix, vec.reshape((n, nv)), B)


@njit(cache=True)
def modal_normalization(cfg, qe, lam, cK, matrix, hess, phi, vec, blk, jac):
    n, nv = cfg.shape
    Jq = np.empty((n, nv))
    H = np.empty((n, nv, nv)) if hess else np.empty((0, nv, nv))
    _ff.normalization(cfg, qe, lam, hess, phi, Jq, H)
    _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac)


@njit(cache=True)
def modal_dots(cfg, kinds, pairs, side, mtype, sign, ur, u, P, moving, fixed, same, w, s, qe, lam, cK, matrix, hess,
               phi, vec, blk, jac):
    """Joints on floating frames (and rigid Euler-parameter bodies joined to them)."""
    n, m = phi.shape[0], cfg.shape[1]
    Jq = np.empty((n, m))
    H = np.empty((n, m, m)) if hess else np.empty((0, m, m))
    _ff.dots(cfg, kinds, pairs, side, mtype, sign, ur, u, P, moving, fixed, same, w, s, qe, lam, hess, phi, Jq, H)
    _constraint_blocks(Jq, H, lam, cK, matrix, hess, vec, blk, jac)


@njit(cache=True)
def modal_points(cfg, kinds, pairs, ur, P, f, s, qe, scale, cK, matrix, vec, blk):
    """Global point forces on floating frames."""
    n, m = cfg.shape
    Q = np.empty((n, m))
    K = np.empty((n, m, m)) if matrix else np.empty((0, m, m))
    _ff.point_forces(cfg, kinds, pairs, ur, P, f, s, qe, matrix, Q, K)
    _load_contribution(Q, K, scale, cK, matrix, vec, blk)


@njit(cache=True)
def _sum_into(values, index, out):
    """out[index[k]] += values[k]; the last entry of out is the trash slot of ground rows/columns.
    Zeros are skipped: most block entries are (a joint's Hessian block spans both bodies'
    columns), and summing them into a few shared slots (the trash slot, one body's block)
    makes a chain of dependent additions (fe-modal-body: 73 → 26 µs a matrix)."""
    for k in range(values.shape[0]):
        v = values[k]
        if v != 0.0:
            out[index[k]] += v


@njit(cache=True)
def scatter(vec, vec_index, n, blk, pos, size, matrix):
    """Σ of the contributions into F (n,) and the matrix data (size,)."""
    F = np.zeros(n + 1)
    _sum_into(vec, vec_index, F)
    data = np.zeros(size + 1 if matrix else 0)
    if matrix:
        _sum_into(blk, pos, data)
    return F[:n], data[:size]


@njit(cache=True)
def _dense_matrix(blk, pos, N):
    """The N × N Newton matrix from the block buffer (dense layout, trash slot N²)."""
    flat = np.zeros(N * N + 1)
    _sum_into(blk, pos, flat)
    return flat[:N * N].reshape((N, N))


# ---------------------------------------------------------------------------
# The whole evaluation in one call (fixed signature: one compiled version serves all models)
# ---------------------------------------------------------------------------
#: slots of :func:`evaluate_all`; ``layout[slot]`` = (vector offset, block offset, Jacobian-
#: block offset, first constraint row), −1 when the model has no such group.  A group
#: fills a slot through its ``compiled_slot()`` (flexmbd.groups).
SLOTS = ("spatial_bodies", "planar_bodies", "gravity_spatial", "gravity_planar", "springs_spatial",
         "springs_planar", "points_spatial", "points_planar", "normalization", "dots_spatial", "dots_planar",
         "torques_spatial", "torques_planar", "rotational_springs_spatial", "rotational_springs_planar",
         "cable_inertia", "cable_weight", "cable_elastic", "springs_ancf_cable", "springs_ancf",
         "points_ancf_cable", "points_ancf", "dots_ancf_cable", "dots_ancf", "ancf_inertia", "ancf_weight",
         "ancf_elastic")
(S_SB, S_PB, S_GS, S_GP, S_SS, S_SP, S_PS, S_PP, S_NO, S_DS, S_DP, S_TS, S_TP, S_RS, S_RP,
 S_CI, S_CW, S_CE, S_SC, S_SA, S_PC, S_PA, S_DC, S_DA, S_AI, S_AW, S_AE) = range(len(SLOTS))
#: slots that several groups may fill (one group per node kind: floating frames of
#: different shapes are different kinds), as numbered copies "name#2", "name#3", … taken
#: in turn by CompiledAssembly
COPIES = {"modal_inertia": 6, "modal_elastic": 6, "modal_weight": 6, "modal_normalization": 6, "modal_points": 6,
          "modal_dots": 8, "modal_torques": 6}
SLOTS = SLOTS + tuple(name if k == 0 else f"{name}#{k + 1}" for name, count in COPIES.items() for k in range(count))


def _copies(name):
    return tuple(SLOTS.index(name if k == 0 else f"{name}#{k + 1}") for k in range(COPIES[name]))


S_MI, S_ME, S_MW, S_MN, S_MP, S_MD, S_MT = (_copies(name) for name in COPIES)
#: the torque slots and their kernel codes (floating frames: the rigid bodies' kernel on p's columns)
_TORQUE_SLOTS = ((S_TS, 1), (S_TP, 0)) + tuple((s, 1) for s in S_MT)

#: slots of applied and internal forces: no part in the matrix when c_M = 1, c_D = c_K = 0
#: (the velocity projection and the consistent accelerations skip them); a slot not
#: listed is evaluated there (correct, only slower)
FORCE_SLOTS = (S_GS, S_GP, S_SS, S_SP, S_PS, S_PP, S_TS, S_TP, S_RS, S_RP, S_CW, S_CE, S_SC, S_SA, S_PC, S_PA,
               S_AW, S_AE)

_SPRING = ("i2", "i2", "f2", "f2", "f1", "f1", "f1", "i1")   # config, dofs, u_i, u_j, k, c, l0, tension only
_POINT = ("i2", "f2", "f2", "i1")                            # config, u, f, body-fixed
_DOT = ("i2", "f2", "i1", "i1", "f1", "f4")   # slot dofs, u, marker type, side, sign, marker tensors C(u)
_TORQUE = ("i2", "f2", "i1")                                 # config, torque, body-fixed
_ROTATIONAL = ("i2", "i2", "f2", "f2", "f2", "f1", "f1")     # config, dofs, f_i, g_i, f_j, k, c
#: the constant arrays of each slot, in order: dtype (i: int64, f: float64) and ndim
SLOT_ARGS = {
    "spatial_bodies": ("i2", "i2", "f1", "f3"),        # config, dofs, mass, inertia
    "planar_bodies": ("i2", "f2"),                     # dofs, diag(m, m, I_z)
    "gravity_spatial": ("f1", "f1"), "gravity_planar": ("f1", "f1"),   # mass, g
    "springs_spatial": _SPRING, "springs_planar": _SPRING,
    "points_spatial": _POINT, "points_planar": _POINT,
    "normalization": ("i2",),                          # config
    "dots_spatial": _DOT, "dots_planar": _DOT,
    "torques_spatial": _TORQUE, "torques_planar": _TORQUE,
    "rotational_springs_spatial": _ROTATIONAL, "rotational_springs_planar": _ROTATIONAL,
    # ANCF cable elements (flexmbd/beams/ancf_cable.py): constant mass and weight; elastic
    # forces from config rows, dH_a, W_a, c0_a, dH_b, ddH_b, W_b, κ0_b, EA, EI, bending form
    "cable_inertia": ("i2", "f3"), "cable_weight": ("f2",),
    "cable_elastic": ("i2", "f3", "f2", "f2", "f3", "f3", "f2", "f2", "f1", "f1", "i1"),
    # ANCF nodes (both kinds: markers linear in q, kernels/markers.py ancf_marker)
    "springs_ancf_cable": _SPRING, "springs_ancf": _SPRING, "points_ancf_cable": _POINT, "points_ancf": _POINT,
    "dots_ancf_cable": _DOT, "dots_ancf": _DOT,
    # fully parameterized ANCF beam elements (flexmbd/beams/ancf_formulation.py): constant
    # mass and weight (the cable's kernels); elastic forces from config rows, b_k, weights,
    # (λ, μ, c) per point
    "ancf_inertia": ("i2", "f3"), "ancf_weight": ("f2",), "ancf_elastic": ("i2", "f4", "f2", "f3"),
    # floating frames with Euler parameters (kernels/floating_frame.py): inertia from config,
    # dofs, W, the foreshortening's pairs, the live channels; modal stiffness K, damping C,
    # centrifugal K_G and its switch; weight from the first moments W₀c and g;
    # normalisation; joints (config rows, each side's (modes, pairs), pairs, marker slots'
    # side, type, sign, ū, u, P); global point forces (config, (modes, pairs), pairs, ū, P, f)
    "modal_inertia": ("i2", "i2", "f3", "i2", "i1"), "modal_elastic": ("i2", "i2", "f3", "f3", "f3", "f1"),
    "modal_weight": ("i2", "f2", "f1", "i2", "i1"), "modal_normalization": ("i2",),
    "modal_dots": ("i2", "i2", "i3", "i1", "i1", "f1", "f2", "f2", "f3", "i1", "f2", "i1"),
    "modal_points": ("i2", "i2", "i3", "f2", "f3", "f2"),
    "modal_torques": _TORQUE,           # the rigid bodies' kernel: Q and K on the columns of p
}
#: the arrays of each slot that depend on time (after its constant ones): actuator forces,
#: load scales, driver terms (w, s), actuator torques
TIME_ARGS = {"springs_spatial": ("f1",), "springs_planar": ("f1",), "points_spatial": ("f1",),
             "points_planar": ("f1",), "dots_spatial": ("f2", "f1"), "dots_planar": ("f2", "f1"),
             "torques_spatial": ("f1",), "torques_planar": ("f1",),
             "rotational_springs_spatial": ("f1",), "rotational_springs_planar": ("f1",),
             "springs_ancf_cable": ("f1",), "springs_ancf": ("f1",), "points_ancf_cable": ("f1",),
             "points_ancf": ("f1",), "dots_ancf_cable": ("f2", "f1"), "dots_ancf": ("f2", "f1"),
             "modal_dots": ("f2", "f1"), "modal_points": ("f1",), "modal_torques": ("f1",)}
for _name, _count in COPIES.items():
    for _k in range(2, _count + 1):
        SLOT_ARGS[f"{_name}#{_k}"] = SLOT_ARGS[_name]
        if _name in TIME_ARGS:
            TIME_ARGS[f"{_name}#{_k}"] = TIME_ARGS[_name]
#: entries of the argument table per slot (constant and time arrays)
MAX_ARGS = max(len(SLOT_ARGS[n]) + len(TIME_ARGS.get(n, ())) for n in SLOTS)


# The slots' arrays are packed in three flat buffers (ints, constant floats, floats that
# depend on time) and found through ``tab[slot, j] = (offset, shape...)``: passing a tuple
# of some eighty small arrays instead cost ~70 ns per array at every call (Numba unboxes
# each), 5.6 µs of a 100 µs slider-crank step.
@njit(cache=True, inline="always")
def _a1(buf, tab, slot, j):
    o = tab[slot, j, 0]
    return buf[o:o + tab[slot, j, 1]]


@njit(cache=True, inline="always")
def _a2(buf, tab, slot, j):
    o, a, b = tab[slot, j, 0], tab[slot, j, 1], tab[slot, j, 2]
    return buf[o:o + a * b].reshape((a, b))


@njit(cache=True, inline="always")
def _a3(buf, tab, slot, j):
    o, a, b, c = tab[slot, j, 0], tab[slot, j, 1], tab[slot, j, 2], tab[slot, j, 3]
    return buf[o:o + a * b * c].reshape((a, b, c))


@njit(cache=True, inline="always")
def _a4(buf, tab, slot, j):
    o, a, b, c, d = tab[slot, j, 0], tab[slot, j, 1], tab[slot, j, 2], tab[slot, j, 3], tab[slot, j, 4]
    return buf[o:o + a * b * c * d].reshape((a, b, c, d))


@njit(cache=True, inline="always")
def _flat4(buf, tab, slot, j):
    """A 4-D entry as its flat span (the kernel indexes it flat: no reshape)."""
    o = tab[slot, j, 0]
    return buf[o:o + tab[slot, j, 1] * tab[slot, j, 2] * tab[slot, j, 3] * tab[slot, j, 4]]


@njit(cache=True)
def _span(x, start, size):
    return x[start:start + size]


@njit(cache=True)
def evaluate_all(qe, ve, ae, lam, cM, cD, cK, scale, matrix, layout, vsize, bsize, vec, blk, phi, ib, fb, tb, tab):
    """Every group of a compiled system into vec, blk, phi.  The groups' constant arrays
    are in ``ib`` (int64) and ``fb`` (float64), their values at the current time in ``tb``,
    each found through ``tab`` (:data:`SLOT_ARGS`, :data:`TIME_ARGS`).  Returns the
    shortest spring length (0: a spring with an undefined direction, or a rotational
    spring with an undefined angle)."""
    hess = matrix and cK != 0.0
    shortest = np.inf
    s = S_SB
    if layout[s, 0] >= 0:
        spatial_bodies(_a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a1(fb, tab, s, 2), _a3(fb, tab, s, 3),
                       qe, ve, ae, cM, cD, cK, matrix,
                       _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    s = S_PB
    if layout[s, 0] >= 0:
        planar_bodies(_a2(ib, tab, s, 0), _a2(fb, tab, s, 1), ae, cM, matrix, _span(vec, layout[s, 0], vsize[s]),
                      _span(blk, layout[s, 1], bsize[s]))
    for s in (S_CI, S_AI):
        if layout[s, 0] >= 0:
            constant_mass(_a2(ib, tab, s, 0), _a3(fb, tab, s, 1), ae, cM, matrix,
                          _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s in (S_CW, S_AW):
        if layout[s, 0] >= 0:
            constant_load(_a2(fb, tab, s, 0), scale, matrix, _span(vec, layout[s, 0], vsize[s]),
                          _span(blk, layout[s, 1], bsize[s]))
    s = S_CE
    if layout[s, 0] >= 0:
        cable_elastic(_a2(ib, tab, s, 0), _a3(fb, tab, s, 1), _a2(fb, tab, s, 2), _a2(fb, tab, s, 3),
                      _a3(fb, tab, s, 4), _a3(fb, tab, s, 5), _a2(fb, tab, s, 6), _a2(fb, tab, s, 7),
                      _a1(fb, tab, s, 8), _a1(fb, tab, s, 9), _a1(ib, tab, s, 10), qe, cK, matrix,
                      _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    s = S_AE
    if layout[s, 0] >= 0:
        ancf_elastic(_a2(ib, tab, s, 0), _a4(fb, tab, s, 1), _a2(fb, tab, s, 2), _a3(fb, tab, s, 3), qe, cK, matrix,
                     _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s in S_MI:
        if layout[s, 0] >= 0:
            modal_inertia(_a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a3(fb, tab, s, 2), _a2(ib, tab, s, 3),
                          _a1(ib, tab, s, 4), qe, ve, ae, cM, cD, cK, matrix, _span(vec, layout[s, 0], vsize[s]),
                          _span(blk, layout[s, 1], bsize[s]))
    for s in S_ME:
        if layout[s, 0] >= 0:
            _ff.elastic(_a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a3(fb, tab, s, 2), _a3(fb, tab, s, 3),
                        _a3(fb, tab, s, 4), _a1(fb, tab, s, 5), qe, ve, cD, cK, matrix,
                        _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s in S_MW:
        if layout[s, 0] >= 0:
            _ff.weight(_a2(ib, tab, s, 0), _a2(fb, tab, s, 1), _a1(fb, tab, s, 2), _a2(ib, tab, s, 3),
                       _a1(ib, tab, s, 4), qe, scale, cK, matrix, _span(vec, layout[s, 0], vsize[s]),
                       _span(blk, layout[s, 1], bsize[s]))
    for s in S_MP:
        if layout[s, 0] >= 0:
            modal_points(_a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a3(ib, tab, s, 2), _a2(fb, tab, s, 3),
                         _a3(fb, tab, s, 4), _a2(fb, tab, s, 5), _a1(tb, tab, s, 6), qe, scale, cK, matrix,
                         _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s in (S_GS, S_GP):
        if layout[s, 0] >= 0:
            gravity(_a1(fb, tab, s, 0), _a1(fb, tab, s, 1), scale, matrix, _span(vec, layout[s, 0], vsize[s]),
                    _span(blk, layout[s, 1], bsize[s]))
    for s, kcode in ((S_SS, 1), (S_SP, 0), (S_SC, 3), (S_SA, 3)):
        if layout[s, 0] >= 0:
            shortest = min(shortest, linear_springs(
                kcode, _a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a2(fb, tab, s, 2), _a2(fb, tab, s, 3),
                _a1(fb, tab, s, 4), _a1(fb, tab, s, 5), _a1(fb, tab, s, 6), _a1(tb, tab, s, 8),
                _a1(ib, tab, s, 7), qe, ve, cD, cK, matrix, _span(vec, layout[s, 0], vsize[s]),
                _span(blk, layout[s, 1], bsize[s])))
    for s, kcode in ((S_PS, 1), (S_PP, 0), (S_PC, 3), (S_PA, 3)):
        if layout[s, 0] >= 0:
            point_loads(kcode, _a2(ib, tab, s, 0), _a2(fb, tab, s, 1), _a2(fb, tab, s, 2), _a1(ib, tab, s, 3),
                        _a1(tb, tab, s, 4), qe, scale, cK, matrix,
                        _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s, kcode in _TORQUE_SLOTS:
        if layout[s, 0] >= 0:
            torque_loads(kcode, _a2(ib, tab, s, 0), _a2(fb, tab, s, 1), _a1(ib, tab, s, 2) != 0,
                         _a1(tb, tab, s, 3), qe, scale, cK, matrix,
                         _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
    for s, kcode in ((S_RS, 1), (S_RP, 0)):
        if layout[s, 0] >= 0:
            r2 = rotational_springs(kcode, _a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a2(fb, tab, s, 2),
                                    _a2(fb, tab, s, 3), _a2(fb, tab, s, 4), _a1(fb, tab, s, 5), _a1(fb, tab, s, 6),
                                    _a1(tb, tab, s, 7), qe, ve, cD, cK, matrix,
                                    _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]))
            if r2 < 1e-300:
                shortest = 0.0
    s = S_NO
    if layout[s, 0] >= 0:
        config = _a2(ib, tab, s, 0)
        n, r0 = config.shape[0], layout[s, 3]
        normalization(config, qe, _span(lam, r0, n), cK, matrix, hess, _span(phi, r0, n),
                      _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]),
                      _span(blk, layout[s, 2], 2 * vsize[s]))
    for s in S_MN:
        if layout[s, 0] >= 0:
            config = _a2(ib, tab, s, 0)
            n, r0 = config.shape[0], layout[s, 3]
            modal_normalization(config, qe, _span(lam, r0, n), cK, matrix, hess, _span(phi, r0, n),
                                _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]),
                                _span(blk, layout[s, 2], 2 * vsize[s]))
    for s in S_MD:
        if layout[s, 0] >= 0:
            w = _a2(tb, tab, s, 12)
            n, r0 = w.shape[0], layout[s, 3]
            modal_dots(_a2(ib, tab, s, 0), _a2(ib, tab, s, 1), _a3(ib, tab, s, 2), _a1(ib, tab, s, 3),
                       _a1(ib, tab, s, 4), _a1(fb, tab, s, 5), _a2(fb, tab, s, 6), _a2(fb, tab, s, 7),
                       _a3(fb, tab, s, 8), _a1(ib, tab, s, 9), _a2(fb, tab, s, 10), _a1(ib, tab, s, 11), w,
                       _a1(tb, tab, s, 13), qe, _span(lam, r0, n), cK, matrix, hess,
                       _span(phi, r0, n), _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]),
                       _span(blk, layout[s, 2], 2 * vsize[s]))
    for s, kcode, nv in ((S_DS, 1, 7), (S_DP, 0, 3), (S_DC, 3, 6), (S_DA, 3, 12)):
        if layout[s, 0] >= 0:
            w = _a2(tb, tab, s, 6)
            n, r0 = w.shape[0], layout[s, 3]
            dot_constraints(kcode, nv, _a2(ib, tab, s, 0), _a2(fb, tab, s, 1), _a1(ib, tab, s, 2),
                            _a1(ib, tab, s, 3), _a1(fb, tab, s, 4), _flat4(fb, tab, s, 5), w, _a1(tb, tab, s, 7),
                            qe, _span(lam, r0, n), cK, matrix, hess, _span(phi, r0, n),
                            _span(vec, layout[s, 0], vsize[s]), _span(blk, layout[s, 1], bsize[s]),
                            _span(blk, layout[s, 2], 2 * vsize[s]))
    return shortest


# ---------------------------------------------------------------------------
# Dense LU with partial pivoting (small systems: a call costs less than LAPACK's wrappers)
# ---------------------------------------------------------------------------
@njit(cache=True)
def lu_factor(A, piv):
    """LU with partial pivoting of the dense N × N C array A, in place: LAPACK ``dgetrf``
    (kernels/lapack.py) of the Fortran array that A's memory is, i.e. of Aᵀ, so the
    pivoting runs over A's columns; :func:`lu_solve` solves with the transpose of that
    factorization.  piv: LAPACK's (1-based) interchanges.  Returns False if a pivot is
    exactly zero (singular matrix) or not finite.  LAPACK instead of the loops written
    here before: 10 against 22 µs for 44 unknowns, 66 against 178 µs for 110
    (docs/performance.md, "Dense LU from LAPACK")."""
    N = A.shape[0]
    ints = np.empty(4, dtype=np.int32)      # N, N, lda, info
    ints[0], ints[1], ints[2], ints[3] = N, N, N, 0
    ip = np.empty(N, dtype=np.int32)
    _lapack.dgetrf(ints[0:].ctypes, ints[1:].ctypes, A.ctypes, ints[2:].ctypes, ip.ctypes, ints[3:].ctypes)
    for i in range(N):
        piv[i] = ip[i]
    if ints[3] != 0:
        return False
    for i in range(N):
        if not np.isfinite(A[i, i]):
            return False
    return True


@njit(cache=True)
def lu_solve(LU, piv, b):
    """x of A x = b from :func:`lu_factor`'s LU of Aᵀ: LAPACK ``dgetrs`` with 'T'."""
    N = LU.shape[0]
    x = np.empty(N)
    for i in range(N):
        x[i] = b[i]
    ints = np.empty(5, dtype=np.int32)      # N, nrhs, lda, ldb, info
    ints[0], ints[1], ints[2], ints[3], ints[4] = N, 1, N, N, 0
    ip = np.empty(N, dtype=np.int32)
    for i in range(N):
        ip[i] = piv[i]
    trans = np.empty(1, dtype=np.uint8)
    trans[0] = 84       # 'T'
    _lapack.dgetrs(trans.ctypes, ints[0:].ctypes, ints[1:].ctypes, LU.ctypes, ints[2:].ctypes, ip.ctypes, x.ctypes,
                   ints[3:].ctypes, ints[4:].ctypes)
    return x


# ---------------------------------------------------------------------------
# The Newton matrix stored dense or banded: ``band`` empty (dense, N × N, ``pos`` the
# block entries' dense positions) or [kl, ku, permutation] (kernels/banded.py: N × ld band
# storage, ``pos`` the block entries' band positions)
# ---------------------------------------------------------------------------
@njit(cache=True)
def _matrix(blk, pos, N, band):
    """The matrix from the block buffer, in its storage."""
    if band.shape[0] == 0:
        return _dense_matrix(blk, pos, N)
    return _banded.assemble(blk, pos, N, 2 * band[0] + band[1] + 1)


@njit(cache=True)
def _factor(A, piv, band):
    """LU with partial pivoting in place; False: singular."""
    if band.shape[0] == 0:
        return lu_factor(A, piv)
    return _banded.factor(A, piv, band[0], band[1])


@njit(cache=True)
def _solve(LU, piv, b, band):
    if band.shape[0] == 0:
        return lu_solve(LU, piv, b)
    return _banded.solve(LU, piv, band, b)


# ---------------------------------------------------------------------------
# One Newton solve of a time step (dense or banded Newton matrix), as solvers.newton /
# solvers.dynamics
# ---------------------------------------------------------------------------
#: outcome codes of :func:`newton_step`
CONVERGED, NOT_FINITE, MAX_ITER, SINGULAR, ZERO_LENGTH, SINGULAR_PROJECTION = 0, 1, 2, 3, 4, 5
#: outcome of kernels/time_loop.py ``run_steps``: a step converged but its consistent
#: accelerations could not be solved (singular [M Φ_qᵀ; Φ_q 0])
SINGULAR_CONSISTENT = 6
#: policy codes of :func:`newton_step` besides i ≥ 1 (refresh after i iterations of a step):
#: full Newton, one matrix a step, the matrix kept across steps until it contracts too slowly
FULL, ONCE_PER_STEP, CONTRACTION = 0, -1, -2
#: iterations of the velocity projection's refinement with the Newton factorization
REFINEMENTS = 8
#: dense systems up to this many unknowns project by a factorization of the projection
#: matrix itself, larger ones refine with the Newton LU (:func:`_projection_factorized`)
PROJECTION_LU_LIMIT = 100


@njit(cache=True)
def _scaled_error(x, dx, n, scaled, floor):
    """solvers/newton.py ``scaled_increment_error`` at x + dx; scaled = [rtol, a_c, f_c, …],
    floor the rounding floor δ_a of the accelerations."""
    xa, xf, da, df = 0.0, 0.0, 0.0, 0.0
    for i in range(n):
        xa = max(xa, abs(x[i] + dx[i]))
        da = max(da, abs(dx[i]))
    for i in range(n, x.shape[0]):
        xf = max(xf, abs(x[i] + dx[i]))
        df = max(df, abs(dx[i]))
    return max(da / (scaled[0] * max(scaled[1], xa) + floor),
               df / (scaled[0] * max(scaled[2], xf) + floor * scaled[2] / scaled[1]))


@njit(cache=True)
def newton_step(q, v, qdd, a, lam, h, am, af, beta, gamma, tol, scaled, max_iter, policy, kept, project, ground_q,
                n_ext, layout, vsize, bsize, vec_index, pos, band, vec, blk, ib, fb, tb, tab, LU, piv, status, stats,
                P, Ppiv, td, rates):
    """Newton on [F; Φ/β'] for q''_{n+1}, λ_{n+1} of one generalized-α/Newmark step.

    Convergence: scaled = [rtol, a_c, f_c, 100 ε, stagnation factor] the scaled test
    (solvers/newton.py ``NewtonSolver.solve``: the correction of the factorization at
    hand, applied when its scaled size is ≤ 1), or empty for the residual test
    ‖[F; Φ]‖₂ < tol.

    policy: FULL, ONCE_PER_STEP, CONTRACTION or i ≥ 1 (solvers/newton.py).  Full Newton
    evaluates the residual alone at an iterate after the first (at the second only when the
    last solve ended there) and the matrix only when that iterate is not accepted.  kept = [contraction limit, age limit, contraction of the
    factorization at hand] (CONTRACTION: the matrix is refreshed when an iteration shrinks
    the error by less than the limit, or has served age-limit iterations of a step; the
    third entry is updated).  status = [has factor, factor age, iterations of the last
    solve that ended by convergence or max_iter]; stats += [iterations,
    refreshes, factorizations, residual evaluations, rounding stops].  project:
    afterwards, project q'_{n+1} onto Φ_q q' + Φ_t = 0 (solvers/dynamics.py ``_project``),
    by refinement with the Newton factorization when it converges (:func:`_velocity`);
    Φ_t from ``td``, the time arrays' rates at t_{n+1}, on the slots of ``rates``
    (:func:`_time_rates`; an empty td: Φ_t = 0).
    Returns (code, x, residual 2-norm, [F; Φ], q_{n+1}, q'_{n+1}, q̈-like a_{n+1}) — the
    last three at the last iterate.  The Newton matrix is dense or banded (``band``,
    :func:`_matrix`): LU and piv hold its factorization in that storage.  P, Ppiv: arrays
    of LU's and piv's shapes that receive the projection's matrix [M Φ_qᵀ; Φ_q 0] at
    q_{n+1} (dense) or its factorization (banded) when the step converges and projects
    (:func:`_velocity`; :func:`consistent_accelerations` reuses them), or empty arrays
    (not kept).
    """
    n, m = q.shape[0], lam.shape[0]
    N = n + m
    c1 = (1.0 - af) / (1.0 - am)
    bp, gp = h * h * beta * c1, h * gamma * c1
    a_base = (af * qdd - am * a) / (1.0 - am)
    dq_base = h * v + h * h * ((0.5 - beta) * a + beta * a_base)
    v_base = v + h * ((1.0 - gamma) * a + gamma * a_base)
    nq = ground_q.shape[0]
    qe = np.empty(n + nq)
    qe[n:] = ground_q
    ve = np.zeros(n_ext)
    ae = np.zeros(n_ext)
    x = np.empty(N)
    x[:n] = qdd
    x[n:] = lam
    r = np.empty(N)
    chk = np.empty(N)
    phi = np.empty(m)
    contraction = policy == CONTRACTION
    need = policy == FULL or policy == ONCE_PER_STEP or status[0] == 0
    it = 0
    prev = np.inf
    status[1] = 0
    by_scale = scaled.shape[0] == 5
    floor = 0.0
    if by_scale:    # the rounding floor of q'' (solvers/newton.py scaled_increment_error)
        qmax = 1.0
        for i in range(n):
            qmax = max(qmax, abs(q[i]))
        floor = scaled[3] * qmax / bp
    fresh = False   # a factorization made in this step (the estimate uses no other, but for kept ones)
    prev_error = np.inf
    last_step = np.inf  # scaled size of the last correction (the contraction's denominator)
    theta = kept[2] if contraction and status[0] == 1 else 0.0   # contraction of the factorization at hand
    F = np.empty(n + 1)
    dx = np.empty(N)
    estimated = False
    while True:
        for i in range(n):
            qe[i] = q[i] + dq_base[i] + bp * x[i]
            ve[i] = v_base[i] + gp * x[i]
            ae[i] = x[i]
        for attempt in range(2):
            shortest = evaluate_all(qe, ve, ae, x[n:], 1.0, gp, bp, 1.0, need, layout, vsize, bsize, vec, blk, phi,
                                    ib, fb, tb, tab)
            stats[3] += 1
            if shortest == 0.0:
                status[2] = it
                return ZERO_LENGTH, x, np.nan, chk, qe[:n].copy(), v, a
            F[:] = 0.0
            _sum_into(vec, vec_index, F)
            norm = 0.0
            for i in range(n):
                r[i] = chk[i] = F[i]
                norm += F[i] * F[i]
            for i in range(m):
                chk[n + i] = phi[i]
                r[n + i] = phi[i] / bp
                norm += phi[i] * phi[i]
            norm = np.sqrt(norm)
            if not np.isfinite(norm):
                status[2] = it
                return NOT_FINITE, x, norm, chk, qe[:n].copy(), v, a
            if attempt == 1:    # the same iterate again, for its matrix
                break
            converged = norm == 0.0 or (not by_scale and norm < tol)
            if not by_scale and status[1] > 0:
                rate = norm / prev
            else:
                rate = np.inf
            estimated = False   # dx holds the correction of the factorization at hand at this iterate
            if by_scale and not converged and status[0] == 1 and (fresh or policy > 0 or contraction):
                # the iterate's error estimated by the correction of the factorization at hand
                dx = _solve(LU, piv, -r, band)
                estimated = True
                error = _scaled_error(x, dx, n, scaled, floor)
                if status[1] > 0:   # against the last correction made with the same factorization
                    rate = error / last_step
                    theta = rate
                if contraction and status[1] > 0 and theta <= kept[0]:
                    # a contraction observed in this step: the corrected iterate's error is at
                    # most θ/(1 − θ) times the correction's (Hairer & Wanner II, sec. IV.8)
                    accept = theta / (1.0 - theta) * error <= 1.0
                else:
                    accept = error <= 1.0 and (not contraction or theta <= kept[0])
                # stagnation at the rounding level (solvers/newton.py ``stagnated``): full Newton,
                # or the contraction policy with a matrix of the last iterate
                if (not accept and it >= 2 and error <= scaled[4] and error > 0.5 * prev_error
                        and (policy == FULL or contraction and fresh and status[1] == 1)):
                    accept = True
                    if error > 1.0:
                        stats[4] += 1
                if accept:
                    x += dx
                    for i in range(n):
                        qe[i] = q[i] + dq_base[i] + bp * x[i]
                        ve[i] = v_base[i] + gp * x[i]
                        ae[i] = x[i]
                    converged = True
                else:
                    prev_error = error
            elif not by_scale and status[1] > 0:
                theta = rate
            if need or converged or it >= max_iter:
                break
            # the factorization at hand is of another iterate: refresh it here for full Newton,
            # if the residual grew, if it is old enough, or if it contracts too slowly
            if not (policy == FULL or (norm > prev and status[1] > 0) or (policy > 0 and status[1] >= policy)
                    or contraction and (theta > kept[0] or status[1] >= kept[1])):
                break
            need = True
        if converged:
            if contraction:
                kept[2] = theta
            v1 = _velocity(project, x, v_base, gp, qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib,
                           fb, tb, tab, LU, piv, status[0] == 1, P, Ppiv, td, rates)
            if v1.shape[0] == 0 or not np.all(np.isfinite(v1)):
                status[2] = it
                return SINGULAR_PROJECTION, x, norm, chk, qe[:n].copy(), v, a
            status[2] = it
            return CONVERGED, x, norm, chk, qe[:n].copy(), v1, a_base + c1 * x[:n]
        if it >= max_iter:
            status[2] = it
            return MAX_ITER, x, norm, chk, qe[:n].copy(), v, a
        if need:
            LU[:, :] = _matrix(blk, pos, N, band)
            stats[1] += 1
            stats[2] += 1
            status[0] = 1
            status[1] = 0
            if not _factor(LU, piv, band):
                status[0] = 0
                status[2] = it
                return SINGULAR, x, norm, chk, qe[:n].copy(), v, a
            fresh = True
            if policy != FULL:      # the estimates of another kept factorization do not compare; full
                prev_error = np.inf     # Newton's, one a fresh matrix each, do (solvers/newton.py ``stagnated``)
            theta = 0.0
            dx = _solve(LU, piv, -r, band)
        elif not estimated:     # (else the error estimate's correction is this iterate's: no second solve)
            dx = _solve(LU, piv, -r, band)
        if by_scale:
            last_step = _scaled_error(x, dx, n, scaled, floor)
        x += dx
        it += 1
        stats[0] += 1
        status[1] += 1
        prev = norm
        # full Newton: the residual first, the matrix if the iterate is not accepted — at the
        # second iterate only after a solve that ended there (else it rarely is)
        need = policy == FULL and it == 1 and status[2] != 1


@njit(cache=True)
def _projection_matrix(qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib, fb, tb, tab, matrix):
    """[M Φ_qᵀ; Φ_q 0] at qe (in the Newton matrix's storage, :func:`_matrix`): the Newton matrix with c_M = 1, c_D = c_K = 0, from the
    slots that contribute to it (not :data:`FORCE_SLOTS`, whose block parts are zeroed).
    ve, ae: buffers (zeroed here).  ``matrix`` is True, passed as a variable (a literal
    would compile evaluate_all a second time: docs/performance.md, "Cold start")."""
    reduced = layout.copy()
    for s in FORCE_SLOTS:
        if reduced[s, 0] >= 0:
            blk[reduced[s, 1]:reduced[s, 1] + bsize[s]] = 0.0
            reduced[s, 0] = -1
    ve[:] = 0.0
    ae[:] = 0.0
    evaluate_all(qe, ve, ae, np.zeros(m), 1.0, 0.0, 0.0, 1.0, matrix, reduced, vsize, bsize, vec, blk, phi,
                 ib, fb, tb, tab)
    return _matrix(blk, pos, n + m, band)


@njit(cache=True)
def _velocity(project, x, v_base, gp, qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib, fb, tb,
              tab, LU, piv, factored, P, Ppiv, td, rates):
    """q'_{n+1} = v_base + γ' q''; projected mass-orthogonally onto Φ_q q' + Φ_t = 0 if asked:
    [M Φ_qᵀ; Φ_q 0] [Δq'; μ] = [0; −Φ_q q' − Φ_t] (Φ_t of driven constraints from the
    rates ``td`` on the slots of ``rates``, :func:`_time_rates`).  A dense matrix with the Newton factorization
    at hand (``factored``) and more than :data:`PROJECTION_LU_LIMIT` unknowns is solved by
    refinement with it (:func:`_refine`), else (or if that does not converge) by a
    factorization of its own (:func:`_projection_factorized`).  An empty array: the
    projection matrix is singular.  P, Ppiv (if of the shapes of LU, piv): receive the
    projection matrix's factorization where :func:`_projection_factorized`, else the
    matrix, for :func:`consistent_accelerations`."""
    v1 = v_base + gp * x[:n]
    if not project or m == 0:
        return v1
    N = n + m
    A = _projection_matrix(qe, ve, ae, n, m, layout, vsize, bsize, pos, band, vec, blk, phi, ib, fb, tb, tab,
                           project)
    keep = P.shape[0] == N
    own_lu = _projection_factorized(band, N)
    if keep and not own_lu:
        P[:, :] = A
    rhs = np.zeros(N)
    if band.shape[0] == 0:
        for i in range(m):
            s = 0.0
            for j in range(n):
                s += A[n + i, j] * v1[j]
            rhs[n + i] = -s
    else:
        z = np.zeros(N)
        z[:n] = v1
        y = _banded.matvec(A, band, z)
        for i in range(m):
            rhs[n + i] = -y[n + i]
    if td.shape[0] > 0:     # − Φ_t at q_{n+1}
        # no matrix: ``not project`` (False) as a variable, a literal would compile evaluate_all twice
        phi_t = _time_rates(qe, ve, ae, m, rates, vsize, bsize, vec, blk, ib, fb, td, tab, not project)
        for i in range(m):
            rhs[n + i] -= phi_t[i]
    if factored and not own_lu:
        z = _refine(A, LU, piv, rhs, v1, n, band)
        if z.shape[0] == N:
            return v1 + z[:n]
    own = np.empty(N, dtype=np.int64)
    if not _factor(A, own, band):
        return np.empty(0)
    if keep and own_lu:
        P[:, :] = A
        Ppiv[:] = own
    return v1 + _solve(A, own, rhs, band)[:n]


@njit(cache=True)
def _time_rates(qe, ve, ae, m, rates, vsize, bsize, vec, blk, ib, fb, td, tab, matrix):
    """The driven constraints' slots (``rates``: the layout with the others removed)
    evaluated with their time arrays' rates ``td`` at qe: for Φ = Σ w_k(t) d_k(q) − s(t)
    (constraints/dot.py) the kernel with (ẇ, ṡ) gives Φ_t and, with ``matrix``, Φ_qt in
    the Jacobian blocks of blk; with (ẅ, s̈), Φ_tt.  Rows of other constraints are zero.
    ve, ae: the kernels' velocity and acceleration arguments (unused by these slots)."""
    phi = np.zeros(m)
    evaluate_all(qe, ve, ae, np.zeros(m), 0.0, 0.0, 0.0, 1.0, matrix, rates, vsize, bsize, vec, blk, phi, ib, fb, td,
                 tab)
    return phi


@njit(cache=True)
def _projection_factorized(band, N):
    """Whether the velocity projection factorizes [M Φ_qᵀ; Φ_q 0] (N unknowns) instead of
    refining with the Newton LU: banded always (chain-100: LAPACK's band LU 0.36 ms against
    0.06 ms a solve, the projection 1.21 ms refined against 0.95 ms with its own LU); dense
    up to :data:`PROJECTION_LU_LIMIT` unknowns, where LAPACK's LU (12 µs at 44 unknowns,
    64 µs at 110) costs less than the 6–8 sweeps of the refinement (a product and a
    back-substitution each: ≈ 2.2 µs at 44, ≈ 8 µs at 110), and the consistent
    accelerations at the same q solve with the same factorization (docs/performance.md,
    "The projection's own factorization").  A function of the storage and size alone, so
    the compiled loop and the per-step path make the same choice (the same bits)."""
    return band.shape[0] > 0 or N <= PROJECTION_LU_LIMIT


@njit(cache=True)
def consistent_accelerations(q, v, ground_q, n_ext, m, layout, vsize, bsize, vec_index, pos, band, vec, blk, ib, fb,
                             tb, tab, matrix, P, Ppiv, kept, td, tdd, rates):
    """q'' and λ from [M Φ_qᵀ; Φ_q 0] [q''; λ] = [Q − Q_v; γ] at (q, q') — solvers/initial.py
    ``ConsistentAccelerations`` for forces that do not depend on λ (the compiled loop's
    systems).  γ = −q'ᵀ (∂²Φ_i/∂q²) q' per equation, from the constraint slots'
    Newton-matrix blocks at λ = 1, c_K = 1 (each is Σ λ_i ∂²Φ_i/∂q² over its equations'
    coordinates); for driven constraints also − 2 Φ_qt q' − Φ_tt (constraints/dot.py
    ``gamma``), from the rates ``td`` (ẇ, ṡ) and ``tdd`` (ẅ, s̈) at t on the slots of
    ``rates`` (:func:`_time_rates`; empty td: none).  ``matrix``: True, as a variable.  Returns (False,
    …) when the matrix is singular.

    ``kept``: P, Ppiv already hold the factorization of [M Φ_qᵀ; Φ_q 0] at q — the
    velocity projection's, made by :func:`newton_step` at the same q — or, when the
    projection refined with the Newton LU instead (:func:`_projection_factorized`), the
    matrix itself; else the matrix is evaluated here.  A matrix is factorized here: the
    refinement with the Newton LU, tried here before, never reached the rounding level of
    q'' in its 8 sweeps on the slider-crank (its first error 3e-2 of q'', contraction
    ≈ 0.03 a sweep; ``benchmarks/projection_refinement.py``) and fell back to this
    factorization every step.  Same solution to rounding (tests/test_compiled_loop.py,
    tests/test_banded.py)."""
    n = q.shape[0]
    N = n + m
    qe = np.empty(n + ground_q.shape[0])
    qe[:n] = q
    qe[n:] = ground_q
    ve = np.zeros(n_ext)
    ve[:n] = v
    ae = np.zeros(n_ext)
    phi = np.empty(m)
    rhs = np.zeros(N)
    # Q − Q_v: the residual at q'' = 0, λ = 0
    evaluate_all(qe, ve, ae, np.zeros(m), 1.0, 0.0, 0.0, 1.0, not matrix, layout, vsize, bsize, vec, blk, phi,
                 ib, fb, tb, tab)
    F = np.zeros(n + 1)
    _sum_into(vec, vec_index, F)
    for i in range(n):
        rhs[i] = -F[i]
    # γ from the constraint slots alone
    constraints = layout.copy()
    for s in range(layout.shape[0]):
        if layout[s, 3] < 0:
            constraints[s, 0] = -1
    evaluate_all(qe, ve, ae, np.ones(m), 0.0, 0.0, 1.0, 1.0, matrix, constraints, vsize, bsize, vec, blk, phi,
                 ib, fb, tb, tab)
    for s in range(layout.shape[0]):
        if constraints[s, 0] < 0:
            continue
        w = bsize[s] // vsize[s]
        for e in range(vsize[s] // w):
            dofs = vec_index[layout[s, 0] + e * w:layout[s, 0] + (e + 1) * w]
            H = blk[layout[s, 1] + e * w * w:layout[s, 1] + (e + 1) * w * w]
            quad = 0.0
            for i in range(w):
                vi = ve[dofs[i]]
                if vi == 0.0:
                    continue
                for j in range(w):
                    quad += vi * H[i * w + j] * ve[dofs[j]]
            rhs[n + layout[s, 3] + e] = -quad
    if td.shape[0] > 0:     # − 2 Φ_qt q' − Φ_tt
        _time_rates(qe, ve, ae, m, rates, vsize, bsize, vec, blk, ib, fb, td, tab, matrix)
        for s in range(rates.shape[0]):
            if rates[s, 0] < 0:
                continue
            w = bsize[s] // vsize[s]
            for e in range(vsize[s] // w):
                dofs = vec_index[rates[s, 0] + e * w:rates[s, 0] + (e + 1) * w]
                Jqt = blk[rates[s, 2] + e * w:rates[s, 2] + (e + 1) * w]
                qtv = 0.0
                for i in range(w):
                    qtv += Jqt[i] * ve[dofs[i]]
                rhs[n + rates[s, 3] + e] -= 2.0 * qtv
        phi_tt = _time_rates(qe, ve, ae, m, rates, vsize, bsize, vec, blk, ib, fb, tdd, tab, not matrix)
        for i in range(m):
            rhs[n + i] -= phi_tt[i]
    if kept and _projection_factorized(band, N):
        x = _solve(P, Ppiv, rhs, band)
        return True, x[:n], x[n:]
    if kept:
        A = P
    else:
        A = _projection_matrix(qe, np.zeros(n_ext), np.zeros(n_ext), n, m, layout, vsize, bsize, pos, band, vec, blk,
                               phi, ib, fb, tb, tab, matrix)
    own = np.empty(N, dtype=np.int64)
    if not _factor(A, own, band):
        return False, rhs[:n], rhs[n:]
    x = _solve(A, own, rhs, band)
    return True, x[:n], x[n:]


@njit(cache=True)
def _refine(A, LU, piv, rhs, v1, n, band):
    """The solution z of A z = rhs by iterative refinement with the LU of another matrix B:
    z ← z + B⁻¹(rhs − A z).  The error obeys e ← (I − B⁻¹A) e, so the iteration converges
    when the spectral radius of B⁻¹(B − A) is below one, and its fixed point solves A z =
    rhs exactly (rhs − A z = 0).  Here A is the projection matrix [M Φ_qᵀ; Φ_q 0] at
    q_{n+1} and B the Newton matrix of this or an earlier step, [M + γ'D + β'K Φ̃_qᵀ; Φ̃_q 0],
    so B − A = O(h) plus the change of Φ_q since B was made.  Stops when the correction of
    q' is at the rounding level of q'_{n+1} (4 ε ‖q'‖∞); returns an empty array when a
    correction does not halve the one before or :data:`REFINEMENTS` do not suffice (the
    caller then factorizes A).  A, LU in the storage of ``band`` (:func:`_matrix`)."""
    N = A.shape[0]
    z = _solve(LU, piv, rhs, band)
    res = np.empty(N)
    scale = 0.0
    for i in range(n):
        scale = max(scale, abs(v1[i]))
    prev = np.inf
    for _ in range(REFINEMENTS):
        if band.shape[0] == 0:
            for i in range(N):
                s = rhs[i]
                for j in range(N):
                    s -= A[i, j] * z[j]
                res[i] = s
        else:
            Az = _banded.matvec(A, band, z)
            for i in range(N):
                res[i] = rhs[i] - Az[i]
        d = _solve(LU, piv, res, band)
        size = 0.0
        for i in range(N):
            z[i] += d[i]
        for i in range(n):
            size = max(size, abs(d[i]))
        if size <= 4.0 * 2.220446049250313e-16 * scale:
            return z
        if size > 0.5 * prev:
            break
        prev = size
    return np.empty(0)
