"""The modal body from finite-element data (flexmbd/bodies/modal_body.py, fe_data.py,
flexmbd/nodes/fe_modal.py; docs/elements/modal-body.md): zero modes against the rigid
body, natural frequencies against the FE model's eigenvalues (free-free and clamped
Craig-Bampton) and Bernoulli-Euler, the dynamic response against the modal beam,
conservation while tumbling, markers at nodes, files and their errors."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.beams.sections import Section
from flexmbd.bodies.fe_data import check_fe_data, craig_bampton_modes, free_free_modes
from flexmbd.bodies.modal_beam import rigid_properties
from flexmbd.errors import ModelError
from flexmbd.bodies.fe_lattice import beam_properties, clamped_eigenvalues, truss_beam, truss_data
from flexmbd.ground import GROUND
from flexmbd.nodes.beam_modes import bending_roots
from flexmbd.solvers.modes import linear_modes

TRUSS = dict(length=1.0, bays=10, width=0.05, E=7e10, area=1e-5, node_mass=0.05)


def arrays(**kw):
    return truss_data(**{**TRUSS, **kw})



# --------------------------------------------------------------------------- (a) rigid body

def test_zero_modes_move_as_the_rigid_body():
    """A modal body without modes and the rigid body with the FE model's mass and inertia
    (origin at the centre of mass), under gravity and a spring at an FE node: the same
    trajectory to the Newton tolerance."""
    data, _ = arrays(centered=True)
    q0 = fm.quaternion_from_axis_angle((1, 2, 3), 0.4)
    kw = dict(position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1), angular_velocity=(2.0, 8.0, 3.0),
              orientation=q0)
    runs = []
    for rigid in (False, True):
        m = fm.Model(gravity=(0.0, -9.81, 0.0))
        flex = m.modal(name="flex", data=data, modes=0, **kw)
        tip = flex.node_position(41)
        if rigid:
            mass, c, J = rigid_properties(m.element("flex").data["W"])
            assert abs(mass - 44 * 0.05) < 1e-12 and np.abs(c).max() < 1e-15
            m = fm.Model(gravity=(0.0, -9.81, 0.0))
            flex = m.rigid_body("flex", mass=mass, inertia=J, **kw)
        m.spring_damper(GROUND, flex, at_i=(1.0, 1.0, 0.0), at_j=tip, k=200.0, c=1.0, name="s")
        res = m.simulate(t_end=1.0, h=2e-3, tol=1e-12)
        assert res.success
        runs.append(res)
    for what in ("flex.position", "flex.orientation", "flex.velocity", "flex.angular_velocity"):
        a, b = runs[0][what], runs[1][what]
        assert np.abs(a - b).max() <= 1e-11 * np.abs(b).max(), what
    assert np.abs(runs[0]["flex.position"] - runs[0]["flex.position"][0]).max() > 0.3


# --------------------------------------------------------------------------- (b) frequencies

def test_free_free_frequencies_equal_the_fe_eigenvalues():
    """Floating in space, the linearised modal body has 6 rigid-body modes and exactly the
    FE model's lowest elastic free-free frequencies (all modes kept)."""
    data, _ = arrays()
    n = 6
    m = fm.Model()
    m.modal(name="b", data=data, modes=n, position=(0.2, -0.1, 0.3),
            orientation=fm.quaternion_from_axis_angle((1, 1, 0), 0.3))
    modes = linear_modes(m)
    lam, _ = free_free_modes(check_fe_data(data), n)
    omega = np.sort(modes.omega)
    assert omega[:6].max() < 1e-6 * omega[6]
    np.testing.assert_allclose(omega[6:], np.sqrt(lam), rtol=1e-9)


@pytest.mark.parametrize("attitude", ["euler-parameters", "euler-313"])
def test_craig_bampton_body_clamped_by_joints_has_the_fe_clamped_frequencies(attitude):
    """Craig-Bampton modes of the root section (4 nodes: 6 static modes after the 6 rigid
    ones are dropped, plus 4 fixed-interface modes); the root nodes held by spherical joints
    to ground: the constrained body's frequencies are the FE model's clamped eigenvalues
    exactly (the fixed-interface modes span them), and the first bending frequency is
    Bernoulli-Euler's to the truss's discretisation error (11 % at 10 bays, w/L = 0.05)."""
    data, fe = arrays()
    m = fm.Model()
    rot = fm.quaternion_from_axis_angle((1, 2, 0.5), 0.6)
    b = m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type="craig-bampton",
                position=(0.1, 0.0, -0.2), orientation=rot, attitude=attitude)
    assert b.kind.n == 3 * 4 - 6 + 4
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"root{k}")
    modes = linear_modes(m)
    assert modes.dof == 4
    ref = clamped_eigenvalues(fe, 4)
    np.testing.assert_allclose(np.sort(modes.omega), np.sqrt(ref), rtol=1e-9)
    p = beam_properties(**TRUSS)
    w1 = bending_roots("clamped-free", 1)[0] ** 2 * np.sqrt(p["EI"] / p["mu"])
    assert abs(np.sqrt(ref[0]) / w1 - 1) < 0.12


