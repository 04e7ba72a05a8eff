"""Fully parameterized ANCF beams in models (formulation="ancf", flexmbd/beams/ancf_formulation.py):
P3's cantilevers, pure bending, the clamp, dynamics, outputs, model files and errors.

References: P3 (docs/verification-beams.md): ABAQUS B31 tip z 0.5143 m (straight) and
0.6138 m (quarter circle); flexmbd's converged SE(3) values 0.51426 m and 0.61426 m."""
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.errors import ModelError
from flexmbd.io.model_file import load_model_text, model_to_dict
from flexmbd.verify.cases.beams import FORCE, SECTION, cantilever, solve, tip_displacement


def tip_z(shape, n, **beam):
    m, b = cantilever(shape, n, **beam)
    res = solve(m)
    assert res.success
    return tip_displacement(res, b)[2], res, b


def test_p3_straight_cantilever_strain_split_converges_plain_locks():
    """32 elements (396 DOF): measured 0.51391 m, 0.07 % below the converged SE(3) value
    (the error falls as h²: 64 elements 0.51422, 128 elements 0.51425).  The plain form
    locks: 0.43288 m, 16 % short, the plane-strain bending stiffness λ + 2μ = 1.35 E."""
    z, res, b = tip_z("straight", 32, formulation="ancf")
    assert z == pytest.approx(0.51426, rel=1e-3)
    assert z < 0.51426                                        # from the stiff side
    # the clamp holds the tip force: reaction on the beam = −F (statics)
    np.testing.assert_allclose(res["clamp.reaction"][-1], -np.array(FORCE["straight"]), rtol=1e-9, atol=1e-6)
    z_plain = tip_z("straight", 32, formulation="ancf", locking="plain")[0]
    assert 0.80 < z_plain / 0.51426 < 0.88


def test_p3_curved_cantilever_is_the_exact_beam_with_warping_free_torsion():
    """Linear interpolation across the section has no warping, so the element twists with
    G I_p (I_p = h⁴/6 for the square) instead of Saint-Venant's G J (J/I_p = 0.843): the
    quarter circle, loaded out of its plane, ends 4 % short of ABAQUS (0.6138 m) and of
    SE(3) (0.61426 m), and agrees with the SE(3) beam given GJ = G I_p (0.58841 m at 64
    elements) to its discretisation error (measured 64 ANCF elements: 0.58835 m)."""
    from flexmbd.verify.cases.ancf_beam import warping_free_tip_z

    z = tip_z("curved", 64, formulation="ancf")[0]
    assert z == pytest.approx(warping_free_tip_z(64), rel=5e-4)
    assert 0.95 < z / 0.61426 < 0.97


def test_pure_bending_tip_moment():
    """Tip moment Mz = −π EI/(2L) (body-fixed, on the node's gradients): the exact
    solution bends the beam into a quarter circle, tip at (2/π, −2/π) L.  Strain split,
    32 elements: the tip within 1e-3 L (measured 6.3e-4 L; 64 elements 4.3e-5 L), the
    tip section turned by 0.99915 π/2.  The plain form locks: under a moment its bending
    stiffness is (λ + 2μ) I, so the section turns by (1 + ν)(1 − 2ν)/(1 − ν) = 0.742857
    of π/2 (measured 0.74263 at 32 elements, 0.74288 at 64)."""
    def run(locking):
        m, b = cantilever("straight", 32, force=(0, 0, 0), formulation="ancf", locking=locking)
        m.torque(b.last, (0, 0, -np.pi * SECTION.EI3 / 2), body_fixed=True)
        res = solve(m)
        assert res.success
        q = res.q[-1, res.system.config_slice(b.last)]
        section_angle = np.arctan2(q[7], q[6]) - np.pi / 2     # r_y = (−sin θ, cos θ) turned by θ about z
        return res[f"{b.last.name}.position"][-1], section_angle

    tip, angle = run("strain-split")
    # the centre line between the nodes (Beam.positions, Hermite): on the circle of radius 2/π
    m, b = cantilever("straight", 32, force=(0, 0, 0), formulation="ancf")
    m.torque(b.last, (0, 0, -np.pi * SECTION.EI3 / 2), body_fixed=True)
    res = solve(m)
    np.testing.assert_allclose(b.positions(res, 0.5)[-1], res["rod.n16.position"][-1], atol=1e-15)
    for s in (0.3 + 1 / 64, 0.55 + 1 / 64, 0.97):                        # mid-element
        x = b.positions(res, s)[-1]
        assert np.linalg.norm(x - [0.0, -2 / np.pi, 0.0]) == pytest.approx(2 / np.pi, abs=1e-3)
    np.testing.assert_allclose(tip, [2 / np.pi, -2 / np.pi, 0.0], atol=1e-3)
    assert angle == pytest.approx(-np.pi / 2, rel=5e-3)
    tip_plain, angle_plain = run("plain")
    assert angle_plain / (-np.pi / 2) == pytest.approx(1.3 * 0.4 / 0.7, rel=1e-3)


