"""Gears, belts and rack-and-pinion: a ratio between the free motions of two joints.

A gear couples the motion m_a that joint a leaves free to the motion m_b of joint b
(:mod:`flexmbd.forces.joint_motion`: the relative angle θ of a revolute joint, the sliding
coordinate s of a prismatic or point-on-line joint, both zero in the initial
configuration) by one equation,

    φ = m_a − r m_b = 0,      Φ_q = J_a − r J_b,      λ ∂²φ/∂q² = λ (H_a − r H_b),

    γ = −(q'ᵀ H_a q' − r q'ᵀ H_b q')      (no explicit time dependence),

with J = ∂m/∂q and H = ∂J/∂Δ of each joint, exact for every node kind.  The element acts
on the (up to four) bodies of the two joints; its columns are the increments of joint a's
bodies i and j followed by those of joint b's (ground's fixed columns where a joint is
attached to ground), all of one node kind.

Sign convention: the ratio is r = m_a / m_b.  Two external spur gears on parallel axes
pointing the same way turn in opposite senses: wheel a of pitch radius R_a driven by
wheel b of pitch radius R_b has R_a θ_a = −R_b θ_b, so r = −R_b / R_a.  A belt or chain
(and an internal gear, ring and pinion) keeps the sense: r = +R_b / R_a.  A rack on a
prismatic joint a and a pinion of pitch radius R on a revolute joint b: s = ±R θ, r = ±R
[m/rad], the sign set by the rack's and the pinion's axes.

Multiplier and outputs: the constraint force −Φ_qᵀ λ is the generalised force −λ on m_a
and +r λ on m_b; ``NAME.load_a`` = −λ and ``NAME.load_b`` = r λ (torque [N m] about a
revolute joint's axis, force [N] along a prismatic joint's axis, on the joint's body j),
whose power load_a m_a' + load_b m_b' = −λ φ' vanishes.  ``NAME.motion_a``,
``NAME.motion_b`` and ``NAME.ratio_error`` (= m_a − r m_b) are computed from the stored
states, angles unwrapped along the run.

Turns: a revolute joint's angle comes from atan2 in (−π, π]; the group counts turns by
unwrapping each evaluation against the previous one (``restart`` sets them back to the
initial configuration when a run starts), so between two evaluations a joint may turn by
less than π — true of any time step that resolves the motion.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field

from ..errors import ModelError
from ..ground import GROUND
from ..groups import ConstraintGroup
from ..nodes import PLANAR
from ..registry import ElementType, register
from ..spec import Name, SpecBase
from ..forces.joint_motion import FAMILIES, JointMotion, joint_ref


def _unwrap(value, ref):
    """value + 2πk nearest to ref."""
    return ref + (value - ref + np.pi) % (2.0 * np.pi) - np.pi


class GearGroup(ConstraintGroup):
    """The gears between the joints of one pair of motion families on nodes of one kind:
    one equation per gear (module docstring)."""

    def __init__(self, kind, elements, joints_a, joints_b, system):
        n = len(elements)
        self.kind = kind
        self._source = (elements, joints_a, joints_b, system)
        self.owner = [e.name for e in elements]
        self.label = ["gear ratio"] * n
        self.ratio = np.array([e.data["ratio"] for e in elements], dtype=float)
        self.dof_index = np.hstack([system.pair_dofs(joints_a, kind), system.pair_dofs(joints_b, kind)]).astype(int)
        self.config_index = np.hstack([system.pair_config(joints_a, kind),
                                       system.pair_config(joints_b, kind)]).astype(int)
        self.motion_a = JointMotion(kind, joints_a, system, self.owner, "gear")
        self.motion_b = JointMotion(kind, joints_b, system, self.owner, "gear")
        self.restart()

    def __len__(self):
        return len(self.owner)

    def restart(self):
        """Turn counting from the initial configuration (both motions zero)."""
        self._ref = np.zeros((2, len(self)))

    def measures(self, qe, ve=None, hessian=False, ref=None):
        """The two joints' measures (dicts of value, J, rate[, H]), angles unwrapped against
        ``ref`` (2, n) (default: the group's previous evaluation, which this one replaces)."""
        nq, nv = self.kind.nq, self.kind.nv
        ql = qe[self.config_index]
        vl = np.zeros(self.dof_index.shape) if ve is None else ve[self.dof_index]
        ka = self.motion_a(ql[:, :nq], ql[:, nq:2 * nq], vl[:, :2 * nv], hessian)
        kb = self.motion_b(ql[:, 2 * nq:3 * nq], ql[:, 3 * nq:], vl[:, 2 * nv:], hessian)
        remember = ref is None
        ref = (self._ref if remember else ref).copy()
        for k, (kin, motion) in enumerate(((ka, self.motion_a), (kb, self.motion_b))):
            if motion.family == "turn":
                kin["value"] = _unwrap(kin["value"], ref[k])
                ref[k] = kin["value"]
        if remember:
            self._ref = ref
        return ka, kb, vl, ref

    def assemble(self, qe, t, lam, hessian=True):
        ka, kb, _, _ = self.measures(qe, None, hessian)
        r = self.ratio
        phi = ka["value"] - r * kb["value"]
        Jq = np.concatenate([ka["J"], -r[:, None] * kb["J"]], axis=1)
        if not hessian:
            return phi, Jq, None
        lam = np.zeros(len(self)) if lam is None else np.asarray(lam, dtype=float)
        w = ka["J"].shape[1]
        H = np.zeros((len(self), 2 * w, 2 * w))
        H[:, :w, :w] = lam[:, None, None] * ka["H"]
        H[:, w:, w:] = -(lam * r)[:, None, None] * kb["H"]
        return phi, Jq, H

    def hessian(self, qe, t, lam):
        """λ_e ∂²φ_e/∂q² (n, w, w)."""
        return self.assemble(qe, t, lam, hessian=True)[2]

    def gamma(self, qe, ve, t):
        ka, kb, vl, _ = self.measures(qe, ve, True)
        w = ka["J"].shape[1]
        va, vb = vl[:, :w], vl[:, w:]
        quad_a = np.einsum("ni,nij,nj->n", va, ka["H"], va)
        quad_b = np.einsum("ni,nij,nj->n", vb, kb["H"], vb)
        return -(quad_a - self.ratio * quad_b)

    def subset(self, keep):
        keep = np.flatnonzero(keep)
        elements, ja, jb, system = self._source
        g = GearGroup(self.kind, [elements[i] for i in keep], [ja[i] for i in keep], [jb[i] for i in keep], system)
        g._ref = self._ref[:, keep]
        return g


def build_gears(elements, system):
    """One group per node kind and pair of motion families (turn/slide of joint a and b)."""
    model = system.model
    out = []
    for kind in system.kinds:
        mine = [e for e in elements if e.data["kind"] == kind]
        by_family = {}
        for e in mine:
            ja, jb = model.element(e.data["joint_a"]), model.element(e.data["joint_b"])
            by_family.setdefault((FAMILIES[ja.kind], FAMILIES[jb.kind]), []).append((e, ja, jb))
        for items in by_family.values():
            out.append(GearGroup(kind, [x[0] for x in items], [x[1] for x in items], [x[2] for x in items], system))
    return out


class Gear(SpecBase):
    """A gear pair, belt or rack-and-pinion: m_a − ratio · m_b = 0 between the free motions
    of two joints (relative angle of a revolute joint, sliding coordinate of a prismatic or
    point_on_line joint, zero in the initial configuration)."""

    model_config = ConfigDict(title="Joint: gear")

    type: Literal["gear"]
    name: Optional[Name] = Field(None, description="unique name (default: gear and a number)")
    joint_a: Annotated[str, BeforeValidator(joint_ref)] = Field(
        description="the revolute, prismatic or point_on_line joint whose motion m_a is driven")
    joint_b: Annotated[str, BeforeValidator(joint_ref)] = Field(
        description="the revolute, prismatic or point_on_line joint whose motion m_b drives")
    ratio: float = Field(description="m_a / m_b: external gears −R_b/R_a, belts and internal gears +R_b/R_a, "
                                     "rack (a) and pinion (b) ±R [m/rad]; not zero")


@register
class GearType(ElementType):
    """A ratio between the free motions of two joints (module docstring)."""

    name = "gear"
    section = "joints"
    Spec = Gear
    builder = staticmethod(build_gears)
    output_names = ("load_a", "load_b", "motion_a", "motion_b", "ratio_error")

    def create(self, model, spec):
        element = super().create(model, spec)
        element.bodies = element.data.pop("bodies")
        return element

    def prepare(self, model, spec, bodies, name):
        joints = []
        for key in ("joint_a", "joint_b"):
            ref = getattr(spec, key)
            try:
                j = model.element(ref)
            except KeyError:
                raise ModelError(f"gear {name!r}: no joint named {ref!r}", element=name, key=key) from None
            if j.kind not in FAMILIES:
                raise ModelError(f"gear {name!r}: joint {ref!r} is a {j.kind}; gears couple revolute, prismatic "
                                 "and point_on_line joints", element=name, key=key)
            joints.append(j)
        ja, jb = joints
        if ja is jb:
            raise ModelError(f"gear {name!r}: joint_a and joint_b are the same joint {ja.name!r}", element=name,
                             key="joint_b")
        if spec.ratio == 0 or not np.isfinite(spec.ratio):
            raise ModelError(f"gear {name!r}: ratio must be finite and not zero (got {spec.ratio})", element=name,
                             key="ratio")
        bodies = tuple(ja.bodies) + tuple(jb.bodies)
        kinds = list(dict.fromkeys(b.kind for b in bodies if b is not GROUND))
        if len(kinds) != 1:
            raise ModelError(f"gear {name!r}: the bodies of {ja.name!r} and {jb.name!r} are of different kinds "
                             f"({', '.join(k.name for k in kinds)}); a gear couples joints between bodies of one "
                             "kind", element=name, key="joint_b")
        return dict(joint_a=ja.name, joint_b=jb.name, ratio=float(spec.ratio), kind=kinds[0], bodies=bodies)

    def outputs(self, element, system):
        return self.output_names if element.name in system.owner_equations else self.output_names[2:]

    def output(self, element, what, result):
        r = element.data["ratio"]
        if what in ("load_a", "load_b"):
            lam = result.multipliers(element.name)[:, 0]
            return -lam if what == "load_a" else r * lam
        key = ("gear motions", element.name)
        if key not in result._cache:
            result._cache[key] = self._motions(element, result)
        ma, mb = result._cache[key]
        return {"motion_a": ma, "motion_b": mb, "ratio_error": ma - r * mb}[what]

    @staticmethod
    def _motions(element, result):
        """m_a and m_b at every stored step, angles unwrapped along the run."""
        sys = result.system
        group = next(g for g in sys.constraint_groups if isinstance(g, GearGroup) and element.name in g.owner)
        e = group.owner.index(element.name)
        rows, ref = [], np.zeros((2, len(group)))
        for q in result.q:                       # step by step from the initial configuration
            ka, kb, _, ref = group.measures(sys.extend(q), ref=ref)
            rows.append((ka["value"][e], kb["value"][e]))
        m = np.array(rows).reshape(-1, 2)
        return m[:, 0], m[:, 1]

    def sample(self, model, a, b):
        planar = a.kind == PLANAR
        p = (lambda x, y, z: (x, y)) if planar else (lambda x, y, z: (x, y, z))
        z = (0, 0, 1)
        ra = model.revolute(GROUND, a, at=p(0.1, 0.3, 0.2), axis=z if planar else (0, 1, 1), name="gear_pin_a")
        rb = model.revolute(a, b, at=p(0.6, -0.1, 0.3), axis=z if planar else (1, 0, 1), name="gear_pin_b")
        model.gear(joint_a=ra, joint_b=rb, ratio=-0.4, name="gear_ab")
        s = model.prismatic(GROUND, b, at=p(0.9, 0.2, 0.1), axis=(1, 0.5, 0) if planar else (1, 1, 0),
                            name="gear_rack")
        model.gear(joint_a=s, joint_b=ra, ratio=0.25, name="gear_rack_pinion")
