"""Model files (YAML or JSON): read, validate, check, build a :class:`~flexmbd.Model`.

    loaded = load_model_file("slider_crank.yaml")       # or load_model_text(text)
    system = loaded.freeze()                             # redundancy warnings mapped to keys
    res = loaded.model.simulate(settings=loaded.simulate_settings(), system=system)

Every problem is raised as one :class:`ModelFileError` naming the file, the line and the
key path (``bodies[2].inertia``); problems the engine finds later (a ModelError while
freezing, an initial configuration that cannot be assembled) are mapped back to the
element they name.  Warnings (redundant constraints removed, bodies moved by the
assembly) are :class:`ModelFileWarning` with the same location information.

:func:`model_to_dict` goes the other way, from a Python-built Model to the file format
(``flexmbd example NAME --dump``).  The format itself is documented in
docs/model-format.md and defined by :mod:`.model_schema`.
"""
from __future__ import annotations

import difflib
import json
import math
import pathlib
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import yaml
from pydantic import ValidationError

from ..model import Model, ModelError
from ..rotations import quaternion_from_axis_angle
from ..solvers.settings import DynamicSettings, StaticSettings
from ..timefunctions import Constant, ConstantSpeed, Polynomial, Ramp
from . import model_schema as S
from .expressions import ExpressionError, ExpressionFunction, LawExpression

#: Largest model file read, and largest number of values after expanding YAML aliases.
MAX_FILE_BYTES = 20_000_000
MAX_NODES = 2_000_000
#: Body moved more than this by the initial assembly [m] → a warning.
ASSEMBLY_WARN = 1e-6


# ================================================================= errors


class ModelFileError(ValueError):
    """A problem with a model file, located by file, line and key path."""

    def __init__(self, message, path=(), line=None, file=None, origin=None):
        self.message = " ".join(str(message).split())
        self.path = tuple(path)
        self.line = line
        self.file = file
        self.origin = origin  # e.g. "--h" when the value came from the command line
        super().__init__(self.__str__())

    @property
    def key(self) -> str:
        return format_path(self.path)

    def location(self) -> str:
        if self.origin:
            return f"{self.origin}"
        loc = self.file or "<model>"
        if self.line is not None:
            loc += f":{self.line}"
        return loc

    def __str__(self):
        key = f" {self.key}:" if self.path else ""
        return f"{self.location()}:{key} {self.message}"


@dataclass
class ModelFileWarning:
    message: str
    path: tuple = ()
    line: int | None = None
    file: str | None = None

    def __str__(self):
        loc = (self.file or "<model>") + (f":{self.line}" if self.line is not None else "")
        key = f" {format_path(self.path)}:" if self.path else ""
        return f"{loc}: warning:{key} {' '.join(self.message.split())}"


