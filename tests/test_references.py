"""Tests of the independent reference solutions in flexmbd.verify.references.

Each reference is checked against tabulated values, limits, conservation
laws, or a second derivation written here independently of the module.
"""

from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp

from flexmbd.verify import references as R

SHARED = Path("/work/shared/references")
DATA = Path(R.__file__).resolve().parent.parent / "data"


# ---------------------------------------------------------------------------
# 1. Pendulums
# ---------------------------------------------------------------------------


def test_pendulum_small_amplitude_limit():
    L, g = 1.7, 9.81
    assert R.pendulum_period(L, 1e-6, g) == pytest.approx(2 * np.pi * np.sqrt(L / g), rel=1e-12)


def test_pendulum_tabulated_90_degrees():
    L, g = 1.0, 9.81
    ratio = R.pendulum_period(L, np.pi / 2, g) / (2 * np.pi * np.sqrt(L / g))
    assert ratio == pytest.approx(1.18034060, abs=1e-8)


@pytest.mark.parametrize("amp_deg", [10.0, 60.0, 120.0, 170.0])
def test_pendulum_against_ode_quarter_period(amp_deg):
    """A quarter period is the time to fall from theta0 to theta = 0."""
    L, g = 0.8, 9.81
    th0 = np.radians(amp_deg)

    def rhs(_t, y):
        return [y[1], -g / L * np.sin(y[0])]

    def crosses_zero(_t, y):
        return y[0]

    crosses_zero.terminal = True
    crosses_zero.direction = -1
    sol = solve_ivp(rhs, (0, 100), [th0, 0.0], method="DOP853", rtol=1e-12, atol=1e-13,
                    events=crosses_zero)
    quarter = sol.t_events[0][0]
    assert R.pendulum_period(L, th0, g) == pytest.approx(4 * quarter, rel=1e-9)


def test_pendulum_array_and_invalid():
    T = R.pendulum_period(1.0, np.array([0.1, 1.0]))
    assert T.shape == (2,) and T[1] > T[0]
    with pytest.raises(ValueError):
        R.pendulum_period(1.0, np.pi)


def test_compound_pendulum_uniform_rod():
    """Uniform rod pinned at one end: I_O = m l^2 / 3, d = l / 2, L_eq = 2 l / 3."""
    m, l, amp = 3.0, 1.2, 1.0
    T = R.compound_pendulum_period(m, m * l**2 / 3, l / 2, amp, 9.81)
    assert T == pytest.approx(R.pendulum_period(2 * l / 3, amp, 9.81), rel=1e-14)


# ---------------------------------------------------------------------------
# 2. Heavy top
# ---------------------------------------------------------------------------

TOP = dict(mass=1.0, com_distance=0.05, I_axial=1.0e-3, I_transverse=6.0e-4)
W3 = 100.0
THETA = np.pi / 6


def test_precession_roots_satisfy_quadratic():
    roots = R.heavy_top_steady_precession(**TOP, spin_rate=W3, nutation_angle=THETA)
    I1 = TOP["I_transverse"] + TOP["mass"] * TOP["com_distance"] ** 2
    mgl = TOP["mass"] * 9.81 * TOP["com_distance"]
    for Om in roots:
        res = I1 * np.cos(THETA) * Om**2 - TOP["I_axial"] * W3 * Om + mgl
        assert abs(res) < 1e-13 * mgl
    assert 0 < roots.slow < roots.fast
    # slow root ~ m g l / (I3 omega3) for a fast top
    assert roots.slow == pytest.approx(mgl / (TOP["I_axial"] * W3), rel=0.3)
    # the 'tip' convention with the Steiner-shifted value gives the same roots
    tip = dict(TOP, I_transverse=I1)
    roots_tip = R.heavy_top_steady_precession(**tip, spin_rate=W3, nutation_angle=THETA,
                                              inertia_about="tip")
    assert np.allclose(roots, roots_tip, rtol=1e-14)


