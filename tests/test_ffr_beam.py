"""The floating-frame modal beam (P4; flexmbd/bodies/modal_beam.py, flexmbd/nodes/modal.py).

Checks against independent answers:
* the mode shapes' eigenvalues against Blevins' tables and their boundary conditions;
* free vibration of a clamped-free beam held by a fixed joint: each modal coordinate is
  η₀ cos(ω̃ t) with ω̃ h = 2 arctan(ω h/2) (the trapezoidal rule's discrete frequency) and
  ω Bernoulli-Euler's β² √(EI/ρA), the rod's (π/2L) √(E/ρ) and √(GJ/ρI_p);
* a free-free beam floating in space vibrates at β² √(EI/ρA) (β L = 4.730);
* zero modes: the same motion as the rigid body with the same mass and inertia;
* a free flexible body tumbling in space: energy and momenta conserved to the
  integrator's O(h²);
* the spin-up beam (Simo & Vu-Quoc 1986 data): with geometric stiffening the tip
  deflection agrees with the SE(3) beam within 2 %, without it diverges.
(The derivatives are in the generic test, tests/test_jacobians.py.)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams.sections import Section
from flexmbd.errors import ModelError
from flexmbd.ground import GROUND
from flexmbd.nodes import kind_from_key
from flexmbd.nodes.beam_modes import BeamModes, bending_roots
from flexmbd.examples.ffr_beams import LENGTH, SE3_OPTIONS, SPIN_SECTION, T_UP, hub_angle, spin_up_model, spin_up_tip

STEEL = dict(E=2.1e11, nu=0.3, rho=7850.0)


def discrete(omega, h):
    """The trapezoidal rule's frequency of x'' + ω² x = 0."""
    return 2.0 / h * np.arctan(0.5 * omega * h)


def test_mode_roots_and_end_conditions():
    """β L of Blevins (1979) table 8-1 and the end conditions of the shapes."""
    np.testing.assert_allclose(bending_roots("clamped-free", 4), [1.87510407, 4.69409113, 7.85475744, 10.99554073],
                               rtol=1e-8)
    np.testing.assert_allclose(bending_roots("free-free", 3), [4.73004074, 7.85320462, 10.99560784], rtol=1e-8)
    L = 2.0
    cf = BeamModes("bending", "clamped-free", 8, L)
    assert np.abs(cf.values([0.0], 0)).max() < 1e-12 and np.abs(cf.values([0.0], 1)).max() < 1e-9
    tip = np.abs(cf.values([L], 2)).max() / np.abs(cf.values([L / 2], 2)).max()
    assert tip < 1e-9 and np.abs(cf.values([L], 3)).max() < 1e-8 * np.abs(cf.values([0.0], 3)).max()
    ff = BeamModes("bending", "free-free", 8, L)
    span = np.linspace(0.0, L, 41)
    for d in (2, 3):
        assert np.abs(ff.values([0.0, L], d)).max() < 1e-9 * np.abs(ff.values(span, d)).max()


def clamped_model(counts, eta0, h):
    sec = Section.rectangle(0.02, 0.01, **STEEL)
    m = fm.Model(gravity=(0, 0, 0))
    b = m.modal_beam(name="b", length=1.0, section=sec, ends="clamped-free", modes=counts, rotary_inertia=False,
                     modal_coordinates=eta0, geometric_stiffening="centrifugal")
    m.fixed(GROUND, b, at=(0, 0, 0), name="clamp")
    return m, sec


