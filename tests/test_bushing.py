"""The bushing (flexmbd/forces/bushing.py) against closed forms, in model files, outputs and
pictures.  Its derivatives are in the generic test (tests/test_jacobians.py, through its
declared sample) on every node kind."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.io.model_file import dump_yaml, load_model_text, model_to_dict

G = 9.81


def tilt(angle=0.6, axis=(1.0, 2.0, 2.0)):
    """A rotation matrix: the bushing's axes (columns), tilted away from the global ones."""
    from flexmbd.lie import so3_exp

    a = np.asarray(axis, float)
    return so3_exp(angle * a / np.linalg.norm(a))


def test_static_deflection_of_a_cubic_bushing_under_gravity():
    """A block hangs from ground on a bushing, axis 3 vertical: k δ + k₃ δ³ = m g."""
    m_, k, k3 = 3.0, 2e3, 4e6
    m = fm.Model(gravity=(0, 0, -G))
    b = m.rigid_body("block", mass=m_, inertia=(0.1, 0.1, 0.1))
    m.bushing(fm.GROUND, b, at=(0, 0, 0), stiffness=(1e3, 1e3, k), cubic_stiffness=(0, 0, k3),
              rotational_stiffness=(50, 50, 50), name="mount")
    res = m.static_equilibrium(load_steps=4, tol=1e-10)
    assert res.success
    roots = np.roots([k3, 0.0, k, -m_ * G])
    delta = float(roots[np.abs(roots.imag) < 1e-12].real.max())
    assert res["block.position"][-1] == pytest.approx([0.0, 0.0, -delta], abs=1e-12)
    assert res["mount.deflection"][-1, 2] == pytest.approx(-delta, rel=1e-12)
    assert res["mount.force"][-1, 2] == pytest.approx(-m_ * G, rel=1e-10)   # it holds the weight


def test_static_twist_about_a_tilted_axis():
    """A torque T about bushing axis 3 (tilted): the rotation measure is sin φ, V = ½ k sin²φ,
    so the equilibrium is k sin φ cos φ = T: φ = ½ asin(2T/k), about that axis only."""
    k, T = 40.0, 15.0
    R0 = tilt()
    n = R0[:, 2]
    m = fm.Model()
    b = m.rigid_body("rotor", mass=1.0, inertia=(0.2, 0.3, 0.4))
    m.bushing(fm.GROUND, b, at=(0, 0, 0), axes=R0, stiffness=(1e4, 1e4, 1e4), rotational_stiffness=(80, 60, k))
    m.torque(b, tuple(T * n))
    res = m.static_equilibrium(load_steps=5, tol=1e-11)
    assert res.success
    phi = 0.5 * np.arcsin(2 * T / k)
    expected = np.r_[np.cos(phi / 2), np.sin(phi / 2) * n]
    assert res["rotor.orientation"][-1] == pytest.approx(expected, abs=1e-10)
    assert res["rotor.position"][-1] == pytest.approx([0, 0, 0], abs=1e-12)


def test_oscillation_along_an_axis_converges_to_the_closed_form_at_second_order():
    """m ẍ = −k x along bushing axis 1 (tilted): x = v₀/ω sin ωt, ω = √(k/m).  The
    trapezoidal rule's frequency is ω (1 − (ωh)²/12 + …), so after ωT radians the error is
    about (v₀/ω) ωT (ωh)²/12: 4× smaller per halving of h."""
    m_, k, v0 = 2.0, 800.0, 0.3
    w = np.sqrt(k / m_)
    R0 = tilt(0.9)
    e1 = R0[:, 0]
    errors = []
    for h in (4e-3, 2e-3, 1e-3):
        m = fm.Model()
        b = m.rigid_body("mass", mass=m_, inertia=(0.1, 0.1, 0.1), velocity=tuple(v0 * e1))
        m.bushing(fm.GROUND, b, at=(0, 0, 0), axes=R0, stiffness=(k, 5e4, 5e4), rotational_stiffness=(90, 90, 90))
        res = m.simulate(t_end=0.5, h=h, tol=1e-11)
        assert res.success and res.stats["assembly"].startswith(("compiled, with NumPy for BushingGroup",
                                                                 "generic: Numba"))
        x = res["mass.position"] @ e1
        errors.append(np.max(np.abs(x - v0 / w * np.sin(w * res.t))))
        predicted = v0 / w * (w * 0.5) * (w * h) ** 2 / 12
        assert 0.8 * predicted < errors[-1] < 1.2 * predicted, (h, errors[-1], predicted)
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all(np.abs(ratios - 4) < 0.2), (errors, ratios)


