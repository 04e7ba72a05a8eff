"""Error-controlled time steps (``rtol``): the global error follows the tolerance, steps
concentrate where the motion needs them, output times are met exactly."""
import numpy as np
import pytest

from benchmarks.adaptive_study import heavy_top, kicked, pendulum, slider_crank
from flexmbd.solvers.settings import SettingError
import flexmbd.verify.cases.conservative as C


@pytest.mark.parametrize("run", [pendulum, slider_crank, heavy_top], ids=["pendulum", "slider-crank", "heavy-top"])
def test_global_error_within_a_small_factor_of_rtol(run):
    """Measured (benchmarks/adaptive_study.py): pendulum 3.05, 3.31 × rtol; slider-crank
    0.64, 1.65; heavy top 0.62, 0.64 at rtol = 1e-4, 1e-5; tightening rtol 10× cuts the
    error 3-10×."""
    (e4, n4), (e5, n5) = run(1e-4), run(1e-5)
    assert 0.1 * 1e-4 < e4 < 5 * 1e-4 and 0.1 * 1e-5 < e5 < 5 * 1e-5
    assert 3.0 < e4 / e5 and n5 > n4


def test_fewer_steps_than_a_fixed_step_of_the_same_accuracy_through_a_fast_transient():
    """A pendulum struck by a 10 ms pulse: rtol = 1e-5 reaches 9.6e-6 in 2286 steps; the
    fixed step needs h = 2.5e-4 (12000 steps) for 3.8e-6 and h = 5e-4 (6000) gives 1.5e-5."""
    err, steps = kicked(rtol=1e-5)
    fixed_err, fixed_steps = kicked(h=5e-4)
    assert err < fixed_err and steps < 0.5 * fixed_steps


def test_output_times_are_met_and_the_summary_tells_the_steps():
    res = C.simple_pendulum(np.pi / 2).simulate(t_end=1.0, h=0.1, rtol=1e-4)
    assert np.allclose(res.t, np.linspace(0.0, 1.0, 11), rtol=0, atol=1e-12)
    a = res.adaptive
    assert a["accepted"] > 10 and a["h_largest"] <= 0.1 + 1e-15 and a["h_smallest"] < a["h_largest"]
    assert res.stats["substeps"][1:].sum() == a["accepted"]
    assert "error-controlled:" in res.summary() and "steps halved" not in res.summary()


def test_a_step_below_h_min_stops_the_run_with_a_diagnosis():
    res = C.simple_pendulum(np.pi / 2).simulate(t_end=1.0, h=0.1, rtol=1e-8, h_min=1e-3)
    assert not res.success and "h_min" in res.message and len(res.t) >= 1
    with pytest.raises(SettingError, match="rtol"):
        C.simple_pendulum(np.pi / 2).simulate(t_end=1.0, h=0.1, rtol=-1.0)


def test_error_controlled_run_from_a_model_file_writes_and_resumes(tmp_path):
    """``rtol`` in a model file's solver section: the results file holds the output times,
    its summary the step control; a run stopped half-way and resumed completes on the same
    output times and ends within the tolerance of the uninterrupted run."""
    pytest.importorskip("h5py")
    import warnings

    from flexmbd.cli import main
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.model_run import writer_settings
    from flexmbd.io.results_h5 import ResultWriter, load_result
    from flexmbd.solvers.dynamics import simulate

    path = tmp_path / "dc.yaml"
    assert main(["example", "driven-crank", "--dump", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(text[text.index("solver:"):text.index("outputs:")],
                                 "solver:\n  t_end: 0.5\n  h: 0.01\n  rtol: 1.0e-5\n"), encoding="utf-8")
    full = tmp_path / "full.h5"
    assert main(["run", str(path), "-o", str(full), "--quiet"]) == 0
    back = load_result(full)
    assert np.allclose(back.t, np.linspace(0.0, 0.5, 51), atol=1e-12)
    assert back.adaptive["accepted"] > 50 and "error-controlled:" in back.summary()
    loaded = load_model_file(path)
    part = tmp_path / "part.h5"
    w = ResultWriter(part, loaded.freeze(), loaded.text, writer_settings(loaded), chunk=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate(loaded.model, settings=loaded.simulate_settings().replace(t_end=0.25), system=w.system,
                 on_step=w.on_step)
    w.abandon()
    assert main(["run", str(path), "--resume", str(part), "--quiet"]) == 0
    resumed = load_result(part)
    assert np.allclose(resumed.t, back.t, atol=1e-12)
    scale = np.abs(back.q).max()
    assert np.abs(resumed.q[-1] - back.q[-1]).max() < 1e-4 * scale


def test_error_controlled_steps_land_on_given_output_times():
    times = [0.123, 0.5, 0.77777]
    res = C.simple_pendulum(np.pi / 2).simulate(t_end=1.0, h=0.05, rtol=1e-5, output_times=times)
    assert np.allclose(res.t, [0.0, *times, 1.0], rtol=0, atol=1e-12)
    full = C.simple_pendulum(np.pi / 2).simulate(t_end=1.0, h=0.05, rtol=1e-5)
    assert np.abs(res.q[-1] - full.q[-1]).max() < 1e-4
