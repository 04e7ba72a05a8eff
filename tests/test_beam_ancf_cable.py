"""The gradient-deficient ANCF cable (flexmbd/beams/ancf_cable.py, formulation "ancf-cable").

* kernel: forces = ∂U/∂e and stiffness = ∂f/∂e by central differences on random states
  of straight and curved references, both bending forms (relative 1e-6);
* rigid motion: zero elastic force under a rigid rotation and translation;
* patch: a uniform tension N stretches by exactly ε = N/EA (ε = |r′| − 1);
* linear limit: a small tip load against Euler-Bernoulli PL³/3EI (cubic Hermite holds
  the exact cubic deflection, so one element is exact up to the geometric nonlinearity);
* cantilever bending frequencies against β_i² √(EI/ρAL⁴) (error O(h⁴));
* P3's straight cantilever under (30, 20, 400) N against ABAQUS and the SE(3) beam;
* a cable pendulum under gravity with the default (trapezoidal) integrator: energy kept;
* model files: round trip and ``flexmbd run``; clamps; refused inputs.
"""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams import CircularArc, Section
from flexmbd.beams.ancf_cable import elastic_forces, hermite
from flexmbd.errors import ModelError
from flexmbd.kernels import AVAILABLE
from flexmbd.lie import so3_exp

STEEL = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3, rho=7800.0)
BETA = np.array([1.875104068711961, 4.694091132974175, 7.854757438237613])


def cable(geometry=None, n=4, section=STEEL, **kw):
    m = fm.Model(**kw.pop("model", {}))
    if geometry is None:
        rod = m.beam("rod", section=section, elements=n, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf-cable",
                     **kw)
    else:
        rod = m.beam("rod", section=section, elements=n, geometry=geometry, formulation="ancf-cable", **kw)
    return m, rod


def kernel(rod):
    d = rod.spec.data
    c, sec = d["cable"], d["section"]
    n = len(d["conn"])
    lin = d["options"]["bending"] == "linear"

    def f(e, jac=True):
        return elastic_forces(e, c["dH_a"], c["ddH_a"], c["W_a"], c["c0_a"], c["dH_b"], c["ddH_b"], c["W_b"],
                              c["kappa0_b"], np.full(n, sec.EA), np.full(n, sec.EI2), lin, jac)
    return d["e0"], f


ARC = CircularArc((0, 0, 0), 1.0, 0.0, np.pi / 2)
SOFT = Section.rectangle(0.05, 0.05, E=1e5, nu=0.3, rho=100.0)


@pytest.mark.parametrize("geometry,bending", [(None, "curvature"), (None, "linear"), (ARC, "curvature")])
def test_force_is_the_energy_gradient_and_stiffness_its_derivative(geometry, bending):
    _, rod = cable(geometry, n=3, section=SOFT, bending=bending)
    e0, f = kernel(rod)
    rng = np.random.default_rng(3)
    for _ in range(3):
        e = e0 + 0.2 * rng.standard_normal(e0.shape)
        F, K, _ = f(e)
        h = 1e-6
        dU, dF = np.zeros_like(F), np.zeros_like(K)
        for j in range(12):
            E = np.zeros_like(e)
            E[:, j] = h
            Fp, _, Up = f(e + E)
            Fm, _, Um = f(e - E)
            dU[:, j], dF[:, :, j] = (Up - Um) / (2 * h), (Fp - Fm) / (2 * h)
        assert np.max(np.abs(F - dU)) <= 1e-6 * np.max(np.abs(F))
        assert np.max(np.abs(K - dF)) <= 1e-6 * np.max(np.abs(K))
        np.testing.assert_allclose(K, np.swapaxes(K, 1, 2), atol=1e-9 * np.max(np.abs(K)))


@pytest.mark.parametrize("geometry", [None, ARC])
def test_no_elastic_force_under_rigid_motion(geometry):
    _, rod = cable(geometry, n=3, section=SOFT)
    e0, f = kernel(rod)
    R = so3_exp(np.array([0.3, -1.2, 0.7]))
    E = np.einsum("ij,nkj->nki", R, e0.reshape(-1, 4, 3))
    E[:, [0, 2]] += np.array([1.0, 2.0, 3.0])
    F, _, U = f(E.reshape(-1, 12))
    K0 = np.max(np.abs(f(e0)[1]))       # the stiffness scale: force per unit displacement
    assert np.max(np.abs(F)) <= 1e-12 * K0 and np.max(np.abs(U)) <= 1e-20 * K0
    assert np.max(np.abs(f(e0)[0])) <= 1e-12 * K0


