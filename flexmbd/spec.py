"""The vocabulary of element specifications: pydantic field types shared by every element
type, and the one translation of validation errors into messages.

Every element type (``flexmbd.registry``) declares one pydantic model of its input.  The
same model validates a model file's entry (its errors located by key path and line), the
keyword arguments of the Python sugar (``Model.spring_damper(...)``), writes the entry back
(``model.dump``), and gives the JSON Schema (``flexmbd schema``).  So the types here accept
what a file holds (numbers, lists, texts, mappings) and, from Python, also tuples and NumPy
arrays for vectors, body objects for body references, and time-function objects or
callables for functions of time (which a file cannot hold: dumping them is a
:class:`DumpError`).  Units are SI throughout: m, kg, s, rad, N, N m.
"""
from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal, Optional, Union

import numpy as np
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, PlainSerializer,
                      StringConstraints, Tag, ValidationError, WithJsonSchema, model_validator)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from .errors import ModelError
from .expressions import ExpressionError, ExpressionFunction, LawExpression, parse
from .timefunctions import Constant, ConstantSpeed, Polynomial, Ramp, TimeFunction, as_time_function

#: Names of bodies and elements: they become the prefix of output names (``crank.position``).
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_\-]*$"


class DumpError(ValueError):
    """A model holds something a model file cannot express (a Python callable)."""


class SpecBase(BaseModel):
    """Base of every specification: unknown keys are errors (with a "did you mean"),
    numbers must be finite, no silent type conversions (a text is not a number)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_default=False)

    @model_validator(mode="before")
    @classmethod
    def _unknown_keys(cls, data):
        if isinstance(data, dict):
            allowed = list(cls.model_fields)
            for key in data:
                if key not in cls.model_fields:
                    low = {a.lower(): a for a in allowed}
                    close = [low[str(key).lower()]] if str(key).lower() in low else \
                        difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
                    hint = f"; did you mean {close[0]!r}?" if close else f"; allowed keys: {', '.join(allowed)}"
                    raise PydanticCustomError("unknown_key", "unknown key {key!r}{hint}", {"key": str(key), "hint": hint})
        return data


# ------------------------------------------------------------------ vectors


def _as_list(v):
    """Python input: tuples and arrays of numbers become lists (nested for matrices)."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, tuple):
        return [_as_list(x) for x in v]
    if isinstance(v, list):
        return [_as_list(x) if isinstance(x, (tuple, np.ndarray)) else x for x in v]
    if isinstance(v, np.generic) and not isinstance(v, np.bool_):
        return v.item()
    return v


AsList = BeforeValidator(_as_list)


def _nonzero(v):
    with np.errstate(all="ignore"):
        n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise ValueError("zero-length axis: give a non-zero direction")
    if not np.isfinite(n):
        raise ValueError("the axis is too long to normalise (its length overflows); give a direction of moderate length")
    return v


def count(lo, hi, what="numbers"):
    """A before-validator giving one clear message for a list of the wrong length."""

    def check(v):
        v = _as_list(v)
        if isinstance(v, list) and not lo <= len(v) <= hi:
            exp = f"{lo}" if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"
            raise PydanticCustomError("wrong_count", "expected {exp} {what}, got {n}",
                                      {"exp": exp, "what": what, "n": len(v)})
        return v

    return BeforeValidator(check)


Vec3 = Annotated[list[float], Field(min_length=3, max_length=3), count(3, 3)]
Vec2 = Annotated[list[float], Field(min_length=2, max_length=2), count(2, 2)]
Vec4 = Annotated[list[float], Field(min_length=4, max_length=4), count(4, 4)]
Point = Annotated[list[float], Field(min_length=2, max_length=3,
                                     description="global point [m]; two numbers mean z = 0"), count(2, 3)]
Axis = Annotated[Vec3, AfterValidator(_nonzero)]
Mat3 = Annotated[list[Vec3], Field(min_length=3, max_length=3), count(3, 3, "rows")]
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN, max_length=100)]


