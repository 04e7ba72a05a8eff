"""Forces that depend on joint reactions: the coupling block ∂F/∂λ of the group protocol.

A test-only element type (registered here, removed afterwards) pushes a planar body with
f = μ λ_k · axis, λ_k the multiplier of one equation of a joint.  On a slider in a
horizontal prismatic joint under gravity, λ of the joint's normal equation is −m g, so
f = −μ m g x̂ is a friction-like drag: x'' = −μ g exactly and x(t) = x₀ + v₀ t − μ g t²/2,
which the trapezoidal rule (Newmark β = ¼, γ = ½) integrates exactly.  With the exact
coupling block Newton converges in one iteration once the motion is uniform; the block is
checked against central differences of the residual in λ.
"""
from __future__ import annotations

from typing import Literal, Optional

import numpy as np
import pytest
from pydantic import Field

import flexmbd as fm
from flexmbd.groups import Contribution, ForceGroup
from flexmbd.registry import REGISTRY, ElementType, register
from flexmbd.spec import BodyRef, Name, SpecBase, Vec3

G, MU, M = 9.81, 0.3, 2.0


class ReactionDragGroup(ForceGroup):
    """f = c λ_k axis on planar bodies: F = −Q = −c λ_k [a_x, a_y, 0], C = ∂F/∂λ_k."""

    def __init__(self, kind, elements, dof_index, config_index):
        self.kind = kind
        self.elements = elements
        self.element_names = [e.name for e in elements]
        self.dof_index, self.config_index = dof_index, config_index
        self.c = np.array([e.data["coefficient"] for e in elements])
        self.axis = np.array([e.data["axis"] for e in elements])

    def resolve_coupling(self, system):
        self.coupling_index = np.array([[system.owner_equations[e.data["joint"]][e.data["equation"]]]
                                        for e in self.elements])

    def evaluate(self, qe, ve, t, jacobians=True, lam=None):
        lk = np.zeros(len(self)) if lam is None else lam[self.coupling_index[:, 0]]
        Q = np.zeros(self.dof_index.shape)
        Q[:, :2] = (self.c * lk)[:, None] * self.axis[:, :2]
        return Q, None, None

    def contribute(self, ctx):
        Q, _, _ = self.evaluate(ctx.qe, ctx.ve, ctx.t, lam=ctx.lam)
        C = np.zeros(self.dof_index.shape + (1,))
        C[:, :2, 0] = -self.c[:, None] * self.axis[:, :2]
        return Contribution(-Q, None, C=C if ctx.matrix else None)


class ReactionDrag(SpecBase):
    type: Literal["reaction_drag"]
    name: Optional[Name] = None
    body: BodyRef
    joint: str
    equation: int = 0
    coefficient: float
    axis: Vec3 = Field([1.0, 0.0, 0.0])


def build(elements, system):
    kind = elements[0].bodies[0].kind
    on = [e.bodies[0] for e in elements]
    return [ReactionDragGroup(kind, elements, system.dof_rows(on, kind), system.config_rows(on, kind))]


@pytest.fixture(scope="module", autouse=True)
def reaction_drag_type():
    @register
    class ReactionDragType(ElementType):
        name = "reaction_drag"
        section = "forces"
        Spec = ReactionDrag
        body_fields = ("body",)
        builder = staticmethod(build)

        def prepare(self, model, spec, bodies, name):
            return dict(joint=spec.joint, equation=spec.equation, coefficient=spec.coefficient,
                        axis=np.asarray(spec.axis, float))

    yield
    del REGISTRY["reaction_drag"]


def slider(x0=0.0, v0=2.0, push=0.0):
    """The slider; ``push`` [N/s]: a downward force growing as push·t (normal force m g + push·t)."""
    m = fm.Model(gravity=(0, -G, 0))
    b = m.planar_body("slider", mass=M, inertia=0.1, position=(x0, 0), velocity=(v0, 0))
    m.prismatic(fm.GROUND, b, at=(x0, 0), axis=(1, 0, 0), name="rail")
    m.add("reaction_drag", body=b, joint="rail", equation=0, coefficient=MU, name="drag")
    if push:
        m.force(b, (0, -push, 0), scale=fm.Polynomial((0.0, 1.0)), name="push")
    return m


def test_coupling_block_is_the_derivative_in_the_multipliers():
    sys = slider().freeze()
    assert "NumPy for ReactionDragGroup" in sys.assembly and "multipliers" in sys.assembly
    rng = np.random.default_rng(3)
    q, v, a = sys.q0 + 0.1 * rng.standard_normal(sys.n), rng.standard_normal(sys.n), rng.standard_normal(sys.n)
    lam = rng.standard_normal(sys.m)
    A = sys.evaluate(q, v, a, lam, 0.0, cM=1.0, cD=0.2, cK=0.3)[2]
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    for k in range(sys.m):
        e = np.zeros(sys.m)
        e[k] = 1e-6
        dF = (sys.evaluate(q, v, a, lam + e, 0.0, matrix=False)[0]
              - sys.evaluate(q, v, a, lam - e, 0.0, matrix=False)[0]) / 2e-6
        np.testing.assert_allclose(A[:sys.n, sys.n + k], dF, rtol=0, atol=1e-9)
    # the velocity projection leaves the forces out
    P = sys.projection_matrix(q, 0.0)
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
    J = sys.constraint_jacobian(sys.extend(q), 0.0, dense=True)
    np.testing.assert_allclose(P[:sys.n, sys.n:], J.T, atol=1e-15)


def test_drag_driven_by_the_normal_force_matches_the_closed_form():
    x0, v0 = 0.2, 2.0
    res = slider(x0, v0).simulate(t_end=0.5, h=0.01)
    assert res.success
    t = res.t
    np.testing.assert_allclose(res["slider.position"][:, 0], x0 + v0 * t - 0.5 * MU * G * t**2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["rail.multipliers"][:, 0], -M * G, rtol=1e-12)


def test_drag_under_a_growing_normal_force_converges_at_second_order_in_one_newton_iteration():
    """N = m g + P t: x'' = −μ (g + P t/m), x = x₀ + v₀ t − μ (g t²/2 + P t³/(6 m)).  The
    residual is linear in (q'', λ), so Newton with the exact coupling block needs one
    iteration a step; the trapezoidal rule is second order (error ratio 4 per halving)."""
    x0, v0, P, T = 0.1, 3.0, 40.0, 0.4
    errors = []
    for h in (0.02, 0.01, 0.005):
        res = slider(x0, v0, push=P).simulate(t_end=T, h=h)
        assert res.success and res.max_iterations() == 1
        t = res.t
        exact = x0 + v0 * t - MU * (G * t**2 / 2 + P * t**3 / (6 * M))
        errors.append(np.max(np.abs(res["slider.position"][:, 0] - exact)))
        np.testing.assert_allclose(res["rail.multipliers"][:, 0], -(M * G + P * t), rtol=1e-12)
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all(np.abs(ratios - 4.0) < 0.1), (errors, ratios)
