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

import json
import math
import pathlib
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import yaml
from pydantic import ValidationError

from ..beams.section_specs import beam_section  # noqa: F401  (older imports)
from ..expressions import ExpressionError
from ..model import Model, ModelError
from ..registry import element_type, sections as element_sections
from ..spec import DumpError, describe as _describe, did_you_mean as _did_you_mean, error_message as _error_message, \
    format_key as format_path, is_time_function_field, time_function  # noqa: F401
from ..solvers.settings import DynamicSettings, KinematicSettings, StaticSettings
from . import model_schema as S
from .model_params import ParameterError, resolve as _resolve_parameters

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
        # an origin such as "--param bodies[0].mass" already names the key
        named = self.origin is not None and self.origin.endswith(f" {self.key}")
        key = f" {self.key}:" if self.path and not named else ""
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
    data: dict = None  # the file's data as read (expressions kept; command-line overrides applied)
    resolved: dict = None  # the same with every expression replaced by its value
    parameters: dict = field(default_factory=dict)  # parameter name -> value

    @property
    def analysis(self) -> str:
        """The analysis the file asks for: "dynamic", "static" or "kinematic"."""
        return getattr(self.spec.solver, "analysis", "dynamic")

    @property
    def static(self) -> bool:
        """True for a static analysis (solver.analysis: static)."""
        return self.analysis == "static"

    @property
    def kinematic(self) -> bool:
        """True for a kinematic analysis (solver.analysis: kinematic)."""
        return self.analysis == "kinematic"

    def file_data(self, resolved: bool = False) -> dict:
        """The model-file data: as written (parameters and expressions kept), or with
        ``resolved`` every expression replaced by its value and no ``parameters:``
        section (functions of time and laws with the parameters' values put in).  Either
        loads again to the same model; :func:`dump_yaml` writes it."""
        import copy

        data = copy.deepcopy(self.resolved if resolved else self.data)
        if resolved:
            data.pop("parameters", None)
        return data

    # ------------------------------------------------------------ locations
    def line_of(self, path):
        """The line of ``path`` or of its nearest ancestor in the file (the first line of
        the document for a key missing at the top level)."""
        p = tuple(path)
        while True:
            if p in self.lines and (p or path):  # the whole file is no location of its own
                return self.lines[p]
            if not p:
                return None
            p = p[:-1]

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

    def _massless(self, system):
        """("beam 'rod'" or "body 'b'", key path) of the first beam or body that carries no
        mass at all, or None: named when the initial accelerations are singular."""
        n = system.n
        try:
            diag = np.abs(np.asarray(system.mass_matrix(system.q0).diagonal()))
        except (ValueError, IndexError):  # no inertia at all
            diag = np.zeros(n)
        offsets = list(system.offsets) + [n]
        empty = {b.name for i, b in enumerate(system.model.bodies)
                 if not np.any(diag[offsets[i]:offsets[i + 1]] > 0)}
        if not empty:
            return None
        for beam, nodes in self.beam_nodes.items():
            if nodes and all(nd in empty for nd in nodes):
                return f"beam {beam!r}", self.paths.get(beam, ())
        name = next(b.name for b in system.model.bodies if b.name in empty)
        return f"body {name!r}", self.paths.get(name, ())

    def path_of_text(self, message) -> tuple:
        """The key path of the expression (a law, a function of time) that ``message``
        quotes, found among the file's string values; () when none is quoted."""
        if self.spec is None:
            return ()

        def walk(value, path):
            if isinstance(value, str):
                if len(value) > 1 and (f"'{value}'" in message or f'"{value}"' in message):
                    return path
            elif isinstance(value, dict):
                for k, v in value.items():
                    found = walk(v, path + (k,))
                    if found is not None:
                        return found
            elif isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    found = walk(v, path + (i,))
                    if found is not None:
                        return found
            return None

        try:
            found = walk(self.spec.model_dump(exclude_none=True), ())
        except Exception:  # noqa: BLE001 - only a better location is lost
            found = None
        return found if found is not None and found in self.lines else (found or ())

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
        if self.analysis != "dynamic":
            use = "static_settings()" if self.static else "kinematic_settings()"
            raise self.error(f"the model file asks for a {self.analysis} analysis (solver.analysis: "
                             f"{self.analysis}); use {use}", ("solver", "analysis"))
        return self.spec.solver.settings()

    def kinematic_settings(self) -> KinematicSettings:
        """The :class:`~flexmbd.solvers.settings.KinematicSettings` of the ``solver:`` section."""
        if not self.kinematic:
            raise self.error(f"the model file asks for a {self.analysis} analysis (solver.analysis: "
                             f"{self.analysis}), not a kinematic one", ("solver", "analysis"))
        return self.spec.solver.settings()

    def kinematic_options(self) -> dict:
        """Keyword arguments for :func:`flexmbd.solvers.kinematics.kinematic_analysis`
        (the times t_start, t_start + h, …, t_end and the tolerances)."""
        return self.kinematic_settings().analysis_kwargs()

    def check_kinematic(self, system):
        """A kinematic analysis needs the drivers to fix every degree of freedom: one
        error naming what is missing otherwise."""
        n, m = system.n, system.m
        if n == m:
            return
        drivers = [e.name for e in system.model.elements if e.type.prescribes_motion]
        named = ", ".join(drivers) if drivers else "none"
        if m < n:
            raise self.error(f"a kinematic analysis needs a fully driven mechanism, but {n - m} degree(s) of "
                             f"freedom are left ({n} coordinates, {m} independent constraint equations; drivers: "
                             f"{named}): add {n - m} driver(s), or use analysis: dynamic", ("solver", "analysis"))
        raise self.error(f"a kinematic analysis needs as many independent constraint equations as coordinates: "
                         f"{m} equations for {n} coordinates (drivers: {named}); remove {m - n} driver(s) or "
                         "joint equations, or use redundancy: remove", ("solver", "analysis"))

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
        except ExpressionError as exc:  # a law or a function of time, named by its key path
            raise self.error(f"cannot be evaluated at the start (t = 0): {exc}", self.path_of_text(str(exc))) \
                from None
        except (SingularMatrixError, np.linalg.LinAlgError) as exc:
            massless = self._massless(system)
            if massless:
                what, path = massless
                raise self.error(f"{what} has no mass, and a dynamic analysis needs it (its accelerations are "
                                 "undefined): give it a density or mass, or use solver.analysis: static",
                                 path) from None
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
    if solver.get("analysis") == "kinematic":
        for k in given:
            if k not in ("t_end", "h"):
                raise ModelFileError("does not apply: the model file asks for a kinematic analysis "
                                     "(solver.analysis: kinematic)", origin=override_option(k))
    for k, v in given.items():
        solver[k] = v
        out[("solver", k)] = override_option(k)
    return out


