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
import os
from pathlib import Path

try:  # pragma: no cover - exercised implicitly
    if os.environ.get("FLEXMBD_NUMBA", "1") == "0":
        raise ImportError("disabled by FLEXMBD_NUMBA=0")
    import numba  # noqa: F401

    AVAILABLE = True
except ImportError:
    AVAILABLE = False

#: Where the kernels' compiled machine code is cached (None: kernels disabled, or no
#: writable place was found and Numba chooses).
CACHE_DIR: Path | None = None
#: True when this process runs on NumPy because the kernels are compiling in a background
#: process (first run after an install or an edit of the kernels; flexmbd/cold_start.py)
COMPILING_IN_BACKGROUND = False

if AVAILABLE:
    from numba.core import config as _config

    from . import cache as _cache

    CACHE_DIR = _cache.prepare(_config.CACHE_DIR)
    from .. import cold_start as _cold

    if (CACHE_DIR is not None and _cold.mode() == "background" and not _cold.is_warm(CACHE_DIR)
            and _cold.start_background(CACHE_DIR)):
        AVAILABLE, COMPILING_IN_BACKGROUND = False, True
if AVAILABLE:
    with _cache.caching_into(CACHE_DIR):
        for _name in _cache.kernel_modules():
            importlib.import_module(f"{__name__}.{_name}")
    del _name
