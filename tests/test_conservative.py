"""Conservative mechanisms against closed forms: pendulum period, spatial double
pendulum energy, heavy symmetric top (flexmbd.verify.cases.conservative).

The runs are cached in the case module, so the case functions and the finer
asserts below share them.
"""
import numpy as np
import pytest

from flexmbd.verify.cases import conservative as C
from flexmbd.verify.references import heavy_top_initial_state, heavy_top_steady_precession, pendulum_period


def _all_passed(comparisons):
    failed = [c for c in comparisons if not c.passed]
    assert comparisons and not failed, "\n".join(map(str, failed))


# --------------------------------------------------------------------- helpers
def test_hermite_crossings_locate_zeros_to_interpolation_accuracy():
    t = np.linspace(0.0, 10.0, 101)  # h = 0.1, ω h = 0.1
    c = C.hermite_crossings(t, np.sin(t), np.cos(t))
    np.testing.assert_allclose(c, np.pi * np.arange(1, 4), atol=1e-6)  # interpolation error O(h⁴)
    down = C.hermite_crossings(t, np.sin(t), np.cos(t), direction=-1)
    np.testing.assert_allclose(down, [np.pi, 3 * np.pi], atol=1e-6)


def test_richardson_removes_the_h2_term():
    f = lambda h: 2.0 + 3.0 * h**2 + 5.0 * h**4  # noqa: E731
    # (4 f(h/2) − f(h))/3 = 2 − (5/4) h⁴: only the h⁴ term is left
    assert C.richardson(f(0.1), f(0.05)) == pytest.approx(2.0 - 1.25 * 0.1**4, rel=1e-14)


# -------------------------------------------------------------------- pendulum
def test_pendulum_period_case_passes():
    _all_passed(C.pendulum_period_case())


@pytest.mark.parametrize("amp", C.PENDULUM_AMPLITUDES_DEG)
def test_simple_pendulum_period_second_order_and_richardson(amp):
    s = C.pendulum_period_study(amp)
    T_ref = pendulum_period(C.PENDULUM_LENGTH, np.radians(amp), C.G)
    assert s["reference"] == T_ref
    # raw errors: positive (the trapezoidal rule lengthens the period), O(h²)
    assert all(e > 0 for e in s["errors"])
    assert s["ratio"] == pytest.approx(4.0, rel=1e-2)
    # the demand, met by the extrapolated value with a margin
    assert abs(s["richardson_error"]) < 1e-6
    assert abs(s["richardson_error"]) < 0.01 * s["errors"][1]
    for run in s["runs"]:
        # same-direction crossings are one period apart; the half period agrees
        c = run["crossings"]
        assert 2 * (c[1] - c[0]) == pytest.approx(c[2] - c[0], rel=1e-6)
        assert run["constraint_violation"] <= C.NEWTON_TOL
        # the trapezoidal rule's undamped velocity-constraint error stays small in these runs
        assert run["velocity_violation"] < 1e-2
        assert run["mean_iterations"] <= 3


def test_compound_spatial_pendulum_period():
    _all_passed(C.compound_pendulum_period_case())
    s = C.pendulum_period_study(C.COMPOUND_AMPLITUDE_DEG, "compound")
    assert s["ratio"] == pytest.approx(4.0, rel=1e-2)
    assert abs(s["richardson_error"]) < 1e-6
    for run in s["runs"]:
        assert run["constraint_violation"] <= C.NEWTON_TOL


