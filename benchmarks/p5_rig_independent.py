"""P5's roller rig by an independent formulation: flexmbd's index-3 multibody solver
(rigid bodies, bushings, geometrically exact SE(3) beams, Hertz contact, a prescribed
roller surface) against the DT-TMM rig (flexmbd/tmm/rig.py) — issue 15.

    PYTHONPATH=. python -m benchmarks.p5_rig_independent [--quick] > benchmarks/p5_rig_independent.txt

The same rig as ``flexmbd.tmm.rig.Rig`` (RigParameters defaults), vertical plane x-z:

* wheelset: axle boxes (rigid), bearings (bushings: vertical k, c and rotational k_θ, c_θ),
  the five hollow axle segments as SE(3) beams (EI, ρA of the TMM segments; shear, axial,
  torsional and out-of-plane bending stiffness ×10⁴ and section rotary inertia ×10⁻⁴ so that
  the beam is the TMM's Euler-Bernoulli beam without rotary inertia), wheels and gearbox as
  rigid bodies fixed to the beam nodes; the rigid wheelset is one rigid body with the parts'
  mass and rotary inertia about its centre of mass;
* frame (1500 kg) with the constant static load, on the primary suspension (bushings);
* rollers (2500 kg) on their supports (bushings to ground), each carrying a massless-like
  "surface" body on a prismatic joint whose height is prescribed by a translation driver:
  the irregularity r(v t) (UserFunction with exact derivatives);
* Hertz contact sphere-plane ``hertz_contact`` with K = G^{-3/2}, G of flexmbd.tmm.contact,
  opening when δ ≤ 0;
* out-of-plane motion (y, rotations about x and z, axial x) held by ground bushings that
  measure exactly zero in plane motion (penalty 10⁹ N/m, 10⁹ N m/rad), so they do not act on
  the in-plane response;
* the start: the static equilibrium (``initial="static"``); Newmark β = 1/4, γ = 1/2 as the TMM.

The TMM's axle damping is stiffness-proportional β_R K; flexmbd's SE(3) beams have no
material damping, so the comparison is made with ``axle_damping = 0`` in both (the TMM's
own figures with the default 2 % are printed beside; docs/solvers/tmm.md shows the axle
damping moves the dent ratios by a few per cent).
"""
from __future__ import annotations

import sys
import time

import numpy as np

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.timefunctions import UserFunction
from flexmbd.tmm import contact, spectra
from flexmbd.tmm import irregularity as irr
from flexmbd.tmm.rig import G_ACC, Rig, RigParameters, with_changes

PENALTY = 1e9          # N/m and N m/rad on the out-of-plane directions (zero in plane motion)
STIFF = 1e3            # factor on the out-of-plane/axial/shear/torsion stiffness of the beams
TINY = 1e-4            # factor on the section rotary inertia (the TMM segments have none)
SPEED = 300.0          # km/h
DENT_START, DENT_LENGTH = 1.0, 0.3
SETTLE = 1.0           # s of TMM settling


def _section(p: RigParameters, outer: float):
    inner = p.axle_inner
    I = np.pi * (outer ** 4 - inner ** 4) / 64
    A = np.pi * (outer ** 2 - inner ** 2) / 4
    EI, EA, rhoA = p.E * I, p.E * A, p.density * A
    return Section.user(EA=STIFF * EA, GA2=STIFF * EA, GA3=STIFF * EA, GJ=STIFF * EI, EI2=EI, EI3=STIFF * EI,
                        rhoA=rhoA, rhoI2=TINY * p.density * I, rhoI3=TINY * p.density * I), rhoA


def stations(p: RigParameters) -> np.ndarray:
    """Axial positions: box 1 / journal start, wheel 4, segment 5|6 joint, gearbox, wheel 9, box 12."""
    return np.cumsum([0.0, *p.lengths])


def _hold(m, body, at, free_x=True, pitch=True, name=None):
    """Ground bushing holding a body's out-of-plane motion (y, rotations about x and z;
    x too unless ``free_x``); z and, if ``pitch``, the rotation about y stay free."""
    m.bushing(fm.GROUND, body, at=at, stiffness=(0.0 if free_x else PENALTY, PENALTY, 0.0),
              rotational_stiffness=(PENALTY, 0.0 if pitch else PENALTY, PENALTY), name=name)


