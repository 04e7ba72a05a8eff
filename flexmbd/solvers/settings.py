"""Solver settings: one frozen dataclass per analysis, each setting defined once.

:class:`DynamicSettings` (time integration, :func:`~flexmbd.solvers.dynamics.simulate`),
:class:`StaticSettings` (:func:`~flexmbd.solvers.static.static_equilibrium`) and
:class:`RelaxSettings` (:func:`~flexmbd.solvers.relaxation.relax`).  Every field carries,
in its metadata, its description (with its unit) and its bounds; the default is the
field's default.  Construction validates every value, so a bad setting is one
:class:`SettingError` (a ValueError) naming it, wherever it comes from.

The same definitions serve the model file and the results file:

* the ``solver:`` section of a model file (:mod:`flexmbd.io.model_schema`) is generated
  from the fields marked ``in_file`` (keys, order, defaults, descriptions, bounds), and
  validated by building the dataclass;
* a results file stores :meth:`~Settings.to_json` and ``--resume`` reads it back with
  :meth:`~Settings.from_json`.

    s = DynamicSettings(t_end=1.0, h=1e-3, integrator="hht")
    res = model.simulate(settings=s)              # or model.simulate(t_end=1.0, h=1e-3, ...)
    res = model.simulate(settings=s, tol=1e-9)    # keyword arguments override the object
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import numbers
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Optional, Union

from .integrators import HHT, GeneralizedAlpha, Newmark, integrator_from_name

__all__ = ["SettingError", "Settings", "DynamicSettings", "StaticSettings", "KinematicSettings", "RelaxSettings", "Integrator",
           "integrator_to_json", "integrator_from_json", "DAMPING_MODES"]

#: An integrator of the Newmark family (any object with ``coefficients()`` and ``name`` works).
Integrator = Union[Newmark, HHT, GeneralizedAlpha]

#: The damping modes of :func:`~flexmbd.solvers.relaxation.relax` (see its module).
DAMPING_MODES = ("physical", "kinetic", "viscous")


class SettingError(ValueError):
    """A bad solver setting: one line that names it.  ``key`` is the setting's name,
    ``reason`` the message without a leading ``"KEY: "`` (for messages that say where)."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key
        self.reason = message[len(key) + 2:] if message.startswith(key + ": ") else message


@dataclass(frozen=True)
class About:
    """What a setting is: ``doc`` (meaning and unit), its bounds, and whether it is a key
    of the model file's ``solver:`` section."""

    doc: str
    gt: float | None = None
    ge: float | None = None
    le: float | None = None
    in_file: bool = True
    #: normalises and checks a value that is not a plain number, flag or choice
    check: Any = None


def setting(default: Any = dataclasses.MISSING, doc: str = "", *, gt=None, ge=None, le=None, in_file=True,
            check=None) -> Any:
    """A dataclass field of a settings class (``default`` omitted: the setting is required)."""
    about = About(doc, gt, ge, le, in_file, check)
    return field(default=default, metadata={"setting": about})


# ---------------------------------------------------------------- values that are not plain


def _integrator(key, v, default):
    if v is None:
        return default
    if isinstance(v, str):
        try:
            v = integrator_from_name(v)
        except ValueError as exc:
            raise SettingError(key, f"{key}: {exc}") from None
    if isinstance(v, dict):
        v = integrator_from_json(v)
    if not callable(getattr(v, "coefficients", None)):
        raise SettingError(key, f"{key} must be Newmark(...), HHT(...), GeneralizedAlpha(...) or one of "
                                f"'newmark', 'hht', 'generalized-alpha'; got {v!r}")
    try:
        v.coefficients()
    except ValueError as exc:
        raise SettingError(key, f"{key}: {exc}") from None
    return v


def _dynamic_integrator(key, v):
    return _integrator(key, v, Newmark())


def _relax_integrator(key, v):
    return _integrator(key, v, Newmark(0.3, 0.6))