# ------------------------------------------- trapezoidal rule on index 3: unstable
def _independent_trapezoidal_pendulum(h, t_end, L=1.0, g=9.81, tol=1e-12):
    """Newmark β = 1/4, γ = 1/2 on the index-3 Cartesian pendulum x'' = −2 x λ + g, |x|² = L²,
    written from scratch (no flexmbd): released horizontally at rest.  Returns t, q, energy;
    stops when λ exceeds 1e4 or Newton diverges."""
    beta, gamma = 0.25, 0.5
    grav = np.array([0.0, -g])
    q, v = np.array([L, 0.0]), np.zeros(2)
    lam = (q @ grav + v @ v) / (2 * q @ q)
    a = grav - 2 * q * lam
    ts, qs, Es = [0.0], [q.copy()], [0.5 * v @ v + g * q[1]]
    for n in range(1, int(round(t_end / h)) + 1):
        x = np.r_[a, lam]
        for _ in range(30):
            qn = q + h * v + h * h * ((0.5 - beta) * a + beta * x[:2])
            vn = v + h * ((1 - gamma) * a + gamma * x[:2])
            F, Phi = x[:2] - grav + 2 * qn * x[2], qn @ qn - L * L
            if np.linalg.norm(np.r_[F, Phi]) < tol:
                break
            J = np.zeros((3, 3))
            J[:2, :2] = (1 + 2 * x[2] * h * h * beta) * np.eye(2)
            J[:2, 2] = 2 * qn
            J[2, :2] = 2 * qn
            x = x - np.linalg.solve(J, np.r_[F, Phi / (h * h * beta)])
        else:
            break
        q, v, a, lam = qn, vn, x[:2], x[2]
        if abs(lam) > 1e4:
            break
        ts.append(n * h), qs.append(q.copy()), Es.append(0.5 * v @ v + g * q[1])
    return np.array(ts), np.array(qs), np.array(Es)


def test_newmark_index3_instability_is_the_method_not_the_code():
    """Plain Newmark (the trapezoidal rule) on the index-3 pendulum: flexmbd's discrete
    solution is the textbook scheme's (same numbers as an independent implementation), and
    both blow up at the same time — a property of the scheme, not a bug.  Run as P1 runs it
    (Newton's absolute residual test, the Newton solution's multipliers), the blow-up ends
    the run: the residual can no longer meet the absolute tolerance.  (The scaled test,
    relative to the size of the exploding accelerations, lets it run to the end with an
    energy error of 1e10: a scheme's instability is not Newton's to detect.)"""
    h, t_end = 1e-2, 10.0
    res = C._simulate(C.simple_pendulum(np.pi / 2), t_end, h, "newmark", project_velocities=False,
                      convergence="residual", multipliers="integrator")
    t_ind, q_ind, E_ind = _independent_trapezoidal_pendulum(h, t_end)
    assert not res.success and t_ind[-1] < t_end  # both fail well before 10 s (~5.6 s)
    assert abs(res.t[-1] - t_ind[-1]) < 0.3
    k = int(round(3.0 / h))  # before the blow-up the two discrete solutions coincide
    np.testing.assert_allclose(res.q[: k + 1, :2], q_ind[: k + 1], atol=1e-8)
    E = res["energy.total"]
    # the energy error is still small at t = 3 s, and has grown by orders of magnitude at the end
    assert np.max(np.abs(E_ind[:k] - E_ind[0])) < 0.05
    assert np.max(np.abs(E - E[0])) > 10 * np.max(np.abs(E[:k] - E[0]))


def test_double_pendulum_newmark_without_projection_fails_with_it_is_bounded():
    """The index-3 trapezoidal rule alone fails on the spatial double pendulum (t ≈ 2.2 s
    at h = 0.01 s); with the default mass-orthogonal velocity projection it runs 10 s with
    a bounded energy error."""
    bare = C._simulate(C.spatial_double_pendulum(), 10.0, 1e-2, "newmark", project_velocities=False)
    assert not bare.success and bare.t[-1] < 5.0
    run = C.double_pendulum_run(1e-2, "newmark")
    assert run["success"], run["message"]
    assert run["energy"]["last_third"] <= 2 * run["energy"]["first_third"]


def test_heavy_top_newmark_projected_energy_drift_vanishes_like_h_cubed():
    """Spinning top, Newmark with velocity projection: stable, but the energy error grows
    linearly in time at a rate ∝ h³ (a drift that vanishes 8× per halving, not 4×);
    without projection the run fails within 1.2 s (spurious torque −2 (p·p') J ω)."""
    st = C.steady_top_state()

    def energy_error(h, **kw):
        res = C._simulate(C.heavy_top(st.com_position, st.rotation, st.com_velocity, st.omega_world),
                          1.2, h, "newmark", **kw)
        E = res["energy.total"]
        return res, float(np.max(np.abs(E - E[0])))

    bare, _ = energy_error(2e-3, project_velocities=False)
    assert not bare.success or np.max(np.abs(bare["energy.total"] - bare["energy.total"][0])) > 1.0
    (r1, e1), (r2, e2) = energy_error(2e-3), energy_error(1e-3)
    assert r1.success and r2.success
    assert 6.4 <= e1 / e2 <= 9.6  # h³: 8 ± 20 %


