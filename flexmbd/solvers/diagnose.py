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


def dependent_constraints(system, q: np.ndarray, t: float, tol: float = 1e-9, limit: int = 2000) -> str | None:
    """"… equations are dependent …" when the constraint Jacobian at (q, t) has lower rank
    than it has rows (redundant equations kept, or a singular configuration), naming the
    first dependent equation; None when it has full rank (or more than ``limit`` rows, where
    the dense rank test would cost more than the diagnosis is worth)."""
    m = system.m
    if m == 0 or m > limit:
        return None
    Jq = system.constraint_jacobian(system.extend(q), t, dense=True)
    norms = np.linalg.norm(Jq, axis=1)
    norms[norms == 0.0] = 1.0
    rows = Jq / norms[:, None]
    sv = np.linalg.svd(rows, compute_uv=False)
    rank = int(np.sum(sv > tol * sv[0])) if sv.size else 0
    if rank >= m:
        return None
    # the first row that adds nothing to those before it (Gram-Schmidt in model order)
    basis: list[np.ndarray] = []
    first = None
    for i, r in enumerate(rows):
        res = r.copy()
        for b in basis:
            res -= (res @ b) * b
        nr = np.linalg.norm(res)
        if nr <= 1e-7:
            first = i
            break
        basis.append(res / nr)
    where = f"; the first: {system.describe_row(system.n + first)}" if first is not None else ""
    kept = getattr(system, "redundancy", "remove") == "keep"
    why = ("redundant equations were kept (redundancy: keep): their multipliers are not unique and the "
           "Newton matrix is singular; let flexmbd remove them (redundancy: remove, the default)" if kept else
           "the mechanism is in a singular configuration (a lock-up or bifurcation point)")
    return f"{m - rank} of the {m} constraint equations are dependent at t = {t:.6g} s{where}: {why}"
