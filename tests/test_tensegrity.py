"""P1 example 2: tensegrity form-finding by dynamic relaxation.

Closed-form references from flexmbd.verify.references; tolerances are argued in
flexmbd/verify/cases/tensegrity.py and docs/tensegrity.md.
"""
import numpy as np
import pytest

from flexmbd import GROUND, Model
from flexmbd.examples.tensegrity import (BAR_INERTIA, BAR_MASS, build_prism, build_tower, energy_run,
                                         form_finding, jacobian_study, tower_summary)
from flexmbd.solvers.relaxation import (lowest_frequency, momenta, relax, remove_rigid_motion,
                                        static_residual)
from flexmbd.verify.references import load_tensegrity_tower


@pytest.fixture(scope="module")
def tower_kinetic():
    t = build_tower()
    return t, form_finding(t, "kinetic", h=0.01, record=True)


# ---------------------------------------------------------------- model building
def test_tower_model_layout():
    t = build_tower(perturbation=0.0)
    ref = load_tensegrity_tower()
    assert len(t.bars) == 6 and len(t.cable_names) == 24
    sys = t.model.freeze()
    for body in t.bars:
        assert body.mass == BAR_MASS
        assert np.allclose(np.diag(body.inertia), BAR_INERTIA)
    # nodes read back from the state are the file's nodes; bar x axis along the bar
    assert np.allclose(t.nodes(sys.q0), ref.nodes, atol=1e-14)
    assert np.allclose(t.length_errors(sys.q0), 0.0, atol=1e-13)
    # l0 = l − t/k
    tension = t.forces_ref[t.cable_index]
    assert np.allclose(t.k * (ref.lengths[t.cable_index] - t.rest_length), tension, rtol=1e-12)
    assert np.allclose(tension, 20.0 * ref.forces[t.cable_index])


def test_tower_closed_form_is_self_equilibrium():
    t = build_tower(perturbation=0.0)
    sys = t.model.freeze()
    r, _ = static_residual(sys, sys.q0)
    assert r < 1e-12
    assert t.nodal_residual(sys.q0) < 1e-12
    s = tower_summary(t, sys.q0)
    assert s["max_force_error"] < 1e-12
    assert s["bar_end_force_misalignment"] < 1e-12


def test_tower_perturbed_start_keeps_bar_lengths():
    ref = load_tensegrity_tower()
    t = build_tower(perturbation=0.03, seed=3)
    q0 = t.start_q()
    X = t.nodes(q0)
    err = t.length_errors(q0)
    assert np.abs(err[t.strut_index]).max() < 1e-14  # bars rescaled to the closed-form length
    moved = np.linalg.norm(X - ref.nodes, axis=1)
    assert moved.max() < 0.03 * 0.4 * 1.01 and moved.min() > 0.0
    assert np.abs(err[t.cable_index]).max() > 1e-3  # genuinely off equilibrium
    assert static_residual(t.model.freeze(), q0)[0] > 1e-2


def test_build_errors():
    with pytest.raises(ValueError, match="prestress"):
        build_tower(k=1.0, prestress=20.0)  # t/k > l


# ---------------------------------------------------------------- form-finding
def test_tower_kinetic_relaxation_reaches_closed_form(tower_kinetic):
    t, rel = tower_kinetic
    assert rel.converged, rel.message
    s = tower_summary(t, rel.q)
    assert s["max_length_error"] < 1e-6  # measured ~1e-11
    assert s["max_bar_length_error"] < 1e-13
    assert s["max_force_ratio_error"] < 1e-6
    assert s["max_force_error"] < 1e-6
    # bars compressed: the cable forces at each bar end sum to a force along the bar
    comp = -t.strut_forces(rel.q)[0]
    assert np.allclose(comp, -t.forces_ref[t.strut_index], rtol=1e-6)
    assert s["bar_end_force_misalignment"] < 1e-6
    # cables taut
    assert s["min_cable_tension"] > 0.9 * t.forces_ref[t.cable_index].min()
    assert s["nodal_residual"] < 1e-8


