"""Why the roughness and dent responses of P5's rig differ from P5's figures: the numbers
docs/solvers/tmm.md ("The P5 rig: the differences explained") quotes.

    PYTHONPATH=. python -m benchmarks.p5_rig_diagnostics

1. the dent: its imposed acceleration (d/2)(2πv/l)² against the static load per unsprung
   mass (closed form), the wheel-centre path (envelope) against the profile, the response
   and the contact force for depths 0.3 … 0.02 mm, flexible and rigid, and with a
   bilateral (linearised, never opening) contact;
2. the linear transfer from roller roughness to axle-box acceleration and contact force
   (a broadband roughness of 0.1 µm rms, linear regime): the wheel–roller contact resonance;
3. the random roughness split at λ = v/500 Hz: the band the 500 Hz low-pass keeps and the
   shorter waves.
"""
from __future__ import annotations

import numpy as np
from scipy.signal import find_peaks

from flexmbd.tmm import contact
from flexmbd.tmm import irregularity as irr
from flexmbd.tmm import spectra
from flexmbd.tmm.rig import Rig

G = 9.81


def _flat(s):
    return np.zeros_like(np.asarray(s, dtype=float))


class BilateralRig(Rig):
    """The rig with the Hertz spring linearised at the static load and never opening."""

    def _contact(self, zw, zr, r):
        return self.P + contact.linear_stiffness(self.P, self.G) * (zr - zw + r)


def _ranges(r, keys=("box1.acc", "wheel4.acc", "axle.mid.acc"), cutoff=1000.0):
    out = []
    for k in keys:
        y = spectra.lowpass(r.t, r[k], cutoff) / G
        out.append(f"{k} {y.min():6.1f} … {y.max():5.1f} g")
    return ", ".join(out)


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
    R = rig.p.wheel_radius()
    prof = irr.dent(0.0, l, d)
    path = irr.wheel_centre_path(prof, R, 0.005, 2001)
    s = np.linspace(-0.05, 0.35, 4001)
    print(f"  bottom curvature (d/2)(2π/l)² = 1/{1 / (0.5 * d * (2 * np.pi / l) ** 2):.1f} m < 1/R = "
          f"1/{R} m: the wheel-centre path differs from the dent by at most "
          f"{np.max(np.abs(path(s) - prof(s))) * 1e6:.2f} µm")
    for depth in (0.3e-3, 0.1e-3, 0.05e-3, 0.02e-3):
        for flexible in (True, False):
            r = Rig(flexible=flexible).run(300.0, 0.1, h=h, roller=[irr.dent(1.0, l, depth), _flat])
            lost = np.sum(r["contact1"] <= 0) * (r.t[1] - r.t[0]) * 1e3
            print(f"  depth {depth * 1e3:.2f} mm, {'flexible' if flexible else 'rigid   '}: contact force "
                  f"{r['contact1'].min() / 1e3:5.1f} … {r['contact1'].max() / 1e3:5.1f} kN, open {lost:4.1f} ms; "
                  + _ranges(r), flush=True)
    for flexible in (True, False):
        r = BilateralRig(flexible=flexible).run(300.0, 0.1, h=h, roller=[irr.dent(1.0, l, 0.3e-3), _flat])
        print(f"  bilateral linear contact, depth 0.30 mm, {'flexible' if flexible else 'rigid   '}: "
              f"{r['contact1'].min() / 1e3:5.0f} … {r['contact1'].max() / 1e3:4.0f} kN; " + _ranges(r), flush=True)


def transfer(h=2e-5):
    print("linear transfer roller roughness → axle box 1 and contact 1 (0.1 µm rms, λ 50 mm … 2 m, 400 km/h):")
    for flexible in (True, False):
        rig = Rig(flexible=flexible)
        k_H = contact.linear_stiffness(rig.P[0], rig.G)
        rough = [irr.random_roughness(lambda k: np.ones_like(k), (0.05, 2.0), seed=s, n=4000, rms=1e-7)
                 for s in (1, 2)]
        r = rig.run(400.0, 0.6, h=h, roller=rough)
        keep = r.t > 0.1
        f, Sr = spectra.psd(r.t[keep], r["irregularity1"][keep], 0.1)
        rows = []
        for key in ("box1.acc", "contact1"):
            _, Sy = spectra.psd(r.t[keep], r[key][keep], 0.1)
            H = np.sqrt(Sy / Sr)
            m = (f > 60) & (f < 1500)
            idx, _ = find_peaks(H[m], prominence=0.1 * H[m].max())
            unit = "(m/s²)/m" if key == "box1.acc" else "N/m"
            rows.append(f"{key}: peaks " + ", ".join(f"{f[m][i]:.0f} Hz {H[m][i]:.2g}" for i in idx) + f" {unit}")
        print(f"  {'flexible' if flexible else 'rigid   '}: " + "; ".join(rows)
              + f"; Hertz stiffness k_H = {k_H:.3g} N/m", flush=True)


def roughness(h=2e-5):
    v = 400 / 3.6
    split = v / 500.0
    print(f"random roller roughness S ∝ κ⁻² (λ 30 … 500 mm, rms 7.5 µm), split at v/500 Hz = {split * 1e3:.0f} mm:")
    C = 1.0
    full = irr.random_roughness(lambda k: C * k ** -2.0, (0.03, 0.5), seed=1, rms=7.5e-6)
    scale = full.amplitudes[0] / np.sqrt(2 * (full.wavenumbers[0] ** -2.0) * (full.wavenumbers[1] - full.wavenumbers[0]))
    S = lambda k: scale ** 2 * k ** -2.0  # noqa: E731  (the same spectral level in both bands)
    for band in ((0.03, 0.5), (0.03, split), (split, 0.5)):
        rough = [irr.random_roughness(S, band, seed=s) for s in (1, 2)]
        r = Rig().run(400.0, 0.5, h=h, roller=rough)
        y = spectra.lowpass(r.t, r["box1.acc"], 500.0)[r.t > 0.1] / G
        print(f"  λ {band[0] * 1e3:.0f} … {band[1] * 1e3:.0f} mm: roughness rms {r['irregularity1'].std() * 1e6:.1f} µm, "
              f"peak {np.abs(r['irregularity1']).max() * 1e6:.0f} µm; contact force ≥ {r['contact1'].min() / 1e3:.1f} kN;"
              f" axle box 1 (500 Hz low-pass) {y.min():.1f} … {y.max():.1f} g", flush=True)


if __name__ == "__main__":
    dent()
    transfer()
    roughness()
