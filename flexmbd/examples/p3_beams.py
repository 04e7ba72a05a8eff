"""P3's flexible mechanisms: the high-speed crank-slider (Models I, II) and the spatial
double pendulum (Models III, IV), built from geometrically exact beams.

Geometry (P3's figures are lost; the assumptions are flexmbd's, see docs/beams.md):
* crank-slider: crank from the origin along +X (0.3 m), connecting rod along +X from
  the crank tip, a rigid slider at the rod's end moving along X only; spherical joints
  at the origin and between the rods, a revolute joint (axis Z) between rod and slider;
  torque M_z on the crank's first node for 0.2 s; no gravity.
* double pendulum: arm I along +X from a spherical joint at the origin, arm II along +Y
  from a spherical joint at arm I's tip; gravity −Z; released from rest.

The deformation measure d/L (P3) is the distance of rod II's midpoint C from the chord
through rod II's ends, divided by rod II's length.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import flexmbd as fm

from ..beams.sections import Section

CRANK_SLIDER = {
    "I": dict(width=0.05, rho=2000.0, E=8.2e12, torque=900.0, h=1e-4, t_end=0.2,
              peak_speed=1033.0, max_dL=0.0004),
    "II": dict(width=0.03, rho=5600.0, E=4.1e11, torque=500.0, h=3e-5, t_end=0.2,
               peak_speed=518.0, max_dL=0.04),
}
PENDULUM = {
    "III": dict(width=0.5e-3, rho=2700.0, E=2.1e10, t_end=1.0, h=5e-4, max_dL=0.055),
    "IV": dict(width=0.3e-3, rho=2700.0, E=1.5e10, t_end=0.5, h=5e-4, max_dL=0.15),
}
NU = 0.3


@dataclass
class P3Model:
    model: fm.Model
    rods: tuple          # (rod I, rod II) beam handles
    name: str
    params: dict

    @property
    def dofs(self):
        """P3's DOF count: the beams' unknowns (6 per SE(3) node, 12 per ANCF node; rigid
        bodies not counted)."""
        return sum(b.dofs for b in self.rods)


def crank_slider(which="I", elements=(4, 6), formulation="se3", integration=None, slider_mass=0.1, order=1,
                 interpolation="lagrange", section=None):
    """P3's crank-slider Model I or II with ``elements`` = (crank, rod) element counts
    (``section``: another section than P3's square, e.g. a shear-rigid one)."""
    p = CRANK_SLIDER[which]
    sec = section if section is not None else Section.rectangle(p["width"], p["width"], E=p["E"], nu=NU, rho=p["rho"])
    m = fm.Model(name=f"p3-crank-slider-{which}")
    kw = dict(section=sec, formulation=formulation, integration=integration, order=order, interpolation=interpolation)
    crank = m.beam("crank", elements=elements[0], start=(0, 0, 0), end=(0.3, 0, 0), **kw)
    rod = m.beam("rod", elements=elements[1], start=(0.3, 0, 0), end=(0.8, 0, 0), **kw)
    # a small cube of the given mass (its size does not enter P3's data)
    slider = m.rigid_body("slider", mass=slider_mass, inertia=np.full(3, slider_mass * 0.02**2 / 6),
                          position=(0.8, 0, 0), parameterization="ancf" if formulation == "ancf" else "se3")
    m.spherical(fm.GROUND, crank.first, at=(0, 0, 0), name="bearing")
    m.spherical(crank.last, rod.first, at=(0.3, 0, 0), name="crank_pin")
    m.revolute(rod.last, slider, at=(0.8, 0, 0), axis=(0, 0, 1), name="wrist_pin")
    m.prismatic(fm.GROUND, slider, at=(0.8, 0, 0), axis=(1, 0, 0), name="guide")
    m.torque(crank.first, (0, 0, p["torque"]), name="drive")
    return P3Model(m, (crank, rod), f"crank-slider {which}", p)


def double_pendulum(which="III", elements=(4, 6), formulation="se3", integration=None, order=1,
                    interpolation="lagrange"):
    """P3's spatial double pendulum Model III or IV (``formulation`` "se3" or "r3r3")."""
    p = PENDULUM[which]
    sec = Section.rectangle(p["width"], p["width"], E=p["E"], nu=NU, rho=p["rho"])
    m = fm.Model(gravity=(0, 0, -9.81), name=f"p3-double-pendulum-{which}")
    kw = dict(section=sec, formulation=formulation, integration=integration, order=order, interpolation=interpolation)
    arm1 = m.beam("arm1", elements=elements[0], start=(0, 0, 0), end=(0.3, 0, 0), **kw)
    arm2 = m.beam("arm2", elements=elements[1], start=(0.3, 0, 0), end=(0.3, 0.5, 0), **kw)
    m.spherical(fm.GROUND, arm1.first, at=(0, 0, 0), name="pivot")
    m.spherical(arm1.last, arm2.first, at=(0.3, 0, 0), name="elbow")
    return P3Model(m, (arm1, arm2), f"double pendulum {which}", p)


def deformation_measure(res, rod):
    """d/L of a beam over time: distance of its midpoint (interpolated on the beam's axis)
    from the chord through its ends, over its length."""
    a = res[f"{rod.first.name}.position"]
    b = res[f"{rod.last.name}.position"]
    c = rod.positions(res, 0.5 * rod.length)
    chord = b - a
    u = chord / np.linalg.norm(chord, axis=1, keepdims=True)
    r = c - a
    dist = np.linalg.norm(r - np.sum(r * u, axis=1, keepdims=True) * u, axis=1)
    return dist / rod.length


def crank_speed(res, crank):
    """Angular speed (rad/s) of the crank's chord (first node to tip) about Z: the rigid
    rotation of the flexible crank, free of its nodes' local vibration."""
    x = res[f"{crank.last.name}.position"] - res[f"{crank.first.name}.position"]
    v = res[f"{crank.last.name}.velocity"] - res[f"{crank.first.name}.velocity"]
    return np.abs(x[:, 0] * v[:, 1] - x[:, 1] * v[:, 0]) / (x[:, 0] ** 2 + x[:, 1] ** 2)
