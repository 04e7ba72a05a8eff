"""The benchmark models build and run a few steps; with Exudyn installed, the peer models
give the same answers.  No timings are asserted here (they live in benchmarks/results.jsonl)."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import exudyn_models as exm
from benchmarks import models
from benchmarks.__main__ import agreement, format_row, run_exudyn, run_flexmbd

needs_exudyn = pytest.mark.skipif(not exm.AVAILABLE, reason="Exudyn is not installed (pip install -e .[bench])")


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_chain_layout():
    m = models.chain(3)
    kinds = [e.kind for e in m.elements]
    assert len(m.bodies) == 3
    assert kinds.count("spherical") == 3 and kinds.count("spring_damper") == 9 and kinds.count("marker") == 1
    s = _quiet(m.freeze)
    assert s.n == 21 and s.m == 3 * 3 + 3  # joints + Euler-parameter conditions, nothing redundant
    assert not s.removed_equations
    inner, outer = models.chain_spring_points(0.0)
    for a, b in zip(inner, outer):  # springs straddle the joint and have a length
        assert a[0] < 0 < b[0] and np.linalg.norm(b - a) > 0.01


def test_chain_falls_and_stays_jointed():
    m = models.chain(3)
    res = _quiet(m.simulate, t_end=0.05, h=1e-3)
    assert res.success
    tip = res["tip.position"]
    assert tip[-1, 2] < -1e-3  # released under gravity
    # the joints hold: the outer end of bar 1 is where bar 2's inner end is
    from flexmbd.rotations import rotation_matrix

    q = res.q[-1]
    s = res.system
    p1, p2 = q[s.body_slice(m.bodies[0])], q[s.body_slice(m.bodies[1])]
    end1 = p1[:3] + rotation_matrix(p1[3:]) @ [0.05, 0, 0]
    start2 = p2[:3] + rotation_matrix(p2[3:]) @ [-0.05, 0, 0]
    assert np.linalg.norm(end1 - start2) < 1e-8


@pytest.mark.parametrize("name", [n for n in models.BENCHMARKS if n != "chain-1000" and not models.BENCHMARKS[n].static])
def test_benchmark_builds_and_steps(name):
    b = models.BENCHMARKS[name]
    m = b.build()
    res = _quiet(m.simulate, t_end=3 * b.h, h=b.h, **b.options)
    assert res.success and res.steps == 3
    assert isinstance(b.check(res), str)
    ans = b.answer(res)
    assert set(ans) == set(b.tolerance) or b.peer is None  # rows without a peer have no agreement tolerances
    for v in ans.values():
        assert np.all(np.isfinite(v))


def test_cantilever_rows_are_declared():
    for n, tol in ((16, 2e-3), (64, 1e-3), (256, 1e-3)):
        b = models.BENCHMARKS[f"cantilever-{n}"]
        assert b.static and b.family == "cantilever" and b.size == n and b.peer is not None
        ok, _ = b.accept({"tip z [m]": np.array([models.CANTILEVER_ABAQUS_Z * (1 + 0.9 * tol)]),
                          "tip displacement [m]": np.zeros(3)})
        bad, _ = b.accept({"tip z [m]": np.array([models.CANTILEVER_ABAQUS_Z * (1 + 1.1 * tol)]),
                           "tip displacement [m]": np.zeros(3)})
        assert ok and not bad


def test_small_cantilever_row_meets_its_reference():
    """A 16-element cantilever through the runner: static row, split, ABAQUS check."""
    b = models._cantilever(16, 2e-3)
    res, row = run_flexmbd(b, 1)
    assert row["success"] and row["kind"] == "static" and row["steps"] == 10 and row["accepted"]
    assert row["newton_iterations"] == res.newton.iterations > 10
    assert row["assembly_s"] > 0 and row["linear_s"] > 0
    assert "ABAQUS" in row["check"] and "ok" in row["check"]


def test_p3_dynamic_rows_check_against_stated_values():
    for name in ("p3-model-II-300", "p3-model-III"):
        b = models.BENCHMARKS[name]
        assert b.steps * b.h == pytest.approx(0.02 if "II-" in name else 0.2, rel=1e-3)
        ref = {k: np.asarray(v) for k, (v, _) in models.P3_REFS["II" if "II-" in name else "III"].items()}
        assert b.accept(ref)[0]
        assert not b.accept({k: v + 1e-2 for k, v in ref.items()})[0]


def test_chain_1000_is_declared():
    b = models.BENCHMARKS["chain-1000"]
    assert b.size == 1000 and b.family == "chain" and b.repeat == 2


def test_refine_halves_the_step():
    b = models.refine("chain-10", 2)
    a = models.BENCHMARKS["chain-10"]
    assert b.steps == 2 * a.steps and b.h == pytest.approx(a.h / 2)


def test_agreement_flags_a_difference():
    b = models._chain(3, 5, 1e-3, 1e-6)
    ans = {k: np.zeros(3) for k in b.tolerance}
    bad = {k: np.full(3, 1e-3) for k in b.tolerance}
    assert agreement(b, ans, ans)["ok"]
    out = agreement(b, ans, bad)
    assert not out["ok"] and all(not q["ok"] for q in out["quantities"].values())


def test_flexmbd_row_without_peer():
    b = models._slider_crank(3, 0.01, 1e-5)
    res, row = run_flexmbd(b, 1)
    assert row["steps"] == 3 and row["success"] and row["unknowns"] == res.system.n + res.system.m
    line = format_row({"benchmark": "x", **row})
    assert "no peer" in line


def test_results_file_rows_agree():
    """Every recorded side-by-side row has its answers in agreement."""
    path = ROOT / "benchmarks" / "results.jsonl"
    if not path.exists():
        pytest.skip("no results yet")
    for ln in path.read_text().splitlines():
        row = json.loads(ln)
        assert "benchmark" in row and "wall_min_s" in row
        if "exudyn" in row:
            assert row["agreement"]["ok"], f"{row['benchmark']} ({row['date']}) disagrees with Exudyn"


# ----------------------------------------------------------------------------- Exudyn


@needs_exudyn
@pytest.mark.parametrize("bench", [models._slider_crank(5, 0.01, 1e-5), models._tensegrity(5, 0.01, 1e-5),
                                   models._chain(3, 20, 1e-3, 1e-6)], ids=["slider-crank", "tensegrity", "chain"])
def test_exudyn_agrees_on_a_few_steps(bench):
    res, _ = run_flexmbd(bench, 1)
    theirs, prow = run_exudyn(bench, 1)
    assert prow["success"] and prow["steps"] == bench.steps
    ag = agreement(bench, bench.answer(res), theirs)
    assert ag["ok"], ag


@needs_exudyn
def test_exudyn_cantilever_agrees():
    """Both codes' two-node SE(3) cantilevers (4 elements) give the same tip displacement."""
    b = models._cantilever(4, 2e-3)
    res, row = run_flexmbd(b, 1)
    theirs, prow = run_exudyn(b, 1, split=True)
    assert prow["success"] and prow["kind"] == "static" and prow["steps"] == 10
    assert prow["assembly_s"] > 0 and prow["linear_s"] > 0
    ag = agreement(b, b.answer(res), theirs)
    assert ag["ok"], ag


