"""The fully parameterized ANCF beam element (flexmbd/beams/ancf_beam.py): derivatives,
rigid motion, patch tests, Poisson locking, mass and weight."""
import numpy as np
import pytest

from flexmbd.beams.ancf_beam import LOCKING, AncfElements, hermite_shapes, reference_coordinates, section_rule
from flexmbd.beams.geometry import CircularArc, StraightLine
from flexmbd.rotations import rotation_matrix

RECT = dict(shape="rectangle", width2=0.1, height3=0.06)


def elements(geometry, n_el, locking, section=RECT, E=1e3, nu=0.3, rho=7.0):
    """Elements of a beam on ``geometry`` and the chain's reference coordinates (n_el + 1, 12)."""
    nd = geometry.nodes(n_el + 1)
    q = reference_coordinates(nd.x, nd.R)
    conn = np.c_[np.arange(n_el), np.arange(1, n_el + 1)]
    el = AncfElements(q[conn].reshape(n_el, 24), np.diff(nd.s), section_rule(section), E, nu, rho, locking)
    return el, q, conn


GEOMETRIES = {"straight": StraightLine((0.1, -0.2, 0.3), (1.1, 0.4, -0.2)),
              "curved": CircularArc((0, 0, 0), 1.0, np.pi / 2, 0.0)}


def central(fun, e, h=1e-6):
    """d fun(e)/d e_j for every element at once (n, ..., 24)."""
    out = []
    for j in range(e.shape[1]):
        ep, em = e.copy(), e.copy()
        ep[:, j] += h
        em[:, j] -= h
        out.append((fun(ep) - fun(em)) / (2 * h))
    return np.stack(out, axis=-1)


@pytest.mark.parametrize("locking", LOCKING)
@pytest.mark.parametrize("geo", GEOMETRIES)
def test_force_is_energy_gradient_and_tangent_is_exact(locking, geo):
    el, _, _ = elements(GEOMETRIES[geo], 2, locking)
    rng = np.random.default_rng(3)
    e = el.e_ref + 0.05 * rng.standard_normal(el.e_ref.shape)
    f, K, V = el.elastic_forces(e)
    f_fd = central(lambda x: el.elastic_forces(x, False)[2], e)
    K_fd = central(lambda x: el.elastic_forces(x, False)[0], e)
    assert np.abs(f - f_fd).max() <= 1e-6 * np.abs(f).max()
    assert np.abs(K - K_fd).max() <= 1e-6 * np.abs(K).max()
    assert np.abs(K - np.swapaxes(K, 1, 2)).max() <= 1e-12 * np.abs(K).max()


@pytest.mark.parametrize("locking", LOCKING)
@pytest.mark.parametrize("geo", GEOMETRIES)
def test_rigid_motion_has_no_elastic_force(locking, geo):
    """Translation + rotation of the reference: zero energy and zero force (relative to
    the forces of a 1 % stretch)."""
    el, _, _ = elements(GEOMETRIES[geo], 3, locking)
    R = rotation_matrix(np.array([0.3, -0.5, 0.7, 0.4]) / np.linalg.norm([0.3, -0.5, 0.7, 0.4]))
    d = el.e_ref.reshape(-1, 8, 3)
    moved = d @ R.T
    moved[:, [0, 4]] += np.array([2.0, -1.0, 0.5])
    f, _, V = el.elastic_forces(moved.reshape(-1, 24), False)
    scale = np.abs(el.elastic_forces(1.01 * el.e_ref, False)[0]).max()
    assert np.abs(f).max() <= 1e-12 * scale
    assert np.all(np.abs(V) <= 1e-12 * np.abs(el.elastic_forces(1.01 * el.e_ref, False)[2]).max())


