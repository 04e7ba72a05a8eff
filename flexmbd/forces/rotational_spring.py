"""Rotational spring-damper-actuator about a revolute axis, with exact Jacobians.

Between bodies i and j joined (by the user) with a revolute joint of axis a, take the
body-fixed unit vectors f_i, g_i on i and f_j on j such that (f, g, a) is a right-handed
triad in the initial configuration, rotated by the rest angle θ0 on body i.  Then

    x = f_i·f_j,   y = g_i·f_j,   δ = atan2(y, x) = θ − θ0,

θ being the angle of j relative to i about a measured from the initial configuration
(positive from f towards g, the convention of the rotational driver).  δ is exact for
any relative rotation about the axis; its first and second derivatives are analytic
(:func:`flexmbd.forces.pair_kinematics.relative_angle`).  The torque on j about +a (and
its reaction on i) is

    T = −k δ − c δ' + τ_a(t),     δ' = ∂δ/∂q · q',

so the generalised force is Q = T ∂δ/∂qᵀ (virtual work T δθ) and, exactly,

    ∂Q/∂q  = ∂δᵀ ⊗ (−k ∂δ − c ∂²δ q') + T ∂²δ,     ∂Q/∂q' = −c ∂δᵀ ∂δ.

Range: atan2 returns δ in (−π, π], so the element is a linear spring only for
|θ − θ0| < π; a relative rotation through θ0 ± π makes the torque jump from −kπ to +kπ
(the element has no memory of the number of turns).  If the two bodies are not held
coaxial (no revolute joint), δ is the angle of the projection of f_j on the plane of
f_i, g_i and is undefined when f_j is parallel to a_i (r = 0, an error is raised).

Its Jacobian parts are P1's spring-damper-actuator parts ("sda_stiffness" = M2,
"sda_damping" = M3), so ``jacobian='M1'`` leaves them out as it does for the SDA.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import ConfigDict, Field

from ..constraints.joints import Frame
from ..errors import ModelError
from ..ground import GROUND
from ..nodes import PLANAR, VECTOR
from ..registry import ElementType, pair_kind, register
from ..spec import Axis, PairSpec, TimeFunctionSpec, time_function, unit
from ..rotations import perpendicular_pair
from ..timefunctions import Constant, Polynomial
from ..groups import CompiledSlot, ForceGroup, float_array, int_array, kernel_suffix
from .loads import _config
from .pair_kinematics import relative_angle


class RotationalSpringDamperGroup(ForceGroup):
    """All rotational spring-damper-actuators between bodies of one kind."""

    output_names = ("angle", "angle_rate", "torque")

    stiffness_term = "sda_stiffness"
    damping_term = "sda_damping"

    def __init__(self, kind, names, dof_index, f_i, g_i, f_j, k, c, angle0, actuators, config_index=None):
        n = len(names)
        self.kind = kind
        self.nq = kind.nq
        self.nv = kind.nv
        self.element_names = list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, 2 * kind.nv)
        self.config_index = _config(self.dof_index, config_index, kind)
        vec = np.full(n, VECTOR)
        self.mf_i = kind.markers(f_i, vec)
        self.mg_i = kind.markers(g_i, vec)
        self.mf_j = kind.markers(f_j, vec)
        self.k = np.asarray(k, dtype=float).reshape(n)
        self.c = np.asarray(c, dtype=float).reshape(n)
        self.angle0 = np.asarray(angle0, dtype=float).reshape(n)
        self.actuators = list(actuators)
        self.constant_actuators = all(isinstance(a, Constant) for a in self.actuators)
        self._ta0 = np.array([a.derivatives(0.0)[0] for a in self.actuators], dtype=float)

    def compiled_slot(self):
        def ta(t):
            return self._ta0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        return CompiledSlot(f"rotational_springs_{kernel_suffix(self.kind)}",
                            (int_array(self.config_index), int_array(self.dof_index), float_array(self.mf_i.u),
                             float_array(self.mg_i.u), float_array(self.mf_j.u), float_array(self.k),
                             float_array(self.c)), ta, self.constant_actuators)

    @classmethod
    def from_specs(cls, kind, specs, frames, dof_index, config_index=None):
        """Build the group from model element specs and their initial joint frames.

        ``frames[e] = (Frame_i, Frame_j)`` (see :mod:`flexmbd.constraints.joints`).
        """
        f_i, g_i, f_j = [], [], []
        for spec, (fr_i, fr_j) in zip(specs, frames):
            f, g = perpendicular_pair(spec.data["axis"])
            c0, s0 = np.cos(spec.data["angle0"]), np.sin(spec.data["angle0"])
            f0, g0 = c0 * f + s0 * g, -s0 * f + c0 * g  # reference of i turned by θ0
            f_i.append(fr_i.A.T @ f0)
            g_i.append(fr_i.A.T @ g0)
            f_j.append(fr_j.A.T @ f)
        d = [s.data for s in specs]
        return cls(kind, [s.name for s in specs], dof_index, f_i, g_i, f_j, [x["k"] for x in d],
                   [x["c"] for x in d], [x["angle0"] for x in d], [x["actuator"] for x in d], config_index)

    # ------------------------------------------------------------ kinematics
    def _angle(self, qe, ve, hessian):
        nq = self.nq
        ql, vl = qe[self.config_index], ve[self.dof_index]
        kin = relative_angle(self.mf_i, self.mg_i, self.mf_j, ql[:, :nq], ql[:, nq:], vl, hessian,
                             self.element_names, "rotational spring-damper")
        return dict(delta=kin["value"], Jd=kin["J"], rate=kin["rate"], vl=vl, **({"H": kin["H"]} if hessian else {}))

    def _torque(self, t, delta, rate):
        ta = self._ta0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        return -self.k * delta - self.c * rate + ta

    # -------------------------------------------------------------- forces
    def evaluate(self, qe, ve, t, jacobians=True):
        kin = self._angle(qe, ve, jacobians)
        Jd = kin["Jd"]
        T = self._torque(t, kin["delta"], kin["rate"])
        Q = T[:, None] * Jd
        if not jacobians:
            return Q, None, None
        H = kin["H"]
        # ∂δ'/∂q = Hᵀ q' (H = ∂(∂δ/∂q)/∂q is not symmetric along Lie-group increments)
        dT = -self.k[:, None] * Jd - self.c[:, None] * np.einsum("nij,ni->nj", H, kin["vl"])
        K = Jd[:, :, None] * dT[:, None, :] + T[:, None, None] * H
        D = -self.c[:, None, None] * Jd[:, :, None] * Jd[:, None, :]
        return Q, K, D

    # ------------------------------------------------------------ outputs
    def outputs(self, qe, ve, t, lam=None):
        """angle θ (from the initial configuration), its rate and the torque on j about +a."""
        kin = self._angle(qe, ve, False)
        T = self._torque(t, kin["delta"], kin["rate"])
        return {"angle": kin["delta"] + self.angle0, "angle_rate": kin["rate"], "torque": T}

    def potential_energy(self, qe, t):
        """½ k (θ − θ0)²."""
        kin = self._angle(qe, np.zeros_like(qe), False)
        return float(np.sum(0.5 * self.k * kin["delta"] ** 2))

    def external_power(self, qe, ve, t, lam):
        """The actuators' power τ_a δ'."""
        if self.constant_actuators and not np.any(self._ta0):
            return 0.0
        kin = self._angle(qe, ve, False)
        ta = self._ta0 if self.constant_actuators else np.array([a.derivatives(t)[0] for a in self.actuators])
        return float(np.sum(ta * kin["rate"]))

    def dissipation_power(self, qe, ve, t, lam=None):
        kin = self._angle(qe, ve, False)
        return float(np.sum(self.c * kin["rate"] ** 2))


# ---------------------------------------------------------------------- element type


class RotationalSpringDamper(PairSpec):
    """Torsional spring-damper-actuator about a revolute axis: T = −k (θ − θ0) − c θ' + actuator(t)
    on body j (reaction on body i)."""

    model_config = ConfigDict(title="Force: rotational_spring_damper")

    type: Literal["rotational_spring_damper"]
    axis: Axis = Field([0.0, 0.0, 1.0], description="axis, global (z for planar bodies)")
    k: float = Field(0.0, ge=0, description="torsional stiffness [N m/rad]")
    c: float = Field(0.0, ge=0, description="torsional damping [N m s/rad]")
    angle0: float = Field(0.0, description="unloaded angle θ0 relative to the initial configuration [rad]")
    actuator: TimeFunctionSpec = Field(0.0, description="actuator torque τ_a(t) [N m]")


def build_rotational_spring_dampers(elements, system):
    """One RotationalSpringDamperGroup per node kind."""
    kinds = {id(e): pair_kind(e) for e in elements}
    groups = []
    for kind in system.kinds:
        rsds = [e for e in elements if kinds[id(e)] == kind]
        if rsds:
            frames = [tuple(Frame(side, system.body_position(b), system.rotation(b)) for side, b in enumerate(e.bodies))
                      for e in rsds]
            groups.append(RotationalSpringDamperGroup.from_specs(kind, rsds, frames, system.pair_dofs(rsds, kind),
                                                                 system.pair_config(rsds, kind)))
    return groups


@register
class RotationalSpringDamperType(ElementType):
    """A torsional spring-damper-actuator about a revolute axis between bodies i and j."""

    name = "rotational_spring_damper"
    section = "forces"
    Spec = RotationalSpringDamper
    body_fields = ("body_i", "body_j")
    builder = staticmethod(build_rotational_spring_dampers)

    def prepare(self, model, spec, bodies, name):
        a = unit(spec.axis)
        if any(b is not GROUND and b.kind == PLANAR for b in bodies) and abs(abs(a[2]) - 1) > 1e-12:
            raise ModelError(f"rotational_spring_damper {name!r}: planar bodies rotate about z; axis must be "
                             "(0, 0, ±1)", element=name, key="axis")
        return dict(axis=a, k=float(spec.k), c=float(spec.c), angle0=float(spec.angle0),
                    actuator=time_function(spec.actuator))

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        model.rotational_spring_damper(a, b, axis=(0, 0, 1) if planar else (0, 1, 1), k=30.0, c=2.0, angle0=0.2,
                                       actuator=Polynomial((0.3, 0.5)))
        model.rotational_spring_damper(GROUND, a, axis=(0, 0, -1) if planar else (1, 0, 0.5), k=10.0, c=1.0)