def format_path(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


# ================================================================= reading


class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads 2e4 and 1E-7 as numbers (YAML 1.2 floats)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                  |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                  |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
                  |[-+]?\.(?:inf|Inf|INF)
                  |\.(?:nan|NaN|NAN))$""", re.X),
    list("-+0123456789."))


def _line_map(root, file):
    """{key path: 1-based line} for every mapping key and sequence item; checks duplicate
    keys, recursive aliases and the expanded size."""
    lines = {(): root.start_mark.line + 1}
    sizes = {}
    stack = set()

    def walk(node, path):
        nid = id(node)
        if nid in stack:
            raise ModelFileError("recursive YAML alias", path, node.start_mark.line + 1, file)
        if nid in sizes and path in lines:
            return sizes[nid]
        stack.add(nid)
        size = 1
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for k, v in node.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else None
                if key is not None:
                    if key in seen and key != "<<":
                        raise ModelFileError(f"duplicate key {key!r} (first on line {seen[key]})", path + (key,),
                                             k.start_mark.line + 1, file)
                    seen[key] = k.start_mark.line + 1
                    lines.setdefault(path + (key,), k.start_mark.line + 1)
                size += walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                lines.setdefault(path + (i,), v.start_mark.line + 1)
                size += walk(v, path + (i,))
        stack.discard(nid)
        sizes[nid] = size
        if size > MAX_NODES:
            raise ModelFileError(f"the file holds more than {MAX_NODES} values (after expanding aliases)",
                                 path, node.start_mark.line + 1, file)
        return size

    walk(root, ())
    return lines


def parse_text(text: str, file: str | None = None, fmt: str | None = None):
    """(data, lines) of a YAML or JSON model text; ``fmt`` 'yaml' | 'json' | None (guess)."""
    if fmt is None:
        if file:
            fmt = "json" if file.lower().endswith(".json") else "yaml"
        else:
            fmt = "json" if text.lstrip().startswith("{") else "yaml"
    lines = {}
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelFileError(f"not valid JSON: {exc.msg} (column {exc.colno})", (), exc.lineno, file) from None
        except RecursionError:
            raise ModelFileError("not valid JSON: nested too deeply", (), None, file) from None
        try:
            node = yaml.compose(text, Loader=_Loader)
            if node is not None:
                lines = _line_map(node, file)
        except ModelFileError as exc:
            if "duplicate key" in exc.message:
                raise
        except (yaml.YAMLError, RecursionError):
            lines = {}
        return data, lines
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ModelFileError("the file is empty", (), None, file)
        lines = _line_map(node, file)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(filter(None, [exc.context, exc.problem]))
        raise ModelFileError(f"not valid YAML: {what}", (), mark.line + 1 if mark else None, file) from None
    except yaml.YAMLError as exc:
        raise ModelFileError(f"not valid YAML: {exc}", (), None, file) from None
    except RecursionError:
        raise ModelFileError("not valid YAML: nested too deeply", (), None, file) from None
    finally:
        loader.dispose()
    return data, lines


def read_file(path) -> str:
    p = pathlib.Path(path)
    try:
        if p.is_dir():
            raise ModelFileError("is a directory, not a model file", (), None, str(path))
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ModelFileError(f"larger than {MAX_FILE_BYTES // 1_000_000} MB", (), None, str(path))
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError("no such file", (), None, str(path)) from None
    except UnicodeDecodeError:
        raise ModelFileError("not a text file (it is not UTF-8)", (), None, str(path)) from None
    except OSError as exc:
        raise ModelFileError(f"cannot be read: {exc.strerror or exc}", (), None, str(path)) from None


# ================================================================= validation

_UNION_ERRORS = {"joint_type": ("joint", S.JOINT_TYPES), "driver_type": ("driver", S.DRIVER_TYPES),
                 "force_type": ("force element", S.FORCE_TYPES), "body_type": ("body", ("rigid", "planar")),
                 "integrator_type": ("integrator", S.INTEGRATOR_TYPES), "time_function": ("time function", S.TF_TYPES),
                 "section_shape": ("section shape", S.SECTION_SHAPES), "analysis": ("analysis", ("dynamic", "static"))}
_UNION_KEYS = {"section_shape": "shape", "analysis": "analysis"}


def _describe(v) -> str:
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


def _did_you_mean(word, choices):
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


def _error_message(err, data):
    """(path, message) of one pydantic error, in the file's terms."""
    typ, ctx, inp = err["type"], err.get("ctx") or {}, err.get("input")
    path = _loc_to_path(err["loc"], data)
    msg = err["msg"]
    if typ == "unknown_key":
        return path + (ctx["key"],), f"unknown key {ctx['key']!r}{ctx['hint']}"
    if typ in _UNION_ERRORS:
        what, choices = _UNION_ERRORS[typ]
        if isinstance(inp, dict):
            tk = _UNION_KEYS.get(typ, "type")
            if tk not in inp:
                return path, f"missing key {tk!r} (one of: {', '.join(choices)})"
            kind = "" if tk != "type" else " type"
            return path + (tk,), (f"unknown {what}{kind} {inp[tk]!r}{_did_you_mean(inp[tk], choices)} "
                                  f"(one of: {', '.join(choices)})")
        return path, f"{msg}; got {_describe(inp)}"
    if typ in ("inertia", "refresh", "shear_factor"):
        return path, f"{msg}; got {_describe(inp)}"
    if typ in ("solver_h", "section_value", "no_bodies"):
        return path + (ctx["key"],), msg
    if typ in ("value_error", "assertion_error"):
        m = msg.split(", ", 1)[1] if msg.startswith(("Value error, ", "Assertion failed, ")) else msg
        return path, m
    if typ == "missing":
        return path, f"missing required key {path[-1]!r}" if path else "missing"
    if typ == "wrong_count":
        return path, msg
    if typ in ("too_short", "too_long"):
        n = len(inp) if hasattr(inp, "__len__") else "?"
        if typ == "too_short" and path == ("bodies",):
            return path, "the model needs at least one body"
        return path, f"expected {_expected_length(err, path)}, got {n}"
    if typ in ("float_type", "float_parsing"):
        return path, f"expected a number, got {_describe(inp)}"
    if typ in ("int_type", "int_parsing", "int_from_float"):
        return path, f"expected a whole number, got {_describe(inp)}"
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
        hint = _did_you_mean(inp, choices) if isinstance(inp, str) else ""
        return path, f"expected {ctx.get('expected', '?')}, got {_describe(inp)}{hint}"
    if typ == "string_pattern_mismatch":
        if path and path[-2:-1] == ("outputs",) or (len(path) >= 2 and path[-2] == "outputs"):
            return path, f"{inp!r} is not an output name such as slider.position or sda.force"
        return path, (f"{inp!r} is not a valid name: use letters, digits, _ and -, "
                      "starting with a letter or _")
    if typ in ("string_type",):
        return path, f"expected a text, got {_describe(inp)}"
    if typ in ("bool_type", "bool_parsing"):
        return path, f"expected true or false, got {_describe(inp)}"
    if typ in ("list_type", "tuple_type"):
        return path, f"expected a list, got {_describe(inp)}"
    if typ in ("model_type", "model_attributes_type", "dict_type"):
        return path, f"expected a mapping (key: value), got {_describe(inp)}"
    if typ == "string_too_long":
        return path, f"text is too long (at most {ctx.get('max_length')} characters)"
    if typ == "string_too_short":
        return path, "must not be empty"
    return path, msg


def _expected_length(err, path):
    ctx = err.get("ctx") or {}
    lo, hi = ctx.get("min_length"), ctx.get("max_length")
    field_ = next((p for p in reversed(path) if isinstance(p, str)), "")
    what = "numbers" if field_ not in ("bodies", "joints", "drivers", "forces", "outputs") else "entries"
    if field_ in ("matrix", "inertia") and (lo == hi == 3):
        what = "rows (or numbers)"
    if lo is not None and hi is not None and lo == hi:
        return f"{lo} {what}"
    if lo is not None and hi is not None:
        return f"{lo} to {hi} {what}"
    if lo is not None:
        return f"at least {lo} {what}"
    return f"at most {hi} {what}"


