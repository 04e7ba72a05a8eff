"""Gears, belts and rack-and-pinion (gear): a ratio between the free motions of two joints.

A wheel b (J_b) driven by a torque T meshes with a wheel a (J_a), m_a = r m_b: with one
degree of freedom θ_b'' = T / (J_b + r² J_a), the tooth load on a is J_a θ_a'' = −λ and the
kinetic energy grows by the torque's work.  The ratio holds to the Newton tolerance over
several turns (turn counting of the relative angles); a rack on a pinion likewise.
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.errors import ModelError
from flexmbd.io.model_file import load_model_text

JA, JB, RATIO, T, W0 = 0.02, 0.05, -2.0, 0.3, 3.0


def gear_pair(planar=False):
    m = fm.Model()
    if planar:
        a = m.planar_body("a", mass=1.0, inertia=JA, angular_velocity=RATIO * W0)
        b = m.planar_body("b", mass=2.0, inertia=JB, position=(0.3, 0), angular_velocity=W0)
        pa = m.revolute("ground", a, at=(0, 0), name="pa")
        pb = m.revolute("ground", b, at=(0.3, 0), name="pb")
    else:
        a = m.rigid_body("a", mass=1.0, inertia=(0.01, 0.01, JA), angular_velocity=(0, 0, RATIO * W0))
        b = m.rigid_body("b", mass=2.0, inertia=(0.03, 0.03, JB), position=(0.3, 0, 0), angular_velocity=(0, 0, W0))
        pa = m.revolute("ground", a, at=(0, 0, 0), axis=(0, 0, 1), name="pa")
        pb = m.revolute("ground", b, at=(0.3, 0, 0), axis=(0, 0, 1), name="pb")
    m.gear(joint_a=pa, joint_b=pb, ratio=RATIO, name="mesh")
    m.torque(b, (0, 0, T), name="drive")
    return m


@pytest.mark.parametrize("planar", [False, True])
def test_gear_pair_keeps_the_ratio_and_balances_energy(planar):
    res = gear_pair(planar).simulate(t_end=2.0, h=2e-3, tol=1e-10)      # trapezoidal rule (default)
    assert res.success
    t = res.t
    alpha = T / (JB + RATIO**2 * JA)
    mb, ma = res["mesh.motion_b"], res["mesh.motion_a"]
    assert mb[-1] > 3 * np.pi and ma[-1] < -6 * np.pi           # turns of both wheels
    # planar bodies: exact for constant acceleration; Euler parameters: O(h²) of the rotation
    np.testing.assert_allclose(mb, W0 * t + 0.5 * alpha * t**2, atol=1e-6 if planar else 1e-3)
    assert np.max(np.abs(res["mesh.ratio_error"])) < 1e-9
    np.testing.assert_allclose(ma, RATIO * mb, atol=1e-9)
    # the tooth load on a: J_a θ_a'' (and r times the reaction on b)
    # (Euler parameters: first order in h, relative error 0.020 at h = 2e-3 and 0.0098 at 1e-3 measured)
    h = 2e-3
    rel = 1e-6 if planar else 12.0 * h
    np.testing.assert_allclose(res["mesh.load_a"], JA * RATIO * alpha, rtol=rel)
    np.testing.assert_allclose(res["mesh.load_b"], JB * alpha - T, rtol=rel)      # J_b θ_b'' = T + load_b
    # kinetic energy = initial + work of the torque
    ke = res["energy.kinetic"]
    np.testing.assert_allclose(ke - ke[0], T * (mb - mb[0]), atol=(1e-8 if planar else 100 * h**2) * ke[-1])


def test_rack_and_pinion():
    """A rack (prismatic, mass m) pushed by F meshes with a pinion of pitch radius R (J):
    s = R θ, θ'' = R F / (J + R² m)."""
    J, mass, R, F = 0.01, 0.5, 0.05, 2.0
    m = fm.Model()
    pinion = m.planar_body("pinion", mass=0.3, inertia=J)
    rack = m.planar_body("rack", mass=mass, inertia=0.02, position=(0, -R))
    pin = m.revolute("ground", pinion, at=(0, 0), name="pin")
    slide = m.prismatic("ground", rack, at=(0, -R), axis=(1, 0, 0), name="slide")
    m.gear(joint_a=slide, joint_b=pin, ratio=R, name="rp")
    m.force(rack, (F, 0, 0), name="push")
    res = m.simulate(t_end=1.5, h=1e-3, tol=1e-10)
    alpha = R * F / (J + R**2 * mass)
    t = res.t
    np.testing.assert_allclose(res["rp.motion_b"], 0.5 * alpha * t**2, atol=1e-9)
    np.testing.assert_allclose(res["rack.position"][:, 0], R * 0.5 * alpha * t**2, atol=1e-9)
    assert res["rp.motion_b"][-1] > 2 * np.pi                   # the pinion turns more than once
    assert np.max(np.abs(res["rp.ratio_error"])) < 1e-10
    np.testing.assert_allclose(res["rp.load_b"], J * alpha, rtol=1e-6)           # torque on the pinion
    np.testing.assert_allclose(res["rp.load_a"], mass * R * alpha - F, rtol=1e-6)  # force on the rack


GEAR_FILE = """
format: 1
name: gears
bodies:
  - {name: a, mass: 1.0, inertia: [0.01, 0.01, 0.02], angular_velocity: [0, 0, -6.0]}
  - {name: b, mass: 2.0, inertia: [0.03, 0.03, 0.05], position: [0.3, 0, 0], angular_velocity: [0, 0, 3.0]}
joints:
  - {type: revolute, name: pa, body_i: ground, body_j: a, at: [0, 0, 0], axis: [0, 0, 1]}
  - {type: revolute, name: pb, body_i: ground, body_j: b, at: [0.3, 0, 0], axis: [0, 0, 1]}
  - {type: gear, name: mesh, joint_a: pa, joint_b: pb, ratio: -2.0}
forces:
  - {type: torque, name: drive, body: b, torque: [0, 0, 0.3]}
solver: {t_end: 0.5, h: 0.002}
"""


def test_model_file_and_python_give_the_same_run():
    loaded = load_model_text(GEAR_FILE, "gears.yaml")
    res_file = loaded.model.simulate(t_end=0.5, h=2e-3)
    res_py = gear_pair().simulate(t_end=0.5, h=2e-3)
    for name in ("mesh.load_a", "mesh.motion_a", "mesh.motion_b", "b.angular_velocity"):
        np.testing.assert_array_equal(res_file[name], res_py[name])


@pytest.mark.parametrize("keys, match", [
    (dict(joint_a="pa", joint_b="pa", ratio=1.0), "same joint"),
    (dict(joint_a="pa", joint_b="pb", ratio=0.0), "not zero"),
    (dict(joint_a="pa", joint_b="ball", ratio=1.0), "revolute, prismatic"),
    (dict(joint_a="pa", joint_b="nope", ratio=1.0), "no joint named"),
])
def test_bad_gears_are_refused_naming_the_key(keys, match):
    m = gear_pair()
    c = m.rigid_body("c", mass=1.0, inertia=(1, 1, 1))
    m.spherical("ground", c, at=(0, 0, 0), name="ball")
    with pytest.raises(ModelError, match=match):
        m.gear(name="bad", **keys)
