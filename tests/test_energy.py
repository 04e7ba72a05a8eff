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


def _driven_crank(h, integrator):
    import pathlib

    import flexmbd as fm
    from flexmbd.io.model_file import load_model_file

    lm = load_model_file(pathlib.Path(fm.__file__).parent / "models" / "driven-crank.yaml")
    opts = dict(lm.simulate_options(), h=h, tol=1e-10, integrator=integrator)
    return lm.model.simulate(**opts, system=lm.freeze())


def test_energy_balance_of_a_driven_model_counts_the_motor_work():
    """The bundled driven crank: a motor (rotation driver), a spring-damper and a ramped
    push.  The motor's work λᵀΦ_t is external work, so kinetic + stored + dissipated −
    external work stays at its initial value to the integrator's accuracy: generalized-α
    is second order (error ratio ≈ 4 per halving).  Without the motor's work the
    "numerical dissipation" was −33 J (the motor's 33 J of work)."""
    from flexmbd import GeneralizedAlpha

    errs = []
    for h in (2e-3, 1e-3):
        r = _driven_crank(h, GeneralizedAlpha(0.8))
        assert r.success
        errs.append(np.max(np.abs(r["energy.numerical_dissipation"])))
        assert r["energy.external_work"][-1] > 30.0       # the motor did ~33 J
    assert errs[0] < 1e-2
    assert 3.5 < errs[0] / errs[1] < 4.5, errs


def test_energy_balance_with_actuators_loads_and_dampers_is_second_order():
    """Actuated spring-damper (f_a = 20 t N) and rotational spring-damper (ramped τ_a),
    a ramped force, a torque growing as t², gravity, dampers: the actuators' and loads'
    power is external work, the dampers' power dissipation; the balance closes at second
    order for both the trapezoidal rule and generalized-α."""
    from flexmbd import GROUND, GeneralizedAlpha, Polynomial, Ramp

    def model():
        m = Model(gravity=(0, -9.81, 0))
        a = m.rigid_body("crank", mass=2.0, inertia=(0.01, 0.1, 0.1), position=(0.25, 0, 0))
        b = m.rigid_body("block", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(1.0, 0, 0))
        m.revolute(GROUND, a, at=(0, 0, 0), axis=(0, 0, 1), name="pin")
        m.prismatic(GROUND, b, at=(1, 0, 0), axis=(1, 0, 0), name="rail")
        m.spring_damper(a, b, at_i=(0.5, 0, 0), k=500.0, c=5.0, actuator=Polynomial((0.0, 20.0)), name="sda")
        m.rotational_spring_damper(GROUND, a, k=2.0, c=0.3, actuator=Ramp(3.0, 0.2), name="motor_spring")
        m.force(b, (10, 0, 0), scale=Ramp(1.0, 0.2), name="push")
        m.torque(a, (0, 0, 1.0), scale=Polynomial((0.0, 0.0, 4.0)), name="twist")
        return m

    for integrator in (Newmark(), GeneralizedAlpha(0.8)):
        errs = []
        for h in (2e-3, 1e-3):
            r = model().simulate(t_end=1.0, h=h, integrator=integrator, tol=1e-10)
            assert r.success
            errs.append(np.max(np.abs(r["energy.numerical_dissipation"])))
            assert r["energy.dissipated"][-1] > 0.4 and r["energy.external_work"][-1] > 1.5
        assert errs[0] < 1e-4
        assert 3.5 < errs[0] / errs[1] < 4.5, (integrator, errs)
