"""Why the roughness and dent responses of P5's rig differ from P5's figures: the numbers
docs/solvers/tmm.md ("The P5 rig: the differences explained") quotes.

    PYTHONPATH=. python -m benchmarks.p5_rig_diagnostics [dent|geometry|sensitivity|transfer|roughness]

1. geometry: does the wheel follow P5's dent?  The envelope of the wheel circle on the roller
   against the dent (and against the closed-form offset curve, tests/test_tmm_lumped.py), the
   contact-patch filter at the dent's and the roughness's wavelengths;
2. dent: its imposed acceleration (d/2)(2πv/l)² against the static load per unsprung mass
   (closed form); the response and contact force for depths 0.3 … 0.02 mm, flexible and
   rigid, and with a bilateral (linearised, never opening) contact;
3. sensitivity: the flexible/rigid comparison at the axle box over documented ranges of the
   wheelset data (box mass, bearing stiffness and damping, axle damping, rollers, suspension);
4. transfer: the linear transfer from roller roughness to axle-box acceleration, mid-span
   acceleration and contact force, flexible against rigid, by frequency;
5. roughness: ISO 3095's limit spectrum scaled to P5's 0.03 mm, the level that gives P5's
   response, and the spectrum split at λ = v/500 Hz.
"""
from __future__ import annotations

import sys

import numpy as np

from flexmbd.examples.p5_rig import ROLLER_RADIUS, dent_run, roughness_run
from flexmbd.tmm import contact
from flexmbd.tmm import irregularity as irr
from flexmbd.tmm import spectra
from flexmbd.tmm.rig import Rig, RigParameters, with_changes

G = 9.81


def _flat(s):
    return np.zeros_like(np.asarray(s, dtype=float))


def _amp(y):
    return max(-float(np.min(y)), float(np.max(y)))


class BilateralRig(Rig):
    """The rig with the Hertz spring linearised at the static load and never opening (the
    NumPy loop: ``run(..., compiled=False)``)."""

    def _contact(self, zw, zr, r):
        return self.P + contact.linear_stiffness(self.P, self.G) * (zr - zw + r)


def _ranges(r, keys=("box1.acc", "wheel4.acc", "axle.mid.acc"), cutoff=1000.0):
    out = []
    for k in keys:
        y = spectra.lowpass(r.t, r[k], cutoff) / G
        out.append(f"{k} {y.min():6.1f} … {y.max():5.1f} g")
    return ", ".join(out)


def geometry():
    rig = Rig()
    R, d, l = rig.p.wheel_radius(), 0.3e-3, 0.3
    prof = irr.dent(0.0, l, d)
    s = np.linspace(-0.05, 0.35, 4001)
    print(f"dent {d * 1e3} mm × {l * 1e3:.0f} mm: bottom curvature (d/2)(2π/l)² = 1/{1 / (0.5 * d * (2 * np.pi / l) ** 2):.1f} m;"
          f" relative curvature of wheel and roller 1/R + 1/R_r = 1/{1 / (1 / R + 1 / ROLLER_RADIUS):.3f} m")
    for label, base in (("rail (flat)", None), ("roller R_r = 0.9 m", ROLLER_RADIUS)):
        path = irr.wheel_centre_path(prof, R, 0.006, 4001, base_radius=base)
        print(f"  wheel-centre envelope on a {label}: bottom {path(0.5 * l) * 1e3:.6f} mm, differs from the dent by "
              f"≤ {np.max(np.abs(path(s) - prof(s))) * 1e6:.2f} µm")
    a = irr.hertz_semi_axis(rig.P[0], R, ROLLER_RADIUS)
    f = irr.contact_filter(prof, a)
    print(f"  Hertz patch semi-length a = {a * 1e3:.2f} mm (73 kN): contact filter 2J₁(ka)/ka = "
          + ", ".join(f"{f.transfer(2 * np.pi / lam):.4f} at {lam * 1e3:.1f} mm" for lam in (0.3, 0.157, 0.0315))
          + f"; the filtered dent differs by ≤ {np.max(np.abs(f(s) - prof(s))) * 1e6:.2f} µm")


