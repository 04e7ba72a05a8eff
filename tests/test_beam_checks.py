"""Independent checks of the beams on classic nonlinear problems: the exact elastica,
locking versus order and integration, and Newton on stiff sections.

Unit cantilever, EI = GJ = L = 1, EA = GA = ``ratio`` EI/L², dead tip force α EI/L²
perpendicular to the axis (``benchmarks/beam_checks.py`` prints the tables of
docs/verification-beams.md from the same models).
"""
import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.solvers.settings import StaticSettings
from flexmbd.verify.references import elastica_cantilever


def cantilever(elements, alpha, ratio, **beam):
    sec = Section.user(EA=ratio, GA2=ratio, GA3=ratio, GJ=1.0, EI2=1.0, EI3=1.0)
    m = fm.Model()
    b = m.beam("rod", section=sec, elements=elements, start=(0, 0, 0), end=(1, 0, 0), **beam)
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, (0.0, -alpha, 0.0))
    return m, b


def solve(elements, alpha, ratio, load_steps=10, **beam):
    """(result, tip deflection error over L, RuntimeWarnings raised)."""
    m, b = cantilever(elements, alpha, ratio, **beam)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        res = m.static_equilibrium(load_steps=load_steps, convergence="increment", tol=1e-10)
    assert res.success, res.message
    tip = res[f"{b.last.name}.position"][-1]
    return res, abs(-tip[1] - elastica_cantilever(alpha).deflection), [w for w in caught
                                                                       if issubclass(w.category, RuntimeWarning)]


# ------------------------------------------------------------------ the reference
def shooting(alpha):
    """The elastica θ'' = −α cos θ, θ(0) = 0, θ'(1) = 0 by shooting on θ'(0) (RK45 at
    1e-12), integrating x' = cos θ, y' = sin θ: independent of the elliptic integrals."""
    def run(c):
        return solve_ivp(lambda s, u: [u[1], -alpha * np.cos(u[0]), np.cos(u[0]), np.sin(u[0])], (0.0, 1.0),
                         [0.0, c, 0.0, 0.0], rtol=1e-12, atol=1e-13).y[:, -1]
    c = brentq(lambda c: run(c)[1], 0.0, alpha * 1.0000001, xtol=1e-15)
    th, _, x, y = run(c)
    return x, y, th


@pytest.mark.parametrize("alpha", [0.01, 1.0, 10.0])
def test_elastica_reference_agrees_with_shooting(alpha):
    ref = elastica_cantilever(alpha)
    x, y, th = shooting(alpha)
    assert ref.x == pytest.approx(x, abs=1e-10)
    assert ref.deflection == pytest.approx(y, abs=1e-10)
    assert ref.rotation == pytest.approx(th, abs=1e-10)


def test_elastica_reference_small_load_is_linear():
    """δ/L = α/3, θ = α/2 (Euler-Bernoulli) up to O(α³)."""
    ref = elastica_cantilever(1e-4)
    assert ref.deflection == pytest.approx(1e-4 / 3, rel=1e-7)
    assert ref.rotation == pytest.approx(1e-4 / 2, rel=1e-7)


# ------------------------------------------------------------------ locking
@pytest.mark.parametrize("beam, expected", [
    (dict(order=1), "full"), (dict(order=2), "reduced"), (dict(order=3), "reduced"),
    (dict(order=2, interpolation="nurbs"), "reduced"), (dict(formulation="r3r3"), "reduced")])
def test_default_integration_by_element(beam, expected):
    _, b = cantilever(2, 1.0, 1e6, **beam)
    assert b.integration == expected


def test_first_order_se3_is_the_same_with_any_rule():
    """Constant strain along the element: full and reduced integration agree to rounding."""
    full, _, _ = solve(8, 1.0, 1e6, integration="full")
    reduced, _, _ = solve(8, 1.0, 1e6, integration="reduced")
    np.testing.assert_allclose(full.q[-1], reduced.q[-1], rtol=0, atol=1e-13)


def test_quadratic_elements_do_not_lock_by_default():
    """Elastica α = 1, EA = GA = 1e6 EI/L², 16 quadratic elements.  The axial and shear
    flexibility moves the tip by O(α EI/(EA L²)) = 1e-6 L from the inextensible elastica
    (measured 1.0e-6 with the reduced rule); with the old default (full) the quadratic
    elements locked to the first-order elements' O(h²) error: 2.5e-4 against 2.6e-4."""
    _, err, _ = solve(16, 1.0, 1e6, order=2)
    _, err_linear, _ = solve(16, 1.0, 1e6, order=1)
    assert err <= 10 * 1.0 / 1e6
    assert err <= err_linear / 100


def test_cubic_elements_do_not_lock_by_default():
    """EA = GA = 1e8 EI/L² (model error 1e-8 L), 8 cubic Lagrange elements: 3.6e-8 with
    the reduced rule, 5.2e-6 with the full one (the old default)."""
    _, err, _ = solve(8, 1.0, 1e8, order=3)
    assert err <= 100 * 1.0 / 1e8


