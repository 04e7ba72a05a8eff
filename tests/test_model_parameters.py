"""Model files: the parameters: section, expressions of the parameters in numeric fields,
writing the model back (as written and resolved), and kinematic analysis from a file and
from `flexmbd run`."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import flexmbd as fm
from flexmbd import cli
from flexmbd.io.model_file import (
    ModelFileError,
    dump_yaml,
    load_model_file,
    load_model_text,
)
from flexmbd.solvers.kinematics import kinematic_analysis

MODELS = Path(__file__).resolve().parents[1] / "flexmbd" / "models"

PENDULUM = """\
format: 1
name: pendulum
parameters:
  m: 0.5
  L: 0.3
  J: m*L**2/12
  J2: 2*J + 0*m
  w: 2*pi
gravity: [0.0, 0.0, -9.81]
bodies:
  - name: rod
    mass: m
    inertia: [1.0e-4, J, "m*L**2/12"]
    position: [L/2, 0, 0]
joints:
  - {type: revolute, name: hinge, body_i: ground, body_j: rod, at: [0, 0, 0], axis: [0, 1, 0]}
drivers:
  - {type: rotation_driver, name: motor, body_i: ground, body_j: rod, axis: [0, 1, 0], angle: "w*t"}
forces:
  - {type: torque, name: brake, body: rod, torque: [0, -J2, 0]}
solver: {analysis: kinematic, t_end: L, h: L/10}
outputs: [motor.torque]
"""

# A planar slider-crank (crank r, rod l) driven at constant speed w from the angle th0;
# gravity -y and a load on the slider, as in tests/test_kinematics.py.
SLIDER_CRANK = """\
format: 1
name: slider-crank
parameters:
  r: 0.3
  l: 1.0
  th0: 0.4
  w: 2.0
  Ax: r*cos(th0)
  Ay: r*sin(th0)
  D: sqrt(l**2 - Ay**2)
  Bx: Ax + D
  psi: atan(-Ay/D)
gravity: [0.0, -9.81, 0.0]
bodies:
  - {type: planar, name: crank, mass: 2.0, inertia: 0.05, position: [Ax/2, Ay/2], angle: th0}
  - {type: planar, name: rod, mass: 3.0, inertia: 0.3, position: [(Ax + Bx)/2, Ay/2], angle: psi}
  - {type: planar, name: slider, mass: 1.5, inertia: 0.01, position: [Bx, 0]}
joints:
  - {type: revolute, name: crank_pin, body_i: ground, body_j: crank, at: [0, 0]}
  - {type: revolute, name: elbow, body_i: crank, body_j: rod, at: [Ax, Ay]}
  - {type: revolute, name: wrist, body_i: rod, body_j: slider, at: [Bx, 0]}
  - {type: prismatic, name: slide, body_i: ground, body_j: slider, at: [Bx, 0], axis: [1, 0, 0]}
drivers:
  - {type: rotation_driver, name: motor, body_i: ground, body_j: crank, angle: "w*t"}
forces:
  - {type: force, name: load, body: slider, force: [-50.0, 0, 0]}
