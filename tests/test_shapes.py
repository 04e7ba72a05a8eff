"""Bodies from shapes and a density: mass, centre of mass and inertia against textbook
formulas, the parallel-axis theorem for offset and rotated shapes, planar bodies' I_z,
meshes through the optional trimesh package, model files."""
import sys

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.bodies.shapes import mass_properties
from flexmbd.errors import ModelError
from flexmbd.io.model_file import dump_yaml, load_model_text, model_to_dict
from flexmbd.rotations import rotation_matrix

S = fm.shapes
RHO = 2700.0


def test_box_cylinder_sphere_tube_against_textbook_formulas():
    a, b, c = 0.3, 0.05, 0.08
    m = RHO * a * b * c
    mass, com, J = mass_properties(S.Box(a, b, c), density=RHO)
    assert mass == pytest.approx(m) and np.allclose(com, 0)
    np.testing.assert_allclose(J, m / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2]), rtol=1e-14)

    R, L = 0.1, 0.4
    m = RHO * np.pi * R**2 * L
    mass, _, J = mass_properties(S.Cylinder(R, L, axis=(1, 0, 0)), density=RHO)
    assert mass == pytest.approx(m)
    np.testing.assert_allclose(J, np.diag([m * R**2 / 2, m * (3 * R**2 + L**2) / 12, m * (3 * R**2 + L**2) / 12]),
                               rtol=1e-14)

    m = RHO * 4 / 3 * np.pi * R**3
    mass, _, J = mass_properties(S.Sphere(R), density=RHO)
    assert mass == pytest.approx(m)
    np.testing.assert_allclose(J, 0.4 * m * R**2 * np.eye(3), rtol=1e-14)

    Ro, Ri = 0.1, 0.08
    m = RHO * np.pi * (Ro**2 - Ri**2) * L
    mass, _, J = mass_properties(S.Tube(Ro, Ri, L), density=RHO)
    assert mass == pytest.approx(m)
    It = m * (3 * (Ro**2 + Ri**2) + L**2) / 12
    np.testing.assert_allclose(J, np.diag([It, It, m * (Ro**2 + Ri**2) / 2]), rtol=1e-14)
    # a tube is a cylinder minus its bore
    _, _, Jo = mass_properties(S.Cylinder(Ro, L), density=RHO)
    _, _, Ji = mass_properties(S.Cylinder(Ri, L), density=RHO)
    np.testing.assert_allclose(J, Jo - Ji, rtol=1e-13)
    # mass instead of density scales the density
    mass, _, J2 = mass_properties(S.Tube(Ro, Ri, L), mass=2 * m)
    assert mass == pytest.approx(2 * m) and np.allclose(J2, 2 * J)


def test_offset_and_rotated_shapes_follow_the_parallel_axis_theorem():
    rot = fm.quaternion_from_axis_angle((1, 2, 3), 0.8)
    A = rotation_matrix(rot)
    box = S.Box(0.3, 0.05, 0.08, offset=(0.2, -0.1, 0.05), rotation=rot)
    sphere = S.Sphere(0.06, offset=(-0.3, 0.1, 0.0))
    mb, _, Jb0 = mass_properties(S.Box(0.3, 0.05, 0.08), density=RHO)
    ms, _, Js0 = mass_properties(S.Sphere(0.06), density=RHO)
    # one rotated, offset box: centre at the offset, inertia A J Aᵀ
    m, c, J = mass_properties(box, density=RHO)
    np.testing.assert_allclose(c, (0.2, -0.1, 0.05))
    np.testing.assert_allclose(J, A @ Jb0 @ A.T, rtol=1e-13)
    # box and sphere: Steiner's theorem about the common centre of mass
    m, c, J = mass_properties([box, sphere], density=RHO)
    cb, cs = np.array([0.2, -0.1, 0.05]), np.array([-0.3, 0.1, 0.0])
    assert m == pytest.approx(mb + ms)
    np.testing.assert_allclose(c, (mb * cb + ms * cs) / (mb + ms))

    def steiner(mk, d):
        return mk * (d @ d * np.eye(3) - np.outer(d, d))
    expected = A @ Jb0 @ A.T + steiner(mb, cb - c) + Js0 + steiner(ms, cs - c)
    np.testing.assert_allclose(J, expected, rtol=1e-13)


