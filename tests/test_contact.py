"""Contact elements (kelvin_contact, hertz_contact) against closed forms.

* Kelvin (P4's pounding element): a linear spring-dashpot impact of two masses rebounds
  with e = exp(−πζ/√(1−ζ²)), ζ = c/(2√(k m*)), after the contact time π/ω_d, with the
  impulse m*(1 + e) v₀; the contact starts and ends between steps (a kink of the force), so
  the trapezoidal rule meets e to O(ω_n h) (the joint limit's bound 0.3 ω_n h).
* Coulomb friction: a block hitting a wall while sliding along it loses the tangential
  speed μ P / m (P the normal impulse) as long as it keeps sliding.
* Hertz (Johnson, Contact Mechanics, §11.4): a sphere striking a plane at v₀ stays in
  contact for t_c = 2 (δ_m/v₀) ∫₀¹ (1 − x^{5/2})^{−1/2} dx = 2.868 (m²/(R E*² v₀))^{1/5}
  and peaks at F_m = K δ_m^{3/2}, δ_m = (5 m v₀² / (4 K))^{2/5}; with Hunt-Crossley damping
  the rebound speed v_e solves α v₀ − ln(1 + α v₀) = −α v_e − ln(1 − α v_e) exactly.
* Pounding of two bridge decks on piers under a ground motion: the energy balance closes
  (external work = kinetic + potential + dissipated, the dissipation split into the piers'
  dampers, the contact's dashpot and friction).
"""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import flexmbd as fm
from flexmbd.errors import ModelError
from flexmbd.examples.contact import (bridge, friction_work, hertz_ball, hertz_closed_form, kelvin_closed_form,
                                      two_masses)
from flexmbd.forces.contact import contact_impacts, effective_modulus, hertz_constant
from flexmbd.io.model_file import ModelFileError, dump_yaml, load_model_text, model_to_dict

sys.path.insert(0, str(Path(__file__).parent))
from test_jacobians import central_incr, central_local, close, detached  # noqa: E402


@pytest.mark.parametrize("zeta", [0.0, 0.1, 0.3])
def test_kelvin_restitution_contact_time_and_impulse(zeta):
    m1, m2, k, v0 = 2.0, 3.0, 1e5, 1.5
    ms = m1 * m2 / (m1 + m2)
    c = 2 * zeta * np.sqrt(k * ms)
    e, wn, tc = kelvin_closed_form(k, c, ms)
    errors = []
    for h in (1e-4, 2.5e-5):
        res = two_masses(h, k, c, v0)
        assert res.success
        en = (res["b.velocity"][-1, 0] - res["a.velocity"][-1, 0]) / v0
        err = abs(en - e)
        assert err < 0.3 * wn * h * max(e, 0.5)
        errors.append(err)
        (imp,) = contact_impacts(res)
        assert abs(imp["closed"] - 0.1 / v0) < h**2 * v0 * wn        # a smooth crossing, interpolated
        assert abs(imp["opened"] - imp["closed"] - tc) < 0.3 * wn * h * tc
        assert abs(imp["impulse"] - ms * (1 + e) * v0) < 0.3 * wn * h * ms * (1 + e) * v0
        # momentum is exchanged, not lost; energy: kinetic + stored + dissipated constant
        p = m1 * res["a.velocity"][:, 0] + m2 * res["b.velocity"][:, 0]
        assert np.ptp(p) < 1e-9 * m1 * v0
        total = res["energy.total"] + res["energy.dissipated"]
        assert np.ptp(total) < 0.3 * wn * h * total[0]
    assert errors[1] < errors[0] or errors[1] < 1e-5


