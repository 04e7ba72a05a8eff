"""What bodies and beams look like: visual shapes, their defaults, and triangle meshes.

A visual shape is a box, cylinder, sphere, capsule or triangle mesh file (STL/OBJ through
the optional ``trimesh`` package), with a colour, placed in the body frame by ``offset``
and ``rotation`` (the body frame of a rigid body is its centre-of-mass frame; of a body
built from mass ``shape`` s, the shapes' frame — the same placement as the mass shapes,
docs/elements/shapes.md).  Visuals change no dynamics.

Defaults, when a body gives none (docs/viewer.md):

* a body built from mass shapes is drawn as those shapes;
* a body with distinct points — its joint points, the ends of its springs and distance
  constraints, and its centre of mass — spread over at least 5 % of the typical bar
  length (the median spread of the bodies' points) is drawn as bars (capsules of radius
  min(2 % of the model's size, 6 % of the body's spread)) between them: the farthest pair
  first, then each further point joined to the nearest point of a drawn bar (so a crank
  is a bar between its pins, a tensegrity strut a bar between its cable ends);
* a body whose points (nearly) coincide (a slider whose joints all sit at its centre of
  mass) is a block of 1.6 s × s × s, s = min(8 % of the model's size, ¼ of the typical
  bar length);
* a body with no joint at all is its inertia-equivalent box;
* beams are swept sections (their section's size) along the deformed centre line,
  springs coils, joints small glyphs, and ground a grid below the model.

The resolved visuals (:func:`resolve`) are plain JSON: per body a list of primitives
``{"type", "size" | "radius"/"length", "R" (3×3 rows, body frame, the primitive's axis
z), "p" (3,), "color"}``; they are stored in the results file (``/geometry/visuals``)
so that pictures of a stored run show what the model said.
"""
from __future__ import annotations

import json
from typing import Annotated, Literal, Optional, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, field_validator

from .bodies.shapes import Orientation, _orientation
from .errors import ModelError
from .rotations import rotation_matrix
from .spec import Axis, SpecBase, Vec3

#: named colours accepted besides "#rrggbb" and [r, g, b] in 0..1
COLOR_NAMES = {
    "red": "#d62728", "green": "#2ca02c", "blue": "#1f77b4", "orange": "#ff7f0e", "purple": "#9467bd",
    "brown": "#8c564b", "pink": "#e377c2", "grey": "#7f7f7f", "gray": "#7f7f7f", "olive": "#bcbd22",
    "cyan": "#17becf", "black": "#202020", "white": "#f0f0f0", "yellow": "#e5c100", "steel": "#8fa3b5",
}
#: colours given to bodies in turn when they have none
PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#eeca3b"]
BEAM_COLOR = "#6b7f94"
SPRING_COLOR = "#c0392b"
ROD_COLOR = "#555555"
JOINT_COLOR = "#222222"


def color_hex(v) -> str:
    """'#rrggbb' of a colour given as '#rrggbb', '#rgb', a name of :data:`COLOR_NAMES` or [r, g, b] in 0..1."""
    if isinstance(v, str):
        s = v.strip().lower()
        if s in COLOR_NAMES:
            return COLOR_NAMES[s]
        if s.startswith("#") and len(s) in (4, 7) and all(c in "0123456789abcdef" for c in s[1:]):
            return s if len(s) == 7 else "#" + "".join(c * 2 for c in s[1:])
        raise ValueError(f"colour {v!r}: give '#rrggbb', [r, g, b] in 0..1 or one of {', '.join(COLOR_NAMES)}")
    a = np.asarray(v, dtype=float)
    if a.shape != (3,) or not np.all((a >= 0) & (a <= 1)):
        raise ValueError(f"colour {v!r}: give '#rrggbb', [r, g, b] in 0..1 or a colour name")
    return "#" + "".join(f"{int(round(255 * x)):02x}" for x in a)


def _color(v):
    return None if v is None else color_hex(v)


Color = Annotated[Optional[str], BeforeValidator(_color)]


