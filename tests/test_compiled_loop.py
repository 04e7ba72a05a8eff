"""The step loop in compiled blocks (solvers/compiled_loop.py) gives the per-step path's
run: the same states to the last bit, the same counters and stored rows, the same
halvings, callbacks and stops; what it cannot run says why in ``stats["time_loop"]``."""
import numpy as np
import pytest

import flexmbd as fm
from flexmbd.examples import slider_crank
from flexmbd.kernels import AVAILABLE
from flexmbd.solvers import dynamics
from flexmbd.solvers.initial import StepState

pytestmark = [pytest.mark.skipif(not AVAILABLE, reason="Numba not available (FLEXMBD_NUMBA=0)"),
              pytest.mark.filterwarnings("ignore::flexmbd.system.RedundantConstraintWarning")]

FIELDS = ("iterations", "refreshes", "factorizations", "substeps")


def _per_step(monkeypatch):
    monkeypatch.setattr(dynamics, "loop_reason", lambda *a: "per step for the comparison")


def _both(monkeypatch, build=lambda: slider_crank.build(k=2e4, c=1e3), **opts):
    fast = build().simulate(**opts)
    with monkeypatch.context() as mp:
        _per_step(mp)
        ref = build().simulate(**opts)
    return fast, ref


def _same(fast, ref):
    assert fast.stats["time_loop"] == "compiled"
    assert ref.stats["time_loop"] == "per step: per step for the comparison"
    assert fast.success == ref.success and fast.message == ref.message
    for k in ("t", "q", "v", "qdd", "a", "lam"):
        assert np.array_equal(getattr(fast, k), getattr(ref, k)), k
    for k in FIELDS:
        assert np.array_equal(fast.stats[k], ref.stats[k]), k
    for k in ("iterations", "refreshes", "factorizations", "residual_evaluations", "failures", "rounding_stops"):
        assert getattr(fast.newton, k) == getattr(ref.newton, k), k


@pytest.mark.parametrize("refresh", ["newton", "step", "contraction", 3])
@pytest.mark.parametrize("project", [True, False])
def test_blocks_equal_the_per_step_path(refresh, project, monkeypatch):
    _same(*_both(monkeypatch, t_end=0.6, h=0.01, refresh=refresh, project_velocities=project,
                 multipliers="integrator"))


@pytest.mark.parametrize("every", [1, 3, 7])
def test_stored_rows_and_summed_counters_with_output_every(every, monkeypatch):
    """Rows every k-th step; the counters of the steps between go to the next stored row
    (also across the blocks' boundaries: 16, 32, 64 … steps)."""
    fast, ref = _both(monkeypatch, t_end=1.23, h=0.01, output_every=every, multipliers="integrator")
    _same(fast, ref)
    assert fast.stats["iterations"].sum() == fast.newton.iterations
    assert np.isclose(fast.stats["seconds"][1:].sum(), fast.newton.compiled_seconds, rtol=1e-9)


def test_output_times_merge_into_the_grid(monkeypatch):
    fast, ref = _both(monkeypatch, t_end=0.5, h=0.01, output_times=[0.0333, 0.1, 0.25, 0.4444],
                      multipliers="integrator")
    _same(fast, ref)
    assert fast.steps_taken == ref.steps_taken


@pytest.mark.parametrize("max_iter, h, refresh", [(1, 0.02, "newton"), (2, 0.2, "newton"), (3, 0.02, "contraction")])
def test_failed_steps_are_halved_as_on_the_per_step_path(max_iter, h, refresh, monkeypatch):
    """A step that fails inside a block is halved from that failure, then the blocks go on."""
    fast, ref = _both(monkeypatch, t_end=1.0, h=h, max_iter=max_iter, refresh=refresh, multipliers="integrator")
    _same(fast, ref)
    assert fast.success and np.max(fast.stats["substeps"]) > 1
    assert fast.newton.failures > 0


def test_a_run_that_fails_stops_with_the_same_diagnosis(monkeypatch):
    fast, ref = _both(monkeypatch, t_end=0.5, h=0.01, max_iter=1, max_halvings=1, multipliers="integrator")
    _same(fast, ref)
    assert not fast.success and "worst equation" in fast.message


