"""Freezing reuses what it has worked out before, and only that.

- Dropping redundant equations slices the joint group's arrays
  (:meth:`~flexmbd.constraints.dot.DotConstraintGroup.subset`): every array equals that
  of a group built from the kept equations alone.
- The analyses freezing keeps by model structure (flexmbd/system.py ``_PATTERNS``,
  ``_DEPENDENT``) give a model of the same structure with other parameter
  values (another joint place, mass, spring) the answers of a process that never saw the
  first model, and a model of another structure is not served from them.
- The joint groups kept by their inputs (constraints/joint_types.py ``_GROUPS``) are
  shared with a model of the same joints, built anew for moved joints and for drivers.
- The spring-damper and point-force groups kept by their inputs (forces/spring_damper.py,
  forces/loads.py ``_KEPT``) share their index rows and markers with a model of the same
  elements and take that model's own values (stiffness, damping, factors).
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.constraints.dot import DotConstraintGroup
from flexmbd.examples.slider_crank import build as p1_slider_crank
from flexmbd.system import RedundantConstraintWarning, System


def _freeze(model, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return System(model, **kw)


GROUP_ARRAYS = ("dof_index", "config_index", "side", "sign", "w0", "s0", "slot_dof", "slot_vel", "side_flat",
                "sign_flat", "marker_tensors")


@pytest.mark.parametrize("keep", ["every third dropped", "redundant dropped", "all kept"])
def test_subset_equals_the_group_built_from_the_kept_equations(keep):
    """The P1 slider-crank's joint group (23 equations, with a driver's time law): its
    subsets are the groups DotConstraintGroup builds from the same equations."""
    model = p1_slider_crank(k=2e4, c=1e3)
    model.add("rotation_driver", body_i=fm.GROUND, body_j="crank", axis=(0, 1, 0), speed=2.0, name="drive")
    full = _freeze(model, redundancy="keep")
    (g,) = [c for c in full.constraint_groups if isinstance(c, DotConstraintGroup)]
    dropped = _freeze(model)
    mask = {"every third dropped": np.arange(len(g)) % 3 != 1, "all kept": np.ones(len(g), bool),
            "redundant dropped": np.array([(o, lab) not in dropped.removed_equations
                                           for o, lab in zip(g.owner, g.label)])}[keep]
    assert 0 < mask.sum() <= len(g)
    assert mask[-1] == (keep != "redundant dropped")   # the driver's equation (last) and its time law
    sub = g.subset(mask)
    idx = np.flatnonzero(mask)
    fresh = DotConstraintGroup(g.kind, [g.equations[i] for i in idx], g.dof_index[idx],
                               [type(tl)(int(np.searchsorted(idx, tl.index)), tl.law) for tl in g.laws
                                if tl.index in set(idx)], g.config_index[idx])
    fresh.on_ground = g.on_ground[idx]
    for name in GROUP_ARRAYS + ("on_ground",):
        a, b = getattr(sub, name), getattr(fresh, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous == b.flags.c_contiguous, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    for name in ("u", "mtype", "point", "rot", "const", "Cu"):
        np.testing.assert_array_equal(getattr(sub.markers, name), getattr(fresh.markers, name), err_msg=name)
    assert sub.markers.anchors is None and fresh.markers.anchors is None
    assert (sub.owner, sub.label) == (fresh.owner, fresh.label)
    assert [(tl.index, tl.law) for tl in sub.laws] == [(tl.index, tl.law) for tl in fresh.laws]
    qe = full.extend(full.q0 + 0.01 * np.arange(full.n_q))
    lam = np.linspace(-1.0, 1.0, len(sub))
    for a, b in zip(sub.assemble(qe, 0.3, lam), fresh.assemble(qe, 0.3, lam)):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------ structure-equal models, other values
def slider_crank(length=2.0, mass=50.0, k=2e4, crank_angle=np.pi / 4, pendulum=False, push_scale=1.0):
    """P1's spatial slider-crank (flexmbd/examples/slider_crank.py) with its dimensions,
    link mass, spring and crank angle as parameters: the same structure for any values;
    ``pendulum`` changes the structure (a fourth body hinged to the slider)."""
    from flexmbd.rotations import quaternion_from_axis_angle

    L, phi = length, crank_angle
    A = L * np.array([np.cos(phi), np.sin(phi), 0.0])
    B = np.array([2 * L * np.cos(phi), 0.0, 0.0])
    m = fm.Model(name="slider-crank")
    crank = m.rigid_body("crank", mass=mass, inertia=(0.02, 15.0, 15.0), position=A / 2,
                         orientation=quaternion_from_axis_angle((0, 0, 1), phi))
    link = m.rigid_body("link", mass=mass, inertia=(0.02, 15.0, 15.0), position=(A + B) / 2,
                        orientation=quaternion_from_axis_angle((0, 0, 1), -phi))
    slider = m.rigid_body("slider", mass=1.0, inertia=(1.0, 1.0, 1.0), position=B)
    m.revolute(fm.GROUND, crank, at=(0, 0, 0), axis=(0, 0, 1), name="crank_pin")
    m.revolute(crank, link, at=A, axis=(0, 0, 1), name="elbow")
    m.revolute(link, slider, at=B, axis=(0, 0, 1), name="wrist")
    m.prismatic(fm.GROUND, slider, at=B, axis=(1, 0, 0), name="slide")
    if pendulum:
        bob = m.rigid_body("bob", mass=2.0, inertia=(0.1, 0.1, 0.1), position=B + (0.0, -0.5, 0.3))
        m.revolute(slider, bob, at=B, axis=(0, 0, 1), name="hinge")
    m.spring_damper(crank, link, k=k, c=1e3, name="sda")
    m.force(slider, (1000.0, 0, 0), name="push", scale=push_scale)
    return m


def _answers(model):
    """What a run gives: positions, velocities, accelerations and multipliers of every
    step, the equations removed as redundant, and the Newton iterations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        res = model.simulate(t_end=0.2, h=0.01, multipliers="integrator")
    assert res.success
    return dict(q=res.q, v=res.v, qdd=res.qdd, lam=res.lam, iterations=res.stats["iterations"],
                removed=np.array([f"{o}: {lab}" for o, lab in res.system.removed_equations]))


