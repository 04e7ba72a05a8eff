"""The fully parameterized ANCF beam (formulation="ancf") on P3's static tests.

Straight cantilever against ABAQUS B31 (P3) and flexmbd's converged SE(3) value; the
quarter circle against the SE(3) beam with the ANCF element's warping-free torsional
stiffness G I_p (linear interpolation across the section cannot warp, so it twists with
the polar moment I_p = h⁴/6 of the square instead of Saint-Venant's J = 0.843 I_p; this
is why it ends 4 % short of ABAQUS); pure bending with the strain split and the plain
form (Poisson locking).  Numbers and discussion: docs/elements/beam-ancf.md.
"""
from __future__ import annotations

import numpy as np

import flexmbd as fm

from ...beams.sections import Section
from ..registry import case, compare
from .beams import ABAQUS, FORCE, QUARTER, SECTION, SOURCE, cantilever, solve, tip_displacement

#: flexmbd's SE(3) values converged in the number of elements (docs/verification-beams.md)
SE3_CONVERGED = {"straight": 0.51426, "curved": 0.61426}


def _tip_z(shape, n, **beam):
    m, b = cantilever(shape, n, formulation="ancf", **beam)
    res = solve(m)
    return tip_displacement(res, b)[2] if res.success else np.nan


@case("p3-ancf-straight-cantilever", description="straight cantilever with 64 fully parameterized ANCF elements "
      "(780 DOF): tip z vs ABAQUS and SE(3); the plain form locks")
def ancf_straight():
    name = "p3-ancf-straight-cantilever"
    z = _tip_z("straight", 64)
    z_plain = _tip_z("straight", 64, locking="plain")
    return [compare(name, "tip z, strain split, 780 DOF", ABAQUS["straight"], z, unit="m", tolerance=1e-3,
                    source=SOURCE),
            compare(name, "tip z, strain split, 780 DOF", SE3_CONVERGED["straight"], z, unit="m", tolerance=1e-3,
                    source="flexmbd SE(3), converged"),
            compare(name, "tip z, plain form (Poisson locking), 780 DOF", 0.9 * SE3_CONVERGED["straight"], z_plain,
                    unit="m", tolerance=0.0, source="locks: below 90 % of the converged value", mode="max")]


def warping_free_tip_z(elements: int = 64) -> float:
    """Tip z of P3's quarter-circle cantilever of first-order SE(3) elements whose section
    twists with the polar moment, GJ = G h⁴/6 (no warping, as the fully parameterized ANCF
    element's linear interpolation across the section): the reference of that element."""
    E, nu, h = 2.1e11, 0.3, 0.01
    warping_free = Section.user(EA=SECTION.EA, GA2=SECTION.GA2, GA3=SECTION.GA3, GJ=E / (2 * (1 + nu)) * h ** 4 / 6,
                                EI2=SECTION.EI2, EI3=SECTION.EI3)
    m = fm.Model()
    b = m.beam("rod", section=warping_free, elements=elements, geometry=QUARTER)
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, FORCE["curved"], at=b.last.position)
    res = solve(m)
    return float(tip_displacement(res, b)[2]) if res.success else np.nan


@case("p3-ancf-curved-cantilever", description="quarter-circle cantilever with 64 fully parameterized ANCF elements: "
      "tip z vs the SE(3) beam with the warping-free torsional stiffness G I_p")
def ancf_curved():
    name = "p3-ancf-curved-cantilever"
    z = _tip_z("curved", 64)
    z_ref = warping_free_tip_z(64)
    return [compare(name, "tip z, strain split, 780 DOF", z_ref, z, unit="m", tolerance=1e-3,
                    source="flexmbd SE(3), 64 elements, GJ = G h⁴/6 (no warping)")]


@case("p3-ancf-pure-bending", description="tip moment −π EI/(2L) on 32 ANCF elements: the quarter circle with the "
      "strain split, Poisson locking with the plain form")
def ancf_pure_bending():
    name = "p3-ancf-pure-bending"
    out = []
    for locking in ("strain-split", "plain"):
        m, b = cantilever("straight", 32, force=(0, 0, 0), formulation="ancf", locking=locking)
        m.torque(b.last, (0, 0, -np.pi * SECTION.EI3 / 2), body_fixed=True)
        res = solve(m)
        if res.success:
            q = res.q[-1, res.system.config_slice(b.last)]
            angle = np.arctan2(q[7], q[6]) - np.pi / 2          # the section axis r_y turned about z
            gap = float(np.linalg.norm(q[:3] - [2 / np.pi, -2 / np.pi, 0.0]))
        else:
            angle = gap = np.nan
        if locking == "strain-split":
            out += [compare(name, "tip section rotation θz, strain split", -np.pi / 2, angle, unit="rad",
                            tolerance=5e-3, source="P3: analytic −π/2"),
                    compare(name, "|tip − (2/π, −2/π, 0) L|, strain split", 0.0, gap, unit="m", tolerance=1e-3,
                            source="analytic quarter circle", mode="abs")]
        else:
            out.append(compare(name, "tip section rotation / (−π/2), plain form (locks)", 0.8, angle / (-np.pi / 2),
                               tolerance=0.0, source="locks: below 0.8 (bending stiffness (λ + 2μ) I)", mode="max"))
    return out