def test_truss_frequency_converges_to_bernoulli_euler():
    """The FE helper itself: the clamped truss's first frequency approaches Bernoulli-Euler's
    as the truss gets finer and more slender (11.0 %, 6.0 %, 2.8 %; 1.3 % at 80 bays, in
    benchmarks/modal_body_checks.py)."""
    err = []
    for bays, w in ((10, 0.05), (20, 0.05), (40, 0.025)):
        fe = truss_beam(length=1.0, bays=bays, width=w)
        p = beam_properties(length=1.0, bays=bays, width=w)
        w1 = bending_roots("clamped-free", 1)[0] ** 2 * np.sqrt(p["EI"] / p["mu"])
        err.append(1 - np.sqrt(clamped_eigenvalues(fe, 1)[0]) / w1)
    assert err[0] < 0.12 and err[2] < 0.03
    assert 1.6 < err[0] / err[1] < 2.6 and 1.8 < err[1] / err[2] < 2.6


def test_dynamic_response_follows_the_modal_beam():
    """A clamped truss (Craig-Bampton body, root nodes held) and the modal beam of the same
    bending stiffness, mass and rotary inertia per length, a step load at the tip: the tip
    deflections agree to the truss's discretisation error (the static deflection within 8 %,
    the peak time within 8 %)."""
    bays, w = 20, 0.05
    data, fe = arrays(bays=bays, width=w)
    p = beam_properties(length=1.0, bays=bays, width=w, E=TRUSS["E"], area=TRUSS["area"],
                        node_mass=TRUSS["node_mass"])
    F = 0.5
    t_end, h = 0.06, 2.5e-4
    m = fm.Model()
    b = m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type="craig-bampton")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"root{k}")
    for k in fe["tip"]:
        m.force(b, (0.0, 0.0, -F / 4), at=b.node_position(int(k)), name=f"f{k}")
    res = m.simulate(t_end=t_end, h=h)
    assert res.success
    pos = res["b.node_positions"][:, fe["tip"], 2].mean(axis=1)
    tip_fe = pos - pos[0]                 # global: the frame floats (its modes are free of rigid motion)
    sec = Section(EA=1e9, EI2=p["EI"], EI3=p["EI"], GA2=1e9, GA3=1e9, GJ=1e3, rhoA=p["mu"], rhoI2=p["rhoI"],
                  rhoI3=p["rhoI"])
    m2 = fm.Model()
    beam = m2.modal_beam(name="beam", length=1.0, section=sec, ends="clamped-free", modes=dict(bending_z=3),
                         geometric_stiffening=False)
    m2.fixed(GROUND, beam, at=(0, 0, 0), name="root")
    m2.force(beam, (0.0, 0.0, -F), at=(1.0, 0, 0), name="f")
    res2 = m2.simulate(t_end=t_end, h=h)
    assert res2.success
    tip_b = res2["beam.tip_deflection"][:, 2]
    static = -F / (3 * p["EI"])
    assert abs(tip_b.min() / (2 * static) - 1) < 0.03            # the beam: twice the static deflection
    assert abs(tip_fe.min() / tip_b.min() - 1) < 0.08
    k_fe, k_b = np.argmin(tip_fe[: len(tip_fe) // 2 + 40]), np.argmin(tip_b[: len(tip_b) // 2 + 40])
    assert abs(res.t[k_fe] / res2.t[k_b] - 1) < 0.08


# --------------------------------------------------------------------------- (c) conservation

def tumbling(h, data):
    m = fm.Model()
    m.modal(name="b", data=data, modes=4, position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1),
            angular_velocity=(2.0, 8.0, 3.0), orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.4),
            modal_velocities=[0.02, -0.01, 0.015, 0.01])
    return m.simulate(t_end=0.5, h=h, tol=1e-11)