def dent(h=2e-5):
    rig = Rig()
    v, d, l = 300 / 3.6, 0.3e-3, 0.3
    imposed = 0.5 * d * (2 * np.pi * v / l) ** 2
    m_half = sum(e.mass() for e in rig.chain.elements) / 2
    print(f"dent 0.3 mm × 300 mm at 300 km/h: passing frequency v/l = {v / l:.1f} Hz, imposed acceleration "
          f"(d/2)(2πv/l)² = {imposed / G:.1f} g; static wheel load {rig.P[0] / 1e3:.1f} kN = "
          f"{rig.P[0] / m_half / G:.1f} g × half the wheelset ({m_half:.0f} kg), "
          f"{rig.P[0] / rig.p.wheel_mass / G:.1f} g × one wheel; contact is kept only if the mass "
          f"following the dent is below P/(imposed) = {rig.P[0] / imposed:.0f} kg")
    for depth in (0.3e-3, 0.1e-3, 0.05e-3, 0.02e-3):
        res = {}
        for flexible in (True, False):
            _, r = dent_run(flexible, t_end=0.06, h=h, depth=depth)
            res[flexible] = r
            lost = np.sum(r["contact1"] <= 0) * (r.t[1] - r.t[0]) * 1e3
            print(f"  depth {depth * 1e3:.2f} mm, {'flexible' if flexible else 'rigid   '}: contact force "
                  f"{r['contact1'].min() / 1e3:5.1f} … {r['contact1'].max() / 1e3:5.1f} kN, open {lost:4.1f} ms; "
                  + _ranges(r), flush=True)
        ratio = {k: _amp(spectra.lowpass(res[False].t, res[False][k], 1000.0))
                 / _amp(spectra.lowpass(res[True].t, res[True][k], 1000.0)) for k in ("box1.acc", "axle.mid.acc")}
        print(f"    rigid/flexible: axle box {ratio['box1.acc']:.2f}, axle mid-span {ratio['axle.mid.acc']:.2f}")
    for flexible in (True, False):
        r = BilateralRig(flexible=flexible).run(300.0, 0.06, h=h, roller=[irr.dent(1.0, l, 0.3e-3), _flat],
                                                compiled=False)
        print(f"  bilateral linear contact, depth 0.30 mm, {'flexible' if flexible else 'rigid   '}: "
              f"{r['contact1'].min() / 1e3:5.0f} … {r['contact1'].max() / 1e3:4.0f} kN; " + _ranges(r), flush=True)


#: documented ranges (docs/solvers/tmm.md, "The P5 rig"): each row changes one value
SENSITIVITY = (("baseline", {}), ("axle box 84 kg", {"box_mass": 84.0}),
               ("bearing 5 × 10⁹ N/m", {"bearing_k": 5e9}), ("bearing c 10⁵ N s/m", {"bearing_c": 1e5}),
               ("axle damping 0.5 %", {"axle_damping": 0.005}), ("axle damping 5 %", {"axle_damping": 0.05}),
               ("roller damping ζ = 0.2", {"roller_c": 7.7e5}), ("roller 5000 kg", {"roller_mass": 5000.0}),
               ("primary 0.75 MN/m", {"primary_k": 7.5e5}), ("axle load 17 t", {"axle_load": 17e3}),
               # P5's one published wheelset datum: third bending at 560 Hz (ours 566 Hz with this axle)
               ("axle Ø 0.23 m (3rd bending 566 Hz)", {"axle_outer": 0.23, "journal_outer": 0.194}))


