"""Elements of a DT-TMM chain (P5, "elastic axle segment", "rigid parts", "spring-damper
elements").

Sign conventions.  z is the vertical deflection, θ = ∂z/∂x the rotation; at a station
(a cross-section) Q and M are the shear force and bending moment with which the part on
the right acts on the part on the left (M = EI z'', Q = −EI z''', so ∂M/∂x = −Q and
∂Q/∂x = ρA z̈ − p).  An element therefore receives the generalised end loads
g = (−Q₀, −M₀, Q_ℓ, M_ℓ) at its end coordinates (z(0), θ(0), z(ℓ), θ(ℓ)).

Every element with mass (beam segment, rigid body) is a *modal element*: generalised
coordinates q with diagonal mass m, damping c and stiffness k, end matrix U (4 × n,
z(ℓ)... rows of the end coordinates) and a generalised load p(t), so that

    m q̈ + c q̇ + k q = Uᵀ g + p.                                           (P5, modal equations)

Newmark-β (q = q* + βh² q̈, q̇ = q̇* + γh q̈) makes one time step the linear relation of
end accelerations and end loads that the Riccati sweep transfers:

    a_ends = U D⁻¹ Uᵀ g + U D⁻¹ (p − c q̇* − k q*),   D = m + γh c + βh² k.

A massless spring-damper carries the same force through (Q, M continuous) and relates
the relative end motion Δ = (z_R − z_L, θ_R − θ_L) to it: (Q, M) = k Δ + c Δ̇.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ModelError
from ..registry import ElementType
from ..registry import register as register_type
from .modes import BeamModes

class TmmElementType(ElementType):
    """A DT-TMM element type in :mod:`flexmbd.registry` (family ``tmm``, section
    ``tmm.chain.elements``): its name is the entry's ``type``, ``Spec`` validates the entry,
    :meth:`from_spec` makes the chain element, whose ``load`` says which loads it takes."""

    family: ClassVar[str] = "tmm"
    section: ClassVar[str] = "tmm.chain.elements"
    #: the element class (BeamSegment, RigidBody, SpringDamper)
    element_class: ClassVar[type]

    def from_spec(self, spec: BaseModel):
        """The chain element of a validated entry (ModelError naming the key)."""
        return self.element_class.from_spec(spec)


def register(cls):
    """Class decorator: declare the DT-TMM element class ``cls`` (``type_name``, ``Spec``,
    ``from_spec``, ``load``) as an element type of the registry's ``tmm`` family."""
    etype = type(f"{cls.__name__}Type", (TmmElementType,),
                 {"name": cls.type_name, "Spec": cls.Spec, "element_class": cls, "__module__": cls.__module__,
                  "__doc__": (cls.__doc__ or "").strip().split("\n\n")[0]})
    register_type(etype)
    return cls


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _no_load(name, what, **given):
    bad = [k for k, v in given.items() if v]
    if bad:
        raise ModelError(f"{name} is {what}: it takes no {', '.join(bad)}", element=name, key=bad[0])


def _positive(name, key, value, allow_zero=False, allow_inf=False):
    v = float(value)
    ok = np.isfinite(v) or (allow_inf and v == np.inf)
    if not ok or v < 0 or (v == 0 and not allow_zero) or np.isnan(v):
        need = "≥ 0" if allow_zero else "> 0"
        raise ModelError(f"{name}: {key} must be a finite number {need}, got {value!r}", element=name, key=key)
    return v


class BeamSpec(_Spec):
    model_config = ConfigDict(extra="forbid", title="DT-TMM element: beam")

    type: Literal["beam"]
    name: str = Field(description="element name")
    length: float = Field(gt=0, description="segment length [m]")
    EI: float = Field(gt=0, description="bending stiffness [N m²]")
    rhoA: float = Field(gt=0, description="mass per length [kg/m]")
    n_modes: int = Field(6, ge=4, le=60, description="modes of the expansion (4 cubics + elastic free-free modes)")
    damping: float = Field(0.0, ge=0, description="modal damping ratio of the segment's own elastic modes")
    stiffness_damping: float = Field(0.0, ge=0, description="stiffness-proportional damping coefficient β_R [s] "
                                     "(damping matrix β_R K: a chain of segments then has modal damping ratios "
                                     "β_R ω/2 in its own modes)")