def dent_profile(depth: float, speed_kmh: float = SPEED):
    """The cosine dent r(v t) on roller 1 (flexmbd.tmm.irregularity.dent) with exact
    time derivatives, as a translation driver's function."""
    v = speed_kmh / 3.6
    k = 2 * np.pi / DENT_LENGTH
    d = depth

    def inside(t):
        x = v * t - DENT_START
        return x, (x >= 0.0) & (x <= DENT_LENGTH)

    def f(t):
        x, ok = inside(t)
        return float(np.where(ok, -0.5 * d * (1 - np.cos(k * x)), 0.0))

    def df(t):
        x, ok = inside(t)
        return float(np.where(ok, -0.5 * d * k * v * np.sin(k * x), 0.0))

    def ddf(t):
        x, ok = inside(t)
        return float(np.where(ok, -0.5 * d * (k * v) ** 2 * np.cos(k * x), 0.0))
    return UserFunction(f, df, ddf)


def rigid_wheelset_data(p: RigParameters):
    """Mass, centre of mass x and rotary inertia about it of the rigid wheelset's parts
    3-10 (axle segments m L²/12 as the TMM's rigid segments, wheels, gearbox)."""
    x = stations(p)
    _, rA_j = _section(p, p.journal_outer)
    _, rA_b = _section(p, p.axle_outer)
    parts = []                                             # (mass, x of centre, own J)
    for i, L in enumerate(p.lengths):
        rA = rA_j if i in (0, 4) else rA_b
        m = rA * L
        parts.append((m, x[i] + 0.5 * L, m * L * L / 12))
    parts += [(p.wheel_mass, x[1], p.wheel_J), (p.wheel_mass, x[4], p.wheel_J), (p.gearbox_mass, x[3], p.gearbox_J)]
    M = sum(m for m, _, _ in parts)
    xc = sum(m * xi for m, xi, _ in parts) / M
    J = sum(J + m * (xi - xc) ** 2 for m, xi, J in parts)
    return M, xc, J