def sensitivity(h=2e-5):
    print("dent 0.3 mm (and 0.02 mm, contact closed) at 300 km/h, 1000 Hz low-pass: rigid/flexible amplitude")
    for label, kw in SENSITIVITY:
        row = []
        for depth in (0.3e-3, 0.02e-3):
            amp = {}
            for flexible in (True, False):
                rig = Rig(with_changes(RigParameters(), **kw), flexible=flexible)
                r = rig.run(300.0, 0.06, h=h, roller=[irr.dent(1.0, 0.3, depth), _flat])
                amp[flexible] = {k: _amp(spectra.lowpass(r.t, r[k], 1000.0) / G) for k in ("box1.acc", "axle.mid.acc")}
            row.append(f"{depth * 1e3:.2f} mm: box flexible {amp[True]['box1.acc']:5.1f} g rigid "
                       f"{amp[False]['box1.acc']:5.1f} g ({amp[False]['box1.acc'] / amp[True]['box1.acc']:.2f}), "
                       f"mid-span {amp[False]['axle.mid.acc'] / amp[True]['axle.mid.acc']:.2f}")
        print(f"  {label:24s} " + "; ".join(row), flush=True)


def transfer(h=2e-5):
    print("linear transfer roller roughness → rig (0.1 µm rms, λ 50 mm … 2 m, 300 km/h, wheel 4 only):")
    H = {}
    for flexible in (True, False):
        rough = [irr.random_roughness(lambda k: np.ones_like(k), (0.05, 2.0), seed=1, n=2000, rms=1e-7), _flat]
        r = Rig(flexible=flexible).run(300.0, 1.0, h=h, roller=rough)
        keep = r.t > 0.1
        f, Sr = spectra.psd(r.t[keep], r["irregularity1"][keep], 0.05)
        for key in ("box1.acc", "axle.mid.acc", "contact1"):
            H[flexible, key] = np.sqrt(spectra.psd(r.t[keep], r[key][keep], 0.05)[1] / Sr)
    print(f"  {'f [Hz]':>7} {'box flex':>10} {'box rigid':>10} {'r/f':>5} {'mid r/f':>8} {'contact flex':>13} "
          f"{'contact rigid':>14}  [(m/s²)/m, N/m]")
    for fr in (40, 100, 140, 200, 240, 280, 300, 340, 400, 440, 500, 600, 700, 800, 900):
        i = int(np.argmin(np.abs(f - fr)))
        bf, br = H[True, "box1.acc"][i], H[False, "box1.acc"][i]
        print(f"  {f[i]:7.0f} {bf:10.3g} {br:10.3g} {br / bf:5.2f} "
              f"{H[False, 'axle.mid.acc'][i] / H[True, 'axle.mid.acc'][i]:8.2f} {H[True, 'contact1'][i]:13.3g} "
              f"{H[False, 'contact1'][i]:14.3g}")


def roughness(h=2e-5):
    for label, kw in (("ISO 3095 limit scaled to a 0.03 mm peak", {}),
                      ("ISO 3095 limit − 10 dB", {"scale": 10 ** (-10 / 20)}),
                      ("ISO 3095 limit − 16 dB", {"scale": 10 ** (-16 / 20)}),
                      ("ISO 3095 limit − 20 dB", {"scale": 10 ** (-20 / 20)})):
        for flexible in (True, False):
            _, r, k = roughness_run(flexible=flexible, h=h, **kw)
            y = spectra.lowpass(r.t, r["box1.acc"], 500.0)[r.t > 0.1] / G
            print(f"  {label:40s} (× {k:.3f}) {'flexible' if flexible else 'rigid   '}: contact "
                  f"{r['contact1'].min() / 1e3:5.1f} … {r['contact1'].max() / 1e3:5.1f} kN, axle box 1 (500 Hz "
                  f"low-pass) {y.min():6.1f} … {y.max():5.1f} g", flush=True)


if __name__ == "__main__":
    parts = sys.argv[1:] or ["geometry", "dent", "sensitivity", "transfer", "roughness"]
    for name in parts:
        globals()[name]()