def test_fixed_joint_is_the_ancf_clamp():
    """A fixed joint to ground on an ANCF node fixes r and all three gradients (12
    equations): under the tip force the clamped node does not move at all."""
    m, b = cantilever("straight", 4, formulation="ancf")
    res = solve(m)
    sys = res.system
    assert len(sys.owner_equations["clamp"]) == 12
    q = res.q[:, sys.config_slice(b.first)]
    np.testing.assert_allclose(q, np.broadcast_to(np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], q.shape), atol=1e-14)


def test_axial_force_output():
    """An axial tip force N on the clamped beam: the axial force (the section resultant of
    the first Piola-Kirchhoff traction along the deformed axis, at mid-element) is N where
    the strain is uniform; near the clamp, which stops the section's Poisson contraction,
    the pointwise resultant of the weak solution differs (measured: 1.15 N in the first of
    four elements, then 1.025, 1.004, 1.0009 N).  The exact resultant of a uniform state is
    tested on the element (tests/test_ancf_beam.py, patch test)."""
    N = 2.0e4
    m, b = cantilever("straight", 4, force=(N, 0, 0), formulation="ancf")
    res = solve(m)
    forces = [res[f"rod.e{i}.axial_force"][-1] / N for i in range(4)]
    assert forces[-1] == pytest.approx(1.0, abs=2e-3)
    assert forces == sorted(forces, reverse=True)
    assert res["rod.e3.curvature"][-1] == pytest.approx(0.0, abs=1e-12)


