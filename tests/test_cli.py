"""Tests of the verification/example registries and the ``flexmbd`` CLI.

All cases and examples here are fake, registered into emptied registries, so
these tests do not depend on the physics code.
"""

import json

import pytest

from flexmbd import cli
from flexmbd.examples import registry as ex_registry
from flexmbd.verify import registry as v_registry
from flexmbd.verify.registry import Comparison, case, compare, run_cases


@pytest.fixture
def cases(monkeypatch):
    """An empty case registry that does not import the real case modules."""
    monkeypatch.setattr(v_registry, "CASES", {})
    monkeypatch.setattr(v_registry, "load_cases", lambda: None)
    return v_registry.CASES


@pytest.fixture
def fake_cases(cases):
    """Register a passing, a failing, a raising and a slow case."""

    @case("good", description="always passes")
    def good():
        return [
            compare("good", "period", 2.0, 2.0000001, unit="s", tolerance=1e-6, source="analytic"),
            compare("good", "newton iterations", 4, 3, tolerance=0, source="design", mode="max"),
        ]

    @case("bad")
    def bad():
        """Always fails."""
        return [compare("bad", "energy", 1.0, 1.5, unit="J", tolerance=0.01, source="paper 2001")]

    @case("boom")
    def boom():
        raise RuntimeError("solver diverged\nat t = 0.5")

    @case("slowpoke", slow=True)
    def slowpoke():
        return [compare("slowpoke", "x", 1.0, 1.0, tolerance=0, source="slow ref")]

    return cases


@pytest.fixture
def examples(monkeypatch):
    """An example registry holding one fake example that records its calls."""
    monkeypatch.setattr(ex_registry, "EXAMPLES", {})
    monkeypatch.setattr(ex_registry, "EXAMPLE_MODULES", ())
    calls = []

    @ex_registry.example("demo", "A demo example")
    def run(out_dir, quiet=False):
        calls.append((out_dir, quiet))
        (out_dir / "demo.png").write_bytes(b"png")
        if not quiet:
            print("demo summary")
        return {"ok": True}

    @ex_registry.example("broken", "Raises")
    def run_broken(out_dir, quiet=False):
        raise ValueError("bad model")

    return calls


# ------------------------------------------------------------------ compare


def test_compare_rel():
    c = compare("c", "q", 2.0, 2.02, unit="m", tolerance=0.02, source="s")
    assert isinstance(c, Comparison)
    assert c.rel_error == pytest.approx(0.01)
    assert c.passed is True
    assert compare("c", "q", 2.0, 2.1, tolerance=0.02, source="s").passed is False


def test_compare_rel_zero_reference_uses_absolute_value():
    c = compare("c", "q", 0.0, -1e-9, tolerance=1e-8, source="s")
    assert c.rel_error == pytest.approx(1e-9)
    assert c.passed


def test_compare_abs():
    c = compare("c", "q", 10.0, 10.5, tolerance=0.5, source="s", mode="abs")
    assert c.rel_error == pytest.approx(0.5)
    assert c.passed
    assert not compare("c", "q", 10.0, 10.6, tolerance=0.5, source="s", mode="abs").passed


def test_compare_max_and_min():
    assert compare("c", "iters", 4, 4, tolerance=0, source="s", mode="max").passed
    c = compare("c", "iters", 4, 5, tolerance=0, source="s", mode="max")
    assert not c.passed and c.rel_error == pytest.approx(0.25)
    assert compare("c", "iters", 4, 5, tolerance=0.25, source="s", mode="max").passed
    assert compare("c", "order", 2.0, 2.1, tolerance=0, source="s", mode="min").passed
    assert not compare("c", "order", 2.0, 1.9, tolerance=0, source="s", mode="min").passed
    assert compare("c", "order", 2.0, 1.9, tolerance=0.05, source="s", mode="min").passed