def test_body_node_is_placed_at_the_centre_of_mass():
    rot = fm.quaternion_from_axis_angle((0, 0, 1), np.pi / 2)
    m = fm.Model()
    arm = m.rigid_body("arm", shape=[S.Box(0.3, 0.05, 0.05, offset=(0.15, 0, 0)), S.Sphere(0.05, offset=(0.3, 0, 0))],
                       density=RHO, position=(1.0, 0.0, 0.0), orientation=rot)
    mass, c, J = mass_properties(arm.shape, density=RHO)
    assert arm.mass == pytest.approx(mass)
    np.testing.assert_allclose(arm.position, (1.0, c[0], 0.0), atol=1e-15)     # body x axis along global y
    np.testing.assert_allclose(arm.inertia, J)
    np.testing.assert_allclose(arm.shape_origin, -c)
    # planar: I_z about the centre of mass, the node rotated by the angle
    p = m.planar_body("plate", shape=S.Box(0.4, 0.2, 0.01, offset=(0.2, 0.0, 0.0)), density=RHO, position=(0, 1),
                      angle=np.pi / 2)
    mp = RHO * 0.4 * 0.2 * 0.01
    assert p.mass == pytest.approx(mp)
    assert p.inertia[2, 2] == pytest.approx(mp * (0.4**2 + 0.2**2) / 12)
    np.testing.assert_allclose(p.position, (0.0, 1.2, 0.0), atol=1e-15)


def test_a_pendulum_from_a_shape_swings_as_one_from_mass_and_inertia():
    """The same rod given by shape and by its mass and inertia: identical runs."""
    def run(by_shape):
        m = fm.Model(gravity=(0, -9.81, 0))
        if by_shape:
            rod = m.planar_body("rod", shape=S.Box(1.0, 0.02, 0.02, offset=(0.5, 0, 0)), density=RHO)
        else:
            mass = RHO * 1.0 * 0.02 * 0.02
            rod = m.planar_body("rod", mass=mass, inertia=mass * (1.0 + 0.02**2) / 12, position=(0.5, 0))
        m.revolute("ground", rod, at=(0, 0))
        return m.simulate(t_end=0.5, h=1e-3)["rod.position"]
    np.testing.assert_allclose(run(True), run(False), rtol=1e-12, atol=1e-14)


def test_model_file_shapes_and_round_trip():
    text = """
format: 1
bodies:
  - name: arm
    shape: {type: box, size: [0.3, 0.05, 0.05]}
    density: 2700
  - name: wheel
    type: planar
    shape: [{type: tube, outer_radius: 0.1, inner_radius: 0.05, length: 0.02}]
    mass: 2.0
solver: {t_end: 1.0, h: 0.01}
"""
    model = load_model_text(text, "shapes.yaml").model
    arm, wheel = model.bodies
    assert arm.mass == pytest.approx(2700 * 0.3 * 0.05 * 0.05)
    assert wheel.mass == 2.0 and wheel.inertia[2, 2] == pytest.approx(2.0 * (0.1**2 + 0.05**2) / 2)
    again = load_model_text(dump_yaml(model_to_dict(model)), "again.yaml").model
    for b1, b2 in zip(model.bodies, again.bodies):
        assert b1.mass == b2.mass and np.array_equal(b1.inertia, b2.inertia)


@pytest.mark.parametrize("keys, match", [
    (dict(shape=S.Sphere(0.1)), "exactly one of density and mass"),
    (dict(shape=S.Sphere(0.1), density=1.0, mass=1.0), "exactly one of density and mass"),
    (dict(shape=S.Sphere(0.1), density=1.0, inertia=(1, 1, 1)), "inertia or shape"),
    (dict(mass=1.0), "missing required key 'inertia'"),
    (dict(mass=1.0, inertia=(1, 1, 1), density=3.0), "density needs shape"),
])
def test_bad_shape_keys_are_refused(keys, match):
    with pytest.raises(ModelError, match=match):
        fm.Model().rigid_body("b", **keys)


def test_tube_radii_are_checked():
    with pytest.raises(Exception, match="inner_radius"):
        S.Tube(0.05, 0.08, 0.1)


def test_mesh_without_trimesh_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "trimesh", None)      # import trimesh fails
    with pytest.raises(ModelError, match=r"flexmbd\[shapes\]"):
        fm.Model().rigid_body("b", shape=S.Mesh(tmp_path / "part.stl"), density=RHO)


def test_mesh_box_against_the_box_formula(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    a, b, c = 0.3, 0.05, 0.08
    path = tmp_path / "box.stl"
    trimesh.creation.box(extents=(a * 1000, b * 1000, c * 1000)).export(path)     # millimetres
    offset = (0.1, 0.2, -0.1)
    m = fm.Model()
    body = m.rigid_body("b", shape=S.Mesh(path, scale=1e-3, offset=offset), density=RHO)
    mass, _, J = mass_properties(S.Box(a, b, c), density=RHO)
    assert body.mass == pytest.approx(mass, rel=1e-12)
    np.testing.assert_allclose(body.inertia, J, rtol=1e-10, atol=1e-12 * np.abs(J).max())
    np.testing.assert_allclose(body.position, offset, atol=1e-12)
    # an open mesh has no volume
    open_mesh = trimesh.creation.box(extents=(1, 1, 1))
    open_mesh.update_faces(np.arange(len(open_mesh.faces)) > 0)
    open_mesh.export(tmp_path / "open.stl")
    with pytest.raises(ModelError, match="not closed"):
        m.rigid_body("c", shape=S.Mesh(tmp_path / "open.stl"), density=RHO)
