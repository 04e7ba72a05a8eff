"""Parameter specifications and the cases of a study.

``--param PATH=VALUES`` (or ``params={PATH: VALUES}`` in Python); VALUES is one of

* a list ``1e2,1e3,1e4`` or ``full,M1+M2`` (numbers where they read as numbers);
* ``lin:A:B:N`` (N values evenly spaced from A to B), ``log:A:B:N`` (N values evenly
  spaced in log10 from A to B), ``int:A:B`` or ``int:A:B:STEP`` (integers A..B inclusive);
* ``uniform:A:B``, ``loguniform:A:B``: continuous distributions, only with ``--samples``.

The cases are the Cartesian product of the values (``grid``, the default), the values
taken side by side (``zip``: all lists of one length), or N random draws (``samples``:
each parameter drawn independently, uniformly from its list or distribution, with a
seeded generator so the same command gives the same cases).
"""
from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field

import numpy as np


class SweepSpecError(ValueError):
    """A bad ``--param`` specification or combination of options."""


@dataclass
class Param:
    """One swept key path: a list of values, or a distribution (``uniform``/``loguniform``)."""

    path: str
    values: list = field(default_factory=list)
    distribution: tuple | None = None  # ("uniform" | "loguniform", a, b)

    def draw(self, rng: np.random.Generator):
        if self.distribution is None:
            return self.values[int(rng.integers(len(self.values)))]
        kind, a, b = self.distribution
        if kind == "uniform":
            return float(rng.uniform(a, b))
        return float(10 ** rng.uniform(math.log10(a), math.log10(b)))


def parse_scalar(text: str):
    """A value of a list: int, float, true/false, or the text itself."""
    t = str(text).strip()
    if re.fullmatch(r"[+-]?\d+", t):
        return int(t)
    try:
        v = float(t)
    except ValueError:
        pass
    else:
        if math.isfinite(v):
            return v
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return t


def _numbers(path, kind, fields, count):
    if len(fields) not in count:
        raise SweepSpecError(f"--param {path}: {kind}: takes {' or '.join(str(c) for c in count)} numbers "
                             f"separated by ':'")
    try:
        vals = [float(x) for x in fields]
    except ValueError:
        raise SweepSpecError(f"--param {path}: {kind}:{':'.join(fields)}: not numbers") from None
    if not all(math.isfinite(v) for v in vals):
        raise SweepSpecError(f"--param {path}: {kind}: the numbers must be finite")
    return vals


def parse_values(path: str, text) -> Param:
    """A :class:`Param` from the text after ``=`` (or a Python list / array / scalar)."""
    if not isinstance(text, str):
        vals = list(np.atleast_1d(np.asarray(text, dtype=object)).tolist()) if not isinstance(text, (list, tuple)) \
            else list(text)
        if not vals:
            raise SweepSpecError(f"parameter {path}: no values")
        return Param(path, [v.item() if hasattr(v, "item") else v for v in vals])
    text = text.strip()
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    if sep and kind in ("lin", "log", "int", "uniform", "loguniform"):
        fields = rest.split(":")
        if kind == "lin":
            a, b, n = _numbers(path, kind, fields, (3,))
            return Param(path, [float(x) for x in np.linspace(a, b, _count(path, n))])
        if kind == "log":
            a, b, n = _numbers(path, kind, fields, (3,))
            if a <= 0 or b <= 0:
                raise SweepSpecError(f"--param {path}: log:{rest}: the ends of a log range must be > 0")
            return Param(path, [float(x) for x in np.logspace(math.log10(a), math.log10(b), _count(path, n))])
        if kind == "int":
            nums = _numbers(path, kind, fields, (2, 3))
            if any(v != int(v) for v in nums):
                raise SweepSpecError(f"--param {path}: int:{rest}: integers only")
            a, b, step = int(nums[0]), int(nums[1]), int(nums[2]) if len(nums) == 3 else 1
            if step <= 0 or b < a:
                raise SweepSpecError(f"--param {path}: int:{rest}: needs A <= B and a step > 0")
            return Param(path, list(range(a, b + 1, step)))
        a, b = _numbers(path, kind, fields, (2,))
        if kind == "loguniform" and (a <= 0 or b <= 0):
            raise SweepSpecError(f"--param {path}: loguniform:{rest}: the ends must be > 0")
        return Param(path, [], (kind, a, b))
    items = [x for x in text.split(",")]
    if not text or any(not x.strip() for x in items):
        raise SweepSpecError(f"--param {path}={text}: an empty value (write values as 1,2,3)")
    return Param(path, [parse_scalar(x) for x in items])


def _count(path, n):
    if n != int(n) or n < 1:
        raise SweepSpecError(f"--param {path}: the number of values must be a whole number ≥ 1")
    return int(n)


def parse_param(text: str) -> Param:
    """``PATH=VALUES`` as given to ``--param``."""
    path, sep, values = str(text).partition("=")
    if not sep or not path.strip():
        raise SweepSpecError(f"--param {text}: write PATH=VALUES, e.g. forces.sda.k=1e2,1e3,1e4")
    return parse_values(path.strip(), values)


def make_cases(params: list[Param], mode: str = "grid", samples: int | None = None, seed: int = 0) -> list[dict]:
    """The cases: one {path: value} per simulation, in a fixed order."""
    if not params:
        raise SweepSpecError("no parameter to sweep: give --param PATH=VALUES")
    paths = [p.path for p in params]
    if len(set(paths)) != len(paths):
        dup = next(p for p in paths if paths.count(p) > 1)
        raise SweepSpecError(f"--param {dup} is given twice")
    if mode == "samples":
        if not samples or samples < 1:
            raise SweepSpecError("--samples needs a number of cases ≥ 1")
        rng = np.random.default_rng(seed)
        return [{p.path: p.draw(rng) for p in params} for _ in range(samples)]
    dist = next((p for p in params if p.distribution is not None), None)
    if dist is not None:
        raise SweepSpecError(f"--param {dist.path}: {dist.distribution[0]}: draws random values; use it with "
                             "--samples N")
    if mode == "zip":
        n = {len(p.values) for p in params}
        if len(n) > 1:
            sizes = ", ".join(f"{p.path}: {len(p.values)}" for p in params)
            raise SweepSpecError(f"--zip needs the same number of values for every parameter ({sizes})")
        return [dict(zip(paths, vals)) for vals in zip(*(p.values for p in params))]
    if mode != "grid":
        raise SweepSpecError(f"unknown mode {mode!r}: grid, zip or samples")
    return [dict(zip(paths, vals)) for vals in itertools.product(*(p.values for p in params))]


def case_key(values: dict) -> str:
    """The identity of a case in a study table: its parameter values as JSON (so a resumed
    study recognises the cases it has, whatever their order)."""
    return json.dumps({k: values[k] for k in sorted(values)}, sort_keys=True, allow_nan=True)


__all__ = ["Param", "SweepSpecError", "parse_param", "parse_values", "parse_scalar", "make_cases", "case_key"]
