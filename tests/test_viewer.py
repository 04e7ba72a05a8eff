"""Visual shapes and the 3D viewer page (docs/viewer.md).

The browser tests open the written pages in headless Chromium (Debian's ``chromium``
package, driven by Playwright through the system browser; never a downloaded one) and
skip with one line when either is missing.  With ``FLEXMBD_SCREENSHOTS=DIR`` they also
write the screenshots shown in docs/viewer.md into DIR.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings

import numpy as np
import pytest

from flexmbd import GROUND, Model
from flexmbd.cli import main
from flexmbd.errors import ModelError
from flexmbd.io.results_h5 import load_result
from flexmbd.viewer.page import choose_rows, page_data, quaternions, write_html
from flexmbd.visuals import Box, Sphere, color_hex

BEAM_MODEL = """\
format: 1
name: hanging-beam
gravity: [0.0, 0.0, -9.81]
beams:
  - name: rod
    section: {shape: circle, d: 0.02, E: 2.0e9, nu: 0.3, rho: 7800}
    elements: 8
    start: [0.0, 0.0, 0.0]
    end: [1.0, 0.0, 0.0]
    visual: {color: steel}
bodies:
  - name: tip
    mass: 0.5
    inertia: [1.0e-4, 1.0e-4, 1.0e-4]
    position: [1.0, 0.0, 0.0]
    parameterization: se3
    visual: {type: sphere, radius: 0.05, color: red}
joints:
  - {type: revolute, name: pin, body_i: ground, body_j: rod.first, at: [0, 0, 0], axis: [0, 1, 0]}
  - {type: fixed, name: weld, body_i: rod.last, body_j: tip, at: [1, 0, 0]}
solver:
  t_end: 0.3
  h: 0.01
"""

MODAL_MODEL = """\
format: 1
name: modal-beams
gravity: [0.0, 0.0, -9.81]
bodies:
  - name: flat
    type: modal_beam
    length: 1.0
    ends: clamped-free
    modes: {bending_y: 1, bending_z: 1}
    section: {shape: rectangle, width2: 0.1, height3: 0.02, E: 7.0e10, nu: 0.33, rho: 2700}
    visual: {color: red}
  - name: round
    type: modal_beam
    length: 1.0
    ends: clamped-free
    modes: {bending_z: 1}
    section: {shape: circle, d: 0.02, E: 7.0e10, nu: 0.33, rho: 2700}
    position: [0.0, 0.6, 0.0]
    visual: {color: "#00c000", radius: 0.04}
joints:
  - {type: revolute, name: pin1, body_i: ground, body_j: flat, at: [0, 0, 0], axis: [0, 1, 0]}
  - {type: revolute, name: pin2, body_i: ground, body_j: round, at: [0, 0.6, 0], axis: [0, 1, 0]}
solver:
  t_end: 0.05
  h: 0.005
"""

MODELS = os.path.join(os.path.dirname(__file__), os.pardir, "flexmbd", "models")


def _run(tmp, name, model_path, t_end):
    h5 = os.path.join(tmp, name + ".h5")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["run", model_path, "-o", h5, "--t-end", str(t_end), "--quiet"]) == 0
    return h5


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Stored runs: three bundled models (the slider-crank, the tensegrity prism, P3's flexible
    crank-slider: two beams and a slider) and a hanging beam with visuals in its model file."""
    tmp = str(tmp_path_factory.mktemp("viewer"))
    beam = os.path.join(tmp, "hanging-beam.yaml")
    with open(beam, "w") as fh:
        fh.write(BEAM_MODEL)
    modal = os.path.join(tmp, "modal-beams.yaml")
    with open(modal, "w") as fh:
        fh.write(MODAL_MODEL)
    out = {"slider-crank": _run(tmp, "slider-crank", os.path.join(MODELS, "slider-crank-sda.yaml"), 0.3),
           "beam": _run(tmp, "beam", beam, 0.3),
           "tensegrity": _run(tmp, "tensegrity", os.path.join(MODELS, "tensegrity-prism.yaml"), 0.3),
           "p3-crank-slider": _run(tmp, "p3-crank-slider", os.path.join(MODELS, "p3-crank-slider.yaml"), 0.02),
           "modal": _run(tmp, "modal", modal, 0.05)}
    return tmp, out


