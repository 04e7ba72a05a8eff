"""The warm-up process of a cold start (:mod:`flexmbd.cold_start`): compile the kernels by
running the README's example into a temporary directory, mark the cache complete, then
compile the kernels of the other model families (:data:`FAMILIES`) by tiny runs.
A module of the top layer (it runs an example); the cold-start logic that the kernels'
import consults stays in the bottom layer."""
from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Callable

from .cold_start import ENV, LOCK, MARKER


def warm_up() -> float:
    """Compile the kernels in this process (by running the README's example into a
    temporary directory), mark the cache directory complete, then run :data:`FAMILIES`;
    the seconds it took."""
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
    # the README's example is what a newcomer runs next: mark the cache complete for it
    # first, then compile the other families' kernels while the user works (a process
    # that needs one of them before this is done compiles it itself, as before)
    for name, run in FAMILIES:
        try:
            with warnings.catch_warnings():   # the runs' own notes (redundant joint equations) say nothing here
                warnings.simplefilter("ignore")
                ok = run()
            if not ok:
                print(f"warm-up of {name}: a run did not succeed", file=sys.stderr)
        except Exception as exc:   # a warm-up that fails must not hide the user's own runs
            print(f"warm-up of {name} failed: {exc}", file=sys.stderr)
    return time.perf_counter() - t0


def _static_rigid() -> bool:
    from flexmbd.examples.slider_crank import build

    return build(k=2e4, c=1e3).static_equilibrium(load_steps=1).success


def _beam(formulation: str, order: int = 1) -> bool:
    from flexmbd.examples import p3_beams
    from flexmbd.verify.cases import beams

    kw = dict(formulation=formulation, order=order) if order > 1 else dict(formulation=formulation)
    m, _ = beams.cantilever("straight", 2, **kw)
    static = beams.solve(m, steps=1)
    pendulum = p3_beams.double_pendulum("III", elements=(1, 1), **kw).model
    return static.success and pendulum.simulate(t_end=3e-5, h=1e-5).success


def _modal_beam() -> bool:
    from flexmbd.examples import ffr_beams

    return ffr_beams.spin_up_model("modal", modes=2).simulate(t_end=3e-4, h=1e-4).success


#: tiny runs of the model families the README's example does not use: a static solve of a
#: rigid mechanism, each beam formulation (static and dynamic; the n-node SE(3) kernels
#: by a second-order one), a floating-frame beam;
#: each says whether its runs succeeded
FAMILIES: tuple[tuple[str, Callable[[], bool]], ...] = (
    ("rigid static equilibrium", _static_rigid),
    *((f"{f} beams", partial(_beam, f)) for f in ("se3", "r3r3", "ancf-cable", "ancf")),
    ("second-order se3 beams", partial(_beam, "se3", 2)),
    ("floating-frame beams", _modal_beam),
)


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


