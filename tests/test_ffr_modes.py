"""Linearised eigenvalue analysis (flexmbd/solvers/modes.py) against closed forms:
a compound pendulum, a damped spring-mass chain and the modal beam's exact frequencies
(clamped by a fixed joint, and free-free floating with its six rigid-body modes)."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams.sections import Section
from flexmbd.cli import main
from flexmbd.ground import GROUND
from flexmbd.nodes.beam_modes import bending_roots
from flexmbd.solvers.modes import linear_modes

STEEL = dict(E=2.1e11, nu=0.3, rho=7850.0)


def test_compound_pendulum_hanging():
    """A rod (Euler parameters, normalisation and revolute constraints) hanging at rest:
    one mode, ω² = m g (l/2)/(m l²/3) = 3g/(2l); the restoring stiffness comes from the
    joint's multipliers through ∂(Φ_qᵀ λ)/∂q."""
    l, g = 0.8, 9.81
    m = fm.Model(gravity=(0, -g, 0))
    rod = m.rigid_body("rod", mass=2.0, inertia=(1e-4, 2.0 * l ** 2 / 12, 2.0 * l ** 2 / 12),
                       position=(0, -l / 2, 0), orientation=fm.quaternion_from_axis_angle((0, 0, 1), -np.pi / 2))
    m.revolute(GROUND, rod, at=(0, 0, 0), axis=(0, 0, 1), name="pin")
    modes = linear_modes(m)
    assert modes.dof == 1
    np.testing.assert_allclose(modes.omega, [np.sqrt(3 * g / (2 * l))], rtol=1e-10)
    assert modes.damping[0] == 0.0


def chain(n, k, c, mass):
    m = fm.Model(gravity=(0, 0, 0))
    prev = GROUND
    for i in range(n):
        b = m.rigid_body(f"m{i}", mass=mass, inertia=(0.1, 0.1, 0.1), position=(i + 1.0, 0, 0))
        m.prismatic(GROUND, b, at=(i + 1.0, 0, 0), axis=(1, 0, 0), name=f"slide{i}")
        m.spring_damper(prev, b, at_i=(float(i), 0, 0), at_j=(i + 1.0, 0, 0), k=k, c=c, name=f"s{i}")
        prev = b
    return m


@pytest.mark.parametrize("c", [0.0, 3.0])
def test_spring_mass_chain(c):
    """n equal masses on n equal springs (fixed-free): ω_j = 2 √(k/m) sin((2j−1)π/(2(2n+1)));
    dampers c on the springs (C = (c/k) K): ζ_j = c ω_j/(2k)."""
    n, k, mass = 4, 400.0, 2.0
    modes = linear_modes(chain(n, k, c, mass))
    j = np.arange(1, n + 1)
    omega = 2 * np.sqrt(k / mass) * np.sin((2 * j - 1) * np.pi / (2 * (2 * n + 1)))
    assert modes.dof == n
    np.testing.assert_allclose(modes.omega, omega, rtol=1e-10)
    np.testing.assert_allclose(modes.damping, c * omega / (2 * k), rtol=1e-9, atol=1e-14)
    # the first mode: all masses move the same way, the last one most
    x = modes.shapes[[modes.names.index(f"m{i}.x") for i in range(n)], 0]
    assert np.all(x > 0) and np.all(np.diff(x) > 0)