def test_precession_too_slow_raises_and_horizontal():
    with pytest.raises(ValueError):
        R.heavy_top_steady_precession(**TOP, spin_rate=1.0, nutation_angle=THETA)
    roots = R.heavy_top_steady_precession(**TOP, spin_rate=W3, nutation_angle=np.pi / 2)
    mgl = TOP["mass"] * 9.81 * TOP["com_distance"]
    assert roots.slow == pytest.approx(mgl / (TOP["I_axial"] * W3), rel=1e-12)
    assert np.isinf(roots.fast)


# explicit ids: a parametrize id "slow" would be taken for the "slow" marker
# by tests/conftest.py (it tests `"slow" in item.keywords`)
@pytest.mark.parametrize("root", ["slow", "fast"], ids=["slow_root", "fast_root"])
def test_initial_state_consistent(root):
    st = R.heavy_top_initial_state(**TOP, spin_rate=W3, nutation_angle=THETA, root=root)
    # rotation = tilt about world x by theta; symmetry axis = body z
    assert np.allclose(st.rotation, R.euler_zxz_matrix(*st.euler), atol=1e-15)
    assert np.allclose(st.rotation[:, 2], [0, -np.sin(THETA), np.cos(THETA)], atol=1e-15)
    assert np.allclose(st.omega_world, st.rotation @ st.omega_body, atol=1e-13)
    assert st.omega_body[2] == pytest.approx(W3)  # axial component = omega3 input
    # angular velocity from the rotation matrix, independently of Goldstein 4.87:
    # omega_hat = R^T dR/dt by central differences of R(euler + rates t)
    h = 1e-6
    Rp = R.euler_zxz_matrix(*(st.euler + h * st.euler_rates))
    Rm = R.euler_zxz_matrix(*(st.euler - h * st.euler_rates))
    Wb = st.rotation.T @ (Rp - Rm) / (2 * h)
    assert np.allclose([Wb[2, 1], Wb[0, 2], Wb[1, 0]], st.omega_body, rtol=1e-8, atol=1e-7)
    assert np.allclose(st.com_velocity, np.cross(st.omega_world, st.com_position))


# explicit ids: a parametrize id "slow" would be taken for the "slow" marker
# by tests/conftest.py (it tests `"slow" in item.keywords`)
@pytest.mark.parametrize("root", ["slow", "fast"], ids=["slow_root", "fast_root"])
def test_steady_precession_stays_steady(root):
    st = R.heavy_top_initial_state(**TOP, spin_rate=W3, nutation_angle=THETA, root=root)
    t_end = 4 * np.pi / abs(st.precession_rate)  # two precession periods
    sol = R.heavy_top_minimal_ode(**TOP, euler0=st.euler, euler_rates0=st.euler_rates,
                                  t_end=t_end, n_eval=801)
    assert np.max(np.abs(sol.theta - THETA)) < 1e-8
    assert np.max(np.abs(sol.phi_dot - st.precession_rate)) < 1e-8 * abs(st.precession_rate)
    assert np.allclose(sol.phi, st.precession_rate * sol.t, rtol=0, atol=1e-7)
    # the centre of mass circles about the vertical at height l cos(theta)
    assert np.allclose(sol.com[:, 2], TOP["com_distance"] * np.cos(THETA), atol=1e-10)


def _newton_euler_top(I1, I3, m, l, g, R0, omega_b0, t_eval):
    """Independent check: rotation matrix + body angular velocity about the tip."""
    Ip = np.diag([I1, I1, I3])
    Ip_inv = np.linalg.inv(Ip)

    def rhs(_t, y):
        Rm = y[:9].reshape(3, 3)
        w = y[9:]
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        r_com = l * Rm[:, 2]
        tau_b = Rm.T @ np.cross(r_com, [0.0, 0.0, -m * g])
        dw = Ip_inv @ (tau_b - np.cross(w, Ip @ w))
        return np.concatenate([(Rm @ W).ravel(), dw])

    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), np.concatenate([R0.ravel(), omega_b0]),
                    method="DOP853", rtol=1e-11, atol=1e-13, t_eval=t_eval)
    Rs = sol.y[:9].T.reshape(-1, 3, 3)
    return l * Rs[:, :, 2]


