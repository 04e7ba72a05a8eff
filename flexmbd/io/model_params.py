"""Parameters and expressions in model files.

A model file may start with a ``parameters:`` mapping of named numbers, each a number or
an expression of the parameters before it (evaluated in order by the safe parser of
:mod:`flexmbd.expressions`; never ``eval``)::

    parameters:
      m: 0.5
      L: 0.3
      J: m*L**2/12

and any number of the file (in bodies, beams, joints, drivers, forces, markers, gravity,
solver, …) may then be a string expression of the parameters: ``mass: m``,
``inertia: [J, 0.01, J]``, ``position: [0, L/2, 0]``.  Which values are numbers is read
from the schema (the pydantic specifications of :mod:`.model_schema`), never guessed from
the text: names, types and outputs stay strings, and so do functions of time
(``angle: "2*pi*t"``) and spring-damper laws, in which parameters are replaced by their
values (``"omega*t"`` becomes ``"(6.0 * t)"``).

:func:`resolve` turns the file's data (as read) into the data that is validated; the
data as read keeps the expressions, so writing it back (``LoadedModel.file_data()``)
gives the file as written, and ``LoadedModel.file_data(resolved=True)`` the same model
with numbers only.
"""
from __future__ import annotations

import ast
import copy
import difflib
import keyword
import math
import re
import types
import typing
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Discriminator, Tag

from ..expressions import (
    CONSTANTS,
    FUNCTIONS,
    ExpressionError,
    compile_tree,
    parse,
    to_text,
)

#: Names a parameter cannot take: the constants, the functions, and the variables of
#: functions of time (t) and of spring-damper laws (delta, rate).
RESERVED = {**{c: "a constant" for c in CONSTANTS}, **{f: "a function" for f in FUNCTIONS},
            "t": "the time variable of functions of time", "delta": "a variable of spring-damper laws",
            "rate": "a variable of spring-damper laws"}

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ParameterError(ValueError):
    """A bad parameter or expression: ``path`` is the key path of the value."""

    def __init__(self, message, path):
        super().__init__(message)
        self.message = message
        self.path = tuple(path)


# ------------------------------------------------------------------ evaluation


def _names(text):
    """The names an expression text uses (None if it does not parse: the parser says why)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]


def _unknown(name, params, later=()):
    if later and name == later[0]:
        return f"parameter {name!r} refers to itself"
    if name in later:
        return f"unknown name {name!r} (parameter {name!r} is defined later; parameters are evaluated in order)"
    close = difflib.get_close_matches(name, [*params, *CONSTANTS], n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else \
        (f" (parameters: {', '.join(params)})" if params else " (the file has no parameters: section)")
    return f"unknown name {name!r}{hint}"


def evaluate(text, params: dict, path=(), later=()) -> float:
    """The value of an expression of the parameters ``params`` ({name: value})."""
    names = _names(text)
    for name in names or ():
        if name not in params and name not in CONSTANTS and name not in FUNCTIONS:
            raise ParameterError(_unknown(name, params, later), path)
    variables = tuple(params)
    try:
        tree = parse(text, variables=variables or ("_",))
        value = compile_tree(tree, variables or ("_",))(*(params.values() if variables else (0.0,)))
        value = float(value)
    except ExpressionError as exc:
        msg = str(exc).replace("(variables: _)", "(no parameters)").replace("(variables: ", "(parameters: ")
        raise ParameterError(msg, path) from None
    except (ArithmeticError, ValueError) as exc:
        reason = {"math domain error": "outside a function's domain", "float division by zero": "division by zero",
                  "math range error": "overflow"}.get(str(exc), str(exc))
        raise ParameterError(f"{text!r} cannot be evaluated ({reason})", path) from None
    if not math.isfinite(value):
        raise ParameterError(f"{text!r} is not finite", path)
    return value


def evaluate_parameters(raw) -> dict:
    """{name: value} of a ``parameters:`` mapping, evaluated in order."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ParameterError(f"parameters is a mapping of names to numbers or expressions, got "
                             f"{type(raw).__name__}", ("parameters",))
    out = {}
    keys = list(raw)
    for i, (name, v) in enumerate(raw.items()):
        path = ("parameters", name)
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or keyword.iskeyword(name):
            raise ParameterError(f"parameter name {name!r} is not a name: use letters, digits and _ "
                                 "(not starting with a digit)", path)
        if name in RESERVED:
            raise ParameterError(f"parameter name {name!r} is {RESERVED[name]}; choose another name", path)
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ParameterError(f"a parameter is a number or an expression of the parameters before it, got "
                                 f"{type(v).__name__}", path)
        if isinstance(v, str):
            v = evaluate(v, out, path, later=keys[i:])
        elif not math.isfinite(float(v)):
            raise ParameterError("parameters must be finite", path)
        out[name] = float(v)
    return out


