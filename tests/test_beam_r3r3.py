"""R³×R³ beams in models (formulation="r3r3"): P3's static tests, locking, pure bending,
branches of the rotation vectors (element alignment, rescaling), outputs, dynamics."""
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams import r3r3
from flexmbd.beams.geometry import CircularArc
from flexmbd.nodes.rotvec_branch import (
    nearest_branch,
    principal_branch,
    rescale_state,
    shift_jet,
)
from flexmbd.beams.sections import Section
from flexmbd.nodes import R3R3
from flexmbd.lie import quat_to_rotvec, so3_exp, so3_T
from flexmbd.rotations import rotation_matrix

SECTION = Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3)  # P3's static tests


def psi_rows(system):
    """(nodes, 3) configuration indices of the rotation vectors of every R³×R³ node."""
    return np.concatenate([ci[:, 3:6] for _, ci, _ in system._branched])

ABAQUS_STRAIGHT, ABAQUS_CURVED = 0.5143, 0.6138             # P3: ABAQUS B31 tip z-displacement
QUARTER = CircularArc((0, 0, 0), 1.0, np.pi / 2, 0.0)       # clamped at (0, 1, 0), tip at (1, 0, 0)


def cantilever(n, integration, geometry=None, force=(30, 20, 400)):
    m = fm.Model()
    b = m.beam("rod", section=SECTION, elements=n, geometry=geometry, start=None if geometry else (0, 0, 0),
               end=None if geometry else (1, 0, 0), formulation="r3r3", integration=integration)
    m.fixed(fm.GROUND, b.first)
    if np.any(force):
        m.force(b.last, force, at=b.last.position)
    return m, b


def solve(m, steps=10, tol=1e-10, rescale=True):
    system = m.freeze()
    system.rescale_rotations = rescale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = m.static_equilibrium(load_steps=steps, convergence="increment", tol=tol, system=system)
    assert res.success, res.message
    return res


def tip_z(n, integration, geometry=None, force=(30, 20, 400)):
    m, b = cantilever(n, integration, geometry, force)
    res = solve(m)
    return res[f"rod.n{n}.position"][-1][2] - b.last.position[2]


# ----------------------------------------------------------------- P3's statics
@pytest.mark.parametrize("geometry, force, ref", [(None, (30, 20, 400), ABAQUS_STRAIGHT),
                                                  (QUARTER, (30, 20, 100), ABAQUS_CURVED)],
                         ids=["straight", "quarter-circle"])
def test_cantilevers_reduced_and_hw_meet_abaqus_full_locks(geometry, force, ref):
    z = {(mode, n): tip_z(n, mode, geometry, force) for mode in ("full", "reduced", "hw") for n in (8, 16, 32)}
    for mode in ("reduced", "hw"):
        assert abs(z[mode, 32] - ref) < 2e-3 * ref, (mode, z)
        assert abs(z[mode, 16] - ref) < 2e-3 * ref, (mode, z)
    # full (2-point) integration shear-locks: far too stiff, slowly improving with the mesh
    assert z["full", 8] < z["full", 16] < z["full", 32] < 0.6 * ref, z


def test_pure_bending_rotation_exact_position_second_order():
    """Tip moment −π EI/(2L): the nodal rotation vectors are collinear, ψ(s) linear, so the
    tip rotation is −π/2 to rounding with any mesh; the tip position (linear x between
    nodes on the arc) converges at second order."""
    EI = SECTION.EI3
    err = {}
    for n in (2, 4, 8):
        m, b = cantilever(n, "reduced", force=(0, 0, 0))
        m.torque(b.last, (0, 0, -np.pi * EI / 2), body_fixed=True)
        res = solve(m, tol=1e-12)
        np.testing.assert_allclose(quat_to_rotvec(res[f"rod.n{n}.orientation"][-1]), [0, 0, -np.pi / 2], atol=1e-12)
        err[n] = np.linalg.norm(res[f"rod.n{n}.position"][-1] - [2 / np.pi, -2 / np.pi, 0])
    assert 3.9 < err[2] / err[4] < 4.1 and 3.9 < err[4] / err[8] < 4.1, err
    assert 1.4e-3 < err[8] < 1.5e-3, err