def test_nonsteady_top_conservation_and_newton_euler():
    euler0 = np.array([0.3, 0.6, -0.2])
    rates0 = np.array([4.0, 1.5, 80.0])  # nutating, not steady
    t_end = 1.5
    sol = R.heavy_top_minimal_ode(**TOP, euler0=euler0, euler_rates0=rates0, t_end=t_end,
                                  n_eval=301)
    assert np.ptp(sol.theta) > 1e-2  # really nutates
    for q in (sol.energy, sol.p_phi, sol.omega3):
        assert np.ptp(q) < 1e-9 * np.max(np.abs(q))
    # independent Newton-Euler integration from the same state
    R0 = R.euler_zxz_matrix(*euler0)
    h = 1e-6
    Wb = R0.T @ (R.euler_zxz_matrix(*(euler0 + h * rates0))
                 - R.euler_zxz_matrix(*(euler0 - h * rates0))) / (2 * h)
    wb0 = np.array([Wb[2, 1], Wb[0, 2], Wb[1, 0]])
    I1 = TOP["I_transverse"] + TOP["mass"] * TOP["com_distance"] ** 2
    com_ne = _newton_euler_top(I1, TOP["I_axial"], TOP["mass"], TOP["com_distance"], 9.81,
                               R0, wb0, sol.t)
    # initial angular velocity by finite differences: ~1e-9 relative error
    assert np.max(np.abs(com_ne - sol.com)) < 1e-6 * TOP["com_distance"]


# ---------------------------------------------------------------------------
# 3. Slider-crank
# ---------------------------------------------------------------------------

L_SC, M_LINK, J_LINK, M_SLIDER = 2.0, 50.0, 15.0, 1.0


def _positions_generic(phi, L1=L_SC, L2=L_SC):
    """Slider-crank positions from the general loop closure (independent).

    Returns the COMs of links 1 and 2, their angles, and the slider x.
    """
    A = np.array([L1 * np.cos(phi), L1 * np.sin(phi)])
    bx = L1 * np.cos(phi) + np.sqrt(L2**2 - (L1 * np.sin(phi)) ** 2)
    B = np.array([bx, 0.0])
    ang2 = np.arctan2(B[1] - A[1], B[0] - A[0])
    return A / 2, (A + B) / 2, phi, ang2, bx


def _mass_by_finite_differences(phi, h=1e-6):
    """m(phi) = 2 T at phi' = 1, from COM and angular velocities by differences."""
    p = _positions_generic(phi + h)
    q = _positions_generic(phi - h)
    v1 = (p[0] - q[0]) / (2 * h)
    v2 = (p[1] - q[1]) / (2 * h)
    w1 = (p[2] - q[2]) / (2 * h)
    w2 = (p[3] - q[3]) / (2 * h)
    vb = (p[4] - q[4]) / (2 * h)
    T = 0.5 * (M_LINK * v1 @ v1 + M_LINK * v2 @ v2 + J_LINK * w1**2 + J_LINK * w2**2
               + M_SLIDER * vb**2)
    return 2 * T


@pytest.mark.parametrize("phi", [-1.2, -0.3, 0.0, 0.4, np.pi / 4, 1.3])
def test_slider_crank_mass_matches_finite_differences(phi):
    m, dm = R.slider_crank_mass(phi)
    assert m == pytest.approx(_mass_by_finite_differences(phi), rel=1e-8)
    assert m == pytest.approx(130.0 + 416.0 * np.sin(phi) ** 2, rel=1e-14)
    h = 1e-5
    dm_fd = (R.slider_crank_mass(phi + h)[0] - R.slider_crank_mass(phi - h)[0]) / (2 * h)
    assert dm == pytest.approx(dm_fd, rel=1e-7, abs=1e-7)