# ================================================================= loading


@dataclass
class LoadedModel:
    """A validated model file and the Model built from it."""

    spec: S.ModelFile
    model: Model
    text: str
    file: str | None
    lines: dict
    paths: dict = field(default_factory=dict)  # element/body name -> key path
    overrides: dict = field(default_factory=dict)  # key path -> command-line option
    warnings: list = field(default_factory=list)
    system: object = None
    beams: dict = field(default_factory=dict)  # beam name -> flexmbd.beams.builder.Beam
    beam_nodes: dict = field(default_factory=dict)  # beam name -> [node names]

    @property
    def static(self) -> bool:
        """True for a static analysis (solver.analysis: static)."""
        return getattr(self.spec.solver, "analysis", "dynamic") == "static"

    # ------------------------------------------------------------ locations
    def line_of(self, path):
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return None

    def error(self, message, path=()) -> ModelFileError:
        origin = next((o for k, o in self.overrides.items() if tuple(path)[:len(k)] == k), None)
        return ModelFileError(message, path, self.line_of(path), self.file, origin)

    def warn(self, message, path=()):
        line = self.line_of(path) if path else None
        self.warnings.append(ModelFileWarning(message, tuple(path), line, self.file))

    def _names_in(self, message):
        """Known names referred to in an engine message, in order of appearance."""
        found = []
        for name in sorted(self.paths, key=len, reverse=True):
            pat = re.compile(r"(?:'|\")" + re.escape(name) + r"(?:'|\")|(?<![\w.\-])" + re.escape(name)
                             + r"(?=[.:])")
            m = pat.search(message)
            if m:
                found.append((m.start(), name))
        return [n for _, n in sorted(found)]

    def annotate(self, message):
        """(path, message with each named element's key path added)."""
        names = self._names_in(message)
        for name in names[1:]:
            p = self.paths[name]
            tag = format_path(p) + (f", line {self.line_of(p)}" if self.line_of(p) else "")
            message = re.sub(r"('" + re.escape(name) + r"'|\"" + re.escape(name) + r"\"|(?<![\w.\-])"
                             + re.escape(name) + r"(?=[.:]))", lambda m: f"{m.group(0)} [{tag}]", message, count=1)
        return (self.paths[names[0]] if names else ()), message

    def engine_error(self, exc, prefix="") -> ModelFileError:
        path, msg = self.annotate(str(exc))
        return self.error(prefix + msg, path)

    # ------------------------------------------------------------ solving
    def static_settings(self) -> StaticSettings:
        """The :class:`~flexmbd.solvers.settings.StaticSettings` of the ``solver:`` section."""
        if not self.static:
            raise self.error("the model file asks for a dynamic analysis (solver.analysis: dynamic)", ("solver",))
        return self.spec.solver.settings()

    def simulate_settings(self) -> DynamicSettings:
        """The :class:`~flexmbd.solvers.settings.DynamicSettings` of the ``solver:`` section."""
        if self.static:
            raise self.error("the model file asks for a static analysis (solver.analysis: static); "
                             "use static_settings()", ("solver", "analysis"))
        return self.spec.solver.settings()

    def static_options(self) -> dict:
        """Keyword arguments for :func:`flexmbd.solvers.static.static_equilibrium`
        (:meth:`static_settings` as a dict)."""
        return self.static_settings().kwargs()

    def simulate_options(self) -> dict:
        """Keyword arguments for :func:`flexmbd.solvers.dynamics.simulate`
        (:meth:`simulate_settings` as a dict)."""
        return self.simulate_settings().kwargs()

    def freeze(self):
        """Freeze the model: ModelErrors are mapped to keys, redundancy warnings recorded."""
        from ..system import RedundantConstraintWarning

        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            try:
                system = self.model.freeze(redundancy=self.spec.solver.redundancy)
            except ModelError as exc:
                raise self.engine_error(exc) from None
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                raise self.engine_error(exc, "the model cannot be set up: ") from None
        for owner, label in getattr(system, "removed_equations", []):
            path = self.paths.get(owner, ())
            if path[:1] == ("drivers",):
                raise self.error(f"driver {owner!r} ({label}) prescribes a motion the joints and other drivers "
                                 "already fix or forbid (its equation depends on theirs); remove it or free that "
                                 "motion", path)
        for w in caught:
            if issubclass(w.category, RedundantConstraintWarning):
                path, msg = self.annotate(str(w.message))
                self.warn(msg + " (the mechanism is over-constrained; the run goes on without them)", path)
        self.system = system
        self._check_outputs(system)
        return system

    def initial_state(self):
        """Assemble the initial state (consistent positions, velocities, accelerations).

        Errors (cannot assemble, singular initial equations) become ModelFileErrors; a
        body moved by the assembly or a changed initial velocity gives a warning.
        """
        from ..linalg import SingularMatrixError
        from ..solvers.dynamics import initial_state
        from ..solvers.initial import AssemblyError

        system = self.system or self.freeze()
        s = self.spec.solver
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                state, report = initial_state(system, 0.0, s.assemble, s.linear_solver)
        except (AssemblyError, ModelError) as exc:  # ModelError: contradictory redundant equations
            raise self.engine_error(exc, "inconsistent initial conditions: ") from None
        except ExpressionError as exc:
            raise self.error(f"a time function cannot be evaluated at t = 0: {exc}") from None
        except (SingularMatrixError, np.linalg.LinAlgError) as exc:
            raise self.error("the initial accelerations cannot be computed: the equations of motion and "
                             f"constraints are singular ({exc}); check for conflicting or redundant drivers "
                             "and joints, and for bodies with no mass") from None
        if not (np.all(np.isfinite(state.qdd)) and np.all(np.isfinite(state.lam))
                and np.all(np.isfinite(state.q)) and np.all(np.isfinite(state.v))):
            raise self.error("the initial state is not finite (overflow); check for huge or tiny values")
        if report is not None:
            for name, d in report.moved.items():
                if d > ASSEMBLY_WARN:
                    self.warn(f"the initial position of body {name!r} does not satisfy the joints; "
                              f"the assembly moved it by {d:.3g} m", self.paths.get(name, ()))
            dv = state.v - system.v0
            given = any(np.any(np.asarray(b.velocity) != 0) or np.any(np.asarray(b.angular_velocity) != 0)
                        for b in self.spec.bodies)
            if given and np.linalg.norm(dv) > 1e-9 * max(1.0, float(np.linalg.norm(system.v0))):
                self.warn("the initial velocities do not satisfy the constraints; they were projected onto them")
        return state

    def _check_outputs(self, system):
        from ..results import Result

        names = Result(system).names()
        for i, nm in enumerate(self.spec.outputs):
            if nm not in names:
                owner = nm.rpartition(".")[0]
                same = [n for n in names if n.rpartition(".")[0] == owner]
                if same:
                    known = f"outputs of {owner!r}: {', '.join(same)}"
                else:
                    owners = list(dict.fromkeys(n.rpartition(".")[0] for n in names))
                    known = f"no body or element {owner!r}{_did_you_mean(owner, owners)}; outputs are named " \
                            f"<name>.<quantity> with <name> one of: {', '.join(owners)}"
                raise self.error(f"no output named {nm!r}{_did_you_mean(nm, names)} ({known})", ("outputs", i))


