"""Model files with a top-level ``tmm:`` section: a DT-TMM chain or P5's roller rig
(flexmbd.tmm, docs/solvers/tmm.md), validated by pydantic models whose errors name the
key and its line, run by ``flexmbd run``, results written to HDF5.

    tmm:
      h: 1.0e-5
      t_end: 0.01
      chain:
        left: clamped            # free | pinned | clamped
        right: free
        elements:
          - {type: beam, name: s1, length: 0.5, EI: 1.6e6, rhoA: 240, n_modes: 6}
          - {type: rigid, name: tip, mass: 80, J: 2}
          - {type: spring, name: bearing, k: 1.0e9, c: 2.0e4}
        loads:
          - {element: tip, force: -1000, scale: "sin(60*t)"}
          - {element: s1, distributed: -2354}       # N/m, upward positive

or ``rig: {speed: 400, flexible: true, parameters: {...}, roller: [[...], [...]], wheel: ...}``
with irregularities ``{type: polygon|out_of_round, order, amplitude, phase, radius}``,
``{type: dent, start, length, depth, period}``, ``{type: roughness, rms, wavelengths,
exponent, seed}``, ``{type: iso3095, scale, shortest, seed, radius}``.

Results file (``format = "flexmbd-tmm-results"``, version 2): ``/t`` and ``/outputs/<name>``
(chain: ``stations.acceleration``, ``stations.force``, ``stations.displacement``, each
(N, stations, 2) = (z, θ) or (Q, M); rig: axle-box, wheel, axle accelerations [m/s²],
contact forces [N], ..., and the wheelset's ``stations.displacement``), ``/geometry/station_x``
(the stations' axial positions [m]; attribute ``element_names``, element k between stations
k and k+1; new in version 2: what ``export --vtk`` and ``animate`` draw), attributes
``model_text``, ``status``, ``flexmbd_version``.
"""
from __future__ import annotations

import json
import math
import time

import numpy as np
from pydantic import ValidationError

from .._version import __version__
from ..errors import ModelError
from ..expressions import ExpressionError, compile_tree, parse
from ..results import Result
from ..tmm import irregularity as irr
from ..tmm.chain import Chain
from ..registry import element_type
from .tmm_schema import BandRoughness, Dent, Harmonic, TmmFile
from ..tmm.rig import Rig, RigParameters, with_changes
from .model_file import ModelFileError, parse_text, read_file

FORMAT = "flexmbd-tmm-results"
FORMAT_VERSION = 2


def is_tmm_text(text: str, file: str | None = None) -> bool:
    """Whether a model text holds a top-level ``tmm:`` section."""
    try:
        data, _ = parse_text(text, file)
    except ModelFileError:
        return False
    return isinstance(data, dict) and "tmm" in data