def test_callbacks_see_every_step_and_can_stop_the_run(monkeypatch):
    def callbacks(seen, stop_at=None):
        def on_step(state, stats):
            seen.append(("stored", state.t, state.q.copy(), dict(stats)))
            return None if stop_at is None or state.t < stop_at - 1e-12 else False

        def progress(t, k, n, newton):
            seen.append(("progress", t, k, n, newton.iterations))
        return dict(on_step=on_step, progress=progress)

    for stop_at in (None, 0.37):
        a, b = [], []
        opts = dict(t_end=0.6, h=0.01, output_every=2, multipliers="integrator")
        fast = slider_crank.build(k=2e4, c=1e3).simulate(**opts, **callbacks(a, stop_at))
        with monkeypatch.context() as mp:
            _per_step(mp)
            ref = slider_crank.build(k=2e4, c=1e3).simulate(**opts, **callbacks(b, stop_at))
        assert len(a) == len(b) and fast.message == ref.message
        for x, y in zip(a, b):
            assert x[0] == y[0] and x[1] == y[1]
            if x[0] == "progress":
                assert x[2:] == y[2:]
            else:
                assert np.array_equal(x[2], y[2])
                assert {k: x[3][k] for k in FIELDS} == {k: y[3][k] for k in FIELDS}
        assert np.array_equal(fast.q, ref.q)
        if stop_at is not None:
            assert not fast.success and "stopped by the caller" in fast.message
            assert np.isclose(fast.t[-1], 0.38)


def test_a_resumed_run_takes_the_same_steps():
    """A run continued from a stored state (as ``flexmbd run --resume``) equals the whole run."""
    m = slider_crank.build(k=2e4, c=1e3)
    whole = m.simulate(t_end=0.8, h=0.01, refresh="contraction", multipliers="integrator")
    first = m.simulate(t_end=0.4, h=0.01, refresh="contraction", multipliers="integrator")
    start = StepState(first.t[-1], first.q[-1], first.v[-1], first.qdd[-1], first.a[-1], first.lam[-1])
    rest = m.simulate(t_end=0.8, h=0.01, refresh="contraction", multipliers="integrator", start=start,
                      grid_origin=0.0)
    assert rest.stats["time_loop"] == "compiled"
    # a resumed run has no factorization at hand: its first step refreshes, the rest are equal to Newton's tolerance
    assert np.max(np.abs(rest.q[-1] - whole.q[-1])) < 1e-9


def test_what_needs_python_between_steps_says_why():
    m = slider_crank.build(k=2e4, c=1e3)
    assert m.simulate(t_end=0.05, h=0.01, multipliers="integrator").stats["time_loop"] == "compiled"
    assert "error-controlled" in m.simulate(t_end=0.05, h=0.01, rtol=1e-4).stats["time_loop"]
    assert "not compiled" in m.simulate(t_end=0.05, h=0.01, convergence="increment").stats["time_loop"]
    d = fm.Model(gravity=(0, -9.81, 0))
    crank = d.planar_body("crank", mass=1.0, inertia=0.1, position=(0.5, 0), angle=0.0)
    d.revolute(fm.GROUND, crank, at=(0, 0))
    d.rotation_driver(fm.GROUND, crank, angle=fm.Polynomial((0.0, 2.0)))
    for opts in ({}, dict(project_velocities=False), dict(project_velocities=False, multipliers="integrator")):
        assert d.simulate(t_end=0.05, h=0.01, **opts).stats["time_loop"] == "compiled"     # a driver


# ------------------------------------------------------------------ time-dependent inputs

def _driven_crank():
    """The P1 slider-crank with its crank driven by an angle law of t (a rotation driver
    starting at rest: θ(t) = 2t² + 0.3 sin 3t − 0.9t), spring-damper and push."""
    m = slider_crank.build(k=2e4, c=1e3)
    m.rotation_driver(fm.GROUND, "crank", axis=(0, 0, 1),
                      angle=fm.UserFunction(lambda t: 2.0 * t * t + 0.3 * np.sin(3.0 * t) - 0.9 * t,
                                            df=lambda t: 4.0 * t + 0.9 * np.cos(3.0 * t) - 0.9,
                                            ddf=lambda t: 4.0 - 2.7 * np.sin(3.0 * t)), name="motor")
    return m


def _loaded_crank():
    """The P1 slider-crank with its push scaled by a ramp and a torque on the crank whose
    scale is a function of time: load inputs that vary in time, no driver."""
    m = slider_crank.build(k=2e4, c=1e3)
    m.torque("crank", (0, 0, 400.0), scale=fm.UserFunction(lambda t: np.sin(7.0 * t)), name="shake")
    m.force("slider", (0, 0, 50.0), scale=fm.Ramp(1.0, 0.3), name="lift")
    return m


