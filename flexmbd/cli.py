"""Command-line interface: ``flexmbd example`` and ``flexmbd verify``.

:func:`main` takes an argument list and returns the exit status, so it can be
called from tests; the ``flexmbd`` console script exits with its result.
Errors are reported as one line on stderr, never as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import pathlib
import sys
from typing import Sequence

PROG = "flexmbd"

MAIN_EPILOG = """\
examples:
  flexmbd example                        list the examples
  flexmbd example slider-crank-sda       run one, writing plots to the current dir
  flexmbd verify                         compare results with reference values
  flexmbd run model.yaml -o out.h5       simulate a model file, write the results
  flexmbd example pendulum --dump        write an example's model file (pendulum.yaml)
  flexmbd schema                         the JSON Schema of model files
  flexmbd plot out.h5 slider.position    PNG plot of a named output
  flexmbd export out.h5 --vtk vtk        ParaView time series (vtk/out.pvd)
  flexmbd animate out.h5 -o run.gif      animated GIF of the run
  flexmbd sweep model.yaml --param forces.sda.k=1e2,1e3 -o study.h5   parameter study on Dask
  flexmbd view out.h5                    interactive 3D page of the run (HTML)
  flexmbd --version
"""

EXAMPLE_EPILOG = """\
examples:
  flexmbd example                                  list the examples
  flexmbd example slider-crank-sda                 run it, plots go to the current dir
  flexmbd example slider-crank-sda --out results   write the plots to ./results
  flexmbd example slider-crank-sda --quiet         no summary printed
  flexmbd example slider-crank-sda --dump          write its model file, slider-crank-sda.yaml
  flexmbd example pendulum --dump my.yaml          ... to my.yaml ('-' for standard output)
  flexmbd example pendulum --dump --force          ... replacing an edited pendulum.yaml
"""

VERIFY_EPILOG = """\
examples:
  flexmbd verify                 run the quick reference comparisons
  flexmbd verify --all           also run the slow ones
  flexmbd verify CASE1 CASE2     run only the named cases (slow ones too)
  flexmbd verify --json          machine-readable output
exit status: 0 if every comparison passed, 1 if any failed, 2 on usage errors.
"""

TABLE_COLUMNS = ("case", "quantity", "reference", "flexmbd", "rel. error", "tolerance", "pass/FAIL", "source")
NUMERIC_COLUMNS = {"reference", "flexmbd", "rel. error", "tolerance"}
JSON_KEYS = ("case", "quantity", "reference", "value", "unit", "rel_error", "tolerance", "passed", "source")


class CLIError(Exception):
    """An error reported to the user as one line; carries the exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors raise :class:`CLIError` (status 2)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise CLIError(f"{self.prog}: error: {message} (see '{self.prog} --help')", 2)


