"""Cost per time step of a dynamic cantilever for every element kind of the geometrically
exact beams: first-, second- and third-order Lagrange SE(3), quadratic and cubic NURBS
SE(3) and first-order R³×R³ elements, same model, same step.

    python -m benchmarks.beam_orders [--steps 3500] [--repeat 2] [--only se3-1,se3-3]
    python -m benchmarks.beam_orders --profile se3-3       # cProfile of one variant
    python -m benchmarks.beam_orders --inertia-calls        # one inertia group call per variant

The model: P3's straight cantilever section (0.01 m square, E = 2.1e11, ν = 0.3,
ρ = 7800), L = 1 m along x, clamped at x = 0, under gravity and a tip force
(0, 5, −40) N applied at t = 0, released from rest; generalized-α ρ∞ = 0.8, h = 1e-4,
Newton to ‖Δq‖ < 1e-8.  Printed per variant: nodes, unknowns, wall time per step and per
Newton iteration, the same per node, the share of the assembly (residual + matrix) and
the tip position at the end (all variants describe the same beam: their tips agree to
the discretization error).  Run with PYTHONPATH=<repo> FLEXMBD_COLD_START=wait;
FLEXMBD_NUMBA=0 for the NumPy reference.  Figures: docs/performance.md, "Beams".
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
import warnings

import numpy as np

import flexmbd as fm
from flexmbd.beams.sections import Section

#: variant → (Model.beam options, elements)
VARIANTS = {
    "se3-1": (dict(order=1), 16),
    "se3-2": (dict(order=2), 8),
    "se3-3": (dict(order=3), 4),
    "nurbs-2": (dict(order=2, interpolation="nurbs"), 15),
    "nurbs-3": (dict(order=3, interpolation="nurbs"), 14),
    "r3r3-1": (dict(formulation="r3r3"), 16),
}
H = 1e-4
TIP_FORCE = (0.0, 5.0, -40.0)


def build(variant):
    opts, n = VARIANTS[variant]
    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7800.0)
    m = fm.Model(gravity=(0, 0, -9.81), name=f"cantilever-{variant}")
    b = m.beam("rod", section=sec, elements=n, start=(0, 0, 0), end=(1, 0, 0), **opts)
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, TIP_FORCE)
    return m, b


def run(variant, steps):
    m, b = build(variant)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = m.simulate(t_end=steps * H, h=H, integrator=fm.GeneralizedAlpha(0.8), convergence="increment",
                         tol=1e-8)
    wall = time.perf_counter() - t0
    return wall, res, b


def measure(variant, steps, repeat):
    run(variant, 3)                                   # warm-up: compilation, caches
    best = None
    for _ in range(repeat):
        wall, res, b = run(variant, steps)
        if best is None or wall < best[0]:
            best = (wall, res, b)
    wall, res, b = best
    nodes = len(b.nodes)
    it = int(res.newton.iterations)
    asm = res.newton.assembly_seconds
    tip = res[f"{b.last.name}.position"][-1]
    return dict(variant=variant, elements=VARIANTS[variant][1], nodes=nodes, unknowns=res.stats.get("unknowns", 6 * nodes),
                steps=steps, success=bool(res.success), wall=wall, ms_step=1e3 * wall / steps,
                us_node_step=1e6 * wall / steps / nodes, iterations=it, ms_iteration=1e3 * wall / max(it, 1),
                assembly_share=asm / wall, assembly=res.stats.get("assembly", ""), tip=tip)


def inertia_calls(variants, calls=2000, repeat=5):
    """CPU time (process time: less disturbed by other jobs than wall time) of one
    ``BeamInertiaGroup.inertia_force`` call with Jacobians (random twists and rates), min
    over ``repeat`` batches of ``calls``."""
    from flexmbd.beams.groups import BeamInertiaGroup

    for v in variants:
        m, _ = build(v)
        groups = [g for g in m.freeze().groups if isinstance(g, BeamInertiaGroup)]
        if not groups:
            continue
        g = groups[0]
        rng = np.random.default_rng(0)
        vb, ab = rng.standard_normal(g.dof_index.shape), rng.standard_normal(g.dof_index.shape)
        g.inertia_force(None, vb, ab, True)
        best = np.inf
        for _ in range(repeat):
            t0 = time.process_time()
            for _ in range(calls):
                g.inertia_force(None, vb, ab, True)
            best = min(best, (time.process_time() - t0) / calls)
        print(f"{v}: {1e6 * best:.1f} µs CPU per inertia_force call ({len(g)} elements)", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=3500)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", default=",".join(VARIANTS))
    ap.add_argument("--profile", metavar="VARIANT")
    ap.add_argument("--inertia-calls", action="store_true")
    args = ap.parse_args(argv)
    if args.inertia_calls:
        inertia_calls(args.only.split(","))
        return
    if args.profile:
        run(args.profile, 3)
        pr = cProfile.Profile()
        pr.enable()
        run(args.profile, args.steps)
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(40)
        print(s.getvalue())
        return
    print(f"dynamic cantilever, {args.steps} steps of h = {H:g}, min of {args.repeat}")
    print("| variant | elements | nodes | ms / step | µs / node / step | Newton it. | ms / it. | assembly share "
          "| tip (x, y, z) [m] |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for v in args.only.split(","):
        r = measure(v, args.steps, args.repeat)
        tip = ", ".join(f"{x:.6f}" for x in r["tip"])
        print(f"| {v} | {r['elements']} | {r['nodes']} | {r['ms_step']:.2f} | {r['us_node_step']:.1f} | "
              f"{r['iterations']} | {r['ms_iteration']:.3f} | {100 * r['assembly_share']:.0f} % | ({tip}) |"
              + ("" if r["success"] else " FAILED"), flush=True)
        if r["assembly"] and not r["assembly"].startswith("compiled"):
            print(f"    assembly: {r['assembly']}")


if __name__ == "__main__":
    main()
