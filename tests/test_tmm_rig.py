"""P5's roller rig (flexmbd.tmm.rig): statics against rigid-body statics, the spectrum at
400 km/h against the excitation frequencies v/πD and v/λ."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbd.errors import ModelError
from flexmbd.tmm import irregularity as irr
from flexmbd.tmm import spectra
from flexmbd.tmm.rig import Rig, RigParameters, with_changes


@pytest.fixture(scope="module")
def polygon():
    rig = Rig()
    R = rig.p.wheel_radius()
    rough = [irr.combine([irr.harmonic(0.9, 36, 0.025e-3, phase=ph), irr.harmonic(R, 1, 0.03e-3, phase=ph)])
             for ph in (0.0, 2.0)]
    return rig, rig.run(400.0, 0.35, h=4e-5, roller=rough, settle=0.3)


def test_settled_contact_forces_are_the_static_wheel_loads(polygon):
    # the wheelset is statically determinate on its two contacts: the flexible axle's
    # settled contact forces are the rigid-body statics' wheel loads, summing to the axle load
    rig, res = polygon
    assert rig.P.sum() == pytest.approx(rig.p.axle_load * 9.81, rel=1e-12)
    assert res["contact1"][0] == pytest.approx(rig.P[0], rel=5e-4)
    assert res["contact2"][0] == pytest.approx(rig.P[1], rel=5e-4)


def test_spectrum_at_400_kmh_shows_wheel_rotation_and_polygon_passing(polygon):
    rig, res = polygon
    v = 400 / 3.6
    keep = res.t > 0.1                       # after the onset transient of the irregularities
    f, S = spectra.psd(res.t[keep], res["box1.acc"][keep], segment_seconds=0.25)
    df = f[1] - f[0]

    def peak(lo, hi):
        m = (f >= lo) & (f <= hi)
        return f[m][np.argmax(S[m])], np.max(S[m]) / np.median(S[m])

    f_rot, prom_rot = peak(20, 60)
    f_poly, _ = peak(600, 800)
    f_2poly, _ = peak(1350, 1480)
    assert abs(f_rot - v / (np.pi * rig.p.wheel_diameter)) <= df          # 38.7 Hz
    assert prom_rot > 10
    assert abs(f_poly - v / (np.pi * 1.8 / 36)) <= df                     # 707.4 Hz
    assert abs(f_2poly - 2 * v / (np.pi * 1.8 / 36)) <= df
    # the polygon passing frequency is the spectrum's largest peak
    assert abs(f[np.argmax(S)] - f_poly) <= df


def test_bad_rig_input_is_named():
    with pytest.raises(ModelError, match="gearbox_mas"):
        with_changes(RigParameters(), gearbox_mas=1.0)
    with pytest.raises(ModelError, match="axle_load"):
        Rig(with_changes(RigParameters(), axle_load=500.0))
    with pytest.raises(ModelError, match="speed"):
        Rig().run(-3.0, 0.01)


def test_wheelset_free_vibration_has_the_frequency_domain_natural_frequencies():
    # parts 3-10 (axle, wheels, gearbox), free-free, undamped: the spectrum of the DT-TMM
    # response to a short kick peaks at the exact (frequency-domain TMM) bending frequencies
    from flexmbd.tmm.chain import Chain
    from flexmbd.tmm.frequency import natural_frequencies
    from flexmbd.tmm.rig import wheelset

    parts = wheelset(RigParameters(axle_damping=0.0)).elements[2:10]
    fd = natural_frequencies(parts, "free", "free", 800.0)
    assert len(fd) == 4
    chain = Chain(parts, "free", "free")
    h = 2e-5                 # trapezoidal period error (ωh)²/12 ≤ 6e-4 at 678 Hz: < 0.4 Hz
    i, j = chain.index("wheel4"), chain.index("gearbox7")

    def kick(t):
        g = chain.zero_load()
        if t <= 5 * h:
            g[i, 0], g[j, 1] = 1e4, 300.0
        return g

    t, acc, _, _ = chain.simulate(h, 50000, load=kick)
    f, A = spectra.amplitude_spectrum(t, acc[:, 0, 0])
    for fr in fd:
        m = (f > 0.9 * fr) & (f < 1.1 * fr)
        assert abs(f[m][np.argmax(A[m])] - fr) <= 1.5       # 1 Hz bins


def test_dent_response_is_linear_in_depth_until_the_wheel_leaves_the_roller():
    # P5's dent (300 mm) at 300 km/h: its imposed acceleration (d/2)(2πv/l)² is 46.6 g at
    # 0.3 mm against a static load of 9.6 g per half wheelset, so the contact must open and the
    # wheel strike the dent's rising flank; at 5 and 10 µm it stays closed and the response
    # scales with the depth (Hertz's nonlinearity: contact force within ±20 % of static,
    # δ within ±13 %, so the ratio of responses within 5 % of 2)
    flat = lambda s: np.zeros_like(np.asarray(s, dtype=float))  # noqa: E731
    v, l = 300 / 3.6, 0.3

    def run(depth):
        rig = Rig(flexible=False)
        r = rig.run(300.0, 0.04, h=4e-5, roller=[irr.dent(0.5, l, depth), flat], settle=0.2)
        return rig, r

    rig, small = run(5e-6)
    _, double = run(10e-6)
    P = rig.P[0]
    assert np.max(np.abs(double["contact1"] - P)) < 0.2 * P
    for key in ("box1.acc", "wheel4.acc", "contact1"):
        base = small[key][0]
        ratio = np.max(np.abs(double[key] - base)) / np.max(np.abs(small[key] - base))
        assert ratio == pytest.approx(2.0, rel=0.05), key
    _, deep = run(0.3e-3)
    assert 0.5 * 0.3e-3 * (2 * np.pi * v / l) ** 2 > 4.5 * P / (0.5 * sum(e.mass() for e in rig.chain.elements))
    assert deep["contact1"].min() == 0.0                        # the wheel leaves the roller
    assert deep["contact1"].max() > 5 * P                        # and strikes the rising flank


def test_compiled_rig_loop_equals_the_numpy_loop():
    # the compiled loop (flexmbd/kernels/tmm_rig.py) is the NumPy loop statement for statement:
    # same iterations, outputs to rounding, through settling, rolling over a dent that opens
    # the contact, and the final state; a second run of the same Rig starts afresh
    from flexmbd.kernels import AVAILABLE

    if not AVAILABLE:
        pytest.skip("compiled kernels disabled")
    flat = lambda s: np.zeros_like(np.asarray(s, dtype=float))  # noqa: E731
    roller = [irr.dent(0.5, 0.3, 0.3e-3), flat]
    rig_a, rig_b = Rig(), Rig()
    run = lambda rig, compiled: rig.run(300.0, 0.012, h=4e-5, roller=roller, settle=0.02, every=3,  # noqa: E731
                                        compiled=compiled)
    a, b = run(rig_a, True), run(rig_b, False)
    assert np.array_equal(a.iterations, b.iterations)
    assert b["contact1"].min() == 0.0                          # the contact opened on the way
    for key in a.outputs:
        assert np.max(np.abs(a[key] - b[key])) <= 1e-9 * np.max(np.abs(b[key])) + 1e-300, key
    assert np.max(np.abs(rig_a.chain.q - rig_b.chain.q)) <= 1e-9 * np.max(np.abs(rig_b.chain.q))
    a2 = run(rig_a, True)
    for key in a.outputs:
        assert np.array_equal(a2[key], a[key]), key               # a second run of one Rig repeats