def test_tower_relaxation_keeps_momentum(tower_kinetic):
    t, rel = tower_kinetic
    res = rel.result
    P = np.array([np.linalg.norm(t.momenta(q, v)[0]) for q, v in zip(res.q, res.v)])
    L = np.array([np.linalg.norm(t.momenta(q, v)[1]) for q, v in zip(res.q, res.v)])
    S = max(t.momentum_scale(q, v) for q, v in zip(res.q, res.v))
    assert P.max() < 1e-12  # internal forces are pairwise: exact up to Newton tolerance
    assert L.max() / S < 1e-3  # Newmark in Euler parameters: O(h) error, ~1e-4 measured
    assert np.linalg.norm(t.centre_of_mass(rel.q) - t.centre_of_mass(res.q[0])) < 1e-12
    # the library's own momentum routine agrees with the example's
    mt, c, P2, L2, _ = momenta(rel.system, res.q[50], res.v[50])
    P1_, L1_ = t.momenta(res.q[50], res.v[50])
    assert np.allclose(P2, P1_, atol=1e-15)
    assert np.allclose(L2, L1_ - np.cross(c, P1_), atol=1e-13)


def test_relaxation_result_fields(tower_kinetic):
    t, rel = tower_kinetic
    assert rel.steps == len(rel.kinetic_energy) - 1 == len(rel.iterations) - 1
    assert rel.resets > 0 and rel.total_iterations > 0
    assert rel.kinetic_energy[-1] <= 1e-14 and rel.final_residual <= 1e-9
    assert rel.result.steps == rel.steps
    assert "converged" in rel.summary()


def test_tower_viscous_relaxation():
    t = build_tower(seed=1)
    rel = form_finding(t, "viscous", h=0.2)
    assert rel.converged, rel.message
    assert rel.alpha == pytest.approx(2 * lowest_frequency(rel.system, t.start_q()))
    assert tower_summary(t, rel.q)["max_length_error"] < 1e-6


def test_prism_twist_from_symmetric_starts():
    for tw in (120.0, 170.0):
        p = build_prism(twist=tw)
        assert p.twist(p.start_q()) == pytest.approx(tw, abs=1e-9)
        rel = form_finding(p, "kinetic", h=0.05)
        assert rel.converged, rel.message
        assert p.twist(rel.q) == pytest.approx(150.0, abs=1e-6)
        f, L = p.member_forces(rel.q), p.member_lengths(rel.q)
        q_strut = f[p.strut_index] / L[p.strut_index]
        assert np.allclose(q_strut, 100.0 * p.structure.extra["q_strut"], rtol=1e-6)
        assert np.abs(p.length_errors(rel.q)[p.strut_index]).max() < 1e-13
        assert p.nodal_residual(rel.q) < 1e-8


def test_prism_twist_from_random_start():
    # zero-rest-length cables: a family of neutral (affine) equilibria; their twist
    # differs from 150° only at second order in the perturbation
    p = build_prism(perturbation=0.03, seed=1)
    rel = form_finding(p, "viscous", h=0.05)
    assert rel.converged, rel.message
    assert p.twist(rel.q) == pytest.approx(150.0, abs=1e-2)
    assert p.nodal_residual(rel.q) < 1e-8


def test_prism_physical_damping_with_free_body_correction():
    p = build_prism(twist=130.0)
    rel = form_finding(p, "physical", h=0.05, ke_tol=None, free=True, max_steps=3000)
    assert rel.converged, rel.message
    assert p.twist(rel.q) == pytest.approx(150.0, abs=1e-6)


# ---------------------------------------------------------------- relax() helpers
def test_remove_rigid_motion_zeroes_momenta():
    t = build_tower(perturbation=0.0)
    sys = t.model.freeze()
    rng = np.random.default_rng(0)
    v = rng.normal(size=sys.n)  # arbitrary velocities
    w = remove_rigid_motion(sys, sys.q0, v)
    _, _, P, L, _ = momenta(sys, sys.q0, w)
    assert np.linalg.norm(P) < 1e-13 and np.linalg.norm(L) < 1e-13
    # a pure rigid motion is removed completely
    Om, V = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])
    from flexmbd.rotations import E_matrix

    vr = np.zeros(sys.n)
    c = momenta(sys, sys.q0, vr)[1]  # centre of mass
    for b in range(6):
        R, p = sys.q0[7 * b:7 * b + 3], sys.q0[7 * b + 3:7 * b + 7]
        vr[7 * b:7 * b + 3] = V + np.cross(Om, R - c)
        vr[7 * b + 3:7 * b + 7] = 0.5 * E_matrix(p).T @ Om
    assert np.abs(remove_rigid_motion(sys, sys.q0, vr)).max() < 1e-12


