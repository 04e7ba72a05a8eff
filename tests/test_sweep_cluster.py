"""flexmbd sweep on a real Dask scheduler with two worker processes on localhost; one
worker is killed (SIGKILL) in the middle of the study: every case must still be in the
table exactly once, completed (Dask re-runs the lost worker's task on the other one).
About 20-30 s: a scheduler, two workers and the sweep are separate processes."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from flexmbd.io.model_library import bundled_models
from flexmbd.sweep import read_study
from flexmbd.sweep.spec import case_key, make_cases, parse_param

pytest.importorskip("distributed", reason="needs dask[distributed] (the sweep extra)")
pytest.importorskip("pyarrow", reason="needs pyarrow (the sweep extra)")

PENDULUM = bundled_models()["pendulum"]
PARAMS = ["parameters.L=lin:0.5:2.4:20", "solver.t_end=0.6"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _journal_rows(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(ln) for ln in fh if ln.startswith("{") and ln.rstrip().endswith("}")]
    except (OSError, json.JSONDecodeError):
        return []


def _stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_a_worker_killed_mid_study_leaves_every_case_exactly_once(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    # workers on the NumPy path (no kernel compilation in new processes); this checkout first on the path
    env = dict(os.environ, FLEXMBD_NUMBA="0", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    procs = []
    try:
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                       "--port", str(port), "--no-dashboard"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        workers = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                     "--no-nanny", "--no-dashboard", "--name", f"w{i}"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(2)]
        procs += workers
        from distributed import Client

        with Client(address, timeout="60s") as c:  # both workers up before the study starts
            c.wait_for_workers(2, timeout=60)
        out = tmp_path / "study.parquet"
        journal = str(out) + ".partial.jsonl"
        cmd = [sys.executable, "-m", "flexmbd", "sweep", str(PENDULUM), *sum((["--param", p] for p in PARAMS), []),
               "--scheduler", address, "-o", str(out)]
        sweep = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(sweep)
        # wait until both workers have finished cases, then kill one of them while it is busy
        victim = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and sweep.poll() is None:
            rows = _journal_rows(journal)
            pids = {int(r["worker"].rsplit(":", 1)[1]) for r in rows}
            if len(rows) >= 4 and pids == {w.pid for w in workers}:
                victim = workers[0]
                victim.send_signal(signal.SIGKILL)
                victim.wait(10)
                killed_after = len(rows)
                break
            time.sleep(0.05)
        assert victim is not None, "the study ended before both workers had run cases"
        stdout, stderr = sweep.communicate(timeout=180)
        assert sweep.returncode == 0, stderr
    finally:
        for p in reversed(procs):
            _stop(p)
    assert killed_after < 20  # the kill came in the middle of the study
    study = read_study(out)
    expected = {case_key(c) for c in make_cases([parse_param(p) for p in PARAMS])}
    import pyarrow.parquet as pq

    raw = pq.read_table(out).to_pydict()
    assert len(raw["key"]) == 20 and set(raw["key"]) == expected  # every case, once, nothing else
    assert sorted(raw["case"]) == list(range(20))
    assert set(study.column("status")) == {"completed"}
    by_worker = {}
    for r in study.rows:
        by_worker.setdefault(int(r["worker"].rsplit(":", 1)[1]), []).append(r["case"])
    assert set(by_worker) == {w.pid for w in workers}
    assert len(by_worker[workers[1].pid]) > 20 - killed_after - 1  # the survivor ran the rest
    assert not os.path.exists(journal)


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_cases_and_resume_runs_only_the_rest(tmp_path):
    """A real interruption: SIGINT to the whole process group (a terminal's Ctrl-C) once
    4 cases are written; exit status 130, the rows kept; --resume then runs only the
    missing cases (each finished row is still the one written before the interruption)."""
    env = dict(os.environ, FLEXMBD_NUMBA="0", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = tmp_path / "study.parquet"
    journal = str(out) + ".partial.jsonl"
    params = ["parameters.L=lin:0.5:2:16", "solver.t_end=0.6"]
    cmd = [sys.executable, "-m", "flexmbd", "sweep", str(PENDULUM), *sum((["--param", p] for p in params), []),
           "-o", str(out), "--workers", "2"]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120
    while len(_journal_rows(journal)) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "--resume runs the rest" in err
    before = {r["key"]: r for r in read_study(out).rows}
    assert 4 <= len(before) < 16
    done = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert f"{len(before)} of 16 cases already done; running the other {16 - len(before)}" in done.stderr
    after = read_study(out)
    assert len(after) == 16 and len(set(after.column("key"))) == 16
    for r in after.rows:
        if r["key"] in before:
            assert r == before[r["key"]]  # not run again
    assert all(r["status"] == "completed" for r in after.rows)
