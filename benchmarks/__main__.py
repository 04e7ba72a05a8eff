"""Benchmark runner: flexmbd side by side with Exudyn, appended to results.

    python -m benchmarks                       # every benchmark, 3 repeats, both codes
    python -m benchmarks chain-100 --repeat 5  # one (names may also be prefixes: chain)
    python -m benchmarks --list
    python -m benchmarks --no-peer             # flexmbd only
    python -m benchmarks chain-100 --profile   # + where flexmbd's time goes (cProfile)
    python -m benchmarks chain-10 --convergence  # both codes at h and h/2
    python -m benchmarks --plot                # docs/performance_scaling.png, performance_beams.png
    python -m benchmarks --only cantilever-64,p3-model-III   # a comma-separated selection

Each benchmark builds its model (not timed), runs it ``repeat`` times and records min
and median wall time, steps, Newton iterations, per-step and per-iteration times, the
machine and the git commit, in benchmarks/results.jsonl (one JSON object per line) and
prints a table.  When Exudyn is importable (``pip install -e .[bench]``) and the
benchmark has a peer model (benchmarks/exudyn_models.py), the same model is run in
Exudyn in the same process; the row then also holds Exudyn's times and solver counts,
the ratio flexmbd/Exudyn of the minimum wall times, and the agreement of the stated
quantities (each within its stated tolerance; a disagreement prints FAIL, is recorded,
and makes the exit status 1).  The first call of every code path is made before timing
(Numba's cached machine code is loaded then; its time is reported as ``startup_s``).
Static benchmarks (``Benchmark.static``; the SE(3) cantilevers) run a static solve in
both codes: their "steps" are load steps.  Where the Result carries Newton statistics,
the row also holds the split of the Newton iterations' time into assembly (residual and
matrix) and linear solves (factorization and back-substitution), per iteration; for
Exudyn the same split comes from its solver timer, in one extra untimed run.  A
benchmark with a stated reference (``Benchmark.accept``, e.g. ABAQUS's tip deflection)
fails when either code misses it.
Timings live here and never in pass/fail tests.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from .models import BENCHMARKS

RESULTS = Path(__file__).with_name("results.jsonl")
PLOT = Path(__file__).parent.parent / "docs" / "performance_scaling.png"
PLOT_BEAMS = Path(__file__).parent.parent / "docs" / "performance_beams.png"


def machine():
    import numpy
    import scipy

    try:
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    except OSError:
        cpu = platform.processor()
    import os

    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "platform": platform.platform()}


def commit():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":!benchmarks/results.jsonl"], capture_output=True, text=True,
                               cwd=Path(__file__).parent.parent).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def peer_available():
    from . import exudyn_models

    return exudyn_models.AVAILABLE


# --------------------------------------------------------------------------- warm-up
_STARTUP = {}


def warm_up(peer):
    """Run every code path once (tiny models, a few steps) before anything is timed."""
    if "flexmbd" not in _STARTUP:
        from flexmbd.examples import slider_crank, tensegrity
        from flexmbd.solvers.integrators import Newmark

        from .models import chain

        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for refresh in ("newton", "step"):
                slider_crank.build(k=2e4, c=1e3).simulate(t_end=0.03, h=0.01, refresh=refresh)
            tensegrity.build_tower().model.simulate(t_end=0.03, h=0.01, integrator=Newmark(0.3, 0.6))
            chain(2).simulate(t_end=3e-3, h=1e-3)
            chain(30).simulate(t_end=2e-3, h=1e-3)  # the sparse (SuperLU) path
        _STARTUP["flexmbd"] = time.perf_counter() - t0
    if peer and "exudyn" not in _STARTUP:
        from . import exudyn_models as exm

        t0 = time.perf_counter()
        exm.solve(exm.slider_crank(steps=3))
        _STARTUP["exudyn"] = time.perf_counter() - t0


def warm_bench(bench):
    """The benchmark's own warm-up (e.g. the beam kernels), once per process, untimed."""
    if bench.warm is not None and bench.warm not in _STARTUP:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bench.warm()
        _STARTUP[bench.warm] = time.perf_counter() - t0
        _STARTUP[f"flexmbd {bench.warm.__name__.strip('_')}"] = _STARTUP[bench.warm]