def test_quadratic_nurbs_lock_less_by_default():
    """Quadratic NURBS, 16 spans, EA = GA = 1e6 EI/L²: 1.4e-6 reduced against 3.7e-3 full
    (the old default).  (NURBS still lock on coarse meshes of slender beams with either
    rule: docs/verification-beams.md.)"""
    _, err, _ = solve(16, 1.0, 1e6, order=2, interpolation="nurbs")
    _, err_full, _ = solve(16, 1.0, 1e6, order=2, interpolation="nurbs", integration="full")
    assert err <= err_full / 100


def test_higher_order_mass_matrix_is_regular_with_reduced_integration():
    """The inertia of n-node elements takes p + 1 Gauss points whatever the elastic rule:
    with p points Σ_g w_g N(g) N(g)ᵀ has rank p per p + 1 nodes and the mass matrix of
    Lagrange elements was singular (rank 72 of 78 for 4 cubic elements)."""
    sec = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7850)
    masses = {}
    for integ in ("full", "reduced"):
        m = fm.Model()
        m.beam("rod", section=sec, elements=4, start=(0, 0, 0), end=(1, 0, 0), order=3, integration=integ)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = m.freeze()
        masses[integ] = s.mass_matrix(s.q0).toarray()
    np.testing.assert_array_equal(masses["reduced"], masses["full"])
    assert np.linalg.matrix_rank(masses["reduced"]) == 78


# ------------------------------------------------------------------ stiff sections
def test_stiff_sections_converge_like_r3r3():
    """α = 10, EA = GA = 1e8 EI/L², 64 elements, 10 load steps.  The SE(3) update of the
    nodes in the static Newton iteration (positions along a screw) took 330 iterations,
    8 step cuts and leaked 8 overflow warnings.  Now the first load step fails in that
    update (22 iterations, stopped as diverging), is retried in the chart x + R ΔU,
    R exp(ΔΩ) (6 iterations), and every later step converges quadratically in the chart,
    like R³×R³ (6 iterations each): 82 iterations, no cut, no warning."""
    se3, err, caught = solve(64, 10.0, 1e8)
    r3r3, _, _ = solve(64, 10.0, 1e8, formulation="r3r3", integration="reduced")
    assert caught == []
    assert int(np.sum(se3.stats["substeps"])) == 0
    np.testing.assert_array_equal(se3.iterations[2:], r3r3.iterations[2:])   # quadratic, as R³×R³
    assert se3.iterations[1] <= StaticSettings().max_iter + r3r3.iterations[1]      # one failed try
    assert err <= (1 / 64) ** 2                              # O(h²) to the elastica; 4.1e-5 measured


def test_static_chart_matrix_is_the_exact_derivative():
    """The Newton matrix of the chart equations Jᵀ F (beam nodes, an SE(3) body and a
    rotation-vector body on a spherical joint, both with constraints) against central
    differences of the equations."""
    from flexmbd.solvers.static import _Charts

    m = fm.Model()
    m.gravity = np.array([0.0, 0.0, -9.81])
    sec = Section.user(EA=50.0, GA2=40.0, GA3=40.0, GJ=2.0, EI2=3.0, EI3=4.0, rhoA=1.0, rhoI2=0.1, rhoI3=0.1)
    b = m.beam("rod", section=sec, elements=3, order=2, start=(0, 0, 0), end=(1, 0, 0))
    m.fixed(fm.GROUND, b.first)
    tip = m.rigid_body("tip", mass=2.0, inertia=(0.1, 0.2, 0.3), position=(1, 0, 0), parameterization="se3")
    m.fixed(b.last, tip)
    m.force(tip, (1.0, -2.0, 3.0))
    bob = m.rigid_body("bob", mass=1.0, inertia=(0.1, 0.2, 0.3), position=(0, 1, -0.5), parameterization="rotation")
    m.spherical(fm.GROUND, bob, at=(0, 1, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = m.freeze()
    chart, n = _Charts(s), s.n
    assert chart.frames == len(b.nodes) + 1
    rng = np.random.default_rng(3)
    base = s.increment(s.q0, 0.1 * rng.standard_normal(n))
    z = np.zeros(n)

    def equations(x, matrix=True):
        F, Phi, A = s.evaluate(chart.config(base, x[:n]), z, z, x[n:], 0.0, cM=0.0, cD=0.0, cK=1.0,
                               matrix=matrix, tangent=chart.tangent(x[:n]))
        g, A = chart.equations(x[:n], F, A)
        return np.r_[g, Phi], A

    x = np.r_[0.4 * rng.standard_normal(n), rng.standard_normal(s.m)]
    _, A = equations(x)
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    eps = 1e-6
    fd = np.column_stack([(equations(x + eps * e, False)[0] - equations(x - eps * e, False)[0]) / (2 * eps)
                          for e in np.eye(len(x))])
    assert np.max(np.abs(A - fd)) <= 1e-6 * np.max(np.abs(fd))


def test_newton_reports_a_diverged_iterate_without_overflow_warnings():
    """A residual too large to square is a failure ('residual is not finite'), not a
    RuntimeWarning from the norm."""
    from flexmbd.solvers.newton import NewtonSolver

    def problem(x, matrix):
        r = np.full(3, 1e200) * (1.0 + x)
        return r, r, np.eye(3)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = NewtonSolver(1e-8, 5).solve(problem, np.zeros(3))
    assert not out.converged and "not finite" in out.message
