"""One self-contained HTML page that shows a run in 3D (``flexmbd view``, ``Result.view()``).

The page holds everything it needs: three.js (MIT licence, vendored in
``flexmbd/viewer/vendor``; loaded through an import map of ``data:`` URLs, so the page
works offline and can be mailed), the viewer script (``page.js``) and the run as base64
typed arrays — times (Float64), body poses (Float32: position and unit quaternion
x, y, z, w per body and frame), line end points and joint points (Float32, global) — plus
the visuals of :mod:`flexmbd.visuals` as JSON and a few outputs to plot.

Large results are decimated: at most ``max_frames`` frames and ``max_bytes`` of pose
data; the page states which rows it shows ("every k-th of N saved steps").
"""
from __future__ import annotations

import base64
import html as _html
import json
import math
import os
from importlib import resources

import numpy as np

from ..io.vtk import frame_rows, scene, visuals_of
from ..services import provide

MAX_FRAMES = 2000
MAX_BYTES = 48_000_000


def _b64(a, dtype=np.float32) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode("ascii")


def _vendor(name: str) -> str:
    return resources.files("flexmbd.viewer").joinpath("vendor", name).read_text(encoding="utf-8")


def _script(name: str) -> str:
    return resources.files("flexmbd.viewer").joinpath(name).read_text(encoding="utf-8")


def _data_url(js: str) -> str:
    return "data:text/javascript;base64," + base64.b64encode(js.encode("utf-8")).decode("ascii")


def quaternions(A: np.ndarray) -> np.ndarray:
    """Unit quaternions (x, y, z, w) of rotation matrices A (..., 3, 3) (Shepperd's method)."""
    A = np.asarray(A, float)
    shp = A.shape[:-2]
    M = A.reshape(-1, 3, 3)
    q = np.zeros((len(M), 4))
    tr = np.trace(M, axis1=1, axis2=2)
    d = np.stack([tr, M[:, 0, 0], M[:, 1, 1], M[:, 2, 2]], axis=1)
    k = np.argmax(d, axis=1)
    for i in range(4):
        s = k == i
        m = M[s]
        if i == 0:
            w = 0.5 * np.sqrt(np.maximum(1 + tr[s], 0))
            f = 0.25 / w
            q[s] = np.column_stack([(m[:, 2, 1] - m[:, 1, 2]) * f, (m[:, 0, 2] - m[:, 2, 0]) * f,
                                    (m[:, 1, 0] - m[:, 0, 1]) * f, w])
        else:
            a, b, c = i - 1, i % 3, (i + 1) % 3
            x = 0.5 * np.sqrt(np.maximum(1 + m[:, a, a] - m[:, b, b] - m[:, c, c], 0))
            f = 0.25 / x
            out = np.zeros((len(m), 4))
            out[:, a] = x
            out[:, b] = (m[:, b, a] + m[:, a, b]) * f
            out[:, c] = (m[:, c, a] + m[:, a, c]) * f
            out[:, 3] = (m[:, c, b] - m[:, b, c]) * f
            q[s] = out
    return q.reshape(*shp, 4)


