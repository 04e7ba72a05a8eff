"""Bad input gives a ModelError that names the offending item; a failing simulation
returns what it has computed with a message saying when and where it failed."""
import re
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd import ModelError
from flexmbd.examples.slider_crank import build as p1_slider_crank


@pytest.fixture
def model():
    m = fm.Model(name="test")
    m.rigid_body("a", mass=1.0, inertia=(1, 1, 1))
    m.planar_body("p", mass=1.0, inertia=0.5)
    return m


def test_negative_mass(model):
    with pytest.raises(ModelError, match=r"body 'heavy' mass: must be > 0, got -2"):
        model.rigid_body("heavy", mass=-2.0, inertia=(1, 1, 1))
    with pytest.raises(ModelError, match=r"body 'flat' mass: must be > 0"):
        model.planar_body("flat", mass=0.0, inertia=1.0)


def test_inertia_not_positive_definite(model):
    with pytest.raises(ModelError, match=r"body 'b' inertia: inertia must be positive definite"):
        model.rigid_body("b", mass=1.0, inertia=(1.0, -1.0, 1.0))
    with pytest.raises(ModelError, match=r"body 'c' inertia: inertia must be positive definite"):
        model.rigid_body("c", mass=1.0, inertia=[[1, 2, 0], [2, 1, 0], [0, 0, 1]])
    with pytest.raises(ModelError, match=r"body 'd' inertia: must be > 0"):
        model.planar_body("d", mass=1.0, inertia=-0.1)
    with pytest.raises(ModelError, match=r"body 'e' inertia: the inertia tensor must be symmetric"):
        model.rigid_body("e", mass=1.0, inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])


def test_triangle_inequality(model):
    with pytest.raises(ModelError, match=r"body 'disk'.*violate the triangle inequality I1 \+ I2 ≥ I3"):
        model.rigid_body("disk", mass=1.0, inertia=(1.0, 1.0, 3.0))
    model.rigid_body("thin_disk", mass=1.0, inertia=(1.0, 1.0, 2.0))  # the limit itself is allowed


@pytest.mark.parametrize("method, kwargs", [
    ("revolute", dict(at=(0, 0, 0), axis=(0, 0, 0))),
    ("prismatic", dict(at=(0, 0, 0), axis=(0, 0, 0))),
    ("cylindrical", dict(at=(0, 0, 0), axis=(0, 0, 0))),
    ("point_on_line", dict(at=(0, 0, 0), axis=(0, 0, 0))),
    ("rotation_driver", dict(axis=(0, 0, 0), speed=1.0)),
    ("translation_driver", dict(at=(0, 0, 0), axis=(0, 0, 0), speed=1.0)),
    ("rotational_spring_damper", dict(axis=(0, 0, 0), k=1.0)),
])
def test_zero_length_axis_names_the_element(model, method, kwargs):
    with pytest.raises(ModelError, match=rf"{method} 'bad' axis: zero-length axis"):
        getattr(model, method)(fm.GROUND, "a", name="bad", **kwargs)


def test_zero_length_normal_and_universal_axes(model):
    with pytest.raises(ModelError, match=r"point_in_plane 'bad' normal: zero-length axis"):
        model.point_in_plane(fm.GROUND, "a", at=(0, 0, 0), normal=(0, 0, 0), name="bad")
    with pytest.raises(ModelError, match=r"universal 'cross' axis_j: zero-length axis"):
        model.universal(fm.GROUND, "a", at=(0, 0, 0), axis_i=(1, 0, 0), axis_j=(0, 0, 0), name="cross")


def test_bad_point_names_the_element(model):
    with pytest.raises(ModelError, match=r"revolute 'hinge' at\[1\]: expected a finite number, got nan"):
        model.revolute(fm.GROUND, "a", at=(0, np.nan, 0), name="hinge")


def test_spring_with_coincident_points(model):
    with pytest.raises(ModelError, match=r"spring_damper 'sp': the two attachment points coincide"):
        model.spring_damper(fm.GROUND, "a", at_i=(1, 2, 3), at_j=(1, 2, 3), k=10.0, name="sp")
    with pytest.raises(ModelError, match=r"spring_damper 'neg' k: must be ≥ 0"):
        model.spring_damper(fm.GROUND, "a", at_i=(1, 0, 0), k=-1.0, name="neg")
    with pytest.raises(ModelError, match=r"rotational_spring_damper 'rs' k: must be ≥ 0"):
        model.rotational_spring_damper(fm.GROUND, "a", k=-5.0, name="rs")


def test_joint_to_a_body_of_another_model(model):
    other = fm.Model()
    stranger = other.rigid_body("stranger", mass=1.0, inertia=(1, 1, 1))
    with pytest.raises(ModelError, match=r"revolute 'j': Body\('stranger', spatial\) is not a body of this model"):
        model.revolute("a", stranger, at=(0, 0, 0), name="j")