def _vis(h5):
    return json.loads(load_result(h5).geometry["visuals"][0])


# ------------------------------------------------------------------ visual shapes, defaults, storage
def test_colours():
    assert color_hex("red") == "#d62728" and color_hex("#AbC") == "#aabbcc" and color_hex([1, 0, 0.5]) == "#ff0080"
    with pytest.raises(ValueError, match="colour 'reddish'"):
        color_hex("reddish")


def test_slider_crank_defaults_are_bars_and_a_block(runs):
    """The crank and the link are bars between their pins; the 1 kg, 1 kg m² slider a small block
    (its inertia-equivalent box would be 2.4 m wide, larger than the 2 m crank)."""
    _, h5 = runs
    vis = _vis(h5["slider-crank"])
    names = load_result(h5["slider-crank"]).body_names
    crank, link, slider = (vis["bodies"][names.index(n)] for n in ("crank", "link", "slider"))
    for bar in (crank, link):
        assert [p["type"] for p in bar] == ["capsule"]
        assert bar[0]["length"] == pytest.approx(2.0, rel=1e-9)      # pin to pin
    assert slider[0]["type"] == "box" and max(slider[0]["size"]) < 0.5
    assert [m["glyph"] for m in vis["markers"]] == ["hinge", "hinge", "hinge", "rail"]
    assert [ln["style"] for ln in vis["lines"]] == ["coil"]


def test_model_file_visuals_are_stored(runs):
    """Visuals from the model file (beam colour, tip sphere) reach the results file."""
    _, h5 = runs
    vis = _vis(h5["beam"])
    res = load_result(h5["beam"])
    tip = vis["bodies"][res.body_names.index("tip")]
    assert tip == [{"type": "sphere", "R": np.eye(3).tolist(), "p": [0.0, 0.0, 0.0], "color": "#d62728",
                    "radius": 0.05}]
    (beam,) = vis["beams"]
    assert beam["color"] == "#8fa3b5" and beam["radius"] == pytest.approx(0.01) and len(beam["nodes"]) == 9
    assert all(vis["bodies"][i] == [] for i in beam["nodes"])         # beam nodes are drawn by the sweep


def test_modal_beam_visuals(runs):
    """A modal beam's visual (model file): its colour on every axis segment; a rectangle section
    swept as boxes of the section's sides; a given radius a round tube of that radius."""
    _, h5 = runs
    vis = _vis(h5["modal"])
    names = load_result(h5["modal"]).body_names
    flat, rnd = names.index("flat"), names.index("round")
    by_body = {b: [ln for ln in vis["lines"] if ln.get("body") == b] for b in (flat, rnd)}
    assert len(by_body[flat]) == len(by_body[rnd]) == 16
    assert all(ln["color"] == "#d62728" and ln["box"] == [0.1, 0.02] for ln in by_body[flat])
    assert all(ln["color"] == "#00c000" and ln["radius"] == 0.04 and "box" not in ln for ln in by_body[rnd])
    assert vis["bodies"][flat] == vis["bodies"][rnd] == []
    from flexmbd.visuals import BeamVisual

    m = Model()                                        # the Python API takes the same visual
    m.modal_beam(name="f", length=1, ends="free-free", modes={"bending_y": 1}, visual=BeamVisual(color="blue"),
                 section={"shape": "circle", "d": 0.02, "E": 7e10, "nu": 0.3, "rho": 2700})
    from flexmbd.io.results_h5 import system_geometry

    lines = json.loads(system_geometry(m.freeze())["visuals"][0])["lines"]
    assert {ln["color"] for ln in lines} == {"#1f77b4"} and lines[0]["radius"] == pytest.approx(0.01)
    with pytest.raises(Exception, match="reddish"):
        m.modal_beam(name="g", length=1, ends="free-free", modes={"bending_y": 1}, visual={"color": "reddish"},
                     section={"shape": "circle", "d": 0.02, "E": 7e10, "nu": 0.3, "rho": 2700})