def build(p: RigParameters | None = None, flexible: bool = True, depth: float = 0.0, elements: int = 2,
          order: int = 3, speed_kmh: float = SPEED, wheelset_only: bool = False):
    """The rig as an index-3 model; ``wheelset_only``: parts 3-10 alone, free-free (for
    the natural frequencies).  Returns (model, names of the output bodies)."""
    p = p or RigParameters()
    x = stations(p)
    R = p.wheel_radius()
    m = fm.Model(gravity=(0.0, 0.0, -G_ACC), name="p5-rig-index3")
    big = (1.0, 1.0, 1.0)
    out = {}
    if flexible:
        beams = []
        for i, L in enumerate(p.lengths):
            sec, _ = _section(p, p.journal_outer if i in (0, 4) else p.axle_outer)
            beams.append(m.beam(f"axle{i}", section=sec, elements=elements, order=order, start=(x[i], 0, 0),
                                end=(x[i + 1], 0, 0), e2=(0, 1, 0)))
        wheel4 = m.rigid_body("wheel4", mass=p.wheel_mass, inertia=(p.wheel_J, p.wheel_J, p.wheel_J),
                              position=(x[1], 0, 0), parameterization="se3")
        wheel9 = m.rigid_body("wheel9", mass=p.wheel_mass, inertia=(p.wheel_J, p.wheel_J, p.wheel_J),
                              position=(x[4], 0, 0), parameterization="se3")
        gear = m.rigid_body("gearbox7", mass=p.gearbox_mass, inertia=(p.gearbox_J,) * 3, position=(x[3], 0, 0),
                            parameterization="se3")
        m.fixed(beams[0].last, wheel4, at=(x[1], 0, 0))
        m.fixed(wheel4, beams[1].first, at=(x[1], 0, 0))
        m.fixed(beams[1].last, beams[2].first, at=(x[2], 0, 0))
        m.fixed(beams[2].last, gear, at=(x[3], 0, 0))
        m.fixed(gear, beams[3].first, at=(x[3], 0, 0))
        m.fixed(beams[3].last, wheel9, at=(x[4], 0, 0))
        m.fixed(wheel9, beams[4].first, at=(x[4], 0, 0))
        ends = (beams[0].first, beams[4].last)
        out["mid"] = f"{beams[2].name}.first"
    else:
        M, xc, J = rigid_wheelset_data(p)
        body = m.rigid_body("wheelset", mass=M, inertia=(J, J, J), position=(xc, 0, 0), parameterization="se3")
        wheel4 = wheel9 = body
        ends = (body, body)
        out["mid"] = "mid"
        m.marker(body, (x[2], 0, 0), name="mid")
    if wheelset_only and wheelset_only != "boxes":
        return m, out
    if wheelset_only == "boxes":          # parts 1-12 free-free, bearings undamped
        for k, (xb, end) in enumerate(zip((x[0], x[-1]), ends)):
            box = m.rigid_body(f"box{1 if k == 0 else 12}", mass=p.box_mass, inertia=(p.box_J,) * 3,
                               position=(xb, 0, 0), parameterization="se3")
            m.bushing(box, end, at=(xb, 0, 0), stiffness=(PENALTY, PENALTY, p.bearing_k),
                      rotational_stiffness=(PENALTY, p.bearing_k_theta, PENALTY))
        return m, out
    frame = m.rigid_body("frame", mass=p.frame_mass, inertia=big, position=(x[-1] / 2, 0, 0.5), parameterization="se3")
    _hold(m, frame, (x[-1] / 2, 0, 0.5), free_x=False, pitch=False, name="frame_hold")   # vertical only (TMM)
    F_p = p.axle_load * G_ACC - _wheelset_mass(p) * G_ACC
    m.force(frame, (0.0, 0.0, -(F_p - p.frame_mass * G_ACC)), name="static_load")
    for k, (xb, end) in enumerate(zip((x[0], x[-1]), ends)):
        name = f"box{1 if k == 0 else 12}"
        box = m.rigid_body(name, mass=p.box_mass, inertia=(p.box_J,) * 3, position=(xb, 0, 0), parameterization="se3")
        _hold(m, box, (xb, 0, 0), free_x=k == 1, name=f"{name}_hold")
        m.bushing(box, end, at=(xb, 0, 0), stiffness=(PENALTY, PENALTY, p.bearing_k), damping=(0, 0, p.bearing_c),
                  rotational_stiffness=(PENALTY, p.bearing_k_theta, PENALTY), rotational_damping=(0, p.bearing_c_theta, 0),
                  name=f"bearing{2 if k == 0 else 11}")
        m.bushing(frame, box, at=(xb, 0, 0), stiffness=(0.0, 0.0, p.primary_k), damping=(0, 0, p.primary_c),
                  name=f"primary{k + 1}")
    G = contact.hertz_constant(R, p.profile)
    delta0 = [contact.static_deflection(P, G) for P in Rig(p, flexible=False).P]
    for k, (xw, wheel) in enumerate(zip((x[1], x[4]), (wheel4, wheel9))):
        zs = -R + delta0[k]
        roller = m.rigid_body(f"roller{k + 1}", mass=p.roller_mass, inertia=big, position=(xw, 0, zs - 0.9),
                              parameterization="se3")
        m.bushing(fm.GROUND, roller, at=(xw, 0, zs - 0.9), stiffness=(PENALTY, PENALTY, p.roller_k),
                  damping=(0, 0, p.roller_c), rotational_stiffness=(PENALTY,) * 3, name=f"support{k + 1}")
        surface = m.rigid_body(f"surface{k + 1}", mass=1e-3, inertia=(1e-6,) * 3, position=(xw, 0, zs),
                               parameterization="se3")
        m.prismatic(roller, surface, at=(xw, 0, zs), axis=(0, 0, 1), name=f"guide{k + 1}")
        r = dent_profile(depth, speed_kmh) if (k == 0 and depth > 0) else 0.0
        m.translation_driver(roller, surface, at=(xw, 0, zs), axis=(0, 0, 1), displacement=r, name=f"profile{k + 1}")
        m.hertz_contact(surface, wheel, center=(xw, 0, 0), radius=R, normal=(0, 0, 1), point=(xw, 0, zs),
                        stiffness=G ** -1.5, name=f"contact{k + 1}")
    return m, out


def _wheelset_mass(p: RigParameters) -> float:
    M, _, _ = rigid_wheelset_data(p)
    return M + 2 * p.box_mass


def simulate(p: RigParameters, flexible: bool, depth: float, t_end: float, h: float = 2e-5, **build_kw):
    """Static equilibrium (increment test: the stiff beams' residual sits at rounding
    noise), then Newmark (β = 1/4, γ = 1/2) over ``t_end``.  Returns (result, static
    result, output names, wall seconds)."""
    from flexmbd.solvers.dynamics import simulate as run
    from flexmbd.solvers.initial import initial_state

    m, out = build(p, flexible, depth, **build_kw)
    system = m.freeze()
    t0 = time.perf_counter()
    st = m.static_equilibrium(system=system, load_steps=1, convergence="increment", tol=1e-12)
    if not st.success:
        raise RuntimeError(f"static equilibrium not found: {st.message}")
    state, _ = initial_state(system, 0.0, q=st.q[-1])
    res = run(m, t_end=t_end, h=h, system=system, start=state, integrator=fm.Newmark(), convergence="increment",
              tol=1e-11, raise_on_failure=True)
    return res, st, out, time.perf_counter() - t0