def startup():
    """The recorded start-up times (JSON keys only)."""
    return {k: v for k, v in _STARTUP.items() if isinstance(k, str)}


# --------------------------------------------------------------------------- running
def solve_seconds(res):
    """Wall time of the solution proper (without freezing and initial conditions)."""
    if res.wall_time:
        return res.wall_time
    return float(np.sum(res.stats["seconds"]))  # static: the load steps


def newton_split(newton, iterations):
    """Assembly (residual + matrix) and linear-solve (factorization + solves) seconds of
    the Newton iterations, totals and per iteration (ms)."""
    if newton is None or not hasattr(newton, "assembly_seconds"):
        return {}
    a, lin = float(newton.assembly_seconds), float(newton.linear_seconds)
    k = max(iterations, 1)
    out = {"assembly_s": a, "linear_s": lin, "assembly_ms_per_iteration": 1e3 * a / k,
           "linear_ms_per_iteration": 1e3 * lin / k}
    c = float(getattr(newton, "compiled_seconds", 0.0))
    if c > 0.0:  # Newton solves run whole in compiled code: assembly and linear solves not apart
        out.update(compiled_s=c, compiled_ms_per_iteration=1e3 * c / k)
    return out


def run_flexmbd(bench, repeat):
    times, setups, results = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeat):
            model = bench.build()
            t0 = time.perf_counter()
            res = bench.run(model)
            times.append(time.perf_counter() - t0)
            setups.append(times[-1] - solve_seconds(res))  # freezing, assembly, initial accelerations
            results.append(res)
    tmin, tmed = min(times), statistics.median(times)
    res = results[times.index(tmin)]
    steps, its = res.steps, int(res.stats["iterations"].sum())
    setup = setups[times.index(tmin)]
    row = {"wall_min_s": tmin, "wall_median_s": tmed, "repeat": repeat, "steps": steps,
           "newton_iterations": its, "factorizations": int(res.stats["factorizations"].sum()),
           "unknowns": int(res.system.n + res.system.m), "success": bool(res.success),
           "per_step_ms": 1e3 * tmin / max(steps, 1), "per_iteration_ms": 1e3 * tmin / max(its, 1),
           "setup_s": max(setup, 0.0), "check": bench.check(res)}
    if bench.static:
        row["kind"] = "static"  # steps are load steps, per_step_ms is per load step
    row.update(newton_split(getattr(res, "newton", None), its))
    if bench.accept is not None and bench.answer is not None:
        row["accepted"] = bool(res.success and bench.accept(bench.answer(res))[0])
    return res, row


def run_exudyn(bench, repeat, split=False):
    """Time the peer; ``split``: one more (untimed) run with Exudyn's solver timer on, for
    its assembly / linear-solve split."""
    from . import exudyn_models as exm

    times, peer, out = [], None, None
    for _ in range(repeat):
        peer = bench.peer()
        t0 = time.perf_counter()
        out = exm.solve(peer)
        times.append(time.perf_counter() - t0)
    tmin, tmed = min(times), statistics.median(times)
    answer = bench.peer_answer(peer)
    newton = (peer.settings.staticSolver if peer.static else peer.settings.timeIntegration).newton
    row = {"version": exm.VERSION, "wall_min_s": tmin, "wall_median_s": tmed, "repeat": repeat, "steps": out.steps,
           "newton_iterations": out.iterations, "jacobians": out.jacobians, "unknowns": out.unknowns,
           "linear_solver": out.linear_solver, "success": out.success,
           "per_step_ms": 1e3 * tmin / max(out.steps, 1), "per_iteration_ms": 1e3 * tmin / max(out.iterations, 1),
           "newton": "modified" if newton.useModifiedNewton else "full"}
    if peer.static:
        row["kind"] = "static"
    if bench.reference is not None:
        row["check"] = bench.reference(answer)
    if bench.accept is not None and bench.peer_accept:
        row["accepted"] = bool(out.success and bench.accept(answer)[0])
    if split:
        p = bench.peer()
        p.settings.show.computationTime = True
        timed = exm.solve(p)
        if timed.timer:
            a, lin = exm.timer_split(timed.timer)
            k = max(timed.iterations, 1)
            row.update({"timer_total_s": timed.timer.get("total", float("nan")), "assembly_s": a, "linear_s": lin,
                        "assembly_ms_per_iteration": 1e3 * a / k, "linear_ms_per_iteration": 1e3 * lin / k})
    return answer, row