def test_compare_nan_fails_and_stores_python_floats():
    import numpy as np

    c = compare("c", "q", np.float64(1.0), np.float32("nan"), tolerance=1e9, source="s", mode="abs")
    assert c.passed is False
    assert type(c.reference) is float and type(c.value) is float and type(c.tolerance) is float
    for mode in ("rel", "max", "min"):
        assert not compare("c", "q", 1.0, float("nan"), tolerance=1.0, source="s", mode=mode).passed


def test_compare_rejects_bad_mode_and_tolerance():
    with pytest.raises(ValueError, match="mode"):
        compare("c", "q", 1, 1, tolerance=0, source="s", mode="relative")
    with pytest.raises(ValueError, match="tolerance"):
        compare("c", "q", 1, 1, tolerance=-1, source="s")


def test_to_dict_keys():
    d = compare("c", "q", 1, 1, tolerance=0, source="s").to_dict()
    assert set(d) == set(cli.JSON_KEYS)


# ------------------------------------------------------------------ registry


def test_case_decorator_registers(cases):
    @case("x", description="desc")
    def f():
        return []

    assert cases["x"].func is f
    assert cases["x"].description == "desc" and cases["x"].slow is False
    assert v_registry.registered_cases() == cases


def test_case_description_defaults_to_docstring(fake_cases):
    assert fake_cases["bad"].description == "Always fails."


def test_duplicate_case_name_is_rejected(cases):
    @case("dup")
    def f():
        return []

    with pytest.raises(ValueError, match="already registered"):

        @case("dup")
        def g():
            return []


def test_run_cases_skips_slow_unless_asked(fake_cases):
    quick = {c.case for c in run_cases()}
    assert quick == {"good", "bad", "boom"}
    assert "slowpoke" in {c.case for c in run_cases(include_slow=True)}
    assert [c.case for c in run_cases(["slowpoke"])] == ["slowpoke"]


def test_run_cases_reports_exceptions(fake_cases):
    (c,) = run_cases(["boom"])
    assert c.quantity == "error" and c.passed is False
    assert "solver diverged" in c.source and "RuntimeError" in c.source


def test_run_cases_reports_empty_or_malformed_results(cases):
    @case("empty")
    def empty():
        return []

    @case("wrong")
    def wrong():
        return [1.0]

    results = run_cases(["empty", "wrong"])
    assert [(c.quantity, c.passed) for c in results] == [("error", False), ("error", False)]


def test_run_cases_unknown_name(fake_cases):
    with pytest.raises(ValueError, match="nope") as info:
        run_cases(["good", "nope"])
    for name in ("good", "bad", "boom", "slowpoke"):
        assert name in str(info.value)


def test_import_errors_in_case_modules_surface(monkeypatch):
    def broken():
        raise ImportError("no module named flexmbd.verify.cases.missing")

    monkeypatch.setattr(v_registry, "load_cases", broken)
    with pytest.raises(ImportError):
        v_registry.registered_cases()


def test_real_case_package_imports():
    import flexmbd.verify.cases as pkg

    assert isinstance(pkg.CASE_MODULES, tuple)


# ------------------------------------------------------------------ verify CLI


