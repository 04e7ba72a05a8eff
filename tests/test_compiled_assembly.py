"""The compiled assembly (one call per group) gives the generic assembly's numbers."""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.kernels import AVAILABLE
from flexmbd.constraints.dot import DotConstraintGroup
from flexmbd.system import System
from test_jacobians import random_state

pytestmark = [pytest.mark.skipif(not AVAILABLE, reason="numba not available"),
              # P1's slider-crank has 3 redundant slider equations, removed with a warning
              pytest.mark.filterwarnings("ignore::flexmbd.system.RedundantConstraintWarning")]


def supported_model(kind):
    """Every element with a compiled part: all joints and drivers, point forces and torques
    (global, body-fixed, time-scaled), gravity, linear and tension-only spring-damper-
    actuators, rotational spring-damper-actuators."""
    m = fm.Model(gravity=(0, -9.81, 0) if kind == "planar" else (0.3, -9.81, 1.2))
    if kind == "spatial":
        rot = fm.quaternion_from_axis_angle((1, 2, 3), 0.7)
        a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3), orientation=rot)
        b = m.rigid_body("b", mass=1.5, inertia=[[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.25]],
                         position=(1.0, -0.2, 0.4))
        joints = (("spherical", dict(at=(0.5, 0, 0.3))), ("revolute", dict(at=(0.5, 0, 0.3), axis=(0, 1, 1))),
                  ("prismatic", dict(at=(0.5, 0, 0.3), axis=(1, 0, 1))),
                  ("cylindrical", dict(at=(0.5, 0, 0.3), axis=(1, 1, 0))),
                  ("universal", dict(at=(0.5, 0, 0.3), axis_i=(1, 0, 0), axis_j=(0, 1, 0))),
                  ("fixed", dict(at=(0.5, 0, 0.3))), ("point_on_line", dict(at=(0.5, 0, 0.3), axis=(0, 0, 1))),
                  ("point_in_plane", dict(at=(0.5, 0, 0.3), normal=(0, 1, 0))),
                  ("distance", dict(at_i=(0.1, 0.3, 0.3), at_j=(1.2, 0, 0.5))))
        for name, opts in joints:
            getattr(m, name)(a, b, **opts)
            getattr(m, name)(fm.GROUND, a, **opts, name=f"{name}_ground")
        m.rotation_driver(a, b, axis=(0, 1, 1), angle=fm.Polynomial((0.1, 0.5, -0.3)))
        m.translation_driver(fm.GROUND, b, at=(1, 0, 0), axis=(1, 0.5, 0), displacement=fm.Polynomial((0.0, 0.2, 0.7)))
        m.force(b, (1, 2, 3), at=(1.1, 0, 0.2), scale=fm.Polynomial((1.0, 2.0)))
        m.force(a, (3, -1, 2), at=(0.3, 0.2, 0.1), body_fixed=True)
        m.torque(a, (0.3, 0.1, -0.2), scale=fm.Polynomial((1.0, -0.5)))
        m.torque(b, (0.1, 0.5, 0.2), body_fixed=True)
        m.rotational_spring_damper(a, b, axis=(0, 1, 1), k=30.0, c=2.0, angle0=0.2, actuator=fm.Polynomial((0.3, 0.5)))
        m.rotational_spring_damper(fm.GROUND, a, axis=(1, 0, 0.5), k=10.0, c=1.0)
        z = 1.0
    else:
        a = m.planar_body("a", mass=2.0, inertia=0.3, position=(0.1, 0.2), angle=0.3)
        b = m.planar_body("b", mass=1.5, inertia=0.2, position=(1.0, -0.2), angle=-0.4)
        for name, opts in (("revolute", dict(at=(0.5, 0))), ("prismatic", dict(at=(0.5, 0), axis=(1, 1, 0))),
                           ("fixed", dict(at=(0.5, 0))), ("point_on_line", dict(at=(0.5, 0), axis=(1, 0, 0))),
                           ("distance", dict(at_i=(0.1, 0.3), at_j=(1.2, 0)))):
            getattr(m, name)(a, b, **opts)
            getattr(m, name)(fm.GROUND, a, **opts, name=f"{name}_ground")
        m.rotation_driver(a, b, angle=fm.Polynomial((0.1, 0.5, -0.3)))
        m.translation_driver(fm.GROUND, b, at=(1, 0), axis=(1, 0.5, 0), displacement=fm.Polynomial((0.0, 0.2, 0.7)))
        m.force(b, (1, 2, 0), at=(1.1, 0), scale=fm.Polynomial((1.0, 2.0)))
        m.force(a, (3, -1, 0), at=(0.3, 0.2), body_fixed=True)
        m.torque(a, (0, 0, -0.2), scale=fm.Polynomial((1.0, 2.0)))
        m.rotational_spring_damper(a, b, k=30.0, c=2.0, angle0=0.2, actuator=fm.Polynomial((0.3, 0.5)))
        m.rotational_spring_damper(fm.GROUND, a, axis=(0, 0, -1), k=10.0, c=1.0)
        z = 0.0
    m.spring_damper(a, b, at_i=(0.2, 0.1, 0), at_j=(0.9, 0.1, 0.2 * z), k=120.0, c=7.0, rest_length=0.5,
                    actuator=fm.Polynomial((0.5, 1.0)))
    m.spring_damper(fm.GROUND, a, at_i=(0, 0, z), k=50.0, c=3.0, tension_only=True, rest_length=0.1)
    m.spring_damper(b, a, k=10.0, c=0.5, rest_length=0.3)
    return m