@pytest.mark.parametrize("centered", [True, False])
def test_free_tumbling_conserves_energy_and_momenta(centered):
    """A free FE modal body tumbling and vibrating in space: energy and angular momentum
    conserved to the trapezoidal rule's O(h²) (the drift falls about four times when h
    halves).  The free-free modes carry no linear momentum (M-orthogonal to the rigid
    translations), so with the frame origin at the centre of mass the linear momentum is
    m Ṙ and constant to rounding; with the origin at the truss's end it is
    m Ṙ + Ȧ ∫ρū, conserved to O(h²) as well."""
    data, _ = arrays(E=2e8, centered=centered)
    drift = []
    for h in (2e-3, 1e-3):
        res = tumbling(h, data)
        assert res.success
        e = res["energy.total"]
        lin, ang = res["b.linear_momentum"], res["b.angular_momentum"]
        assert np.abs(res["b.modal_coordinates"]).max() > 1e-4
        drift.append((np.abs(e - e[0]).max() / e[0], np.abs(ang - ang[0]).max() / np.linalg.norm(ang[0]),
                      np.abs(lin - lin[0]).max() / np.linalg.norm(lin[0])))
    (e1, a1, l1), (e2, a2, l2) = drift
    assert e1 < 1e-3 and a1 < 1e-3
    assert 2.5 < a1 / a2 < 6 and 2.5 < e1 / e2 < 6
    if centered:
        assert l1 < 1e-12 and l2 < 1e-12
    else:
        assert l1 < 1e-4 and 2.5 < l1 / l2 < 6


# --------------------------------------------------------------------------- markers, outputs

def test_markers_sit_on_the_deformed_nodes():
    """A node marker is at R + A (X_k + Φ_k η), with the exact Jacobian of that formula;
    a point that is not an FE node is refused."""
    data, fe = arrays()
    m = fm.Model()
    b = m.modal(name="b", data=data, modes=3, modal_coordinates=[0.01, 0.02, -0.03])
    kind = b.kind
    rng = np.random.default_rng(1)
    q = np.r_[rng.standard_normal(3), fm.quaternion_from_axis_angle((1, 0, 2), 0.7), rng.standard_normal(3) * 0.01]
    k = 37
    x, J = kind.markers(kind.nodes[k][None], [1]).evaluate(q[None])
    A = fm.rotations.rotation_matrix(q[3:7])
    np.testing.assert_allclose(x[0], q[:3] + A @ (fe["nodes"][k] + kind.modes[k] @ q[7:]), atol=1e-14)
    np.testing.assert_allclose(J[0, :, 7:], A @ kind.modes[k], atol=1e-14)
    m.spherical(GROUND, b, at=(0.55, 0.0, 0.0), name="off")
    with pytest.raises(ModelError, match=r"\(0.55, 0, 0\) in the frame of modal body 'b' is not at an FE node"):
        m.freeze()


# --------------------------------------------------------------------------- files and errors

def test_bad_data_gives_clear_errors(tmp_path):
    data, fe = arrays(bays=2)

    def err(match, **changes):
        count = changes.pop("_modes", 2)
        d = {**data, **changes}
        path = tmp_path / "bad.npz"
        np.savez(path, **{k: v for k, v in d.items() if v is not None})
        with pytest.raises(ModelError, match=match):
            fm.Model().modal(name="b", data=str(path), modes=count)
    K = data["stiffness"].copy()
    K[0, 5] += 1.0
    err(r"bad.npz key 'stiffness': not symmetric", stiffness=K)
    M = data["mass"].copy()
    M[3, 3] = M[4, 4] = M[5, 5] = -0.1
    err(r"bad.npz key 'mass': the mass matrix is not positive definite", mass=M)
    M = data["mass"].copy()
    M[0, 1] = M[1, 0] = 0.01
    err(r"key 'mass': the mass matrix must act alike on x, y and z", mass=M)
    err(r"bad.npz key 'nodes': contains NaN", nodes=np.where(data["nodes"] == 0.0, np.nan, data["nodes"]))
    err(r"bad.npz key 'stiffness': shape \(33, 33\), expected \(36, 36\)", stiffness=data["stiffness"][:-3, :-3])
    err(r"no key 'mass'", mass=None)
    err(r"40 free-free modes asked for, but 36 degrees of freedom leave at most 30", _modes=40)
    phi = free_free_modes(check_fe_data(data), 3)[1]
    err(r"key 'modes': 4 modes asked for but the data has 3", modes=phi, _modes=4)
    err(r"key 'modes': shape \(33, 3\), expected \(36, n\)", modes=phi[:-3])
    rigid = np.tile(np.eye(3), (len(data["nodes"]), 1))[:, :1]
    err(r"contain a rigid-body motion", modes=np.c_[phi[:, :1], rigid])
    with pytest.raises(ModelError, match=r"no such file"):
        fm.Model().modal(name="b", data=str(tmp_path / "none.npz"), modes=1)
    with pytest.raises(ModelError, match=r"interface: node index 99 outside 0 … 11"):
        fm.Model().modal(name="b", data=data, modes=1, mode_type="craig-bampton", interface_nodes=[0, 1, 99])
    with pytest.raises(ModelError, match=r"interior stiffness is singular"):
        fm.Model().modal(name="b", data=data, modes=1, mode_type="craig-bampton", interface_nodes=[0, 4, 8])
    with pytest.raises(ModelError, match=r"modal_coordinates has 1 values but the body has 2 modes"):
        fm.Model().modal(name="b", data=data, modes=2, modal_coordinates=[0.1])