def test_clamped_free_free_vibration_at_the_analytic_frequencies():
    """Frame held by a fixed joint: every mode oscillates alone at its exact frequency."""
    counts = dict(axial=1, bending_y=3, bending_z=2, torsion=1)
    eta0 = [1e-6, 1e-3, -5e-4, 2e-4, 1e-3, 3e-4, 1e-3]
    h = 2e-5
    m, sec = clamped_model(counts, eta0, h)
    res = m.simulate(t_end=0.02, h=h, tol=1e-10)
    assert res.success
    E, G, rho = STEEL["E"], STEEL["E"] / 2.6, STEEL["rho"]
    L = 1.0
    ra = bending_roots("clamped-free", 3)
    w_y = ra ** 2 / L ** 2 * np.sqrt(sec.EI3 / sec.rhoA)
    w_z = ra[:2] ** 2 / L ** 2 * np.sqrt(sec.EI2 / sec.rhoA)
    w_u = np.pi / (2 * L) * np.sqrt(E / rho)
    w_t = np.pi / (2 * L) * np.sqrt(sec.GJ / (sec.rhoI2 + sec.rhoI3))
    assert np.isclose(sec.GJ / (G * 1.0), sec.GJ / G)
    omega = np.r_[w_u, w_y, w_z, w_t]
    eta = res["b.modal_coordinates"]
    expected = np.array(eta0)[None, :] * np.cos(discrete(omega, h)[None, :] * res.t[:, None])
    np.testing.assert_allclose(eta, expected, rtol=0, atol=1e-8 * np.abs(eta0).max())
    # the fixed joint holds the frame
    assert np.abs(res["b.position"]).max() < 1e-12


def zero_crossings(t, x):
    k = np.flatnonzero(np.sign(x[:-1]) != np.sign(x[1:]))
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


def test_free_free_beam_floating_in_space():
    """A free-free beam (frame at its centre) released with its first bending mode: the
    mode's period is 2π/ω̃ with ω = 4.730² √(EI/ρA)/L²; the frame barely moves (free-free
    modes are orthogonal to the rigid motions)."""
    sec = Section.rectangle(0.02, 0.01, **STEEL)
    m = fm.Model(gravity=(0, 0, 0))
    m.modal_beam(name="b", length=1.0, section=sec, ends="free-free", frame="center", rotary_inertia=False,
                 modes=dict(bending_y=2, bending_z=1), modal_coordinates=[1e-4, 0.0, 0.0])
    h = 2e-5
    res = m.simulate(t_end=0.1, h=h, tol=1e-10)
    assert res.success
    w = 4.73004074 ** 2 * np.sqrt(sec.EI3 / sec.rhoA)
    tz = zero_crossings(res.t, res["b.modal_coordinates"][:, 0])
    period = 2 * (tz[-1] - tz[0]) / (len(tz) - 1)
    assert len(tz) > 15
    assert abs(period / (2 * np.pi / discrete(w, h)) - 1) < 1e-6
    assert np.abs(res["b.position"]).max() < 1e-9


def tumbling(modes, h, t_end, stiffening=False, spring=True):
    sec = Section.rectangle(0.03, 0.02, E=2e9, nu=0.3, rho=1200.0)
    m = fm.Model(gravity=(0, 0, 0))
    n = sum(modes.values())
    b = m.modal_beam(name="b", length=1.0, section=sec, ends="free-free", frame="center", modes=modes,
                     position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1), angular_velocity=(2.0, 8.0, 3.0),
                     orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.4), geometric_stiffening=stiffening,
                     modal_velocities=list(0.05 * np.cos(np.arange(n))) if n else None)
    return m, b


def test_zero_modes_move_as_the_rigid_body():
    """A modal beam without modes and the rigid body with its mass and inertia, both
    under gravity and a spring to ground at the beam's end: the same trajectory (to the
    Newton tolerance; the two inertia forces differ only along p, which the
    normalisation's multiplier takes)."""
    from flexmbd.bodies.modal_beam import rigid_properties

    runs = []
    for rigid in (False, True):
        sec = Section.rectangle(0.03, 0.02, E=2e9, nu=0.3, rho=1200.0)
        m = fm.Model(gravity=(0.0, -9.81, 0.0))
        q0 = fm.quaternion_from_axis_angle((1, 2, 3), 0.4)
        kw = dict(position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1), angular_velocity=(2.0, 8.0, 3.0),
                  orientation=q0)
        flex = m.modal_beam(name="flex", length=1.0, section=sec, ends="free-free", frame="center", modes={}, **kw)
        if rigid:
            el = m.element("flex")
            mass, c, J = rigid_properties(el.data["W"])
            assert np.abs(c).max() < 1e-15
            m2 = fm.Model(gravity=(0.0, -9.81, 0.0))
            body = m2.rigid_body("flex", mass=mass, inertia=J, **kw)
            m = m2
        else:
            body = flex
        R = fm.rotations.rotation_matrix(np.asarray(q0))
        m.spring_damper(GROUND, body, at_i=(1.0, 1.0, 0.0), at_j=np.array([0.1, 0.2, 0.3]) + R @ [0.5, 0, 0],
                        k=200.0, c=1.0, name="s")
        res = m.simulate(t_end=1.0, h=1e-3, tol=1e-12)
        assert res.success
        runs.append(res)
    for what in ("flex.position", "flex.orientation", "flex.velocity", "flex.angular_velocity"):
        a, b = runs[0][what], runs[1][what]
        assert np.abs(a - b).max() <= 1e-11 * np.abs(b).max(), what
    assert np.abs(runs[0]["flex.position"] - runs[0]["flex.position"][0]).max() > 0.3    # it did move


