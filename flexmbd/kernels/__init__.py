"""Compiled element kernels (Numba).

The NumPy implementations in bodies/, forces/ and constraints/ are the reference: they
are vectorised over elements but pay NumPy's per-call overhead many times per
evaluation, which dominates for small models.  These kernels compute the same
quantities in one compiled loop per group.  They are used when Numba is importable
(``FLEXMBD_NUMBA=0`` disables them); tests check both paths against each other.

Every kernel module is imported here, while Numba's cache directory points at
:data:`CACHE_DIR`, a directory named after a hash of the kernels' sources (see
:mod:`flexmbd.kernels.cache` for why: Numba alone keeps stale machine code when a kernel
of another file changes).

Cold start (:mod:`flexmbd.cold_start`): while that directory has not been filled by a
complete compile, a process uses the NumPy paths (``AVAILABLE`` False,
``COMPILING_IN_BACKGROUND`` True) and one detached process compiles the kernels.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path


def _numba_installed() -> bool:
    """Whether Numba can be found, without importing it (about 0.4 s: a process that runs
    on NumPy during a cold start never imports it)."""
    if os.environ.get("FLEXMBD_NUMBA", "1") == "0":
        return False
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def _numba_cache_setting() -> str:
    """Numba's ``config.CACHE_DIR`` ("" if unset), read without importing Numba where that
    gives the same answer: Numba takes it from ``NUMBA_CACHE_DIR``, else from a
    ``.numba_config.yaml`` in the working directory (then Numba is asked)."""
    config = sys.modules.get("numba.core.config")
    if config is None and "NUMBA_CACHE_DIR" not in os.environ and os.path.isfile(".numba_config.yaml"):
        from numba.core import config
    if config is not None:
        return config.CACHE_DIR
    return os.environ.get("NUMBA_CACHE_DIR", "")


AVAILABLE = _numba_installed()

#: Where the kernels' compiled machine code is cached (None: kernels disabled, or no
#: writable place was found and Numba chooses).
CACHE_DIR: Path | None = None
#: True when this process runs on NumPy because the kernels are compiling in a background
#: process (first run after an install or an edit of the kernels; flexmbd/cold_start.py)
COMPILING_IN_BACKGROUND = False

if AVAILABLE:
    from . import cache as _cache

    CACHE_DIR = _cache.prepare(_numba_cache_setting())
    from .. import cold_start as _cold

    if (CACHE_DIR is not None and _cold.mode() == "background" and not _cold.is_warm(CACHE_DIR)
            and _cold.start_background(CACHE_DIR)):
        AVAILABLE, COMPILING_IN_BACKGROUND = False, True
if AVAILABLE:
    try:  # pragma: no cover - exercised implicitly
        import numba  # noqa: F401
    except ImportError:   # installed but broken (e.g. built for another NumPy)
        AVAILABLE = False
if AVAILABLE:
    with _cache.caching_into(CACHE_DIR):
        for _name in _cache.kernel_modules():
            importlib.import_module(f"{__name__}.{_name}")
    del _name
