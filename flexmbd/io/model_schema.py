"""The model-file schema: one pydantic model per element type (declared with the type,
:mod:`flexmbd.registry`), the solver settings, and the file that holds them.

Every class forbids unknown keys (with a "did you mean" hint), numbers must be finite,
and every choice between alternative forms (a time function given as a number, an
expression or a mapping; inertia as three moments or a tensor; the type of an element;
...) is made by a discriminator on the input, so a mistake gives one error at one key path.
Units are SI throughout: m, kg, s, rad, N, N m.

The element sections (bodies, beams, joints, drivers, forces, markers) are unions of the
registered element types' specifications.  :func:`json_schema` is what ``flexmbd schema``
prints, and :func:`reference_markdown` renders the key reference of docs/model-format.md
from it.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Annotated, ClassVar, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StringConstraints, Tag, create_model, model_validator
from pydantic_core import PydanticCustomError

from ..registry import SECTIONS, element_types, sections as element_sections
from ..solvers.integrators import HHT, GeneralizedAlpha, Newmark
from ..solvers.settings import DynamicSettings, KinematicSettings, SettingError, Settings, StaticSettings
from .tmm_schema import TmmFile
from ..spec import (TF_TYPES, UNION_ERRORS, UNION_KEYS, ConstantSpeedTF, ConstantTF, PolynomialTF, RampTF, SpecBase,  # noqa: F401
                    Vec3, check_inertia)

_Base = SpecBase

FORMAT_VERSION = 1
SCHEMA_ID = "https://flexmbd.invalid/schema/model-file-1.json"

PARAMETER_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
OUTPUT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_\-]*(\.[A-Za-z_][A-Za-z0-9_]*)?\.[A-Za-z_][A-Za-z0-9_]*$"


# ------------------------------------------------------------------ element sections


def section_types(section: str) -> dict[str, type[SpecBase]]:
    """{type name: specification} of a model-file section's registered element types."""
    return {t.name: t.Spec for t in element_types(section)}


def _section_union(section):
    what, default = SECTIONS[section].entry, SECTIONS[section].default
    types = section_types(section)

    def tag(v):
        if isinstance(v, dict):
            t = v.get("type", default)
            return f"<{t}>" if isinstance(t, str) and t in types else None
        if isinstance(v, BaseModel):
            return f"<{v.type}>"
        return None

    error = f"{section}_type"
    UNION_ERRORS[error] = (what, tuple(types))
    members = tuple(Annotated[cls, Tag(f"<{t}>")] for t, cls in types.items())
    return Annotated[Union[members], Discriminator(
        tag, custom_error_type=error,
        custom_error_message=f"each entry of {section} is a mapping with a type: {' | '.join(types)}"
                             + (f" (default {default})" if default else ""))]


#: {section: {type: specification}} (old names of three of them kept for scripts)
SECTION_TYPES = {section: section_types(section) for section in element_sections("index3")}
JOINT_TYPES, DRIVER_TYPES, FORCE_TYPES = SECTION_TYPES["joints"], SECTION_TYPES["drivers"], SECTION_TYPES["forces"]


# ------------------------------------------------------------------ solver


class NewmarkSpec(_Base):
    """Newmark (default β = ¼, γ = ½: trapezoidal rule, no numerical damping)."""

    model_config = ConfigDict(title="Integrator: newmark")

    type: Literal["newmark"]
    beta: float = Field(0.25, gt=0, description="β")
    gamma: float = Field(0.5, ge=0.5, description="γ")

    def build(self) -> Newmark:
        return Newmark(self.beta, self.gamma)


class HHTSpec(_Base):
    """HHT-α."""

    model_config = ConfigDict(title="Integrator: hht")

    type: Literal["hht"]
    rho_inf: float = Field(0.8, ge=0.5, le=1.0, description="spectral radius at infinite frequency, ½ ≤ ρ∞ ≤ 1")

    def build(self) -> HHT:
        return HHT(self.rho_inf)


class GeneralizedAlphaSpec(_Base):
    """Generalized-α (Chung & Hulbert)."""

    model_config = ConfigDict(title="Integrator: generalized-alpha")

    type: Literal["generalized-alpha"]
    rho_inf: float = Field(0.8, ge=0.0, le=1.0, description="spectral radius at infinite frequency, 0 ≤ ρ∞ ≤ 1")

    def build(self) -> GeneralizedAlpha:
        return GeneralizedAlpha(self.rho_inf)


