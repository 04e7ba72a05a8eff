"""Convergence of the linearised bending frequencies of the SE(3) beams (issue: cubic NURBS
converged at second order).

    python -m benchmarks.beam_frequencies [--integration reduced|full] [--inertia galerkin,interpolated]

The model: P3's straight cantilever section (0.01 m square, E = 2.1e11, ν = 0.3,
ρ = 7850), L = 1 m, clamped at x = 0; linearised about the reference (K and M of the
assembled system, first node's 6 unknowns removed).  Reference: the Timoshenko cantilever
(shear and rotary inertia), :func:`flexmbd.verify.references.timoshenko_cantilever_frequencies`
(shooting; the closed-form frequency equation agrees to 2e-11 on modes 1-3).  Printed:
relative error of bending modes 1-3 (the square section doubles each) and the observed
order log2(e_h / e_h/2) per halving.  ``--inertia interpolated`` rebuilds the n-node
elements with the previous inertia, the nodes' twists interpolated as if every node were
a section, η(s) = Σ N_k η_k (docs/elements/beam-se3.md, "Inertia").  Eigenvalues are
computed in double precision: errors below ~1e-8 are rounding (the ratio of the largest
to the smallest eigenvalue exceeds 1e8 on the finest meshes).
"""
from __future__ import annotations

import argparse

import numpy as np
import scipy.linalg as sla

import flexmbd as fm
from flexmbd.beams.inertia import velocity_map
from flexmbd.beams.sections import Section
from flexmbd.verify.references import timoshenko_cantilever_frequencies

SECTION = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
#: label → (Model.beam options, element counts)
VARIANTS = {
    "Lagrange p=1": (dict(order=1), (4, 8, 16, 32, 64)),
    "Lagrange p=2": (dict(order=2), (2, 4, 8, 16, 32)),
    "Lagrange p=3": (dict(order=3), (2, 4, 8, 16)),
    "NURBS p=2": (dict(order=2, interpolation="nurbs"), (4, 8, 16, 32, 64)),
    "NURBS p=3": (dict(order=3, interpolation="nurbs"), (4, 8, 14, 16, 28, 32)),
}


def frequencies(opts, n, integration=None, inertia="galerkin"):
    """Bending frequencies 1-3 [rad/s] of the clamped cantilever with n elements."""
    m = fm.Model()
    b = m.beam("rod", section=SECTION, elements=n, start=(0, 0, 0), end=(1, 0, 0), integration=integration, **opts)
    d = b.spec.data
    if inertia == "interpolated" and "P_inertia" in d:
        d["P_inertia"] = np.broadcast_to(velocity_map(d["N_inertia"]), d["P_inertia"].shape).copy()
    sys_ = m.freeze()
    z = np.zeros(sys_.n)
    K, M = (sys_.evaluate(sys_.q0, z, z, np.zeros(sys_.m), 0.0, cM=cM, cK=cK)[2] for cM, cK in ((0.0, 1.0), (1.0, 0.0)))
    K, M = ((A.toarray() if hasattr(A, "toarray") else np.asarray(A))[6:, 6:] for A in (K, M))
    w2 = sla.eigh(0.5 * (K + K.T), 0.5 * (M + M.T), eigvals_only=True)
    return np.sqrt(np.abs(w2))[[0, 2, 4]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--integration", default=None, choices=(None, "reduced", "full"))
    ap.add_argument("--inertia", default="galerkin,interpolated")
    ap.add_argument("--only", default=",".join(VARIANTS))
    args = ap.parse_args(argv)
    ref = timoshenko_cantilever_frequencies(1.0, SECTION.EI3, SECTION.GA2, SECTION.rhoA, SECTION.rhoI3, 3)
    print(f"Timoshenko cantilever: f = {', '.join(f'{x:.6f}' for x in ref / (2 * np.pi))} Hz; "
          f"integration {args.integration or 'default'}")
    print("| elements | inertia | spans/elements | unknowns | error mode 1 | mode 2 | mode 3 | order 1 | order 2 | order 3 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in args.only.split(","):
        opts, counts = VARIANTS[label]
        for inertia in args.inertia.split(","):
            if inertia == "interpolated" and opts.get("order", 1) == 1 and "interpolation" not in opts:
                continue          # the two-node element keeps the interpolated twists of [SCB14]
            shown = "interpolated (two-node)" if "interpolation" not in opts and opts.get("order", 1) == 1 else inertia
            prev, prev_n = None, None
            for n in counts:
                e = frequencies(opts, n, args.integration, inertia) / ref - 1.0
                p = opts.get("order", 1)
                dofs = 6 * (n * p if "interpolation" not in opts else n + p - 1)     # free unknowns
                rate = (np.log(np.abs(prev / e)) / np.log(n / prev_n) if prev is not None else [np.nan] * 3)
                print(f"| {label} | {shown} | {n} | {dofs} | " + " | ".join(f"{x:+.2e}" for x in e) + " | "
                      + " | ".join("" if np.isnan(r) else f"{r:.2f}" for r in rate) + " |", flush=True)
                prev, prev_n = e, n


if __name__ == "__main__":
    main()
