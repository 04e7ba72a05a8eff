"""``flexmbd sweep --report``: plots of a study table.

For each plotted column y (default ``mean_iterations`` and ``wall_time``) and each x
(default: every swept key path with more than one
numeric value), one PNG of y against x with one
line per combination of the other swept values (``solver.jacobian = full`` and
``= M1+M3`` for P1's slider-crank study).  Failed cases are left out of the lines and
drawn as crosses on the x axis.  A log axis is used for x when its values span more
than two decades and are positive (P1's k and c sweeps).
"""
from __future__ import annotations

import math
import os
import re

from .table import read_study

DEFAULT_Y = ("mean_iterations", "wall_time")


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_")


def report(path, x=None, y=None, out_dir=".") -> list[str]:
    """Write the study's plots; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .spec import SweepSpecError

    study = read_study(path)
    if not study.rows:
        raise SweepSpecError(f"{path}: the study has no finished case yet")
    xs = list(x) if x else [p for p in study.params if _numeric([r.get(p) for r in study.rows])
                            and len({r.get(p) for r in study.rows}) > 1]
    ys = list(y) if y else list(DEFAULT_Y)
    for c in [*xs, *ys]:
        if c not in study.columns:
            raise SweepSpecError(f"--report: no column {c!r} in {path} (columns: {', '.join(study.columns)})")
    if not xs:
        raise SweepSpecError(f"--report: no swept parameter of {path} has numbers; choose --x COLUMN")
    os.makedirs(out_dir, exist_ok=True)
    stem = _slug(os.path.splitext(os.path.basename(str(path)))[0])
    written = []
    for xc in xs:
        others = [p for p in study.params if p != xc and len({r.get(p) for r in study.rows}) > 1]
        groups = {}
        for r in study.rows:
            groups.setdefault(tuple(r.get(p) for p in others), []).append(r)
        xv = [r.get(xc) for r in study.rows]
        logx = _numeric(xv) and min(xv) > 0 and max(xv) / min(xv) > 100
        for yc in ys:
            many = len(groups) > 4
            fig, ax = plt.subplots(figsize=(10.5 if many else 7, 4.5))
            for key, rows in groups.items():
                rows = sorted(rows, key=lambda r: r.get(xc))
                ok = [r for r in rows if r.get("status") == "completed" and isinstance(r.get(yc), (int, float))
                      and math.isfinite(r.get(yc))]
                label = ", ".join(f"{p} = {v}" for p, v in zip(others, key)) or yc
                line, = ax.plot([r[xc] for r in ok], [r[yc] for r in ok], "o-", ms=4, label=label)
                bad = [r for r in rows if r.get("status") != "completed"]
                if bad:
                    ax.plot([r[xc] for r in bad], [0.0] * len(bad), "x", color=line.get_color(), ms=8)
            if logx:
                ax.set_xscale("log")
            ax.set_xlabel(xc)
            ax.set_ylabel(yc)
            n_failed = sum(r.get("status") != "completed" for r in study.rows)
            ax.set_title(f"{study.meta.get('model_name', '')}: {yc} vs {xc}"
                         + (f" ({n_failed} failed cases: x)" if n_failed else ""), fontsize=10)
            if len(groups) > 1 or others:
                ax.legend(fontsize=8, **({"loc": "center left", "bbox_to_anchor": (1.01, 0.5)} if many else {}))
            ax.grid(True, alpha=0.3)
            fig.tight_layout()
            out = os.path.join(out_dir, f"{stem}_{_slug(yc)}_vs_{_slug(xc)}.png")
            fig.savefig(out, dpi=110)
            plt.close(fig)
            written.append(out)
    return written


__all__ = ["report"]
