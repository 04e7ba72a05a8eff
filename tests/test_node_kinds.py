"""Node kinds as instances: a kind whose size is a parameter works end to end.

A test-only kind "toy:n" (a particle with n extra coordinates, the shape of a floating-
frame modal body's coordinates: 3 + n per node) and a test-only body type that makes
such nodes, with a mass diag(m, m, m, μ₁ … μ_n) and a stiffness k on the extra
coordinates.  Two of them joined by the ordinary spring-damper (markers of the new kind)
oscillate at the closed-form frequencies; the extra coordinates at √(k/μ); results files
store the kind's key and find the kind again.
"""
from __future__ import annotations

from typing import Literal, Optional

import numpy as np
import pytest
from pydantic import Field

import flexmbd as fm
from flexmbd.bodies.rigid import Body
from flexmbd.groups import ForceGroup, InertiaGroup
from flexmbd.nodes import MarkerSet, NodeKind, register_kind
from flexmbd.registry import REGISTRY, Element, ElementType, register
from flexmbd.spec import Name, SpecBase, Vec3


class TranslationMarkers(MarkerSet):
    """x = point·r + u: the node does not rotate."""

    def evaluate(self, qb):
        x = self.point[:, None] * qb[:, :3] + (self.rot + self.const)[:, None] * self.u
        J = np.zeros((self.n, 3, self.kind.nv))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        return x, J

    def contract(self, qb, g):
        return np.zeros((self.n, self.kind.nv, self.kind.nv))

    def dJv(self, qb, vb):
        return np.zeros((self.n, 3, self.kind.nv))


class ToyKind(NodeKind):
    name = "toy"
    marker_class = TranslationMarkers

    def __init__(self, n):
        self.n = int(n)
        self.nq = self.nv = 3 + self.n
        self.coordinate_names = self.velocity_names = ("x", "y", "z") + tuple(f"eta{i}" for i in range(self.n))
        self.ground_q = np.zeros(self.nq)

    @property
    def key(self):
        return f"toy:{self.n}"

    def orientation_matrix(self, orientation):
        return np.broadcast_to(np.eye(3), (len(orientation), 3, 3)).copy()

    def initial_state(self, x, orientation, xd, w, A):
        z = np.zeros((len(x), self.n))
        return np.c_[x, z], np.c_[xd, z]

    def pose(self, q):
        return q[:, :3], np.broadcast_to(np.eye(3), (len(q), 3, 3)).copy()

    def twist(self, q, v):
        return v[:, :3], np.zeros((len(q), 3))

    def velocity_from_twist(self, q, xd, w):
        return np.c_[xd, np.zeros((len(q), self.n))]

    def output(self, what, q, v):
        return {"position": q[:, :3], "velocity": v[:, :3], "orientation": np.tile([1.0, 0, 0, 0], (len(q), 1)),
                "angular_velocity": np.zeros((len(q), 3))}[what]

    def weight(self, q, mass, g, jacobians=True):
        Q = np.zeros((len(q), self.nv))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        return np.zeros((len(q), self.nv)), (np.zeros((len(q), self.nv, self.nv)) if jacobians else None)


register_kind("toy", ToyKind)


class ToyInertia(InertiaGroup):
    def __init__(self, bodies, dofs, cfgs, diag):
        self.bodies, self.dof_index, self.config_index, self.diag = bodies, dofs, cfgs, diag
        self.element_names = [b.name for b in bodies]

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F = self.diag * ab
        if not jacobians:
            return F, None, None, None
        M = np.einsum("ni,ij->nij", self.diag, np.eye(self.diag.shape[1]))
        return F, np.zeros_like(M), np.zeros_like(M), M

    def mass_matrix(self, qb):
        return np.einsum("ni,ij->nij", self.diag, np.eye(self.diag.shape[1]))

    def element_kinetic_energy(self, qb, vb):
        return 0.5 * np.einsum("ni,ni->n", self.diag, vb * vb)


class ToyStiffness(ForceGroup):
    def __init__(self, bodies, dofs, cfgs, k):
        self.dof_index, self.config_index, self.k = dofs, cfgs, k
        self.element_names = [b.name for b in bodies]

    def evaluate(self, qe, ve, t, jacobians=True):
        q = qe[self.config_index]
        Q = np.zeros(q.shape)
        Q[:, 3:] = -self.k[:, None] * q[:, 3:]
        if not jacobians:
            return Q, None, None
        K = np.zeros(q.shape + (q.shape[1],))
        idx = np.arange(3, q.shape[1])
        K[:, idx, idx] = -self.k[:, None]
        return Q, K, None

    def potential_energy(self, qe, t):
        q = qe[self.config_index]
        return float(np.sum(0.5 * self.k[:, None] * q[:, 3:] ** 2))