# ------------------------------------------------------------ branches, rescaling
def test_shift_jet_derivatives_and_same_rotation():
    rng = np.random.default_rng(0)
    psi = 2.0 * rng.standard_normal((6, 3))
    m = np.array([1, -1, 2, 0, -3, 1.0])
    g, G1, G2, G3 = shift_jet(psi, m)
    np.testing.assert_allclose(so3_exp(g), so3_exp(psi), atol=1e-14)
    eps = 1e-6
    for j in range(3):
        d = np.zeros(3)
        d[j] = eps
        p, q = shift_jet(psi + d, m), shift_jet(psi - d, m)
        np.testing.assert_allclose((p[0] - q[0]) / (2 * eps), G1[..., j], atol=1e-8)
        np.testing.assert_allclose((p[1] - q[1]) / (2 * eps), G2[..., j], atol=1e-8)
        np.testing.assert_allclose((p[2] - q[2]) / (2 * eps), G3[..., j], atol=1e-8)
    # nearest and principal branches
    a = np.array([[0, 0, 3.0], [0, 0, 3.0]])
    b = np.array([[0, 0, -3.0], [0.1, 0, 3.0]])
    np.testing.assert_array_equal(nearest_branch(b, a), [-1, 0])        # (3 − 2π)(−e_z) ≈ 3.28 e_z
    np.testing.assert_array_equal(principal_branch(np.array([[0, 0, 3.0], [0, 0, 4.0], [0, 0, 10.0]])), [0, -1, -2])
    np.testing.assert_allclose(shift_jet(np.array([[0, 0, 10.0]]), -2, 1)[0], r3r3.rescale(np.array([[0, 0, 10.0]])))


def test_rescaled_state_has_same_angular_velocity_and_acceleration():
    rng = np.random.default_rng(1)
    psi = np.array([[0.0, 0.0, 3.5], [2.5, 2.5, 1.0], [0.1, 0.2, 0.3]])
    v, a = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    p2, v2, (a2,), changed = rescale_state(psi, v, [a])
    np.testing.assert_array_equal(changed, [True, True, False])
    assert np.all(np.linalg.norm(p2, axis=1) <= np.pi)

    def omega(p, w):
        return np.einsum("nij,nj->ni", so3_T(p), w)
    np.testing.assert_allclose(omega(p2, v2), omega(psi, v), atol=1e-14)
    h = 1e-5  # d/dt of the material angular velocity along ψ(t) = ψ + t ψ̇ + t²/2 ψ̈

    def alpha(p, w, acc):
        return (omega(p + h * w + 0.5 * h * h * acc, w + h * acc) - omega(p - h * w + 0.5 * h * h * acc, w - h * acc)) / (2 * h)
    np.testing.assert_allclose(alpha(p2, v2, a2), alpha(psi, v, a), atol=1e-8)


def test_element_is_unchanged_when_its_second_node_changes_branch():
    """The element brings node B onto node A's branch: moving ψ_B to any other branch
    leaves forces (mapped back by the chain rule) and energy as they were."""
    m, _ = cantilever(3, "hw", force=(0, 0, 0))
    system = m.freeze()
    g = system.force_groups[0]
    rng = np.random.default_rng(2)
    q = system.q0 + 0.2 * rng.standard_normal(system.n)
    qe = system.extend(q)
    f0, _, _ = g.evaluate(qe, None, 0.0)
    V0 = g.potential_energy(qe, 0.0)
    idx = psi_rows(system)[3]                      # last node: node B of the last element only
    for k in (-1, 1, 2):
        q2 = qe.copy()
        psi = q2[idx]
        q2[idx] = psi * (1 + 2 * np.pi * k / np.linalg.norm(psi))
        f, _, _ = g.evaluate(q2, None, 0.0)
        assert g.potential_energy(q2, 0.0) == pytest.approx(V0, rel=1e-12)
        np.testing.assert_allclose(f[:2], f0[:2], rtol=1e-10, atol=1e-10 * np.abs(f0).max())
        # node B's generalised forces transform with the shift's Jacobian H: f0 = Hᵀ f
        H = shift_jet(psi[None], k, 1)[1][0]
        np.testing.assert_allclose(H.T @ f[2, 9:12], f0[2, 9:12], rtol=1e-9, atol=1e-9 * np.abs(f0).max())