def _wedge_stl(tmp_path):
    """A tetrahedron (mm) written as STL with trimesh: (path, vertices, faces)."""
    trimesh = pytest.importorskip("trimesh")
    V = np.array([[0.0, 0.0, 0.0], [200.0, 0.0, 0.0], [0.0, 100.0, 0.0], [0.0, 0.0, 50.0]])   # mm
    F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    stl = tmp_path / "wedge.stl"
    trimesh.Trimesh(vertices=V, faces=F, process=False).export(stl)
    return stl, V, F


def test_mesh_visual_from_an_stl_file(tmp_path):
    """A body drawn as an STL mesh (trimesh): the page carries its triangles (scaled to metres,
    in the body frame) and the VTK export has them at the body's pose."""
    stl, V, F = _wedge_stl(tmp_path)
    model = tmp_path / "mesh.yaml"
    model.write_text(f"""\
format: 1
name: mesh-pendulum
gravity: [0.0, 0.0, -9.81]
bodies:
  - name: bob
    mass: 1.0
    inertia: [1.0e-3, 1.0e-3, 1.0e-3]
    position: [0.5, 0.0, 0.0]
    visual: {{type: mesh, path: {json.dumps(str(stl))}, scale: 0.001, color: orange, offset: [0.0, 0.0, 0.1]}}
joints:
  - {{type: revolute, name: pin, body_i: ground, body_j: bob, at: [0, 0, 0], axis: [0, 1, 0]}}
solver:
  t_end: 0.05
  h: 0.01
""")
    h5 = _run(str(tmp_path), "mesh", str(model), 0.05)
    html = tmp_path / "mesh.html"
    assert main(["view", h5, "-o", str(html)]) == 0
    text = html.read_text()
    data = json.loads(text.split('id="flexmbd-data">', 1)[1].split("</script>", 1)[0])
    (prim,) = data["visuals"]["bodies"][0]
    assert prim["type"] == "mesh" and prim["color"] == "#ff7f0e" and prim["p"] == [0.0, 0.0, 0.1]
    pv, pf = np.reshape(prim["vertices"], (-1, 3)), np.reshape(prim["faces"], (-1, 3))
    assert len(pf) == 4
    tri = {tuple(sorted(map(tuple, np.round(pv[f], 9)))) for f in pf}        # the same triangles, in metres
    assert tri == {tuple(sorted(map(tuple, np.round(1e-3 * V[f], 9)))) for f in F}
    pytest.importorskip("meshio")
    import meshio

    from flexmbd.io.vtk import write_vtk

    res = load_result(h5)
    pvd = write_vtk(res, str(tmp_path / "vtk"), every=5)
    last = max(p for p in os.listdir(tmp_path / "vtk") if p.endswith(".vtu"))
    m = meshio.read(tmp_path / "vtk" / last)
    (tris,) = [c.data for c in m.cells if c.type == "triangle"]
    assert len(tris) == 4 and os.path.exists(pvd)
    R, A = res.body_poses([len(res.t) - 1])
    want = R[0, 0] + (1e-3 * V + [0, 0, 0.1]) @ A[0, 0].T                    # the wedge at the last pose
    got = m.points[np.unique(tris)]
    assert np.allclose(np.sort(got, axis=0), np.sort(want, axis=0), atol=1e-9)


def test_tensegrity_struts_are_bars_between_cable_ends(runs):
    _, h5 = runs
    vis = _vis(h5["tensegrity"])
    for prims in vis["bodies"]:
        assert prims[0]["type"] == "capsule" and prims[0]["length"] > 0.5


