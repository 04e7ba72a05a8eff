"""Reference comparisons for the floating-frame modal beam (P4; docs/elements/ffr-beam.md):
its natural frequencies from the linearised analysis against Bernoulli-Euler theory, and
the spin-up beam against the SE(3) beam."""
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