INTEGRATOR_TYPES = {"newmark": NewmarkSpec, "hht": HHTSpec, "generalized-alpha": GeneralizedAlphaSpec}


def _integrator_tag(v):
    if isinstance(v, str):
        return "<name>"
    if isinstance(v, dict):
        t = v.get("type")
        return f"<{t}>" if isinstance(t, str) and t in INTEGRATOR_TYPES else None
    if isinstance(v, BaseModel):
        return f"<{v.type}>"
    return None


Integrator = Annotated[
    Union[Annotated[Literal["newmark", "hht", "generalized-alpha"], Tag("<name>")],
          Annotated[NewmarkSpec, Tag("<newmark>")], Annotated[HHTSpec, Tag("<hht>")],
          Annotated[GeneralizedAlphaSpec, Tag("<generalized-alpha>")]],
    Discriminator(_integrator_tag, custom_error_type="integrator_type",
                  custom_error_message="expected newmark | hht | generalized-alpha, or a mapping with that type"),
]

UNION_ERRORS["integrator_type"] = ("integrator", INTEGRATOR_TYPES)


def _refresh_tag(v):
    if isinstance(v, str):
        return "<policy>"
    if isinstance(v, int) and not isinstance(v, bool):
        return "<every>"
    return None


#: flexmbd.linalg.METHODS ('klu' and 'umfpack' need the optional package kvxopt)
LinearSolverName = Literal["auto", "dense", "banded", "superlu", "klu", "umfpack"]

Refresh = Annotated[
    Union[Annotated[Literal["newton", "step", "contraction"], Tag("<policy>")],
          Annotated[int, Field(ge=1), Tag("<every>")]],
    Discriminator(_refresh_tag, custom_error_type="refresh",
                  custom_error_message="expected newton, step, contraction, or an integer ≥ 1"),
]

#: Longest run a model file may ask for, in steps.
MAX_STEPS = 10_000_000

#: The file's form of the settings whose Python form is not a plain number, flag or choice
#: (an integrator object, a set of Jacobian terms); every other key takes the type of its
#: field in flexmbd/solvers/settings.py.
_FILE_TYPES = {"integrator": Integrator, "refresh": Refresh, "linear_solver": LinearSolverName,
               "jacobian": Annotated[str, Field(max_length=200)],
               "output_times": Optional[Annotated[list[float], Field(min_length=1)]]}

_REDUNDANCY_DESCRIPTION = "remove redundant constraint equations (with a warning) or keep them"


class _SolverSection(_Base):
    """A ``solver:`` section: its keys are the ``in_file`` fields of :attr:`SETTINGS`
    (flexmbd/solvers/settings.py) plus ``analysis`` and ``redundancy``; it is valid when
    the settings dataclass accepts its values."""

    SETTINGS: ClassVar[type]

    def settings(self) -> Settings:
        """The solver settings (a :class:`~flexmbd.solvers.settings.DynamicSettings` or
        :class:`~flexmbd.solvers.settings.StaticSettings`)."""
        kw = {f.name: getattr(self, f.name) for f in self.SETTINGS.file_fields()}
        if "integrator" in kw and isinstance(kw["integrator"], BaseModel):
            kw["integrator"] = kw["integrator"].build()
        return self.SETTINGS(**kw)

    @model_validator(mode="after")
    def _settings(self):
        try:
            self.settings()
        except SettingError as exc:
            # error type "solver_h": the loader's type for a solver error located at one key
            raise PydanticCustomError("solver_h", "{message}", {"message": exc.reason, "key": exc.key}) from None
        return self


def _file_value(v):
    """A setting's default in its file form."""
    if hasattr(v, "coefficients"):
        return v.name if v == type(v)() else {"type": v.name, **{k: getattr(v, k) for k in type(v).__dataclass_fields__}}
    return v


def _solver_model(name: str, base: type, analysis) -> type:
    """The pydantic model of a ``solver:`` section, generated from the fields of
    ``base.SETTINGS``: same keys, order, defaults, descriptions and bounds."""
    hints = base.SETTINGS.hints()
    fields = {"analysis": analysis}
    for f in base.SETTINGS.file_fields():
        about = f.metadata["setting"]
        default = ... if f.default is dataclasses.MISSING else _file_value(f.default)
        fields[f.name] = (_FILE_TYPES.get(f.name, hints[f.name]),
                          Field(default, description=about.doc, gt=about.gt, ge=about.ge, le=about.le))
    fields["redundancy"] = (Literal["remove", "keep"], Field("remove", description=_REDUNDANCY_DESCRIPTION))
    return create_model(name, __base__=base, __doc__=base.__doc__, __module__=__name__, **fields)


