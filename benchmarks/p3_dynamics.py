"""P3's dynamic tests: crank-slider Models I, II and spatial double pendulum III, IV.

    python -m benchmarks.p3_dynamics runs   [--models I,II,III,IV] [--only KEY]   # run and cache
    python -m benchmarks.p3_dynamics report [--plots]                            # tables (+ figures)

Every run is cached in benchmarks/p3_dynamics.json (key: model, variant, elements,
refresh policy) with its d/L history (every 10th step), so the report can be rebuilt
without rerunning.  Generalized-α ρ∞ = 0.8, P3's step sizes, Newton converged when the
configuration change ‖Δq‖₂ < 1e-6 (P3), full Newton unless a refresh policy is named.
"converged" = maximum d/L within 1 % of the reference run (first-order SE(3) with 588
DOF; the 3rd-order meshes converge to it; P3's reference was an ANCF mesh of 1944 DOF).
"""
from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

import flexmbd as fm
from flexmbd.examples import p3_beams as P

CACHE = Path(__file__).with_name("p3_dynamics.json")
DOCS = Path(__file__).resolve().parents[1] / "docs"

#: variant → (Model.beam options, element pairs (crank/arm I, rod/arm II))
VARIANTS = {
    "se3-1": (dict(order=1), [(4, 8), (9, 15), (18, 30)]),              # 84, 156, 300 DOF
    "se3-1-ref": (dict(order=1), [(36, 60)]),                           # 588 DOF reference
    "r3r3-1": (dict(formulation="r3r3", integration="reduced"), [(9, 15), (18, 30)]),
    "se3-3": (dict(order=3), [(1, 1), (2, 2), (3, 5)]),                 # 48, 84, 156 DOF; reduced (default)
    "se3-3-full": (dict(order=3, integration="full"), [(1, 1), (2, 2), (3, 5)]),   # the default until the locking fix
    # fully parameterized ANCF (strain split), 12 coordinates per node: 312, 504, 984, 1464 DOF;
    # long runs, so run them selectively: --models I --only "|ancf|10,14", --models III,IV --only "|ancf|32,48"
    "ancf": (dict(formulation="ancf"), [(10, 14), (15, 25), (20, 30), (32, 48), (48, 72)]),
    "ancf-cable": (dict(formulation="ancf-cable"), [(9, 15), (18, 30)]),     # double pendulum only (no torque)
}
#: simulate() options of a variant besides the common ones: the ANCF crank-slider needs Newton
#: started from zero accelerations (the torqued crank node's start-up accelerations ~2e9
#: otherwise lead finer meshes to a spurious solution; docs/beams-side-by-side.md)
OPTIONS = {"ancf": dict(newton_start="zero")}
REFERENCE = "se3-1-ref"
REUSE = {"I": ("se3-1", (9, 15)), "IV": ("se3-1", (9, 15))}   # P3's Tables 7-8 (Jacobian reuse)
POLICIES = ("newton", 3, 4)


def key(which, variant, elements, refresh="newton"):
    return f"{which}|{variant}|{elements[0]},{elements[1]}|{refresh}"


def load():
    return json.loads(CACHE.read_text()) if CACHE.exists() else {}


def save(runs):
    CACHE.write_text(json.dumps(runs, indent=0, sort_keys=True))


def build(which, variant, elements):
    opts = VARIANTS[variant][0]
    builder = P.crank_slider if which in P.CRANK_SLIDER else P.double_pendulum
    return builder(which, elements, **opts)


def run(which, variant, elements, refresh="newton"):
    pm = build(which, variant, elements)
    p = pm.params
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pm.model.simulate(t_end=p["t_end"], h=p["h"], integrator=fm.GeneralizedAlpha(0.8),
                                convergence="increment", tol=1e-6, refresh=refresh, max_iter=50,
                                **OPTIONS.get(variant, {}))
    wall = time.perf_counter() - t0
    dl = P.deformation_measure(res, pm.rods[1])
    out = dict(model=which, variant=variant, elements=list(elements), refresh=refresh, dofs=pm.dofs,
               success=bool(res.success), message=res.message or "", t_last=float(res.t[-1]),
               max_dl=float(np.max(dl)), t_max_dl=float(res.t[int(np.argmax(dl))]), nnz=int(res.nnz),
               iterations=int(res.newton.iterations), refreshes=int(res.newton.refreshes),
               steps=len(res.t) - 1, wall=wall, t=res.t[::10].tolist(), dl=dl[::10].tolist())
    if which in P.CRANK_SLIDER:
        w = P.crank_speed(res, pm.rods[0])
        out.update(peak_speed=float(np.max(w)), final_speed=float(w[-1]), speed=w[::10].tolist())
    return out