def _dense(A):
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A)


def _compare(sys, seed, **coeffs):
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys, rng)
    lam = rng.standard_normal(sys.m)
    out = sys.evaluate(q, v, a, lam, 0.3, **coeffs)
    compiled, sys.compiled = sys.compiled, None
    try:
        ref = sys.evaluate(q, v, a, lam, 0.3, **coeffs)
    finally:
        sys.compiled = compiled
    for o, r, what in zip(out, ref, ("residual", "constraints", "matrix")):
        if r is None:
            assert o is None, what
            continue
        o, r = _dense(o), _dense(r)
        # the same kernels, summed in the same order: equal to rounding of the products by c
        assert np.allclose(o, r, rtol=1e-13, atol=1e-13 * np.max(np.abs(r))), what


@pytest.mark.parametrize("kind", ["spatial", "planar"])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_assembly_matches_generic(kind, seed):
    sys = System(supported_model(kind), redundancy="keep")
    assert sys.compiled is not None
    _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7)
    _compare(sys, seed, cM=1.0, cD=0.0, cK=0.0)            # no constraint Hessians
    _compare(sys, seed, cM=0.0, cD=0.0, cK=1.0, load_factor=0.4)   # statics
    _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7, matrix=False)


def test_an_equation_term_with_zero_weight_leaves_no_stale_markers():
    """A rotational driver at θ_d = 0 has the weight −sin θ_d = 0 on its second term, which
    the kernel skips; the next equation uses the same markers in that term (a second
    driver about the same axis) and must evaluate them, not reuse entries never filled."""
    m = fm.Model(gravity=(0, 0, 0))
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3),
                     orientation=fm.quaternion_from_axis_angle((1, 2, 3), 0.7))
    b = m.rigid_body("b", mass=1.5, inertia=(0.3, 0.2, 0.25), position=(1.0, -0.2, 0.4))
    m.rotation_driver(a, b, axis=(0, 1, 1), angle=fm.Polynomial((-0.3, 1.0)), name="zero_at_0_3")
    m.rotation_driver(a, b, axis=(0, 1, 1), angle=fm.Polynomial((0.2,)), name="constant_angle")
    sys = System(m, redundancy="keep")
    assert sys.compiled is not None
    group = next(g for g in sys.constraint_groups if isinstance(g, DotConstraintGroup))
    assert group.compiled and group._time_terms(0.3)[0][0, 1] == 0.0 and group._time_terms(0.3)[0][1, 1] != 0.0
    for seed in range(2):
        rng = np.random.default_rng(seed)
        qe = sys.extend(random_state(sys, rng)[0])
        lam = rng.standard_normal(len(group))
        # the kernel against the NumPy formulation (the generic assembly calls the kernel too)
        for out, ref in zip(group.assemble(qe, 0.3, lam), group._numpy_assemble(qe, 0.3, lam, True)):
            assert np.allclose(out, ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref)))
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7)
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7, matrix=False)


