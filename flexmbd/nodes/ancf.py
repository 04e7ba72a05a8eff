"""Nodes of the absolute nodal coordinate formulation (ANCF): positions and gradients.

Two vector kinds (nq = nv, q ⊕ Δ = q + Δ; Shabana, *Dynamics of Multibody Systems*, ch. 7;
Gerstmayr & Irschik 2008):

======================  ============  ====  ============================================
kind                    key           nq    coordinates
======================  ============  ====  ============================================
:data:`ANCF`            ancf          12    r, r_x, r_y, r_z (fully parameterized)
:data:`ANCF_CABLE`      ancf-cable    6     r, r_x (gradient deficient)
======================  ============  ====  ============================================

r is the node's position; r_x = ∂r/∂x is the gradient along the beam's reference arc
length, r_y, r_z the gradients along the section axes.  In the reference configuration
the gradients are the reference frame's columns: r_x the unit tangent, r_y, r_z the
section axes (``initial_state``).  Write F = [r_x r_y r_z] (the cable has F = [r_x]).

Markers (local vector u = (u1, u2, u3) in the reference frame)
    fully parameterized: point x = r + F u, direction x = F u;
    cable: point x = r + u1 r_x, direction x = u1 r_x.
Both are linear in q, so J is constant and ``contract`` and ``dJv`` are zero.  The cable
has no section: an offset across it (u2, u3) has nothing to turn with.  On cable nodes
such offsets are refused when the model is frozen (:meth:`AncfCableKind.check_offsets`,
called by ``System.local_points`` and by the joints' builder); on ground's slot of the kind (r = 0, r_x = e_x) the
across-section part is carried as a constant global vector, so x = u there exactly.

Pose (what pictures, ``orientation`` outputs and twists use; the elements never do)
    fully parameterized: the Gram-Schmidt frame of F: e1 = r_x/|r_x|, e2 = the part of
    r_y orthogonal to e1, normalised, e3 = e1 × e2 (exactly F when F is a rotation);
    cable: e1 = r_x/|r_x| and the smallest rotation taking the global X axis to e1
    (Rodrigues: R = c I + k̃ + k kᵀ/(1 + c), k = X × e1, c = X·e1; the half turn about Z
    when e1 = −X).  A cable has no torsion, so this is a choice: for beams in the XY
    plane it keeps e3 = Z.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..lie import quat_from_matrix
from ..rotations import skew
from .base import MarkerSet, NodeKind

_EYE = np.eye(3)


def _unit(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = np.linalg.norm(a, axis=-1)
    return a / n[..., None], n


def _proj(e: np.ndarray) -> np.ndarray:
    """I − e eᵀ (…, 3, 3)."""
    return _EYE - e[..., :, None] * e[..., None, :]


def _axial(W: np.ndarray) -> np.ndarray:
    """The vector w of the skew part of W: (W − Wᵀ)/2 = w̃."""
    return 0.5 * np.stack([W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]], -1)


# ------------------------------------------------------------------------ markers
class AncfMarkers(MarkerSet):
    """Markers of ANCF nodes: point x = r + Σ_i u_i r_(i), direction x = Σ_i u_i r_(i),
    with r_(1..m) the node's gradients (m = 3 fully parameterized, 1 for the cable).
    On the cable, u2 and u3 are carried as a constant global vector (exact on ground,
    refused on nodes, see the module docstring)."""

    def evaluate(self, qb):
        kind = self.kind
        m = kind.n_gradients
        qb = np.asarray(qb, dtype=float)
        w = self.u[:, :m] * self.rot[:, None]                     # weights of the gradients
        G = qb[:, 3:3 + 3 * m].reshape(-1, m, 3)
        x = self.point[:, None] * qb[:, :3] + np.einsum("ni,nij->nj", w, G) + self.const[:, None] * self.u
        if m == 1:
            x = x + (self.rot[:, None] * self.u) * np.array([0.0, 1.0, 1.0])
        J = np.zeros((self.n, 3, kind.nv))
        J[:, :, 0:3] = self.point[:, None, None] * _EYE
        for i in range(m):
            J[:, :, 3 + 3 * i:6 + 3 * i] = w[:, i, None, None] * _EYE
        return x, J

    def contract(self, qb, g):
        return np.zeros((self.n, self.kind.nv, self.kind.nv))

    def dJv(self, qb, vb):
        return np.zeros((self.n, 3, self.kind.nv))


# -------------------------------------------------------------------- the kinds
class _AncfKind(NodeKind):
    """Common part of the two ANCF kinds."""

    n_gradients: int
    marker_class = AncfMarkers
    kernel_code = 3   # kernels/dot.py ANCF (kernels/markers.py ancf_marker)

    def orientation_matrix(self, orientation):
        from ..rotations import rotation_matrix

        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        """r = x, gradients = the first ``n_gradients`` columns of A, their rates ω × column."""
        m = self.n_gradients
        G = np.swapaxes(A[:, :, :m], 1, 2)                       # (N, m, 3) rows: gradients
        Gd = np.cross(w[:, None, :], G)
        N = len(x)
        return np.c_[x, G.reshape(N, -1)], np.c_[xd, Gd.reshape(N, -1)]

    def velocity_from_twist(self, q, xd, w):
        """ṙ = ẋ and every gradient turning rigidly: ṙ_(i) = ω × r_(i)."""
        m = self.n_gradients
        G = q[:, 3:].reshape(len(q), m, 3)
        return np.c_[xd, np.cross(w[:, None, :], G).reshape(len(q), -1)]

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return quat_from_matrix(self.pose(q)[1])
        if what == "angular_velocity":
            return self.twist(q, v)[1]
        raise KeyError(what)

    def weight(self, q, mass, g, jacobians=True):
        """A mass at r: Q_r = m g (constant)."""
        Q = np.zeros((len(mass), self.nv))
        Q[:, :3] = mass[:, None] * g
        return Q, None


class AncfKind(_AncfKind):
    """Fully parameterized ANCF node: q = [r, r_x, r_y, r_z] (12)."""

    name = "ancf"
    nq = 12
    nv = 12
    n_gradients = 3
    gradient_axes = True
    coordinate_names = ("x", "y", "z", "rx_x", "rx_y", "rx_z", "ry_x", "ry_y", "ry_z", "rz_x", "rz_y", "rz_z")
    velocity_names = coordinate_names
    ground_q = np.r_[np.zeros(3), _EYE.ravel()]

    def pose(self, q):
        """r and the Gram-Schmidt frame of F (module docstring)."""
        e1, _ = _unit(q[:, 3:6])
        c = q[:, 6:9] - np.einsum("ni,ni->n", q[:, 6:9], e1)[:, None] * e1
        e2, _ = _unit(c)
        return q[:, :3], np.stack([e1, e2, np.cross(e1, e2)], axis=-1)

    def twist(self, q, v):
        """ṙ and the angular velocity of the Gram-Schmidt frame: ω = e1 × ė1 + (ė2·e3) e1
        (from ė_i = ω × e_i), ė1 = (I − e1e1ᵀ) ṙ_x/|r_x|, ė2·e3 = ċ·e3/|c| with
        c = r_y − (r_y·e1) e1."""
        a, b = q[:, 3:6], q[:, 6:9]
        ad, bd = v[:, 3:6], v[:, 6:9]
        e1, na = _unit(a)
        e1d = np.einsum("nij,nj->ni", _proj(e1), ad) / na[:, None]
        be = np.einsum("ni,ni->n", b, e1)
        c = b - be[:, None] * e1
        e2, nc = _unit(c)
        e3 = np.cross(e1, e2)
        cd = (bd - (np.einsum("ni,ni->n", bd, e1) + np.einsum("ni,ni->n", b, e1d))[:, None] * e1
              - be[:, None] * e1d)
        spin = np.einsum("ni,ni->n", cd, e3) / nc
        return v[:, :3], np.cross(e1, e1d) + spin[:, None] * e1

    def torque_force(self, q, n, body_fixed, jacobians=True):
        """A torque as the virtual work n·δπ with δπ = ½ Σ_i r_(i) × δr_(i) (i = x, y, z):
        exact for F a rotation (δr_(i) = δθ × r_(i) gives Σ_i r_(i) × (δθ × r_(i)) = 2 δθ),
        and defined for any F.  So Q_(i) = ½ n_g × r_(i).  Global torque n_g = n:
        ∂Q_(i)/∂r_(i) = ½ ñ.  Node-fixed torque (n in node axes) n_g = F n (the node
        axes carried by the gradients): Q_(i) = ½ (Σ_k n_k r_(k)) × r_(i), whose
        derivative is ½ (n_k (−r̃_(i)) for r_(k), plus ½ (F n)~ for r_(i))."""
        q = np.asarray(q, dtype=float)
        n = np.asarray(n, dtype=float).reshape(len(q), 3)
        bf = np.broadcast_to(np.asarray(body_fixed, dtype=bool), (len(q),))
        G = q[:, 3:12].reshape(-1, 3, 3)                          # rows r_(i)
        ng = np.where(bf[:, None], np.einsum("nk,nki->ni", n, G), n)
        Q = np.zeros((len(q), 12))
        Q[:, 3:] = 0.5 * np.cross(ng[:, None, :], G).reshape(-1, 9)
        if not jacobians:
            return Q, None
        K = np.zeros((len(q), 12, 12))
        Sn = skew(ng)
        for i in range(3):
            K[:, 3 + 3 * i:6 + 3 * i, 3 + 3 * i:6 + 3 * i] = 0.5 * Sn
            for k in range(3):   # ∂(ng × r_i)/∂r_k = −r̃_i n_k, for node-fixed torques
                K[:, 3 + 3 * i:6 + 3 * i, 3 + 3 * k:6 + 3 * k] += np.where(
                    bf[:, None, None], -0.5 * n[:, k, None, None] * skew(G[:, i]), 0.0)
        return Q, K


class AncfCableKind(_AncfKind):
    """Gradient-deficient ANCF (cable) node: q = [r, r_x] (6)."""

    name = "ancf-cable"
    nq = 6
    nv = 6
    n_gradients = 1
    rotations = False
    coordinate_names = ("x", "y", "z", "rx_x", "rx_y", "rx_z")
    velocity_names = coordinate_names
    ground_q = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])

    @staticmethod
    def _frame(e1):
        """Smallest rotation taking X to e1 (module docstring) and its pieces."""
        X = np.array([1.0, 0.0, 0.0])
        c = e1[:, 0]
        k = np.cross(X, e1)
        flip = 1.0 + c < 1e-12
        den = np.where(flip, 1.0, 1.0 + c)
        R = (c[:, None, None] * _EYE + skew(k) + k[:, :, None] * k[:, None, :] / den[:, None, None])
        R[flip] = np.diag([-1.0, -1.0, 1.0])
        return R, c, k, den, flip

    def pose(self, q):
        e1, _ = _unit(q[:, 3:6])
        return q[:, :3], self._frame(e1)[0]

    def twist(self, q, v):
        """ṙ and ω = axial(Ṙ Rᵀ) of the smallest-rotation frame, with ė1 = (I − e1e1ᵀ) ṙ_x/|r_x|,
        Ṙ = ċ I + (X × ė1)~ + (k̇ kᵀ + k k̇ᵀ)/(1 + c) − k kᵀ ċ/(1 + c)²."""
        e1, na = _unit(q[:, 3:6])
        e1d = np.einsum("nij,nj->ni", _proj(e1), v[:, 3:6]) / na[:, None]
        R, c, k, den, _ = self._frame(e1)
        cd = e1d[:, 0]
        kd = np.cross(np.array([1.0, 0.0, 0.0]), e1d)
        Rd = (cd[:, None, None] * _EYE + skew(kd)
              + (kd[:, :, None] * k[:, None, :] + k[:, :, None] * kd[:, None, :]) / den[:, None, None]
              - k[:, :, None] * k[:, None, :] * (cd / den ** 2)[:, None, None])
        return v[:, :3], _axial(Rd @ np.swapaxes(R, 1, 2))

    def torque_force(self, q, n, body_fixed, jacobians=True):
        raise ModelError("a torque on an ANCF cable node (kind ancf-cable) is not defined: the node has no "
                         "rotation coordinates; apply a force couple, or join a rigid body to the node")

    def check_offsets(self, names, u, element: str | None = None) -> None:
        """ModelError for points or directions off a cable node's axis (u2, u3 ≠ 0),
        naming the nodes (and the element, if given)."""
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        bad = np.linalg.norm(u[:, 1:], axis=1) > 1e-9 * np.maximum(1.0, np.linalg.norm(u, axis=1))
        if np.any(bad):
            which = ", ".join(f"{nm!r} (offset {np.round(uu, 6).tolist()} in the reference frame)"
                              for nm, uu in zip(np.asarray(names, dtype=object)[bad], u[bad]))
            what = f"{element!r}: " if element else ""
            raise ModelError(f"{what}a point or direction on an ANCF cable node must lie on the beam's axis "
                             f"(x = r + u1 r_x; the cable has no section to carry an offset across it): {which}; put "
                             "points at the node or along the axis; to clamp a cable node use a revolute joint "
                             "about the beam's axis (position and slope direction)", element=element)


ANCF = AncfKind()
ANCF_CABLE = AncfCableKind()

__all__ = ["ANCF", "ANCF_CABLE", "AncfKind", "AncfCableKind", "AncfMarkers"]
