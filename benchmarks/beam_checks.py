"""Independent checks of the beam elements: locking versus order and integration on the
elastica, and the Newton iterations of a cantilever with stiff sections.

    python -m benchmarks.beam_checks locking    # elastica tip error, every order and integration
    python -m benchmarks.beam_checks stiff      # Newton iterations, cuts and warnings, SE(3) and R3×R3

Prints Markdown (used in docs/verification-beams.md, "Locking versus order and
integration" and "Stiff sections").  The reference is the exact elastica
(:func:`flexmbd.verify.references.elastica_cantilever`); EI = L = 1, EA = GA = ratio · EI/L²,
GJ = EI, a dead tip force α EI/L² perpendicular to the axis.
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.verify.references import elastica_cantilever


def cantilever(elements, alpha, ratio, **beam):
    """A unit cantilever along x, tip force −α e_y, EA = GA = ratio (EI = GJ = L = 1)."""
    sec = Section.user(EA=ratio, GA2=ratio, GA3=ratio, GJ=1.0, EI2=1.0, EI3=1.0)
    m = fm.Model()
    b = m.beam("rod", section=sec, elements=elements, start=(0, 0, 0), end=(1, 0, 0), **beam)
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, (0.0, -alpha, 0.0))
    return m, b


def solve(elements, alpha, ratio, load_steps=10, tol=1e-10, **beam):
    """(tip deflection error over L, Newton iterations, step cuts, RuntimeWarnings, result)."""
    m, b = cantilever(elements, alpha, ratio, **beam)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        res = m.static_equilibrium(load_steps=load_steps, convergence="increment", tol=tol)
    tip = res[f"{b.last.name}.position"][-1]
    err = abs(-tip[1] - elastica_cantilever(alpha).deflection) if res.success else np.nan
    return err, int(res.iterations.sum()), int(np.sum(res.stats["substeps"])), \
        sum(issubclass(w.category, RuntimeWarning) for w in caught), res


#: (label, Model.beam options)
LOCKING = [
    ("SE(3) 1st order", dict(order=1)),
    ("SE(3) 2nd-order Lagrange", dict(order=2)),
    ("SE(3) 3rd-order Lagrange", dict(order=3)),
    ("SE(3) quadratic NURBS", dict(order=2, interpolation="nurbs")),
    ("SE(3) cubic NURBS", dict(order=3, interpolation="nurbs")),
    ("R3×R3 1st order", dict(formulation="r3r3")),
]


def locking(alpha=1.0, ratios=(1e6, 1e8), counts=(4, 8, 16, 32)):
    lines = [f"Elastica α = PL²/EI = {alpha:g}: |δ − δ_exact|/L at the tip, δ_exact/L = "
             f"{elastica_cantilever(alpha).deflection:.6f}\n"]
    for ratio in ratios:
        lines.append(f"\nEA = GA = {ratio:.0e} EI/L²\n")
        lines.append("| element | integration | " + " | ".join(f"{n} el." for n in counts) + " |")
        lines.append("|---|---|" + "---:|" * len(counts))
        for label, opts in LOCKING:
            for integ in ("full", "reduced"):
                errs = [solve(n, alpha, ratio, integration=integ, **opts)[0] for n in counts]
                lines.append(f"| {label} | {integ} | " + " | ".join(f"{e:.1e}" for e in errs) + " |")
    return "\n".join(lines)


def stiff(alpha=10.0, ratio=1e8, elements=64):
    lines = [f"α = {alpha:g}, EA = GA = {ratio:.0e} EI/L², {elements} first-order elements, "
             "convergence='increment'\n",
             "| formulation | load steps | tol | Newton iterations | step cuts | RuntimeWarnings | tip δ/L error |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, opts in (("SE(3)", {}), ("R3×R3 (reduced)", dict(formulation="r3r3", integration="reduced"))):
        for steps, tol in ((10, 1e-10), (10, 1e-12), (20, 1e-10), (20, 1e-12)):
            err, its, cuts, warns, _ = solve(elements, alpha, ratio, load_steps=steps, tol=tol, **opts)
            lines.append(f"| {label} | {steps} | {tol:.0e} | {its} | {cuts} | {warns} | {err:.1e} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("what", choices=("locking", "stiff"))
    args = ap.parse_args(argv)
    print(locking() if args.what == "locking" else stiff())


if __name__ == "__main__":
    main()
