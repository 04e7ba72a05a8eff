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
    first 18 ms (dent 12-15.6 ms), within 1 % of the peak.  The tolerance: each formulation's
    time-discretization error, from halving h (2e-5 → 1e-5), is ≤ 0.33 % of the peak on these
    outputs (0.14-0.33 %, trapezoidal: error ≈ 4/3 of the change, ≤ 0.44 %), and the
    wheelsets' frequencies agree to 1e-4 (one cubic SE(3) element per segment), a phase
    drift 2π·N·1e-4 ≲ 0.3 % over the N ≲ 5 cycles of the 678 Hz mode after the dent:
    ≈ 0.44 + 0.44 + 0.3 → 1 %.  Measured over 60 ms with 2 elements per segment: 0.4-0.6 %;
    the difference does not shrink with h (docs/solvers/tmm.md, "(g)"), so 1 % is also a
    bound on the part not yet explained."""
    depth, t_end = 0.02e-3, 0.018
    res, st, _, _ = simulate(P, True, depth, t_end, elements=1, order=3)
    a = outputs(res, P, True)
    b = tmm_outputs(P, True, depth, t_end)
    # static contact force: both solve the same statics (measured 8e-6 apart)
    assert abs(a["contact1"][0] / b["contact1"][0] - 1) < 2e-5
    assert a["contact1"].min() > 0 and b["contact1"].min() > 0          # closed throughout
    err = compare(a, b)
    assert max(err.values()) < 0.01, err