def _fresh_process_answers(tmp_path, **params):
    """``_answers(slider_crank(**params))`` computed by a new Python process."""
    out = tmp_path / "fresh.npz"
    code = (f"import importlib.util, numpy as np; s = importlib.util.spec_from_file_location('t', {str(__file__)!r}); "
            f"t = importlib.util.module_from_spec(s); s.loader.exec_module(t); "
            f"np.savez({str(out)!r}, **t._answers(t.slider_crank(**{params!r})))")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)
    with np.load(out) as f:
        return dict(f)


def _cache_keys():
    from flexmbd import system

    return set(system._PATTERNS.items), set(system._DEPENDENT.items)


@pytest.mark.parametrize("params", [dict(length=1.5, mass=30.0, k=5e4), dict(crank_angle=np.pi / 3)],
                         ids=["other dimensions, mass and spring", "other crank angle"])
def test_a_model_of_the_same_structure_gets_the_answers_of_a_fresh_process(tmp_path, params):
    """A first model fills the structure caches; a model of the same structure with other
    values then runs to the bit-identical answers of a process that never saw the first."""
    first = _answers(slider_crank())
    patterns = _cache_keys()[0]
    second = _answers(slider_crank(**params))
    assert _cache_keys()[0] <= patterns           # the same structure: its pattern was reused
    assert not np.array_equal(second["q"], first["q"])
    fresh = _fresh_process_answers(tmp_path, **params)
    assert fresh.keys() == second.keys()
    for key in fresh:
        np.testing.assert_array_equal(second[key], fresh[key], err_msg=key)


def test_a_model_of_another_structure_is_not_served_from_the_caches(tmp_path):
    """A fourth body after the slider-crank: new entries for its pattern and redundancy
    analysis (misses), and the answers of a fresh process."""
    _answers(slider_crank())
    before = _cache_keys()
    other = _answers(slider_crank(pendulum=True))
    after = _cache_keys()
    assert len(after[0] - before[0]) == 1 and len(after[1] - before[1]) == 1
    fresh = _fresh_process_answers(tmp_path, pendulum=True)
    for key in fresh:
        np.testing.assert_array_equal(other[key], fresh[key], err_msg=key)


# ------------------------------------------- joint groups kept by their inputs
def _joint_group(system):
    (g,) = [c for c in system.constraint_groups if isinstance(c, DotConstraintGroup)]
    return g