def _summary(a):
    a = np.asarray(a, dtype=float)
    if a.size <= 3:
        return [float(x) for x in a.ravel()]
    if a.ndim == 1:
        return {"last": float(a[-1]), "max": float(a.max()), "min": float(a.min())}
    return {"shape": list(a.shape)}


def agreement(bench, mine, theirs):
    out, ok = {}, True
    for key, tol in bench.tolerance.items():
        x, y = np.asarray(mine[key], float), np.asarray(theirs[key], float)
        if x.shape != y.shape:
            diff, good = float("inf"), False
        else:
            diff = float(np.max(np.abs(x - y)))
            good = bool(diff <= tol)
        ok &= good
        out[key] = {"difference": diff, "tolerance": tol, "ok": good, "flexmbd": _summary(x), "exudyn": _summary(y)}
    return {"ok": ok, "quantities": out}


def run_one(name, repeat, peer=True, save=True):
    bench = BENCHMARKS[name]
    repeat = min(repeat, bench.repeat or repeat)
    peer = peer and bench.peer is not None and peer_available()
    warm_up(peer)
    warm_bench(bench)
    res, mine = run_flexmbd(bench, repeat)
    row = {"benchmark": name, "description": bench.description, **mine}
    if bench.family:
        row["family"], row["size"] = bench.family, bench.size
    if peer:
        theirs, prow = run_exudyn(bench, repeat, split="assembly_s" in mine)
        row["exudyn"] = prow
        row["ratio"] = row["wall_min_s"] / prow["wall_min_s"]
        row["agreement"] = agreement(bench, bench.answer(res), theirs)
    row.update({"startup_s": startup(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "commit": commit(),
                "machine": machine()})
    if save:
        with open(RESULTS, "a") as f:
            f.write(json.dumps(row) + "\n")
    return row


HEADER = (f"{'benchmark':28s} {'flexmbd [s]':>11s} {'Exudyn [s]':>10s} {'ratio':>6s} {'steps':>6s} "
          f"{'iters f/E':>11s} {'ms/step f/E':>15s} {'ms/iter f/E':>13s}  agreement")


def format_row(row):
    e = row.get("exudyn")
    if e is None:
        return (f"{row['benchmark']:28s} {row['wall_min_s']:11.4f} {'–':>10s} {'–':>6s} {row['steps']:6d} "
                f"{row['newton_iterations']:11d} {row['per_step_ms']:15.3f} {row['per_iteration_ms']:13.3f}  "
                f"(no peer) {row['check']}")
    ag = row["agreement"]
    worst = max(ag["quantities"].items(), key=lambda kv: kv[1]["difference"] / kv[1]["tolerance"])
    verdict = "ok" if ag["ok"] else "FAIL"
    if row.get("accepted") is False or e.get("accepted") is False:
        verdict += " (REFERENCE FAIL: " + ", ".join(c for c, r in (("flexmbd", row), ("Exudyn", e))
                                                      if r.get("accepted") is False) + ")"
    return (f"{row['benchmark']:28s} {row['wall_min_s']:11.4f} {e['wall_min_s']:10.4f} {row['ratio']:6.2f} "
            f"{row['steps']:6d} {row['newton_iterations']:5d}/{e['newton_iterations']:<5d} "
            f"{row['per_step_ms']:7.2f}/{e['per_step_ms']:<7.2f} {row['per_iteration_ms']:6.2f}/{e['per_iteration_ms']:<6.2f}"
            f"  {verdict}: {worst[0]} differs by {worst[1]['difference']:.1e} (tol {worst[1]['tolerance']:.0e})")


def split_line(row):
    """Assembly / linear-solve split per Newton iteration (ms), flexmbd and Exudyn."""
    if "assembly_ms_per_iteration" not in row:
        return ""
    if "compiled_ms_per_iteration" in row:
        s = (f"{'':28s} split per iteration [ms]: flexmbd compiled Newton step (assembly + linear, not apart) "
             f"{row['compiled_ms_per_iteration']:.3f}")
    else:
        s = (f"{'':28s} split per iteration [ms]: flexmbd assembly {row['assembly_ms_per_iteration']:.3f} + linear "
             f"{row['linear_ms_per_iteration']:.3f}")
    e = row.get("exudyn") or {}
    if "assembly_ms_per_iteration" in e:
        s += f"; Exudyn assembly {e['assembly_ms_per_iteration']:.3f} + linear {e['linear_ms_per_iteration']:.3f}"
    return s


def passed(row):
    """Completed, in agreement with the peer, and (where stated) with the reference."""
    e = row.get("exudyn")
    return (row["success"] and row.get("accepted", True)
            and (e is None or (e["success"] and e.get("accepted", True) and row["agreement"]["ok"])))


# --------------------------------------------------------------------------- profile
def profile(name, top=15):
    """cProfile one flexmbd run; print the top entries and a breakdown; return the breakdown."""
    import cProfile
    import pstats

    bench = BENCHMARKS[name]
    warm_up(False)
    warm_bench(bench)
    model = bench.build()
    pr = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr.enable()
        res = bench.run(model)
        pr.disable()
    st = pstats.Stats(pr)
    print(f"\n=== {name}: {bench.description}")
    if getattr(res, "newton", None) is not None:
        print(f"Newton statistics: {res.newton}")
    print(f"{res.system.n + res.system.m} unknowns, {res.steps} steps, {int(res.stats['iterations'].sum())} Newton "
          f"iterations, {int(res.stats['factorizations'].sum())} Newton factorizations (cProfile adds overhead)")
    st.sort_stats("tottime").print_stats(top)
    parts = breakdown(st, bench.static)
    print("where the time goes (cumulative, seconds under the profiler):")
    for k, v in parts.items():
        print(f"  {k:58s} {v:8.3f}")
    return parts


def breakdown(st, static=False):
    """Attribute a profiled simulate() (or static_equilibrium()) call to setup, assembly,
    factorization, …"""
    S = st.stats

    def find(file_part, func):
        return [k for k in S if k[0].replace("\\", "/").endswith(file_part) and k[2] == func]

    def cum(file_part, func, caller=None):
        total = 0.0
        for k in find(file_part, func):
            if caller is None:
                total += S[k][3]
            else:
                total += sum(v[3] for ck, v in S[k][4].items() if ck[2] == caller)
        return total

    def tot(pred):
        return sum(v[2] for k, v in S.items() if pred(k))

    if static:
        total = cum("solvers/static.py", "static_equilibrium")
        step = sum(cum("solvers/static.py", "advance", c) for c in ("static_equilibrium",))
    else:
        total = cum("solvers/dynamics.py", "simulate")
        step = cum("solvers/dynamics.py", "step")
    ev = cum("flexmbd/system.py", "evaluate", "residual")
    fac_n = cum("flexmbd/linalg.py", "factorize", "solve")
    fac_p = cum("flexmbd/linalg.py", "factorize", "_project")
    sol = cum("flexmbd/linalg.py", "solve", "solve") + cum("flexmbd/linalg.py", "solve", "_project")
    pm = cum("flexmbd/system.py", "projection_matrix", "_project")
    kern = tot(lambda k: "/flexmbd/kernels/" in k[0].replace("\\", "/"))
    scat = cum("flexmbd/system.py", "_scatter_matrix", "evaluate")
    gstrf = tot(lambda k: k[2].endswith("gstrf>") or k[2] == "<built-in method scipy.sparse.linalg._dsolve._superlu.gstrf>")
    setup = cum("flexmbd/system.py", "__init__") + cum("solvers/dynamics.py", "initial_state")
    beam = tot(lambda k: "/flexmbd/beams/" in k[0].replace("\\", "/"))
    return {"total (static_equilibrium)" if static else "total (simulate)": total,
            "setup: freeze + initial conditions": setup,
            "load steps" if static else "steps": step,
            "  residual + Newton matrix (System.evaluate)": ev,
            "    compiled element kernels (Numba; all their calls)": kern,
            "    of which scatter into the matrix pattern": scat,
            "    Python in flexmbd/beams/ (own time, all calls)": beam,
            "  factorization, Newton matrix": fac_n,
            "  factorization, velocity projection": fac_p,
            "    (SuperLU gstrf, all factorizations)": gstrf,
            "  projection matrix assembly": pm,
            "  back-substitutions": sol,
            "  rest of the step (integrator, Newton loop, copies)": step - ev - fac_n - fac_p - pm - sol,
            "results, bookkeeping": total - setup - step}


# --------------------------------------------------------------------------- convergence
def convergence(name):
    """Run both codes at h and h/2: the answer's difference between codes at one step size
    against its change with the step size (the discretization error's size)."""
    from .models import refine

    bench = BENCHMARKS[name]
    fine = refine(name, 2)
    peer = bench.peer is not None and peer_available()
    warm_up(peer)
    out = {}
    for label, b in (("h", bench), ("h/2", fine)):
        res, _ = run_flexmbd(b, 1)
        out[("flexmbd", label)] = b.answer(res)
        if peer:
            out[("Exudyn", label)] = run_exudyn(b, 1)[0]
    print(f"\n=== {name}: h = {bench.h}, h/2 = {fine.h}")
    for key in bench.tolerance:
        def d(a, b, key=key):
            x, y = np.asarray(out[a][key]), np.asarray(out[b][key])
            if x.shape != y.shape:  # time series at h and h/2: compare on the coarse grid
                x, y = (x, y[::2]) if len(y) > len(x) else (x[::2], y)
            return float(np.max(np.abs(x - y)))
        print(f"{key}:")
        print(f"  flexmbd(h) − flexmbd(h/2)      {d(('flexmbd', 'h'), ('flexmbd', 'h/2')):.2e}")
        if peer:
            print(f"  Exudyn(h)  − Exudyn(h/2)       {d(('Exudyn', 'h'), ('Exudyn', 'h/2')):.2e}")
            print(f"  flexmbd(h) − Exudyn(h)         {d(('flexmbd', 'h'), ('Exudyn', 'h')):.2e}")
            print(f"  flexmbd(h/2) − Exudyn(h/2)     {d(('flexmbd', 'h/2'), ('Exudyn', 'h/2')):.2e}")
            print(f"  tolerance of the benchmark     {bench.tolerance[key]:.0e}")
    return out


# --------------------------------------------------------------------------- plot
def plot(path=PLOT):
    """Time per step and per Newton iteration vs chain length, latest row of each size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {}
    with open(RESULTS) as f:
        for ln in f:
            r = json.loads(ln)
            if r.get("family") == "chain" and "exudyn" in r:
                rows[r["size"]] = r
    status = plot_beams()
    if not rows:
        print("no chain rows with Exudyn in results.jsonl; run python -m benchmarks chain first", file=sys.stderr)
        return 1
    N = np.array(sorted(rows))
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for ax, key, label in ((axes[0], "per_step_ms", "time per step [ms]"),
                           (axes[1], "per_iteration_ms", "time per Newton iteration [ms]")):
        f = np.array([rows[n][key] for n in N])
        e = np.array([rows[n]["exudyn"][key] for n in N])
        ax.loglog(N, f, "o-", label="flexmbd")
        ax.loglog(N, e, "s--", label=f"Exudyn {rows[N[-1]]['exudyn']['version']}")
        ax.loglog(N, f[0] * N / N[0], ":", color="gray", label="∝ N (from flexmbd's first point)")
        ax.set_xlabel("bodies in the chain")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    c = rows[N[-1]]
    fig.suptitle(f"chain of N bars (spherical joints + spring-dampers), commit {c['commit']}, "
                 f"{c['machine']['cpu']}, {c['machine']['cores']} cores", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"plot written to {path}")
    return status


def plot_beams(path=PLOT_BEAMS):
    """Time per Newton iteration (total, assembly, linear solve) vs cantilever elements,
    latest row of each size with Exudyn."""
    import matplotlib

    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {}
    with open(RESULTS) as f:
        for ln in f:
            r = json.loads(ln)
            if r.get("family") == "cantilever" and "exudyn" in r and "assembly_ms_per_iteration" in r:
                rows[r["size"]] = r
    if not rows:
        print("no cantilever rows with Exudyn in results.jsonl; run python -m benchmarks cantilever first",
              file=sys.stderr)
        return 0
    N = np.array(sorted(rows))
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    ax = axes[0]
    for who, get, style in (("flexmbd", lambda r: r, "o-"), ("Exudyn", lambda r: r["exudyn"], "s--")):
        ax.loglog(N, [get(rows[n])["per_iteration_ms"] for n in N], style, label=f"{who}, total")
    f0 = rows[N[0]]["per_iteration_ms"]
    ax.loglog(N, f0 * N / N[0], ":", color="gray", label="∝ elements (from flexmbd's first point)")
    ax.set_title("time per Newton iteration (wall / iterations)", fontsize=8)
    ax2 = axes[1]
    for who, get, m in (("flexmbd", lambda r: r, "o"), ("Exudyn", lambda r: r["exudyn"], "s")):
        if all("assembly_ms_per_iteration" in get(rows[n]) for n in N):
            ax2.loglog(N, [get(rows[n])["assembly_ms_per_iteration"] for n in N], m + "-", label=f"{who} assembly")
            ax2.loglog(N, [get(rows[n])["linear_ms_per_iteration"] for n in N], m + "--", label=f"{who} linear solve")
    ax2.loglog(N, rows[N[0]]["assembly_ms_per_iteration"] * N / N[0], ":", color="gray", label="∝ elements")
    ax2.set_title("split: residual + matrix vs factorization + solve", fontsize=8)
    for a in axes:
        a.set_xticks(N)
        a.set_xticklabels([str(n) for n in N])
        a.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        a.set_xlabel("first-order SE(3) elements (cantilever)")
        a.set_ylabel("ms per Newton iteration")
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=6)
    c = rows[N[-1]]
    fig.suptitle(f"P3 straight cantilever, static, 10 load steps; Exudyn {c['exudyn']['version']}; commit "
                 f"{c['commit']}, {c['machine']['cpu']}, {c['machine']['cores']} cores", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"plot written to {path}")
    return 0


# --------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="benchmarks to run, or prefixes of names (default: all)")
    ap.add_argument("--only", default="", help="comma-separated benchmark names or prefixes (added to NAMES)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-save", action="store_true", help="do not append to results.jsonl")
    ap.add_argument("--no-peer", action="store_true", help="flexmbd only, even if Exudyn is installed")
    ap.add_argument("--profile", action="store_true", help="also profile one flexmbd run of each benchmark")
    ap.add_argument("--convergence", action="store_true", help="run both codes at h and h/2 instead of timing")
    ap.add_argument("--plot", action="store_true",
                    help=f"write {PLOT.name} and {PLOT_BEAMS.name} from results.jsonl and stop")
    args = ap.parse_args(argv)
    if args.plot:
        return plot()
    if args.list:
        for n, b in BENCHMARKS.items():
            print(f"{n:28s} {'E' if b.peer else ' '} {b.description}")
        return 0
    names = []
    selected = list(args.names) + [x.strip() for x in args.only.split(",") if x.strip()]
    for n in selected or list(BENCHMARKS):
        hits = [n] if n in BENCHMARKS else [b for b in BENCHMARKS if b.startswith(n)]
        if not hits:
            print(f"unknown benchmark {n!r}; known: {list(BENCHMARKS)}", file=sys.stderr)
            return 2
        names += [h for h in hits if h not in names]
    if args.convergence:
        for n in names:
            convergence(n)
        return 0
    peer = not args.no_peer and peer_available()
    if not peer and not args.no_peer:
        print("Exudyn is not installed (pip install -e .[bench]): flexmbd only", file=sys.stderr)
    print(HEADER)
    failed = []
    for n in names:
        row = run_one(n, args.repeat, peer, not args.no_save)
        print(format_row(row), flush=True)
        if split_line(row):
            print(split_line(row), flush=True)
        if not passed(row):
            failed.append(n)
    if args.profile:
        for n in names:
            profile(n)
    if failed:
        print(f"FAIL: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
