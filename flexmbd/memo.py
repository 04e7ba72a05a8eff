"""Small caches of what freezing works out from a model's structure and values, kept for
later models that give the same inputs (a benchmark's repeats, a parameter study over
other values): :class:`Recent` holds the most recent results by key, :func:`digest`
makes a key of arrays, numbers and None, :func:`inputs_key` one of what a builder makes
its groups from.  Users: flexmbd/system.py (sparsity pattern, redundant equations),
flexmbd/constraints/joint_types.py (joint groups), flexmbd/forces/spring_damper.py and
flexmbd/forces/loads.py (the index rows and markers of spring-dampers and point forces)."""
from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from .ground import GROUND


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


def inputs_key(elements, system, fields=None) -> tuple | None:
    """What a builder makes its groups from, as a key: the system's layout, and per element
    its type, name, bodies (place in the layout, kind, initial pose) and data (every item,
    or only those named in ``fields``; numbers by their bits, so -0.0 is not 0.0 here); None
    when such an item holds something other than numbers, arrays, text or None."""
    layout = system.__dict__.get("_layout_key")
    if layout is None:      # once per system: every builder's key starts with it
        layout = system._layout_key = (
            system.n, system.n_q, system.offsets.tobytes(), system.config_offsets.tobytes(),
            tuple((k.key, system.ground_offset[k], system.ground_config_offset[k]) for k in system._kind_order),
            tuple(k.key for k in system.kinds))
    meta = [layout]
    values = []         # the numbers, joined into one array (its bytes end the key)
    rotation0 = system._rotation0
    for e in elements:
        meta.append((e.kind, e.name))
        for b in e.bodies:
            if b is GROUND:
                meta.append(None)
            else:
                meta.append((b.index, b.kind.key))
                values += [np.asarray(b.position, dtype=float).ravel(), rotation0[b.index].ravel()]
        items = e.data.items() if fields is None else ((name, e.data[name]) for name in fields)
        for name, value in items:
            if isinstance(value, np.ndarray):
                if value.dtype.kind not in "biuf":
                    return None
                meta.append((name, value.dtype.str, value.shape))
                values.append(value.astype(float).ravel())
            elif isinstance(value, float):      # by its bits
                meta.append((name, float))
                values.append(np.array([value]))
            elif value is None or isinstance(value, (bool, int, str)):
                meta.append((name, type(value), value))
            else:
                return None
    return tuple(meta), (np.concatenate(values) if values else np.zeros(0)).tobytes()
