"""Pictures of a run with matplotlib: PNG plots of named outputs and a GIF animation.

The animation draws every body with its visual shapes (:mod:`flexmbd.visuals`: given in
the model, or the defaults — bars between joint points, a block for a slider), beams as
thick lines along their nodes, springs as zigzags and joints as dots, seen along an axis
(``view`` = "xy", "xz", "yz") or in an isometric projection ("iso").
"""
from __future__ import annotations

import os
import re

import numpy as np

from .vtk import frame_rows, scene, visuals_of

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


def _shade(hexcolor, n_dot):
    """RGB of a face: the colour lit by a light along the view direction (|cos| of its normal)."""
    c = np.array([int(hexcolor[i:i + 2], 16) for i in (1, 3, 5)], float) / 255.0
    return np.clip(c[None, :] * (0.45 + 0.55 * np.abs(n_dot)[:, None]), 0, 1)


class _Drawing:
    """What a frame draws, from the visuals (flexmbd.visuals): body triangles (shaded,
    depth-sorted), beams as thick polylines, springs as zigzags, rods as lines, joints as
    dots, grounded guides as thick grey lines."""

    def __init__(self, result, rows, P):
        from ..visuals import unit_mesh

        self.vis = vis = visuals_of(result)
        self.P = P
        self.view_dir = np.cross(P[0], P[1])
        self.rows = rows
        self.sc = scene(result, rows)
        self.R, self.A = result.body_poses(rows)
        self.tris = []                                   # (body, V local (k, 3), F (t, 3), colour)
        for b, prims in enumerate(vis["bodies"]):
            for pr in prims:
                V, F = unit_mesh(pr, segments=14)
                self.tris.append((b, V, F, pr.get("color") or "#888888", pr["type"] != "mesh", np.asarray(pr["p"], float)))
        self.lines = vis["lines"]
        self.beams = vis["beams"]
        self.markers = vis["markers"]
        self.scale = vis.get("scale", 1.0)

    def points(self):
        """All projected points of every frame (for the axis limits)."""
        pts = [self.sc["lines"].reshape(-1, 3), self.sc["markers"].reshape(-1, 3), self.R.reshape(-1, 3)]
        for b, V, *_ in self.tris:
            pts.append((self.R[:, b, None, :] + np.einsum("fij,kj->fki", self.A[:, b], V)).reshape(-1, 3))
        return np.concatenate(pts) @ self.P.T

    def faces(self, f):
        """Projected triangles (n, 3, 2) back to front and their colours (n, 3)."""
        polys, depth, cols = [], [], []
        for b, V, F, color, convex, centre in self.tris:
            X = self.R[f, b] + V @ self.A[f, b].T
            T = X[F]                                         # (t, 3, 3)
            n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0])
            nn = np.linalg.norm(n, axis=1)
            ok = nn > 0
            nd = np.zeros(len(T))
            nd[ok] = (n[ok] @ self.view_dir) / nn[ok]
            if convex:      # a convex solid: only the faces turned to the viewer (outward normals)
                c = self.R[f, b] + self.A[f, b] @ centre
                out = np.sign(np.einsum("ij,ij->i", T.mean(axis=1) - c, n))
                nd = nd * np.where(out == 0, 1, out)
                keep = nd > 0
                T, nd = T[keep], nd[keep]
            polys.append(T @ self.P.T)
            depth.append(T.mean(axis=1) @ self.view_dir)
            cols.append(_shade(color, nd))
        if not polys:
            return np.zeros((0, 3, 2)), np.zeros((0, 3))
        polys, depth, cols = np.concatenate(polys), np.concatenate(depth), np.concatenate(cols)
        order = np.argsort(depth)
        return polys[order], cols[order]

    def strokes(self, f):
        """(springs zigzag xy, rods xy, beams xy) NaN-separated polylines and joint dots."""
        P = self.P
        L = self.sc["lines"][f]
        springs, rods = [], []
        for i, ln in enumerate(self.lines):
            a, b = L[i]
            if ln["style"] == "coil":
                d = b - a
                s = np.linspace(0, 1, 26)
                side = np.cross(d, self.view_dir)
                nrm = np.linalg.norm(side)
                side = side / nrm if nrm > 0 else np.zeros(3)
                w = np.r_[0, 0, np.tile([1, -1], 11), 0, 0] * ln["radius"]
                springs += list((a + s[:, None] * d + w[:, None] * side) @ P.T) + [[np.nan, np.nan]]
            elif ln["style"] in ("rod", "tube"):
                rods += [a @ P.T, b @ P.T, [np.nan, np.nan]]
        beams = []
        for bm in self.beams:
            beams += list(self.R[f, bm["nodes"]] @ P.T) + [[np.nan, np.nan]]
        arr = (lambda x: np.array(x).reshape(-1, 2) if x else np.zeros((0, 2)))
        return arr(springs), arr(rods), arr(beams), self.sc["markers"][f] @ P.T

    def rails(self):
        """Fixed guides of grounded prismatic joints: their travel, as segments (xy)."""
        out = []
        M = self.sc["markers"]
        for i, mk in enumerate(self.markers):
            if mk["glyph"] != "rail" or not mk.get("axis"):
                continue
            ax = np.asarray(mk["axis"], float)
            host = None
            out_pts = M[:, i]
            s = (out_pts - out_pts[0]) @ ax
            pad = 0.12 * self.scale
            a, b = out_pts[0] + (s.min() - pad) * ax, out_pts[0] + (s.max() + pad) * ax
            del host
            out += [a @ self.P.T, b @ self.P.T, [np.nan, np.nan]]
        return np.array(out).reshape(-1, 2) if out else np.zeros((0, 2))