def _version() -> str:
    """Installed version of flexmbd, or 'unknown' when not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flexmbd")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with its ``example`` and ``verify`` commands."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="flexmbd: multibody dynamics with rigid and flexible bodies.",
        epilog=MAIN_EPILOG,
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p_ex = sub.add_parser(
        "example",
        help="list or run the bundled examples",
        description="List the bundled examples, or run one: it prints a summary and writes its plots.",
        epilog=EXAMPLE_EPILOG,
        formatter_class=fmt,
    )
    p_ex.add_argument("name", nargs="?", metavar="NAME", help="example to run; omit to list them")
    p_ex.add_argument(
        "--out", metavar="DIR", type=pathlib.Path, default=pathlib.Path("."),
        help="directory for the plot files (created if missing; default: current dir)",
    )
    p_ex.add_argument("--quiet", action="store_true", help="do not print the summary")
    p_ex.add_argument(
        "--dump", nargs="?", const="", default=None, metavar="FILE",
        help="write the example's model file instead of running it (default: NAME.yaml in --out; '-' = stdout)",
    )
    p_ex.add_argument("--force", action="store_true", help="let --dump replace a file that differs (an edited copy)")
    p_ex.set_defaults(handler=cmd_example)

    p_ver = sub.add_parser(
        "verify",
        help="compare flexmbd results with reference values",
        description="Run the registered reference comparisons and print a table of the results.",
        epilog=VERIFY_EPILOG,
        formatter_class=fmt,
    )
    p_ver.add_argument("cases", nargs="*", metavar="CASE", help="cases to run (default: all quick ones)")
    p_ver.add_argument("--json", action="store_true", help="print only a JSON list of the comparisons")
    p_ver.add_argument("--all", action="store_true", help="include slow cases")
    p_ver.set_defaults(handler=cmd_verify)
    _add_model_commands(sub)
    _add_result_commands(sub)
    from .sweep.command import add_parser as _add_sweep
    _add_sweep(sub)
    from flexmbd.viewer.command import add_view_command
    add_view_command(sub, dict(prog=PROG, error=CLIError, load=_load_results, aliases=_beam_aliases, check=_check_names))
    return parser


# ---------------------------------------------------------------- example


def cmd_example(args: argparse.Namespace) -> int:
    """List the examples, or run the one named."""
    try:
        from flexmbd.examples import registry
        examples = registry.load_examples()
    except Exception as exc:  # noqa: BLE001 - one-line report
        raise CLIError(f"{PROG} example: error: could not load examples: {type(exc).__name__}: {exc}")

    models = _bundled_models()
    if args.name is None:
        if not examples and not models:
            print("no examples registered")
            return 0
        width = max(len(n) for n in [*examples, *models])
        print("available examples:")
        for name in sorted(examples):
            print(f"  {name:<{width}}  {examples[name].description}")
        extra = sorted(set(models) - set(examples))
        if extra:
            from flexmbd.io.model_library import description

            print("model files (run with 'flexmbd example NAME', or write out with --dump):")
            for name in extra:
                print(f"  {name:<{width}}  {description(models[name])}")
        print(f"run one with: {PROG} example NAME; write its model file with: {PROG} example NAME --dump")
        return 0

    if args.name not in examples and args.name not in models:
        names = ", ".join(sorted({*examples, *models})) or "(none registered)"
        raise CLIError(f"{PROG} example: error: unknown example {args.name!r}; available: {names}", 2)

    if args.dump is not None:
        return _dump_example(args, models)
    if args.name not in examples:
        return _run_model_example(args, models[args.name])

    out_dir = args.out
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"{PROG} example: error: cannot create output directory {str(out_dir)!r}: {exc}")
    from flexmbd.compile_watch import CompileWatch

    tty = sys.stderr.isatty()
    with CompileWatch(sys.stderr, announce=tty and not args.quiet) as compiling:
        try:
            examples[args.name].run(out_dir, quiet=args.quiet)
        except Exception as exc:  # noqa: BLE001 - one-line report
            raise CLIError(f"{PROG} example: error: example {args.name!r} failed: {type(exc).__name__}: {exc}")
    if compiling.summary() and not args.quiet:
        print(compiling.summary().strip())
    return 0


def _bundled_models() -> dict:
    try:
        from flexmbd.io.model_library import bundled_models, bundled_tmm_models

        return {**bundled_models(), **bundled_tmm_models()}
    except Exception:  # noqa: BLE001 - listing must work without the model-file tools
        return {}


def _dump_example(args: argparse.Namespace, models: dict) -> int:
    """``example NAME --dump [FILE]``: copy the bundled model file out."""
    if args.name not in models:
        raise CLIError(f"{PROG} example: error: example {args.name!r} has no model file yet", 1)
    src = models[args.name]
    text = src.read_text(encoding="utf-8")
    if args.dump == "-":
        sys.stdout.write(text)
        return 0
    dest = pathlib.Path(args.dump) if args.dump else args.out / src.name
    if args.dump and not dest.parent.is_dir():  # as 'run -o': an explicit FILE needs an existing directory
        raise CLIError(f"{PROG} example: error: --dump {args.dump}: the directory {str(dest.parent)!r} "
                       "does not exist", 2)
    if dest.is_dir():
        raise CLIError(f"{PROG} example: error: --dump {dest}: is a directory; give a file name", 2)
    if dest.exists() and not args.force:
        try:
            same = dest.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            raise CLIError(f"{PROG} example: error: {dest} exists and differs from the example's model file "
                           "(edited?); give another FILE, or --force to replace it", 2)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)  # the default place, --out, is created if missing
        dest.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"{PROG} example: error: cannot write {str(dest)!r}: {exc.strerror or exc}")
    if not args.quiet:
        print(f"model file written to {dest}; run it with: {PROG} run {dest}")
    return 0


def _run_model_example(args: argparse.Namespace, path) -> int:
    """Run an example that exists only as a model file; plot its outputs into --out."""
    from flexmbd.io.model_file import ModelFileError
    from flexmbd.io.model_run import RunError, run_model

    out_dir = args.out
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"{PROG} example: error: cannot create output directory {str(out_dir)!r}: {exc}")
    try:
        outcome = run_model(path, quiet=args.quiet)
    except (ModelFileError, RunError) as exc:
        raise CLIError(f"{PROG} example: error: example {args.name!r} failed: {exc}")
    res = outcome.result
    names = [n for n in outcome.loaded.spec.outputs if not n.startswith("energy.")][:4]
    if names and len(res.t) > 1:
        plot = out_dir / f"{args.name.replace('-', '_')}.png"
        try:
            res.plot(*names, path=plot)
        except Exception as exc:  # noqa: BLE001 - one-line report
            raise CLIError(f"{PROG} example: error: cannot plot {args.name!r}: {type(exc).__name__}: {exc}")
        if not args.quiet:
            print(f"plot written to {plot}")
    if outcome.status:
        raise CLIError(f"{PROG} example: error: example {args.name!r}: {outcome.message}", 1)
    return 0


# ---------------------------------------------------------------- run, schema

RUN_EPILOG = """\
examples:
  flexmbd run model.yaml                       simulate, print a summary
  flexmbd run model.yaml -o out.h5             ... and write the results (HDF5)
  flexmbd run model.yaml --t-end 0.5 --h 1e-3  override the file's solver settings (--dt, --step = --h;
                                               -h alone is the help)
  flexmbd run model.yaml -o out.h5 --force     replace out.h5 even if it is not a results file of
                                               this model
  flexmbd run model.yaml --integrator hht:0.9  HHT with rho_inf = 0.9 (also newmark:0.3,0.6,
                                               generalized-alpha:0.8)
  flexmbd run model.yaml --resume out.h5       continue an interrupted run in out.h5
  flexmbd run model.yaml --dump-resolved -     print the model with its parameters and expressions
                                               replaced by their values (does not run)
  flexmbd example pendulum --dump              get a model file to start from