def test_uniform_tension_gives_the_exact_stretch():
    N = 2.1e4                                            # ε = N/EA = 1e-3
    m, rod = cable(n=3)
    m.revolute(fm.GROUND, rod.first, at=(0, 0, 0), axis=(1, 0, 0), name="clamp")
    m.force(rod.last, (N, 0, 0), name="pull")
    res = m.static_equilibrium(load_steps=1)
    assert res.success
    eps = N / STEEL.EA
    for k, node in enumerate(rod.nodes):
        np.testing.assert_allclose(res[f"{node.name}.position"][-1], [k / 3 * (1 + eps), 0, 0], rtol=0, atol=1e-13)
    out = np.array([res[f"rod.e{i}.axial_force"][-1] for i in range(3)])
    np.testing.assert_allclose(out, N, rtol=1e-9)


@pytest.mark.parametrize("bending", ["curvature", "linear"])
def test_small_tip_load_matches_euler_bernoulli(bending):
    """δ = PL³/3EI at δ/L = 1e-4.  Cubic Hermite holds the exact cubic deflection, but one
    element with full integration membrane-locks (its cubic axial displacement cannot
    follow the shortening −w′²/2: measured −1.48e-6, growing as (δ/L)²); with 4 elements
    the error is the true geometric nonlinearity, −1.0e-8 (the same with 8 elements or
    with reduced integration)."""
    P = 3 * STEEL.EI2 * 1e-4
    for n, tol in ((1, 2e-6), (4, 3e-8)):
        m, rod = cable(n=n, bending=bending)
        m.revolute(fm.GROUND, rod.first, at=(0, 0, 0), axis=(1, 0, 0), name="clamp")
        m.force(rod.last, (0, 0, P), name="tip")
        res = m.static_equilibrium(load_steps=1, convergence="increment", tol=1e-12)
        tip = res["rod.last.position"][-1]
        assert abs(tip[2] / 1e-4 - 1) <= tol and abs(tip[1]) < 1e-15


def _frequencies(n):
    m, rod = cable(n=n)
    sys = m.freeze()
    z = np.zeros(sys.n)
    mats = [sys.evaluate(sys.q0, z, z, np.zeros(sys.m), 0.0, cM=cM, cD=0, cK=cK)[2] for cM, cK in ((0, 1), (1, 0))]
    K, M = (np.asarray(A.toarray() if hasattr(A, "toarray") else A)[6:sys.n, 6:sys.n] for A in mats)   # node 0 fixed
    import scipy.linalg as sl

    w = np.sqrt(np.abs(sl.eigh(K, M, eigvals_only=True)))
    return np.unique(np.round(w, 7))[:3]          # the bending pairs (y, z) coincide


def test_cantilever_bending_frequencies_converge_at_fourth_order():
    exact = BETA**2 * np.sqrt(STEEL.EI2 / (STEEL.rhoA * 1.0**4))
    e4 = _frequencies(4) / exact - 1
    e16 = _frequencies(16) / exact - 1
    # measured: 4 el. 3.27e-5, 1.17e-3, 7.74e-3; 16 el. 1.35e-7, 5.11e-6, 3.98e-5
    assert np.all(e4 > 0) and np.all(e16 > 0)                      # a consistent mass: from above
    assert e4[0] < 4e-5 and e4[1] < 1.5e-3 and e16[0] < 2e-7 and e16[1] < 6e-6
    assert 200 < e4[0] / e16[0] < 300                               # (16/4)⁴ = 256 for O(h⁴)


def test_p3_straight_cantilever_large_deflection():
    """Tip uz for 16 elements within 0.05 % of ABAQUS's 0.5143 and 5e-5 of flexmbd's SE(3)
    0.51426 (which adds shear flexibility EI/(k GA L²) ≈ 3e-5 and torsion)."""
    out = {}
    for n in (4, 16):
        m, rod = cable(n=n)
        m.revolute(fm.GROUND, rod.first, at=(0, 0, 0), axis=(1, 0, 0), name="clamp")
        m.force(rod.last, (30, 20, 400), name="tip")
        res = m.static_equilibrium(load_steps=10)
        assert res.success
        out[n] = res["rod.last.position"][-1, 2]
    # measured: 4 el. 0.510255, 16 el. 0.514242
    assert abs(out[16] / 0.5143 - 1) < 5e-4 and abs(out[16] / 0.51426 - 1) < 5e-5
    assert abs(out[4] - out[16]) > 10 * abs(out[16] - 0.51426)


