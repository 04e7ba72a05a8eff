"""P5's single-wheelset rolling-vibration rig: a flexible powered wheelset (12 parts, solved
by DT-TMM with Riccati transfer) on two track rollers under a loading frame (explicit,
Zhai's method), coupled by Hertz contact through P5's predictor-corrector loop.

Wheelset parts, left to right (P5's numbering): 1 axle box, 2 bearing, 3 journal
segment, 4 wheel, 5 and 6 axle body segments, 7 gearbox (2/3 of its mass unsprung),
8 axle body segment, 9 wheel, 10 journal segment, 11 bearing, 12 axle box.  The frame
carries the static load through the primary suspension onto the axle boxes; each roller
(vertical only) stands on its bearing support.  P5's parameter table is lost: the values
below are typical of a 300-400 km/h powered wheelset, with sources in docs/solvers/tmm.md.

Per step (P5's loop): Zhai's explicit method predicts the frame and rollers at t + h;
then repeat {suspension and contact forces from the current estimate of the axle boxes
and wheels; one Riccati-transfer Newmark step of the wheelset} until the axle-box and
wheel displacements change by less than ``tol``; finally the frame's and rollers'
accelerations at t + h from the converged forces.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ModelError
from . import contact
from .chain import Chain
from .elements import BeamSegment, RigidBody, SpringDamper

G_ACC = 9.81


@dataclass
class RigParameters:
    """Rig and wheelset data (SI units); defaults documented in docs/solvers/tmm.md."""
    wheel_diameter: float = 0.915        # P5: rolling diameter
    roller_diameter: float = 1.8         # P5
    axle_load: float = 15.0e3            # kg per axle (static)
    # axle (hollow steel): E, density, outer/inner diameters, segment lengths (P5 parts 3, 5, 6, 8, 10)
    E: float = 2.06e11
    density: float = 7850.0
    axle_outer: float = 0.19
    axle_inner: float = 0.065
    journal_outer: float = 0.16
    lengths: tuple = (0.2535, 0.50, 0.45, 0.543, 0.2535)
    n_modes: int = 6
    axle_damping: float = 0.02           # damping ratio of the wheelset's first bending mode (Rayleigh, β_R K)
    wheel_mass: float = 330.0
    wheel_J: float = 20.0                # diametral moment of inertia [kg m²]
    gearbox_mass: float = 300.0          # unsprung share (2/3, P5)
    gearbox_J: float = 10.0
    box_mass: float = 120.0
    box_J: float = 2.0
    bearing_k: float = 1.0e9
    bearing_c: float = 2.0e4
    bearing_k_theta: float = 2.0e6
    bearing_c_theta: float = 500.0     # the box is vertical-only in P5: its tilt is damped
    primary_k: float = 1.18e6            # per axle box
    primary_c: float = 2.0e4
    frame_mass: float = 1500.0
    frame_k: float = 0.0                 # frame to ground: none, the static load is a constant force
    frame_c: float = 0.0
    roller_mass: float = 2500.0          # each, effective vertical
    roller_k: float = 1.5e9
    roller_c: float = 1.0e5
    profile: str = "conical"

    def wheel_radius(self):
        return 0.5 * self.wheel_diameter


def _section(outer, inner, E, rho):
    I = np.pi * (outer ** 4 - inner ** 4) / 64
    A = np.pi * (outer ** 2 - inner ** 2) / 4
    return E * I, rho * A


def wheelset(p: RigParameters, flexible: bool = True, stiffness_damping: float | None = None) -> Chain:
    """The 12-part chain (free ends: the axle boxes); ``flexible=False`` replaces every
    axle segment by a rigid body of the same mass and rotary inertia (P5's rigid wheelset).

    The axle's damping is stiffness-proportional, β_R K with β_R = 2ζ/ω₁ (``axle_damping`` = ζ,
    ω₁ the first free-free bending frequency of parts 3-10, frequency-domain TMM): the
    wheelset's bending modes then have the damping ratios ζ ω/ω₁.  (A ratio of every
    segment's own modes, far above the wheelset's, would leave them almost undamped.)"""
    EIb, mAb = _section(p.axle_outer, p.axle_inner, p.E, p.density)
    EIj, mAj = _section(p.journal_outer, p.axle_inner, p.E, p.density)
    if flexible and stiffness_damping is None:
        stiffness_damping = 0.0
        if p.axle_damping > 0:
            from .frequency import natural_frequencies

            f1 = natural_frequencies(wheelset(p, True, 0.0).elements[2:10], "free", "free", 2000.0)[0]
            stiffness_damping = 2.0 * p.axle_damping / (2.0 * np.pi * f1)

    def seg(name, length, journal):
        EI, mA = (EIj, mAj) if journal else (EIb, mAb)
        if flexible:
            return BeamSegment(name, length, EI, mA, n_modes=p.n_modes, stiffness_damping=stiffness_damping)
        m = mA * length
        return RigidBody(name, m, m * length ** 2 / 12, length=length, com=0.5 * length)

    L = p.lengths
    parts = [RigidBody("box1", p.box_mass, p.box_J),
             SpringDamper("bearing2", p.bearing_k, p.bearing_c, p.bearing_k_theta, p.bearing_c_theta),
             seg("axle3", L[0], True),
             RigidBody("wheel4", p.wheel_mass, p.wheel_J),
             seg("axle5", L[1], False), seg("axle6", L[2], False),
             RigidBody("gearbox7", p.gearbox_mass, p.gearbox_J),
             seg("axle8", L[3], False),
             RigidBody("wheel9", p.wheel_mass, p.wheel_J),
             seg("axle10", L[4], True),
             SpringDamper("bearing11", p.bearing_k, p.bearing_c, p.bearing_k_theta, p.bearing_c_theta),
             RigidBody("box12", p.box_mass, p.box_J)]
    return Chain(parts, "free", "free")


#: the rig's outputs, in the column order of the compiled loop (flexmbd/kernels/tmm_rig.py)
OUTPUT_NAMES = ("box1.acc", "box12.acc", "wheel4.acc", "wheel9.acc", "axle.mid.acc", "contact1", "contact2",
                "frame.acc", "roller1.acc", "roller2.acc", "wheel4.z", "irregularity1")


@dataclass
class RigResult:
    t: np.ndarray
    outputs: dict = field(default_factory=dict)
    iterations: np.ndarray | None = None
    wall_time: float = 0.0
    parameters: RigParameters | None = None
    speed: float = 0.0

    def __getitem__(self, name):
        return self.outputs[name]


class Rig:
    """The coupled rig at a speed [km/h] with irregularities ``roller`` and ``wheel``:
    functions of rolling distance, lists of two (one per wheel/roller) or None."""

    def __init__(self, p: RigParameters | None = None, flexible: bool = True):
        self.p = p = p or RigParameters()
        self.chain = wheelset(p, flexible)
        ch = self.chain
        self.i_box = [ch.index("box1"), ch.index("box12")]
        self.i_wheel = [ch.index("wheel4"), ch.index("wheel9")]
        self.G = contact.hertz_constant(p.wheel_radius(), p.profile)
        # static loads: weights of the parts, the primary suspension's share F_p on the boxes
        m_ws = sum(e.mass() for e in ch.elements)
        self.F_p = p.axle_load * G_ACC - m_ws * G_ACC
        if self.F_p <= 0:
            raise ModelError(f"axle_load ({p.axle_load} kg) must exceed the wheelset's mass ({m_ws:.0f} kg)",
                             key="axle_load")
        self.gravity = ch.zero_load()
        for i, e in enumerate(ch.elements):
            if isinstance(e, BeamSegment):
                self.gravity[i, :e.n_modes] = e.uniform_load(-e.rhoA * G_ACC)
            elif isinstance(e, RigidBody):
                self.gravity[i, 0] = -e.mass() * G_ACC
        # the static wheel loads from the rigid statics (moments about wheel 4)
        x = np.cumsum([0.0] + [getattr(e, "length", 0.0) for e in ch.elements])
        xc = np.array([x[i] + (e.com if isinstance(e, RigidBody) else 0.5 * getattr(e, "length", 0.0))
                       for i, e in enumerate(ch.elements)])
        down = np.array([e.mass() * G_ACC for e in ch.elements])
        for i in self.i_box:
            down[i] += 0.5 * self.F_p
        xw = xc[self.i_wheel]
        P2 = np.sum(down * (xc - xw[0])) / (xw[1] - xw[0])
        self.P = np.array([np.sum(down) - P2, P2])
        self.delta0 = np.array([contact.static_deflection(P, self.G) for P in self.P])
        self.x_stations = x
        self._boost = 1.0

    # ------------------------------------------------------------------ forces
    def _suspension(self, zb, vb, zf, vf):
        """Upward force on the frame from each primary spring (its negative acts on the box)."""
        p = self.p
        return 0.5 * self.F_p + p.primary_k * (zb - zf) + p.primary_c * (vb - vf)

    def _contact(self, zw, zr, r):
        return contact.hertz_force(self.delta0 + zr - zw + r, self.G)

    def _lumped_acc(self, X, V, susp, Fc):
        """Frame and roller accelerations; X = (z_frame, z_roller1, z_roller2)."""
        p = self.p
        boost = self._boost
        af = (np.sum(susp) - self.F_p - p.frame_k * X[0] - boost * p.frame_c * V[0]) / p.frame_mass
        ar = (-Fc + self.P - p.roller_k * X[1:] - boost * p.roller_c * V[1:]) / p.roller_mass
        return np.r_[af, ar]

    # ------------------------------------------------------------------ run
    def run(self, speed_kmh: float, t_end: float, h: float = 2e-5, roller=None, wheel=None,
            settle: float = 0.2, tol: float = 1e-12, max_iter: int = 30, every: int = 1,
            zhai=(0.5, 0.5), compiled: bool | None = None) -> RigResult:
        """Simulate ``settle`` seconds without irregularities (heavily damped axle, to reach
        the static deflection), then ``t_end`` seconds rolling at ``speed_kmh``; outputs every
        ``every``-th step after settling.  ``compiled`` (default: when the kernels are
        available) runs the loop in one compiled function (flexmbd/kernels/tmm_rig.py),
        otherwise the NumPy loop below; both give the same numbers to rounding."""
        from ..kernels import AVAILABLE
        from .zhai import Zhai

        if not (np.isfinite(speed_kmh) and speed_kmh > 0):
            raise ModelError(f"speed must be > 0 km/h, got {speed_kmh!r}", key="speed")
        if not (np.isfinite(h) and 0 < h < t_end):
            raise ModelError(f"time step h must lie in (0, t_end), got {h!r}", key="h")
        if int(every) != every or every < 1:
            raise ModelError(f"every must be a positive integer, got {every!r}", key="every")
        v = speed_kmh / 3.6
        ch = self.chain
        zi = Zhai(*zhai)
        n_settle = int(round(settle / h))
        n_run = int(round(t_end / h))
        irr = self.irregularity(v * h * np.arange(1, n_run + 1), roller, wheel)
        ch.q, ch.qd, ch.t = np.zeros_like(ch.q), np.zeros_like(ch.qd), 0.0     # every run starts undeformed
        ch.initialize(self.gravity + self._box_wheel_loads(np.zeros(2), np.zeros(2), self.P))
        X = np.zeros(3)
        V = np.zeros(3)
        A = self._lumped_acc(X, V, self._suspension(0.0, 0.0, 0.0, 0.0) * np.ones(2), self.P)
        state = {"X": X, "V": V, "A": A, "A_prev": None}
        use_kernel = AVAILABLE if compiled is None else bool(compiled)
        loop = self._loop_compiled if use_kernel else self._loop_numpy
        iters = np.zeros(n_settle + n_run, dtype=np.int32)
        c_nominal, cs_nominal = ch.c.copy(), ch.cs.copy()
        t0 = time.perf_counter()
        # settling: ζ = 0.7 added to the axle's modes, 10× damping elsewhere
        ch.c = ch.c + 2.0 * 0.7 * np.sqrt(ch.k * ch.m)
        ch.cs = 10.0 * ch.cs
        self._boost = 10.0
        try:
            T0, out0 = loop(state, np.zeros((n_settle, 2)), h, zi, tol, max_iter, n_settle + 1, True,
                            iters[:n_settle], t_first=(1 - n_settle) * h)
        finally:
            ch.c, ch.cs, self._boost = c_nominal, cs_nominal, 1.0
        T1, out1 = loop(state, irr, h, zi, tol, max_iter, every, False, iters[n_settle:], t_first=h)
        (out0, zs0), (out1, zs1) = out0, out1
        outputs = {k: np.concatenate([out0[:, i], out1[:, i]]) for i, k in enumerate(OUTPUT_NAMES)}
        outputs["stations.displacement"] = np.concatenate([zs0, zs1])
        return RigResult(np.concatenate([T0, T1]), outputs, iters, time.perf_counter() - t0, self.p, speed_kmh)

    def irregularity(self, s: np.ndarray, roller=None, wheel=None) -> np.ndarray:
        """The irregularity under each wheel (n, 2) at rolling distances ``s``: roller's plus
        wheel's (functions of rolling distance, lists of two, or None), evaluated in blocks."""
        out = np.zeros((len(s), 2))
        for funs in (roller, wheel):
            if funs is None:
                continue
            funs = list(funs)
            if len(funs) != 2:
                raise ModelError(f"irregularities come one per wheel (two), got {len(funs)}", key="irregularity")
            for i, fun in enumerate(funs):
                for k in range(0, len(s), 256):       # blocks: an envelope or filter samples around each s
                    out[k:k + 256, i] += np.asarray(fun(s[k:k + 256]), dtype=float)
        if not np.all(np.isfinite(out)):
            raise ModelError("an irregularity is not finite (NaN or inf)", key="irregularity")
        return out

    def _loop_numpy(self, state, irr, h, zi, tol, max_iter, every, record_last, iters, t_first):
        """The reference loop (P5's predictor-corrector iteration) for ``len(irr)`` steps."""
        ch = self.chain
        ib, iw = self.i_box, self.i_wheel
        idx = np.array(ib + iw)              # the elements loaded by the coupling forces
        X, V, A, A_prev = state["X"], state["V"], state["A"], state["A_prev"]
        n_steps = len(irr)
        out = np.empty((n_steps // every + (1 if record_last else 0), len(OUTPUT_NAMES)))
        zs = np.empty((len(out), len(ch.elements) + 1, 2))
        T = np.empty(len(out))
        mid_station = ch.index("axle6")                              # between segments 5 and 6
        k_out = 0
        for n in range(n_steps):
            t_new = t_first + n * h
            r = irr[n]
            Xn, Vn = zi.predict(X, V, A, A_prev, h)
            qs = ch.q + h * ch.qd + h * h * (0.5 - ch.beta) * ch.qdd
            vbs = ch.qd[ib, 0] + h * (1 - ch.gamma) * ch.qdd[ib, 0]
            zb, zw = qs[ib, 0], qs[iw, 0]
            ch.begin(h, self.gravity)
            for it in range(max_iter):
                # velocities consistent with the displacement estimate (Newmark)
                vb = vbs + ch.gamma / (ch.beta * h) * (zb - qs[ib, 0])
                susp = self._suspension(zb, vb, Xn[0], Vn[0])
                Fc = self._contact(zw, Xn[1:], r)
                value = np.concatenate([-susp, Fc])[:, None]
                f, a, qx = ch.solve(idx, value)
                zb_new, zw_new = qx[:2, 0], qx[2:, 0]
                change = max(np.max(np.abs(zb_new - zb)), np.max(np.abs(zw_new - zw)))
                zb, zw = zb_new, zw_new
                if change < tol:
                    break
            else:
                self._diverged(state, X, V, A, A_prev, t_new, change, max_iter)
            ch.commit(f, a, idx, value)
            iters[n] = it + 1
            susp = self._suspension(zb, ch.qd[ib, 0], Xn[0], Vn[0])
            Fc = self._contact(zw, Xn[1:], r)
            A_prev, A = A, self._lumped_acc(Xn, Vn, susp, Fc)
            X, V = Xn, Vn
            if ((n + 1) % every == 0 or (record_last and n == n_steps - 1)) and k_out < len(out):
                T[k_out] = t_new
                out[k_out] = [ch.qdd[ib[0], 0], ch.qdd[ib[1], 0], ch.qdd[iw[0], 0], ch.qdd[iw[1], 0],
                              ch.a[mid_station, 0], Fc[0], Fc[1], A[0], A[1], A[2], zw[0], r[0]]
                zs[k_out] = ch.station_displacement()
                k_out += 1
        state.update(X=X, V=V, A=A, A_prev=A_prev)
        return T[:k_out], (out[:k_out], zs[:k_out])

    def _loop_compiled(self, state, irr, h, zi, tol, max_iter, every, record_last, iters, t_first):
        """The same loop as :meth:`_loop_numpy` in one compiled function."""
        from ..kernels.tmm_rig import rig_loop

        ch, p = self.chain, self.p
        n_steps = len(irr)
        D, _, UD, C, Ds, kk, cc = ch._step_matrices(h)
        idx = np.array(self.i_box + self.i_wheel, dtype=np.int64)
        out = np.empty((n_steps // every + (1 if record_last else 0), len(OUTPUT_NAMES)))
        zs = np.empty((len(out), len(ch.elements) + 1, 2))
        X, V, A = (np.array(state[k], dtype=float) for k in ("X", "V", "A"))
        have_prev = np.array([state["A_prev"] is not None])
        A_prev = np.zeros(3) if state["A_prev"] is None else np.array(state["A_prev"], dtype=float)
        f, a = ch.f.copy(), ch.a.copy()
        b = self._boost
        rows, bad, change = rig_loop(
            ch.kind.astype(np.int64), ch.U, D, UD, C, Ds, kk, cc, ch.c, ch.k, self.gravity,
            ch.left[0], ch.left[1], ch.right[0], ch.right[1], ch.q, ch.qd, ch.qdd, f, a,
            X, V, A, A_prev, have_prev, idx, ch.index("axle6"), np.ascontiguousarray(irr, dtype=float),
            h, ch.beta, ch.gamma, zi.psi, zi.phi, self.F_p, self.P, self.delta0, self.G,
            p.primary_k, p.primary_c, p.frame_mass, p.frame_k, b * p.frame_c, p.roller_mass, p.roller_k,
            b * p.roller_c, tol, max_iter, every, record_last, out, iters, ch._station_el.astype(np.int64),
            ch._station_end.astype(np.int64), zs)
        ch.f, ch.a = f, a
        steps_done = n_steps if bad < 0 else bad
        ch.t += steps_done * h
        if bad >= 0:
            self._diverged(state, X, V, A, A_prev if have_prev[0] else None, t_first + bad * h, change, max_iter)
        state.update(X=X, V=V, A=A, A_prev=A_prev)
        T = t_first + h * np.array([k for k in range(n_steps)
                                    if (k + 1) % every == 0 or (record_last and k == n_steps - 1)])[:rows]
        return T, (out[:rows], zs[:rows])

    def _diverged(self, state, X, V, A, A_prev, t_new, change, max_iter):
        state.update(X=X, V=V, A=A, A_prev=A_prev)
        raise RuntimeError(f"predictor-corrector loop did not converge at t = {t_new:.6g} s "
                           f"(change {change:.3g} m after {max_iter} iterations)")

    def _box_wheel_loads(self, susp, Fc, P):
        load = self.chain.zero_load()
        for j, i in enumerate(self.i_box):
            load[i, 0] -= susp[j] if P is None else 0.5 * self.F_p
        for j, i in enumerate(self.i_wheel):
            load[i, 0] += Fc[j] if P is None else P[j]
        return load


def with_changes(p: RigParameters, **kw) -> RigParameters:
    """A copy of the parameters with some values changed (ModelError for unknown keys)."""
    unknown = set(kw) - set(RigParameters.__dataclass_fields__)
    if unknown:
        raise ModelError(f"unknown rig parameter(s): {', '.join(sorted(unknown))}", key=sorted(unknown)[0])
    return replace(p, **kw)