def test_verify_table_and_exit_status(fake_cases, capsys):
    assert cli.main(["verify"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = lines[0]
    for col in ("case", "quantity", "reference", "flexmbd", "rel. error", "tolerance", "pass/FAIL", "source"):
        assert col in header
    assert header.index("reference") < header.index("flexmbd") < header.index("source")
    assert any(l.startswith("good") and " pass " in l and "period [s]" in l for l in lines)
    assert any(l.startswith("bad") and " FAIL " in l and "paper 2001" in l for l in lines)
    assert any(l.startswith("boom") and "solver diverged" in l for l in lines)
    assert "slowpoke" in out  # mentioned as skipped, not run
    assert not any(l.startswith("slowpoke") for l in lines)
    assert "1.5" in out and "0.5" in out  # %.6g numbers
    assert lines[-1] == "2 passed, 2 failed"


def test_verify_columns_are_aligned(fake_cases, capsys):
    cli.main(["verify", "good", "bad", "boom"])
    lines = capsys.readouterr().out.splitlines()
    col = lines[0].index("pass/FAIL")
    rows = lines[2:-1]
    assert len(rows) == 4  # one line per comparison, even for multi-line messages
    assert all(row[col : col + 4] in ("pass", "FAIL") for row in rows)


def test_verify_all_passing_exits_zero(fake_cases, capsys):
    assert cli.main(["verify", "good"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 passed, 0 failed"


def test_verify_all_includes_slow(fake_cases, capsys):
    assert cli.main(["verify", "--all", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert "slowpoke" in {d["case"] for d in data}


def test_verify_named_slow_case_runs(fake_cases, capsys):
    assert cli.main(["verify", "slowpoke"]) == 0
    out = capsys.readouterr().out
    assert any(l.startswith("slowpoke") for l in out.splitlines())


def test_verify_json(fake_cases, capsys):
    assert cli.main(["verify", "--json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)  # stdout is only JSON
    assert isinstance(data, list) and len(data) == 4
    keys = ["case", "quantity", "reference", "value", "unit", "rel_error", "tolerance", "passed", "source"]
    assert all(list(d) == keys for d in data)
    good = [d for d in data if d["case"] == "good"]
    assert good[0]["unit"] == "s" and good[0]["passed"] is True
    err = next(d for d in data if d["case"] == "boom")
    assert err["quantity"] == "error" and err["passed"] is False and err["value"] is None


def test_verify_json_keeps_case_output_off_stdout(cases, capsys):
    @case("chatty")
    def chatty():
        print("step 1 of 3")
        return [compare("chatty", "q", 1, 1, tolerance=0, source="s")]

    assert cli.main(["verify", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["case"] == "chatty"
    assert "step 1 of 3" in captured.err


def test_verify_unknown_case(fake_cases, capsys):
    assert cli.main(["verify", "good", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "nope" in err and "good" in err and "slowpoke" in err


def test_verify_no_cases(cases, capsys):
    assert cli.main(["verify"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 passed, 0 failed"


def test_verify_load_error_is_one_line(monkeypatch, capsys):
    def broken():
        raise ModuleNotFoundError("No module named 'flexmbd.verify.cases.oops'")

    monkeypatch.setattr(v_registry, "load_cases", broken)
    assert cli.main(["verify"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "oops" in err and "Traceback" not in err


# ------------------------------------------------------------------ example CLI


def test_example_list(examples, capsys):
    assert cli.main(["example"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and "A demo example" in out and "broken" in out


def test_example_run_writes_into_out_dir(examples, tmp_path, capsys):
    out_dir = tmp_path / "new" / "dir"
    assert cli.main(["example", "demo", "--out", str(out_dir)]) == 0
    assert (out_dir / "demo.png").exists()
    assert examples == [(out_dir, False)]
    assert "demo summary" in capsys.readouterr().out


def test_example_run_defaults_to_cwd_and_quiet(examples, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["example", "demo", "--quiet"]) == 0
    assert (tmp_path / "demo.png").exists()
    assert examples[0][1] is True
    assert capsys.readouterr().out == ""


def test_example_unknown(examples, capsys):
    assert cli.main(["example", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and "demo" in err and "broken" in err


def test_example_failure_is_one_line(examples, tmp_path, capsys):
    assert cli.main(["example", "broken", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad model" in err and "Traceback" not in err


def test_load_examples_imports_listed_modules(monkeypatch):
    monkeypatch.setattr(ex_registry, "EXAMPLES", {})
    monkeypatch.setattr(ex_registry, "EXAMPLE_MODULES", ("flexmbd.examples.does_not_exist",))
    with pytest.raises(ImportError):
        ex_registry.load_examples()


# ------------------------------------------------------------------ general CLI


@pytest.mark.parametrize("argv", [["--help"], ["example", "--help"], ["verify", "--help"]])
def test_help_has_examples_epilog(argv, capsys):
    assert cli.main(argv) == 0
    assert "examples:" in capsys.readouterr().out


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("flexmbd ")


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["verify", "--bogus"], ["example", "a", "b"]])
def test_usage_errors_are_one_line(argv, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "error" in captured.err
    assert "Traceback" not in captured.err