def sliding_block(h, mu, v0, vt, eps=0.0):
    """A block (translations only: two prismatic carriers) hitting a ground wall at v0 while
    sliding along it at vt."""
    m = fm.Model()
    car = m.rigid_body("car", mass=1e-3, inertia=(1e-3,) * 3, velocity=(v0, 0, 0))
    m.prismatic("ground", car, at=(0, 0, 0), axis=(1, 0, 0))
    blk = m.rigid_body("block", mass=2.0, inertia=(0.1,) * 3, velocity=(v0, vt, 0))
    m.prismatic(car, blk, at=(0, 0, 0), axis=(0, 1, 0))
    m.kelvin_contact(blk, "ground", at_i=(0, 0, 0), at_j=(0.05, 0, 0), normal=(1, 0, 0), stiffness=2e5,
                     damping=2 * 0.1 * np.sqrt(2e5 * 2.0), friction=mu, regularization=eps, name="wall")
    return m.simulate(t_end=0.1, h=h)


def test_coulomb_friction_takes_mu_times_the_normal_impulse():
    mu, v0, vt, h = 0.3, 1.0, 2.0, 2e-5
    res = sliding_block(h, mu, v0, vt)
    assert res.success
    (imp,) = contact_impacts(res)
    M = 2.0 + 1e-3                                   # the block and its carrier move along x
    vx, vy = res["block.velocity"][-1, :2]
    wh = np.sqrt(2e5 / M) * h                        # the contact's ω_n h: O(ω_n h) at the kinks
    assert abs(imp["impulse"] - M * (v0 - vx)) < 0.3 * wh * imp["impulse"]
    # the tangential speed drops by μ ∫max(F, 0) dt / m (the block slides throughout: vt ≫ μ P / m;
    # the pull of the dashpot as the contact opens carries no friction)
    Fp = np.maximum(res["wall.normal_force"], 0.0)
    Pp = np.sum(0.5 * (Fp[1:] + Fp[:-1]) * np.diff(res.t))
    assert abs((vt - vy) - mu * Pp / 2.0) < 0.3 * wh * mu * Pp / 2.0
    # the friction force is μ F and opposes the slip; its power is in the dissipation
    F, f = res["wall.normal_force"], res["wall.friction_force"]
    on = F > 0
    assert np.allclose(np.linalg.norm(f[on], axis=1), mu * F[on], rtol=1e-12)
    assert np.all(f[on, 1] > 0)                      # on ground (body j): along the block's slip +y
    total = res["energy.total"] + res["energy.dissipated"]
    assert np.ptp(total) < 1e-3 * total[0]


def test_regularised_friction_sticks_below_epsilon():
    """With σ = v/√(v² + ε²) a slip far below ε meets a viscous law μ F v/ε: the tangential
    speed decays without reversing."""
    res = sliding_block(2e-5, 0.3, 1.0, 0.01, eps=0.5)
    vy = res["block.velocity"][:, 1]
    assert res.success and np.all(vy > 0) and vy[-1] < 0.01


def test_hertz_ball_on_plate_contact_time_and_peak_force():
    R, E, nu, v0 = 0.01, 2.1e11, 0.3, 1.0
    mass, model = hertz_ball(R, E, nu, v0)
    closed = hertz_closed_form(mass, R, E, nu, v0)
    Fm, tc = closed["force"], closed["time"]
    assert abs(closed["johnson"] / tc - 1) < 1e-3       # Johnson's eq. (11.24), rounded
    h = tc / 200
    res = model.simulate(t_end=1e-6 / v0 + 1.5 * tc, h=h)
    assert res.success
    (imp,) = contact_impacts(res)
    wn = np.pi / tc                                  # the contact's half-period frequency
    assert abs(imp["opened"] - imp["closed"] - tc) < (wn * h) ** 2 * tc
    # the sampled peak is within the change of F over a step from the true one
    assert Fm * (1 - (wn * h) ** 2) < res["hit.normal_force"].max() <= Fm * (1 + (wn * h) ** 2)
    assert abs(imp["impulse"] - 2 * mass * v0) < (wn * h) ** 2 * 2 * mass * v0
    assert abs(res["ball.velocity"][-1, 2] - v0) < (wn * h) ** 2 * v0


