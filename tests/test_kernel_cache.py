"""Numba's on-disk cache of the compiled kernels cannot go stale.

Numba checks only the file that defines a cached function, so a kernel that calls a
kernel of another file, or compiles in a constant of a NumPy module, kept its old
machine code after that other file changed.  flexmbd keys the cache directory to a hash
of every file the kernels are compiled from (flexmbd/kernels/cache.py).  The end-to-end
tests copy the package to a temporary directory, run a kernel in fresh interpreters and
edit the copy in between; the others check the pieces without compiling anything.
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import flexmbd
import flexmbd.kernels
from flexmbd.kernels import AVAILABLE, cache

PACKAGE = Path(flexmbd.__file__).resolve().parent

#: The smallest computation that crosses files: ``assembly.spatial_bodies`` calls
#: ``bodies.spatial_inertia_into``, which compiles in ``rotations.DG``.  One Euler-parameter
#: body of mass 2 and inertia 0.3 I at the identity orientation, at rest, with
#: accelerations (1, 2, 3) and p̈ = (0, 1, 2, 3); the block is ∂F/∂q (c_M = c_D = 0, c_K = 1).
SCRIPT = r"""
import json
import numpy as np
import flexmbd
from flexmbd.kernels import assembly as k

cfg = dof = np.arange(7).reshape(1, 7)
qe = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
ve = np.zeros(7)
ae = np.array([1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0])
vec, blk = np.zeros(7), np.zeros(49)
k.spatial_bodies(cfg, dof, np.array([2.0]), 0.3 * np.eye(3)[None], qe, ve, ae, 0.0, 0.0, 1.0, True,
                 vec, blk)
