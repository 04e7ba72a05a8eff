"""Model-file problems that were reported without a line: a missing ``solver:`` section,
a spring law that cannot be evaluated (at the start, or during the run)."""
from __future__ import annotations

import re
import warnings

import pytest

from faultkit import MODELS, PENDULUM, one_line

CRANK = MODELS / "driven-crank.yaml"


def _run(capsys, path, *extra):
    from flexmbd.cli import main

    status = main(["run", str(path), "--quiet", *extra])
    return status, one_line(capsys.readouterr().err)


def test_missing_solver_section_names_it_with_a_line(tmp_path, capsys):
    text = re.sub(r"solver:\n  t_end: 2.0\n  h: 0.001\n", "", PENDULUM.read_text())
    f = tmp_path / "nosolver.yaml"
    f.write_text(text)
    status, line = _run(capsys, f)
    assert status == 2
    assert re.search(r"nosolver\.yaml:\d+: solver: missing section \(it needs t_end, h\)", line), line


def _with_law(tmp_path, law, name):
    f = tmp_path / name
    f.write_text(CRANK.read_text().replace("k: 500.0, c: 5.0}", f'law: "{law}"}}'))
    return f


def test_law_undefined_at_the_start_names_its_key_and_line(tmp_path, capsys):
    f = _with_law(tmp_path, "500*delta + log(delta)", "law0.yaml")
    status, line = _run(capsys, f)
    assert status == 2
    assert "law0.yaml:33: forces[0].law:" in line and "time function" not in line, line


def test_law_undefined_during_the_run_names_its_key_and_line(tmp_path, capsys):
    f = _with_law(tmp_path, "500*delta + 10*sqrt(delta + 0.01)", "law1.yaml")
    status, line = _run(capsys, f)
    assert status == 1
    assert "stopped after t = 0.389 s: " in line and "law1.yaml:33: forces[0].law: the law" in line, line


def test_a_massless_beam_in_dynamics_is_named(tmp_path, capsys):
    text = (MODELS / "p3-cantilever.yaml").read_text()
    text = re.sub(r"solver:\n(  .*\n)+", "solver:\n  t_end: 0.01\n  h: 0.001\n", text)
    f = tmp_path / "massless.yaml"
    f.write_text(text)
    status, line = _run(capsys, f)
    assert status == 2
    assert "massless.yaml:8: beams[0]: beam 'rod' has no mass" in line, line


@pytest.mark.parametrize("how", ["simulate", "freeze"])
def test_redundancy_warnings_point_at_the_callers_line(how):
    from flexmbd.examples.slider_crank import build
    from flexmbd.system import RedundantConstraintWarning

    m = build()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.simulate(t_end=0.01, h=0.01) if how == "simulate" else m.freeze()
    found = [w for w in caught if issubclass(w.category, RedundantConstraintWarning)]
    assert found and all(w.filename == __file__ for w in found), [(w.filename, w.lineno) for w in found]
