"""``flexmbd run`` of model files with a ``tmm:`` section (flexmbd.io.tmm_file): the
chain gives the Python API's numbers, the rig file runs, bad input names its key and line."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from flexmbd.errors import ModelError

from flexmbd import cli
from flexmbd.io import tmm_file
from flexmbd.tmm.chain import Chain
from flexmbd.tmm.elements import BeamSegment, RigidBody

CHAIN = """\
name: cantilever
tmm:
  h: 1.0e-4
  t_end: 0.02
  chain:
    left: clamped
    right: free
    elements:
      - {type: beam, name: s1, length: 0.5, EI: 1.6e6, rhoA: 240}
      - {type: beam, name: s2, length: 0.5, EI: 1.6e6, rhoA: 240}
      - {type: rigid, name: tip, mass: 80, J: 2}
    loads:
      - {element: tip, force: -1000, scale: "sin(60*t)"}
      - {element: s1, distributed: -2354}
"""


def run(tmp_path, text, *extra):
    f = tmp_path / "m.yaml"
    f.write_text(text)
    return cli.main(["run", str(f), *extra])


def test_chain_file_gives_the_python_api_numbers(tmp_path, capsys):
    assert run(tmp_path, CHAIN, "-o", str(tmp_path / "out.h5")) == 0
    assert "completed (DT-TMM)" in capsys.readouterr().out
    t, out, attrs = tmm_file.load(tmp_path / "out.h5")
    assert attrs["status"] == "completed" and "cantilever" in attrs["model_text"]
    segs = [BeamSegment("s1", 0.5, 1.6e6, 240), BeamSegment("s2", 0.5, 1.6e6, 240)]
    chain = Chain(segs + [RigidBody("tip", 80, 2)], "clamped", "free")

    def load(tt):
        g = chain.zero_load()
        g[2, 0] = -1000 * np.sin(60 * tt)
        g[0, :6] = segs[0].uniform_load(-2354)
        return g

    T, A, F, Z = chain.simulate(1e-4, 200, load=load)
    assert np.array_equal(t, T)
    assert np.allclose(out["stations.acceleration"], A, rtol=1e-12, atol=1e-12 * np.abs(A).max())
    assert np.allclose(out["stations.force"], F, rtol=1e-12, atol=1e-12 * np.abs(F).max())


@pytest.mark.parametrize("edit,where,what", [
    (("rhoA: 240}", "rhoA: -240}"), "m.yaml:9: tmm.chain.elements[0].rhoA", "greater than 0"),
    (("element: tip,", "element: top,"), "m.yaml:13: tmm.chain.loads[0].element", "no element named 'top'"),
    (('"sin(60*t)"', '"sin(60*)"'), "m.yaml:13: tmm.chain.loads[0].scale", "not a valid expression"),
    (("right: free", "right: hinged"), "tmm.chain.right", "unknown boundary condition 'hinged'"),
    (("{type: rigid,", "{type: rigidd,"), "tmm.chain.elements[2]", ""),
    (("t_end: 0.02", "t_end: 0.00001"), "tmm.h", "smaller than t_end"),
    (("s1, distributed: -2354", "s1, force: 3"), "m.yaml:14: tmm.chain.loads[1].force", "takes no force"),
])
def test_bad_chain_files_name_the_key_and_line(tmp_path, capsys, edit, where, what):
    assert run(tmp_path, CHAIN.replace(*edit)) == 2
    err = capsys.readouterr().err
    assert where in err and what in err and "Traceback" not in err


def test_rig_file_runs_and_writes_the_outputs(tmp_path, capsys):
    from flexmbd.io.model_library import bundled_tmm_models

    text = bundled_tmm_models()["p5-roller-rig"].read_text()
    text = text.replace("t_end: 0.3", "t_end: 0.004").replace("h: 2.0e-5", "h: 4.0e-5")
    text = text.replace("    flexible: true", "    flexible: true\n    settle: 0.004")
    assert run(tmp_path, text, "-o", str(tmp_path / "rig.h5")) == 0
    t, out, _ = tmm_file.load(tmp_path / "rig.h5")
    assert {"box1.acc", "wheel4.acc", "axle.mid.acc", "contact1", "contact2"} <= set(out)
    assert len(t) == len(out["contact1"]) and np.all(out["contact1"] > 0)
    bad = text.replace("parameters: {axle_load: 15000}", "parameters: {axle_lod: 15000}")
    assert run(tmp_path, bad) == 2
    assert "tmm.rig.parameters.axle_lod" in capsys.readouterr().err


def test_rig_file_takes_iso3095_roughness(tmp_path):
    # {type: iso3095} on a roller is ISO 3095's limit spectrum on the roller's orders: the
    # stored irregularity equals irregularity.band_roughness at the rolling distances v·t
    from flexmbd.tmm import irregularity as irr

    text = """\
