"""Run ``flexmbd`` (the command line) with a fault injected at an exact moment.

    python inject.py FAULT -- ARGS...     (FAULT as below, ARGS as for ``flexmbd``)

FAULT is ``SIG@PHASE:N``: the process sends itself signal SIG (INT or TERM) during
PHASE, at its N-th event, through the real signal handlers:

* ``step``   – the N-th step (or load step) handed to the results writer;
* ``output`` – the N-th named output computed for the results file after the run.

``WAIT@step:N`` instead holds the run at its N-th step until the file named by the
environment variable FAULT_GATE exists (the test opens the gate), so that a test can do
something while the run is certainly still going.

``nocheck`` (alone, or after a comma) turns off the writer's free-space check, so that
a file-size limit (RLIMIT_FSIZE, set by the test) reaches HDF5 as a write error.
Signals sent from inside the process arrive at a known point, where a signal from
outside would race with the run; the handlers and what they do are the real ones.
"""
from __future__ import annotations

import os
import signal
import sys


def _at(count: list, n: int, sig) -> None:
    count[0] += 1
    if count[0] == n:
        if sig == "WAIT":
            import time

            while not os.path.exists(os.environ["FAULT_GATE"]):
                time.sleep(0.02)
        else:
            os.kill(os.getpid(), sig)


def install(fault: str) -> None:
    from flexmbd.io import results_h5

    for part in filter(None, fault.split(",")):
        if part == "nocheck":
            results_h5.ResultWriter._check_space = lambda self, nbytes: None
            continue
        signame, _, rest = part.partition("@")
        phase, _, n = rest.partition(":")
        sig = "WAIT" if signame == "WAIT" else getattr(signal, "SIG" + signame)
        n, count = int(n or 1), [0]
        if phase == "step":
            on_step = results_h5.ResultWriter.on_step

            def hooked(self, state, stats, _on_step=on_step):
                out = _on_step(self, state, stats)
                _at(count, n, sig)
                return out

            results_h5.ResultWriter.on_step = hooked
        elif phase == "output":
            output = results_h5.StoredResult._output

            def hooked_output(self, name, _output=output):
                _at(count, n, sig)
                return _output(self, name)

            results_h5.StoredResult._output = hooked_output
        else:
            raise SystemExit(f"inject.py: unknown phase {phase!r}")


if __name__ == "__main__":
    fault, sep, *args = sys.argv[1:]
    assert sep == "--", "usage: inject.py FAULT -- ARGS..."
    install(fault)
    from flexmbd.cli import main

    sys.argv = ["flexmbd", *args]
    sys.exit(main())  # as the program: argv from sys.argv