def cable_model():
    """ANCF cables (kind ancf-cable), every part compiled: consistent mass, exact weight,
    elastic forces (two parts: full rule and curvature, reduced rule and the linear
    bending form), a revolute clamp about the tangent, spherical joints to ground and
    between cables, point forces (global, time-scaled, node-fixed) and a spring-damper
    between cable nodes."""
    from flexmbd.beams import Section

    sec = Section.rectangle(0.05, 0.05, E=1e6, nu=0.3, rho=500.0)
    m = fm.Model(gravity=(0.3, -9.81, 1.2))
    a = m.beam("a", section=sec, elements=3, start=(0, 0, 0), end=(1, 0.2, 0), formulation="ancf-cable")
    b = m.beam("b", section=sec, elements=2, start=(1, 0.2, 0), end=(1.5, -0.4, 0.3), formulation="ancf-cable",
               integration="reduced", bending="linear")
    m.revolute(fm.GROUND, a.first, at=(0, 0, 0), axis=(1, 0.2, 0), name="clamp")
    m.spherical(a.last, b.first, at=(1, 0.2, 0), name="elbow")
    m.spherical(fm.GROUND, b.last, at=(1.5, -0.4, 0.3), name="pin")
    m.force(a.nodes[1], (1.0, 2.0, -3.0), scale=fm.Polynomial((1.0, 2.0)), name="push")
    m.force(b.nodes[1], (2.0, 0.0, 0.0), body_fixed=True, name="follower")
    m.spring_damper(a.nodes[2], b.nodes[1], k=50.0, c=2.0, rest_length=0.3, name="tie")
    return m


def test_cable_model_is_compiled_and_matches_generic():
    sys = System(cable_model(), redundancy="keep")
    assert sys.assembly == "compiled"
    for seed in range(3):
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7)
        _compare(sys, seed, cM=0.0, cD=0.0, cK=1.0, load_factor=0.4)
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7, matrix=False)


def ancf_beam_model():
    """Fully parameterized ANCF beams (kind ancf), every part compiled: consistent mass,
    exact weight, elastic forces of both forms (strain split on a rectangle, plain on a
    circle: padded points), a fixed clamp (the gradients welded), a spherical joint
    between the beams and to ground, point forces."""
    from flexmbd.beams import Section

    rect = Section.rectangle(0.05, 0.04, E=1e6, nu=0.3, rho=500.0)
    circ = Section.circle(0.04, E=2e6, nu=0.25, rho=300.0)
    m = fm.Model(gravity=(0.3, -9.81, 1.2))
    a = m.beam("a", section=rect, elements=3, start=(0, 0, 0), end=(1, 0.2, 0), formulation="ancf")
    b = m.beam("b", section=circ, elements=2, start=(1, 0.2, 0), end=(1.5, -0.4, 0.3), formulation="ancf",
               locking="plain")
    m.fixed(fm.GROUND, a.first, at=(0, 0, 0), name="clamp")
    m.spherical(a.last, b.first, at=(1, 0.2, 0), name="elbow")
    m.spherical(fm.GROUND, b.last, at=(1.5, -0.4, 0.3), name="pin")
    m.force(a.nodes[1], (1.0, 2.0, -3.0), scale=fm.Polynomial((1.0, 2.0)), name="push")
    m.force(b.nodes[1], (2.0, 0.0, 0.0), body_fixed=True, name="follower")
    return m