def make_integrator(spec):
    """The integrator object of a validated ``solver.integrator`` (a name or a mapping)."""
    from ..solvers.integrators import integrator_from_name

    return integrator_from_name(spec) if isinstance(spec, str) else spec.build()


def time_function(spec):
    """The TimeFunction of a validated time-function field."""
    if spec is None:
        return None
    if isinstance(spec, (int, float)):
        return Constant(float(spec))
    if isinstance(spec, str):
        return ExpressionFunction(spec)
    if isinstance(spec, S.ConstantTF):
        return Constant(spec.value)
    if isinstance(spec, S.ConstantSpeedTF):
        return ConstantSpeed(spec.speed, spec.offset)
    if isinstance(spec, S.PolynomialTF):
        return Polynomial(tuple(spec.coefficients))
    return Ramp(spec.value, spec.duration)


def override_option(key: str) -> str:
    """The command-line option that overrides ``solver.KEY`` (``t_end`` → ``--t-end``)."""
    return "--" + key.replace("_", "-")


def apply_overrides(data, **settings):
    """Command-line solver settings (keys of the dynamic ``solver:`` section, in their file
    form; None: not given) into the raw data; returns {key path: option}."""
    from ..solvers.settings import DynamicSettings

    given = {k: v for k, v in settings.items() if v is not None}
    known = {f.name for f in DynamicSettings.file_fields()}
    for k in given:
        if k not in known:
            raise TypeError(f"no command-line override for the setting {k!r}")
    out = {}
    if not isinstance(data, dict):
        return out
    solver = data.get("solver")
    if solver is None:
        solver = data["solver"] = {}
    if not isinstance(solver, dict):
        return out
    if solver.get("analysis") == "static" and given:
        raise ModelFileError("does not apply: the model file asks for a static analysis "
                             "(solver.analysis: static)", origin=override_option(next(iter(given))))
    for k, v in given.items():
        solver[k] = v
        out[("solver", k)] = override_option(k)
    return out


def load_model_text(text: str, file: str | None = None, fmt: str | None = None, **overrides) -> LoadedModel:
    """Parse, validate, check and build a model from its text (see :func:`load_model_file`)."""
    data, lines = parse_text(text, file, fmt)
    if not isinstance(data, dict):
        raise ModelFileError(f"a model file is a mapping of keys (name, bodies, joints, ...), got {_describe(data)}",
                             (), 1 if lines else None, file)
    origins = apply_overrides(data, **overrides)
    try:
        spec = S.ModelFile.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        path, msg = _error_message(errors[0], data)
        more = len(errors) - 1
        if more:
            msg += f" (and {more} more problem{'s' if more > 1 else ''})"
        tmp = LoadedModel(None, None, text, file, lines, overrides=origins)
        raise tmp.error(msg, path) from None
    loaded = LoadedModel(spec, None, text, file, lines, overrides=origins)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        names = _check_names(loaded, spec)
        loaded.model = _build(loaded, spec, names)
    return loaded


def load_model_file(path, **overrides) -> LoadedModel:
    """Load a .yaml/.yml/.json model file.  ``overrides``: keys of the dynamic ``solver:``
    section, such as t_end, h, integrator (their errors are reported against the
    command-line option, ``--t-end`` …, rather than the file)."""
    text = read_file(path)
    return load_model_text(text, str(path), **overrides)


# ================================================================= semantic checks


def _element_lists(spec):
    for section in ("joints", "drivers", "forces"):
        for i, e in enumerate(getattr(spec, section)):
            yield section, i, e