def test_slider_crank_kinematics_and_spring_length():
    phi = np.linspace(-1.0, 1.0, 7)
    kin = R.slider_crank_kinematics(phi)
    for i, ph in enumerate(phi):
        c1, c2, a1, a2, bx = _positions_generic(ph)
        assert np.allclose(kin.c1[i], c1) and np.allclose(kin.c2[i], c2)
        assert kin.b[i, 0] == pytest.approx(bx) and kin.angle2[i] == pytest.approx(a2)
    sol = R.slider_crank_minimal(2e4, 0.0, t_end=0.2)
    t = np.linspace(0, 0.2, 11)
    assert np.allclose(sol.spring_length(t), L_SC * np.cos(sol.crank_angle(t)), rtol=1e-14)
    assert sol.spring_length(0.0) == pytest.approx(L_SC * np.cos(np.pi / 4))
    assert sol.slider_x(0.0) == pytest.approx(2 * L_SC * np.cos(np.pi / 4))
    assert sol.crank_rate(0.0) == 0.0


def test_slider_crank_energy_balance_undamped():
    sol = R.slider_crank_minimal(2e4, 0.0, t_end=1.0)
    t = np.linspace(0.0, 1.0, 2001)
    bal = sol.energy_balance(t)
    assert np.max(np.abs(bal)) < 1e-8 * sol.energy_scale(t)
    assert np.all(sol.dissipated_energy(t) == 0.0)
    # it moves: the force drives the crank towards phi = 0, the spring resists
    assert sol.crank_angle(t).min() < np.pi / 4 - 0.1
    assert np.max(sol.kinetic_energy(t)) > 10.0


def test_slider_crank_work_balance_damped():
    k, c = 2e4, 300.0
    sol = R.slider_crank_minimal(k, c, t_end=1.0)
    t = np.linspace(0.0, 1.0, 2001)
    assert np.max(np.abs(sol.energy_balance(t))) < 1e-8 * sol.energy_scale(t)
    # damper work recomputed by quadrature of c l'^2, with l' from differences
    # of the spring length (independent of the augmented state)
    h = 1e-6

    def power(tt):
        ldot = (sol.spring_length(tt + h) - sol.spring_length(tt - h)) / (2 * h)
        return c * ldot**2

    D, _ = quad(power, h, 1.0 - h, limit=400, epsabs=1e-10, epsrel=1e-10)
    assert D == pytest.approx(sol.dissipated_energy(1.0 - h) - sol.dissipated_energy(h),
                              rel=1e-6)
    T, V, W = sol.kinetic_energy(1.0), sol.spring_energy(1.0), sol.work_force(1.0)
    assert T + V - W + sol.dissipated_energy(1.0) == pytest.approx(0.0, abs=1e-6 * abs(W))
    assert np.all(np.diff(sol.dissipated_energy(t)) >= -1e-12)
    assert sol.dissipated_energy(1.0) > 1.0


def test_slider_crank_through_dead_point():
    """Without spring the crank passes phi = 0 and, by symmetry of the
    potential -2 L F cos(phi), turns back at -phi0."""
    sol = R.slider_crank_minimal(0.0, 0.0, t_end=1.0)
    t = np.linspace(0.0, 1.0, 4001)
    phi = sol.crank_angle(t)
    assert phi.min() == pytest.approx(-np.pi / 4, abs=1e-6)
    assert np.max(np.abs(sol.energy_balance(t))) < 1e-8 * sol.energy_scale(t)


# ---------------------------------------------------------------------------
# 4. Tensegrity
# ---------------------------------------------------------------------------


def test_package_data_copies():
    for name in (R.TOWER_FILE, R.PRISM_FILE):
        assert (DATA / name).is_file()
        if (SHARED / name).is_file():
            assert (DATA / name).read_bytes() == (SHARED / name).read_bytes()