class ToyBody(SpecBase):
    type: Literal["toy"]
    name: Optional[Name] = None
    mass: float = Field(gt=0)
    modal_mass: list[float]
    modal_stiffness: float = Field(ge=0)
    position: Vec3 = Field([0.0, 0.0, 0.0])
    velocity: Vec3 = Field([0.0, 0.0, 0.0])


def build(elements, system):
    groups = []
    for kind in system.kinds:
        mine = [e for e in elements if e.nodes[0].kind == kind]
        if not mine:
            continue
        bodies = [e.nodes[0] for e in mine]
        dofs, cfgs = system.dof_rows(bodies, kind), system.config_rows(bodies, kind)
        diag = np.array([[e.data["mass"]] * 3 + list(e.data["modal_mass"]) for e in mine])
        groups += [ToyInertia(bodies, dofs, cfgs, diag),
                   ToyStiffness(bodies, dofs, cfgs, np.array([e.data["k"] for e in mine]))]
    return groups


@pytest.fixture(scope="module", autouse=True)
def toy_body_type():
    @register
    class ToyBodyType(ElementType):
        name = "toy"
        section = "bodies"
        Spec = ToyBody
        builder = staticmethod(build)

        def create(self, model, spec):
            name = model.new_name(spec.name, "body")
            kind = ToyKind(len(spec.modal_mass))
            node = Body(name, kind, spec.mass, np.zeros((3, 3)), np.array(spec.position), np.zeros(1),
                        np.array(spec.velocity), np.zeros(3))
            model.add_node(node)
            return Element(self.name, name, (node,), dict(mass=spec.mass, modal_mass=spec.modal_mass,
                                                        k=spec.modal_stiffness), spec, nodes=(node,))

        def added(self, model, element):
            return element.nodes[0]

    yield
    del REGISTRY["toy"]


def test_a_parameterised_kind_is_an_instance_with_its_own_size():
    a, b = ToyKind(2), ToyKind(5)
    assert (a.nq, a.nv, b.nq) == (5, 5, 8) and a != b and a == ToyKind(2) and hash(a) == hash(ToyKind(2))
    assert fm.nodes.kind_from_key("toy:5") == b


def test_spring_between_nodes_of_a_new_kind_and_its_extra_coordinates(tmp_path):
    """Two particles of 1 kg on a spring k = 100 (rest length 1) moving apart at ±v:
    the stretch oscillates at ω = √(2k/m), s = v/ω sin ωt, within the trapezoidal rule's
    phase error; the extra coordinates, not excited, stay at rest."""
    m = fm.Model()
    a = m.toy(mass=1.0, modal_mass=[2.0, 1.0], modal_stiffness=50.0, position=(0, 0, 0), velocity=(-0.1, 0, 0),
              name="a")
    b = m.toy(mass=1.0, modal_mass=[2.0, 1.0], modal_stiffness=50.0, position=(1, 0, 0), velocity=(0.1, 0, 0),
              name="b")
    m.spring_damper(a, b, k=100.0, name="s")
    sys = m.freeze()
    assert sys.n == 10 and a.kind == ToyKind(2) and "generic" in sys.assembly
    q0 = sys.q0.copy()
    res = m.simulate(t_end=1.0, h=1e-3)
    assert res.success
    w = np.sqrt(2 * 100.0 / 1.0)
    stretch = res["s.length"] - 1.0
    np.testing.assert_allclose(stretch, 0.2 / w * np.sin(w * res.t), atol=2e-5)
    assert np.allclose(q0, sys.q0) and np.all(res.q[:, 3:5] == 0.0) and np.all(res.q[:, 8:10] == 0.0)
    # results files store the kind's key and rebuild positions from it without the model
    from flexmbd.io.results_h5 import load_result

    path = tmp_path / "toy.h5"
    res.save(path)
    back = load_result(path)
    assert back.layout["body_kinds"] == ["toy:2", "toy:2"]
    np.testing.assert_allclose(back["b.position"], res["b.position"], rtol=0, atol=0)