def test_python_visuals_and_bad_input():
    m = Model()
    b = m.rigid_body("b", mass=1, inertia=(1, 1, 1), visual=[Box(0.1, 0.2, 0.3, color="blue"), Sphere(0.05)])
    m.revolute(GROUND, b, at=(0, 0, 0))
    m.set_visual("b", Sphere(0.2, color="green"))
    from flexmbd.io.results_h5 import system_geometry

    vis = json.loads(system_geometry(m.freeze())["visuals"][0])
    assert vis["bodies"][0][0]["radius"] == 0.2 and vis["bodies"][0][0]["color"] == "#2ca02c"
    with pytest.raises(ModelError, match="set_visual"):
        m.set_visual("b", {"type": "cone"})


def test_bad_visual_in_a_model_file_names_the_line(tmp_path):
    bad = BEAM_MODEL.replace("color: red", "color: reddish")
    p = tmp_path / "bad.yaml"
    p.write_text(bad)
    from flexmbd.io.model_file import load_model_file

    with pytest.raises(Exception) as e:
        load_model_file(p)
    msg = str(e.value)
    assert "bad.yaml:17" in msg and "reddish" in msg


def test_quaternions_match_rotation_matrices():
    from flexmbd.rotations import rotation_matrix

    rng = np.random.default_rng(1)
    p = rng.normal(size=(50, 4))
    p /= np.linalg.norm(p, axis=1)[:, None]
    A = np.array([rotation_matrix(x) for x in p])
    q = quaternions(A)                        # x, y, z, w
    ref = np.column_stack([p[:, 1:], p[:, 0]]) * np.sign(p[:, :1])
    assert np.allclose(q * np.sign(q[:, 3:4]), ref, atol=1e-12)


def test_decimation_is_stated(runs):
    _, h5 = runs
    res = load_result(h5["slider-crank"])
    d = page_data(res, max_frames=10)
    assert len(d["rows"]) <= 11 and d["rows"][-1] == len(res.t) - 1
    assert "every 4th step" in d["info"]
    assert len(choose_rows(10001, 1000, 0, 0, max_bytes=4_000_000)) < 200   # the byte budget binds


def test_plotted_outputs_carry_components_and_units(runs):
    _, h5 = runs
    d = page_data(load_result(h5["slider-crank"]), plot=["crank.position", "sda.force", "crank.orientation",
                                                         "energy.kinetic"])
    got = [(s["name"], s["k"], s["labels"], s["unit"]) for s in d["series"]]
    assert got[0] == ("crank.position", 3, ["x", "y", "z"], "m")
    assert got[1] == ("sda.force", 1, ["force"], "N")
    assert got[2][1:] in ((4, ["e0", "e1", "e2", "e3"], "1"), (1, ["angle"], "rad"))
    assert got[3][2:] == (["kinetic"], "J")


def test_view_command_writes_one_offline_page(runs, tmp_path, capsys):
    _, h5 = runs
    out = tmp_path / "sc.html"
    assert main(["view", h5["slider-crank"], "-o", str(out), "--plot", "slider.position", "sda.force"]) == 0
    text = out.read_text()
    assert "frames of" in capsys.readouterr().out
    assert "http://" not in text.split("<script type=\"application/json\"")[0].split("importmap")[1][:200]
    assert "<script src=" not in text and "three.module" not in text          # inlined, not linked
    assert main(["view", h5["slider-crank"], "--plot", "nope"]) == 2


# ------------------------------------------------------------------ in a real browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader"]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install flexmbd[test])")
    with sync_playwright() as p:
        ud = tempfile.mkdtemp(prefix="flexmbd-chromium-")
        ctx = p.chromium.launch_persistent_context(ud, executable_path=CHROMIUM, args=ARGS, headless=True,
                                                   viewport={"width": 1000, "height": 700})
        try:
            yield ctx
        finally:
            ctx.close()
            shutil.rmtree(ud, ignore_errors=True)


def _open(ctx, path):
    page = ctx.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("file://" + os.path.abspath(path))
    page.wait_for_function("window.flexmbdViewer && window.flexmbdViewer.ready", timeout=60000)
    return page, errors


def _canvas(page):
    from io import BytesIO

    from PIL import Image

    return np.asarray(Image.open(BytesIO(page.locator("#view canvas").screenshot())).convert("RGB"), dtype=float)


