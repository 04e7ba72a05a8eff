"""One compiled call for a whole evaluation: the fast path of :meth:`~flexmbd.system.System.evaluate`.

:meth:`~flexmbd.system.System.evaluate` asks every group for its arrays and combines them in NumPy
(c_M M + c_D D + c_K K, products by λ, concatenation, two ``bincount``).  On a model of
three bodies that glue costs several times the element kernels (docs/performance.md,
"Where the time goes").  :class:`CompiledAssembly` instead holds every group's constant
arrays by slot (``kernels/assembly.py`` ``SLOTS``); one call of ``evaluate_all`` makes
each group's kernel write its contributions into buffers laid out exactly as the generic
path's concatenation, and a compiled scatter sums them; the two paths give the same
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
from .kinds import PlanarKind, SpatialKind
from .kernels import AVAILABLE

if AVAILABLE:
    from .kernels import assembly as _k


class Unsupported(Exception):
    """A group without a compiled part: the system uses the generic path."""


_I2, _F1, _F2 = np.zeros((0, 1), np.int64), np.zeros(0), np.zeros((0, 1))
_I1 = np.zeros(0, np.int64)
#: the constant arrays of an absent slot (same types as a present one's)
_EMPTY = (
    (_I2, _I2, _F1, np.zeros((0, 3, 3))),        # spatial bodies: config, dofs, mass, inertia
    (_I2, _F2),                                  # planar bodies: dofs, diag(m, m, I_z)
    (_F1, _F1), (_F1, _F1),                      # gravity: mass, g
    (_I2, _I2, _F2, _F2, _F1, _F1, _F1, _I1),    # springs: config, dofs, u_i, u_j, k, c, l0, tension only
    (_I2, _I2, _F2, _F2, _F1, _F1, _F1, _I1),
    (_I2, _F2, _F2, _I1), (_I2, _F2, _F2, _I1),  # point forces: config, u, f, body-fixed
    (_I2,),                                      # normalisation: config
    # dots: slot dofs, u, marker type, side, sign, marker tensors C(u)
    (_I2, _F2, _I1, _I1, _F1, np.zeros((0, 3, 4, 4))), (_I2, _F2, _I1, _I1, _F1, np.zeros((0, 3, 4, 4))),
)


def _i(x):
    return np.ascontiguousarray(x, dtype=np.int64)


def _f(x):
    return np.ascontiguousarray(x, dtype=float)


def _slot(g):
    """(slot, constant arrays, function of t giving its time-dependent arrays or None,
    whether that function is constant) of group g."""
    kind = getattr(g, "kind", None)
    planar = kind is PlanarKind
    if type(g) is SpatialBodyGroup:
        return _k.S_SB, (_i(g.config_index), _i(g.dof_index), _f(g.mass), _f(g.inertia)), None, True
    if type(g) is PlanarBodyGroup:
        return _k.S_PB, (_i(g.dof_index), _f(g.diag)), None, True
    if type(g) is NormalizationGroup:
        return _k.S_NO, (_i(g.config_index),), None, True
    if kind not in (SpatialKind, PlanarKind):
        raise Unsupported(f"{type(g).__name__} of {getattr(kind, 'name', '?')} bodies")
    if type(g) is GravityGroup:
        return (_k.S_GP if planar else _k.S_GS), (_f(g.mass), _f(g.g)), None, True
    if type(g) is SpringDamperGroup and not g.law_index:
        def fa(t):
            return g._fa0 if g.constant_actuators else np.array([a.derivatives(t)[0] for a in g.actuators])
        return ((_k.S_SP if planar else _k.S_SS),
                (_i(g.config_index), _i(g.dof_index), _f(g.mi.u), _f(g.mj.u), _f(g.k), _f(g.c), _f(g.l0),
                 _i(g.tension_only)), fa, g.constant_actuators)
    if type(g) is PointForceGroup:
        def scales(t):
            return g._s if g.constant else _scales(g.functions, t)
        return ((_k.S_PP if planar else _k.S_PS),
                (_i(g.config_index), _f(g.points.u), _f(g.f), _i(g.body_fixed)), scales, g.constant)
    if type(g) is DotConstraintGroup:
        def terms(t):
            if not g.laws:
                return g.w0, g.s0
            w, _, _, s, _, _ = g._time_terms(t)
            return w, s
        return ((_k.S_DP if planar else _k.S_DS),
                (_i(g.slot_dof), _f(g.markers.u), _i(g.markers.mtype), _i(g.side_flat), _f(g.sign_flat),
                 _f(g.marker_tensors)), terms, not g.laws)
    raise Unsupported(type(g).__name__)


class CompiledAssembly:
    """The constant arrays of every group by slot, the layout of their contributions in
    the assembly buffers (as the generic path concatenates them) and the functions of
    time (actuator forces, load scales, driver terms) evaluated in Python per call."""

    def __init__(self, system):
        s = system
        groups = s.body_groups + s.force_groups + s.constraint_groups
        ns = len(_k.SLOTS)
        self.layout = np.full((ns, 4), -1, dtype=np.int64)
        self.vsize = np.zeros(ns, dtype=np.int64)
        self.bsize = np.zeros(ns, dtype=np.int64)
        data = list(_EMPTY)
        functions = {}
        vo = bo = 0
        jo = sum(g.dof_index.size * g.dof_index.shape[1] for g in groups)
        rows = dict(zip(map(id, s.constraint_groups), s.constraint_offsets))
        for g in groups:
            slot, arrays, fun, constant = _slot(g)
            if self.layout[slot, 0] >= 0:
                raise Unsupported(f"two groups in slot {_k.SLOTS[slot]}")
            size, width = g.dof_index.size, g.dof_index.shape[1]
            self.layout[slot, :2] = vo, bo
            self.vsize[slot], self.bsize[slot] = size, size * width
            if id(g) in rows:
                self.layout[slot, 2:] = jo, rows[id(g)]
                jo += 2 * size
            vo += size
            bo += size * width
            data[slot] = arrays
            if fun is not None:
                functions[slot] = (fun, constant)
        self.data = tuple(data)
        #: constraints that depend on time (drivers): Φ_t ≠ 0
        self.rheonomic = any(getattr(g, "laws", None) for g in s.constraint_groups)
        self.vec, self.blk = np.zeros(vo), np.zeros(jo)
        self.n, self.m, self.dense = s.n, s.m, s.dense
        self.n_ext = s.n_ext
        self.ground_q = _f(s._ground_q)
        self.vec_index = _i(s._vec_index)
        self.pos = _i(s._dense_pos if s.dense else s._pos)
        self.size = (s.n + s.m) ** 2 if s.dense else s.nnz
        self.pattern = s._pattern
        self._system = s
        # functions of time by position in time_values(); the constant ones evaluated once
        const = [_F1, _F1, _F1, _F1, np.zeros((0, 2)), _F1, np.zeros((0, 2)), _F1]
        self._varying = []
        for slot, j in ((_k.S_SS, 0), (_k.S_SP, 1), (_k.S_PS, 2), (_k.S_PP, 3), (_k.S_DS, 4), (_k.S_DP, 6)):
            if slot not in functions:
                continue
            fun, constant = functions[slot]
            if constant:
                value = fun(0.0)
                if j in (4, 6):
                    const[j], const[j + 1] = _f(value[0]), _f(value[1])
                else:
                    const[j] = _f(value)
            else:
                self._varying.append((j, fun))
        self._constant = tuple(const)

    def time_values(self, t):
        """(f_a spatial, f_a planar, load scales spatial, planar, driver w, s spatial, w, s planar)."""
        if not self._varying:
            return self._constant
        out = list(self._constant)
        for j, fun in self._varying:
            if j in (4, 6):
                w, s = fun(t)
                out[j], out[j + 1] = _f(w), _f(s)
            else:
                out[j] = _f(fun(t))
        return tuple(out)

    def evaluate(self, qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix):
        Phi = np.empty(self.m)
        shortest = _k.evaluate_all(qe, ve, ae, _f(lam), cM, cD, cK, load_factor, matrix, self.layout, self.vsize,
                                   self.bsize, self.vec, self.blk, Phi, self.data, self.time_values(t))
        if shortest == 0.0:
            self._raise_zero_length(qe, ve, t)
        F, data = _k.scatter(self.vec, self.vec_index, self.n, self.blk, self.pos, self.size, matrix)
        if not matrix:
            return F, Phi, None
        if self.dense:
            N = self.n + self.m
            return F, Phi, data.reshape(N, N)
        A = self.pattern.copy()
        A.data = data
        return F, Phi, A

    def _raise_zero_length(self, qe, ve, t):
        for g in self._system.force_groups:
            if type(g) is SpringDamperGroup:
                g.evaluate(qe, ve, t, False)  # raises the error naming the element
        raise FloatingPointError("a spring-damper has zero length: its direction is undefined")


def compiled_assembly(system):
    """A :class:`CompiledAssembly` for ``system``, or None if a group has no compiled part."""
    if not AVAILABLE or not system.additive:
        return None
    try:
        return CompiledAssembly(system)
    except Unsupported:
        return None