def _jacobian(key, v, allow_fd):
    from ..system import jacobian_terms

    if allow_fd and v == "fd":
        return v
    if v is None:
        return "full"
    try:
        terms = jacobian_terms(v)
    except (ValueError, TypeError) as exc:
        raise SettingError(key, f"{key}: {exc}") from None
    return v if isinstance(v, str) else terms


def _dynamic_jacobian(key, v):
    return _jacobian(key, v, True)


def _static_jacobian(key, v):
    return _jacobian(key, v, False)


def _refresh(key, v):
    if v in ("newton", "step", "contraction") and isinstance(v, str):
        return v
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1:
        return int(v)
    raise SettingError(key, f"{key} (the Jacobian refresh policy) must be 'newton', 'step', 'contraction' or an "
                            f"integer ≥ 1, got {v!r}")


def _output_times(key, v):
    if v is None:
        return None
    try:
        seq = v.tolist() if hasattr(v, "tolist") else v
        times = tuple(float(x) for x in (seq if isinstance(seq, (list, tuple)) else [seq]))
    except (TypeError, ValueError):
        raise SettingError(key, f"{key} must be a list of times [s], got {v!r}") from None
    if not times or not all(math.isfinite(x) for x in times) or any(b <= a for a, b in zip(times, times[1:])):
        raise SettingError(key, f"{key} must be a non-empty, strictly increasing list of finite times, got {list(times)}")
    return times


def _linear_solver(key, v):
    from ..linalg import METHODS

    if isinstance(v, str) and v in METHODS:
        return v
    raise SettingError(key, f"unknown {key} {v!r}: use one of {', '.join(map(repr, METHODS))}")


# ---------------------------------------------------------------- integrators in JSON


def integrator_to_json(integ) -> dict:
    """An integrator object (or name, or None for the default Newmark) as a JSON-able dict
    ``{"name": ..., parameters...}``."""
    if integ is None:
        integ = Newmark()
    if isinstance(integ, str):
        integ = integrator_from_name(integ)
    if isinstance(integ, dict):
        return dict(integ)
    d = dataclasses.asdict(integ) if dataclasses.is_dataclass(integ) else {}
    return {"name": getattr(integ, "name", type(integ).__name__.lower()), **d}


def integrator_from_json(d: dict):
    """The integrator object of :func:`integrator_to_json`'s dict."""
    d = dict(d)
    try:
        return integrator_from_name(d.pop("name"), **d)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an integrator: {d!r} ({exc})") from None


# ---------------------------------------------------------------- the base


_HINTS: dict = {}


def _bound_text(about: About) -> str:
    parts = []
    for op, v in ((">", about.gt), ("≥", about.ge), ("≤", about.le)):
        if v is not None:
            parts.append(f"{op} {v:g}")
    return ", ".join(parts)


