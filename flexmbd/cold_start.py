"""Cold start: the first process after an install runs on NumPy while the kernels compile.

Compiling the Numba kernels takes a few minutes of CPU on a small machine (162-230 s on
the 2-core VM in 2026-11; docs/performance.md, "Cold start"), and a newcomer's first command (``flexmbd example slider-crank-sda``)
would wait for it.  The NumPy implementations compute the same numbers (the reference
of tests/test_kernels.py and tests/test_compiled_assembly.py) and a small model runs on
them in well under a second.  So when the kernels' cache directory
(:data:`flexmbd.kernels.CACHE_DIR`) has not yet been filled completely, an import of
flexmbd

* uses the NumPy paths in this process (as ``FLEXMBD_NUMBA=0``), and
* starts one detached Python process (:func:`flexmbd.warmup.main`) that compiles the
  kernels into that cache (by running the README's example into a temporary directory)
  and then writes the marker file :data:`MARKER`; a lock file keeps it to one at a time.

Every later process finds the marker and loads the compiled kernels.  ``FLEXMBD_COLD_START``
chooses: ``background`` (the default, as above) or ``wait`` (compile in this process
when needed, the behaviour before; the tests and the warm-up process itself use it).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

#: file written into the cache directory once the warm-up process has compiled the kernels
MARKER = "compiled"
#: lock file of a running warm-up process (holds its pid)
LOCK = "compiling.pid"
#: a lock older than this is taken as left over by a process that died (seconds)
STALE_AFTER = 900.0
ENV = "FLEXMBD_COLD_START"


def mode() -> str:
    """``wait`` if ``FLEXMBD_COLD_START`` says so, else ``background``."""
    return "wait" if os.environ.get(ENV, "").strip().lower() == "wait" else "background"


def is_warm(cache_dir: Path) -> bool:
    """Whether the warm-up has completed for this cache directory (the current sources)."""
    return (cache_dir / MARKER).is_file()


def _lock_is_live(lock: Path) -> bool:
    try:
        age = time.time() - lock.stat().st_mtime
        pid = int(lock.read_text().strip() or 0)
    except (OSError, ValueError):
        return False
    if age > STALE_AFTER or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # exists but not ours (PermissionError), or no way to ask (Windows)
        return True
    return True


_COMMAND = "import sys; from flexmbd.warmup import main; sys.exit(main(sys.argv[1:]))"


def start_background(cache_dir: Path) -> bool:
    """Start the detached warm-up process unless one is running; True if one runs now."""
    lock = cache_dir / LOCK
    if lock.exists():
        if _lock_is_live(lock):
            return True
        try:
            lock.unlink()
        except OSError:
            return False
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return lock.exists()
    env = dict(os.environ, **{ENV: "wait"})
    env.pop("FLEXMBD_NUMBA", None)
    kwargs = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True
    else:  # pragma: no cover - Windows
        kwargs["creationflags"] = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    try:
        with open(cache_dir / "compiling.log", "w") as log:
            proc = subprocess.Popen([sys.executable, "-c", _COMMAND, str(cache_dir)], env=env,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **kwargs)
    except OSError:
        os.close(fd)
        lock.unlink(missing_ok=True)
        return False
    os.write(fd, str(proc.pid).encode())
    os.close(fd)
    return True
