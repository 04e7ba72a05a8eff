"""Small caches of what freezing works out from a model's structure and values, kept for
later models that give the same inputs (a benchmark's repeats, a parameter study over
other values): :class:`Recent` holds the most recent results by key, :func:`digest`
makes a key of arrays, numbers and None.  Users: flexmbd/system.py (sparsity pattern,
redundant equations), flexmbd/constraints/joint_types.py (joint groups)."""
from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp


class Recent:
    """A small cache of the most recent results by key (least recently used dropped)."""

    def __init__(self, size: int = 32):
        self.size, self.items = size, OrderedDict()

    def get(self, key):
        value = self.items.get(key)
        if value is not None:
            self.items.move_to_end(key)
        return value

    def put(self, key, value) -> None:
        self.items[key] = value
        if len(self.items) > self.size:
            self.items.popitem(last=False)


def digest(*parts) -> bytes:
    """A key for arrays (dense or sparse), numbers and None: their contents, shapes and types."""
    h = hashlib.blake2b(digest_size=20)
    for p in parts:
        if isinstance(p, np.ndarray):     # first: the common case (dtype.str, not str(dtype): no Python call)
            h.update(np.ascontiguousarray(p).tobytes())
            h.update(f"{p.shape}{p.dtype.str}".encode())
        elif p is None:
            h.update(b"none")
        elif sp.issparse(p):
            p = p.tocsr()
            for a in (p.data, p.indices, p.indptr):
                h.update(np.ascontiguousarray(a).tobytes())
            h.update(repr(p.shape).encode())
        else:
            h.update(repr(p).encode())
        h.update(b"|")
    return h.digest()
