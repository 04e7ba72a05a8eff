"""The DT-TMM rig (flexmbd/tmm/rig.py) against an independent formulation of the same rig:
flexmbd's index-3 solver with SE(3) beams, rigid bodies, bushings, Hertz contact and a
prescribed roller surface (benchmarks/p5_rig_independent.py; docs/solvers/tmm.md, "The P5
rig: the differences explained").  Axle damping 0 in both (SE(3) beams have no material
damping)."""
from __future__ import annotations

from benchmarks.p5_rig_independent import compare, outputs, simulate, tmm_outputs
from flexmbd.tmm.rig import RigParameters

P = RigParameters(axle_damping=0.0)


def test_closed_contact_dent_response_agrees_with_the_index3_rig():
    """Dent 0.02 mm (the contact stays closed: 58 … 94 kN): the 1000 Hz low-passed axle-box,
    wheel and mid-span accelerations and the contact force of the two formulations over the
    first 18 ms (dent 12-15.6 ms), within 1 % of the peak.  The tolerance: the wheelsets'
    in-plane free-free frequencies agree to 5e-5 (one cubic SE(3) element per segment: 1e-4;
    benchmarks/p5_rig_independent.txt), so what separates the two is the time
    discretization of the coupling (the TMM's explicit Zhai steps for frame and rollers and
    its predictor-corrector loop against the index-3 trapezoidal rule), whose effect, from
    halving h in each (2e-5 → 1e-5), is ≤ 0.25 % of the peak per formulation on these
    outputs over 30 ms; twice their sum, 1 %.  Measured: 0.4-0.6 % over 60 ms."""
    depth, t_end = 0.02e-3, 0.018
    res, st, _, _ = simulate(P, True, depth, t_end, elements=1, order=3)
    a = outputs(res, P, True)
    b = tmm_outputs(P, True, depth, t_end)
    # static contact force: both solve the same statics (measured 8e-6 apart)
    assert abs(a["contact1"][0] / b["contact1"][0] - 1) < 2e-5
    assert a["contact1"].min() > 0 and b["contact1"].min() > 0          # closed throughout
    err = compare(a, b)
    assert max(err.values()) < 0.01, err