def solve_static(el, conn, q0, fixed, loads, steps=5, tol=1e-10):
    """Newton on the chain of elements: nodal coordinates (N, 12) with the listed global
    coordinates ``fixed``, nodal ``loads`` (N*12,) applied in equal steps."""
    n = q0.size
    rows = (conn[:, :, None] * 12 + np.arange(12)).reshape(len(conn), 24)
    free = np.setdiff1d(np.arange(n), fixed)
    q = q0.ravel().copy()
    for lf in np.linspace(0, 1, steps + 1)[1:]:
        for _ in range(50):
            f, K, _ = el.elastic_forces(q[rows])
            r = -lf * loads
            np.add.at(r, rows, f)
            Kg = np.zeros((n, n))
            np.add.at(Kg, (rows[:, :, None], rows[:, None, :]), K)
            dq = np.linalg.solve(Kg[np.ix_(free, free)], -r[free])
            q[free] += dq
            if np.linalg.norm(dq) <= tol * max(1.0, np.linalg.norm(q)):
                break
        else:
            raise AssertionError("Newton did not converge")
    return q.reshape(q0.shape)


@pytest.mark.parametrize("locking", LOCKING)
def test_patch_uniform_tension_exact_stretch_and_contraction(locking):
    """A free bar under an end force N: S₁₁ = E E₁₁, S₂₂ = S₃₃ = 0, so
    N = E A (1 + ε) E₁₁ with E₁₁ = ((1 + ε)² − 1)/2 and (1 + ε_t)² = 1 − 2ν E₁₁.  A uniform
    strain is in the element's space and both forms have the full St. Venant-Kirchhoff
    energy under it (the strain split moves only the Poisson coupling to the centre line,
    where the strain is the same), so both must find it to rounding."""
    E, nu, L = 1e3, 0.3, 1.2
    el, q0, conn = elements(StraightLine((0, 0, 0), (L, 0, 0)), 3, locking, E=E, nu=nu)
    A = 0.1 * 0.06
    N = 0.5 * E * A                                                # a large stretch: E₁₁ ≈ 0.29
    # clamp the rigid motions only: r of node 0, r_x's y, z and r_y's z components
    fixed = np.array([0, 1, 2, 4, 5, 8])
    loads = np.zeros(q0.size)
    loads[12 * (len(q0) - 1)] = N
    q = solve_static(el, conn, q0, fixed, loads)
    from scipy.optimize import brentq
    eps = brentq(lambda s: E * A * (1 + s) * ((1 + s) ** 2 - 1) / 2 - N, 0.0, 1.0)
    E11 = ((1 + eps) ** 2 - 1) / 2
    lateral = np.sqrt(1 - 2 * nu * E11)
    assert q[-1, 0] == pytest.approx(L * (1 + eps), rel=1e-12)
    for node in q:
        np.testing.assert_allclose(node[3:6], [1 + eps, 0, 0], atol=1e-12)
        np.testing.assert_allclose(node[6:9], [0, lateral, 0], atol=1e-12)
        np.testing.assert_allclose(node[9:12], [0, 0, lateral], atol=1e-12)
    assert lateral < 0.95       # the contraction is real (ν E₁₁ ≈ 0.09)
    e = q[conn].reshape(len(conn), 24)
    np.testing.assert_allclose(el.axial_force(e), N, rtol=1e-12)       # the section resultant
    np.testing.assert_allclose(el.curvature(e), 0.0, atol=1e-12)


def cantilever_tip(locking, n_el, nu, P=1e-7):
    """Tip deflection / (PL³/3EI) of a clamped straight cantilever (L/h = 50) under a small
    transverse tip load (δ/L = 2.5e-6: the linear limit)."""
    E, L, b, h = 1e6, 1.0, 0.02, 0.02
    el, q0, conn = elements(StraightLine((0, 0, 0), (L, 0, 0)), n_el, locking,
                            section=dict(shape="rectangle", width2=b, height3=h), E=E, nu=nu)
    loads = np.zeros(q0.size)
    loads[12 * n_el + 2] = P
    q = solve_static(el, conn, q0, np.arange(12), loads, steps=1)
    return q[-1, 2] / (P * L ** 3 / (3 * E * b * h ** 3 / 12))


