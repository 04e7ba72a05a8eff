"""P1 example 1: the slider-crank with a spring-damper-actuator."""
import warnings

import numpy as np
import pytest

from flexmbd.examples.slider_crank import STUDY_A, STUDY_B, build, jacobian_study
from flexmbd.system import RedundantConstraintWarning
from flexmbd.verify.cases import slider_crank as cases


def run(k, c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return build(k=k, c=c).simulate(t_end=1.0, h=0.01, **kw)


@pytest.mark.parametrize("k,c", STUDY_A + STUDY_B)
def test_exact_jacobian_converges_in_at_most_four_iterations(k, c):
    res = run(k, c)
    assert res.success, res.message
    assert res.steps == 100
    assert res.max_iterations() <= 4
    # positions satisfy the constraints to the Newton tolerance at every step
    sys = res.system
    worst = max(np.max(np.abs(sys.constraints(sys.extend(q), t))) for t, q in zip(res.t, res.q))
    assert worst < 1e-7


def test_trajectory_matches_minimal_coordinates_and_is_second_order():
    rows = cases.trajectory()
    assert all(r.passed for r in rows), [r.to_dict() for r in rows if not r.passed]


def test_removing_the_sda_stiffness_costs_iterations_that_grow_with_k():
    rows = jacobian_study([(1e2, 0.0), (1e6, 0.0)], without="M1+M3")
    full = [r for r in rows if r["jacobian"] == "M1+M2+M3"]
    part = [r for r in rows if r["jacobian"] == "M1+M3"]
    assert all(r["success"] and r["max_iterations"] <= 4 for r in full)
    assert part[1]["mean_iterations"] > 2 * part[0]["mean_iterations"]
    assert part[1]["mean_iterations"] > full[1]["mean_iterations"]


def test_removing_the_sda_damping_jacobian_costs_iterations_that_grow_with_c():
    rows = jacobian_study([(2e4, 1e1), (2e4, 1e4)], without="M1+M2")
    part = [r for r in rows if r["jacobian"] == "M1+M2"]
    assert part[1]["mean_iterations"] > 2 * part[0]["mean_iterations"]


def test_spatial_revolute_slider_crank_reports_three_redundant_equations():
    with pytest.warns(RedundantConstraintWarning, match="3 redundant"):
        sys = build().freeze()
    assert len(sys.removed_equations) == 3
    assert sys.m == 20


def test_energy_balance_with_damper_and_force():
    """Kinetic + spring energy = work of the 1 kN force − damper work − numerical dissipation,
    and the trapezoidal rule's numerical dissipation is small against the energies involved."""
    res = run(2e4, 1e3)
    num = res["energy.numerical_dissipation"]
    scale = np.max(np.abs(res["energy.external_work"]))
    assert np.max(np.abs(num)) < 1e-2 * scale
