"""P5's flexible powered wheelset on a roller rig (flexmbd.tmm): roller polygon and wheel
out-of-round at 400 km/h; random roller roughness with ISO 3095:2013's limit spectrum
(scaled to P5's bound of 0.03 mm, and 16 dB lower) at 400 km/h; a 300 mm × 0.3 mm cosine
dent on roller 1 at 300 km/h with the flexible and the rigid wheelset.  The rig's data
(flexmbd/tmm/rig.py, RigParameters) and their sources, and the comparison with P5's figures,
are in docs/solvers/tmm.md ("The P5 rig").  Writes p5_rig.png; returns the figures the page
quotes."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from flexmbd.examples.registry import example

# flexmbd.tmm (and SciPy's signal package under it) is imported by the functions that use
# it: `flexmbd example` imports this module to list the examples (cold start, issue 18).

G = 9.81


ROLLER_RADIUS = 0.9                      # P5: roller diameter 1.8 m


def _on_roller(rig, profile):
    """A roller surface profile as the wheel feels it: the envelope of the wheel circle over
    it on the roller (irregularity.wheel_centre_path) through the Hertz contact filter of the
    static patch (a ≈ 5.3 mm); for P5's inputs both change the profile by µm (tests)."""
    from flexmbd.tmm import irregularity as irr

    a = irr.hertz_semi_axis(rig.P[0], rig.p.wheel_radius(), ROLLER_RADIUS)
    return irr.contact_filter(irr.wheel_centre_path(profile, rig.p.wheel_radius(), 0.012, 241,
                                                    base_radius=ROLLER_RADIUS), a)


def polygon_run(t_end: float = 0.6, h: float = 2e-5, depth: float = 0.05e-3, flexible: bool = True,
                compiled: bool | None = None):
    """Roller polygon (36th order, peak-to-valley ``depth``) plus a first-order wheel
    out-of-round (0.03 mm) at 400 km/h."""
    from flexmbd.tmm import irregularity as irr
    from flexmbd.tmm.rig import Rig

    rig = Rig(flexible=flexible)
    R = rig.p.wheel_radius()
    rough = [irr.combine([irr.harmonic(ROLLER_RADIUS, 36, 0.5 * depth, phase=ph), irr.harmonic(R, 1, 0.03e-3, phase=ph)])
             for ph in (0.0, 2.0)]
    return rig, rig.run(400.0, t_end, h=h, roller=rough, compiled=compiled)


def roughness_run(t_end: float = 0.5, h: float = 2e-5, peak: float = 0.03e-3, flexible: bool = True,
                  scale: float | None = None):
    """Random roller roughness with the spectrum of ISO 3095's limit (one-third octave bands
    31.5-400 mm, the orders of the roller's circumference), scaled so that its largest value
    on the roller is ``peak`` (P5: "≤ 0.03 mm") or by ``scale``, plus a first-order wheel
    out-of-round of 0.03 mm, at 400 km/h.  Returns (rig, result, the scale used)."""
    from flexmbd.tmm import irregularity as irr
    from flexmbd.tmm.rig import Rig

    rig = Rig(flexible=flexible)
    R = rig.p.wheel_radius()
    C = 2 * np.pi * ROLLER_RADIUS
    levels = {lam: L for lam, L in irr.ISO3095_LIMIT.items() if lam >= 0.0315}
    s = np.linspace(0.0, C, 20001)
    rough, scales = [], []
    for seed, ph in ((1, 0.0), (2, 2.0)):
        k = scale if scale is not None else peak / np.max(np.abs(irr.band_roughness(levels, seed, C)(s)))
        scales.append(k)
        prof = irr.band_roughness(levels, seed, C, scale=k)
        rough.append(irr.combine([irr.contact_filter(prof, irr.hertz_semi_axis(rig.P[0], R, ROLLER_RADIUS)),
                                  irr.harmonic(R, 1, 0.03e-3, phase=ph)]))
    return rig, rig.run(400.0, t_end, h=h, roller=rough), float(np.mean(scales))


def dent_run(flexible: bool, t_end: float = 0.1, h: float = 2e-5, depth: float = 0.3e-3,
             compiled: bool | None = None):
    """A 300 mm long cosine dent of ``depth`` on the roller under wheel 4 at 300 km/h (as the
    wheel feels it: envelope on the roller and contact filter)."""
    from flexmbd.tmm import irregularity as irr
    from flexmbd.tmm.rig import Rig

    rig = Rig(flexible=flexible)
    flat = lambda s: np.zeros_like(np.asarray(s, dtype=float))  # noqa: E731
    return rig, rig.run(300.0, t_end, h=h, roller=[_on_roller(rig, irr.dent(1.0, 0.3, depth)), flat],
                        compiled=compiled)


def band_peak(f, S, lo, hi):
    m = (f >= lo) & (f <= hi)
    return float(f[m][np.argmax(S[m])])


