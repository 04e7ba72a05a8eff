"""How long Numba spent compiling, and telling a user that the first run compiles.

The first run after installing (or after any change to the kernels' sources) compiles
the Numba kernels, a few minutes on a small machine (since issue 18 in a background
process while the first run uses NumPy: flexmbd/cold_start.py), which used to be printed as the run's
wall time.  :class:`CompileWatch` listens to Numba's ``numba:compile`` events, which
fire only when a kernel is really compiled (not when it is loaded from the cache): on a
terminal it says "compiling kernels (first run only)…" once, and it sums the compile
time so that the summary reports it apart from the simulation's.  The solvers use it
silently (``announce=False``) to leave the compile time out of ``Result.wall_time``.
"""
from __future__ import annotations

import sys
import time


class CompileWatch:
    """Context manager: ``seconds`` spent compiling inside it; a note on ``stream``
    (when ``announce``) at the first compile."""

    def __init__(self, stream=None, announce: bool = True):
        self.stream = stream or sys.stderr
        self.announce = announce
        self.seconds = 0.0
        self.compiled = 0
        self._depth = 0
        self._t0 = 0.0
        self._said = False
        self._listener = None

    # Numba's listener interface (numba.core.event.Listener)
    def on_start(self, event) -> None:
        if self._depth == 0:
            self._t0 = time.perf_counter()
            if self.announce and not self._said:
                self._said = True
                try:
                    self.stream.write("compiling kernels (first run only)…\n")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
        self._depth += 1

    def on_end(self, event) -> None:
        self._depth = max(0, self._depth - 1)
        self.compiled += 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0

    def __enter__(self) -> CompileWatch:
        if "numba" not in sys.modules:   # Numba not imported (NumPy paths): nothing compiles,
            return self                  # and importing it would cost ~0.4 s (cold start)
        try:
            from numba.core import event
        except ImportError:  # no Numba: nothing is compiled
            return self
        self._listener = _listener_class()(self)
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> bool:
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None
        return False

    def summary(self) -> str | None:
        """The summary line, or None when nothing was compiled."""
        if _compiling_in_background():
            return ("  ran on the NumPy path: the compiled kernels are being compiled in the background "
                    "(first run after an install only; later runs use them)")
        if not self.compiled:
            return None
        return (f"  compiled kernels in {self.seconds:.1f} s (first run only: later runs load them from the cache; "
                "not counted in the wall time above)")


_LISTENER: list = []


def _listener_class():
    """The class of the listeners that pass Numba's compile events to a watch, made once
    (a class made at every ``__enter__`` cost ≈ 30 µs of every run: Numba's Listener is
    an abc.ABC)."""
    if not _LISTENER:
        from numba.core import event

        class _Listener(event.Listener):
            def __init__(self, watch: CompileWatch) -> None:
                self.watch = watch

            def on_start(self, ev):
                self.watch.on_start(ev)

            def on_end(self, ev):
                self.watch.on_end(ev)

        _LISTENER.append(_Listener)
    return _LISTENER[0]


def _compiling_in_background() -> bool:
    kernels = sys.modules.get("flexmbd.kernels")
    return bool(getattr(kernels, "COMPILING_IN_BACKGROUND", False))


__all__ = ["CompileWatch"]