stats = k.spatial_bodies.stats
print(json.dumps({"package": flexmbd.__file__, "force": vec.tolist(), "block": blk.tolist(),
                  "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "cache_path": stats.cache_path}))
"""

needs_numba = pytest.mark.skipif(not AVAILABLE, reason="numba not available or disabled")


def copy_package(dest: Path) -> Path:
    """A copy of the package under test, without any cache, in ``dest``; returns ``dest``."""
    shutil.copytree(PACKAGE, dest / "flexmbd", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path`` (fails loudly if the source moved on)."""
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new))


def run(root: Path, script: str = SCRIPT, **env_extra: str) -> dict:
    """Run ``script`` in a new interpreter that imports flexmbd from ``root``; its last
    line of output is JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FLEXMBD_NUMBA")}
    env.update(PYTHONPATH=str(root), XDG_CACHE_HOME=str(root / "user-cache"), **env_extra)
    out = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(result["package"]).resolve().is_relative_to(root.resolve())
    return result


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` with its contents."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


@needs_numba
def test_cross_file_edits_recompile_and_unchanged_sources_reuse_the_cache(tmp_path):
    root = copy_package(tmp_path)
    kernels = root / "flexmbd" / "kernels"

    cold = run(root)
    assert cold["force"][:3] == [2.0, 4.0, 6.0]                  # m a
    assert cold["misses"] == 1 and cold["hits"] == 0
    cache = Path(cold["cache_path"])
    assert cache.resolve().is_relative_to((kernels / "__pycache__").resolve())
    files = snapshot(kernels / "__pycache__")
    assert any(name.endswith(".nbi") for name in files)

    warm = run(root)                                              # nothing changed
    assert warm["force"] == cold["force"] and warm["block"] == cold["block"]
    assert warm["hits"] == 1 and warm["misses"] == 0
    assert warm["cache_path"] == cold["cache_path"]
    after = snapshot(kernels / "__pycache__")
    assert {n: b for n, b in after.items() if not n.endswith(".pyc")} == \
        {n: b for n, b in files.items() if not n.endswith(".pyc")}   # no file added or rewritten

    # A kernel of another file: the mass term of bodies.spatial_inertia_into, times 10.
    edit(kernels / "bodies.py", "vec[7 * b + i] = mass[b] * ae[dof[b, i]]",
         "vec[7 * b + i] = 10.0 * mass[b] * ae[dof[b, i]]")
    heavy = run(root)
    assert heavy["force"][:3] == [20.0, 40.0, 60.0]
    assert heavy["misses"] == 1 and heavy["hits"] == 0
    assert heavy["block"] == cold["block"]                         # c_M = 0: mass not in the block
    assert heavy["cache_path"] != cold["cache_path"]
    assert not cache.exists()                                     # the stale directory was pruned

    # A constant compiled in from a NumPy module outside kernels/: DG[i, j, k] + 1 adds
    # 4 Σ_i w1_i = 4 Σ_i (J G(p) p̈)_i = 4 · 0.3 · (1 + 2 + 3) to every entry of ∂F_p/∂p.
    edit(root / "flexmbd" / "rotations.py", "DG = _build_g_derivative(G_matrix)",
         "DG = _build_g_derivative(G_matrix) + 1.0")
    shifted = run(root)
    assert shifted["misses"] == 1 and shifted["hits"] == 0
    before = np.reshape(heavy["block"], (7, 7))
    now = np.reshape(shifted["block"], (7, 7))
    expected = before.copy()
    expected[3:, 3:] += 4 * 0.3 * 6
    assert np.allclose(now, expected, rtol=0, atol=1e-12)
    assert shifted["force"] == heavy["force"]

    again = run(root)
    assert again["hits"] == 1 and again["misses"] == 0 and again["block"] == shifted["block"]


#: Import the kernels without compiling anything and say where they would cache.
WHERE = r"""
import json, sys
import flexmbd
import flexmbd.kernels as k
from flexmbd.kernels import assembly
from numba.core import config
print(json.dumps({"package": flexmbd.__file__, "cache_dir": str(k.CACHE_DIR),
                  "cache_path": assembly.spatial_bodies.stats.cache_path, "numba": config.CACHE_DIR}))
"""


@needs_numba
def test_a_user_set_numba_cache_dir_holds_the_hashed_directory(tmp_path):
    root = copy_package(tmp_path)
    user = tmp_path / "numba-cache"
    where = run(root, WHERE, NUMBA_CACHE_DIR=str(user))
    assert Path(where["cache_dir"]).parent.parent == user / "flexmbd"
    assert Path(where["cache_dir"]).name.startswith(cache.PREFIX)
    assert Path(where["cache_path"]).parent == Path(where["cache_dir"])
    assert where["numba"] == str(user)                           # given back as the user set it
    assert not (root / "flexmbd" / "kernels" / "__pycache__").is_dir() or \
        not list((root / "flexmbd" / "kernels" / "__pycache__").glob(cache.PREFIX + "*"))


def test_disabled_kernels_import_no_kernel_and_create_no_cache(tmp_path):
    root = copy_package(tmp_path)
    script = ("import json, sys, flexmbd.system, flexmbd.kernels as k; "
              "print(json.dumps({'package': flexmbd.__file__, 'available': k.AVAILABLE, "
              "'cache_dir': k.CACHE_DIR, 'kernels': sorted(m for m in sys.modules "
              "if m.startswith('flexmbd.kernels.'))}))")
    out = run(root, script, FLEXMBD_NUMBA="0")
    assert out["available"] is False and out["cache_dir"] is None and out["kernels"] == []
    assert not list(root.rglob(cache.PREFIX + "*"))


@needs_numba
def test_every_kernel_caches_into_the_hashed_directory():
    """Every cache=True kernel was decorated while Numba's cache directory pointed at the
    hashed one, and Numba's setting was given back afterwards."""
    from numba.core import config
    from numba.core.registry import CPUDispatcher

    directory = flexmbd.kernels.CACHE_DIR
    assert directory is not None and directory.name == cache.PREFIX + cache.source_hash()
    count = 0
    for name in cache.kernel_modules():
        module = importlib.import_module(f"flexmbd.kernels.{name}")
        for obj in vars(module).values():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                assert Path(obj.stats.cache_path).parent == directory, obj
                count += 1
    assert count > 50
    assert config.CACHE_DIR != str(directory)


def copy_sources(dest: Path) -> Path:
    """The package's Python files copied to ``dest``; returns the copy's kernels directory."""
    for path in PACKAGE.rglob("*.py"):
        target = dest / "flexmbd" / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return dest / "flexmbd" / "kernels"


def test_hash_covers_the_kernels_and_the_modules_they_import_values_from(tmp_path):
    kernels = copy_sources(tmp_path)
    package = kernels.parent
    names = {p.relative_to(package).as_posix() for p in cache.source_files(kernels)}
    assert {"rotations.py", "lie.py", "kernels/bodies.py", "kernels/assembly.py"} <= names
    assert "system.py" not in names

    seen = {cache.source_hash(kernels)}
    for changed in ("kernels/bodies.py", "kernels/assembly.py", "rotations.py", "lie.py"):
        with open(package / changed, "a") as f:
            f.write("\n# edited\n")
        seen.add(cache.source_hash(kernels))
    assert len(seen) == 5                                         # every edit: a new hash
    with open(package / "system.py", "a") as f:
        f.write("\n# edited\n")
    assert cache.source_hash(kernels) in seen                     # not compiled into a kernel

    # a new import, even inside a function, brings the module (and its own imports) in
    with open(kernels / "normalization.py", "a") as f:
        f.write("\n\ndef _scale():\n    from ..timefunctions import Polynomial\n    return Polynomial\n")
    names = {p.relative_to(package).as_posix() for p in cache.source_files(kernels)}
    assert "timefunctions.py" in names
    before = cache.source_hash(kernels)
    with open(package / "timefunctions.py", "a") as f:
        f.write("\n# edited\n")
    assert cache.source_hash(kernels) != before


def test_the_import_scanner_misses_no_import_of_the_package():
    """The quick scan of import lines finds every import statement a full parse finds."""

    def key(node):
        return type(node).__name__, getattr(node, "module", None), getattr(node, "level", None), \
            tuple(a.name for a in node.names)

    for path in PACKAGE.rglob("*.py"):
        source = path.read_bytes()
        full = {key(n) for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))}
        quick = {key(n) for n in cache._import_statements(source)}
        assert full <= quick, path