@pytest.mark.parametrize("stiffening", ["none", "centrifugal", "foreshortening"])
def test_free_tumbling_conserves_energy_and_momenta(stiffening):
    """A free flexible beam tumbling in space: energy and angular momentum conserved to the
    trapezoidal rule's O(h²) (the error falls about four times when h halves).  Linear
    momentum: with the linear kinematics (none, P4's centrifugal term) the frame at the
    centre is a mean axis (∫ρS = 0), the momentum is m Ṙ and constant to rounding; with the
    foreshortening the centre of mass moves in the frame when the deflection is not
    symmetric (products of a symmetric and an antisymmetric free-free mode), the momentum
    is nonlinear in q and conserved to O(h²) as well.  With the centrifugal stiffening
    (a force on the modal coordinates only) the energy balance closes with its power
    counted as dissipated; the foreshortening is conservative (a Lagrangian)."""
    drift = []
    for h in (2e-3, 1e-3):
        m, b = tumbling(dict(bending_y=2, bending_z=2, torsion=1, axial=1), h, 1.0, stiffening=stiffening)
        res = m.simulate(t_end=1.0, h=h, tol=1e-11)
        assert res.success
        e = res["energy.total"]
        lin, ang = res["b.linear_momentum"], res["b.angular_momentum"]
        lin_drift = np.abs(lin - lin[0]).max() / np.abs(lin[0]).max()
        if stiffening != "foreshortening":
            assert lin_drift < 1e-8
        assert np.abs(res["b.modal_coordinates"]).max() > 1e-4                 # it deforms
        drift.append((np.abs(e - e[0]).max() / e[0], np.abs(ang - ang[0]).max() / np.linalg.norm(ang[0]), lin_drift))
    (e1, a1, l1), (e2, a2, l2) = drift
    assert e1 < 1e-4 and a1 < 1e-4
    assert 2.5 < a1 / a2 < 6 and (2.5 < e1 / e2 < 6 or stiffening == "centrifugal")
    assert e2 < 1e-5
    if stiffening == "foreshortening":
        assert l1 < 1e-4 and 2.5 < l1 / l2 < 6


# --------------------------------------------------------------------------- spin-up

def spin_up(model_kind, t_end, h, stiffening=True):
    """Tip deflection along the hub's rotating y axis, (result, v_tip)."""
    res = spin_up_model(model_kind, stiffening).simulate(t_end=t_end, h=h,
                                                         **(SE3_OPTIONS if model_kind == "se3" else {}))
    return res, (spin_up_tip(res, model_kind) if res.success or model_kind == "modal" else None)


def test_spin_up_beam_with_and_without_geometric_stiffening():
    """Simo & Vu-Quoc (1986) spin-up: L = 10 m, EI = 1.4e4 N m², EA = 2.8e7 N,
    ρA = 1.2 kg/m, Ω = 4 rad/s (above the first bending frequency, 3.8 rad/s), T = 15 s.
    With the centrifugal stiffening the tip deflection agrees with the SE(3) beam's
    (10 elements) within 2 % of its peak over the whole history and ends small; without it
    the modal beam softens (Ω > ω₁) and diverges."""
    h = 0.02
    res, tip = spin_up("modal", 20.0, h)
    ref_res, ref = spin_up("se3", 20.0, h)
    assert res.success and ref_res.success
    peak = np.abs(ref).max()
    assert 0.2 < peak < 1.0
    assert np.abs(tip - ref).max() < 0.02 * peak
    late = res.t > T_UP + 1
    assert np.abs(tip[late]).max() < 0.05 * peak                  # at constant speed: small vibration
    res0, tip0 = spin_up("modal", 17.0, h, stiffening=False)
    assert (not res0.success) or np.abs(tip0).max() > 20 * peak


