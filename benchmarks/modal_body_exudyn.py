"""The modal body from FE data against Exudyn's ObjectFFRFreducedOrder (its component mode
synthesis body; Zwölfer & Gerstmayr 2021), on the same FE data and the same mode shapes.

    python -m benchmarks.modal_body_exudyn                       # Exudyn importable here
    python -m benchmarks.modal_body_exudyn --exudyn-python /tmp/exu/bin/python

Exudyn is optional (the ``bench`` extra); with ``--exudyn-python`` the peer runs in that
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
    import flexmbd as fm
    from flexmbd.bodies.fe_data import check_fe_data, normalised, select_modes
    from flexmbd.bodies.fe_lattice import truss_beam
    from flexmbd.ground import GROUND

    fe = truss_beam(length=1.0, bays=20, width=0.05, E=7e10, area=1e-5, node_mass=0.05)
    data = {k: fe[k] for k in ("nodes", "mass", "stiffness")}
    Phi = normalised(select_modes(check_fe_data(data), 4, "craig-bampton", fe["root"])[0])
    m = fm.Model()
    b = m.modal(name="b", data=dict(data, modes=Phi), mode_type="file")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"r{k}")
    for k in fe["tip"]:
        m.force(b, (0.0, 0.0, -F / 4), at=b.node_position(int(k)), name=f"f{k}")
    t0 = time.perf_counter()
    res = m.simulate(t_end=T_END, h=H, integrator="newmark")
    wall = time.perf_counter() - t0
    z = res["b.node_positions"][:, fe["tip"], 2].mean(axis=1)
    return dict(nodes=fe["nodes"], mass=fe["mass"], stiffness=fe["stiffness"], modes=Phi, root=fe["root"],
                tip=fe["tip"], t=res.t, z=z - z[0], wall=wall, iterations=int(np.sum(res.stats["iterations"])))


def exudyn_side(d):
    import scipy.sparse as sp
    import exudyn as exu
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface
    from exudyn.utilities import (LoadForceVector, MarkerBodyPosition, MarkerSuperElementPosition, ObjectGround,
                                  SensorMarker, SphericalJoint)

    from benchmarks.exudyn_models import settings

    fem = FEMinterface()
    fem.nodes = {"Position": np.asarray(d["nodes"])}
    fem.massMatrix = sp.csr_matrix(d["mass"])
    fem.stiffnessMatrix = sp.csr_matrix(d["stiffness"])
    fem.modeBasis = {"matrix": np.asarray(d["modes"])}
    fem.surface = []
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    cms = ObjectFFRFreducedOrderInterface(fem)
    obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[0, 0, 0])
    body = obj["oFFRFreducedOrder"]
    ground = mbs.AddObject(ObjectGround())
    X = np.asarray(d["nodes"])
    for k in d["root"]:
        mn = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(k)],
                                                      weightingFactors=[1.0]))
        mg = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=list(X[k])))
        mbs.AddObject(SphericalJoint(markerNumbers=[mg, mn]))
    tip = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(k) for k in d["tip"]],
                                                   weightingFactors=[0.25] * 4))
    for k in d["tip"]:
        mk = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(k)],
                                                      weightingFactors=[1.0]))
        mbs.AddLoad(LoadForceVector(markerNumber=mk, loadVector=[0.0, 0.0, -F / 4]))
    sensor = mbs.AddSensor(SensorMarker(markerNumber=tip, outputVariableType=exu.OutputVariableType.Position,
                                        storeInternal=True))
    steps = int(round(T_END / H))
    ss = settings(steps, H)
    t0 = time.perf_counter()
    mbs.Assemble()
    ss.linearSolver.solverType = exu.LinearSolverType.EXUdense
    ok = exu.SolveDynamic(mbs, ss, storeSolver=True, autoAssemble=False)
    wall = time.perf_counter() - t0
    out = mbs.GetSensorStoredData(sensor)
    t, z = out[:, 0], out[:, 3]
    return dict(ok=bool(ok), t=t, z=z - z[0], wall=wall, iterations=int(mbs.sys["dynamicSolver"].it.newtonStepsCount),
                version=exu.__version__)


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
