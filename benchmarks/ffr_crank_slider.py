"""P3's crank-slider Model II with floating-frame modal beams against the SE(3) beams
(docs/elements/ffr-beam.md, "Crank-slider"):

    python -m benchmarks.ffr_crank_slider            # runs, writes ffr_crank_slider.json and docs/ffr_crank_slider.png
    python -m benchmarks.ffr_crank_slider --plot     # the figure and table from the stored JSON

Runs (generalized-α ρ∞ = 0.8, h = 3e-5 s, 0.2 s, d/L every 10 steps): the crank and the
rod as pinned-pinned modal beams with 3 and 5 bending modes, foreshortening (the default)
and P4's centrifugal stiffening; the SE(3) beams (third order, 2 + 2 elements, converged
in P3's sense) with P3's shear-flexible square section and with a shear-rigid one
(GA × 1000: the Bernoulli-Euler physics of the modal beam).  P3's reference is the SE(3)
beam with 36 + 60 first-order elements (benchmarks/p3_dynamics.json).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.examples.ffr_beams import crank_slider_deformation, crank_slider_model
from flexmbd.examples.p3_beams import CRANK_SLIDER, NU, crank_slider, deformation_measure

HERE = Path(__file__).resolve().parent
STORE = HERE / "ffr_crank_slider.json"
DOCS = HERE.parent / "docs"
P = CRANK_SLIDER["II"]
RUN = dict(t_end=P["t_end"], h=P["h"], integrator=fm.GeneralizedAlpha(0.8), output_every=10)


def shear_rigid_section(factor: float = 1e3) -> Section:
    """P3's Model II square with the shear stiffness multiplied by ``factor``."""
    s = Section.rectangle(P["width"], P["width"], E=P["E"], nu=NU, rho=P["rho"])
    return Section.user(EA=s.EA, GA2=s.GA2 * factor, GA3=s.GA3 * factor, GJ=s.GJ, EI2=s.EI2, EI3=s.EI3,
                        rhoA=s.rhoA, rhoI2=s.rhoI2, rhoI3=s.rhoI3)


def run_modal(modes: int, stiffening: str = "foreshortening") -> dict:
    c0 = time.perf_counter()
    res = crank_slider_model("II", modes, stiffening).simulate(**RUN)
    return dict(t=res.t.tolist(), dl=crank_slider_deformation(res).tolist(), wall=time.perf_counter() - c0,
                success=bool(res.success))


def run_se3(shear_rigid: bool) -> dict:
    c0 = time.perf_counter()
    pm = crank_slider("II", elements=(2, 2), order=3, section=shear_rigid_section() if shear_rigid else None)
    res = pm.model.simulate(convergence="increment", **RUN)
    return dict(t=res.t.tolist(), dl=deformation_measure(res, pm.rods[1]).tolist(), wall=time.perf_counter() - c0,
                success=bool(res.success))


CASES = {
    "modal beams, 5 modes, foreshortening": lambda: run_modal(5),
    "modal beams, 3 modes, foreshortening": lambda: run_modal(3),
    "modal beams, 5 modes, centrifugal (P4)": lambda: run_modal(5, "centrifugal"),
    "SE(3) 3rd order 2+2, shear-rigid": lambda: run_se3(True),
    "SE(3) 3rd order 2+2 (P3's section)": lambda: run_se3(False),
}


def reference() -> dict:
    """P3's converged SE(3) run (36 + 60 first-order elements) from benchmarks/p3_dynamics.json."""
    ref = json.loads((HERE / "p3_dynamics.json").read_text())["II|se3-1-ref|36,60|newton"]
    dl = np.asarray(ref["dl"])
    return dict(t=(np.arange(len(dl)) * 10 * P["h"]).tolist(), dl=dl.tolist())


def table(data: dict) -> str:
    ref = reference()
    peak_ref = max(ref["dl"])
    rigid = np.asarray(data["SE(3) 3rd order 2+2, shear-rigid"]["dl"])
    lines = ["| model | peak d/L [%] | peak / P3's SE(3) − 1 | peak / shear-rigid SE(3) − 1 | "
             "max difference from shear-rigid SE(3) until 0.12 s / its peak | wall [s] |", "|---|---|---|---|---|---|"]
    lines.append(f"| SE(3) 1st order 36+60 (P3's reference) | {100 * peak_ref:.3f} | — | — | — | — |")
    for name, d in data.items():
        dl = np.asarray(d["dl"])
        n = min(len(dl), len(rigid))
        early = np.asarray(d["t"][:n]) <= 0.12
        lines.append(f"| {name} | {100 * dl.max():.3f} | {dl.max() / peak_ref - 1:+.3f} | {dl.max() / rigid.max() - 1:+.3f} "
                     f"| {np.abs(dl[:n] - rigid[:n])[early].max() / rigid.max():.4f} | {d['wall']:.0f} |")
    return "\n".join(lines)


def figure(data: dict, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    ref = reference()
    ax.plot(ref["t"], 100 * np.asarray(ref["dl"]), "k-", lw=2.5, alpha=0.4, label="SE(3) 36+60, P3's reference")
    for name in ("SE(3) 3rd order 2+2, shear-rigid", "modal beams, 5 modes, foreshortening",
                 "modal beams, 5 modes, centrifugal (P4)"):
        d = data[name]
        ax.plot(d["t"], 100 * np.asarray(d["dl"]), lw=1, label=name)
    ax.set(xlabel="t [s]", ylabel="d/L [%]", title="P3 crank-slider Model II: rod deformation")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", action="store_true", help="only the figure and table from the stored JSON")
    args = ap.parse_args(argv)
    if args.plot:
        data = json.loads(STORE.read_text())
    else:
        data = {}
        for name, case in CASES.items():
            data[name] = case()
            print(name, f"peak {100 * max(data[name]['dl']):.3f} %, {data[name]['wall']:.0f} s", flush=True)
            STORE.write_text(json.dumps(data))
    print(table(data))
    figure(data, DOCS / "ffr_crank_slider.png")


if __name__ == "__main__":
    main()
