"""Floating-frame modal beams: q = [R (3), p (4) Euler parameters, η (n) modal coordinates]
(or, with P4's 3-1-3 Euler angles Θ (3) for the attitude, q = [R, Θ, η]).

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
equation (P1's spatial convention), so increments add; every formula uses the columns
a_l = A e_l of the rotation and their derivatives with respect to the attitude
coordinates (:class:`EulerParameterAttitude`, :class:`Euler313Attitude`).  As A(p) x = C(x)[p, p] with C
linear in x (``rotations.CHAT``, P1's appendix), every marker quantity is a polynomial in
(p, η): J = [I, 2 C(x_f) p, C(S)[p, p]] with x_f = ū + S η, and its exact second
derivatives follow as for rigid bodies.  Point markers follow the deformed beam; direction
markers anchored at a point of the beam (joint axes: ``MarkerSet.anchors``) turn with the
section there, x = A (u + θ × u), θ = S_θ(ξ) η (first order); other directions follow the
floating frame.

With ``foreshortening`` (the geometric stiffening of :mod:`flexmbd.bodies.modal_beam`) a
point also moves along the frame's x axis by the shortening of the deflected axis,
−½ ∫₀^ξ (v′² + w′²) = −½ Σ c_ij G_ij(ξ) η_i η_j: positions are x = P(ū) ê(η) with
ê = [1, η, (η_i η_j)] (:meth:`ModalKind.e_hat`), still polynomials in (p, η).

A kind is fully described by its key
``modal:<ends>:<L>:<ξ₀>:<n_u>.<n_v>.<n_w>.<n_θ>[:euler-313][:foreshortening]`` (beams with the
same mode shapes share it; results files rebuild it from the key).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..lie import quat_from_matrix
from ..rotations import CHAT, DE, DG, E_matrix, G_matrix, rotation_matrix
from .base import VECTOR, MarkerSet, NodeKind
from .beam_modes import ENDS, BeamModes, gauss_rule

#: C_l[i, j, k] = CHAT[i, j, k, l]: (A(p) x)_i = Σ_l x_l C_l[i, j, k] p_j p_k
C_L = np.ascontiguousarray(np.transpose(CHAT, (3, 0, 1, 2)))
#: the directions' names in the coordinate order
FAMILIES = ("axial", "bending_y", "bending_z", "torsion")


def _matvec(A, x):
    return np.matmul(A, x[:, :, None])[:, :, 0]


class EulerParameterAttitude:
    """The frame's attitude in Euler parameters p (4, with the normalisation constraint;
    P1): the columns of A(p), a_l = C_l[p, p], and their derivatives 2 C_l p, 2 C_l, 0."""

    name = "euler-parameters"
    r = 4
    names = ("e0", "e1", "e2", "e3")
    identity = np.array([1.0, 0.0, 0.0, 0.0])

    def derivatives(self, th: np.ndarray, order: int) -> list[np.ndarray]:
        """[a (N, 3_l, 3_i), ∂a/∂θ (N, 3, 3, r), ∂²a (N, 3, 3, r, r), ∂³a …] up to ``order``:
        a[n, l] = A(θ_n) e_l, the l-th column of the rotation."""
        N = len(th)
        Cp = np.einsum("lijk,nk->nlij", C_L, th)
        out = [np.einsum("nlij,nj->nli", Cp, th)]
        if order >= 1:
            out.append(2.0 * Cp)
        if order >= 2:
            out.append(np.broadcast_to(2.0 * C_L, (N,) + C_L.shape))
        if order >= 3:
            out.append(np.zeros((N, 3, 3, 4, 4, 4)))
        return out

    def from_matrix(self, A: np.ndarray) -> np.ndarray:
        return quat_from_matrix(A)


def _elementary(t, d, axis):
    """d-th derivative of the rotation about ``axis`` (2: z, 0: x) by angles t (N,) → (N, 3, 3)."""
    N = len(t)
    c, s = np.cos(t + d * np.pi / 2), np.sin(t + d * np.pi / 2)
    R = np.zeros((N, 3, 3))
    i, j = (0, 1) if axis == 2 else (1, 2)
    R[:, i, i] = R[:, j, j] = c
    R[:, i, j], R[:, j, i] = -s, s
    R[:, axis, axis] = 1.0 if d == 0 else 0.0
    return R


class Euler313Attitude:
    """The frame's attitude in 3-1-3 Euler angles Θ = (φ, θ, ψ) (P4 sec. 1):
    A = R_z(φ) R_x(θ) R_z(ψ), every derivative a product of derivatives of the three
    elementary rotations.  Singular at θ = 0, π (ω = G(Θ) Θ' loses rank): the frame's
    z axis must stay away from the global z axis."""

    name = "euler-313"
    r = 3
    names = ("phi", "theta", "psi")
    identity = np.zeros(3)

    def derivatives(self, th, order):
        cache = {}

        def D(counts):
            if counts not in cache:
                cache[counts] = (_elementary(th[:, 0], counts[0], 2) @ _elementary(th[:, 1], counts[1], 0)
                                 @ _elementary(th[:, 2], counts[2], 2))
            return cache[counts]

        def col(counts):
            return np.swapaxes(D(counts), 1, 2)                       # a[n, l, i] = A[n, i, l]

        def count(*ks):
            c = [0, 0, 0]
            for k in ks:
                c[k] += 1
            return tuple(c)
        out = [col((0, 0, 0))]
        if order >= 1:
            out.append(np.stack([col(count(k)) for k in range(3)], axis=-1))
        if order >= 2:
            out.append(np.stack([np.stack([col(count(j, k)) for k in range(3)], axis=-1) for j in range(3)], axis=-2))
        if order >= 3:
            out.append(np.stack([np.stack([np.stack([col(count(i, j, k)) for k in range(3)], axis=-1)
                                           for j in range(3)], axis=-2) for i in range(3)], axis=-3))
        return out

    def from_matrix(self, A):
        A = np.asarray(A, dtype=float).reshape(-1, 3, 3)
        theta = np.arccos(np.clip(A[:, 2, 2], -1.0, 1.0))
        if np.any(np.sin(theta) < 1e-8):
            raise ValueError("3-1-3 Euler angles are singular for this orientation (the frame's z axis along "
                             "the global z axis): choose another orientation or Euler parameters")
        phi = np.arctan2(A[:, 0, 2], -A[:, 1, 2])
        psi = np.arctan2(A[:, 2, 0], A[:, 2, 1])
        return np.c_[phi, theta, psi]


ATTITUDES = {a.name: a for a in (EulerParameterAttitude(), Euler313Attitude())}


def _skew(u):
    """ũ (N, 3, 3) with ũ θ = u × θ."""
    out = np.zeros((len(u), 3, 3))
    out[:, 0, 1], out[:, 0, 2], out[:, 1, 2] = -u[:, 2], u[:, 1], -u[:, 0]
    out[:, 1, 0], out[:, 2, 0], out[:, 2, 1] = u[:, 2], -u[:, 1], u[:, 0]
    return out


def _vee(W):
    """The vector of the skew part of W (…, 3, 3)."""
    return 0.5 * np.stack([W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]],
                          axis=-1)


class ModalMarkers(MarkerSet):
    """Markers on modal beams: points x = R + A(p) P(ū) ê(η) (x_f = ū + S(ū) η, plus the
    axis' foreshortening when the kind has it), directions x = A(p) u (the floating
    frame's), constants x = u (module docstring)."""

    def __init__(self, kind, u, mtype, anchors=None):
        super().__init__(kind, u, mtype, anchors)
        # P(ū) of the point markers without the ū column (zero for the others): (N, 3, na − 1)
        self.P = kind.point_coefficients(self.u)[:, :, 1:] * self.point[:, None, None]
        if self.anchors is not None:
            # directions anchored at a point of the beam turn with its section:
            # x_f = u + θ × u = u − ũ S_θ(ξ) η (first order in η)
            turn = (self.mtype == VECTOR) & np.all(np.isfinite(self.anchors), axis=1)
            if turn.any():
                self.P[turn, :, :kind.n] = -np.einsum("nij,njb->nib", _skew(self.u[turn]),
                                                      kind.section_rotation(self.anchors[turn]))
        self.ur = self.u * self.rot[:, None]                                   # ū of rotating markers

    def _parts(self, qb, order):
        r = self.kind.r
        ders = self.kind.attitude.derivatives(qb[:, 3:3 + r], order)
        eta = qb[:, 3 + r:]
        xf = self.ur + np.einsum("nlb,nb->nl", self.P, self.kind.e_hat(eta)[:, 1:])    # x_f = P ê
        Se = np.einsum("nlb,nbk->nlk", self.P, self.kind.e_hat_d(eta)[:, 1:])          # ∂x_f/∂η
        return ders, xf, Se

    def evaluate(self, qb):
        r = self.kind.r
        (a, da), xf, Se = self._parts(qb, 1)
        x = self.point[:, None] * qb[:, :3] + np.einsum("nl,nli->ni", xf, a) + self.const[:, None] * self.u
        J = np.zeros((self.n, 3, self.kind.nv))
        J[:, 0, 0] = J[:, 1, 1] = J[:, 2, 2] = self.point
        J[:, :, 3:3 + r] = np.einsum("nl,nlik->nik", xf, da)
        J[:, :, 3 + r:] = np.einsum("nlb,nli->nib", Se, a)
        return x, J

    def contract(self, qb, g):
        r, kind = self.kind.r, self.kind
        (a, da, dda), xf, Se = self._parts(qb, 2)
        out = np.zeros((self.n, kind.nv, kind.nv))
        # contracted pairwise (a three- or four-operand einsum loops over every index at once)
        out[:, 3:3 + r, 3:3 + r] = np.einsum("nli,nlijk->njk", g[:, None, :] * xf[:, :, None], dda)
        te = np.einsum("nlb,nlk->nkb", Se, np.einsum("ni,nlik->nlk", g, da))   # ∂²(g·x)/∂θ∂η
        out[:, 3:3 + r, 3 + r:] = te
        out[:, 3 + r:, 3:3 + r] = np.swapaxes(te, 1, 2)
        if kind.pairs:
            gp = np.einsum("nl,nlb->nb", np.einsum("ni,nli->nl", g, a), self.P)   # (g·a_l) P_lb
            out[:, 3 + r:, 3 + r:] = (gp @ kind.e_hat_dd[1:].reshape(kind.na - 1, -1)).reshape(self.n, kind.n, kind.n)
        return out

    def dJv(self, qb, vb):
        r, kind = self.kind.r, self.kind
        (a, da, dda), xf, Se = self._parts(qb, 2)
        thd, etad = vb[:, 3:3 + r], vb[:, 3 + r:]
        out = np.zeros((self.n, 3, kind.nv))
        Sd = np.einsum("nlb,nb->nl", Se, etad)                                  # ẋ_f
        out[:, :, 3:3 + r] = np.einsum("nl,nlijk,nj->nik", xf, dda, thd) + np.einsum("nl,nlik->nik", Sd, da)
        out[:, :, 3 + r:] = np.einsum("nlb,nlik,nk->nib", Se, da, thd)
        if kind.pairs:
            Sed = np.einsum("nlb,bkm,nm->nlk", self.P, kind.e_hat_dd[1:], etad)  # d/dt ∂x_f/∂η
            out[:, :, 3 + r:] += np.einsum("nlk,nli->nik", Sed, a)
        return out


class FloatingFrameKind(NodeKind):
    """A floating frame of reference with n modal coordinates, q = [R, θ, η] (module
    docstring): everything but the mode shapes, shared by the modal beam
    (:class:`ModalKind`) and the modal body from finite-element data
    (:class:`flexmbd.nodes.fe_modal.FEModalKind`).  A subclass sets the shapes
    (``shape_matrix``), ``check_offsets``, ``key`` and calls :meth:`_setup`."""

    noun = "modal body"
    marker_class = ModalMarkers
    euler_frame = True
    deformable = True

    def _setup(self, n: int, attitude: str, mode_names) -> None:
        """The attitude, the sizes and the coordinate names (n modal coordinates called ``mode_names``)."""
        if attitude not in ATTITUDES:
            raise ValueError(f"{self.name} kind: unknown attitude {attitude!r}; known: {', '.join(ATTITUDES)}")
        self.attitude = ATTITUDES[attitude]
        self.r = self.attitude.r
        self.n = int(n)
        self.nq = self.nv = 3 + self.r + self.n
        self.coordinate_names = ("x", "y", "z") + self.attitude.names + tuple(mode_names)
        self.velocity_names = self.coordinate_names
        self.ground_q = np.r_[0.0, 0.0, 0.0, self.attitude.identity, np.zeros(self.n)]
        self._set_pairs([])

    def _set_pairs(self, pairs) -> None:
        """The products η_i η_j (i ≤ j) in ê = [1, η, (η_i η_j)] (the beam's foreshortening;
        none for linear kinematics)."""
        self.pairs = list(pairs)
        self._pair_index = tuple(np.array(self.pairs, dtype=int).reshape(-1, 2).T)
        #: length of ê
        self.na = 1 + self.n + len(self.pairs)
        d2 = np.zeros((self.na, self.n, self.n))
        for b, (i, j) in enumerate(self.pairs):
            d2[1 + self.n + b, i, j] += 1.0
            d2[1 + self.n + b, j, i] += 1.0
        #: ∂²ê/∂η∂η (na, n, n), constant
        self.e_hat_dd = d2

    # ------------------------------------------- the monomials ê of the modal coordinates
    def e_hat(self, eta: np.ndarray) -> np.ndarray:
        """ê = [1, η, (η_i η_j)_pairs] (N, na): every material point is x = P(ū) ê."""
        N, n = len(eta), self.n
        out = np.empty((N, self.na))
        out[:, 0] = 1.0
        out[:, 1:1 + n] = eta
        if self.pairs:
            i, j = self._pair_index
            out[:, 1 + n:] = eta[:, i] * eta[:, j]
        return out

    def e_hat_d(self, eta: np.ndarray) -> np.ndarray:
        """∂ê/∂η (N, na, n): 0, I, and e_i η_j + η_i e_j for the pairs."""
        N, n = len(eta), self.n
        out = np.zeros((N, self.na, n))
        out[:, 1:1 + n] = np.eye(n)
        if self.pairs:
            out[:, 1 + n:] = np.einsum("bkm,nm->nbk", self.e_hat_dd[1 + n:], eta)
        return out

    def e_hat_rates(self, eta, etad, etadd=None):
        """ê̇ = ∂ê/∂η η̇ and, with η̈, ê̈ = ∂ê/∂η η̈ + ∂²ê[η̇, η̇] (N, na)."""
        dE = self.e_hat_d(eta)
        rate = np.einsum("nak,nk->na", dE, etad)
        if etadd is None:
            return rate
        return rate, np.einsum("nak,nk->na", dE, etadd) + np.einsum("akm,nk,nm->na", self.e_hat_dd, etad, etad)

    @property
    def eta(self) -> slice:
        """The modal coordinates' slice of q (and of v)."""
        return slice(3 + self.r, self.nq)

    def shape_matrix(self, u) -> np.ndarray:
        """S(ū) (N, 3, n) at material points ū (N, 3) in the undeformed frame."""
        raise NotImplementedError

    def pair_coefficients(self, u) -> np.ndarray:
        """The point coefficients of the pairs (N, 3, n_pairs) (the beam's foreshortening)."""
        return np.zeros((len(u), 3, len(self.pairs)))

    def point_coefficients(self, u) -> np.ndarray:
        """P(ū) (N, 3, na) with x = P ê (ê of :meth:`e_hat`): [ū, S(ū), pair coefficients]."""
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        P = np.zeros((len(u), 3, self.na))
        P[:, :, 0] = u
        P[:, :, 1:1 + self.n] = self.shape_matrix(u)
        if self.pairs:
            P[:, :, 1 + self.n:] = self.pair_coefficients(u)
        return P

    def section_rotation(self, x) -> np.ndarray:
        """S_θ (N, 3, n): the small rotation, θ = S_θ η, of the material at anchors x (N, 3)
        of direction markers; zero here (directions follow the frame), the beam's sections
        turn (:class:`ModalKind`)."""
        return np.zeros((len(np.atleast_2d(x)), 3, self.n))

    def check_directions(self, names, u, element=None):
        """Directions follow the floating frame: every direction is fine."""

    # ---------------------------------------------------- poses and velocities
    def orientation_matrix(self, orientation):
        return rotation_matrix(np.asarray(orientation, dtype=float).reshape(-1, 4))

    def _rates(self, q):
        """A (N, 3, 3), its derivatives ∂A/∂θ_k (N, 3, 3, r) and the maps of θ' to the global and
        body angular velocities, H and H' (N, 3, r): ω̃ = Ȧ Aᵀ, ω̃' = Aᵀ Ȧ."""
        r = self.r
        a, da = self.attitude.derivatives(q[:, 3:3 + r], 1)
        A, dA = np.swapaxes(a, 1, 2), np.swapaxes(da, 1, 2)
        H = _vee(np.einsum("nijk,nlj->nkil", dA, A))
        Hb = _vee(np.einsum("nji,njlk->nkil", A, dA))
        return A, dA, np.swapaxes(H, 1, 2), np.swapaxes(Hb, 1, 2)

    def initial_state(self, x, orientation, xd, w, A):
        z = np.zeros((len(x), self.n))
        if self.attitude.name == "euler-parameters":
            p = np.asarray(orientation, dtype=float)
            th, thd = p, _matvec(0.5 * np.swapaxes(E_matrix(p), 1, 2), w)       # ṗ = ½ Eᵀ ω
        else:
            try:
                th = self.attitude.from_matrix(A)
            except ValueError as exc:
                raise ModelError(f"{self.noun}: {exc}") from None
            q = np.concatenate([x, th, z], axis=1)
            thd = np.linalg.solve(self._rates(q)[2], w[:, :, None])[:, :, 0]
        return np.concatenate([x, th, z], axis=1), np.concatenate([xd, thd, z], axis=1)

    def initial_coordinates(self, nodes, q, v):
        for k, b in enumerate(nodes):
            eta = getattr(b, "modal_coordinates", None)
            if eta is not None:
                q[k, self.eta] = eta
            rate = getattr(b, "modal_velocities", None)
            if rate is not None:
                v[k, self.eta] = rate
        return q, v

    def pose(self, q):
        if self.attitude.name == "euler-parameters":
            p = q[:, 3:7]
            return q[:, :3], rotation_matrix(p / np.linalg.norm(p, axis=1, keepdims=True))
        return q[:, :3], self._rates(q)[0]

    def _omega(self, q, v):
        if self.attitude.name == "euler-parameters":
            return 2.0 * np.einsum("nij,nj->ni", E_matrix(q[:, 3:7]), v[:, 3:7])
        return np.einsum("nik,nk->ni", self._rates(q)[2], v[:, 3:3 + self.r])

    def twist(self, q, v):
        return v[:, :3], self._omega(q, v)

    def body_omega(self, q, v):
        """ω' in frame axes (N, 3) and its derivatives with respect to the attitude
        coordinates and their rates (N, 3, r): ω' = 2 G(p) ṗ = −2 G(ṗ) p (Euler parameters),
        ω̃' = Aᵀ Ȧ (Euler angles)."""
        r = self.r
        if self.attitude.name == "euler-parameters":
            p, pd = q[:, 3:7], v[:, 3:7]
            Gp = G_matrix(p)
            return 2.0 * np.einsum("nij,nj->ni", Gp, pd), -2.0 * G_matrix(pd), 2.0 * Gp
        a, da, dda = self.attitude.derivatives(q[:, 3:3 + r], 2)
        A, dA, ddA = np.swapaxes(a, 1, 2), np.swapaxes(da, 1, 2), np.swapaxes(dda, 1, 2)
        thd = v[:, 3:3 + r]
        Hb = _vee(np.einsum("nji,njlk->nkil", A, dA))                              # (N, r, 3)
        dHb = _vee(np.einsum("njim,njlk->nkmil", dA, dA) + np.einsum("nji,njlkm->nkmil", A, ddA))
        w = np.einsum("nki,nk->ni", Hb, thd)
        return w, np.einsum("nkmi,nk->nim", dHb, thd), np.swapaxes(Hb, 1, 2)

    def velocity_from_twist(self, q, xd, w):
        z = np.zeros((len(q), self.n))
        if self.attitude.name == "euler-parameters":
            p = q[:, 3:7] / np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
            return np.concatenate([xd, 0.5 * np.einsum("nji,nj->ni", E_matrix(p), w), z], axis=1)
        return np.concatenate([xd, np.linalg.solve(self._rates(q)[2], w[:, :, None])[:, :, 0], z], axis=1)

    def output(self, what, q, v):
        if what == "position":
            return q[:, :3]
        if what == "velocity":
            return v[:, :3]
        if what == "orientation":
            return q[:, 3:7] if self.attitude.name == "euler-parameters" else quat_from_matrix(self.pose(q)[1])
        if what == "angular_velocity":
            return self._omega(q, v)
        raise KeyError(what)

    # ------------------------------------------------------------------ loads
    def weight(self, q, mass, g, jacobians=True):
        """The weight m g at the frame's origin (the distributed weight of a modal beam is
        its own group)."""
        Q = np.zeros((len(mass), self.nv))
        Q[:, :3] = mass[:, None] * g
        return Q, None

    def torque_force(self, q, n, body_fixed, jacobians=True):
        """A torque on the floating frame: Q_p = 2 Eᵀ n or 2 Gᵀ n' (Nikravesh 1988, sec. 6.4);
        with Euler angles Q_Θ = Hᵀ n or H'ᵀ n' (ω = H Θ', ω' = H' Θ')."""
        r = self.r
        Q = np.zeros((len(q), self.nv))
        if self.attitude.name == "euler-parameters":
            p = q[:, 3:7]
            T = np.where(body_fixed[:, None, None], G_matrix(p), E_matrix(p))
            Q[:, 3:7] = 2.0 * np.einsum("nij,ni->nj", T, n)
            if not jacobians:
                return Q, None
            K = np.zeros((len(q), self.nv, self.nv))
            KE = 2.0 * np.einsum("ni,ijk->njk", n, DE)
            KG = 2.0 * np.einsum("ni,ijk->njk", n, DG)
            K[:, 3:7, 3:7] = np.where(body_fixed[:, None, None], KG, KE)
            return Q, K
        a, da, dda = self.attitude.derivatives(q[:, 3:3 + r], 2)
        A, dA, ddA = np.swapaxes(a, 1, 2), np.swapaxes(da, 1, 2), np.swapaxes(dda, 1, 2)
        H = _vee(np.einsum("nijk,nlj->nkil", dA, A))                               # (N, r, 3) rows h_k
        Hb = _vee(np.einsum("nji,njlk->nkil", A, dA))
        T = np.where(body_fixed[:, None, None], Hb, H)
        Q[:, 3:3 + r] = np.einsum("nki,ni->nk", T, n)
        if not jacobians:
            return Q, None
        # ∂h_k/∂θ_m = vee(∂²A_km Aᵀ + ∂A_k ∂A_mᵀ) (global), vee(∂A_mᵀ ∂A_k + Aᵀ ∂²A_km) (body)
        dH = _vee(np.einsum("nijkm,nlj->nkmil", ddA, A) + np.einsum("nijk,nljm->nkmil", dA, dA))
        dHb = _vee(np.einsum("njim,njlk->nkmil", dA, dA) + np.einsum("nji,njlkm->nkmil", A, ddA))
        dT = np.where(body_fixed[:, None, None, None], dHb, dH)
        K = np.zeros((len(q), self.nv, self.nv))
        K[:, 3:3 + r, 3:3 + r] = np.einsum("nkmi,ni->nkm", dT, n)
        return Q, K



class ModalKind(FloatingFrameKind):
    """A floating-frame modal beam (module docstring): ``ends`` of :data:`ENDS`, length L,
    the beam's start ξ₀ on the frame's x axis, and the number of modes per direction
    (axial, bending along y, bending along z, torsion)."""

    name = "modal"
    noun = "modal beam"

    def __init__(self, ends: str, length: float, start: float, counts, attitude: str = "euler-parameters",
                 foreshortening: bool = False) -> None:
        if ends not in ENDS:
            raise ValueError(f"modal kind: unknown ends {ends!r}; known: {', '.join(ENDS)}")
        self.ends, self.length, self.start = ends, float(length), float(start)
        self.counts = tuple(int(c) for c in counts)
        if len(self.counts) != 4 or min(self.counts) < 0 or not self.length > 0:
            raise ValueError(f"modal kind: bad parameters {ends, length, start, counts}")
        letters = ("u", "v", "w", "t")
        self._setup(sum(self.counts), attitude,
                    [f"{letter}{i + 1}" for letter, c in zip(letters, self.counts) for i in range(c)])
        self.modes = [BeamModes("rod" if f in ("axial", "torsion") else "bending", ends, c, self.length)
                      for f, c in zip(FAMILIES, self.counts)]
        first = np.cumsum((0,) + self.counts)
        #: the modal coordinates of each direction: slices into η
        self.slices = {f: slice(int(first[i]), int(first[i + 1])) for i, f in enumerate(FAMILIES)}
        #: the products η_i η_j (i ≤ j, modes of one bending direction) of the foreshortening
        self.foreshortening = bool(foreshortening) and self.counts[1] + self.counts[2] > 0
        self._set_pairs([(i, j) for f in ("bending_y", "bending_z") if self.foreshortening
                         for i in range(self.slices[f].start, self.slices[f].stop)
                         for j in range(i, self.slices[f].stop)])

    @property
    def key(self) -> str:
        key = f"modal:{self.ends}:{self.length!r}:{self.start!r}:" + ".".join(str(c) for c in self.counts)
        if self.attitude.name != "euler-parameters":
            key = f"{key}:{self.attitude.name}"
        return f"{key}:foreshortening" if self.foreshortening else key

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

    def section_rotation(self, x) -> np.ndarray:
        """S_θ(ξ) (N, 3, n): the small rotation vector of the section at frame coordinate ξ
        (the anchors' first coordinate), θ = S_θ η in frame axes (Bernoulli-Euler:
        θ_x = φ_θ η_θ, θ_y = −w′, θ_z = v′)."""
        x = np.atleast_2d(np.asarray(x, dtype=float))[:, 0]
        s = np.clip(x - self.start, 0.0, self.length)
        (_, _, _, ft), (_, dv, dw, _) = self.mode_values(s, 0), self.mode_values(s, 1)
        out = np.zeros((len(x), 3, self.n))
        sl = self.slices
        out[:, 0, sl["torsion"]] = ft
        out[:, 1, sl["bending_z"]] = -dw
        out[:, 2, sl["bending_y"]] = dv
        return out

    def slope_products(self, x) -> np.ndarray:
        """G(ξ) = ∫₀^ξ φ′ φ′ᵀ dξ′ for the pairs (N, n_pairs), the integral of the bending
        slopes' products from the frame origin (ξ = 0) to the points' ξ (signed), by Gauss
        quadrature; the foreshortening of the axis at ξ is −½ Σ_(i≤j) c_ij G_ij(ξ) η_i η_j
        (c = 1 on the diagonal, 2 off it)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        if not self.pairs:
            return np.zeros((len(x), 0))
        s_ref = -self.start
        s_end = np.clip(x - self.start, 0.0, self.length)
        sg, wg = gauss_rule(self.length, max(self.counts))
        span = (s_end - s_ref)[:, None] / self.length
        s = s_ref + sg[None, :] * span                                  # (N, m) points from the origin
        w = wg[None, :] * span
        slopes = np.zeros(s.shape + (self.n,))
        for f, modes in (("bending_y", self.modes[1]), ("bending_z", self.modes[2])):
            if modes.n:
                slopes[..., self.slices[f]] = modes.values(s.ravel(), 1).reshape(*s.shape, -1)
        i, j = np.array(self.pairs).T
        return np.einsum("nk,nkb->nb", w, slopes[..., i] * slopes[..., j])

    def pair_coefficients(self, u) -> np.ndarray:
        """−½ c_ij G_ij(ξ) e_x (N, 3, n_pairs): the foreshortening moves every point of a
        section along the frame's x axis by the shortening of the deflected axis up to it."""
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        out = np.zeros((len(u), 3, len(self.pairs)))
        if self.pairs:
            i, j = np.array(self.pairs).T
            out[:, 0] = -0.5 * np.where(i == j, 1.0, 2.0) * self.slope_products(u[:, 0])
        return out

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

def modal_kind_from_key(params: str) -> ModalKind:
    """The kind of a key ``modal:<ends>:<L>:<ξ₀>:<n_u>.<n_v>.<n_w>.<n_θ>[:euler-313][:foreshortening]``
    (the part after "modal:")."""
    parts = params.split(":")
    ends, length, start, counts = parts[:4]
    flags = parts[4:]
    attitude = next((f for f in flags if f in ATTITUDES), "euler-parameters")
    return ModalKind(ends, float(length), float(start), [int(c) for c in counts.split(".")], attitude,
                     foreshortening="foreshortening" in flags)


__all__ = ["FloatingFrameKind", "ModalKind", "ModalMarkers", "modal_kind_from_key", "FAMILIES", "C_L", "ATTITUDES",
           "EulerParameterAttitude", "Euler313Attitude"]