# ---------------------------------------------------------------- files and errors

def test_model_file_round_trip_outputs_and_kind_key(tmp_path):
    text = """
bodies:
  - {type: modal_beam, name: arm, length: 0.8, ends: clamped-free, modes: {bending_y: 2, torsion: 1},
     section: {shape: rectangle, width2: 0.02, height3: 0.01, E: 7.0e10, nu: 0.33, rho: 2700},
     stress_points: [[0.0, 0.01, 0.0]], modal_coordinates: [0.001, 0.0, 0.0]}
joints:
  - {type: fixed, body_i: ground, body_j: arm, at: [0, 0, 0]}
gravity: [0, -9.81, 0]
solver: {t_end: 0.01, h: 0.001}
"""
    from flexmbd.io.model_file import dump_yaml, load_model_text, model_to_dict
    from flexmbd.io.results_h5 import load_result
    from flexmbd.nodes.beam_modes import BeamModes

    m = load_model_text(text, "arm.yaml").model
    res = m.simulate(t_end=0.01, h=1e-3)
    assert res.success
    kind = m.body("arm").kind
    assert kind_from_key(kind.key) == kind and kind.nq == 10
    # root stress of the initial deflection: σ = −E y v″(0) η₁
    v2 = BeamModes("bending", "clamped-free", 2, 0.8).values([0.0], 2)[0, 0]
    np.testing.assert_allclose(res["arm.stress"][0, 0], -7.0e10 * 0.01 * v2 * 0.001, rtol=1e-12)
    path = tmp_path / "arm.h5"
    res.save(path)
    back = load_result(path)
    np.testing.assert_array_equal(back["arm.position"], res["arm.position"])
    # written back and read again: the same beam
    again = load_model_text(dump_yaml(model_to_dict(m), header="round trip"), "again.yaml").model
    assert again.body("arm").kind == kind
    np.testing.assert_array_equal(again.element("arm").data["W"], m.element("arm").data["W"])


@pytest.mark.parametrize("change, key, words", [
    (dict(modal_coordinates=[0.1]), "modal_coordinates", "has 1 values but the beam has 3 modes"),
    (dict(section=Section.user(EA=1, GA2=1, GA3=1, GJ=1, EI2=1, EI3=1)), "section", "no mass"),
    (dict(ends="clamped-clamped"), "ends", "clamped-free"),
    (dict(length=-1.0), "length", "must be > 0"),
    (dict(attitude="euler-313"), "orientation", "3-1-3 Euler angles are singular"),
])
def test_bad_input_names_the_key(change, key, words):
    m = fm.Model()
    kw = dict(name="b", length=1.0, section=Section.rectangle(0.02, 0.01, **STEEL), ends="clamped-free",
              modes=dict(bending_y=2, torsion=1)) | change
    with pytest.raises(ModelError) as err:
        m.modal_beam(**kw)
    assert words in str(err.value) and key in str(err.value) + str(getattr(err.value, "key", ""))


def test_a_point_off_the_beam_is_refused():
    m = fm.Model()
    b = m.modal_beam(name="b", length=1.0, section=Section.rectangle(0.02, 0.01, **STEEL), ends="clamped-free",
                     modes=dict(bending_y=1))
    m.spherical(GROUND, b, at=(1.5, 0, 0), name="pin")
    with pytest.raises(ModelError, match="lies off the beam"):
        m.freeze()


