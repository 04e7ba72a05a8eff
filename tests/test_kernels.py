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
