"""A full disk, or a file-size limit, while ``flexmbd run -o`` writes its results.

The writer checks the free space (and ``ulimit -f``) before each flush and stops the run
while HDF5 can still close the file: exit 1, one line, status "failed", every flushed
step readable.  When the write fails all the same (the check is switched off here, as if
another program filled the disk between the check and the write), HDF5 cannot close the
file any more: still one line and exit 1, no traceback, no crash, and the file is not
"completed".
"""
from __future__ import annotations

import os
import resource
import subprocess

import pytest

from faultkit import PENDULUM, argv, cli, cli_with_fault, env, one_line, read_attrs

h5py = pytest.importorskip("h5py")

LIMIT = 3 << 20  # bytes: a few thousand steps of the double pendulum


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, resource.RLIM_INFINITY))


def _check_readable(path, tmp_path):
    """Every saved step loads, and the file exports."""
    attrs = read_attrs(path)
    assert attrs["status"] != "completed" and attrs["complete"] in (False, 0)
    n = int(attrs["n_saved"])
    assert n > 100
    r = cli("export", path, "--csv", tmp_path / "rows.csv", "upper.position")
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "rows.csv").read_text().splitlines()) == n + 1
    return attrs


def test_file_size_limit_stops_the_run_cleanly(tmp_path):
    out = tmp_path / "big.h5"
    r = subprocess.run(argv("run", PENDULUM, "-o", out, "--t-end", "1000"), cwd=tmp_path, env=env(),
                       capture_output=True, text=True, timeout=300, preexec_fn=_limit_file_size)
    assert r.returncode == 1, r.stderr
    line = one_line(r.stderr)
    assert "big.h5" in line and "file-size limit" in line and "keeps the" in line
    attrs = _check_readable(out, tmp_path)
    assert attrs["status"] == "failed" and "file-size limit" in attrs["message"]
    assert os.path.getsize(out) <= LIMIT


def test_write_error_past_the_check_is_one_line_and_no_crash(tmp_path):
    """HDF5 itself meets the limit (EFBIG, as ENOSPC): once it failed it cannot close
    the file, so the command leaves without HDF5's clean-up (it used to print ~20
    tracebacks and then crash with a segmentation fault)."""
    out = tmp_path / "big.h5"
    cmd = argv("run", PENDULUM, "-o", out, "--t-end", "1000")
    r = cli_with_fault("nocheck", *cmd[3:], cwd=tmp_path, preexec_fn=_limit_file_size)
    assert r.returncode == 1, r.stderr
    line = one_line(r.stderr)
    assert "big.h5" in line and "File too large" in line and "may be unreadable" in line
    assert r.returncode != -11 and "results so far in" in r.stdout
    attrs = read_attrs(out)  # {} when HDF5 cannot open it any more
    assert attrs.get("status") != "completed"
    r = cli("plot", out, "--list")  # whatever is left: one line, never a traceback
    if r.returncode:
        assert "big.h5" in one_line(r.stderr)


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MiB tmpfs (needs the right to mount: root in a container that allows it)."""
    d = tmp_path / "small"
    d.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(d)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def test_disk_full_stops_the_run_cleanly(small_disk, tmp_path):
    out = small_disk / "s.h5"
    r = cli("run", PENDULUM, "-o", out, "--t-end", "1000", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    line = one_line(r.stderr)
    assert "s.h5" in line and "disk is full" in line
    attrs = _check_readable(out, tmp_path)
    assert attrs["status"] == "failed"
