"""Cold start (flexmbd/cold_start.py): a process whose kernel cache is not complete runs on
NumPy and leaves the compiling to one background process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flexmbd import cold_start
from flexmbd.kernels import cache

ROOT = Path(__file__).resolve().parents[1]
PROBE = ("import json, flexmbd, flexmbd.kernels as k; from flexmbd.compiled_assembly import compiled_assembly;"
         "m = flexmbd.Model(); print(json.dumps([k.AVAILABLE, k.COMPILING_IN_BACKGROUND]))")


def _probe(numba_cache: Path, mode: str) -> list:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache), FLEXMBD_COLD_START=mode, PYTHONPATH=str(ROOT))
    env.pop("FLEXMBD_NUMBA", None)
    out = subprocess.run([sys.executable, "-c", PROBE], check=False, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cold_cache_runs_on_numpy_while_one_process_compiles(tmp_path):
    pytest.importorskip("numba")
    kernel_cache = cache.prepare(str(tmp_path))
    # a live warm-up process (this test's own pid): no second one is started
    (kernel_cache / cold_start.LOCK).write_text(str(os.getpid()))
    assert _probe(tmp_path, "background") == [False, True]
    assert (kernel_cache / cold_start.LOCK).read_text() == str(os.getpid())
    # 'wait' compiles in the process, as before
    assert _probe(tmp_path, "wait") == [True, False]
    # once the warm-up has marked the cache complete, every process uses the kernels
    (kernel_cache / cold_start.MARKER).write_text("done\n")
    assert _probe(tmp_path, "background") == [True, False]


def test_stale_lock_is_replaced_and_one_process_started(tmp_path, monkeypatch):
    started = []

    class FakePopen:
        def __init__(self, args, **kwargs):
            started.append(args)
            self.pid = os.getpid()

    monkeypatch.setattr(cold_start.subprocess, "Popen", FakePopen)
    lock = tmp_path / cold_start.LOCK
    lock.write_text("999999999")             # no such process
    assert cold_start.start_background(tmp_path)
    assert len(started) == 1 and started[0][-1] == str(tmp_path)
    assert lock.read_text() == str(os.getpid())
    assert cold_start.start_background(tmp_path)   # live lock: nothing more started
    assert len(started) == 1


def test_mode():
    assert cold_start.mode() in ("wait", "background")
    env = dict(os.environ)
    try:
        os.environ[cold_start.ENV] = "WAIT"
        assert cold_start.mode() == "wait"
        os.environ[cold_start.ENV] = ""
        assert cold_start.mode() == "background"
    finally:
        os.environ.clear()
        os.environ.update(env)


@pytest.mark.filterwarnings("ignore::flexmbd.system.RedundantConstraintWarning")
def test_the_warm_up_runs_of_every_model_family_succeed():
    from flexmbd import warmup

    assert len(warmup.FAMILIES) >= 6
    failed = [name for name, run in warmup.FAMILIES if not run()]
    assert not failed, f"warm-up runs that did not succeed: {failed}"