def choose_rows(n_rows: int, n_bodies: int, n_lines: int, n_markers: int, max_frames: int = MAX_FRAMES,
                max_bytes: int = MAX_BYTES) -> np.ndarray:
    """Rows shown: every k-th (and the last) so that frames ≤ max_frames and data ≤ max_bytes."""
    per_frame = 4 * (7 * n_bodies + 6 * n_lines + 3 * n_markers) + 8
    cap = max(2, min(int(max_frames), int(max_bytes // max(per_frame, 1))))
    every = max(1, math.ceil((n_rows - 1) / (cap - 1))) if n_rows > cap else 1
    return frame_rows(n_rows, every)


def frame_data(result, rows) -> dict:
    """Base64 typed arrays of the frames ``rows``: t, pose, lines, markers."""
    R, A = result.body_poses(rows)
    sc = scene(result, rows)
    pose = np.concatenate([R, quaternions(A)], axis=2)
    return {"t": _b64(np.asarray(result.t)[rows], np.float64), "pose": _b64(pose),
            "lines": _b64(sc["lines"].reshape(len(rows), -1)), "markers": _b64(sc["markers"].reshape(len(rows), -1))}


def default_series(result, limit: int = 3) -> list[str]:
    """Outputs plotted when none are named: the positions of the first few moving bodies."""
    names = list(result.layout["body_names"])
    R, _ = result.body_poses([0, len(result.t) - 1]) if len(result.t) else (np.zeros((0, len(names), 3)), None)
    tol = 1e-9 * (1.0 + (float(np.abs(R).max()) if np.size(R) else 0.0))      # round-off is not moving
    moving = [n for i, n in enumerate(names) if len(R) and np.linalg.norm(R[-1, i] - R[0, i]) > tol]
    return [f"{n}.position" for n in (moving or names)[:limit]]


def series_labels(name: str, k: int) -> tuple[list[str], str]:
    """Names of the ``k`` components of output ``name`` and its unit ("" when unknown): the unit
    the results file stores with its outputs (:func:`~flexmbd.io.results_h5.output_unit`)."""
    from ..io.results_h5 import output_unit

    what = name.rsplit(".", 1)[-1]
    unit = output_unit(name)
    if what == "orientation":                 # Euler parameters (1) or a planar angle (rad)
        return (["e0", "e1", "e2", "e3"], "1") if k == 4 else (["angle"] * k if k == 1 else
                                                              [f"{what}[{c}]" for c in range(k)], "rad")
    if k == 1:
        return [what], unit
    if k in (2, 3) and " or " not in unit and "by equation" not in unit:     # a planar or spatial vector
        return ["x", "y", "z"][:k], unit
    return [f"{what}[{c}]" for c in range(k)], unit


def series_data(result, names, rows) -> list[dict]:
    """The plotted outputs at ``rows``: name, components ``k``, their ``labels``, ``unit`` and the
    values (Float32, base64; rows × k)."""
    out = []
    for nm_ in names:
        y = np.asarray(result[nm_], float)[rows]
        y = y.reshape(len(rows), -1)
        labels, unit = series_labels(nm_, int(y.shape[1]))
        out.append({"name": nm_, "k": int(y.shape[1]), "labels": labels, "unit": unit, "data": _b64(y)})
    return out


def page_data(result, plot=None, max_frames: int = MAX_FRAMES, max_bytes: int = MAX_BYTES, live: bool = False) -> dict:
    """Everything the page shows, as JSON-ready dict."""
    g = result.geometry
    lay = result.layout
    nb, nl, nm = len(lay["body_names"]), len(g["line_bodies"]), len(g["marker_bodies"])
    n = len(result.t)
    if n == 0:
        raise ValueError(f"{getattr(result, 'path', 'the result')}: no saved steps to show")
    rows = choose_rows(n, nb, nl, nm, max_frames, max_bytes)
    data = {"nb": nb, "nl": nl, "nm": nm, "body_names": list(lay["body_names"]),
            "marker_bodies": [int(x) for x in g["marker_bodies"]],
            "marker_points": np.asarray(g["marker_points"], float).reshape(-1, 3).tolist(),
            "visuals": visuals_of(result), "live": bool(live),
            "name": os.path.splitext(os.path.basename(getattr(result, "path", "") or "flexmbd"))[0]}
    data.update(frame_data(result, rows))
    data["series"] = series_data(result, plot if plot else default_series(result), rows)
    every = int(rows[1] - rows[0]) if len(rows) > 1 else 1
    status = getattr(result, "status", "completed")
    data["info"] = (f"{len(rows)} frames of {n} saved steps" + (f" (every {_ordinal(every)} step and the last, to keep the "
                    f"page under {max_frames} frames and {max_bytes / 1e6:.0f} MB)" if every > 1 else " (all)")
                    + ("" if status == "completed" else f"; run {status}"))
    data["rows"] = [int(r) for r in rows]
    return data


def _ordinal(k: int) -> str:
    """2 → '2nd', 11 → '11th', 23 → '23rd'."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title} — flexmbd viewer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>
html, body {{ margin: 0; height: 100%; font: 13px system-ui, sans-serif; color: #222; }}
#wrap {{ display: grid; grid-template-columns: 1fr 210px; grid-template-rows: 1fr auto 170px; height: 100%; }}
#view {{ grid-column: 1; grid-row: 1; position: relative; overflow: hidden; min-height: 200px; }}
#side {{ grid-column: 2; grid-row: 1 / 4; overflow: auto; border-left: 1px solid #ccc; padding: 6px; }}
#side label {{ display: block; white-space: nowrap; }}
#bar {{ grid-column: 1; grid-row: 2; display: flex; gap: 8px; align-items: center; padding: 4px 8px;
        border-top: 1px solid #ccc; }}
#time {{ flex: 1; }}
#plotbox {{ grid-column: 1; grid-row: 3; display: flex; flex-direction: column; border-top: 1px solid #ccc; }}
#plot {{ flex: 1; width: 100%; min-height: 0; cursor: crosshair; }}
#legend span {{ margin-left: 10px; white-space: nowrap; }}
#legend i {{ display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-right: 3px; }}
#info {{ color: #666; font-size: 11px; padding: 2px 8px; }}
</style>
<script type="importmap">{importmap}</script>
</head><body>
<div id="wrap">
 <div id="view"></div>
 <div id="side"><b>{title}</b><div id="info">{info}</div><p>Show / hide</p><div id="bodies"></div>
  <p style="color:#666;font-size:11px">drag: orbit; right-drag: pan; wheel: zoom</p></div>
 <div id="bar"><button id="play">Play</button>
  <input id="time" type="range" min="0" max="0" step="1" value="0" aria-label="time">
  <span id="tlabel">t = </span>
  <label>speed <select id="speed"><option value="0.1">0.1×</option><option value="0.25">0.25×</option>
   <option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option>
   <option value="5">5×</option></select></label>
  <button id="shot">Screenshot</button></div>
 <div id="plotbox"><div style="padding:2px 8px">plot <select id="series"></select>
  <span id="legend"></span></div>
  <canvas id="plot"></canvas></div>
</div>
<script type="application/json" id="flexmbd-data">{data}</script>
<script type="module">{script}</script>
</body></html>
"""


def render(data: dict) -> str:
    """The HTML text of the page for :func:`page_data`."""
    imports = {"three": _data_url(_vendor("three.module.min.js")),
               "three/addons/OrbitControls.js": _data_url(_vendor("OrbitControls.js"))}
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return TEMPLATE.format(title=_html.escape(data.get("name", "flexmbd")), info=_html.escape(data.get("info", "")),
                           importmap=json.dumps({"imports": imports}), data=payload, script=_script("page.js"))


def write_html(result, path, plot=None, max_frames: int = MAX_FRAMES, max_bytes: int = MAX_BYTES) -> dict:
    """Write the page of ``result`` to ``path``; return its data (``info``, ``rows``, …)."""
    data = page_data(result, plot=plot, max_frames=max_frames, max_bytes=max_bytes)
    text = render(data)
    with open(os.fspath(path), "w", encoding="utf-8") as fh:
        fh.write(text)
    return data


class InlineView:
    """A page shown inline in Jupyter (an iframe with the page as ``srcdoc``)."""

    def __init__(self, text: str, path: str | None = None, height: int = 640):
        self.text, self.path, self.height = text, path, height

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{_html.escape(self.text, quote=True)}" style="width:100%;height:{self.height}px;'
                'border:1px solid #ccc"></iframe>')

    def __repr__(self) -> str:
        return f"<flexmbd viewer page{' ' + self.path if self.path else ''}>"


def view(result, path=None, plot=None, max_frames: int = MAX_FRAMES, height: int = 640) -> InlineView:
    """The viewer page of a result (:meth:`flexmbd.results.Result.view`): written to ``path``
    when given, and shown inline in Jupyter."""
    res = stored(result)
    data = page_data(res, plot=plot, max_frames=max_frames)
    text = render(data)
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(text)
    return InlineView(text, None if path is None else os.fspath(path), height)


provide("view_result", view)


def stored(result):
    """A result with poses and geometry: a stored one as it is; an in-memory Result is
    written to a temporary results file and read back."""
    if hasattr(result, "body_poses") and getattr(result, "geometry", None):
        return result
    import tempfile

    from ..io.results_h5 import load_result, save_result

    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "view.h5")
        save_result(result, p)
        res = load_result(p, model=result.system.model if getattr(result, "system", None) is not None else None)
        res.t, res.q = np.array(res.t), np.array(res.q)
        _ = res.geometry
        return res