def _z_acc(res, body: str, offset: float = 0.0) -> np.ndarray:
    """Vertical acceleration of a body's node (``offset`` along x: a point of a rigid body,
    z̈ − θ̈_y·offset); SE(3) velocities are body-frame twists, whose rates equal the global
    ones to the first order of the rotations (≈ 10⁻⁴ rad here)."""
    names = res.system.velocity_names
    a = res.qdd[:, names.index(f"{body}.U_z")]
    if offset:
        a = a - offset * res.qdd[:, names.index(f"{body}.theta_y")]
    return a


def outputs(res, p: RigParameters, flexible: bool) -> dict:
    """The TMM rig's outputs from an index-3 result: box1.acc, wheel4.acc, axle.mid.acc
    (the station between segments 5 and 6), contact1."""
    x = stations(p)
    if flexible:
        mid, wheel = _z_acc(res, "axle2.n0"), _z_acc(res, "wheel4")
    else:
        _, xc, _ = rigid_wheelset_data(p)
        mid, wheel = _z_acc(res, "wheelset", x[2] - xc), _z_acc(res, "wheelset", x[1] - xc)
    return {"box1.acc": _z_acc(res, "box1"), "wheel4.acc": wheel, "axle.mid.acc": mid,
            "contact1": np.asarray(res["contact1.normal_force"]), "t": np.asarray(res.t)}


def tmm_outputs(p: RigParameters, flexible: bool, depth: float, t_end: float, h: float = 2e-5,
                settle: float = SETTLE) -> dict:
    """The DT-TMM rig with the raw cosine dent on roller 1 (as benchmarks/p5_rig_diagnostics.py),
    settled for ``settle`` seconds: the rig's default 0.2 s leaves the frame's overdamped
    bounce (pole ≈ k/c = 5.9 s⁻¹ under the settling damping) at 1 % of the contact force
    (670 N, 2.8 m/s² at mid-span); 1 s brings it to 10⁻⁵ m/s²."""
    flat = lambda s: np.zeros_like(np.asarray(s, dtype=float))  # noqa: E731
    t0 = time.perf_counter()
    r = Rig(p, flexible=flexible).run(SPEED, t_end, h=h, roller=[irr.dent(DENT_START, DENT_LENGTH, depth), flat],
                                      settle=settle)
    keep = r.t >= -1e-12
    out = {k: r[k][keep] for k in ("box1.acc", "wheel4.acc", "axle.mid.acc", "contact1")}
    out["t"] = r.t[keep]
    out["wall"] = time.perf_counter() - t0
    return out


def filtered(out: dict, key: str, cutoff: float = 1000.0) -> np.ndarray:
    return out[key] if key == "contact1" else spectra.lowpass(out["t"], out[key], cutoff)


def compare(a: dict, b: dict, keys=("box1.acc", "wheel4.acc", "axle.mid.acc", "contact1")) -> dict:
    """max |a − b| / max |b| of the 1000 Hz low-passed histories (contact force raw, its
    static value removed) on the common time grid."""
    n = min(len(a["t"]), len(b["t"]))
    assert np.allclose(a["t"][:n], b["t"][:n], atol=1e-9), "time grids differ"
    out = {}
    for k in keys:
        ya, yb = filtered(a, k)[:n], filtered(b, k)[:n]
        if k == "contact1":
            ya, yb = ya - yb[0], yb - yb[0]
        out[k] = float(np.max(np.abs(ya - yb)) / np.max(np.abs(yb)))
    return out


def amplitude(out: dict, key: str) -> float:
    y = filtered(out, key)
    return max(-float(np.min(y)), float(np.max(y)))