def point3(v) -> np.ndarray | None:
    """A validated point (2 or 3 numbers) as a 3-vector (z = 0 for two numbers)."""
    if v is None:
        return None
    return np.r_[np.asarray(v, dtype=float), 0.0][:3] if len(v) == 2 else np.asarray(v, dtype=float)


def unit(v) -> np.ndarray:
    """A validated axis, normalised."""
    a = np.asarray(v, dtype=float)
    return a / np.linalg.norm(a)


# ------------------------------------------------------------------ body references


def _body_ref(v):
    if isinstance(v, str):
        if not 1 <= len(v) <= 100:
            raise PydanticCustomError("body_ref", "a body name has 1 to 100 characters")
        return v
    if hasattr(v, "name") and hasattr(v, "index"):   # a body (node) or GROUND
        return v
    raise PydanticCustomError("body_ref", "expected a body name (or \"ground\"), got {what}",
                              {"what": describe(v)})


BodyRef = Annotated[Any, BeforeValidator(_body_ref),
                    PlainSerializer(lambda v: v if isinstance(v, str) else v.name),
                    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": 100,
                                    "description": 'a body name, or "ground"'})]


class PairSpec(SpecBase):
    """Common keys of elements between two bodies."""

    type: str = Field(description="the element type")
    name: Optional[Name] = Field(None, description="unique name (default: the type and a number, e.g. revolute1)")
    body_i: BodyRef = Field(description='first body, or "ground"')
    body_j: BodyRef = Field(description='second body, or "ground"')


# ------------------------------------------------------------------ expressions


def _expression(text):
    try:
        parse(text)
    except ExpressionError as exc:
        raise ValueError(str(exc)) from None
    return text


Expression = Annotated[str, AfterValidator(_expression),
                       Field(description='expression in t [s], e.g. "0.5*sin(2*pi*t)"')]


def _law(text):
    try:
        LawExpression(text)
    except ExpressionError as exc:
        raise ValueError(str(exc)) from None
    return text


LawText = Annotated[str, AfterValidator(_law)]


# ------------------------------------------------------------------ time functions


class ConstantTF(SpecBase):
    """f(t) = value."""

    model_config = ConfigDict(title="Time function: constant")

    type: Literal["constant"]
    value: float = Field(description="the constant value (unit of the field)")


class ConstantSpeedTF(SpecBase):
    """f(t) = offset + speed·t."""

    model_config = ConfigDict(title="Time function: constant_speed")

    type: Literal["constant_speed"]
    speed: float = Field(description="rate (unit of the field per s)")
    offset: float = Field(0.0, description="value at t = 0 (unit of the field)")


class PolynomialTF(SpecBase):
    """f(t) = Σ c_k t^k."""

    model_config = ConfigDict(title="Time function: polynomial")

    type: Literal["polynomial"]
    coefficients: list[float] = Field(min_length=1, max_length=20,
                                      description="c_0, c_1, ... in increasing order of the power of t")


class RampTF(SpecBase):
    """Smooth quintic ramp from 0 at t = 0 to ``value`` at t = ``duration`` (zero end rates)."""

    model_config = ConfigDict(title="Time function: ramp")

    type: Literal["ramp"]
    value: float = Field(description="final value (unit of the field)")
    duration: float = Field(gt=0, description="ramp time [s]")


TF_TYPES = {"constant": ConstantTF, "constant_speed": ConstantSpeedTF, "polynomial": PolynomialTF, "ramp": RampTF}