def _model():
    m = fm.Model(gravity=(0, 0, -G))
    a = m.rigid_body("a", mass=1.0, inertia=(0.1, 0.1, 0.1))
    b = m.rigid_body("b", mass=2.0, inertia=(0.1, 0.2, 0.3), position=(0.4, 0, 0))
    m.revolute(fm.GROUND, a, at=(0, 0, 0), axis=(0, 1, 0), name="hinge")
    m.bushing(a, b, at=(0.2, 0, 0), axes=tilt(0.3), stiffness=(3e3, 2e3, 1e3), damping=(5, 5, 5),
              rotational_stiffness=(30, 20, 10), rotational_damping=(0.1, 0.1, 0.1), cubic_stiffness=(1e5, 0, 0),
              name="link")
    return m


def test_model_file_round_trip_outputs_and_pictures(tmp_path):
    from flexmbd.io.results_h5 import load_result

    m = _model()
    data = model_to_dict(m, solver={"t_end": 0.2, "h": 0.005})
    (entry,) = [f for f in data["forces"] if f["type"] == "bushing"]
    assert entry["body_i"] == "a" and entry["stiffness"] == [3e3, 2e3, 1e3] and len(entry["axes"]) == 3
    loaded = load_model_text(dump_yaml(data), "bushing.yaml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
        b = m.simulate(t_end=0.2, h=0.005)
    assert np.array_equal(a.q, b.q)
    for key in ("deflection", "rotation", "force", "moment"):
        assert a[f"link.{key}"].shape == (len(a.t), 3)
    # the force balances stiffness × deflection + cubic term + damping (here at rest at t = 0)
    np.testing.assert_allclose(a["link.force"][0], 0.0, atol=1e-12)
    assert np.max(np.abs(a["link.force"])) > 1.0
    # energy: stored + dissipated + kinetic balances gravity's work to O(h²)
    assert abs(a["energy.numerical_dissipation"][-1]) < 1e-3 * a["energy.dissipated"][-1] + 1e-6
    path = tmp_path / "bushing.h5"
    a.save(path)
    back = load_result(path, model=m)
    g = back.geometry
    assert "link" in g["marker_names"] and "bushing" in g["marker_kinds"]
    np.testing.assert_allclose(back["link.force"], a["link.force"], rtol=1e-12)


def test_bad_input_names_the_key():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(1, 1, 1))
    with pytest.raises(fm.ModelError, match=r"bushing 'x' stiffness\[1\]: must be ≥ 0"):
        m.bushing(fm.GROUND, a, at=(0, 0, 0), stiffness=(1, -2, 3), name="x")
    with pytest.raises(fm.ModelError, match=r"bushing 'y' axes: not a proper rotation matrix"):
        m.bushing(fm.GROUND, a, at=(0, 0, 0), axes=np.diag([1.0, 1.0, -1.0]), name="y")
    text = """
bodies: [{name: a, mass: 1.0, inertia: [1, 1, 1]}]
forces:
  - {type: bushing, body_i: ground, body_j: a, at: [0, 0, 0], stifness: [1, 1, 1]}
solver: {t_end: 0.1, h: 0.01}
"""
    from flexmbd.io.model_file import ModelFileError

    with pytest.raises(ModelFileError, match=r"forces\[0\].stifness: unknown key 'stifness'; did you mean 'stiffness'"):
        load_model_text(text, "m.yaml")
