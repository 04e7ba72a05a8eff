"""Every joint and driver as scalar equations built from dot products of markers.

Each scalar equation between bodies i and j reads

    φ(q, t) = Σ_{k=1,2} w_k(t) X_k · Y_k − s(t),       X = x_a − x_b,  Y = y_a − y_b,

where x_a, x_b, y_a, y_b are markers (points, body-fixed directions or constant global
vectors) on body i or j.  The classical joint primitives of Haug (1989, ch. 9) and
Nikravesh (1988, ch. 7) are special cases: spherical (e_k·(r_j − r_i) = 0), dot-1
(a_i·a_j = 0), dot-2 (a_i·(r_j − r_i) = 0), distance ((r_j − r_i)² − L² = 0); a rotational
driver uses two terms, cos θ_d (g_i·f_j) − sin θ_d (f_i·f_j) = sin(θ − θ_d).

With markers giving x, ∂x/∂q and Σ g_i ∂²x_i/∂q² exactly, the constraint Jacobian Φ_q,
the constraint-force Jacobian ∂(Φ_qᵀ λ)/∂q and the acceleration right-hand side
γ = −(Φ_q q')_q q' − 2 Φ_qt q' − Φ_tt follow for every joint at once, vectorised over
all equations.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..groups import (CompiledSlot, ConstraintGroup, Unsupported, float_array, floating_frame_kinds,
                      floating_frame_layout, floating_frame_markers, int_array, kernel_suffix)
from ..nodes import CONSTANT, ZERO
from ..kernels import AVAILABLE as USE_KERNELS
from ..timefunctions import TimeFunction

if USE_KERNELS:
    from ..kernels.dot import assemble as _kernel_assemble
    from ..kernels.dot import jacobian_steps as _kernel_jacobian_steps

#: one marker slot: (side 0 = body i / 1 = body j, marker type, local vector u)
Slot = tuple
NO_SLOT: Slot = (0, ZERO, (0.0, 0.0, 0.0))


def const(vector) -> Slot:
    """A constant global vector (attached to no body)."""
    return (0, CONSTANT, tuple(np.asarray(vector, dtype=float)))


@dataclass
class Equation:
    """One scalar equation: terms [(X_a, X_b, Y_a, Y_b)], up to two of them."""

    owner: str
    label: str
    terms: list
    target: float = 0.0
    weights: tuple = (1.0, 0.0)


@dataclass
class TimeLaw:
    """Time dependence of some equations of a group (a driver).

    ``law(t)`` returns (w (2,), w' (2,), w'' (2,), s, s', s'') for equation ``index``.
    """

    index: int
    law: object


def angle_law(function: TimeFunction):
    """Rotational driver weights: φ = cos θ_d · (g_i·f_j) − sin θ_d · (f_i·f_j)."""

    def law(t):
        th, dth, ddth = function.derivatives(t)
        c, s = np.cos(th), np.sin(th)
        w = np.array([c, -s])
        dw = np.array([-s, -c]) * dth
        ddw = np.array([-c, s]) * dth**2 + np.array([-s, -c]) * ddth
        return w, dw, ddw, 0.0, 0.0, 0.0

    return law


def offset_law(function: TimeFunction, offset: float):
    """Translational/distance driver: φ = X·Y − (offset + f(t))."""

    def law(t):
        f, df, ddf = function.derivatives(t)
        z = np.zeros(2)
        return np.array([1.0, 0.0]), z, z, offset + f, df, ddf

    return law


def _slots_of(equations) -> list:
    """The 8 slots (2 terms × X/Y × a/b) of every equation in order, absent terms as NO_SLOT."""
    empty = [NO_SLOT] * 4
    return [slot for eq in equations for term in (eq.terms + [empty, empty])[:2] for slot in term]


def _slot_table(slots) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slots of n equations (:func:`_slots_of`): their sides and marker types
    (n, 2, 2, 2) and marker offsets (n·8·3,)."""
    n = len(slots) // 8
    kinds = np.array([slot[:2] for slot in slots], dtype=int).reshape(n, 2, 2, 2, 2)
    side, mtype = np.ascontiguousarray(kinds[..., 0]), np.ascontiguousarray(kinds[..., 1])
    u = np.array([slot[2] for slot in slots], dtype=float).reshape(3 * len(slots))
    return side, mtype, u