@example("p5-roller-rig", "P5: flexible wheelset on a roller rig by DT-TMM (polygon at 400 km/h, dent)")
def run(out_dir, quiet=False):
    import matplotlib

    from flexmbd.tmm import spectra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    rig, res = polygon_run()
    v = 400 / 3.6
    box = spectra.lowpass(res.t, res["box1.acc"], 1000.0) / G
    steady = res.t > 0.2                                  # after the onset transient
    f, S = spectra.psd(res.t[res.t > 0.1], res["box1.acc"][res.t > 0.1], segment_seconds=0.25)
    summary = {
        "polygon_box_g_onset": (float(box[~steady].min()), float(box[~steady].max())),
        "polygon_box_g_steady": (float(box[steady].min()), float(box[steady].max())),
        "wheel_rotation_hz": v / (np.pi * rig.p.wheel_diameter),
        "polygon_hz": v / (np.pi * rig.p.roller_diameter / 36),
        "psd_peak_near_39_hz": band_peak(f, S, 20, 60),
        "psd_peak_near_707_hz": band_peak(f, S, 600, 800),
        "polygon_sim_seconds_per_wall_second": float((res.t[-1] - res.t[0] + 0.2) / res.wall_time),
    }
    for label, kw in (("iso3095_at_0.03mm", {}), ("iso3095_minus_16db", {"scale": 10 ** (-16 / 20)})):
        _, rr, k = roughness_run(**kw)
        y = spectra.lowpass(rr.t, rr["box1.acc"], 500.0)[rr.t > 0.1] / G
        summary[f"roughness_{label}_box_g_500hz"] = (float(y.min()), float(y.max()))
        summary[f"roughness_{label}_scale"] = k
        summary[f"roughness_{label}_contact_kN"] = (float(rr["contact1"].min() / 1e3),
                                                    float(rr["contact1"].max() / 1e3))
    dents = {}
    for flexible in (True, False):
        _, r = dent_run(flexible)
        dents[flexible] = r
        which = "flexible" if flexible else "rigid"
        for key in ("box1.acc", "axle.mid.acc", "wheel4.acc"):
            y = spectra.lowpass(r.t, r[key], 1000.0) / G
            summary[f"dent_{which}_{key}_g"] = (float(y.min()), float(y.max()))
        summary[f"dent_{which}_contact_kN"] = (float(r["contact1"].min() / 1e3), float(r["contact1"].max() / 1e3))
        summary[f"dent_{which}_contact_open_ms"] = float(np.sum(r["contact1"] <= 0) * (r.t[1] - r.t[0]) * 1e3)
    fig, ax = plt.subplots(4, 1, figsize=(8, 12))
    ax[0].plot(res.t, box, lw=0.6)
    ax[0].set(xlabel="time after settling [s]", ylabel="axle box 1 [g]",
              title="400 km/h, roller polygon + wheel out-of-round (1000 Hz low-pass)")
    ax[1].semilogy(f, S, lw=0.8)
    for fr, lab in ((summary["wheel_rotation_hz"], "v/πD"), (summary["polygon_hz"], "polygon")):
        for k in (1, 2):
            ax[1].axvline(k * fr, color="r", ls=":", lw=0.8)
        ax[1].text(fr, S.max(), f" {lab} {fr:.1f} Hz", color="r", va="top")
    ax[1].set(xlim=(0, 1600), ylim=(S.max() * 1e-10, S.max() * 10), xlabel="frequency [Hz]", ylabel="PSD [(m/s²)²/Hz]")
    for flexible, r in dents.items():
        which = "flexible" if flexible else "rigid"
        ax[2].plot(r.t, spectra.lowpass(r.t, r["box1.acc"], 1000.0) / G, lw=0.8, label=f"{which}, axle box 1")
        ax[2].plot(r.t, spectra.lowpass(r.t, r["axle.mid.acc"], 1000.0) / G, lw=0.8, ls="--",
                   label=f"{which}, axle mid-span")
        ax[3].plot(r.t, r["contact1"] / 1e3, lw=0.8, label=f"{which} wheelset")
    ax[2].set(xlabel="time after settling [s]", ylabel="[g] (1000 Hz low-pass)", xlim=(0.005, 0.05),
              title="300 km/h, dent 300 mm × 0.3 mm on roller 1")
    ax[3].plot(dents[True].t, 1e3 * dents[True]["irregularity1"] * 1e3 / 3.0, color="k", lw=0.6,
               label="dent depth [mm] × 1000/3")
    ax[3].set(xlabel="time after settling [s]", ylabel="contact force 1 [kN]", xlim=(0.005, 0.05),
              title="the wheel leaves the roller at the dent's entry and strikes its rising flank")
    ax[2].legend(fontsize=8)
    ax[3].legend(fontsize=8)
    for a in ax:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "p5_rig.png", dpi=110)
    plt.close(fig)
    if not quiet:
        for k, val in summary.items():
            print(f"{k}: {val}")
    return summary
