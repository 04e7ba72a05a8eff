"""DT-TMM cost (flexmbd.tmm, P5): the Riccati sweep is O(number of elements) per step.

    python -m benchmarks.tmm_scaling            # chains of 10, 100, 1000, 10000 beam segments + the rig
    python -m benchmarks.tmm_scaling --quick    # fewer steps

For a clamped-free chain of n beam segments (6 modes each) it times one Newmark step
(predictors and element compliances, vectorised NumPy; the compiled Riccati sweep;
recovery and update), the sweep alone, and a direct sparse LU of the same step equations
(flexmbd/tmm/riccati.py), min of repeats; then P5's rig at 400 km/h in seconds of simulated
time per wall second (flexible and rigid, 300 and 400 km/h, the compiled loop — min of 3
runs, after a warm-up — and the NumPy reference loop; wall time of the loop, irregularity
sampling excluded).  Results go to benchmarks/tmm_scaling.json.  Timings live here and
in docs/solvers/tmm.md, never in pass/fail tests.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from flexmbd.tmm import riccati
from flexmbd.tmm.chain import Chain
from flexmbd.tmm.elements import BeamSegment

OUT = Path(__file__).with_name("tmm_scaling.json")


def chain(n: int) -> Chain:
    L, EI, rhoA = 2.0, 1.6e6, 240.0
    return Chain([BeamSegment(f"s{i}", L / n, EI, rhoA, n_modes=6) for i in range(n)], "clamped", "free")


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def time_chain(n: int, steps: int, repeat: int = 3) -> dict:
    ch = chain(n)
    load = ch.zero_load()
    load[-1, 0] = 1.0
    h = 1e-5
    ch.step(h, load)                                   # warm-up (compiled kernel loaded)
    step = best(lambda: [ch.step(h, load) for _ in range(steps)], repeat) / steps
    C, b, Ds, ds, *_ = ch.step_equations(h, load)
    sweep = best(lambda: [riccati.sweep(ch.kind, C, b, Ds, ds, ch.left, ch.right) for _ in range(steps)],
                 repeat) / steps
    d_steps = max(1, steps // 10)
    direct = best(lambda: [riccati.direct(ch.kind, C, b, Ds, ds, ch.left, ch.right) for _ in range(d_steps)],
                  repeat) / d_steps
    return {"elements": n, "step_us": step * 1e6, "sweep_us": sweep * 1e6, "direct_us": direct * 1e6,
            "step_us_per_element": step * 1e6 / n, "sweep_us_per_element": sweep * 1e6 / n}


def time_rig(t_end: float, numpy_t_end: float) -> list[dict]:
    """P5's rig, flexible and rigid, at 300 km/h (the dent) and 400 km/h (polygon and
    out-of-round): seconds of simulated time (settling included) per wall second, the
    compiled loop (flexmbd/kernels/tmm_rig.py) and the NumPy reference loop."""
    from flexmbd.examples.p5_rig import dent_run, polygon_run
    from flexmbd.tmm.rig import Rig

    Rig().run(300.0, 0.002, h=2e-5, settle=0.002)          # warm-up: the compiled loop's machine code loaded
    rows = []
    for speed in (300, 400):
        for flexible in (True, False):
            for compiled, te in ((True, t_end), (False, numpy_t_end)):
                kw = dict(t_end=te, flexible=flexible, compiled=compiled)
                runs = [dent_run(**kw) if speed == 300 else polygon_run(**kw) for _ in range(3 if compiled else 1)]
                res = min((r for _, r in runs), key=lambda r: r.wall_time)
                simulated = te + 0.2                     # settling included
                rows.append({"speed_kmh": speed, "wheelset": "flexible" if flexible else "rigid",
                             "loop": "compiled" if compiled else "numpy", "simulated_s": simulated,
                             "wall_s": res.wall_time, "sim_s_per_wall_s": simulated / res.wall_time,
                             "steps": len(res.iterations), "mean_iterations": float(res.iterations.mean())})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    steps = 50 if args.quick else 200
    rows = [time_chain(n, steps if n < 1000 else max(10, steps * 100 // n)) for n in (10, 100, 1000, 10000)]
    print(f"{'elements':>9} {'step µs':>10} {'µs/elem':>8} {'sweep µs':>9} {'µs/elem':>8} {'direct µs':>10}")
    for r in rows:
        print(f"{r['elements']:9d} {r['step_us']:10.1f} {r['step_us_per_element']:8.2f} {r['sweep_us']:9.1f} "
              f"{r['sweep_us_per_element']:8.3f} {r['direct_us']:10.1f}")
    rig = time_rig(0.05 if args.quick else 1.0, 0.02 if args.quick else 0.1)
    print("rig (12 parts, h = 20 µs; settling 0.2 s included)")
    print(f"{'km/h':>5} {'wheelset':>9} {'loop':>9} {'simulated s':>12} {'wall s':>8} {'sim s / wall s':>15} {'iter/step':>10}")
    for r in rig:
        print(f"{r['speed_kmh']:5d} {r['wheelset']:>9} {r['loop']:>9} {r['simulated_s']:12.2f} {r['wall_s']:8.2f} "
              f"{r['sim_s_per_wall_s']:15.3f} {r['mean_iterations']:10.2f}")
    data = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.platform(),
            "load_average_1_5_15_min": list(os.getloadavg()),
            "processor": platform.processor(), "chains": rows, "rig": rig}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    return data


if __name__ == "__main__":
    main()