def plan(models):
    for which in models:
        for variant, (_, pairs) in VARIANTS.items():
            for el in pairs:
                yield which, variant, el, "newton"
        if which in REUSE:
            variant, el = REUSE[which]
            for pol in POLICIES[1:]:
                yield which, variant, el, pol


def do_runs(models, only=None):
    runs = load()
    for which, variant, el, pol in plan(models):
        k = key(which, variant, el, pol)
        if k in runs or (only and only not in k):
            continue
        print(f"running {k} …", flush=True)
        try:
            runs[k] = run(which, variant, el, pol)
        except fm.ModelError as exc:
            print(f"  skipped: {exc}")
            continue
        r = runs[k]
        print(f"  {r['dofs']} DOF, success {r['success']} (t = {r['t_last']:.4g}), max d/L {r['max_dl']:.4%}, "
              f"{r['iterations']} iterations, {r['refreshes']} refreshes, {r['wall']:.0f} s", flush=True)
        save(runs)


def report(plots=False):
    runs = load()
    lines = []
    for which in ("I", "II", "III", "IV"):
        rs = [r for r in runs.values() if r["model"] == which and r["refresh"] == "newton"]
        if not rs:
            continue
        p = {**P.CRANK_SLIDER, **P.PENDULUM}[which]
        ref = [r for r in rs if r["variant"] == REFERENCE and r["success"]]
        ref_dl = ref[0]["max_dl"] if ref else np.nan
        lines += [f"\n**Model {which}** (P3: max d/L ≈ {p['max_dL']:.2%}"
                  + (f", crank speed ≈ {p['peak_speed']:.0f} rad/s" if "peak_speed" in p else "")
                  + f"); reference max d/L = {ref_dl:.4%} (first-order SE(3), 588 DOF)\n",
                  "| variant | elements | DOF | max d/L | vs reference | within 1 % | nnz | iterations | wall (s) |"
                  + (" crank ω at 0.2 s (rad/s) |" if which in P.CRANK_SLIDER else " |"),
                  "|---|---|---:|---:|---:|:-:|---:|---:|---:|---:|"]
        for r in sorted(rs, key=lambda r: (r["variant"], r["dofs"])):
            dev = r["max_dl"] / ref_dl - 1 if r["success"] else np.nan
            status = "yes" if abs(dev) <= 0.01 else "no"
            if not r["success"]:
                status = f"failed at t = {r['t_last']:.4g} s"
            extra = f" {r['final_speed']:.0f} |" if "final_speed" in r else " |"
            lines.append(f"| {r['variant']} | {r['elements'][0]}+{r['elements'][1]} | {r['dofs']} | "
                         f"{r['max_dl']:.4%} | {dev:+.2%} | {status} | {r['nnz']} | {r['iterations']} | "
                         f"{r['wall']:.0f} |{extra}")
    reuse = [r for r in runs.values() if r["model"] in REUSE and (r["variant"], tuple(r["elements"])) == REUSE[r["model"]]]
    if reuse:
        lines += ["\n**Jacobian reuse** (P3's Tables 7-8)\n",
                  "| model | policy | iterations | refreshes | max d/L | wall (s) |", "|---|---|---:|---:|---:|---:|"]
        for r in sorted(reuse, key=lambda r: (r["model"], str(r["refresh"]))):
            pol = "every iteration" if r["refresh"] == "newton" else f"NNI ≥ {r['refresh']}"
            lines.append(f"| {r['model']} | {pol} | {r['iterations']} | {r['refreshes']} | {r['max_dl']:.4%} | "
                         f"{r['wall']:.0f} |")
    print("\n".join(lines))
    if plots:
        _plots(runs)


def _plots(runs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for ax, which in zip(axes.ravel(), ("I", "II", "III", "IV")):
        for r in sorted((r for r in runs.values() if r["model"] == which and r["refresh"] == "newton"),
                        key=lambda r: (r["variant"], r["dofs"])):
            ax.plot(r["t"], 100 * np.asarray(r["dl"]), label=f"{r['variant']} {r['dofs']} DOF", lw=1)
        ax.set_title(f"Model {which}")
        ax.set_xlabel("t (s)")
        ax.set_ylabel("d/L (%)")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(DOCS / "p3_deformation.png", dpi=110)
    print(f"wrote {DOCS / 'p3_deformation.png'}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("runs", "report"))
    ap.add_argument("--models", default="I,II,III,IV")
    ap.add_argument("--only", default=None, help="run only keys containing this text")
    ap.add_argument("--plots", action="store_true")
    a = ap.parse_args(argv)
    if a.what == "runs":
        do_runs([m.strip() for m in a.models.split(",")], a.only)
    else:
        report(a.plots)


if __name__ == "__main__":
    main()