def test_tower_data():
    tw = R.load_tensegrity_tower()
    assert tw.nodes.shape == (12, 3)
    assert len(tw.members) == 30 and tw.is_strut.sum() == 6
    subtypes = [mb.subtype for mb in tw.members]
    for sub, n in [("diagonal", 6), ("vertical", 6), ("saddle", 6), ("base", 3),
                   ("platform", 3)]:
        assert subtypes.count(sub) == n
    assert np.allclose(tw.lengths, tw.extra["file_lengths"], atol=1e-14)
    assert np.allclose(tw.lengths[tw.is_strut], 0.4)
    assert np.all(tw.forces[tw.is_strut] < 0) and np.all(tw.forces[~tw.is_strut] > 0)
    assert np.linalg.norm(tw.forces) == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(tw.nodes[[0, 2, 4], 2], 0.0)
    assert np.allclose(tw.nodes[[7, 9, 11], 2], 0.5196152422706632)
    res = R.equilibrium_residual(tw.nodes, tw.members, tw.forces)
    assert np.max(np.abs(res)) < 1e-13
    # perturbing one force breaks equilibrium
    f = tw.forces.copy()
    f[7] *= 1.01
    assert np.max(np.abs(R.equilibrium_residual(tw.nodes, tw.connectivity, f))) > 1e-4
    # explicit path works too
    if (SHARED / R.TOWER_FILE).is_file():
        tw2 = R.load_tensegrity_tower(SHARED / R.TOWER_FILE)
        assert np.array_equal(tw2.nodes, tw.nodes)


def test_prism_data_and_equilibrium():
    pr = R.load_tensegrity_prism()
    assert pr.nodes.shape == (6, 3) and len(pr.members) == 12
    assert pr.is_strut.sum() == 3
    subs = [mb.subtype for mb in pr.members]
    assert subs.count("horizontal") == 6 and subs.count("vertical") == 3
    q = pr.force_densities
    assert pr.extra["q_vertical"] / pr.extra["q_horizontal"] == pytest.approx(np.sqrt(3), rel=1e-12)
    assert np.allclose(pr.forces, q * pr.lengths)
    assert np.all(pr.forces[pr.is_strut] < 0)
    res = R.equilibrium_residual(pr.nodes, pr.members, pr.forces)
    assert np.max(np.abs(res)) < 1e-13


