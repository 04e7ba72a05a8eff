"""Redundant constraints: detected at the initial configuration, reported by name in a
RedundantConstraintWarning, removed, and the motion is still right.

- P1's slider-crank of spatial joints: 21 coordinates, 23 equations, 1 DOF → 3 redundant.
- A planar four-bar of spatial revolute joints (Grübler in space: 3·6 − 4·5 = −2, yet
  it moves) → 3 redundant; its motion equals that of the planar-body model.
- The orthogonal Bricard 6R linkage on six edges of the unit cube: links of equal length
  1, consecutive joint axes perpendicular (twist 90°), zero offsets.  Grübler–Kutzbach:
  6·5 − 6·5 = 0, yet it moves with one DOF (a classical overconstrained linkage) → 1
  redundant equation.  Independent check: a Denavit–Hartenberg loop closure (below, with
  scipy only) shows that it moves, that opposite joints turn equally (threefold
  symmetry) and that cos θ_o + cos θ_e + cos θ_o cos θ_e = 0 relates the DH angles
  of odd and even joints; in angles φ measured from the cube pose (θ = ∓90° + φ) this
  reads sin φ_e = sin φ_o / (sin φ_o − 1).
"""
import warnings

import numpy as np
import pytest
from scipy.optimize import least_squares

import flexmbd as fm
from flexmbd.examples.slider_crank import build as p1_slider_crank
from flexmbd.forces.rotational_spring import RotationalSpringDamperGroup
from flexmbd.system import RedundantConstraintWarning, System
from flexmbd.verify.references import slider_crank_minimal


def _freeze_and_catch(model):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RedundantConstraintWarning)
        sys = model.freeze()
    msgs = [str(w.message) for w in caught if issubclass(w.category, RedundantConstraintWarning)]
    return sys, msgs


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return fn(*args, **kw)


def _keep_all(model):
    return System(model, redundancy="keep")


# ------------------------------------------------------------------ P1 slider-crank
def test_p1_slider_crank_has_three_redundant_equations_and_runs():
    model = p1_slider_crank(k=2e4, c=1e3)
    sys, msgs = _freeze_and_catch(model)
    assert (sys.n, sys.m) == (21, 20)
    assert len(sys.removed_equations) == 3
    assert len(msgs) == 1 and msgs[0].startswith("3 redundant constraint equation(s) removed")
    for owner, label in sys.removed_equations:
        assert f"{owner}: {label}" in msgs[0]
        assert owner in {"crank_pin", "elbow", "wrist", "slide"}
    with pytest.warns(RedundantConstraintWarning):
        res = model.simulate(t_end=0.3, h=0.01)
    assert res.success
    ref = slider_crank_minimal(2e4, 1e3, t_end=0.3)
    assert np.max(np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t))) < 5e-4  # measured 1.8e-4
    full = _keep_all(model)  # the removed equations still hold along the motion
    assert max(np.abs(full.constraints(full.extend(q), 0.0)).max() for q in res.q) < 1e-9


# ------------------------------------------------------------------ four-bar
D4, A4, B4, C4 = 1.0, 0.35, 1.0, 0.8     # ground, crank, coupler, rocker (crank-rocker)
TH2 = np.radians(60.0)


def four_bar(kind, driven=False):
    A = A4 * np.array([np.cos(TH2), np.sin(TH2)])
    O4 = np.array([D4, 0.0])
    d = np.linalg.norm(O4 - A)
    e = (O4 - A) / d
    a = (B4**2 - C4**2 + d**2) / (2 * d)
    B = A + a * e + np.sqrt(B4**2 - a**2) * np.array([-e[1], e[0]])
    m = fm.Model(gravity=(0, -9.81, 0))
    bodies = {}
    for name, p, q, mass in (("crank", np.zeros(2), A, 1.0), ("coupler", A, B, 2.0), ("rocker", O4, B, 1.5)):
        L, ang = np.linalg.norm(q - p), np.arctan2(q[1] - p[1], q[0] - p[0])
        inertia = mass * L**2 / 12
        if kind == "planar":
            bodies[name] = m.planar_body(name, mass=mass, inertia=inertia, position=(p + q) / 2, angle=ang)
        else:
            bodies[name] = m.rigid_body(name, mass=mass, inertia=(1e-3, inertia, inertia),
                                        position=np.r_[(p + q) / 2, 0],
                                        orientation=fm.quaternion_from_axis_angle((0, 0, 1), ang))
    m.revolute(fm.GROUND, bodies["crank"], at=(0, 0, 0), name="O2")
    m.revolute(bodies["crank"], bodies["coupler"], at=A, name="A")
    m.revolute(bodies["coupler"], bodies["rocker"], at=B, name="B")
    m.revolute(fm.GROUND, bodies["rocker"], at=O4, name="O4")
    if driven:
        m.rotation_driver(fm.GROUND, bodies["crank"], speed=2.0, name="motor")
    return m