def test_hunt_crossley_restitution_solves_its_exact_relation():
    R, E, nu, v0, cr = 0.01, 2.1e11, 0.3, 1.0, 0.25
    alpha = 1.5 * cr
    ve = brentq(lambda x: alpha * v0 - np.log1p(alpha * v0) + alpha * x + np.log1p(-alpha * x), 1e-9, 1 / alpha - 1e-12)
    assert abs(ve / v0 - (1 - cr * v0)) < 0.1      # the first-order estimate 1 − e ≈ c_r v₀
    mass, model = hertz_ball(R, E, nu, v0, cr)
    Es = effective_modulus(E, nu)
    dm = (5 * mass * v0**2 / (4 * hertz_constant(Es, R))) ** 0.4
    tc = 2 * dm / v0 * 1.4716
    for h in (tc / 100, tc / 400):
        res = model.simulate(t_end=1e-6 / v0 + 1.5 * tc, h=h)
        err = abs(res["ball.velocity"][-1, 2] - ve) / ve
        assert err < 0.3 * (np.pi / tc) * h
        (imp,) = contact_impacts(res)
        assert abs(imp["impulse"] - mass * (v0 + ve)) < 0.3 * (np.pi / tc) * h * mass * (v0 + ve)


def test_sphere_sphere_hertz_constant_from_radii_and_materials():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(0.1,) * 3)
    b = m.rigid_body("b", mass=1.0, inertia=(0.1,) * 3, position=(0.05, 0, 0))
    el = m.hertz_contact(a, b, center_i=(0, 0, 0), radius_i=0.02, center=(0.05, 0, 0), radius=0.03,
                         youngs_modulus=[2e11, 7e10], poisson_ratio=[0.3, 0.33], name="balls")
    Es = 1 / ((1 - 0.09) / 2e11 + (1 - 0.33**2) / 7e10)
    Rs = 0.02 * 0.03 / 0.05
    data = m.element("balls").data if hasattr(m, "element") else el.data
    assert np.isclose(data["k"], 4 / 3 * Es * np.sqrt(Rs), rtol=1e-14)
    assert data["d0"] == pytest.approx(0.05)


def test_bridge_deck_pounding_energy_balance_closes():
    res = bridge(2e-3, 4.0)
    assert res.success
    impacts = contact_impacts(res)
    assert len(impacts) >= 3 and all(i["impulse"] > 0 for i in impacts if i["impulse"] is not None)
    work = res["energy.external_work"]
    residual = res["energy.numerical_dissipation"]
    # trapezoidal rule: O(h²) energy error; measured 5.7e-5 of the input over 6 s at h = 2 ms
    # and 2.3e-5 at 1 ms; 9.7e-5 over these 4 s (docs/elements/contact.md)
    assert np.abs(residual).max() < 2e-4 * np.abs(work).max()
    # the dissipation splits into piers, contact dashpot and friction, each positive
    fw = friction_work(res)
    assert fw[-1] > 1e-3 * work[-1]
    assert res["energy.dissipated"][-1] > fw[-1]


@pytest.mark.parametrize("bad, message", [
    (dict(stiffness=-1.0), "stiffness"),
    (dict(normal=(0, 0, 0)), "normal"),
    (dict(damping=-2.0), "damping"),
    (dict(at_i=(0, 0, 0)), "at"),
    (dict(friction=-0.1), "friction"),
])
def test_kelvin_errors_name_the_key(bad, message):
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(0.1,) * 3)
    kw = dict(at=(0, 0, 0), normal=(1, 0, 0), stiffness=1e3)
    kw.update(bad)
    with pytest.raises(ModelError, match=message):
        m.kelvin_contact(a, "ground", name="k1", **kw)


