"""The HDF5 results file: layout, status, chunked flushing, Ctrl-C, append, model rebuild,
and ``flexmbd run MODEL --resume FILE`` against an uninterrupted run."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

from flexmbd import GROUND, Model  # noqa: E402
from flexmbd.cli import main  # noqa: E402
from flexmbd.examples.slider_crank import build  # noqa: E402
from flexmbd.io.results_h5 import (FORMAT, ResultsFileError, ResultWriter, load_result,  # noqa: E402
                                   resume_state, solver_settings)
from flexmbd.results import STAT_FIELDS  # noqa: E402
from flexmbd.solvers.dynamics import simulate  # noqa: E402
from flexmbd.solvers.integrators import GeneralizedAlpha  # noqa: E402


def _frozen(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.freeze()


@pytest.fixture
def slider():
    model = build(k=2e4, c=1e3)
    return model, _frozen(model)


def test_layout_and_attributes(slider, tmp_path):
    model, system = slider
    path = tmp_path / "r.h5"
    settings = dict(t_end=0.1, h=0.01, integrator=GeneralizedAlpha(0.7), tol=1e-8, jacobian="M1+M2")
    w = ResultWriter(path, system, model_text="name: x\n", settings=settings, chunk=4)
    a = w.file.attrs  # flushed right after creation
    assert a["status"] == "running" and not a["complete"] and a["n_saved"] == 0
    res = simulate(model, 0.1, 0.01, system=system, on_step=w.on_step, integrator=GeneralizedAlpha(0.7), tol=1e-8,
                   jacobian="M1+M2")
    assert w.n_saved == 8  # 11 rows, flushed in chunks of 4; 3 still buffered
    w.close(res)
    with h5py.File(path, "r") as f:
        a = f.attrs
        assert a["format"] == FORMAT and a["format_version"] == 1 and a["flexmbd_version"]
        assert a["status"] == "completed" and a["complete"] and a["success"] and a["message"] == "completed"
        assert a["n_saved"] == 11 and a["wall_time"] > 0 and a["model_text"] == "name: x\n"
        s = json.loads(a["settings"])
        assert s["integrator"]["name"] == "generalized-alpha" and s["integrator"]["rho_inf"] == 0.7
        assert s["jacobian"] == "M1+M2" and s["tol"] == 1e-8
        n, m = system.n, system.m
        assert f["t"].shape == (11,) and f["q"].shape == (11, n) and f["lam"].shape == (11, m)
        for k in ("q", "v", "qdd", "a", "lam"):
            np.testing.assert_array_equal(f[k][()], getattr(res, k))
        for k in STAT_FIELDS:
            np.testing.assert_array_equal(f["stats"][k][()], res.stats[k])
        assert f["t"].attrs["unit"] == "s"
        assert list(f["layout/coordinate_names"].asstr()[()]) == system.coordinate_names
        assert list(f["layout/equation_owner"].asstr()[()]) == system.equation_owner
        assert f["geometry/box_half_extents"].shape == (3, 3)
        assert list(f["geometry/line_names"].asstr()[()]) == ["sda"]
        assert f["outputs/energy.total"].attrs["unit"] == "J"
        assert json.loads(f["outputs"].attrs["errors"]) == []
    back = load_result(path)
    assert isinstance(back.integrator, GeneralizedAlpha) and back.integrator.rho_inf == 0.7
    with pytest.raises(TypeError, match="read-only"):
        back.append(resume_state(path))


def test_keyboard_interrupt_flushes_every_step(slider, tmp_path):
    model, system = slider
    path = tmp_path / "k.h5"
    seen = []

    def on_step(state, stats):
        w.on_step(state, stats)
        seen.append(state.t)
        if len(seen) == 17:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        with ResultWriter(path, system, settings=dict(t_end=1.0, h=0.01), chunk=5) as w:
            simulate(model, 1.0, 0.01, system=system, on_step=on_step)
    res = load_result(path)
    assert res.status == "interrupted" and not res.complete and "Ctrl-C" in res.message
    assert len(res.t) == 17 and res.t[-1] == seen[-1]
    assert resume_state(path).t == seen[-1]


def test_other_exception_marks_failed(slider, tmp_path):
    model, system = slider
    path = tmp_path / "e.h5"
    with pytest.raises(RuntimeError):
        with ResultWriter(path, system, chunk=100) as w:
            w.on_step(resume_state_like(system), dict.fromkeys(STAT_FIELDS, 0))
            raise RuntimeError("boom")
    res = load_result(path)
    assert res.status == "failed" and "boom" in res.message and len(res.t) == 1


def resume_state_like(system):
    from flexmbd.solvers.dynamics import StepState

    return StepState(0.0, system.q0, system.v0, np.zeros(system.n), np.zeros(system.n), np.zeros(system.m))


def test_append_drops_rows_of_an_interrupted_flush(slider, tmp_path):
    """Rows written past n_saved (a flush cut short) are ignored and overwritten."""
    model, system = slider
    path = tmp_path / "p.h5"
    w = ResultWriter(path, system, settings=dict(t_end=0.2, h=0.01), chunk=5)
    simulate(model, 0.1, 0.01, system=system, on_step=w.on_step)
    w.flush()
    w.file["q"].resize(20, axis=0)  # as if killed inside the next flush
    w.abandon()  # as if killed: no final status, no lock
    assert len(load_result(path).t) == 11
    w2 = ResultWriter(path, system, append=True)
    assert w2.n_saved == 11 and w2.file["q"].shape[0] == 11
    w2.close(None, status="interrupted", outputs=False)
    with pytest.raises(ResultsFileError, match="no such file"):
        load_result(tmp_path / "none.h5")


def test_settings_are_json():
    s = solver_settings(h=np.float64(0.01), integrator="hht", jacobian=frozenset({"inertia"}), law=lambda x: x)
    json.dumps(s)
    assert s["integrator"] == {"name": "hht", "rho_inf": 0.8} and s["jacobian"] == ["inertia"]


def test_planar_model_and_ground_spring_pictures(tmp_path):
    """Planar bodies and a spring to ground: geometry and poses in the file."""
    from flexmbd.io.vtk import scene

    m = Model(gravity=(0, -9.81, 0))
    b = m.planar_body("bob", mass=2.0, inertia=0.1, position=(1.0, 0.0))
    m.revolute(GROUND, b, at=(0, 0, 0), name="pin")
    m.spring_damper(GROUND, b, at_i=(0, 1.0, 0), at_j=(1.0, 0, 0), k=10.0, name="s")
    res = m.simulate(t_end=0.2, h=0.01)
    res.save(tmp_path / "pl.h5")
    back = load_result(tmp_path / "pl.h5")
    sc = scene(back, [0, len(back.t) - 1])
    np.testing.assert_allclose(sc["lines"][:, 0, 0], [[0, 1.0, 0]] * 2, atol=1e-15)  # the ground end stays put
    np.testing.assert_allclose(sc["lines"][-1, 0, 1], back["bob.position"][-1], atol=1e-12)
    np.testing.assert_allclose(sc["boxes"][-1, 0].mean(axis=0), back["bob.position"][-1], atol=1e-12)
    np.testing.assert_allclose(back["s.length"], res["s.length"], rtol=1e-13)


def test_cli_run_resume_matches_uninterrupted_and_rebuilds_model(tmp_path, capsys):
    """``flexmbd run MODEL --resume FILE`` (generalized-α: a ≠ q'' carries over) equals
    the uninterrupted ``flexmbd run``; the stored model text rebuilds every output."""
    mf = pytest.importorskip("flexmbd.io.model_file")
    from flexmbd.io.model_run import writer_settings

    yaml_path = tmp_path / "dc.yaml"
    assert main(["example", "driven-crank", "--dump", str(yaml_path)]) == 0
    full = tmp_path / "full.h5"
    assert main(["run", str(yaml_path), "-o", str(full), "--t-end", "0.1", "--h", "0.005", "--quiet"]) == 0

    loaded = mf.load_model_file(yaml_path, t_end=0.1, h=0.005)
    system = loaded.freeze()
    part = tmp_path / "part.h5"
    w = ResultWriter(part, system, loaded.text, writer_settings(loaded), chunk=4)
    simulate(loaded.model, 0.05, 0.005, system=system, on_step=w.on_step, **{
        k: v for k, v in loaded.simulate_options().items() if k not in ("t_end", "h")})
    w.abandon()  # never closed: a crash after 3 flushes
    assert len(load_result(part).t) == 8
    capsys.readouterr()
    assert main(["run", str(yaml_path), "--resume", str(part)]) == 0
    assert "resumed" in capsys.readouterr().out
    a, b = load_result(part), load_result(full)
    assert a.status == "completed" and len(a.t) == len(b.t) == 21
    for k in ("t", "q", "v", "qdd", "a", "lam"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    assert not np.array_equal(a.a, a.qdd)
    # without stored outputs the model is rebuilt from the stored text
    with h5py.File(full, "r+") as f:
        del f["outputs"]
    c = load_result(full)
    assert c.system is not None and not c.stored_outputs
    np.testing.assert_allclose(c["spring.force"], a["spring.force"], rtol=1e-13)
    assert np.isfinite(c["energy.total"]).all()
    # a different model file is refused (exit 2), the file is left as it was
    other = tmp_path / "other.yaml"
    other.write_text(yaml_path.read_text().replace("k: 500.0", "k: 600.0"))
    assert main(["run", str(other), "--resume", str(part)]) == 2
    assert "different model file" in capsys.readouterr().err
    assert load_result(part).status == "completed"


def test_docs_page_runs_as_written(tmp_path, monkeypatch, capsys):
    """Every sh and python block of docs/results-and-pictures.md, in order."""
    import re
    import shlex
    from pathlib import Path

    pytest.importorskip("flexmbd.io.model_file")
    page = Path(__file__).resolve().parents[1] / "docs" / "results-and-pictures.md"
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```(sh|python)\n(.*?)```", page.read_text(), flags=re.S)
    assert len(blocks) >= 5
    for lang, code in blocks:
        if lang == "python":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(code, str(page), "exec"), {})
            continue
        for line in code.splitlines():
            cmd = line.split("#", 1)[0].strip()
            if not cmd:
                continue
            argv = shlex.split(cmd)
            assert argv[0] == "flexmbd", line
            assert main(argv[1:]) == 0, (line, capsys.readouterr().err)
    assert (tmp_path / "vtk" / "out.pvd").exists() and (tmp_path / "run.gif").exists()
    assert (tmp_path / "plots" / "energy.kinetic+energy.potential.png").exists()
    res = load_result(tmp_path / "out.h5")
    assert res.status == "completed" and abs(res.t[-1] - 0.4) < 1e-12