class Settings:
    """Behaviour shared by the settings dataclasses: validation at construction,
    :meth:`replace`, keyword arguments, JSON."""

    #: the function that takes these settings (for messages)
    FOR: ClassVar[str] = ""

    # ------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        hints = self.hints()
        checked = _DEFAULTS.setdefault(type(self), {})
        for f in self._fields():
            about = f.metadata["setting"]
            v = getattr(self, f.name)
            if about.check is not None:
                v = about.check(f.name, v)
            elif v is f.default and f.name in checked:      # a plain default: checked once per class
                v = checked[f.name]
            else:
                plain = _plain(f.name, v, hints[f.name], about)
                if v is f.default:
                    checked[f.name] = plain
                v = plain
            object.__setattr__(self, f.name, v)
        self._check()

    def _check(self) -> None:
        """Checks between settings (subclasses)."""

    @classmethod
    def _fields(cls) -> tuple:
        """``dataclasses.fields`` of the class, looked up once (a run makes its settings
        every time)."""
        if cls not in _FIELDS:
            _FIELDS[cls] = dataclasses.fields(cls)
        return _FIELDS[cls]

    @classmethod
    def hints(cls) -> dict:
        """The fields' types."""
        if cls not in _HINTS:
            _HINTS[cls] = typing.get_type_hints(cls)
        return _HINTS[cls]

    # ------------------------------------------------------------ making
    @classmethod
    def create(cls, settings: Settings | None = None, **overrides: Any):
        """``settings`` (default: all defaults) with ``overrides`` applied, validated."""
        cls._known(overrides)
        if settings is None:
            missing = [f.name for f in cls._fields()
                       if f.default is dataclasses.MISSING and f.name not in overrides]
            if missing:
                raise TypeError(f"{cls.FOR} needs the setting{'s' if len(missing) > 1 else ''} "
                                f"{', '.join(missing)} (or settings={cls.__name__}(...))")
            return cls(**overrides)
        if not isinstance(settings, cls):
            raise TypeError(f"settings must be a {cls.__name__}, got {type(settings).__name__}")
        return settings.replace(**overrides) if overrides else settings

    def replace(self, **changes: Any):
        """A copy with ``changes`` (validated)."""
        self._known(changes)
        return dataclasses.replace(self, **changes)

    @classmethod
    def _known(cls, keys) -> None:
        names = [f.name for f in cls._fields()]
        for k in keys:
            if k not in names:
                close = difflib.get_close_matches(k, names, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else f"; settings: {', '.join(names)}"
                raise TypeError(f"{cls.FOR} got an unknown setting {k!r}{hint}")

    # ------------------------------------------------------------ reading
    def kwargs(self) -> dict:
        """The settings as keyword arguments (values as they are, not copied)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def file_fields(cls) -> list:
        """The fields that are keys of a model file's ``solver:`` section, in order."""
        return [f for f in dataclasses.fields(cls) if f.metadata["setting"].in_file]

    @classmethod
    def about(cls, name: str) -> About:
        """The description and bounds of one setting."""
        return next(f for f in dataclasses.fields(cls) if f.name == name).metadata["setting"]

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        """A JSON-able dict (integrators as ``{"name": ..., parameters}``, Jacobian term
        sets as sorted lists); :meth:`from_json` reads it back."""
        out = {}
        for k, v in self.kwargs().items():
            if k == "integrator":
                v = integrator_to_json(v)
            elif isinstance(v, frozenset):
                v = sorted(v)
            elif isinstance(v, tuple):
                v = list(v)
            out[k] = v
        return out

    @classmethod
    def from_json(cls, data: dict):
        """The settings stored by :meth:`to_json` (keys that are not settings are ignored,
        missing ones take their defaults)."""
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in data.items() if k in names}
        if isinstance(kw.get("integrator"), dict):
            try:
                kw["integrator"] = integrator_from_json(kw["integrator"])
            except ValueError as exc:
                raise SettingError("integrator", f"integrator: {exc}") from None
        if isinstance(kw.get("jacobian"), list):
            kw["jacobian"] = frozenset(kw["jacobian"])
        for f in dataclasses.fields(cls):
            if f.default is dataclasses.MISSING and f.name not in kw:
                raise SettingError(f.name, f"the setting {f.name} is missing")
        return cls(**kw)

    @classmethod
    def reference(cls) -> str:
        """One line per setting: name, default, bounds, description."""
        lines = []
        for f in dataclasses.fields(cls):
            about = f.metadata["setting"]
            dflt = "required" if f.default is dataclasses.MISSING else f"default {f.default!r}"
            bounds = _bound_text(about)
            lines.append(f"{f.name} ({dflt}{'; ' + bounds if bounds else ''}): {about.doc}")
        return "\n".join(lines)


#: the checked value of every plain (numbers, flags, choices) default, by settings class
_DEFAULTS: dict[type, dict[str, Any]] = {}
#: the dataclass fields of every settings class (Settings._fields)
_FIELDS: dict[type, tuple] = {}