solver: {analysis: kinematic, t_end: 1.0, h: 0.05}
outputs: [slider.position, motor.torque]
"""


def _run(argv, capsys):
    status = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _error(text, file="m.yaml"):
    with pytest.raises(ModelFileError) as info:
        loaded = load_model_text(text, file)
        loaded.freeze()
    return info.value


def _line(text, needle):
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if needle in ln)


# ------------------------------------------------------------------ parameters


def test_parameters_resolve_in_order_and_chains():
    loaded = load_model_text(PENDULUM, "p.yaml")
    J = 0.5 * 0.3 ** 2 / 12
    assert loaded.parameters == {"m": 0.5, "L": 0.3, "J": J, "J2": 2 * J, "w": 2 * math.pi}
    body = loaded.spec.bodies[0]
    assert body.mass == 0.5 and body.inertia == [1e-4, J, J] and body.position == [0.15, 0.0, 0.0]
    assert loaded.spec.forces[0].torque == [0.0, -2 * J, 0.0]
    assert loaded.spec.solver.t_end == 0.3 and loaded.spec.solver.h == pytest.approx(0.03)
    assert loaded.spec.parameters == loaded.parameters


def test_strings_stay_strings_where_the_schema_wants_text():
    text = PENDULUM.replace("name: rod", "name: m").replace("body_j: rod", "body_j: m").replace(
        "body: rod", "body: m").replace('"w*t"', '"2*pi*t"')
    loaded = load_model_text(text, "p.yaml")
    assert loaded.spec.bodies[0].name == "m" and loaded.spec.joints[0].body_j == "m"
    assert loaded.spec.drivers[0].angle == "2*pi*t"          # a function of t, as written
    assert loaded.spec.outputs == ["motor.torque"] and loaded.spec.joints[0].type == "revolute"


def test_time_functions_and_laws_take_the_parameters_values():
    loaded = load_model_text(PENDULUM, "p.yaml")
    angle = loaded.spec.drivers[0].angle
    assert isinstance(angle, str)
    f = fm.expressions.ExpressionFunction(angle)
    for t in (0.0, 0.1, 0.7):
        assert f.derivatives(t) == pytest.approx((2 * math.pi * t, 2 * math.pi, 0.0), rel=1e-15)
    assert load_model_text(PENDULUM, "p.yaml").data["drivers"][0]["angle"] == "w*t"   # the file as written
    law = PENDULUM.replace("forces:\n", "forces:\n  - {type: spring_damper, name: s, body_i: ground, body_j: rod, "
                                         "at_i: [0, 0, 1], law: \"m*delta + J*rate\"}\n")
    spec = load_model_text(law, "p.yaml").spec.forces[0]
    F = fm.expressions.LawExpression(spec.law)
    assert F.derivatives(0.2, 0.3) == pytest.approx((0.5 * 0.2 + 0.5 * 0.09 / 12 * 0.3, 0.5, 0.5 * 0.09 / 12))


def test_expressions_without_parameters_section():
    text = PENDULUM.split("parameters:")[0] + PENDULUM[PENDULUM.index("gravity:"):]
    text = (text.replace("mass: m", "mass: 2*0.25").replace('inertia: [1.0e-4, J, "m*L**2/12"]', "inertia: [1e-4, 1/100, 1/100]")
            .replace("[L/2, 0, 0]", "[0.3/2, 0, 0]").replace("-J2", "-0.1").replace('"w*t"', '"2*pi*t"')
            .replace("t_end: L, h: L/10", "t_end: 0.3, h: 0.03"))
    loaded = load_model_text(text, "p.yaml")
    assert loaded.spec.bodies[0].mass == 0.5 and loaded.spec.bodies[0].inertia == [1e-4, 0.01, 0.01]
    # a text that is no expression keeps the validator's message
    err = _error(text.replace("mass: 2*0.25", "mass: heavy"))
    assert "bodies[0].mass" in str(err) and "expected a number" in str(err)


@pytest.mark.parametrize("old, new, key, fragment", [
    ('inertia: [1.0e-4, J,', 'inertia: [1.0e-4, mm,', "bodies[0].inertia[1]", "unknown name 'mm' (did you mean 'm'?)"),
    ("J: m*L**2/12", "J: m*L**2/12 + w", "parameters.J", "parameter 'w' is defined later"),
    ("J: m*L**2/12", "J: m*LL**2/12", "parameters.J", "unknown name 'LL' (did you mean 'L'?)"),
    ("J: m*L**2/12", "J: m*J", "parameters.J", "parameter 'J' refers to itself"),
    ('"w*t"', '"1/(t - L)"', "drivers[0].angle", "the expression '1/(t - L)' cannot be evaluated at t = 0.3 s"),
    ("  w: 2*pi", "  pi: 2", "parameters.pi", "'pi' is a constant"),
    ("  w: 2*pi", "  sin: 2", "parameters.sin", "'sin' is a function"),
    ("  w: 2*pi", "  t: 2", "parameters.t", "time variable"),
    ("  w: 2*pi", "  2w: 2", "parameters.2w", "is not a name"),
    ("  w: 2*pi", "  w: 2*pi\n  m: 3", "parameters.m", "duplicate key 'm'"),
    ("  w: 2*pi", "  w: [1, 2]", "parameters.w", "a number or an expression"),
    ("  w: 2*pi", "  w: 1/(L - 0.3)", "parameters.w", "division by zero"),
    ("  w: 2*pi", "  w: __import__('os')", "parameters.w", "unknown name '__import__'"),
    ("mass: m", 'mass: "m*"', "bodies[0].mass", "not a valid expression"),
    ("mass: m", "mass: -m", "bodies[0].mass", "> 0"),
    ("mass: m", "mass: sqrt(-m)", "bodies[0].mass", "cannot be evaluated"),
    ("h: L/10}", "h: L/10, max_iter: m}", "solver.max_iter", "not a whole number"),
    ('"w*t"', '"ww*t"', "drivers[0].angle", "unknown name 'ww'"),
])
def test_parameter_errors_name_file_line_and_key(old, new, key, fragment):
    assert old in PENDULUM
    text = PENDULUM.replace(old, new, 1)
    err = _error(text, "p.yaml")
    msg = str(err)
    assert f" {key}: " in msg and fragment in msg, msg
    first = next(i for i, (a, b) in enumerate(zip(PENDULUM.splitlines(), text.splitlines())) if a != b)
    line = first + 1
    assert msg.startswith(f"p.yaml:{line}: "), msg
    assert "Traceback" not in msg


def test_parameter_error_from_the_command_line_is_one_line(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text(PENDULUM.replace('inertia: [1.0e-4, J,', 'inertia: [1.0e-4, mm,'))
    status, out, err = _run(["run", path], capsys)
    assert status == 2 and out == ""
    assert err.strip() == (f"flexmbd run: error: {path}:{_line(path.read_text(), 'inertia')}: bodies[0].inertia[1]: "
                           "unknown name 'mm' (did you mean 'm'?)")


# ------------------------------------------------------------------ writing back


def test_dump_round_trip_keeps_expressions_and_results():
    loaded = load_model_text(SLIDER_CRANK, "s.yaml")
    text = dump_yaml(loaded.file_data())
    assert "Bx: Ax + D" in text and "position: [Bx, 0]" in text and "angle: w*t" in text
    again = load_model_text(text, "again.yaml")
    assert again.spec == loaded.spec and again.parameters == loaded.parameters
    resolved = dump_yaml(loaded.file_data(resolved=True))
    assert "parameters" not in resolved and "Bx" not in resolved
    flat = load_model_text(resolved, "flat.yaml")
    assert flat.spec.model_dump(exclude={"parameters"}) == loaded.spec.model_dump(exclude={"parameters"})
    a = kinematic_analysis(loaded.model, loaded.kinematic_settings().times())
    b = kinematic_analysis(again.model, again.kinematic_settings().times())
    c = kinematic_analysis(flat.model, flat.kinematic_settings().times())
    assert np.array_equal(a.q, b.q) and np.array_equal(a.lam, b.lam)
    assert np.array_equal(a.q, c.q) and np.array_equal(a["motor.torque"], c["motor.torque"])


def test_dump_resolved_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(SLIDER_CRANK)
    status, out, err = _run(["run", path, "--dump-resolved", "-"], capsys)
    assert status == 0 and err == ""
    assert out.startswith("# s.yaml with every parameter and expression replaced by its value")
    flat = load_model_text(out, "flat.yaml")
    assert flat.spec.bodies[2].position == [0.3 * math.cos(0.4) + math.sqrt(1 - (0.3 * math.sin(0.4)) ** 2), 0.0]
    dest = tmp_path / "flat.yaml"
    status, out, _ = _run(["run", path, "--dump-resolved", dest, "--t-end", "0.5"], capsys)
    assert status == 0 and "written to" in out
    assert load_model_file(dest).spec.solver.t_end == 0.5
    status, _, err = _run(["run", path, "--dump-resolved", path], capsys)
    assert status == 2 and "overwrite" in err


def test_converted_bundled_model_gives_the_same_numbers():
    """pendulum.yaml takes its mass and length from parameters: the same numbers as the
    literal values it held before, so the same results."""
    path = MODELS / "pendulum.yaml"
    loaded = load_model_file(path)
    assert loaded.parameters == {"m": 1.0, "L": 1.0} and loaded.data["bodies"][0]["mass"] == "m"
    rod = loaded.spec.bodies[0]
    assert (rod.mass, rod.inertia, rod.position) == (1.0, [1.0e-4, 0.08333333333333333, 0.08333333333333333],
                                                     [0.5, 0.0, 0.0])
    text = path.read_text(encoding="utf-8")
    literal = text[:text.index("parameters:")] + text[text.index("bodies:"):]
    literal = (literal.replace("mass: m\n", "mass: 1.0\n")
               .replace("inertia: [1.0e-4, m*L**2/12, m*L**2/12]",
                        "inertia: [1.0e-4, 0.08333333333333333, 0.08333333333333333]")
               .replace("position: [L/2, 0.0, 0.0]", "position: [0.5, 0.0, 0.0]"))
    before = load_model_text(literal, "literal.yaml")
    assert "parameters" not in before.data
    assert before.spec.model_dump(exclude={"parameters"}) == loaded.spec.model_dump(exclude={"parameters"})
    a = loaded.model.simulate(**{**loaded.simulate_options(), "t_end": 0.1})
    b = before.model.simulate(**{**before.simulate_options(), "t_end": 0.1})
    assert np.array_equal(a.q, b.q) and np.array_equal(a.lam, b.lam)
    loaded.freeze()
    assert np.array_equal(loaded.initial_state().q, before.initial_state().q)


# ------------------------------------------------------------------ kinematic analysis


def _python_slider_crank():
    r, l, th0, w = 0.3, 1.0, 0.4, 2.0
    A = np.array([r * math.cos(th0), r * math.sin(th0), 0.0])
    D = math.sqrt(l ** 2 - A[1] ** 2)
    B = np.array([A[0] + D, 0.0, 0.0])
    m = fm.Model(gravity=(0, -9.81, 0), name="slider-crank")
    crank = m.planar_body("crank", mass=2.0, inertia=0.05, position=A[:2] / 2, angle=th0)
    rod = m.planar_body("rod", mass=3.0, inertia=0.3, position=(A + B)[:2] / 2, angle=math.atan(-A[1] / D))
    slider = m.planar_body("slider", mass=1.5, inertia=0.01, position=B[:2])
    m.revolute(fm.GROUND, crank, at=(0, 0, 0), name="crank_pin")
    m.revolute(crank, rod, at=A, name="elbow")
    m.revolute(rod, slider, at=B, name="wrist")
    m.prismatic(fm.GROUND, slider, at=B, axis=(1, 0, 0), name="slide")
    m.rotation_driver(fm.GROUND, crank, speed=w, name="motor")
    m.force(slider, (-50.0, 0, 0), name="load")
    return m


def test_kinematic_analysis_from_a_file_equals_the_python_one():
    loaded = load_model_text(SLIDER_CRANK, "s.yaml")
    assert loaded.kinematic and loaded.analysis == "kinematic"
    times = loaded.kinematic_settings().times()
    assert len(times) == 21 and times[-1] == pytest.approx(1.0)
    system = loaded.freeze()
    a = kinematic_analysis(loaded.model, system=system, **loaded.kinematic_options())
    b = kinematic_analysis(_python_slider_crank(), times)
    assert a.success and b.success
    np.testing.assert_allclose(a["motor.torque"], b["motor.torque"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.q, b.q, rtol=1e-12, atol=1e-14)
    assert set(a.driver_loads()) == {"motor"}
    np.testing.assert_array_equal(a.driver_loads()["motor"], a["motor.torque"])


def test_run_kinematic_model_file(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(SLIDER_CRANK)
    out_file = tmp_path / "s.h5"
    status, out, err = _run(["run", path, "-o", out_file], capsys)
    assert status == 0, err
    assert "kinematic analysis completed at 21 times" in out
    loaded = load_model_text(SLIDER_CRANK, "s.yaml")
    ref = kinematic_analysis(loaded.model, loaded.kinematic_settings().times())
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("motor.torque"))
    assert float(line.split()[-1]) == pytest.approx(ref["motor.torque"][-1], rel=1e-5)
    from flexmbd.io.results_h5 import load_result

    stored = load_result(out_file)
    assert np.array_equal(stored.t, ref.t)
    np.testing.assert_array_equal(stored["motor.torque"], ref["motor.torque"])
    np.testing.assert_array_equal(stored.q, ref.q)
    # the driver loads are printed even when the file does not list them
    path.write_text(SLIDER_CRANK.replace("outputs: [slider.position, motor.torque]", "outputs: []"))
    status, out, _ = _run(["run", path], capsys)
    assert status == 0 and "motor.torque" in out
    # a kinematic results file is not resumed, and the integrator does not apply
    status, _, err = _run(["run", path, "--resume", out_file], capsys)
    assert status == 2 and "kinematic analysis" in err
    status, _, err = _run(["run", path, "--integrator", "hht"], capsys)
    assert status == 2 and "--integrator" in err and "kinematic" in err
    status, out, _ = _run(["run", path, "--t-end", "0.5"], capsys)
    assert status == 0 and "at 11 times" in out


def test_kinematic_model_that_is_not_fully_driven(tmp_path, capsys):
    text = SLIDER_CRANK.replace('  - {type: rotation_driver, name: motor, body_i: ground, body_j: crank, angle: "w*t"}\n',
                                "  []\n").replace("drivers:\n  []\n", "").replace(", motor.torque", "")
    path = tmp_path / "free.yaml"
    path.write_text(text)
    status, out, err = _run(["run", path], capsys)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"{path}:{_line(text, 'analysis: kinematic')}: solver.analysis: " in err
    assert "1 degree(s) of freedom are left" in err and "drivers: none" in err


def test_kinematic_solver_section_is_checked():
    err = _error(SLIDER_CRANK.replace("h: 0.05}", "h: 0.05, integrator: hht}"), "s.yaml")
    assert "solver.integrator" in str(err) and "unknown key" in str(err)
    err = _error(SLIDER_CRANK.replace("t_end: 1.0, h: 0.05}", "t_end: 1.0, h: 0.05, t_start: 2.0}"), "s.yaml")
    assert "t_end > t_start" in str(err)


def test_json_schema_accepts_expressions_where_numbers_go():
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from flexmbd.io import model_schema as S

    schema = S.json_schema()
    for text in (PENDULUM, SLIDER_CRANK, (MODELS / "pendulum.yaml").read_text(encoding="utf-8")):
        jsonschema.validate(yaml.safe_load(text), schema)
    bad = yaml.safe_load(PENDULUM)
    bad["bodies"][0]["mass"] = [1.0]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    # the key reference shows the types of the values
    assert "ParameterExpression" not in str(S.json_schema(expressions=False))


def test_expressions_in_beams_sections_and_integer_keys():
    text = (MODELS / "p3-cantilever.yaml").read_text(encoding="utf-8")
    text = (text.replace("beams:\n", "parameters: {a: 0.01, E: 2.1e11, n: 8, F: 400}\nbeams:\n", 1)
            .replace("width2: 0.01, height3: 0.01, E: 2.1e11", "width2: a, height3: a, E: E, shear_factor: 5/6")
            .replace("elements: 16", "elements: 2*n").replace("400.0]", "F]").replace("load_steps: 10", "load_steps: n + 2"))
    spec = load_model_text(text, "c.yaml").spec
    section = spec.beams[0].section
    assert (section.width2, section.height3, section.E, section.shear_factor) == (0.01, 0.01, 2.1e11, 5 / 6)
    assert spec.beams[0].elements == 16 and isinstance(spec.beams[0].elements, int)
    assert spec.solver.load_steps == 10 and spec.forces[0].force == [30.0, 20.0, 400.0]
    err = _error(text.replace("elements: 2*n", "elements: n/3"), "c.yaml")
    assert "beams[0].elements: 'n/3' = 2.66" in str(err) and "not a whole number" in str(err)


def test_parameters_in_a_json_model_file():
    import json

    import yaml

    data = yaml.safe_load(PENDULUM)
    text = json.dumps(data, indent=2)
    loaded = load_model_text(text, "p.json")
    assert loaded.spec == load_model_text(PENDULUM, "p.yaml").spec
    data["bodies"][0]["mass"] = "mm"
    text = json.dumps(data, indent=2)
    err = _error(text, "p.json")
    line = _line(text, '"mass"')
    assert str(err).startswith(f"p.json:{line}: bodies[0].mass: unknown name 'mm'")
