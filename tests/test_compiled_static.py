"""The compiled static Newton iterations (solvers/compiled_static.py, kernels/static.py)
against the Python path: the same equilibria, iteration counts and failure diagnoses."""
import warnings

import numpy as np
import pytest

import flexmbd as fm
from flexmbd.examples.slider_crank import build
from flexmbd.kernels import AVAILABLE
from flexmbd.solvers import static as static_module
from flexmbd.verify.cases import beams as vb
from flexmbd.verify.cases.statics import run_slider_crank_static

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="Numba kernels not available")


@pytest.fixture
def python_path(monkeypatch):
    """Run the next static analyses on the Python Newton path."""
    def use_python():
        monkeypatch.setattr(static_module.CompiledStatic, "for_system", classmethod(lambda cls, *a: None))
    return use_python


def _both(run, python_path):
    compiled = run()
    python_path()
    return compiled, run()


def _same_path(a, b, q_tol, lam_tol):
    assert a.success == b.success
    assert np.array_equal(a.load_factor, b.load_factor)
    assert np.array_equal(a.iterations, b.iterations)
    assert np.abs(a.q - b.q).max() <= q_tol
    if a.lam.size:
        assert np.abs(a.lam - b.lam).max() <= lam_tol * max(1.0, np.abs(b.lam).max())


def test_beam_cantilever_compiled_equals_python(python_path):
    """ANCF cable cantilever (P3's, 8 elements, revolute clamp), increment test ‖Δx‖ < 1e-10
    with the error estimate: the same iterations per load step and the same equilibria to
    the Newton tolerance; the tip agrees with ABAQUS as on the Python path."""
    model, _ = vb.cantilever("straight", 8, formulation="ancf-cable")
    compiled, python = _both(lambda: vb.solve(model), python_path)
    assert compiled.stats["newton_path"] == "compiled"
    assert python.stats["newton_path"].startswith("python")
    assert compiled.success, compiled.message
    # 1e-10 is the increment test's bound on the error of each equilibrium (positions in m,
    # slopes dimensionless); both paths stop after the same iterates
    _same_path(compiled, python, 1e-10, 1e-8)
    assert compiled.newton.iterations == python.newton.iterations
    assert compiled.newton.factorizations == python.newton.factorizations
    assert compiled.newton.compiled_seconds > 0 and python.newton.compiled_seconds == 0


def test_constrained_rigid_model_compiled_equals_python(python_path):
    """P1's slider-crank held by its spring-damper-actuator (rigid bodies, revolute and
    prismatic joints, Euler-parameter normalisation; residual test 1e-9): the same
    iterations, equilibria and multipliers to rounding, and the closed-form angle."""
    compiled, python = _both(lambda: run_slider_crank_static(2e4), python_path)
    assert compiled.stats["newton_path"] == "compiled"
    assert compiled.success, compiled.message
    # the residual test stops both at |r| < tol; the iterates differ by the LU's rounding only
    _same_path(compiled, python, 1e-12, 1e-10)
    assert np.allclose(compiled.residual_norm, python.residual_norm, rtol=0, atol=1e-7)
    assert compiled.newton.residual_evaluations == python.newton.residual_evaluations


def test_failures_give_the_python_diagnosis(python_path):
    """A rod on a hinge with no spring (singular matrix at every cut increment) and the
    slider-crank with one Newton iteration allowed (no convergence): the same message,
    naming the load step, the cause and the worst equation or free direction."""
    def hinge():
        model = fm.Model(gravity=(0, -9.81, 0))
        rod = model.planar_body("rod", mass=1.0, inertia=0.1, position=(0.5, 0))
        model.revolute(fm.GROUND, rod, at=(0, 0), name="hinge")
        return model.static_equilibrium(load_steps=2, max_cuts=1)

    def tight():
        with warnings.catch_warnings():     # the slider's redundant equations, removed
            warnings.simplefilter("ignore")
            return build(k=2e4, c=0.0).static_equilibrium(load_steps=10, max_iter=1, max_cuts=0)

    runs = [hinge(), tight()]
    python_path()
    for compiled, python in zip(runs, [hinge(), tight()]):
        assert compiled.stats["newton_path"] == "compiled"
        assert not compiled.success
        assert compiled.message == python.message
        assert len(compiled.q) == len(python.q)
        assert compiled.newton.failures == python.newton.failures
    assert "singular" in runs[0].message and "rod.theta" in runs[0].message
    assert "no convergence in 1 iterations" in runs[1].message


def test_lie_group_nodes_take_the_python_path_and_say_why():
    model, _ = vb.cantilever("straight", 2, order=1)
    res = vb.solve(model, steps=2)
    assert res.success
    assert res.stats["newton_path"].startswith("python: generic: nodes of kind se3")