def test_ancf_beam_model_is_compiled_and_matches_generic():
    sys = System(ancf_beam_model(), redundancy="keep")
    assert sys.assembly == "compiled"
    for seed in range(3):
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7)
        _compare(sys, seed, cM=0.0, cD=0.0, cK=1.0, load_factor=0.4)
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7, matrix=False)


def test_sparse_layout_matches_generic():
    """A chain long enough for the sparse (CSR) matrix."""
    from benchmarks.models import chain

    sys = chain(30).freeze()
    assert not sys.dense and sys.compiled is not None
    _compare(sys, 0, cM=1.0, cD=0.2, cK=0.05)


@pytest.mark.parametrize("kind", ["spatial", "planar"])
def test_projection_matrix_matches_generic(kind):
    sys = System(supported_model(kind), redundancy="keep")
    q = random_state(sys, np.random.default_rng(1))[0]
    out = _dense(sys.projection_matrix(q, 0.2))
    compiled, sys.compiled = sys.compiled, None
    ref = _dense(sys.projection_matrix(q, 0.2))
    sys.compiled = compiled
    assert np.allclose(out, ref, rtol=1e-14, atol=1e-14 * np.max(np.abs(ref)))


def _same_as_generic(sys, seed=3, **kw):
    """The system's (hybrid) compiled evaluation equals the generic path's at a random state."""
    rng = np.random.default_rng(seed)
    q = sys.increment(sys.q0, 0.1 * rng.standard_normal(sys.n))
    v, a, lam = rng.standard_normal(sys.n), rng.standard_normal(sys.n), rng.standard_normal(sys.m)
    out = sys.evaluate(q, v, a, lam, 0.3, cM=1.0, cD=0.7, cK=0.4, **kw)
    compiled, sys.compiled = sys.compiled, None
    try:
        ref = sys.evaluate(q, v, a, lam, 0.3, cM=1.0, cD=0.7, cK=0.4, **kw)
    finally:
        sys.compiled = compiled
    for x, y in zip(out[:2], ref[:2]):
        assert np.allclose(x, y, rtol=1e-13, atol=1e-13 * max(1.0, np.abs(y).max(initial=0.0)))
    A, B = _dense(out[2]), _dense(ref[2])
    assert np.allclose(A, B, rtol=1e-13, atol=1e-13 * np.abs(B).max())


def test_groups_without_a_slot_run_in_numpy_inside_the_compiled_assembly_and_say_so(caplog):
    m = supported_model("spatial")
    a, b = m.bodies[0], m.bodies[1]
    m.spring_damper(b, a, k=0.0, rest_length=0.3, law=lambda d, r: 40 * d + 300 * d**3, name="soft")
    with caplog.at_level("INFO", logger="flexmbd"):
        sys = System(m, redundancy="keep")
    assert sys.compiled is not None and [type(g).__name__ for g, _, _ in sys.compiled.generic] == ["SpringDamperGroup"]
    assert sys.assembly.startswith("compiled, with NumPy for SpringDamperGroup") and "non-linear law" in sys.assembly
    assert any("non-linear law" in r.getMessage() for r in caplog.records)
    _same_as_generic(sys)
    hanging = fm.Model(gravity=(0, 0, -9.81))
    body = hanging.rigid_body("b", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1))
    hanging.spring_damper(fm.GROUND, body, k=0.0, law=lambda d, r: 100 * d + 1e3 * d**3, name="soft")
    res = hanging.simulate(t_end=0.02, h=0.01)
    assert res.success and res.stats["assembly"].startswith("compiled, with NumPy for SpringDamperGroup (soft)")