class TmmModel:
    """A validated ``tmm:`` model file, ready to run."""

    def __init__(self, text: str, file: str | None = None, t_end: float | None = None, h: float | None = None):
        self.text, self.file = text, file
        data, self.lines = parse_text(text, file)
        if isinstance(data, dict) and isinstance(data.get("tmm"), dict):
            if t_end is not None:
                data["tmm"]["t_end"] = t_end
            if h is not None:
                data["tmm"]["h"] = h
        try:
            self.spec = TmmFile.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            path = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in
                                                      ("beam", "rigid", "spring", "polygon", "out_of_round",
                                                       "dent", "roughness", "iso3095")))
            raise self.error(err["msg"], path) from None
        sec = self.spec.tmm
        if (sec.chain is None) == (sec.rig is None):
            raise self.error("give exactly one of chain and rig", ("tmm",))
        if sec.h >= sec.t_end:
            raise self.error(f"h ({sec.h}) must be smaller than t_end ({sec.t_end})", ("tmm", "h"))

    def error(self, message, path) -> ModelFileError:
        path = tuple(path)
        line = None
        for k in range(len(path), -1, -1):
            if path[:k] in self.lines:
                line = self.lines[path[:k]]
                break
        return ModelFileError(message, path, line, self.file)

    # ------------------------------------------------------------ chain
    def _chain(self):
        cs = self.spec.tmm.chain
        elements = []
        for i, e in enumerate(cs.elements):
            try:
                elements.append(element_type(e.type, family="tmm").from_spec(e))
            except ModelError as exc:
                raise self.error(str(exc), ("tmm", "chain", "elements", i) + ((exc.key,) if exc.key else ())) \
                    from None
        try:
            chain = Chain(elements, cs.left, cs.right, cs.newmark.beta, cs.newmark.gamma)
        except ModelError as exc:
            key = exc.key if exc.key in ("left", "right") else "elements"
            raise self.error(str(exc), ("tmm", "chain", key)) from None
        terms = []
        for j, ld in enumerate(cs.loads):
            where = ("tmm", "chain", "loads", j)
            if ld.element not in chain.names:
                raise self.error(f"no element named {ld.element!r}; elements: {', '.join(chain.names)}",
                                 where + ("element",))
            i = chain.index(ld.element)
            e = chain.elements[i]
            g = chain.zero_load()
            try:
                vec = e.load(ld.force, ld.moment, ld.distributed)
            except ModelError as exc:
                raise self.error(str(exc), where + ((exc.key,) if exc.key else ())) from None
            g[i, :len(vec)] = vec
            if isinstance(ld.scale, str):
                try:
                    fn = compile_tree(parse(ld.scale))
                except ExpressionError as exc:
                    raise self.error(str(exc), where + ("scale",)) from None
            else:
                fn = (lambda c: (lambda t: c))(float(ld.scale))
            terms.append((g, fn, where))
        return chain, terms

    def run_chain(self):
        chain, terms = self._chain()
        sec = self.spec.tmm

        def load(t):
            out = chain.zero_load()
            for g, fn, where in terms:
                try:
                    s = float(fn(t))
                except (ArithmeticError, ValueError) as exc:
                    raise self.error(f"scale cannot be evaluated at t = {t:g}: {exc}", where + ("scale",)) from None
                if not math.isfinite(s):
                    raise self.error(f"scale is not finite at t = {t:g}", where + ("scale",))
                out += s * g
            return out

        n = int(round(sec.t_end / sec.h))
        self.geometry = {"station_x": chain.station_x(), "element_names": list(chain.names)}
        t0 = time.perf_counter()
        T, A, F, Z = chain.simulate(sec.h, n, load=load)
        return T, {"stations.acceleration": A, "stations.force": F, "stations.displacement": Z}, \
            time.perf_counter() - t0, f"{n} steps of the Riccati transfer, {len(chain.elements)} elements"

    # ------------------------------------------------------------ rig
    def _irregularities(self, entries, p: RigParameters, default_radius, where):
        out = []
        for j, e in enumerate(entries):
            try:
                if isinstance(e, Harmonic):
                    out.append(irr.harmonic(e.radius or default_radius, e.order, e.amplitude, e.phase, name=e.type))
                elif isinstance(e, Dent):
                    out.append(irr.dent(e.start, e.length, e.depth, e.period))
                elif isinstance(e, BandRoughness):
                    levels = {lam: L for lam, L in irr.ISO3095_LIMIT.items() if lam >= e.shortest}
                    out.append(irr.band_roughness(levels, e.seed, 2 * math.pi * (e.radius or default_radius),
                                                  scale=e.scale))
                else:
                    ex = e.exponent
                    out.append(irr.random_roughness(lambda k: k ** -ex, tuple(e.wavelengths), e.seed, rms=e.rms))
            except ModelError as exc:
                raise self.error(str(exc), where + (j,)) from None
        return irr.combine(out)

    def run_rig(self):
        rs, sec = self.spec.tmm.rig, self.spec.tmm
        try:
            p = with_changes(RigParameters(), **{k: (tuple(v) if isinstance(v, list) else v)
                                                for k, v in rs.parameters.items()})
        except ModelError as exc:
            raise self.error(str(exc), ("tmm", "rig", "parameters", exc.key)) from None
        except TypeError as exc:
            raise self.error(str(exc), ("tmm", "rig", "parameters")) from None
        roller = [self._irregularities(rs.roller[i], p, 0.5 * p.roller_diameter, ("tmm", "rig", "roller", i))
                  for i in range(2)]
        wheel = [self._irregularities(rs.wheel[i], p, p.wheel_radius(), ("tmm", "rig", "wheel", i))
                 for i in range(2)]
        try:
            rig = Rig(p, flexible=rs.flexible)
            self.geometry = {"station_x": rig.chain.station_x(), "element_names": list(rig.chain.names)}
            res = rig.run(rs.speed, sec.t_end, h=sec.h, roller=roller, wheel=wheel, settle=rs.settle,
                          every=rs.every)
        except ModelError as exc:
            raise self.error(str(exc), ("tmm", "rig") + ((exc.key,) if exc.key else ())) from None
        return res.t, dict(res.outputs), res.wall_time, \
            (f"{len(res.iterations)} steps, {res.iterations.mean():.2f} predictor-corrector iterations per step "
             f"on average")

    def run(self):
        """(t, outputs, wall seconds, summary)."""
        return self.run_chain() if self.spec.tmm.chain is not None else self.run_rig()