def test_time_inputs_ride_along_in_the_blocks():
    """Row k of a block's time arrays is ``time_values`` at the time step k ends at, formed
    as the kernel forms it (t + (target − t)); a model without time functions has one row."""
    from flexmbd.solvers.compiled_loop import step_times, time_rows

    ca = _loaded_crank().freeze().compiled
    assert ca._varying
    targets = 0.1 + 0.01 * np.arange(1, 40)
    rows, d1, d2 = time_rows(ca, 0.1, targets, rates=True)
    assert d1.shape == d2.shape == (1, 0)      # loads only: no driver rates
    times = step_times(0.1, targets)
    assert rows.shape == (39, ca.time_values(0.0).size)
    for j in (0, 17, 38):
        assert np.array_equal(rows[j], ca.time_values(float(times[j])))
    t = 0.1
    for j, target in enumerate(targets):
        t = t + (target - t)
        assert times[j] == t
    assert not np.array_equal(rows[0], rows[-1])
    plain = slider_crank.build(k=2e4, c=1e3).freeze().compiled
    assert time_rows(plain, 0.1, targets)[0].shape == (1, plain.time_values(0.0).size)
    # a driver: the rates of its time arrays by row as well, when asked for
    ca = _driven_crank().freeze().compiled
    rows, d1, d2 = time_rows(ca, 0.1, targets, rates=True)
    assert d1.shape == d2.shape == rows.shape
    for j in (0, 38):
        first, second = ca.rate_values(float(times[j]))
        assert np.array_equal(d1[j], first) and np.array_equal(d2[j], second)
    assert np.any(d1[0] != 0.0) and np.any(d2[0] != 0.0)
    assert time_rows(ca, 0.1, targets, rates=False)[1].shape == (1, 0)


@pytest.mark.parametrize("refresh, project", [("newton", False), ("contraction", False), ("newton", True),
                                             ("contraction", True)])
def test_a_driven_mechanism_in_blocks_equals_the_per_step_path(refresh, project, monkeypatch):
    """Both paths make the Newton step and the projection (with Φ_t) in the same kernel."""
    fast, ref = _both(monkeypatch, _driven_crank, t_end=0.9, h=0.005, refresh=refresh, project_velocities=project,
                      multipliers="integrator")
    _same(fast, ref)
    # the driver is met: the crank's centre turns by the law from its initial 45°
    law = 2.0 * fast.t ** 2 + 0.3 * np.sin(3.0 * fast.t) - 0.9 * fast.t
    c = fast["crank.position"]
    turned = np.unwrap(np.arctan2(c[:, 1], c[:, 0])) - slider_crank.CRANK_ANGLE
    assert np.max(np.abs(turned - law)) < 1e-8 and np.ptp(law) > 0.5


def test_driven_velocities_projected_onto_the_moving_constraints():
    """The compiled projection with the driver's Φ_t puts q' on Φ_q q' + Φ_t = 0 (the
    NumPy Jacobian and time derivative of the constraints, an independent evaluation);
    without the projection the trapezoidal rule leaves O(h²) there."""
    runs = {p: _driven_crank().simulate(t_end=0.5, h=0.005, project_velocities=p, multipliers="integrator")
            for p in (True, False)}
    for project, run in runs.items():
        sys_ = run.system
        worst = max(np.max(np.abs(sys_.constraint_jacobian(sys_.extend(q), t, dense=True) @ v
                                  + sys_.constraint_time_derivative(sys_.extend(q), t)))
                    for t, q, v in zip(run.t[1:], run.q[1:], run.v[1:]))
        speed = np.max(np.abs(run.v))
        if project:
            assert worst < 1e-12 * speed
        else:
            assert worst > 1e-8 * speed


