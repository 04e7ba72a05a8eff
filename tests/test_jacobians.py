"""One generic check of every element's analytic derivatives against central differences.

For random configurations (non-normalised Euler parameters included: the formulas are
polynomial identities in p) and random velocities, every body, force and constraint
group is compared with central differences of its own value:
    ∂Q/∂q, ∂Q/∂q' of force elements and ∂(M a + Q_v)/∂q, ∂/∂q' of bodies,
    Φ_q, ∂(Φ_qᵀ λ)/∂q and γ = −(Φ_q q')_q q' − 2 Φ_qt q' − Φ_tt of constraints.
Relative error ≤ 1e-6 (central differences with step 1e-6 are good to ~1e-9 here).

Derivatives with respect to the configuration are taken along increments,
d/dε f(q ⊕ ε e_j) at ε = 0, using each kind's ``increment``: for vector kinds this is
∂f/∂q_j; for the rotation-vector kind ("spatial-lie", q ⊕ Δ = [R + ΔR, p ⊗ exp(Δθ)])
it is the derivative along the body-frame increment, which is what its elements supply.
For "se3" the model also holds n-node SE(3) beams (second- and third-order Lagrange, a
quadratic NURBS arc) beside the bodies.  For "r3r3" the bodies are nodes of R³×R³ beams (total rotation vectors), and every other
node is moved onto another branch of its rotation vector, so that the elements' branch
alignment (and its chain rule) is exercised.
"""
import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexmbd as fm
from flexmbd.constraints.dot import DotConstraintGroup, MixedDotConstraintGroup
from flexmbd.registry import element_types
from flexmbd.system import System

KIND_NAMES = ["spatial", "planar", "spatial-lie", "se3", "r3r3", "ancf", "ancf-cable"]

REL = 1e-6


def r3r3_nodes(m):
    """Two R³×R³ beams (with mass; integration full, hw and reduced) whose end nodes play
    the bodies a and b."""
    from flexmbd.beams.sections import Section

    sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)   # soft: F stays O(1)
    p = m.beam("p", section=sec, elements=2, start=(-0.4, 0.1, 0.7), end=(0.1, 0.2, 0.3), e2=(0, 1, 1),
               formulation="r3r3", integration="full")
    r = m.beam("r", section=sec, elements=2, start=(1.0, -0.2, 0.4), end=(1.5, 0.4, 0.9),
               formulation="r3r3", integration="hw")
    m.beam("s", section=sec, elements=1, start=(1.0, -0.2, 0.4), end=(0.6, -0.8, 0.2),
           formulation="r3r3", integration="reduced")
    return p.last, r.first


def se3_beams(m):
    """Soft n-node SE(3) beams with mass (second- and third-order Lagrange, full and
    reduced integration, a quadratic NURBS arc), beside the bodies of the "se3" kind."""
    from flexmbd.beams import CircularArc
    from flexmbd.beams.sections import Section

    sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)   # soft: F stays O(1)
    m.beam("p2", section=sec, elements=2, start=(-0.4, 0.1, 0.7), end=(0.1, 0.2, 0.3), e2=(0, 1, 1), order=2)
    m.beam("p3", section=sec, elements=1, start=(1.0, -0.2, 0.4), end=(1.5, 0.4, 0.9), order=3,
           integration="full")
    m.beam("n2", section=sec, elements=2, geometry=CircularArc((1.0, -0.2, 0.4), 0.5, 0.3, 1.5, normal=(1, 2, 3)),
           order=2, interpolation="nurbs")


