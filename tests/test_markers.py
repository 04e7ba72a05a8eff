"""User markers: named body points reported as outputs."""
import numpy as np

import flexmbd as fm


def test_marker_on_pendulum_tip():
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.rigid_body("bar", mass=1, inertia=(0.01, 0.1, 0.1), position=(0.5, 0, 0))
    m.revolute(fm.GROUND, b, at=(0, 0, 0), axis=(0, 1, 0))
    m.marker(b, (1, 0, 0), name="tip")
    r = m.simulate(t_end=0.3, h=1e-3)
    p, v = r["tip.position"], r["tip.velocity"]
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-9)  # rigid: stays 1 m from the pin
    # the tip, twice as far from the pin as the centre of mass, moves twice as fast
    assert np.allclose(v, 2 * r["bar.velocity"], atol=1e-9)
    # velocity is the time derivative of position (central differences, O(h²) ≈ 1e-6 here)
    dp = (p[2:] - p[:-2]) / (r.t[2:] - r.t[:-2])[:, None]
    assert np.max(np.abs(dp - v[1:-1])) < 1e-4 * np.max(np.abs(v))
