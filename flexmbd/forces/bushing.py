"""The bushing: a six-component spring-damper between frames of two bodies.

A bushing frame is placed at the point ``at`` with axes (columns of ``axes``, global,
initial configuration; default the global axes) and attached to both bodies: point p_i and
axes e_i1..3 on body i, point p_j and axes e_j1..3 on body j, coincident at the start.
Its six deformation measures are dot products of these markers,

    d_k = e_ik · (p_j − p_i)                       (k = 1, 2, 3: deflection along axis k of i)
    θ_1 = ½ (e_i3·e_j2 − e_i2·e_j3),  θ_2 = ½ (e_i1·e_j3 − e_i3·e_j1),  θ_3 = ½ (e_i2·e_j1 − e_i1·e_j2)

— the θ are the skew part of the relative rotation R = A_iᵀ A_j in axes of i, sin φ · n for
a rotation φ about n: equal to the rotation vector to second order, so the bushing is
linear for small rotations and stays smooth (and exactly differentiable) for large ones.
With s = (d, θ), stiffness k, cubic stiffness k₃ and damping c per component,

    f_m = k_m s_m + k₃ₘ s_m³ + c_m ṡ_m,     V = Σ ½ k_m s_m² + ¼ k₃ₘ s_m⁴,     P_d = Σ c_m ṡ_m²,
    Q = −Σ_m f_m ∂s_m/∂q,
    ∂Q/∂q  = −Σ_m [ ∂s_mᵀ ⊗ ((k_m + 3 k₃ₘ s_m²) ∂s_m + c_m H_mᵀ q') + f_m H_m ],
    ∂Q/∂q' = −Σ_m c_m ∂s_mᵀ ∂s_m,

H_m = ∂(∂s_m/∂q)/∂q from the markers (:meth:`flexmbd.nodes.MarkerSet.contract`; for a
term X·Y: J_Xᵀ J_Y + J_Yᵀ J_X + Σ Y_i ∂²X_i + Σ X_i ∂²Y_i), exactly as the joints' dot
products (:mod:`flexmbd.constraints.dot`), so it serves every node kind.  Like ADAMS's
BUSHING, the translational deflection is measured in axes of body i and the force acts
at the bushing point; the outputs are its deflection, rotation, force f_{1..3} and moment
f_{4..6} in those axes (positive: the bushing pulls body j back along −axis).

Its stiffness and damping belong to P1's spring-damper-actuator Jacobian parts
("sda_stiffness", "sda_damping").  The bushing has no compiled kernel: a model with one
is assembled in NumPy (``Result.stats["assembly"]`` says so).
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import ConfigDict, Field, field_validator

from ..errors import ModelError
from ..ground import GROUND
from ..groups import ForceGroup
from ..nodes import POINT, VECTOR
from ..registry import ElementType, pair_kind, register
from ..spec import Mat3, PairSpec, Point, count, point3

#: the terms (weight, X markers, Y markers) of the six measures; a marker is (side, index,
#: sign) with index 0 the point and 1..3 the axes of that side's bushing frame
_TERMS = (
    [(1.0, [(0, 1, 1.0)], [(1, 0, 1.0), (0, 0, -1.0)])],
    [(1.0, [(0, 2, 1.0)], [(1, 0, 1.0), (0, 0, -1.0)])],
    [(1.0, [(0, 3, 1.0)], [(1, 0, 1.0), (0, 0, -1.0)])],
    [(0.5, [(0, 3, 1.0)], [(1, 2, 1.0)]), (-0.5, [(0, 2, 1.0)], [(1, 3, 1.0)])],
    [(0.5, [(0, 1, 1.0)], [(1, 3, 1.0)]), (-0.5, [(0, 3, 1.0)], [(1, 1, 1.0)])],
    [(0.5, [(0, 2, 1.0)], [(1, 1, 1.0)]), (-0.5, [(0, 1, 1.0)], [(1, 2, 1.0)])],
)
_TYPES = np.array([POINT, VECTOR, VECTOR, VECTOR])


class BushingGroup(ForceGroup):
    """All bushings between bodies of one kind."""

    stiffness_term = "sda_stiffness"
    damping_term = "sda_damping"
    output_names = ("deflection", "rotation", "force", "moment")

    def __init__(self, kind, names, dof_index, config_index, u_i, u_j, k, k3, c):
        n = len(names)
        self.kind, self.element_names = kind, list(names)
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(n, 2 * kind.nv)
        self.config_index = np.asarray(config_index, dtype=int).reshape(n, 2 * kind.nq)
        # every marker once per measure, so one contraction per side serves all measures
        self.sides = [kind.markers(np.tile(np.asarray(u, float).reshape(n, 1, 4, 3), (1, 6, 1, 1)).reshape(-1, 3),
                                   np.tile(_TYPES, n * 6)) for u in (u_i, u_j)]
        self.k, self.k3, self.c = (np.asarray(x, dtype=float).reshape(n, 6) for x in (k, k3, c))

    def _measures(self, qe, ve, hessian):
        """s, ṡ (n, 6), ∂s/∂q (n, 6, 2nv) and, if asked, H (n, 6, 2nv, 2nv)."""
        n, nq, nv = len(self), self.kind.nq, self.kind.nv
        ql, vl = qe[self.config_index], ve[self.dof_index]
        q = [np.repeat(ql[:, :nq], 24, axis=0), np.repeat(ql[:, nq:], 24, axis=0)]
        x, J = [], []
        for side, markers in enumerate(self.sides):
            xs, Js = markers.evaluate(q[side])
            x.append(xs.reshape(n, 6, 4, 3)[:, 0])
            Jf = np.zeros((n, 4, 3, 2 * nv))               # in the pair's columns
            Jf[..., side * nv:(side + 1) * nv] = Js.reshape(n, 6, 4, 3, nv)[:, 0]
            J.append(Jf)

        def value(markers):
            return (sum(sg * x[side][:, i] for side, i, sg in markers),
                    sum(sg * J[side][:, i] for side, i, sg in markers))

        s, grad = np.zeros((n, 6)), np.zeros((n, 6, 2 * nv))
        H = np.zeros((n, 6, 2 * nv, 2 * nv)) if hessian else None
        g = [np.zeros((n, 6, 4, 3)), np.zeros((n, 6, 4, 3))]     # weights of the marker contractions
        for m, terms in enumerate(_TERMS):
            for w, xm, ym in terms:
                X, JX = value(xm)
                Y, JY = value(ym)
                s[:, m] += w * np.einsum("ni,ni->n", X, Y)
                grad[:, m] += w * (np.einsum("ni,nia->na", Y, JX) + np.einsum("ni,nia->na", X, JY))
                if hessian:
                    P = np.einsum("nia,nib->nab", JX, JY)
                    H[:, m] += w * (P + P.transpose(0, 2, 1))
                    for markers, other in ((xm, Y), (ym, X)):
                        for side, i, sg in markers:
                            g[side][:, m, i] += w * sg * other
        if hessian:
            for side, markers in enumerate(self.sides):
                C = markers.contract(q[side], g[side].reshape(-1, 3)).reshape(n, 6, 4, nv, nv).sum(axis=2)
                H[:, :, side * nv:(side + 1) * nv, side * nv:(side + 1) * nv] += C
        return s, np.einsum("nma,na->nm", grad, vl), grad, H, vl

    def _forces(self, s, rate):
        return self.k * s + self.k3 * s**3 + self.c * rate

    def evaluate(self, qe, ve, t, jacobians=True):
        s, rate, grad, H, vl = self._measures(qe, ve, jacobians)
        f = self._forces(s, rate)
        Q = -np.einsum("nm,nma->na", f, grad)
        if not jacobians:
            return Q, None, None
        slope = self.k + 3.0 * self.k3 * s**2
        df = slope[:, :, None] * grad + self.c[:, :, None] * np.einsum("nmab,na->nmb", H, vl)
        K = -(np.einsum("nma,nmb->nab", grad, df) + np.einsum("nm,nmab->nab", f, H))
        D = -np.einsum("nm,nma,nmb->nab", self.c, grad, grad)
        return Q, K, D

    def outputs(self, qe, ve, t, lam=None):
        s, rate, _, _, _ = self._measures(qe, ve, False)
        f = self._forces(s, rate)
        return {"deflection": s[:, :3], "rotation": s[:, 3:], "force": f[:, :3], "moment": f[:, 3:]}

    def potential_energy(self, qe, t):
        s = self._measures(qe, np.zeros_like(qe), False)[0]
        return float(np.sum(0.5 * self.k * s**2 + 0.25 * self.k3 * s**4))

    def dissipation_power(self, qe, ve, t, lam=None):
        rate = self._measures(qe, ve, False)[1]
        return float(np.sum(self.c * rate**2))


NonNegative3 = Annotated[list[Annotated[float, Field(ge=0)]], Field(min_length=3, max_length=3), count(3, 3)]


class Bushing(PairSpec):
    """Six-component spring-damper between frames of two bodies: deflections along and
    rotations about the bushing axes, each with stiffness, cubic stiffness and damping."""

    model_config = ConfigDict(title="Force: bushing")

    type: Literal["bushing"]
    at: Point = Field(description="the bushing point, global, initial configuration [m]")
    axes: Optional[Mat3] = Field(None, description="rotation matrix whose columns are the bushing axes, global, "
                                                   "initial configuration (default: the global axes)")
    stiffness: NonNegative3 = Field([0.0, 0.0, 0.0], description="translational stiffness along the axes [N/m]")
    damping: NonNegative3 = Field([0.0, 0.0, 0.0], description="translational damping [N s/m]")
    rotational_stiffness: NonNegative3 = Field([0.0, 0.0, 0.0], description="rotational stiffness about the axes "
                                                                             "[N m/rad]")
    rotational_damping: NonNegative3 = Field([0.0, 0.0, 0.0], description="rotational damping [N m s/rad]")
    cubic_stiffness: NonNegative3 = Field([0.0, 0.0, 0.0], description="cubic translational stiffness k₃ "
                                                                        "(force k d + k₃ d³) [N/m³]")
    rotational_cubic_stiffness: NonNegative3 = Field([0.0, 0.0, 0.0], description="cubic rotational stiffness "
                                                                                  "[N m/rad³]")

    @field_validator("axes")
    @classmethod
    def _axes(cls, v):
        if v is not None:
            R = np.array(v, dtype=float)
            if not np.allclose(R @ R.T, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
                raise ValueError("not a proper rotation matrix (orthonormal columns, det = +1)")
        return v


def build_bushings(elements, system):
    """One BushingGroup per node kind."""
    kinds = {id(e): pair_kind(e) for e in elements}
    groups = []
    for kind in system.kinds:
        mine = [e for e in elements if kinds[id(e)] == kind]
        if not mine:
            continue
        u = []
        for side in range(2):
            bodies = [e.bodies[side] for e in mine]
            points = system.local_points(bodies, [e.data["at"] for e in mine])
            axes = [system.rotation(b).T @ e.data["axes"] for b, e in zip(bodies, mine)]   # columns: local axes
            u.append(np.concatenate([points[:, None, :], np.swapaxes(np.array(axes), 1, 2)], axis=1))
        groups.append(BushingGroup(kind, [e.name for e in mine], system.pair_dofs(mine, kind),
                                   system.pair_config(mine, kind), u[0], u[1],
                                   [e.data["k"] for e in mine], [e.data["k3"] for e in mine],
                                   [e.data["c"] for e in mine]))
    return groups


@register
class BushingType(ElementType):
    """The bushing (``Model.bushing(body_i, body_j, at=..., stiffness=..., ...)``)."""

    name = "bushing"
    section = "forces"
    Spec = Bushing
    body_fields = ("body_i", "body_j")
    builder = staticmethod(build_bushings)

    def prepare(self, model, spec, bodies, name):
        axes = np.eye(3) if spec.axes is None else np.array(spec.axes, dtype=float)
        if any(b is not GROUND and b.kind.name == "planar" for b in bodies) and not np.allclose(axes[:, 2], [0, 0, 1]):
            raise ModelError(f"bushing {name!r}: between planar bodies the third axis must be z", element=name,
                             key="axes")
        return dict(at=point3(spec.at), axes=axes,
                    k=np.r_[spec.stiffness, spec.rotational_stiffness],
                    k3=np.r_[spec.cubic_stiffness, spec.rotational_cubic_stiffness],
                    c=np.r_[spec.damping, spec.rotational_damping])

    def geometry(self, element):
        bi, bj = element.bodies
        return [("marker", element.name, bj if bj is not GROUND else bi, element.data["at"])]

    def sample(self, model, a, b):
        """A stiff, damped, non-linear bushing between a and b on tilted axes; one to ground."""
        c, s = np.cos(0.4), np.sin(0.4)
        tilt = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        at = (0.5, 0.1) if a.kind.name == "planar" else (0.5, 0.1, 0.3)
        model.bushing(a, b, at=at, axes=tilt, stiffness=(100.0, 200.0, 300.0), damping=(1.0, 2.0, 3.0),
                      rotational_stiffness=(10.0, 20.0, 30.0), rotational_damping=(0.1, 0.2, 0.3),
                      cubic_stiffness=(1e3, 0.0, 50.0), rotational_cubic_stiffness=(0.0, 40.0, 5.0))
        model.bushing(GROUND, a, at=at, stiffness=(50.0, 60.0, 70.0), rotational_stiffness=(5.0, 6.0, 7.0),
                      damping=(0.5, 0.5, 0.5), name="bushing_ground")