@pytest.mark.parametrize("project", [True, False])
def test_consistent_multipliers_of_a_driven_mechanism(project, monkeypatch):
    """The compiled consistent accelerations with the driver's − 2 Φ_qt q' − Φ_tt equal the
    per-step path's NumPy solve (constraints/dot.py ``gamma``) to rounding."""
    fast, ref = _both(monkeypatch, _driven_crank, t_end=0.6, h=0.005, project_velocities=project)
    assert fast.stats["time_loop"] == "compiled"
    for k in ("iterations", "refreshes", "factorizations", "residual_evaluations"):
        assert getattr(fast.newton, k) == getattr(ref.newton, k), k
    assert np.max(np.abs(fast.q - ref.q)) < 1e-12
    assert np.max(np.abs(fast.v - ref.v)) < 1e-11 * np.max(np.abs(ref.v))
    assert np.max(np.abs(fast.lam - ref.lam)) < 1e-10 * np.max(np.abs(ref.lam))
    assert np.max(np.abs(fast.qdd - ref.qdd)) < 1e-10 * np.max(np.abs(ref.qdd))
    # without the driver's terms in γ the multipliers would be off at first order in the rates
    newton = _driven_crank().simulate(t_end=0.6, h=0.005, project_velocities=project, multipliers="integrator")
    assert np.max(np.abs(newton.lam - fast.lam)) > 1e-6 * np.max(np.abs(ref.lam))


@pytest.mark.parametrize("project, multipliers", [(True, "integrator"), (False, "integrator"), (True, "consistent")])
def test_time_varying_loads_in_blocks_equal_the_per_step_path(project, multipliers, monkeypatch):
    fast, ref = _both(monkeypatch, _loaded_crank, t_end=0.8, h=0.01, project_velocities=project,
                      multipliers=multipliers)
    if multipliers == "integrator":
        _same(fast, ref)
    else:   # the consistent solve: the kernel's LU against NumPy's, to rounding (as without time inputs)
        assert fast.stats["time_loop"] == "compiled"
        assert np.max(np.abs(fast.q - ref.q)) < 1e-13
        assert np.max(np.abs(fast.lam - ref.lam)) < 1e-11 * np.max(np.abs(ref.lam))
    # the loads act: the run differs from the one without them
    plain = slider_crank.build(k=2e4, c=1e3).simulate(t_end=0.8, h=0.01, project_velocities=project,
                                                    multipliers=multipliers)
    assert np.max(np.abs(plain.q[-1] - fast.q[-1])) > 1e-3


def test_halving_inside_a_block_with_a_driver(monkeypatch):
    """A driven step that fails inside a block is halved on the per-step path (its time
    functions at the substeps' times), then the blocks go on with the later rows."""
    fast, ref = _both(monkeypatch, _driven_crank, t_end=0.8, h=0.04, max_iter=2, refresh="newton",
                      project_velocities=False, multipliers="integrator")
    _same(fast, ref)
    assert fast.success and np.max(fast.stats["substeps"]) > 1
    assert fast.newton.failures > 0


def test_the_ffr_spin_up_in_blocks_equals_the_per_step_path(monkeypatch):
    """The benchmark row ffr-spin-up (modal beam, hub driven to 2 rad/s), shortened."""
    from flexmbd.examples.ffr_beams import spin_up_model

    fast, ref = _both(monkeypatch, lambda: spin_up_model("modal", stiffening=False, modes=3, omega=2.0),
                      t_end=3.0, h=0.02, project_velocities=False, multipliers="integrator")
    _same(fast, ref)
    assert np.max(np.abs(fast["b.tip_deflection"][:, 1])) > 1e-3      # the beam bends as the hub spins up


@pytest.mark.parametrize("refresh, project", [("newton", True), ("contraction", True), ("newton", False)])
def test_consistent_multipliers_in_the_blocks(refresh, project, monkeypatch):
    """The default ``multipliers: consistent`` solved inside the compiled loop
    (kernels/assembly.py ``consistent_accelerations``, γ from the constraint slots'
    Hessian blocks) equals the per-step path's NumPy solve to rounding, step after step."""
    fast, ref = _both(monkeypatch, t_end=0.8, h=0.01, refresh=refresh, project_velocities=project)
    assert fast.stats["time_loop"] == "compiled"
    for k in ("iterations", "refreshes", "factorizations", "residual_evaluations"):
        assert getattr(fast.newton, k) == getattr(ref.newton, k), k
    assert np.max(np.abs(fast.q - ref.q)) < 1e-13
    assert np.max(np.abs(fast.v - ref.v)) < 1e-11 * np.max(np.abs(ref.v))
    # λ, q'': the two LU implementations differ by rounding × the condition number of [M Φ_qᵀ; Φ_q 0]
    assert np.max(np.abs(fast.lam - ref.lam)) < 1e-11 * np.max(np.abs(ref.lam))
    assert np.max(np.abs(fast.qdd - ref.qdd)) < 1e-11 * np.max(np.abs(ref.qdd))
    # and they are the index-1 solution, not Newton's: the integrator's own λ differs at first order
    newton = slider_crank.build(k=2e4, c=1e3).simulate(t_end=0.8, h=0.01, refresh=refresh,
                                                          project_velocities=project, multipliers="integrator")
    assert np.max(np.abs(newton.lam - fast.lam)) > 1e-6 * np.max(np.abs(ref.lam))