@pytest.mark.parametrize("name, frame", [("slider-crank", 25), ("beam", 20), ("tensegrity", 30),
                                         ("p3-crank-slider", 200)])
def test_page_in_a_browser(runs, browser, name, frame):
    tmp, h5 = runs
    res = load_result(h5[name])
    html = os.path.join(tmp, name + ".html")
    data = write_html(res, html)
    page, errors = _open(browser, html)
    try:
        page.evaluate("flexmbdViewer.setFrame(0)")
        a = _canvas(page)
        assert a.std() > 5, "the canvas is blank"
        t0, x0 = page.inner_text("#tlabel"), page.evaluate("flexmbdViewer.cursorX")
        page.evaluate(f"flexmbdViewer.setFrame({frame})")
        b = _canvas(page)
        changed = np.mean(np.abs(a - b).sum(axis=2) > 30)
        assert changed > 1e-4, f"moving the time slider changed {changed:.1e} of the pixels"
        t = float(res.t[data["rows"][frame]])
        assert page.inner_text("#tlabel") == f"t = {t:.4f} s" != t0
        assert page.evaluate("flexmbdViewer.cursorX") > x0                      # the plot's cursor follows
        shown = page.evaluate("flexmbdViewer.plot")                            # axes and legend
        s0 = data["series"][0]
        assert shown["x"] == "t [s]" and shown["y"] == f"{s0['name']} [m]" and shown["legend"] == ["x", "y", "z"]
        assert len(set(shown["colors"])) == 3
        assert page.is_visible("#legend i")
        R, A = res.body_poses([data["rows"][frame]])
        for i in range(len(res.body_names)):
            assert np.allclose(page.evaluate(f"flexmbdViewer.bodyPosition({i})"), R[0, i], atol=2e-6 * (1 + abs(R).max()))
            assert np.allclose(page.evaluate(f"flexmbdViewer.bodyRotation({i})"), A[0, i], atol=1e-5)
        if name in ("beam", "p3-crank-slider"):                           # a beam can be hidden
            page.evaluate(f"flexmbdViewer.setFrame({frame})")
            before = _canvas(page)
            page.locator("input[data-beam='0']").uncheck()
            assert np.mean(np.abs(before - _canvas(page)).sum(axis=2) > 30) > 1e-3
            page.locator("input[data-beam='0']").check()
        # the slider moves the frame too
        page.locator("#time").fill("0")
        assert page.evaluate("flexmbdViewer.frame") == 0
        shots = os.environ.get("FLEXMBD_SCREENSHOTS")
        if shots:
            page.evaluate(f"flexmbdViewer.setFrame({frame})")
            page.screenshot(path=os.path.join(shots, f"viewer_{name}.png"))
        assert errors == []
    finally:
        page.close()


def test_modal_beams_in_a_browser(runs, browser):
    """The red box-section beam and the green tube are drawn in their colours; hiding one removes it."""
    tmp, h5 = runs
    html = os.path.join(tmp, "modal.html")
    write_html(load_result(h5["modal"]), html, plot=["flat.tip_deflection", "round.tip_deflection"])
    page, errors = _open(browser, html)

    def share(img, rgb):
        return np.mean(np.abs(img - np.array(rgb, float)).max(axis=2) < 60)

    try:
        page.evaluate("flexmbdViewer.setFrame(3)")
        a = _canvas(page)
        red, green = share(a, (214, 39, 40)), share(a, (0, 192, 0))
        assert page.evaluate("flexmbdViewer.plot.y") == "flat.tip_deflection [m]"
        assert red > 1e-3 and green > 1e-3, (red, green)
        names = load_result(h5["modal"]).body_names
        shots = os.environ.get("FLEXMBD_SCREENSHOTS")
        if shots:
            page.screenshot(path=os.path.join(shots, "viewer_modal-beams.png"))
        page.locator(f"input[data-body='{names.index('flat')}']").uncheck()
        b = _canvas(page)
        assert share(b, (214, 39, 40)) < 0.1 * red and share(b, (0, 192, 0)) > 0.5 * green
        assert errors == []
    finally:
        page.close()


