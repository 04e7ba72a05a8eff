"""Pictures and exports of a results file: ParaView (meshio), GIF, PNG and CSV, through
the command line (``flexmbd export / animate / plot``) and the Python functions."""
from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
meshio = pytest.importorskip("meshio")
Image = pytest.importorskip("PIL.Image")
from PIL import ImageSequence  # noqa: E402

from flexmbd.cli import main  # noqa: E402
from flexmbd.examples.slider_crank import build  # noqa: E402
from flexmbd.io.results_h5 import ResultWriter, box_half_extents, load_result  # noqa: E402
from flexmbd.io.vtk import frame_rows, read_pvd  # noqa: E402
from flexmbd.results import Result  # noqa: E402
from flexmbd.solvers.dynamics import simulate  # noqa: E402

T_END, H = 0.3, 0.01  # 31 saved rows
N_BODIES, N_LINES, N_MARKERS = 3, 1, 4  # crank, link, slider; the SDA; 4 joints


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("pictures")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=2e4, c=1e3).simulate(t_end=T_END, h=H)
    path = d / "sc.h5"
    res.save(path)
    return path, res


def test_frame_rows_keep_the_last_step():
    assert list(frame_rows(31, 4)) == [0, 4, 8, 12, 16, 20, 24, 28, 30]
    assert list(frame_rows(31, 3)) == list(range(0, 31, 3))
    assert list(frame_rows(5, 1)) == [0, 1, 2, 3, 4]


def test_inertia_equivalent_box():
    # a 2 × 0.4 × 0.2 m box of 12 kg has I = m (b² + c²)/12 ...
    m, a, b, c = 12.0, 2.0, 0.4, 0.2
    J = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    half, axes = box_half_extents(m, J)
    np.testing.assert_allclose(sorted(2 * half), sorted([a, b, c]), rtol=1e-12)


def test_vtk_time_series_opens_with_meshio(run, tmp_path, capsys):
    path, res = run
    assert main(["export", str(path), "--vtk", str(tmp_path / "vtk"), "--every", "4"]) == 0
    pvd = tmp_path / "vtk" / "sc.pvd"
    assert capsys.readouterr().out.strip() == str(pvd)
    entries = read_pvd(pvd)
    rows = frame_rows(len(res.t), 4)
    assert len(entries) == len(rows) == 9
    np.testing.assert_allclose([t for t, _ in entries], res.t[rows])
    n_fixed = 8 * N_BODIES + 2 * N_LINES + N_MARKERS
    slider = res["slider.position"]
    for k, (t, fname) in enumerate(entries):
        mesh = meshio.read(tmp_path / "vtk" / fname)
        n_points = len(mesh.points)
        kinds = {c.type: len(c.data) for c in mesh.cells}
        assert {k: v for k, v in kinds.items() if k != "triangle"} == {"hexahedron": N_BODIES, "line": N_LINES,
                                                                       "vertex": N_MARKERS}
        assert kinds["triangle"] > 3 * 12 and n_points > n_fixed      # the visual shapes (bars, the block)
        assert mesh.point_data["velocity"].shape == (n_points, 3)
        # the slider's box is centred on the slider's centre of mass
        np.testing.assert_allclose(mesh.points[16:24].mean(axis=0), slider[rows[k]], atol=1e-12)
        # the slider's visual block too (its triangles are the body-2 triangles, part 3)
        part = np.concatenate(mesh.cell_data["part"])
        index = np.concatenate(mesh.cell_data["index"])
        tri = np.concatenate([c.data for c in mesh.cells if c.type == "triangle"])
        mine = tri[index[part == 3] == 2]
        np.testing.assert_allclose(mesh.points[np.unique(mine)].mean(axis=0), slider[rows[k]], atol=1e-9)
    # the spring line joins the centres of mass of crank and link (its attachment points)
    last = meshio.read(tmp_path / "vtk" / entries[-1][1])
    np.testing.assert_allclose(last.points[24], res["crank.position"][-1], atol=1e-12)
    np.testing.assert_allclose(last.points[25], res["link.position"][-1], atol=1e-12)


def test_gif_has_the_expected_frames(run, tmp_path, capsys):
    path, res = run
    gif = tmp_path / "run.gif"
    assert main(["animate", str(path), "-o", str(gif), "--every", "3", "--view", "iso"]) == 0
    n = len(frame_rows(len(res.t), 3))
    assert capsys.readouterr().out.strip() == f"{gif} ({n} frames)"
    with Image.open(gif) as im:
        frames = [f.convert("RGB") for f in ImageSequence.Iterator(im)]
        assert im.size == (480, 360)
    assert len(frames) == n == 11
    assert np.asarray(frames[0]).std() > 0
    assert not np.array_equal(np.asarray(frames[0]), np.asarray(frames[-1]))  # the mechanism moved