# ------------------------------------------------------------- double pendulum
def test_double_pendulum_case_passes():
    _all_passed(C.double_pendulum_case())


def test_double_pendulum_energy_bounded_second_order_constraints():
    s = C.double_pendulum_study()
    assert all(r["success"] for r in s["runs"])
    # e(h)/e(h/2) within [3.2, 4.8] (4 ± 20 %: an h³ term and the chaotic trajectory's max)
    assert np.all((s["ratios"] > 3.2) & (s["ratios"] < 4.8)), s["ratios"]
    for r in s["runs"]:
        e = r["energy"]
        assert e["last_third"] <= 2.0 * e["first_third"]          # bounded, no drift
        assert abs(e["slope"]) * C.DOUBLE_T_END < e["max"]          # no trend beyond the oscillation
        assert e["max"] < 0.01 * abs(r["E0"])
        assert r["constraint_violation"] <= C.NEWTON_TOL            # Φ to the Newton tolerance
        assert r["mean_iterations"] <= 3


# ------------------------------------------------------------------ heavy top
def test_heavy_top_cases_pass():
    _all_passed(C.heavy_top_precession_case())
    _all_passed(C.heavy_top_nutation_case())


def test_heavy_top_steady_precession_details():
    st = C.steady_top_state()
    # the reference state is on the slow root of I1 cosθ Ω² − I3 ω3 Ω + m g l = 0
    I1 = C.TOP_I_TRANSVERSE + C.TOP_MASS * C.TOP_COM**2
    Om = st.precession_rate
    assert Om == heavy_top_steady_precession(*C.top_parameters(), C.TOP_SPIN, C.TOP_NUTATION, g=C.G).slow
    assert I1 * np.cos(C.TOP_NUTATION) * Om**2 - C.TOP_I_AXIAL * C.TOP_SPIN * Om \
        + C.TOP_MASS * C.G * C.TOP_COM == pytest.approx(0.0, abs=1e-12)
    s = C.steady_top_study()
    for r in s["runs"]:
        assert r["success"]
        # flexmbd takes the reference initial state unchanged (it is consistent)
        assert r["omega0_error"] < 1e-12 and r["com0_error"] < 1e-14
        assert r["constraint_violation"] <= C.NEWTON_TOL
        assert r["energy"]["last_third"] <= 2.0 * r["energy"]["first_third"]
    assert s["rate_ratio"] == pytest.approx(4.0, rel=0.05)
    assert s["nutation_ratio"] == pytest.approx(4.0, rel=0.05)
    assert s["energy_ratio"] == pytest.approx(4.0, rel=0.05)
    assert abs(s["errors"][1]) < 5e-4                      # h = 1e-3 s: 3.4e-4 measured
    assert abs(s["richardson_error"]) < 1e-5               # 6.8e-7 measured
    assert s["nutation"][1] < 2e-4                         # rad, h = 1e-3 s


def test_heavy_top_nutating_start_matches_minimal_ode():
    s = C.nutating_top_study()
    assert s["ratio"] == pytest.approx(4.0, rel=0.05)
    fine = s["runs"][1]
    assert fine["com_error"] < 1e-3                        # relative to l, over 1 s
    # same initial energy as the Euler-angle Lagrangian (T + m g l cos θ): checks T of Euler parameters
    assert fine["E0"] == pytest.approx(fine["reference_energy"], rel=1e-13)
    assert fine["energy"]["last_third"] <= 2.0 * fine["energy"]["first_third"]
    lo, hi = fine["nutation_range"]
    assert lo == pytest.approx(C.TOP_NUTATION, abs=1e-9)
    assert hi == pytest.approx(C.cuspidal_max_nutation(), abs=1e-6)  # ODE vs. closed form


def test_heavy_top_reference_state_convention():
    """The top model reproduces heavy_top_initial_state's COM velocity from ω × r."""
    st = heavy_top_initial_state(*C.top_parameters(), C.TOP_SPIN, C.TOP_NUTATION, g=C.G)
    r, R, v, w = C.top_state_from_euler(st.euler, st.euler_rates)
    np.testing.assert_allclose(R, st.rotation, atol=1e-15)
    np.testing.assert_allclose(w, st.omega_world, atol=1e-12)
    np.testing.assert_allclose(v, st.com_velocity, atol=1e-12)
    np.testing.assert_allclose(r, st.com_position, atol=1e-15)