def save(path, t, outputs: dict, model_text: str = "", status: str = "completed", message: str = "",
         geometry: dict | None = None):
    """Write a TMM run to HDF5 (layout in the module docstring)."""
    import h5py

    with h5py.File(path, "w") as f:
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["flexmbd_version"] = __version__
        f.attrs["status"] = status
        f.attrs["message"] = message
        f.attrs["model_text"] = model_text
        f.create_dataset("t", data=np.asarray(t))
        g = f.create_group("outputs")
        for name, val in outputs.items():
            g.create_dataset(name, data=np.asarray(val))
        if geometry:
            geo = f.create_group("geometry")
            geo.create_dataset("station_x", data=np.asarray(geometry["station_x"], dtype=float))
            geo.attrs["element_names"] = json.dumps(list(geometry["element_names"]))


def load(path) -> tuple[np.ndarray, dict, dict]:
    """(t, outputs, attributes) of a TMM results file; the attributes hold ``station_x`` and
    ``element_names`` when the file has the chain's geometry (files since format version 2)."""
    import h5py

    with h5py.File(path, "r") as f:
        if f.attrs.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} file")
        attrs = dict(f.attrs)
        if "geometry" in f:
            attrs["station_x"] = f["geometry/station_x"][()]
            attrs["element_names"] = json.loads(f["geometry"].attrs["element_names"])
        return f["t"][()], {k: v[()] for k, v in f["outputs"].items()}, attrs


def is_tmm_results(path) -> bool:
    """Whether ``path`` is a DT-TMM results file (False for anything else, unreadable included)."""
    try:
        import h5py

        with h5py.File(path, "r") as f:
            fmt = f.attrs.get("format")
        return (fmt.decode() if isinstance(fmt, bytes) else fmt) == FORMAT
    except Exception:  # noqa: BLE001 - not an HDF5 file, missing, ...: the regular loader reports it
        return False


class TmmResult(Result):
    """A DT-TMM results file read back with the :class:`~flexmbd.results.Result` interface
    that ``flexmbd plot`` and ``flexmbd export --csv`` use: ``t``, :meth:`names`, ``[name]``,
    :meth:`plot`.  Station arrays (N, stations, 2) appear per station as
    ``station<k>.acceleration`` (z'', θ''), ``station<k>.force`` (Q, M),
    ``station<k>.displacement`` (z, θ)."""

    def __init__(self, path):
        t, outputs, attrs = load(path)
        self.t, self.path, self.attrs = t, str(path), attrs
        self.status = str(attrs.get("status", ""))
        self.message = str(attrs.get("message", ""))
        self.success = self.status == "completed"
        self._cache, self.extra, self.events = {}, {}, []
        self.stored = outputs                      # as stored: station arrays (N, stations, 2)
        self._outputs = {}
        for name, val in outputs.items():
            if val.ndim == 3 and name.startswith("stations."):
                for k in range(val.shape[1]):
                    self._outputs[f"station{k}.{name.split('.', 1)[1]}"] = val[:, k]
            else:
                self._outputs[name] = val
        self.body_names = []

    def names(self):
        return list(self._outputs)

    def summary(self) -> str:
        """One line: status, stored steps, end time, outputs (what the file holds)."""
        n = max(len(self.t) - 1, 0)
        end = f"{self.t[-1]:.6g}" if len(self.t) else "—"
        s = (f"{'completed' if self.success else 'FAILED'} (DT-TMM): {n} stored steps to t = {end} s, "
             f"{len(self._outputs)} outputs")
        return s + ("" if self.success else "\n" + self.message)

    def _output(self, name):
        try:
            return self._outputs[name]
        except KeyError:
            raise KeyError(f"no output named {name!r}; available: {', '.join(self._outputs)}") from None


def run_file(path, output=None, t_end=None, h=None, quiet=False, stdout=None) -> int:
    """``flexmbd run`` of a ``tmm:`` model file: 0 on success (ModelFileError for bad input)."""
    import sys

    stdout = stdout or sys.stdout
    text = read_file(path)
    model = TmmModel(text, str(path), t_end=t_end, h=h)
    t, outputs, wall, what = model.run()
    if output is not None:
        save(output, t, outputs, model_text=text, geometry=getattr(model, "geometry", None))
    if not quiet:
        print(f"completed (DT-TMM): t = {t[-1]:.6g} s, {what}, {wall:.3f} s wall"
              + (f"; results in {output}" if output else ""), file=stdout)
    return 0