def test_png_plot_size_and_not_blank(run, tmp_path, capsys):
    path, res = run
    out = tmp_path / "plots"
    assert main(["plot", str(path), "slider.position", "sda.force", "-o", str(out)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / "slider.position.png"), str(out / "sda.force.png")]
    for p in printed:
        with Image.open(p) as im:
            assert im.size == (700, 400)  # 7 × 4 inches at 100 dpi
            px = np.asarray(im.convert("L"), dtype=float)
        assert px.var() > 0
        assert (px < 128).mean() > 0.005  # curves, axes and labels: not an empty white page
    assert main(["plot", str(path), "energy.total", "energy.kinetic", "--together", "-o", str(out),
                 "--dpi", "50"]) == 0
    with Image.open(out / "energy.total+energy.kinetic.png") as im:
        assert im.size == (350, 200)


def test_csv_export(run, tmp_path, capsys):
    path, res = run
    f = tmp_path / "out.csv"
    assert main(["export", str(path), "--csv", str(f), "slider.position", "sda.force"]) == 0
    with open(f, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t", "slider.position.x", "slider.position.y", "slider.position.z", "sda.force"]
    data = np.array(rows[1:], dtype=float)
    assert data.shape == (len(res.t), 5)
    np.testing.assert_array_equal(data[:, 0], res.t)  # 17 digits: exact round trip
    np.testing.assert_array_equal(data[:, 1:4], res["slider.position"])
    np.testing.assert_allclose(data[:, 4], res["sda.force"], rtol=1e-13)
    assert main(["export", str(path), "--csv", str(tmp_path / "all.csv")]) == 0
    with open(tmp_path / "all.csv", newline="") as fh:
        header = next(csv.reader(fh))
    assert "energy.total" in header and "crank_pin.reaction.x" in header and "crank.orientation.e3" in header


def test_python_side_load_and_arrays(run):
    path, res = run
    back = Result.load(path)
    assert back.status == "completed" and back.complete
    arr = back.arrays("slider.position", "sda.force")
    assert set(arr) == {"t", "slider.position", "sda.force"}
    assert all(type(v) is np.ndarray for v in arr.values())
    np.testing.assert_array_equal(arr["slider.position"], res["slider.position"])
    with h5py.File(path, "r") as f:
        assert f["q"].shape == res.q.shape and f["lam"].shape == res.lam.shape
        assert f["stats/iterations"].dtype.kind == "i"
        assert json.loads(f.attrs["settings"])["h"] == H
        assert f["outputs/sda.force"].attrs["unit"] == "N"
        assert list(f["layout/body_names"].asstr()[()]) == ["crank", "link", "slider"]


def test_errors_are_one_line_exit_2(run, tmp_path, capsys):
    path, _ = run
    cases = [
        (["plot", str(path), "slider.postion"], "did you mean slider.position"),
        (["plot", str(tmp_path / "missing.h5"), "x"], "no such file"),
        (["plot", str(path)], "give at least one output NAME"),
        (["export", str(path)], "choose --vtk DIR and/or --csv FILE"),
        (["export", str(path), "--vtk", str(tmp_path), "sda.force"], "unrecognized arguments"),
        (["export", str(path), "--csv", str(tmp_path / "x.csv"), "sda.forse"], "did you mean sda.force"),
        (["animate", str(path), "--every", "0"], "positive whole number"),
        (["animate", str(path), "-o", str(tmp_path / "x.mp4")], "GIF"),
    ]
    not_h5 = tmp_path / "model.yaml"
    not_h5.write_text("name: x\n")
    cases.append((["export", str(not_h5), "--csv", str(tmp_path / "x.csv")], "cannot read as HDF5"))
    for argv, text in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert text in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


def test_unfinished_file_still_plots(tmp_path, capsys):
    """A run whose writer never closed (a crash) plots what was flushed, with a note."""
    model = build(k=2e4, c=1e3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = model.freeze()
    path = tmp_path / "crashed.h5"
    w = ResultWriter(path, system, settings=dict(t_end=T_END, h=H), chunk=5)
    simulate(model, 0.12, H, system=system, on_step=w.on_step)
    w.abandon()  # no close(): as after a crash; 10 of 13 rows were flushed
    assert main(["plot", str(path), "slider.position", "-o", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "not a completed run" in err and "'running'" in err and "10 saved steps" in err
    assert main(["animate", str(path), "-o", str(tmp_path / "c.gif")]) == 0
    # spring outputs need the model: a clear message, not a traceback
    assert main(["plot", str(path), "sda.force"]) == 2
    assert "need the model" in capsys.readouterr().err
    res = load_result(path, model=model)
    assert len(res.t) == 10 and np.all(np.isfinite(res["sda.force"]))
