"""Tests of the crank-rocker reference in flexmbd.verify.crank_rocker_reference.

The reference is checked by means independent of its Newton-Euler equations:
finite differences of its own kinematics, the geometric closure, power and
energy balances (quadrature), a Lagrange equation in the crank angle written
here for the frictionless case, and the limit of a free crank of huge inertia,
which must reproduce the driven solution.
"""


import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from flexmbd.verify import crank_rocker_reference as CR

P = CR.crank_rocker_parameters()
LOADS = [(c, g) for c in P.c_values for g in P.g_values]
REV = 2 * np.pi / P.omega          # one crank revolution of the driven case


def e(th):
    return np.stack([-np.sin(th), np.cos(th)], axis=-1)


def cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# ---------------------------------------------------------------------------
# Parameters and kinematics
# ---------------------------------------------------------------------------


def test_parameters_are_uniform_rods():
    # rocker: uniform rod of length 2 L1 about its end; crank: uniform rod of length 2 L2
    assert P.J1 == pytest.approx(P.m1 * (2 * P.L1) ** 2 / 3, rel=1e-15)
    assert P.J2 == pytest.approx(P.m2 * (2 * P.L2) ** 2 / 3, rel=1e-15)
    assert (P.L4, P.L3, P.mu, P.omega) == (1.0, 0.5, 0.2, 3.0)
    assert P.L3 < P.L4                  # rho >= L4 - L3 > 0: a crank-rocker


def test_kinematics_closure_and_law_of_cosines():
    th2 = np.linspace(-7.0, 7.0, 2001)
    k = CR.crank_rocker_kinematics(th2, 1.3, -0.4)
    B_crank = np.array([0.0, P.L4]) + P.L3 * e(th2)
    B_slot = k.rho[:, None] * e(k.theta1)
    assert np.max(np.abs(B_slot - B_crank)) < 1e-14
    assert np.max(np.abs(k.B - B_crank)) < 1e-14
    rho2 = P.L4 ** 2 + P.L3 ** 2 + 2 * P.L3 * P.L4 * np.cos(th2)
    np.testing.assert_allclose(k.rho ** 2, rho2, rtol=1e-14)
    assert np.all(k.rho >= P.L4 - P.L3 - 1e-15)


def test_kinematics_derivatives_by_central_differences():
    # a crank motion with non-zero, varying acceleration
    def crank(t):
        return (0.3 + 2.0 * t + 0.7 * np.sin(1.3 * t),
                2.0 + 0.91 * np.cos(1.3 * t),
                -1.183 * np.sin(1.3 * t))

    def kin(t):
        return CR.crank_rocker_kinematics(*crank(t))

    t = np.linspace(0.0, 6.0, 301)
    h = 1e-4
    k0, kp, km = kin(t), kin(t + h), kin(t - h)
    # unwrap-free: theta1 stays in (-pi/2, pi/2) since B_y >= L4 - L3 > 0
    d1 = (kp.theta1 - km.theta1) / (2 * h)
    dd1 = (kp.theta1 - 2 * k0.theta1 + km.theta1) / h ** 2
    dr = (kp.rho - km.rho) / (2 * h)
    ddr = (kp.rho - 2 * k0.rho + km.rho) / h ** 2
    # truncation ~ h^2 |f'''|/6 and h^2 |f''''|/12 (derivatives of order 10..100 here),
    # rounding ~ eps/h^2 ~ 2e-8 for the second differences
    assert np.max(np.abs(d1 - k0.dtheta1)) < 1e-6
    assert np.max(np.abs(dr - k0.drho)) < 1e-6
    assert np.max(np.abs(dd1 - k0.ddtheta1)) < 1e-5
    assert np.max(np.abs(ddr - k0.ddrho)) < 1e-5
    # the velocity and acceleration of B are those of B = rho e(theta1)
    vB = (kp.B - km.B) / (2 * h)
    assert np.max(np.abs(vB - k0.vB)) < 1e-6
    aB = (kp.B - 2 * k0.B + km.B) / h ** 2
    assert np.max(np.abs(aB - k0.aB)) < 1e-5


