"""Named outputs that are derived from the solution: joint reactions."""
import warnings

import numpy as np

import flexmbd as fm
from flexmbd.examples.slider_crank import build


def test_reaction_closes_newtons_second_law_of_a_pendulum_bob():
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.rigid_body("bob", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(1.0, 0, 0))
    m.spherical(fm.GROUND, b, at=(0, 0, 0), name="pivot")
    r = m.simulate(t_end=0.5, h=1e-3)
    lhs = r["pivot.reaction"] + 2.0 * np.array([0, 0, -9.81])
    assert np.allclose(lhs, 2.0 * r.qdd[:, :3], atol=1e-10)


def test_slider_force_balance_with_redundant_prismatic_equations_removed():
    """Slider (1 kg): wrist + slide reactions + the 1 kN push = m a, although three of the
    prismatic joint's equations were removed as redundant."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = build().simulate(t_end=0.3, h=0.01)
    total = r["wrist.reaction"] + r["slide.reaction"] + np.array([1000.0, 0, 0])
    accel = r.qdd[:, r.system.body_slice(r.system.model.body("slider"))][:, :3]
    assert np.allclose(total, 1.0 * accel, atol=1e-8 * 1000)
    assert np.allclose(r["slide.reaction"][:, 0], 0.0, atol=1e-9)  # a prismatic joint along x carries no x force
