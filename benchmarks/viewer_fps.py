"""Frame rate of the 3D viewer page (flexmbd view) in headless Chromium.

Two models: a chain of N rigid links joined by spherical joints (default 1000) and a
pinned beam of 256 SE(3) elements with a tip mass, both swinging under gravity for a few
steps (the page draws what is stored; the number of steps only sets the number of frames).
The page is opened in headless Chromium (software WebGL, SwiftShader: no GPU, so the
figures are a floor; a desktop browser with a GPU is far faster) and redrawn for a few
seconds with a new frame of the run in every animation frame (every body's matrix
recomputed and uploaded, the scene rendered); the frame rate is frames drawn per second
of wall time.  The machine's load average is recorded with the figures.

    PYTHONPATH=. python benchmarks/viewer_fps.py [--links 1000] [--elements 256] [--seconds 5]

Prints one line per model and writes benchmarks/viewer_fps.json.  Needs Playwright and a
Chromium at /usr/bin/chromium (tests/test_viewer.py uses the same launch options).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import warnings

import numpy as np

from flexmbd import GROUND, Model
from flexmbd.beams import Section
from flexmbd.viewer.page import write_html

ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync", "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader"]


def chain(n: int) -> Model:
    """n links of 0.1 m, 0.1 kg, joined by spherical joints, the first pinned to ground, horizontal."""
    m = Model(gravity=(0, 0, -9.81), name=f"chain{n}")
    prev, L = GROUND, 0.1
    for i in range(n):
        b = m.rigid_body(f"link{i}", mass=0.1, inertia=(1e-5, 1e-4, 1e-4), position=((i + 0.5) * L, 0, 0))
        m.spherical(prev, b, at=(i * L, 0, 0))
        prev = b
    return m


def beam(elements: int) -> Model:
    """A 2 m steel rod of 20 mm diameter, pinned at one end, horizontal, with a 1 kg tip mass."""
    m = Model(gravity=(0, 0, -9.81), name=f"beam{elements}")
    sec = Section.circle(0.02, E=2.1e11, nu=0.3, rho=7800.0)
    rod = m.beam("rod", section=sec, elements=elements, start=(0, 0, 0), end=(2, 0, 0))
    tip = m.rigid_body("tip", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(2, 0, 0), parameterization="se3")
    m.revolute(GROUND, rod.first, at=(0, 0, 0), axis=(0, 1, 0))
    m.fixed(rod.last, tip, at=(2, 0, 0))
    return m


def measure(html: str, seconds: float) -> dict:
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        ud = tempfile.mkdtemp(prefix="flexmbd-chromium-")
        ctx = p.chromium.launch_persistent_context(ud, executable_path=exe, args=ARGS, headless=True,
                                                   viewport={"width": 1000, "height": 700})
        try:
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto("file://" + os.path.abspath(html))
            page.wait_for_function("window.flexmbdViewer && window.flexmbdViewer.ready", timeout=120000)
            load = time.perf_counter() - t0
            fps = page.evaluate("""(seconds) => new Promise(done => {
                const v = window.flexmbdViewer; let n = 0; const t0 = performance.now();
                function step(now) {
                  v.showFrame(n % v.nFrames); n++;
                  if (now - t0 < seconds * 1000) requestAnimationFrame(step); else done(n / ((now - t0) / 1000));
                }
                requestAnimationFrame(step);
            })""", seconds)
        finally:
            ctx.close()
            shutil.rmtree(ud, ignore_errors=True)
    return {"fps": round(float(fps), 1), "load_seconds": round(load, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", type=int, default=1000)
    ap.add_argument("--elements", type=int, default=256)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as d:
        # the chain converges on the residual (its increment test stalls at round-off), the beam on the default
        for name, model, h, conv in ((f"chain of {a.links} links", chain(a.links), 1e-3, {"convergence": "residual"}),
                                     (f"beam of {a.elements} elements", beam(a.elements), 1e-4, {})):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = model.simulate(t_end=a.steps * h, h=h, **conv)
            if not res.success or len(res.t) != a.steps + 1:
                raise SystemExit(f"{name}: the run failed: {res.message}")
            sim = time.perf_counter() - t0
            html = os.path.join(d, "page.html")
            data = write_html(res, html) if hasattr(res, "body_poses") else None
            if data is None:
                from flexmbd.viewer.page import view
                view(res, path=html)
            size = os.path.getsize(html)
            r = measure(html, a.seconds)
            r.update(bodies=len(model.bodies), frames=a.steps + 1, page_mb=round(size / 1e6, 2),
                     simulate_seconds=round(sim, 1), load_average=round(os.getloadavg()[0], 1),
                     cores=os.cpu_count())
            out[name] = r
            print(f"{name}: {r['fps']} frames/s in headless Chromium (SwiftShader), {r['bodies']} nodes, "
                  f"page {r['page_mb']} MB, opened in {r['load_seconds']} s (load average {r['load_average']} "
                  f"on {r['cores']} cores)")
    with open(os.path.join(os.path.dirname(__file__), "viewer_fps.json"), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