def test_overlapping_points_and_bad_materials_are_refused():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(0.1,) * 3)
    with pytest.raises(ModelError, match="overlap"):
        m.kelvin_contact(a, "ground", at_i=(0.1, 0, 0), at_j=(0, 0, 0), normal=(1, 0, 0), stiffness=1.0, name="k")
    with pytest.raises(ModelError, match="Poisson.s ratio"):
        m.hertz_contact("ground", a, center=(0, 0, 1), radius=0.1, normal=(0, 0, 1), point=(0, 0, 0),
                        youngs_modulus=1e9, poisson_ratio=0.7, name="h")
    with pytest.raises(ModelError, match="Young.s modulus"):
        m.hertz_contact("ground", a, center=(0, 0, 1), radius=0.1, normal=(0, 0, 1), point=(0, 0, 0),
                        youngs_modulus=-1e9, name="h2")
    with pytest.raises(ModelError, match="plane"):
        m.hertz_contact("ground", a, center=(0, 0, 1), radius=0.1, stiffness=1e6, name="h3")
    with pytest.raises(ModelError, match="radius"):
        m.hertz_contact("ground", a, center=(0, 0, 1), radius=0.0, normal=(0, 0, 1), point=(0, 0, 0),
                        stiffness=1e6, name="h4")


def test_model_file_round_trip():
    text = """solver: {t_end: 0.1, h: 1.0e-4}
bodies:
  - {name: a, type: rigid, mass: 2.0, inertia: [0.1, 0.1, 0.1], velocity: [1.5, 0, 0]}
  - {name: b, type: rigid, mass: 3.0, inertia: [0.1, 0.1, 0.1], position: [0.1, 0, 0]}
forces:
  - {type: kelvin_contact, name: pound, body_i: a, body_j: b, at_i: [0, 0, 0], at_j: [0.1, 0, 0],
     normal: [1, 0, 0], stiffness: 1.0e5, damping: 69.3}
  - {type: hertz_contact, name: ball, body_i: ground, body_j: b, center: [0.1, 0, 0.5], radius: 0.4,
     normal: [0, 0, 1], point: [0, 0, 0], youngs_modulus: 2.0e9, damping: 0.1}
  - {type: kelvin_contact, name: bad, body_i: a, body_j: b, at: [0, 0, 0], normal: [1, 0, 0], stiffnes: 1.0}
"""
    with pytest.raises(ModelFileError) as err:
        load_model_text(text, "contact.yaml")
    assert "stiffnes" in str(err.value) and "contact.yaml:10" in str(err.value)
    model = load_model_text(text.rsplit("  - {type: kelvin_contact, name: bad", 1)[0], "contact.yaml").model
    res = model.simulate(t_end=0.1, h=1e-4)
    e, _, _ = kelvin_closed_form(1e5, 69.3, 1.2)
    assert abs((res["b.velocity"][-1, 0] - res["a.velocity"][-1, 0]) / 1.5 - e) < 0.3 * np.sqrt(1e5 / 1.2) * 1e-4
    again = load_model_text(dump_yaml(model_to_dict(model, solver={"t_end": 0.1, "h": 1e-4})), "again.yaml").model
    assert {e.name: e.data["k"] for e in again.elements if e.type in ("kelvin_contact", "hertz_contact")} == \
        {e.name: e.data["k"] for e in model.elements if e.type in ("kelvin_contact", "hertz_contact")}


