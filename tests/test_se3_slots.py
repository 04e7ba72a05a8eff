"""kernels/se3_slots.py: the SE(3) beam's elastic slot on increments (forces and c_K K T(Δ)
in compiled code) against the generic path and against central differences along Δ."""
import numpy as np
import pytest

pytest.importorskip("numba")

from flexmbd.groups import EvalContext  # noqa: E402
from flexmbd.kernels import se3_slots  # noqa: E402
from flexmbd.verify.cases import beams as vb  # noqa: E402


def _setup(elements=4, seed=3):
    model = vb.cantilever("straight", elements)[0]
    system = model.freeze()
    group = next(g for g in system.force_groups if type(g).__name__ == "BeamElasticGroup")
    rng = np.random.default_rng(seed)
    base = system.increment(system.q0, 0.05 * rng.standard_normal(system.n))   # away from the reference
    delta = 0.2 * rng.standard_normal(system.n)
    (kind, _, vi), = system._lie
    rows = np.ascontiguousarray(vi[:, 0])
    where = {int(r): k for k, r in enumerate(rows)}
    tnode = np.array([[where.get(int(r), len(rows)) for r in (d[0], d[6])] for d in group.dof_index], dtype=np.int64)
    return system, group, base, delta, rows, tnode


def _slot(system, group, q, delta, rows, tnode, cK, matrix):
    n = len(group)
    T = np.empty((len(rows) + 1, 6, 6))
    se3_slots.node_tangents(delta, rows, T)
    vec, blk = np.empty(12 * n), np.empty(144 * n if matrix else 0)
    se3_slots.se3_beam_elastic(np.ascontiguousarray(group.config_index), tnode, group.d0,
                               np.ascontiguousarray(group.length, dtype=float), group.D, system.extend(q), T, cK,
                               matrix, vec, blk)
    return vec.reshape(n, 12), (blk.reshape(n, 12, 12) if matrix else None)


def test_node_tangents_are_the_kinds_tangent_operators():
    system, group, base, delta, rows, tnode = _setup()
    (kind, _, vi), = system._lie
    T = np.empty((len(rows) + 1, 6, 6))
    se3_slots.node_tangents(delta, rows, T)
    np.testing.assert_allclose(T[:-1], kind.tangent(delta[vi]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(T[-1], np.eye(6))


def test_beam_slot_matches_the_generic_path_with_the_tangent_operator():
    """vec = the group's F, blk = its c_K K T(Δ) block (groups.py ``tangent_map``)."""
    system, group, base, delta, rows, tnode = _setup()
    q, cK = system.increment(base, delta), 0.37
    n_ext = system.n_ext
    ctx = EvalContext(system.extend(q), np.zeros(n_ext), np.zeros(n_ext), np.zeros(system.m), 0.0, cM=0.0, cD=0.0,
                      cK=cK, tangent=system._tangent_maps(delta))
    c = group.contribute(ctx)
    vec, blk = _slot(system, group, q, delta, rows, tnode, cK, True)
    np.testing.assert_allclose(vec, c.F, rtol=0, atol=1e-12 * np.abs(c.F).max())
    np.testing.assert_allclose(blk, c.B, rtol=0, atol=1e-12 * np.abs(c.B).max())
    vec2, _ = _slot(system, group, q, delta, rows, tnode, cK, False)
    np.testing.assert_array_equal(vec2, vec)


def test_beam_slot_matrix_is_the_derivative_along_the_increment():
    """c_K = 1: blk[e][:, j] = ∂f_e(q_b ⊕ Δ)/∂Δ_j by central differences (exact T(Δ))."""
    system, group, base, delta, rows, tnode = _setup()
    vec, blk = _slot(system, group, system.increment(base, delta), delta, rows, tnode, 1.0, True)
    eps = 1e-6
    for e in range(len(group)):
        for a, col in enumerate(group.dof_index[e]):
            d = np.zeros(system.n)
            d[col] = eps
            fp, fm_ = (_slot(system, group, system.increment(base, delta + s * d), delta + s * d, rows, tnode, 1.0,
                             False)[0][e] for s in (1.0, -1.0))
            num = (fp - fm_) / (2 * eps)
            assert np.max(np.abs(blk[e][:, a] - num)) <= 1e-6 * np.abs(blk[e]).max()