def _planar_angle(res, body):
    o = res[f"{body}.orientation"]
    return o if o.ndim == 1 else 2 * np.arctan2(o[:, 3], o[:, 0])  # rotation about z of a quaternion


def test_spatial_four_bar_lists_three_removed_equations():
    sys, msgs = _freeze_and_catch(four_bar("spatial"))
    assert (sys.n, sys.m) == (21, 20)  # 23 equations, rank 20
    # greedy in model order: the joint added last (O4) loses its out-of-plane equations
    assert sys.removed_equations == [("O4", "point coincidence along z"), ("O4", "axis of j ⊥ f of i"),
                                     ("O4", "axis of j ⊥ g of i")]
    assert msgs == ["3 redundant constraint equation(s) removed: O4: point coincidence along z; "
                    "O4: axis of j ⊥ f of i; O4: axis of j ⊥ g of i"]
    planar, msgs = _freeze_and_catch(four_bar("planar"))
    assert planar.removed_equations == [] and msgs == []  # the planar model is not over-constrained


def test_four_bar_kinematics_spatial_equals_planar():
    t = np.linspace(0.0, np.pi, 37)  # one crank revolution at 2 rad/s
    res = {k: _quiet(four_bar(k, driven=True).kinematics, t) for k in ("planar", "spatial")}
    assert res["planar"].success and res["spatial"].success
    for b in ("crank", "coupler", "rocker"):
        assert np.max(np.abs(res["planar"][f"{b}.position"] - res["spatial"][f"{b}.position"])) < 1e-9
        assert np.max(np.abs(np.sin(_planar_angle(res["planar"], b) - _planar_angle(res["spatial"], b)))) < 1e-9
        assert np.max(np.abs(res["planar"][f"{b}.velocity"] - res["spatial"][f"{b}.velocity"])) < 1e-9
    tp, ts = res["planar"]["motor.torque"], res["spatial"]["motor.torque"]
    assert np.max(np.abs(tp - ts)) < 1e-9 * np.max(np.abs(tp))


def test_four_bar_free_motion_spatial_equals_planar():
    """Swinging under gravity from rest: the two models differ by O(h²) (measured crank
    angle difference 5.0e-5 rad at h = 4e-3 and 1.2e-5 at h = 2e-3 over 1 s, swing 5.4 rad)."""
    diffs = []
    for h in (4e-3, 2e-3):
        runs = {k: _quiet(four_bar(k).simulate, 1.0, h, integrator=fm.GeneralizedAlpha(0.8))
                for k in ("planar", "spatial")}
        assert all(r.success for r in runs.values())
        diffs.append(np.max(np.abs(_planar_angle(runs["planar"], "crank") - _planar_angle(runs["spatial"], "crank"))))
        assert np.ptp(_planar_angle(runs["planar"], "crank")) > 5.0  # it really moves
    assert diffs[0] < 2e-4 and diffs[0] / diffs[1] > 3.0