@needs_exudyn
def test_exudyn_cables_are_tension_only():
    """A pre-stretched cable that shortens goes slack in both codes (symbolic user function)."""
    from flexmbd import GROUND, Model

    m = Model()
    b = m.rigid_body("b", mass=1.0, inertia=(1, 1, 1), position=(1.0, 0, 0), velocity=(-1.0, 0, 0))
    m.spring_damper(GROUND, b, at_i=(0, 0, 0), at_j=(1.0, 0, 0), k=100.0, c=1.0, rest_length=0.95,
                    tension_only=True)
    res = _quiet(m.simulate, t_end=0.2, h=0.01)
    p = exm.from_model(m, 20, 0.01)
    assert exm.solve(p).success
    assert np.allclose(p.position("b"), res["b.position"][-1], atol=1e-6)
    # with a linear spring the answer would differ (the cable pushes while slack)
    lin = exm.from_model(m, 20, 0.01, cables="linear")
    exm.solve(lin)
    assert not np.allclose(lin.position("b"), res["b.position"][-1], atol=1e-4)


@needs_exudyn
def test_exudyn_translation_refuses_what_it_cannot_translate():
    from flexmbd import GROUND, Model

    m = Model()
    b = m.rigid_body("b", mass=1.0, inertia=(1, 1, 1))
    m.revolute(GROUND, b, at=(0, 0, 0))
    with pytest.raises(NotImplementedError, match="revolute"):
        exm.from_model(m, 1, 0.01)