def test_cable_pendulum_keeps_its_energy():
    """A pinned cable released horizontally under gravity; the trapezoidal rule keeps the
    total energy to O(h²) (measured 4.5e-6 J of 0.38 J kinetic over 1 s)."""
    sec = Section.circle(0.01, E=2e8, nu=0.3, rho=1000.0)
    m, rod = cable(n=4, section=sec, model=dict(gravity=(0, 0, -9.81)))
    m.spherical(fm.GROUND, rod.first, at=(0, 0, 0), name="pin")
    res = m.simulate(t_end=1.0, h=1e-3)
    assert res.success and res.stats["assembly"] == ("compiled" if AVAILABLE else
                                                      "generic: Numba is not available (FLEXMBD_NUMBA=0 or not installed)")
    total = res["energy.kinetic"] + res["energy.potential"]
    assert np.max(res["energy.kinetic"]) > 0.3
    assert np.max(np.abs(total - total[0])) < 2e-5 * np.max(res["energy.kinetic"]) * 10


def test_model_file_round_trip_and_run(tmp_path):
    from flexmbd.io.model_file import load_model_text, model_to_dict
    import yaml

    text = """
name: cable-cantilever
beams:
  - name: rod
    formulation: ancf-cable
    section: {shape: rectangle, width2: 0.01, height3: 0.01, E: 2.1e11, nu: 0.3}
    elements: 8
    start: [0.0, 0.0, 0.0]
    end: [1.0, 0.0, 0.0]
joints:
  - {type: revolute, name: clamp, body_i: ground, body_j: rod.first, at: [0, 0, 0], axis: [1, 0, 0]}
forces:
  - {type: force, name: tip, body: rod.last, force: [30.0, 20.0, 400.0]}
solver: {analysis: static, load_steps: 10}
outputs: [rod.last.position, rod.e0.axial_force, rod.e7.curvature]
"""
    loaded = load_model_text(text, "cable.yaml")
    d = model_to_dict(loaded.model)
    assert d["beams"][0]["formulation"] == "ancf-cable"
    again = load_model_text(yaml.safe_dump(d), "again.yaml")
    assert model_to_dict(again.model) == d
    path = tmp_path / "cable.yaml"
    path.write_text(text)
    from flexmbd.cli import main

    h5 = tmp_path / "cable.h5"
    assert main(["run", str(path), "-o", str(h5)]) == 0
    from flexmbd.io.results_h5 import load_result

    back = load_result(h5)
    assert back.layout["body_kinds"][0] == "ancf-cable"
    assert "rod.n0.rx_x" in back.layout["coordinate_names"]
    assert abs(back["rod.n8.position"][-1, 2] - 0.51401) < 1e-5            # 8 elements (the table of the docs)
    assert main(["export", str(h5), "--vtk", str(tmp_path / "vtk")]) == 0
    assert (tmp_path / "vtk" / "cable.pvd").exists()


def test_clamps_and_refusals():
    m, rod = cable(n=2)
    m.fixed(fm.GROUND, rod.first, at=(0, 0, 0), name="weld")
    with pytest.raises(ModelError, match="revolute joint about the beam's axis") as e:
        m.freeze()
    assert e.value.element == "weld"
    m, rod = cable(n=2)
    m.force(rod.last, (0, 0, 1), at=(1, 0.1, 0), name="off")
    with pytest.raises(ModelError, match="on the beam's axis"):
        m.freeze()
    with pytest.raises(ModelError, match="bending is an option of ancf-cable"):
        fm.Model().beam("b", section=STEEL, elements=2, start=(0, 0, 0), end=(1, 0, 0), bending="linear")
    with pytest.raises(ModelError, match="straight reference"):
        cable(ARC, n=2, bending="linear")
    with pytest.raises(ModelError, match="one bending stiffness"):
        cable(n=2, section=Section.rectangle(0.02, 0.01, E=1e9, nu=0.3))
    with pytest.raises(ModelError, match="cubic Hermite"):
        cable(n=2, order=2)


