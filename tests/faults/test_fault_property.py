"""Property test: the command line with random arguments, on results files with random
damage, never prints a traceback (nor an "internal error").

Arguments are drawn from a vocabulary of commands, options and values, good and bad
(numbers out of range, not numbers, missing files, directories, damaged files, unknown
output names); damage is drawn from deleting datasets or groups, setting attributes to
odd values, resizing datasets, truncating the file and overwriting bytes.  Values that
would make a legitimate run long (a tiny time step) are not in the vocabulary.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from faultkit import PENDULUM, cli

h5py = pytest.importorskip("h5py")


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    d = tmp_path_factory.mktemp("prop")
    good = d / "good.h5"
    r = cli("run", PENDULUM, "-o", good, "--t-end", "0.03")
    assert r.returncode == 0, r.stderr
    (d / "adir").mkdir()
    shutil.copy(good, d / "pristine.bin")
    return d, good


PATHS = ["{bad}", "{bad}", "{good}", "{d}/missing.h5", "{d}/adir", "{d}/notes.txt", str(PENDULUM), "/dev/null",
         "", "-"]
NAMES = ["upper.position", "lower.velocity", "energy.total", "shoulder.reaction", "upper", "nope.position", "",
         "upper.first.position", "energy."]
NUMBERS = ["0", "-1", "1", "2", "nan", "inf", "1e400", "abc", "", "0.01", "100000", "3.5", "-0"]
OPTIONS = {
    "run": [["-o", "{out}"], ["--t-end", "{tnum}"], ["--h", "{hnum}"], ["--integrator", "{integ}"], ["--quiet"],
            ["--resume", "{path}"], ["--force"], ["-h"], ["--bogus"]],
    "plot": [["--list"], ["-o", "{outdir}"], ["--together"], ["--dpi", "{num}"], ["{name}"], ["{name}"]],
    "export": [["--vtk", "{outdir}"], ["--csv", "{out}", "{name}"], ["--csv", "{out}"], ["--every", "{num}"]],
    "animate": [["-o", "{gif}"], ["--every", "{num}"], ["--fps", "{num}"], ["--view", "{view}"],
                ["--dpi", "{smallnum}"]],
    "example": [["{example}"], ["--dump", "{out}"], ["--quiet"], ["--force"], ["--out", "{outdir}"]],
    "schema": [["--markdown"], ["--bogus"]],
}
FIRST = {"run": [str(PENDULUM), "{path}"], "plot": ["{path}"], "export": ["{path}"], "animate": ["{path}"],
         "example": [], "schema": []}
FILL = {
    "tnum": ["0.01", "0.02", "-1", "0", "nan", "abc", "1e400", "inf"],
    "hnum": ["0.01", "0.005", "-1", "0", "nan", "abc", "1e400"],
    "integ": ["hht", "hht:0.9", "hht:2", "newmark:0.3,0.6", "newmark:x", "rk4", "", "generalized-alpha:0.5,1"],
    "out": ["{d}/o.h5", "{d}/o.csv", "{d}/adir", "{d}/nodir/o.h5", "{d}/notes.txt", "{good}", "{bad}"],
    "outdir": ["{d}/pics", "{d}/notes.txt", "/dev/null/x"],
    "gif": ["{d}/a.gif", "{d}/a.png", "{d}/adir"],
    "view": ["xy", "iso", "zz"],
    "example": ["pendulum", "no-such-example"],
    "smallnum": ["1", "20", "0", "-3", "abc"],
    "num": NUMBERS,
    "name": NAMES,
    "path": PATHS,
}


@st.composite
def command_lines(draw):
    cmd = draw(st.sampled_from(list(OPTIONS)))
    args = [cmd] + [draw(st.sampled_from(FILL[x[1:-1]])) if x.startswith("{") and x[1:-1] in FILL else x
                    for x in FIRST[cmd]]
    for opt in draw(st.lists(st.sampled_from(OPTIONS[cmd]), max_size=4)):
        for word in opt:
            key = word[1:-1] if word.startswith("{") else None
            args.append(draw(st.sampled_from(FILL[key])) if key in FILL else word)
    # a value may itself hold a placeholder (FILL["out"] -> "{d}/o.h5")
    return args


def _apply(f, op, rng):
    kind = op[0]
    names = []
    f.visit(names.append)
    target = names[op[1] % len(names)]
    if kind == "delete":
        del f[target]
    elif kind == "attr":
        attr = ["n_saved", "settings", "format_version", "status", "model_text", "format", "n"][op[1] % 7]
        f.attrs[attr] = [-3, 2 ** 62, float("nan"), "x", "{", 1e300, ""][op[2] % 7]
    elif kind == "resize":
        ds = f[target]
        if isinstance(ds, h5py.Dataset) and ds.maxshape and ds.maxshape[0] is None:
            ds.resize(op[2] % (ds.shape[0] + 5), axis=0)
    elif kind == "values":
        ds = f[target]
        if isinstance(ds, h5py.Dataset) and ds.dtype.kind == "f" and ds.size:
            data = ds[()]
            data.flat[op[2] % data.size] = [np.nan, np.inf, -1e300][op[2] % 3]
            ds[()] = data


DAMAGE = st.lists(st.tuples(st.sampled_from(["delete", "attr", "resize", "values", "truncate", "bytes"]),
                            st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)), max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(args=command_lines(), damage=DAMAGE)
def test_no_traceback_ever(place, args, damage, capsys, monkeypatch):
    from flexmbd.cli import main

    d, good = place
    shutil.copy(d / "pristine.bin", good)  # an earlier example may have replaced it (-o, --dump --force)
    (d / "notes.txt").write_text("not a model\n")
    bad = d / "bad.h5"
    shutil.copy(good, bad)
    rng = np.random.default_rng(0)
    with h5py.File(bad, "r+") as f:
        for op in damage:
            if op[0] not in ("truncate", "bytes"):
                try:
                    _apply(f, op, rng)
                except (KeyError, ValueError, TypeError, OSError):
                    pass  # a damage that h5py itself refuses
    for op in damage:
        data = bytearray(bad.read_bytes())
        if op[0] == "truncate":
            bad.write_bytes(bytes(data[: op[1] % max(1, len(data))]))
        elif op[0] == "bytes" and data:  # 8 bytes anywhere, set to a value drawn from the op
            at = op[1] % len(data)
            data[at:at + 8] = (op[2] * 2654435761 % 2 ** 64).to_bytes(8, "little")[: len(data[at:at + 8])]
            bad.write_bytes(bytes(data))
    argv = [a.format(d=d, good=good, bad=bad) for a in args]
    argv = [a.format(d=d, good=good, bad=bad) for a in argv]
    monkeypatch.chdir(d)
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:  # pragma: no cover - main never exits
        pytest.fail(f"main raised SystemExit({exc.code}) for {argv}")
    out, err = capsys.readouterr()
    event(f"{argv[0]} exit {status}")
    assert "Traceback" not in err and "internal error" not in err, (argv, damage, err)
    assert status in (0, 1, 2), (argv, damage, status, err)
    if status:
        lines = [ln for ln in err.splitlines() if ln.strip() and ": note: " not in ln and ": warning:" not in ln]
        assert len(lines) == 1, (argv, damage, err)
