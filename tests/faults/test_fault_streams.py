"""Output that nobody reads any more, and pictures too large to draw.

``flexmbd ... | head -1`` closes the pipe after one line: the command stops quietly
(exit status 141, as a process ended by SIGPIPE), without a BrokenPipeError traceback.
A resolution that would need gigabytes is refused as a usage error naming the option.
"""
from __future__ import annotations

import subprocess

import pytest

from faultkit import PENDULUM, argv, cli, env, one_line

pytest.importorskip("h5py")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("streams") / "p.h5"
    r = cli("run", PENDULUM, "-o", out, "--t-end", "0.05")
    assert r.returncode == 0, r.stderr
    return out


def _piped_to_head(args, lines=1):
    """Run ``flexmbd ARGS | head -LINES``; the exit status and stderr of flexmbd."""
    p = subprocess.Popen(argv(*args), env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    head = subprocess.run(["head", f"-{lines}"], stdin=p.stdout, capture_output=True, text=True)
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=120)
    return p.returncode, err, head.stdout


@pytest.mark.parametrize("args,lines", [
    (("plot", "{h5}", "--list"), 2),
    (("run", str(PENDULUM), "--t-end", "0.02"), 1),
    (("schema",), 1),
])
def test_a_closed_pipe_is_not_a_traceback(results, args, lines):
    args = [a.format(h5=results) for a in args]
    status, err, out = _piped_to_head(args, lines)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err.strip() == ""
    assert status in (0, 141)
    assert len(out.splitlines()) == lines


def test_broken_pipe_in_process_is_exit_141(monkeypatch, capsys, results):
    """The summary printed into a closed pipe: BrokenPipeError ends the command quietly."""
    import sys

    from flexmbd import cli as cli_module

    def broken(*a, **k):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli_module, "_broken_pipe", lambda: 141)  # keep pytest's own stdout
    monkeypatch.setattr("builtins.print", broken)
    assert cli_module.main(["plot", str(results), "--list"]) == 141
    monkeypatch.undo()
    assert "Traceback" not in capsys.readouterr().err
    assert sys.stdout is not None


@pytest.mark.parametrize("args,option", [
    (("plot", "{h5}", "upper.position", "--dpi", "100000"), "--dpi"),
    (("animate", "{h5}", "-o", "{dir}/a.gif", "--dpi", "5000"), "--dpi"),
])
def test_too_large_pictures_are_usage_errors(results, tmp_path, args, option):
    args = [a.format(h5=results, dir=tmp_path) for a in args]
    r = cli(*args, cwd=tmp_path, timeout=120)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert option in line and "at most" in line
    assert not list(tmp_path.glob("*.png")) and not list(tmp_path.glob("*.gif"))