def test_linear_limit_and_poisson_locking_shown_and_cured():
    """Converged tip deflection against Timoshenko's PL³/3EI (1 + 3EI/(kGAL²)) with k = 1
    (the linear section carries a uniform shear strain).  The element's error falls as h²
    (its shear locking: the quadratic r_x against the linear r_z), so the 16- and 32-element
    results are extrapolated (Richardson).  With ν = 0.3 the plain form bends with the
    plane-strain modulus λ + 2μ = E (1 − ν)/((1 + ν)(1 − 2ν)), a factor
    (1 + ν)(1 − 2ν)/(1 − ν) = 0.743 on the bending part; the strain split recovers E I."""
    h_over_L = 0.02
    shear = {nu: 3.0 * (h_over_L ** 2 / 12.0) * 2.0 * (1.0 + nu) for nu in (0.0, 0.3)}   # 3EI/(GAL²)
    locked = (1.3 * 0.4 / 0.7)
    cases = [("plain", 0.0, 1.0 + shear[0.0]), ("strain-split", 0.3, 1.0 + shear[0.3]),
             ("plain", 0.3, locked + shear[0.3])]
    for locking, nu, expected in cases:
        r8, r16, r32 = (cantilever_tip(locking, n, nu) for n in (8, 16, 32))
        assert (r16 - r8) / (r32 - r16) == pytest.approx(4.0, rel=0.05)        # O(h²)
        assert r32 + (r32 - r16) / 3.0 == pytest.approx(expected, rel=2e-6)


@pytest.mark.parametrize("section", [RECT, dict(shape="circle", d=0.08), dict(shape="tube", d_outer=0.08,
                                                                              d_inner=0.05)])
def test_mass_and_rigid_body_inertia_exact(section):
    """Straight beam (0..L along x): uᵀ M u = ρ A L for a translation, and the kinetic
    energy of a rigid rotation ω about the origin is ½ ωᵀ J ω with the prism's J."""
    rho, L = 7.0, 1.3
    el, q0, conn = elements(StraightLine((0, 0, 0), (L, 0, 0)), 3, "strain-split", section=section, rho=rho)
    ys, zs, ws = section_rule(section)
    A, Iy2, Iz2 = ws.sum(), ws @ ys ** 2, ws @ zs ** 2
    if section["shape"] == "rectangle":
        assert (A, Iy2, Iz2) == pytest.approx((0.006, 0.06 * 0.1 ** 3 / 12, 0.1 * 0.06 ** 3 / 12), rel=1e-14)
    else:
        ro, ri = 0.04, (0.025 if section["shape"] == "tube" else 0.0)
        assert (A, Iy2, Iz2) == pytest.approx((np.pi * (ro ** 2 - ri ** 2),) + (np.pi * (ro ** 4 - ri ** 4) / 4,) * 2,
                                              rel=1e-14)
    M = el.mass_matrix()
    rows = (conn[:, :, None] * 12 + np.arange(12)).reshape(len(conn), 24)
    Mg = np.zeros((q0.size, q0.size))
    np.add.at(Mg, (rows[:, :, None], rows[:, None, :]), M)
    u = np.zeros(q0.shape)
    u[:, 0:3] = [0.3, -0.4, 1.2]
    assert u.ravel() @ Mg @ u.ravel() == pytest.approx(rho * A * L * 1.69, rel=1e-13)
    w = np.array([0.7, -1.1, 0.4])
    v = np.concatenate([np.cross(w, q0[:, 3 * k:3 * k + 3]) for k in range(4)], axis=1)
    J = rho * np.array([[A * L * 0 + L * (Iy2 + Iz2), 0, 0],
                        [0, A * L ** 3 / 3 + L * Iz2, 0],
                        [0, 0, A * L ** 3 / 3 + L * Iy2]])
    J[0, 1] = J[1, 0] = J[0, 2] = J[2, 0] = 0.0
    assert 0.5 * v.ravel() @ Mg @ v.ravel() == pytest.approx(0.5 * w @ J @ w, rel=1e-12)
    # weight: ρ ∫ Sᵀ g dV = M u_g (u_g: every node translated by g), total ρ A L g
    g = np.array([0.3, -9.81, 1.2])
    Wt = np.zeros(q0.size)
    np.add.at(Wt, rows, el.weight(g))
    ug = np.zeros(q0.shape)
    ug[:, 0:3] = g
    np.testing.assert_allclose(Wt, Mg @ ug.ravel(), rtol=0, atol=1e-12 * np.abs(Wt).max())
    np.testing.assert_allclose(Wt.reshape(-1, 12)[:, 0:3].sum(0), rho * A * L * g, rtol=1e-13)