def test_projection_by_refinement_is_the_projection():
    """The velocity projection solved by refinement with the Newton factorization
    (kernels/assembly.py ``_refine``, dense systems above ``PROJECTION_LU_LIMIT``
    unknowns) converges to the projection itself: Φ_q q' at the rounding level and the
    same q' as a direct factorization of [M Φ_qᵀ; Φ_q 0] (the small systems' way); a
    factorization too far from it is refused (then A is factorized)."""
    from flexmbd.kernels import assembly as k

    m = slider_crank.build(k=2e4, c=1e3)
    run = m.simulate(t_end=0.3, h=1e-3, multipliers="integrator", project_velocities=False)
    system, ca = run.system, run.system.compiled
    n, nm = system.n, system.n + system.m
    qe = system.extend(run.q[-1])
    v = run.v[-1] + 1e-3 * np.sin(np.arange(n))     # off the constraint manifold
    zero = np.zeros(system.n_ext)
    phi = np.empty(system.m)
    # the Newton matrix of the last step (c_M = 1, c_D = γ', c_K = β'), factorized
    h, beta, gamma = 1e-3, 0.25, 0.5
    k.evaluate_all(qe, system.extend_velocity(run.v[-1]), system.extend_velocity(run.qdd[-1]), run.lam[-1], 1.0,
                   gamma * h, beta * h * h, 1.0, True, ca.layout, ca.vsize, ca.bsize, ca.vec, ca.blk, phi,
                   *ca.arrays(0.0))
    LU, piv = k._dense_matrix(ca.blk, ca.pos, nm), np.zeros(nm, dtype=np.int64)
    assert k.lu_factor(LU, piv)
    dense = np.zeros(0, dtype=np.int64)     # the dense storage (kernels/assembly.py ``_matrix``)
    args = (np.zeros(n), v, 0.0, qe, zero.copy(), zero.copy(), n, system.m, ca.layout, ca.vsize, ca.bsize, ca.pos,
            dense, ca.vec, ca.blk, phi, *ca.arrays(0.0))
    no = (np.zeros((0, 0)), np.zeros(0, dtype=np.int64), np.zeros(0), ca.rate_layout)  # nothing kept, no Φ_t
    direct = k._velocity(True, *args, LU, piv, False, *no)
    # at 41 unknowns the projection factorizes its own matrix even with the Newton LU at hand
    assert nm <= k.PROJECTION_LU_LIMIT
    assert np.array_equal(k._velocity(True, *args, LU, piv, True, *no), direct)
    A = k._projection_matrix(qe, zero.copy(), zero.copy(), n, system.m, ca.layout, ca.vsize, ca.bsize, ca.pos, dense,
                             ca.vec, ca.blk, phi, *ca.arrays(0.0), True)
    rhs = np.r_[np.zeros(n), -(A[n:, :n] @ v)]
    refined = v + k._refine(A, LU, piv, rhs, v, n, dense)[:n]     # as larger dense systems project
    Jq = system.constraint_jacobian(qe, 0.0, dense=True)
    assert np.max(np.abs(Jq @ v)) > 1e-4
    assert np.max(np.abs(Jq @ refined)) < 1e-13 * np.max(np.abs(refined))
    assert np.max(np.abs(Jq @ direct)) < 1e-13 * np.max(np.abs(direct))
    assert np.max(np.abs(refined - direct)) < 1e-14 * np.max(np.abs(direct))
    # refinement with an unrelated matrix does not converge: refused
    B = A + np.diag(np.r_[np.full(n, 50.0), np.zeros(system.m)])
    LUb, pivb = B.copy(), np.zeros(nm, dtype=np.int64)
    assert k.lu_factor(LUb, pivb)
    assert k._refine(A, LUb, pivb, rhs, v, n, dense).shape[0] == 0