def test_modal_beam_clamped_and_free_frequencies():
    """The modal beam's frequencies from the assembled system: clamped by a fixed joint,
    every direction at its exact value; floating free-free, six zero (rigid-body) modes and
    then the exact elastic ones (β L = 4.730, 7.853; axial and torsion iπ/L)."""
    sec = Section.rectangle(0.02, 0.01, **STEEL)
    L, E, rho = 1.0, STEEL["E"], STEEL["rho"]
    m = fm.Model(gravity=(0, 0, 0))
    b = m.modal_beam(name="b", length=L, section=sec, ends="clamped-free", rotary_inertia=False,
                     modes=dict(axial=2, bending_y=3, bending_z=2, torsion=1))
    m.fixed(GROUND, b, at=(0, 0, 0), name="clamp")
    modes = linear_modes(m)
    cf = bending_roots("clamped-free", 3)
    expect = np.sort(np.r_[np.array([1, 3]) * np.pi / (2 * L) * np.sqrt(E / rho),
                           cf ** 2 / L ** 2 * np.sqrt(sec.EI3 / sec.rhoA), cf[:2] ** 2 / L ** 2 * np.sqrt(sec.EI2 / sec.rhoA),
                           np.pi / (2 * L) * np.sqrt(sec.GJ / (sec.rhoI2 + sec.rhoI3))])
    assert modes.dof == 8
    np.testing.assert_allclose(modes.omega, expect, rtol=1e-9)

    free = fm.Model(gravity=(0, 0, 0))
    free.modal_beam(name="f", length=L, section=sec, ends="free-free", frame="center", rotary_inertia=False,
                    modes=dict(axial=1, bending_y=2, bending_z=1, torsion=1),
                    orientation=fm.quaternion_from_axis_angle((1, 1, 0), 0.3))
    fm_ = linear_modes(free)
    ff = bending_roots("free-free", 2)
    elastic = np.sort(np.r_[np.pi / L * np.sqrt(E / rho), ff ** 2 / L ** 2 * np.sqrt(sec.EI3 / sec.rhoA),
                            ff[:1] ** 2 / L ** 2 * np.sqrt(sec.EI2 / sec.rhoA),
                            np.pi / L * np.sqrt(sec.GJ / (sec.rhoI2 + sec.rhoI3))])
    assert fm_.dof == 11
    assert np.all(fm_.omega[:6] < 1e-6 * elastic[0])
    np.testing.assert_allclose(fm_.omega[6:], elastic, rtol=1e-9)
    # the same beam with P4's 3-1-3 Euler angles (no normalisation constraint): the same modes
    e313 = fm.Model(gravity=(0, 0, 0))
    e313.modal_beam(name="f", length=L, section=sec, ends="free-free", frame="center", rotary_inertia=False,
                    modes=dict(axial=1, bending_y=2, bending_z=1, torsion=1), attitude="euler-313",
                    orientation=fm.quaternion_from_axis_angle((1, 1, 0), 0.3))
    m313 = linear_modes(e313)
    assert m313.dof == 11 and np.all(m313.omega[:6] < 1e-6 * elastic[0])
    np.testing.assert_allclose(m313.omega[6:], elastic, rtol=1e-9)


def test_modes_command(tmp_path, capsys):
    text = """
format: 1
name: chain
gravity: [0, 0, 0]
bodies:
  - {name: a, mass: 2.0, inertia: [0.1, 0.1, 0.1], position: [1, 0, 0]}
joints:
  - {type: prismatic, body_i: ground, body_j: a, at: [1, 0, 0], axis: [1, 0, 0]}
forces:
  - {type: spring_damper, body_i: ground, body_j: a, at_i: [0, 0, 0], at_j: [1, 0, 0], k: 800.0}
solver: {t_end: 1.0, h: 0.01}
"""
    path = tmp_path / "one.yaml"
    path.write_text(text)
    assert main(["modes", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 degrees of freedom" in out and f"{20.0 / (2 * np.pi):.6g}" in out and "a.x +1.00" in out
    assert main(["modes", str(tmp_path / "missing.yaml")]) == 2
    assert "flexmbd modes: error" in capsys.readouterr().err


def test_beam_fixed_to_a_rigid_base_has_the_clamped_frequencies():
    """A modal beam welded (fixed joint across kinds) to a rigid block that is welded to
    ground: the clamped frequencies again, now through the mixed joint's Jacobian and
    multiplier Hessian."""
    sec = Section.rectangle(0.02, 0.01, **STEEL)
    m = fm.Model(gravity=(0, 0, 0))
    q0 = fm.quaternion_from_axis_angle((0, 1, 1), 0.5)
    b = m.modal_beam(name="b", length=1.0, section=sec, ends="clamped-free", rotary_inertia=False, orientation=q0,
                     position=(0.2, 0.1, 0.0), modes=dict(bending_y=2, bending_z=2, torsion=1))
    base = m.rigid_body("base", mass=3.0, inertia=(0.1, 0.2, 0.3), position=(0.0, 0.0, 0.0))
    m.fixed(GROUND, base, at=(0, 0, 0), name="ground_weld")
    m.fixed(base, b, at=(0.2, 0.1, 0.0), name="weld")
    modes = linear_modes(m)
    cf = bending_roots("clamped-free", 2)
    expect = np.sort(np.r_[cf ** 2 * np.sqrt(sec.EI3 / sec.rhoA), cf ** 2 * np.sqrt(sec.EI2 / sec.rhoA),
                           np.pi / 2 * np.sqrt(sec.GJ / (sec.rhoI2 + sec.rhoI3))])
    assert modes.dof == 5
    np.testing.assert_allclose(modes.omega, expect, rtol=1e-9)
