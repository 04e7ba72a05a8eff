"""Pictures of a run with matplotlib: PNG plots of named outputs and a GIF animation.

The animation draws every rigid body as the edges of its inertia-equivalent box, springs
and distance constraints as lines and joints as dots, seen along an axis (``view`` =
"xy", "xz", "yz") or in an isometric projection ("iso").
"""
from __future__ import annotations

import os
import re

import numpy as np

from .vtk import frame_rows, scene

#: The 12 edges of a box in VTK hexahedron corner numbering.
BOX_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
VIEWS = {
    "xy": np.array([[1.0, 0, 0], [0, 1.0, 0]]),
    "xz": np.array([[1.0, 0, 0], [0, 0, 1.0]]),
    "yz": np.array([[0, 1.0, 0], [0, 0, 1.0]]),
    # isometric, seen from (1, −1, 1): screen x along (1, 1, 0)/√2, z up
    "iso": np.array([[1 / np.sqrt(2), 1 / np.sqrt(2), 0], [-1 / np.sqrt(6), 1 / np.sqrt(6), 2 / np.sqrt(6)]]),
}
AXIS_LABELS = {"xy": ("x [m]", "y [m]"), "xz": ("x [m]", "z [m]"), "yz": ("y [m]", "z [m]"), "iso": ("", "")}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def safe_filename(name):
    """An output name as a file name: 'slider.position' → 'slider.position'; odd characters → '_'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "output"


def plot_outputs(result, names, out_dir=".", size=(7.0, 4.0), dpi=100, together=False):
    """Save one PNG per named output (or one for all with ``together``); return the paths."""
    plt = _pyplot()
    os.makedirs(out_dir, exist_ok=True)
    for nm in names:  # fail before drawing anything if a name is unknown
        result[nm]
    groups = [list(names)] if together else [[nm] for nm in names]
    paths = []
    for group in groups:
        fig, ax = plt.subplots(figsize=size)
        try:
            result.plot(*group, ax=ax)
            attrs = getattr(result, "attrs", None) or {}
            analysis = attrs.get("analysis", "")
            if (analysis.decode() if isinstance(analysis, bytes) else str(analysis)) == "static":
                ax.set_xlabel("load factor (static analysis)")
            if len(group) == 1:
                from .results_h5 import output_unit

                unit = output_unit(group[0])
                ax.set_ylabel(f"{group[0]} [{unit}]" if unit and len(unit) < 12 else group[0])
            status = getattr(result, "status", "completed")
            ax.set_title(f"{getattr(result, 'path', '') or ''}{'' if status == 'completed' else f' ({status})'}",
                         fontsize=9)
            fig.tight_layout()
            fname = "+".join(safe_filename(n) for n in group) if len(group) < 4 else "outputs"
            path = os.path.join(out_dir, fname + ".png")
            fig.savefig(path, dpi=dpi)
            paths.append(path)
        finally:
            plt.close(fig)
    return paths


def _segments(sc, f, P):
    """Projected polylines (NaN-separated) of frame f: bodies, lines, markers."""
    boxes = sc["boxes"][f] @ P.T            # (nb, 8, 2)
    segs = []
    for b in boxes:
        for i, j in BOX_EDGES:
            segs += [b[i], b[j], [np.nan, np.nan]]
    body_xy = np.array(segs).reshape(-1, 2) if segs else np.zeros((0, 2))
    lines = sc["lines"][f] @ P.T            # (nl, 2, 2)
    line_xy = np.concatenate([lines, np.full((len(lines), 1, 2), np.nan)], axis=1).reshape(-1, 2)
    markers = sc["markers"][f] @ P.T
    return body_xy, line_xy, markers


def animate(result, path, every=1, fps=20, view="xy", dpi=80, size=(6.0, 4.5), title=None):
    """Render the run to an animated GIF; return the number of frames.

    Matplotlib draws the axes once; each frame redraws only the moving artists (blitting
    on the Agg canvas) and Pillow writes the GIF, as matplotlib's PillowWriter does, but
    without a full redraw per frame.
    """
    from PIL import Image

    plt = _pyplot()
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    P = VIEWS[view]
    rows = frame_rows(len(result.t), every)
    sc = scene(result, rows)
    allpts = np.concatenate([sc["boxes"].reshape(-1, 3), sc["lines"].reshape(-1, 3),
                             sc["markers"].reshape(-1, 3)]) @ P.T
    lo, hi = allpts.min(axis=0), allpts.max(axis=0)
    span = max(float(np.max(hi - lo)), 1e-9)
    pad = 0.08 * span
    fig, ax = plt.subplots(figsize=size, dpi=dpi)
    try:
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal")
        ax.grid(True, alpha=0.3)
        xl, yl = AXIS_LABELS[view]
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        if view == "iso":
            ax.set_xticks([])
            ax.set_yticks([])
        name = os.path.basename(result.path) if getattr(result, "path", None) else "flexmbd"
        ax.set_title(title or f"{name} ({view} view)", fontsize=10)
        (body_art,) = ax.plot([], [], "-", color="tab:blue", lw=1.5, animated=True)
        (line_art,) = ax.plot([], [], "-", color="tab:red", lw=1.2, animated=True)
        (mark_art,) = ax.plot([], [], "o", color="k", ms=3, animated=True)
        txt = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=9, animated=True)
        canvas = fig.canvas
        canvas.draw()
        background = canvas.copy_from_bbox(fig.bbox)
        frames = []
        for f in range(len(rows)):
            b, ln, mk = _segments(sc, f, P)
            body_art.set_data(b[:, 0], b[:, 1])
            line_art.set_data(ln[:, 0], ln[:, 1])
            mark_art.set_data(mk[:, 0], mk[:, 1])
            txt.set_text(f"t = {result.t[rows[f]]:.4f} s")
            canvas.restore_region(background)
            for art in (body_art, line_art, mark_art, txt):
                ax.draw_artist(art)
            rgba = np.asarray(canvas.buffer_rgba())
            frames.append(Image.fromarray(rgba[..., :3].copy()).quantize(
                colors=64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE))
    finally:
        plt.close(fig)
    frames[0].save(os.fspath(path), format="GIF", save_all=True, append_images=frames[1:],
                   duration=max(20, int(round(1000 / fps))), loop=0, disposal=1)
    return len(frames)