def test_mesh_in_a_browser(browser, tmp_path):
    """A mesh visual given in Python (``Mesh``) is drawn: its colour is on the canvas, hiding its
    body removes it."""
    from flexmbd.visuals import Mesh

    stl, _, _ = _wedge_stl(tmp_path)
    m = Model(gravity=(0, 0, -9.81))
    b = m.rigid_body("bob", mass=1, inertia=(1e-3, 1e-3, 1e-3), position=(0.3, 0, 0),
                     visual=Mesh(str(stl), scale=0.002, color="orange"))
    m.revolute(GROUND, b, at=(0, 0, 0), axis=(0, 1, 0))
    html = tmp_path / "mesh.html"
    m.simulate(t_end=0.02, h=0.01).view(html)
    page, errors = _open(browser, html)

    def orange(img):
        return np.mean(np.abs(img - np.array((255, 127, 14), float)).max(axis=2) < 70)

    try:
        page.evaluate("flexmbdViewer.setFrame(0)")
        share = orange(_canvas(page))
        assert share > 1e-3
        page.locator("input[data-body='0']").uncheck()
        assert orange(_canvas(page)) < 0.1 * share
        assert errors == []
    finally:
        page.close()


def test_play_and_hide_in_a_browser(runs, browser):
    tmp, h5 = runs
    html = os.path.join(tmp, "play.html")
    write_html(load_result(h5["slider-crank"]), html)
    page, errors = _open(browser, html)
    try:
        page.evaluate("flexmbdViewer.setFrame(0)")
        a = _canvas(page)
        page.locator("input[data-body='0']").uncheck()            # hide the crank
        b = _canvas(page)
        assert np.mean(np.abs(a - b).sum(axis=2) > 30) > 1e-3
        box = page.locator("#plot").bounding_box()                 # a click on the plot jumps to its time
        ml = 66                                                    # the plot's left margin (page.js PML)
        page.mouse.click(box["x"] + ml + 0.5 * (box["width"] - ml - 8), box["y"] + 0.5 * box["height"])
        t = load_result(h5["slider-crank"]).t
        assert page.evaluate("flexmbdViewer.time") == pytest.approx(0.5 * (t[0] + t[-1]), abs=1.01 * (t[1] - t[0]))
        page.select_option("#speed", "5")
        page.click("#play")
        page.wait_for_function("flexmbdViewer.frame > 5", timeout=20000)
        assert errors == []
    finally:
        page.close()


def test_serve_follows_a_growing_file(runs, tmp_path):
    """--serve: the page comes from 127.0.0.1 and /data hands out the frames a resumed run adds."""
    import threading
    import urllib.request

    from flexmbd.viewer.serve import serve

    _, h5 = runs
    path = str(tmp_path / "live.h5")
    shutil.copy(h5["slider-crank"], path)
    n0 = len(load_result(path).t)
    got = {}
    ready = threading.Event()

    def on_ready(url, httpd):
        got.update(url=url, httpd=httpd)
        ready.set()

    th = threading.Thread(target=serve, args=(path,), kwargs=dict(open_browser=False, ready=on_ready), daemon=True)
    th.start()
    assert ready.wait(60)
    try:
        page = urllib.request.urlopen(got["url"], timeout=30).read().decode()
        assert '"live":true' in page and "flexmbd-data" in page
        assert json.loads(urllib.request.urlopen(got["url"] + f"data?since={n0}", timeout=30).read()) == {"nf": n0}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(["run", os.path.join(MODELS, "slider-crank-sda.yaml"), "--resume", path, "--t-end", "0.4",
                         "--quiet"]) == 0
        n1 = len(load_result(path).t)
        assert n1 > n0
        new = json.loads(urllib.request.urlopen(got["url"] + f"data?since={n0}", timeout=30).read())
        assert new["nf"] == n1
        import base64

        t = np.frombuffer(base64.b64decode(new["t"]), dtype=np.float64)
        np.testing.assert_allclose(t, load_result(path).t[n0:])
        (y,) = [np.frombuffer(base64.b64decode(b), dtype=np.float32) for b in new["series"][:1]]
        name = page_data(load_result(path))["series"][0]["name"]
        np.testing.assert_allclose(y.reshape(n1 - n0, -1), load_result(path)[name][n0:], rtol=1e-6, atol=1e-6)
    finally:
        got["httpd"].shutdown()
        th.join(10)