def test_unknown_body_name(model):
    with pytest.raises(ModelError, match=r"spherical 'ball': no body named 'nobody' \(bodies: a, p, or ground\)"):
        model.spherical("a", "nobody", at=(0, 0, 0), name="ball")
    with pytest.raises(ModelError, match=r"force 'f': no body named 'b'"):
        model.force("b", (1, 0, 0), name="f")


def test_duplicate_names(model):
    with pytest.raises(ModelError, match=r"name 'a' is used twice"):
        model.rigid_body("a", mass=1.0, inertia=(1, 1, 1))
    model.revolute(fm.GROUND, "a", at=(0, 0, 0), name="hinge")
    with pytest.raises(ModelError, match=r"name 'hinge' is used twice"):
        model.spherical(fm.GROUND, "a", at=(0, 0, 0), name="hinge")
    with pytest.raises(ModelError, match=r"name 'p' is used twice"):
        model.force("a", (1, 0, 0), name="p")  # bodies and elements share one namespace


def test_planar_spatial_mix_in_one_joint(model):
    with pytest.raises(ModelError, match=r"revolute 'mixed': connects a planar and a spatial body"):
        model.revolute("a", "p", at=(0, 0, 0), name="mixed")


def test_planar_misuse(model):
    with pytest.raises(ModelError, match=r"rotational_spring_damper 'tilt': planar bodies rotate about z"):
        model.rotational_spring_damper(fm.GROUND, "p", axis=(1, 0, 0), k=1.0, name="tilt")
    with pytest.raises(ModelError, match=r"revolute 'tilted': planar bodies rotate about z"):
        model.revolute(fm.GROUND, "p", at=(0, 0), axis=(1, 0, 0), name="tilted")


def test_body_connected_to_itself(model):
    with pytest.raises(ModelError, match=r"revolute 'self': connects 'a' to itself"):
        model.revolute("a", "a", at=(0, 0, 0), name="self")


def test_driver_needs_exactly_one_law(model):
    with pytest.raises(ModelError, match=r"rotation_driver: give exactly one"):
        model.rotation_driver(fm.GROUND, "a", angle=0.1, speed=1.0)


def test_rejected_item_does_not_reserve_its_name(model):
    with pytest.raises(ModelError):
        model.rigid_body("crank", mass=-1.0, inertia=(1, 1, 1))
    model.rigid_body("crank", mass=1.0, inertia=(1, 1, 1))  # the corrected call must work


# ------------------------------------------------------------------ failing runs
def _fail_time(message):
    m = re.search(r"step from t = ([0-9.eE+-]+) s failed", message)
    assert m, message
    return float(m.group(1))


def test_failing_simulation_keeps_the_steps_so_far():
    """An absurd actuator force (1e13 N) switched on after t = 0.1 s: the residual can no
    longer reach P1's absolute tolerance 1e-7 (round-off), h is halved twice, then the
    run stops with success False; the ten steps up to 0.1 s are kept.  (The default scaled
    test, relative to the forces' size, runs it through.)"""
    jump = fm.UserFunction(lambda t: 0.0 if t < 0.1 + 1e-9 else 1e13, df=lambda t: 0.0, ddf=lambda t: 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = p1_slider_crank(k=2e4, c=0.0, actuator=jump).simulate(t_end=1.0, h=0.01, max_halvings=2,
                                                                    convergence="residual")
    assert not res.success
    assert res.steps == 10 and res.t[-1] == pytest.approx(0.1)
    assert _fail_time(res.message) == pytest.approx(0.1)
    assert "after 2 halvings" in res.message and "worst equation: equation of motion of" in res.message
    assert np.all(np.isfinite(res.q)) and res.q.shape == (11, 21)
    assert "FAILED" in res.summary()
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match="failed even with h"):
        warnings.simplefilter("ignore")
        p1_slider_crank(k=2e4, actuator=jump).simulate(t_end=1.0, h=0.01, max_halvings=0, raise_on_failure=True,
                                                        convergence="residual")


def test_absurd_stiffness_with_a_large_step_fails_cleanly():
    """k = 1e9 N/m with h = 0.05 s and one halving: Newton cannot meet P1's |r| < 1e-7."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = p1_slider_crank(k=1e9, c=0.0).simulate(t_end=1.0, h=0.05, max_halvings=1, max_iter=8,
                                                     convergence="residual")
    assert not res.success
    t_fail = _fail_time(res.message)
    assert res.t[-1] <= t_fail + 1e-12 and len(res.t) == res.steps + 1 < 21
    assert "worst equation:" in res.message and "residual norm" in res.message