def ancf_nodes(m):
    """Two fully parameterized ANCF beams with mass (strain-split and plain forms, one on a
    quarter circle) whose end nodes play the bodies a and b: their elastic, inertia and
    weight groups join the samples (markers x = r + F u are linear), and a rigid body on
    ANCF coordinates hinged to p (its mass and rigidity groups)."""
    from flexmbd.beams import CircularArc
    from flexmbd.beams.sections import Section
    from flexmbd.lie import so3_exp

    sec = Section.rectangle(0.05, 0.03, E=2e4, nu=0.3, rho=800.0)   # soft: F stays O(1)
    p = m.beam("p", section=sec, elements=2, start=(-0.4, 0.1, 0.7), end=(0.1, 0.2, 0.3), e2=(0, 1, 1),
               formulation="ancf")
    r = m.beam("r", section=sec, elements=2, geometry=CircularArc((1.0, -0.2, 0.4), 0.5, 0.3, 1.5, normal=(1, 2, 3)),
               formulation="ancf", locking="plain")
    # a rigid body on ANCF coordinates (natural coordinates, six rigidity constraints) on p's first node
    c = m.rigid_body("c", mass=1.2, inertia=[[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.25]],
                     position=(-0.5, 0.2, 0.8), orientation=so3_exp(np.array([0.2, -0.3, 0.4])),
                     parameterization="ancf")
    m.revolute(p.first, c, at=(-0.4, 0.1, 0.7), axis=(0, 1, 1), name="hinge_c")
    return p.last, r.first


def cable_model(m):
    """Two ANCF cables (with mass, under gravity: inertia, exact weight, both bending forms,
    a curved one) and the element samples that make sense on cable nodes: points and
    directions on the axis only (the generic samples put points off it, which cable nodes
    refuse)."""
    from flexmbd.beams import CircularArc
    from flexmbd.beams.sections import Section
    from flexmbd.ground import GROUND

    sec = Section.rectangle(0.05, 0.05, E=2e4, nu=0.3, rho=800.0)   # soft: F stays O(1)
    p = m.beam("p", section=sec, elements=2, start=(-0.4, 0.1, 0.7), end=(0.1, 0.2, 0.3), formulation="ancf-cable")
    r = m.beam("r", section=sec, elements=2, geometry=CircularArc((1.0, -0.2, 0.4), 0.5, 0.2, 1.5, normal=(0, 1, 1)),
               formulation="ancf-cable")
    m.beam("s", section=sec, elements=1, start=(1.0, -0.2, 0.4), end=(0.6, -0.8, 0.2), formulation="ancf-cable",
           bending="linear", integration="reduced")
    a, b = p.last, r.first
    xa, xb = a.position, b.position
    ta = (xa - p.first.position) / np.linalg.norm(xa - p.first.position)
    m.spring_damper(a, b, k=100.0, c=2.0, name="sd")
    m.spring_damper(GROUND, b, at_i=(0.3, 0.3, 0.3), at_j=xb, k=50.0, c=1.0, name="sd_ground")
    m.force(a, (0.3, -0.2, 0.5), name="fa")
    m.force(b, (0.4, 0.0, 0.0), body_fixed=True, name="fb")                 # along b's axis
    m.force(a, (0.0, 0.0, 1.0), at=xa + 0.2 * ta, name="f_axis")          # a point on the axis
    m.revolute(GROUND, p.first, at=p.first.position, axis=ta, name="clamp")
    m.distance(a, b, at_i=xa, at_j=xb, name="dist")
    m.spherical(GROUND, r.last, at=r.last.position, name="pin")
    return a, b


def build_model(kind):
    """Two bodies a, b of ``kind`` (R³×R³: beam nodes) and every registered element type's
    sample between them and ground (:meth:`flexmbd.registry.ElementType.sample`)."""
    m = fm.Model(gravity=(0, -9.81, 0) if kind == "planar" else (0.3, -9.81, 1.2))
    if kind == "ancf-cable":
        cable_model(m)
        return m
    if kind == "ancf":
        a, b = ancf_nodes(m)
    elif kind in ("spatial", "spatial-lie", "se3", "r3r3"):
        par = {"spatial-lie": "rotation", "se3": "se3"}.get(kind, "quaternion")
        rot = fm.quaternion_from_axis_angle((1, 2, 3), 0.7)
        if kind == "r3r3":
            a, b = r3r3_nodes(m)
        else:
            a = m.rigid_body("a", mass=2.0, inertia=(0.3, 0.4, 0.5), position=(0.1, 0.2, 0.3), orientation=rot,
                             parameterization=par)
            b = m.rigid_body("b", mass=1.5, inertia=[[0.3, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.25]],
                             position=(1.0, -0.2, 0.4), parameterization=par)
            if kind == "se3":
                se3_beams(m)
    else:
        a = m.planar_body("a", mass=2.0, inertia=0.3, position=(0.1, 0.2), angle=0.3)
        b = m.planar_body("b", mass=1.5, inertia=0.2, position=(1.0, -0.2), angle=-0.4)
    for etype in element_types():
        etype.sample(m, a, b)
    return m