class _DynamicSection(_SolverSection):
    """Time integration settings (see docs/user-guide.md, "Solver options")."""

    model_config = ConfigDict(title="Solver")
    SETTINGS: ClassVar[type] = DynamicSettings

    @model_validator(mode="after")
    def _steps(self):
        n = self.t_end / self.h
        if n > MAX_STEPS:
            raise PydanticCustomError("solver_h", "t_end / h = {n} steps is more than the limit of {m}",
                                      {"n": f"{n:.3g}", "m": f"{MAX_STEPS:.0e}", "key": "h"})
        return self


class _StaticSection(_SolverSection):
    """Static equilibrium under the loads, reached in ``load_steps`` equal increments of the
    load factor (Newton-Raphson; see docs/solvers-static-kinematic.md).  Results are one row
    per load step; in the results file ``t`` holds the load factor."""

    model_config = ConfigDict(title="Solver: static")
    SETTINGS: ClassVar[type] = StaticSettings


class _KinematicSection(_SolverSection):
    """Kinematic analysis of a fully driven mechanism (the drivers fix every degree of
    freedom): positions, velocities, accelerations, multipliers and driver loads at the
    times t_start, t_start + h, …, t_end (see docs/solvers-static-kinematic.md).  Results
    are one row per time, as for a dynamic analysis; driver loads are the outputs
    ``<driver>.torque`` / ``<driver>.force``."""

    model_config = ConfigDict(title="Solver: kinematic")
    SETTINGS: ClassVar[type] = KinematicSettings

    @model_validator(mode="after")
    def _steps(self):
        n = (self.t_end - self.t_start) / self.h
        if n > MAX_STEPS:
            raise PydanticCustomError("solver_h", "(t_end - t_start) / h = {n} times is more than the limit of {m}",
                                      {"n": f"{n:.3g}", "m": f"{MAX_STEPS:.0e}", "key": "h"})
        return self


Solver = _solver_model("Solver", _DynamicSection, (Literal["dynamic"], Field(
    "dynamic", description="dynamic (time integration), static (see Solver: static) or kinematic "
                           "(see Solver: kinematic)")))
StaticSolver = _solver_model("StaticSolver", _StaticSection, (Literal["static"], Field(description="static")))
KinematicSolver = _solver_model("KinematicSolver", _KinematicSection,
                                (Literal["kinematic"], Field(description="kinematic")))

#: The analyses of the ``solver:`` section.
ANALYSES = ("dynamic", "static", "kinematic")


def _solver_tag(v):
    if isinstance(v, dict):
        a = v.get("analysis", "dynamic")
        return f"<{a}>" if a in ANALYSES else None
    if isinstance(v, BaseModel):
        return f"<{v.analysis}>"
    return None


UNION_ERRORS["analysis"] = ("analysis", ANALYSES)
UNION_KEYS["analysis"] = "analysis"

AnySolver = Annotated[
    Union[Annotated[Solver, Tag("<dynamic>")], Annotated[StaticSolver, Tag("<static>")],
          Annotated[KinematicSolver, Tag("<kinematic>")]],
    Discriminator(_solver_tag, custom_error_type="analysis",
                  custom_error_message="the solver is a mapping; its analysis is dynamic (default, with t_end and h), "
                                       "static or kinematic (with t_end and h)"),
]


# ------------------------------------------------------------------ the file


class _ModelFileBase(_Base):
    """A flexmbd model file."""

    model_config = ConfigDict(title="flexmbd model file", json_schema_extra={"$id": SCHEMA_ID})

    format: Literal[1] = Field(1, description="version of the model-file format")
    name: str = Field("model", max_length=200, description="model name")
    description: str = Field("", max_length=10000, description="free text")
    parameters: dict[Annotated[str, StringConstraints(pattern=PARAMETER_PATTERN, max_length=100)],
                     Union[float, Annotated[str, StringConstraints(max_length=500)]]] = Field(
        {}, description="named numbers, each a number or an expression of the parameters before it "
                        "(m: 0.5, J: m*L**2/12); any number of the file may be such an expression "
                        "(see Parameters and expressions)")
    gravity: Vec3 = Field([0.0, 0.0, 0.0], description="gravitational acceleration [m/s²]")

    @model_validator(mode="after")
    def _something(self):
        if not self.bodies and not self.beams:
            raise PydanticCustomError("no_bodies", "the model needs at least one body or beam", {"key": "bodies"})
        return self


