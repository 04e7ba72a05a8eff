"""Checks of the floating-frame modal beam (docs/elements/ffr-beam.md), with timings.

    python -m benchmarks.ffr_checks              # the spin-up table and docs/ffr_spin_up.png
    python -m benchmarks.ffr_checks --no-plot
    python -m benchmarks.ffr_checks --manipulator   # the spatial manipulator and docs/ffr_manipulator.png

The spin-up beam (flexmbd.examples.ffr_beams, Simo & Vu-Quoc 1986 data) as a modal beam
with 1, 2, 3 and 5 in-plane bending modes, with the foreshortening (default), P4's
centrifugal term and no geometric stiffening, against the SE(3) beam with 10 and 20 elements (h = 0.02 s, 20 s).  Prints
Markdown: peak tip deflection, largest difference from the 20-element SE(3) beam over the
history (relative to its peak), wall time.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from flexmbd.examples.ffr_beams import SE3_OPTIONS, spin_up_model, spin_up_tip

DOCS = Path(__file__).resolve().parents[1] / "docs"


def run(form, h=0.02, t_end=20.0, **kw):
    model = spin_up_model(form, **kw)
    t0 = time.perf_counter()
    res = model.simulate(t_end=t_end, h=h, **(SE3_OPTIONS if form == "se3" else {}))
    wall = time.perf_counter() - t0
    tip = spin_up_tip(res, form)
    return res.t, tip, res.success, wall


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--manipulator", action="store_true",
                    help="run flexmbd/models/ffr-manipulator.yaml and write docs/ffr_manipulator.png")
    args = ap.parse_args(argv)
    if args.manipulator:
        return manipulator()
    rows = {}
    rows["SE(3) beam, 20 elements"] = run("se3", elements=20)
    rows["SE(3) beam, 10 elements"] = run("se3", elements=10)
    for n in (1, 2, 3, 5):
        rows[f"modal beam, {n} mode{'s' if n > 1 else ''}, stiffening"] = run("modal", modes=n)
    rows["modal beam, 3 modes, centrifugal stiffening (P4's term)"] = run("modal", modes=3, stiffening="centrifugal")
    rows["modal beam, 3 modes, no stiffening"] = run("modal", modes=3, stiffening=False, t_end=17.0)
    t_ref, ref = rows["SE(3) beam, 20 elements"][:2]
    peak = np.max(np.abs(ref))
    print("| model | run completes | peak tip deflection [m] | max difference / SE(3) peak | wall time [s] |")
    print("|---|---|---|---|---|")
    for name, (t, tip, ok, wall) in rows.items():
        k = min(len(t), len(t_ref))
        assert np.allclose(t[:k], t_ref[:k])
        diff = np.max(np.abs(tip[:k] - ref[:k])) / peak
        print(f"| {name} | {'yes' if ok else 'no (diverged at t = %.2f s)' % t[-1]} | {np.max(np.abs(tip)):.4g} | "
              f"{diff:.3g} | {wall:.1f} |")
    if args.no_plot:
        return 0
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax.plot(t_ref, ref, "k-", lw=2.5, label="SE(3) beam, 20 elements")
    t, tip = rows["modal beam, 3 modes, stiffening"][:2]
    ax.plot(t, tip, "C1--", lw=1.5, label="modal beam, 3 modes, geometric stiffening")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("tip deflection in the rotating frame [m]")
    ax.set_title("spin-up beam (Ω = 4 rad/s reached at T = 15 s)")
    ax.axvline(15.0, color="0.7", lw=0.8)
    ax.legend(loc="center right", fontsize=8)
    ax.grid(alpha=0.3)
    t0, tip0 = rows["modal beam, 3 modes, no stiffening"][:2]
    bx.semilogy(t0, np.abs(tip0), "C3-", label="modal beam, no stiffening")
    bx.semilogy(t, np.abs(tip), "C1--", label="modal beam, stiffening")
    bx.semilogy(t_ref, np.abs(ref), "k-", lw=0.8, label="SE(3) beam")
    bx.set_xlabel("t [s]")
    bx.set_ylabel("|tip deflection| [m]")
    bx.set_title("without geometric stiffening the modal beam diverges")
    bx.set_ylim(1e-6, 1e4)
    bx.legend(loc="upper left", fontsize=8)
    bx.grid(alpha=0.3)
    fig.tight_layout()
    out = DOCS / "ffr_spin_up.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


def manipulator():
    """The bundled spatial manipulator: run, figure, tool deviation and energy balance."""
    from flexmbd.examples.ffr_beams import manipulator_figure, manipulator_rigid_tool
    from flexmbd.io.model_file import load_model_file

    loaded = load_model_file(Path(__file__).resolve().parents[1] / "flexmbd" / "models" / "ffr-manipulator.yaml")
    t0 = time.perf_counter()
    res = loaded.model.simulate(settings=loaded.simulate_settings())
    wall = time.perf_counter() - t0
    dev = np.abs(res["tool.position"] - manipulator_rigid_tool(res.t, loaded.parameters)).max(axis=0)
    print(f"{res.summary().splitlines()[0]}; wall {wall:.1f} s")
    print("max |tool − rigid path| [mm] (x, y, z):", np.round(1e3 * dev, 2))
    print("driver work [J]", res["energy.external_work"][-1], "numerical dissipation [J]",
          res["energy.numerical_dissipation"][-1])
    out = DOCS / "ffr_manipulator.png"
    manipulator_figure(res, loaded.parameters, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