# ------------------------------------------------------------------ Bricard
CUBE = np.array([(1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (1, 0, 1)], float)
AXES = np.eye(3)[[0, 2, 1, 0, 2, 1]]  # joint axis at each vertex: ⊥ to both edges meeting there


def _link_frame(edge):
    x = edge / np.linalg.norm(edge)
    trial = np.eye(3)[np.argmin(np.abs(x))]
    y = trial - (trial @ x) * x
    y /= np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


def bricard(speed=None, gravity=(0.0, 0.0, 0.0)):
    """Links 1-5 on the cube edges P_i P_{i+1}, the edge P6 P1 is ground; joint i at P_i.
    Each joint also carries a zero-stiffness rotational spring that measures its angle."""
    m = fm.Model(gravity=gravity, name="bricard")
    links = [fm.GROUND]
    for i in range(5):
        p, q = CUBE[i], CUBE[i + 1]
        links.append(m.rigid_body(f"link{i + 1}", mass=1.0, inertia=(0.005, 1 / 12, 1 / 12), position=(p + q) / 2,
                                  orientation=_link_frame(q - p)))
    links.append(fm.GROUND)
    for i in range(6):
        m.revolute(links[i], links[i + 1], at=CUBE[i], axis=AXES[i], name=f"J{i + 1}")
        m.rotational_spring_damper(links[i], links[i + 1], axis=AXES[i], k=0.0, name=f"angle{i + 1}")
    if speed is not None:
        m.rotation_driver(fm.GROUND, links[1], axis=AXES[0], speed=speed, name="motor")
    return m


def joint_angles(res):
    sys = res.system
    g = next(g for g in sys.force_groups if isinstance(g, RotationalSpringDamperGroup))
    return np.array([g.outputs(sys.extend(q), sys.extend_velocity(v), t)["angle"]
                     for t, q, v in zip(res.t, res.q, res.v)])


def _dh_loop(theta):
    """Closure error of the 6R chain with a = 1, d = 0, twists 90° (signs as on the cube)."""
    twist = np.pi / 2 * np.array([1, 1, 1, 1, 1, -1])
    M = np.eye(4)
    for th, al in zip(theta, twist):
        ct, st, ca, sa = np.cos(th), np.sin(th), np.cos(al), np.sin(al)
        M = M @ np.array([[ct, -st * ca, st * sa, ct], [st, ct * ca, -ct * sa, st], [0, sa, ca, 0], [0, 0, 0, 1]])
    return np.r_[(M[:3, :3] - np.eye(3)).ravel(), M[:3, 3]]


def test_bricard_reference_by_dh_loop_closure():
    """Independent of flexmbd: the DH chain closes at the cube pose (θ = ∓90°), stays closed
    when joint 1 is turned (it moves), and obeys the closed-form relation."""
    theta = np.pi / 2 * np.array([-1, 1, 1, -1, -1, 1])
    assert np.linalg.norm(_dh_loop(theta)) < 1e-14
    for th1 in theta[0] + np.linspace(0.05, 0.5, 10):
        sol = least_squares(lambda x: _dh_loop(np.r_[th1, x]), theta[1:], xtol=1e-15, ftol=1e-15, gtol=1e-15)
        theta = np.r_[th1, sol.x]
        assert np.linalg.norm(_dh_loop(theta)) < 1e-12
        co, ce = np.cos(theta[0::2]), np.cos(theta[1::2])
        assert np.allclose(co, co[0], atol=1e-9) and np.allclose(ce, ce[0], atol=1e-9)
        assert abs(co[0] + ce[0] + co[0] * ce[0]) < 1e-9
    assert np.degrees(theta[0]) == pytest.approx(-90 + np.degrees(0.5))


def test_bricard_is_redundant_by_one():
    sys, msgs = _freeze_and_catch(bricard(speed=1.0))
    assert len(sys.removed_equations) == 1
    assert msgs == ["1 redundant constraint equation(s) removed: J6: axis of j ⊥ g of i"]
    assert sys.n == sys.m == 35  # 5 bodies · 7; 5 + 6·5 − 1 + 1 driver


@pytest.mark.parametrize("speed", [1.0, -1.0])
def test_driven_bricard_moves_as_the_closed_form_says(speed):
    res = _quiet(bricard(speed).kinematics, np.linspace(0.0, 0.45, 19))
    assert res.success, res.message
    phi = joint_angles(res)
    assert np.allclose(phi[:, 0], speed * res.t, atol=1e-10)  # the driven joint
    assert np.allclose(phi[:, 2], phi[:, 0], atol=1e-9) and np.allclose(phi[:, 4], phi[:, 0], atol=1e-9)
    assert np.allclose(phi[:, 3], phi[:, 1], atol=1e-9) and np.allclose(phi[:, 5], phi[:, 1], atol=1e-9)
    so = np.sin(phi[:, 0])
    assert np.max(np.abs(np.sin(phi[:, 1]) - so / (so - 1.0))) < 1e-9
    assert abs(phi[-1, 1]) > 0.3  # a finite motion, not an infinitesimal one
    full = _keep_all(bricard(speed))  # the removed equation holds all along
    assert max(np.abs(full.constraints(full.extend(q), t)).max() for t, q in zip(res.t, res.q)) < 1e-9


def test_bricard_swings_under_gravity():
    """Undriven, from rest under gravity: one-DOF motion that keeps the relation and the
    removed equation (measured |Φ_removed| ≤ 2e-13; generalized-α dissipates 3.4e-3 J of 22 J in 0.4 s)."""
    model = bricard(gravity=(0.0, 0.0, -9.81))
    res = _quiet(model.simulate, 0.4, 0.005, integrator=fm.GeneralizedAlpha(0.8))
    assert res.success
    phi = joint_angles(res)
    assert abs(phi[-1, 0]) > 0.5
    so = np.sin(phi[:, 0])
    assert np.max(np.abs(np.sin(phi[:, 1]) - so / (so - 1.0))) < 1e-9
    full = _keep_all(model)
    assert max(np.abs(full.constraints(full.extend(q), 0.0)).max() for q in res.q) < 1e-9
    assert abs(res["energy.numerical_dissipation"][-1]) < 1e-3 * res["energy.kinetic"][-1]


def test_contradictory_redundant_joint_is_an_error():
    """A body pinned at the origin keeps its point (1, 0, 0) at distance 1 from it; a
    distance constraint of length 1.2 between the two is redundant in rank (its gradient
    lies in the pin's) but contradicts the pin: an error naming it, not a silent drop."""
    import warnings

    import flexmbd as fm

    m = fm.Model()
    b = m.rigid_body("b", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.5, 0, 0))
    m.revolute(fm.GROUND, b, at=(0, 0, 0), axis=(0, 0, 1), name="pin")
    m.distance(fm.GROUND, b, at_i=(0, 0, 0), at_j=(1, 0, 0), length=1.2, name="rope")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(fm.ModelError, match="contradictory constraints.*rope"):
            m.simulate(t_end=0.01, h=0.01)