def _missing_section(errors, path, data, lines):
    """(path, message, other problems) when the first error is a required key of a whole
    section that the file does not have (no ``solver:`` at all): the section is named,
    with the keys it needs, rather than its first key; None otherwise."""
    if errors[0].get("type") != "missing" or len(path) < 2 or not isinstance(data, dict):
        return None
    in_file = (path[0],) in lines if lines else bool(data.get(path[0]))  # overrides may have made an empty one
    if in_file or not isinstance(data.get(path[0], {}), dict):
        return None
    section = path[0]
    keys = []
    for e in errors:  # loc: (section, key) or (section, "<variant>", key)
        loc = [x for x in e["loc"] if not (isinstance(x, str) and x.startswith("<"))]
        if e.get("type") == "missing" and len(loc) == 2 and loc[0] == section:
            keys.append(str(loc[1]))
    need = f" (it needs {', '.join(keys)})" if keys else ""
    return (section,), f"missing section{need}", len(errors) - max(1, len(keys))


def apply_values(data, values: dict) -> dict:
    """Values set by key path (``{("forces", 0, "k"): 1e3}``, list items by index) into the
    raw data, before its parameters are resolved, so expressions that depend on a changed
    ``parameters`` entry are evaluated anew; returns {key path: "--param PATH"} for errors.
    The paths must lead through existing mappings and list items (flexmbd.sweep.keypath
    checks them and turns item names into indices)."""
    out = {}
    for path, value in values.items():
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        out[tuple(path)] = f"--param {format_path(path)}"
    return out


