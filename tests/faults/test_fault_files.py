"""Damaged results files: every command that reads one answers with one line naming the
file (exit status 2), never a traceback; harmless damage still works.

Each case copies a good file, damages it one way and runs ``plot --list``, ``plot``,
``export --csv``, ``animate`` and ``run --resume`` on it, in one process (``main``).
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from faultkit import PENDULUM, cli

h5py = pytest.importorskip("h5py")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A file as an interrupted run leaves it (so that --resume has work to do)."""
    part = tmp_path_factory.mktemp("damage") / "part.h5"
    r = cli("run", PENDULUM, "-o", part, "--t-end", "0.05")
    assert r.returncode == 0, r.stderr
    with h5py.File(part, "r+") as f:
        f.attrs["status"] = "interrupted"
        f.attrs["n_saved"] = 20
    return part


def _attr(name, value):
    def damage(f):
        f.attrs[name] = value
    return damage


def _delete(name):
    def damage(f):
        del f[name]
    return damage


def _replace(name, data):
    def damage(f):
        del f[name]
        f[name] = data
    return damage


H5_DAMAGE = {
    "no q": _delete("q"),
    "no t": _delete("t"),
    "no layout": _delete("layout"),
    "no geometry": _delete("geometry"),
    "no stats": _delete("stats"),
    "no body names": _delete("layout/body_names"),
    "settings not JSON": _attr("settings", "{not json"),
    "settings a list": _attr("settings", "[1, 2]"),
    "h a string": _attr("settings", json.dumps({"h": "fast", "t_end": 0.05})),
    "n_saved negative": _attr("n_saved", -5),
    "n_saved huge": _attr("n_saved", 2 ** 62),
    "n_saved infinite": _attr("n_saved", float("inf")),
    "n_saved text": _attr("n_saved", "many"),
    "format_version text": _attr("format_version", "one"),
    "format_version newer": _attr("format_version", 99),
    "format missing": _attr("format", "something-else"),
    "status odd": _attr("status", 12),
    "model_text garbage": _attr("model_text", "{{{: ["),
    "q one-dimensional": _replace("q", np.zeros(5)),
    "q too narrow": _replace("q", np.zeros((51, 1))),
    "t NaN": _replace("t", np.full(51, np.nan)),
    "body offsets out of range": _replace("layout/body_offsets", np.array([1000, -7])),
    "body kind unknown": _replace("layout/body_kinds", np.array([b"warp", b"drive"], dtype=object)),
    "geometry boxes wrong shape": _replace("geometry/box_half_extents", np.zeros(3)),
    "outputs not arrays": _replace("outputs/energy.total", np.array([b"x"] * 51, dtype=object)),
}


def _bytes_damage(kind):
    def damage(path):
        data = bytearray(path.read_bytes())
        if kind == "empty":
            data = bytearray()
        elif kind == "truncated":
            data = data[: len(data) // 2]
        elif kind == "text":
            data = bytearray(b"this is not HDF5\n")
        elif kind == "zeroed middle":
            mid = len(data) // 2
            data[mid:mid + 4096] = bytes(4096)
        path.write_bytes(bytes(data))
    return damage


BYTE_DAMAGE = {k: _bytes_damage(k) for k in ("empty", "truncated", "text", "zeroed middle")}

COMMANDS = [
    ["plot", "{f}", "--list"],
    ["plot", "{f}", "upper.position", "-o", "{d}"],
    ["export", "{f}", "--csv", "{d}/x.csv"],
    ["export", "{f}", "--vtk", "{d}/vtk"],
    ["animate", "{f}", "-o", "{d}/a.gif", "--every", "10"],
    ["run", str(PENDULUM), "--resume", "{f}", "--quiet"],
]


def _damaged(good, tmp_path, name):
    path = tmp_path / "bad.h5"
    shutil.copy(good, path)
    if name in H5_DAMAGE:
        with h5py.File(path, "r+") as f:
            H5_DAMAGE[name](f)
    else:
        BYTE_DAMAGE[name](path)
    return path


@pytest.mark.parametrize("name", list(H5_DAMAGE) + list(BYTE_DAMAGE))
def test_damaged_file_is_one_line_per_command(good, tmp_path, name, capsys):
    from flexmbd.cli import main

    path = _damaged(good, tmp_path, name)
    for cmd in COMMANDS:
        args = [a.format(f=path, d=tmp_path) for a in cmd]
        status = main(args)
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "internal error" not in err, (name, args, err)
        if status:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert len(lines) == 1 and "bad.h5" in lines[0], (name, args, err)
            assert status in (1, 2), (name, args, status, err)
