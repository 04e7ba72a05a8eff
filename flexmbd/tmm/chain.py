"""A DT-TMM chain: elements between two boundaries, advanced by Newmark-β steps solved
with the Riccati transfer (P5, sections on the DT-TMM of the wheelset).

Each step: Newmark predictors q*, q̇* of every element's coordinates; the elements' end
compliances C and b (vectorised over elements, flexmbd/tmm/elements.py); the Riccati
sweep for the station forces and accelerations; the elements' coordinate accelerations
q̈ = D⁻¹(Uᵀ g + r) and the Newmark update.  Station vectors are also given in P5's order
W = [M, Q, θ'', z''] (:meth:`Chain.W`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ModelError
from . import boundary, riccati
from .elements import BeamSegment, RigidBody, SpringDamper


class Chain:
    """Elements from the left boundary to the right one; ``beta``, ``gamma``: Newmark
    parameters (default the trapezoidal rule, P5's Newmark-β)."""

    def __init__(self, elements: Sequence, left: str = "free", right: str = "free",
                 beta: float = 0.25, gamma: float = 0.5):
        if not elements:
            raise ModelError("a chain needs at least one element", key="elements")
        names = [e.name for e in elements]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ModelError(f"element names must be unique; repeated: {', '.join(sorted(dup))}",
                             element=sorted(dup)[0], key="name")
        if not (0.0 < beta <= 0.5 and 0.5 <= gamma <= 1.0):
            raise ModelError(f"Newmark parameters need 0 < beta ≤ 0.5 and 0.5 ≤ gamma ≤ 1, got beta={beta}, "
                             f"gamma={gamma}", key="newmark")
        self.elements = list(elements)
        self.names = names
        self.left_name, self.right_name = left, right
        self.left = boundary.descriptor(left, "left")
        self.right = boundary.equations(right, "right")
        self.beta, self.gamma = float(beta), float(gamma)
        n = len(elements)
        self.kind = np.array([riccati.SPRING if isinstance(e, SpringDamper) else riccati.MASS for e in elements])
        nmax = max([2] + [e.modal()[0].shape[1] for e in elements if not isinstance(e, SpringDamper)])
        self.nmax = nmax
        self.U = np.zeros((n, 4, nmax))
        self.m = np.ones((n, nmax))
        self.c = np.zeros((n, nmax))
        self.k = np.zeros((n, nmax))
        self.ks = np.zeros((n, 2))
        self.cs = np.zeros((n, 2))
        for i, e in enumerate(elements):
            if isinstance(e, SpringDamper):
                self.ks[i], self.cs[i] = e.stiffness()
            elif isinstance(e, (BeamSegment, RigidBody)):
                U, m, c, k = e.modal()
                j = U.shape[1]
                self.U[i, :, :j], self.m[i, :j], self.c[i, :j], self.k[i, :j] = U, m, c, k
            else:
                raise ModelError(f"{getattr(e, 'name', e)!r}: not a DT-TMM element", key="elements")
        self.mass_el = self.kind == riccati.MASS
        self.spring_el = ~self.mass_el
        # a rigid spring direction keeps zero relative motion
        self._rigid = np.isinf(self.ks) & self.spring_el[:, None]
        self.t = 0.0
        self.q = np.zeros((n, nmax))
        self.qd = np.zeros((n, nmax))
        self.qdd = np.zeros((n, nmax))
        self.f = np.zeros((n + 1, 2))
        self.a = np.zeros((n + 1, 2))
        # station s: the end of a neighbouring element with mass (its left neighbour's right end)
        self._station_el = np.empty(n + 1, dtype=int)
        self._station_end = np.empty(n + 1, dtype=int)
        for s in range(n + 1):
            if s > 0 and self.mass_el[s - 1]:
                self._station_el[s], self._station_end[s] = s - 1, 2
            elif s < n and self.mass_el[s]:
                self._station_el[s], self._station_end[s] = s, 0
            else:
                self._station_el[s], self._station_end[s] = -1, 0

    # ------------------------------------------------------------ indices
    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ModelError(f"no element named {name!r} in the chain; elements: {', '.join(self.names)}",
                             element=name) from None

    def zero_load(self) -> np.ndarray:
        return np.zeros((len(self.elements), self.nmax))

    # ------------------------------------------------------------ one step
    def _step_matrices(self, h: float):
        """D, D⁻¹, C and the springs' D_s for step h: they depend on h and the element data
        only, so they are kept until h or one of the arrays m, c, k, ks, cs is replaced
        (assign new arrays to change them; they are not watched for in-place edits)."""
        key = (h, id(self.m), id(self.c), id(self.k), id(self.ks), id(self.cs))
        if getattr(self, "_cache_key", None) != key:
            b_, g_ = self.beta, self.gamma
            D = self.m + g_ * h * self.c + b_ * h * h * self.k
            Dinv = 1.0 / D
            UD = self.U * Dinv[:, None, :]
            C = UD @ self.U.transpose(0, 2, 1)
            with np.errstate(invalid="ignore", divide="ignore"):
                keff = b_ * h * h * self.ks + g_ * h * self.cs
                Ds = np.where(self._rigid, 0.0, 1.0 / keff)
                kk = np.where(self._rigid, 0.0, self.ks / keff)
                cc = np.where(self._rigid, 0.0, self.cs / keff)
            Ds[self.mass_el] = kk[self.mass_el] = cc[self.mass_el] = 0.0
            self._cache = (D, Dinv, UD, C, Ds, kk, cc)
            self._cache_key = key
        return self._cache

    def step_equations(self, h: float, load: np.ndarray):
        """Predictors and the step's element relations (C, b, D_s, d_s, q*, q̇*, D, r)."""
        b_, g_ = self.beta, self.gamma
        qs = self.q + h * self.qd + h * h * (0.5 - b_) * self.qdd
        qds = self.qd + h * (1.0 - g_) * self.qdd
        D, Dinv, UD, C, Ds, kk, cc = self._step_matrices(h)
        r = load - self.c * qds - self.k * qs
        b = np.einsum("eik,ek->ei", UD, r)
        # springs: Δ'' = (f − k Δ* − c Δ̇*) / (βh² k + γh c); rigid directions Δ'' = 0
        ds = -(kk * qs[:, :2] + cc * qds[:, :2])
        return C, b, Ds, ds, qs, qds, D, r

    def _update(self, h, f, a, qs, qds, D, r, Ds, ds):
        g = np.concatenate([-f[:-1], f[1:]], axis=1)              # (N, 4) end loads
        qdd = (np.einsum("eki,ek->ei", self.U, g) + r) / D
        sq = np.where(self._rigid, 0.0, Ds * f[:-1] + ds)          # spring Δ''
        qdd[self.spring_el, :2] = sq[self.spring_el]
        qdd[self.spring_el, 2:] = 0.0
        self.qdd = qdd
        self.q = qs + self.beta * h * h * qdd
        self.qd = qds + self.gamma * h * qdd
        self.f, self.a = f, a
        self.t += h

    def step(self, h: float, load: np.ndarray | None = None, method: str = "riccati"):
        """Advance by ``h`` with generalised loads ``load`` (N, nmax) at the new time;
        ``method`` "riccati" (P5) or "direct" (the check)."""
        load = self.zero_load() if load is None else self._checked(load)
        C, b, Ds, ds, qs, qds, D, r = self.step_equations(h, load)
        solve = riccati.sweep if method == "riccati" else riccati.direct
        f, a = solve(self.kind, C, b, Ds, ds, self.left, self.right)
        self._update(h, f, a, qs, qds, D, r, Ds, ds)
        return f, a

    def _checked(self, load: np.ndarray) -> np.ndarray:
        load = np.asarray(load, dtype=float)
        if load.shape != (len(self.elements), self.nmax):
            raise ModelError(f"loads must have shape {(len(self.elements), self.nmax)} (elements × coordinates), "
                             f"got {load.shape}", key="load")
        if not np.all(np.isfinite(load)):
            bad = self.names[int(np.nonzero(~np.all(np.isfinite(load), axis=1))[0][0])]
            raise ModelError(f"{bad}: its load is not finite (NaN or inf)", element=bad, key="load")
        return load

    # ---------------------------------------------- a step with loads found by iteration
    def begin(self, h: float, load: np.ndarray) -> None:
        """Start a step with the base loads ``load``; :meth:`solve` adds loads on a few
        elements (P5's predictor-corrector loop: contact and suspension forces) without
        recomputing the rest, :meth:`commit` ends the step."""
        C, b, Ds, ds, qs, qds, D, r = self.step_equations(h, self._checked(load))
        self._pending = (h, C, b, Ds, ds, qs, qds, D, r)

    def solve(self, index: np.ndarray, value: np.ndarray):
        """Station forces and accelerations of the pending step with extra generalised loads
        ``value`` (k, m) on the first m coordinates of the elements ``index`` (k,), and the
        coordinates q (k, nmax) of those elements at t + h."""
        h, C, b, Ds, ds, qs, qds, D, r = self._pending
        m = value.shape[1]
        UD = self._cache[2]
        b = b.copy()
        b[index] += np.einsum("kij,kj->ki", UD[index, :, :m], value)
        f, a = riccati.sweep(self.kind, C, b, Ds, ds, self.left, self.right)
        g = np.concatenate([-f[index], f[index + 1]], axis=1)
        ri = r[index].copy()
        ri[:, :m] += value
        q = qs[index] + self.beta * h * h * (np.einsum("kji,kj->ki", self.U[index], g) + ri) / D[index]
        return f, a, q

    def commit(self, f: np.ndarray, a: np.ndarray, index: np.ndarray, value: np.ndarray) -> None:
        """End the pending step with the solution of :meth:`solve` for these extra loads."""
        h, C, b, Ds, ds, qs, qds, D, r = self._pending
        r = r.copy()
        r[index, :value.shape[1]] += value
        self._update(h, f, a, qs, qds, D, r, Ds, ds)
        self._pending = None

    def trial(self, h: float, load: np.ndarray):
        """The step's solution without committing it: (f, a, q, q̇, q̈) at t + h (for the
        predictor-corrector loop of P5)."""
        saved = self.get_state()
        self.step(h, load)
        out = (self.f, self.a, self.q, self.qd, self.qdd)
        self.set_state(saved)
        return out

    def get_state(self):
        return tuple(np.copy(x) for x in (self.q, self.qd, self.qdd, self.f, self.a)) + (self.t,)

    def set_state(self, state):
        (self.q, self.qd, self.qdd, self.f, self.a, self.t) = state

    def initialize(self, load: np.ndarray | None = None):
        """Consistent accelerations at the current state (springs' forces given by their
        deflection), by a direct solve."""
        load = self.zero_load() if load is None else load
        r = load - self.c * self.qd - self.k * self.q
        Dinv = 1.0 / self.m
        C = np.einsum("eik,ek,ejk->eij", self.U, Dinv, self.U)
        b = np.einsum("eik,ek->ei", self.U, Dinv * r)
        fs = np.where(self._rigid, 0.0, self.ks * self.q[:, :2] + self.cs * self.qd[:, :2])
        n = len(self.elements)
        zero = np.zeros((n, 2))
        if np.any(self._rigid):
            raise ModelError("initial accelerations with rigid spring directions are not supported; "
                             "give the springs a finite stiffness", key="k")
        f, a = riccati.direct(self.kind, C, b, zero, zero, self.left, self.right, spring_force=fs)
        g = np.concatenate([-f[:-1], f[1:]], axis=1)
        qdd = (np.einsum("eki,ek->ei", self.U, g) + r) / self.m
        qdd[self.spring_el, :2] = a[1:][self.spring_el] - a[:-1][self.spring_el]
        qdd[self.spring_el, 2:] = 0.0
        self.qdd, self.f, self.a = qdd, f, a

    # ------------------------------------------------------------ outputs
    def station_displacement(self, q: np.ndarray | None = None) -> np.ndarray:
        """(z, θ) at every station (N+1, 2), from an adjacent element with mass."""
        q = self.q if q is None else q
        out = np.full((len(self.elements) + 1, 2), np.nan)
        ok = self._station_el >= 0
        el, end = self._station_el[ok], self._station_end[ok]
        ends = np.einsum("eik,ek->ei", self.U[el], q[el])
        out[ok, 0] = ends[np.arange(len(el)), end]
        out[ok, 1] = ends[np.arange(len(el)), end + 1]
        return out

    def station_x(self) -> np.ndarray:
        """Axial position of every station (N+1,): the running sum of the element lengths
        (a spring-damper has none; a rigid body its ``length``)."""
        return np.cumsum([0.0] + [float(getattr(e, "length", 0.0)) for e in self.elements])

    def W(self) -> np.ndarray:
        """Station state vectors in P5's order [M, Q, θ'', z''] (N+1, 4)."""
        return np.column_stack([self.f[:, 1], self.f[:, 0], self.a[:, 1], self.a[:, 0]])

    def simulate(self, h: float, n_steps: int, load=None, method: str = "riccati", initialize: bool = True):
        """Run ``n_steps`` steps; ``load(t) → (N, nmax)`` generalised loads.  Returns t (n+1,)
        and the station accelerations (n+1, N+1, 2), forces (n+1, N+1, 2) and displacements."""
        load = (lambda t: self.zero_load()) if load is None else load
        if initialize:
            self.initialize(load(self.t))
        n = len(self.elements)
        T = np.empty(n_steps + 1)
        A = np.empty((n_steps + 1, n + 1, 2))
        F = np.empty_like(A)
        Z = np.empty_like(A)
        T[0], A[0], F[0], Z[0] = self.t, self.a, self.f, self.station_displacement()
        for i in range(1, n_steps + 1):
            self.step(h, load(self.t + h), method)
            T[i], A[i], F[i], Z[i] = self.t, self.a, self.f, self.station_displacement()
        return T, A, F, Z