def _rotation(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_prism_twist_angle():
    pr = R.load_tensegrity_prism()
    assert R.prism_twist_angle(pr.nodes, pr.struts) == pytest.approx(150.0, abs=1e-9)
    assert R.prism_twist_angle(pr.nodes, pr.members[:3]) == pytest.approx(150.0, abs=1e-9)
    # invariant under a rigid motion
    Q = _rotation([0.3, -1.0, 0.5], 0.9)
    moved = pr.nodes @ Q.T + np.array([1.0, -2.0, 0.5])
    assert R.prism_twist_angle(moved, pr.struts) == pytest.approx(150.0, abs=1e-9)
    # the mirror image has the opposite signed twist
    mirrored = pr.nodes * np.array([1.0, -1.0, 1.0])
    assert R.prism_twist_angle(mirrored, pr.struts, signed=True) == pytest.approx(-150.0, abs=1e-9)
    assert R.prism_twist_angle(mirrored, pr.struts) == pytest.approx(150.0, abs=1e-9)
    # turning the top triangle by +5 deg about the axis adds 5 deg
    top = pr.struts[:, 1]
    ct = pr.nodes[top].mean(axis=0)
    cb = pr.nodes[pr.struts[:, 0]].mean(axis=0)
    Qz = _rotation(ct - cb, np.radians(5.0))
    X = pr.nodes.copy()
    X[top] = (X[top] - ct) @ Qz.T + ct
    assert R.prism_twist_angle(X, pr.struts, signed=True) == pytest.approx(155.0, abs=1e-9)
    # and the equilibrium is lost
    assert np.max(np.abs(R.equilibrium_residual(X, pr.members, pr.force_densities
                                                * np.linalg.norm(X[pr.connectivity[:, 1]]
                                                                 - X[pr.connectivity[:, 0]],
                                                                 axis=1)))) > 1e-3


# ---------------------------------------------------------------------------
# 5. Newmark family
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("rho_inf", [0.0, 0.3, 0.5, 0.8, 0.95, 1.0])
def test_generalized_alpha_spectral_radius_limits(rho_inf):
    rho_hi = R.newmark_family_spectral_radius(1e6, rho_inf)
    # triple root at infinity: convergence like (Omega h)^(-2/3), ~1e-4 here
    assert rho_hi == pytest.approx(rho_inf, abs=2e-4)
    if rho_inf < 1:
        assert abs(R.newmark_family_spectral_radius(1e8, rho_inf) - rho_inf) < abs(rho_hi - rho_inf)
    assert R.newmark_family_spectral_radius(1e-4, rho_inf) == pytest.approx(1.0, abs=1e-12)
    assert R.newmark_family_spectral_radius(1e-2, rho_inf) == pytest.approx(1.0, abs=1e-8)
    # unconditional stability: rho <= 1 everywhere
    assert np.all(R.newmark_family_spectral_radius(np.logspace(-3, 6, 40), rho_inf) <= 1 + 1e-12)


@pytest.mark.parametrize("rho_inf", [0.5, 0.7, 0.9, 1.0])
def test_hht_spectral_radius_limits(rho_inf):
    # the spurious root at infinity is -alpha/(1 - alpha), of magnitude < rho_inf
    # except at alpha = 1/3 (rho_inf = 1/2), where all three roots coalesce as
    # for generalized-alpha and the convergence is only like (Omega h)^(-2/3)
    tol = 2e-4 if rho_inf == 0.5 else 1e-9
    assert R.newmark_family_spectral_radius(1e6, rho_inf, "hht") == pytest.approx(rho_inf, abs=tol)
    assert R.newmark_family_spectral_radius(1e-4, rho_inf, "hht") == pytest.approx(1.0, abs=1e-12)


def test_hht_matches_original_hht_form():
    """HHT in its own (1977) form: a_{n+1} + (1 + a_H) w^2 q_{n+1} - a_H w^2 q_n = 0
    with a_H = -alpha in [-1/3, 0] and Newmark updates; same amplification matrix."""
    rho = 0.7
    alpha = (1 - rho) / (1 + rho)
    a_h = -alpha
    beta, gamma = (1 - a_h) ** 2 / 4, 0.5 - a_h
    for W in (0.1, 1.0, 10.0, 1e3):
        w2 = W * W
        lhs = np.array([[1, 0, -beta], [0, 1, -gamma], [(1 + a_h) * w2, 0, 1]])
        rhs = np.array([[1, 1, 0.5 - beta], [0, 1, 1 - gamma], [a_h * w2, 0, 0]])
        A_hht = np.linalg.solve(lhs, rhs)
        A = R.newmark_family_amplification_matrix(W, rho, "hht")
        assert np.allclose(A, A_hht, rtol=1e-12, atol=1e-12)


def test_generalized_alpha_half_equals_hht_third():
    """rho_inf = 1/2 gives alpha_m = 0: generalized-alpha = HHT with alpha = 1/3."""
    p1 = R.newmark_family_parameters(0.5, "generalized-alpha")
    p2 = R.newmark_family_parameters(0.5, "hht")
    assert np.allclose(p1, p2, atol=1e-15)


def test_newmark_plain():
    W = np.logspace(-3, 6, 30)
    # trapezoidal rule: |lambda| = 1 exactly for all Omega h
    assert np.allclose(R.newmark_family_spectral_radius(W, method="newmark"), 1.0, atol=1e-12)
    # eigenvalues of the trapezoidal rule: (1 - W^2/4 +- i W) / (1 + W^2/4), plus 0
    Wt = 0.7
    ev = np.linalg.eigvals(R.newmark_family_amplification_matrix(Wt, method="newmark"))
    expected = (1 - Wt**2 / 4 + 1j * Wt) / (1 + Wt**2 / 4)
    assert np.min(np.abs(ev - expected)) < 1e-12 and np.min(np.abs(ev)) < 1e-12
    # gamma > 1/2 with beta = (gamma + 1/2)^2 / 4 dissipates at high frequency
    rho = R.newmark_family_spectral_radius(W, method="newmark", gamma=0.6, beta=0.3025)
    assert np.all(rho <= 1 + 1e-12) and rho[-1] < 0.9 and rho[0] == pytest.approx(1, abs=1e-6)
    with pytest.raises(ValueError):
        R.newmark_family_parameters(0.5, "newmark")
    with pytest.raises(ValueError):
        R.newmark_family_parameters(0.3, "hht")


def test_step_is_consistent_with_exact_solution():
    """Second-order accuracy of generalized-alpha on x'' + w^2 x = 0."""
    w, rho = 2.0, 0.6
    p = R.newmark_family_parameters(rho)
    errors = []
    for n in (200, 400):
        h = 1.0 / n
        # starting value of a: the Chung-Hulbert/Arnold-Bruls start a_0 = qdd_0
        q, v, a = 1.0, 0.0, -w * w
        for _ in range(n):
            q, v, a = R.newmark_family_step(q, v, a, w, h, p)
        errors.append(abs(q - np.cos(w * 1.0)))
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.1)


