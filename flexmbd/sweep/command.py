"""``flexmbd sweep``: the command line of :func:`flexmbd.sweep.runner.sweep` and
:func:`flexmbd.sweep.report.report` (registered by :func:`add_parser` from flexmbd/cli.py)."""
from __future__ import annotations

import argparse
import sys

EPILOG = """\
values (after PATH=):
  1e2,1e3,1e4          a list (numbers where they read as numbers: full,M1+M2 are texts)
  lin:A:B:N            N values from A to B          log:A:B:N  N values, evenly spaced in log10
  int:A:B[:STEP]       integers A..B                  uniform:A:B, loguniform:A:B  with --samples
key paths: section.name.key, list items by name (forces.sda.k, bodies.rod.mass), parameters.k,
  solver.jacobian, bodies.rod.position[0]

examples:
  flexmbd sweep slider.yaml --param forces.sda.k=log:1e2:1e6:5 --param forces.sda.c=0 \\
      --param solver.jacobian=full,M1+M3 -o study.h5
  flexmbd sweep model.yaml --param parameters.k=uniform:1e2:1e4 --samples 200 --seed 1 -o s.parquet
  flexmbd sweep model.yaml --param ... --scheduler tcp://10.0.0.5:8786 -o study.h5
  flexmbd sweep model.yaml --param ... -o study.h5 --resume     run only the missing cases
  flexmbd sweep --report study.h5 [--x forces.sda.k] [--y mean_iterations] [--out-dir plots]
"""


def add_parser(sub) -> None:
    """Register ``flexmbd sweep`` on the CLI's subparsers."""
    p = sub.add_parser(
        "sweep",
        help="run a parameter study of a model file on Dask (or plot one with --report)",
        description="Run one simulation per case of a parameter study, on a local Dask cluster of processes or "
                    "on a Dask scheduler (--scheduler), and write one table row per case as cases finish. "
                    "See docs/sweep.md.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", metavar="MODEL", nargs="?", help="model file (.yaml, .yml or .json)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="PATH=VALUES",
                   help="a swept key path and its values (repeat for more)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--grid", dest="mode", action="store_const", const="grid",
                      help="every combination of the values (the default)")
    mode.add_argument("--zip", dest="mode", action="store_const", const="zip",
                      help="the values side by side (all lists of one length)")
    mode.add_argument("--samples", type=int, metavar="N", help="N random cases (see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of --samples (default 0)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://host:8786); default: a local cluster")
    p.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster "
                   "(default: the number of cores)")
    p.add_argument("-o", "--output", metavar="FILE", help="the study table: .h5 or .parquet")
    p.add_argument("--series", action="store_true", help="also store each case's histories (t, iterations, "
                   "the named outputs)")
    p.add_argument("--resume", action="store_true", help="continue the study in -o FILE: run only its missing cases")
    p.add_argument("--force", action="store_true", help="replace an existing -o FILE")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--report", metavar="STUDY", help="plot a study table (PNG) instead of running")
    p.add_argument("--x", action="append", default=[], metavar="COLUMN", help="--report: x axis (a swept path)")
    p.add_argument("--y", action="append", default=[], metavar="COLUMN",
                   help="--report: plotted columns (default mean_iterations and wall_time)")
    p.add_argument("--out-dir", default=".", metavar="DIR", help="--report: where the plots go (default .)")
    p.set_defaults(handler=cmd_sweep, mode=None)


class _Stop(Exception):
    """A message for the user, one line, and the exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def cmd_sweep(args: argparse.Namespace) -> int:
    """``flexmbd sweep``: exit status 0 (every case completed), 1 (a case failed, or Dask
    is missing), 2 (usage, key path or model-file error), 130 (interrupted)."""
    try:
        return _sweep(args)
    except _Stop as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)
        return exc.status


def _sweep(args: argparse.Namespace) -> int:
    from ..io.model_file import ModelFileError
    from . import runner
    from .spec import SweepSpecError
    from .table import StudyFileError

    try:
        if args.report:
            from .report import report

            for path in report(args.report, x=args.x or None, y=args.y or None, out_dir=args.out_dir):
                print(f"plot written to {path}")
            return 0
        if not args.model:
            raise _Stop("flexmbd sweep: error: give a MODEL file (or --report STUDY)", 2)
        mode = "samples" if args.samples is not None else (args.mode or "grid")
        try:
            study = runner.sweep(args.model, args.param, mode=mode, samples=args.samples, seed=args.seed,
                                 scheduler=args.scheduler, workers=args.workers, output=args.output,
                                 series=args.series, resume=args.resume, force=args.force,
                                 progress=not args.quiet)
        except KeyboardInterrupt:
            where = f"; the finished cases are in {args.output} (--resume runs the rest)" if args.output else ""
            raise _Stop(f"flexmbd sweep: interrupted{where}", 130) from None
    except runner.DaskMissing as exc:
        raise _Stop(str(exc), 1) from None
    except (SweepSpecError, StudyFileError, ModelFileError) as exc:
        raise _Stop(f"flexmbd sweep: error: {exc}", 2) from None
    failed = [r for r in study.rows if r.get("status") != "completed"]
    if not args.quiet:
        print(f"{len(study)} cases, {len(study) - len(failed)} completed, {len(failed)} failed"
              + (f"; table in {args.output}" if args.output else ""))
        for r in failed[:5]:
            print(f"  case {r['case']} ({', '.join(f'{p}={r.get(p)}' for p in study.params)}): {r.get('message')}",
                  file=sys.stderr)
        if not args.output:
            _print_table(study)
    return 0 if not failed else 1


def _print_table(study, limit=50):
    cols = [*study.params, "status", "mean_iterations", "wall_time"]
    print("  ".join(cols))
    for r in study.rows[:limit]:
        print("  ".join(f"{r.get(c):.6g}" if isinstance(r.get(c), float) else str(r.get(c)) for c in cols))
