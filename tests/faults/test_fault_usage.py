"""Command-line slips that used to do something else than asked: ``run -h 0.001``
printed the help (``-h`` is help, the time step is ``--h``); ``--resume`` ignored
``--h`` and ``--integrator``."""
from __future__ import annotations

import pytest

from faultkit import PENDULUM, one_line


def test_dash_h_with_a_number_is_a_usage_error(capsys):
    from flexmbd.cli import main

    assert main(["run", str(PENDULUM), "-h", "0.001"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "--h 0.001" in line and "--dt" in line
    assert main(["run", "-h"]) == 0  # plain -h is still the help
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("alias", ["--dt", "--step"])
def test_time_step_aliases(alias, capsys):
    from flexmbd.cli import main

    assert main(["run", str(PENDULUM), "--t-end", "0.02", alias, "0.01"]) == 0
    assert "2 steps to t = 0.02 s" in capsys.readouterr().out


@pytest.mark.parametrize("opt,value", [("--h", "0.002"), ("--integrator", "hht")])
def test_resume_refuses_what_it_cannot_change(tmp_path, opt, value, capsys):
    pytest.importorskip("h5py")
    from flexmbd.cli import main

    out = tmp_path / "r.h5"
    assert main(["run", str(PENDULUM), "-o", str(out), "--t-end", "0.01", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["run", str(PENDULUM), "--resume", str(out), opt, value, "--t-end", "0.02"]) == 2
    line = one_line(capsys.readouterr().err)
    assert opt in line and "stored" in line


def test_resume_progress_shows_the_stored_end_time(tmp_path, monkeypatch, capsys):
    """A run made with --t-end 0.05 resumes to 0.05 s, not to the model file's 2 s."""
    pytest.importorskip("h5py")
    from flexmbd.cli import main
    from flexmbd.io import model_run

    seen = []
    real = model_run.Progress.__init__

    def spy(self, t_end, *a, **k):
        seen.append(t_end)
        real(self, t_end, *a, **k)

    monkeypatch.setattr(model_run.Progress, "__init__", spy)
    out = tmp_path / "r.h5"
    assert main(["run", str(PENDULUM), "-o", str(out), "--t-end", "0.05", "--quiet"]) == 0
    import h5py

    with h5py.File(out, "r+") as f:
        f.attrs["status"], f.attrs["n_saved"] = "interrupted", 20
    seen.clear()
    assert main(["run", str(PENDULUM), "--resume", str(out), "--quiet"]) == 0
    assert seen == [0.05]


def test_compile_time_is_announced_and_reported_apart():
    """A kernel compiled inside the watch: one note on a terminal, the time summed."""
    import io

    numba = pytest.importorskip("numba")
    from flexmbd.compile_watch import CompileWatch

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    @numba.njit(cache=False)
    def fresh(x):
        return x + 1

    @numba.njit(cache=False)
    def other(x):
        return fresh(x) * 2

    out = Terminal()
    with CompileWatch(out, announce=True) as watch:
        assert other(1) == 4
    assert out.getvalue() == "compiling kernels (first run only)…\n"
    assert watch.compiled >= 2 and watch.seconds > 0
    assert "compiled kernels in" in watch.summary()
    with CompileWatch(out, announce=True) as again:
        other(2)  # already compiled: nothing to say
    assert again.compiled == 0 and again.summary() is None


def test_kernels_compiled_during_the_steps_are_not_wall_time():
    """simulate() leaves compile time out of ``wall_time`` and reports it as
    ``compile_seconds`` (a kernel compiled in a step callback stands for the first run's
    Numba compilation); a run that compiles nothing reports zero."""
    numba = pytest.importorskip("numba")
    import flexmbd as fm

    @numba.njit(cache=False)
    def fresh(x):
        return x + 1

    m = fm.Model(gravity=(0, 0, -9.81))
    m.rigid_body("b", mass=1.0, inertia=(1, 1, 1))

    def in_the_steps(state, stats):   # (the first call, at t = 0, comes before the steps)
        if state.t > 0:
            fresh(1)

    compiled = m.simulate(t_end=0.03, h=0.01, on_step=in_the_steps)
    assert compiled.success and compiled.compile_seconds > 0 and compiled.wall_time >= 0
    again = m.simulate(t_end=0.03, h=0.01, on_step=in_the_steps)
    assert again.compile_seconds == 0


def test_the_output_phase_has_a_progress_line(tmp_path):
    """After the last step the writer computes every output (it can take longer than the
    steps): the progress line says so, output by output."""
    import io

    pytest.importorskip("h5py")
    from flexmbd.io.model_run import Progress, prepare, writer_settings
    from flexmbd.io.results_h5 import ResultWriter
    from flexmbd.solvers.dynamics import simulate

    loaded, system = prepare(PENDULUM, t_end=0.02)
    w = ResultWriter(tmp_path / "p.h5", system, loaded.text, writer_settings(loaded))
    res = simulate(loaded.model, settings=loaded.simulate_settings(), system=system, on_step=w.on_step)
    seen, stream = [], io.StringIO()
    progress = Progress(0.02, stream, enabled=True, delay=0.0)

    def spy(i, n, name):
        seen.append((i, n, name))
        progress.last = 0.0  # show every one
        progress.outputs(i, n, name)

    assert w.close(res, outputs=list(loaded.spec.outputs), progress=spy) == "completed"
    assert [s[2] for s in seen] == list(loaded.spec.outputs) and seen[-1][:2] == (3, 4)
    assert "writing outputs" in stream.getvalue() and "4/4  energy.numerical_dissipation" in stream.getvalue()