def test_model_file_with_npz_and_hdf5_data_and_results_file(tmp_path):
    """A model file names the data file relative to itself (.npz and HDF5 alike, the same
    results); a results file stores the modes, so another process rebuilds the kind and
    places the deformed nodes; errors in the data carry the model file's line."""
    import h5py

    from flexmbd.io.model_file import ModelFileError, load_model_file as load_model
    from flexmbd.io.results_h5 import load_result
    from flexmbd.nodes import fe_modal

    data, fe = arrays(bays=4)
    sub = tmp_path / "fe"
    sub.mkdir()
    np.savez(sub / "truss.npz", **data, interface=fe["root"])
    with h5py.File(sub / "truss.h5", "w") as f:
        for k, v in data.items():
            f[k] = v
        f["interface"] = fe["root"]
    tip = fe["nodes"][fe["tip"][0]]
    text = """format: 1
name: femodal
bodies:
  - name: b
    type: modal
    data: fe/truss.{ext}
    modes: 2
    mode_type: craig-bampton
    damping_ratio: 0.02
forces:
  - type: force
    body: b
    at: [{x}, {y}, {z}]
    force: [0, 0, -2.0]
joints:
{joints}
solver: {{t_end: 0.02, h: 1.0e-3}}
"""
    joints = "\n".join(f"  - {{type: spherical, body_i: ground, body_j: b, at: [{x}, {y}, {z}]}}"
                       for x, y, z in fe["nodes"][fe["root"]])
    out = {}
    for ext in ("npz", "h5"):
        path = tmp_path / f"m_{ext}.yaml"
        path.write_text(text.format(ext=ext, x=tip[0], y=tip[1], z=tip[2], joints=joints))
        loaded = load_model(path)
        res = loaded.model.simulate(t_end=0.02, h=1e-3)
        assert res.success
        res.save(tmp_path / f"r_{ext}.h5")
        out[ext] = res["b.modal_coordinates"]
    np.testing.assert_allclose(out["npz"], out["h5"], rtol=0, atol=1e-15)
    assert np.abs(out["npz"]).max() > 1e-6
    saved, kinds = dict(fe_modal._SHAPES), dict(fe_modal._KINDS)
    fe_modal._SHAPES.clear()                       # as in another process
    fe_modal._KINDS.clear()
    try:
        r = load_result(tmp_path / "r_npz.h5", rebuild=False)
        x = r.body_points(0, tip)
        kind = fe_modal.fe_kind_from_key(r.layout["body_kinds"][0].partition(":")[2])
        eta = r.q[-1, kind.eta]
        np.testing.assert_allclose(x[-1], r.q[-1, :3] + fm.rotations.rotation_matrix(r.q[-1, 3:7])
                                   @ (tip + kind.modes[fe["tip"][0]] @ eta), atol=1e-14)
        assert len(fe_modal._SHAPES) == 1                       # given back by the results file
    finally:
        fe_modal._SHAPES.update(saved)
        fe_modal._KINDS.update(kinds)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.format(ext="npz", x=tip[0], y=tip[1], z=tip[2], joints=joints).replace("modes: 2", "modes: 99"))
    with pytest.raises(ModelFileError, match=r"bad.yaml:7: bodies\[0\].modes: .*99 fixed-interface modes asked for"):
        load_model(bad)