def _check_names(loaded, spec):
    """Resolve every name (auto names for unnamed elements) and every body reference."""
    owner = {}
    for i, b in enumerate(spec.bodies):
        path = ("bodies", i)
        if b.name == "ground":
            raise loaded.error("'ground' is reserved for the fixed frame; choose another body name", path + ("name",))
        if b.name in owner:
            raise loaded.error(f"name {b.name!r} is already used by {format_path(owner[b.name])}", path + ("name",))
        owner[b.name] = path
    for i, bm in enumerate(spec.beams):
        path = ("beams", i)
        if bm.name == "ground" or bm.name in owner:
            what = "the fixed frame" if bm.name == "ground" else format_path(owner[bm.name])
            raise loaded.error(f"name {bm.name!r} is already used by {what}; every body, beam and element needs "
                               "its own name", path + ("name",))
        owner[bm.name] = path
    node_pos = {}
    for i, bm in enumerate(spec.beams):  # on a scratch model: the node names, and every beam error
        handle = _add_beam(loaded, Model(), bm, ("beams", i))
        loaded.beam_nodes[bm.name] = handle.node_names
        for b in handle.nodes:
            owner[b.name] = ("beams", i)
            node_pos[b.name] = np.array(b.position, float)
        for k in range(handle.elements):
            owner[f"{bm.name}.e{k}"] = ("beams", i)
    for section, i, e in _element_lists(spec):
        if e.name is None:
            continue
        path = (section, i)
        if e.name == "ground" or e.name in owner:
            what = "the fixed frame" if e.name == "ground" else format_path(owner[e.name])
            raise loaded.error(f"name {e.name!r} is already used by {what}; every body and element needs its own name",
                               path + ("name",))
        owner[e.name] = path
    names = {}
    counters = {}
    for section, i, e in _element_lists(spec):
        nm = e.name
        if nm is None:
            k = counters.get(e.type, 0)
            while True:
                k += 1
                nm = f"{e.type}{k}"
                if nm not in owner:
                    break
            counters[e.type] = k
            owner[nm] = (section, i)
        names[(section, i)] = nm
    loaded.paths = dict(owner)

    bodies = {b.name: b for b in spec.bodies}
    body_index = {b.name: i for i, b in enumerate(spec.bodies)}
    beam_nodes = loaded.beam_nodes

    def known():
        parts = [*bodies] + [f"{nodes[0]} … {nodes[-1]}" for nodes in beam_nodes.values()]
        return ", ".join(parts)

    for section, i, e in _element_lists(spec):
        refs = ("body",) if hasattr(e, "body") else ("body_i", "body_j")
        for r in refs:
            v = getattr(e, r)
            if v == "ground" or v in bodies:
                continue
            beam, dot, rest = v.partition(".")
            if dot and beam in beam_nodes:
                nodes = beam_nodes[beam]
                alias = {"first": nodes[0], "last": nodes[-1]}.get(rest)
                if alias is not None:
                    setattr(e, r, alias)
                    continue
                if v in nodes:
                    continue
                raise loaded.error(f"no node named {v!r}: beam {beam!r} has nodes {nodes[0]} … {nodes[-1]} "
                                   f"(or {beam}.first and {beam}.last)", (section, i, r))
            if v in beam_nodes:
                raise loaded.error(f"{v!r} is a beam; name one of its nodes, {v}.n0 … {beam_nodes[v][-1]} "
                                   f"(or {v}.first and {v}.last)", (section, i, r))
            every = [*bodies, "ground"] + [n for nodes in beam_nodes.values() for n in (nodes[0], nodes[-1])]
            raise loaded.error(f"no body named {v!r}{_did_you_mean(v, every)} "
                               f"(bodies: {known()}, or ground)", (section, i, r))
        if len(refs) == 2 and e.body_i == e.body_j:
            raise loaded.error(f"connects {e.body_i!r} to itself; body_i and body_j must differ", (section, i, "body_j"))
        if len(refs) == 1 and e.body == "ground":
            raise loaded.error(f"a {e.type} on ground does nothing; name a body", (section, i, "body"))

        def kind(name):
            if name in node_pos:
                return "rigid", "se3"
            b = bodies[name]
            return b.type, ("planar" if b.type == "planar" else b.parameterization)

        used = {getattr(e, r): kind(getattr(e, r)) for r in refs if getattr(e, r) != "ground"}
        kinds = {k[0] for k in used.values()}
        if len(kinds) > 1:
            raise loaded.error("connects a planar and a rigid (spatial) body, which is not supported",
                               (section, i))
        params = {k[1] for k in used.values()}
        if len(params) > 1:
            se3 = next(n for n, k in used.items() if k[1] == "se3")
            other = next(n for n, k in used.items() if k[1] != "se3")
            r = next(r for r in refs if getattr(e, r) == other)
            what = f"beam node {se3!r}" if se3 in node_pos else f"body {se3!r} (parameterization se3)"
            bpath = ("bodies", body_index[other])
            loc = format_path(bpath) + (f", line {loaded.line_of(bpath)}" if loaded.line_of(bpath) else "")
            raise loaded.error(f"joins {what} to body {other!r}, whose parameterization is "
                               f"{kind(other)[1]}; bodies joined to beam nodes need parameterization: se3 "
                               f"(in {loc})", (section, i, r))
        planar = kinds == {"planar"}
        if planar:
            if e.type in ("cylindrical", "universal", "point_in_plane"):
                raise loaded.error(f"{e.type} joints are not available for planar bodies", (section, i, "type"))
            if e.type in ("revolute", "rotational_spring_damper") and \
                    abs(abs(e.axis[2]) / np.linalg.norm(e.axis) - 1) > 1e-12:
                raise loaded.error("planar bodies rotate about z; axis must be [0, 0, 1] or [0, 0, -1]",
                                   (section, i, "axis"))
    if any(b.type == "planar" for b in spec.bodies) and spec.gravity[2] != 0:
        raise loaded.error("planar bodies move in the x-y plane, so gravity must have no z component", ("gravity",))

    # geometry that needs body positions
    def pos(name):
        if name == "ground":
            return np.zeros(3)
        if name in node_pos:
            return node_pos[name]
        b = bodies[name]
        return np.r_[b.position, 0.0][:3] if b.type == "planar" else np.array(b.position, float)

    def pt(v):
        return None if v is None else np.r_[np.asarray(v, float), 0.0][:3]

    for section, i, e in _element_lists(spec):
        if e.type == "spring_damper":
            a = pt(e.at_i) if e.at_i is not None else pos(e.body_i)
            b = pt(e.at_j) if e.at_j is not None else pos(e.body_j)
            if np.linalg.norm(b - a) < 1e-12:
                key = "at_j" if e.at_j is not None else ("at_i" if e.at_i is not None else None)
                raise loaded.error("the two attachment points coincide, so the spring has zero length and no direction "
                                   "(give at_i and at_j)", (section, i) + ((key,) if key else ()))
        if e.type == "distance" and e.length is None and np.linalg.norm(pt(e.at_j) - pt(e.at_i)) < 1e-12:
            raise loaded.error("at_i and at_j coincide: a zero distance is a spherical joint", (section, i, "at_j"))

    # time functions: evaluate over the run
    for k, nm in enumerate(spec.outputs):
        beam, dot, rest = nm.partition(".")
        node, dot2, quantity = rest.partition(".")
        if dot2 and beam in beam_nodes and node in ("first", "last"):
            spec.outputs[k] = f"{beam_nodes[beam][0 if node == 'first' else -1]}.{quantity}"

    if getattr(spec.solver, "analysis", "dynamic") == "static":
        times = np.array([spec.solver.time])
    else:
        times = np.linspace(0.0, spec.solver.t_end, 21)
    for section, i, e in _element_lists(spec):
        for key in ("angle", "displacement", "actuator", "scale"):
            v = getattr(e, key, None)
            if v is None or isinstance(v, (int, float)):
                continue
            fn = time_function(v)
            for t in times:
                try:
                    fn.derivatives(float(t))
                except ExpressionError as exc:
                    raise loaded.error(str(exc), (section, i, key)) from None
                except (ArithmeticError, ValueError) as exc:
                    raise loaded.error(f"cannot be evaluated at t = {t:g} s: {exc}", (section, i, key)) from None
    return names


