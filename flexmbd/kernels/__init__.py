"""Compiled element kernels (Numba).

The NumPy implementations in bodies/, forces/ and constraints/ are the reference: they
are vectorised over elements but pay NumPy's per-call overhead many times per
evaluation, which dominates for small models.  These kernels compute the same
quantities in one compiled loop per group.  They are used when Numba is importable
(``FLEXMBD_NUMBA=0`` disables them); tests check both paths against each other.
"""
from __future__ import annotations

import os

try:  # pragma: no cover - exercised implicitly
    if os.environ.get("FLEXMBD_NUMBA", "1") == "0":
        raise ImportError("disabled by FLEXMBD_NUMBA=0")
    import numba  # noqa: F401

    AVAILABLE = True
except ImportError:
    AVAILABLE = False