def test_two_mass_chain_modes():
    m1, m2, ks, kk = 2.0, 0.5, 100.0, 1e6
    modes = R.two_mass_chain_modes(m1, m2, ks, kk)
    a, b, c = m1 * m2, -(m1 * kk + m2 * (ks + kk)), ks * kk
    w2 = np.sort(np.roots([a, b, c]).real)
    assert np.allclose(modes.omega**2, w2, rtol=1e-10)
    Phi = modes.modes
    assert np.allclose(Phi.T @ modes.M @ Phi, np.eye(2), atol=1e-12)
    assert np.allclose(modes.K @ Phi, modes.M @ Phi @ np.diag(modes.omega**2), rtol=1e-10)
    # soft mode: masses in phase; stiff mode: against each other
    assert Phi[0, 0] * Phi[1, 0] > 0 and Phi[0, 1] * Phi[1, 1] < 0
    assert modes.omega[0] == pytest.approx(np.sqrt(ks / (m1 + m2)), rel=1e-3)
    assert modes.omega[1] == pytest.approx(np.sqrt(kk * (1 / m1 + 1 / m2)), rel=1e-3)
    # modal free response solves the equations of motion
    q0, v0 = np.array([0.01, 0.02]), np.array([0.0, 1.0])
    t = np.linspace(0, 0.05, 51)
    def rhs(_t, y):
        return np.concatenate([y[2:], -np.linalg.solve(modes.M, modes.K @ y[:2])])

    ref = solve_ivp(rhs, (0, 0.05), np.concatenate([q0, v0]), method="DOP853", rtol=1e-12,
                    atol=1e-14, t_eval=t)
    assert np.allclose(modes.response(t, q0, v0), ref.y[:2].T, atol=1e-10)


# ---------------------------------------------------------------------------
# 6. Beams: Timoshenko cantilever frequencies
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kGA, rhoI, modes", [(1.2e6, 1e-4, 3), (50.0, 2e-3, 3)])
def test_timoshenko_cantilever_shooting_and_frequency_equation_agree(kGA, rhoI, modes):
    """The shooting solution (ODE, rtol 1e-12) and the closed-form frequency equation are
    two derivations of the same frequencies: they agree to 1e-9 (measured 1e-13 … 2e-11 on
    modes 1-3; the shooting loses digits from mode 4 on, 4e-9 for the slender beam),
    lie below the Euler-Bernoulli values (β_k L = 1.8751, 4.6941, 7.8548, 10.9955), close to
    them for a slender beam (L/r = 100: −0.02 % and −0.16 % on modes 1 and 2)."""
    EI, rhoA = 1.0, 1.0
    a = R.timoshenko_cantilever_frequencies(1.0, EI, kGA, rhoA, rhoI, modes)
    b = R.timoshenko_cantilever_frequency_equation(1.0, EI, kGA, rhoA, rhoI, modes)
    np.testing.assert_allclose(a, b, rtol=1e-9)
    eb = np.array([1.875104069, 4.694091133, 7.854757438])[:modes] ** 2
    assert np.all(b < eb)
    if kGA > 1e5:
        np.testing.assert_allclose(b[:2], eb[:2], rtol=2e-3)
    with pytest.raises(ValueError, match="cut-off"):
        R.timoshenko_cantilever_frequency_equation(1.0, EI, 50.0, rhoA, 0.05, 4)
