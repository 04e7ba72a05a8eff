"""Reference comparisons for the floating-frame modal beam (P4; docs/elements/ffr-beam.md):
its natural frequencies from the linearised analysis against Bernoulli-Euler theory, and
the spin-up beam against the SE(3) beam; the modal body from FE data
(docs/elements/modal-body.md): its frequencies against the FE model's eigenvalues."""
from __future__ import annotations

import numpy as np

import flexmbd as fm

from ...beams.sections import Section
from ...examples.ffr_beams import SE3_OPTIONS, spin_up_model, spin_up_tip
from ...ground import GROUND
from ...nodes.beam_modes import bending_roots
from ...solvers.modes import linear_modes
from ..registry import case, compare

BE = "Bernoulli-Euler beam, exact (Blevins 1979, table 8-1)"


@case("ffr-frequencies", description="modal beam, clamped by a fixed joint and free-free in space: linearised "
      "natural frequencies vs Bernoulli-Euler")
def frequencies_case():
    sec = Section.rectangle(0.02, 0.01, E=2.1e11, nu=0.3, rho=7850.0)
    w = np.sqrt(sec.EI3 / sec.rhoA)
    out = []
    for ends, frame in (("clamped-free", "start"), ("free-free", "center")):
        m = fm.Model(gravity=(0, 0, 0))
        b = m.modal_beam(name="b", length=1.0, section=sec, ends=ends, frame=frame, rotary_inertia=False,
                         modes=dict(bending_y=3))
        if ends == "clamped-free":
            m.fixed(GROUND, b, at=(0, 0, 0), name="clamp")
        modes = linear_modes(m)
        elastic = modes.omega[-3:]
        for i, (ref, val) in enumerate(zip(bending_roots(ends, 3) ** 2 * w, elastic)):
            out.append(compare("ffr-frequencies", f"{ends} bending mode {i + 1}", ref, val, unit="rad/s",
                               tolerance=1e-9, source=BE))
    return out


@case("fe-modal-frequencies", description="modal body from FE data (space truss, 44 nodes): free-free (6 modes) "
      "and Craig-Bampton held at the root nodes (6 + 4 modes): linearised frequencies vs the FE eigenvalues")
def fe_modal_frequencies_case():
    import scipy.linalg as sla

    from ...bodies.fe_data import check_fe_data, free_free_modes
    from ...bodies.fe_lattice import truss_beam

    fe = truss_beam(length=1.0, bays=10, width=0.05, E=7e10, area=1e-5, node_mass=0.05)
    data = {k: fe[k] for k in ("nodes", "mass", "stiffness")}
    out, name = [], "fe-modal-frequencies"
    m = fm.Model()
    m.modal(name="b", data=data, modes=6)
    ref = np.sqrt(free_free_modes(check_fe_data(data), 6)[0])
    for i, (r, v) in enumerate(zip(ref, np.sort(linear_modes(m).omega)[6:])):
        out.append(compare(name, f"free-free mode {i + 1}", r, v, unit="rad/s", tolerance=1e-9,
                           source="FE model's free-free eigenvalues (scipy.linalg.eigh)"))
    m = fm.Model()
    b = m.modal(name="b", data=dict(data, interface=fe["root"]), modes=4, mode_type="craig-bampton")
    for k in fe["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"root{k}")
    keep = np.setdiff1d(np.arange(len(fe["stiffness"])), (3 * fe["root"][:, None] + np.arange(3)).ravel())
    ref = np.sqrt(sla.eigh(fe["stiffness"][np.ix_(keep, keep)], fe["mass"][np.ix_(keep, keep)], eigvals_only=True,
                           subset_by_index=[0, 3]))
    for i, (r, v) in enumerate(zip(ref, np.sort(linear_modes(m).omega))):
        out.append(compare(name, f"clamped mode {i + 1}", r, v, unit="rad/s", tolerance=1e-9,
                           source="FE model's eigenvalues with the root nodes held"))
    return out


@case("ffr-spin-up", slow=True, description="spin-up beam (Simo & Vu-Quoc 1986 data), modal beam with 3 modes and "
      "geometric stiffening vs SE(3) beam (10 elements), h = 0.02 s, 20 s")
def spin_up_case():
    runs = {}
    for form in ("modal", "se3"):
        res = spin_up_model(form).simulate(t_end=20.0, h=0.02, **(SE3_OPTIONS if form == "se3" else {}))
        runs[form] = spin_up_tip(res, form) if res.success else np.full(len(res.t), np.nan)
    peak = float(np.max(np.abs(runs["se3"])))
    diff = float(np.max(np.abs(runs["modal"] - runs["se3"])))
    name = "ffr-spin-up"
    return [compare(name, "peak tip deflection", peak, float(np.max(np.abs(runs["modal"]))), unit="m",
                    tolerance=0.02, source="flexmbd SE(3) beam, 10 elements"),
            compare(name, "max |v_modal − v_se3| / peak over 20 s", 0.02, diff / peak, tolerance=0.0,
                    source="issue 14: within 2 %", mode="max")]


@case("ffr-crank-slider", slow=True, description="P3's crank-slider Model II with pinned-pinned modal beams (3 "
      "bending modes each, foreshortening) vs the SE(3) beams (third order, 2 + 2 elements) with the same "
      "shear-rigid Bernoulli-Euler section, h = 3e-5 s, 0.2 s")
def crank_slider_case():
    from ...examples.ffr_beams import crank_slider_deformation, crank_slider_model
    from ...examples.p3_beams import CRANK_SLIDER, NU, crank_slider, deformation_measure

    p = CRANK_SLIDER["II"]
    run = dict(t_end=p["t_end"], h=p["h"], integrator=fm.GeneralizedAlpha(0.8), output_every=10)
    s = Section.rectangle(p["width"], p["width"], E=p["E"], nu=NU, rho=p["rho"])
    rigid_shear = Section.user(EA=s.EA, GA2=1e3 * s.GA2, GA3=1e3 * s.GA3, GJ=s.GJ, EI2=s.EI2, EI3=s.EI3,
                               rhoA=s.rhoA, rhoI2=s.rhoI2, rhoI3=s.rhoI3)
    modal = crank_slider_deformation(crank_slider_model("II", 3).simulate(**run))
    pm = crank_slider("II", elements=(2, 2), order=3, section=rigid_shear)
    se3 = deformation_measure(pm.model.simulate(convergence="increment", **run), pm.rods[1])
    n = min(len(modal), len(se3))
    early = np.arange(n) * 10 * p["h"] <= 0.12
    name = "ffr-crank-slider"
    src = "flexmbd SE(3) beams, third order, 2 + 2 elements, GA × 1000"
    return [compare(name, "peak d/L of the rod", float(se3.max()), float(modal.max()), tolerance=0.05, source=src),
            compare(name, "max |d/L difference| until 0.12 s / peak", 0.02,
                    float(np.abs(modal[:n] - se3[:n])[early].max() / se3.max()), tolerance=0.0,
                    source="history agreement before the rod's response grows", mode="max")]