# ---------------------------------------------------------------- across node kinds
def mixed_model():
    """Contacts between a rigid body and a modal beam, and between a rigid body and an
    SE(3) beam node (kinds of their own), all closed at the start."""
    from flexmbd.beams import Section

    m = fm.Model()
    sec = Section.rectangle(0.05, 0.03, E=2e6, nu=0.3, rho=800.0)
    arm = m.modal_beam(name="arm", length=1.0, ends="free-free", section=sec,
                       modes=dict(axial=1, bending_y=2, bending_z=1, torsion=1))
    rb = m.rigid_body("rb", mass=1.0, inertia=(0.1, 0.2, 0.3), position=(0.5, 0.3, 0.1),
                      orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.5))
    rod = m.beam("rod", section=sec, elements=1, start=(0.0, 1.0, 0.0), end=(1.0, 1.0, 0.0), formulation="se3")
    m.kelvin_contact(arm, rb, at_i=(0.7, 0, 0), at_j=(0.5, 0.3, 0.1), normal=(0.2, 1.0, 0.1), gap=-3.0,
                     stiffness=50.0, damping=0.3, friction=0.3, regularization=0.1, name="k_modal")
    m.kelvin_contact(rb, rod.last, at_i=(0.5, 0.3, 0.1), at_j=(1.0, 1.0, 0.0), normal=(0.3, 1.0, 0.0), gap=-3.0,
                     stiffness=50.0, damping=0.3, friction=0.2, name="k_se3")
    m.hertz_contact(rb, arm, center=(0.3, 0, 0), radius=3.0, center_i=(0.5, 0.3, 0.1), radius_i=2.0,
                    stiffness=20.0, damping=0.05, name="h_modal")
    return m


def test_contact_jacobians_across_node_kinds():
    from flexmbd.system import System

    sys_ = System(mixed_model(), redundancy="keep")
    groups = [g for g in sys_.force_groups if type(g).__name__ == "ContactGroup"]
    assert {getattr(g, "side_kinds", (g.kind,))[0].name for g in groups} >= {"spatial"}
    assert len(groups) == 3
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = sys_.increment(sys_.q0, 0.1 * rng.standard_normal(sys_.n))
        v = rng.standard_normal(sys_.n)
        qe, ve = sys_.extend(q), sys_.extend_velocity(v)
        for g0 in groups:
            g = detached(g0)
            X, V = qe[g0.config_index], ve[g0.dof_index]
            kinds = getattr(g, "side_kinds", None) or g.kind
            out = g.outputs(X.ravel(), V.ravel(), 0.0)
            assert np.all(out["penetration"] > 0) and np.all(out["normal_force"] > 0)
            Q, K, D = g.evaluate(X.ravel(), V.ravel(), 0.0)
            fq = central_incr(lambda Y: g.evaluate(Y.ravel(), V.ravel(), 0.0)[0], kinds, X)
            fv = central_local(lambda Y: g.evaluate(X.ravel(), Y.ravel(), 0.0)[0], V)
            close(K, fq, [f"{n} ∂Q/∂q" for n in g.element_names], Q)
            close(D, fv, [f"{n} ∂Q/∂q'" for n in g.element_names], Q)


def test_ball_bounces_on_a_modal_beam():
    """A ball dropped on a free-free modal beam: momentum of the pair is conserved through
    the impact (no external forces) and the contact reports one impulse."""
    from flexmbd.beams import Section

    m = fm.Model()
    sec = Section.rectangle(0.05, 0.02, E=7e10, nu=0.33, rho=2700.0)
    arm = m.modal_beam(name="arm", length=1.0, ends="free-free", section=sec, modes=dict(bending_z=2))
    ball = m.rigid_body("ball", mass=0.5, inertia=(1e-4,) * 3, position=(0.5, 0, 0.03), velocity=(0, 0, -1.0))
    m.hertz_contact(arm, ball, center=(0.5, 0, 0.03), radius=0.02, normal=(0, 0, 1), point=(0.5, 0, 0.01),
                    youngs_modulus=7e10, poisson_ratio=0.33, name="drop")
    res = m.simulate(t_end=0.02, h=2e-6)
    assert res.success
    p = res["arm.linear_momentum"][:, 2] + 0.5 * res["ball.velocity"][:, 2]
    assert np.ptp(p) < 1e-6 * 0.5
    (imp,) = contact_impacts(res)
    assert abs(imp["impulse"] - 0.5 * (res["ball.velocity"][-1, 2] + 1.0)) < 1e-4 * imp["impulse"]