exit status: 0 completed, 1 the simulation failed or could not write its results,
2 a bad model file or command line (one message naming the file, line and key),
130 interrupted (Ctrl-C; 143 SIGTERM; the results file keeps every completed step).
"""

SCHEMA_EPILOG = """\
examples:
  flexmbd schema                  the JSON Schema (draft 2020-12) of model files
  flexmbd schema > model.schema.json
  flexmbd schema --markdown       the key reference of docs/model-format.md
"""


def _add_model_commands(sub) -> None:
    """The model-file commands: ``run``, ``modes`` and ``schema``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p_run = sub.add_parser(
        "run",
        help="simulate a model file (YAML or JSON)",
        description="Load a model file, check it, simulate it and print a summary; with -o, write the results "
                    "to an HDF5 file. Runs longer than a few seconds show a progress line on a terminal.",
        epilog=RUN_EPILOG,
        formatter_class=fmt,
    )
    p_run.add_argument("model", metavar="MODEL", help="model file (.yaml, .yml or .json); see docs/model-format.md")
    p_run.add_argument("-o", "--output", metavar="FILE", help="write the results to this HDF5 file (e.g. out.h5)")
    p_run.add_argument("--t-end", type=_positive_float, metavar="T", help="end time [s] (overrides solver.t_end)")
    p_run.add_argument("--h", "--dt", "--step", dest="h", type=_positive_float, metavar="H",
                       help="time step [s] (overrides solver.h); -h alone is the help")
    p_run.add_argument("--integrator", metavar="NAME[:P]",
                       help="newmark, hht or generalized-alpha, optionally with parameters: hht:0.9, "
                            "newmark:0.3,0.6 (overrides solver.integrator)")
    p_run.add_argument("--quiet", action="store_true", help="print nothing but errors (no summary, no progress)")
    p_run.add_argument("--force", action="store_true",
                       help="let -o replace an existing file that is not a results file of the same model")
    p_run.add_argument("--resume", metavar="FILE",
                       help="continue the run stored in this results file from its last saved step")
    p_run.add_argument("--dump-resolved", metavar="FILE",
                       help="write the model file with every parameter and expression replaced by its value "
                            "to FILE ('-': standard output) and stop, without running")
    p_run.set_defaults(handler=cmd_run)

    p_modes = sub.add_parser(
        "modes",
        help="natural frequencies, damping ratios and mode shapes of a model file",
        description="Linearise a model file about its initial state (or its static equilibrium) and print the "
                    "natural frequencies, damping ratios and largest mode-shape entries of the constrained "
                    "system (null-space projection of the linearised index-3 equations).",
        epilog="examples:\n  flexmbd modes pendulum.yaml\n  flexmbd modes arm.yaml --static --count 6\n",
        formatter_class=fmt,
    )
    p_modes.add_argument("model", metavar="MODEL", help="model file (.yaml, .yml or .json)")
    p_modes.add_argument("--static", action="store_true",
                         help="linearise about the static equilibrium (default: the initial state)")
    p_modes.add_argument("--count", type=int, metavar="N", help="print the N lowest modes only")
    p_modes.set_defaults(handler=cmd_modes)

    p_schema = sub.add_parser(
        "schema",
        help="print the JSON Schema of model files",
        description="Print the JSON Schema (draft 2020-12) that model files are validated against.",
        epilog=SCHEMA_EPILOG,
        formatter_class=fmt,
    )
    p_schema.add_argument("--markdown", action="store_true", help="print the key reference as Markdown tables")
    p_schema.set_defaults(handler=cmd_schema)


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def cmd_modes(args: argparse.Namespace) -> int:
    """Print the linearised modes of a model file: 0 done, 1 failed, 2 bad model."""
    from flexmbd.errors import ModelError
    from flexmbd.io.model_file import ModelFileError, load_model_file
    from flexmbd.solvers.modes import linear_modes

    if args.count is not None and args.count < 1:
        raise CLIError(f"{PROG} modes: error: --count must be at least 1, got {args.count}", 2)
    try:
        model = load_model_file(args.model).model
    except ModelFileError as exc:
        raise CLIError(f"{PROG} modes: error: {exc}", 2)
    try:
        modes = linear_modes(model, "static" if args.static else "initial")
    except ModelError as exc:
        raise CLIError(f"{PROG} modes: error: {exc}", 1)
    except (KeyboardInterrupt, BrokenPipeError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - never a traceback; this is a bug to report
        raise CLIError(f"{PROG} modes: internal error with {args.model}: {type(exc).__name__}: {exc} "
                       "(please report this with the model file)", 1)
    print(modes.table(args.count))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema (or its Markdown reference)."""
    from flexmbd.io.model_schema import json_schema, reference_markdown

    if args.markdown:
        sys.stdout.write(reference_markdown())
    else:
        print(json.dumps(json_schema(), indent=2, ensure_ascii=False))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run a model file: 0 completed, 1 failed, 2 bad model, 130 interrupted."""
    from flexmbd.io.model_file import ModelFileError
    from flexmbd.io.model_run import RunError, run_model

    if _is_tmm_file(args.model):
        return _run_tmm(args)
    if args.dump_resolved is not None:
        return _dump_resolved(args)
    if args.resume is not None:
        return _resume(args)
    try:
        outcome = run_model(args.model, output=args.output, t_end=args.t_end, h=args.h,
                            integrator=args.integrator, quiet=args.quiet, force=args.force)
    except ModelFileError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 2)
    except RunError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 1)
    except ImportError as exc:  # an optional package the model file asks for (e.g. linear_solver: klu)
        raise CLIError(f"{PROG} run: error: {exc}", 1)
    except (CLIError, KeyboardInterrupt, BrokenPipeError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - never a traceback; this is a bug to report
        raise CLIError(f"{PROG} run: internal error while running {args.model}: {type(exc).__name__}: {exc} "
                       "(please report this with the model file)", 1)
    if outcome.status:
        where = f"; the results up to then are in {outcome.output}" \
            if outcome.output and outcome.output not in outcome.message else ""
        raise CLIError(f"{PROG} run: {outcome.message}{where}", outcome.status)
    return 0


def _is_tmm_file(path) -> bool:
    """Whether a model file holds a top-level ``tmm:`` section (DT-TMM, docs/solvers/tmm.md)."""
    from flexmbd.io.model_file import ModelFileError, read_file
    from flexmbd.io.tmm_file import is_tmm_text

    try:
        return is_tmm_text(read_file(path), str(path))
    except ModelFileError:
        return False


def _run_tmm(args: argparse.Namespace) -> int:
    """``run`` of a ``tmm:`` model file (a DT-TMM chain or P5's roller rig)."""
    from flexmbd.io.model_file import ModelFileError
    from flexmbd.io.tmm_file import run_file

    if args.resume is not None:
        raise CLIError(f"{PROG} run: error: --resume does not apply to a tmm: model file: a DT-TMM run keeps no "
                       "solver state to continue from; run it again with the longer --t-end", 2)
    unsupported = [opt for opt, val in (("--integrator", args.integrator),
                                        ("--dump-resolved", args.dump_resolved)) if val is not None]
    if unsupported:
        raise CLIError(f"{PROG} run: error: {', '.join(unsupported)} do(es) not apply to a tmm: model file", 2)
    try:
        return run_file(args.model, output=args.output, t_end=args.t_end, h=args.h, quiet=args.quiet)
    except ModelFileError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 2)
    except (CLIError, KeyboardInterrupt, BrokenPipeError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - never a traceback
        raise CLIError(f"{PROG} run: internal error while running {args.model}: {type(exc).__name__}: {exc} "
                       "(please report this with the model file)", 1)


def _dump_resolved(args: argparse.Namespace) -> int:
    """``run MODEL --dump-resolved FILE``: the model file with numbers for its parameters
    and expressions (the command-line solver settings applied), written without running."""
    from flexmbd.io.model_file import ModelFileError, dump_yaml, load_model_file
    from flexmbd.io.model_run import parse_integrator

    if args.resume is not None or args.output is not None:
        raise CLIError(f"{PROG} run: error: --dump-resolved writes the model and does not run it; "
                       "leave out -o and --resume", 2)
    try:
        loaded = load_model_file(args.model, t_end=args.t_end, h=args.h, integrator=parse_integrator(args.integrator))
    except ModelFileError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 2)
    header = (f"{pathlib.Path(args.model).name} with every parameter and expression replaced by its value\n"
              f"(written by: {PROG} run {args.model} --dump-resolved)")
    text = dump_yaml(loaded.file_data(resolved=True), header=header)
    if args.dump_resolved == "-":
        sys.stdout.write(text)
        return 0
    dest = pathlib.Path(args.dump_resolved)
    if dest.resolve() == pathlib.Path(args.model).resolve():
        raise CLIError(f"{PROG} run: error: --dump-resolved would overwrite the model file", 2)
    try:
        dest.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"{PROG} run: error: cannot write {str(dest)!r}: {exc.strerror or exc}", 1)
    if not args.quiet:
        print(f"resolved model written to {dest}")
    return 0