# ---------------------------------------------------------------------------
# Driven crank
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("c,g", LOADS)
def test_driven_collinear_positions(c, g):
    """At th2 = 0 and pi (B on the line O O1) th1'' = 0, rho' = 0 and changes
    sign, and F_f changes sign."""
    eps = 1e-6
    for t in (0.0, np.pi / P.omega, REV):
        d = CR.crank_rocker_driven(np.array([t - eps, t, t + eps]), c=c, g=g)
        assert abs(d.ddtheta1[1]) < 1e-12
        assert abs(d.drho[1]) < 1e-13
        assert d.drho[0] * d.drho[2] < 0
        assert d.F_f[1] == 0.0                      # sgn(0) = 0
        assert d.F_f[0] * d.F_f[2] < 0
        if c > 0:
            # N does not vanish there: a jump of 2 mu |N| in F_f
            assert abs(d.N[1]) > 1.0
            assert abs(d.F_f[2] - d.F_f[0]) == pytest.approx(2 * P.mu * abs(d.N[1]), rel=1e-4)
        else:
            # no damping: every moment about O vanishes there, so N = 0
            assert abs(d.N[1]) < 1e-12


@pytest.mark.parametrize("c,g", LOADS)
def test_driven_slider_never_sticks_and_friction_opposes_sliding(c, g):
    t = np.linspace(0.0, REV, 4001)
    d = CR.crank_rocker_driven(t, c=c, g=g)
    inner = (t > 1e-9) & (np.abs(t - np.pi / P.omega) > 1e-9) & (t < REV - 1e-9)
    # rho' vanishes only at th2 = 0, pi
    assert np.all(np.abs(d.drho[inner]) > 1e-4)
    assert np.all(d.F_f * d.drho <= 0.0)
    np.testing.assert_allclose(np.abs(d.F_f[inner]), P.mu * np.abs(d.N[inner]), rtol=1e-14)
    assert np.all(np.isfinite(d.N)) and np.max(np.abs(d.N)) > 10.0


def test_friction_has_no_moment_about_O():
    d = CR.crank_rocker_driven(np.linspace(0, REV, 97), c=8.0, g=9.81)
    B = d.rho[:, None] * e(d.theta1)
    arm = cross(B, e(d.theta1))
    assert np.max(np.abs(arm)) < 1e-14
    # hence N does not depend on mu in the driven case, while tau does
    d0 = CR.crank_rocker_driven(d.t, c=8.0, g=9.81, mu=0.0)
    np.testing.assert_allclose(d.N, d0.N, rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(d.tau - d0.tau)) > 1.0