def _tf_tag(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return "<number>"
    if isinstance(v, str):
        return "<expression>"
    if isinstance(v, dict):
        t = v.get("type")
        return f"<{t}>" if isinstance(t, str) and t in TF_TYPES else None
    if isinstance(v, BaseModel):
        return f"<{v.type}>"
    if isinstance(v, TimeFunction) or callable(v):
        return "<python>"
    return None


def tf_to_data(v):
    """A time-function value as model-file data (DumpError for Python callables)."""
    if v is None or isinstance(v, (int, float, str)):
        return v
    if isinstance(v, BaseModel):
        return v.model_dump()
    if isinstance(v, Constant):
        return float(v.value)
    if isinstance(v, ExpressionFunction):
        return v.text
    if isinstance(v, ConstantSpeed):
        return {"type": "constant_speed", "speed": float(v.speed), "offset": float(v.offset)}
    if isinstance(v, Polynomial):
        return {"type": "polynomial", "coefficients": [float(c) for c in v.coefficients]}
    if isinstance(v, Ramp):
        return {"type": "ramp", "value": float(v.value), "duration": float(v.duration)}
    raise DumpError(f"a {type(v).__name__} (Python callable) cannot be written to a model file; "
                    "use a number, an expression string, or Constant/ConstantSpeed/Polynomial/Ramp")


TimeFunctionSpec = Annotated[
    Union[Annotated[float, Tag("<number>")], Annotated[Expression, Tag("<expression>")],
          Annotated[ConstantTF, Tag("<constant>")], Annotated[ConstantSpeedTF, Tag("<constant_speed>")],
          Annotated[PolynomialTF, Tag("<polynomial>")], Annotated[RampTF, Tag("<ramp>")],
          SkipJsonSchema[Annotated[Any, Tag("<python>")]]],
    Discriminator(_tf_tag, custom_error_type="time_function",
                  custom_error_message="expected a number, an expression in t, or a mapping with "
                                       "type: constant | constant_speed | polynomial | ramp"),
    PlainSerializer(tf_to_data),
]


def is_time_function_field(field) -> bool:
    """True for a specification field that holds a function of time (TimeFunctionSpec)."""
    def walk(metadata, annotation):
        if any(getattr(m, "custom_error_type", None) == "time_function" for m in metadata):
            return True
        extra = getattr(annotation, "__metadata__", ())
        return any(walk(extra, a) for a in getattr(annotation, "__args__", ())) or (
            bool(extra) and walk(extra, getattr(annotation, "__origin__", None)))
    return walk(field.metadata, field.annotation)


def time_function(v) -> TimeFunction | None:
    """The :class:`~flexmbd.timefunctions.TimeFunction` of a validated time-function value."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError("a boolean is not a function of time")
    if isinstance(v, (int, float)):
        return Constant(float(v))
    if isinstance(v, str):
        return ExpressionFunction(v)
    if isinstance(v, ConstantTF):
        return Constant(v.value)
    if isinstance(v, ConstantSpeedTF):
        return ConstantSpeed(v.speed, v.offset)
    if isinstance(v, PolynomialTF):
        return Polynomial(tuple(v.coefficients))
    if isinstance(v, RampTF):
        return Ramp(v.value, v.duration)
    return as_time_function(v)


def _law_tag(v):
    if isinstance(v, str):
        return "<expression>"
    return "<python>" if callable(v) else None


def _law_to_data(v):
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, LawExpression):
        return v.text
    raise DumpError("a Python law callable cannot be written to a model file; use an expression in delta and rate")


LawSpec = Annotated[
    Union[Annotated[LawText, Tag("<expression>")], SkipJsonSchema[Annotated[Any, Tag("<python>")]]],
    Discriminator(_law_tag, custom_error_type="law",
                  custom_error_message="expected an expression in delta and rate (or, from Python, a callable "
                                       "law(delta, rate))"),
    PlainSerializer(_law_to_data),
]


def law_function(v):
    """The callable law(δ, δ') of a validated law value (expressions compiled)."""
    if v is None or callable(v):
        return v
    return LawExpression(v)


# ------------------------------------------------------------------ inertia


def _inertia_tag(v):
    v = _as_list(v)
    if isinstance(v, list):
        return "<tensor>" if v and all(isinstance(r, list) for r in v) else "<principal>"
    return None


Inertia = Annotated[
    Union[Annotated[Vec3, Tag("<principal>")], Annotated[Mat3, Tag("<tensor>")]],
    Discriminator(_inertia_tag, custom_error_type="inertia",
                  custom_error_message="expected 3 principal moments [kg m²] or a 3×3 tensor"),
    BeforeValidator(_as_list),
]


def check_inertia(J) -> np.ndarray:
    """Symmetric, positive definite and satisfying the triangle inequality, or ValueError."""
    with np.errstate(all="ignore"):
        return _check_inertia(J)


def _check_inertia(J):
    J = np.array(J, dtype=float)
    if J.ndim == 1:
        J = np.diag(J)
    scale = max(float(np.abs(J).max()), 1e-300)
    if not np.allclose(J, J.T, rtol=1e-12, atol=1e-14 * scale):
        raise ValueError("the inertia tensor must be symmetric")
    ev = np.linalg.eigvalsh(J)
    if ev[0] <= 0:
        raise ValueError(f"inertia must be positive definite (principal moments {_fmt(ev)} kg m²)")
    if ev[0] + ev[1] < ev[2] * (1 - 1e-9):
        raise ValueError(f"principal moments {_fmt(ev)} kg m² violate the triangle inequality I1 + I2 ≥ I3")
    return J


def _fmt(v):
    return "[" + ", ".join(f"{x:.6g}" for x in v) + "]"


# ------------------------------------------------------------------ messages

#: custom union errors: error type → (what it is, the choices); element sections are added
#: by the registry (``joint_type`` …)
UNION_ERRORS: dict[str, tuple[str, Any]] = {"time_function": ("time function", TF_TYPES)}
#: the key that selects the union member, where it is not ``type``
UNION_KEYS: dict[str, str] = {}
#: error types whose context carries the ``key`` of the offending field
KEYED_ERRORS = {"section_value", "no_bodies", "solver_h"}


def describe(v) -> str:
    """How a value reads in a message: "the number 3", "a mapping", …"""
    if v is None:
        return "nothing (null)"
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the text {v[:60]!r}"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return f"a {type(v).__name__}"


def did_you_mean(word, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _loc_to_path(loc, data):
    path, cur = [], data
    for el in loc:
        if isinstance(el, str) and (el.startswith("<") or "[" in el or el in ("int", "float", "str", "bool")):
            continue
        if isinstance(cur, dict) and el in cur:
            path.append(el)
            cur = cur[el]
        elif isinstance(cur, list) and isinstance(el, int) and 0 <= el < len(cur):
            path.append(el)
            cur = cur[el]
        else:
            path.append(el)
            cur = None
    return tuple(path)


def error_message(err: dict, data) -> tuple[tuple, str]:
    """(key path, message) of one pydantic error, in the terms of the input ``data``."""
    typ, ctx, inp = err["type"], err.get("ctx") or {}, err.get("input")
    path = _loc_to_path(err["loc"], data)
    msg = err["msg"]
    if typ == "unknown_key":
        return path + (ctx["key"],), f"unknown key {ctx['key']!r}{ctx['hint']}"
    if typ in UNION_ERRORS:
        what, choices = UNION_ERRORS[typ]
        if isinstance(inp, dict):
            tk = UNION_KEYS.get(typ, "type")
            if tk not in inp:
                return path, f"missing key {tk!r} (one of: {', '.join(choices)})"
            kind = "" if tk != "type" else " type"
            return path + (tk,), (f"unknown {what}{kind} {inp[tk]!r}{did_you_mean(inp[tk], choices)} "
                                  f"(one of: {', '.join(choices)})")
        return path, f"{msg}; got {describe(inp)}"
    if typ in ("inertia", "refresh", "shear_factor", "law"):
        return path, f"{msg}; got {describe(inp)}"
    if typ in KEYED_ERRORS:
        return path + (ctx["key"],), msg
    if typ in ("value_error", "assertion_error"):
        m = msg.split(", ", 1)[1] if msg.startswith(("Value error, ", "Assertion failed, ")) else msg
        return path, m
    if typ == "missing":
        return path, f"missing required key {path[-1]!r}" if path else "missing"
    if typ in ("wrong_count", "body_ref"):
        return path, msg
    if typ in ("too_short", "too_long"):
        n = len(inp) if hasattr(inp, "__len__") else "?"
        if typ == "too_short" and path == ("bodies",):
            return path, "the model needs at least one body"
        return path, f"expected {_expected_length(err, path)}, got {n}"
    if typ in ("float_type", "float_parsing"):
        return path, f"expected a number, got {describe(inp)}"
    if typ in ("int_type", "int_parsing", "int_from_float"):
        return path, f"expected a whole number, got {describe(inp)}"
    if typ == "finite_number":
        return path, f"expected a finite number, got {inp!r}"
    if typ in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        sym = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<", "less_than_equal": "≤"}[typ]
        bound = next(iter(ctx.values()))
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return path, f"must be {sym} {bound}, got {inp!r}"
    if typ == "literal_error":
        choices = re.findall(r"'([^']*)'|(\d+)", ctx.get("expected", ""))
        choices = [a or b for a, b in choices]
        hint = did_you_mean(inp, choices) if isinstance(inp, str) else ""
        return path, f"expected {ctx.get('expected', '?')}, got {describe(inp)}{hint}"
    if typ == "string_pattern_mismatch":
        if path and path[-2:-1] == ("outputs",) or (len(path) >= 2 and path[-2] == "outputs"):
            return path, f"{inp!r} is not an output name such as slider.position or sda.force"
        return path, (f"{inp!r} is not a valid name: use letters, digits, _ and -, "
                      "starting with a letter or _")
    if typ in ("string_type",):
        return path, f"expected a text, got {describe(inp)}"
    if typ in ("bool_type", "bool_parsing"):
        return path, f"expected true or false, got {describe(inp)}"
    if typ in ("list_type", "tuple_type"):
        return path, f"expected a list, got {describe(inp)}"
    if typ in ("model_type", "model_attributes_type", "dict_type"):
        return path, f"expected a mapping (key: value), got {describe(inp)}"
    if typ == "string_too_long":
        return path, f"text is too long (at most {ctx.get('max_length')} characters)"
    if typ == "string_too_short":
        return path, "must not be empty"
    return path, msg


def _expected_length(err, path):
    ctx = err.get("ctx") or {}
    lo, hi = ctx.get("min_length"), ctx.get("max_length")
    field_ = next((p for p in reversed(path) if isinstance(p, str)), "")
    what = "numbers" if field_ not in ("bodies", "joints", "drivers", "forces", "outputs", "beams", "markers") \
        else "entries"
    if field_ in ("matrix", "inertia") and (lo == hi == 3):
        what = "rows (or numbers)"
    if lo is not None and hi is not None and lo == hi:
        return f"{lo} {what}"
    if lo is not None and hi is not None:
        return f"{lo} to {hi} {what}"
    if lo is not None:
        return f"at least {lo} {what}"
    return f"at most {hi} {what}"


def format_key(path) -> str:
    """A key path as text: ``bodies[2].mass``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def validate(spec_class: type[SpecBase], data: dict, what: str) -> SpecBase:
    """``spec_class`` validated from keyword data; a ModelError "<what> <key>: <message>"
    (with ``key``) for the first problem."""
    try:
        return spec_class.model_validate(data)
    except ValidationError as exc:
        path, msg = error_message(exc.errors()[0], data)
        key = format_key(path)
        raise ModelError(f"{what} {key}: {msg}" if key else f"{what}: {msg}", key=path or None) from None


__all__ = ["SpecBase", "PairSpec", "DumpError", "Vec3", "Vec2", "Vec4", "Point", "Axis", "Mat3", "Name", "BodyRef", "Expression",
           "LawText", "LawSpec", "TimeFunctionSpec", "is_time_function_field", "Inertia", "ConstantTF", "ConstantSpeedTF", "PolynomialTF",
           "RampTF", "TF_TYPES", "time_function", "tf_to_data", "law_function", "check_inertia", "point3", "unit",
           "count", "error_message", "describe", "did_you_mean", "format_key", "validate", "UNION_ERRORS",
           "UNION_KEYS", "NAME_PATTERN"]
