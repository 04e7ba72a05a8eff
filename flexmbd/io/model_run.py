"""``flexmbd run``: load a model file, simulate it with a progress line, write results.

:func:`run_model` does the work and returns a :class:`RunOutcome`; the command line
(:func:`flexmbd.cli.cmd_run`) turns a :class:`~.model_file.ModelFileError` into exit
status 2 and a failed run into status 1.

Results go through ``flexmbd.io.results_h5.ResultWriter(path, system, model_text,
settings)``: its ``on_step`` is passed to ``simulate`` and ``close(result,
outputs=...)`` ends the file.  The writer is created only after the model has been
validated, frozen and its initial state assembled, so a bad model never leaves a file.
"""
from __future__ import annotations

import os
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..compile_watch import CompileWatch
from .interrupts import StopFlag
from .model_file import LoadedModel, ModelFileError, load_model_file

#: Wall time [s] after which the progress line appears.
PROGRESS_DELAY = 2.0


class RunError(RuntimeError):
    """The run could not be carried out (not a model-file problem): exit status 1."""


@dataclass
class RunOutcome:
    loaded: LoadedModel
    result: object
    status: int  # 0 completed, 1 failed or stopped, 130/143 interrupted
    message: str
    output: str | None = None
    warnings: list = field(default_factory=list)


class Progress:
    """A one-line progress display on a terminal: simulated time (or load factor),
    steps/s, Newton iterations; then, after the last step, the outputs being written
    (:meth:`outputs`: that phase can take longer than the steps).  It appears only once
    the run has taken ``delay`` seconds."""

    def __init__(self, t_end, stream=None, enabled=True, delay=PROGRESS_DELAY, label="t", unit=" s", paused=None):
        #: ``paused()``: seconds not spent on the steps (compiling kernels), left out of the rate
        self.paused = paused or (lambda: 0.0)
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.t_end = t_end
        self.delay = delay
        self.label, self.unit = label, unit
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.shown = False

    def _due(self):
        now = time.perf_counter()
        if not self.enabled or now - self.t0 < self.delay or now - self.last < 0.1:
            return None
        self.last = now
        return now

    @staticmethod
    def _bar(frac, width=24):
        return "#" * int(frac * width) + "." * (width - int(frac * width))

    def _show(self, line):
        try:
            self.stream.write("\r" + line[:110].ljust(110))
            self.stream.flush()
            self.shown = True
        except (OSError, ValueError):  # a closed terminal must not end the run
            self.enabled = False

    def __call__(self, t, k, n, stats):
        now = self._due()
        if now is None:
            return
        frac = min(1.0, k / n) if n else 1.0
        rate = k / max(now - self.t0 - self.paused(), 1e-9)
        its = getattr(stats, "iterations", 0)
        eta = (n - k) / rate if rate > 0 else float("inf")
        self._show(f"{self.label} = {t:.4g} / {self.t_end:.4g}{self.unit} [{self._bar(frac)}] {100 * frac:3.0f}%  "
                   f"{rate:,.0f} steps/s  {its / max(k, 1):.2f} Newton it./step  ETA {eta:.0f} s")

    def outputs(self, i, n, name):
        """``ResultWriter.close``'s progress hook: output i of n is being computed."""
        if self._due() is None:
            return
        frac = i / n if n else 1.0
        self._show(f"writing outputs [{self._bar(frac)}] {i + 1}/{n}  {name}")

    def finish(self):
        if self.shown:
            try:
                self.stream.write("\r" + " " * 110 + "\r")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self.shown = False


#: The old name of :class:`~.interrupts.StopFlag`.
_StopFlag = StopFlag


def parse_integrator(text):
    """``--integrator`` value: NAME or NAME:PARAMS (hht:0.9, generalized-alpha:0.7,
    newmark:0.3,0.6) → model-file data."""
    if text is None:
        return None
    name, _, params = str(text).partition(":")
    name = name.strip()
    if not params:
        return name
    usage = "use hht:RHO_INF, generalized-alpha:RHO_INF or newmark:BETA,GAMMA"
    try:
        vals = [float(x) for x in params.split(",")]
    except ValueError:
        raise ModelFileError(f"cannot read the parameters {params!r}; {usage}", origin="--integrator") from None
    keys = ("beta", "gamma") if name == "newmark" else ("rho_inf",)
    if len(vals) > len(keys):
        raise ModelFileError(f"too many parameters {params!r}; {usage}", origin="--integrator")
    return {"type": name, **dict(zip(keys, vals))}