@register
@dataclass
class BeamSegment:
    """Uniform Euler-Bernoulli segment of length ``length``, bending stiffness ``EI``,
    mass per length ``rhoA``, ``n_modes`` free-free modes (2 rigid + elastic; P5 keeps the
    bending modes up to 560 Hz); damping: ``damping``, a modal damping ratio of the
    *segment's own* elastic modes, and/or ``stiffness_damping`` β_R [s], a damping matrix
    β_R K.  For a chain of segments only the second is a property of the chain: its modes
    then have the damping ratios β_R ω/2 (Rayleigh), whereas a ratio ζ of each segment's own
    modes (far above the chain's, for short segments) damps a chain mode ω by only about
    ζ ω/ω_segment."""
    name: str
    length: float
    EI: float
    rhoA: float
    n_modes: int = 6
    damping: float = 0.0
    stiffness_damping: float = 0.0
    kind: str = field(default="beam", init=False)
    type_name: ClassVar[str] = "beam"
    Spec: ClassVar[type] = BeamSpec

    @classmethod
    def from_spec(cls, spec: BeamSpec) -> "BeamSegment":
        return cls(spec.name, spec.length, spec.EI, spec.rhoA, spec.n_modes, spec.damping, spec.stiffness_damping)

    def load(self, force: float = 0.0, moment: float = 0.0, distributed: float = 0.0) -> np.ndarray:
        """Generalised load of a uniform distributed load [N/m] (point loads: on bodies)."""
        _no_load(self.name, "a beam segment", force=force, moment=moment)
        return self.uniform_load(distributed)

    def __post_init__(self):
        self.length = _positive(self.name, "length", self.length)
        self.EI = _positive(self.name, "EI", self.EI)
        self.rhoA = _positive(self.name, "rhoA", self.rhoA)
        self.damping = _positive(self.name, "damping", self.damping, allow_zero=True)
        self.stiffness_damping = _positive(self.name, "stiffness_damping", self.stiffness_damping, allow_zero=True)
        if int(self.n_modes) != self.n_modes or self.n_modes < 4:
            raise ModelError(f"{self.name}: n_modes must be an integer ≥ 4 (2 rigid + 2 elastic modes), "
                             f"got {self.n_modes!r}", element=self.name, key="n_modes")
        self.modes = BeamModes(int(self.n_modes), self.length, self.EI, self.rhoA)

    def modal(self):
        """(U (4, n), m, c, k)"""
        md = self.modes
        c = 2.0 * self.damping * md.omega * md.mass + self.stiffness_damping * md.stiffness
        return md.ends, md.mass, c, md.stiffness

    def uniform_load(self, w: float) -> np.ndarray:
        """Modal load of a uniform distributed load w [N/m] (upward positive)."""
        return w * self.modes.integral

    def distributed_load(self, p) -> np.ndarray:
        """Modal load ∫ p(x) φ(x) dx of a distributed load p(x) (x local, 0..length)."""
        from .modes import integrate
        return integrate(self.length, lambda x: np.asarray(p(x))[:, None] * self.modes.shape(x))

    def mass(self) -> float:
        return self.rhoA * self.length


class RigidSpec(_Spec):
    model_config = ConfigDict(extra="forbid", title="DT-TMM element: rigid")

    type: Literal["rigid"]
    name: str = Field(description="element name")
    mass: float = Field(gt=0, description="mass [kg]")
    J: float = Field(gt=0, description="rotary inertia about the centre of mass [kg m²]")
    length: float = Field(0.0, ge=0, description="distance between its two connection points [m]")
    com: float = Field(0.0, description="centre of mass from the left connection point [m]")