def test_friction_actuators_and_limits_join_the_compiled_assembly():
    """Forces that depend on multipliers (friction: the coupling block ∂F/∂λ) and groups
    whose laws run in Python (actuators, limits) fill their parts of the compiled buffers;
    with the set-valued forces left out as the event-driven solver asks."""
    m = fm.Model(gravity=(0, -9.81, 0))
    a = m.planar_body("a", mass=2.0, inertia=0.3, position=(0.1, 0.2), angle=0.3)
    b = m.planar_body("b", mass=1.5, inertia=0.2, position=(1.0, -0.2), angle=-0.4)
    pin = m.revolute("ground", a, at=(0, 0), name="pin")
    slot = m.prismatic(a, b, at=(1.0, -0.2), axis=(1, 0.2, 0), name="slot")
    m.spring_damper(a, b, at_i=(0.5, 0.1, 0), at_j=(1.0, -0.2, 0), k=50.0, c=1.0)
    m.joint_friction(joint=slot, mu=0.3, regularization=0.5)
    m.joint_friction(joint=pin, mu=0.2, radius=0.05, regularization=0.5)
    m.pd_controller(joint=pin, setpoint="0.5*t", kp=30.0, kd=3.0)
    m.joint_limit(joint=slot, lower=-0.01, upper=0.02, stiffness=300.0, damping=2.0)
    sys = m.freeze()
    assert sys.compiled is not None and len(sys.compiled.generic) == 4
    _same_as_generic(sys)
    _same_as_generic(sys, set_valued=True)
    res = m.simulate(t_end=0.05, h=1e-3)
    generic = m.freeze()
    generic.compiled = None
    ref = m.simulate(t_end=0.05, h=1e-3, system=generic)
    np.testing.assert_allclose(res.q, ref.q, atol=1e-12)


def test_slider_crank_with_a_torque_and_a_rotational_spring_stays_compiled():
    from flexmbd.examples.slider_crank import build

    m = build(k=2e4, c=1e3)
    m.torque(m.bodies[0], (0, 0, 5.0), name="motor")
    m.rotational_spring_damper(fm.GROUND, m.bodies[0], axis=(0, 0, 1), k=30.0, c=2.0, name="hinge_spring")
    sys = m.freeze()
    assert sys.compiled is not None and sys.assembly == "compiled"


def test_a_compiled_slot_with_wrong_arrays_is_named(monkeypatch):
    """A group's compiled slot must match the slot's declared arrays (SLOT_ARGS): a
    wrong count or dimension is an error naming the group and the slot, not a crash in
    compiled code."""
    from flexmbd.forces.loads import GravityGroup
    from flexmbd.groups import CompiledSlot

    m = fm.Model(gravity=(0, 0, -9.81))
    m.rigid_body("b", mass=1.0, inertia=(1, 1, 1))
    monkeypatch.setattr(GravityGroup, "compiled_slot", lambda self: CompiledSlot("gravity_spatial", (np.ones(1),)))
    with pytest.raises(ValueError, match="gravity_spatial takes 2 arrays, got 1"):
        m.freeze()
    monkeypatch.setattr(GravityGroup, "compiled_slot",
                        lambda self: CompiledSlot("gravity_spatial", (np.ones((1, 1)), np.ones(3))))
    with pytest.raises(ValueError, match="gravity_spatial array 0: expected 1 dimensions"):
        m.freeze()


def test_zero_length_spring_is_named():
    m = fm.Model()
    a = m.rigid_body("a", mass=1.0, inertia=(1, 1, 1), position=(1, 0, 0))
    m.spring_damper(fm.GROUND, a, k=1.0, name="to_origin")
    sys = m.freeze()
    assert sys.compiled is not None
    q = sys.q0.copy()
    q[:3] = 0.0   # the body's centre on ground's point
    with pytest.raises(FloatingPointError, match="to_origin"):
        sys.evaluate(q, sys.v0, np.zeros(sys.n), np.zeros(sys.m), 0.0)


