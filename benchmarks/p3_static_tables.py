"""Rebuild P3's static tables: tip z-displacement of the straight and the quarter-circle
cantilever for every beam variant at several DOF counts, against ABAQUS B31.

    python -m benchmarks.p3_static_tables [--formulations se3,r3r3,ancf-cable,ancf]

Prints Markdown (used in docs/verification-beams.md and docs/elements/beam-ancf-cable.md).
DOF = 6 per node (control frame; the cable: r and r_x), 12 per fully parameterized ANCF node.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from flexmbd.verify.cases.beams import ABAQUS, cantilever, solve, tip_displacement

#: (label, Model.beam options, element counts)
VARIANTS = {
    "se3": [
        ("SE(3) 1st, full (EI)", dict(order=1, integration="full"), (4, 8, 16, 32)),
        ("SE(3) 1st, reduced (RI)", dict(order=1, integration="reduced"), (4, 8, 16, 32)),
        ("SE(3) 1st, Hu-Washizu (HW)", dict(order=1, integration="hw"), (4, 8, 16, 32)),
        ("SE(3) 3rd-order Lagrange, reduced (default)", dict(order=3), (1, 2, 4, 8)),
        ("SE(3) 3rd-order Lagrange, full", dict(order=3, integration="full"), (1, 2, 4, 8)),
        ("SE(3) cubic NURBS, reduced (default)", dict(order=3, interpolation="nurbs"), (1, 2, 4, 8, 16)),
        ("SE(3) cubic NURBS, full", dict(order=3, interpolation="nurbs", integration="full"), (1, 2, 4, 8, 16)),
    ],
    "r3r3": [
        ("R3×R3 1st, full (EI)", dict(formulation="r3r3", integration="full"), (4, 8, 16, 32)),
        ("R3×R3 1st, reduced (RI)", dict(formulation="r3r3", integration="reduced"), (4, 8, 16, 32)),
        ("R3×R3 1st, Hu-Washizu (HW)", dict(formulation="r3r3", integration="hw"), (4, 8, 16, 32)),
    ],
    # straight cantilever only: a torsion-free cable has no out-of-plane stiffness on an arc
    "ancf-cable": [
        ("ANCF cable, full (5 points)", dict(formulation="ancf-cable"), (2, 4, 8, 16, 32, 64)),
        ("ANCF cable, reduced (3 points)", dict(formulation="ancf-cable", integration="reduced"),
         (2, 4, 8, 16, 32, 64)),
    ],
    "ancf": [
        ("ANCF fully parameterized, strain split", dict(formulation="ancf"), (4, 8, 16, 32, 64)),
        ("ANCF fully parameterized, plain (Poisson locking)", dict(formulation="ancf", locking="plain"),
         (8, 16, 32, 64)),
    ],
}
#: formulations shown for one shape only
ONLY = {"ancf-cable": ("straight",)}


def table(shape, formulations):
    rows = []
    for f in formulations:
        if shape not in ONLY.get(f, (shape,)):
            continue
        for label, opts, counts in VARIANTS[f]:
            for n in counts:
                m, b = cantilever(shape, n, **opts)
                t0 = time.perf_counter()
                res = solve(m)
                z = tip_displacement(res, b)[2] if res.success else np.nan
                rows.append((label, n, b.dofs, z, (z - ABAQUS[shape]) / ABAQUS[shape],
                             int(res.iterations.sum()), time.perf_counter() - t0))
    lines = [f"| variant | elements | DOF | tip z (m) | vs ABAQUS {ABAQUS[shape]} | Newton iterations | s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {lab} | {n} | {dof} | {z:.5f} | {err:+.2%} | {it} | {s:.2f} |" for lab, n, dof, z, err, it, s in rows]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--formulations", default="se3", help="comma-separated: se3, r3r3, ancf-cable, ancf")
    args = ap.parse_args(argv)
    forms = [f.strip() for f in args.formulations.split(",")]
    for shape, title in (("straight", "Straight cantilever, tip force (30, 20, 400) N"),
                         ("curved", "Quarter-circle cantilever, tip force (30, 20, 100) N")):
        print(f"\n{title}, 10 load steps\n")
        print(table(shape, forms))


if __name__ == "__main__":
    main()