def _slot_anchors(slots) -> np.ndarray | None:
    """Where the direction slots (:func:`_slots_of`) sit on their bodies (n·8, 3; NaN where
    a slot has no anchor), or None when no slot has one (:class:`~flexmbd.constraints.joints.Frame`)."""
    if not slots or max(map(len, slots)) <= 3:
        return None
    return np.array([slot[3] if len(slot) > 3 else (np.nan,) * 3 for slot in slots], dtype=float)


class DotConstraintGroup(ConstraintGroup):
    """All dot-product equations between bodies of one kind, as arrays."""

    @property
    def compiled(self) -> bool:
        """Whether the compiled kernel of the kind evaluates the equations."""
        return USE_KERNELS and self.kind.kernel_code is not None

    def __init__(self, kind, equations, dof_index, laws=(), config_index=None):
        self.kind = kind
        nq, nv = kind.nq, kind.nv
        self.nq, self.nv = nq, nv
        self.equations = list(equations)
        n = len(self.equations)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, 2 * nv)
        if config_index is None:
            if nq != nv:
                raise ValueError(f"{kind.name} bodies need a config_index")
            config_index = self.dof_index
        self.config_index = np.asarray(config_index, dtype=int).reshape(n, 2 * nq)
        self.laws = list(laws)
        slots = _slots_of(self.equations)
        side, mtype, u = _slot_table(slots)
        u = u.reshape(n, 2, 2, 2, 3)
        self.side = side
        self.sign = np.array([1.0, -1.0])[None, None, None, :] * (mtype != ZERO)
        self.markers = kind.markers(u.reshape(-1, 3), mtype.reshape(-1), _slot_anchors(slots))
        cols = side.reshape(-1)[:, None] * nq + np.arange(nq)[None, :]
        rows = np.repeat(np.arange(n), 8)
        self.slot_dof = self.config_index[rows[:, None], cols]  # (n*8, nq) into extended q
        vcols = side.reshape(-1)[:, None] * nv + np.arange(nv)[None, :]
        self.slot_vel = self.dof_index[rows[:, None], vcols]    # (n*8, nv) into extended v
        self.w0 = np.array([eq.weights for eq in self.equations], dtype=float).reshape(n, 2)
        self.s0 = np.array([eq.target for eq in self.equations], dtype=float)
        self.side_flat = np.ascontiguousarray(side.reshape(-1))
        #: C(u) of every marker slot, for the compiled kernel (spatial kind; constant per joint)
        self.marker_tensors = np.zeros((0, 3, 4, 4))
        if USE_KERNELS and kind.marker_tensors:
            from ..kernels.markers import marker_tensors

            self.marker_tensors = marker_tensors(np.ascontiguousarray(self.markers.u, dtype=float),
                                                 np.ascontiguousarray(self.markers.mtype, dtype=np.int64))
        self.sign_flat = np.ascontiguousarray(self.sign.reshape(-1))
        self.owner = [eq.owner for eq in self.equations]
        self.label = [eq.label for eq in self.equations]

    def __len__(self):
        return len(self.equations)

    def _terms(self, t):
        """(w, s) at t: the time arrays of the compiled slots."""
        if not self.laws:
            return self.w0, self.s0
        w, _, _, s, _, _ = self._time_terms(t)
        return w, s

    def _rates(self, t):
        """((ẇ, ṡ), (ẅ, s̈)) at t: the time derivatives of the compiled slots' time arrays
        (the kernel with them gives Φ_t = Σ ẇ_k d_k − ṡ and Φ_tt = Σ ẅ_k d_k − s̈)."""
        _, dw, ddw, _, ds, dds = self._time_terms(t)
        return (dw, ds), (ddw, dds)

    def _frame_slot(self, kinds, markers, mtype):
        """The slot of equations on floating frames (kernels/floating_frame.py ``dots``):
        ``kinds`` and ``markers`` of sides 0 and 1, ``mtype`` of every marker slot."""
        layouts = [floating_frame_layout(k) for k in kinds]
        width = max([1] + [n + len(p) for n, p in layouts])
        side = self.side.reshape(-1)
        arrays = [floating_frame_markers(m, width) for m in markers]
        ur, u, P = (np.where((side == 0).reshape((-1,) + (1,) * (x0.ndim - 1)), x0, x1)
                    for x0, x1 in zip(*arrays))
        table, pairs = floating_frame_kinds(layouts)
        n = len(self)
        # slots on ground: constant values (their Jacobian columns go nowhere)
        ground = getattr(self, "on_ground", None)
        moving = np.ones(8 * n, dtype=bool) if ground is None else ~ground[np.repeat(np.arange(n), 8), side]
        fixed = np.zeros((8 * n, 3))
        if not moving.all():     # single-kind groups (a joint across kinds joins two bodies)
            still = ~moving
            fixed[still] = kinds[0].markers(u[still], mtype[still]).evaluate(
                np.tile(kinds[0].ground_q, (int(still.sum()), 1)))[0]
        # a slot equal to the previous equation's (same body, marker and place): not evaluated again
        nq0 = kinds[0].nq
        same = np.zeros(8 * n, dtype=bool)
        if n > 1:
            eq = np.repeat(np.arange(1, n), 8)
            now, before = np.arange(8, 8 * n), np.arange(0, 8 * n - 8)
            body_now = self.config_index[eq][np.arange(len(eq)), np.where(side[now] == 0, 0, nq0)]
            body_before = self.config_index[eq - 1][np.arange(len(eq)), np.where(side[before] == 0, 0, nq0)]
            same[8:] = ((side[now] == side[before]) & (mtype[now] == mtype[before]) & moving[now] & moving[before]
                        & (body_now == body_before) & np.all(u[now] == u[before], axis=1)
                        & np.all(ur[now] == ur[before], axis=1) & np.all(P[now] == P[before], axis=(1, 2)))
        return CompiledSlot("modal_dots", (int_array(self.config_index), int_array(table), int_array(pairs),
                                           int_array(side), int_array(mtype), float_array(self.sign.reshape(-1)),
                                           float_array(ur), float_array(u), float_array(P), int_array(moving),
                                           float_array(fixed), int_array(same)),
                            self._terms, not self.laws, self._rates if self.laws else None)

    def compiled_slot(self):
        terms = self._terms
        try:
            suffix = kernel_suffix(self.kind)
        except Unsupported:
            return self._frame_slot((self.kind, self.kind), (self.markers, self.markers), self.markers.mtype)
        return CompiledSlot(f"dots_{suffix}",
                            (int_array(self.slot_dof), float_array(self.markers.u), int_array(self.markers.mtype),
                             int_array(self.side_flat), float_array(self.sign_flat), float_array(self.marker_tensors)),
                            terms, not self.laws, self._rates if self.laws else None)

    def subset(self, keep):
        """The group of the equations ``keep`` (a mask): this group's arrays sliced, as
        ``DotConstraintGroup`` of those equations would build them (freezing drops
        redundant equations this way; rebuilding would repeat the slot tables).  A group
        kept for later models (constraints/joint_types.py ``_GROUPS``) keeps its subsets
        too, shared with its copies: a copy of the subset is returned."""
        memo = self.__dict__.setdefault("_subsets", {})
        mask = np.asarray(keep, dtype=bool).tobytes()
        made = memo.get(mask)
        if made is None:
            made = memo[mask] = self._subset(keep)
        return copy.copy(made)

    def _subset(self, keep):
        """:meth:`subset` without its memo."""
        keep = np.flatnonzero(keep)
        remap = {old: new for new, old in enumerate(keep)}
        out = object.__new__(DotConstraintGroup)
        out.kind, out.nq, out.nv = self.kind, self.nq, self.nv
        out.equations = [self.equations[i] for i in keep]
        out.owner = [self.owner[i] for i in keep]
        out.label = [self.label[i] for i in keep]
        out.laws = [TimeLaw(remap[tl.index], tl.law) for tl in self.laws if tl.index in remap]
        for name in ("dof_index", "config_index", "side", "sign", "w0", "s0"):      # per equation
            setattr(out, name, getattr(self, name)[keep])
        slots = (keep[:, None] * 8 + np.arange(8)).ravel()                          # 8 slots per equation
        for name in ("slot_dof", "slot_vel", "side_flat", "sign_flat"):
            setattr(out, name, np.ascontiguousarray(getattr(self, name)[slots]))
        out.marker_tensors = (np.ascontiguousarray(self.marker_tensors[slots]) if len(self.marker_tensors)
                              else self.marker_tensors)
        m = self.markers
        anchors = None if m.anchors is None else m.anchors[slots]
        if anchors is not None and np.isnan(anchors).all():      # as _slot_anchors: none kept
            anchors = None
        out.markers = self.kind.markers(m.u[slots], m.mtype[slots], anchors)
        if getattr(self, "on_ground", None) is not None:
            out.on_ground = self.on_ground[keep]
        return out

    # --------------------------------------------------------------- helpers
    def _time_terms(self, t):
        """(w, ẇ, ẅ, s, ṡ, s̈) at t; the last time's kept (a step asks for them several
        times: Newton, projection, consistent accelerations); callers must not modify them."""
        cached = getattr(self, "_time_cache", None)
        if cached is not None and cached[0] == t:
            return cached[1]
        terms = self._evaluate_time_terms(t)
        self._time_cache = (t, terms)
        return terms

    def _evaluate_time_terms(self, t):
        n = len(self)
        w, dw, ddw = self.w0.copy(), np.zeros((n, 2)), np.zeros((n, 2))
        s, ds, dds = self.s0.copy(), np.zeros(n), np.zeros(n)
        for tl in self.laws:
            i = tl.index
            w[i], dw[i], ddw[i], s[i], ds[i], dds[i] = tl.law(t)
        return w, dw, ddw, s, ds, dds

    def _slots(self, qe):
        """Signed marker values (n,2,2,2,3) and Jacobians in pair coordinates."""
        n, nq = len(self), self.nv
        qb = qe[self.slot_dof]
        x, J = self.markers.evaluate(qb)
        x = x.reshape(n, 2, 2, 2, 3) * self.sign[..., None]
        J = J.reshape(n, 2, 2, 2, 3, nq) * self.sign[..., None, None]
        Jl = np.zeros((n, 2, 2, 2, 3, 2 * nq))
        s1 = (self.side == 1)[..., None, None]
        Jl[..., :nq] = np.where(s1, 0.0, J)
        Jl[..., nq:] = np.where(s1, J, 0.0)
        return qb, x, Jl

    def _dots(self, qe):
        qb, x, Jl = self._slots(qe)
        XY = x.sum(axis=3)            # (n, 2 terms, X/Y, 3)
        JXY = Jl.sum(axis=3)          # (n, 2, 2, 3, m)
        X, Y, JX, JY = XY[:, :, 0], XY[:, :, 1], JXY[:, :, 0], JXY[:, :, 1]
        d = np.einsum("nki,nki->nk", X, Y)
        grad = np.einsum("nki,nkij->nkj", Y, JX) + np.einsum("nki,nkij->nkj", X, JY)
        return qb, X, Y, JX, JY, d, grad

    # ---------------------------------------------------------- public API
    def evaluate(self, qe, t):
        """Φ (n,) and Φ_q (n, m) in the pair's local coordinates."""
        return self.assemble(qe, t, None, hessian=False)[:2]

    def hessian(self, qe, t, lam):
        """λ_e ∂²φ_e/∂q² for each equation: (n, m, m)."""
        return self.assemble(qe, t, lam, hessian=True)[2]

    def assemble(self, qe, t, lam, hessian=True):
        """Φ, Φ_q and (if asked) λ_e ∂²φ_e/∂q² from one evaluation of the markers."""
        if self.compiled:
            w, _, _, s, _, _ = self._time_terms(t)
            return _kernel_assemble(self, qe, w, s, lam, hessian)
        return self._numpy_assemble(qe, t, lam, hessian)

    def _numpy_assemble(self, qe, t, lam, hessian):
        """:meth:`assemble` in NumPy (node kinds without a compiled marker kernel, pairs of
        two kinds)."""
        w, _, _, s, _, _ = self._time_terms(t)
        state, X, Y, JX, JY, d, grad = self._dots(qe)
        phi = np.einsum("nk,nk->n", w, d) - s
        Jq = np.einsum("nk,nkj->nj", w, grad)
        if not hessian:
            return phi, Jq, None
        wl = w * lam[:, None]
        H = np.einsum("nk,nkia,nkib->nab", wl, JX, JY)
        H = H + H.transpose(0, 2, 1)
        # Σ_i Y_i ∂²X_i/∂q² + Σ_i X_i ∂²Y_i/∂q², slot by slot
        other = np.stack([Y, X], axis=2)                              # (n, 2, 2, 3)
        g = ((other[:, :, :, None, :] * self.sign[..., None]) * wl[:, :, None, None, None]).reshape(-1, 3)
        self._add_marker_hessians(H, state, g)
        return phi, Jq, H

    def _add_marker_hessians(self, H, qb, g):
        """H += the markers' second derivatives contracted with g (one 3-vector per slot)."""
        n, nq = len(self), self.nv
        Cs = self.markers.contract(qb, g).reshape(n, 8, nq, nq)
        side = self.side.reshape(n, 8)
        H[:, :nq, :nq] += np.einsum("ns,nsab->nab", side == 0, Cs)
        H[:, nq:, nq:] += np.einsum("ns,nsab->nab", side == 1, Cs)

    def jacobian_steps(self, QE, T, rows):
        """Φ_q of equations ``rows`` at every configuration of QE (S, n_q_ext), compiled
        (one call for all states; the time laws of drivers evaluated per state)."""
        if not self.compiled:
            return super().jacobian_steps(QE, T, rows)
        n = len(self)
        if self.laws:
            terms = [self._time_terms(t) for t in T]
            W = np.array([tt[0] for tt in terms]).reshape(len(T), n, 2)
            S = np.array([tt[3] for tt in terms]).reshape(len(T), n)
        else:
            W = np.broadcast_to(self.w0, (len(T), n, 2))
            S = np.broadcast_to(self.s0, (len(T), n))
        return _kernel_jacobian_steps(self, QE, W, S)[:, rows]

    def time_derivative(self, qe, t):
        """Φ_t (n,)."""
        if not self.laws:
            return np.zeros(len(self))
        _, dw, _, _, ds, _ = self._time_terms(t)
        if self.compiled:
            return _kernel_assemble(self, qe, dw, ds, None, False)[0]     # Σ ẇ_k d_k − ṡ
        d = self._dots(qe)[5]
        return np.einsum("nk,nk->n", dw, d) - ds

    def _frame_kernel(self):
        """The arrays of the compiled floating-frame kernel (kernels/floating_frame.py
        ``dots``) when the group's equations are on floating frames, else None."""
        cached = getattr(self, "_frame_arrays", False)
        if cached is False:
            cached = None
            if USE_KERNELS:
                try:
                    cs = self.compiled_slot()
                    cached = cs.arrays if cs.name == "modal_dots" else None
                except Unsupported:
                    pass
            self._frame_arrays = cached
        return cached

    def _frame_assemble(self, qe, w, s, lam, hessian):
        """Φ (n,), Φ_q and λ-weighted Hessians from the floating-frame kernel (columns of
        ground sides zero: their velocities are)."""
        from ..kernels.floating_frame import dots

        n, m = len(self), self.config_index.shape[1]
        phi, Jq = np.empty(n), np.empty((n, m))
        H = np.empty((n, m, m)) if hessian else np.empty((0, m, m))
        lam = np.zeros(n) if lam is None else np.ascontiguousarray(lam, dtype=float)
        dots(*self._frame_arrays, np.ascontiguousarray(w, dtype=float), np.ascontiguousarray(s, dtype=float),
             np.ascontiguousarray(qe, dtype=float), lam, hessian, phi, Jq, H)
        return phi, Jq, H

    def gamma(self, qe, ve, t):
        """γ = −(Φ_q q')_q q' − 2 Φ_qt q' − Φ_tt  (n,)."""
        n = len(self)
        w, dw, ddw, s, _, dds = self._time_terms(t)
        vl = ve[self.dof_index]
        if self.compiled or self._frame_kernel() is not None:
            kernel = (lambda *a: _kernel_assemble(self, *a)) if self.compiled else self._frame_assemble
            # (Φ_q q')_q q' = q'ᵀ ∂²φ/∂q² q' per equation, from the compiled Hessians (λ = 1);
            # along increments for Lie-group kinds, d²/ds² φ(q ⊕ s q') — the same quantity
            _, Jq, H = kernel(qe, w, s, np.ones(n), True)
            out = -np.einsum("nab,na,nb->n", H, vl, vl)
            if self.laws:
                # Φ_qt q' and Φ_tt: the same dot products weighted by ẇ and ẅ (offsets ṡ, s̈)
                _, Jqt, _ = kernel(qe, dw, np.zeros(n), None, False)
                phi_tt = kernel(qe, ddw, dds, None, False)[0]
                out -= 2 * np.einsum("nj,nj->n", Jqt, vl) + phi_tt
            return out
        qb, X, Y, JX, JY, d, grad = self._dots(qe)
        Xd = np.einsum("nkij,nj->nki", JX, vl)
        Yd = np.einsum("nkij,nj->nki", JY, vl)
        vb = ve[self.slot_vel]
        dJv = self.markers.dJv(qb, vb)                                # (n*8, 3, nq)
        vHv = np.einsum("sij,sj->si", dJv, vb).reshape(n, 2, 2, 2, 3) * self.sign[..., None]
        vHv = vHv.sum(axis=3)                                          # (n, k, X/Y, 3)
        quad = 2 * np.einsum("nki,nki->nk", Xd, Yd) + np.einsum("nki,nki->nk", vHv[:, :, 0], Y)
        quad += np.einsum("nki,nki->nk", X, vHv[:, :, 1])
        phi_qt_v = np.einsum("nk,nkj,nj->n", dw, grad, vl)
        phi_tt = np.einsum("nk,nk->n", ddw, d) - dds
        return -np.einsum("nk,nk->n", w, quad) - 2 * phi_qt_v - phi_tt