def animate(result, path, every=1, fps=20, view="xy", dpi=80, size=(6.0, 4.5), title=None):
    """Render the run to an animated GIF; return the number of frames.

    Bodies are drawn with their visual shapes (:mod:`flexmbd.visuals`: shaded triangles
    sorted back to front), beams as thick lines along their nodes, springs as zigzags,
    joints as dots and grounded guides as grey bars.  Matplotlib draws the axes once;
    each frame redraws only the moving artists (blitting on the Agg canvas) and Pillow
    writes the GIF.
    """
    from matplotlib.collections import PolyCollection
    from PIL import Image

    plt = _pyplot()
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    P = VIEWS[view]
    rows = frame_rows(len(result.t), every)
    dr = _Drawing(result, rows, P)
    allpts = dr.points()
    allpts = allpts[np.all(np.isfinite(allpts), axis=1)]
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
        rails = dr.rails()
        if len(rails):
            ax.plot(rails[:, 0], rails[:, 1], "-", color="#7f8c8d", lw=6, solid_capstyle="butt", zorder=1)
        # a beam's line width in points: its diameter on the axes' scale
        fig.canvas.draw()
        ax_w_pt = ax.get_window_extent().width * 72.0 / fig.dpi
        xr = ax.get_xlim()
        beam_lw = max([2.0] + [2 * bm["radius"] / (xr[1] - xr[0]) * ax_w_pt for bm in dr.beams])
        faces = PolyCollection([], animated=True, linewidths=0.4, zorder=3)   # edges in the face colour: no seams
        ax.add_collection(faces)
        (beam_art,) = ax.plot([], [], "-", color=(dr.beams[0]["color"] if dr.beams else "#3b6ea5"), lw=beam_lw,
                              solid_capstyle="round", animated=True, zorder=2)
        (spring_art,) = ax.plot([], [], "-", color="#c0392b", lw=1.0, animated=True, zorder=4)
        (rod_art,) = ax.plot([], [], "-", color="#555555", lw=1.5, animated=True, zorder=4)
        (mark_art,) = ax.plot([], [], "o", color="#222222", ms=3, animated=True, zorder=5)
        txt = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=9, animated=True)
        canvas = fig.canvas
        canvas.draw()
        background = canvas.copy_from_bbox(fig.bbox)
        frames = []
        for f in range(len(rows)):
            polys, cols = dr.faces(f)
            faces.set_verts(list(polys))
            faces.set_facecolor(cols)
            faces.set_edgecolor(cols)
            sp, rd, bm, mk = dr.strokes(f)
            spring_art.set_data(sp[:, 0], sp[:, 1])
            rod_art.set_data(rd[:, 0], rd[:, 1])
            beam_art.set_data(bm[:, 0], bm[:, 1])
            mark_art.set_data(mk[:, 0], mk[:, 1])
            txt.set_text(f"t = {result.t[rows[f]]:.4f} s")
            canvas.restore_region(background)
            for art in (beam_art, faces, spring_art, rod_art, mark_art, txt):
                ax.draw_artist(art)
            rgba = np.asarray(canvas.buffer_rgba())
            frames.append(Image.fromarray(rgba[..., :3].copy()).quantize(
                colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE))
    finally:
        plt.close(fig)
    frames[0].save(os.fspath(path), format="GIF", save_all=True, append_images=frames[1:],
                   duration=max(20, int(round(1000 / fps))), loop=0, disposal=1)
    return len(frames)