def _resume(args: argparse.Namespace) -> int:
    """``run MODEL --resume FILE``: continue FILE with the model (validated first).

    The run goes on with the stored time step and integrator (on the same time grid, so
    that it equals an uninterrupted run): ``--h`` and ``--integrator`` are refused, and
    ``--t-end`` sets a new end time.  A completed file that needs no more steps is left
    untouched.  SIGINT/SIGTERM stop it cleanly, as in a fresh run."""
    from flexmbd.compile_watch import CompileWatch
    from flexmbd.io.interrupts import StopFlag
    from flexmbd.io.model_file import ModelFileError
    from flexmbd.io.model_run import Progress, prepare

    if args.output is not None:
        raise CLIError(f"{PROG} run: error: give either -o or --resume (a resumed run writes to its own file)", 2)
    for opt, value in (("--h", args.h), ("--integrator", args.integrator)):
        if value is not None:
            raise CLIError(f"{PROG} run: error: {opt} cannot be changed by --resume: the run goes on with the "
                           "time step and integrator stored in the file (start a new run with -o to change it)", 2)
    try:
        loaded, _ = prepare(args.model)
    except ModelFileError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 2)
    if loaded.analysis != "dynamic":
        raise CLIError(f"{PROG} run: error: --resume: {args.model} is a {loaded.analysis} analysis (solver.analysis: "
                       f"{loaded.analysis}), which is not resumed; run it again", 2)
    try:
        from flexmbd.io.results_h5 import (ResultsFileError, ResultsWriteError, check_same_model, resume_info,
                                           resume_run)
    except ImportError as exc:
        raise CLIError(f"{PROG} run: error: --resume needs flexmbd.io.results_h5 ({exc})", 1)
    try:
        info = resume_info(args.resume)
        check_same_model(args.resume, info, loaded.text)
    except ResultsFileError as exc:
        raise CLIError(f"{PROG} run: error: {exc}", 2)
    stored_end = info["settings"].get("t_end")
    t_end = args.t_end if args.t_end is not None else stored_end
    t_last = info["t_last"]
    if info["status"] == "completed" and t_last is not None and isinstance(t_end, (int, float)) \
            and t_end <= t_last + 1e-9 * max(1.0, abs(t_last)):
        if not args.quiet:
            print(f"{args.resume}: already completed at t = {t_last:.6g} s; nothing to do "
                  "(give a later --t-end to continue it)")
        return 0
    tty = sys.stderr.isatty() and not args.quiet
    progress = Progress(t_end if isinstance(t_end, (int, float)) else loaded.spec.solver.t_end, sys.stderr,
                        enabled=tty)
    with StopFlag(sys.stderr, announce=tty) as stop, CompileWatch(sys.stderr, announce=tty) as compiling:
        try:
            res = resume_run(args.resume, model=loaded.model, t_end=args.t_end, progress=progress,
                             model_text=loaded.text, stop=stop.requested, output_progress=progress.outputs)
        except ResultsWriteError as exc:
            raise CLIError(f"{PROG} run: error: {exc}", 1)
        except ResultsFileError as exc:
            raise CLIError(f"{PROG} run: error: {exc}", 2)
        finally:
            progress.finish()
        if stop.requested():
            where = f"t = {res.t[-1]:.6g} s" if len(res.t) else "the start"
            what = "while the outputs were written" if res.status == "interrupted" and \
                "outputs" in str(res.message) else f"at {where}"
            raise CLIError(f"{PROG} run: interrupted by {stop.name} {what}; {args.resume} keeps every step "
                           "(resume again with --resume)", stop.exit_status)
    if not args.quiet:
        print(f"{loaded.spec.name}: resumed {args.resume}: {res.summary().splitlines()[0]}")
        if compiling.summary():
            print(compiling.summary())
    ok = bool(getattr(res, "success", True))
    if not ok:
        raise CLIError(f"{PROG} run: {' '.join(str(getattr(res, 'message', 'the resumed run failed')).split())}", 1)
    return 0


