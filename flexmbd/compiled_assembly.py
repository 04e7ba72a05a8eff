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

from . import kernels as _kernels
from .groups import JACOBIAN_TERMS, EvalContext, Unsupported
from .kernels import AVAILABLE

if AVAILABLE:
    from .kernels import assembly as _k

    #: the number of every slot in kernels/assembly.py ``SLOTS`` (a lookup, not a search)
    _SLOT = {name: i for i, name in enumerate(_k.SLOTS)}

LOG = logging.getLogger("flexmbd")
_REPORTED: set[str] = set()

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
        self.tab = np.zeros((ns, _k.MAX_ARGS, 5), dtype=np.int64)
        ints, floats = _Buffer(np.int64), _Buffer(float)
        functions, rate_functions = {}, {}
        vo = bo = 0
        co = sum(g.dof_index.size * g.dof_index.shape[1] for g in groups)      # coupling blocks ∂F/∂λ
        jo = co + sum(g.dof_index.size * g.coupling_index.shape[1] for g in groups if g.coupling_index is not None)
        rows = dict(zip(map(id, s.constraint_groups), s.constraint_offsets))
        self._groups = groups
        #: groups without a compiled slot, evaluated in NumPy into their parts of the same
        #: buffers (the generic path's layout): [(group, why, offsets)]
        self.generic = []
        for g in groups:
            size, width = g.dof_index.size, g.dof_index.shape[1]
            why = None
            if g.coupling_index is not None:
                why = "its forces depend on multipliers"
            else:
                try:
                    cs = g.compiled_slot()
                    if cs.name not in _SLOT:
                        why = f"no compiled slot {cs.name}"
                    else:
                        name = self._free_slot(cs.name)
                        if name is None:
                            why = f"slot {cs.name} is taken by other groups"
                except Unsupported as exc:
                    why = str(exc)
            if why is not None:
                at = dict(vo=vo, bo=bo, size=size, bsize=size * width)
                if g.coupling_index is not None:
                    at.update(co=co, csize=size * g.coupling_index.shape[1])
                    co += at["csize"]
                if id(g) in rows:
                    at.update(jo=jo, row=int(rows[id(g)]), n=len(g))
                    jo += 2 * size
                self.generic.append((g, why, at))
                vo += size
                bo += size * width
                continue
            slot = _SLOT[name]
            self.layout[slot, :2] = vo, bo
            self.vsize[slot], self.bsize[slot] = size, size * width
            if id(g) in rows:
                self.layout[slot, 2:] = jo, rows[id(g)]
                jo += 2 * size
            vo += size
            bo += size * width
            codes = _k.SLOT_ARGS[name]
            if len(cs.arrays) != len(codes):
                raise ValueError(f"{_describe(g)}: slot {cs.name} takes {len(codes)} arrays, got {len(cs.arrays)}")
            for j, (x, code) in enumerate(zip(cs.arrays, codes)):
                buffer = ints if code[0] == "i" else floats
                self.tab[slot, j] = _entry(buffer.add(x, code, (g, cs.name, j)))
            if cs.values is not None:
                functions[name] = (cs.values, cs.constant)
            if cs.rates is not None and not cs.constant:
                rate_functions[name] = cs.rates
        self.ib, self.fb = ints.array(), floats.array()
        #: constraints that depend on time (drivers): Φ_t ≠ 0
        self.rheonomic = any(getattr(g, "laws", None) for g in s.constraint_groups)
        #: the slots of driven constraints and their rates' functions (CompiledSlot.rates):
        #: the layout with every other slot removed (kernels/assembly.py ``_time_rates``)
        self._rates = list(rate_functions.items())
        self.rate_layout = self.layout.copy()
        self.rate_layout[[i for i, name in enumerate(_k.SLOTS) if name not in rate_functions], 0] = -1
        #: whether Φ_t, Φ_qt, Φ_tt of every driven constraint are evaluated in compiled code
        self.rates_compiled = len(self._rates) == sum(1 for g in s.constraint_groups if getattr(g, "laws", None))
        self.vec, self.blk = np.zeros(vo), np.zeros(jo)
        self.n, self.m, self.dense = s.n, s.m, s.dense
        self.n_ext = s.n_ext
        self.ground_q = _f(s._ground_q)
        self.vec_index = np.ascontiguousarray(s._vec_index, dtype=np.int64)
        self.pos = np.ascontiguousarray(s._dense_pos if s.dense else s._pos, dtype=np.int64)
        self.size = (s.n + s.m) ** 2 if s.dense else s.nnz
        self.pattern = s._pattern
        self._system = s
        # the arrays that depend on time, in tb: the constant ones evaluated once, the
        # others laid out behind them at the first call of time_values() and then
        # overwritten in place at every call
        constant, self._varying, self._laid_out = _Buffer(float), [], False
        for name, (fun, is_constant) in functions.items():
            if is_constant:
                slot, j0 = _SLOT[name], len(_k.SLOT_ARGS[name])
                for j, (x, code) in enumerate(zip(_values(fun(0.0), len(_k.TIME_ARGS[name])), _k.TIME_ARGS[name])):
                    self.tab[slot, j0 + j] = _entry(constant.add(x, code, f"slot {name} time array {j}"))
            else:
                self._varying.append((name, fun))
        self._constant_values = constant
        self.tb = constant.array()

    def _free_slot(self, name):
        """``name`` or the first free numbered copy of it (kernels/assembly.py ``COPIES``:
        one group per node kind), None when all are taken."""
        count = getattr(_k, "COPIES", {}).get(name, 1)
        for k in range(count):
            candidate = name if k == 0 else f"{name}#{k + 1}"
            if self.layout[_SLOT[candidate], 0] < 0:
                return candidate
        return None

    def time_values(self, t):
        """The flat buffer of the time-dependent arrays (``TIME_ARGS``) at time t."""
        if not self._varying:
            return self.tb
        if not self._laid_out:
            buffer = _Buffer(float)
            buffer.parts, buffer.size = list(self._constant_values.parts), self._constant_values.size
            self._slices, self._slot_slices = [], {}
            for name, fun in self._varying:
                slot, j0, codes = _SLOT[name], len(_k.SLOT_ARGS[name]), _k.TIME_ARGS[name]
                for j, (x, code) in enumerate(zip(_values(fun(t), len(codes)), codes)):
                    entry = buffer.add(x, code, f"slot {name} time array {j}")
                    self.tab[slot, j0 + j] = _entry(entry)
                    self._slices.append((entry[0], entry[0] + int(np.prod(entry[1]))))
                    self._slot_slices.setdefault(name, []).append(self._slices[-1])
            self.tb, self._laid_out = buffer.array(), True
            return self.tb
        k = 0
        for name, fun in self._varying:
            for x in _values(fun(t), len(_k.TIME_ARGS[name])):
                lo, hi = self._slices[k]
                if x.size != hi - lo:
                    raise ValueError(f"slot {name}: a time-dependent array changed size ({x.size}, was {hi - lo})")
                self.tb[lo:hi] = x.ravel()
                k += 1
        return self.tb

    def rate_values(self, t) -> tuple[np.ndarray, np.ndarray]:
        """The first and second time derivatives of the driven constraints' time arrays at
        t, in buffers laid out as :meth:`time_values`'s (zero elsewhere): the ``td``, ``tdd``
        of kernels/assembly.py ``_time_rates``.  Empty buffers when no slot has rates."""
        if not self._rates:
            return np.zeros(0), np.zeros(0)
        if not self._laid_out:
            self.time_values(t)
        first, second = np.zeros(self.tb.size), np.zeros(self.tb.size)
        for name, fun in self._rates:
            codes = _k.TIME_ARGS[name]
            d1, d2 = fun(t)
            for (lo, hi), x1, x2 in zip(self._slot_slices[name], _values(d1, len(codes)), _values(d2, len(codes))):
                first[lo:hi], second[lo:hi] = x1.ravel(), x2.ravel()
        return first, second

    def evaluate(self, qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix, set_valued=False):
        Phi = np.empty(self.m)
        shortest = _k.evaluate_all(qe, ve, ae, _f(lam), cM, cD, cK, load_factor, matrix, self.layout, self.vsize,
                                   self.bsize, self.vec, self.blk, Phi, *self.arrays(t))
        if shortest == 0.0:
            self.raise_undefined(qe, ve, t)
        if self.generic:
            self._generic(EvalContext(qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix, frozenset(JACOBIAN_TERMS),
                                      None, set_valued), Phi)
        F, data = _k.scatter(self.vec, self.vec_index, self.n, self.blk, self.pos, self.size, matrix)
        if not matrix:
            return F, Phi, None
        if self.dense:
            N = self.n + self.m
            return F, Phi, data.reshape(N, N)
        A = self.pattern.copy()
        A.data = data
        return F, Phi, A

    def _generic(self, ctx, Phi):
        """The groups without a compiled slot, into their parts of the buffers."""
        vec, blk = self.vec, self.blk
        for g, _, at in self.generic:
            c = g.contribute(ctx)
            vo, size = at["vo"], at["size"]
            vec[vo:vo + size] = c.F.ravel()
            if c.phi is not None:
                Phi[at["row"]:at["row"] + at["n"]] = c.phi
            if not ctx.matrix:
                continue
            bo = at["bo"]
            blk[bo:bo + at["bsize"]] = c.B.ravel() if c.B is not None else 0.0
            if "co" in at:
                blk[at["co"]:at["co"] + at["csize"]] = c.C.ravel() if c.C is not None else 0.0
            if "jo" in at:
                jo = at["jo"]
                blk[jo:jo + size] = c.Jq.ravel()
                blk[jo + size:jo + 2 * size] = c.JqT.ravel()

    def arrays(self, t):
        """The packed arrays of ``evaluate_all`` at time t: ints, floats, time values, table."""
        return self.ib, self.fb, self.time_values(t), self.tab

    def raise_undefined(self, qe, ve, t):
        """The error of the element whose direction or angle is undefined (a spring of zero
        length, a rotational spring with f_j along its axis), raised by its group."""
        for g in self._system.force_groups:
            g.evaluate(qe, ve, t, False)   # raises the error naming the element
        raise FloatingPointError("a force element has an undefined direction")


