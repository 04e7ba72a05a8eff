"""Wrong numbers that were reported as something else: a time function that returns NaN
(was: "singular iteration matrix"), a beam end at NaN (was: "start and end coincide"),
and the solver settings that must be refused (h > t_end, tol < 0, max_iter = 0)."""
from __future__ import annotations

import math
import warnings

import pytest

import flexmbd as fm
from flexmbd.examples.slider_crank import build


def _nan_after(t0):
    return lambda t: math.nan if t > t0 else 0.0


@pytest.mark.parametrize("where", ["actuator", "driver"])
def test_a_nan_time_function_is_named_with_its_time(where):
    if where == "actuator":
        m = build(k=2e4, c=1e3, actuator=_nan_after(0.0305))
        name, role = "sda", "actuator"
    else:
        m = fm.Model(name="driven")
        b = m.rigid_body("wheel", mass=1.0, inertia=(0.1, 0.1, 0.1))
        m.revolute(fm.GROUND, b, at=(0, 0, 0), axis=(0, 0, 1), name="pin")
        m.rotation_driver(fm.GROUND, b, axis=(0, 0, 1), angle=_nan_after(0.0305), name="motor")
        name, role = "motor", "angle"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = m.simulate(t_end=0.1, h=0.01)
    assert not res.success
    msg = res.message
    assert "singular" not in msg, msg
    assert repr(name) in msg and role in msg and "nan" in msg.lower() and "at t = 0.030625 s" in msg, msg
    assert res.t[-1] == pytest.approx(0.03)


def test_settings_that_make_no_sense_are_refused():
    m = build()
    for kw, key in [(dict(t_end=0.1, h=1.0), "h"), (dict(t_end=0.1, h=0.01, tol=-1), "tol"),
                    (dict(t_end=0.1, h=0.01, max_iter=0), "max_iter")]:
        with pytest.raises(ValueError, match=key):
            m.simulate(**kw)


def test_a_beam_end_at_nan_is_refused_as_not_a_number():
    m = fm.Model()
    with pytest.raises(ValueError) as info:
        m.beam("rod", start=(0, 0, 0), end=(1.0, math.nan, 0), elements=2, section=dict(
            shape="rectangle", width2=0.01, height3=0.01, E=2.1e11, nu=0.3))
    text = str(info.value)
    assert "coincide" not in text and ("finite" in text or "nan" in text.lower()), text


@pytest.mark.parametrize("name,kw,fragment", [
    ("a.b", {}, "not a valid name"),
    ("ground", {}, "reserved for the fixed frame"),
    ("x", {"mass": "1"}, "expected a number"),
    ("x", {"mass": None}, "mass"),
])
def test_python_api_applies_the_model_file_rules(name, kw, fragment):
    """The Python API validates with the model file's specification: one rule, one message."""
    m = fm.Model()
    with pytest.raises(ValueError, match=fragment):
        m.rigid_body(name, **{"mass": 1.0, "inertia": (1.0, 1.0, 1.0), **kw})
