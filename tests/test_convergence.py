"""The scaled Newton convergence test: the same meaning in any units, and tolerances
that cannot be met or are loose for the model are reported, never silent."""
import warnings

import numpy as np
import pytest

import flexmbd as fm
import flexmbd.examples.slider_crank as sc
from flexmbd.solvers.settings import SettingError

SCALED = ("LINK_MASS", "LINK_INERTIA", "SLIDER_MASS", "SLIDER_INERTIA", "FORCE")


def _slider_crank(factor, monkeypatch, **settings):
    """P1's slider-crank with masses, inertias, force, stiffness and damping × factor (the
    same motion in other force units)."""
    for name in SCALED:
        value = getattr(sc, name)
        monkeypatch.setattr(sc, name, tuple(np.multiply(value, factor)) if isinstance(value, tuple)
                            else value * factor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sc.build(k=2e4 * factor, c=1e3 * factor).simulate(t_end=1.0, h=1e-3, **settings)


def test_force_units_do_not_change_the_iterations(monkeypatch):
    """× 1000 in force units: the scaled test takes the same iterations at every step and
    gives the same motion (to rounding) and multipliers × 1000; P1's absolute residual
    test does not (1187 against 1963 iterations)."""
    runs = {}
    for factor in (1.0, 1000.0):
        for test in ("scaled", "residual"):
            with monkeypatch.context() as mp:
                runs[factor, test] = _slider_crank(factor, mp, convergence=test)
    a, b = runs[1.0, "scaled"], runs[1000.0, "scaled"]
    assert np.array_equal(a.stats["iterations"], b.stats["iterations"])
    assert np.abs(a.q - b.q).max() < 1e-12
    assert np.abs(1000 * a.lam - b.lam).max() < 1e-12 * np.abs(b.lam).max()
    assert runs[1.0, "residual"].stats["iterations"].sum() < 0.7 * runs[1000.0, "residual"].stats["iterations"].sum()


def test_a_tolerance_rounding_cannot_meet_is_refused():
    model = sc.build()
    with pytest.raises(SettingError, match="newton_rtol"):
        model.simulate(t_end=0.1, h=0.01, newton_rtol=1e-15)


def test_halved_steps_are_reported(monkeypatch):
    """k = 1e6 with h = 0.05 and two iterations allowed: steps are halved (the run
    succeeds); the summary says how many, and for the absolute test why."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sc.build(k=1e6, c=1e3).simulate(t_end=0.2, h=0.05, max_iter=2, max_halvings=3, convergence="residual")
    assert res.success and res.stats["substeps"][1:].max() > 1
    summary = res.summary()
    assert "4 steps halved" in summary and "absolute residual test" in summary


def test_a_loose_absolute_tolerance_is_reported():
    """A pendulum in milli-g: forces ~1e-4 N.  P1's absolute test with its default
    tol = 1e-7 accepts the first guess at every step (no iteration) and the run is wrong
    by 1e-3 relative — the summary says the tolerance is loose for this model.  The scaled
    test iterates and needs no note."""
    m = fm.Model(gravity=(0.0, -9.81e-5, 0.0))
    b = m.rigid_body("bob", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(1.0, 0.0, 0.0))
    m.spherical(fm.GROUND, b, at=(0.0, 0.0, 0.0))
    loose = m.simulate(t_end=0.5, h=1e-2, convergence="residual")
    assert loose.stats["iterations"].sum() == 0
    assert any("is loose for this model" in n for n in loose.notes) and "note:" in loose.summary()
    scaled = m.simulate(t_end=0.5, h=1e-2)
    assert scaled.notes == [] and scaled.stats["iterations"][1:].min() >= 1
    assert np.abs(scaled.lam).max() > 0.0


def test_a_long_chain_converges_at_the_rounding_level_of_its_multipliers():
    """A horizontal chain of 300 links on spherical joints, released: the first joint's
    multipliers carry the inertia of all links, so their rounding noise (≈ 1e-7 N here) is
    above rtol × the model's characteristic force; the scaled test once rejected every
    iterate and the run failed with a residual of 2e-15.  Full Newton stops where its
    correction no longer contracts within 10× the tolerance, and the results say so."""
    m = fm.Model(gravity=(0, 0, -9.81))
    prev, L = fm.GROUND, 0.1
    for i in range(300):
        b = m.rigid_body(f"link{i}", mass=0.1, inertia=(1e-5, 1e-4, 1e-4), position=((i + 0.5) * L, 0, 0))
        m.spherical(prev, b, at=(i * L, 0, 0))
        prev = b
    res = m.simulate(t_end=0.005, h=1e-3)
    assert res.success
    assert res.newton.rounding_stops > 0
    assert any("rounding level" in n for n in res.notes)
    # the answer is converged: the residual test at a tolerance near rounding agrees
    ref = m.simulate(t_end=0.005, h=1e-3, convergence="residual", tol=1e-9)
    assert np.abs(res.q[-1] - ref.q[-1]).max() < 1e-10
