"""Pictures of a DT-TMM run (docs/solvers/tmm.md): the chain's deflection line along its
stations, as a ParaView time series (``flexmbd export --vtk``) and as an animated GIF
(``flexmbd animate``).  A chain (or P5's wheelset) is one line of stations at their axial
positions x (``/geometry/station_x`` of the results file) deflecting vertically by z.

VTK frames: the stations as points (x, 0, z) in metres, joined by line cells, one per
element (cell data ``element``: its index, names in the .pvd's comment); point data
``displacement`` (z, m), ``rotation`` (θ, rad) and, where stored, ``acceleration`` (z'', m/s²)
and ``shear_force``/``bending_moment`` (N, N m).
"""
from __future__ import annotations

import os

import numpy as np

from .vtk import frame_rows, write_pvd


class NoChainGeometry(ValueError):
    """The results file has no station positions or displacements (older files, or a run
    whose outputs hold none)."""


def chain_line(result):
    """(x (stations,), z (steps, stations), θ (steps, stations)) of a
    :class:`~flexmbd.io.tmm_file.TmmResult`."""
    x = result.attrs.get("station_x")
    if x is None or "stations.displacement" not in result.stored:
        raise NoChainGeometry(f"{result.path}: holds no station positions and displacements (written before "
                              "flexmbd stored the chain's geometry); run the model again to draw it")
    Z = result.stored["stations.displacement"]
    return np.asarray(x, dtype=float), Z[:, :, 0], Z[:, :, 1]


def write_vtk(result, out_dir, every: int = 1, name: str | None = None) -> str:
    """Write ``out_dir/NAME.pvd`` and ``NAME_00000.vtu``…; return the .pvd path."""
    import meshio

    x, z, th = chain_line(result)
    os.makedirs(out_dir, exist_ok=True)
    name = name or os.path.splitext(os.path.basename(result.path))[0]
    rows = frame_rows(len(result.t), every)
    ns = len(x)
    cells = [("line", np.c_[np.arange(ns - 1), np.arange(1, ns)])]
    element = [np.arange(ns - 1, dtype=np.int64)]
    extra = {}
    for key, label, col in (("stations.acceleration", "acceleration", 0), ("stations.force", "shear_force", 0),
                            ("stations.force", "bending_moment", 1)):
        if key in result.stored:
            extra[label] = result.stored[key][:, :, col]
    entries = []
    for f, row in enumerate(rows):
        pts = np.c_[x, np.zeros(ns), np.nan_to_num(z[row])]
        data = {"displacement": z[row], "rotation": th[row]} | {k: v[row] for k, v in extra.items()}
        mesh = meshio.Mesh(pts, cells, point_data=data, cell_data={"element": element})
        fname = f"{name}_{f:05d}.vtu"
        meshio.write(os.path.join(out_dir, fname), mesh, file_format="vtu")
        entries.append((float(result.t[row]), fname))
    names = result.attrs.get("element_names", [])
    return write_pvd(os.path.join(out_dir, f"{name}.pvd"), entries,
                     "flexmbd DT-TMM chain: elements " + ", ".join(names))


def animate(result, path, every: int = 1, fps: int = 20, dpi: int = 80, size=(6.0, 3.5)) -> int:
    """The deflection line z(x) over time as a GIF (deflection magnified to a tenth of the
    chain's length, the factor in the title); return the number of frames."""
    from PIL import Image

    from .animate import _pyplot

    x, z, _ = chain_line(result)
    rows = frame_rows(len(result.t), every)
    span = max(float(x[-1] - x[0]), 1e-9)
    zmax = float(np.nanmax(np.abs(z[rows]))) if np.any(np.isfinite(z[rows])) else 0.0
    scale = 0.1 * span / zmax if zmax > 0 else 1.0
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size, dpi=dpi)
    try:
        ax.set_xlim(x[0] - 0.05 * span, x[-1] + 0.05 * span)
        ax.set_ylim(-0.15 * span, 0.15 * span)
        ax.set_aspect("equal")
        ax.grid(True, alpha=0.3)
        ax.set_xlabel("x [m]")
        ax.set_ylabel(f"z × {scale:.3g} [m]")
        ax.set_title(f"{os.path.basename(result.path)}: deflection × {scale:.3g}", fontsize=10)
        (line,) = ax.plot([], [], "-o", color="#3b6ea5", lw=2, ms=3, animated=True)
        txt = ax.text(0.02, 0.94, "", transform=ax.transAxes, va="top", fontsize=9, animated=True)
        canvas = fig.canvas
        canvas.draw()
        background = canvas.copy_from_bbox(fig.bbox)
        frames = []
        for row in rows:
            line.set_data(x, scale * z[row])
            txt.set_text(f"t = {result.t[row]:.5f} s")
            canvas.restore_region(background)
            ax.draw_artist(line)
            ax.draw_artist(txt)
            rgba = np.asarray(canvas.buffer_rgba())
            frames.append(Image.fromarray(rgba[..., :3].copy()).quantize(colors=64))
    finally:
        plt.close(fig)
    frames[0].save(os.fspath(path), format="GIF", save_all=True, append_images=frames[1:],
                   duration=max(20, int(round(1000 / fps))), loop=0, disposal=1)
    return len(frames)
