"""The warm-up process of a cold start (:mod:`flexmbd.cold_start`): compile the kernels by
running the README's example into a temporary directory, then mark the cache complete.
A module of the top layer (it runs an example); the cold-start logic that the kernels'
import consults stays in the bottom layer."""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from .cold_start import ENV, LOCK, MARKER


def warm_up() -> float:
    """Compile the kernels in this process (by running the README's example into a
    temporary directory) and mark the cache directory complete; the seconds it took."""
    t0 = time.perf_counter()
    import matplotlib

    matplotlib.use("Agg")
    from flexmbd import kernels
    from flexmbd.examples import registry

    if not kernels.AVAILABLE or kernels.CACHE_DIR is None:
        return 0.0
    with tempfile.TemporaryDirectory() as tmp:
        registry.load_examples()["slider-crank-sda"].run(Path(tmp), quiet=True)
    (kernels.CACHE_DIR / MARKER).write_text(f"{time.perf_counter() - t0:.1f} s\n")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    os.environ[ENV] = "wait"
    if hasattr(os, "nice"):   # a few minutes of compiling: leave the CPU to the user's own runs first
        try:
            os.nice(10)
        except OSError:
            pass
    lock = Path(argv[0]) / LOCK if argv else None
    try:
        seconds = warm_up()
        print(f"kernels compiled in {seconds:.1f} s")
        return 0
    finally:
        if lock is not None:
            lock.unlink(missing_ok=True)


