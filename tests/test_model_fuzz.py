"""Property-based test: mutated model files thrown at `flexmbd run`.

Hypothesis takes the bundled model files (shortened to a few steps), deletes and renames
keys, puts wrong types, negative, zero, NaN, infinite and huge numbers, unknown bodies,
duplicate elements and garbage expressions into them, writes them as YAML or JSON and
runs `flexmbd run FILE -o out.h5`.  Each run must either complete (exit 0), stop as a
failed simulation (exit 1, a file marked failed), or be rejected (exit 2) with a
one-paragraph message and no results file; never a traceback or an internal error.
Most examples run in-process through cli.main (fast), a few through a subprocess.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import subprocess
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flexmbd import cli
from flexmbd.io.model_library import bundled_models

try:  # the results writer needs h5py; without it the runs go without -o
    import h5py

    import flexmbd.io.results_h5  # noqa: F401
except ImportError:  # pragma: no cover
    h5py = None

BASES = {}
for _name, _path in sorted(bundled_models().items()):
    _doc = yaml.safe_load(_path.read_text(encoding="utf-8"))
    if _doc["solver"].get("analysis") == "static":
        _doc["solver"]["load_steps"] = 2
    else:
        _doc["solver"]["t_end"] = 3 * _doc["solver"]["h"]  # a few steps: the point is the checking
    BASES[_name] = _doc

VALUES = [None, "", "garbage", -1, 0, -1e-300, 1e-300, 1e300, -1e300, math.nan, math.inf, -math.inf, True, False,
          [], {}, [1, 2], [1.0, 2.0, 3.0, 4.0], [[1, 0], [0, 1]], {"type": "nope"}, {"type": "ramp"},
          "sin(t", "1/0", "t**t**t**t**t", "__import__('os').system('echo pwned')", "x*t", "1/(t-0.01)",
          "exp(1000*t)", "nobody", "ground", "x" * 300, 2 ** 70, "2e4", "[1, 2, 3]", "t^2", "sqrt(-t)"]
EXTRA_KEYS = ["colour", "mas", "typ", "bodyi", "at_k", "axes", "stiffness", "t_stop"]


def _paths(node, prefix=()):
    """Every (container path, key) pair of the document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix, k
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix, i
            yield from _paths(v, prefix + (i,))


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


@st.composite
def mutated_models(draw):
    name = draw(st.sampled_from(sorted(BASES)))
    doc = copy.deepcopy(BASES[name])
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        if not paths:
            break
        parent_path, key = draw(st.sampled_from(paths))
        parent = _get(doc, parent_path)
        value = parent[key]
        op = draw(st.sampled_from(["delete", "rename", "replace", "replace", "replace", "scale", "extra",
                                   "unknown_body", "duplicate"]))
        if op == "delete":
            del parent[key]
        elif op == "rename" and isinstance(parent, dict):
            new = draw(st.sampled_from([key[:-1], key + "s", key.upper(), key[::-1], "_" + key, key.replace("_", "")]))
            if new and new not in parent:
                parent[new] = parent.pop(key)
        elif op == "replace":
            parent[key] = copy.deepcopy(draw(st.sampled_from(VALUES)))
        elif op == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[key] = value * draw(st.sampled_from([-1.0, 0.0, 1e10, 1e-10, math.nan, 1e300]))
        elif op == "extra" and isinstance(value, dict):
            value[draw(st.sampled_from(EXTRA_KEYS))] = draw(st.sampled_from([1.0, "x", [1, 2, 3]]))
        elif op == "unknown_body" and isinstance(value, dict):
            for k in ("body", "body_i", "body_j"):
                if k in value:
                    value[k] = draw(st.sampled_from(["nobody", "Crank", "slidr", "ground", ""]))
                    break
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(value))
    fmt = draw(st.sampled_from(["yaml", "yaml", "json"]))
    return name, doc, fmt


def _write(doc, fmt, directory):
    path = Path(directory) / f"model.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _check(status, err, out_path, doc):
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert status in (0, 1, 2), (status, err, doc)
    if status == 0:
        assert err == "", err
        if out_path is not None:
            assert out_path.exists()
    else:
        text = err.strip()
        assert text and "\n" not in text, f"not one paragraph: {err!r}"
        if status == 2:
            assert text.startswith("flexmbd run: error: ") and ": " in text
            if out_path is not None:
                assert not out_path.exists(), "a rejected model left a results file behind"
        else:  # the model was valid but the simulation stopped: the file says so
            if out_path is not None and out_path.exists():
                with h5py.File(out_path, "r") as f:
                    status_attr = f.attrs["status"]
                    status_attr = status_attr.decode() if isinstance(status_attr, bytes) else status_attr
                    assert status_attr != "completed" and not f.attrs["complete"]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_models())
def test_mutated_model_files_in_process(case):
    name, doc, fmt = case
    with tempfile.TemporaryDirectory() as d:
        path = _write(doc, fmt, d)
        out_path = Path(d) / "out.h5" if h5py is not None else None
        argv = ["run", str(path), "--quiet"] + (["-o", str(out_path)] if out_path is not None else [])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
        _check(status, err.getvalue(), out_path, doc)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_models())
def test_mutated_model_files_subprocess(case):
    name, doc, fmt = case
    with tempfile.TemporaryDirectory() as d:
        path = _write(doc, fmt, d)
        out_path = Path(d) / "out.h5" if h5py is not None else None
        argv = ["flexmbd", "run", str(path), "--quiet"] + (["-o", str(out_path)] if out_path is not None else [])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=d,
                           env=dict(os.environ, MPLBACKEND="Agg"))
        _check(p.returncode, p.stderr, out_path, doc)


def test_the_mutator_reaches_the_error_paths():
    """Sanity: a few fixed mutations of each kind give exit 2 with the key named."""
    doc = copy.deepcopy(BASES["slider-crank-sda"])
    doc["bodies"][0]["mass"] = math.nan
    doc["forces"].append(copy.deepcopy(doc["forces"][0]))
    with tempfile.TemporaryDirectory() as d:
        path = _write(doc, "json", d)
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = cli.main(["run", str(path)])
    assert status == 2 and "bodies[0].mass: expected a finite number" in err.getvalue()
