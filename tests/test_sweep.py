"""flexmbd sweep: key paths, value specs, cases, the study table, one case, and studies
on a local Dask cluster (docs/sweep.md).  The cluster test with a real scheduler, two
worker processes and a killed worker is tests/test_sweep_cluster.py."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from flexmbd.io.model_file import ModelFileError, load_model_text, parse_text, read_file
from flexmbd.io.model_library import bundled_models
from flexmbd.sweep import keypath, read_study
from flexmbd.sweep.case import run_case
from flexmbd.sweep.spec import SweepSpecError, case_key, make_cases, parse_param, parse_values
from flexmbd.sweep.table import StudyFileError, StudyWriter

PENDULUM = bundled_models()["pendulum"]
SLIDER = bundled_models()["slider-crank-sda"]


def _data(path):
    return parse_text(read_file(path), str(path))[0]


# ------------------------------------------------------------------ key paths


def test_key_paths_address_list_items_by_name():
    data = _data(SLIDER)
    assert keypath.resolve(data, "forces.sda.k") == ("forces", 0, "k")
    assert keypath.resolve(data, "forces.push.force[0]") == ("forces", 1, "force", 0)
    assert keypath.resolve(data, "bodies.slider.mass") == ("bodies", 2, "mass")
    assert keypath.resolve(data, "bodies[1].mass") == ("bodies", 1, "mass")
    assert keypath.resolve(data, "solver.jacobian") == ("solver", "jacobian")  # a key the file does not set
    assert keypath.resolve(_data(PENDULUM), "parameters.L") == ("parameters", "L")


@pytest.mark.parametrize("path, words", [
    ("forces.sda1.k", ["forces.sda1.k", "'sda1'", "sda, push"]),
    ("bodies.rod.mass", ["'rod'", "crank, link, slider"]),
    ("forcs.sda.k", ["'forcs'", "forces"]),
    ("forces.sda.k.x", ["forces[0].k", "'x'"]),
])
def test_wrong_key_paths_name_the_path_and_what_exists(path, words):
    with pytest.raises(keypath.KeyPathError) as err:
        keypath.resolve(_data(SLIDER), path)
    for w in words:
        assert w in str(err.value)


def test_a_missing_parameter_is_an_error_listing_the_parameters():
    with pytest.raises(keypath.KeyPathError, match=r"no key 'k'.*m, L"):
        keypath.resolve(_data(PENDULUM), "parameters.k")


# ------------------------------------------------------------------ values and cases


def test_value_specs():
    assert parse_param("forces.sda.k=1e2,1e3,1e4").values == [100.0, 1000.0, 10000.0]
    assert parse_param("solver.jacobian=full,M1+M3").values == ["full", "M1+M3"]
    assert parse_param("solver.max_iter=50").values == [50]
    assert parse_param("p=lin:0:1:5").values == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert np.allclose(parse_param("p=log:1e2:1e6:5").values, [1e2, 1e3, 1e4, 1e5, 1e6])
    assert parse_param("p=int:2:10:4").values == [2, 6, 10]
    assert parse_values("p", np.array([1.0, 2.0])).values == [1.0, 2.0]
    for bad, msg in [("p", "PATH=VALUES"), ("p=1,,2", "empty value"), ("p=log:0:1:3", "> 0"),
                     ("p=lin:0:1", "3 numbers"), ("p=int:3:1", "A <= B"), ("p=lin:a:1:2", "not numbers")]:
        with pytest.raises(SweepSpecError, match=msg):
            parse_param(bad)


def test_cases_grid_zip_and_seeded_samples():
    a, b = parse_param("a=1,2,3"), parse_param("b=x,y")
    grid = make_cases([a, b])
    assert len(grid) == 6 and {(c["a"], c["b"]) for c in grid} == {(i, s) for i in (1, 2, 3) for s in "xy"}
    assert make_cases([a, parse_param("b=4,5,6")], "zip") == [{"a": 1, "b": 4}, {"a": 2, "b": 5}, {"a": 3, "b": 6}]
    with pytest.raises(SweepSpecError, match="same number"):
        make_cases([a, b], "zip")
    u = parse_param("k=loguniform:1e2:1e4")
    with pytest.raises(SweepSpecError, match="--samples"):
        make_cases([u, b])
    s1 = make_cases([u, b], "samples", samples=20, seed=3)
    assert s1 == make_cases([u, b], "samples", samples=20, seed=3)
    assert s1 != make_cases([u, b], "samples", samples=20, seed=4)
    assert all(1e2 <= c["k"] <= 1e4 and c["b"] in "xy" for c in s1)
    with pytest.raises(SweepSpecError, match="twice"):
        make_cases([a, a])
    assert case_key({"b": 1, "a": 2.5}) == case_key({"a": 2.5, "b": 1})


# ------------------------------------------------------------------ one case


def test_a_parameter_change_re_resolves_dependent_expressions():
    text = read_file(PENDULUM)
    loaded = load_model_text(text, str(PENDULUM), values={("parameters", "L"): 2.0})
    rod = loaded.resolved["bodies"][0]
    assert rod["position"][0] == 1.0 and math.isclose(rod["inertia"][1], 1.0 * 2.0 ** 2 / 12)


def test_a_bad_value_is_a_failed_row_naming_the_parameter():
    out = run_case(read_file(PENDULUM), str(PENDULUM), {("bodies", 0, "mass"): -1.0})
    row = out["row"]
    assert row["status"] == "failed"
    assert "--param bodies[0].mass: must be > 0" in row["message"]   # the key path named once


def test_a_case_matches_the_same_model_run_by_itself(tmp_path):
    values = {("parameters", "L"): 1.5, ("solver", "t_end"): 0.1}
    row = run_case(read_file(PENDULUM), str(PENDULUM), values, series=True)
    text = read_file(PENDULUM).replace("L: 1.0 ", "L: 1.5 ").replace("t_end: 2.0", "t_end: 0.1")
    alone = load_model_text(text, "copy.yaml")
    res = alone.model.simulate(settings=alone.simulate_settings(), system=alone.freeze())
    r = row["row"]
    assert r["status"] == "completed" and r["steps"] == res.steps
    assert r["energy.total.final"] == float(res["energy.total"][-1])
    assert r["rod.position[2].min"] == float(np.min(res["rod.position"][:, 2]))
    assert r["mean_iterations"] == res.mean_iterations()
    assert np.array_equal(row["series"]["t"], res.t)


# ------------------------------------------------------------------ the table


def _rows(n, params=("a",)):
    return [{"case": i, "key": case_key({"a": i}), "a": i, "status": "completed", "message": "",
             "mean_iterations": 1.0 + i, "x.final": float(i)} for i in range(n)]


@pytest.mark.parametrize("suffix", [".h5", ".parquet"])
def test_table_rows_survive_an_interruption_and_are_written_once(tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    path = str(tmp_path / f"study{suffix}")
    w = StudyWriter(path, ["a"], {"model_text": "m"})
    rows = _rows(3)
    assert w.add(rows[0]) and w.add(rows[1])
    assert not w.add(dict(rows[1], message="again"))  # a second result of one case is not written
    if suffix == ".h5":
        w.file.close()  # the process dies: the file is as last flushed
    else:
        w.journal.close()
    s = read_study(path)
    assert [r["a"] for r in s.rows] == [0, 1] and s.params == ["a"]
    with pytest.raises(StudyFileError, match="--resume"):
        StudyWriter(path, ["a"], {"model_text": "m"})
    with pytest.raises(StudyFileError, match="has changed"):
        StudyWriter(path, ["a"], {"model_text": "other"}, resume=True)
    w = StudyWriter(path, ["a"], {"model_text": "m"}, resume=True)
    assert w.keys == {rows[0]["key"], rows[1]["key"]}
    w.add(rows[2])
    w.close()
    s = read_study(path)
    assert len(s) == 3 and list(s.column("x.final")) == [0.0, 1.0, 2.0]
    assert s.columns[:3] == ["case", "key", "a"]
    if suffix == ".parquet":
        assert not os.path.exists(path + ".partial.jsonl")


# ------------------------------------------------------------------ studies on a local Dask cluster

dask_needed = pytest.mark.skipif(not __import__("importlib").util.find_spec("distributed"),
                                 reason="needs dask[distributed] (the sweep extra)")


@pytest.fixture
def numpy_workers(monkeypatch):
    """Worker processes on the NumPy path: no kernel compilation in each new process."""
    monkeypatch.setenv("FLEXMBD_NUMBA", "0")


@dask_needed
def test_sweep_on_a_local_cluster_then_resume_runs_only_the_missing_cases(tmp_path, numpy_workers):
    import logging

    import distributed

    from flexmbd.sweep import sweep

    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    try:
        _local_cluster_then_resume(tmp_path, sweep, cluster.scheduler_address)
    finally:
        cluster.close()


def _local_cluster_then_resume(tmp_path, sweep, address):
    out = str(tmp_path / "study.parquet")
    params = {"parameters.L": [0.5, 1.0, 2.0], "solver.t_end": [0.05]}
    first = sweep(PENDULUM, params, output=out, scheduler=address, progress=False)
    assert len(first) == 3 and set(first.column("status")) == {"completed"}
    # the same cases one by one, in one process on the workers' (NumPy) path: identical numbers
    script = ("import json, sys; from flexmbd.sweep.case import run_case; from flexmbd.io.model_file import "
              "read_file; p = sys.argv[1]; print(json.dumps([run_case(read_file(p), p, {('parameters', 'L'): L, "
              "('solver', 't_end'): 0.05})['row'] for L in (0.5, 1.0, 2.0)]))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    alone = json.loads(subprocess.run([sys.executable, "-c", script, str(PENDULUM)], env=env, check=True,
                                      capture_output=True, text=True).stdout)
    for a, r in zip(alone, first.rows):
        for col in ("energy.total.final", "hinge.reaction[2].max", "rod.position[0].min", "mean_iterations", "steps"):
            assert a[col] == r[col], col
    # an interrupted study: only the first case's row is there; resume with one more value
    os.remove(out)
    w = StudyWriter(out, ["parameters.L", "solver.t_end"], {"model_text": read_file(PENDULUM)})
    w.add(dict(first.rows[0], message="written before the interruption"))
    w.journal.close()
    params["parameters.L"].append(3.0)
    again = sweep(PENDULUM, params, output=out, scheduler=address, progress=False, resume=True)
    assert len(again) == 4 and len({r["key"] for r in again.rows}) == 4
    kept = again.select(**{"parameters.L": 0.5})
    assert kept[0]["message"] == "written before the interruption"  # not run again
    assert {r["parameters.L"] for r in again.rows if r["message"] != "written before the interruption"} == {1.0, 2.0, 3.0}


@dask_needed
def test_cli_sweep_report_and_failed_cases(tmp_path, numpy_workers, capsys):
    from flexmbd.cli import main

    out = tmp_path / "s.h5"
    status = main(["sweep", str(PENDULUM), "--param", "bodies.rod.mass=1,-1", "--param", "solver.t_end=0.02",
                   "--workers", "1", "-o", str(out), "--quiet", "--series"])
    assert status == 1  # a failed case: the study finishes, the exit status says so
    s = read_study(out)
    assert list(s.column("status")) == ["completed", "failed"]
    assert "mass" in s.rows[1]["message"]
    assert len(s.series(0)["t"]) == s.rows[0]["steps"] + 1
    assert main(["sweep", "--report", str(out), "--out-dir", str(tmp_path / "plots")]) == 0
    pngs = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert pngs == ["s_mean_iterations_vs_bodies.rod.mass.png", "s_wall_time_vs_bodies.rod.mass.png"]
    capsys.readouterr()
    assert main(["sweep", str(PENDULUM), "--param", "bodies.rood.mass=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'rood'" in err and "names: rod" in err


def test_without_dask_one_line_says_what_to_install(monkeypatch, capsys):
    from flexmbd.cli import main
    from flexmbd.sweep import runner

    def missing():
        raise runner.DaskMissing(runner.INSTALL_HINT)

    monkeypatch.setattr(runner, "_dask", missing)
    assert main(["sweep", str(PENDULUM), "--param", "parameters.L=1,2"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == 'flexmbd sweep needs Dask: pip install "flexmbd[sweep]"'


def test_fm_sweep_is_callable_after_import_flexmbd_alone():
    code = ("import flexmbd as fm, flexmbd.sweep.runner as r; assert callable(fm.sweep); "
            "assert fm.sweep.sweep is r.sweep; import flexmbd.sweep.table; assert callable(fm.sweep)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert json.loads(case_key({"a": 1}))["a"] == 1


def test_element_type_and_count_of_a_static_beam_case():
    """P3's kind of study: the beam formulation and the element count of a static model;
    outputs keep the names of the file (rod.last, whichever node that is)."""
    path = bundled_models()["p3-cantilever"]
    data = _data(path)
    values = {keypath.resolve(data, "beams.rod.formulation"): "r3r3", keypath.resolve(data, "beams.rod.elements"): 4}
    r = run_case(read_file(path), str(path), values)["row"]
    text = read_file(path).replace("    elements: 16", "    elements: 4\n    formulation: r3r3")
    assert "formulation: r3r3" in text
    from flexmbd.solvers.static import static_equilibrium

    alone = load_model_text(text, "copy.yaml")
    res = static_equilibrium(alone.model, settings=alone.static_settings(), system=alone.freeze())
    assert r["status"] == "completed" and r["steps"] == 10 and r["t_final"] == 1.0
    assert r["rod.last.position[2].final"] == float(res["rod.last.position"][-1][2])


def test_p1_study_model_files_are_those_the_generator_writes():
    from benchmarks import sweep_models

    for name, text in (("slider-crank-p1.yaml", sweep_models.slider_crank_text()),
                       ("tensegrity-p1.yaml", sweep_models.tensegrity_text())):
        assert (sweep_models.HERE / name).read_text(encoding="utf-8") == text, \
            f"benchmarks/sweeps/{name} is stale: python -m benchmarks.sweep_models"


def test_a_swept_parameter_rebuilds_the_tower_as_the_python_builder_does():
    """parameters.k = 2e3 in tensegrity-p1.yaml: every cable's k and rest length l - t/k
    equal (to the last bit) those of build_tower(k=2e3)."""
    from benchmarks.sweep_models import HERE
    from flexmbd.examples.tensegrity import build_tower

    path = HERE / "tensegrity-p1.yaml"
    loaded = load_model_text(read_file(path), str(path), values={("parameters", "k"): 2e3})
    tower = build_tower(k=2e3)
    rest = dict(zip(tower.cable_names, tower.rest_length))
    cables = [f for f in loaded.resolved["forces"] if f["name"] in rest]
    assert len(cables) == len(rest) == 24
    for f in cables:
        assert f["k"] == 2e3 and f["rest_length"] == rest[f["name"]]