def test_redundancy_found_in_a_large_planar_loop_of_spatial_revolutes():
    """A closed planar loop of 70 links joined by spatial revolute joints (m > 200, so the
    sparse Gram-matrix test runs first): the loop closure makes 3 equations redundant."""
    import warnings

    import flexmbd as fm
    from flexmbd.system import RedundantConstraintWarning

    n, radius = 70, 2.0
    angles = np.linspace(0.0, 2 * np.pi, n + 1)
    pts = radius * np.c_[np.cos(angles), np.sin(angles), np.zeros(n + 1)]
    pts[-1] = pts[0]
    m = fm.Model()
    prev = fm.GROUND
    for i in range(n):
        mid = 0.5 * (pts[i] + pts[i + 1])
        b = m.rigid_body(f"link{i}", mass=1.0, inertia=(0.01, 0.02, 0.02), position=mid)
        m.revolute(prev, b, at=pts[i], axis=(0, 0, 1))
        prev = b
    m.revolute(prev, fm.GROUND, at=pts[-1], axis=(0, 0, 1), name="closure")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys_ = m.freeze()
    assert len(sys_.removed_equations) == 3
    assert all(owner == "closure" for owner, _ in sys_.removed_equations)
    assert any(issubclass(w.category, RedundantConstraintWarning) for w in caught)