def rolled(n, turns, force=None, rescale=True, axis=(0, 0, 1), formulation="r3r3"):
    EI = SECTION.EI3
    m = fm.Model()
    b = m.beam("rod", section=SECTION, elements=n, start=(0, 0, 0), end=(1, 0, 0), formulation=formulation,
               integration="reduced" if formulation == "r3r3" else "full")
    m.fixed(fm.GROUND, b.first)
    m.torque(b.last, 2 * np.pi * turns * EI * np.asarray(axis) / np.linalg.norm(axis), body_fixed=True)
    if force is not None:
        m.force(b.last, force, at=b.last.position)
    system = m.freeze()
    system.rescale_rotations = rescale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = m.static_equilibrium(load_steps=20 * turns, convergence="increment", tol=1e-10, system=system)
    return res, system


def test_end_moment_rolls_the_cantilever_into_a_circle():
    res, system = rolled(16, 1)
    assert res.success, res.message
    np.testing.assert_allclose(res["rod.n16.position"][-1], 0.0, atol=1e-12)          # tip back at the clamp
    np.testing.assert_allclose(rotation_matrix(res["rod.n16.orientation"][-1:])[0], np.eye(3), atol=1e-12)
    psi = res.q[:, psi_rows(system)]
    assert np.linalg.norm(psi, axis=2).max() <= np.pi + 1e-12                         # rescaled every load step
    # diameter: 1/π; linear elements place the midpoint on the chord polygon (second order)
    assert res["rod.n8.position"][-1][1] == pytest.approx(1 / np.pi, rel=7e-3)


def test_rescaling_is_needed_out_of_plane():
    """Rolled up with an out-of-plane tip force: with rescaling R³×R³ approaches the SE(3)
    result; without it the tip node sits at |ψ| = 2π where T(ψ) = n nᵀ is singular, the
    tip's moment equations lose two components and Newton 'converges' to a wrong state."""
    ref, _ = rolled(32, 1, force=(0, 0, 5.0), formulation="se3")
    z_ref = ref["rod.n32.position"][-1][2]
    res, _ = rolled(32, 1, force=(0, 0, 5.0))
    assert res.success
    assert res["rod.n32.position"][-1][2] == pytest.approx(z_ref, rel=1e-2)
    bad, system = rolled(32, 1, force=(0, 0, 5.0), rescale=False)
    assert bad.success
    assert np.linalg.norm(bad.q[-1][psi_rows(system)[-1]]) == pytest.approx(2 * np.pi, rel=1e-3)
    assert abs(bad["rod.n32.position"][-1][2]) > 2 * abs(z_ref)


# ------------------------------------------------------------------ model pieces
def test_nodes_and_joint_with_se3_body_is_a_clear_error():
    m = fm.Model()
    b = m.beam("rod", section=SECTION, elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="r3r3")
    assert all(n.kind == R3R3 for n in b.nodes) and b.dofs == 18
    body = m.rigid_body("mass", mass=1.0, inertia=(1, 1, 1), position=(1, 0, 0), parameterization="se3")
    with pytest.raises(fm.ModelError) as exc:      # at once, when the joint is added
        m.spherical(b.last, body, at=(1, 0, 0), name="tip_joint")
    msg = str(exc.value)
    assert "spherical 'tip_joint'" in msg and "'rod.n2' is r3r3" in msg and "'mass' is se3" in msg
    assert "formulation='se3'" in msg


def test_only_first_order_lagrange():
    m = fm.Model()
    with pytest.raises(fm.ModelError, match="R³×R³ formulation has first-order Lagrange elements only"):
        m.beam("rod", section=SECTION, elements=2, start=(0, 0, 0), end=(1, 0, 0), formulation="r3r3", order=2)


