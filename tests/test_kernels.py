"""The compiled kernels give the same numbers as the NumPy reference implementation."""
import numpy as np
import pytest

import flexmbd.bodies.rigid as rigid
import flexmbd.constraints.dot as dot
import flexmbd.forces.loads as loads
import flexmbd.forces.spring_damper as sda
import flexmbd.constraints.normalization as normalization
from flexmbd.kernels import AVAILABLE
from test_jacobians import random_state, system

MODULES = (rigid, dot, loads, sda, normalization)
pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not available")


def evaluate_all(sys, q, v, a, lam, t, compiled, monkeypatch):
    for mod in MODULES:
        monkeypatch.setattr(mod, "USE_KERNELS", compiled)
    return sys.evaluate(q, v, a, lam, t, cM=1.0, cD=0.3, cK=0.7)


@pytest.mark.parametrize("kind", ["spatial", "planar"])
@pytest.mark.parametrize("seed", range(5))
def test_kernels_match_numpy(kind, seed, monkeypatch):
    sys = system(kind)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys, rng)
    lam = rng.standard_normal(sys.m)
    ref = evaluate_all(sys, q, v, a, lam, 0.3, False, monkeypatch)
    out = evaluate_all(sys, q, v, a, lam, 0.3, True, monkeypatch)
    for r, o, what in zip(ref, out, ("residual", "constraints", "matrix")):
        r = r.toarray() if hasattr(r, "toarray") else r
        o = o.toarray() if hasattr(o, "toarray") else o
        assert np.allclose(o, r, rtol=1e-12, atol=1e-12 * np.max(np.abs(r))), what


@pytest.mark.parametrize("seed", range(5))
def test_linear_spring_damper_single_pass_kernel_matches_numpy(seed, monkeypatch):
    """Without user laws the SDAs take the one-pass compiled path (force law inside)."""
    import flexmbd as fm
    from flexmbd.system import System

    m = fm.Model()
    a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3))
    b = m.rigid_body("b", mass=1.5, inertia=(0.3, 0.2, 0.25), position=(1.0, -0.2, 0.4))
    m.spring_damper(a, b, at_i=(0.2, 0.1, 0), at_j=(0.9, 0.1, 0.2), k=120.0, c=7.0, rest_length=0.5,
                    actuator=fm.Polynomial((0.5, 1.0)))
    m.spring_damper(fm.GROUND, a, at_i=(0, 0, 1), k=50.0, c=3.0, tension_only=True, rest_length=0.1)
    m.spring_damper(b, a, k=80.0, c=2.0, tension_only=True, rest_length=2.0)  # slack
    sys_ = System(m, redundancy="keep")
    rng = np.random.default_rng(seed)
    q, v, acc = random_state(sys_, rng)
    lam = rng.standard_normal(sys_.m)
    ref = evaluate_all(sys_, q, v, acc, lam, 0.3, False, monkeypatch)
    out = evaluate_all(sys_, q, v, acc, lam, 0.3, True, monkeypatch)
    for r, o in zip(ref, out):
        assert np.allclose(o, r, rtol=1e-12, atol=1e-12 * np.max(np.abs(r)))
