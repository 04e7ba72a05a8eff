"""Geometrically exact beams on SE(3): P3's static tests and the roll-up.

P3 (Tang, Zhang, Liu & Liu 2021) reports ABAQUS B31 tip z-displacements of 0.5143 m
(straight cantilever) and 0.6138 m (quarter circle), and the analytic tip rotation −π/2
under the pure bending moment −π EI/(2L); see docs/beams.md for the tables.
"""
from __future__ import annotations

import warnings

import numpy as np

import flexmbd as fm

from ...beams.geometry import CircularArc
from ...beams.sections import Section
from ...lie import quat_to_rotvec
from ..registry import case, compare

SECTION = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3)
ABAQUS = {"straight": 0.5143, "curved": 0.6138}
FORCE = {"straight": (30.0, 20.0, 400.0), "curved": (30.0, 20.0, 100.0)}
#: clamped at (0, 1, 0), tip at (1, 0, 0) (P3's figure is lost; this orientation matches its value)
QUARTER = CircularArc((0.0, 0.0, 0.0), 1.0, np.pi / 2, 0.0)
#: the variants of P3's tables: (label, Model.beam options, elements)
VARIANTS = (
    ("SE(3) 1st order", dict(order=1), 32),
    ("SE(3) 3rd-order Lagrange", dict(order=3), 8),
    ("SE(3) cubic NURBS", dict(order=3, interpolation="nurbs"), 8),
)
SOURCE = "P3, ABAQUS B31 (4 digits)"


def cantilever(shape, elements, force=None, **beam):
    """P3's cantilever ("straight" or "curved") with its tip force, clamped at the first node."""
    m = fm.Model(name=f"p3-{shape}-cantilever")
    if shape == "straight":
        b = m.beam("rod", section=SECTION, elements=elements, start=(0, 0, 0), end=(1, 0, 0), **beam)
    else:
        b = m.beam("rod", section=SECTION, elements=elements, geometry=QUARTER, **beam)
    m.fixed(fm.GROUND, b.first, name="clamp")
    m.force(b.last, FORCE[shape] if force is None else force, at=b.last.position, name="tip_force")
    return m, b


def solve(m, steps=10, tol=1e-10):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # trial iterates of cut load steps
        return m.static_equilibrium(load_steps=steps, convergence="increment", tol=tol)


def tip_displacement(res, b):
    return res[f"{b.name}.n{len(b.nodes) - 1}.position"][-1] - b.last.position


def _cantilever_case(shape):
    name = f"p3-{shape}-cantilever"
    out = []
    for label, opts, n in VARIANTS:
        m, b = cantilever(shape, n, **opts)
        res = solve(m)
        z = tip_displacement(res, b)[2] if res.success else np.nan
        out.append(compare(name, f"tip z, {label}, {b.dofs} DOF", ABAQUS[shape], z, unit="m", tolerance=1e-3,
                           source=SOURCE))
    return out


@case("p3-straight-cantilever", description="straight cantilever, tip force (30, 20, 400) N, 10 load steps: tip z "
      "vs ABAQUS B31 0.5143 m, SE(3) beams of 1st and 3rd order and NURBS")
def straight_cantilever():
    return _cantilever_case("straight")


@case("p3-curved-cantilever", description="quarter-circle cantilever, tip force (30, 20, 100) N: tip z vs ABAQUS "
      "B31 0.6138 m, SE(3) beams of 1st and 3rd order and NURBS")
def curved_cantilever():
    return _cantilever_case("curved")


@case("p3-pure-bending", description="tip moment −π EI/(2L) on the straight cantilever: tip rotation −π/2 with one "
      "first-order SE(3) element")
def pure_bending():
    m, b = cantilever("straight", 1, force=(0, 0, 0))
    m.torque(b.last, (0, 0, -np.pi * SECTION.EI3 / 2), body_fixed=True)
    res = solve(m, tol=1e-12)
    theta = quat_to_rotvec(res["rod.n1.orientation"][-1])[2] if res.success else np.nan
    return [compare("p3-pure-bending", "tip rotation θz, 1 element", -np.pi / 2, theta, unit="rad", tolerance=1e-8,
                    source="P3: analytic −π/2", mode="abs")]


@case("beam-roll-up", description="end moment 2π EI/L rolls the straight cantilever into a circle (8 first-order "
      "SE(3) elements, 20 load steps)")
def roll_up():
    m, b = cantilever("straight", 8, force=(0, 0, 0))
    m.torque(b.last, (0, 0, 2 * np.pi * SECTION.EI3), body_fixed=True)
    res = solve(m, steps=20, tol=1e-12)
    gap = float(np.linalg.norm(res["rod.n8.position"][-1])) if res.success else np.nan
    mid = res["rod.n4.position"][-1] if res.success else np.full(3, np.nan)
    return [compare("beam-roll-up", "|tip − clamp| after the full roll-up", 0.0, gap, unit="m", tolerance=1e-10,
                    source="analytic: a circle of circumference L", mode="abs"),
            compare("beam-roll-up", "midpoint y (circle diameter L/π)", 1 / np.pi, mid[1], unit="m", tolerance=1e-10,
                    source="analytic", mode="abs")]
