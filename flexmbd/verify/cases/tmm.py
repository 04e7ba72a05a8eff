"""The discrete-time transfer matrix method (flexmbd.tmm, paper P5): beam chains against
closed-form modal solutions, the frequency-domain transfer matrices against analytic
natural frequencies, the Riccati sweep against a direct solve, and (slow) P5's rig
spectrum at 400 km/h.  Numbers and discussion: docs/solvers/tmm.md."""
from __future__ import annotations

import numpy as np

from ...tmm.chain import Chain
from ...tmm.elements import BeamSegment, RigidBody, SpringDamper
from ...tmm.frequency import natural_frequencies
from ...tmm.modes import free_free_roots
from ..registry import case, compare

L, E, RHO, D = 2.0, 2.1e11, 7850.0, 0.2
EI, RHOA = E * np.pi * D ** 4 / 64, RHO * np.pi * D ** 2 / 4
SOURCE = "closed-form modal solution"


def _segments(n):
    return [BeamSegment(f"s{i}", L / n, EI, RHOA, n_modes=6) for i in range(n)]


def _shaped(segs, shape):
    x0 = np.cumsum([0.0] + [s.length for s in segs])
    out = np.zeros((len(segs), 6))
    for i, s in enumerate(segs):
        out[i] = s.distributed_load(lambda x: shape(x + x0[i]))
    return out


def _err(a, ref):
    return float(np.max(np.abs(a - ref)) / np.max(np.abs(ref)))


@case("p5-tmm-beam-step", description="simply supported beam by DT-TMM (8 segments × 6 modes) under a step "
      "load p₀ sin(πx/L): mid-span acceleration vs p₀/ρA cos ω₁t")
def beam_step():
    segs = _segments(8)
    w1 = (np.pi / L) ** 2 * np.sqrt(EI / RHOA)
    load = _shaped(segs, lambda x: 2e4 * np.sin(np.pi * x / L))
    t, acc, _, _ = Chain(segs, "pinned", "pinned").simulate(2 * np.pi / w1 / 200, 600, load=lambda t: load)
    e = _err(acc[:, 4, 0], 2e4 / RHOA * np.cos(w1 * t))
    return [compare("p5-tmm-beam-step", "max |a − a_ref| / max |a_ref| over 3 periods", 0.01, e, tolerance=0.0,
                    source=SOURCE, mode="max")]


@case("p5-tmm-natural-frequencies", description="free-free and simply supported beams: the first three natural "
      "frequencies from frequency-domain transfer matrices vs (β_kL)² √(EI/ρA)/2π")
def frequencies():
    c = np.sqrt(EI / RHOA) / (2 * np.pi)
    ff = natural_frequencies(_segments(4), "free", "free", 1500.0)[:3]
    ss = natural_frequencies(_segments(4), "pinned", "pinned", 1500.0)[:3]
    out = []
    for k in range(3):
        out.append(compare("p5-tmm-natural-frequencies", f"free-free f{k + 1}", (free_free_roots(3)[k] / L) ** 2 * c,
                           ff[k], unit="Hz", tolerance=1e-9, source="Euler-Bernoulli, cos βL cosh βL = 1"))
        out.append(compare("p5-tmm-natural-frequencies", f"simply supported f{k + 1}",
                           ((k + 1) * np.pi / L) ** 2 * c, ss[k], unit="Hz", tolerance=1e-9,
                           source="Euler-Bernoulli, βL = kπ"))
    return out


@case("p5-tmm-riccati-direct", description="one step of a box-bearing-beam-wheel-gearbox chain: Riccati sweep vs a "
      "direct sparse solve of the same equations, steps 1e-3 … 1e-7 s")
def riccati_direct():
    def chain():
        parts = [RigidBody("box", 300.0, 5.0), SpringDamper("bearing", 2e8, 4e4, 5e6, 1e3),
                 BeamSegment("journal", 0.3, EI, RHOA, 5, damping=0.02), RigidBody("wheel", 400.0, 30.0, 0.1, 0.05)]
        return Chain(parts + _segments(3) + [RigidBody("gear", 200.0, 8.0)], "clamped", "free")

    rng = np.random.default_rng(3)
    a, b = chain(), chain()
    load = rng.normal(size=a.zero_load().shape) * 1e3
    q, qd = rng.normal(size=a.q.shape) * 1e-5, rng.normal(size=a.q.shape) * 1e-3
    for c in (a, b):
        c.q, c.qd = q.copy(), qd.copy()
    worst = 0.0
    for h in (1e-3, 1e-5, 1e-7):
        _, aa = a.step(h, load, "riccati")
        _, ab = b.step(h, load, "direct")
        worst = max(worst, float(np.max(np.abs(aa - ab)) / np.max(np.abs(ab))))
    return [compare("p5-tmm-riccati-direct", "max relative difference of station accelerations", 1e-9, worst,
                    tolerance=0.0, source="direct solve of the same equations", mode="max")]