def beam_section(spec):
    """The :class:`~flexmbd.beams.sections.Section` of a validated section mapping
    (ValueError for values the section constructors reject)."""
    from ..beams.sections import Section

    if spec.shape == "user":
        return Section.user(**spec.model_dump(exclude={"shape"}))
    kw = dict(E=spec.E, nu=spec.nu, G=spec.G, rho=spec.rho, shear_factor=spec.shear_factor)
    if spec.shape == "rectangle":
        return Section.rectangle(spec.width2, spec.height3, **kw)
    if spec.shape == "circle":
        return Section.circle(spec.d, **kw)
    return Section.tube(spec.d_outer, spec.d_inner, **kw)


def _add_beam(loaded, model, bm, path):
    """``model.beam(...)`` for the validated beam ``bm``; errors located at ``path``."""
    from ..beams.geometry import CircularArc

    with np.errstate(all="ignore"):
        try:
            section = beam_section(bm.section)
        except (ValueError, ArithmeticError) as exc:
            raise loaded.error(str(exc).replace("Section: ", ""), path + ("section",)) from None
        geometry, start, end = None, None, None
        if bm.arc is not None:
            a = bm.arc
            try:
                geometry = CircularArc(a.center, a.radius, a.angle0, a.angle1, normal=a.normal)
            except (ValueError, ArithmeticError) as exc:
                raise loaded.error(str(exc).replace("CircularArc: ", ""), path + ("arc",)) from None
            if not np.isfinite(geometry.length) or geometry.length <= 0:
                raise loaded.error(f"the arc's length {geometry.length:g} m is not a positive finite number",
                                   path + ("arc",))
        else:
            start, end = np.r_[bm.start, 0.0][:3], np.r_[bm.end, 0.0][:3]
            if not np.isfinite(np.linalg.norm(end - start)):
                raise loaded.error("the beam's length overflows; give start and end of moderate size", path + ("end",))
        try:
            return model.beam(bm.name, section=section, elements=bm.elements, geometry=geometry, start=start,
                              end=end, e2=bm.e2, order=bm.order, interpolation=bm.interpolation,
                              formulation=bm.formulation, integration=bm.integration)
        except (ModelError, ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            msg = str(exc).replace(f"beam {bm.name!r}: ", "")
            key = next((k for k in ("formulation", "integration", "interpolation", "order", "elements", "e2")
                        if msg.startswith(k) or f" {k} " in f" {msg}"), None)
            raise loaded.error(msg, path + ((key,) if key else ())) from None


def _build(loaded, spec, names) -> Model:
    try:
        m = Model(gravity=spec.gravity, name=spec.name)
    except ModelError as exc:
        raise loaded.error(str(exc), ("gravity",)) from None
    for i, b in enumerate(spec.bodies):
        path = ("bodies", i)
        try:
            if b.type == "planar":
                m.planar_body(b.name, mass=b.mass, inertia=b.inertia, position=b.position, angle=b.angle,
                              velocity=b.velocity, angular_velocity=b.angular_velocity)
            else:
                o = b.orientation
                if o is None:
                    orient = None
                elif o.matrix is not None:
                    orient = np.array(o.matrix, float)
                elif o.quaternion is not None:
                    orient = np.array(o.quaternion, float)
                else:
                    orient = quaternion_from_axis_angle(o.axis, o.angle)
                m.rigid_body(b.name, mass=b.mass, inertia=b.inertia, position=b.position, orientation=orient,
                             velocity=b.velocity, angular_velocity=b.angular_velocity,
                             parameterization=b.parameterization)
        except (ModelError, ValueError, ArithmeticError) as exc:
            raise loaded.error(str(exc), path) from None
    for i, bm in enumerate(spec.beams):
        loaded.beams[bm.name] = _add_beam(loaded, m, bm, ("beams", i))
    for section, i, e in _element_lists(spec):
        path = (section, i)
        name = names[path]
        d = e.model_dump(exclude={"type", "name"})
        t = e.type
        try:
            if t in S.JOINT_TYPES:
                bi, bj = d.pop("body_i"), d.pop("body_j")
                if t == "fixed" and d.get("at") is None:
                    d.pop("at", None)
                getattr(m, t)(bi, bj, name=name, **d)
            elif t == "rotation_driver":
                m.rotation_driver(e.body_i, e.body_j, axis=e.axis, angle=time_function(e.angle), speed=e.speed,
                                  name=name)
            elif t == "translation_driver":
                m.translation_driver(e.body_i, e.body_j, at=e.at, axis=e.axis,
                                     displacement=time_function(e.displacement), speed=e.speed, name=name)
            elif t == "spring_damper":
                m.spring_damper(e.body_i, e.body_j, at_i=e.at_i, at_j=e.at_j, k=e.k, c=e.c, rest_length=e.rest_length,
                                actuator=time_function(e.actuator), tension_only=e.tension_only,
                                law=None if e.law is None else LawExpression(e.law), name=name)
            elif t == "rotational_spring_damper":
                m.rotational_spring_damper(e.body_i, e.body_j, axis=e.axis, k=e.k, c=e.c, angle0=e.angle0,
                                           actuator=time_function(e.actuator), name=name)
            elif t == "force":
                m.force(e.body, e.force, at=e.at, body_fixed=e.body_fixed, scale=time_function(e.scale), name=name)
            elif t == "torque":
                m.torque(e.body, e.torque, body_fixed=e.body_fixed, scale=time_function(e.scale), name=name)
            else:  # pragma: no cover - the schema admits no other type
                raise ModelError(f"unknown element type {t!r}")
        except (ModelError, ExpressionError, ValueError, ArithmeticError) as exc:
            raise loaded.error(str(exc), path) from None
    return m


# ================================================================= Model -> file


class DumpError(ValueError):
    """A Python model holds something a model file cannot express (a callable)."""


def _f(x):
    return float(x)


def _list(a):
    return [float(x) for x in np.asarray(a, dtype=float).reshape(-1)]


def _tf_to_data(fn, what):
    if fn is None:
        return None
    if isinstance(fn, Constant):
        return float(fn.value)
    if isinstance(fn, ExpressionFunction):
        return fn.text
    if isinstance(fn, ConstantSpeed):
        return {"type": "constant_speed", "speed": _f(fn.speed), "offset": _f(fn.offset)}
    if isinstance(fn, Polynomial):
        return {"type": "polynomial", "coefficients": _list(fn.coefficients)}
    if isinstance(fn, Ramp):
        return {"type": "ramp", "value": _f(fn.value), "duration": _f(fn.duration)}
    if isinstance(fn, (int, float)):
        return float(fn)
    raise DumpError(f"{what}: a {type(fn).__name__} (Python callable) cannot be written to a model file; "
                    "use a number, an expression string, or Constant/ConstantSpeed/Polynomial/Ramp")


def model_to_dict(model: Model, solver: dict | None = None, outputs=(), description: str = "") -> dict:
    """A Python-built :class:`Model` as model-file data (round-trips through
    :func:`load_model_text`; raises :class:`DumpError` for callables)."""
    from ..bodies.rigid import GROUND
    from ..kinds import PlanarKind

    def ref(b):
        return "ground" if b is GROUND else b.name

    out = {"format": S.FORMAT_VERSION, "name": model.name}
    if description:
        out["description"] = description
    out["gravity"] = _list(model.gravity)
    beams = [e.name for e in model.elements if e.kind == "beam"]
    if beams:
        raise DumpError(f"beam {beams[0]!r}: beams built in Python cannot be written to a model file yet "
                        "(their section and reference geometry are not kept); write the beams: entries by hand, "
                        "see docs/model-format.md")
    bodies = []
    for b in model.bodies:
        if b.kind.name == "spatial-lie":
            raise ModelError(f"body {b.name!r}: rotation-vector bodies (parameterization='rotation') "
                             "cannot be written to model files yet")
        if b.kind is PlanarKind:
            bodies.append({"name": b.name, "type": "planar", "mass": _f(b.mass), "inertia": _f(b.inertia[2, 2]),
                           "position": _list(b.position[:2]), "angle": _f(b.orientation[0]),
                           "velocity": _list(b.velocity[:2]), "angular_velocity": _f(b.angular_velocity[2])})
        else:
            J = np.asarray(b.inertia, float)
            inertia = _list(np.diag(J)) if np.count_nonzero(J - np.diag(np.diag(J))) == 0 else \
                [_list(r) for r in J]
            d = {"name": b.name, "mass": _f(b.mass), "inertia": inertia, "position": _list(b.position)}
            if b.kind.name == "se3":
                d["parameterization"] = "se3"
            if not np.array_equal(b.orientation, [1.0, 0, 0, 0]):
                d["orientation"] = {"quaternion": _list(b.orientation)}
            if np.any(b.velocity):
                d["velocity"] = _list(b.velocity)
            if np.any(b.angular_velocity):
                d["angular_velocity"] = _list(b.angular_velocity)
            bodies.append(d)
    out["bodies"] = bodies
    joints, drivers, forces = [], [], []
    for e in model.elements:
        d, what = e.data, f"{e.kind} {e.name!r}"
        item = {"type": e.kind, "name": e.name}
        if e.kind in ("force", "torque"):
            item["body"] = ref(e.bodies[0])
        else:
            item["body_i"], item["body_j"] = ref(e.bodies[0]), ref(e.bodies[1])
        if e.kind in S.JOINT_TYPES:
            for k, v in d.items():
                if v is not None:
                    item[k] = _f(v) if np.ndim(v) == 0 else _list(v)
            joints.append(item)
        elif e.kind in S.DRIVER_TYPES:
            if e.kind == "translation_driver":
                item["at"] = _list(d["at"])
            item["axis"] = _list(d["axis"])
            fn = d["function"]
            key = "angle" if e.kind == "rotation_driver" else "displacement"
            if isinstance(fn, ConstantSpeed) and fn.offset == 0.0:
                item["speed"] = _f(fn.speed)
            else:
                item[key] = _tf_to_data(fn, what)
            drivers.append(item)
        elif e.kind == "spring_damper":
            item.update(at_i=_list(d["at_i"]), at_j=_list(d["at_j"]), k=_f(d["k"]), c=_f(d["c"]),
                        rest_length=_f(d["rest_length"]))
            if _tf_to_data(d["actuator"], what) != 0.0:
                item["actuator"] = _tf_to_data(d["actuator"], what)
            if d["tension_only"]:
                item["tension_only"] = True
            if d.get("law") is not None:
                if not isinstance(d["law"], LawExpression):
                    raise DumpError(f"{what}: a Python law callable cannot be written to a model file; "
                                    "use an expression in delta and rate")
                item["law"] = d["law"].text
                item.pop("k"), item.pop("c")
            forces.append(item)
        elif e.kind == "rotational_spring_damper":
            item.update(axis=_list(d["axis"]), k=_f(d["k"]), c=_f(d["c"]), angle0=_f(d["angle0"]))
            if _tf_to_data(d["actuator"], what) != 0.0:
                item["actuator"] = _tf_to_data(d["actuator"], what)
            forces.append(item)
        elif e.kind == "force":
            item.update(force=_list(d["force"]), at=_list(d["at"]))
            if d["body_fixed"]:
                item["body_fixed"] = True
            if _tf_to_data(d["scale"], what) != 1.0:
                item["scale"] = _tf_to_data(d["scale"], what)
            forces.append(item)
        elif e.kind == "torque":
            item.update(torque=_list(d["torque"]))
            if d["body_fixed"]:
                item["body_fixed"] = True
            if _tf_to_data(d["scale"], what) != 1.0:
                item["scale"] = _tf_to_data(d["scale"], what)
            forces.append(item)
        else:
            raise DumpError(f"{what}: element kind {e.kind!r} has no model-file form yet")
    if joints:
        out["joints"] = joints
    if drivers:
        out["drivers"] = drivers
    if forces:
        out["forces"] = forces
    out["solver"] = dict(solver or {"t_end": 1.0, "h": 1e-3})
    if outputs:
        out["outputs"] = list(outputs)
    return out


class _Dumper(yaml.SafeDumper):
    pass


def _represent_list(dumper, data):
    flow = all(isinstance(x, (int, float, str, bool)) for x in data) or \
        all(isinstance(r, list) and all(isinstance(x, (int, float)) for x in r) for r in data) and data
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=bool(flow))


def _represent_float(dumper, value):
    if math.isfinite(value):
        r = repr(value)
        if "e" in r and "." not in r:
            r = r.replace("e", ".0e")  # 1e-07 -> 1.0e-07, a float for every YAML reader
        return dumper.represent_scalar("tag:yaml.org,2002:float", r)
    return yaml.SafeDumper.represent_float(dumper, value)


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(float, _represent_float)


def dump_yaml(data: dict, header: str = "") -> str:
    """Model-file data as YAML text (floats written exactly, short lists on one line)."""
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    if header:
        text = "".join(f"# {ln}\n" if ln else "#\n" for ln in header.splitlines()) + text
    return text


__all__ = ["ModelFileError", "ModelFileWarning", "LoadedModel", "load_model_file", "load_model_text",
           "parse_text", "model_to_dict", "dump_yaml", "DumpError", "time_function", "make_integrator", "beam_section",
           "format_path"]
