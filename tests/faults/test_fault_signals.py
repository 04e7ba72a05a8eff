"""SIGINT and SIGTERM in every phase of ``flexmbd run``: the time steps, the outputs
written after the last step, a resumed run, a static analysis.

The child process sends the signal to itself at an exact point (inject.py), through the
real handlers.  In every phase: the exit status is 128 + the signal number, stderr holds
one line, every completed step is in the file, and the file says "interrupted" (never
"running", never "completed").  The run then resumes to the same numbers as an
uninterrupted one.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from faultkit import MODELS, PENDULUM, cli, cli_with_fault, one_line, read_attrs

h5py = pytest.importorskip("h5py")

T_END, H = 1.0, 0.001
N_ROWS = int(round(T_END / H)) + 1


def _arrays(path):
    with h5py.File(path, "r") as f:
        n = int(f.attrs["n_saved"])
        return {k: f[k][:n] for k in ("t", "q", "v", "qdd", "a", "lam")}


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """The uninterrupted run, to compare resumed runs with."""
    out = tmp_path_factory.mktemp("full") / "full.h5"
    r = cli("run", PENDULUM, "-o", out, "--t-end", T_END)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("sig,status", [("INT", 130), ("TERM", 143)])
def test_signal_during_the_steps(tmp_path, sig, status):
    out = tmp_path / "s.h5"
    r = cli_with_fault(f"{sig}@step:400", "run", PENDULUM, "-o", out, "--t-end", T_END, cwd=tmp_path)
    assert r.returncode == status
    line = one_line(r.stderr)
    assert "interrupted by SIG" + sig in line and "s.h5" in line
    attrs = read_attrs(out)
    assert attrs["status"] == "interrupted" and int(attrs["n_saved"]) == 400


def test_sigint_while_the_outputs_are_written(tmp_path, full):
    out = tmp_path / "o.h5"
    r = cli_with_fault("INT@output:2", "run", PENDULUM, "-o", out, "--t-end", T_END, cwd=tmp_path)
    assert r.returncode == 130
    line = one_line(r.stderr)
    assert "outputs" in line and "--resume" in line
    attrs = read_attrs(out)
    assert attrs["status"] == "interrupted" and int(attrs["n_saved"]) == N_ROWS
    # every step is there; resuming writes the outputs and completes the file
    r = cli("run", PENDULUM, "--resume", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert read_attrs(out)["status"] == "completed"
    with h5py.File(out, "r") as f:
        assert "energy.total" in f["outputs"]
    a, b = _arrays(out), _arrays(full)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_sigterm_during_resume_keeps_every_step(tmp_path, full):
    out = tmp_path / "r.h5"
    r = cli_with_fault("INT@step:300", "run", PENDULUM, "-o", out, "--t-end", T_END, cwd=tmp_path)
    assert r.returncode == 130 and int(read_attrs(out)["n_saved"]) == 300
    r = cli_with_fault("TERM@step:200", "run", PENDULUM, "--resume", out, cwd=tmp_path)
    assert r.returncode == 143
    line = one_line(r.stderr)
    assert "interrupted by SIGTERM" in line and "--resume" in line
    attrs = read_attrs(out)
    assert attrs["status"] == "interrupted" and int(attrs["n_saved"]) == 500
    r = cli("run", PENDULUM, "--resume", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    a, b = _arrays(out), _arrays(full)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_resuming_a_completed_file_does_nothing(tmp_path, full):
    out = tmp_path / "done.h5"
    out.write_bytes(full.read_bytes())
    before = hashlib.sha256(out.read_bytes()).hexdigest()
    # a signal at the first output would have left it "running" when it was reopened
    r = cli_with_fault("TERM@output:1", "run", PENDULUM, "--resume", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "already completed" in r.stdout and "nothing to do" in r.stdout
    assert hashlib.sha256(out.read_bytes()).hexdigest() == before


def test_sigint_during_a_static_analysis_keeps_the_load_steps(tmp_path):
    out = tmp_path / "cant.h5"
    r = cli_with_fault("INT@step:4", "run", MODELS / "p3-cantilever.yaml", "-o", out, cwd=tmp_path)
    assert r.returncode == 130
    line = one_line(r.stderr)
    assert "interrupted by SIGINT" in line and "load factor" in line
    attrs = read_attrs(out)
    assert attrs["status"] == "interrupted" and int(attrs["n_saved"]) == 4
    with h5py.File(out, "r") as f:
        np.testing.assert_allclose(f["t"][:4], [0.0, 0.1, 0.2, 0.3])
