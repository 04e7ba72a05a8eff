"""Floating-frame modal beams: q = [R (3), p (4) Euler parameters, η (n) modal coordinates].

The floating frame of reference (P4 sec. 1; Shabana, Dynamics of Multibody Systems,
ch. 5): a material point of the beam, at ū = (ξ, y, z) in the frame before deformation
(ξ along the beam axis, the body x axis; y, z along the section axes 2 and 3), is at

    r = R + A(p) (ū + S(ū) η),

where S(ū) (3, n) holds the exact vibration modes of the beam (:mod:`.beam_modes`) in
Bernoulli-Euler kinematics: with axial modes φ_u, bending φ_v (along y), φ_w (along z)
and twist φ_θ, of s = ξ − ξ₀ (ξ₀ the beam's start in the frame),

    u_x = φ_u η_u − y φ_v′ η_v − z φ_w′ η_w,   u_y = φ_v η_v − z φ_θ η_θ,
    u_z = φ_w η_w + y φ_θ η_θ.

The coordinates are in R^{7+n} with the Euler-parameter normalisation as its own
equation (P1's spatial convention), so increments add.  As A(p) x = C(x)[p, p] with C
linear in x (``rotations.CHAT``, P1's appendix), every marker quantity is a polynomial in
(p, η): J = [I, 2 C(x_f) p, C(S)[p, p]] with x_f = ū + S η, and its exact second
derivatives follow as for rigid bodies.  Point markers follow the deformed beam; direction
markers (joint axes) follow the floating frame, not the local section rotation.

A kind is fully described by its key ``modal:<ends>:<L>:<ξ₀>:<n_u>.<n_v>.<n_w>.<n_θ>``
(beams with the same mode shapes share it; results files rebuild it from the key).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..rotations import CHAT, DE, DG, E_matrix, G_matrix, rotation_matrix
from .base import POINT, MarkerSet, NodeKind
from .beam_modes import ENDS, BeamModes

#: C_l[i, j, k] = CHAT[i, j, k, l]: (A(p) x)_i = Σ_l x_l C_l[i, j, k] p_j p_k
C_L = np.ascontiguousarray(np.transpose(CHAT, (3, 0, 1, 2)))
#: the directions' names in the coordinate order
FAMILIES = ("axial", "bending_y", "bending_z", "torsion")


def _matvec(A, x):
    return np.matmul(A, x[:, :, None])[:, :, 0]


class ModalMarkers(MarkerSet):
    """Markers on modal beams: points x = R + A(p)(ū + S(ū) η), directions x = A(p) u
    (the floating frame's), constants x = u (module docstring)."""

    def __init__(self, kind, u, mtype):
        super().__init__(kind, u, mtype)
        # S(ū) of the point markers (zero for the others): (N, 3, n)
        self.S = kind.shape_matrix(self.u) * self.point[:, None, None]
        self.Cu = np.einsum("nl,lijk->nijk", self.u * self.rot[:, None], C_L)       # C(ū)
        self.CS = np.einsum("nlb,lijk->nbijk", self.S, C_L)                          # C(S_b)

    def _parts(self, qb):
        p, eta = qb[:, 3:7], qb[:, 7:]
        Cx = self.Cu + np.einsum("nbijk,nb->nijk", self.CS, eta)                   # C(x_f)
        return p, Cx

    def evaluate(self, qb):
        p, Cx = self._parts(qb)
        Cp = np.einsum("nijk,nk->nij", Cx, p)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nij,nj->ni", Cp, p) + self.const[:, None] * self.u
        J = np.zeros((self.n, 3, self.kind.nv))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:7] = 2.0 * Cp
        J[:, :, 7:] = np.einsum("nbijk,nj,nk->nib", self.CS, p, p)
        return x, J

    def contract(self, qb, g):
        p, Cx = self._parts(qb)
        out = np.zeros((self.n, self.kind.nv, self.kind.nv))
        out[:, 3:7, 3:7] = 2.0 * np.einsum("ni,nijk->njk", g, Cx)
        pe = 2.0 * np.einsum("ni,nbijk,nk->njb", g, self.CS, p)                     # ∂²(g·x)/∂p∂η
        out[:, 3:7, 7:] = pe
        out[:, 7:, 3:7] = np.swapaxes(pe, 1, 2)
        return out

    def dJv(self, qb, vb):
        p, Cx = self._parts(qb)
        pd, etad = vb[:, 3:7], vb[:, 7:]
        out = np.zeros((self.n, 3, self.kind.nv))
        CSd = np.einsum("nbijk,nb->nijk", self.CS, etad)                            # C(S η̇)
        out[:, :, 3:7] = 2.0 * np.einsum("nijk,nk->nij", Cx, pd) + 2.0 * np.einsum("nijk,nk->nij", CSd, p)
        out[:, :, 7:] = 2.0 * np.einsum("nbijk,nj,nk->nib", self.CS, p, pd)
        return out