def test_served_page_follows_the_run_in_a_browser(runs, browser, tmp_path):
    """The served page asks for new frames every second and shows them."""
    import threading

    from flexmbd.viewer.serve import serve

    _, h5 = runs
    path = str(tmp_path / "live.h5")
    shutil.copy(h5["slider-crank"], path)
    n0 = len(load_result(path).t)
    got, ready = {}, threading.Event()
    th = threading.Thread(target=serve, args=(path,), daemon=True,
                          kwargs=dict(open_browser=False, ready=lambda u, h: (got.update(url=u, httpd=h), ready.set())))
    th.start()
    assert ready.wait(60)
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(got["url"])
        page.wait_for_function("window.flexmbdViewer && window.flexmbdViewer.ready", timeout=60000)
        page.evaluate(f"flexmbdViewer.setFrame({n0 - 1})")        # at the end: the page follows the run
        t0 = load_result(path).t
        assert page.evaluate("flexmbdViewer.plot.lastTime") == pytest.approx(t0[-1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(["run", os.path.join(MODELS, "slider-crank-sda.yaml"), "--resume", path, "--t-end", "0.4",
                         "--quiet"]) == 0
        n1 = len(load_result(path).t)
        page.wait_for_function(f"flexmbdViewer.nFrames === {n1}", timeout=30000)
        page.wait_for_function(f"flexmbdViewer.frame === {n1 - 1}", timeout=10000)
        assert page.inner_text("#tlabel") == f"t = {load_result(path).t[-1]:.4f} s"
        assert page.evaluate("flexmbdViewer.plot.lastTime") == pytest.approx(load_result(path).t[-1])   # the plot grew
        assert errors == []
    finally:
        page.close()
        got["httpd"].shutdown()
        th.join(10)


def test_files_without_stored_visuals_are_drawn_from_their_model(runs, tmp_path):
    import h5py

    _, h5 = runs
    old = str(tmp_path / "old.h5")
    shutil.copy(h5["slider-crank"], old)
    with h5py.File(old, "a") as f:
        del f["geometry/visuals"]
    res = load_result(old)
    assert "visuals" not in res.geometry
    d = page_data(res)
    assert d["visuals"]["bodies"] == _vis(h5["slider-crank"])["bodies"]


def test_result_view_in_python_and_jupyter(tmp_path):
    """An in-memory Result: .view() writes the page and shows it inline (an iframe)."""
    m = Model(gravity=(0, 0, -9.81))
    b = m.rigid_body("bob", mass=1, inertia=(1e-3, 1e-3, 1e-3), position=(0.5, 0, 0), visual=Sphere(0.05))
    m.revolute(GROUND, b, at=(0, 0, 0), axis=(0, 1, 0))
    res = m.simulate(t_end=0.05, h=0.01)
    v = res.view(tmp_path / "bob.html", plot=["bob.position"])
    html = v._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "flexmbd-data" in html
    assert (tmp_path / "bob.html").read_text() in __import__("html").unescape(html)


def test_visuals_round_trip_through_a_model_file():
    import yaml

    from flexmbd.io.model_file import load_model_text, model_to_dict
    from flexmbd.visuals import Capsule

    m = Model()
    b = m.rigid_body("b", mass=1, inertia=(1, 1, 1),
                     visual=[Box(0.1, 0.2, 0.3, color="blue", rotation=[1, 0, 0, 0]), Capsule(0.05, 1, axis=(1, 0, 0))])
    m.revolute(GROUND, b, at=(0, 0, 0))
    text = yaml.safe_dump(model_to_dict(m, solver={"t_end": 0.1, "h": 0.01}))
    assert load_model_text(text).model.elements[0].spec.visual == m.elements[0].spec.visual