SYSTEMS = {}


def system(kind):
    if kind not in SYSTEMS:
        SYSTEMS[kind] = System(build_model(kind), redundancy="keep")
    return SYSTEMS[kind]


def random_state(sys, rng):
    q = sys.increment(sys.q0, 0.3 * rng.standard_normal(sys.n))
    for _, ci, _ in sys._branched:   # R³×R³ nodes: every other one on the next branch, ψ (1 − 2π/|ψ|)
        idx = ci[1::2, 3:6]
        psi = q[idx]
        q[idx] = psi * (1.0 - 2.0 * np.pi / np.linalg.norm(psi, axis=1))[:, None]
    v = rng.standard_normal(sys.n)
    a = rng.standard_normal(sys.n)
    return q, v, a


def detached(g):
    """A copy of group g in which every element owns private coordinates.

    Then one evaluation perturbs coordinate j of all elements at once, so the
    central differences cost 2 m evaluations per group instead of 2 m per element.
    """
    d = copy.copy(g)
    d.dof_index = np.arange(g.dof_index.size).reshape(g.dof_index.shape)
    d.config_index = np.arange(g.config_index.size).reshape(g.config_index.shape)
    if isinstance(g, MixedDotConstraintGroup):
        d = MixedDotConstraintGroup(g.kind_i, g.kind_j, g.equations, d.dof_index, g.laws, d.config_index)
    elif isinstance(g, DotConstraintGroup):
        d = DotConstraintGroup(g.kind, g.equations, d.dof_index, g.laws, d.config_index)
    return d


def plus(kind, X, D):
    """X ⊕ D for element rows X (n_el, k nq) of k bodies and increments D (n_el, k nv);
    ``kind`` a tuple: the kinds of the sides of a group joining different kinds (``side_kinds``)."""
    if isinstance(kind, tuple):
        out, cq, cv = [], 0, 0
        for k in kind:
            out.append(plus(k, X[:, cq:cq + k.nq], D[:, cv:cv + k.nv]))
            cq, cv = cq + k.nq, cv + k.nv
        return np.hstack(out)
    n_el = X.shape[0]
    Xb = X.reshape(n_el, -1, kind.nq)
    Db = D.reshape(n_el, -1, kind.nv)
    return np.asarray(kind.increment(Xb, Db)).reshape(X.shape)


def central_incr(f, kind, X, eps=1e-6):
    """d f(X ⊕ ε e_j)[e] / dε for all elements e: X (n_el, k nq) -> (n_el, ..., k nv)."""
    f0 = np.asarray(f(X))
    m = sum(k.nv for k in kind) if isinstance(kind, tuple) else X.shape[1] // kind.nq * kind.nv
    out = np.empty(f0.shape + (m,))
    for j in range(m):
        D = np.zeros((X.shape[0], m))
        D[:, j] = eps
        out[..., j] = (np.asarray(f(plus(kind, X, D))) - np.asarray(f(plus(kind, X, -D)))) / (2 * eps)
    return out


def central_local(f, X, eps=1e-6):
    """d f(X)[e] / d X[e, j] for all elements e: X (n_el, m) -> (n_el, ..., m)."""
    f0 = np.asarray(f(X))
    out = np.empty(f0.shape + (X.shape[1],))
    for j in range(X.shape[1]):
        dX = np.zeros_like(X)
        dX[:, j] = eps
        out[..., j] = (np.asarray(f(X + dX)) - np.asarray(f(X - dX))) / (2 * eps)
    return out