def substitute(text, params: dict, variables=("t",)) -> str:
    """An expression in ``variables`` with the parameters replaced by their values; the
    text unchanged when it uses none (or does not parse: the validator says why)."""
    names = _names(text)
    if not names or not any(n in params for n in names):
        return text
    try:
        tree = parse(text, variables=tuple(variables) + tuple(params))
    except ExpressionError:
        return text

    def sub(n):
        if n[0] == "var":
            return ("num", params[n[1]]) if n[1] in params else n
        if n[0] in ("num",):
            return n
        if n[0] == "call":
            return (n[0], n[1], sub(n[2]))
        return (n[0], *(sub(c) for c in n[1:]))

    return to_text(sub(tree))


# ------------------------------------------------------------------ the schema walk


def _meta_base(ann):
    """(base type, metadata) of an annotation, Annotated layers flattened."""
    meta = []
    while typing.get_origin(ann) is Annotated:
        args = typing.get_args(ann)
        ann, meta = args[0], list(args[1:]) + meta
    return ann, meta


def _is_union(ann):
    return typing.get_origin(ann) in (Union, types.UnionType)


def _is_number(ann):
    base, _ = _meta_base(ann)
    return base in (float, int)


def _accepts_string(ann, value):
    base, _ = _meta_base(ann)
    if base is str or base is Any:
        return True
    if typing.get_origin(base) is Literal:
        return value in typing.get_args(base)
    if _is_union(base):
        return any(_accepts_string(a, value) for a in typing.get_args(base))
    return False