def frequencies(p: RigParameters) -> list[str]:
    """Free-free in-plane frequencies: parts 3-10 and parts 1-12 (bearings undamped), the
    index-3 model's linear modes (flexmbd.solvers.modes) against the frequency-domain TMM."""
    from flexmbd.solvers.modes import linear_modes
    from flexmbd.tmm.elements import SpringDamper
    from flexmbd.tmm.frequency import natural_frequencies
    from flexmbd.tmm.rig import wheelset

    lines = []
    for flexible in (True, False):
        ch = wheelset(p, flexible, 0.0)
        els = [SpringDamper(e.name, e.k, 0.0, e.k_theta, 0.0) if isinstance(e, SpringDamper) else e
               for e in ch.elements]
        for label, parts, which in (("parts 3-10", els[2:10], True), ("parts 1-12", els, "boxes")):
            if not flexible and which is True:
                continue
            ref = natural_frequencies(parts, "free", "free", 1000.0)
            model, _ = build(p, flexible, wheelset_only=which)
            lm = linear_modes(model)
            names = lm.names
            inplane = np.array([n.endswith((".U_z", ".theta_y")) for n in names])
            f = []
            for i, fi in enumerate(lm.frequencies):       # in-plane modes: their kinetic energy in z, θ_y
                shape = np.real(lm.shapes[:, i])
                if 20 < fi < 1000 and np.sum(shape[inplane] ** 2) > 0.5 * np.sum(shape ** 2):
                    f.append(fi)
            f = np.array(f)
            lines.append(f"  {'flexible' if flexible else 'rigid'} wheelset, {label}: FD-TMM "
                         + ", ".join(f"{x:.3f}" for x in ref) + " Hz; index-3 " + ", ".join(f"{x:.3f}" for x in f)
                         + (f" Hz; largest relative difference {np.max(np.abs(f / ref - 1)):.1e}"
                            if len(f) == len(ref) else " Hz (counts differ)"))
    return lines


def main(t_end: float = 0.06, depths=(0.02e-3, 0.3e-3)):
    p = RigParameters(axle_damping=0.0)
    print("P5 rig, dent 300 mm on roller 1 at 300 km/h: DT-TMM (flexmbd.tmm.rig) against flexmbd's index-3 solver")
    print("(SE(3) beams order 3, 2 elements per segment; rigid bodies, bushings, Hertz contact, prescribed surface);")
    print(f"axle damping 0 in both; h = 2e-5 s in both; TMM settled {SETTLE} s; window {t_end} s; 1000 Hz low-pass.")
    print("Free-free frequencies (in plane):")
    for line in frequencies(p):
        print(line, flush=True)
    rig = Rig(p, flexible=True)
    print(f"Static contact forces (rigid statics, the TMM rig's P): {rig.P[0]:.3f}, {rig.P[1]:.3f} N")
    amps = {}
    for depth in depths:
        for flexible in (True, False):
            res, st, _, wall = simulate(p, flexible, depth, t_end)
            a = outputs(res, p, flexible)
            b = tmm_outputs(p, flexible, depth, t_end)
            which = "flexible" if flexible else "rigid"
            c2 = np.asarray(res["contact2.normal_force"])[0]
            print(f"depth {depth * 1e3:.2f} mm, {which}: index-3 static contact {a['contact1'][0]:.3f}, {c2:.3f} N "
                  f"({len(a['t']) - 1} steps, {wall:.0f} s wall); TMM {b['contact1'][0]:.3f} N")
            err = compare(a, b)
            for k in ("box1.acc", "wheel4.acc", "axle.mid.acc", "contact1"):
                ya, yb = filtered(a, k), filtered(b, k)
                unit, sc = ("kN", 1e-3) if k == "contact1" else ("g", 1 / G_ACC)
                print(f"  {k:13s} index-3 {ya.min() * sc:8.2f} … {ya.max() * sc:7.2f} {unit}, TMM {yb.min() * sc:8.2f} … "
                      f"{yb.max() * sc:7.2f} {unit}; max difference / max |TMM| {err[k]:.4f}", flush=True)
            open_a = np.sum(a["contact1"] <= 0) * 2e-5 * 1e3
            open_b = np.sum(b["contact1"] <= 0) * 2e-5 * 1e3
            print(f"  contact open: index-3 {open_a:.2f} ms, TMM {open_b:.2f} ms")
            for k in ("box1.acc", "axle.mid.acc"):
                amps[depth, flexible, k] = (amplitude(a, k), amplitude(b, k))
        for k in ("box1.acc", "axle.mid.acc"):
            i3 = amps[depth, False, k][0] / amps[depth, True, k][0]
            tm = amps[depth, False, k][1] / amps[depth, True, k][1]
            print(f"  depth {depth * 1e3:.2f} mm, rigid/flexible amplitude at {k}: index-3 {i3:.3f}, TMM {tm:.3f}")
    p2 = RigParameters()
    print("TMM with the rig's default axle damping (2 %, stiffness-proportional) for reference:")
    for depth in depths:
        ra = {f: tmm_outputs(p2, f, depth, t_end) for f in (True, False)}
        print(f"  depth {depth * 1e3:.2f} mm: rigid/flexible box {amplitude(ra[False], 'box1.acc') / amplitude(ra[True], 'box1.acc'):.3f}, "
              f"mid-span {amplitude(ra[False], 'axle.mid.acc') / amplitude(ra[True], 'axle.mid.acc'):.3f}")


if __name__ == "__main__":
    main(0.03 if "--quick" in sys.argv else 0.06)