def prepare(path, t_end=None, h=None, integrator=None) -> tuple:
    """Load, validate, build, freeze and assemble; every problem is a ModelFileError."""
    loaded = load_model_file(path, t_end=t_end, h=h, integrator=parse_integrator(integrator))
    system = loaded.freeze()
    if loaded.kinematic:  # the drivers must fix every degree of freedom; the motion needs no start
        loaded.check_kinematic(system)
    elif not loaded.static:  # statics assembles its own start (and may have no masses)
        loaded.initial_state()
    return loaded, system


def writer_settings(loaded: LoadedModel) -> dict:
    """The solver settings handed to the results writer: the settings object's JSON form
    (:meth:`~flexmbd.solvers.settings.Settings.to_json`; a static analysis with
    ``analysis = "static"``), the model file's ``redundancy`` and ``outputs``."""
    if loaded.static:
        opts = {"analysis": "static", **loaded.static_settings().to_json()}
    elif loaded.kinematic:
        opts = {"analysis": "kinematic", **loaded.kinematic_settings().to_json()}
    else:
        opts = loaded.simulate_settings().to_json()
    opts["redundancy"] = loaded.spec.solver.redundancy
    opts["outputs"] = list(loaded.spec.outputs)
    return opts


def _format_value(y):
    a = np.asarray(y, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    return "[" + ", ".join(f"{x:.6g}" for x in a.reshape(-1)) + "]"


def run_model(path, output=None, t_end=None, h=None, integrator=None, quiet=False, stdout=None, stderr=None,
              progress_delay=PROGRESS_DELAY, force=False) -> RunOutcome:
    """Run a model file; raises ModelFileError (bad model, or ``output`` is a file that
    must not be replaced: ``force`` replaces it) or RunError (cannot write).

    SIGINT/SIGTERM (:class:`~.interrupts.StopFlag`) stop the run after the current step,
    or while the outputs are written after the last one; the file then says
    "interrupted" and keeps every step.  A write error (disk full) stops the run too:
    status 1, the file "failed" with every step flushed before."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    tty = hasattr(stderr, "isatty") and stderr.isatty()
    with CompileWatch(stderr, announce=tty and not quiet) as compiling:
        loaded, system = prepare(path, t_end, h, integrator)
        if not quiet:
            for w in loaded.warnings:
                print(str(w), file=stderr)
        writer = _open_writer(output, path, system, loaded, force)
        try:
            return _run_with_writer(loaded, system, writer, output, quiet, stdout, stderr, progress_delay, compiling)
        finally:  # a Ctrl-C before the stop flag was in place: the file says so
            if writer is not None and not writer.closed:
                writer.close(None, status="interrupted", message="interrupted before the run started", outputs=False)


def _run_with_writer(loaded, system, writer, output, quiet, stdout, stderr, progress_delay, compiling):
    tty = hasattr(stderr, "isatty") and stderr.isatty()
    created = writer is not None
    with StopFlag(stderr, announce=tty and not quiet) as stop:
        try:
            if loaded.static:
                return _run_static(loaded, system, writer, output, quiet, stdout, stderr, stop, progress_delay,
                                   compiling)
            if loaded.kinematic:
                return _run_kinematic(loaded, system, writer, output, quiet, stdout, stop, compiling)
            return _run_dynamic(loaded, system, writer, output, quiet, stdout, stderr, stop, progress_delay, created,
                                compiling)
        finally:
            if writer is not None and not writer.closed:  # a second Ctrl-C, or a bug: say so in the file
                writer.close(None, status="interrupted", message="interrupted before the results were complete",
                             outputs=False)


def _run_dynamic(loaded, system, writer, output, quiet, stdout, stderr, stop, progress_delay, created, compiling):
    from ..results import Result
    from ..solvers.dynamics import simulate

    settings = loaded.simulate_settings()
    tty = hasattr(stderr, "isatty") and stderr.isatty()
    progress = Progress(settings.t_end, stderr, enabled=tty and not quiet, delay=progress_delay,
                        paused=lambda: compiling.seconds)
    mirror = Result(system, settings.integrator, settings.h)
    write_failure = []

    def on_step(state, stats):
        mirror.append(state, **stats)
        if writer is not None:
            try:
                writer.on_step(state, stats)
            except Exception as exc:  # noqa: BLE001 - disk full...: stop, say so once
                write_failure.append(exc)
                return False
        return False if stop.requested() else None

    failure = None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # redundancy is reported above; numpy overflow shows as a failure
            try:
                # (its wall time leaves out the kernels compiled during the steps)
                res = simulate(loaded.model, settings=settings, system=system, on_step=on_step, progress=progress)
            except KeyboardInterrupt:
                failure = ("interrupted (Ctrl-C)", 130)
                res = None
            except Exception as exc:  # noqa: BLE001 - a failure inside a step, reported as one paragraph
                msg = _located(loaded, exc)
                t_last = mirror.last_time() or 0.0
                failure = (f"the simulation stopped after t = {float(t_last):.6g} s: {msg}", 1)
                res = None
    finally:
        progress.finish()
    if res is None:
        mirror.fail(failure[0])
        mirror.finish()
        res = mirror
    status, message = 0, res.message
    if write_failure:
        status, message = 1, str(write_failure[0])
        res.message = message
    elif failure is not None:
        status, message = failure[1], failure[0]
    elif stop.requested():
        message = f"interrupted by {stop.name} at t = {res.t[-1]:.6g} s"
        res.message = message
        status = stop.exit_status
    elif not res.success:
        status, message = 1, res.message
    outputs_seconds, final = None, None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # outputs of a run that overflowed
        if writer is not None:
            wr_status = {0: None, 1: None}.get(status, "interrupted")
            if write_failure:
                wr_status = "failed"
            c0 = time.perf_counter()
            try:
                final = writer.close(res, status=wr_status, message=None if wr_status is None else message,
                                     outputs=(list(loaded.spec.outputs) or True) if wr_status is None else False,
                                     stop=stop.requested,
                                     progress=progress.outputs)
            except Exception as exc:  # noqa: BLE001
                raise RunError(f"cannot finish {output}: {exc}") from None
            finally:
                progress.finish()
            outputs_seconds = time.perf_counter() - c0
            if status == 0 and final != "completed":
                status, message = _unfinished_outputs(writer, final, stop)
        if not quiet:
            _print_summary(loaded, res, output if created else None, stdout, interrupted=status >= 128,
                           outputs_seconds=outputs_seconds, final=final, compiling=compiling)
    return RunOutcome(loaded, res, status, message, output if created else None, list(loaded.warnings))


def _located(loaded, exc) -> str:
    """An error raised inside a step as one line; when it quotes an expression of the
    file (a law, a function of time), prefixed with that expression's file:line: key."""
    path, msg = loaded.annotate(" ".join(str(exc).split()) or type(exc).__name__)
    if not path:
        path = loaded.path_of_text(msg)
        if path:
            return str(loaded.error(msg, path))
    return msg


def _unfinished_outputs(writer, final, stop):
    """Exit status and message of a run whose steps all completed but whose results file
    did not: interrupted while the outputs were written, or a write error."""
    if writer.write_error is not None:
        return 1, str(writer.write_error)
    if final == "interrupted" and stop.requested():
        return stop.exit_status, (f"interrupted by {stop.name} while the outputs were written; all "
                                  f"{writer.n_saved} steps are saved ('flexmbd run MODEL --resume FILE' writes the "
                                  "outputs)")
    return 1, f"the results file was closed as {final!r}"


def _open_writer(output, path, system, loaded, force=False):
    """The ResultWriter for ``-o output`` (None without -o); usage problems are ModelFileErrors.

    The file is locked (:mod:`.file_guard`) before anything looks at or truncates it: a
    file that a live run writes is never touched.  An existing file is replaced only
    when it is a flexmbd results file of the same model, or with ``force``."""
    writer = None
    if output is not None:
        output = os.fspath(output)
        if os.path.isdir(output):
            raise ModelFileError(f"-o {output}: is a directory; give a file name such as out.h5", (), None, None,
                                 origin="-o")
        parent = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(parent):
            raise ModelFileError(f"-o {output}: the directory {parent} does not exist", (), None, None, origin="-o")
        if os.path.abspath(output) == os.path.abspath(path):
            raise ModelFileError("-o would overwrite the model file", (), None, None, origin="-o")
        try:
            from .file_guard import FileBusyError, WriteLock, os_reason
            from .results_h5 import ResultWriter, replace_refusal
        except ImportError as exc:
            raise RunError(f"writing results needs flexmbd.io.results_h5 ({exc})") from None
        try:
            lock = WriteLock(output)
        except FileBusyError:
            raise RunError(f"{output} is being written by another run (or is open in another program); "
                           "choose another -o file or wait until it has finished") from None
        except OSError as exc:
            raise RunError(f"cannot write {output}: {os_reason(exc)}") from None
        if not lock.created and not force:
            why = replace_refusal(output, loaded.spec.name, loaded.text)
            if why is not None:
                lock.release()
                raise ModelFileError(f"{why}; give another file name, or --force to replace it", (), None, None,
                                     origin="-o")
        try:
            writer = ResultWriter(output, system, loaded.text, writer_settings(loaded), lock=lock)
        except Exception as exc:  # noqa: BLE001 - reported as one line
            raise RunError(f"cannot create {output}: {exc}") from None
    return writer


def _run_static(loaded, system, writer, output, quiet, stdout, stderr, stop, progress_delay,
                compiling=None) -> RunOutcome:
    """A static analysis: equilibria along the load path.  In the results file, row k holds
    the equilibrium at load factor ``t[k]``; each row is written as its load step
    converges, so an interrupted analysis keeps the load steps it had reached."""
    from ..results import STAT_FIELDS
    from ..solvers.static import static_equilibrium

    tty = hasattr(stderr, "isatty") and stderr.isatty()
    progress = Progress(1.0, stderr, enabled=tty and not quiet, delay=progress_delay, label="load factor", unit="")
    write_failure = []
    where = output if writer is not None else None
    if writer is not None:
        writer.file["t"].attrs["unit"] = "1 (load factor of a static analysis)"
        writer.file.attrs["analysis"] = "static"

    def on_step(state, stats):
        if writer is not None:
            try:
                writer.on_step(state, {f: stats.get(f, 0) for f in STAT_FIELDS})
            except Exception as exc:  # noqa: BLE001 - disk full...: stop, say so once
                write_failure.append(exc)
                return False
        return False if stop.requested() else None

    res = None
    try:
        res, stopped = _guarded(loaded, writer, where, "a load step", "the static analysis",
                                lambda: static_equilibrium(loaded.model, settings=loaded.static_settings(),
                                                           system=system, on_step=on_step, progress=progress))
    finally:
        progress.finish()
    if stopped is not None:
        return stopped
    status, message, wr_status = (0 if res.success else 1), res.message, None
    reached = f"load factor {res.load_factor[-1]:.4g}" if len(res.load_factor) else "no load step"
    if write_failure:
        status, message, wr_status = 1, str(write_failure[0]), "failed"
    elif stop.requested():
        status, wr_status = stop.exit_status, "interrupted"
        message = f"interrupted by {stop.name} at {reached} (the static analysis is not resumed; run it again)"
    res.message = message
    outputs_seconds, final = None, None
    if writer is not None:
        c0 = time.perf_counter()
        try:
            final = writer.close(res, status=wr_status, message=None if wr_status is None else message,
                                 outputs=(list(loaded.spec.outputs) or True) if wr_status is None else False,
                                 stop=stop.requested,
                                 progress=progress.outputs)
        except Exception as exc:  # noqa: BLE001
            raise RunError(f"cannot finish {output}: {exc}") from None
        finally:
            progress.finish()
        outputs_seconds = time.perf_counter() - c0
        if status == 0 and final != "completed":
            status, message = _unfinished_outputs(writer, final, stop)
            if status >= 128:
                message = f"interrupted by {stop.name} while the outputs were written at {reached}"
    if not quiet:
        _print_summary(loaded, res, where, stdout, interrupted=status >= 128, outputs_seconds=outputs_seconds,
                       final=final, compiling=compiling)
    return RunOutcome(loaded, res, status, message, where, list(loaded.warnings))


def _guarded(loaded, writer, where, during: str, analysis: str, run):
    """(result, None), or (None, the RunOutcome) when ``run()`` is interrupted by Ctrl-C
    ("interrupted (Ctrl-C) during <during>", status 130) or fails ("<analysis> stopped: …",
    status 1); the results file is then closed with that status, without outputs."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return run(), None
    except KeyboardInterrupt:
        status, code, message = "interrupted", 130, f"interrupted (Ctrl-C) during {during}"
    except Exception as exc:  # noqa: BLE001 - reported as one paragraph
        status, code, message = "failed", 1, f"{analysis} stopped: {_located(loaded, exc)}"
    if writer is not None:
        writer.close(None, status=status, message=message, outputs=False)
    return None, RunOutcome(loaded, None, code, message, where, list(loaded.warnings))


def _run_kinematic(loaded, system, writer, output, quiet, stdout, stop, compiling=None) -> RunOutcome:
    """A kinematic analysis (:func:`~flexmbd.solvers.kinematics.kinematic_analysis`) at the
    times of the ``solver:`` section; the rows are written to the results file as in a
    dynamic run (t, q, v, accelerations, multipliers, named outputs such as the driver
    loads ``<driver>.torque``)."""
    from ..results import STAT_FIELDS
    from ..solvers.initial import StepState
    from ..solvers.kinematics import kinematic_analysis

    where = output if writer is not None else None
    if writer is not None:
        writer.file.attrs["analysis"] = "kinematic"
    res, stopped = _guarded(loaded, writer, where, "the kinematic analysis", "the kinematic analysis",
                            lambda: kinematic_analysis(loaded.model, system=system, **loaded.kinematic_options()))
    if stopped is not None:
        return stopped
    status, message = (0 if res.success else 1), res.message
    if not res.success:
        message = _located(loaded, message)
    if stop.requested():
        status, message = stop.exit_status, f"interrupted by {stop.name}"
    outputs_seconds, final = None, None
    if writer is not None:
        c0 = time.perf_counter()
        wr_status = None if status == 0 else ("failed" if status == 1 else "interrupted")
        try:
            for k in range(len(res.t)):
                state = StepState(float(res.t[k]), res.q[k], res.v[k], res.qdd[k], res.qdd[k], res.lam[k])
                writer.on_step(state, {f: res.stats[f][k] if f in res.stats else 0 for f in STAT_FIELDS})
            final = writer.close(res, status=wr_status, message=None if wr_status is None else message,
                                 outputs=(list(loaded.spec.outputs) or True) if len(res.t) else False,
                                 stop=stop.requested)
        except Exception as exc:  # noqa: BLE001
            raise RunError(f"cannot write {output}: {exc}") from None
        outputs_seconds = time.perf_counter() - c0
        if status == 0 and final != "completed":
            status, message = _unfinished_outputs(writer, final, stop)
    if not quiet:
        _print_summary(loaded, res, where, stdout, interrupted=status >= 128, outputs_seconds=outputs_seconds,
                       final=final, compiling=compiling)
    return RunOutcome(loaded, res, status, message, where, list(loaded.warnings))


def _driver_load_names(res) -> list:
    """The outputs of a kinematic result's driver loads: ``<driver>.torque`` or ``.force``."""
    names = set(res.names())
    out = []
    for driver in res.driver_loads():
        out += [nm for nm in (f"{driver}.torque", f"{driver}.force") if nm in names][:1]
    return out


def _print_summary(loaded, res, output, out, interrupted=False, outputs_seconds=None, final=None, compiling=None):
    name = loaded.spec.name
    first = res.summary().splitlines()[0]
    if loaded.kinematic:
        first = res.message if res.success else f"FAILED: {res.message}"
    if interrupted:
        first = first.replace("FAILED", "INTERRUPTED", 1)
    print(f"{name}: {first}", file=out)
    if compiling is not None and compiling.summary():
        print(compiling.summary(), file=out)
    if getattr(res, "assembly", None) is not None:
        print(f"  {res.assembly.summary()}", file=out)
    shown = list(loaded.spec.outputs)
    if loaded.kinematic and len(res.t):
        shown += [nm for nm in _driver_load_names(res) if nm not in shown]
    if shown and len(res.t):
        if loaded.static:
            print(f"outputs at load factor {res.load_factor[-1]:.6g}:", file=out)
        else:
            print(f"outputs at t = {res.t[-1]:.6g} s:", file=out)
        width = max(len(n) for n in shown)
        for nm in shown:
            try:
                val = _format_value(res[nm][-1])
            except Exception as exc:  # noqa: BLE001 - an output must not abort the summary
                val = f"(not available: {exc})"
            print(f"  {nm:<{width}}  {val}", file=out)
    if output and final not in (None, "completed"):
        print(f"results so far in {output} (status {final!r})", file=out)
    elif output:
        took = f" (outputs written in {outputs_seconds:.3g} s)" if outputs_seconds and outputs_seconds >= 0.5 else ""
        print(f"results written to {output}{took}", file=out)


__all__ = ["run_model", "prepare", "parse_integrator", "writer_settings", "Progress", "RunOutcome", "RunError"]