class ModalKind(NodeKind):
    """A floating-frame modal beam (module docstring): ``ends`` of :data:`ENDS`, length L,
    the beam's start ξ₀ on the frame's x axis, and the number of modes per direction
    (axial, bending along y, bending along z, torsion)."""

    name = "modal"
    marker_class = ModalMarkers
    euler_frame = True
    deformable = True

    def __init__(self, ends: str, length: float, start: float, counts) -> None:
        if ends not in ENDS:
            raise ValueError(f"modal kind: unknown ends {ends!r}; known: {', '.join(ENDS)}")
        self.ends, self.length, self.start = ends, float(length), float(start)
        self.counts = tuple(int(c) for c in counts)
        if len(self.counts) != 4 or min(self.counts) < 0 or not self.length > 0:
            raise ValueError(f"modal kind: bad parameters {ends, length, start, counts}")
        self.n = sum(self.counts)
        self.nq = self.nv = 7 + self.n
        self.modes = [BeamModes("rod" if f in ("axial", "torsion") else "bending", ends, c, self.length)
                      for f, c in zip(FAMILIES, self.counts)]
        letters = ("u", "v", "w", "t")
        self.coordinate_names = ("x", "y", "z", "e0", "e1", "e2", "e3") + tuple(
            f"{letter}{i + 1}" for letter, c in zip(letters, self.counts) for i in range(c))
        self.velocity_names = self.coordinate_names
        self.ground_q = np.r_[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, np.zeros(self.n)]
        first = np.cumsum((0,) + self.counts)
        #: the modal coordinates of each direction: slices into η
        self.slices = {f: slice(int(first[i]), int(first[i + 1])) for i, f in enumerate(FAMILIES)}

    @property
    def key(self) -> str:
        return f"modal:{self.ends}:{self.length!r}:{self.start!r}:" + ".".join(str(c) for c in self.counts)

    # ----------------------------------------------------------------- shapes
    def mode_values(self, s, d: int = 0) -> list[np.ndarray]:
        """The d-th derivatives of the modes of each direction at s (from the beam's start)."""
        return [m.values(s, d) for m in self.modes]

    def shape_matrix(self, u) -> np.ndarray:
        """S(ū) (N, 3, n) at material points ū (N, 3) in the undeformed frame."""
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        # points of bodies lie on the beam (check_offsets); ground's points, evaluated on
        # ground's slot of this kind (η = 0), may lie anywhere: clipped so that the
        # hyperbolic parts stay finite
        s, y, z = np.clip(u[:, 0] - self.start, 0.0, self.length), u[:, 1], u[:, 2]
        (fu, fv, fw, ft), (_, dv, dw, _) = self.mode_values(s, 0), self.mode_values(s, 1)
        S = np.zeros((len(u), 3, self.n))
        sl = self.slices
        S[:, 0, sl["axial"]] = fu
        S[:, 0, sl["bending_y"]] = -y[:, None] * dv
        S[:, 1, sl["bending_y"]] = fv
        S[:, 0, sl["bending_z"]] = -z[:, None] * dw
        S[:, 2, sl["bending_z"]] = fw
        S[:, 1, sl["torsion"]] = -z[:, None] * ft
        S[:, 2, sl["torsion"]] = y[:, None] * ft
        return S

    def check_offsets(self, names, u, element=None):
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        s = u[:, 0] - self.start
        tol = 1e-9 * self.length
        bad = np.flatnonzero((s < -tol) | (s > self.length + tol))
        if len(bad):
            k = int(bad[0])
            who = f"{element}: " if element else ""
            raise ModelError(f"{who}the point at x = {u[k, 0]:g} in the frame of modal beam {names[k]!r} lies off the "
                             f"beam, which spans x = {self.start:g} … {self.start + self.length:g}", element=element)

    def check_directions(self, names, u, element=None):
        """Directions follow the floating frame: every direction is fine."""

    # ---------------------------------------------------- poses and velocities
    def orientation_matrix(self, orientation):
        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def initial_state(self, x, orientation, xd, w, A):
        p = np.asarray(orientation, dtype=float)
        z = np.zeros((len(x), self.n))
        pd = _matvec(0.5 * np.swapaxes(E_matrix(p), 1, 2), w)
        return np.concatenate([x, p, z], axis=1), np.concatenate([xd, pd, z], axis=1)

    def initial_coordinates(self, nodes, q, v):
        for k, b in enumerate(nodes):
            eta = getattr(b, "modal_coordinates", None)
            if eta is not None:
                q[k, 7:] = eta
            rate = getattr(b, "modal_velocities", None)
            if rate is not None:
                v[k, 7:] = rate
        return q, v

    def pose(self, q):
        p = q[:, 3:7]
        return q[:, :3], rotation_matrix(p / np.linalg.norm(p, axis=1, keepdims=True))

    def twist(self, q, v):
        return v[:, :3], 2.0 * np.einsum("nij,nj->ni", E_matrix(q[:, 3:7]), v[:, 3:7])

    def velocity_from_twist(self, q, xd, w):
        p = q[:, 3:7] / np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
        return np.concatenate([xd, 0.5 * np.einsum("nji,nj->ni", E_matrix(p), w), np.zeros((len(q), self.n))], axis=1)

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return q[:, 3:7]
        if what == "angular_velocity":
            return 2.0 * np.einsum("nij,nj->ni", E_matrix(q[:, 3:7]), v[:, 3:7])
        raise KeyError(what)

    # ------------------------------------------------------------------ loads
    def weight(self, q, mass, g, jacobians=True):
        """The weight m g at the frame's origin (the distributed weight of a modal beam is
        its own group)."""
        Q = np.zeros((len(mass), self.nv))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        """A torque on the floating frame: Q_p = 2 Eᵀ n or 2 Gᵀ n' (Nikravesh 1988, sec. 6.4)."""
        p = q[:, 3:7]
        Q = np.zeros((len(q), self.nv))
        T = np.where(body_fixed[:, None, None], G_matrix(p), E_matrix(p))
        Q[:, 3:7] = 2.0 * np.einsum("nij,ni->nj", T, n)
        if not jacobians:
            return Q, None
        K = np.zeros((len(q), self.nv, self.nv))
        KE = 2.0 * np.einsum("ni,ijk->njk", n, DE)
        KG = 2.0 * np.einsum("ni,ijk->njk", n, DG)
        K[:, 3:7, 3:7] = np.where(body_fixed[:, None, None], KG, KE)
        return Q, K


def modal_kind_from_key(params: str) -> ModalKind:
    """The kind of a key ``modal:<ends>:<L>:<ξ₀>:<n_u>.<n_v>.<n_w>.<n_θ>`` (the part after "modal:")."""
    ends, length, start, counts = params.split(":")
    return ModalKind(ends, float(length), float(start), [int(c) for c in counts.split(".")])


__all__ = ["ModalKind", "ModalMarkers", "modal_kind_from_key", "FAMILIES", "C_L"]