@case("p5-rig-spectrum", slow=True, description="P5's rig at 400 km/h with a 36th-order roller polygon and a "
      "first-order wheel out-of-round: axle-box PSD peaks at v/πD and v/λ")
def rig_spectrum():
    from ...examples.p5_rig import band_peak, polygon_run
    from ...tmm import spectra

    rig, res = polygon_run(t_end=0.35)
    keep = res.t > 0.1
    f, S = spectra.psd(res.t[keep], res["box1.acc"][keep], segment_seconds=0.25)
    df = float(f[1] - f[0])
    v = 400 / 3.6
    return [compare("p5-rig-spectrum", "PSD peak near the wheel rotation frequency", v / (np.pi * 0.915),
                    band_peak(f, S, 20, 60), unit="Hz", tolerance=df, source="v/πD (P5: 39 Hz)", mode="abs"),
            compare("p5-rig-spectrum", "PSD peak near the polygon passing frequency", v / (np.pi * 1.8 / 36),
                    band_peak(f, S, 600, 800), unit="Hz", tolerance=df, source="v/λ, λ = 157 mm (P5: 707 Hz)",
                    mode="abs")]


@case("p5-tmm-rayleigh-damping", description="simply supported beam by DT-TMM with stiffness-proportional damping "
      "β_R K (ζ₁ = 3 %) under a step load p₀ sin(πx/L): mid-span acceleration vs the damped modal closed form")
def rayleigh_damping():
    w1 = (np.pi / L) ** 2 * np.sqrt(EI / RHOA)
    zeta = 0.03
    segs = [BeamSegment(f"s{i}", L / 8, EI, RHOA, n_modes=6, stiffness_damping=2 * zeta / w1) for i in range(8)]
    load = _shaped(segs, lambda x: 2e4 * np.sin(np.pi * x / L))
    t, acc, _, _ = Chain(segs, "pinned", "pinned").simulate(2 * np.pi / w1 / 200, 600, load=lambda t: load)
    wd = w1 * np.sqrt(1 - zeta ** 2)
    ref = 2e4 / RHOA * np.exp(-zeta * w1 * t) * (np.cos(wd * t) - zeta / np.sqrt(1 - zeta ** 2) * np.sin(wd * t))
    return [compare("p5-tmm-rayleigh-damping", "max |a − a_ref| / max |a_ref| over 3 periods", 0.01,
                    _err(acc[:, 4, 0], ref), tolerance=0.0, source="damped modal solution, ζ = β_R ω₁/2",
                    mode="max")]


@case("p5-wheel-on-roller-envelope", description="P5's dent (cosine, 0.3 mm × 300 mm) under P5's wheel (R = 0.4575 m) "
      "on P5's roller (R_r = 0.9 m): the sampled envelope of the wheel circle vs the closed-form offset curve; the "
      "contact filter of the Hertz patch vs 2J₁(ka)/ka")
def wheel_on_roller():
    from scipy.special import j1

    from ...tmm import irregularity as irr
    from ..references import wheel_centre_offset_curve

    R, Rr, d, lam = 0.4575, 0.9, 0.3e-3, 0.3
    prof = irr.dent(0.0, lam, d)
    path = irr.wheel_centre_path(prof, R, 0.006, 4001, base_radius=Rr)
    xi = np.linspace(-0.02, lam + 0.02, 2001)
    slope = lambda x: np.where((x >= 0) & (x <= lam), -0.5 * d * 2 * np.pi / lam * np.sin(2 * np.pi * x / lam), 0.0)  # noqa: E731
    s, z = wheel_centre_offset_curve(prof, slope, R, xi, base_radius=Rr)
    a = irr.hertz_semi_axis(73.2e3, R, Rr)
    k = 2 * np.pi / 0.0315
    filt = irr.contact_filter(lambda x: np.cos(k * x), a)
    x = np.linspace(0.0, 0.1, 51)
    return [compare("p5-wheel-on-roller-envelope", "max |envelope − offset curve|", 0.0,
                    float(np.max(np.abs(path(s) - z))), unit="m", tolerance=1e-10, mode="abs",
                    source="offset curve of the dent on the roller (closed form)"),
            compare("p5-wheel-on-roller-envelope", "wheel centre at the dent's bottom", -d, float(path(0.5 * lam)),
                    unit="m", tolerance=1e-9, source="bottom curvature 1/15.2 m < 1/R + 1/R_r: the wheel follows"),
            compare("p5-wheel-on-roller-envelope", "contact filter of a 31.5 mm harmonic, a = Hertz semi-axis",
                    2 * j1(k * a) / (k * a), float(np.max(np.abs(filt(x))) / np.max(np.abs(np.cos(k * x)))),
                    tolerance=1e-9, source="2J₁(ka)/(ka) (Hertz pressure weight)")]