@needs_exudyn
def test_exudyn_double_pendulum_builds_and_steps():
    """The p3-model-III peer (Euler-parameter nodes, generalized-α 0.8) converges at the
    row's step and keeps the elbow's two nodes together; it is judged by agreement only."""
    b = models.BENCHMARKS["p3-model-III"]
    assert b.peer is not None and not b.peer_accept and set(b.tolerance) == {"arm II tip at t_end [m]",
                                                                             "elbow at t_end [m]"}
    p = exm.double_pendulum("III", (9, 15), t_end=10 * b.h, h=b.h)
    out = exm.solve(p)
    assert out.success and out.steps == 10 and len(p.nodes) == 26
    assert np.linalg.norm(p.node_position(9) - p.node_position(10)) < 1e-8
    assert np.allclose(p.node_position(0), 0.0, atol=1e-8)
    assert p.node_position(p.info["tip"])[2] < 0.0  # falling


# ------------------------------------------------------------------ floating-frame rows


@pytest.mark.parametrize("which", ["chain", "spin-up"])
def test_modal_beam_points_carry_the_shape_integrals(which):
    """The lumped points given to the FFR peer reproduce the modal beam's inertia shape
    integrals W (mass, first and second moments of every mode) to rounding, so both codes
    integrate the same semi-discrete model."""
    from flexmbd.bodies.modal_beam import beam_invariants
    from flexmbd.examples.ffr_beams import SPIN_SECTION

    if which == "chain":
        kind, sec = models.ffr_chain(1).bodies[0].kind, models.ffr_chain_section()
    else:
        kind, sec = models.BENCHMARKS["ffr-spin-up"].build().bodies[0].kind, SPIN_SECTION
    pts = models.modal_beam_points(kind, sec)
    X, N = pts["nodes"], len(pts["nodes"])
    P = np.concatenate([X[:, :, None], pts["modes"].reshape(N, 3, kind.n)], axis=2)
    Pi = np.concatenate([np.ones((N, 1)), P.reshape(N, -1)], axis=1)
    W = Pi.T @ (np.diag(pts["mass"])[::3, None] * Pi)
    W0 = beam_invariants(kind, sec)["W"]
    assert np.abs(W - W0).max() < 1e-13 * np.abs(W0).max()
    assert np.allclose(X[[0, -1]], [[kind.start, 0, 0], [kind.start + kind.length, 0, 0]])   # the joint points
    with pytest.raises(ValueError, match="foreshortening"):
        models.modal_beam_points(models.BENCHMARKS["ffr-spin-up"].build().bodies[0].kind.__class__(
            "clamped-free", 1.0, 0.0, (0, 2, 0, 0), foreshortening=True), sec)


@needs_exudyn
@pytest.mark.parametrize("name,steps", [("fe-modal-body", 20), ("ffr-spin-up", 50), ("ffr-chain-10", 20)])
def test_exudyn_ffr_rows_agree_on_a_few_steps(name, steps):
    """The floating-frame rows' Exudyn peers (ObjectFFRFreducedOrder) give flexmbd's answer
    over the first steps, within the rows' tolerances."""
    full = models.BENCHMARKS[name]
    b = {"fe-modal-body": lambda: models._fe_modal_body(steps, full.h, 1e-9),
         "ffr-spin-up": lambda: models._ffr_spin_up(steps, full.h, 5e-5),
         "ffr-chain-10": lambda: models._ffr_chain(10, steps, full.h, full.tolerance)}[name]()
    res, _ = run_flexmbd(b, 1)
    theirs, prow = run_exudyn(b, 1)
    assert prow["success"] and res.success
    ag = agreement(b, b.answer(res), theirs)
    assert ag["ok"], ag
    moved = max(float(np.abs(np.asarray(v)).max()) for v in b.answer(res).values())
    assert moved > 0.0