def load_model_text(text: str, file: str | None = None, fmt: str | None = None, values: dict | None = None,
                    **overrides) -> LoadedModel:
    """Parse, validate, check and build a model from its text (see :func:`load_model_file`).
    ``values``: {key path: value} set in the data first (:func:`apply_values`)."""
    data, lines = parse_text(text, file, fmt)
    if not isinstance(data, dict):
        raise ModelFileError(f"a model file is a mapping of keys (name, bodies, joints, ...), got {_describe(data)}",
                             (), 1 if lines else None, file)
    origins = apply_overrides(data, **overrides)
    if values:
        origins.update(apply_values(data, values))
    try:
        resolved, params = _resolve_parameters(data, S.ModelFile)
    except ParameterError as exc:
        tmp = LoadedModel(None, None, text, file, lines, overrides=origins)
        raise tmp.error(exc.message, exc.path) from None
    try:
        spec = S.ModelFile.model_validate(resolved)
    except ValidationError as exc:
        errors = exc.errors()
        path, msg = _error_message(errors[0], resolved)
        more = len(errors) - 1
        section = _missing_section(errors, path, resolved, lines)
        if section is not None:
            path, msg, more = section
        if more:
            msg += f" (and {more} more problem{'s' if more > 1 else ''})"
        tmp = LoadedModel(None, None, text, file, lines, overrides=origins)
        raise tmp.error(msg, path) from None
    loaded = LoadedModel(spec, None, text, file, lines, overrides=origins, data=data, resolved=resolved,
                         parameters=params)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        names = _check_names(loaded, spec)
        loaded.model = _build(loaded, spec, names)
        _check_time_functions(loaded, spec)
    return loaded


def load_model_file(path, **overrides) -> LoadedModel:
    """Load a .yaml/.yml/.json model file.  ``overrides``: keys of the dynamic ``solver:``
    section, such as t_end, h, integrator (their errors are reported against the
    command-line option, ``--t-end`` …, rather than the file)."""
    text = read_file(path)
    return load_model_text(text, str(path), **overrides)


# ================================================================= names and building


def _entries(spec):
    """(section, index, entry) of every element entry of the file, in file order."""
    for section in element_sections("index3"):
        for i, e in enumerate(getattr(spec, section, ())):
            yield section, i, e


def _check_names(loaded, spec):
    """Every entry's name (automatic ones for unnamed entries: the type and a number) and
    the key path of each name; duplicate names are errors."""
    owner = {}
    for section, i, e in _entries(spec):
        if e.name is None:
            continue
        path = (section, i)
        if e.name == "ground" or e.name in owner:
            if e.name == "ground" and section == "bodies":
                raise loaded.error("'ground' is reserved for the fixed frame; choose another body name", path + ("name",))
            what = "the fixed frame" if e.name == "ground" else format_path(owner[e.name])
            raise loaded.error(f"name {e.name!r} is already used by {what}; every body, beam and element needs its own "
                               "name", path + ("name",))
        owner[e.name] = path
    names, counters = {}, {}
    for section, i, e in _entries(spec):
        nm = e.name
        if nm is None:
            prefix = "body" if section == "bodies" else e.type
            k = counters.get(prefix, 0)
            while True:
                k += 1
                nm = f"{prefix}{k}"
                if nm not in owner:
                    break
            counters[prefix] = k
            owner[nm] = (section, i)
        names[(section, i)] = nm
    loaded.paths = dict(owner)
    return names


def _time_function_keys(entry):
    """The keys of an entry that hold functions of time."""
    return [k for k, f in type(entry).model_fields.items() if is_time_function_field(f)]


def _check_time_functions(loaded, spec):
    """Evaluate every function of time given by an expression or mapping over the run."""
    analysis = getattr(spec.solver, "analysis", "dynamic")
    if analysis == "static":
        times = np.array([spec.solver.time])
    elif analysis == "kinematic":
        times = np.linspace(spec.solver.t_start, spec.solver.t_end, 21)
    else:
        times = np.linspace(0.0, spec.solver.t_end, 21)
    for section, i, e in _entries(spec):
        for key in _time_function_keys(e):
            v = getattr(e, key)
            if v is None or isinstance(v, (int, float)):
                continue
            fn = time_function(v)
            raw = _data_at(loaded.data, (section, i, key))
            for t in times:
                try:
                    fn.derivatives(float(t))
                except ExpressionError as exc:
                    msg = str(exc)
                    if isinstance(raw, str) and isinstance(v, str) and raw != v:  # parameters put in: quote the file
                        msg = msg.replace(repr(v), f"{raw!r}")
                    raise loaded.error(msg, (section, i, key)) from None
                except (ArithmeticError, ValueError) as exc:
                    raise loaded.error(f"cannot be evaluated at t = {t:g} s: {exc}", (section, i, key)) from None