def test_beam_clamped_to_a_driven_rigid_hub():
    """The spin-up beam fixed to a rigid hub (a fixed joint across kinds) whose rotation is
    driven: the same motion as the beam driven directly (the hub's inertia only changes
    the driving torque)."""
    angle = hub_angle()
    tips, torques = [], []
    for hub in (False, True):
        m = fm.Model(gravity=(0, 0, 0))
        b = m.modal_beam(name="b", length=LENGTH, section=SPIN_SECTION, ends="clamped-free", modes=dict(bending_y=3))
        driven = b
        if hub:
            driven = m.rigid_body("hub", mass=50.0, inertia=(2.0, 2.0, 3.0), position=(0, 0, 0))
            m.fixed(driven, b, at=(0, 0, 0), name="clamp")
        m.revolute(GROUND, driven, at=(0, 0, 0), axis=(0, 0, 1), name="hub_pin")
        m.rotation_driver(GROUND, driven, axis=(0, 0, 1), angle=angle, name="drive")
        res = m.simulate(t_end=8.0, h=0.02, tol=1e-10)
        assert res.success
        tips.append(res["b.tip_deflection"][:, 1])
        torques.append(res["drive.torque"])
    np.testing.assert_allclose(tips[1], tips[0], rtol=0, atol=1e-8 * np.abs(tips[0]).max())
    # the hub's extra driving torque J_hub θ'' gives it the angular momentum J_hub θ'(t_end)
    # (the index-3 multipliers, hence the torques, are first-order accurate: 1 % at h = 0.02 s)
    extra = np.abs(torques[1] - torques[0])
    impulse = np.sum(0.5 * (extra[1:] + extra[:-1]) * np.diff(res.t))
    assert abs(impulse / (3.0 * angle.derivatives(res.t[-1])[1]) - 1) < 0.01, impulse
    assert np.abs(tips[0]).max() > 0.2


def test_static_sag_under_its_weight_converges_to_the_cantilever_formula():
    """A clamped-free modal beam under its own (distributed) weight: the static tip
    deflection tends to q L⁴/(8 EI) as modes are added (modal truncation error falls
    quickly: 1.3 % with one mode, below 1e-5 with eight)."""
    sec = Section.rectangle(0.02, 0.01, E=7e10, nu=0.33, rho=2700)
    ref = -sec.rhoA * 9.81 / (8 * sec.EI2)
    errors = []
    for n in (1, 2, 4, 8):
        m = fm.Model(gravity=(0, 0, -9.81))
        arm = m.modal_beam(name="arm", length=1.0, ends="clamped-free", section=sec, modes=dict(bending_z=n))
        m.fixed(GROUND, arm, at=(0, 0, 0))
        res = m.static_equilibrium()
        assert res.success
        errors.append(abs(res["arm.tip_deflection"][-1][2] / ref - 1))
    assert 0.005 < errors[0] < 0.03 and errors[-1] < 1e-5
    assert all(b < a for a, b in zip(errors, errors[1:]))


def test_pictures_draw_the_deformed_axis(tmp_path):
    """The beam's axis in pictures (VTK, GIF) is a polyline of points on the deformed beam:
    its end is the tip marker's position, not the rigid frame's."""
    from flexmbd.io.results_h5 import load_result
    from flexmbd.io.vtk import scene, write_vtk

    sec = Section.rectangle(0.02, 0.01, E=7e9, nu=0.33, rho=2700)
    m = fm.Model(gravity=(0, 0, -9.81))
    arm = m.modal_beam(name="arm", length=1.0, ends="clamped-free", section=sec, modes=dict(bending_z=2),
                       orientation=fm.quaternion_from_axis_angle((0, 0, 1), 0.5))
    m.fixed(GROUND, arm, at=(0, 0, 0))
    m.marker(arm, at=arm.position + fm.rotations.rotation_matrix(np.asarray(arm.orientation)) @ [1.0, 0, 0],
             name="tip")
    res = m.simulate(t_end=0.2, h=1e-3)
    res.save(tmp_path / "arm.h5")
    back = load_result(tmp_path / "arm.h5")
    rows = np.array([0, 100, 200])
    ends = scene(back, rows)["lines"][:, -1, 1]
    np.testing.assert_allclose(ends, res["tip.position"][rows], rtol=0, atol=1e-12)
    assert abs(res["tip.position"][-1, 2]) > 0.01
    assert write_vtk(back, tmp_path / "vtk").endswith(".pvd")


