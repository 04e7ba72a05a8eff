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
