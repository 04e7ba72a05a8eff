"""One compiled call for a whole evaluation: the fast path of :meth:`~flexmbd.system.System.evaluate`.

:meth:`~flexmbd.system.System.evaluate` asks every group for its contribution and combines them in NumPy
(products by c_M, c_D, c_K, concatenation, two ``bincount``).  On a model of three bodies
that glue costs several times the element kernels (docs/performance.md, "Where the time
goes").  :class:`CompiledAssembly` instead asks every group for its compiled slot
(:meth:`flexmbd.groups.Group.compiled_slot`: the slot of ``kernels/assembly.py``
``SLOTS`` it fills, its constant arrays, and a function of time for its time-dependent
values); one call of ``evaluate_all`` makes each group's kernel write its contributions
into buffers laid out exactly as the generic path's concatenation, and a compiled
scatter sums them; the two paths give the same numbers (tests/test_compiled_assembly.py)
to rounding.

A system takes the generic path when a group has no compiled slot, when its coordinates
are not all vectors (Lie-group nodes need the tangent operator), or when Numba is
unavailable; it says so once per reason (logger ``flexmbd``) and keeps the reason in
``System.assembly`` (and every Result's ``stats["assembly"]``).
"""
from __future__ import annotations

import logging

import numpy as np

from .groups import Unsupported
from .kernels import AVAILABLE

if AVAILABLE:
    from .kernels import assembly as _k

LOG = logging.getLogger("flexmbd")
_REPORTED: set[str] = set()

_I2, _F1, _F2 = np.zeros((0, 1), np.int64), np.zeros(0), np.zeros((0, 1))
_I1 = np.zeros(0, np.int64)
#: the constant arrays of an absent slot (same types as a present one's), by slot name
_EMPTY = {
    "spatial_bodies": (_I2, _I2, _F1, np.zeros((0, 3, 3))),        # config, dofs, mass, inertia
    "planar_bodies": (_I2, _F2),                                   # dofs, diag(m, m, I_z)
    "gravity_spatial": (_F1, _F1), "gravity_planar": (_F1, _F1),   # mass, g
    "springs_spatial": (_I2, _I2, _F2, _F2, _F1, _F1, _F1, _I1),   # config, dofs, u_i, u_j, k, c, l0, tension only
    "springs_planar": (_I2, _I2, _F2, _F2, _F1, _F1, _F1, _I1),
    "points_spatial": (_I2, _F2, _F2, _I1), "points_planar": (_I2, _F2, _F2, _I1),  # config, u, f, body-fixed
    "normalization": (_I2,),                                       # config
    # dots: slot dofs, u, marker type, side, sign, marker tensors C(u)
    "dots_spatial": (_I2, _F2, _I1, _I1, _F1, np.zeros((0, 3, 4, 4))),
    "dots_planar": (_I2, _F2, _I1, _I1, _F1, np.zeros((0, 3, 4, 4))),
    "torques_spatial": (_I2, _F2, _I1), "torques_planar": (_I2, _F2, _I1),   # config, torque, body-fixed
    # rotational springs: config, dofs, f_i, g_i, f_j, k, c
    "rotational_springs_spatial": (_I2, _I2, _F2, _F2, _F2, _F1, _F1),
    "rotational_springs_planar": (_I2, _I2, _F2, _F2, _F2, _F1, _F1),
}


def _empty_values(name):
    return (np.zeros((0, 2)), _F1) if _k.TIME_SLOTS[name] == 2 else (_F1,)


