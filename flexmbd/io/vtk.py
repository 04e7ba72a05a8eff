"""ParaView time series of a run: one .vtu per frame (via meshio) and a .pvd collection.

Each frame holds, in this order,
  * every rigid body as a hexahedron: the homogeneous box with the body's mass and
    inertia (8 points per body, see :func:`flexmbd.bodies.rigid.box_half_extents`);
  * every spring-damper and distance constraint as a line between its attachment
    points (2 points each);
  * every joint marker (the joint's point on its body) as a vertex (1 point each);
  * every body's visual shapes (:mod:`flexmbd.visuals`: the model's, or the defaults —
    bars between joint points, a block for a slider) as triangles.
Point data: ``body`` (index of the body a point moves with, −1 for ground), ``velocity``
(m/s); cell data: ``part`` (0 body box, 1 spring/distance line, 2 joint marker, 3 visual
shape triangle) and ``index`` (the body, line or marker number; names are in the .pvd's comments and the HDF5 file).
Coordinates are in metres in the global frame.
"""
from __future__ import annotations

import json
import os
from xml.sax.saxutils import quoteattr

import numpy as np

from ..nodes import kind_from_key

#: VTK hexahedron corner order: bottom face counter-clockwise, then the top face.
HEX_SIGNS = np.array([(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1),
                      (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)], dtype=float)


def frame_rows(n_rows, every=1):
    """Rows shown as frames: 0, every, 2·every, … and always the last row."""
    every = max(1, int(every))
    rows = list(range(0, n_rows, every))
    if n_rows and rows[-1] != n_rows - 1:
        rows.append(n_rows - 1)
    return np.array(rows, dtype=int)


def scene(result, rows):
    """Global points of every frame in ``rows``: a dict with
    ``boxes`` (F, nb, 8, 3), ``lines`` (F, nl, 2, 3), ``markers`` (F, nm, 3)."""
    g = result.geometry
    R, A = result.body_poses(rows)
    corners = HEX_SIGNS[None, :, :] * g["box_half_extents"][:, None, :]          # (nb, 8, 3) box frame
    corners = np.einsum("bij,bkj->bki", g["box_axes"], corners)                  # body frame
    boxes = R[:, :, None, :] + np.einsum("fbij,bkj->fbki", A, corners)          # global
    F = len(rows)

    kinds = [kind_from_key(k) for k in result.layout["body_kinds"]] if hasattr(result, "layout") else None

    def place(body, u):
        if body < 0:
            return np.broadcast_to(u, (F, 3))
        if kinds is not None and kinds[body].deformable:      # points follow the deformation
            return result.body_points(body, u, rows)
        return R[:, body] + np.einsum("fij,j->fi", A[:, body], u)

    lb, lp = g["line_bodies"], g["line_points"]
    lines = np.zeros((F, len(lb), 2, 3))
    for i in range(len(lb)):
        for end in (0, 1):
            lines[:, i, end] = place(int(lb[i, end]), lp[i, end])
    mb, mp = g["marker_bodies"], g["marker_points"]
    markers = np.zeros((F, len(mb), 3))
    for i in range(len(mb)):
        markers[:, i] = place(int(mb[i]), mp[i])
    return {"boxes": boxes, "lines": lines, "markers": markers}


def visuals_of(result) -> dict:
    """The resolved visuals of a stored run (``/geometry/visuals``), or of its model when the
    file predates them."""
    g = getattr(result, "geometry", None) or {}
    vis = g.get("visuals")
    if vis:
        return json.loads(vis[0] if isinstance(vis, (list, tuple, np.ndarray)) else vis)
    if getattr(result, "system", None) is not None:
        from .results_h5 import system_geometry

        return json.loads(system_geometry(result.system)["visuals"][0])
    raise ValueError(f"{getattr(result, 'path', 'the result')}: no visuals stored and no model to rebuild them")


