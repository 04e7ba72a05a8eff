"""Solver settings (flexmbd/solvers/settings.py) and step halving (flexmbd/solvers/halving.py):
one definition, validated once, the same run whichever way the settings are given."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.examples.slider_crank import build
from flexmbd.solvers.halving import advance
from flexmbd.solvers.relaxation import relax
from flexmbd.solvers.settings import DynamicSettings, KinematicSettings, RelaxSettings, SettingError, StaticSettings


@pytest.fixture(scope="module")
def crank():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build(k=2e4, c=1e3)


def _pendulum():
    m = fm.Model(gravity=(0, -9.81, 0))
    b = m.planar_body("bob", mass=1.0, inertia=0.01, position=(1.0, 0.0))
    m.revolute(fm.GROUND, b, at=(0, 0, 0), name="pin")
    return m


# ---------------------------------------------------------------- one run, three ways


def test_settings_object_keywords_and_overrides_give_the_same_run(crank):
    kw = dict(t_end=0.05, h=0.005, integrator=fm.HHT(0.9), tol=1e-9, refresh="step")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = crank.simulate(**kw)
        b = crank.simulate(settings=DynamicSettings(**kw))
        c = crank.simulate(settings=DynamicSettings(t_end=1.0, h=0.005, integrator="hht", tol=1e-9,
                                                    refresh="step"), t_end=0.05, integrator=fm.HHT(0.9))
    assert len(a.t) == 11 and a.success
    for r in (b, c):
        assert np.array_equal(r.q, a.q) and np.array_equal(r.lam, a.lam)
        assert np.array_equal(r.stats["iterations"], a.stats["iterations"])


def test_settings_are_frozen_and_replace_validates():
    s = DynamicSettings(t_end=1.0, h=0.01)
    with pytest.raises(AttributeError):
        s.h = 0.02
    assert s.replace(h=0.02).h == 0.02 and s.h == 0.01
    assert s.integrator == fm.Newmark() and s.n_steps == 100
    assert DynamicSettings(t_end=1, h=0.1, integrator="generalized-alpha").integrator == fm.GeneralizedAlpha(0.8)
    with pytest.raises(SettingError, match="need tol > 0"):
        s.replace(tol=0.0)


# ---------------------------------------------------------------- the new errors


@pytest.mark.parametrize("kw,key,text", [
    (dict(t_end=0.1, h=1.0), "h", "the step h = 1 s is longer than the run"),
    (dict(t_end=0.1, h=0.0), "h", "need h > 0, got h = 0.0"),
    (dict(t_end=0.1, h=-0.01), "h", "need h > 0"),
    (dict(t_end=0.1, h=float("nan")), "h", "h must be a finite number"),
    (dict(t_end=0.1, h=0.01, tol=-1), "tol", "need tol > 0, got tol = -1.0"),
    (dict(t_end=0.1, h=0.01, max_iter=0), "max_iter", "need max_iter ≥ 1, got max_iter = 0"),
    (dict(t_end=0.1, h=0.01, max_iter=2.5), "max_iter", "max_iter must be a whole number"),
    (dict(t_end=0.1, h=0.01, max_halvings=-1), "max_halvings", "need max_halvings ≥ 0"),
    (dict(t_end=0.1, h=0.01, t_start=0.2), "t_end", "need t_end > t_start"),
    (dict(t_end=0.1, h=0.01, integrator="rk4"), "integrator", "unknown integrator 'rk4'"),
    (dict(t_end=0.1, h=0.01, integrator=fm.HHT(0.2)), "integrator", "1/2 ≤ rho_inf ≤ 1, got 0.2"),
    (dict(t_end=0.1, h=0.01, jacobian="M4"), "jacobian", "unknown Jacobian part 'M4'"),
    (dict(t_end=0.1, h=0.01, refresh=0), "refresh", "'newton', 'step', 'contraction' or an integer ≥ 1, got 0"),
    (dict(t_end=0.1, h=0.01, convergence="resid"), "convergence", "did you mean 'residual'"),
    (dict(t_end=0.1, h=0.01, linear_solver="lu"), "linear_solver", "unknown linear_solver 'lu'"),
    (dict(t_end=0.1, h=0.01, assemble="yes"), "assemble", "assemble must be True or False"),
])
def test_simulate_rejects_bad_settings_naming_them(kw, key, text):
    """Each bad value is one ValueError naming the setting, raised before any work; a
    step longer than the run used to return 'success' with no step at all."""
    with pytest.raises(SettingError) as info:
        _pendulum().simulate(**kw)
    assert info.value.key == key and text in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_unknown_or_missing_settings_are_type_errors():
    with pytest.raises(TypeError, match="unknown setting 'tol_'; did you mean 'tol'"):
        _pendulum().simulate(t_end=0.1, h=0.01, tol_=1e-3)
    with pytest.raises(TypeError, match="simulate needs the setting t_end"):
        _pendulum().simulate(h=0.01)
    with pytest.raises(TypeError, match="settings must be a DynamicSettings"):
        _pendulum().simulate(settings=StaticSettings())


def test_static_and_relax_settings_are_validated_too():
    with pytest.raises(SettingError, match="need load_steps ≥ 1"):
        _pendulum().static_equilibrium(load_steps=0)
    with pytest.raises(SettingError, match="jacobian: unknown Jacobian part 'fd'"):
        _pendulum().static_equilibrium(jacobian="fd")
    with pytest.raises(SettingError, match="need max_cuts ≥ 0"):
        StaticSettings(max_cuts=-1)
    with pytest.raises(SettingError, match="need force_tol > 0"):
        relax(_pendulum(), force_tol=0.0)
    with pytest.raises(SettingError, match="damping must be one of"):
        RelaxSettings(damping="magic")
    assert RelaxSettings().integrator == fm.Newmark(0.3, 0.6) and RelaxSettings().tol is None


def test_static_settings_object_equals_keywords():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = build(k=2e4, c=0.0)
        a = m.static_equilibrium(load_steps=3, tol=1e-10)
        c = m.static_equilibrium(settings=StaticSettings(load_steps=3, tol=1e-10))
    assert a.success and np.array_equal(a.q, c.q) and len(a.load_factor) == 4


# ---------------------------------------------------------------- JSON


def test_settings_json_round_trip():
    s = DynamicSettings(t_end=2.0, h=0.01, integrator=fm.GeneralizedAlpha(0.7), jacobian=frozenset({"inertia"}),
                        refresh=3, t_start=0.5, project_velocities=False)
    d = json.loads(json.dumps(s.to_json()))
    assert d["integrator"] == {"name": "generalized-alpha", "rho_inf": 0.7} and d["jacobian"] == ["inertia"]
    assert DynamicSettings.from_json({**d, "outputs": ["x.position"], "redundancy": "keep"}) == s
    st = StaticSettings(load_steps=7, jacobian="M1+M2")
    assert StaticSettings.from_json(json.loads(json.dumps(st.to_json()))) == st
    with pytest.raises(SettingError, match="the setting h is missing"):
        DynamicSettings.from_json({"t_end": 1.0})


# ---------------------------------------------------------------- step halving


class _Stepper:
    """Fails every step longer than ``h_ok`` and, in ``bad``, every step starting at a listed time."""

    def __init__(self, h_ok, bad=()):
        self.h_ok, self.bad, self.calls = h_ok, bad, []

    def __call__(self, t, h):
        self.calls.append((t, h))
        ok = h <= self.h_ok and not any(abs(t - b) < 1e-12 for b in self.bad)
        return (t + h if ok else None), ("failed", t, h)


def test_halving_counts_and_order():
    st = _Stepper(0.25)
    out = advance(st, 0.0, 1.0, 4)
    assert out.state == 1.0 and out.substeps == 4 and out.halvings == 3 and out.failure is None
    assert st.calls == [(0.0, 1.0), (0.0, 0.5), (0.0, 0.25), (0.25, 0.25), (0.5, 0.5), (0.5, 0.25),
                        (0.75, 0.25)]
    assert advance(_Stepper(1.0), 0.0, 1.0, 0).substeps == 1


def test_halving_failure_reports_the_failing_sub_step():
    out = advance(_Stepper(0.25, bad=(0.75,)), 0.0, 1.0, 2)
    f = out.failure
    assert out.state is None and f.state == 0.75 and f.h == 0.25 and f.path == (1, 1)
    assert f.outcome == ("failed", 0.75, 0.25)
    assert out.substeps == 3 and out.halvings == 3
    out = advance(_Stepper(0.1), 0.0, 1.0, 2)
    assert out.state is None and out.failure.path == (0, 0) and out.failure.h == 0.25


def test_simulate_and_relax_report_the_halvings_they_always_reported():
    """simulate counts the completed sub-steps of each step (1: no halving), relax the
    halvings (on a failed step, plus one per second half on the way to the failing
    sub-step); the numbers are those of the two implementations this one replaced."""
    from flexmbd.examples.tensegrity import build_prism

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=1e6, c=1e3).simulate(t_end=0.2, h=0.05, max_iter=2, max_halvings=3, convergence="residual")
        assert res.success and res.stats["substeps"].tolist() == [0, 4, 3, 3, 3]
        assert res.stats["iterations"].tolist() == [0, 14, 10, 10, 10]
        t = build_prism(twist=140.0)
        for max_iter, h, max_halvings, halvings in ((2, 0.05, 2, 4), (3, 0.1, 1, 2), (3, 0.2, 2, 3)):
            rel = relax(t.model, h=h, damping="kinetic", max_iter=max_iter, max_steps=20, max_halvings=max_halvings)
            assert not rel.converged and rel.steps == 0 and "Newton failed at t = 0 s" in rel.message
            assert rel.halvings == halvings, (max_iter, h, max_halvings)


# ---------------------------------------------------------------- model files


def test_solver_sections_of_the_schema_are_the_settings_fields():
    """The ``solver:`` keys, order, defaults, descriptions and bounds come from the dataclasses."""
    import dataclasses

    from flexmbd.io import model_schema as S

    for section, cls in ((S.Solver, DynamicSettings), (S.StaticSolver, StaticSettings),
                         (S.KinematicSolver, KinematicSettings)):
        props = section.model_json_schema()["properties"]
        fields = cls.file_fields()
        assert list(props) == ["analysis", *[f.name for f in fields], "redundancy"]
        for f in fields:
            about = f.metadata["setting"]
            assert props[f.name]["description"] == about.doc
            if f.default is dataclasses.MISSING:
                assert f.name in section.model_json_schema()["required"]
            elif f.name != "integrator":
                assert props[f.name]["default"] == f.default, f.name
            prop = props[f.name]     # an optional setting: the bounds are on its non-null choice
            prop = next((p for p in prop.get("anyOf", ()) if p.get("type") != "null"), prop)
            for key, bound in (("exclusiveMinimum", about.gt), ("minimum", about.ge), ("maximum", about.le)):
                assert prop.get(key) == bound, (f.name, key)
    assert S.Solver.model_json_schema()["properties"]["integrator"]["default"] == "newmark"
    assert {f.name for f in DynamicSettings.file_fields()} == set(DynamicSettings.hints()) - {"FOR", "t_start"}


SLIDER = Path(fm.__file__).parent / "models" / "slider-crank-sda.yaml"


@pytest.mark.parametrize("line,key,text", [
    ("  jacobian: M4\n", "solver.jacobian", "unknown Jacobian part 'M4'"),
    ("  tol: -1.0\n", "solver.tol", "must be > 0"),
    ("  max_halvings: 21\n", "solver.max_halvings", "must be ≤ 20"),
    ("  linear_solver: lu\n", "solver.linear_solver", "'auto'"),
    ("  h: 2.0\n", "solver.h", "the step h = 2 s is longer than the run (t_end = 1 s)"),
])
def test_model_file_setting_errors_name_file_line_and_key(line, key, text):
    from flexmbd.io.model_file import ModelFileError, load_model_text

    src = SLIDER.read_text(encoding="utf-8").replace("  h: 0.01\n", "").replace("  tol: 1.0e-7\n", "")
    src = src.replace("  max_iter: 25\n", "  max_iter: 25\n" + line)
    if "h:" not in line:
        src = src.replace("  t_end: 1.0\n", "  t_end: 1.0\n  h: 0.01\n")
    with pytest.raises(ModelFileError) as info:
        load_model_text(src, "m.yaml")
    msg = str(info.value)
    row = src.splitlines().index(line.rstrip("\n")) + 1
    assert info.value.key == key and text in msg and msg.startswith(f"m.yaml:{row}: {key}: "), msg


# ---------------------------------------------------------------- results files and --resume

#: The settings attribute exactly as results files of format_version 1 written before the
#: settings dataclass hold it (flexmbd run -o, driven-crank, --integrator hht:0.9), with tol 1e-9.
OLD_SETTINGS = ('{"t_end": 0.1, "h": 0.005, "integrator": {"name": "hht", "rho_inf": 0.9}, "tol": 1e-09, '
                '"max_iter": 25, "jacobian": "full", "refresh": "newton", "convergence": "residual", '
                '"max_halvings": 4, "linear_solver": "auto", "assemble": true, "t_start": 0.0, '
                '"redundancy": "remove", "outputs": ["motor.torque", "spring.force", "block.position"]}')


def _driven_crank(tmp_path, solver):
    from flexmbd.cli import main

    path = tmp_path / "dc.yaml"
    assert main(["example", "driven-crank", "--dump", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    old = text[text.index("solver:"):text.index("outputs:")]
    path.write_text(text.replace(old, solver + "\n"), encoding="utf-8")
    return path


def _same_run(a, b):
    for k in ("t", "q", "v", "qdd", "a", "lam"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    assert np.array_equal(a.stats["iterations"], b.stats["iterations"])


def test_settings_round_trip_through_a_results_file_and_resume(tmp_path, capsys):
    """The file's settings are stored whole; a crashed run resumed with ``--resume`` uses
    them (HHT 0.9, tol 1e-9: not the defaults) and equals the uninterrupted run."""
    pytest.importorskip("h5py")
    from flexmbd.cli import main
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.model_run import writer_settings
    from flexmbd.io.results_h5 import ResultWriter, load_result, stored_settings
    from flexmbd.solvers.dynamics import simulate

    yaml = _driven_crank(tmp_path, "solver:\n  t_end: 0.1\n  h: 0.005\n  integrator: {type: hht, rho_inf: 0.9}\n"
                                   "  tol: 1.0e-9\n  max_halvings: 2\n  linear_solver: dense")
    loaded = load_model_file(yaml)
    s = loaded.simulate_settings()
    assert s == DynamicSettings(t_end=0.1, h=0.005, integrator=fm.HHT(0.9), tol=1e-9, max_halvings=2,
                                linear_solver="dense")
    full = tmp_path / "full.h5"
    assert main(["run", str(yaml), "-o", str(full), "--quiet"]) == 0
    stored = load_result(full).settings
    assert stored["outputs"] == list(loaded.spec.outputs) and stored["redundancy"] == "remove"
    assert stored_settings(full, stored) == s

    part = tmp_path / "part.h5"
    system = loaded.freeze()
    w = ResultWriter(part, system, loaded.text, writer_settings(loaded), chunk=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate(loaded.model, settings=s.replace(t_end=0.05), system=system, on_step=w.on_step)
    w.abandon()  # never closed by the writer: a crash after the last flush
    assert len(load_result(part).t) == 8
    capsys.readouterr()
    assert main(["run", str(yaml), "--resume", str(part), "--quiet"]) == 0
    a, b = load_result(part), load_result(full)
    assert a.status == "completed" and len(a.t) == 21
    _same_run(a, b)
    assert stored_settings(part, a.settings) == s


def test_settings_of_an_older_results_file_still_resume(tmp_path):
    """A format_version 1 file whose settings were written before the dataclass (no
    project_velocities key) resumes with them: HHT 0.9 and tol 1e-9 are used."""
    pytest.importorskip("h5py")
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.results_h5 import ResultWriter, resume_run
    from flexmbd.solvers.dynamics import simulate

    yaml = _driven_crank(tmp_path, "solver:\n  t_end: 0.1\n  h: 0.005")
    loaded = load_model_file(yaml)
    system = loaded.freeze()
    ref_settings = DynamicSettings(t_end=0.1, h=0.005, integrator=fm.HHT(0.9), tol=1e-9, convergence="residual")
    part = tmp_path / "old.h5"
    w = ResultWriter(part, system, loaded.text, chunk=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate(loaded.model, settings=ref_settings.replace(t_end=0.05), system=system, on_step=w.on_step)
        w.file.attrs["settings"] = OLD_SETTINGS
        w.abandon()
        res = resume_run(part, model=loaded.model)
        ref = simulate(loaded.model, settings=ref_settings, system=system)
    assert res.status == "completed"
    _same_run(res, ref)
    # the defaults would have given another run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = simulate(loaded.model, t_end=0.1, h=0.005, system=system)
    assert not np.array_equal(other.q, ref.q)


def test_static_settings_stored_and_not_resumed(tmp_path):
    pytest.importorskip("h5py")
    from flexmbd.cli import main
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.results_h5 import ResultsFileError, load_result, resume_run

    cantilever = SLIDER.parent / "p3-cantilever.yaml"
    out = tmp_path / "c.h5"
    assert main(["run", str(cantilever), "-o", str(out), "--quiet"]) == 0
    stored = load_result(out).settings
    assert stored["analysis"] == "static"
    assert StaticSettings.from_json(stored) == load_model_file(cantilever).static_settings()
    with pytest.raises(ResultsFileError, match="static analysis, which is not resumed"):
        resume_run(out)


def test_output_every_stores_every_kth_step_of_the_same_run(tmp_path):
    """``output_every: 4`` in a model file: the results file holds t = 0, 4h, 8h, … and the
    last step, each equal to the same step of the full run; the iterations are summed over
    the steps between them; a run stopped mid-way and resumed stores the same rows."""
    pytest.importorskip("h5py")
    from flexmbd.cli import main
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.model_run import writer_settings
    from flexmbd.io.results_h5 import ResultWriter, load_result
    from flexmbd.solvers.dynamics import simulate

    yaml = _driven_crank(tmp_path, "solver:\n  t_end: 0.1\n  h: 0.005\n  output_every: 4")
    every = tmp_path / "every.h5"
    assert main(["run", str(yaml), "-o", str(every), "--quiet"]) == 0
    loaded = load_model_file(yaml)
    full = simulate(loaded.model, settings=loaded.simulate_settings().replace(output_every=1))
    back = load_result(every)
    rows = [0, 4, 8, 12, 16, 20]
    assert np.allclose(back.t, full.t[rows], rtol=0, atol=1e-15)
    for k in ("q", "v", "qdd", "lam"):
        assert np.array_equal(getattr(back, k), getattr(full, k)[rows]), k
    assert back.stats["iterations"][1:].sum() == full.stats["iterations"][1:].sum()
    assert back.computed_steps == 20 and "20 steps (5 stored: every 4 steps)" in back.summary()
    np.testing.assert_array_equal(back["motor.torque"], full["motor.torque"][rows])
    # stopped after 10 steps (rows 0, 4, 8 and the last computed, 10), resumed: the same grid
    part = tmp_path / "part.h5"
    system = loaded.freeze()
    w = ResultWriter(part, system, loaded.text, writer_settings(loaded), chunk=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate(loaded.model, settings=loaded.simulate_settings().replace(t_end=0.05), system=system,
                 on_step=w.on_step)
    w.abandon()
    assert np.allclose(load_result(part).t, full.t[[0, 4, 8, 10]], atol=1e-15)
    assert main(["run", str(yaml), "--resume", str(part), "--quiet"]) == 0
    a = load_result(part)
    assert np.allclose(a.t, full.t[[0, 4, 8, 10, 12, 16, 20]], atol=1e-15)
    assert np.array_equal(a.q[-1], full.q[-1])


def test_output_times_store_exactly_the_times_asked_and_resume(tmp_path):
    """``output_times`` in a model file: the results file holds t = 0, those times and t_end;
    before the first time off the grid the states equal the full run's bit for bit (the
    grid is the same), after it within the discretisation error (the step across 0.0333 s
    was split there); a run stopped and resumed stores the same rows with the same values.
    Bad lists are refused naming the setting."""
    pytest.importorskip("h5py")
    from flexmbd.cli import main
    from flexmbd.io.model_file import load_model_file
    from flexmbd.io.model_run import writer_settings
    from flexmbd.io.results_h5 import ResultWriter, load_result
    from flexmbd.solvers.dynamics import simulate

    times = [0.01, 0.025, 0.0333, 0.05]
    yaml = _driven_crank(tmp_path, "solver:\n  t_end: 0.1\n  h: 0.005\n  output_times: [0.01, 0.025, 0.0333, 0.05]")
    out = tmp_path / "times.h5"
    assert main(["run", str(yaml), "-o", str(out), "--quiet"]) == 0
    back = load_result(out)
    assert np.allclose(back.t, [0.0, *times, 0.1], rtol=0, atol=1e-15)
    loaded = load_model_file(yaml)
    full = simulate(loaded.model, settings=loaded.simulate_settings().replace(output_times=None))
    np.testing.assert_array_equal(back.q[1], full.q[2])           # t = 0.01 (on the grid, before the split)
    assert np.abs(back.q[-1] - full.q[-1]).max() < 1e-6
    part = tmp_path / "part.h5"
    w = ResultWriter(part, loaded.freeze(), loaded.text, writer_settings(loaded), chunk=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate(loaded.model, settings=loaded.simulate_settings().replace(t_end=0.03, output_times=[0.01, 0.025]),
                 system=w.system,
                 on_step=w.on_step)
    w.abandon()
    assert main(["run", str(yaml), "--resume", str(part), "--quiet"]) == 0
    a = load_result(part)
    assert np.allclose(a.t, [0.0, 0.01, 0.025, 0.03, 0.0333, 0.05, 0.1], atol=1e-15)
    np.testing.assert_array_equal(a.q[-1], back.q[-1])
    for bad, text in (([0.05, 0.01], "strictly increasing"), ([0.2], "outside"), ("x", "list of times")):
        with pytest.raises(SettingError, match=text):
            DynamicSettings(t_end=0.1, h=0.005, output_times=bad)
    with pytest.raises(SettingError, match="exclude each other"):
        DynamicSettings(t_end=0.1, h=0.005, output_times=[0.05], output_every=2)