def test_solvers_take_the_redundancy_option_of_model_files():
    """simulate / static_equilibrium / kinematics accept redundancy="keep" (as a model
    file's solver section does): the P1 slider-crank then keeps its 23 equations, warns
    nothing, and moves as with the redundant equations removed; a bad value names the
    choices; with a frozen system the option is refused."""
    model = p1_slider_crank(k=2e4, c=1e3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RedundantConstraintWarning)
        kept = model.simulate(t_end=0.1, h=0.01, redundancy="keep")
    assert kept.success and kept.system.m == 23 and not kept.system.removed_equations
    removed = _quiet(model.simulate, t_end=0.1, h=0.01)
    assert removed.system.m == 20
    np.testing.assert_allclose(kept["slider.position"], removed["slider.position"], atol=1e-9)
    assert fm.RedundantConstraintWarning is RedundantConstraintWarning
    with pytest.raises(ValueError, match="'remove' or 'keep'"):
        model.simulate(t_end=0.1, h=0.01, redundancy="drop")
    with pytest.raises(ValueError, match="frozen already"):
        model.simulate(t_end=0.1, h=0.01, redundancy="keep", system=_keep_all(model))
    static = model.static_equilibrium(load_steps=1, redundancy="keep")
    assert static.system.m == 23


def test_a_run_that_fails_with_redundant_equations_kept_says_so():
    """Bricard's linkage (one equation dependent on the others) with redundancy="keep":
    Newton cannot converge, and the failure names the dependent equation and the kept
    redundancy instead of only the equation of motion Newton stopped at; removed (the
    default) it runs."""
    model = bricard(1.0)
    kept = _quiet(model.simulate, t_end=0.2, h=1e-2, redundancy="keep")
    assert not kept.success
    assert "1 of the 36 constraint equations are dependent" in kept.message
    assert "redundancy: keep" in kept.message and "constraint of 'J6'" in kept.message
    assert _quiet(model.simulate, t_end=0.2, h=1e-2).success


def test_a_second_model_of_the_same_structure_reuses_pattern_and_redundancy(monkeypatch):
    """Freezing keeps the sparsity pattern (by the groups' coordinate indices) and the
    redundant equations (by Φ_q at q0) for models of the same structure: the second
    freeze computes neither and gives the same system; a model whose joints differ is
    analysed afresh."""
    import flexmbd.system as fs

    calls = {"pattern": 0, "redundancy": 0}
    make, dependent = fs.System._make_pattern, fs.System._dependent_rows

    def counted_pattern(self):
        calls["pattern"] += 1
        return make(self)

    def counted_dependent(self, *a):
        calls["redundancy"] += 1
        return dependent(self, *a)

    monkeypatch.setattr(fs.System, "_make_pattern", counted_pattern)
    monkeypatch.setattr(fs.System, "_dependent_rows", counted_dependent)
    fs._PATTERNS.items.clear()
    fs._DEPENDENT.items.clear()
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        a = p1_slider_crank(k=2e4, c=1e3).freeze()
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always")
        b = p1_slider_crank(k=3e4, c=1e3).freeze()      # another stiffness: the same structure
    assert calls == {"pattern": 1, "redundancy": 1}
    assert [str(w.message) for w in first] == [str(w.message) for w in second]    # the warning again
    assert a.removed_equations == b.removed_equations and len(a.removed_equations) == 3
    assert np.array_equal(a._pos, b._pos) and a.nnz == b.nnz
    ra = a.model.simulate(t_end=0.05, h=0.01, system=a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rb = p1_slider_crank(k=2e4, c=1e3).simulate(t_end=0.05, h=0.01)
    assert np.array_equal(ra.q, rb.q)
    # another mechanism: another Φ_q at q0, analysed again
    m = fm.Model()
    crank = m.rigid_body("crank", mass=1.0, inertia=(1, 1, 1), position=(0.5, 0, 0))
    m.revolute(fm.GROUND, crank, at=(0, 0, 0), axis=(0, 0, 1))
    m.prismatic(fm.GROUND, crank, at=(0.5, 0, 0), axis=(1, 0, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.freeze()
    assert calls["redundancy"] == 2