ModelFile = create_model(
    "ModelFile", __base__=_ModelFileBase, __doc__=_ModelFileBase.__doc__,
    **{section: (list[_section_union(section)], Field([], description=SECTIONS[section].description))
       for section in element_sections("index3") if section_types(section)},
    solver=(AnySolver, Field(description="time integration (or static analysis) settings")),
    outputs=(list[Annotated[str, StringConstraints(pattern=OUTPUT_PATTERN, max_length=200)]], Field(
        [], description="named outputs to report and store, e.g. slider.position, sda.force, energy.total, "
                        "rod.n16.position (rod.last.position), rod.e3.strain_energy")),
)


_EXPRESSION_DEF = "ParameterExpression"
_ANNOTATIONS = ("title", "description", "default", "examples")


def _with_expressions(node):
    """The schema with every number (and integer) also accepting an expression of the
    parameters, a string (the loader evaluates it; see docs/model-format.md)."""
    if isinstance(node, list):
        return [_with_expressions(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _with_expressions(v) for k, v in node.items()}
    if "oneOf" in out and "anyOf" not in out and any(_EXPRESSION_DEF in str(m) for m in out["oneOf"]):
        out["anyOf"] = out.pop("oneOf")  # a number or an expression may also match a text alternative
    if out.get("type") in ("number", "integer"):
        outer = {k: out.pop(k) for k in _ANNOTATIONS if k in out}
        return {"anyOf": [out, {"$ref": f"#/$defs/{_EXPRESSION_DEF}"}], **outer}
    return out


def json_schema(expressions: bool = True) -> dict:
    """The JSON Schema (draft 2020-12) of a model file: an index-3 model file
    (``$defs/ModelFile``) or a DT-TMM one with a top-level ``tmm:`` section
    (``$defs/TmmModelFile``, :mod:`flexmbd.io.tmm_schema`; its definitions are prefixed
    ``Tmm``).  With ``expressions`` every number of an index-3 file may also be a string, an
    expression of the ``parameters:``; without, the schema of the values after the
    expressions are evaluated (what the key reference of docs/model-format.md shows)."""
    s = ModelFile.model_json_schema()
    if expressions:
        s = _with_expressions(s)
    defs = s.pop("$defs", {})
    if expressions:
        defs[_EXPRESSION_DEF] = {
            "title": "Expression of the parameters", "type": "string", "minLength": 1, "maxLength": 500,
            "description": "an expression of the parameters: section, e.g. \"m*L**2/12\" (see Parameters and "
                           "expressions in docs/model-format.md)"}
    schema_id = s.pop("$id", SCHEMA_ID)
    tmm = _finite_defaults(TmmFile.model_json_schema(ref_template="#/$defs/" + _TMM_PREFIX + "{model}"))
    defs.update({_TMM_PREFIX + k: v for k, v in tmm.pop("$defs", {}).items()})
    defs["ModelFile"], defs["TmmModelFile"] = s, tmm
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id,
            "title": "flexmbd model file",
            "description": "an index-3 model (bodies, beams, joints, ... at the top level) or a DT-TMM model "
                           "(a top-level tmm: section)",
            "anyOf": [{"$ref": "#/$defs/ModelFile"}, {"$ref": "#/$defs/TmmModelFile"}], "$defs": defs}


_TMM_PREFIX = "Tmm"


def _finite_defaults(node):
    """The schema without non-finite defaults (JSON has no infinity; a rigid spring direction's
    default, k_theta = inf, is said in its description)."""
    if isinstance(node, list):
        return [_finite_defaults(x) for x in node]
    if not isinstance(node, dict):
        return node
    return {k: _finite_defaults(v) for k, v in node.items()
            if not (k == "default" and isinstance(v, float) and not math.isfinite(v))}


# ------------------------------------------------------------------ docs


