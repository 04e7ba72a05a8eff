"""Ctrl-C and SIGTERM during a run: ask it to stop at the next safe point.

A run must never be cut in the middle of writing its results file, so while a
:class:`StopFlag` is active the first SIGINT or SIGTERM only records the signal; the run
checks :meth:`StopFlag.requested` after each step (or load step, or output) and ends
cleanly: every computed step is written and the file is closed as "interrupted".  A
second signal raises KeyboardInterrupt at once (the writer still closes the file as
"interrupted").  The flag stays active through the whole command, outputs and summary
included: restoring the default handlers earlier let a signal during the outputs kill
the process with the file still "running".
"""
from __future__ import annotations

import signal
import sys
import threading

NAMES = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}


class StopFlag:
    """Context manager: SIGINT/SIGTERM set ``signum`` instead of ending the process."""

    def __init__(self, stream=None, announce: bool = False):
        self.signum: int | None = None
        self._old: dict = {}
        self.stream = stream or sys.stderr
        self.announce = announce

    def __enter__(self) -> StopFlag:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    self._old[sig] = signal.signal(sig, self._handle)
                except (ValueError, OSError):  # pragma: no cover - not the main interpreter
                    pass
        return self

    def _handle(self, signum, frame):
        if self.signum is not None:  # a second Ctrl-C: give up at once
            raise KeyboardInterrupt
        self.signum = signum
        if self.announce:  # an interactive user learns that the first Ctrl-C was heard
            try:
                self.stream.write("\nstopping after the current step (Ctrl-C again to stop at once)\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass

    def requested(self) -> bool:
        """True once a signal has arrived."""
        return self.signum is not None

    @property
    def name(self) -> str:
        return NAMES.get(self.signum, f"signal {self.signum}")

    @property
    def exit_status(self) -> int:
        return 128 + int(self.signum or 0)

    def __exit__(self, *exc) -> bool:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()
        return False


__all__ = ["StopFlag"]
