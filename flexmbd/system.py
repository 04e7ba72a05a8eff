"""The frozen model: coordinate layout, element groups and sparse assembly.

The layout keeps a body's configuration apart from its increments: every body has a
slice of the configuration vector q (n_q entries, ``config_offsets``) and a slice of the
velocity/increment vector (n entries, ``offsets``); for vector kinds the two coincide,
for Lie-group kinds (:data:`~flexmbd.nodes.ROTATION`, :data:`~flexmbd.nodes.SE3`) nv < nq.  Residual rows,
Newton-matrix columns, velocities and accelerations live in increment space; the
configuration is only updated through :meth:`System.increment` (q ⊕ Δ, per kind).
Ground's fixed coordinates follow at the end of *extended* vectors (``extend`` for
configurations, ``extend_velocity`` for velocities), so elements attached to ground are
evaluated exactly like the others and their ground rows are dropped when scattering.
Every group gathers its configurations with ``config_index`` and owns rows/columns
``dof_index``.  Every group returns dense per-element blocks; they are scattered into one
preallocated CSC matrix through an index map computed once (the sparsity pattern).

The Newton matrix of every solver has the form

    [ c_M M + c_D (∂F/∂q') + c_K (∂F/∂q)   Φ_qᵀ ]      F(q, q', q'', λ, t) =
    [ Φ_q                                   0    ]        M q'' + Q_v − Q + Φ_qᵀ λ,

with ∂F/∂q = ∂(M q'' + Q_v)/∂q − ∂Q/∂q + ∂(Φ_qᵀ λ)/∂q (P1, eq. for J).  Each part of
∂F/∂q and ∂F/∂q' can be switched off by name (see :data:`JACOBIAN_TERMS`).
"""
from __future__ import annotations

import copy
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .compiled_assembly import compiled_assembly
from .ground import GROUND
from .groups import JACOBIAN_TERMS, P1_PARTS, EvalContext, FrictionGroup, jacobian_terms, tangent_map  # noqa: F401
from .nodes import KINDS, NodeKind, kind_order
from .linalg import dense_storage
from .memo import Recent as _Recent, digest as _digest
from .errors import ModelError, user_stacklevel
from .registry import builders
from .services import provide

#: every kind, in the order of their ground slots in the extended vectors
KIND_ORDER = tuple(KINDS.values())


def _kind_order(bodies):
    """The fixed kinds (their ground slots always exist) and any other kind of the model
    (a parameterised kind such as a modal body's), in canonical order."""
    others = sorted({b.kind for b in bodies if b.kind.key not in KINDS}, key=kind_order)
    return KIND_ORDER + tuple(others)
_EYE3 = np.eye(3)


