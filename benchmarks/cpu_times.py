"""CPU seconds (``time.process_time``) of flexmbd and Exudyn on benchmark rows, the runner's
timing loop with process time instead of wall time: on a machine shared with other jobs
the wall time of the same code moves by up to 2× from run to run, its CPU time much less.

    PYTHONPATH=. python benchmarks/cpu_times.py slider-crank-100,chain-10 [repeat]

Prints, per row, the minimum over the repeats for both codes and their ratio
(docs/performance.md, "The step loop in compiled code").
"""
from __future__ import annotations

import sys
import time
import warnings

from benchmarks import exudyn_models as exm
from benchmarks.__main__ import warm_up
from benchmarks.models import BENCHMARKS


def main(names: list[str], repeat: int = 3) -> None:
    warnings.simplefilter("ignore")
    warm_up(True)
    for name in names:
        _row(name, repeat)


def _row(name: str, repeat: int) -> None:
    bench = BENCHMARKS[name]
    if bench.warm:
        bench.warm()
    bench.run(bench.build())
    ours, peer = [], []
    for _ in range(repeat):
        model = bench.build()
        t0 = time.process_time()
        res = bench.run(model)
        ours.append(time.process_time() - t0)
    for _ in range(repeat):
        other = bench.peer()
        t0 = time.process_time()
        exm.solve(other)
        peer.append(time.process_time() - t0)
    print(f"{name:28s} flexmbd {min(ours) * 1e3:9.2f} ms  Exudyn {min(peer) * 1e3:9.2f} ms  "
          f"ratio {min(ours) / min(peer):5.2f}  iterations {res.newton.iterations}  "
          f"{res.stats.get('time_loop', '')[:40]}", flush=True)

if __name__ == "__main__":
    main(sys.argv[1].split(","), int(sys.argv[2]) if len(sys.argv) > 2 else 3)