def test_positions_along_the_axis_and_hermite_partition():
    xi, L = np.linspace(0, 1, 7), 0.5
    H, dH, ddH = hermite(xi, np.array([L]))
    np.testing.assert_allclose(H[0][:, [0, 2]].sum(1), 1.0)        # rigid translation
    e = np.array([0.0, 1.0, L, 1.0])                               # the field x: values 0, L, slopes 1
    np.testing.assert_allclose(H[0] @ e, xi * L, atol=1e-15)
    np.testing.assert_allclose(dH[0] @ e, 1.0, atol=1e-14)
    np.testing.assert_allclose(ddH[0] @ e, 0.0, atol=1e-13)
    m, rod = cable(ARC, n=8)
    m.revolute(fm.GROUND, rod.first, at=ARC.point(0.0), axis=ARC.frame(0.0)[:, 0], name="clamp")
    res = m.static_equilibrium(load_steps=1)
    x = rod.positions(res, 0.3 * ARC.length)[-1]
    h = ARC.length / 8                  # Hermite interpolation error ≤ h⁴/384 max|r⁗| (|r⁗| = 1/R³ = 1)
    err = np.linalg.norm(x - ARC.point(0.3 * ARC.length))
    assert 0.5 * h**4 / 384 < err <= h**4 / 384


def test_curved_cable_has_no_linear_out_of_plane_stiffness():
    """Why P3's curved cantilever is not a cable test: on a plane arc, an out-of-plane
    displacement w e_z changes |r′ × r″| only to second order (r′ × w″e_z and w′e_z × r″
    lie in the plane, r′ × r″ is along e_z), and |r′| likewise, so the tangent stiffness
    of the out-of-plane coordinates is zero at the reference: without torsion the curved
    cable is a mechanism out of its plane (the straight one is not)."""
    m, rod = cable(ARC, n=4)
    sys = m.freeze()
    z = np.zeros(sys.n)
    K = sys.evaluate(sys.q0, z, z, np.zeros(sys.m), 0.0, cM=0, cD=0, cK=1)[2]
    K = np.asarray(K.toarray() if hasattr(K, "toarray") else K)
    out = [i for i, nm in enumerate(sys.coordinate_names) if nm.endswith((".z", ".rx_z"))]
    assert np.max(np.abs(K[np.ix_(out, range(sys.n))])) <= 1e-12 * np.max(np.abs(K))
    m, rod = cable(n=4)
    sys = m.freeze()
    K = sys.evaluate(sys.q0, z[:sys.n], z[:sys.n], np.zeros(sys.m), 0.0, cM=0, cD=0, cK=1)[2]
    K = np.asarray(K.toarray() if hasattr(K, "toarray") else K)
    out = [i for i, nm in enumerate(sys.coordinate_names) if nm.endswith((".z", ".rx_z"))]
    assert np.max(np.abs(K[np.ix_(out, out)])) > 1e-6 * np.max(np.abs(K))