def _without_compiled_newton(monkeypatch):
    from flexmbd.solvers import dynamics

    monkeypatch.setattr(dynamics.CompiledNewton, "for_system", classmethod(lambda cls, *a: None))


@pytest.mark.parametrize("refresh", ["newton", "step", "contraction", 3])
@pytest.mark.parametrize("project", [True, False])
def test_compiled_newton_step_matches_python_newton(refresh, project, monkeypatch):
    """Same iterates, counters and (projected) velocities as solvers/newton.py."""
    from flexmbd.examples import slider_crank
    from flexmbd.solvers.dynamics import CompiledNewton

    m = slider_crank.build(k=2e4, c=1e3)
    sys = m.freeze()
    from flexmbd.solvers.newton import NewtonSolver

    assert CompiledNewton.for_system(sys, NewtonSolver(policy=refresh), frozenset(fm.system.JACOBIAN_TERMS),
                                     False) is not None
    opts = dict(t_end=0.5, h=0.01, refresh=refresh, project_velocities=project, system=sys)
    fast = m.simulate(**opts)
    with monkeypatch.context() as mp:
        _without_compiled_newton(mp)
        ref = m.simulate(**opts)
    for k in ("iterations", "refreshes", "factorizations", "residual_evaluations"):
        assert getattr(fast.newton, k) == getattr(ref.newton, k), k
    assert np.max(np.abs(fast.q - ref.q)) < 1e-12
    assert np.max(np.abs(fast.v - ref.v)) < 1e-10 * np.max(np.abs(ref.v))
    # λ: the two LU implementations differ by rounding × the Newton matrix's condition
    # number (≈ 1e6 here, constraint rows scaled by 1/β'; seen 3e-10 relative)
    assert np.max(np.abs(fast.lam - ref.lam)) < 1e-8 * np.max(np.abs(ref.lam))


def test_compiled_newton_with_drivers_and_gravity_matches(monkeypatch):
    """A planar model with a driving constraint (rheonomic: the projection is done in
    Python with Φ_t) and gravity, by generalized-α."""
    m = fm.Model(gravity=(0, -9.81, 0))
    crank = m.planar_body("crank", mass=1.0, inertia=0.1, position=(0.5, 0), angle=0.0)
    rod = m.planar_body("rod", mass=2.0, inertia=0.3, position=(2.0, 0), angle=0.0)
    m.revolute(fm.GROUND, crank, at=(0, 0))
    m.revolute(crank, rod, at=(1, 0))
    m.rotation_driver(fm.GROUND, crank, angle=fm.Polynomial((0.0, 2.0)))
    m.spring_damper(fm.GROUND, rod, at_i=(3, 1, 0), at_j=(3, 0, 0), k=100.0, c=2.0)
    for integrator, project in (("newmark", True), ("generalized-alpha", None)):
        opts = dict(t_end=0.5, h=0.005, integrator=integrator, project_velocities=project)
        fast = m.simulate(**opts)
        with monkeypatch.context() as mp:
            _without_compiled_newton(mp)
            ref = m.simulate(**opts)
        assert fast.newton.iterations == ref.newton.iterations
        assert np.max(np.abs(fast.q - ref.q)) < 1e-12


def test_compiled_newton_failure_is_diagnosed():
    """A step that cannot converge stops the run with the worst equation named."""
    from flexmbd.examples import slider_crank

    m = slider_crank.build(k=2e4, c=1e3)
    res = m.simulate(t_end=0.5, h=0.01, max_iter=1, max_halvings=1)
    assert not res.success
    assert "no convergence in 1 iterations" in res.message and "worst equation" in res.message
    assert len(res.t) == 1   # the initial state is kept


