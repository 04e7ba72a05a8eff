"""Registry of verification cases: comparisons of flexmbd results with references.

A *case* is a function without arguments that runs a simulation and returns a
list of :class:`Comparison` objects, each built with :func:`compare`::

    from flexmbd.verify import case, compare

    @case("pendulum-small-angle", description="period vs. 2*pi*sqrt(L/g)")
    def pendulum_small_angle():
        period = ...  # computed with flexmbd
        return [compare("pendulum-small-angle", "period", 2.0064, period,
                        unit="s", tolerance=1e-4, source="analytic")]

Case modules live in :mod:`flexmbd.verify.cases` and are imported by
:func:`load_cases`, so that ``flexmbd verify`` sees every registered case.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import asdict, dataclass
from typing import Callable, Iterable

__all__ = [
    "Comparison",
    "CaseInfo",
    "UnknownCaseError",
    "CASES",
    "MODES",
    "compare",
    "case",
    "load_cases",
    "registered_cases",
    "run_cases",
    "selected_cases",
]

#: Comparison modes accepted by :func:`compare`.
MODES = ("rel", "abs", "max", "min")


@dataclass
class Comparison:
    """Outcome of comparing one computed quantity with its reference value.

    ``rel_error`` holds the relative error for mode ``"rel"``, the absolute
    error for mode ``"abs"`` and the signed relative excess over the bound for
    modes ``"max"``/``"min"`` (negative or zero means within the bound).
    """

    case: str
    quantity: str
    reference: float
    value: float
    unit: str
    rel_error: float
    tolerance: float
    passed: bool
    source: str

    def to_dict(self) -> dict:
        """Return the fields as a plain dict (floats may be NaN)."""
        return asdict(self)


@dataclass(frozen=True)
class CaseInfo:
    """A registered verification case."""

    name: str
    func: Callable[[], list]
    slow: bool = False
    description: str = ""


class UnknownCaseError(ValueError):
    """Raised by :func:`run_cases` for case names that are not registered."""

    def __init__(self, unknown: list[str], valid: list[str]):
        self.unknown = list(unknown)
        self.valid = list(valid)
        names = ", ".join(repr(n) for n in self.unknown)
        choices = ", ".join(self.valid) if self.valid else "(none registered)"
        super().__init__(f"unknown case {names}; valid cases: {choices}")


#: All registered cases by name (filled by the :func:`case` decorator).
CASES: dict[str, CaseInfo] = {}


def _as_float(x) -> float:
    """Convert a number (including numpy scalars) to a python float."""
    return float(x)


def compare(
    case: str,
    quantity: str,
    reference: float,
    value: float,
    *,
    unit: str = "",
    tolerance: float,
    source: str,
    mode: str = "rel",
) -> Comparison:
    """Compare ``value`` with ``reference`` and return a :class:`Comparison`.

    Modes:

    ``"rel"``
        ``rel_error = |value - reference| / |reference|`` (``|value|`` when the
        reference is 0); passes if ``rel_error <= tolerance``.
    ``"abs"``
        ``rel_error`` holds ``|value - reference|``; passes if it is
        ``<= tolerance``.
    ``"max"``
        ``value`` is an upper bound check (e.g. Newton iterations <= 4):
        ``rel_error = (value - reference) / |reference|`` (``value`` when the
        reference is 0); passes if ``value <= reference + tolerance*|reference|``
        (i.e. ``reference*(1+tolerance)`` for a positive reference).
    ``"min"``
        ``value`` must be at least ``reference``:
        ``rel_error = (reference - value) / |reference|`` (``-value`` when the
        reference is 0); passes if ``value >= reference - tolerance*|reference|``.

    A NaN value or reference never passes.
    """
    if mode not in MODES:
        raise ValueError(f"unknown comparison mode {mode!r}; expected one of {', '.join(MODES)}")
    ref = _as_float(reference)
    val = _as_float(value)
    tol = _as_float(tolerance)
    if not tol >= 0.0:
        raise ValueError(f"tolerance must be a non-negative number, got {tolerance!r}")

    if mode == "rel":
        err = abs(val - ref) / abs(ref) if ref != 0.0 else abs(val)
        passed = err <= tol
    elif mode == "abs":
        err = abs(val - ref)
        passed = err <= tol
    elif mode == "max":
        err = (val - ref) / abs(ref) if ref != 0.0 else val
        passed = val <= ref + tol * abs(ref)
    else:  # "min"
        err = (ref - val) / abs(ref) if ref != 0.0 else -val
        passed = val >= ref - tol * abs(ref)

    if math.isnan(val) or math.isnan(ref):
        passed = False
    return Comparison(
        case=str(case),
        quantity=str(quantity),
        reference=ref,
        value=val,
        unit=str(unit),
        rel_error=_as_float(err),
        tolerance=tol,
        passed=bool(passed),
        source=str(source),
    )


def case(name: str, *, slow: bool = False, description: str = ""):
    """Decorator registering ``fn() -> list[Comparison]`` as case ``name``.

    ``description`` defaults to the first line of the function's docstring.
    Registering a different function under an existing name is an error.
    """

    def decorator(fn: Callable[[], list]) -> Callable[[], list]:
        existing = CASES.get(name)
        if existing is not None and (
            existing.func.__module__,
            existing.func.__qualname__,
        ) != (fn.__module__, fn.__qualname__):
            raise ValueError(
                f"verification case {name!r} is already registered by "
                f"{existing.func.__module__}.{existing.func.__qualname__}"
            )
        desc = description or (fn.__doc__ or "").strip().split("\n")[0].strip()
        CASES[name] = CaseInfo(name=name, func=fn, slow=bool(slow), description=desc)
        return fn

    return decorator


def load_cases() -> None:
    """Import :mod:`flexmbd.verify.cases`, which registers all case modules.

    Import errors are not caught: a broken case module must surface.
    """
    importlib.import_module("flexmbd.verify.cases")


def registered_cases() -> dict[str, CaseInfo]:
    """Return a copy of all registered cases, loading the case modules first."""
    load_cases()
    return dict(CASES)


def _error(name: str, message: str) -> Comparison:
    """A failed comparison reporting that case ``name`` could not be run."""
    nan = float("nan")
    return Comparison(
        case=name,
        quantity="error",
        reference=nan,
        value=nan,
        unit="",
        rel_error=nan,
        tolerance=nan,
        passed=False,
        source=message,
    )


def _run_one(info: CaseInfo) -> list[Comparison]:
    """Run one case; exceptions and malformed results become failed rows."""
    try:
        result = info.func()
    except Exception as exc:  # noqa: BLE001 - reported as a failed comparison
        return [_error(info.name, f"{type(exc).__name__}: {exc}")]
    if result is None:
        result = []
    try:
        result = list(result)
    except TypeError:
        return [_error(info.name, f"case returned {type(result).__name__}, not a list of Comparison")]
    bad = [r for r in result if not isinstance(r, Comparison)]
    if bad:
        return [_error(info.name, f"case returned a {type(bad[0]).__name__}, not a Comparison")]
    if not result:
        return [_error(info.name, "case returned no comparisons")]
    return result


def selected_cases(names: Iterable[str] | None = None, include_slow: bool = False) -> list[CaseInfo]:
    """Resolve case names to :class:`CaseInfo` objects, in the order given.

    With ``names=None`` all quick cases are chosen (and slow ones too when
    ``include_slow``); explicitly named cases are always chosen, slow or not.
    Raises :class:`UnknownCaseError` (a ``ValueError``) for unknown names.
    """
    cases = registered_cases()
    if names is None:
        return [c for c in cases.values() if include_slow or not c.slow]
    names = list(dict.fromkeys(names))  # drop duplicates, keep order
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise UnknownCaseError(unknown, sorted(cases))
    return [cases[n] for n in names]


def run_cases(names: Iterable[str] | None = None, include_slow: bool = False) -> list[Comparison]:
    """Run the selected cases (see :func:`selected_cases`) and collect results.

    A case that raises (or returns no comparisons) yields one failed
    :class:`Comparison` with quantity ``"error"`` and the message in ``source``.
    """
    results: list[Comparison] = []
    for info in selected_cases(names, include_slow):
        results.extend(_run_one(info))
    return results