def test_a_joint_to_a_far_ground_point_stays_finite():
    """Ground's side of a joint is evaluated with the modal kind's markers at a global point
    far off the beam (η = 0 there): the mode shapes are not extrapolated (no overflow)."""
    m = fm.Model(gravity=(0, 0, 0))
    b = m.modal_beam(name="b", length=1.0, section=Section.rectangle(0.02, 0.01, **STEEL), ends="free-free",
                     modes=dict(bending_y=12), position=(500.0, 0, 0), velocity=(0, 1.0, 0))
    m.distance(GROUND, b, at_i=(500.0, 10.0, 0), at_j=(500.0, 0, 0), name="tether")
    res = m.simulate(t_end=0.05, h=1e-3)
    assert res.success and np.all(np.isfinite(res.q))


def euler_313_pair(attitude, h, t_end=0.5):
    sec = Section.rectangle(0.03, 0.02, E=2e9, nu=0.3, rho=1200.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    q0 = fm.quaternion_from_axis_angle((0, 1, 0), np.pi / 2 - 0.2)          # frame z near global x
    b = m.modal_beam(name="b", length=1.0, section=sec, ends="free-free", frame="center", attitude=attitude,
                     modes=dict(bending_y=2, bending_z=1, torsion=1), orientation=q0, velocity=(0.1, 0.0, 2.0),
                     angular_velocity=(3.0, 0.4, 0.6), modal_velocities=[0.05, -0.02, 0.03, 0.1])
    R = fm.rotations.rotation_matrix(np.asarray(q0))
    m.marker(b, at=R @ [0.5, 0.0, 0.0], name="tip")
    res = m.simulate(t_end=t_end, h=h, tol=1e-11)
    assert res.success
    return res


def test_euler_313_attitude_moves_as_the_euler_parameter_one():
    """P4's 3-1-3 Euler angles and Euler parameters for the same tumbling, deforming beam
    under gravity: different coordinates, the same motion — the tip paths differ by the
    integrator's O(h²) error (four times less when h halves), the energy is conserved."""
    diffs = []
    for h in (2e-3, 1e-3):
        a, b = euler_313_pair("euler-313", h), euler_313_pair("euler-parameters", h)
        diffs.append(np.abs(a["tip.position"] - b["tip.position"]).max())
        np.testing.assert_allclose(a["b.modal_coordinates"], b["b.modal_coordinates"], rtol=0,
                                   atol=1e-3 * np.abs(b["b.modal_coordinates"]).max())
        e = a["energy.total"]
        assert np.abs(e - e[0]).max() < 1e-5 * np.abs(a["energy.kinetic"]).max()
    assert diffs[0] < 1e-5 and 2.5 < diffs[0] / diffs[1] < 6
    assert kind_from_key(a.system.model.body("b").kind.key).attitude.name == "euler-313"


def test_joint_axes_turn_with_the_section_at_the_joint():
    """Two clamped-free modal beams welded end to end (a fixed joint at the first one's
    tip) form one cantilever of 1.8 m: the weld's axes on the first beam turn with its
    tip section (directions anchored at the joint's point), so the second beam leaves at
    the first one's tip slope and the static tip deflection under a tip force converges
    to P L³/(3EI) as modes are added (the first beam's tip moment needs curvature at its
    free end, which clamped-free modes lack: convergence about 1/n)."""
    sec = Section.rectangle(0.02, 0.01, E=7e10, nu=0.3, rho=2700.0)
    P, L = 10.0, 1.8
    errors = []
    for n in (2, 4, 8):
        m = fm.Model()
        a = m.modal_beam(name="a", length=1.0, section=sec, ends="clamped-free", modes=dict(bending_y=n))
        b = m.modal_beam(name="b", length=0.8, section=sec, ends="clamped-free", modes=dict(bending_y=n),
                         position=(1.0, 0, 0))
        m.fixed(GROUND, a, at=(0, 0, 0))
        m.fixed(a, b, at=(1.0, 0, 0))
        m.force(b, (0, P, 0), at=(L, 0, 0))
        m.marker(b, at=(L, 0, 0), name="tip")
        st = m.static_equilibrium()
        errors.append(st["tip.position"][-1][1] / (P * L ** 3 / (3 * sec.EI3)) - 1)
    assert errors[0] < errors[1] < errors[2] < 0
    assert abs(errors[2]) < 0.025 and 1.5 < errors[1] / errors[2] < 3


def test_manipulator_model_file_follows_the_rigid_path_when_stiff_and_balances_energy():
    """The bundled spatial manipulator (flexmbd/models/ffr-manipulator.yaml, two modal
    links, three driven joints, a static start): with links 10⁴ times stiffer the tool
    follows the rigid links' forward kinematics (the drivers, the joints' axes turning with
    the sections and the static start are consistent) to the links' remaining sag; with the
    file's links the energy balance closes (driver work = kinetic + potential + damped) to
    the trapezoidal rule's error, and the tool deviates from the rigid path by millimetres."""
    from flexmbd.examples.ffr_beams import manipulator_rigid_tool
    from flexmbd.io.model_file import load_model_text

    text = (Path(fm.__file__).parent / "models" / "ffr-manipulator.yaml").read_text()
    runs = {}
    for label, src in (("stiff", text.replace("E: 7.0e10", "E: 7.0e14")), ("file", text)):
        assert src != text or label == "file"
        loaded = load_model_text(src, t_end=0.6)
        res = loaded.model.simulate(settings=loaded.simulate_settings())
        assert res.success
        runs[label] = (res, manipulator_rigid_tool(res.t, loaded.parameters))
    res, rigid = runs["stiff"]
    assert np.abs(res["tool.position"] - rigid).max() < 5e-6
    res, rigid = runs["file"]
    dev = np.abs(res["tool.position"] - rigid).max()
    assert 2e-3 < dev < 5e-2
    work = res["energy.external_work"][-1]
    assert work > 1.0
    assert np.abs(res["energy.numerical_dissipation"]).max() < 1e-4 * work


def test_driver_between_a_rigid_body_and_a_modal_beam_without_modes():
    """A modal beam with no modes has as many coordinates as a rigid body: the joints and
    drivers between the two kinds still use the two-kind group (not the rigid kind's
    compiled kernel, which once took them and failed), and the driven angle is followed."""
    sec = Section.rectangle(0.025, 0.025, E=7e10, nu=0.33, rho=2700.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    hub = m.rigid_body("hub", mass=2.0, inertia=(0.01, 0.01, 0.01))
    arm = m.modal_beam(name="arm", length=1.0, section=sec, ends="clamped-free", modes={})
    m.revolute(GROUND, hub, at=(0, 0, 0), axis=(0, 0, 1))
    m.rotation_driver(GROUND, hub, axis=(0, 0, 1), angle=lambda t: 0.5 * t * t, name="turn")
    m.revolute(hub, arm, at=(0, 0, 0), axis=(0, 1, 0))
    m.rotation_driver(hub, arm, axis=(0, 1, 0), angle=lambda t: -0.3 * t, name="lift", at=(0, 0, 0))
    m.marker(arm, at=(1.0, 0, 0), name="tip")
    res = m.simulate(t_end=0.2, h=0.01)
    assert res.success
    t = res.t
    a1, a2 = 0.5 * t * t, -0.3 * t
    expected = np.c_[np.cos(a1) * np.cos(a2), np.sin(a1) * np.cos(a2), -np.sin(a2)]
    assert np.abs(res["tip.position"] - expected).max() < 1e-9


@pytest.mark.slow
def test_crank_slider_model_ii_with_modal_beams_matches_the_se3_beams():
    """P3's crank-slider Model II, crank and rod as modal beams with foreshortening, against
    the SE(3) beams with the same Bernoulli-Euler (shear-rigid) section: peak d/L within
    5 %, history within 2 % of the peak until 0.12 s (flexmbd verify ffr-crank-slider;
    P3's shear-flexible SE(3) beam peaks 5 % higher: docs/elements/ffr-beam.md)."""
    from flexmbd.verify.cases.ffr import crank_slider_case

    for c in crank_slider_case():
        assert c.passed, c