def test_dense_lu_solves_saddle_point_systems_and_detects_singular_ones():
    """The compiled Newton step's LU (LAPACK's, of the C array's transpose): partial
    pivoting handles the zero multiplier block; a non-symmetric matrix (damping, a Jacobian
    transpose at another state) is solved, not its transpose."""
    from flexmbd.kernels.assembly import lu_factor, lu_solve

    rng = np.random.default_rng(3)
    n, m = 12, 5
    K = rng.standard_normal((n, n))
    G, G2 = rng.standard_normal((m, n)), rng.standard_normal((m, n))
    A = np.block([[K @ K.T + n * np.eye(n) + 0.5 * (K - K.T), G2.T], [G, np.zeros((m, m))]])
    b = rng.standard_normal(n + m)
    LU, piv = A.copy(), np.zeros(n + m, dtype=np.int64)
    assert lu_factor(LU, piv)
    x = lu_solve(LU, piv, b)
    # backward error at rounding level (LAPACK's bound for partial pivoting: a few ε)
    assert np.max(np.abs(A @ x - b)) / (np.max(np.abs(A)) * np.max(np.abs(x))) < 1e-14
    A[-1] = 0.0  # a zero constraint row: exactly singular
    assert not lu_factor(A.copy(), piv)


def floating_frame_model():
    """Floating frames with Euler parameters, every part compiled (kernels/floating_frame.py):
    modal beams of four kinds (foreshortening with every mode family, P4's centrifugal
    stiffening, the linear model, zero modes), a modal body from FE data, rigid bodies;
    modal inertia, stiffness, damping, distributed weight and the normalisations; joints
    and drivers to ground, between a rigid body and a modal beam, between modal beams of
    different kinds (direction markers turning with the sections), a global point force,
    torques (global and body-fixed)."""
    from flexmbd.beams import Section
    from flexmbd.bodies.fe_lattice import truss_beam

    sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)
    rot = fm.quaternion_from_axis_angle((1, 2, 3), 0.7)
    m = fm.Model(gravity=(0.3, -9.81, 1.2))
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3), orientation=rot)
    flex = m.modal_beam(name="flex", length=1.2, section=sec, ends="clamped-free", position=(0.2, -0.1, 0.5),
                        modes=dict(axial=1, bending_y=2, bending_z=2, torsion=1), orientation=rot, damping_ratio=0.05,
                        modal_coordinates=[0.01, 0.05, -0.02, 0.03, 0.01, 0.1])
    cent = m.modal_beam(name="cent", length=0.8, section=sec, ends="free-free", frame="center",
                        modes=dict(bending_y=2, bending_z=1), position=(0.5, 0.5, -0.2),
                        geometric_stiffening="centrifugal", angular_velocity=(0.5, -1.0, 2.0), damping_ratio=0.02)
    lin = m.modal_beam(name="lin", length=0.9, section=sec, ends="pinned-pinned", position=(-0.3, 0.4, 0.1),
                       modes=dict(bending_y=1, bending_z=1, axial=1), geometric_stiffening="none")
    rigidish = m.modal_beam(name="rigidish", length=0.5, section=sec, ends="free-free", position=(0.0, 1.0, 0.0),
                            modes=dict())
    fe = truss_beam(length=0.6, bays=3, width=0.05)
    body = m.modal(name="truss", data={k: fe[k] for k in ("nodes", "mass", "stiffness")}, modes=4,
                   position=(0.0, -0.5, 0.0), damping_ratio=0.01)
    from flexmbd.rotations import rotation_matrix

    end = flex.position + rotation_matrix(np.asarray(rot)) @ np.array([0.9, 0.01, 0.0])
    m.spherical(fm.GROUND, flex, at=flex.position, name="root")
    m.revolute(a, flex, at=end, axis=(1, 0, 1), name="rev_a_flex")
    m.fixed(flex, lin, at=(-0.3, 0.4, 0.1), name="weld")
    m.rotation_driver(a, cent, axis=(0, 0, 1), angle=fm.Polynomial((0.0, 0.3, 0.2)), name="drive", at=(0.5, 0.5, -0.2))
    m.revolute(fm.GROUND, cent, at=(0.6, 0.5, -0.2), axis=(0, 1, 1), name="rev_cent")
    m.distance(cent, lin, at_i=(0.8, 0.5, -0.2), at_j=(0.0, 0.4, 0.1), name="rod")
    m.spherical(rigidish, a, at=(0.25, 1.0, 0.0), name="ball")
    m.spherical(fm.GROUND, body, at=body.node_position(0), name="truss_root")
    m.force(flex, (0.3, -0.2, 0.5), at=end, scale=fm.Polynomial((1.0, 2.0)), name="push")
    m.force(body, (0.0, 0.0, -1.0), at=body.node_position(int(fe["tip"][0])), name="tip_load")
    m.torque(flex, (0.2, -0.1, 0.3), scale=fm.Polynomial((1.0, -0.5)), name="twist")
    m.torque(cent, (0.1, 0.3, -0.2), body_fixed=True, name="twist_body")
    return m