class _Resolver:
    def __init__(self, params, lenient=False):
        self.params = params
        #: a file without parameters: a text that is no expression is left to the validator
        #: ("expected a number")
        self.lenient = lenient

    def number(self, value, ann, path):
        try:
            v = evaluate(value, self.params, path)
        except ParameterError:
            if self.lenient:
                return value
            raise
        base, _ = _meta_base(ann)
        if base is int:
            if not v.is_integer():
                raise ParameterError(f"{value!r} = {v!r} is not a whole number", path)
            return int(v)
        return v

    def check_names(self, text, variables, path):
        """An unknown name in a function of time or a law, with the parameters among the
        suggestions."""
        for name in _names(text) or ():
            if name in variables or name in self.params or name in CONSTANTS or name in FUNCTIONS:
                continue
            close = difflib.get_close_matches(name, [*variables, *self.params, *CONSTANTS], n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ParameterError(f"{text!r}: unknown name {name!r} (variables: {', '.join(variables)}; parameters: "
                                 f"{', '.join(self.params) or 'none'}){hint}", path)

    def walk(self, value, ann, path, meta=()):
        base, more = _meta_base(ann)
        meta = list(meta) + more
        disc = next((m for m in meta if isinstance(m, Discriminator)), None)
        if _is_union(base):
            members = [a for a in typing.get_args(base) if a is not type(None)]
            if disc is not None and callable(disc.discriminator):
                return self.tagged(value, members, disc, path)
            if disc is not None and isinstance(disc.discriminator, str) and isinstance(value, dict):
                chosen = _by_field(members, disc.discriminator, value.get(disc.discriminator))
                return self.walk(value, chosen, path) if chosen is not None else value
            if value is None:
                return value
            if len(members) == 1:  # Optional[X]
                return self.walk(value, members[0], path)
            if isinstance(value, str):
                if not any(_accepts_string(a, value) for a in members) and any(_is_number(a) for a in members):
                    return self.number(value, next(a for a in members if _is_number(a)), path)
                return value
            for a in members:
                b, _ = _meta_base(a)
                if (isinstance(value, list) and typing.get_origin(b) in (list, tuple)) or \
                        (isinstance(value, dict) and isinstance(b, type) and issubclass(b, BaseModel)) or \
                        (isinstance(value, dict) and _is_union(b)):           # a union of models (shapes)
                    return self.walk(value, a, path)
            return value
        if base in (float, int):
            return self.number(value, base, path) if isinstance(value, str) else value
        origin = typing.get_origin(base)
        if origin in (list, tuple) and isinstance(value, list):
            args = typing.get_args(base)
            if not args:
                return value
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                return [self.walk(x, args[i], path + (i,)) if i < len(args) else x for i, x in enumerate(value)]
            return [self.walk(x, args[0], path + (i,)) for i, x in enumerate(value)]
        if isinstance(base, type) and issubclass(base, BaseModel) and isinstance(value, dict):
            out = {}
            for k, v in value.items():
                f = base.model_fields.get(k) if isinstance(k, str) else None
                out[k] = v if f is None else self.walk(v, f.annotation, path + (k,), f.metadata)
            return out
        return value

    def tagged(self, value, members, disc, path):
        by_tag = {}
        for a in members:
            _, meta = _meta_base(a)
            tag = next((m.tag for m in meta if isinstance(m, Tag)), None)
            if tag is not None:
                by_tag[tag] = a
        kind = getattr(disc, "custom_error_type", None)
        try:
            tag = disc.discriminator(value)
        except Exception:  # noqa: BLE001 - the validator reports the value
            return value
        chosen = by_tag.get(tag)
        if isinstance(value, str):
            if kind in ("time_function", "law") and tag == "<expression>":
                variables = ("t",) if kind == "time_function" else ("delta", "rate")
                if not self.lenient:
                    self.check_names(value, variables, path)
                return substitute(value, self.params, variables)
            if chosen is None or not _accepts_string(chosen, value):
                numeric = [a for a in members if _is_number(a)]
                if numeric:
                    return self.number(value, numeric[0], path)
            return value
        if chosen is None:
            return value
        return self.walk(value, chosen, path)


def _by_field(members, field, tag):
    """The model among ``members`` whose Literal ``field`` admits ``tag`` (a union
    discriminated by a field name, e.g. the shapes by ``type``)."""
    for a in members:
        b, _ = _meta_base(a)
        f = b.model_fields.get(field) if isinstance(b, type) and issubclass(b, BaseModel) else None
        if f is not None and typing.get_origin(_meta_base(f.annotation)[0]) is Literal \
                and tag in typing.get_args(_meta_base(f.annotation)[0]):
            return a
    return None


def resolve(data: dict, model_class) -> tuple[dict, dict]:
    """(resolved copy of ``data``, {parameter: value}): every string in a numeric position
    of ``model_class`` (the model-file schema) replaced by its value, parameters replaced
    by their values in functions of time and laws, ``parameters`` holding the values.
    Raises :class:`ParameterError` with the key path of the bad value."""
    params = evaluate_parameters(data.get("parameters"))
    body = {k: v for k, v in data.items() if k != "parameters"}
    body = _Resolver(params, lenient="parameters" not in data).walk(copy.deepcopy(body), model_class, ())
    out = {k: (dict(params) if k == "parameters" else body[k]) for k in data}
    return out, params


__all__ = ["RESERVED", "ParameterError", "evaluate", "evaluate_parameters", "resolve", "substitute"]
