"""Cold start of the README's main example: what compiles, and how long the first run takes.

    python benchmarks/cold_start.py signatures   # compile events of the example, empty cache
    bash benchmarks/cold_start.sh                 # fresh clone + venv: install, first, second run

``signatures`` runs ``flexmbd example slider-crank-sda`` in this process with an empty,
temporary ``NUMBA_CACHE_DIR`` and ``FLEXMBD_COLD_START=wait`` (compile in-process), and
lists every Numba compile event (function, argument types, inclusive seconds, nesting
depth); figures in docs/performance.md, "Cold start".
"""
from __future__ import annotations

import os
import sys
import tempfile
import time


def signatures() -> None:
    cache = tempfile.mkdtemp(prefix="flexmbd-cold-")
    os.environ["NUMBA_CACHE_DIR"] = cache
    os.environ["FLEXMBD_COLD_START"] = "wait"
    from numba.core import event

    rows, stack = [], []

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append(time.perf_counter())

        def on_end(self, ev):
            t0 = stack.pop()
            d = ev.data or {}
            disp = d.get("dispatcher")
            name = getattr(getattr(disp, "py_func", None), "__qualname__", str(disp))
            mod = getattr(getattr(disp, "py_func", None), "__module__", "")
            rows.append((len(stack), f"{mod}.{name}", str(d.get("args", ""))[:90], time.perf_counter() - t0))

    event.register("numba:compile", Listener())
    t0 = time.perf_counter()
    from flexmbd.cli import main

    out = tempfile.mkdtemp(prefix="flexmbd-cold-out-")
    main(["example", "slider-crank-sda", "--out", out, "--quiet"])
    total = time.perf_counter() - t0
    top = [r for r in rows if r[0] == 0]
    print(f"{len(rows)} compile events ({len(top)} top-level), {sum(r[3] for r in top):.1f} s compiling, "
          f"{total:.1f} s in all")
    for depth, name, args, secs in sorted(top, key=lambda r: -r[3]):
        print(f"{secs:7.2f} s  {name}{args}")
    names = {}
    for depth, name, args, secs in rows:
        names.setdefault(name, set()).add(args)
    multi = {n: a for n, a in names.items() if len(a) > 1}
    print(f"{len(names)} functions, {sum(len(a) for a in names.values())} signatures; "
          f"with more than one signature: {', '.join(f'{n} ({len(a)})' for n, a in multi.items()) or 'none'}")


if __name__ == "__main__":
    if sys.argv[1:] == ["signatures"]:
        signatures()
    else:
        print(__doc__)
