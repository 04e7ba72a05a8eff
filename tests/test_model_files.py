"""Model files: format, validation messages, expressions, bundled models, `flexmbd run`,
`flexmbd schema`, `flexmbd example --dump`, and the docs that describe them."""
from __future__ import annotations

import json
import math
import random
import re
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

import flexmbd as fm
from flexmbd import cli
from flexmbd.spec import DumpError
from flexmbd.io import model_schema as S
from flexmbd.expressions import (ExpressionError, ExpressionFunction, LawExpression, compile_tree, derivative,
                                    parse)
from flexmbd.io.model_file import (ModelFileError, dump_yaml, load_model_file, load_model_text, model_to_dict,
                                   parse_text)
from flexmbd.io.model_library import bundled_models
from flexmbd.io.model_run import Progress, parse_integrator

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "flexmbd" / "models"
DOCS = ROOT / "docs"
SLIDER = MODELS / "slider-crank-sda.yaml"


def _run(argv, capsys):
    status = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _text(path=SLIDER):
    return Path(path).read_text(encoding="utf-8")


def _edit(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def _error(text, file="m.yaml", **kw):
    with pytest.raises(ModelFileError) as info:
        loaded = load_model_text(text, file, **kw)
        loaded.freeze()
        loaded.initial_state()
    return info.value


def _line_of(text, needle, nth=0):
    lines = [i + 1 for i, ln in enumerate(text.splitlines()) if needle in ln]
    return lines[nth]


# =============================================================== expressions


@pytest.mark.parametrize("text,t,expected", [
    ("3.0*t", 0.7, (2.1, 3.0, 0.0)),
    ("0.5*sin(2*pi*t)", 0.1, (0.5 * math.sin(0.2 * math.pi), math.pi * math.cos(0.2 * math.pi),
                             -2 * math.pi ** 2 * math.sin(0.2 * math.pi))),
    ("t**2 - 2*t + 1", 3.0, (4.0, 4.0, 2.0)),
    ("exp(-t)", 0.0, (1.0, -1.0, 1.0)),
    ("min(t, 1)", 2.0, (1.0, 0.0, 0.0)),
    ("max(t, 1)", 2.0, (2.0, 1.0, 0.0)),
    ("-t + +2", 1.0, (1.0, -1.0, 0.0)),
    ("2.5", 9.0, (2.5, 0.0, 0.0)),
])
def test_expression_values_and_derivatives(text, t, expected):
    assert ExpressionFunction(text).derivatives(t) == pytest.approx(expected, rel=1e-14, abs=1e-14)


def test_expression_derivatives_are_exact_against_sympy():
    sympy = pytest.importorskip("sympy")
    ts = sympy.Symbol("t")
    rng = random.Random(3)
    atoms = ["t", "2.5", "pi", "(t + 0.3)", "0.7"]
    unary = ["sin", "cos", "exp", "sqrt", "log", "tanh", "atan", "cosh"]
    binary = ["+", "-", "*", "/", "**"]

    def expr(depth):
        if depth == 0:
            return rng.choice(atoms)
        k = rng.random()
        if k < 0.35:
            f = rng.choice(unary)
            inner = expr(depth - 1)
            return f"{f}(1.5 + {inner}**2)" if f in ("sqrt", "log") else f"{f}({inner})"
        op = rng.choice(binary)
        if op == "**":
            return f"({expr(depth - 1)})**{rng.choice(['2', '3', '0.5*t', '1.5'])}".replace(
                "(t)**1.5", "(t + 1)**1.5")
        if op == "/":
            return f"({expr(depth - 1)}) / (2 + {expr(depth - 1)}**2)"
        return f"({expr(depth - 1)}) {op} ({expr(depth - 1)})"

    checked = 0
    for _ in range(40):
        text = expr(3)
        try:
            f = ExpressionFunction(text)
        except ExpressionError:
            continue
        sym = sympy.sympify(text.replace("pi", "pi"), locals={"t": ts})
        d1, d2 = sympy.diff(sym, ts), sympy.diff(sym, ts, 2)
        for t in (0.3, 1.1):
            try:
                got = f.derivatives(t)
            except ExpressionError:
                continue
            want = [complex(sympy.N(e.subs(ts, t), 30)) for e in (sym, d1, d2)]
            if any(abs(w.imag) > 1e-12 for w in want):
                continue
            for g, w in zip(got, want):
                assert g == pytest.approx(w.real, rel=1e-9, abs=1e-9), text
            checked += 1
    assert checked > 25


def test_law_expression_partial_derivatives():
    law = LawExpression("1e4*delta + 5e5*delta**3 + 50*rate*abs(rate)")
    F, dd, dr = law.derivatives(0.1, -0.2)
    assert F == pytest.approx(1e4 * 0.1 + 5e5 * 1e-3 - 50 * 0.04)
    assert dd == pytest.approx(1e4 + 1.5e6 * 0.01)
    assert dr == pytest.approx(100 * 0.2)
    assert law(0.1, -0.2) == F


@pytest.mark.parametrize("text,fragment", [
    ("t^2", "use ** for powers"),
    ("__import__('os').system('echo hi')", "can be called"),
    ("open('x')", "unknown function 'open'"),
    ("t.real", "attribute access"),
    ("sinn(t)", "did you mean 'sin'"),
    ("x*t", "unknown name 'x'"),
    ("sin(t", "not a valid expression"),
    ("", "empty"),
    ("1/0", "division by zero"),
    ("log(-1)", "undefined"),
    ("10**10**10", "undefined"),
    ("lambda: 1", "lambda"),
    ("[t]", "a list"),
    ("t if t else 1", "if-else"),
    ("sin(t, t)", "exactly 1 argument"),
    ("min(t)", "at least two"),
    ("True", "not allowed"),
    ("-" * 200 + "t", "nested too deeply"),
    ("t" + "+t" * 400, "longer than"),
])
def test_bad_expressions_are_rejected_without_eval(text, fragment):
    with pytest.raises(ExpressionError) as info:
        ExpressionFunction(text)
    assert fragment in str(info.value)


def test_expression_evaluation_errors_name_the_time():
    f = ExpressionFunction("sqrt(0.5 - t)")
    assert f.derivatives(0.25)[0] == pytest.approx(0.5)
    with pytest.raises(ExpressionError, match="t = 1 s"):
        f.derivatives(1.0)


def test_symbolic_derivative_tree():
    tree = parse("t*sin(t)")
    d = compile_tree(derivative(tree))
    assert d(0.4) == pytest.approx(math.sin(0.4) + 0.4 * math.cos(0.4), rel=1e-15)


# =============================================================== reading


def test_yaml_reads_exponent_floats_and_tracks_lines():
    data, lines = parse_text("a: 2e4\nb:\n  - 1E-3\n  - {c: .5}\n", "x.yaml")
    assert data == {"a": 2e4, "b": [1e-3, {"c": 0.5}]}
    assert lines[("a",)] == 1 and lines[("b", 0)] == 3 and lines[("b", 1, "c")] == 4


def test_slider_crank_file_equals_python_example():
    from flexmbd.examples.slider_crank import build

    loaded = load_model_file(SLIDER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_file = loaded.model.simulate(**loaded.simulate_options())
        r_py = build(k=2e4, c=1e3).simulate(t_end=1.0, h=0.01)
    assert r_file.steps == r_py.steps == 100
    x_file, x_py = r_file["slider.position"], r_py["slider.position"]
    assert np.max(np.abs(x_file - x_py)) <= 1e-12
    assert np.max(np.abs(r_file["sda.force"] - r_py["sda.force"])) <= 1e-12 * np.max(np.abs(r_py["sda.force"]))


def test_dump_round_trip_of_python_model():
    from flexmbd.examples.slider_crank import build

    m = build(k=2e4, c=1e3)
    text = dump_yaml(model_to_dict(m, solver={"t_end": 0.1, "h": 0.01}), header="round trip")
    assert text.startswith("# round trip\n")
    loaded = load_model_text(text, "dumped.yaml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = loaded.model.simulate(**loaded.simulate_options())
        b = build(k=2e4, c=1e3).simulate(t_end=0.1, h=0.01)
    assert np.array_equal(a.q, b.q)
    # and the dumped data is valid JSON Schema-wise
    assert S.ModelFile.model_validate(yaml.safe_load(text)).name == "slider-crank-sda"


def test_dump_refuses_python_callables():
    import flexmbd as fm
    from flexmbd.io.model_file import DumpError

    m = fm.Model()
    b = m.rigid_body("b", mass=1.0, inertia=(1, 1, 1))
    m.force(b, (1, 0, 0), scale=lambda t: t, name="f")
    with pytest.raises(DumpError, match="force 'f'"):
        model_to_dict(m)


def test_json_model_file(tmp_path, capsys):
    data = yaml.safe_load(_text(MODELS / "pendulum.yaml"))
    data["solver"]["t_end"] = 0.01
    p = tmp_path / "pendulum.json"
    p.write_text(json.dumps(data, indent=2))
    assert _run(["run", p, "--quiet"], capsys)[0] == 0
    data["bodies"][0]["inertia"] = [1.0, 1.0, 5.0]
    p.write_text(json.dumps(data, indent=2))
    status, out, err = _run(["run", p], capsys)
    text = p.read_text()
    assert status == 2 and out == ""
    assert f"pendulum.json:{_line_of(text, 'inertia')}: bodies[0].inertia:" in err
    assert "triangle inequality" in err


def test_expressions_drive_the_model_exactly():
    text = """
name: driven
bodies:
  - {name: block, mass: 2.0, inertia: [0.1, 0.1, 0.1]}
joints:
  - {type: prismatic, name: rail, body_i: ground, body_j: block, at: [0, 0, 0], axis: [1, 0, 0]}
drivers:
  - {type: translation_driver, name: push, body_i: ground, body_j: block, at: [0, 0, 0], axis: [1, 0, 0],
     displacement: "0.1*sin(2*pi*t)"}
solver: {t_end: 0.2, h: 0.01}
outputs: [block.position, push.force]
"""
    loaded = load_model_text(text, "driven.yaml")
    res = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
    x = res["block.position"][:, 0]
    assert np.max(np.abs(x - 0.1 * np.sin(2 * np.pi * res.t))) < 1e-10
    # the exact derivatives give consistent initial velocity and acceleration
    assert res["block.velocity"][0, 0] == pytest.approx(0.2 * np.pi, rel=1e-12)
    assert res.qdd[0, 0] == pytest.approx(0.0, abs=1e-12)


def test_nonlinear_law_and_time_function_forms():
    text = """
name: forms
bodies:
  - {name: a, mass: 1.0, inertia: [0.1, 0.1, 0.1], position: [1, 0, 0]}
  - {name: p, type: planar, mass: 1.0, inertia: 0.1, position: [0, 2]}
joints:
  - {type: prismatic, body_i: ground, body_j: a, at: [1, 0, 0], axis: [1, 0, 0]}
  - {type: revolute, body_i: ground, body_j: p, at: [0, 1]}
forces:
  - {type: spring_damper, name: s, body_i: ground, body_j: a, at_i: [0, 0, 0], law: "100*delta + 1e4*delta**3 + 2*rate",
     actuator: {type: ramp, value: 5, duration: 0.1}}
  - {type: force, body: a, force: [1, 0, 0], scale: {type: polynomial, coefficients: [0, 1, 2]}}
  - {type: torque, body: p, torque: [0, 0, 1], scale: {type: constant_speed, speed: 2, offset: 1}}
  - {type: rotational_spring_damper, body_i: ground, body_j: p, k: 5, c: 0.1, actuator: {type: constant, value: 0.5}}
solver: {t_end: 0.05, h: 0.01, integrator: {type: newmark, beta: 0.3, gamma: 0.6}, refresh: 2,
         linear_solver: dense}
"""
    loaded = load_model_text(text, "forms.yaml")
    names = [e.name for e in loaded.model.elements if e.type.section != "bodies"]
    assert names[:2] == ["prismatic1", "revolute1"] and "force1" in names and "torque1" in names
    res = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
    assert res.success and res.steps == 5


# =============================================================== validation messages

CASES = [
    # (edit old, edit new, key path, line needle, message fragment)
    ("    mass: 1.0\n", "    mas: 1.0\n", "bodies[2].mas", "mas: 1.0", "did you mean 'mass'?"),
    ("    mass: 1.0\n", "    mass: -1.0\n", "bodies[2].mass", "mass: -1.0", "must be > 0"),
    ("    mass: 1.0\n", "    mass: .nan\n", "bodies[2].mass", "mass: .nan", "finite"),
    ("    mass: 1.0\n", "    mass: heavy\n", "bodies[2].mass", "mass: heavy", "expected a number"),
    ("    mass: 1.0\n", "", "bodies[2].mass", "  - name: slider", "missing required key 'mass'"),
    ("inertia: [1.0, 1.0, 1.0]", "inertia: [1.0, 1.0, 3.0]", "bodies[2].inertia", "inertia: [1.0, 1.0, 3.0]",
     "triangle inequality"),
    ("inertia: [1.0, 1.0, 1.0]", "inertia: [1.0, -1.0, 1.0]", "bodies[2].inertia", "inertia: [1.0, -1.0",
     "positive definite"),
    ("inertia: [1.0, 1.0, 1.0]", "inertia: [1.0, 1.0]", "bodies[2].inertia", "inertia: [1.0, 1.0]",
     "expected 3"),
    ("inertia: [1.0, 1.0, 1.0]", "inertia: [[1, 0, 0], [0, 1, 0.5], [0, 0, 1]]", "bodies[2].inertia",
     "inertia: [[1, 0, 0]", "symmetric"),
    ("body_j: link, at: [1.41", "body_j: lnik, at: [1.41", "joints[1].body_j", "name: elbow",
     "no body named 'lnik'; did you mean 'link'?"),
    ("name: link\n", "name: crank\n", "bodies[1].name", "  - name: crank", "already used by bodies[0]", 1),
    ("name: wrist,", "name: elbow,", "joints[2].name", "name: elbow, body_i: link", "already used by joints[1]"),
    ("axis: [1.0, 0.0, 0.0]}", "axis: [0, 0, 0]}", "joints[3].axis", "name: slide,", "zero-length axis"),
    ("{type: revolute, name: elbow", "{type: revolut, name: elbow", "joints[1].type", "name: elbow",
     "unknown joint type 'revolut'; did you mean 'revolute'?"),
    ("    body_j: link\n", "    body_j: crank\n", "forces[0].body_j", "    body_j: crank", "to itself"),
    ("    k: 2.0e4 ", "    k: -2.0e4 ", "forces[0].k", "k: -2.0e4", "must be ≥ 0"),
    ("force: [1000.0, 0.0, 0.0]}", "force: [1000.0, 0.0, 0.0], scale: \"sin(2*pi*t\"}", "forces[1].scale",
     "name: push", "not a valid expression"),
    ("force: [1000.0, 0.0, 0.0]}", "force: [1000.0, 0.0, 0.0], scale: \"1/(t - 0.5)\"}", "forces[1].scale",
     "name: push", "cannot be evaluated at t = 0.5 s"),
    ("force: [1000.0, 0.0, 0.0]}", "force: [1000.0, 0.0, 0.0], scale: {type: rmp, value: 1}}", "forces[1].scale.type",
     "name: push", "did you mean 'ramp'?"),
    ("integrator: newmark", "integrator: newmak", "solver.integrator", "integrator: newmak",
     "did you mean 'newmark'?"),
    ("integrator: newmark", "integrator: {type: hht, rho_inf: 0.2}", "solver.integrator.rho_inf",
     "integrator: {type: hht", "≥ 0.5"),
    ("  h: 0.01\n", "  h: 1.0e-12\n", "solver.h", "h: 1.0e-12", "more than the limit"),
    ("  h: 0.01\n", "  h: 5.0\n", "solver.h", "h: 5.0", "longer than the run"),
    ("  max_iter: 25\n", "  max_iter: 2.5\n", "solver.max_iter", "max_iter: 2.5", "whole number"),
    ("  t_end: 1.0\n", "  t_end: 1.0\n  t_end: 2.0\n", "solver.t_end", "t_end: 2.0", "duplicate key 't_end'"),
    ("outputs: [slider.position,", "outputs: [slider.positon,", "outputs[0]", "outputs:",
     "did you mean 'slider.position'?"),
    ("gravity: [0.0, 0.0, 0.0]", "gravity: [0.0, 0.0]", "gravity", "gravity:", "expected 3 numbers, got 2"),
    ("gravity: [0.0, 0.0, 0.0]", "gravty: [0.0, 0.0, 0.0]", "gravty", "gravty:", "did you mean 'gravity'?"),
    ("orientation: {axis: [0.0, 0.0, 1.0], angle: 0.7853981633974483}",
     "orientation: {axis: [0.0, 0.0, 1.0], angle: 0.7853981633974483, quaternion: [1, 0, 0, 0]}",
     "bodies[0].orientation", "quaternion: [1, 0, 0, 0]}", "exactly one of"),
    ("  - name: slider\n", "  - name: slider.x\n", "bodies[2].name", "name: slider.x", "not a valid name"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[2] + ":" + c[4][:20] for c in CASES])
def test_validation_error_names_key_path_and_line(case):
    old, new, path, needle, fragment = case[:5]
    nth = case[5] if len(case) > 5 else 0
    text = _edit(_text(), old, new)
    err = _error(text)
    msg = str(err)
    assert err.key == path, msg
    assert fragment in msg, msg
    assert err.line == _line_of(text, needle, nth), msg
    assert msg.startswith(f"m.yaml:{err.line}: {path}: ")
    assert "\n" not in msg


def _slider_data():
    return yaml.safe_load(_text())


@pytest.mark.parametrize("mutate,path,fragment", [
    (lambda d: d["joints"].append({"type": "distance", "body_i": "ground", "body_j": "crank", "at_i": [0, 0, 0],
                                   "at_j": [0.7071067811865476, 0.7071067811865475, 0.0], "length": 5.0}),
     "joints[4]", "inconsistent initial conditions"),
    (lambda d: d.setdefault("drivers", []).extend([
        {"type": "rotation_driver", "name": "m1", "body_i": "ground", "body_j": "crank", "speed": 1.0},
        {"type": "translation_driver", "name": "m2", "body_i": "ground", "body_j": "slider",
         "at": [2.8284271247461903, 0, 0], "axis": [1, 0, 0], "displacement": "0.1*t"}]),
     "drivers[1]", "already fix or forbid"),
    (lambda d: d["drivers"].append({"type": "rotation_driver", "body_i": "ground", "body_j": "crank"})
     if "drivers" in d else d.update(drivers=[{"type": "rotation_driver", "body_i": "ground", "body_j": "crank",
                                               "speed": 1.0, "angle": "t"}]),
     "drivers[0]", "exactly one of angle"),
    (lambda d: d["forces"].append({"type": "spring_damper", "body_i": "crank", "body_j": "link",
                                   "at_i": [1, 1, 0], "at_j": [1, 1, 0], "k": 1.0}),
     "forces[2].at_j", "zero length"),
    (lambda d: d["forces"].append({"type": "force", "body": "ground", "force": [1, 0, 0]}),
     "forces[2].body", "on ground does nothing"),
    (lambda d: d["joints"].append({"type": "universal", "body_i": "crank", "body_j": "link", "at": [0, 0, 0],
                                   "axis_i": [1, 0, 0], "axis_j": [1, 1, 0]}),
     "joints[4]", "perpendicular"),
    (lambda d: d["bodies"].append({"name": "p", "type": "planar", "mass": 1.0, "inertia": 1.0}) or
     d["joints"].append({"type": "revolute", "body_i": "slider", "body_j": "p", "at": [0, 0]}),
     "joints[4].body_j", "planar and a spatial"),
    (lambda d: d.update(bodies=[]), "bodies", "at least one body"),
    (lambda d: d.update(joints={"type": "revolute"}), "joints", "expected a list"),
    (lambda d: d["joints"][0].pop("type"), "joints[0]", "missing key 'type'"),
])
def test_semantic_errors(mutate, path, fragment):
    d = _slider_data()
    mutate(d)
    err = _error(yaml.safe_dump(d, sort_keys=False))
    assert err.key == path, str(err)
    assert fragment in str(err)


def test_redundant_constraints_are_a_warning_with_key_paths():
    loaded = load_model_file(SLIDER)
    loaded.freeze()
    loaded.initial_state()
    (w,) = loaded.warnings
    assert w.path == ("joints", 3) and w.line == _line_of(_text(), "name: slide,")
    assert "redundant" in str(w) and str(w).startswith(f"{SLIDER}:{w.line}: warning: joints[3]:")


def test_assembly_warning_names_the_body():
    text = """
bodies:
  - {name: first, mass: 1.0, inertia: [1, 1, 1]}
  - {name: bob, mass: 1.0, inertia: [1, 1, 1], position: [1, 0, 0], velocity: [0.5, 0, 1]}
joints:
  - {type: distance, body_i: ground, body_j: bob, at_i: [0, 0, 0], at_j: [1, 0, 0], length: 1.05}
  - {type: fixed, body_i: ground, body_j: first}
solver: {t_end: 0.1, h: 0.01}
"""
    loaded = load_model_text(text, "m.yaml")
    loaded.freeze()
    loaded.initial_state()
    moved = [w for w in loaded.warnings if "assembly moved it" in w.message]
    assert len(moved) == 1 and moved[0].path == ("bodies", 1) and moved[0].line == 4
    assert "0.05 m" in moved[0].message
    assert any("velocities" in w.message for w in loaded.warnings)


def test_engine_errors_are_mapped_to_elements():
    from flexmbd.model import ModelError

    loaded = load_model_file(SLIDER)
    err = loaded.engine_error(ModelError("revolute 'wrist': something is wrong with 'sda' too"))
    assert err.key == "joints[2]" and err.line == _line_of(_text(), "name: wrist")
    assert "'sda' [forces[0], line" in err.message


def test_command_line_overrides_are_validated_as_such(capsys):
    status, _, err = _run(["run", SLIDER, "--integrator", "hht:0.2"], capsys)
    assert status == 2 and "--integrator: solver.integrator.rho_inf: must be ≥ 0.5" in err
    status, _, err = _run(["run", SLIDER, "--h", "2"], capsys)
    assert status == 2 and "--h: solver.h:" in err
    assert parse_integrator("newmark:0.3,0.6") == {"type": "newmark", "beta": 0.3, "gamma": 0.6}
    assert parse_integrator("generalized-alpha:0.7") == {"type": "generalized-alpha", "rho_inf": 0.7}
    assert parse_integrator("hht") == "hht"
    status, _, err = _run(["run", SLIDER, "--integrator", "hht:0.5,0.6"], capsys)
    assert status == 2 and err.startswith("flexmbd run: error: --integrator: too many parameters")
    status, _, err = _run(["run", SLIDER, "--integrator", "bogus"], capsys)
    assert status == 2 and "--integrator: solver.integrator: expected 'newmark', 'hht' or 'generalized-alpha'" in err


# =============================================================== bundled models and the CLI


def test_every_registered_example_has_a_model_file():
    from flexmbd.examples.registry import load_examples

    models = bundled_models()
    assert {"slider-crank-sda", "pendulum", "double-pendulum", "driven-crank"} <= set(models)
    from flexmbd.io.model_library import bundled_tmm_models

    # DT-TMM examples (flexmbd.tmm) have theirs in flexmbd/models/tmm (tests/test_tmm_file.py)
    missing = sorted(set(load_examples()) - set(models) - set(bundled_tmm_models()))
    assert not missing, f"examples without a model file in flexmbd/models: {missing}"


@pytest.mark.parametrize("name", sorted(bundled_models()))
def test_bundled_model_validates_against_json_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    path = bundled_models()[name]
    data, _ = parse_text(path.read_text(), str(path))
    jsonschema.validate(data, S.json_schema())
    load_model_file(path).freeze()


def test_every_bundled_model_runs_from_the_shell(tmp_path):
    """`flexmbd run FILE -o out.h5` for every bundled model (in parallel: start-up dominates)."""
    h5 = pytest.importorskip("h5py")
    procs = {}
    for name, path in bundled_models().items():
        out = tmp_path / f"{name}.h5"
        static = yaml.safe_load(path.read_text(encoding="utf-8"))["solver"].get("analysis") == "static"
        t_end = [] if static else ["--t-end", "0.03"]
        procs[name] = (out, subprocess.Popen(["flexmbd", "run", str(path), *t_end, "-o", str(out)],
                                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
                       "converged" if static else "completed")
    for name, (out, p, done) in procs.items():
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, f"{name}: {stderr}"
        assert "Traceback" not in stderr
        assert f"{name}: {done}" in stdout and f"results written to {out}" in stdout
        with h5.File(out, "r") as f:
            assert f.attrs["status"] in ("completed", b"completed")
            assert f["t"].shape[0] >= 2


def test_run_summary_and_outputs(capsys):
    status, out, err = _run(["run", MODELS / "driven-crank.yaml", "--t-end", "0.02"], capsys)
    assert status == 0 and err == ""
    assert "driven-crank: completed: 20 steps to t = 0.02 s" in out
    assert re.search(r"motor.torque\s+-?\d", out) and "spring.force" in out


def test_run_quiet_prints_nothing(capsys):
    assert _run(["run", MODELS / "pendulum.yaml", "--t-end", "0.01", "--quiet"], capsys) == (0, "", "")


def test_bad_model_exit_2_one_line_no_output_file(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(_edit(_text(), "mass: 1.0", "mass: -1.0"))
    out = tmp_path / "out.h5"
    status, stdout, err = _run(["run", bad, "-o", out], capsys)
    assert status == 2 and stdout == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"flexmbd run: error: {bad}:") and "bodies[2].mass" in err
    assert not out.exists()


def test_failed_simulation_exit_1_and_file_marked(tmp_path, capsys):
    h5 = pytest.importorskip("h5py")
    text = _edit(_text(), "  max_iter: 25\n", "  max_iter: 1\n  tol: 1.0e-300\n  max_halvings: 1\n")
    text = _edit(text, "  tol: 1.0e-7\n", "")
    p = tmp_path / "m.yaml"
    p.write_text(text)
    out = tmp_path / "out.h5"
    status, stdout, err = _run(["run", p, "-o", out, "--quiet"], capsys)
    assert status == 1 and "failed" in err and "Traceback" not in err and err.count("\n") == 1
    with h5.File(out, "r") as f:
        assert f.attrs["status"] in ("failed", b"failed")


def test_output_path_problems_are_usage_errors(tmp_path, capsys):
    status, _, err = _run(["run", SLIDER, "-o", tmp_path], capsys)
    assert status == 2 and "is a directory" in err
    status, _, err = _run(["run", SLIDER, "-o", tmp_path / "no" / "such" / "x.h5"], capsys)
    assert status == 2 and "does not exist" in err


def test_missing_and_unreadable_files(tmp_path, capsys):
    status, _, err = _run(["run", tmp_path / "nope.yaml"], capsys)
    assert status == 2 and "no such file" in err
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00garbage")
    status, _, err = _run(["run", tmp_path / "bin.yaml"], capsys)
    assert status == 2 and "not a text file" in err
    (tmp_path / "syntax.yaml").write_text("bodies: [1, 2\nsolver: 3\n")
    status, _, err = _run(["run", tmp_path / "syntax.yaml"], capsys)
    assert status == 2 and "syntax.yaml:2: not valid YAML" in err


def test_progress_line_on_a_terminal():
    class Tty:
        def __init__(self):
            self.text = ""

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    class Stats:
        iterations = 30

    stream = Tty()
    p = Progress(1.0, stream, enabled=True, delay=0.0)
    p(0.5, 10, 20, Stats())
    assert "t = 0.5 / 1 s" in stream.text and "steps/s" in stream.text and "3.00 Newton it./step" in stream.text
    p.finish()
    assert stream.text.endswith("\r")
    quiet = Tty()
    Progress(1.0, quiet, enabled=True, delay=60.0)(0.5, 10, 20, Stats())  # not yet: the run is short
    assert quiet.text == ""


@pytest.mark.parametrize("argv", [["run", "--help"], ["schema", "--help"], ["--help"]])
def test_model_commands_have_help_with_examples(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"flexmbd {argv[0] if argv[0] != '--help' else 'run'}" in out


def test_schema_command_prints_the_json_schema(capsys):
    status, out, _ = _run(["schema"], capsys)
    schema = json.loads(out)
    assert status == 0 and schema["title"] == "flexmbd model file"
    assert {"RigidBody", "Revolute", "SpringDamper", "Solver", "RampTF"} <= set(schema["$defs"])
    # a model file is an index-3 file or a DT-TMM one (tmm: section, the registry's tmm family)
    assert [a["$ref"] for a in schema["anyOf"]] == ["#/$defs/ModelFile", "#/$defs/TmmModelFile"]
    assert schema["$defs"]["ModelFile"]["additionalProperties"] is False
    assert schema["$defs"]["TmmModelFile"]["additionalProperties"] is False
    assert {"TmmBeamSpec", "TmmRigidSpec", "TmmSpringSpec", "TmmRigSection", "TmmDent"} <= set(schema["$defs"])
    status, out, _ = _run(["schema", "--markdown"], capsys)
    assert out == S.reference_markdown()


def test_example_dump(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _run(["example", "slider-crank-sda", "--dump"], capsys)[0] == 0
    assert (tmp_path / "slider-crank-sda.yaml").read_text() == _text()
    assert _run(["example", "pendulum", "--dump", "mine.yaml", "--quiet"], capsys) == (0, "", "")
    assert (tmp_path / "mine.yaml").read_text() == _text(MODELS / "pendulum.yaml")
    status, out, _ = _run(["example", "double-pendulum", "--dump", "-"], capsys)
    assert status == 0 and out == _text(MODELS / "double-pendulum.yaml")
    status, out, _ = _run(["example"], capsys)
    assert status == 0 and "pendulum" in out and "--dump" in out


def test_example_runs_a_model_file_example(tmp_path, capsys, monkeypatch):
    p = tmp_path / "models"
    p.mkdir()
    text = _edit(_text(MODELS / "pendulum.yaml"), "  t_end: 2.0", "  t_end: 0.02")
    (p / "tiny-pendulum.yaml").write_text(text)
    monkeypatch.setattr("flexmbd.io.model_library.models_dir", lambda: p)
    status, out, err = _run(["example", "tiny-pendulum", "--out", tmp_path / "plots"], capsys)
    assert status == 0, err
    assert "pendulum: completed" in out and (tmp_path / "plots" / "tiny_pendulum.png").exists()


# =============================================================== docs


def test_model_format_doc_covers_every_schema_key():
    doc = (DOCS / "model-format.md").read_text(encoding="utf-8")
    missing = [p for p in sorted(S.properties()) if f"`{p}`" not in doc]
    assert not missing, f"keys not documented in docs/model-format.md: {missing}"
    for t in [*S.JOINT_TYPES, *S.DRIVER_TYPES, *S.FORCE_TYPES, *S.TF_TYPES, *S.INTEGRATOR_TYPES]:
        assert t in doc


def test_model_format_doc_reference_is_generated_from_the_schema():
    doc = (DOCS / "model-format.md").read_text(encoding="utf-8")
    begin, end = "<!-- reference: generated by `flexmbd schema --markdown` -->\n", "<!-- end of reference -->"
    assert begin in doc and end in doc
    section = doc.split(begin, 1)[1].split(end, 1)[0]
    assert section.strip() == S.reference_markdown().strip(), \
        "docs/model-format.md is out of date: paste the output of `flexmbd schema --markdown` into it"


def _doc_blocks(page, lang):
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```" + lang + r"\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("index,block", list(enumerate(_doc_blocks("model-format.md", "yaml"))))
def test_model_format_doc_yaml_examples_are_valid(index, block):
    data, _ = parse_text(block, f"model-format.md[{index}]")
    if isinstance(data, dict) and "bodies" in data:
        load_model_text(block, f"model-format.md[{index}]").freeze()
    else:  # a fragment: it must at least be valid YAML
        assert data is not None


@pytest.mark.parametrize("index,block", list(enumerate(_doc_blocks("model-format.md", "json"))))
def test_model_format_doc_json_examples_run(index, block):
    loaded = load_model_text(block, f"model-format.md[{index}].json")
    res = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
    assert res.success
    assert load_model_text(block).spec == loaded.spec  # JSON recognised without a file name


def test_getting_started_snippets_run(tmp_path, monkeypatch, capsys):
    """Every ```python, ```yaml and ```sh block of docs/getting-started.md, in order, in one
    directory: yaml blocks start with a `# file: NAME` line and are written to NAME; the
    flexmbd commands of sh blocks run in-process through cli.main (commands this version
    does not have yet are skipped)."""
    import shlex

    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(python|yaml|sh)\n(.*?)```", text, flags=re.S)
    assert [lang for lang, _ in blocks].count("yaml") >= 1 and any(lang == "python" for lang, _ in blocks)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    known = set(cli.build_parser()._subparsers._group_actions[0].choices)
    ran = 0
    for lang, body in blocks:
        if lang == "yaml":
            m = re.match(r"#\s*file:\s*(\S+)", body.splitlines()[0])
            assert m, "each yaml block of getting-started.md starts with '# file: NAME'"
            (tmp_path / m.group(1)).write_text(body, encoding="utf-8")
        elif lang == "python":
            exec(compile(body, "getting-started.md", "exec"), {})
            ran += 1
        else:
            for line in body.splitlines():
                argv = shlex.split(line, comments=True)
                if len(argv) < 2 or argv[0] != "flexmbd" or argv[1] not in known:
                    continue
                status = cli.main(argv[1:])
                out = capsys.readouterr()
                assert status == 0, f"{line}\n{out.out}\n{out.err}"
                assert "Traceback" not in out.err
                ran += 1
    assert ran >= 6
    assert (tmp_path / "pendulum.h5").exists() and (tmp_path / "double-pendulum.yaml").exists()
    assert (tmp_path / "rod_position.png").stat().st_size > 1000
    if "plot" in known:
        assert (tmp_path / "rod.position.png").exists()
    if "export" in known:
        assert (tmp_path / "pendulum_vtk" / "pendulum.pvd").exists()
    if "view" in known:
        assert (tmp_path / "pendulum.html").stat().st_size > 500_000     # three.js inside


@pytest.mark.parametrize("name,builder", [("tensegrity-tower", "build_tower"), ("tensegrity-prism", "build_prism")])
def test_tensegrity_model_files_match_python(name, builder):
    """The tensegrity files were written by model_to_dict from the Python builders; if a
    builder changes, regenerate them (dump_yaml(model_to_dict(build_...().model, solver=...)))."""
    from flexmbd.examples import tensegrity as T

    t = getattr(T, builder)()
    loaded = load_model_file(MODELS / f"{name}.yaml", t_end=0.03)
    opts = loaded.simulate_options()
    a = loaded.model.simulate(**opts)
    b = t.model.simulate(**opts)
    assert np.max(np.abs(a.q - b.q)) <= 1e-12, f"flexmbd/models/{name}.yaml is out of date with {builder}()"


def test_ctrl_c_stops_the_run_cleanly(tmp_path):
    """SIGINT during `flexmbd run -o`: exit 130, one line, the file keeps every step and says so."""
    import signal
    import time

    h5 = pytest.importorskip("h5py")
    out = tmp_path / "long.h5"
    p = subprocess.Popen(["flexmbd", "run", str(MODELS / "double-pendulum.yaml"), "--t-end", "1000", "-o", str(out)],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not out.exists() and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(1.0)  # some steps
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted by SIGINT" in stderr
    assert stderr.strip().count("\n") == 0
    with h5.File(out, "r") as f:
        status = f.attrs["status"]
        assert (status.decode() if isinstance(status, bytes) else status) == "interrupted"
        n = int(f.attrs["n_saved"])
        assert n >= 2 and f["t"].shape[0] >= n


# =============================================================== beams


CANTILEVER = MODELS / "p3-cantilever.yaml"
CRANK_SLIDER = MODELS / "p3-crank-slider.yaml"


def test_cantilever_file_equals_python_api():
    """p3-cantilever.yaml gives the Python API's tip position to 1e-10 (P3: tip z ≈ 0.5139 m)."""
    import flexmbd as fm
    from flexmbd.beams.sections import Section

    loaded = load_model_file(CANTILEVER)
    assert loaded.static and loaded.beam_nodes["rod"][-1] == "rod.n16"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res_file = loaded.model.static_equilibrium(**loaded.static_options(), system=loaded.freeze())
        m = fm.Model()
        rod = m.beam("rod", section=Section.rectangle(0.01, 0.01, E=2.1e11, nu=0.3), elements=16,
                     start=(0, 0, 0), end=(1, 0, 0))
        m.fixed(fm.GROUND, rod.first)
        m.force(rod.last, (30, 20, 400), at=rod.last.position)
        res_py = m.static_equilibrium(load_steps=10, convergence="increment", tol=1e-10)
    assert res_file.success and res_py.success
    tip_file, tip_py = res_file["rod.n16.position"][-1], res_py["rod.n16.position"][-1]
    assert np.max(np.abs(tip_file - tip_py)) <= 1e-10
    assert abs(tip_file[2] - 0.5139) < 1e-4


def test_crank_slider_file_matches_python_builder():
    """p3-crank-slider.yaml is flexmbd.examples.p3_beams.crank_slider("I") (first 0.01 s)."""
    from flexmbd.examples.p3_beams import crank_slider

    loaded = load_model_file(CRANK_SLIDER, t_end=0.01)
    opts = loaded.simulate_options()
    assert opts["convergence"] == "increment" and opts["tol"] == 1e-6 and opts["h"] == 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        a = loaded.model.simulate(**opts, system=loaded.freeze())
        b = crank_slider("I").model.simulate(**opts)
    assert a.success and b.success
    for name in ("crank.n0.angular_velocity", "rod.n6.position", "rod.n3.orientation", "slider.position",
                 "crank.e2.strain_energy"):
        np.testing.assert_allclose(a[name], b[name], rtol=1e-9, atol=1e-12, err_msg=name)
    assert a["crank.n0.angular_velocity"][-1, 2] > 10.0


def test_beam_model_outputs_plot_and_export(tmp_path, capsys):
    """run -o, then plot, export --csv and --vtk of a static beam model."""
    h5 = pytest.importorskip("h5py")
    out = tmp_path / "cant.h5"
    status, stdout, err = _run(["run", CANTILEVER, "-o", out], capsys)
    assert status == 0, err
    assert "p3-cantilever: converged: 10 load steps" in stdout and "rod.n16.position" in stdout
    with h5.File(out, "r") as f:
        assert f.attrs["status"] in ("completed", b"completed") and f.attrs["analysis"] in ("static", b"static")
        np.testing.assert_allclose(f["t"][()], np.linspace(0, 1, 11))   # the load factor
        assert "rod.n16.position" in f["outputs"] and "rod.e0.strain_energy" in f["outputs"]
    status, _, err = _run(["plot", out, "rod.n16.position", "rod.e3.strain_energy", "-o", tmp_path], capsys)
    assert status == 0, err
    assert (tmp_path / "rod.e3.strain_energy.png").exists()
    csv = tmp_path / "tip.csv"
    status, _, err = _run(["export", out, "--csv", csv, "rod.n16.position"], capsys)
    assert status == 0, err
    last = csv.read_text().strip().splitlines()[-1].split(",")
    assert abs(float(last[3]) - 0.5139) < 1e-4
    status, _, err = _run(["export", out, "--vtk", tmp_path / "vtk"], capsys)
    assert status == 0, err
    assert (tmp_path / "vtk" / "cant.pvd").exists()


def _cant_text():
    return _text(CANTILEVER)


ARC = ("    start: [0.0, 0.0, 0.0]\n    end: [1.0, 0.0, 0.0]\n",
       "    arc: {center: [0.0, 0.0, 0.0], radius: 0.0, angle0: 1.5707963267948966, angle1: 0.0}\n")

BEAM_ERRORS = [  # (file, old, new, key path, line needle, message fragment)
    (CANTILEVER, "shape: rectangle", "shape: square", "beams[0].section.shape", "shape: square",
     "unknown section shape 'square'"),
    (CANTILEVER, "width2: 0.01", "width2: -0.01", "beams[0].section.width2", "width2", "must be > 0, got -0.01"),
    (CANTILEVER, "E: 2.1e11", "E: 0", "beams[0].section.E", "E: 0", "must be > 0, got 0"),
    (CANTILEVER, "nu: 0.3}", "nu: 0.3, rho: -1}", "beams[0].section.rho", "rho: -1", "must be ≥ 0"),
    (CANTILEVER, "elements: 16", "elements: 0", "beams[0].elements", "elements: 0", "must be ≥ 1"),
    (CANTILEVER, "elements: 16", "elements: 2.5", "beams[0].elements", "elements: 2.5", "expected a whole number"),
    (CANTILEVER, "elements: 16", "elements: many", "beams[0].elements", "elements: many", "expected a whole number"),
    (CANTILEVER, *ARC, "beams[0].arc.radius", "radius: 0.0", "must be > 0, got 0.0"),
    (CANTILEVER, "body_j: rod.first", "body_j: rod.n17", "joints[0].body_j", "rod.n17",
     "beam 'rod' has nodes rod.n0 … rod.n16"),
    (CANTILEVER, "body: rod.last", "body: rod", "forces[0].body", "body: rod", "'rod' is a beam"),
    (CANTILEVER, "body: rod.last", "body: rdo.n3", "forces[0].body", "rdo.n3", "no body named 'rdo.n3'"),
    (CANTILEVER, "    elements: 16\n", "    elements: 16\n    formulation: abc\n", "beams[0].formulation",
     "formulation: abc", "formulation must be one of"),
    (CANTILEVER, "  load_steps: 10\n", "  load_steps: 10\n  h: 0.1\n", "solver.h", "h: 0.1", "unknown key 'h'"),
    (CRANK_SLIDER, ", parameterization: se3}", "}", "joints[2].body_j", "name: wrist_pin",
     "'rod.n6' is se3 and 'slider' is spatial"),
]


@pytest.mark.parametrize("case", BEAM_ERRORS, ids=[c[3] + ":" + c[5][:20] for c in BEAM_ERRORS])
def test_beam_errors_exit_2_with_one_line_naming_file_and_line(case, tmp_path, capsys):
    src, old, new, key, needle, fragment = case
    text = _edit(_text(src), old, new)
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    out = tmp_path / "out.h5"
    status, stdout, err = _run(["run", bad, "-o", out, "--quiet"], capsys)
    assert status == 2 and stdout == "", err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"flexmbd run: error: {bad}:{_line_of(text, needle)}: {key}: "), err
    assert fragment in err, err
    assert not out.exists()


def test_static_analysis_rejects_time_options(capsys):
    status, _, err = _run(["run", CANTILEVER, "--t-end", "0.1"], capsys)
    assert status == 2 and err.startswith("flexmbd run: error: --t-end: does not apply") and "static" in err


def test_beam_arc_and_sections_from_a_file():
    """A quarter-circle cantilever from an arc, a tube and a user section: the same as the
    Python API; the crank.first/last aliases also work in outputs."""
    import flexmbd as fm
    from flexmbd.beams.geometry import CircularArc
    from flexmbd.beams.sections import Section

    text = """
name: arc
beams:
  - name: hook
    section: {shape: tube, d_outer: 0.02, d_inner: 0.015, E: 2.1e11, G: 8.0e10}
    elements: 6
    order: 2
    arc: {center: [0, 0, 0], radius: 1.0, angle0: 1.5707963267948966, angle1: 0.0}
  - name: stick
    section: {shape: user, EA: 1.0e6, GA2: 4.0e5, GA3: 4.0e5, GJ: 50.0, EI2: 60.0, EI3: 70.0}
    elements: 2
    start: [0, 1, 0]
    end: [0, 1, 1]
    e2: [1, 0, 0]
joints:
  - {type: fixed, body_i: ground, body_j: hook.first}
  - {type: fixed, body_i: hook.first, body_j: stick.first}
forces:
  - {type: force, body: hook.last, force: [0, 0, 100]}
solver: {analysis: static, load_steps: 2, convergence: increment, tol: 1.0e-9}
outputs: [hook.last.position, stick.e1.strain_energy]
"""
    loaded = load_model_text(text, "arc.yaml")
    assert loaded.spec.outputs == ["hook.n12.position", "stick.e1.strain_energy"]
    res = loaded.model.static_equilibrium(**loaded.static_options(), system=loaded.freeze())
    m = fm.Model()
    hook = m.beam("hook", section=Section.tube(0.02, 0.015, E=2.1e11, G=8.0e10), elements=6, order=2,
                  geometry=CircularArc((0, 0, 0), 1.0, np.pi / 2, 0.0))
    stick = m.beam("stick", section=Section.user(EA=1e6, GA2=4e5, GA3=4e5, GJ=50.0, EI2=60.0, EI3=70.0), elements=2,
                   start=(0, 1, 0), end=(0, 1, 1), e2=(1, 0, 0))
    m.fixed(fm.GROUND, hook.first)
    m.fixed(hook.first, stick.first)
    m.force(hook.last, (0, 0, 100), at=hook.last.position)
    ref = m.static_equilibrium(load_steps=2, convergence="increment", tol=1e-9)
    assert res.success and ref.success
    np.testing.assert_allclose(res["hook.n12.position"], ref["hook.n12.position"], atol=1e-12)
    assert res["hook.n12.position"][-1, 2] > 0.01


def test_python_beam_models_round_trip_through_files():
    """A beam built in Python (a Section object, start and end) is written as a model-file
    entry with its section's shape and parameters, and loads back to the same model."""
    from flexmbd.examples.p3_beams import crank_slider

    pm = crank_slider("I", elements=(2, 3))
    data = model_to_dict(pm.model, solver={"t_end": 0.002, "h": 1e-4, "integrator": "generalized-alpha"})
    (rod, *_) = [b for b in data["beams"] if b["name"] == "rod_II"] or data["beams"][-1:]
    assert rod["section"]["shape"] == "rectangle" and "start" in rod and "end" in rod
    loaded = load_model_text(dump_yaml(data), "beams.yaml")
    a = loaded.model.simulate(**loaded.simulate_options(), system=loaded.freeze())
    b = pm.model.simulate(**loaded.simulate_options())
    for out in ("slider.position", f"{pm.rods[1].last.name}.position"):   # the files list bodies before beams:
        np.testing.assert_allclose(a[out], b[out], rtol=0, atol=1e-12)    # another order of unknowns
    from flexmbd.beams.geometry import NurbsReference
    from flexmbd.beams.shape import NurbsCurve

    m = fm.Model()
    from flexmbd.beams.sections import Section
    curve = NurbsCurve.line((0, 0, 0), (1, 0, 0), degree=2, n_spans=2)
    m.beam("n", section=Section.circle(0.01, E=1e9, nu=0.3), elements=2, geometry=NurbsReference(curve), order=2,
           interpolation="nurbs")
    with pytest.raises(DumpError, match="beam 'n': a NurbsReference reference cannot be written"):
        model_to_dict(m)


def test_project_velocities_in_the_solver_section():
    """`solver: {project_velocities: false}` reaches the run: the default (Newmark β = ¼,
    γ = ½) projects q' onto Φ_q q' = 0 after each step (velocity-constraint error at
    rounding), false leaves the trapezoidal rule's alternating error (well above rounding)."""
    from flexmbd.io.model_file import load_model_text
    from flexmbd.solvers.dynamics import simulate

    text = """
name: pendulum
gravity: [0, -9.81, 0]
bodies:
  - {name: bob, type: planar, mass: 1.0, inertia: 0.01, position: [1.0, 0.0]}
joints:
  - {type: revolute, name: pin, body_i: ground, body_j: bob, at: [0, 0]}
solver: {t_end: 0.5, h: 0.01%s}
"""
    errors = {}
    for extra in ("", ", project_velocities: false"):
        loaded = load_model_text(text % extra, "pendulum.yaml")
        settings = loaded.simulate_settings()
        assert settings.project_velocities is (False if extra else None)
        system = loaded.freeze()
        res = simulate(loaded.model, settings=settings, system=system)
        errors[extra] = max(np.linalg.norm(system.constraint_jacobian(system.extend(q), t, dense=True) @ v)
                            for t, q, v in zip(res.t, res.q, res.v))
    assert errors[""] < 1e-10 < 1e-6 < errors[", project_velocities: false"]