@register
@dataclass
class RigidBody:
    """Rigid part: mass, rotary inertia about its centre of mass (vertical + roll, P5's
    wheel; ``J = 0`` with ``length = 0`` is not allowed: give a small inertia), connection
    points at 0 and ``length`` along the chain, centre of mass at ``com`` from the left."""
    name: str
    mass_: float
    J: float
    length: float = 0.0
    com: float = 0.0
    kind: str = field(default="rigid", init=False)
    type_name: ClassVar[str] = "rigid"
    Spec: ClassVar[type] = RigidSpec

    @classmethod
    def from_spec(cls, spec: RigidSpec) -> "RigidBody":
        return cls(spec.name, spec.mass, spec.J, spec.length, spec.com)

    def __post_init__(self):
        self.mass_ = _positive(self.name, "mass", self.mass_)
        self.J = _positive(self.name, "J", self.J)
        self.length = _positive(self.name, "length", self.length, allow_zero=True)
        self.com = float(self.com)
        if not 0.0 <= self.com <= max(self.length, 0.0) and not (self.length == 0 and self.com == 0):
            raise ModelError(f"{self.name}: com must lie between 0 and length ({self.length}), got {self.com}",
                             element=self.name, key="com")

    def modal(self):
        lc, lr = self.com, self.length - self.com
        U = np.array([[1.0, -lc], [0.0, 1.0], [1.0, lr], [0.0, 1.0]])
        return U, np.array([self.mass_, self.J]), np.zeros(2), np.zeros(2)

    def load(self, force: float = 0.0, moment: float = 0.0, distributed: float = 0.0) -> np.ndarray:
        """Generalised load of a vertical force at the centre of mass and a moment."""
        _no_load(self.name, "a rigid body", distributed=distributed)
        return np.array([force, moment], dtype=float)

    def mass(self) -> float:
        return self.mass_


class SpringSpec(_Spec):
    model_config = ConfigDict(extra="forbid", title="DT-TMM element: spring")

    type: Literal["spring"]
    name: str = Field(description="element name")
    k: float = Field(gt=0, description="vertical stiffness [N/m]")
    c: float = Field(0.0, ge=0, description="vertical damping [N s/m]")
    k_theta: float = Field(math.inf, gt=0, description="rotational stiffness [N m/rad] (default rigid)")
    c_theta: float = Field(0.0, ge=0, description="rotational damping [N m s/rad]")


@register
@dataclass
class SpringDamper:
    """Massless vertical (k, c) and rotational (k_theta, c_theta) spring-damper between
    the two ends (P5's bearings); ``inf`` stiffness makes that direction rigid."""
    name: str
    k: float
    c: float = 0.0
    k_theta: float = np.inf
    c_theta: float = 0.0
    kind: str = field(default="spring", init=False)
    type_name: ClassVar[str] = "spring"
    Spec: ClassVar[type] = SpringSpec

    @classmethod
    def from_spec(cls, spec: SpringSpec) -> "SpringDamper":
        return cls(spec.name, spec.k, spec.c, spec.k_theta, spec.c_theta)

    def load(self, force: float = 0.0, moment: float = 0.0, distributed: float = 0.0) -> np.ndarray:
        _no_load(self.name, "a massless spring-damper", force=force, moment=moment, distributed=distributed)
        return np.zeros(2)

    def __post_init__(self):
        self.k = _positive(self.name, "k", self.k, allow_inf=True)
        self.k_theta = _positive(self.name, "k_theta", self.k_theta, allow_inf=True)
        self.c = _positive(self.name, "c", self.c, allow_zero=True)
        self.c_theta = _positive(self.name, "c_theta", self.c_theta, allow_zero=True)

    def stiffness(self):
        return np.array([self.k, self.k_theta]), np.array([self.c, self.c_theta])

    def mass(self) -> float:
        return 0.0
