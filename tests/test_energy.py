"""Energy bookkeeping of force elements: stored + dissipated + kinetic is conserved."""
import numpy as np

from flexmbd import Model, Newmark


def test_cable_energy_balance_through_slack_and_taut():
    """Two free bodies separate at 2 m/s, joined by a slack cable (rest 1.1 m, length 1 m).
    The cable carries nothing while slack, then stretches; kinetic + stored + dissipated
    stays equal to the initial energy to the step's O(h²) accuracy."""
    errs = []
    for h in (1e-3, 5e-4):
        m = Model()
        a = m.rigid_body("a", mass=1, inertia=(1, 1, 1), position=(0, 0, 0), velocity=(-1, 0, 0))
        b = m.rigid_body("b", mass=1, inertia=(1, 1, 1), position=(1, 0, 0), velocity=(1, 0, 0))
        m.spring_damper(a, b, k=100.0, c=10.0, rest_length=1.1, tension_only=True, name="cable")
        r = m.simulate(t_end=0.5, h=h, integrator=Newmark(0.25, 0.5), tol=1e-12)
        assert r.success
        f = r["cable.force"]
        assert np.all(f[r["cable.length"] <= 1.1] == 0.0) and np.any(f > 0)
        errs.append(np.max(np.abs(r["energy.numerical_dissipation"])))
        assert r["energy.dissipated"][-1] > 0.5  # the damper took most of the energy
    assert errs[0] < 1e-4
    assert errs[1] < errs[0] / 2  # shrinks with h (quadrature and integrator error)