def _type_text(p, defs) -> str:
    if "$ref" in p:
        return defs[p["$ref"].split("/")[-1]].get("title", "mapping")
    if "const" in p:
        return f"`{p['const']}`"
    if "enum" in p:
        return " \\| ".join(f"`{e}`" for e in p["enum"])
    for key in ("anyOf", "oneOf"):
        if key in p:
            opts = [q for q in p[key] if q.get("type") != "null"]
            titles = [defs[q["$ref"].split("/")[-1]].get("title", "") for q in opts if "$ref" in q]
            kinds = {t.split(":")[0] for t in titles if ":" in t}
            if kinds == {"Time function"}:
                return "time function"
            if len(kinds) == 1 and len(titles) == len(opts):
                return f"{kinds.pop()} mapping"
            parts = [_type_text(q, defs) for q in opts if "$ref" not in q] + [t for t in titles if ":" not in t]
            if kinds:
                parts += [f"{k} mapping" for k in sorted(kinds)]
            return " or ".join(dict.fromkeys(parts))
    t = p.get("type")
    if t == "array":
        n0, n1 = p.get("minItems"), p.get("maxItems")
        item = p.get("items", {})
        if item.get("type") == "number" and n0 is not None and n1 is not None:
            return f"{n0} numbers" if n0 == n1 else f"{n0}–{n1} numbers"
        if item.get("type") == "array" and n0 == n1 == 3:
            return "3×3 numbers"
        inner = _type_text(item, defs)
        inner = {"number": "numbers", "string": "strings"}.get(inner, inner)
        return f"list of {inner}"
    return {"number": "number", "integer": "integer", "string": "string", "boolean": "boolean",
            "object": "mapping"}.get(t, "any")


def _limits(p) -> str:
    out = []
    for k, sym in (("exclusiveMinimum", ">"), ("minimum", "≥"), ("exclusiveMaximum", "<"), ("maximum", "≤")):
        if k in p:
            out.append(f"{sym} {p[k]}")
    for q in p.get("anyOf", []):
        out += [_limits(q)] if _limits(q) else []
    return ", ".join(out)


def reference_markdown() -> str:
    """The key reference of docs/model-format.md, rendered from the JSON Schema."""
    s = json_schema(expressions=False)
    defs = s.get("$defs", {})

    def rank(kv):
        name = kv[0]
        if name == "ModelFile":
            return -1
        if name == "TmmModelFile" or name.startswith(_TMM_PREFIX):
            return 100 if name == "TmmModelFile" else 101
        return _DOC_ORDER.get(name, 99)
    sections = sorted(defs.items(), key=rank)
    lines = []
    for name, d in sections:
        if "properties" not in d:
            continue
        title = d.get("title", name)
        lines.append(f"### {title}")
        lines.append("")
        if d.get("description"):
            lines.append(" ".join(d["description"].split()))
            lines.append("")
        lines.append("| key | type | required / default | description |")
        lines.append("|---|---|---|---|")
        req = set(d.get("required", []))
        for key, p in d["properties"].items():
            typ = _type_text(p, defs)
            lim = _limits(p)
            if lim:
                typ += f" ({lim})"
            dflt = "required" if key in req else ("—" if p.get("default") is None else f"`{_json(p['default'])}`")
            desc = p.get("description", "").replace("|", "\\|")
            if key == "type" and not desc:
                desc = "selects this kind of entry"
            lines.append(f"| `{key}` | {typ} | {dflt} | {desc} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _json(v):
    import json

    return json.dumps(v)


_DOC_ORDER = {n: i for i, n in enumerate([
    "RigidBody", "PlanarBody", "Orientation", "BeamSpec", "RectangleSection", "CircleSection", "TubeSection",
    "UserSection", "Arc", "Spherical", "Revolute", "Prismatic", "Cylindrical", "Universal",
    "Fixed", "PointOnLine", "PointInPlane", "Distance", "RotationDriver", "TranslationDriver", "SpringDamper",
    "RotationalSpringDamper", "PointForce", "Torque", "Marker", "ConstantTF", "ConstantSpeedTF", "PolynomialTF", "RampTF",
    "Solver", "StaticSolver", "KinematicSolver", "NewmarkSpec", "HHTSpec", "GeneralizedAlphaSpec"])}


def properties(schema: dict | None = None) -> set[str]:
    """Every property name anywhere in the schema."""
    s = schema or json_schema()
    out = set(s.get("properties", {}))
    for d in s.get("$defs", {}).values():
        out |= set(d.get("properties", {}))
    return out


__all__ = ["ModelFile", "json_schema", "reference_markdown", "properties", "check_inertia", "FORMAT_VERSION",
           "SECTION_TYPES", "ANALYSES", "JOINT_TYPES", "DRIVER_TYPES", "FORCE_TYPES", "TF_TYPES", "INTEGRATOR_TYPES", "MAX_STEPS",
           "section_types"]
