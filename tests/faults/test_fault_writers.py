"""Two runs, one results file; existing files that ``-o`` would replace.

A second run aimed at a file that a live run writes must leave it alone: refuse with
one line, and the first run finishes a complete, readable file.  ``-o`` replaces an
existing file only when it is a flexmbd results file of the same model, or with
``--force``.
"""
from __future__ import annotations

import shutil

import pytest

from faultkit import PENDULUM, cli, no_traceback, one_line, read_attrs, start_with_fault, wait_for_rows

h5py = pytest.importorskip("h5py")


def _held_run(tmp_path, out, t_end="3"):
    """A run of PENDULUM to ``out`` held at its 250th step until ``gate`` is created."""
    gate = tmp_path / "gate"
    first = start_with_fault("WAIT@step:250", "run", PENDULUM, "-o", out, "--t-end", t_end, cwd=tmp_path,
                             extra_env={"FAULT_GATE": str(gate)})
    wait_for_rows(out, 200, first)
    return first, gate


def test_second_run_on_a_live_file_refuses_and_leaves_it_intact(tmp_path):
    out = tmp_path / "s.h5"
    first, gate = _held_run(tmp_path, out)
    second = cli("run", PENDULUM, "-o", out, "--t-end", "0.01", cwd=tmp_path)
    assert second.returncode == 1
    line = one_line(second.stderr)
    assert str(out.name) in line and "another" in line, line
    assert int(read_attrs(out)["n_saved"]) >= 200  # untouched
    gate.touch()
    stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    no_traceback(stderr)
    attrs = read_attrs(out)
    assert attrs["status"] == "completed" and int(attrs["n_saved"]) == 3001
    exported = cli("export", out, "--csv", tmp_path / "x.csv", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert len((tmp_path / "x.csv").read_text().splitlines()) == 3002


def test_o_refuses_to_replace_a_file_that_is_not_a_results_file(tmp_path):
    out = tmp_path / "notes.h5"
    out.write_text("my notes\n")
    r = cli("run", PENDULUM, "-o", out, "--t-end", "0.01", cwd=tmp_path)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "--force" in line and "notes.h5" in line
    assert out.read_text() == "my notes\n"
    r = cli("run", PENDULUM, "-o", out, "--t-end", "0.01", "--force", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert read_attrs(out)["status"] == "completed"


def test_o_replaces_results_of_the_same_model_but_not_of_another(tmp_path):
    out = tmp_path / "r.h5"
    assert cli("run", PENDULUM, "-o", out, "--t-end", "0.01", cwd=tmp_path).returncode == 0
    again = cli("run", PENDULUM, "-o", out, "--t-end", "0.02", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert int(read_attrs(out)["n_saved"]) == 21
    other = tmp_path / "other.yaml"
    shutil.copy(PENDULUM, other)
    other.write_text(other.read_text().replace("name: double-pendulum", "name: another-pendulum"))
    r = cli("run", other, "-o", out, "--t-end", "0.01", cwd=tmp_path)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "double-pendulum" in line and "--force" in line
    assert int(read_attrs(out)["n_saved"]) == 21


def test_o_on_a_read_only_file_is_one_plain_line(tmp_path):
    import os

    if os.geteuid() == 0:  # root writes read-only files anyway; see the injected variant below
        pytest.skip("running as a user that can write read-only files")
    out = tmp_path / "ro.h5"
    assert cli("run", PENDULUM, "-o", out, "--t-end", "0.01", cwd=tmp_path).returncode == 0
    os.chmod(out, 0o444)
    r = cli("run", PENDULUM, "-o", out, "--t-end", "0.01", cwd=tmp_path)
    assert r.returncode == 1
    line = one_line(r.stderr)
    assert "ro.h5" in line and "ermission denied" in line and "flags" not in line


def test_permission_denied_is_reported_without_hdf5_details(tmp_path, monkeypatch, capsys):
    """The write lock's open fails as it would on a read-only file (root can write any
    file, so the refusal is injected): one plain line, exit 1, the file unchanged."""
    import errno
    import os

    from flexmbd.cli import main
    from flexmbd.io import file_guard
    from flexmbd.io.file_guard import os_reason

    out = tmp_path / "ro.h5"
    out.write_bytes(b"")
    real_open = os.open

    def refusing_open(path, flags, *a):
        if os.fspath(path) == str(out) and flags & os.O_RDWR:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *a)

    monkeypatch.setattr(file_guard.os, "open", refusing_open)
    assert main(["run", str(PENDULUM), "-o", str(out), "--t-end", "0.01", "--quiet"]) == 1
    line = one_line(capsys.readouterr().err)
    assert "ro.h5" in line and "Permission denied" in line
    # HDF5's own wording of the same failure is reduced to the reason
    h5_text = ("[Errno 13] Unable to synchronously create file (unable to open file: name = 'x.h5', errno = 13, "
               "error message = 'Permission denied', flags = 13, o_flags = 242)")
    assert os_reason(OSError(13, h5_text)) == "Permission denied"
    assert os_reason(OSError(None, "Unable to open (flags = 13, o_flags = 242 permission denied)")) == \
        "Permission denied"


def test_example_dump_keeps_an_edited_model_file(tmp_path, monkeypatch, capsys):
    from flexmbd.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["example", "pendulum", "--dump", "--quiet"]) == 0
    mine = tmp_path / "pendulum.yaml"
    bundled = mine.read_text()
    mine.write_text(bundled.replace("t_end: 2.0", "t_end: 5.0"))
    capsys.readouterr()
    assert main(["example", "pendulum", "--dump"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "pendulum.yaml" in line and "--force" in line
    assert "t_end: 5.0" in mine.read_text()
    assert main(["example", "pendulum", "--dump", "--quiet"]) == 2   # still refused
    assert main(["example", "pendulum", "--dump", "--force", "--quiet"]) == 0
    assert mine.read_text() == bundled
    assert main(["example", "pendulum", "--dump", "--quiet"]) == 0   # the same text: nothing lost


def test_example_dump_into_a_missing_directory_is_refused(tmp_path, capsys):
    from flexmbd.cli import main

    target = tmp_path / "nonexistent" / "p.yaml"
    assert main(["example", "pendulum", "--dump", str(target)]) == 2
    line = one_line(capsys.readouterr().err)
    assert "does not exist" in line and "nonexistent" in line
    assert not target.parent.exists()


def test_resume_of_a_live_file_refuses_and_leaves_it_intact(tmp_path):
    out = tmp_path / "live.h5"
    first, gate = _held_run(tmp_path, out)
    second = cli("run", PENDULUM, "--resume", out, cwd=tmp_path)
    assert second.returncode == 1
    line = one_line(second.stderr)
    assert "live.h5" in line and "another run" in line
    # a reader still sees the saved steps of the live file
    listed = cli("plot", out, "--list", cwd=tmp_path)
    assert listed.returncode == 0 and "upper.position" in listed.stdout
    first.terminate()  # held at its step: SIGTERM is handled there, the file closed as interrupted
    gate.touch()
    first.communicate(timeout=120)
    assert first.returncode == 143
    attrs = read_attrs(out)
    assert attrs["status"] == "interrupted" and int(attrs["n_saved"]) == 250