def test_driven_pin_force_and_signs_of_N():
    """The slider's Newton law closes with the returned forces, and N has the
    sign the rocker's moment balance demands in a simple check: with g = 0 and
    c = 0 the rocker's only moment about O is -N rho (normal force) so
    J1 th1'' = -N rho."""
    t = np.linspace(0, REV, 61)
    d = CR.crank_rocker_driven(t, c=0.0, g=0.0)
    np.testing.assert_allclose(P.J1 * d.ddtheta1, -d.N * d.rho, rtol=1e-12, atol=1e-10)
    d = CR.crank_rocker_driven(t, c=8.0, g=9.81)
    k = CR.crank_rocker_kinematics(d.theta2, d.dtheta2, 0.0)
    e1 = e(d.theta1)
    n1 = np.stack([-np.cos(d.theta1), -np.sin(d.theta1)], axis=-1)
    force = d.N[:, None] * n1 + d.F_f[:, None] * e1 + d.P + np.array([0.0, -P.m3 * 9.81])
    np.testing.assert_allclose(force, P.m3 * k.aB, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("c,g", LOADS)
def test_driven_power_balance_pointwise(c, g):
    """tau th2' = d(T + V)/dt + c th1'^2 + mu |N| |rho'| at every instant."""
    t = np.linspace(0.013, REV - 0.013, 200)
    h = 1e-5
    d = CR.crank_rocker_driven(t, c=c, g=g)
    dp = CR.crank_rocker_driven(t + h, c=c, g=g)
    dm = CR.crank_rocker_driven(t - h, c=c, g=g)
    dE = ((dp.T + dp.V) - (dm.T + dm.V)) / (2 * h)
    rhs = dE + c * d.dtheta1 ** 2 + P.mu * np.abs(d.N) * np.abs(d.drho)
    scale = np.max(np.abs(d.tau * d.dtheta2))
    assert np.max(np.abs(d.tau * d.dtheta2 - rhs)) < 1e-6 * scale


def _breakpoints_driven(c, g):
    """Zeros of N and rho' in one revolution (where the integrands have kinks)."""
    grid = np.linspace(0.0, REV, 2001)
    pts = {np.pi / P.omega}

    def N(s):
        return CR.crank_rocker_driven(np.array([s]), c=c, g=g).N[0]

    vals = CR.crank_rocker_driven(grid, c=c, g=g).N
    for i in np.nonzero(vals[:-1] * vals[1:] < 0)[0]:
        pts.add(brentq(N, grid[i], grid[i + 1], xtol=1e-15))
    return sorted(p for p in pts if 1e-9 < p < REV - 1e-9)


@pytest.mark.parametrize("c,g", LOADS)
def test_driven_energy_balance_one_revolution(c, g):
    """int tau th2' dt = Delta T + Delta V + int c th1'^2 dt + int mu |N||rho'| dt."""
    def one(name):
        def f(s):
            d = CR.crank_rocker_driven(np.array([s]), c=c, g=g)
            return {"input": d.tau * d.dtheta2, "damping": c * d.dtheta1 ** 2,
                    "friction": P.mu * np.abs(d.N) * np.abs(d.drho)}[name][0]
        edges = [0.0] + _breakpoints_driven(c, g) + [REV]
        total = err = 0.0
        for a, b in zip(edges[:-1], edges[1:]):
            v, er = quad(f, a, b, epsabs=1e-12, epsrel=1e-13, limit=200)
            total += v
            err += er
        return total, err

    W, eW = one("input")
    Dd, eD = one("damping")
    Df, eF = one("friction")
    d = CR.crank_rocker_driven(np.array([0.0, REV]), c=c, g=g)
    dTV = (d.T[1] + d.V[1]) - (d.T[0] + d.V[0])
    assert abs(dTV) < 1e-12                       # periodic motion
    assert Df > 1.0                               # friction does dissipate
    tol = 10 * (eW + eD + eF) + 1e-10 * (abs(W) + Dd + Df)
    assert abs(W - (dTV + Dd + Df)) < tol


# ---------------------------------------------------------------------------
# Free crank
# ---------------------------------------------------------------------------


def _segment_edges(r, t_end):
    return [ev.t for ev in r.events] + [t_end]


def _dissipation_by_quadrature(r, t_end, c):
    """int mu |N||rho'| dt and int c th1'^2 dt from the dense output, by quad
    between events (N is smooth there; its zeros are events)."""
    def fric(s):
        x = r.evaluate(s)
        return (P.mu * np.abs(x.N) * np.abs(x.drho))[0]

    def damp(s):
        x = r.evaluate(s)
        return (c * x.dtheta1 ** 2)[0]

    edges = _segment_edges(r, t_end)
    F = D = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if b - a > 1e-12:
            F += quad(fric, a, b, epsabs=1e-12, epsrel=1e-12, limit=200)[0]
            D += quad(damp, a, b, epsabs=1e-12, epsrel=1e-12, limit=200)[0]
    return F, D


@pytest.mark.parametrize("c", [0.0, 8.0])
def test_free_frictionless_matches_lagrange(c):
    """With mu = 0 the Newton-Euler acceleration equals that of the Lagrange
    equation in th2, written here from T = M(th2) th2'^2/2 and V(th2):
    M th2'' + M'/2 th2'^2 + V' = -c th1' dth1/dth2."""
    g = 9.81
    r = CR.crank_rocker_free(1.5, 0.4, 5.0, c=c, g=g, mu=0.0, t_eval=np.linspace(0, 1.5, 41))
    if c == 0.0:
        E = r.T + r.V
        assert np.max(np.abs(E - E[0])) < 1e-10 * abs(E[0])

    def th1(th2):                                    # angle of B from +y
        return np.arctan2(P.L3 * np.sin(th2), P.L4 + P.L3 * np.cos(th2))

    def M(th2, h=1e-5):
        j = (th1(th2 + h) - th1(th2 - h)) / (2 * h)  # dth1/dth2
        return P.J1 * j ** 2 + P.J2 + P.m3 * P.L3 ** 2, j

    def V(th2):
        By = P.L4 + P.L3 * np.cos(th2)
        return g * (P.m1 * P.L1 * np.cos(th1(th2)) + P.m2 * (P.L4 + P.L2 * np.cos(th2))
                    + P.m3 * By)

    h = 1e-4
    th2, w2 = r.theta2, r.dtheta2
    m, j = M(th2)
    dM = (M(th2 + h)[0] - M(th2 - h)[0]) / (2 * h)
    dV = (V(th2 + h) - V(th2 - h)) / (2 * h)
    acc = (-0.5 * dM * w2 ** 2 - dV - c * j * w2 * j) / m
    np.testing.assert_allclose(r.ddtheta2, acc, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("c,g", LOADS)
def test_free_energy_balance_with_friction(c, g):
    t_end = 2.0
    r = CR.crank_rocker_free(t_end, 0.0, 6.0, c=c, g=g, mu=P.mu,
                             t_eval=np.linspace(0, t_end, 401))
    E0 = r.T[0] + r.V[0]
    # with the dissipation integrated along with the motion
    bal = r.T + r.V + r.E_friction + r.E_damping
    assert np.max(np.abs(bal - E0)) < 1e-9 * E0
    # and with the dissipation integrated afresh by quadrature of the dense output
    F, D = _dissipation_by_quadrature(r, t_end, c)
    assert F > 1.0
    assert abs(r.T[-1] + r.V[-1] + F + D - E0) < 1e-9 * E0
    # the right-hand side solved for th2'' is the derivative of th2'
    h = 1e-5
    tm = r.t[5:-5]
    fd = (r.evaluate(tm + h).dtheta2 - r.evaluate(tm - h).dtheta2) / (2 * h)
    near_event = np.min(np.abs(tm[:, None] - np.array([ev.t for ev in r.events])[None]), axis=1)
    ok = near_event > 2 * h
    np.testing.assert_allclose(fd[ok], r.ddtheta2[5:-5][ok], rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("c,g", LOADS)
def test_free_events_and_sign_cases(c, g):
    t_end = 2.0
    r = CR.crank_rocker_free(t_end, 0.0, 6.0, c=c, g=g, t_eval=np.linspace(0, t_end, 801))
    assert r.events[0].kind == "start" and len(r.events) >= 2
    edges = _segment_edges(r, t_end)
    for ev, (a, b) in zip(r.events, zip(edges[:-1], edges[1:])):
        if ev.kind != "start":
            x = r.evaluate(ev.t)
            if "sliding reversal" in ev.kind:
                assert abs(x.drho[0]) < 1e-9
            if "normal force" in ev.kind:
                assert abs(x.N[0]) < 1e-8
        # between events the signs of rho' and N are those of the sign case
        inner = np.linspace(a, b, 52)[1:-1]
        x = r.evaluate(inner)
        assert np.all(np.sign(x.drho) == ev.s)
        assert np.all(np.sign(x.N) == ev.sigma)
    assert np.all(r.F_f * r.drho <= 0.0)
    np.testing.assert_allclose(np.abs(r.F_f), P.mu * np.abs(r.N), rtol=1e-14)


def test_free_crank_of_huge_inertia_reproduces_driven_solution():
    """A free crank with J2 -> infinity keeps th2' = omega; its N equals the
    driven N and J2 th2'' tends to -tau (the load the motor would carry)."""
    big = CR.CrankRockerParameters(J2=1e9)
    t = np.linspace(0.0, REV, 61)
    r = CR.crank_rocker_free(REV, 0.0, P.omega, c=8.0, g=9.81, t_eval=t, params=big)
    d = CR.crank_rocker_driven(t, c=8.0, g=9.81)
    assert np.max(np.abs(r.dtheta2 - P.omega)) < 1e-6
    scaleN = np.max(np.abs(d.N))
    assert np.max(np.abs(r.N - d.N)) < 1e-5 * scaleN
    assert np.max(np.abs(big.J2 * r.ddtheta2 + d.tau)) < 1e-5 * np.max(np.abs(d.tau))
    kinds = [ev.kind for ev in r.events]
    assert kinds.count("sliding reversal") == 1      # at th2 = pi (th2 = 0 is the start)


def test_free_default_run_reaches_its_end():
    r = CR.crank_rocker_free(1.5)
    assert r.t[-1] == 1.5 and np.all(np.isfinite(r.N))


def test_free_sticking_is_reported_with_its_time():
    # released near the top with little speed, the crank swings back and comes
    # to rest with the slider held by friction
    with pytest.raises(NotImplementedError, match=r"stick at t = \d"):
        CR.crank_rocker_free(4.0, 0.0, 3.0, c=8.0, g=9.81)