def _f(x):
    return np.ascontiguousarray(x, dtype=float)


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
        data = [_EMPTY[name] for name in _k.SLOTS]
        functions = {}
        vo = bo = 0
        jo = sum(g.dof_index.size * g.dof_index.shape[1] for g in groups)
        rows = dict(zip(map(id, s.constraint_groups), s.constraint_offsets))
        self._groups = groups
        for g in groups:
            if g.coupling_index is not None:
                raise Unsupported(f"{_describe(g)}: its forces depend on multipliers")
            try:
                cs = g.compiled_slot()
            except Unsupported as exc:
                raise Unsupported(f"{_describe(g)}: {exc}") from None
            slot = _k.SLOTS.index(cs.name)
            if self.layout[slot, 0] >= 0:
                raise Unsupported(f"two groups in slot {cs.name}")
            size, width = g.dof_index.size, g.dof_index.shape[1]
            self.layout[slot, :2] = vo, bo
            self.vsize[slot], self.bsize[slot] = size, size * width
            if id(g) in rows:
                self.layout[slot, 2:] = jo, rows[id(g)]
                jo += 2 * size
            vo += size
            bo += size * width
            data[slot] = cs.arrays
            if cs.values is not None:
                functions[cs.name] = (cs.values, cs.constant)
        self.data = tuple(data)
        #: constraints that depend on time (drivers): Φ_t ≠ 0
        self.rheonomic = any(getattr(g, "laws", None) for g in s.constraint_groups)
        self.vec, self.blk = np.zeros(vo), np.zeros(jo)
        self.n, self.m, self.dense = s.n, s.m, s.dense
        self.n_ext = s.n_ext
        self.ground_q = _f(s._ground_q)
        self.vec_index = np.ascontiguousarray(s._vec_index, dtype=np.int64)
        self.pos = np.ascontiguousarray(s._dense_pos if s.dense else s._pos, dtype=np.int64)
        self.size = (s.n + s.m) ** 2 if s.dense else s.nnz
        self.pattern = s._pattern
        self._system = s
        # functions of time by their place in time_values(); the constant ones evaluated once
        const, self._varying = [], []
        for name, count in _k.TIME_SLOTS.items():
            j = len(const)
            const += list(_empty_values(name))
            if name not in functions:
                continue
            fun, constant = functions[name]
            if constant:
                const[j:j + count] = _values(fun(0.0), count)
            else:
                self._varying.append((j, count, fun))
        self._constant = tuple(const)

    def time_values(self, t):
        """The time-dependent arrays of every slot of ``TIME_SLOTS``, in order."""
        if not self._varying:
            return self._constant
        out = list(self._constant)
        for j, count, fun in self._varying:
            out[j:j + count] = _values(fun(t), count)
        return tuple(out)

    def evaluate(self, qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix):
        Phi = np.empty(self.m)
        shortest = _k.evaluate_all(qe, ve, ae, _f(lam), cM, cD, cK, load_factor, matrix, self.layout, self.vsize,
                                   self.bsize, self.vec, self.blk, Phi, self.data, self.time_values(t))
        if shortest == 0.0:
            self.raise_undefined(qe, ve, t)
        F, data = _k.scatter(self.vec, self.vec_index, self.n, self.blk, self.pos, self.size, matrix)
        if not matrix:
            return F, Phi, None
        if self.dense:
            N = self.n + self.m
            return F, Phi, data.reshape(N, N)
        A = self.pattern.copy()
        A.data = data
        return F, Phi, A

    def raise_undefined(self, qe, ve, t):
        """The error of the element whose direction or angle is undefined (a spring of zero
        length, a rotational spring with f_j along its axis), raised by its group."""
        for g in self._system.force_groups:
            g.evaluate(qe, ve, t, False)   # raises the error naming the element
        raise FloatingPointError("a force element has an undefined direction")


def _values(v, count):
    if count == 1:
        return [_f(v)]
    return [_f(x) for x in v]


def _describe(g) -> str:
    names = list(getattr(g, "element_names", []))
    which = ", ".join(names[:3]) + (" …" if len(names) > 3 else "")
    return f"{type(g).__name__} ({which})" if which else type(g).__name__


def compiled_assembly(system):
    """(A :class:`CompiledAssembly` for ``system`` or None, "compiled" or the reason for the
    generic path)."""
    if not AVAILABLE:
        reason = "Numba is not available (FLEXMBD_NUMBA=0 or not installed)"
    elif not system.additive:
        kinds = sorted({b.kind.name for b in system.model.bodies if not b.kind.additive})
        reason = f"nodes of kind {', '.join(kinds)} (Lie group: the Newton matrix needs the tangent operator)"
    else:
        try:
            return CompiledAssembly(system), "compiled"
        except Unsupported as exc:
            reason = str(exc)
    if reason not in _REPORTED:
        _REPORTED.add(reason)
        LOG.info("generic (NumPy) assembly: %s", reason)
    return None, f"generic: {reason}"