class System:
    def __init__(self, model, redundancy: str = "remove", rank_tolerance: float = 1e-9):
        self.model = model
        bodies = model.bodies
        if not bodies:
            raise ModelError("the model has no bodies")
        # ------------------------------------------------------------- layout
        nv = np.array([b.kind.nv for b in bodies], dtype=int)
        nq = np.array([b.kind.nq for b in bodies], dtype=int)
        order = np.array([b.index for b in bodies], dtype=int)
        self.offsets = np.zeros(len(bodies), dtype=int)          # velocity/increment space
        self.config_offsets = np.zeros(len(bodies), dtype=int)   # configuration space
        self.offsets[order] = np.cumsum(nv) - nv
        self.config_offsets[order] = np.cumsum(nq) - nq
        n, nc = int(nv.sum()), int(nq.sum())
        self.n, self.n_q = n, nc
        self.ground_offset, self.ground_config_offset = {}, {}
        self._kind_order = _kind_order(bodies)
        #: the bodies of every kind of the model, in model order (one pass over the bodies)
        self._by_kind = _by_kind(bodies)
        for kind in self._kind_order:
            self.ground_offset[kind], self.ground_config_offset[kind] = n, nc
            n += kind.nv
            nc += kind.nq
        self.n_ext, self.n_q_ext = n, nc
        self._ground_q = np.concatenate([k.ground_q for k in self._kind_order])
        self.coordinate_names = [f"{b.name}.{c}" for b in bodies for c in b.kind.coordinate_names]
        self.velocity_names = [f"{b.name}.{c}" for b in bodies for c in b.kind.velocity_names]
        self.additive = all(b.kind.nq == b.kind.nv for b in bodies)
        if not self.additive:
            vec = [b for b in bodies if b.kind.nq == b.kind.nv]
            self._add_q = np.concatenate([self.config_dofs(b) for b in vec]) if vec else np.zeros(0, int)
            self._add_v = np.concatenate([self.dofs(b) for b in vec]) if vec else np.zeros(0, int)
            self._lie = []
            for kind in self._kind_order:
                bs = self._by_kind.get(kind) if not kind.additive else None
                if bs:
                    self._lie.append((kind, self.config_rows(bs, kind), self.dof_rows(bs, kind)))
            # the same rows as slices where they are consecutive (a model of beams alone: all
            # of q), so the per-iteration increment and tangent maps index without copies
            self._lie_blocks = [(kind, _block(ci), _block(vi)) for kind, ci, vi in self._lie]
        #: what :func:`~flexmbd.groups.tangent_map` finds once per system (the nodes of each group's columns)
        self._tangent_cache = {}
        #: rescale R³×R³ rotation vectors between steps (``rescale``); False only for experiments
        self.rescale_rotations = True
        #: kinds whose coordinates have branches (rescaled between steps) with their rows
        self._branched = []
        for kind in self._kind_order:
            bs = self._by_kind.get(kind)
            if bs and kind.has_branches:
                self._branched.append((kind, self.config_rows(bs, kind), self.dof_rows(bs, kind)))
        # initial rotation matrices of all bodies (model.body_rotation), one evaluation per kind
        self._rotation0 = _initial_rotations(bodies, self._by_kind)
        self._frames0 = None      # (R, A) of every body and ground, made for local_points
        self._position0 = np.array([b.position for b in sorted(bodies, key=lambda b: b.index)],
                                   dtype=float).reshape(-1, 3)
        self.q0, self.v0 = self._initial_state()

        # ------------------------------------------------------------- groups
        #: the node kinds of the model, in canonical order (builders make one group per kind)
        self.kinds = [k for k in self._kind_order if k in self._by_kind]
        groups = []
        by_builder = {}     # the elements of every builder, in model order (one type lookup each)
        for e in model.elements:
            by_builder.setdefault(e.type.builder, []).append(e)
        for build in builders():
            elements = by_builder.get(build)
            if elements:
                groups += build(elements, self)
        self.body_groups = [g for g in groups if g.role == "inertia"]
        # applied loads before structural forces (stage 1), each in builder order
        self.force_groups = sorted((g for g in groups if g.role == "force"), key=lambda g: getattr(g, "stage", 0))
        self.constraint_groups = [g for g in groups if g.role == "constraint"]
        self.removed_equations = []
        self.removed_groups = []
        if redundancy not in ("remove", "keep"):
            raise ValueError("redundancy must be 'remove' or 'keep'")
        self.redundancy = redundancy
        if redundancy == "remove":
            self._remove_redundant(rank_tolerance)
        self._index_constraints()
        for g in self.groups:   # forces that depend on multipliers find their equations' rows
            g.resolve_coupling(self)
        self._build_pattern()
        #: the whole evaluation in one compiled call when every group has a compiled slot
        #: (None: the generic path; ``assembly`` says which, and why)
        self.compiled, self.assembly = compiled_assembly(self)

    # ================================================================ layout
    def dofs(self, body, kind=None):
        """Indices of a body's velocity/increment coordinates in the extended velocity vector
        (ground's fixed slots for GROUND)."""
        if body is GROUND:
            return self.ground_offset[kind] + np.arange(kind.nv)
        return self.offsets[body.index] + np.arange(body.kind.nv)

    def config_dofs(self, body, kind=None):
        """Indices of a body's configuration coordinates in the extended configuration vector."""
        if body is GROUND:
            return self.ground_config_offset[kind] + np.arange(kind.nq)
        return self.config_offsets[body.index] + np.arange(body.kind.nq)

    def _rows(self, bodies, kind, offsets, ground, width):
        g = ground[kind]
        start = np.array([g if b is GROUND else offsets[b.index] for b in bodies], dtype=int)
        return start[:, None] + np.arange(width)

    def dof_rows(self, bodies, kind):
        """``dofs(b, kind)`` of every body of a sequence (all of ``kind`` or GROUND) as rows
        of one (len(bodies), kind.nv) array."""
        return self._rows(bodies, kind, self.offsets, self.ground_offset, kind.nv)

    def config_rows(self, bodies, kind):
        """``config_dofs(b, kind)`` of every body of a sequence as rows of one (len(bodies), kind.nq) array."""
        return self._rows(bodies, kind, self.config_offsets, self.ground_config_offset, kind.nq)

    def extend(self, q):
        """Configuration q (n_q) with ground's fixed configurations appended (n_q_ext)."""
        qe = np.empty(self.n_q_ext)
        qe[: self.n_q] = q
        qe[self.n_q:] = self._ground_q
        return qe

    def extend_velocity(self, v):
        """Velocity-space vector v (n) with ground's zero entries appended (n_ext)."""
        ve = np.zeros(self.n_ext)
        ve[: self.n] = v
        return ve

    def increment(self, q, dq):
        """q ⊕ Δq: each kind's state increment applied to its bodies (vectorised per kind).

        q has n_q entries, Δq (velocity/increment space) n; vector kinds add."""
        if self.additive:
            return q + dq
        out = np.empty_like(q)
        if self._add_q.size:
            out[self._add_q] = q[self._add_q] + dq[self._add_v]
        for kind, ci, vi in self._lie_blocks:
            qn = kind.increment(q[ci].reshape(-1, kind.nq), dq[vi].reshape(-1, kind.nv))
            out[ci] = qn.ravel() if isinstance(ci, slice) else qn
        return out

    def rescale(self, q, v=None, accelerations=()):
        """The same state with the nodes of kinds with branches (R³×R³ rotation vectors) on
        their preferred branch (|ψ| ≤ π), :meth:`flexmbd.nodes.NodeKind.rescale`: ψ̇ and
        acceleration-like vectors are transformed so that angular velocities and
        accelerations are unchanged.  Positions and other bodies are left alone.
        Returns (q, v, [a …], number of nodes rescaled); the inputs are not modified.
        Called by the solvers between steps.
        """
        if not self._branched or not self.rescale_rotations:
            return q, v, list(accelerations), 0
        total = 0
        accelerations = list(accelerations)
        for kind, ci, vi in self._branched:
            qk, vk, ak, changed = kind.rescale(q[ci], None if v is None else v[vi], [a[vi] for a in accelerations])
            k = int(np.count_nonzero(changed))
            if not k:
                continue
            total += k
            q = q.copy()
            q[ci] = qk
            if v is not None:
                v = v.copy()
                v[vi] = vk
            new = []
            for a, a2 in zip(accelerations, ak):
                a = a.copy()
                a[vi] = a2
                new.append(a)
            accelerations = new
        return q, v, accelerations, total

    def _body(self, body):
        return self.model.body(body) if isinstance(body, str) else body

    def body_slice(self, body):
        """The body's slice of velocity/increment-space vectors (v, a, residual rows)."""
        b = self._body(body)
        o = self.offsets[b.index]
        return slice(o, o + b.kind.nv)

    def config_slice(self, body):
        """The body's slice of the configuration vector q."""
        b = self._body(body)
        o = self.config_offsets[b.index]
        return slice(o, o + b.kind.nq)

    def _initial_state(self):
        """q0, v0 from the bodies' initial poses and velocities, vectorised per kind."""
        q = np.zeros(self.n_q)
        v = np.zeros(self.n)
        for kind in self._kind_order:
            bs = self._by_kind.get(kind)
            if not bs:
                continue
            qi, vi = self.config_rows(bs, kind), self.dof_rows(bs, kind)
            x = np.array([b.position for b in bs], dtype=float)
            p = np.array([b.orientation for b in bs], dtype=float)
            xd = np.array([b.velocity for b in bs], dtype=float)
            w = np.array([b.angular_velocity for b in bs], dtype=float)
            q[qi], v[vi] = kind.initial_coordinates(bs, *kind.initial_state(x, p, xd, w,
                                                                            self._rotation0[[b.index for b in bs]]))
        return q, v

    # ================================================================ groups
    def pair_dofs(self, elements, kind):
        """(len(elements), 2 kind.nv): the increment indices of both bodies of every element."""
        return np.hstack([self.dof_rows([e.bodies[0] for e in elements], kind),
                          self.dof_rows([e.bodies[1] for e in elements], kind)])

    def pair_config(self, elements, kind):
        """(len(elements), 2 kind.nq): the configuration indices of both bodies of every element."""
        return np.hstack([self.config_rows([e.bodies[0] for e in elements], kind),
                          self.config_rows([e.bodies[1] for e in elements], kind)])

    def rotation(self, body):
        """Initial rotation matrix of a body (identity for ground), computed at freezing."""
        return np.eye(3) if body is GROUND else self._rotation0[body.index]

    @staticmethod
    def body_position(body):
        """Initial position of a body's origin (ground: the origin)."""
        return np.zeros(3) if body is GROUND else body.position

    def local_points(self, bodies, points):
        """Aᵀ (x − R) of every (body, global point x) pair: the body-fixed vectors of points
        given in the initial configuration (``Frame.point``), for all pairs at once."""
        index = np.fromiter((-1 if b is GROUND else b.index for b in bodies), dtype=int, count=len(bodies))
        if self._frames0 is None:    # every body's (R, A) and ground's in the last row
            self._frames0 = (np.vstack([self._position0, np.zeros((1, 3))]),
                             np.concatenate([self._rotation0, _EYE3[None]]))
        R, At = self._frames0[0][index], np.swapaxes(self._frames0[1][index], 1, 2)
        u = _matvec(At, np.asarray(points, dtype=float).reshape(-1, 3) - R)
        for kind in {b.kind for b in bodies if b is not GROUND}:      # offsets a kind cannot carry
            if type(kind).check_offsets is NodeKind.check_offsets:   # every offset is fine
                continue
            mine = np.array([b is not GROUND and b.kind == kind for b in bodies], dtype=bool)
            kind.check_offsets([b.name for b, m in zip(bodies, mine) if m], u[mine])
        return u

    # ========================================================== constraints
    @property
    def groups(self):
        """Every group in evaluation order: inertia, forces, constraints."""
        return self.body_groups + self.force_groups + self.constraint_groups

    @property
    def coupled_groups(self):
        """The groups whose forces depend on multipliers (with a coupling block ∂F/∂λ)."""
        return [g for g in self.groups if g.coupling_index is not None]

    @property
    def friction_groups(self):
        """The groups of set-valued friction forces (:class:`~flexmbd.groups.FrictionGroup`)."""
        return [g for g in self.force_groups if isinstance(g, FrictionGroup)]

    def _index_constraints(self):
        self.m = sum(len(g) for g in self.constraint_groups)
        self.constraint_offsets = np.cumsum([0] + [len(g) for g in self.constraint_groups])[:-1]
        for g, off in zip(self.constraint_groups, self.constraint_offsets):
            g.first_row = int(off)
        self.equation_owner = [o for g in self.constraint_groups for o in g.owner]
        self.equation_label = [lab for g in self.constraint_groups for lab in g.label]
        self.owner_equations = {}
        for i, o in enumerate(self.equation_owner):
            self.owner_equations.setdefault(o, []).append(i)

    def _remove_redundant(self, tol):
        """Find equations dependent on earlier ones at q0 and drop them (with a warning).

        A sparse LU of the Gram matrix G = Φ̂_q Φ̂_qᵀ (unit rows, diagonal pivots, so it is a
        Cholesky factorization of an SPD matrix when Φ_q has full rank) proves full rank
        cheaply for large models.  Otherwise rank-revealing QR (column pivoting) of Φ_qᵀ
        gives the rank, and rows are taken greedily in model order (Gram-Schmidt), so the
        equations of the joint added last are the ones removed and the Euler-parameter
        normalisation is always kept.
        """
        self.m = sum(len(g) for g in self.constraint_groups)    # the rows' owners only for an error
        if self.m == 0:
            return
        small = self.m <= 200   # dense arrays: scipy.sparse's overhead dominates small models
        Jq = self.constraint_jacobian(self.extend(self.q0), 0.0, dense=small)
        key = _digest(Jq, tol)
        dependent = _DEPENDENT.get(key)
        if dependent is None:
            dependent = self._dependent_rows(Jq, small, tol)
            _DEPENDENT.put(key, dependent)
        if dependent.any():
            self._drop(dependent)

    def _dependent_rows(self, Jq, small, tol):
        """The equations that depend on earlier ones, from Φ_q at q0 (a boolean mask)."""
        norms = np.linalg.norm(Jq, axis=1) if small else np.sqrt(np.asarray(Jq.multiply(Jq).sum(axis=1)).ravel())
        if np.any(norms == 0.0):
            self._index_constraints()
            i = int(np.flatnonzero(norms == 0.0)[0])
            raise ModelError(f"constraint equation {self.describe_row(self.n + i)} has a zero Jacobian "
                             "in the initial configuration; check the joint's points and axes")
        dependent = np.zeros(self.m, dtype=bool)
        if small:
            rows = Jq / norms[:, None]
        else:
            unit = sp.diags(1.0 / norms) @ Jq
            if _gram_has_full_rank(unit, tol):
                return dependent
            rows = unit.toarray()
        _, R, _ = sla.qr(rows.T, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        rank = int(np.sum(d > tol * d[0]))
        if rank == self.m:
            return dependent
        basis = np.zeros((self.n, 0))
        for i in range(self.m):
            r = rows[i] - basis @ (basis.T @ rows[i])
            r = r - basis @ (basis.T @ r)  # second pass keeps the basis orthonormal
            nr = np.linalg.norm(r)
            if nr <= 1e3 * tol:
                dependent[i] = True
            else:
                basis = np.column_stack([basis, r / nr])
        return dependent

    def _drop(self, dependent):
        """Remove the equations marked ``dependent`` (with a warning naming them)."""
        start = 0
        new_groups = []
        for g in self.constraint_groups:
            dep = dependent[start:start + len(g)]
            start += len(g)
            if np.any(dep):
                for i in np.flatnonzero(dep):
                    self.removed_equations.append((g.owner[i], g.label[i]))
                self.removed_groups.append(g.subset(dep))
                g = g.subset(~dep)
            new_groups.append(g)
        self.constraint_groups = [g for g in new_groups if len(g)]
        listing = "; ".join(f"{o}: {lab}" for o, lab in self.removed_equations)
        warnings.warn(f"{len(self.removed_equations)} redundant constraint equation(s) removed: {listing}",
                      RedundantConstraintWarning, stacklevel=user_stacklevel())

    def projection_matrix(self, q, t):
        """[[M, Φ_qᵀ], [Φ_q, 0]] at q: the Newton matrix with c_M = 1, c_D = c_K = 0 at rest,
        without the forces' dependence on multipliers."""
        zero = np.zeros(self.n)
        return self.evaluate(q, zero, zero, np.zeros(self.m), t, cM=1.0, cD=0.0, cK=0.0, coupling=False)[2]

    def _scatter_matrix(self, data):
        N = self.n + self.m
        if self.dense:
            if self._dense_pos is None:
                self._dense_pos = np.append(self._keys, N * N)[self._pos]
            return np.bincount(self._dense_pos, weights=data, minlength=N * N + 1)[: N * N].reshape(N, N)
        # a shallow copy: the new matrix shares the pattern's index arrays (never modified in
        # place, see _PATTERNS) and its canonical-format flags; its .data is new.  The
        # pattern's .copy() would copy and check the indices (≈ 18 µs against 2 µs at 162
        # unknowns, docs/performance.md "The Python Newton step")
        A = copy.copy(self._pattern)
        A.data = np.bincount(self._pos, weights=data, minlength=self.nnz + 1)[: self.nnz]
        return A

    def check_removed_equations(self, q, t=0.0, tol=1e-8):
        """Raise ModelError if an equation removed as redundant is violated at q.

        Rank tells only that an equation's gradient depends on the others; a removed
        equation that is not satisfied once the others are means contradictory joints.
        """
        qe = self.extend(q)
        bad = []
        for g in self.removed_groups:
            phi = g.evaluate(qe, t)[0]
            bad += [(g.owner[i], g.label[i], phi[i]) for i in np.flatnonzero(np.abs(phi) > tol)]
        if bad:
            listing = "; ".join(f"{o}: {lab} (residual {r:.3g})" for o, lab, r in bad)
            raise ModelError(f"contradictory constraints: {len(bad)} equation(s) removed as redundant are "
                             f"violated once the others hold: {listing}")

    # ============================================================== pattern
    def _blocks(self):
        """The entries the Newton matrix receives, in evaluation order, as linear indices
        row·N + col (−1 for entries on ground coordinates, which are dropped).

        Returns (keys, expand): candidate keys and, for every entry in evaluation order,
        the position of its key in ``keys``.  Elements on the same coordinates (e.g. the
        spring-dampers and joint equations of one pair of bodies, or a body's inertia,
        weight and normalisation) share one block of keys, so the pattern is sorted out
        of far fewer keys than there are entries.
        """
        N = self.n + self.m

        def coord(idx):
            return np.where(idx >= self.n, -1, idx)

        groups = self.groups
        # the distinct coordinate lists of all elements, per width
        by_width = {}
        for g in groups:
            by_width.setdefault(g.dof_index.shape[1], []).append(coord(g.dof_index))
        keys, base, which = [], {}, {}
        size = 0
        for w, idx in by_width.items():
            distinct, which[w] = _unique_rows(np.concatenate(idx))
            r = np.repeat(distinct, w, axis=1)
            c = np.tile(distinct, (1, w))
            keys.append(np.where((r >= 0) & (c >= 0), r.astype(np.int64) * N + c, -1).ravel())
            base[w] = size
            size += keys[-1].size
        expand, start = [], dict.fromkeys(by_width, 0)
        for g in groups:
            e, w = g.dof_index.shape
            rows = which[w][start[w]:start[w] + e]
            start[w] += e
            expand.append((base[w] + rows[:, None] * (w * w) + np.arange(w * w)).ravel())
        for g in self.coupled_groups:    # ∂F/∂λ (upper right, at the multipliers' columns)
            idx = coord(g.dof_index)
            cols = self.n + np.asarray(g.coupling_index, dtype=np.int64)          # (n_el, k)
            kk = np.where(idx[:, :, None] >= 0, idx[:, :, None].astype(np.int64) * N + cols[:, None, :], -1).ravel()
            keys.append(kk)
            expand.append(size + np.arange(kk.size))
            size += kk.size
        for g, off in zip(self.constraint_groups, self.constraint_offsets):
            idx = coord(g.dof_index)
            r = np.broadcast_to((self.n + off + np.arange(len(g)))[:, None], idx.shape).astype(np.int64)
            lower = np.where(idx >= 0, r * N + idx, -1).ravel()                    # Φ_q  (lower left)
            upper = np.where(idx >= 0, idx.astype(np.int64) * N + r, -1).ravel()   # Φ_qᵀ (upper right)
            keys += [lower, upper]
            expand += [size + np.arange(lower.size), size + lower.size + np.arange(upper.size)]
            size += 2 * lower.size
        empty = np.zeros(0, dtype=np.int64)
        return (np.concatenate(keys) if keys else empty), (np.concatenate(expand) if expand else empty)

    def _build_pattern(self):
        key = _digest(self.n, self.m, *[g.dof_index for g in self.groups],
                      *[g.coupling_index for g in self.coupled_groups], self.constraint_offsets)
        cached = _PATTERNS.get(key)
        if cached is None:
            self._make_pattern()
            _PATTERNS.put(key, (self.nnz, self._pos, self.dense, self._keys, self._dense_pos, self._vec_index,
                                self._pattern))
        else:
            self.nnz, self._pos, self.dense, self._keys, self._dense_pos, self._vec_index, self._pattern = cached

    def _make_pattern(self):
        keys, expand = self._blocks()
        N = self.n + self.m
        keep = keys >= 0
        uniq, pos = np.unique(keys[keep], return_inverse=True)
        self.nnz = len(uniq)
        # entries on ground coordinates go to one extra trash slot at the end
        key_pos = np.full(len(keys), self.nnz)
        key_pos[keep] = pos.reshape(-1)
        self._pos = key_pos[expand]
        self._keys = uniq
        groups = self.groups
        vec = np.concatenate([g.dof_index.ravel() for g in groups]) if groups else np.zeros(0, int)
        self._vec_index = np.where(vec >= self.n, self.n, vec)
        # the CSR matrix of the sorted unique (row, col) pairs stores .data in that order
        indptr = np.zeros(N + 1, dtype=int)
        np.cumsum(np.bincount(uniq // N, minlength=N), out=indptr[1:])
        self._pattern = sp.csr_matrix((np.zeros(self.nnz), uniq % N, indptr), shape=(N, N))
        assert self._pattern.nnz == self.nnz and self._pattern.has_sorted_indices
        # small systems without a cheaper band are solved densely (linalg.dense_storage, the
        # one rule of the Python and compiled paths): scatter straight into N×N
        self.dense = dense_storage(self._pattern)
        self._dense_pos = np.append(uniq, N * N)[self._pos] if self.dense else None  # else made when needed


    # ============================================================ evaluation
    def constraints(self, qe, t):
        out = np.empty(self.m)
        for g, off in zip(self.constraint_groups, self.constraint_offsets):
            out[off:off + len(g)] = g.evaluate(qe, t)[0]
        return out

    def constraint_jacobian(self, qe, t, dense=False):
        """Φ_q as a sparse (m × n) matrix (or a dense array)."""
        rows, cols, vals = [], [], []
        m = 0
        for g in self.constraint_groups:
            _, Jq = g.evaluate(qe, t)
            idx = g.dof_index
            ok = idx < self.n
            rows.append(m + np.nonzero(ok)[0]), cols.append(idx[ok]), vals.append(Jq[ok])   # row-major, as idx[ok]
            m += len(g)
        rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
        if dense:   # entries on the same place summed in order from 0.0, as np.add.at would
            return np.bincount(rows * self.n + cols, weights=vals, minlength=m * self.n).reshape(m, self.n)
        return sp.csr_matrix((vals, (rows, cols)), shape=(m, self.n))

    def constraint_time_derivative(self, qe, t):
        return np.concatenate([g.time_derivative(qe, t) for g in self.constraint_groups]) if self.m else np.zeros(0)

    def gamma(self, qe, ve, t):
        return np.concatenate([g.gamma(qe, ve, t) for g in self.constraint_groups]) if self.m else np.zeros(0)

    def _tangent_maps(self, delta):
        """For q = q_b ⊕ Δ: a function right-multiplying a group's blocks (columns in
        increment space) by the tangent operator T(Δ) of its Lie-group bodies."""
        if delta is None or self.additive:
            return None
        return tangent_map([(kind, kind.tangent(delta[vb].reshape(-1, kind.nv)), vi[:, 0])
                            for (kind, _, vi), (_, _, vb) in zip(self._lie, self._lie_blocks)], self.n_ext,
                           self._tangent_cache)

    def evaluate(self, q, v, a, lam, t, *, cM=1.0, cD=0.0, cK=0.0, terms=frozenset(JACOBIAN_TERMS),
                 load_factor=1.0, matrix=True, tangent=None, coupling=True, set_valued=False):
        """Residual F (n,), constraints Φ (m,) and, if asked, the Newton matrix
        (a dense array for small systems, else CSR with the fixed pattern).

        F = M a + Q_v − Q + Φ_qᵀ λ;  matrix = [[c_M M + c_D ∂F/∂q' + c_K ∂F/∂q, Φ_qᵀ], [Φ_q, 0]].
        ∂F/∂q and Φ_q are derivatives along increments at q.  If q = q_b ⊕ Δ and the
        unknowns move Δ, pass ``tangent=Δ``: their columns are then multiplied by the
        tangent operator T(Δ) of Lie-group bodies, giving ∂/∂Δ exactly (no effect for
        vector kinds).  Forces that depend on multipliers add ∂F/∂λ to the upper right block
        (``coupling=False`` leaves it out).  ``set_valued=True`` leaves out the forces with a
        set-valued law (:class:`~flexmbd.groups.FrictionGroup`), which a solver that treats
        them as such adds itself.  Every group contributes through :meth:`flexmbd.groups.Group.contribute`;
        contributions are concatenated in a fixed order and summed with one ``bincount``
        each for the vector and the matrix (index maps from the pattern).
        """
        qe, ve = self.extend(q), self.extend_velocity(v)
        ae = self.extend_velocity(a)
        if self.compiled is not None and len(terms) == len(JACOBIAN_TERMS) and (coupling or not self.coupled_groups):
            return self.compiled.evaluate(qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix, set_valued)
        ctx = EvalContext(qe, ve, ae, lam, t, cM, cD, cK, load_factor, matrix, terms,
                          self._tangent_maps(tangent) if matrix else None, set_valued)
        Phi = np.empty(self.m)
        coupling_block = coupling
        vecs, blocks, coupling, jac_blocks = [], [], [], []
        for g in self.groups:
            c = g.contribute(ctx)
            vecs.append(c.F.ravel())
            if c.phi is not None:
                Phi[g.first_row:g.first_row + len(g)] = c.phi
            if matrix:
                blocks.append(c.B.ravel() if c.B is not None else np.zeros(g.dof_index.size * g.dof_index.shape[1]))
                if g.coupling_index is not None:
                    coupling.append(c.C.ravel() if c.C is not None and coupling_block else
                                    np.zeros(g.dof_index.size * g.coupling_index.shape[1]))
                if c.Jq is not None:
                    jac_blocks.append((c.Jq.ravel(), c.JqT.ravel()))
        F = np.bincount(self._vec_index, weights=np.concatenate(vecs), minlength=self.n + 1)[: self.n]
        if not matrix:
            return F, Phi, None
        blocks += coupling            # ∂F/∂λ (upper right)
        for jl, ju in jac_blocks:
            blocks += [jl, ju]        # Φ_q T (lower left), Φ_qᵀ (upper right)
        return F, Phi, self._scatter_matrix(np.concatenate(blocks))

    # ======================================================= energies, output
    def kinetic_energy(self, q, v):
        qe, ve = self.extend(q), self.extend_velocity(v)
        return float(sum(g.kinetic_energy(qe, ve) for g in self.groups))

    def potential_energy(self, q, t):
        qe = self.extend(q)
        return float(sum(g.potential_energy(qe, t) for g in self.groups))

    def dissipation_power(self, q, v, t, lam=None):
        qe, ve = self.extend(q), self.extend_velocity(v)
        return float(sum(g.dissipation_power(qe, ve, t, lam) for g in self.groups))

    def external_power(self, q, v, t, lam):
        """Power of the loads and prescribed motions acting from outside the system."""
        qe, ve = self.extend(q), self.extend_velocity(v)
        return float(sum(g.external_power(qe, ve, t, lam) for g in self.groups))

    def mass_matrix(self, q):
        qe = self.extend(q)
        rows, cols, vals = [], [], []
        for g in self.body_groups:
            M = g.mass_matrix(qe[g.config_index])
            idx = g.dof_index
            rows.append(np.repeat(idx, idx.shape[1], axis=1).ravel())
            cols.append(np.tile(idx, (1, idx.shape[1])).ravel())
            vals.append(M.ravel())
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(self.n, self.n))

    def describe_row(self, i):
        """Which body coordinate or which joint equation row i of the Newton system is."""
        if i < self.n:
            return f"equation of motion of {self.velocity_names[i]}"
        k = i - self.n
        return f"constraint of {self.equation_owner[k]!r} ({self.equation_label[k]})"


def freeze_reporting(model, redundancy: str | None = None, system: "System | None" = None) -> "System":
    """The system a solver works on: ``system`` if given, else ``model.freeze()`` (with
    ``redundancy``, "remove" by default, or "keep"), its redundant-constraint warnings
    pointing at the solver's caller.  ``redundancy`` with a given ``system`` is a
    ValueError: that system was frozen already."""
    if system is not None:
        if redundancy is not None:
            raise ValueError("redundancy applies when the solver freezes the model; the given system is frozen "
                             "already (pass redundancy to model.freeze instead)")
        return system
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RedundantConstraintWarning)
        system = model.freeze() if redundancy is None else model.freeze(redundancy=redundancy)
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=user_stacklevel())
    return system