def _data_at(data, path):
    """The value at a key path of the file's data, or None."""
    for k in path:
        try:
            data = data[k]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _strip_label(message, etype, name):
    """An engine message without its leading "<type> '<name>' <key>:" (the location says it)."""
    label = re.escape(etype.label(name))
    return re.sub(rf"^{label}(?: [\w.\[\]]+)?: ", "", message)


def _build(loaded, spec, names) -> Model:
    try:
        m = Model(gravity=spec.gravity, name=spec.name)
    except ModelError as exc:
        raise loaded.error(str(exc), ("gravity",)) from None
    if loaded.file:  # data files named in the model (a modal body's FE data) are relative to it
        m.base_dir = pathlib.Path(loaded.file).resolve().parent
    for section, i, e in _entries(spec):
        path = (section, i)
        name = names[path]
        etype = element_type(e.type)
        try:
            handle = m.add(e.model_copy(update={"name": name}))
        except (ModelError, ExpressionError, ValueError, ArithmeticError) as exc:
            key = getattr(exc, "key", None)
            key = (key,) if isinstance(key, str) else tuple(key or ())
            if isinstance(exc, ModelError) and exc.element is None and key[:1] in (("gravity",),):
                raise loaded.error(_strip_label(str(exc), etype, name), key) from None
            raise loaded.error(_strip_label(str(exc), etype, name), path + key) from None
        element = m.elements[-1]
        for node in element.nodes:
            loaded.paths.setdefault(node.name, path)
        if len(element.nodes) > 1:
            loaded.beams[name] = handle
            loaded.beam_nodes[name] = [n.name for n in element.nodes]
            for k in range(len(element.data.get("conn", ()))):
                loaded.paths.setdefault(f"{name}.e{k}", path)
    # outputs may name owned nodes by their aliases: rod.last.position
    for k, nm in enumerate(spec.outputs):
        owner, dot, quantity = nm.rpartition(".")
        if dot and "." in owner:
            try:
                node = m.resolve_body(owner)
            except ModelError:
                continue
            if node.name != owner:
                spec.outputs[k] = f"{node.name}.{quantity}"
    return m


# ================================================================= Model -> file


def model_to_dict(model: Model, solver: dict | None = None, outputs=(), description: str = "") -> dict:
    """A Python-built :class:`Model` as model-file data (round-trips through
    :func:`load_model_text`; raises :class:`DumpError` for what a file cannot hold, such
    as Python callables)."""
    out = {"format": S.FORMAT_VERSION, "name": model.name}
    if description:
        out["description"] = description
    out["gravity"] = [float(x) for x in model.gravity]
    sections = {}
    for e in model.elements:
        etype = e.type
        try:
            item = etype.dump(e)
        except DumpError as exc:
            raise DumpError(f"{etype.label(e.name)}: {exc}") from None
        except Exception as exc:   # the serialiser wraps errors of Python objects
            cause = exc.__cause__ or exc.__context__ or exc
            if isinstance(cause, DumpError) or "DumpError" in str(exc):
                msg = str(cause) if isinstance(cause, DumpError) else str(exc).split("DumpError: ")[-1]
                raise DumpError(f"{etype.label(e.name)}: {msg}") from None
            raise
        sections.setdefault(etype.section, []).append(_plain(item))
    for section in element_sections("index3"):
        if section in sections:
            out[section] = sections[section]
    out["solver"] = dict(solver or {"t_end": 1.0, "h": 1e-3})
    if outputs:
        out["outputs"] = list(outputs)
    return out


def _plain(v):
    """Model-file data: floats for numbers, lists for vectors, mappings for specifications."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v) if not isinstance(v, (int, np.integer)) or isinstance(v, bool) else int(v)
    if hasattr(v, "model_dump"):
        return _plain(v.model_dump())
    return v


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
