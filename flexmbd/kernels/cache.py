"""Where the kernels' Numba cache lives: a directory named after a hash of their sources.

Numba validates a cached function against the source file that defines it, and only
that file.  A kernel that calls a kernel of another file, or that compiles in a
module-level array of a NumPy module (``rotations.DG``, ``lie.THRESHOLDS``, ...), keeps
its old machine code when that other file changes.  So the kernels are cached in a
directory whose name holds a hash of every file they are compiled from: all of
``flexmbd/kernels/*.py`` and, transitively, every flexmbd module they import from.  Any
edit gives a new directory (everything recompiles once); unchanged sources find the
same directory and load from it.  Directories of older hashes are deleted.

The directory is chosen, in order of preference, below a user-set ``NUMBA_CACHE_DIR``,
in the package's own ``kernels/__pycache__``, in the user's cache directory, or in the
system's temporary directory: the first that can be written to.  Numba reads
``numba.core.config.CACHE_DIR`` when a ``cache=True`` function is decorated, so
:func:`caching_into` sets it only while the kernel modules are imported and restores it
afterwards; Numba functions outside flexmbd keep Numba's own behaviour.
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

KERNELS_DIR = Path(__file__).resolve().parent
#: Prefix of the hashed directories; siblings with it and another hash are stale.
PREFIX = "numba-"
HASH_LENGTH = 16


def kernel_modules(kernels_dir: Path = KERNELS_DIR) -> list[str]:
    """Names of the kernel modules, which must all be imported while caching into the
    hashed directory (every ``*.py`` of the kernels package but this one and ``__init__``)."""
    return sorted(p.stem for p in kernels_dir.glob("*.py") if p.stem not in ("__init__", "cache"))


def _module_file(package_dir: Path, parts: list[str]) -> Path | None:
    """The file of module ``parts`` below ``package_dir`` (a module or a package), if any."""
    if not parts:
        return None
    base = package_dir.joinpath(*parts)
    for candidate in (base.parent / (base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


#: The start of an import statement at the beginning of a line (indented or not).
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import|import)[ \t]", re.M)


def _import_statements(source: bytes) -> Iterator[ast.stmt]:
    """The import statements of ``source``, anywhere in it.

    Parsing only these statements, not the whole module, keeps the hash cheap enough to
    compute at every import of flexmbd (about a tenth of the time).  A line of a string
    that looks like an import may be taken for one; that only adds a file to the hash.
    """
    for match in _IMPORT.finditer(source):
        end = source.find(b"\n", match.start())
        end = len(source) if end < 0 else end
        statement = source[match.start():end]
        if b"(" in statement and b")" not in statement:  # from .markers import (a, b,\n c)
            close = source.find(b")", end)
            statement = source[match.start():close + 1 if close >= 0 else len(source)]
        while statement.rstrip().endswith(b"\\") and end < len(source):
            nxt = source.find(b"\n", end + 1)
            end = len(source) if nxt < 0 else nxt
            statement = source[match.start():end]
        try:
            yield from ast.parse(statement.strip()).body
        except (SyntaxError, ValueError):
            continue


def _imported_files(path: Path, package_dir: Path) -> list[Path]:
    """The files of the package's own modules that ``path`` imports, anywhere in it.

    Imports inside functions count too: a constant computed at import time may come
    from any of them, and hashing a file too many only costs a recompilation.
    """
    name = package_dir.name
    here = list(path.parent.relative_to(package_dir).parts)
    found = []
    for node in _import_statements(path.read_bytes()):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from ..rotations import DG
                if node.level - 1 > len(here):
                    continue
                module = here[:len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == name:  # from flexmbd.lie import ...
                module = node.module.split(".")[1:]
            else:
                continue
            found.append(_module_file(package_dir, module))
            # from . import rotations: the names may be modules themselves
            found.extend(_module_file(package_dir, module + [alias.name]) for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == name:
                    found.append(_module_file(package_dir, parts[1:]))
    return [f for f in found if f is not None]


def source_files(kernels_dir: Path = KERNELS_DIR) -> list[Path]:
    """Every file the kernels are compiled from: the kernel files and, transitively, the
    package's modules they import (today ``rotations.py`` and ``lie.py``)."""
    package_dir = kernels_dir.parent
    todo = sorted(kernels_dir.glob("*.py"))
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_imported_files(path, package_dir))
    return sorted(seen)


def source_hash(kernels_dir: Path = KERNELS_DIR) -> str:
    """Hash of the names and contents of :func:`source_files`."""
    package_dir = kernels_dir.parent
    digest = hashlib.sha256()
    for path in source_files(kernels_dir):
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:HASH_LENGTH]


def user_cache_dir() -> Path:
    """The per-user cache directory of flexmbd (the platform's usual place)."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
        return base / "flexmbd" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "flexmbd"
    return Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "flexmbd"


def _location_tag(kernels_dir: Path) -> str:
    """A directory name per installation, so that installations sharing a cache root
    do not delete each other's directories."""
    return "kernels-" + hashlib.sha256(str(kernels_dir).encode()).hexdigest()[:12]


def candidate_parents(user_dir: str = "", kernels_dir: Path = KERNELS_DIR) -> list[Path]:
    """The directories that may hold the hashed directory, in order of preference."""
    tag = _location_tag(kernels_dir)
    parents = [Path(user_dir) / "flexmbd" / tag] if user_dir else []
    parents.append(kernels_dir / "__pycache__")
    with contextlib.suppress(RuntimeError):  # no home directory
        parents.append(user_cache_dir() / tag)
    uid = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    parents.append(Path(tempfile.gettempdir()) / f"flexmbd{uid}" / tag)
    return parents


def _writable(path: Path) -> bool:
    """Create ``path`` and write a file in it, as Numba checks a cache directory."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def prune(path: Path, kernels_dir: Path = KERNELS_DIR) -> None:
    """Delete the hashed directories beside ``path`` (older sources of this installation)
    and, in the package's ``__pycache__``, the index and data files of the layout before
    hashing.  Errors are ignored: a directory still in use by another process is
    recreated by Numba as needed."""
    for other in path.parent.glob(PREFIX + "*"):
        if other != path and other.is_dir():
            shutil.rmtree(other, ignore_errors=True)
    if path.parent == kernels_dir / "__pycache__":
        for legacy in (*path.parent.glob("*.nbi"), *path.parent.glob("*.nbc")):
            with contextlib.suppress(OSError):
                legacy.unlink()


def prepare(user_dir: str = "", kernels_dir: Path = KERNELS_DIR) -> Path | None:
    """Choose, create and return the cache directory of the current sources, and prune
    stale ones.  ``user_dir`` is a user-set Numba cache directory ("" if none).  None if
    no candidate can be written to (Numba then falls back to its own locations)."""
    name = PREFIX + source_hash(kernels_dir)
    for parent in candidate_parents(user_dir, kernels_dir):
        path = parent / name
        if _writable(path):
            prune(path, kernels_dir)
            return path
    return None


@contextlib.contextmanager
def caching_into(path: Path | None) -> Iterator[None]:
    """Make ``cache=True`` functions decorated in this block cache into ``path``.

    Numba's cache locator reads ``CACHE_DIR`` once, when the function is decorated, and
    keeps the directory; restoring the old value keeps other packages' functions where
    Numba would put them.  Does nothing if ``path`` is None.
    """
    if path is None:
        yield
        return
    from numba.core import config

    old = config.CACHE_DIR
    config.CACHE_DIR = str(path)
    try:
        yield
    finally:
        config.CACHE_DIR = old