#: what freezing finds from the model's structure alone, kept for models of the same
#: structure (a parameter study, a benchmark's repeats): the sparsity pattern by the
#: groups' coordinate indices, the redundant equations by Φ_q at q0.  The arrays are
#: shared between systems and never modified (not marked read-only: Numba would compile
#: its kernels again for read-only arguments)
_PATTERNS, _DEPENDENT = _Recent(), _Recent()


def _block(rows: np.ndarray) -> "slice | np.ndarray":
    """Index rows (N, w) as the slice of the flat vector they cover when they are
    consecutive (row-major), else the rows themselves."""
    flat = rows.ravel()
    if flat.size and np.array_equal(flat, np.arange(flat[0], flat[0] + flat.size)):
        return slice(int(flat[0]), int(flat[0]) + flat.size)
    return rows


def _unique_rows(a):
    """(distinct rows of the 2-d integer array a in lexicographic order, for every row of a
    the index of its distinct row); ``np.unique(a, axis=0, return_inverse=True)``, by lexsort."""
    order = np.lexsort(a.T[::-1])
    b = a[order]
    new = np.ones(len(a), dtype=bool)
    np.any(b[1:] != b[:-1], axis=1, out=new[1:])
    inverse = np.empty(len(a), dtype=int)
    inverse[order] = np.cumsum(new) - 1
    return b[new], inverse