def test_gravity_shares_and_mass():
    sec = Section.rectangle(0.02, 0.01, E=1e9, nu=0.3, rho=1000.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.beam("rod", section=sec, elements=4, start=(0, 0, 0), end=(2, 0, 0), formulation="r3r3")
    system = m.freeze()
    from flexmbd.beams.builder import nodal_weights

    shares = {n.name: w for n, w in nodal_weights([m.element("rod")])}
    L = 0.5
    np.testing.assert_allclose([shares[f"rod.n{i}"] for i in range(5)],
                               np.array([0.5, 1, 1, 1, 0.5]) * sec.rhoA * L)
    M = system.mass_matrix(system.q0).toarray()
    rows = np.r_[[system.dofs(n)[:3] for n in b.nodes]].ravel()
    np.testing.assert_allclose(M[np.ix_(rows, rows)].sum() / 3, sec.rhoA * 2.0)     # total mass, each direction


def spinning_beam(t_end=1.0):
    """A free beam spinning about z at 10 rad/s (1.6 turns): nodes cross |ψ| = π."""
    sec = Section.rectangle(0.02, 0.02, E=2e11, nu=0.3, rho=7800.0)
    m = fm.Model()
    b = m.beam("rod", section=sec, elements=4, start=(-0.5, 0, 0), end=(0.5, 0, 0), formulation="r3r3",
               integration="reduced")
    w = np.array([0, 0, 10.0])
    for n in b.nodes:
        n.velocity = np.cross(w, n.position)
        n.angular_velocity = w.copy()
    return m, b, w


def test_spinning_beam_through_rescaling_and_outputs(tmp_path):
    m, _, _ = spinning_beam()
    res = m.simulate(t_end=1.0, h=5e-3, integrator=fm.GeneralizedAlpha(0.8), convergence="increment", tol=1e-10)
    assert res.success, res.message
    t = res.t
    psi = res.q[:, psi_rows(res.system)]
    assert np.linalg.norm(psi, axis=2).max() <= np.pi + 0.06                    # rescaled after each step
    c, s = np.cos(10 * t), np.sin(10 * t)
    x = res["rod.n4.position"]
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 0.5, rtol=1e-6)          # rigid spin, no jumps
    np.testing.assert_allclose(x, 0.5 * np.c_[c, s, 0 * t], atol=1e-2)             # α-method phase error
    # ω drops by 0.1 % in the first steps (generalized-α damps the vibrations excited by
    # the missing centrifugal stretch), then stays put through the rescaling at t ≈ π/10
    om = res["rod.n4.angular_velocity"]
    np.testing.assert_allclose(om[:, :2], 0.0, atol=1e-12)
    np.testing.assert_allclose(om[:, 2], 10.0, rtol=2e-3)
    assert np.ptp(om[40:, 2]) < 5e-5 * 10
    assert 55 < np.argmax(np.linalg.norm(psi[:, 4], axis=1) > 3.0) < 65                # node 4 rescaled there
    np.testing.assert_allclose(np.linalg.norm(res["rod.n4.velocity"], axis=1), 5.0, rtol=2e-3)
    R = rotation_matrix(res["rod.n4.orientation"])
    np.testing.assert_allclose(R[:, :, 0], x / 0.5, atol=1e-6)                     # the node frame turns with it
    ke = res["energy.kinetic"]
    assert np.ptp(ke[40:]) < 1e-4 * ke[0]
    # results files report the same outputs from the stored layout alone
    h5py = pytest.importorskip("h5py")  # noqa: F841
    from flexmbd.io.results_h5 import ResultWriter, load_result

    system = m.freeze()
    wr = ResultWriter(tmp_path / "spin.h5", system, chunk=50)
    res2 = m.simulate(t_end=0.3, h=5e-3, integrator=fm.GeneralizedAlpha(0.8), convergence="increment", tol=1e-10,
                      system=system,
                      on_step=wr.on_step)
    wr.close(res2, outputs=False)
    back = load_result(tmp_path / "spin.h5", rebuild=False)
    for key in ("position", "orientation", "velocity", "angular_velocity"):
        np.testing.assert_allclose(back[f"rod.n3.{key}"], res2[f"rod.n3.{key}"], atol=1e-14)
    R, A = back.body_poses([len(res2.t) - 1])
    np.testing.assert_allclose(A[0, 3], rotation_matrix(res2["rod.n3.orientation"][-1:])[0], atol=1e-14)
