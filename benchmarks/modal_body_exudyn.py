"""The modal body from FE data against Exudyn's ObjectFFRFreducedOrder (its component mode
synthesis body; Zwölfer & Gerstmayr 2021), on the same FE data and the same mode shapes.

    python -m benchmarks.modal_body_exudyn                       # Exudyn importable here
    python -m benchmarks.modal_body_exudyn --exudyn-python /tmp/exu/bin/python

The same comparison is the runner's row ``fe-modal-body`` (``python -m benchmarks
fe-modal-body``; the models are benchmarks.models.fe_modal_body_model and
benchmarks.exudyn_models.fe_modal_body).  Exudyn is optional (the ``bench`` extra); with
``--exudyn-python`` the peer runs in that
interpreter (a throwaway venv with exudyn, numpy and scipy only): this script writes the
FE data and the flexmbd answer to a temporary .npz and runs itself there with ``--peer``.

Model: the space-truss cantilever of :mod:`flexmbd.bodies.fe_lattice` (20 bays, 84
nodes), Craig-Bampton modes of the root section (6 static + 4 fixed-interface modes,
computed by flexmbd and given to both codes), the four root nodes held by spherical
joints to ground, a step load of 0.5 N along −z shared by the four tip nodes, no gravity;
index-3 Newmark (β = ¼, γ = ½), h = 2.5e-4 s, 0.1 s.  Compared: the mean global z
displacement of the tip nodes over the history; wall times of the solve (flexmbd:
``simulate``; Exudyn: ``Assemble`` + ``SolveDynamic``, as in :mod:`benchmarks.exudyn_models`).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

H, T_END, F = 2.5e-4, 0.1, 0.5


def flexmbd_side():
    from flexmbd.solvers.integrators import Newmark

    from benchmarks.models import fe_modal_body_model, fe_truss

    fe = fe_truss()
    m = fe_modal_body_model((0.0, 0.0, -F))
    t0 = time.perf_counter()
    res = m.simulate(t_end=T_END, h=H, integrator=Newmark())
    wall = time.perf_counter() - t0
    z = res["b.node_positions"][:, fe["tip"], 2].mean(axis=1)
    return dict(nodes=fe["nodes"], mass=fe["mass"], stiffness=fe["stiffness"], modes=fe["modes"], root=fe["root"],
                tip=fe["tip"], t=res.t, z=z - z[0], wall=wall, iterations=int(np.sum(res.stats["iterations"])))


def exudyn_side(d):
    from benchmarks.exudyn_models import exu, fe_modal_body, solve

    peer = fe_modal_body(d, int(round(T_END / H)), H, (0.0, 0.0, -F))
    t0 = time.perf_counter()
    out = solve(peer)
    wall = time.perf_counter() - t0
    data = peer.sensor("tip")
    t, z = data[:, 0], data[:, 3]
    return dict(ok=out.success, t=t, z=z - z[0], wall=wall, iterations=out.iterations, version=exu.__version__)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exudyn-python", default=None, help="a Python with exudyn (default: this one)")
    ap.add_argument("--peer", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.peer:                                   # inside the Exudyn interpreter
        d = dict(np.load(args.peer))
        out = exudyn_side(d)
        np.savez(args.peer + ".peer.npz", **{k: np.asarray(v) for k, v in out.items()})
        return
    ours = flexmbd_side()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "data.npz")
        np.savez(path, **{k: np.asarray(v) for k, v in ours.items()})
        root = str(Path(__file__).resolve().parents[1])
        subprocess.run([args.exudyn_python or sys.executable, "-m", "benchmarks.modal_body_exudyn", "--peer", path],
                       check=True, cwd=root, env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
        peer = dict(np.load(path + ".peer.npz"))
    n = min(len(ours["t"]), len(peer["t"]))
    assert np.allclose(ours["t"][:n], peer["t"][:n])
    diff = np.abs(ours["z"][:n] - peer["z"][:n]).max()
    peak = np.abs(ours["z"]).max()
    print(f"Exudyn {peer['version']} ObjectFFRFreducedOrder vs flexmbd modal body, truss 84 nodes, 10 modes, "
          f"{n - 1} steps of h = {H}:")
    print(f"  tip peak: flexmbd {ours['z'].min():.6e} m, Exudyn {peer['z'].min():.6e} m; "
          f"max difference over the history {diff:.2e} m = {diff / peak:.1e} of the peak")
    print(f"  wall: flexmbd {ours['wall']:.2f} s ({ours['iterations']} Newton iterations), "
          f"Exudyn {peer['wall']:.2f} s ({int(peer['iterations'])} Newton iterations)")


if __name__ == "__main__":
    main()