def _matvec(A, x):
    """A[k] @ x[k] for stacks A (N, r, c), x (N, c) (the same rounding as one ``@`` per row)."""
    return np.matmul(A, x[:, :, None])[:, :, 0]


def _by_kind(bodies) -> dict:
    """{kind: its bodies in model order}, kinds in the order they first appear."""
    out = {}
    for b in bodies:
        out.setdefault(b.kind, []).append(b)
    return out


def _initial_rotations(bodies, by_kind=None):
    """(len(bodies), 3, 3): ``model.body_rotation`` of every body, indexed by body.index,
    evaluated for all bodies of a kind at once (``by_kind``: :func:`_by_kind` of the bodies)."""
    out = np.empty((len(bodies), 3, 3))
    for kind, bs in (by_kind if by_kind is not None else _by_kind(bodies)).items():
        out[[b.index for b in bs]] = kind.orientation_matrix(np.array([b.orientation for b in bs], dtype=float))
    out.flags.writeable = False
    return out


def _gram_has_full_rank(unit_rows, tol):
    """True if the sparse LU (diagonal pivots) of Φ̂ Φ̂ᵀ has no pivot below tol."""
    import scipy.sparse.linalg as spla

    G = (unit_rows @ unit_rows.T).tocsc()
    try:
        lu = spla.splu(G, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    except RuntimeError:  # exactly singular
        return False
    # pivots of a unit-diagonal SPD matrix lie in (0, 1]; σ_min(Φ̂)² ≥ min pivot / m
    return bool(np.min(np.abs(lu.U.diagonal())) > tol)


class RedundantConstraintWarning(UserWarning):
    pass

provide("freeze", System)
