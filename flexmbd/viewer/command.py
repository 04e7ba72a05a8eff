"""The ``flexmbd view`` command (its parser and handler; cli.py only registers it)."""
from __future__ import annotations

import argparse
import pathlib

VIEW_EPILOG = """\
examples:
  flexmbd view out.h5                         out.html: one self-contained page (open it in a browser)
  flexmbd view out.h5 -o report.html --plot slider.position sda.force
  flexmbd view out.h5 --max-frames 300        fewer frames for a smaller page
  flexmbd view out.h5 --serve                 open it in the browser and follow a running simulation
"""


def add_view_command(sub, tools: dict) -> None:
    """Register ``flexmbd view``; ``tools``: the command line's shared helpers (prog, error,
    load, aliases, check), passed in so that this module does not import the CLI."""
    p = sub.add_parser("view", help="interactive 3D page of a results file (HTML, works offline)",
                       description="Write one self-contained HTML page that shows the run in 3D: orbit, pan, "
                                   "zoom, play/pause, time slider, speed, show/hide bodies, a plot of outputs "
                                   "with a cursor at the shown time, and a screenshot button.",
                       epilog=VIEW_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="results file (.h5)")
    p.add_argument("-o", "--output", metavar="HTML", help="page to write (default: FILESTEM.html)")
    p.add_argument("--plot", nargs="+", metavar="NAME", help="outputs to plot (default: positions of moving bodies)")
    p.add_argument("--max-frames", type=int, default=None, metavar="N",
                   help="at most N frames in the page (default: 2000; the page states the choice)")
    p.add_argument("--serve", action="store_true", help="serve the page on 127.0.0.1, open it, follow the file")
    p.add_argument("--port", type=int, default=0, help="port for --serve (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="with --serve: do not open a browser")
    p.set_defaults(handler=cmd_view, tools=tools)


def cmd_view(args: argparse.Namespace) -> int:
    """Write (or serve) the viewer page."""
    from .page import MAX_FRAMES, write_html

    t = args.tools
    PROG, CLIError, _beam_aliases, _check_names = t["prog"], t["error"], t["aliases"], t["check"]
    res = t["load"]("view", args.file, geometry=True)
    max_frames = args.max_frames or MAX_FRAMES
    if max_frames < 2:
        raise CLIError(f"{PROG} view: error: --max-frames {max_frames}: give at least 2", 2)
    plot = _beam_aliases(res, args.plot) if args.plot else None
    if plot:
        _check_names("view", res, plot)
    if args.serve:
        from .serve import serve

        serve(args.file, port=args.port, open_browser=not args.no_browser, plot=plot, max_frames=max_frames)
        return 0
    out = args.output or str(pathlib.Path(args.file).with_suffix(".html"))
    try:
        data = write_html(res, out, plot=plot, max_frames=max_frames)
    except OSError as exc:
        raise CLIError(f"{PROG} view: error: cannot write {out!r}: {exc}", 1)
    print(f"{out}: {data['info']}")
    return 0