class _Visual(SpecBase):
    type: str = Field(description="the visual shape")
    offset: Vec3 = Field([0.0, 0.0, 0.0], description="centre of the shape in the body frame [m] (a mesh: its "
                                                       "own origin)")
    rotation: Annotated[Optional[Orientation], BeforeValidator(_orientation)] = Field(
        None, description="orientation of the shape's axes in the body frame (default: aligned)")
    color: Color = Field(None, description="'#rrggbb', [r, g, b] in 0..1 or a name (red, green, blue, orange, "
                                           "grey, steel, ...); default: the body's colour")

    def rotation_matrix(self) -> np.ndarray:
        return np.eye(3) if self.rotation is None else rotation_matrix(self.rotation.quaternion_value())


def _axis_frame(axis) -> np.ndarray:
    """A rotation whose third column is the unit vector ``axis``."""
    z = np.asarray(axis, float) / np.linalg.norm(axis)
    t = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(t, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


class VisualBox(_Visual):
    """A box a × b × c along its x, y, z axes, centred at ``offset``."""

    model_config = ConfigDict(title="Visual: box")
    type: Literal["box"] = Field(description="box")
    size: Annotated[list[Annotated[float, Field(gt=0)]], Field(min_length=3, max_length=3)] = Field(
        description="side lengths [a, b, c] [m]")


class VisualCylinder(_Visual):
    """A circular cylinder centred at ``offset``."""

    model_config = ConfigDict(title="Visual: cylinder")
    type: Literal["cylinder"] = Field(description="cylinder")
    radius: float = Field(gt=0, description="radius [m]")
    length: float = Field(gt=0, description="length along the axis [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis in the shape's axes (default z)")


class VisualCapsule(_Visual):
    """A cylinder with hemispherical ends (a bar); ``length`` between the two end centres."""

    model_config = ConfigDict(title="Visual: capsule")
    type: Literal["capsule"] = Field(description="capsule")
    radius: float = Field(gt=0, description="radius [m]")
    length: float = Field(ge=0, description="distance between the centres of the end caps [m]")
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis in the shape's axes (default z)")


class VisualSphere(_Visual):
    """A sphere centred at ``offset``."""

    model_config = ConfigDict(title="Visual: sphere")
    type: Literal["sphere"] = Field(description="sphere")
    radius: float = Field(gt=0, description="radius [m]")


class VisualMesh(_Visual):
    """A triangle mesh from a file (STL, OBJ, … through trimesh)."""

    model_config = ConfigDict(title="Visual: mesh")
    type: Literal["mesh"] = Field(description="mesh (needs the optional trimesh package: pip install flexmbd[shapes])")
    path: str = Field(description="mesh file (STL, OBJ, PLY, …), relative to the working directory")
    scale: float = Field(1.0, gt=0, description="factor from the file's units to metres (0.001 for mm)")


VisualShape = Annotated[Union[VisualBox, VisualCylinder, VisualCapsule, VisualSphere, VisualMesh],
                        Discriminator("type")]


def _one_or_list(v):
    if v is None or isinstance(v, list):
        return v
    return [v]


#: the ``visual`` key of a body: one visual shape or a list of them
BodyVisualField = Annotated[Optional[list[VisualShape]], BeforeValidator(_one_or_list)]


class BeamVisual(SpecBase):
    """How a beam is drawn: its section swept along the deformed centre line."""

    model_config = ConfigDict(title="Beam visual")
    color: Color = Field(None, description="'#rrggbb', [r, g, b] in 0..1 or a colour name")
    radius: Optional[float] = Field(None, gt=0, description="radius of the drawn tube [m] (default: from the "
                                                            "section's size)")

    @field_validator("radius")
    @classmethod
    def _finite(cls, v):
        return v


# ------------------------------------------------------------------ Python sugar
def Box(a, b, c, *, offset=(0, 0, 0), rotation=None, color=None) -> VisualBox:
    """A visual box a × b × c [m] centred at ``offset`` in the body frame."""
    return VisualBox(type="box", size=[a, b, c], offset=list(offset), rotation=rotation, color=color)


def Cylinder(radius, length, *, axis=(0, 0, 1), offset=(0, 0, 0), rotation=None, color=None) -> VisualCylinder:
    """A visual cylinder along ``axis`` centred at ``offset``."""
    return VisualCylinder(type="cylinder", radius=radius, length=length, axis=list(axis), offset=list(offset),
                          rotation=rotation, color=color)


def Capsule(radius, length, *, axis=(0, 0, 1), offset=(0, 0, 0), rotation=None, color=None) -> VisualCapsule:
    """A visual capsule (bar with round ends) along ``axis`` centred at ``offset``."""
    return VisualCapsule(type="capsule", radius=radius, length=length, axis=list(axis), offset=list(offset),
                         rotation=rotation, color=color)


def Sphere(radius, *, offset=(0, 0, 0), color=None) -> VisualSphere:
    """A visual sphere centred at ``offset``."""
    return VisualSphere(type="sphere", radius=radius, offset=list(offset), color=color)


def Mesh(path, *, scale=1.0, offset=(0, 0, 0), rotation=None, color=None) -> VisualMesh:
    """A visual triangle mesh from a file (needs trimesh: ``pip install flexmbd[shapes]``)."""
    return VisualMesh(type="mesh", path=str(path), scale=scale, offset=list(offset), rotation=rotation, color=color)


def Bar(p0, p1, radius, *, color=None) -> VisualCapsule:
    """A capsule from body-frame point ``p0`` to ``p1``."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    L = float(np.linalg.norm(d))
    return Capsule(radius, L, axis=tuple(d / L) if L > 0 else (0, 0, 1), offset=tuple(0.5 * (p0 + p1)),
                   color=color)


# ------------------------------------------------------------------ resolving
def _prim(kind, R, p, color, **dims) -> dict:
    return {"type": kind, "R": np.asarray(R, float).round(12).tolist(), "p": np.asarray(p, float).tolist(),
            "color": color, **dims}


def _load_mesh(v: VisualMesh):
    try:
        import trimesh
    except ImportError:
        raise ModelError(f"visual mesh {v.path!r}: reading meshes needs the optional package trimesh "
                         "(pip install flexmbd[shapes])", key="visual") from None
    try:
        mesh = trimesh.load(v.path, force="mesh")
    except Exception as exc:   # noqa: BLE001  (any reader failure is a bad input file)
        raise ModelError(f"visual mesh: cannot read {v.path!r}: {exc}", key="visual") from None
    return np.asarray(mesh.vertices, float) * v.scale, np.asarray(mesh.faces, np.int64)


def primitives(shapes, color: str, origin=None) -> list[dict]:
    """Resolved primitives of visual (or mass) shapes; ``origin``: the shape frame's origin
    in the body frame (bodies built from mass shapes; default 0)."""
    o = np.zeros(3) if origin is None else np.asarray(origin, float)
    out = []
    for s in shapes:
        R = s.rotation_matrix()
        p = o + np.asarray(s.offset, float)
        c = getattr(s, "color", None) or color
        t = s.type
        if t == "box":
            out.append(_prim("box", R, p, c, size=[float(x) for x in s.size]))
        elif t in ("cylinder", "capsule", "tube"):
            Ra = R @ _axis_frame(s.axis)
            r = float(getattr(s, "radius", None) or getattr(s, "outer_radius"))
            out.append(_prim("cylinder" if t == "tube" else t, Ra, p, c, radius=r, length=float(s.length)))
        elif t == "sphere":
            out.append(_prim("sphere", R, p, c, radius=float(s.radius)))
        elif t == "mesh":
            V, F = _load_mesh(s)
            out.append(_prim("mesh", R, p, c, vertices=V.round(9).ravel().tolist(), faces=F.ravel().tolist()))
    return out


def _beam_radius(spec, length_scale):
    vis = getattr(spec, "visual", None)
    if vis is not None and vis.radius is not None:
        return float(vis.radius)
    sec = getattr(spec, "section", None)
    for key, f in (("d", 0.5), ("d_outer", 0.5)):
        v = getattr(sec, key, None)
        if v:
            return f * float(v)
    w, h = getattr(sec, "width2", None), getattr(sec, "height3", None)
    if w and h:
        return 0.5 * float(np.sqrt(w * h))
    EA, EI2, EI3 = (getattr(sec, k, None) for k in ("EA", "EI2", "EI3"))
    if EA and EI2 and EI3:            # the radius of gyration: exact for a circle (I = A r²/4)
        return 2.0 * float(np.sqrt(np.sqrt(EI2 * EI3) / EA))
    return 0.01 * length_scale


def _swept_axis(spec, length_scale) -> dict:
    """How the axis lines of a body with a beam section (a modal beam) are drawn: the section
    swept along them, as a beam's — ``{"sweep": True, "radius", "color"}``, and
    ``"box": [width2, height3]`` for a rectangle section (a box along each segment, its sides
    along the frame's y and z axes) unless a ``radius`` is given."""
    vis = getattr(spec, "visual", None)
    out = {"sweep": True, "radius": _beam_radius(spec, length_scale),
           "color": vis.color if vis is not None and vis.color else BEAM_COLOR}
    sec = spec.section
    w, h = getattr(sec, "width2", None), getattr(sec, "height3", None)
    if w and h and (vis is None or vis.radius is None):
        out["box"] = [float(w), float(h)]
    return out


def _distinct(points, tol):
    out = []
    for p in points:
        if all(np.linalg.norm(p - q) > tol for q in out):
            out.append(p)
    return out


def _bars(points, radius, color):
    """Capsules joining the points: the farthest pair, then each point to its nearest drawn point."""
    P = np.array(points)
    d = np.linalg.norm(P[:, None] - P[None], axis=2)
    i, j = np.unravel_index(np.argmax(d), d.shape)
    drawn = [(P[i], P[j])]
    for k in range(len(P)):
        if k in (i, j):
            continue
        best, q = np.inf, None
        for a, b in drawn:           # the nearest point of a drawn bar
            ab = b - a
            t = np.clip((P[k] - a) @ ab / max(ab @ ab, 1e-300), 0, 1)
            c = a + t * ab
            if np.linalg.norm(P[k] - c) < best:
                best, q = np.linalg.norm(P[k] - c), c
        if best > 1.5 * radius:
            drawn.append((q, P[k]))
    return [Bar(a, b, radius, color=color) for a, b in drawn]


def resolve(system, geometry: dict) -> dict:
    """The visuals of every body and beam of a frozen system (module docstring), as JSON-ready dict:
    ``{"bodies": [[primitive, ...] per body], "beams": [{"name", "nodes", "radius", "color"}],
    "lines": [{"style": "coil" | "rod" | "beam" | "tube", "radius"}], "markers": [{"glyph", "axis"}],
    "scale": model size [m], "ground": {"normal", "level"}}``."""
    model = system.model
    nb = len(model.bodies)
    idx = {id(b): b.index for b in model.bodies}
    # --- the model's size: initial body positions and attachment points
    pts = [np.asarray(b.position, float) for b in model.bodies]
    pts += [np.asarray(p, float) for p in geometry["line_global"]] + [np.asarray(p, float) for p in geometry["marker_global"]]
    P = np.array(pts) if pts else np.zeros((1, 3))
    scale = float(np.linalg.norm(P.max(0) - P.min(0))) or 1.0
    # --- points of each body (local)
    local = [[np.zeros(3)] for _ in range(nb)]
    attached = [False] * nb
    for b, p in geometry["attachments"]:
        if b >= 0:
            local[b].append(np.asarray(p, float))
            attached[b] = True
    owned = set()
    beams = []
    for e in model.elements:
        if len(e.nodes) > 1:                       # beams: nodes drawn by the sweep
            owned.update(id(n) for n in e.nodes)
            vis = getattr(e.spec, "visual", None)
            beams.append({"name": e.name, "nodes": [idx[id(n)] for n in e.nodes],
                          "radius": _beam_radius(e.spec, scale),
                          "color": (vis.color if vis is not None and vis.color else BEAM_COLOR)})
    bodies = [[] for _ in range(nb)]
    pending = []                                # bodies drawn from their points: (index, colour, points, span)
    k = 0
    for e in model.elements:
        if len(e.nodes) != 1 or e.type.section != "bodies":
            continue
        b = e.nodes[0]
        i = idx[id(b)]
        color = PALETTE[k % len(PALETTE)]
        k += 1
        vis = None if b.kind.deformable else getattr(e.spec, "visual", None)   # a modal beam's: its axis lines
        user = getattr(model, "visuals", {}).get(b.name)
        if user is not None:
            vis = user
        if vis:
            bodies[i] = primitives(vis, color)
            continue
        if getattr(b, "shape", None):
            bodies[i] = primitives(b.shape, color, origin=getattr(b, "shape_origin", None))
            continue
        if b.kind.deformable:                     # modal beams: drawn by their axis lines
            continue
        ps = _distinct(local[i], 1e-9 * scale)
        span = max(np.linalg.norm(p - q) for p in ps for q in ps)
        pending.append((i, color, ps, span))
    # bars need the typical bar length (what counts as "one point", how big a block is)
    spans = [sp for _, _, _, sp in pending if sp > 1e-9 * scale]
    typical = float(np.median(spans)) if spans else scale
    for i, color, ps, span in pending:
        if span >= 0.05 * typical:
            radius = max(min(0.02 * scale, 0.06 * span), 1e-9)      # a long chain of short links: thin bars
            bodies[i] = primitives(_bars(_distinct(ps, 0.02 * span), radius, color), color)
        elif attached[i]:
            s = min(0.08 * scale, 0.25 * typical)
            bodies[i] = primitives([Box(1.6 * s, s, s, offset=tuple(np.mean(ps, axis=0)), color=color)], color)
        else:
            half, axes = geometry["box_half_extents"][i], geometry["box_axes"][i]
            bodies[i] = [_prim("box", axes, np.zeros(3), color, size=(2 * half).tolist())]
    for b in model.bodies:          # nodes of no element and not of a beam: small cubes
        i = idx[id(b)]
        if not bodies[i] and id(b) not in owned and not b.kind.deformable and not any(
                len(e.nodes) == 1 and e.nodes[0] is b for e in model.elements):
            bodies[i] = [_prim("box", np.eye(3), np.zeros(3), ROD_COLOR, size=[0.02 * scale] * 3)]
    # --- lines and markers
    lines = []
    by_name = {e.name: e for e in model.elements}
    owners = geometry.get("line_elements") or [None] * len(geometry["line_kinds"])
    for kind, section, owner in zip(geometry["line_kinds"], geometry["line_sections"], owners):
        style = {"forces": "coil", "beams": "beam", "bodies": "tube"}.get(section, "rod")
        line = {"style": style, "radius": min(0.015 * scale, 0.06 * typical) * (1 if style == "coil" else 0.4)}
        e = by_name.get(owner)
        if style == "tube" and e is not None and "visual" in type(e.spec).model_fields \
                and getattr(e.spec, "section", None) is not None:
            line.update(_swept_axis(e.spec, scale), body=idx[id(e.nodes[0])])
        lines.append(line)
    markers = []
    for kind, ax, grounded in zip(geometry["marker_kinds"], geometry["marker_axes"], geometry["marker_grounded"]):
        glyph = _GLYPHS.get(kind, "ball")
        if glyph == "rail" and not grounded:    # a guide is drawn fixed: only on ground
            glyph = "ball"
        markers.append({"glyph": glyph, "axis": ax})
    g = np.asarray(model.gravity, float)
    normal = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0, 0, 1.0])
    level = float(np.min(P @ normal)) - 0.1 * scale
    return {"bodies": bodies, "beams": beams, "lines": lines, "markers": markers, "scale": scale,
            "ground": {"normal": normal.tolist(), "level": level}, "joint_radius": min(0.025 * scale, 0.075 * typical)}


