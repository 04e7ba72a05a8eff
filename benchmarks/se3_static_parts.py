"""CPU time of the pieces of an SE(3) cantilever's static solve on the generic path.

    PYTHONPATH=. python benchmarks/se3_static_parts.py [REPEAT]

For P3's straight cantilever of 16, 64 and 256 first-order SE(3) elements (the benchmark
rows cantilever-N): freezing the model, one ``System.evaluate`` with the Newton matrix and
the tangent operator (at the last load step's equilibrium, Δ = 1e-3, load factor 0.7), and
the whole static solve (10 load steps, ``flexmbd.verify.cases.beams.solve``); and the
beam elements' share of an evaluation with the matrix on increments, on the generic path
(the nodes' T(Δ) and the beam group's contribution with them, groups.py) against the
compiled slot (kernels/se3_slots.py: the same forces and c_K K T(Δ)); the minimum of
``time.process_time`` over the repeats.  Run it on two commits, alternately, to compare
(docs/performance.md, "SE(3) static Newton: the generic path's glue").
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np

from flexmbd.verify.cases import beams as vb


def cpu_min(f, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        c0 = time.process_time()
        f()
        best = min(best, time.process_time() - c0)
    return best


def main(repeat: int = 7) -> None:
    warnings.simplefilter("ignore")
    print(f"{'elements':>8s} {'freeze [ms]':>12s} {'evaluate [us]':>14s} {'solve [ms]':>11s} {'iterations':>10s} "
          f"{'beam generic [us]':>18s} {'beam slot [us]':>15s}")
    for n in (16, 64, 256):
        model = vb.cantilever("straight", n)[0]
        res = vb.solve(model)                      # loads the kernels
        system = model.freeze()
        q, lam, zero = res.q[-1], res.lam[-1], np.zeros(system.n)
        delta = np.full(system.n, 1e-3)

        def evaluate():
            system.evaluate(q, zero, zero, lam, 0.0, cM=0.0, cD=0.0, cK=1.0, load_factor=0.7, matrix=True,
                            tangent=delta)

        generic, slot = _beam_share(system, q, delta)
        freeze = cpu_min(model.freeze, 2 * repeat)
        ev = cpu_min(evaluate, 40 * repeat)
        solve = cpu_min(lambda: vb.solve(model), repeat)
        print(f"{n:8d} {1e3 * freeze:12.2f} {1e6 * ev:14.0f} {1e3 * solve:11.1f} {res.newton.iterations:10d} "
              f"{1e6 * cpu_min(generic, 40 * repeat):18.0f} {1e6 * cpu_min(slot, 40 * repeat):15.0f}")


def _beam_share(system, q, delta):
    """(generic, slot): callables evaluating the beam elements' forces and c_K K T(Δ) at q."""
    from flexmbd.groups import EvalContext
    from flexmbd.kernels import se3_slots

    group = next(g for g in system.force_groups if type(g).__name__ == "BeamElasticGroup")
    qe, zero = system.extend(q), np.zeros(system.n_ext)
    (_, _, vi), = system._lie
    rows = np.ascontiguousarray(vi[:, 0])
    where = {int(r): k for k, r in enumerate(rows)}
    tnode = np.array([[where.get(int(r), len(rows)) for r in (d[0], d[6])] for d in group.dof_index], dtype=np.int64)
    cfg, length = np.ascontiguousarray(group.config_index), np.ascontiguousarray(group.length, dtype=float)
    n = len(group)
    T, vec, blk = np.empty((len(rows) + 1, 6, 6)), np.empty(12 * n), np.empty(144 * n)

    def generic():
        ctx = EvalContext(qe, zero, zero, np.zeros(system.m), 0.0, cM=0.0, cD=0.0, cK=1.0,
                          tangent=system._tangent_maps(delta))
        group.contribute(ctx)

    def slot():
        se3_slots.node_tangents(delta, rows, T)
        se3_slots.se3_beam_elastic(cfg, tnode, group.d0, length, group.D, qe, T, 1.0, True, vec, blk)

    slot()
    return generic, slot


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
