"""Helpers of the fault-injection tests: run ``python -m flexmbd`` in a child process,
wait until a results file holds some steps, read a file's status without disturbing a
live writer, and check that a failure was reported as one line without a traceback.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "flexmbd" / "models"
#: A quick planar model: 1 ms steps, a few thousand steps a second.
PENDULUM = MODELS / "double-pendulum.yaml"


def env(**extra: str) -> dict:
    """The environment of a child: this checkout first on the import path."""
    e = dict(os.environ, PYTHONUNBUFFERED="1", **extra)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return e


def argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "flexmbd", *map(str, args)]


def cli(*args, cwd=None, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """Run the command line to its end; stdout and stderr as text."""
    return subprocess.run(argv(*args), cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout, **kw)


def cli_with_fault(fault: str, *args, cwd=None, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """Run the command line with a fault injected (see inject.py for ``fault``)."""
    cmd = [sys.executable, str(Path(__file__).with_name("inject.py")), fault, "--", *map(str, args)]
    return subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout, **kw)


def start(*args, cwd=None, **kw) -> subprocess.Popen:
    """Start the command line in the background (stdout and stderr piped, as text)."""
    return subprocess.Popen(argv(*args), cwd=cwd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def start_with_fault(fault: str, *args, cwd=None, extra_env=None, **kw) -> subprocess.Popen:
    """Start the command line in the background with a fault injected (see inject.py)."""
    cmd = [sys.executable, str(Path(__file__).with_name("inject.py")), fault, "--", *map(str, args)]
    return subprocess.Popen(cmd, cwd=cwd, env=env(**(extra_env or {})), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def read_attrs(path) -> dict:
    """The root attributes of a results file, read without taking HDF5's lock (the file
    may be open in a live run); {} while it cannot be read."""
    import h5py

    try:
        with h5py.File(path, "r", locking=False) as f:
            return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    except (OSError, KeyError, ValueError):
        return {}


def wait_for(cond, proc: subprocess.Popen | None = None, timeout: float = 120.0, what: str = "") -> None:
    """Poll ``cond()`` until it is true; fail if the child ended or the time ran out."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the child ended (exit {proc.returncode}) before {what}: {err[-2000:]}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def wait_for_rows(path, n: int, proc: subprocess.Popen | None = None, timeout: float = 120.0) -> None:
    """Wait until the results file at ``path`` has flushed at least ``n`` steps."""
    wait_for(lambda: int(read_attrs(path).get("n_saved", 0)) >= n, proc, timeout, f"{n} saved steps in {path}")


def one_line(stderr: str) -> str:
    """The single line a failure must be reported as (no traceback, no second line)."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