tmm:
  h: 4.0e-5
  t_end: 0.004
  rig:
    speed: 300
    settle: 0.004
    roller:
      - [{type: iso3095, scale: 0.1, seed: 3}]
      - []
"""
    assert run(tmp_path, text, "-o", str(tmp_path / "r.h5"), "--quiet") == 0
    t, out, _ = tmm_file.load(tmp_path / "r.h5")
    levels = {lam: L for lam, L in irr.ISO3095_LIMIT.items() if lam >= 0.0315}
    ref = irr.band_roughness(levels, 3, 2 * np.pi * 0.9, scale=0.1)(300 / 3.6 * t[1:])
    assert np.max(np.abs(out["irregularity1"][1:] - ref)) < 1e-15
    assert np.max(np.abs(ref)) > 1e-7                     # 0.33 m of rolling: a few band rms (0.1 × 7 µm)


def test_bundled_rig_file_dumps_and_runs_from_the_shell(tmp_path):
    import subprocess

    assert cli.main(["example", "p5-roller-rig", "--dump", str(tmp_path / "rig.yaml"), "--quiet"]) == 0
    p = subprocess.run(["flexmbd", "run", str(tmp_path / "rig.yaml"), "--t-end", "0.002", "-o",
                        str(tmp_path / "rig.h5")], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env={**__import__("os").environ,
                            "PYTHONPATH": str(Path(tmm_file.__file__).resolve().parents[2])})
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "completed (DT-TMM)" in p.stdout
    t, out, _ = tmm_file.load(tmp_path / "rig.h5")
    assert t[-1] == pytest.approx(0.002) and np.all(out["contact1"] > 0)


def test_plot_and_csv_export_read_tmm_results(tmp_path, capsys):
    assert run(tmp_path, CHAIN, "-o", str(tmp_path / "out.h5"), "--quiet") == 0
    h5 = str(tmp_path / "out.h5")
    assert cli.main(["plot", h5, "--list"]) == 0
    assert "station3.acceleration" in capsys.readouterr().out.split()
    assert cli.main(["plot", h5, "station3.acceleration", "--out", str(tmp_path / "png")]) == 0
    assert (tmp_path / "png" / "station3.acceleration.png").stat().st_size > 1000
    assert cli.main(["export", h5, "--csv", str(tmp_path / "o.csv"), "station3.force"]) == 0
    table = np.loadtxt(tmp_path / "o.csv", delimiter=",", skiprows=1)
    t, out, _ = tmm_file.load(h5)
    assert np.allclose(table[:, 0], t) and np.allclose(table[:, 1:], out["stations.force"][:, 3], rtol=1e-12)


def test_vtk_export_and_animation_draw_the_chain_deflection_line(tmp_path, capsys):
    # the stations at their axial positions, deflected by the stored displacements, frame by
    # frame; the GIF has one frame per kept step
    meshio = pytest.importorskip("meshio")
    from PIL import Image

    from flexmbd.io.vtk import read_pvd

    assert run(tmp_path, CHAIN, "-o", str(tmp_path / "out.h5"), "--quiet") == 0
    h5 = str(tmp_path / "out.h5")
    res = tmm_file.TmmResult(h5)
    x, Z = res.attrs["station_x"], res.stored["stations.displacement"]
    assert cli.main(["export", h5, "--vtk", str(tmp_path / "vtk"), "--every", "7"]) == 0
    frames = read_pvd(str(tmp_path / "vtk" / "out.pvd"))
    rows = list(range(0, len(res.t), 7)) + ([len(res.t) - 1] if (len(res.t) - 1) % 7 else [])
    assert [t for t, _ in frames] == pytest.approx(res.t[rows])
    for (_, fname), row in zip(frames, rows):
        m = meshio.read(tmp_path / "vtk" / fname)
        assert np.array_equal(m.points[:, 0], x) and np.array_equal(m.points[:, 2], Z[row, :, 0])
        assert np.array_equal(m.point_data["rotation"], Z[row, :, 1])
        assert np.array_equal(m.point_data["acceleration"], res.stored["stations.acceleration"][row, :, 0])
    assert len(m.cells_dict["line"]) == len(x) - 1
    capsys.readouterr()
    assert cli.main(["animate", h5, "-o", str(tmp_path / "a.gif"), "--every", "20"]) == 0
    assert Image.open(tmp_path / "a.gif").n_frames == len(range(0, len(res.t), 20)) + ((len(res.t) - 1) % 20 > 0)


def test_tmm_results_without_geometry_and_resume_say_why_in_one_line(tmp_path, capsys):
    # a results file without stations (older format) cannot be drawn; a DT-TMM run cannot be resumed
    tmm_file.save(tmp_path / "old.h5", np.arange(3.0), {"contact1": np.ones(3)})
    for cmd in (["export", str(tmp_path / "old.h5"), "--vtk", str(tmp_path / "v")],
                ["animate", str(tmp_path / "old.h5")]):
        assert cli.main(cmd) == 2
        err = capsys.readouterr().err
        assert "holds no station positions" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "m.yaml").write_text(CHAIN)
    assert cli.main(["run", str(tmp_path / "m.yaml"), "--resume", str(tmp_path / "old.h5")]) == 2
    err = capsys.readouterr().err
    assert "--resume does not apply" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("compiled", [True, False])
def test_rig_results_hold_the_wheelset_deflection(compiled):
    # the rig's results carry the wheelset's station displacements (from the static
    # equilibrium): the wheel station follows the wheel's displacement output, and at mid-span
    # displacement and acceleration obey the trapezoidal rule's identity
    # z_{n+1} − 2z_n + z_{n−1} = h²(a_{n+1} + 2a_n + a_{n−1})/4 (β = 1/4, γ = 1/2)
    from flexmbd.tmm import irregularity as irr
    from flexmbd.tmm.rig import Rig

    rig = Rig()
    h = 4e-5
    flat = lambda s: np.zeros_like(np.asarray(s, dtype=float))  # noqa: E731
    res = rig.run(300.0, 0.01, h=h, settle=0.05, roller=[irr.dent(0.1, 0.3, 0.02e-3), flat], compiled=compiled)
    Z = res["stations.displacement"][1:]
    assert res["stations.displacement"].shape == (len(res.t), len(rig.chain.elements) + 1, 2)
    iw, mid = rig.chain.index("wheel4"), rig.chain.index("axle6")
    assert np.max(np.abs(Z[:, iw, 0] - res["wheel4.z"][1:])) < 1e-11
    a = res["axle.mid.acc"][1:]
    lhs = Z[2:, mid, 0] - 2 * Z[1:-1, mid, 0] + Z[:-2, mid, 0]
    rhs = h * h * (a[2:] + 2 * a[1:-1] + a[:-2]) / 4
    assert np.max(np.abs(lhs - rhs)) < 1e-9 * np.max(np.abs(rhs))
    assert np.max(np.abs(rhs)) > 1e-9                     # the dent moved it


def test_tmm_element_types_are_in_the_registry_and_the_schema():
    # the registry's tmm family holds the DT-TMM types (names shared with index-3 types
    # without clashing); the JSON Schema validates a tmm: file and names a bad element type
    jsonschema = pytest.importorskip("jsonschema")
    from flexmbd.io import model_schema as S
    from flexmbd.registry import REGISTRY, element_type, element_types
    from flexmbd.tmm.elements import BeamSegment

    assert [t.name for t in element_types(family="tmm")] == ["beam", "rigid", "spring"]
    assert element_type("beam", family="tmm").element_class is BeamSegment
    assert REGISTRY["beam"] is element_type("beam") is not element_type("beam", family="tmm")
    schema = S.json_schema()
    good = {"tmm": {"h": 1e-5, "t_end": 1e-3, "chain": {"left": "clamped", "elements": [
        {"type": "beam", "name": "s", "length": 0.5, "EI": 1.6e6, "rhoA": 240.0}]}}}
    jsonschema.validate(good, schema)
    bad = {"tmm": {"h": 1e-5, "t_end": 1e-3, "chain": {"elements": [{"type": "bem", "name": "s"}]}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(ModelError, match="unknown element type 'bem'; known: beam, rigid, spring"):
        element_type("bem", family="tmm")


def test_tmm_results_load_through_the_common_results_path(tmp_path):
    # Result.load / load_result read a DT-TMM results file as a Result (TmmResult): the
    # stored time series come back unchanged, summary and arrays work, a model is refused
    pytest.importorskip("h5py")
    from flexmbd.io.results_h5 import ResultsFileError, load_result
    from flexmbd.results import Result

    t = np.linspace(0.0, 0.01, 11)
    acc = np.random.default_rng(0).normal(size=(11, 3, 2))
    tmm_file.save(tmp_path / "r.h5", t, {"stations.acceleration": acc, "box1.acc": acc[:, 0, 0]})
    res = Result.load(tmp_path / "r.h5")
    assert isinstance(res, tmm_file.TmmResult) and isinstance(res, Result)
    assert np.array_equal(res.t, t)
    assert np.array_equal(res["box1.acc"], acc[:, 0, 0])
    assert np.array_equal(res["station2.acceleration"], acc[:, 2])
    assert res.summary() == "completed (DT-TMM): 10 stored steps to t = 0.01 s, 4 outputs"
    assert set(res.arrays("box1.acc")) == {"t", "box1.acc"}
    with pytest.raises(ResultsFileError, match="takes no model"):
        load_result(tmp_path / "r.h5", model=object())
