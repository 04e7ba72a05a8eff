"""Multipliers and joint reactions of the index-3 runs: second order by default
(``multipliers='consistent'``), against independent Newton-Euler references."""
import warnings

import numpy as np
import pytest

from flexmbd.examples.slider_crank import build
from flexmbd.verify.cases.friction import crank_rocker_model
from flexmbd.verify.crank_rocker_reference import crank_rocker_driven
from flexmbd.verify.references import slider_crank_minimal

K, C = 2e4, 1e3


@pytest.fixture(scope="module")
def reference():
    return slider_crank_minimal(K, C, t_end=1.0, rtol=1e-12, atol=1e-12)


def _slider_crank_errors(ref, h, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=K, c=C).simulate(t_end=1.0, h=h, **settings)
    guide, pivot = ref.joint_forces(res.t)
    x = np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t)).max()
    v = np.abs(res["slider.velocity"][:, 0] - ref.slider_velocity(res.t)).max()
    N = np.abs(res["slide.reaction"][:, 1] - guide[:, 1]).max() / np.abs(guide[:, 1]).max()
    R = np.abs(res["crank_pin.reaction"][:, :2] - pivot).max() / np.abs(pivot).max()
    return np.array([x, v, N, R])


@pytest.mark.parametrize("integrator", ["newmark", "generalized-alpha"])
def test_slider_crank_reactions_second_order(reference, integrator):
    """P1's slider-crank (k = 2e4, c = 1e3): slider position, velocity, the guide's normal
    force and the crank pivot's force against the one-coordinate Lagrange solution and
    Newton-Euler from its motion.  Halving h divides every error by 4 (measured 3.99-4.00
    for h = 2e-3 → 1e-3, Newmark and generalized-α); the index-3 Newton multipliers of
    Newmark (``multipliers='integrator'``) only by 2 (1.9, 1.5)."""
    e1 = _slider_crank_errors(reference, 2e-3, integrator=integrator)
    e2 = _slider_crank_errors(reference, 1e-3, integrator=integrator)
    ratio = e1 / e2
    assert np.all((3.7 < ratio) & (ratio < 4.3)), ratio
    assert e2[2] < 2e-5 and e2[3] < 2e-5
    if integrator == "newmark":
        f1 = _slider_crank_errors(reference, 2e-3, integrator=integrator, multipliers="integrator")
        f2 = _slider_crank_errors(reference, 1e-3, integrator=integrator, multipliers="integrator")
        assert np.all(f1[2:] / f2[2:] < 2.2) and np.all(f2[2:] > 3 * e2[2:])


def test_driven_closed_loop_reactions():
    """P2's crank-rocker without friction, a closed loop driven by a time-dependent
    constraint (crank angle 3 t), gravity and a rocker damper: the motor torque and the
    slot's normal force against the independent Newton-Euler solution.  The motion is
    fixed by the driver, so with the default the reactions are exact up to rounding for
    Newmark (with its velocity projection) and second order for generalized-α (its
    velocities are); the index-3 Newton multipliers of Newmark are first order."""
    def errors(h, **settings):
        res = crank_rocker_model(c=0.5, g=9.81, mu=0.0).simulate(t_end=1.0, h=h, **settings)
        ref = crank_rocker_driven(res.t, c=0.5, g=9.81, mu=0.0)
        return np.array([np.abs(res["motor.torque"] - ref.tau).max() / np.abs(ref.tau).max(),
                         np.abs(res["friction.normal_force"] - np.abs(ref.N)).max() / np.abs(ref.N).max()])

    assert np.all(errors(2e-3) < 1e-12)
    ga = [errors(h, integrator="generalized-alpha") for h in (2e-3, 1e-3)]
    assert np.all((3.8 < ga[0] / ga[1]) & (ga[0] / ga[1] < 4.2)) and np.all(ga[1] < 1e-5)
    first = [errors(h, multipliers="integrator") for h in (2e-3, 1e-3)]
    assert np.all((1.8 < first[0] / first[1]) & (first[0] / first[1] < 2.2))