# ---------------------------------------------------------------- verify


def _fmt_number(x: float) -> str:
    """Format a table number with %.6g."""
    return "%.6g" % x


def _json_number(x: float):
    """JSON has no NaN/Infinity: map non-finite floats to null."""
    return x if math.isfinite(x) else None


def comparison_json(comparisons) -> str:
    """Serialise comparisons as a JSON list with the keys in :data:`JSON_KEYS`."""
    rows = []
    for c in comparisons:
        d = c.to_dict()
        row = {k: d[k] for k in JSON_KEYS}
        for k in ("reference", "value", "rel_error", "tolerance"):
            row[k] = _json_number(row[k])
        rows.append(row)
    return json.dumps(rows, indent=2, allow_nan=False)


def comparison_table(comparisons) -> str:
    """Format comparisons as a fixed-width text table (without the summary line)."""
    rows = []
    for c in comparisons:
        quantity = f"{c.quantity} [{c.unit}]" if c.unit else c.quantity
        rows.append((
            c.case, quantity, _fmt_number(c.reference), _fmt_number(c.value),
            _fmt_number(c.rel_error), _fmt_number(c.tolerance),
            "pass" if c.passed else "FAIL", c.source,
        ))
    rows = [tuple(" ".join(cell.splitlines()) for cell in r) for r in rows]  # one line per row
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(TABLE_COLUMNS)]

    def line(cells) -> str:
        out = []
        for i, (h, cell) in enumerate(zip(TABLE_COLUMNS, cells)):
            if i == len(TABLE_COLUMNS) - 1:
                out.append(cell)  # last column: no padding
            elif h in NUMERIC_COLUMNS:
                out.append(cell.rjust(widths[i]))
            else:
                out.append(cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    lines = [line(TABLE_COLUMNS), line(["-" * w for w in widths])]
    lines += [line(r) for r in rows]
    return "\n".join(lines)


def cmd_verify(args: argparse.Namespace) -> int:
    """Run reference comparisons; exit 1 if any failed."""
    from flexmbd.verify import registry

    try:
        cases = registry.registered_cases()
    except Exception as exc:  # noqa: BLE001 - one-line report
        raise CLIError(f"{PROG} verify: error: could not load verification cases: {type(exc).__name__}: {exc}")

    names = args.cases or None
    try:
        selected = registry.selected_cases(names, include_slow=args.all)
    except registry.UnknownCaseError as exc:
        raise CLIError(f"{PROG} verify: error: {exc}", 2)
    skipped = [] if names else [n for n, c in cases.items() if c.slow and not args.all]

    # In JSON mode stdout must hold only the JSON: send case chatter to stderr.
    quiet_stdout = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with quiet_stdout:
        results = registry.run_cases([c.name for c in selected], include_slow=True)
    failed = sum(1 for c in results if not c.passed)

    if args.json:
        print(comparison_json(results))
        if skipped:
            print(f"skipped slow cases: {', '.join(skipped)} (use --all)", file=sys.stderr)
    else:
        print(comparison_table(results))
        if skipped:
            print(f"skipped slow cases: {', '.join(skipped)} (use --all)")
        print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------- results: plot, export, animate

PLOT_EPILOG = """\
examples:
  flexmbd plot out.h5 --list                          the output names in out.h5
  flexmbd plot out.h5 slider.position sda.force       slider.position.png, sda.force.png here
  flexmbd plot out.h5 energy.total -o plots           write into ./plots (created if missing)
  flexmbd plot out.h5 crank.angular_velocity link.angular_velocity --together
"""

EXPORT_EPILOG = """\
examples:
  flexmbd export out.h5 --vtk vtk                     vtk/out.pvd + vtk/out_00000.vtu ... (open the .pvd in ParaView)
  flexmbd export out.h5 --vtk vtk --every 10          every 10th step (the last step is always kept)
  flexmbd export out.h5 --csv out.csv                 every named output, one column per component
  flexmbd export out.h5 --csv s.csv slider.position sda.force
"""

ANIMATE_EPILOG = """\
examples:
  flexmbd animate out.h5 -o run.gif                   x-y view, at most 200 frames
  flexmbd animate out.h5 -o run.gif --every 5 --fps 25
  flexmbd animate out.h5 -o run.gif --view iso        isometric view (also xz, yz)
"""


def _add_result_commands(sub) -> None:
    """The results-file commands: ``plot``, ``export`` and ``animate``."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("plot", help="plot named outputs of a results file (PNG)",
                       description="Save a PNG plot against time of each named output of an HDF5 results file "
                                   "(written by 'flexmbd run -o').", epilog=PLOT_EPILOG, formatter_class=fmt)
    p.add_argument("file", metavar="FILE", help="results file (.h5)")
    p.add_argument("names", nargs="*", metavar="NAME", help="output names, e.g. slider.position (see --list)")
    p.add_argument("-o", "--out", metavar="DIR", default=".", help="directory for the PNG files (default: .)")
    p.add_argument("--list", action="store_true", help="list the output names and exit")
    p.add_argument("--together", action="store_true", help="all names in one plot (outputs.png or A+B.png)")
    p.add_argument("--dpi", type=_bounded_int(MIN_DPI, MAX_PLOT_DPI), default=100,
                   help=f"resolution (default: 100, {MIN_DPI} to {MAX_PLOT_DPI}; 7 x 4 inches)")
    p.set_defaults(handler=cmd_plot)

    p = sub.add_parser("export", help="export a results file to ParaView (VTK) or CSV",
                       description="Write a ParaView time series (.pvd + one .vtu per frame: bodies as their visual "
                                   "shapes and inertia-equivalent boxes, springs as lines, joints as points) and/or a CSV "
                                   "table of named outputs.", epilog=EXPORT_EPILOG, formatter_class=fmt)
    p.add_argument("file", metavar="FILE", help="results file (.h5)")
    p.add_argument("--vtk", metavar="DIR", help="write FILESTEM.pvd and FILESTEM_NNNNN.vtu into DIR")
    p.add_argument("--csv", nargs="+", metavar=("CSVFILE", "NAME"),
                   help="write t and the named outputs (default: all) to CSVFILE")
    p.add_argument("--every", type=_positive_int, default=1, metavar="N", help="keep every N-th step (default: 1)")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("animate", help="render a results file as an animated GIF",
                       description="Draw the bodies (their visual shapes, docs/viewer.md), beams, springs and "
                                   "joints of every frame with matplotlib and write an animated GIF.",
                       epilog=ANIMATE_EPILOG, formatter_class=fmt)
    p.add_argument("file", metavar="FILE", help="results file (.h5)")
    p.add_argument("-o", "--output", metavar="GIF", help="GIF file to write (default: FILESTEM.gif)")
    p.add_argument("--every", type=_positive_int, default=None, metavar="N",
                   help="keep every N-th step (default: as needed for at most 200 frames)")
    p.add_argument("--fps", type=_positive_int, default=20, help="frames per second (default: 20)")
    p.add_argument("--view", choices=("xy", "xz", "yz", "iso"), default="xy", help="projection (default: xy)")
    p.add_argument("--dpi", type=_bounded_int(MIN_DPI, MAX_ANIMATION_DPI), default=80,
                   help=f"resolution (default: 80, {MIN_DPI} to {MAX_ANIMATION_DPI}; 6 x 4.5 inches)")
    p.set_defaults(handler=cmd_animate)


#: Largest resolutions: a 7 x 4 inch plot at 1000 dpi is 7000 x 4000 pixels (112 MB of
#: RGBA); an animation keeps every frame, 6 x 4.5 inches at 300 dpi is 2.4 MB a frame.
#: Below MIN_DPI the fonts cannot be drawn at all (FreeType refuses the size).
MIN_DPI = 20
MAX_PLOT_DPI = 1000
MAX_ANIMATION_DPI = 300


def _bounded_int(lo: int, hi: int):
    """An argparse type: a whole number from ``lo`` to ``hi`` (larger pictures would
    need gigabytes of memory: refused as a usage error rather than a MemoryError)."""
    def parse(text: str) -> int:
        v = _positive_int(text)
        if v > hi:
            raise argparse.ArgumentTypeError(f"expected at most {hi}, got {text!r}")
        if v < lo:
            raise argparse.ArgumentTypeError(f"expected at least {lo}, got {text!r}")
        return v

    return parse


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return v


def _load_results(cmd: str, path: str, geometry: bool = False):
    """Load a results file for a command (``geometry``: with the geometry the pictures
    need); a note on stderr if the run did not finish."""
    from flexmbd.io.results_h5 import ResultsFileError, load_result
    from flexmbd.io.tmm_file import TmmResult, is_tmm_results

    if is_tmm_results(path):                 # a DT-TMM run (docs/solvers/tmm.md): a chain's deflection line
        try:
            res = TmmResult(path)
        except (OSError, KeyError, ValueError) as exc:
            raise CLIError(f"{PROG} {cmd}: error: {path}: cannot read the DT-TMM results: {exc}", 2)
        if geometry:
            from flexmbd.io.tmm_pictures import NoChainGeometry, chain_line

            try:
                chain_line(res)
            except NoChainGeometry as exc:
                raise CLIError(f"{PROG} {cmd}: error: {exc}", 2)
        return res
    try:
        res = load_result(path)
    except ResultsFileError as exc:
        raise CLIError(f"{PROG} {cmd}: error: {exc}", 2)
    if len(res.t) == 0:
        raise CLIError(f"{PROG} {cmd}: error: {path}: holds no saved step", 2)
    if geometry:
        _check_geometry(cmd, res)
    if res.status != "completed":
        print(f"{PROG} {cmd}: note: {path} is not a completed run (status {res.status!r}: "
              f"{' '.join(str(res.message).split())}); using its {len(res.t)} saved steps up to "
              f"t = {res.t[-1]:.6g} s", file=sys.stderr)
    return res


def _check_geometry(cmd: str, res) -> None:
    """The pictures need the stored geometry: a damaged one is one line naming the file."""
    from flexmbd.io.results_check import ResultsFileError, check_geometry

    try:
        check_geometry(res.geometry, len(res.layout["body_names"]), res.path)
    except ResultsFileError as exc:
        raise CLIError(f"{PROG} {cmd}: error: {exc}", 2)


def _check_names(cmd: str, res, names) -> None:
    """Every name must be an output of res (one-line error with suggestions)."""
    import difflib

    known = res.names()
    for nm in names:
        if nm in known:
            continue
        try:
            res[nm]
            continue
        except KeyError as exc:
            msg = str(exc.args[0]) if exc.args else f"no output named {nm!r}"
        except Exception as exc:  # noqa: BLE001 - one-line report
            raise CLIError(f"{PROG} {cmd}: error: output {nm!r} cannot be computed: {type(exc).__name__}: {exc}", 1)
        if "did you mean" not in msg:
            close = difflib.get_close_matches(nm, known, n=3)
            msg += f"; did you mean {', '.join(close)}?" if close else ""
        raise CLIError(f"{PROG} {cmd}: error: {msg}; list them with '{PROG} plot {res.path} --list'", 2)


def _beam_aliases(res, names) -> list:
    """Output names with the beam-node aliases BEAM.first / BEAM.last replaced by the
    end nodes BEAM.n0 / BEAM.nN, as in model files."""
    import re

    nodes = {}
    for b in getattr(res, "body_names", []):
        m = re.fullmatch(r"(.+)\.n(\d+)", str(b))
        if m:
            nodes.setdefault(m.group(1), []).append(int(m.group(2)))
    out = []
    for nm in names:
        parts = nm.split(".")
        if len(parts) == 3 and parts[0] in nodes and parts[1] in ("first", "last"):
            k = min(nodes[parts[0]]) if parts[1] == "first" else max(nodes[parts[0]])
            nm = f"{parts[0]}.n{k}.{parts[2]}"
        out.append(nm)
    return out


def cmd_plot(args: argparse.Namespace) -> int:
    """Save PNG plots of named outputs."""
    from flexmbd.io.animate import plot_outputs

    res = _load_results("plot", args.file)
    if args.list:
        for nm in res.names():
            print(nm)
        return 0
    if not args.names:
        raise CLIError(f"{PROG} plot: error: give at least one output NAME (list them with "
                       f"'{PROG} plot {args.file} --list')", 2)
    args.names = _beam_aliases(res, args.names)
    _check_names("plot", res, args.names)
    try:
        paths = plot_outputs(res, args.names, args.out, dpi=args.dpi, together=args.together)
    except OSError as exc:
        raise CLIError(f"{PROG} plot: error: cannot write into {args.out!r}: {exc}", 1)
    for p in paths:
        print(p)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a ParaView time series and/or a CSV table."""
    if not args.vtk and not args.csv:
        raise CLIError(f"{PROG} export: error: choose --vtk DIR and/or --csv FILE (see '{PROG} export --help')", 2)
    res = _load_results("export", args.file, geometry=bool(args.vtk))
    if args.vtk:
        from flexmbd.io.tmm_file import TmmResult

        if isinstance(res, TmmResult):
            from flexmbd.io.tmm_pictures import write_vtk
        else:
            from flexmbd.io.vtk import write_vtk

        try:
            pvd = write_vtk(res, args.vtk, every=args.every)
        except ImportError as exc:
            raise CLIError(f"{PROG} export: error: --vtk needs meshio (pip install meshio): {exc}", 1)
        except OSError as exc:
            raise CLIError(f"{PROG} export: error: cannot write into {args.vtk!r}: {exc}", 1)
        print(pvd)
    if args.csv:
        from flexmbd.io.csv import write_csv

        csv_file, names = args.csv[0], _beam_aliases(res, args.csv[1:]) or res.names()
        _check_names("export", res, names)
        try:
            write_csv(res, csv_file, names, every=args.every)
        except OSError as exc:
            raise CLIError(f"{PROG} export: error: cannot write {csv_file!r}: {exc}", 1)
        print(csv_file)
    return 0


def cmd_animate(args: argparse.Namespace) -> int:
    """Render an animated GIF."""
    from flexmbd.io.tmm_file import TmmResult

    res = _load_results("animate", args.file, geometry=True)
    if isinstance(res, TmmResult):
        from flexmbd.io.tmm_pictures import animate as animate_chain

        if args.view not in (None, "xy", "xz"):
            raise CLIError(f"{PROG} animate: error: a DT-TMM chain is drawn in its plane (x, z); --view "
                           f"{args.view} does not apply", 2)
        animate = lambda r, o, every, fps, view, dpi: animate_chain(r, o, every=every, fps=fps, dpi=dpi)  # noqa: E731
    else:
        from flexmbd.io.animate import animate

    out = args.output or str(pathlib.Path(args.file).with_suffix(".gif"))
    if not out.lower().endswith(".gif"):
        raise CLIError(f"{PROG} animate: error: -o {out}: the animation is written as GIF; give a .gif file name", 2)
    every = args.every or max(1, math.ceil((len(res.t) - 1) / 199))
    try:
        n = animate(res, out, every=every, fps=args.fps, view=args.view, dpi=args.dpi)
    except OSError as exc:
        raise CLIError(f"{PROG} animate: error: cannot write {out!r}: {exc}", 1)
    print(f"{out} ({n} frames)")
    return 0


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    status = _main(argv)
    if argv is None:  # the program itself (not a test calling main): it may end the process
        _leave_if_a_results_file_broke(status)
    return status


def _check_dash_h(argv: Sequence[str]) -> None:
    """``run MODEL -h 0.001`` would print the help and run nothing: ``-h`` is the help
    and the time step is ``--h``.  A number after ``-h`` is taken as that slip."""
    if "run" not in argv:
        return
    for i, word in enumerate(argv[:-1]):
        if word == "-h":
            try:
                float(argv[i + 1])
            except ValueError:
                continue
            raise CLIError(f"{PROG} run: error: -h is the help; for the time step write --h {argv[i + 1]} "
                           f"(or --dt {argv[i + 1]})", 2)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        _check_dash_h(list(sys.argv[1:] if argv is None else argv))
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help / --version
            return exc.code if isinstance(exc.code, int) else 0
        if args.command is None:
            raise CLIError(f"{PROG}: error: no command given; choose 'example' or 'verify' (see '{PROG} --help')", 2)
        return args.handler(args)
    except CLIError as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)  # always one line
        return exc.status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _broken_pipe()
    except MemoryError:
        print(f"{PROG}: error: out of memory (a smaller --dpi, fewer frames or fewer steps need less)",
              file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - never a traceback: one line, and where to report it
        text = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"{PROG}: internal error: {text} (please report this with the command line and its files)",
              file=sys.stderr)
        return 1


def _broken_pipe() -> int:
    """The reader of our output went away (``flexmbd ... | head -1``): stop quietly, as
    other Unix tools do, with the status of a SIGPIPE.  Python would flush stdout once
    more at exit and print a traceback, so stdout is pointed at /dev/null first."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 141


def _leave_if_a_results_file_broke(status: int) -> None:
    """After a write error (disk full), HDF5 cannot close the results file without
    crashing the interpreter at exit: the error has been reported and the file holds
    what was flushed, so leave at once, without HDF5's clean-up."""
    try:
        from flexmbd.io.results_h5 import broken_files
    except ImportError:  # pragma: no cover
        return
    if broken_files():
        import os

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