def test_spherical_joint_between_a_rigid_body_and_a_cable_node():
    """A spherical joint across kinds (constraints/mixed.py): Φ_q, λ·∂²Φ/∂q² and γ
    against central differences on random states; a rigid body of another
    parameterisation is refused; a crank pinned to ground carrying the cable moves like
    the pinned cable (same tip, energy kept)."""
    from flexmbd.constraints.mixed import MixedPointGroup

    sec = Section.circle(0.01, E=2e8, nu=0.3, rho=1000.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    body = m.rigid_body("body", mass=1.0, inertia=(0.01, 0.02, 0.03), position=(-0.2, 0.1, 0.05),
                        orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.7))
    rod = m.beam("rod", section=sec, elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf-cable")
    m.spherical(body, rod.first, at=(0, 0, 0), name="pin")
    m.spherical(rod.last, body, at=(1, 0, 0), name="pin2")          # the other order of kinds
    sys = m.freeze()
    groups = [g for g in sys.constraint_groups if isinstance(g, MixedPointGroup)]
    assert len(groups) == 2 and sum(len(g) for g in groups) == 6
    rng = np.random.default_rng(5)
    for g in groups:
        for _ in range(3):
            q = sys.q0 + 0.3 * rng.standard_normal(sys.n)
            qe = sys.extend(q)
            ve = sys.extend_velocity(rng.standard_normal(sys.n))
            X, V = qe[g.config_index], ve[g.dof_index]
            lam = rng.standard_normal(len(g))
            Y = X.copy()
            gi = np.arange(X.size).reshape(X.shape)
            d = type(g).__new__(type(g))
            d.__dict__.update(g.__dict__, config_index=gi, dof_index=gi)
            phi, Jq, H = d.assemble(Y.ravel(), 0.0, lam)
            h = 1e-6
            dJ, dH = np.zeros_like(Jq), np.zeros_like(H)
            for j in range(X.shape[1]):
                E = np.zeros_like(X)
                E[:, j] = h
                pp, Jp, _ = d.assemble((X + E).ravel(), 0.0, lam, hessian=False)
                pm, Jm, _ = d.assemble((X - E).ravel(), 0.0, lam, hessian=False)
                dJ[:, j] = (pp - pm) / (2 * h)
                dH[:, :, j] = lam[:, None] * (Jp - Jm) / (2 * h)
            np.testing.assert_allclose(Jq, dJ, atol=1e-8 * np.max(np.abs(Jq)))
            np.testing.assert_allclose(H, dH, atol=1e-8 * max(np.max(np.abs(H)), 1.0))
            eps = 1e-4
            path = [d.assemble((X + s * eps * V).ravel(), 0.0, None, hessian=False)[0] for s in (-1, 0, 1)]
            d2 = (path[2] - 2 * path[1] + path[0]) / eps**2
            np.testing.assert_allclose(-d.gamma(X.ravel(), V.ravel(), 0.0), d2, atol=1e-5 * max(1.0, np.max(np.abs(d2))))
    m2 = fm.Model()
    b2 = m2.rigid_body("b", mass=1.0, inertia=(1, 1, 1), parameterization="se3")
    r2 = m2.beam("rod", section=sec, elements=1, start=(0, 0, 0), end=(1, 0, 0), formulation="ancf-cable")
    m2.spherical(b2, r2.first, at=(0, 0, 0))                      # any spatial kind (test_lie_group)
    with pytest.raises(ModelError, match="spherical joints only"):  # other joints: one kind only
        m2.revolute(b2, r2.first, at=(0, 0, 0), axis=(1, 0, 0))
    # a crank pinned at the origin carrying the cable: the pinned cable's motion
    m3, rod3 = cable(n=4, section=sec, model=dict(gravity=(0, 0, -9.81)))
    crank = m3.rigid_body("crank", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m3.spherical(fm.GROUND, crank, at=(0, 0, 0), name="pivot")
    m3.spherical(crank, rod3.first, at=(0, 0, 0), name="pin")
    res = m3.simulate(t_end=0.5, h=1e-3)
    m4, rod4 = cable(n=4, section=sec, model=dict(gravity=(0, 0, -9.81)))
    m4.spherical(fm.GROUND, rod4.first, at=(0, 0, 0), name="pin")
    ref = m4.simulate(t_end=0.5, h=1e-3)
    np.testing.assert_allclose(res["rod.last.position"], ref["rod.last.position"], atol=1e-9)


def test_cable_hanging_from_an_se3_beam_by_a_spherical_joint():
    """A cable pinned to the tip of an SE(3) cantilever (a joint across a Lie-group and a
    vector kind, constraints/mixed.py): in static equilibrium the pin carries the cable's
    weight and the clamp the weight of both (closed form: ρ A L g each); the same model
    runs in dynamics."""
    sec = Section.rectangle(0.02, 0.02, E=2e9, nu=0.3, rho=800.0)
    wire = Section.circle(0.02, E=2e9, nu=0.3, rho=800.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    arm = m.beam("arm", section=sec, elements=4, start=(0, 0, 0), end=(1, 0, 0))
    cab = m.beam("cable", section=wire, elements=4, start=(1, 0, 0), end=(1, 0, -1), formulation="ancf-cable")
    m.fixed(fm.GROUND, arm.first, name="clamp")
    m.spherical(arm.last, cab.first, at=(1, 0, 0), name="pin")
    res = m.static_equilibrium(load_steps=2, convergence="increment", tol=1e-10)
    assert res.success
    w_arm, w_cable = 800 * 0.02**2 * 9.81, 800 * np.pi * 0.01**2 * 9.81
    np.testing.assert_allclose(np.abs(res["pin.reaction"][-1]), [0, 0, w_cable], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.abs(res["clamp.reaction"][-1]), [0, 0, w_arm + w_cable], rtol=1e-9, atol=1e-9)
    dyn = m.simulate(t_end=0.02, h=1e-3)
    assert dyn.success
    np.testing.assert_allclose(dyn["cable.first.position"], dyn["arm.last.position"], atol=1e-9)
