"""Newmark, HHT-α and generalized-α on a two-mass chain: numerical damping of the
stiff mode vs. the spectral radius, little damping of the soft mode, and second
order accuracy (flexmbd.verify.cases.integrators)."""
import numpy as np
import pytest

from flexmbd.solvers.integrators import HHT, GeneralizedAlpha, Newmark
from flexmbd.verify.cases import integrators as I
from flexmbd.verify.references import (
    newmark_family_amplification_matrix,
    newmark_family_parameters,
    two_mass_chain_modes,
)


def _all_passed(comparisons):
    failed = [c for c in comparisons if not c.passed]
    assert comparisons and not failed, "\n".join(map(str, failed))


@pytest.mark.parametrize("method,rho", [("newmark", None), ("hht", 0.5), ("hht", 0.8), ("generalized-alpha", 0.0),
                                        ("generalized-alpha", 0.6), ("generalized-alpha", 1.0)])
def test_solver_coefficients_match_the_reference_parameters(method, rho):
    """The solver's (α_m, α_f, β, γ) are those the spectral-radius reference assumes."""
    integ = Newmark() if method == "newmark" else (HHT(rho) if method == "hht" else GeneralizedAlpha(rho))
    np.testing.assert_allclose(integ.coefficients(), newmark_family_parameters(rho, method), rtol=0, atol=1e-15)


def test_fit_recurrence_recovers_known_roots():
    roots = np.array([0.6 * np.exp(2.5j), 0.6 * np.exp(-2.5j), -0.3])
    n = np.arange(30)
    x = (np.array([1.0, 1.0, 0.7]) * roots[None, :] ** n[:, None]).sum(axis=1).real
    np.testing.assert_allclose(np.sort_complex(I.fit_recurrence(x, 3)), np.sort_complex(roots), atol=1e-10)


def test_chain_model_has_the_reference_frequencies():
    """The chosen step puts the stiff mode at ωh ≫ 1 and resolves the soft one."""
    ch = two_mass_chain_modes(**I.STIFF_CHAIN)
    assert ch.omega[1] * I.DAMPING_STEP == pytest.approx(70.71, rel=1e-3)   # ω h ≫ 1
    assert ch.omega[0] * I.DAMPING_STEP == pytest.approx(0.03536, rel=1e-3)  # well resolved


# ------------------------------------------------------------------- damping
def test_integrator_damping_case_passes():
    _all_passed(I.integrator_damping_case())


def test_stiff_mode_decay_matches_the_amplification_matrix():
    """All eigenvalues (not only the largest) of A(ωh) are recovered from the run."""
    for method, rho in I.DAMPING_METHODS:
        run = I.mode_decay_run(method, rho, 1)
        assert run["samples"] >= 12
        ev = np.sort(np.abs(np.linalg.eigvals(newmark_family_amplification_matrix(run["omega_h"], rho, method))))[::-1]
        if method == "newmark":
            ev = ev[:2]  # the third eigenvalue of plain Newmark is 0
        np.testing.assert_allclose(run["roots"], ev, atol=1e-6)
        assert abs(run["measured"] - run["reference"]) < 1e-6
        assert run["cross_talk"] < 1e-6  # the soft mode stays unexcited


def test_hht_reaches_rho_inf_but_generalized_alpha_approaches_it_slowly():
    """At ωh ≈ 71: HHT's ρ − ρ∞ = O((ωh)^-2) (≈1e-3 and less); gen-α's is O((ωh)^(-2/3)) (several %)."""
    for method, rho in I.DAMPING_METHODS:
        if method == "newmark":
            assert I.mode_decay_run(method, rho, 1)["measured"] == pytest.approx(1.0, abs=1e-9)
            continue
        excess = I.mode_decay_run(method, rho, 1)["measured"] - rho
        if method == "hht" and rho > 0.5:  # ρ∞ = 1/2 is the triple-root case, like gen-α
            assert 0 < excess < 2e-3
        else:
            assert 0.02 < excess < 0.06


def test_hht_half_equals_generalized_alpha_half():
    a, b = I.mode_decay_run("hht", 0.5, 1), I.mode_decay_run("generalized-alpha", 0.5, 1)
    assert a["measured"] == pytest.approx(b["measured"], abs=1e-12)


def test_soft_mode_is_barely_damped():
    for row in I.damping_study():
        soft = row["soft"]
        assert abs(soft["measured"] - soft["reference"]) < 1e-9
        assert soft["samples"] == I.SOFT_STEPS + 1
        # loses less than 1e-4 of its amplitude per soft period (178 steps); gen-α 0.2 loses 4e-5
        assert row["soft_retained_per_period"] > 1 - 1e-4
        # …while the stiff mode loses ≥ 10 % per step: 1e5× (and more) the soft mode's loss
        if row["rho_inf"] is not None:
            assert 1 - row["stiff"]["measured"] > 0.09
            assert 1 - row["stiff"]["measured"] > 1e5 * (1 - soft["measured"])


# --------------------------------------------------------------------- order
def test_integrator_order_case_passes():
    _all_passed(I.integrator_order_case())


def test_second_order_convergence_against_the_exact_modal_solution():
    for row in I.order_study():
        assert np.all((row["ratios"] > 3.6) & (row["ratios"] < 4.4)), (row["method"], row["ratios"])
        p = np.log2(row["ratios"])
        assert np.all(np.abs(p - 2) < 0.1)
        assert row["errors"][-1] < 5e-4  # m, amplitude ≈ 0.06 m, h = 0.01 s
