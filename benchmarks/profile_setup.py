"""Timing of the setup before the first step: freezing the model into a System and the
initial conditions (position assembly, velocity projection, consistent accelerations),
for the chain and cantilever benchmark models.  Min of ``--repeat`` runs on the same
model (each phase, and the total, on its own), after a warm-up on small models (Numba's cached machine code is loaded then).

    PYTHONPATH=. python benchmarks/profile_setup.py                    # chain-10/100/1000, cantilever-256
    PYTHONPATH=. python benchmarks/profile_setup.py chain-1000 --profile   # + cProfile of one setup
    PYTHONPATH=. python benchmarks/profile_setup.py slider-crank-100 --cpu # CPU time of this thread

Static benchmarks (the cantilevers) have no initial accelerations: their setup is
freezing and position assembly, as in ``static_equilibrium``.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time
import warnings

import numpy as np

from benchmarks.models import BENCHMARKS, chain
from flexmbd.solvers import initial
from flexmbd.system import freeze_reporting

PHASES = ("freeze", "assembly", "velocity projection", "initial accelerations")
#: the clock of every phase: wall time, or with --cpu this thread's CPU time (steadier on a
#: machine shared with other jobs)
CLOCK = [time.perf_counter]


def build(name):
    """The model of a benchmark; ``chain-N`` for any N."""
    if name.startswith("chain-") and name[6:].isdigit():
        return chain(int(name[6:]))
    return BENCHMARKS[name].build()


def setup(model, static=False):
    """Seconds of each phase of the setup (PHASES) of one run."""
    clock = CLOCK[0]
    t = [clock()]
    system = freeze_reporting(model)
    t.append(clock())
    q, v = system.q0.copy(), system.v0.copy()
    if system.m:
        q, _ = initial.assemble_positions(system, q, 0.0)
        t.append(clock())
        if not static:  # as in simulate; static_equilibrium only assembles
            system.check_removed_equations(q, 0.0)
            v = initial.project_velocities(system, q, v, 0.0)
        t.append(clock())
    else:
        t += [t[-1], t[-1]]
    if not static:
        initial.consistent_accelerations(system, q, v, 0.0)
    t.append(clock())
    return np.diff(t)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", default=["chain-10", "chain-100", "chain-1000", "cantilever-256"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="print cProfile's top entries of one setup")
    ap.add_argument("--cpu", action="store_true", help="time each phase by this thread's CPU time, not wall time")
    args = ap.parse_args(argv)
    CLOCK[0] = time.thread_time if args.cpu else time.perf_counter
    warnings.simplefilter("ignore")
    setup(chain(3))
    setup(BENCHMARKS["cantilever-16"].build(), static=True)
    print(f"{'model':16s}" + "".join(f"{p:>24s}" for p in PHASES) + f"{'total':>12s}   [ms]")
    for name in args.names:
        model = build(name)
        static = name in BENCHMARKS and BENCHMARKS[name].static
        runs = np.array([setup(model, static) for _ in range(args.repeat)]) * 1e3
        print(f"{name:16s}" + "".join(f"{x:24.1f}" for x in runs.min(axis=0)) + f"{runs.sum(axis=1).min():12.1f}")
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(setup, model, static)
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
