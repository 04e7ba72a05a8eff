"""Checks of the modal body from finite-element data (docs/elements/modal-body.md), with
timings: every figure of the page's verification table.

    python -m benchmarks.modal_body_checks             # the figures and docs/modal_body_response.png
    python -m benchmarks.modal_body_checks --no-plot

The FE model is the space-truss beam of :mod:`flexmbd.bodies.fe_lattice` (the tests'
data, tests/test_modal_body.py, which assert the same quantities with tolerances).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import flexmbd as fm
from flexmbd.beams.sections import Section
from flexmbd.bodies.fe_data import check_fe_data, free_free_modes
from flexmbd.bodies.modal_beam import rigid_properties
from flexmbd.bodies.fe_lattice import beam_properties, clamped_eigenvalues, truss_beam, truss_data
from flexmbd.ground import GROUND
from flexmbd.nodes.beam_modes import bending_roots
from flexmbd.solvers.modes import linear_modes

DOCS = Path(__file__).resolve().parents[1] / "docs"
TRUSS = dict(length=1.0, bays=10, width=0.05, E=7e10, area=1e-5, node_mass=0.05)


def arrays(**kw):
    return truss_data(**{**TRUSS, **kw})



def zero_modes():
    data, _ = arrays(centered=True)
    kw = dict(position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1), angular_velocity=(2.0, 8.0, 3.0),
              orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.4))
    runs = []
    for rigid in (False, True):
        m = fm.Model(gravity=(0.0, -9.81, 0.0))
        b = m.modal(name="b", data=data, modes=0, **kw)
        tip = b.node_position(41)
        if rigid:
            mass, _, J = rigid_properties(m.element("b").data["W"])
            m = fm.Model(gravity=(0.0, -9.81, 0.0))
            b = m.rigid_body("b", mass=mass, inertia=J, **kw)
        m.spring_damper(GROUND, b, at_i=(1.0, 1.0, 0.0), at_j=tip, k=200.0, c=1.0, name="s")
        runs.append(m.simulate(t_end=1.0, h=2e-3, tol=1e-12))
    return {w: float(np.abs(runs[0][f"b.{w}"] - runs[1][f"b.{w}"]).max() / np.abs(runs[1][f"b.{w}"]).max())
            for w in ("position", "orientation", "angular_velocity")}


def frequencies():
    data, fe = arrays()
    m = fm.Model()
    m.modal(name="b", data=data, modes=6)
    lam, _ = free_free_modes(check_fe_data(data), 6)
    om = np.sort(linear_modes(m).omega)
    free = float(np.abs(om[6:] / np.sqrt(lam) - 1).max()), float(om[:6].max() / om[6])
    m = fm.Model()
    b = m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type="craig-bampton")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"r{k}")
    om = np.sort(linear_modes(m).omega)
    ref = np.sqrt(clamped_eigenvalues(fe, 4))
    cb = float(np.abs(om / ref - 1).max())
    conv = []
    for bays, w in ((10, 0.05), (20, 0.05), (40, 0.025), (80, 0.0125)):
        f = truss_beam(length=1.0, bays=bays, width=w)
        p = beam_properties(length=1.0, bays=bays, width=w)
        w1 = bending_roots("clamped-free", 1)[0] ** 2 * np.sqrt(p["EI"] / p["mu"])
        conv.append((bays, w, float(np.sqrt(clamped_eigenvalues(f, 1)[0]) / w1 - 1)))
    return free, cb, ref[:4] / (2 * np.pi), conv


def tumbling(centered):
    data, _ = arrays(E=2e8, centered=centered)
    out = []
    for h in (2e-3, 1e-3):
        m = fm.Model()
        m.modal(name="b", data=data, modes=4, position=(0.1, 0.2, 0.3), velocity=(0.5, -0.2, 0.1),
                angular_velocity=(2.0, 8.0, 3.0), orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.4),
                modal_velocities=[0.02, -0.01, 0.015, 0.01])
        t0 = time.perf_counter()
        res = m.simulate(t_end=0.5, h=h, tol=1e-11)
        wall = time.perf_counter() - t0
        e, lin, ang = res["energy.total"], res["b.linear_momentum"], res["b.angular_momentum"]
        out.append((h, float(np.abs(e - e[0]).max() / e[0]),
                    float(np.abs(ang - ang[0]).max() / np.linalg.norm(ang[0])),
                    float(np.abs(lin - lin[0]).max() / np.linalg.norm(lin[0])), wall))
    return out


def response(bays=20, width=0.05, F=0.5, t_end=0.2, h=2.5e-4):
    """Tip deflection under a step tip load: the Craig-Bampton truss body (root nodes held)
    and the modal beam of the same EI, μ, ρI (3 bending modes)."""
    data, fe = arrays(bays=bays, width=width)
    p = beam_properties(length=1.0, bays=bays, width=width, E=TRUSS["E"], area=TRUSS["area"],
                        node_mass=TRUSS["node_mass"])
    m = fm.Model()
    b = m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type="craig-bampton")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"r{k}")
    for k in fe["tip"]:
        m.force(b, (0.0, 0.0, -F / 4), at=b.node_position(int(k)), name=f"f{k}")
    t0 = time.perf_counter()
    res = m.simulate(t_end=t_end, h=h)
    wall = time.perf_counter() - t0
    pos = res["b.node_positions"][:, fe["tip"], 2].mean(axis=1)
    sec = Section(EA=1e9, EI2=p["EI"], EI3=p["EI"], GA2=1e9, GA3=1e9, GJ=1e3, rhoA=p["mu"], rhoI2=p["rhoI"],
                  rhoI3=p["rhoI"])
    m2 = fm.Model()
    beam = m2.modal_beam(name="beam", length=1.0, section=sec, ends="clamped-free", modes=dict(bending_z=3),
                         geometric_stiffening=False)
    m2.fixed(GROUND, beam, at=(0, 0, 0), name="root")
    m2.force(beam, (0.0, 0.0, -F), at=(1.0, 0, 0), name="f")
    t0 = time.perf_counter()
    res2 = m2.simulate(t_end=t_end, h=h)
    wall2 = time.perf_counter() - t0
    return res.t, pos - pos[0], res2["beam.tip_deflection"][:, 2], -F / (3 * p["EI"]), wall, wall2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    z = zero_modes()
    print("zero modes vs rigid body (1 s, h = 2e-3), max relative difference:",
          ", ".join(f"{k} {v:.1e}" for k, v in z.items()))
    (free, rigid), cb, f_cl, conv = frequencies()
    print(f"free-free, 6 modes: elastic frequencies vs FE eigenvalues {free:.1e}; rigid modes < {rigid:.1e} ω₇")
    print(f"Craig-Bampton (6 static + 4 fixed-interface), root held by joints: vs FE clamped {cb:.1e}; "
          f"f = {', '.join(f'{x:.3f}' for x in f_cl)} Hz")
    for bays, w, e in conv:
        print(f"  truss {bays} bays, w = {w}: first clamped frequency vs Bernoulli-Euler {100 * e:+.2f} %")
    for centered in (True, False):
        for h, e, a, lin, wall in tumbling(centered):
            print(f"tumbling ({'origin at centre of mass' if centered else 'origin at the end'}), h = {h:g}: "
                  f"energy {e:.1e}, angular momentum {a:.1e}, linear momentum {lin:.1e}; {wall:.2f} s")
    t, fe_tip, beam_tip, static, wall, wall2 = response()
    k1, k2 = np.argmin(fe_tip[t < 0.06]), np.argmin(beam_tip[t < 0.06])
    print(f"step tip load, 0.2 s: peak FE truss {fe_tip.min():.4e} m at {t[k1]:.4f} s ({wall:.1f} s wall), "
          f"modal beam {beam_tip.min():.4e} m at {t[k2]:.4f} s ({wall2:.1f} s wall), 2 × static (EB) "
          f"{2 * static:.4e} m; max difference {np.abs(fe_tip - beam_tip).max() / abs(beam_tip.min()):.3f} of the "
          "beam's peak")
    if not args.no_plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        ax.plot(t, 1e3 * fe_tip, label="modal body from FE data (truss, 20 bays, Craig-Bampton 6 + 4)")
        ax.plot(t, 1e3 * beam_tip, "--", label="modal beam (same EI, μ; 3 modes)")
        ax.axhline(1e3 * static, color="0.6", lw=0.8, label="static deflection (Bernoulli-Euler)")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("tip deflection [mm]")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22))
        fig.tight_layout()
        fig.savefig(DOCS / "modal_body_response.png", dpi=120)
        print("wrote docs/modal_body_response.png")


if __name__ == "__main__":
    main()
