"""CSV export of named outputs: one row per saved step, a header line, no comments.

Columns: ``t`` then each output; a vector output gets one column per component,
named ``NAME.x``/``.y``/``.z`` for 3-vectors (positions, velocities, reactions…),
``NAME.e0``…``.e3`` for Euler parameters and ``NAME[i]`` otherwise.  Values are
written with 17 significant digits (round-trip exact); units are SI (see
docs/results-and-pictures.md).
"""
from __future__ import annotations

import csv as _csv

import numpy as np


def columns(name, y):
    """Column names and a 2-D array for one output."""
    y = np.asarray(y, dtype=float)
    if y.ndim == 1:
        return [name], y[:, None]
    y = y.reshape(len(y), -1)
    k = y.shape[1]
    if k == 3 and not name.endswith(".multipliers"):
        sub = ["x", "y", "z"]
        return [f"{name}.{s}" for s in sub], y
    if k == 4 and name.endswith(".orientation"):
        return [f"{name}.e{i}" for i in range(4)], y
    return [f"{name}[{i}]" for i in range(k)], y


def write_csv(result, path, names, every=1):
    """Write ``t`` and the named outputs of ``result`` to ``path``; return (rows, columns)."""
    every = max(1, int(every))
    rows = np.arange(0, len(result.t), every)
    if len(result.t) and rows[-1] != len(result.t) - 1:
        rows = np.r_[rows, len(result.t) - 1]
    header, blocks = ["t"], [np.asarray(result.t, dtype=float)[:, None]]
    for nm in names:
        cols, y = columns(nm, result[nm])
        header += cols
        blocks.append(y)
    data = np.concatenate(blocks, axis=1)[rows]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = _csv.writer(fh)
        w.writerow(header)
        for r in data:
            w.writerow([repr(float(x)) for x in r])
    return data.shape