def test_unwritable_package_directory_falls_back_to_the_user_cache(tmp_path, monkeypatch):
    kernels = copy_sources(tmp_path / "site")
    (kernels / "__pycache__").write_text("not a directory")       # cannot hold a cache (even as root)
    monkeypatch.setattr(cache, "user_cache_dir", lambda: tmp_path / "user-cache")
    path = cache.prepare("", kernels)
    assert path is not None and path.parent.parent == tmp_path / "user-cache"
    assert path.name == cache.PREFIX + cache.source_hash(kernels) and path.is_dir()
    # a user-set Numba cache directory comes first
    path = cache.prepare(str(tmp_path / "numba"), kernels)
    assert path is not None and path.parent.parent == tmp_path / "numba" / "flexmbd"


def test_stale_directories_are_pruned_and_nothing_else(tmp_path):
    kernels = copy_sources(tmp_path / "a")
    pycache = kernels / "__pycache__"
    pycache.mkdir()
    for stale in ("numba-0123456789abcdef", "numba-fedcba9876543210"):
        (pycache / stale / "kernels_x").mkdir(parents=True)
        (pycache / stale / "kernels_x" / "f.nbi").write_bytes(b"old")
    for legacy in ("assembly.evaluate_all-211.py311.nbi", "assembly.evaluate_all-211.py311.1.nbc"):
        (pycache / legacy).write_bytes(b"old")                   # the layout before hashing
    (pycache / "bodies.cpython-311.pyc").write_bytes(b"bytecode")
    (pycache / "other").mkdir()
    path = cache.prepare("", kernels)
    assert path is not None and path.parent == pycache
    assert sorted(p.name for p in pycache.iterdir()) == sorted([path.name, "bodies.cpython-311.pyc", "other"])

    # two installations sharing one cache root keep their own directories
    other = copy_sources(tmp_path / "b")
    with open(other / "bodies.py", "a") as f:
        f.write("\n# another version\n")
    shared = str(tmp_path / "shared")
    mine, theirs = cache.prepare(shared, kernels), cache.prepare(shared, other)
    assert mine is not None and theirs is not None and mine.name != theirs.name
    assert mine.is_dir() and theirs.is_dir()