def test_floating_frames_are_compiled_and_match_generic():
    sys = System(floating_frame_model(), redundancy="keep")
    assert sys.assembly == "compiled", sys.assembly
    assert {name.split("#")[0] for name in _slot_names(sys)} >= {
        "modal_inertia", "modal_elastic", "modal_weight", "modal_normalization", "modal_dots", "modal_points",
        "modal_torques"}
    for seed in range(3):
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7)
        _compare(sys, seed, cM=1.0, cD=0.0, cK=0.0)
        _compare(sys, seed, cM=0.0, cD=0.0, cK=1.0, load_factor=0.4)
        _compare(sys, seed, cM=1.0, cD=0.3, cK=0.7, matrix=False)


def test_floating_frame_joints_gamma_compiled_matches_numpy():
    """γ of joints on floating frames (consistent accelerations and multipliers after every
    step) from the compiled Hessians equals the NumPy markers' ∂(J q')/∂q q'."""
    sys = System(floating_frame_model(), redundancy="keep")
    rng = np.random.default_rng(5)
    q, v, _ = random_state(sys, rng)
    qe, ve = sys.extend(q), sys.extend_velocity(v)
    checked = 0
    for g in sys.constraint_groups:
        if getattr(g, "_frame_kernel", lambda: None)() is not None:
            fast = g.gamma(qe, ve, 0.3)
            g._frame_arrays = None
            try:
                ref = g.gamma(qe, ve, 0.3)
            finally:
                del g._frame_arrays
            assert np.allclose(fast, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max()), type(g).__name__
            checked += 1
    assert checked >= 4


def _slot_names(sys):
    from flexmbd.kernels import assembly as k

    return [name for name, row in zip(k.SLOTS, sys.compiled.layout) if row[0] >= 0]


def test_floating_frames_without_a_kernel_stay_in_numpy():
    """3-1-3 Euler angles and body-fixed forces on modal beams keep their NumPy groups
    inside the compiled assembly, and say why."""
    from flexmbd.beams import Section

    sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)
    m = fm.Model(gravity=(0, 0, -9.81))
    b = m.modal_beam(name="b", length=1.0, section=sec, ends="clamped-free", modes=dict(bending_y=2))
    c = m.modal_beam(name="c", length=1.0, section=sec, ends="clamped-free", modes=dict(bending_z=1),
                     attitude="euler-313", orientation=fm.quaternion_from_axis_angle((1, 0, 0), 0.5))
    m.spherical(fm.GROUND, b, at=(0, 0, 0))
    m.force(b, (0, 1.0, 0), at=(1.0, 0, 0), body_fixed=True, name="follower")
    m.spherical(b, c, at=(1.0, 0, 0))
    sys = System(m)
    assert "follower" in sys.assembly and "body-fixed forces on modal beams" in sys.assembly
    assert "euler-313 attitude" in sys.assembly
    _compare(sys, 0, cM=1.0, cD=0.3, cK=0.7)