def close(analytic, numeric, what, value=None):
    """Relative comparison per element; the scale is at least 1e-3 |value| when the
    differentiated value is given (central-difference rounding noise is ~1e-10 |value|,
    which would dominate a derivative that is exactly zero)."""
    for e in range(len(numeric)):
        floor = 1e-8 if value is None else max(1e-8, 1e-3 * np.max(np.abs(value[e])))
        scale = max(np.max(np.abs(numeric[e])), floor)
        err = np.max(np.abs(analytic[e] - numeric[e])) / scale
        assert err <= REL, f"{what[e] if isinstance(what, list) else what}: relative error {err:.2e}"


@pytest.mark.parametrize("kind", KIND_NAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), t=st.floats(0.0, 2.0))
def test_force_jacobians(kind, seed, t):
    sys = system(kind)
    rng = np.random.default_rng(seed)
    q, v, _ = random_state(sys, rng)
    qe, ve = sys.extend(q), sys.extend_velocity(v)
    lam = rng.standard_normal(sys.m)
    for g0 in sys.force_groups:
        g = detached(g0)
        X, V = qe[g0.config_index], ve[g0.dof_index]
        # forces that depend on multipliers (friction) at random λ, and their block ∂F/∂λ
        kw = {"lam": lam} if g0.coupling_index is not None else {}
        Q, K, D = g.evaluate(X.ravel(), V.ravel(), t, **kw)
        kd = getattr(g, "side_kinds", None) or g.kind   # forces joining two kinds (contacts)
        fq = central_incr(lambda Y: g.evaluate(Y.ravel(), V.ravel(), t, **kw)[0], kd, X)
        fv = central_local(lambda Y: g.evaluate(X.ravel(), Y.ravel(), t, **kw)[0], V)
        names = [f"{type(g).__name__} {nm}" for nm in g.element_names]
        close(K if K is not None else 0 * fq, fq, [nm + " ∂Q/∂q" for nm in names], Q)
        close(D if D is not None else 0 * fv, fv, [nm + " ∂Q/∂q'" for nm in names], Q)
        if kw:
            assert np.any(Q), f"{type(g).__name__}: no force at random multipliers"
            rows = g0.coupling_index
            C = g.coupling(X.ravel(), V.ravel(), lam)
            for k in range(rows.shape[1]):
                def Qk(x, k=k):
                    out = np.empty_like(Q)
                    for e in range(len(rows)):
                        lp = lam.copy()
                        lp[rows[e, k]] = x[e]
                        out[e] = g.evaluate(X.ravel(), V.ravel(), t, lam=lp)[0][e]
                    return out
                x0 = lam[rows[:, k]]
                num = (Qk(x0 + 1e-6) - Qk(x0 - 1e-6)) / 2e-6
                close(C[:, :, k], -num, [nm + f" ∂F/∂λ[{k}]" for nm in names], Q)