def test_double_pendulum_of_ancf_beams_conserves_energy():
    """Two ANCF beams on spherical joints (to ground and to each other) under gravity:
    the trapezoidal rule keeps the energy to 1e-4 of the potential energy released."""
    sec = Section.rectangle(0.02, 0.02, E=1e8, nu=0.3, rho=1000.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    a1 = m.beam("arm1", section=sec, elements=3, start=(0, 0, 0), end=(0.3, 0, 0), formulation="ancf")
    a2 = m.beam("arm2", section=sec, elements=3, start=(0.3, 0, 0), end=(0.3, 0.5, 0), formulation="ancf")
    m.spherical(fm.GROUND, a1.first, at=(0, 0, 0), name="pivot")
    m.spherical(a1.last, a2.first, at=(0.3, 0, 0), name="elbow")
    res = m.simulate(t_end=0.15, h=1e-3)
    assert res.success
    released = -res["energy.potential"][-1]
    assert released > 0.1
    assert np.abs(res["energy.total"] - res["energy.total"][0]).max() <= 1e-4 * released
    # the elbow stays together
    np.testing.assert_allclose(res["arm1.last.position"], res["arm2.first.position"], atol=1e-9)


def test_model_file_round_trip():
    text = """
format: 1
name: ancf-cantilever
beams:
  - name: rod
    section: {shape: rectangle, width2: 0.01, height3: 0.01, E: 2.1e11, nu: 0.3}
    elements: 4
    start: [0, 0, 0]
    end: [1, 0, 0]
    formulation: ancf
    locking: plain
joints:
  - {type: fixed, name: clamp, body_i: ground, body_j: rod.first}
forces:
  - {type: force, name: tip, body: rod.last, force: [0, 0, 10]}
solver:
  analysis: static
"""
    loaded = load_model_text(text)
    data = model_to_dict(loaded.model)
    beam = data["beams"][0]
    assert beam["formulation"] == "ancf" and beam["locking"] == "plain"
    again = load_model_text(__import__("yaml").safe_dump(data))
    zs = []
    for model in (loaded.model, again.model):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = model.static_equilibrium()
        zs.append(res["rod.last.position"][-1, 2])
    assert zs[0] == zs[1] and zs[0] > 0


@pytest.mark.parametrize("options, key", [
    (dict(section=Section.user(EA=1.0, GA2=1.0, GA3=1.0, GJ=1.0, EI2=1.0, EI3=1.0)), "section"),
    (dict(order=2), "order"),
    (dict(integration="reduced"), "integration"),
])
def test_bad_input_names_the_key(options, key):
    m = fm.Model()
    kw = dict(section=SECTION, elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf") | options
    with pytest.raises(ModelError) as err:
        m.beam("rod", **kw)
    assert err.value.key == key and err.value.element == "rod"


def test_locking_is_an_ancf_option():
    with pytest.raises(ModelError) as err:
        fm.Model().beam("rod", section=SECTION, elements=2, start=(0, 0, 0), end=(1, 0, 0), locking="plain")
    assert err.value.key == "locking"


def test_rigid_body_on_ancf_coordinates_moves_as_with_euler_parameters():
    """A heavy body on a spherical joint, spinning fast: natural coordinates (kind ancf,
    constant mass matrix, six rigidity constraints) and Euler parameters (kind spatial)
    give the same motion (to 1e-6 after 0.2 s, h = 1e-4: both integrate the same
    equations with the same rule, so they differ by the discretisations' O(h²) parts)."""
    w, r = np.array([3.0, -2.0, 5.0]), np.array([0.1, 0.2, 0.3])
    out = {}
    for par in ("quaternion", "ancf"):
        m = fm.Model(gravity=(0, 0, -9.81))
        b = m.rigid_body("b", mass=2.0, inertia=[[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.25]], position=r,
                         orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.7), angular_velocity=w,
                         velocity=np.cross(w, r), parameterization=par)
        m.spherical(fm.GROUND, b, at=(0, 0, 0))
        res = m.simulate(t_end=0.2, h=1e-4)
        assert res.success
        out[par] = (res["b.position"][-1], res["b.angular_velocity"][-1])
    np.testing.assert_allclose(out["ancf"][0], out["quaternion"][0], atol=1e-6)
    np.testing.assert_allclose(out["ancf"][1], out["quaternion"][1], atol=1e-5 * np.linalg.norm(w))


def test_crank_slider_with_ancf_rods_and_a_rigid_slider():
    """P3's crank-slider (Model I) on ANCF rods with the slider a rigid body on ANCF
    coordinates (revolute to the rod, prismatic to ground): after 0.02 s the crank turns
    as with SE(3) rods (measured 78.2249 and 78.2244 rad/s)."""
    from flexmbd.examples.p3_beams import crank_slider, crank_speed

    speeds = {}
    for form, el in (("se3", (9, 15)), ("ancf", (4, 6))):
        p = crank_slider("I", elements=el, formulation=form)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = p.model.simulate(t_end=0.02, h=1e-4, integrator=fm.GeneralizedAlpha(0.8), convergence="increment",
                                   tol=1e-6)
        assert res.success
        speeds[form] = crank_speed(res, p.rods[0])[-1]
    assert speeds["ancf"] == pytest.approx(speeds["se3"], rel=1e-4)


def test_joining_ancf_nodes_to_other_kinds_says_how():
    m = fm.Model()
    rod = m.beam("rod", section=SECTION, elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf")
    body = m.rigid_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(1, 0, 0))
    with pytest.raises(ModelError, match="parameterization ancf"):
        m.revolute(rod.last, body, at=(1, 0, 0), axis=(0, 0, 1))


def test_tip_body_on_ancf_coordinates_or_euler_parameters_moves_alike():
    """An ANCF beam pendulum with a rigid body on a spherical joint at its tip: the body on
    ANCF coordinates (same kind as the beam) and on Euler parameters (the spherical joint
    across kinds, constraints/mixed.py) give the same motion (1e-7 m after 0.1 s)."""
    sec = Section.rectangle(0.02, 0.02, E=1e8, nu=0.3, rho=1000.0)
    tips = {}
    for par in ("ancf", "quaternion"):
        m = fm.Model(gravity=(0, 0, -9.81))
        rod = m.beam("rod", section=sec, elements=3, start=(0, 0, 0), end=(0.4, 0, 0), formulation="ancf")
        m.spherical(fm.GROUND, rod.first, at=(0, 0, 0))
        m.rigid_body("tip", mass=0.3, inertia=(1e-3, 2e-3, 3e-3), position=(0.45, 0.0, 0.0), parameterization=par)
        m.spherical(rod.last, "tip", at=(0.4, 0, 0))
        res = m.simulate(t_end=0.1, h=1e-3)
        assert res.success
        tips[par] = res["tip.position"][-1]
    assert np.linalg.norm(tips["ancf"] - np.array([0.45, 0, 0])) > 0.01
    np.testing.assert_allclose(tips["ancf"], tips["quaternion"], atol=1e-7)


def test_newton_start_from_zero_accelerations_carries_a_suddenly_torqued_ancf_crank():
    """P3's crank-slider Model I with ANCF rods of 504 DOF: the crank torque acts on the
    gradients of the crank's first node (start-up accelerations ~2e9), so Newton started
    from the previous accelerations lies units away and converges to a spurious state;
    started from zero (``newton_start="zero"``) the run follows the 408-DOF mesh (crank
    speed after 3 ms equal to 1e-5), and on that mesh both starts give the same motion."""
    import flexmbd as fm
    from flexmbd.examples import p3_beams as P

    def run(elements, start):
        pm = P.crank_slider("I", elements, formulation="ancf")
        res = pm.model.simulate(t_end=0.003, h=1e-4, integrator=fm.GeneralizedAlpha(0.8), convergence="increment",
                                tol=1e-6, newton_start=start)
        assert res.success, res.message
        return P.crank_speed(res, pm.rods[0])[-1], res["energy.kinetic"].max()

    w_coarse, e_coarse = run((12, 20), "previous")
    w_zero, e_zero = run((12, 20), "zero")
    assert abs(w_zero - w_coarse) <= 1e-8 * abs(w_coarse) and abs(e_zero - e_coarse) <= 1e-8 * e_coarse
    w_fine, e_fine = run((15, 25), "zero")
    assert abs(w_fine - w_coarse) <= 1e-5 * abs(w_coarse)
    assert e_fine <= 1.01 * e_coarse          # no spurious energy (the previous start: 3.5e7 J)