def test_relax_argument_errors():
    t = build_prism(twist=140.0)
    with pytest.raises(ValueError, match="damping"):
        relax(t.model, damping="magic")
    with pytest.raises(ValueError, match="h > 0"):
        relax(t.model, h=0.0)
    m = Model()
    b = m.rigid_body("b", mass=1, inertia=(1, 1, 1))
    m.spring_damper(b, GROUND, at_i=(0, 0, 0), at_j=(1, 0, 0), k=10.0, c=1.0, rest_length=0.5)
    with pytest.raises(ValueError, match="free"):
        relax(m, free=True)


def test_relax_static_spring_to_ground():
    # a body on a spring to ground: the equilibrium is the rest length, for every damping mode
    for damping in ("kinetic", "viscous", "physical"):
        m = Model()
        b = m.rigid_body("b", mass=1, inertia=(1, 1, 1), position=(0.3, 0, 0))
        m.spring_damper(b, GROUND, at_i=(0.3, 0, 0), at_j=(1, 0, 0), k=50.0, c=2.0, rest_length=0.5)
        rel = relax(m, h=0.05, damping=damping, max_steps=5000)
        assert rel.converged, (damping, rel.message)
        assert rel.q[0] == pytest.approx(0.5, abs=1e-9)


def test_relax_reports_non_convergence():
    t = build_tower()
    rel = relax(t.model, h=0.01, damping="physical", max_steps=5)
    assert not rel.converged and "no equilibrium within 5 steps" in rel.message
    assert rel.steps == 5


# ---------------------------------------------------------------- P1 studies
def test_p1_energy_run():
    t, res, e = energy_run()
    assert res.success and len(res.t) == 31
    assert e["total"][-1] < e["total"][0]
    assert np.all(np.diff(e["damper"]) >= -1e-12)
    # consistent bookkeeping: initial = remaining + damper + numerical, exactly
    assert np.allclose(e["total"] + e["damper"] + e["numerical"], e["total"][0], atol=1e-14)


def test_energy_balance_converges_with_step_size():
    # the cable books (stored ½k max(δ,0)², dissipated (F − kδ_s) l') make the balance of
    # the converged solution closes as h → 0
    _, _, e = energy_run(h=2e-3)
    assert abs(e["numerical"][-1]) < 1e-3 * e["total"][0]


def test_jacobian_parts_iterations():
    rows = {r["part"]: r for r in jacobian_study(cases=((200.0, 0.0),), parts=("M1", "M1+M2", "M1+M2+M3"),
                                                 steps=30)}
    assert all(r["success"] for r in rows.values())
    assert rows["M1+M2+M3"]["mean_iterations"] <= rows["M1"]["mean_iterations"]
    assert rows["M1+M2+M3"]["mean_iterations"] <= 3.0
    assert rows["M1+M2"]["mean_iterations"] == pytest.approx(rows["M1+M2+M3"]["mean_iterations"])  # c = 0


def test_stiff_undamped_tower_fails_at_h_001_even_with_full_jacobian():
    row = jacobian_study(cases=((1e6, 0.0),), parts=("M1+M2+M3",), steps=2)[0]
    assert not row["success"] and row["steps"] == 0
    assert "no convergence" in row["message"] or "not finite" in row["message"]


@pytest.mark.slow
def test_tower_physical_relaxation_p1():
    t = build_tower()
    rel = form_finding(t, "physical", h=0.05, ke_tol=None, free=True, max_steps=4000)
    assert rel.converged, rel.message
    assert tower_summary(t, rel.q)["max_length_error"] < 1e-6


@pytest.mark.slow
def test_viscous_without_projection_locks_into_period_two_cycle():
    # documents the index-3 artefact that relax(project=True) removes
    t = build_tower()
    rel = relax(t.model, h=0.05, damping="viscous", project=False, max_steps=800, record=True)
    assert not rel.converged
    v = rel.result.v
    assert np.abs(v[-1] + v[-2]).max() < 1e-3 * np.abs(v[-1]).max()  # v → −v every step
    ke = rel.kinetic_energy[-10:]
    assert ke.min() > 1e-13 and np.ptp(ke) < 1e-6 * ke.max()  # and it does not decay
    rel2 = relax(t.model, h=0.05, damping="viscous", project=True, max_steps=800)
    assert rel2.converged