def test_a_model_with_the_same_joints_gets_copies_of_their_group_and_a_fresh_process_answers(tmp_path):
    """Other masses and spring, the same joints (places, axes, bodies' initial poses): the
    joint group is served from constraints/joint_types.py ``_GROUPS`` (its arrays and its
    redundancy subset shared, its rows its own), and the run gives a fresh process's
    answers bit for bit; another crank angle moves the joints and gets a group of its own."""
    first = _freeze(slider_crank())
    params = dict(mass=30.0, k=5e4)
    second = _freeze(slider_crank(**params))
    g1, g2 = _joint_group(first), _joint_group(second)
    assert g1 is not g2
    for name in GROUP_ARRAYS:
        assert getattr(g2, name) is getattr(g1, name), name
    assert g2.markers is g1.markers
    g2.first_row = -1                    # a system's own attribute: the other's is untouched
    assert g1.first_row != -1 and _joint_group(first).first_row == g1.first_row
    assert second.removed_equations == first.removed_equations
    moved = _joint_group(_freeze(slider_crank(crank_angle=np.pi / 3)))
    assert moved.slot_dof is not g1.slot_dof and not np.array_equal(moved.markers.u, g1.markers.u)
    answers = _answers(slider_crank(**params))
    fresh = _fresh_process_answers(tmp_path, **params)
    for key in fresh:
        np.testing.assert_array_equal(answers[key], fresh[key], err_msg=key)


def test_joints_with_time_functions_are_built_every_time():
    """A driver's data holds a time function (not plain numbers): its group is not kept,
    so a second model with another speed gets its own law."""
    def driven(speed):
        model = slider_crank()
        model.add("rotation_driver", body_i=fm.GROUND, body_j="crank", axis=(0, 0, 1), speed=speed, name="drive")
        return _freeze(model, redundancy="keep")

    g1, g2 = _joint_group(driven(1.0)), _joint_group(driven(3.0))
    assert g2.slot_dof is not g1.slot_dof
    np.testing.assert_array_equal(g2.slot_dof, g1.slot_dof)
    assert g1._time_terms(0.5)[0][-1, 0] != g2._time_terms(0.5)[0][-1, 0]     # cos θ_d(t) of each speed


# ------------------------------- spring-damper and point-force groups kept by their inputs
def _group(system, cls):
    (g,) = [f for f in system.force_groups if isinstance(f, cls)]
    return g


def test_spring_damper_and_point_force_groups_share_their_rows_and_take_their_own_values(tmp_path):
    """Another stiffness and force factor, the same elements and bodies: the groups' index
    rows and markers are those of the first model's groups (forces/spring_damper.py,
    forces/loads.py ``_KEPT``), the values the second model's; the run gives a fresh
    process's answers bit for bit; moved bodies (another crank angle) get rows and markers of their own."""
    from flexmbd.forces.loads import PointForceGroup
    from flexmbd.forces.spring_damper import SpringDamperGroup

    first = _freeze(slider_crank())
    params = dict(k=5e4, push_scale=2.5)
    second = _freeze(slider_crank(**params))
    s1, s2 = _group(first, SpringDamperGroup), _group(second, SpringDamperGroup)
    p1, p2 = _group(first, PointForceGroup), _group(second, PointForceGroup)
    assert s1 is not s2 and p1 is not p2
    for name in ("dof_index", "config_index", "mi", "mj"):
        assert getattr(s2, name) is getattr(s1, name), name
    for name in ("dof_index", "config_index", "points", "f", "fixed_dirs"):
        assert getattr(p2, name) is getattr(p1, name), name
    assert (s1.k.tolist(), s2.k.tolist()) == ([2e4], [5e4])
    assert (p1._s.tolist(), p2._s.tolist()) == ([1.0], [2.5])
    moved = _group(_freeze(slider_crank(crank_angle=np.pi / 3)), SpringDamperGroup)
    assert moved.mi is not s1.mi and moved.dof_index is not s1.dof_index    # the bodies' poses moved
    answers = _answers(slider_crank(**params))
    fresh = _fresh_process_answers(tmp_path, **params)
    for key in fresh:
        np.testing.assert_array_equal(answers[key], fresh[key], err_msg=key)