def _plain(key, v, hint, about: About):
    """A number, flag, choice or optional one of them, checked against its bounds."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is Union and type(None) in args:
        if v is None:
            return None
        hint = next(a for a in args if a is not type(None))
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        if v not in choices or not isinstance(v, str):
            close = difflib.get_close_matches(str(v), choices, n=1, cutoff=0.5)
            hint_ = f"; did you mean {close[0]!r}?" if close else ""
            raise SettingError(key, f"{key} must be one of {', '.join(map(repr, choices))}, got {v!r}{hint_}")
        return v
    if hint is bool:
        if isinstance(v, bool) or type(v).__name__ == "bool_":
            return bool(v)
        raise SettingError(key, f"{key} must be True or False, got {v!r}")
    if hint is int:
        if isinstance(v, numbers.Integral) and not isinstance(v, bool):
            v = int(v)
        elif isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer():
            v = int(v)
        else:
            raise SettingError(key, f"{key} must be a whole number, got {v!r}")
    elif hint is float:
        if not isinstance(v, numbers.Real) or isinstance(v, bool):
            raise SettingError(key, f"{key} must be a number, got {v!r}")
        v = float(v)
        if not math.isfinite(v):
            raise SettingError(key, f"{key} must be a finite number, got {v!r}")
    else:  # pragma: no cover - a field type without a check
        raise TypeError(f"setting {key}: no check for type {hint!r}")
    for op, bound, ok in ((">", about.gt, lambda: v > about.gt), ("≥", about.ge, lambda: v >= about.ge),
                          ("≤", about.le, lambda: v <= about.le)):
        if bound is not None and not ok():
            raise SettingError(key, f"need {key} {op} {bound:g}, got {key} = {v!r}")
    return v


# ---------------------------------------------------------------- shared descriptions

_DOC_MAX_ITER = "Newton iterations per step before the step is halved"
_DOC_LINEAR_SOLVER = ("linear solver of the Newton matrix: auto (chosen from the sparsity pattern), dense, "
                      "banded, superlu, or klu / umfpack (need the package kvxopt)")
_DOC_ASSEMBLE = "assemble the initial configuration (project positions and velocities onto the constraints)"


def _document(cls):
    """Append the setting reference to the class docstring (``help(DynamicSettings)``)."""
    ref = "\n".join("    " + line for line in cls.reference().splitlines())
    cls.__doc__ = (cls.__doc__ or "").rstrip() + "\n\n    Settings:\n\n" + ref + "\n"
    return cls


# ---------------------------------------------------------------- the three analyses


@_document
@dataclass(frozen=True)
class DynamicSettings(Settings):
    """Settings of a time integration (:func:`~flexmbd.solvers.dynamics.simulate`, a model
    file's ``solver:`` section, the settings of a results file).

    The run goes from ``t_start`` to ``t_end`` in steps of ``h`` on the grid
    ``t_start + k h`` (k = 1 … round((t_end − t_start)/h)); a step whose Newton solve fails
    is retried as two halves, recursively, up to ``max_halvings`` times.

    Notes on two settings:

    ``convergence``
        'scaled' (default): the estimated error of the iterate, θ/(1 − θ)·‖Δx‖ (θ the
        contraction of successive increments; Hairer & Wanner, Solving ODEs II, IV.8), in
        q'' and in λ relative to their size, ≤ newton_rtol:
        ‖Δq''‖∞ ≤ newton_rtol·max(a_c, ‖q''‖∞) and ‖Δλ‖∞ ≤ newton_rtol·max(f_c, ‖λ‖∞), with the model's
        characteristic acceleration a_c and force f_c from its initial state
        (:func:`~flexmbd.solvers.initial.characteristic_scales`).  It means the same for
        every model: a model in other force units iterates identically, and a tolerance
        that rounding cannot meet (newton_rtol < 1e-13) is refused.  'residual' (P1): ‖[F; Φ]‖₂ <
        tol, an absolute test on newtons and metres mixed.  'increment' (P3): the
        configuration change of a Newton iteration, ‖Δq‖₂ = h²β' ‖Δq''‖₂ < tol; for stiff
        structures, whose residual cannot fall below the rounding noise of their internal
        forces.
    ``newton_start``
        Each step's Newton iteration starts from the previous step's accelerations, so its
        first configuration is q + h q' + h²(½ − β) a + h²β' q''_n.  When a sudden load meets a
        stiff structure (a torque on the gradients of an ANCF node: q'' ≈ 2e9 at t = 0) that
        start lies units of length away and Newton may converge to a spurious, strongly
        deformed solution of the step's equations; 'zero' starts from q'' = 0, the
        configuration the velocities alone predict (docs/beams-side-by-side.md, Model I).
    ``multipliers``
        The index-3 Newton solution's multipliers λ and accelerations q'' are first order with
        Newmark (with a time-dependent constraint and no velocity projection they alternate
        in sign from step to step), and those of generalized-α carry rounding noise that grows
        like ε/h² (the index-3 equations' condition number).  λ and q'' are algebraic functions
        of (q, q', t), the solution of [M Φ_qᵀ; Φ_q 0] [q''; λ] = [Q − Q_v; γ]; evaluated at the
        step's second-order q and q' they are second order too, with rounding noise that does
        not grow as h → 0.  'consistent' (default) does that after every step (one more
        factorization a step) and continues from them; 'integrator' keeps the Newton
        solution (the schemes of P1 and P3, for comparisons).
    ``project_velocities``
        The index-3 trapezoidal rule (Newmark β = ¼, γ = ½) does not damp the
        velocity-constraint error, which alternates in sign from step to step and, with
        non-linear constraints or spinning Euler-parameter bodies, grows until the run
        fails (Cardona & Géradin 1989); so the default (None) projects for schemes without
        numerical dissipation (α_m = α_f = 0, γ = ½) and not otherwise.
    """

    FOR: ClassVar[str] = "simulate"

    t_end: float = setting(doc="end time [s]; the run starts at t_start (at 0 in a model file)", gt=0)
    h: float = setting(doc="time step [s]", gt=0)
    integrator: Integrator = setting(
        Newmark(), "newmark (β = ¼, γ = ½), hht or generalized-alpha: a name (default parameters), or the "
                   "integrator with its parameters (in a model file a mapping with type and parameters)",
        check=_dynamic_integrator)
    tol: float = setting(1e-7, "Newton tolerance of the absolute tests: on the 2-norm of the residual (convergence "
                               "= residual) or of the configuration change of an iteration (increment)", gt=0)
    newton_rtol: float = setting(1e-8, "relative Newton tolerance of the scaled test (convergence = scaled): the estimated "
                                "error of q'' and λ relative to their size (floors: the model's characteristic "
                                "acceleration and force)", ge=1e-13, le=1e-2)
    max_iter: int = setting(25, _DOC_MAX_ITER, ge=1, le=10000)
    jacobian: Union[str, frozenset] = setting(
        "full", 'Newton matrix: "full", P1 parts such as "M1+M2", or "fd" '
                "(finite differences, for comparison)", check=_dynamic_jacobian)
    refresh: Union[str, int] = setting(
        "newton", "Jacobian refresh: newton (every iteration), step (once a step), contraction (keep the "
                  "factorization across steps until an iteration shrinks the error by less than half or it has "
                  "served 3 iterations of a step), or an integer i (keep the factorization until it has served i "
                  "iterations of a step)", check=_refresh)
    convergence: Literal["scaled", "residual", "increment"] = setting(
        "scaled", "Newton convergence test: scaled (q'' and λ to newton_rtol of their size, the same meaning in any "
                  "units), residual (P1: 2-norm of the residual < tol) or increment (P3: 2-norm of the "
                  "configuration change of an iteration < tol)")
    max_halvings: int = setting(4, "times a failed step is halved before the run stops", ge=0, le=20)
    linear_solver: str = setting("auto", _DOC_LINEAR_SOLVER, check=_linear_solver)
    assemble: bool = setting(True, _DOC_ASSEMBLE)
    t_start: float = setting(0.0, "start time of the run [s] (a model file's run starts at 0)", ge=0,
                             in_file=False)
    project_velocities: Optional[bool] = setting(
        None, "after each step, project q' mass-orthogonally onto the velocity constraints; None: for schemes "
              "without numerical dissipation (α_m = α_f = 0, γ = ½) only")
    method: Literal["index-3", "event-driven", "time-stepping"] = setting(
        "index-3", "index-3: the integrator (Newmark family) on the index-3 equations, joint friction regularised; "
                   "event-driven: P2's acceleration-level method with set-valued friction, Baumgarte "
                   "stabilisation, switches located, RK4 between them (h: output step); time-stepping: "
                   "Moreau–Jean at velocity level with set-valued friction (first order)")
    baumgarte_alpha: float = setting(10.0, "event-driven: Baumgarte α of Φ'' + 2αΦ' + β²Φ = 0 [1/s]", ge=0)
    baumgarte_beta: float = setting(10.0, "event-driven: Baumgarte β [1/s]", ge=0)
    theta: float = setting(0.5, "time-stepping: θ of the Moreau–Jean scheme (0 explicit … 1 implicit positions)",
                           ge=0, le=1)
    rtol: Optional[float] = setting(
        None, "error-controlled steps: the integrator's local error estimate of the coordinates is kept below "
              "rtol·|q| + atol at every step, steps grow and shrink with it, and h becomes the output interval "
              "(each multiple of h is reached exactly); None: fixed steps h", gt=0, le=0.1)
    atol: Optional[float] = setting(
        None, "absolute part of the error-controlled step's tolerance, in the coordinates' units (m, rad, …); "
              "None: rtol × the model's characteristic length (the largest initial coordinate, at least 1)", gt=0)
    h_min: Optional[float] = setting(
        None, "error-controlled steps: the smallest step before the run stops with a diagnosis [s]; None: "
              "1e-10 × (t_end − t_start)", gt=0)
    output_times: Optional[tuple[float, ...]] = setting(
        None, "store the state at exactly these times [s] (and at t_end) instead of every step: the integrator "
              "lands on each (with fixed steps the step that crosses one is split there); not with output_every",
        check=_output_times)
    output_every: int = setting(1, "store every k-th step of the grid t_start + k h (and the last one): the results, "
                                   "the results file and its outputs hold those; per-step statistics are summed "
                                   "over the steps between them", ge=1)
    multipliers: Literal["consistent", "integrator"] = setting(
        "consistent", "multipliers and accelerations reported (and joint reactions): consistent — after each "
                      "step, solved from the index-1 equations at the step's q, q' and t, second order with the "
                      "positions and velocities; integrator — the index-3 Newton solution itself (P1/P3's schemes: "
                      "first order with Newmark, noisy as h → 0)")
    initial: Literal["given", "static"] = setting(
        "given", "initial configuration: given — the model's (assembled onto the constraints); static — the "
                 "static equilibrium under the loads and drivers at t_start (found by the static solver with its "
                 "default settings), so that flexible bodies start deformed by their weight instead of released "
                 "undeformed; the initial velocities are the model's")
    newton_start: Literal["previous", "zero"] = setting(
        "previous", "first Newton iterate of each step for the accelerations: previous (the last step's, "
                    "the usual guess) or zero (for stiff structures started by a sudden load, whose huge first "
                    "accelerations can lead the iteration to a spurious solution; uses the NumPy Newton step)")

    def _check(self) -> None:
        span = self.t_end - self.t_start
        if span <= 0:
            raise SettingError("t_end", f"need t_end > t_start, got t_end = {self.t_end:g} s and "
                                        f"t_start = {self.t_start:g} s")
        if self.h > span * (1 + 1e-9):
            run = f"t_end = {self.t_end:g} s" if self.t_start == 0 else f"t_end − t_start = {span:g} s"
            raise SettingError("h", f"the step h = {self.h:g} s is longer than the run ({run}): no step would be "
                                    "taken")
        if self.output_times is not None:
            if self.output_every != 1:
                raise SettingError("output_times", "output_times and output_every exclude each other: give one")
            outside = [t for t in self.output_times if not self.t_start < t <= self.t_end * (1 + 1e-12)]
            if outside:
                raise SettingError("output_times", f"output_times must lie in (t_start, t_end] = ({self.t_start:g}, "
                                                   f"{self.t_end:g}] s; outside: {outside}")

    @property
    def n_steps(self) -> int:
        """Steps from t_start to t_end (the last lands on the grid point nearest to t_end)."""
        return int(round((self.t_end - self.t_start) / self.h))


@_document
@dataclass(frozen=True)
class StaticSettings(Settings):
    """Settings of a static analysis (:func:`~flexmbd.solvers.static.static_equilibrium`,
    a model file's ``solver: {analysis: static}``): the load factor goes 0, 1/N, …, 1
    (N = ``load_steps``); a load step whose Newton solve fails is retried with the
    increment halved, recursively, up to ``max_cuts`` times."""

    FOR: ClassVar[str] = "static_equilibrium"

    load_steps: int = setting(10, "load increments from 0 to the full load", ge=1, le=100000)
    tol: float = setting(1e-7, "Newton tolerance (see convergence)", gt=0)
    convergence: Literal["residual", "increment"] = setting(
        "residual", "Newton convergence test: 2-norm of the residual, or the estimated error of the Newton "
                    "iterate (for stiff structures such as beams)")
    max_iter: int = setting(50, "Newton iterations per load step before it is halved", ge=1, le=10000)
    max_cuts: int = setting(4, "times a failed load step is halved before the analysis stops", ge=0, le=20)
    jacobian: Union[str, frozenset] = setting(
        "full", 'Newton matrix: "full" or P1 parts such as "M1+M2"',
        check=_static_jacobian)
    time: float = setting(0.0, "time at which drivers and time functions are evaluated [s]", ge=0)
    linear_solver: str = setting("auto", _DOC_LINEAR_SOLVER, check=_linear_solver)
    assemble: bool = setting(True, "assemble the initial configuration first")


@_document
@dataclass(frozen=True)
class KinematicSettings(Settings):
    """Settings of a kinematic analysis (:func:`~flexmbd.solvers.kinematics.kinematic_analysis`,
    a model file's ``solver: {analysis: kinematic}``): positions, velocities, accelerations
    and driver loads at the times t_start, t_start + h, …, t_end of a fully driven mechanism."""

    FOR: ClassVar[str] = "kinematic_analysis"

    t_end: float = setting(doc="last time [s]", gt=0)
    h: float = setting(doc="time increment [s] between the solved times", gt=0)
    t_start: float = setting(0.0, "first time [s]", ge=0)
    tol: float = setting(1e-10, "tolerance on the 2-norm of the constraint residual Φ", gt=0)
    max_iter: int = setting(25, "Newton iterations of the position problem at each time", ge=1, le=10000)
    condition_growth: float = setting(
        1e3, "stop when the condition number of Φ_q grows by more than this factor over its first value "
             "(a dead point)", gt=1)
    loads: bool = setting(True, "compute the multipliers and driver loads (inverse dynamics)")

    def _check(self) -> None:
        if self.t_end <= self.t_start:
            raise SettingError("t_end", f"need t_end > t_start, got t_end = {self.t_end!r}, "
                                        f"t_start = {self.t_start!r}")

    @property
    def n_steps(self) -> int:
        """Time increments from t_start to t_end (the last time is the grid point nearest to t_end)."""
        return max(1, int(round((self.t_end - self.t_start) / self.h)))

    def times(self):
        """The solved times t_start + k h, k = 0 … n_steps."""
        import numpy as np

        return self.t_start + self.h * np.arange(self.n_steps + 1)

    def analysis_kwargs(self) -> dict:
        """Keyword arguments of :func:`~flexmbd.solvers.kinematics.kinematic_analysis`
        (the times instead of t_start, t_end and h)."""
        return {"times": self.times(), "tol": self.tol, "max_iter": self.max_iter,
                "condition_growth": self.condition_growth, "loads": self.loads}


@_document
@dataclass(frozen=True)
class RelaxSettings(Settings):
    """Settings of a dynamic relaxation (:func:`~flexmbd.solvers.relaxation.relax`; not
    a model-file analysis).  Converged when ``E_kin ≤ ke_tol`` and the static residual
    is ``≤ force_tol``; a step whose Newton solve fails is retried as two halves,
    recursively, up to ``max_halvings`` times.

    Notes on three settings:

    ``ke_tol = None``
        Use it with 'physical' damping: modes that no damper reaches (e.g. a bar spinning
        about its own axis, which the Newmark family in Euler parameters excites at O(h)
        for γ > ½) keep a small kinetic energy that does not change the equilibrium shape.
    ``project``
        The projection is min-norm onto Φ_q q' = −Φ_t.  The index-3 Newmark step satisfies
        the constraints only at position level; for Euler parameters the rate ṗ then has a
        spurious component along p, which the marker kinematics A(p)u read as a body
        dilation, so the dampers feel it.  Without the projection a mass-damped relaxation
        can lock into a period-2 oscillation (v → −v every step); see docs/tensegrity.md.
    ``free``
        For a model with no supports and no loads: the rigid-body velocity field that
        carries the net momentum is subtracted.  The Newmark family in Euler parameters
        conserves linear momentum but not angular momentum (the error is O(h) to O(h²)); a
        free structure relaxed with physical damping only would otherwise end in a slow
        rigid rotation that no damper can stop.
    """

    FOR: ClassVar[str] = "relax"

    h: float = setting(0.01, "time step of the (fictitious) motion [s]", gt=0, in_file=False)
    damping: Literal["physical", "kinetic", "viscous"] = setting(
        "kinetic", "how the energy is taken out: physical (the model's dampers), kinetic (restart at rest at "
                   "each kinetic-energy peak) or viscous (added mass-proportional damping)", in_file=False)
    integrator: Integrator = setting(
        Newmark(0.3, 0.6), "the integrator (default Newmark β = 0.3, γ = 0.6, P1's)", check=_relax_integrator,
        in_file=False)
    tol: Optional[float] = setting(None, "Newton tolerance on the 2-norm of the residual (None: force_tol / 10)",
                                   gt=0, in_file=False)
    max_iter: int = setting(50, _DOC_MAX_ITER, ge=1, le=10000, in_file=False)
    ke_tol: Optional[float] = setting(
        1e-14, "kinetic-energy tolerance [J]; None drops the energy test (converged when the static residual "
               "is ≤ force_tol on settle consecutive steps)", ge=0, in_file=False)
    force_tol: float = setting(1e-9, "tolerance on the static residual, the 2-norm of −Q + Φ_qᵀ λ at rest",
                               gt=0, in_file=False)
    max_steps: int = setting(20000, "step budget; then the result says converged = False", ge=1, in_file=False)
    alpha: Optional[float] = setting(
        None, "mass-proportional damping coefficient for viscous damping [1/s] (None: 2 × the lowest non-zero "
              "natural frequency at the start)", ge=0, in_file=False)
    max_halvings: int = setting(6, "times a failed step is halved before the relaxation stops", ge=0, le=20,
                                in_file=False)
    linear_solver: str = setting("auto", _DOC_LINEAR_SOLVER, check=_linear_solver, in_file=False)
    t_start: float = setting(0.0, "time of the start [s] (drivers and time functions)", ge=0, in_file=False)
    project: bool = setting(True, "after every step, project the velocities onto the velocity constraints",
                            in_file=False)
    free: bool = setting(False, "the model is a free system with zero momentum: remove the net linear and "
                                "angular momentum after every step", in_file=False)
    settle: int = setting(5, "consecutive steps with the static residual ≤ force_tol (ke_tol = None)", ge=1,
                          in_file=False)