def write_vtk(result, out_dir, every=1, name=None):
    """Write ``out_dir/NAME.pvd`` and ``out_dir/NAME_00000.vtu``…; return the .pvd path.

    ``every``: keep every N-th step (the last step is always kept).
    """
    import meshio

    os.makedirs(out_dir, exist_ok=True)
    name = name or (os.path.splitext(os.path.basename(result.path))[0] if getattr(result, "path", None) else "flexmbd")
    rows = frame_rows(len(result.t), every)
    sc = scene(result, rows)
    # velocities by finite differences of the frames would be misleading; use the
    # rigid-body field v_P = v_R + ω × (P − R) from the stored coordinates instead
    vel = _point_velocities(result, rows, sc)
    nb, nl, nm = sc["boxes"].shape[1], sc["lines"].shape[1], sc["markers"].shape[1]
    g = result.geometry
    body_of_point = np.r_[np.repeat(np.arange(nb), 8), g["line_bodies"].reshape(-1),
                          g["marker_bodies"]].astype(np.int64)
    cells = []
    cell_part, cell_index = [], []
    if nb:
        cells.append(("hexahedron", np.arange(8 * nb).reshape(nb, 8)))
        cell_part.append(np.zeros(nb, dtype=np.int64))
        cell_index.append(np.arange(nb, dtype=np.int64))
    if nl:
        cells.append(("line", 8 * nb + np.arange(2 * nl).reshape(nl, 2)))
        cell_part.append(np.ones(nl, dtype=np.int64))
        cell_index.append(np.arange(nl, dtype=np.int64))
    if nm:
        cells.append(("vertex", 8 * nb + 2 * nl + np.arange(nm).reshape(nm, 1)))
        cell_part.append(np.full(nm, 2, dtype=np.int64))
        cell_index.append(np.arange(nm, dtype=np.int64))
    vis_pts, vis_body = _visual_points(result, rows)           # (F, k, 3), (k,)
    nv = vis_body.size
    if nv:
        tris = _visual_triangles(result)
        cells.append(("triangle", 8 * nb + 2 * nl + nm + tris[0]))
        cell_part.append(np.full(len(tris[0]), 3, dtype=np.int64))
        cell_index.append(tris[1])
        body_of_point = np.r_[body_of_point, vis_body]
        R, _ = result.body_poses(rows)
        vR, w = result.body_twists(rows)
        vvis = vR[:, vis_body] + np.cross(w[:, vis_body], vis_pts - R[:, vis_body])
        vel = np.concatenate([vel, vvis], axis=1)
    entries = []
    for f, row in enumerate(rows):
        pts = np.concatenate([sc["boxes"][f].reshape(-1, 3), sc["lines"][f].reshape(-1, 3), sc["markers"][f]]
                             + ([vis_pts[f]] if nv else []))
        mesh = meshio.Mesh(pts, cells, point_data={"body": body_of_point, "velocity": vel[f]},
                           cell_data={"part": cell_part, "index": cell_index})
        fname = f"{name}_{f:05d}.vtu"
        meshio.write(os.path.join(out_dir, fname), mesh, file_format="vtu")
        entries.append((float(result.t[row]), fname))
    comment = ("flexmbd: bodies (hexahedra) " + ", ".join(result.layout["body_names"])
               + "; lines " + ", ".join(g["line_names"]) + "; markers " + ", ".join(g["marker_names"]))
    return write_pvd(os.path.join(out_dir, f"{name}.pvd"), entries, comment)


def write_pvd(pvd, entries, comment: str = ""):
    """A ParaView collection ``pvd`` of (time, .vtu file name) ``entries``, with an XML comment."""
    with open(pvd, "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n')
        if comment:
            fh.write("<!-- " + comment.replace("--", "-") + " -->\n")
        fh.write("  <Collection>\n")
        for t, fname in entries:
            fh.write(f'    <DataSet timestep="{t!r}" group="" part="0" file={quoteattr(fname)}/>\n')
        fh.write("  </Collection>\n</VTKFile>\n")
    return pvd


def _visual_meshes(result):
    """[(body, V (k, 3) body frame, F (t, 3))] of every body's visual primitives."""
    from ..visuals import unit_mesh

    try:
        vis = visuals_of(result)
    except ValueError:
        return []
    return [(b, *unit_mesh(pr, segments=12)) for b, prims in enumerate(vis["bodies"]) for pr in prims]


def _visual_points(result, rows):
    meshes = _visual_meshes(result)
    if not meshes:
        return np.zeros((len(rows), 0, 3)), np.zeros(0, dtype=np.int64)
    R, A = result.body_poses(rows)
    pts = [R[:, b, None, :] + np.einsum("fij,kj->fki", A[:, b], V) for b, V, _ in meshes]
    body = np.concatenate([np.full(len(V), b, dtype=np.int64) for b, V, _ in meshes])
    return np.concatenate(pts, axis=1), body


def _visual_triangles(result):
    """Triangles (t, 3) indexing the visual points, and the body of each."""
    tris, owner, off = [], [], 0
    for b, V, F in _visual_meshes(result):
        tris.append(F + off)
        owner.append(np.full(len(F), b, dtype=np.int64))
        off += len(V)
    return np.concatenate(tris).astype(np.int64), np.concatenate(owner)


def _point_velocities(result, rows, sc):
    """Velocity of every picture point (rigid-body field of its body; 0 on ground)."""
    lay = result.layout
    F = len(rows)
    nb = len(lay["body_names"])
    R, _ = result.body_poses(rows)
    vR, w = result.body_twists(rows)
    g = result.geometry

    def field(body, P):  # P (F, k, 3)
        if body < 0:
            return np.zeros_like(P)
        return vR[:, body, None, :] + np.cross(w[:, body, None, :], P - R[:, body, None, :])

    parts = [np.concatenate([field(i, sc["boxes"][:, i]) for i in range(nb)], axis=1) if nb else np.zeros((F, 0, 3))]
    for i, (b0, b1) in enumerate(g["line_bodies"]):
        parts.append(field(int(b0), sc["lines"][:, i, :1]))
        parts.append(field(int(b1), sc["lines"][:, i, 1:]))
    for i, b in enumerate(g["marker_bodies"]):
        parts.append(field(int(b), sc["markers"][:, i:i + 1]))
    return np.concatenate(parts, axis=1)


def read_pvd(path):
    """(time, file) pairs of a .pvd collection (for tests and scripts)."""
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]