def test_pictures_draw_the_deformed_edges(tmp_path):
    """The data's edges are drawn as lines between the deformed nodes (VTK): their ends are
    the nodes' global positions, also read back from the results file."""
    from flexmbd.io.results_h5 import load_result
    from flexmbd.io.vtk import scene, write_vtk

    data, fe = arrays(bays=4)
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.modal(name="b", data=dict(data, edges=fe["edges"], interface=fe["root"]), modes=2,
                mode_type="craig-bampton")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"r{k}")
    res = m.simulate(t_end=0.02, h=1e-3)
    res.save(tmp_path / "b.h5")
    back = load_result(tmp_path / "b.h5")
    rows = np.array([0, 10, 20])
    lines = scene(back, rows)["lines"]
    pos = res["b.node_positions"][rows]
    e = fe["edges"]
    np.testing.assert_allclose(lines[:, :len(e), 0], pos[:, e[:, 0]], rtol=0, atol=1e-12)
    np.testing.assert_allclose(lines[:, :len(e), 1], pos[:, e[:, 1]], rtol=0, atol=1e-12)
    assert np.abs(pos[-1] - pos[0]).max() > 1e-6                        # it deformed
    assert write_vtk(back, tmp_path / "vtk").endswith(".pvd")


def test_sparse_data_and_the_sparse_eigensolvers_give_the_dense_answers(monkeypatch):
    """Sparse triplets and a diagonal mass read like the dense matrices; the shift-invert
    Lanczos (eigsh) and sparse LU (Craig-Bampton) paths, used above 3000 degrees of
    freedom, give the dense eigenvalues (forced here on a small truss)."""
    import flexmbd.bodies.fe_data as F

    data, fe = arrays(bays=6)
    K = data["stiffness"]
    r, c = np.nonzero(K)
    sparse = dict(nodes=data["nodes"], mass=np.diag(data["mass"]).copy(), stiffness_rows=r, stiffness_cols=c,
                  stiffness_values=K[r, c])
    dense_ff = free_free_modes(check_fe_data(data), 5)[0]
    dense_cb = craig_bampton_modes(check_fe_data(data), fe["root"], 3)[0]
    monkeypatch.setattr(F, "DENSE_LIMIT", 10)
    sp_data = check_fe_data(sparse)
    np.testing.assert_allclose(free_free_modes(sp_data, 5)[0], dense_ff, rtol=1e-9)
    np.testing.assert_allclose(craig_bampton_modes(sp_data, fe["root"], 3)[0], dense_cb, rtol=1e-9)


def test_results_file_rebuilds_the_model_with_its_data_file(tmp_path, monkeypatch):
    """`flexmbd run` of the bundled model: the results file remembers the model file's
    directory, so outputs that are not stored (energies, element outputs) rebuild the model
    with its data file from any working directory."""
    import shutil

    from flexmbd.cli import main
    from flexmbd.io.results_h5 import load_result

    src = fm.__file__.replace("__init__.py", "models/")
    work = tmp_path / "models"
    work.mkdir()
    for name in ("fe-truss.yaml", "fe-truss.npz"):
        shutil.copy(src + name, work / name)
    out = tmp_path / "out.h5"
    assert main(["run", str(work / "fe-truss.yaml"), "--t-end", "0.01", "--quiet", "-o", str(out)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = load_result(out)
    e = r["energy.total"]
    assert len(e) == 11 and np.all(np.isfinite(e))
    assert r["truss.node_positions"].shape == (11, 44, 3)


@pytest.mark.parametrize("mode_type", ["free-free", "craig-bampton"])
def test_modes_are_free_of_rigid_motion(mode_type):
    """Free-free and Craig-Bampton modes are M-orthogonal to the six rigid motions: in the
    invariants ∫ρΦ = 0 and ∫ρ X × Φ = 0 (a linearised mean-axis frame), and ΦᵀKΦ, ΦᵀMΦ are
    diagonal for computed modes."""
    data, fe = arrays()
    m = fm.Model()
    m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type=mode_type)
    d = m.element("b").data
    W, n = d["W"], d["modes"].shape[1]
    ch = lambda d, a: 1 + d * (n + 1) + a                                # noqa: E731  channel (d, a)
    first = np.array([[W[0, ch(i, a)] for a in range(1, n + 1)] for i in range(3)])
    cross = np.array([[W[ch(i, 0), ch(j, a)] - W[ch(j, 0), ch(i, a)] for a in range(1, n + 1)]
                      for i, j in ((1, 2), (2, 0), (0, 1))])
    scale = np.sqrt(W[0, 0] * np.diag(d["Mff"]))
    assert np.abs(first / scale).max() < 1e-12 and np.abs(cross / scale).max() < 1e-12
    for A in (d["K"], d["Mff"]):
        assert np.abs(A - np.diag(np.diag(A))).max() < 1e-10 * np.abs(A).max()