#: joint glyphs by element type (how a joint looks is presentation only)
_GLYPHS = {"revolute": "hinge", "cylindrical": "hinge", "prismatic": "rail", "point_on_line": "rail",
           "universal": "ball", "spherical": "ball", "fixed": "cube"}


def to_json(vis: dict) -> str:
    """The stored form of :func:`resolve`."""
    return json.dumps(vis, separators=(",", ":"))


# ------------------------------------------------------------------ triangle meshes
def unit_mesh(prim: dict, segments: int = 16):
    """(vertices (k, 3), triangles (t, 3)) of a resolved primitive in the body frame."""
    t = prim["type"]
    if t == "box":
        s = 0.5 * np.asarray(prim["size"], float)
        V = np.array([(x, y, z) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], float) * s
        F = np.array([(0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6), (0, 1, 4), (1, 5, 4), (2, 6, 3), (3, 6, 7),
                      (0, 4, 2), (2, 4, 6), (1, 3, 5), (3, 7, 5)])
    elif t in ("cylinder", "capsule"):
        r, L = prim["radius"], prim["length"]
        a = np.linspace(0, 2 * np.pi, segments, endpoint=False)
        ring = np.column_stack([r * np.cos(a), r * np.sin(a), np.zeros(segments)])
        if t == "cylinder":
            zs, rs = [-L / 2, L / 2], [1.0, 1.0]
        else:
            th = np.linspace(-np.pi / 2, np.pi / 2, 7)
            zs = list(-L / 2 + r * np.sin(th[:4])) + list(L / 2 + r * np.sin(th[3:]))
            rs = list(np.cos(th[:4])) + list(np.cos(th[3:]))
        V = np.concatenate([ring * [rr, rr, 1] + [0, 0, z] for z, rr in zip(zs, rs)] + [[[0, 0, zs[0]], [0, 0, zs[-1]]]])
        F = []
        n = segments
        for k in range(len(zs) - 1):
            for j in range(n):
                a0, a1 = k * n + j, k * n + (j + 1) % n
                F += [(a0, a1, a0 + n), (a1, a1 + n, a0 + n)]
        c0, c1 = len(V) - 2, len(V) - 1
        top = (len(zs) - 1) * n
        for j in range(n):
            F += [(c0, (j + 1) % n, j), (c1, top + j, top + (j + 1) % n)]
        F = np.array(F)
    elif t == "sphere":
        r = prim["radius"]
        th = np.linspace(0, np.pi, 9)[1:-1]
        a = np.linspace(0, 2 * np.pi, segments, endpoint=False)
        V = [[0, 0, r]] + [[r * np.sin(u) * np.cos(w), r * np.sin(u) * np.sin(w), r * np.cos(u)] for u in th for w in a] + [[0, 0, -r]]
        V = np.array(V)
        n, F = segments, []
        for j in range(n):
            F.append((0, 1 + j, 1 + (j + 1) % n))
        for k in range(len(th) - 1):
            for j in range(n):
                a0, a1 = 1 + k * n + j, 1 + k * n + (j + 1) % n
                F += [(a0, a0 + n, a1), (a1, a0 + n, a1 + n)]
        last = len(V) - 1
        for j in range(n):
            F.append((last, 1 + (len(th) - 1) * n + (j + 1) % n, 1 + (len(th) - 1) * n + j))
        F = np.array(F)
    elif t == "mesh":
        V = np.asarray(prim["vertices"], float).reshape(-1, 3)
        F = np.asarray(prim["faces"], np.int64).reshape(-1, 3)
    else:
        raise ValueError(f"unknown visual primitive {t!r}")
    R, p = np.asarray(prim["R"], float), np.asarray(prim["p"], float)
    return V @ R.T + p, F


def coil_points(n_turns: int = 8, per_turn: int = 12):
    """A unit helix along z from 0 to 1 with radius 1 (scaled per spring)."""
    s = np.linspace(0, 1, n_turns * per_turn + 1)
    a = 2 * np.pi * n_turns * s
    return np.column_stack([np.cos(a), np.sin(a), s])


__all__ = ["Box", "Cylinder", "Capsule", "Sphere", "Mesh", "Bar", "VisualBox", "VisualCylinder", "VisualCapsule",
           "VisualSphere", "VisualMesh", "VisualShape", "BeamVisual", "BodyVisualField", "color_hex", "resolve",
           "unit_mesh", "to_json"]
