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
  flexmbd --version
"""

EXAMPLE_EPILOG = """\
examples:
  flexmbd example                                  list the examples
  flexmbd example slider-crank-sda                 run it, plots go to the current dir
  flexmbd example slider-crank-sda --out results   write the plots to ./results
  flexmbd example slider-crank-sda --quiet         no summary printed
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
    return parser


# ---------------------------------------------------------------- example


def cmd_example(args: argparse.Namespace) -> int:
    """List the examples, or run the one named."""
    try:
        from flexmbd.examples import registry
        examples = registry.load_examples()
    except Exception as exc:  # noqa: BLE001 - one-line report
        raise CLIError(f"{PROG} example: error: could not load examples: {type(exc).__name__}: {exc}")

    if args.name is None:
        if not examples:
            print("no examples registered")
            return 0
        width = max(len(n) for n in examples)
        print("available examples:")
        for name in sorted(examples):
            print(f"  {name:<{width}}  {examples[name].description}")
        print(f"run one with: {PROG} example NAME")
        return 0

    if args.name not in examples:
        names = ", ".join(sorted(examples)) or "(none registered)"
        raise CLIError(f"{PROG} example: error: unknown example {args.name!r}; available: {names}", 2)

    out_dir = args.out
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"{PROG} example: error: cannot create output directory {str(out_dir)!r}: {exc}")
    try:
        examples[args.name].run(out_dir, quiet=args.quiet)
    except Exception as exc:  # noqa: BLE001 - one-line report
        raise CLIError(f"{PROG} example: error: example {args.name!r} failed: {type(exc).__name__}: {exc}")
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


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
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


if __name__ == "__main__":
    sys.exit(main())
