"""Why a step failed, when the cause is an input rather than the mechanics.

A function of time that returns NaN or infinity (a user callable, a table read past its
end) makes the residual not finite, and Newton then reports a residual that is not
finite or a singular matrix, which points at the mechanics.  When a step fails, the
solvers ask :func:`nonfinite_time_function` for the element and the function at fault,
and say that instead.
"""
from __future__ import annotations

import math

import numpy as np

from ..timefunctions import TimeFunction

DERIVATIVES = ("value", "first derivative", "second derivative")


def nonfinite_time_function(model, t: float) -> str | None:
    """"<kind> '<name>': its <key>(t) ... at t = T s" for the first element whose function
    of time is not a finite number (or raises) at ``t``; None when all are finite."""
    for e in getattr(model, "elements", ()):
        for key, fun in (getattr(e, "data", None) or {}).items():
            if not isinstance(fun, TimeFunction):
                continue
            with np.errstate(all="ignore"):
                try:
                    values = fun.derivatives(float(t))
                except Exception as exc:  # noqa: BLE001 - reported, with the element and time
                    return (f"{e.kind} {e.name!r}: its {_user_key(e, key)}(t) cannot be evaluated at t = {t:.6g} s "
                            f"({type(exc).__name__}: {exc})")
            key = _user_key(e, key)
            for what, v in zip(DERIVATIVES, values):
                try:
                    ok = math.isfinite(float(v))
                except (TypeError, ValueError):
                    ok = False
                if not ok:
                    return f"{e.kind} {e.name!r}: the {what} of its {key}(t) is {v} at t = {t:.6g} s"
    return None


def _user_key(element, key: str) -> str:
    """The name the user gave the function (the element's input key: a driver's
    ``angle``), where the built element keeps it under another (``function``)."""
    spec = getattr(element, "spec", None)
    fields = getattr(type(spec), "model_fields", {}) if spec is not None else {}
    if key in fields:
        return key
    from ..spec import is_time_function_field

    given = [k for k, f in fields.items() if is_time_function_field(f) and getattr(spec, k, None) is not None]
    return given[0] if len(given) == 1 else key


__all__ = ["nonfinite_time_function"]