@pytest.mark.parametrize("kind", KIND_NAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_body_inertia_jacobians(kind, seed):
    sys = system(kind)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(sys, rng)
    qe, ve, ae = sys.extend(q), sys.extend_velocity(v), sys.extend_velocity(a)
    for g in sys.body_groups:
        X, V, A = qe[g.config_index], ve[g.dof_index], ae[g.dof_index]
        F, K, D, M = g.inertia_force(X, V, A)
        close(K, central_incr(lambda Y: g.inertia_force(Y, V, A, False)[0], g.kind, X), "body ∂F/∂q")
        close(D, central_local(lambda Y: g.inertia_force(X, Y, A, False)[0], V), "body ∂F/∂q'")
        close(M, central_local(lambda Y: g.inertia_force(X, V, Y, False)[0], A), "body mass matrix")


@pytest.mark.parametrize("kind", KIND_NAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), t=st.floats(0.0, 2.0))
def test_constraint_derivatives(kind, seed, t):
    sys = system(kind)
    rng = np.random.default_rng(seed)
    q, v, _ = random_state(sys, rng)
    qe, ve = sys.extend(q), sys.extend_velocity(v)
    for g0 in sys.constraint_groups:
        g = detached(g0)
        X, V = qe[g0.config_index], ve[g0.dof_index]
        kd = getattr(g, "side_kinds", None) or g.kind   # dot products of every kind; Euler-parameter normalisation; ANCF rigidity
        lam = rng.standard_normal(len(g))
        what = [f"{o} ({lab})" for o, lab in zip(g.owner, g.label)]
        Phi, Jq = g.evaluate(X.ravel(), t)
        close(Jq[:, None], central_incr(lambda Y: g.evaluate(Y.ravel(), t)[0][:, None], kd, X),
              [w + " Φ_q" for w in what])
        close(g.hessian(X.ravel(), t, lam),
              central_incr(lambda Y: lam[:, None] * g.evaluate(Y.ravel(), t)[1], kd, X),
              [w + " ∂(Φ_qᵀλ)/∂q" for w in what], lam[:, None] * Jq)
        # along q(τ) = q ⊕ τ q', t + τ:  d²φ/dτ² = (Φ_q q')_q q' + 2 Φ_qt q' + Φ_tt = −γ
        # (for the rotation kind q ⊕ (τ+δ) v = (q ⊕ τ v) ⊕ δ v, so this holds there too)
        gam = g.gamma(X.ravel(), V.ravel(), t)

        def second_difference(eps):
            path = [g.evaluate(plus(kd, X, s * eps * V).ravel(), t + s * eps)[0] for s in (-1, 0, 1)]
            return (path[2] - 2 * path[1] + path[0]) / eps**2
        # Richardson's extrapolation of the central second difference: O(ε⁴) (the plain one's
        # O(ε²) error reached 1.4e-5 for a gear's relative angles at ε = 1e-4)
        d2 = (4 * second_difference(5e-5) - second_difference(1e-4)) / 3
        assert np.all(np.abs(-gam - d2) <= 1e-5 * np.maximum(1.0, np.abs(d2))), "γ mismatch"
        d1 = (g.evaluate(X.ravel(), t + 1e-6)[0] - g.evaluate(X.ravel(), t - 1e-6)[0]) / 2e-6
        assert np.all(np.abs(g.time_derivative(X.ravel(), t) - d1) <= 1e-6 * np.maximum(1.0, np.abs(d1))), "Φ_t"


def central(f, x, eps=1e-6):
    f0 = np.asarray(f(x))
    out = np.empty(f0.shape + x.shape)
    for i in range(len(x)):
        dx = np.zeros_like(x)
        dx[i] = eps
        out[..., i] = (np.asarray(f(x + dx)) - np.asarray(f(x - dx))) / (2 * eps)
    return out


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_assembled_matrix_matches_residual_derivatives(kind):
    """The scattered Newton matrix equals the derivatives of the assembled residual."""
    sys = system(kind)
    rng = np.random.default_rng(1)
    q, v, a = random_state(sys, rng)
    lam = rng.standard_normal(sys.m)
    t = 0.4
    for cM, cD, cK in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
        _, _, A = sys.evaluate(q, v, a, lam, t, cM=cM, cD=cD, cK=cK)
        A = A.toarray() if hasattr(A, "toarray") else A
        n = sys.n
        if cK:
            num = central(lambda x: sys.evaluate(sys.increment(q, x), v, a, lam, t, matrix=False)[0], 0 * v)
        elif cD:
            num = central(lambda x: sys.evaluate(q, x, a, lam, t, matrix=False)[0], v)
        else:
            num = central(lambda x: sys.evaluate(q, v, x, lam, t, matrix=False)[0], a)
        close(A[None, :n, :n], num[None], f"assembled block cM={cM} cD={cD} cK={cK}")
    Jq = central(lambda x: sys.evaluate(sys.increment(q, x), v, a, lam, t, matrix=False)[1], 0 * v)
    close(A[None, n:, :n], Jq[None], "assembled Φ_q")
    # upper right: Φ_qᵀ plus ∂F/∂λ of forces that depend on multipliers (friction)
    Fl = central(lambda x: sys.evaluate(q, v, a, x, t, matrix=False)[0], lam)
    close(A[None, :n, n:], Fl[None], "assembled Φ_qᵀ + ∂F/∂λ")
    if sys.coupled_groups:
        assert np.abs(Fl - Jq.T).max() > 1e-6, "the samples' friction should couple to λ"