class _Buffer:
    """Arrays of one dtype packed one after the other into a flat buffer."""

    def __init__(self, dtype):
        self.dtype, self.parts, self.size = dtype, [], 0

    def add(self, x, code: str, what: str | tuple) -> tuple[int, tuple]:
        """Append ``x`` (``code``: dtype letter and ndim, e.g. "f2"); (offset, shape).
        ``what`` names the array if it is wrong: a text, or (group, slot name, argument
        number), described only then."""
        x = np.ascontiguousarray(x, dtype=self.dtype)
        if x.ndim != int(code[1]):
            if isinstance(what, tuple):
                g, slot, j = what
                what = f"{_describe(g)}: slot {slot} array {j}"
            raise ValueError(f"{what}: expected {code[1]} dimensions, got shape {x.shape}")
        offset = self.size
        self.parts.append(x.ravel())
        self.size += x.size
        return offset, x.shape

    def array(self) -> np.ndarray:
        return np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=self.dtype)


def _entry(entry):
    """A row of the argument table: offset, then the shape padded to four dimensions."""
    offset, shape = entry
    return (offset, *shape, *[0] * (4 - len(shape)))


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
    if _kernels.COMPILING_IN_BACKGROUND:
        reason = "the kernels are being compiled in a background process (first run after an install)"
    elif not AVAILABLE:
        reason = "Numba is not available (FLEXMBD_NUMBA=0 or not installed)"
    elif not system.additive:
        kinds = sorted({b.kind.name for b in system.model.bodies if not b.kind.additive})
        reason = f"nodes of kind {', '.join(kinds)} (Lie group: the Newton matrix needs the tangent operator)"
    else:
        try:
            ca = CompiledAssembly(system)
        except Unsupported as exc:
            reason = str(exc)
        else:
            if len(ca.generic) == len(ca._groups):
                reason = "no group has a compiled slot"
            else:
                if not ca.generic:
                    return ca, "compiled"
                mixed = "compiled, with NumPy for " + "; ".join(f"{_describe(g)}: {why}" for g, why, _ in ca.generic)
                if mixed not in _REPORTED:
                    _REPORTED.add(mixed)
                    LOG.info("%s", mixed)
                return ca, mixed
    if reason not in _REPORTED:
        _REPORTED.add(reason)
        LOG.info("generic (NumPy) assembly: %s", reason)
    return None, f"generic: {reason}"
