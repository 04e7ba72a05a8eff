"""One compiled call per group: the fast path of :meth:`System.evaluate`.

:meth:`System.evaluate` asks every group for its arrays and combines them in NumPy
(c_M M + c_D D + c_K K, products by λ, concatenation, two ``bincount``).  On a model of
three bodies that glue costs several times the element kernels (docs/performance.md,
"Where the time goes").  :class:`CompiledAssembly` instead makes each group's compiled
kernel write its contributions into buffers laid out exactly as the generic path's
concatenation, and sums them with one compiled scatter; the two paths give the same
numbers (tests/test_compiled_assembly.py) to rounding.

It serves systems whose groups all have compiled parts (Euler-parameter and planar rigid
bodies, the normalisation, dot-product joints and drivers, linear spring-damper-actuators
and cables, point forces, gravity) with vector coordinates, and the full Newton matrix;
anything else (beams, Lie-group bodies, user force laws, a subset of Jacobian terms)
takes the generic path.
"""
from __future__ import annotations

import numpy as np

from .bodies.rigid import PlanarBodyGroup, SpatialBodyGroup
from .constraints.dot import DotConstraintGroup
from .constraints.normalization import NormalizationGroup
from .forces.loads import GravityGroup, PointForceGroup, _scales
from .forces.spring_damper import SpringDamperGroup
from .kinds import FrameKind
from .kernels import AVAILABLE

if AVAILABLE:
    from .kernels import assembly as _k
    from .kernels.dot import KIND_CODES


class Unsupported(Exception):
    """A group without a compiled part: the system uses the generic path."""


def _width(g):
    return g.dof_index.shape[1]


def _body_part(g, vec, blk):
    if type(g) is SpatialBodyGroup:
        cfg, dof = np.ascontiguousarray(g.config_index), np.ascontiguousarray(g.dof_index)

        def part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, scale):
            _k.spatial_bodies(cfg, dof, g.mass, g.inertia, qe, ve, ae, cM, cD, cK, matrix, vec, blk)
        return part
    if type(g) is PlanarBodyGroup:
        dof, diag = np.ascontiguousarray(g.dof_index), np.ascontiguousarray(g.diag)

        def part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, scale):
            _k.planar_bodies(dof, diag, ae, cM, matrix, vec, blk)
        return part
    raise Unsupported(type(g).__name__)


def _force_part(g, vec, blk):
    kind = getattr(g, "kind", None)
    if type(g) is SpringDamperGroup and kind.compiled and not g.law_index:
        cfg, dof = np.ascontiguousarray(g.config_index), np.ascontiguousarray(g.dof_index)
        kcode, names = KIND_CODES[kind.name], g.element_names

        def part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, scale):
            fa = g._fa0 if g.constant_actuators else np.array([a.derivatives(t)[0] for a in g.actuators])
            shortest = _k.linear_springs(kcode, cfg, dof, g.mi.u, g.mj.u, g.k, g.c, g.l0, fa, g.tension_only,
                                         qe, ve, cD, cK, matrix, vec, blk)
            if shortest == 0.0:
                g.evaluate(qe, ve, t, False)  # raises the error naming the element
        return part
    if type(g) is PointForceGroup and kind.compiled:
        cfg, kcode = np.ascontiguousarray(g.config_index), KIND_CODES[kind.name]

        def part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, scale):
            s = g._s if g.constant else _scales(g.functions, t)
            _k.point_loads(kcode, cfg, g.points.u, g.f, g.body_fixed, s, qe, scale, cK, matrix, vec, blk)
        return part
    if type(g) is GravityGroup and kind is not FrameKind:
        g_vec = np.ascontiguousarray(g.g, dtype=float)

        def part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, scale):
            _k.gravity(g.mass, g_vec, scale, matrix, vec, blk)
        return part
    raise Unsupported(type(g).__name__)


def _constraint_part(g, off, vec, blk, jac):
    n = len(g)
    if type(g) is NormalizationGroup:
        cfg = np.ascontiguousarray(g.config_index)

        def part(qe, lam, t, cK, matrix, hess, Phi):
            _k.normalization(cfg, qe, lam[off:off + n], cK, matrix, hess, Phi[off:off + n], vec, blk, jac)
        return part
    if type(g) is DotConstraintGroup and g.kind.compiled:
        kcode = KIND_CODES[g.kind.name]
        slot_dof, u, mtype = np.ascontiguousarray(g.slot_dof), g.markers.u, g.markers.mtype

        def part(qe, lam, t, cK, matrix, hess, Phi):
            if g.laws:
                w, _, _, s, _, _ = g._time_terms(t)
            else:
                w, s = g.w0, g.s0
            _k.dot_constraints(kcode, g.nv, slot_dof, u, mtype, g.side_flat, g.sign_flat, w, s, qe,
                               lam[off:off + n], cK, matrix, hess, Phi[off:off + n], vec, blk, jac)
        return part
    raise Unsupported(type(g).__name__)


class CompiledAssembly:
    """Buffers and per-group compiled calls of one frozen system (see module docstring)."""

    def __init__(self, system):
        s = system
        groups = s.body_groups + s.force_groups + s.constraint_groups
        vsize = [g.dof_index.size for g in groups]
        bsize = [g.dof_index.size * _width(g) for g in groups]
        jsize = [2 * g.dof_index.size for g in s.constraint_groups]
        self.vec = np.zeros(sum(vsize))
        self.blk = np.zeros(sum(bsize) + sum(jsize))
        vo = np.cumsum([0] + vsize)
        bo = np.cumsum([0] + bsize + jsize)
        views = [(self.vec[vo[i]:vo[i + 1]], self.blk[bo[i]:bo[i + 1]]) for i in range(len(groups))]
        nb, nf = len(s.body_groups), len(s.force_groups)
        self.bodies = [_body_part(g, *views[i]) for i, g in enumerate(s.body_groups)]
        self.forces = [(_force_part(g, *views[nb + i]), g.is_load) for i, g in enumerate(s.force_groups)]
        self.constraints = []
        for i, (g, off) in enumerate(zip(s.constraint_groups, s.constraint_offsets)):
            j = len(groups) + i
            jac = self.blk[bo[j]:bo[j + 1]]
            self.constraints.append(_constraint_part(g, int(off), *views[nb + nf + i], jac))
        self.n, self.m, self.nnz, self.dense = s.n, s.m, s.nnz, s.dense
        self.vec_index = np.ascontiguousarray(s._vec_index)
        self.pos = np.ascontiguousarray(s._dense_pos if s.dense else s._pos)
        self.size = s.n + s.m
        self.size = self.size * self.size if s.dense else s.nnz
        self.pattern = s._pattern

    def evaluate(self, qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix):
        hess = matrix and cK != 0.0
        for part in self.bodies:
            part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, 1.0)
        for part, is_load in self.forces:
            part(qe, ve, ae, lam, t, cM, cD, cK, matrix, hess, load_factor if is_load else 1.0)
        Phi = np.empty(self.m)
        for part in self.constraints:
            part(qe, lam, t, cK, matrix, hess, Phi)
        F, data = _k.scatter(self.vec, self.vec_index, self.n, self.blk, self.pos, self.size, matrix)
        if not matrix:
            return F, Phi, None
        if self.dense:
            N = self.n + self.m
            return F, Phi, data.reshape(N, N)
        A = self.pattern.copy()
        A.data = data
        return F, Phi, A


def compiled_assembly(system):
    """A :class:`CompiledAssembly` for ``system``, or None if a group has no compiled part."""
    if not AVAILABLE or not system.additive:
        return None
    try:
        return CompiledAssembly(system)
    except Unsupported:
        return None
