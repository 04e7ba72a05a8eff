"""Results on disk survive a killed run, and a resumed run equals an uninterrupted one.

A child process runs the P1 slider-crank with a ResultWriter (chunk = 10 steps).  Once
it has flushed 3 chunks and computed 5 more steps, it blocks; the test then kills it
(SIGKILL: no clean-up at all, or SIGINT: Ctrl-C), checks the file opens with every
flushed step, resumes it and compares with an uninterrupted run in this process.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

from flexmbd.examples.slider_crank import build  # noqa: E402
from flexmbd.io.results_h5 import (ResultWriter, load_result, resume_info, resume_run,  # noqa: E402
                                   resume_state)
from flexmbd.solvers.dynamics import simulate  # noqa: E402

T_END, H, CHUNK = 0.8, 0.01, 10
SETTINGS = dict(t_end=T_END, h=H, integrator="newmark", t_start=0.0, refresh="newton")

CHILD = textwrap.dedent("""
    import signal, sys, time, warnings
    # Ctrl-C as in a terminal, also when the tests run as a background job (which starts
    # with SIGINT ignored, a disposition children inherit)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    warnings.simplefilter("ignore")
    from flexmbd.examples.slider_crank import build
    from flexmbd.io.results_h5 import ResultWriter
    from flexmbd.solvers.dynamics import simulate

    path, t_end, h, chunk = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    model = build(k=2e4, c=1e3)
    system = model.freeze()
    seen = [0]

    def on_step(state, stats):
        w.on_step(state, stats)
        seen[0] += 1
        if w.n_saved >= 3 * chunk and seen[0] == w.n_saved + 5:
            print(f"BLOCKED {seen[0]} {w.n_saved}", flush=True)
            time.sleep(600)  # the parent kills us here, with 5 steps not yet flushed

    with ResultWriter(path, system, settings=dict(t_end=t_end, h=h, integrator="newmark", t_start=0.0,
                                                  refresh="newton"), chunk=chunk) as w:
        res = simulate(model, t_end, h, system=system, on_step=on_step, refresh="newton")
        w.close(res)
    print("DONE", flush=True)
""")


@pytest.fixture(scope="module")
def reference():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(build(k=2e4, c=1e3), T_END, H, integrator="newmark", refresh="newton")


def _start_and_block(tmp_path, sig):
    path = tmp_path / "run.h5"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(T_END), str(H), str(CHUNK)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 60
    line = ""
    while time.time() < deadline:
        line = p.stdout.readline()
        if line.startswith("BLOCKED") or not line:
            break
    if not line.startswith("BLOCKED"):
        p.kill()
        pytest.fail(f"child did not reach the kill point: {line!r} {p.stderr.read()[-2000:]}")
    _, seen, saved = line.split()
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    return path, int(seen), int(saved), p.returncode, err


def _assert_same(res, ref, rows=None):
    """Bit-for-bit, or within 1e-12 relative to the largest value of each quantity."""
    rows = slice(None) if rows is None else rows
    for k in ("t", "q", "v", "qdd", "a", "lam"):
        a, b = getattr(res, k), getattr(ref, k)[rows]
        assert a.shape == b.shape, k
        scale = max(1.0, float(np.max(np.abs(b))))
        assert np.max(np.abs(a - b)) <= 1e-12 * scale, (k, float(np.max(np.abs(a - b))))


def test_sigkill_then_resume_equals_uninterrupted(tmp_path, reference):
    path, seen, saved, rc, err = _start_and_block(tmp_path, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    assert saved % CHUNK == 0 and saved >= 3 * CHUNK and seen == saved + 5

    # The killed file opens (read-only and for appending) and holds every flushed step.
    info = resume_info(path)
    assert info["status"] == "running" and info["n_saved"] == saved
    part = load_result(path)
    assert part.status == "running" and not part.complete
    assert len(part.t) == saved
    _assert_same(part, reference, slice(0, saved))
    assert np.array_equal(part.q, reference.q[:saved])  # same code, same machine: bit-for-bit
    st = resume_state(path)
    assert st.t == reference.t[saved - 1] and np.array_equal(st.lam, reference.lam[saved - 1])
    # body kinematics come from the stored layout, without the model
    assert np.array_equal(part["slider.position"], reference["slider.position"][:saved])

    full = resume_run(path, model=build(k=2e4, c=1e3), chunk=CHUNK)
    assert full.status == "completed" and full.complete and full.success
    assert len(full.t) == len(reference.t)
    _assert_same(full, reference)
    assert np.array_equal(full.q, reference.q) and np.array_equal(full.lam, reference.lam), "not bit-for-bit"
    assert np.array_equal(full.stats["iterations"], reference.stats["iterations"])
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] and f.attrs["status"] == "completed"
        assert json.loads(f.attrs["resumed_at"]) == [reference.t[saved - 1]]
        assert f["outputs/sda.force"].shape == (len(reference.t),)
        np.testing.assert_allclose(f["outputs/sda.force"][()], reference["sda.force"], rtol=1e-12, atol=1e-9)
        assert f["q"].shape[0] == len(reference.t)


def test_sigint_flushes_every_step_and_resumes(tmp_path, reference):
    path, seen, saved, rc, err = _start_and_block(tmp_path, signal.SIGINT)
    assert rc != 0 and "Traceback" in err and "KeyboardInterrupt" in err  # the child script does not catch it
    part = load_result(path)
    assert part.status == "interrupted" and not part.complete
    assert len(part.t) == seen  # the 5 buffered steps were flushed on Ctrl-C
    _assert_same(part, reference, slice(0, seen))
    full = resume_run(path, model=build(k=2e4, c=1e3), chunk=CHUNK)
    assert full.status == "completed"
    assert np.array_equal(full.q, reference.q) and np.array_equal(full.lam, reference.lam)


def test_writer_in_process_roundtrip_and_append(tmp_path, reference):
    """ResultWriter + load_result in one process; a failed append leaves the file usable."""
    path = tmp_path / "a.h5"
    model = build(k=2e4, c=1e3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = model.freeze()
    with ResultWriter(path, system, model_text=None, settings=SETTINGS, chunk=7) as w:
        res = simulate(model, T_END, H, system=system, on_step=w.on_step, refresh="newton")
        w.close(res)
    back = load_result(path)
    assert back.status == "completed" and back.success and back.summary().startswith("completed")
    _assert_same(back, reference)
    for name in ("slider.position", "sda.force", "energy.total", "push.force" if "push.force" in back.names()
                 else "elbow.reaction"):
        np.testing.assert_allclose(back[name], reference[name], rtol=1e-12, atol=1e-9)
    assert back.settings["integrator"]["name"] == "newmark" and back.h == H
    # appending with another model is refused with one clear message
    other = build(k=2e4, c=1e3)
    other.rigid_body("extra", mass=1.0, inertia=(1, 1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other_system = other.freeze()
    with pytest.raises(ValueError, match="coordinates or constraints differ"):
        ResultWriter(path, other_system, append=True)
    assert load_result(path).status == "completed"
    # extending a completed run to a later t_end continues the same grid
    longer = resume_run(path, model=model, t_end=T_END + 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref2 = simulate(build(k=2e4, c=1e3), T_END + 0.1, H, refresh="newton")
    assert np.array_equal(longer.q, ref2.q)
