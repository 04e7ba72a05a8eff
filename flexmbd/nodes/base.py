"""Node kinds: what a node's coordinates are, and how material points move with them.

A *node* is anything that owns coordinates: a rigid body, a beam node, later an ANCF node
or a floating-frame modal body.  Its *kind* (an instance of :class:`NodeKind`) says

* how many configuration coordinates it has (``nq``) and how many increment/velocity
  coordinates (``nv``); for vector kinds nq = nv and q ⊕ Δ = q + Δ, a kind on a Lie group
  has nv < nq and a multiplicative update (``increment``, ``tangent``; Chrono's
  ``IntStateIncrement``);
* the names of those coordinates, ground's fixed configuration in them (``ground_q``);
* its initial state from a pose and global velocities, its pose and global twist from
  (q, v) and back (``initial_state``, ``pose``, ``twist``, ``velocity_from_twist``);
* the kinematics of markers fixed on it (``markers``: positions, Jacobians and their
  exact second-derivative terms, see :class:`MarkerSet`);
* the generalised forces of its weight and of a torque (``weight``, ``torque_force``),
  with their Jacobians.

Elements (joints, springs, loads) see nodes only through markers and these methods, so
one element serves every kind.  Kinds are instances: two kinds are the same kind when
their :attr:`NodeKind.key` is equal (a kind with a parameter, e.g. a modal body with n
modes, has a key such as ``"modal:6"``).  Every derivative with respect to the
configuration is taken along increments: ∂f(q ⊕ Δ)/∂Δ at Δ = 0 (= ∂f/∂q for vector kinds).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

#: marker types: x = 0 (an absent slot), x = R + A u (a point), x = A u (a body-fixed
#: direction), x = u (a constant global vector)
ZERO, POINT, VECTOR, CONSTANT = 0, 1, 2, 3


class MarkerSet:
    """A batch of N markers of one node kind with constant local vectors ``u`` (N, 3).

    For node configurations qb (N, nq) (one row per marker):

    * ``evaluate(qb)`` → x (N, 3), J (N, 3, nv): the marker's global value and
      J = ∂x(q ⊕ Δ)/∂Δ at Δ = 0;
    * ``contract(qb, g)`` → (N, nv, nv): ∂(Jᵀ g)/∂Δ with g fixed (= Σ_i g_i ∂²x_i/∂q² for
      vector kinds; not symmetric on Lie groups);
    * ``dJv(qb, vb)`` → (N, 3, nv): ∂(J v)/∂Δ (velocity-dependent forces, γ of joints).
    """

    def __init__(self, kind: "NodeKind", u, mtype, anchors=None) -> None:
        self.kind = kind
        #: where direction markers sit on the body (N, 3, body frame; NaN rows: nowhere in
        #: particular); deformable kinds turn such directions with the material there
        self.anchors = None if anchors is None else np.asarray(anchors, dtype=float).reshape(-1, 3)
        self.u = np.asarray(u, dtype=float).reshape(-1, 3)
        self.mtype = np.asarray(mtype, dtype=int).reshape(-1)
        self.n = len(self.mtype)
        self.point = (self.mtype == POINT).astype(float)
        self.rot = ((self.mtype == POINT) | (self.mtype == VECTOR)).astype(float)
        self.const = (self.mtype == CONSTANT).astype(float)

    def evaluate(self, qb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def contract(self, qb: np.ndarray, g: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def dJv(self, qb: np.ndarray, vb: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class NodeKind:
    """Base class of node kinds; see the module docstring.  Subclasses set the class
    attributes and override what differs from a vector kind."""

    #: short name, shown to users and stored in results files
    name: ClassVar[str]
    nq: int
    nv: int
    coordinate_names: tuple[str, ...]
    velocity_names: tuple[str, ...]
    #: ground's fixed configuration in these coordinates
    ground_q: np.ndarray
    #: code of the compiled marker kinematics (kernels/dot.py), None if NumPy only
    kernel_code: ClassVar[int | None] = None
    #: rotation vectors with several branches that the solvers rescale between steps
    has_branches: ClassVar[bool] = False
    #: the kind moves by its own chart in the static Newton iteration (``chart_config``,
    #: ``chart_equations``; flexmbd.solvers.static)
    static_chart: ClassVar[bool] = False
    #: compiled joints precompute the C(u) marker tensors (kernels/markers.py; Euler parameters)
    marker_tensors: ClassVar[bool] = False
    #: the marker class of this kind
    marker_class: ClassVar[type[MarkerSet]] = MarkerSet
    #: the node has an orientation that torques act on (False: ANCF cable nodes)
    rotations: ClassVar[bool] = True
    #: the node's axes (direction markers) are gradients that stretch and shear (fully
    #: parameterized ANCF) rather than a rotated frame: a ``fixed`` joint then makes the
    #: two sides' axes equal (9 equations) instead of keeping them perpendicular (3)
    gradient_axes: ClassVar[bool] = False
    #: markers are an Euler-parameter frame's, x = R + A(p)(…) with q = [R, p, …] in a vector
    #: space: joints join such nodes across kinds (a rigid body and a modal beam)
    euler_frame: ClassVar[bool] = False
    #: points move relative to the node's frame (a modal beam): pictures place them with
    #: the kind's markers instead of the frame's pose
    deformable: ClassVar[bool] = False

    # ----------------------------------------------------------------- identity
    @property
    def key(self) -> str:
        """Equal keys mean the same kind (parameterised kinds add their parameters)."""
        return self.name

    @property
    def additive(self) -> bool:
        """q ⊕ Δ = q + Δ (the configuration and increment spaces coincide)."""
        return self.nq == self.nv

    def __eq__(self, other: object) -> bool:
        return self is other or isinstance(other, NodeKind) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<node kind {self.key}: nq={self.nq}, nv={self.nv}>"

    # -------------------------------------------------------------- increments
    def increment(self, q: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """q ⊕ Δ for stacks q (..., nq), Δ (..., nv)."""
        return q + dv

    def tangent(self, dv: np.ndarray) -> np.ndarray | None:
        """T(Δ) (N, nv, nv) with q ⊕ (Δ + δ) = (q ⊕ Δ) ⊕ (T(Δ) δ) to first order in δ;
        None for additive kinds (T = I)."""
        return None

    def rescale(self, q: np.ndarray, v: np.ndarray | None, accelerations=()):
        """The same node states on a preferred branch of their coordinates:
        (q, v, [a …], changed (N,) bool).  Only kinds with ``has_branches`` change anything."""
        return q, v, list(accelerations), np.zeros(len(q), dtype=bool)

    # ---------------------------------------------------- poses and velocities
    def orientation_matrix(self, orientation: np.ndarray) -> np.ndarray:
        """Rotation matrices (N, 3, 3) of the nodes' initial orientations as stored on the
        bodies (Euler parameters (N, 4), or the angle (N, 1) of planar kinds)."""
        raise NotImplementedError

    def initial_state(self, x: np.ndarray, orientation: np.ndarray, xd: np.ndarray, w: np.ndarray,
                      A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """q (N, nq), v (N, nv) of nodes at positions x (N, 3) with stored orientations,
        their rotation matrices A (N, 3, 3), global velocities xd and angular velocities w."""
        raise NotImplementedError

    def initial_coordinates(self, nodes, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """q (N, nq), v (N, nv) of :meth:`initial_state` completed with coordinates the nodes
        carry beyond a pose (a modal body's initial modal coordinates); unchanged by default."""
        return q, v

    def pose(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Origin positions (N, 3) and rotation matrices (N, 3, 3) of nodes q (N, nq)."""
        raise NotImplementedError

    def twist(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Global velocity of the origin (N, 3) and global angular velocity (N, 3)."""
        raise NotImplementedError

    def velocity_from_twist(self, q: np.ndarray, xd: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Velocities v (N, nv) giving the origin velocity xd and angular velocity w
        (the inverse of :meth:`twist`; on Euler parameters the rate along p is zero)."""
        raise NotImplementedError

    def output(self, what: str, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """A node output over rows of q, v: ``position`` (N, 3), ``velocity`` (N, 3),
        ``orientation`` (Euler parameters (N, 4); planar: the angle (N,)),
        ``angular_velocity`` (N, 3, global)."""
        raise NotImplementedError

    def chart_config(self, qb: np.ndarray, d: np.ndarray) -> np.ndarray:
        """q(Δ) of the static chart at bases qb (N, nq) for Δ = d (N, nv)."""
        raise NotImplementedError

    def chart_equations(self, d: np.ndarray, f: np.ndarray):
        """(J, H) (N, nv, nv) of the static chart: J(Δ) maps Δ-increments to the kind's
        increments (the residual's rows are f), H = ∂(Jᵀ f)/∂Δ at fixed f."""
        raise NotImplementedError

    # ----------------------------------------------------------------- markers
    def check_offsets(self, names, u, element: str | None = None) -> None:
        """Raise ModelError (naming ``element``, if given) for node-fixed points or
        directions u (N, 3) that the kind cannot carry (``names``: the nodes); every
        vector is fine by default."""

    def check_directions(self, names, u, element: str | None = None) -> None:
        """The same check for node-fixed directions u (N, 3) (joint axes); by default
        :meth:`check_offsets`'s."""
        self.check_offsets(names, u, element)

    def stored_data(self) -> dict | None:
        """Arrays a results file stores so that :func:`flexmbd.nodes.kind_from_key` can
        rebuild the kind from its key in another process (a kind described by data, such
        as a modal body from FE data); None when the key says everything."""
        return None

    def markers(self, u, mtype, anchors=None) -> MarkerSet:
        """The :class:`MarkerSet` of markers with local vectors u (N, 3) and types mtype;
        ``anchors`` (N, 3) places direction markers on the body (for deformable kinds)."""
        return self.marker_class(self, u, mtype, anchors)

    # ------------------------------------------------------------------ loads
    def weight(self, q: np.ndarray, mass: np.ndarray, g: np.ndarray, jacobians: bool = True):
        """Generalised force Q (N, nv) of the weights m g (masses (N,), gravity g (3,)) at
        the nodes' origins and ∂Q/∂Δ (N, nv, nv) (None when it is zero or not asked for)."""
        raise NotImplementedError

    def torque_force(self, q: np.ndarray, n: np.ndarray, body_fixed: np.ndarray, jacobians: bool = True):
        """Generalised force Q (N, nv) of torques n (N, 3), global or (where
        ``body_fixed``) in node axes, and ∂Q/∂Δ (N, nv, nv) (None if not ``jacobians``)."""
        raise NotImplementedError