def test_shape_functions_reproduce_the_reference():
    """r(ξ) of the Hermite interpolation passes through the nodes with the nodal gradients."""
    s, ds = hermite_shapes(np.array([0.0, 1.0]), 0.0, 0.0, 2.0)
    np.testing.assert_allclose(s, [[1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(ds[..., 0], [[0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(ds[..., 1], [[0, 0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0]], atol=1e-15)


def test_bad_input():
    with pytest.raises(ValueError, match="shape"):
        section_rule({"EA": 1.0})
    with pytest.raises(ValueError, match="locking"):
        elements(GEOMETRIES["straight"], 1, "reduced")


def cantilever_frequencies(locking, n_el, nu, L=1.0, h=0.01, E=1e6, rho=1.0):
    """Lowest ω of a clamped straight cantilever (square h × h, L/h = 100), divided by the
    Euler-Bernoulli values (β_k L)² √(EI/(ρ A L⁴)), β_1 L = 1.8751040687, β_2 L = 4.6940911330
    (roots of cos βL cosh βL = −1; e.g. Meirovitch, *Fundamentals of Vibrations*, sec. 8.7).
    The square section gives each bending frequency twice."""
    import scipy.linalg

    el, q0, conn = elements(StraightLine((0, 0, 0), (L, 0, 0)), n_el, locking,
                            section=dict(shape="rectangle", width2=h, height3=h), E=E, nu=nu, rho=rho)
    rows = (conn[:, :, None] * 12 + np.arange(12)).reshape(n_el, 24)
    n = q0.size
    Kg, Mg = np.zeros((n, n)), np.zeros((n, n))
    np.add.at(Kg, (rows[:, :, None], rows[:, None, :]), el.elastic_forces(el.e_ref)[1])
    np.add.at(Mg, (rows[:, :, None], rows[:, None, :]), el.mass_matrix())
    free = np.arange(12, n)
    w = np.sqrt(scipy.linalg.eigh(Kg[np.ix_(free, free)], Mg[np.ix_(free, free)], eigvals_only=True)[:4])
    beta = np.array([1.8751040687119611, 4.694091132974175])
    w_eb = beta ** 2 * np.sqrt(E * h ** 4 / 12 / (rho * h * h * L ** 4))
    return w / np.repeat(w_eb, 2)


def test_cantilever_bending_frequencies():
    """Strain split: the error falls as h² and the extrapolated first frequency is
    Euler-Bernoulli's within the shear and rotary-inertia correction, O((β₁ r)²) with
    r² = h²/12 (≈ 1e-4 here).  Plain form: the locked bending stiffness raises ω by
    √((1 − ν)/((1 + ν)(1 − 2ν))) = 1.160."""
    r16, r32 = cantilever_frequencies("strain-split", 16, 0.3), cantilever_frequencies("strain-split", 32, 0.3)
    assert r16[0] == pytest.approx(r16[1], rel=1e-7)      # the two bending planes (to the eigensolver's rounding)
    assert (r16[0] - 1) / (r32[0] - 1) == pytest.approx(4.0, rel=0.5)
    assert r32[0] + (r32[0] - r16[0]) / 3 == pytest.approx(1.0, abs=1e-4)
    assert r32[2] == pytest.approx(1.0, abs=1e-3)                          # second mode at 32 elements
    locked = cantilever_frequencies("plain", 32, 0.3)
    assert locked[0] == pytest.approx(np.sqrt(0.7 / (1.3 * 0.4)), rel=1e-3)