class MixedDotConstraintGroup(DotConstraintGroup):
    """Dot-product equations between a node of kind ``kind_i`` (side 0) and one of another
    vector kind ``kind_j`` (side 1): a rigid body and a floating-frame modal beam, say.
    The equations are the same (module docstring); each side's markers are its own kind's
    (``x``, ``J``, ``contract``, ``dJv``), their Jacobians side by side in the columns
    [node i's coordinates, node j's] (``side_kinds``).  Both kinds are vector kinds
    (q ⊕ Δ = q + Δ)."""

    #: two kinds side by side: never the single-kind compiled kernel (with equal sizes,
    #: ``kind`` could be one that has a kernel)
    compiled = False

    def __init__(self, kind_i, kind_j, equations, dof_index, laws=(), config_index=None):
        if not (kind_i.additive and kind_j.additive):
            raise ValueError("mixed dot-product joints join vector kinds only")
        self.kind_i, self.kind_j = kind_i, kind_j
        self.side_kinds = (kind_i, kind_j)
        self.kind = kind_i if kind_i.nv >= kind_j.nv else kind_j
        ni, nj = kind_i.nv, kind_j.nv
        self.ni, self.nj = ni, nj
        self.equations = list(equations)
        n = len(self.equations)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, ni + nj)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(n, ni + nj)
        self.laws = list(laws)
        slots = _slots_of(self.equations)
        side, mtype, u = _slot_table(slots)
        u = u.reshape(-1, 3)
        self.side = side
        self.sign = np.array([1.0, -1.0])[None, None, None, :] * (mtype != ZERO)
        sd, mt = side.reshape(-1), mtype.reshape(-1)
        anchors = _slot_anchors(slots)
        self.markers_i = kind_i.markers(u, np.where(sd == 0, mt, ZERO), anchors)
        self.markers_j = kind_j.markers(u, np.where(sd == 1, mt, ZERO), anchors)
        rows = np.repeat(np.arange(n), 8)
        self.slot_cfg = (self.config_index[:, :ni][rows], self.config_index[:, ni:][rows])
        self.slot_vels = (self.dof_index[:, :ni][rows], self.dof_index[:, ni:][rows])
        self.w0 = np.array([eq.weights for eq in self.equations], dtype=float).reshape(n, 2)
        self.s0 = np.array([eq.target for eq in self.equations], dtype=float)
        self.owner = [eq.owner for eq in self.equations]
        self.label = [eq.label for eq in self.equations]

    def compiled_slot(self):
        """Floating frames and rigid Euler-parameter bodies (kernels/floating_frame.py);
        other pairs of kinds have no compiled kernel."""
        side = self.side.reshape(-1)
        return self._frame_slot((self.kind_i, self.kind_j), (self.markers_i, self.markers_j),
                                np.where(side == 0, self.markers_i.mtype, self.markers_j.mtype))

    def subset(self, keep):
        keep = np.flatnonzero(keep)
        remap = {old: new for new, old in enumerate(keep)}
        laws = [TimeLaw(remap[tl.index], tl.law) for tl in self.laws if tl.index in remap]
        return MixedDotConstraintGroup(self.kind_i, self.kind_j, [self.equations[i] for i in keep],
                                       self.dof_index[keep], laws, self.config_index[keep])

    def _slots(self, qe):
        n = len(self)
        qi, qj = qe[self.slot_cfg[0]], qe[self.slot_cfg[1]]
        xi, Ji = self.markers_i.evaluate(qi)
        xj, Jj = self.markers_j.evaluate(qj)
        x = (xi + xj).reshape(n, 2, 2, 2, 3) * self.sign[..., None]
        Jl = np.concatenate([Ji, Jj], axis=2).reshape(n, 2, 2, 2, 3, self.ni + self.nj) * self.sign[..., None, None]
        return (qi, qj), x, Jl

    def assemble(self, qe, t, lam, hessian=True):
        return self._numpy_assemble(qe, t, lam, hessian)

    def _add_marker_hessians(self, H, state, g):
        n, ni = len(self), self.ni
        qi, qj = state
        H[:, :ni, :ni] += self.markers_i.contract(qi, g).reshape(n, 8, ni, ni).sum(axis=1)
        H[:, ni:, ni:] += self.markers_j.contract(qj, g).reshape(n, 8, self.nj, self.nj).sum(axis=1)

    def gamma(self, qe, ve, t):
        if self._frame_kernel() is not None:    # floating frames and rigid bodies: compiled
            return DotConstraintGroup.gamma(self, qe, ve, t)
        n = len(self)
        w, dw, ddw, _, _, dds = self._time_terms(t)
        (qi, qj), X, Y, JX, JY, d, grad = self._dots(qe)
        vl = ve[self.dof_index]
        Xd = np.einsum("nkij,nj->nki", JX, vl)
        Yd = np.einsum("nkij,nj->nki", JY, vl)
        vi, vj = ve[self.slot_vels[0]], ve[self.slot_vels[1]]
        acc = (np.einsum("sij,sj->si", self.markers_i.dJv(qi, vi), vi)
               + np.einsum("sij,sj->si", self.markers_j.dJv(qj, vj), vj))
        vHv = (acc.reshape(n, 2, 2, 2, 3) * self.sign[..., None]).sum(axis=3)
        quad = 2 * np.einsum("nki,nki->nk", Xd, Yd) + np.einsum("nki,nki->nk", vHv[:, :, 0], Y)
        quad += np.einsum("nki,nki->nk", X, vHv[:, :, 1])
        phi_qt_v = np.einsum("nk,nkj,nj->n", dw, grad, vl)
        phi_tt = np.einsum("nk,nk->n", ddw, d) - dds
        return -np.einsum("nk,nk->n", w, quad) - 2 * phi_qt_v - phi_tt
