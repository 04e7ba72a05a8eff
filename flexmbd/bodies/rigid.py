"""Rigid bodies in absolute coordinates.

Spatial bodies use q = [R, p] with Euler parameters p (P1, N = 7).  With ω' = 2 G ṗ the
kinetic energy is T = ½ m Ṙ·Ṙ + 2 ṗᵀ Gᵀ J' G ṗ and Lagrange's equations give
(Nikravesh 1988, eq. 6.99; P1 sec. 1)

    m R̈ = f,     4 Gᵀ J' G p̈ + 8 G(ṗ)ᵀ J' G(p) ṗ = n_p,

the second term being the quadratic-velocity (gyroscopic) force written with the
identity G(p) s = −G(s) p.  The 4×4 mass block is singular along p; the
normalisation constraint p·p − 1 = 0 (its own multiplier) makes the system regular.
Planar bodies use q = [x, y, θ] with the constant mass matrix diag(m, m, I_z).

Rotation-vector bodies (:data:`~flexmbd.nodes.ROTATION`) keep q = [R, p] but their
velocities are v = [Ṙ, Ω] (Ω in body axes) and their increments (ΔR, Δθ) act as
p ⊗ exp(Δθ).  Their inertia force is the body-frame Newton-Euler form

    F = [m R̈;  J Ω̇ + Ω × J Ω],   ∂F/∂v = [0; Ω̃ J − (J Ω)~],   ∂F/∂Δ = 0,   M = diag(m I, J).

SE(3) bodies (:data:`~flexmbd.nodes.SE3`) have body-frame twists v = (U, Ω),
ẋ = A U, and obey M η̇ − ad(η)ᵀ M η = f on SE(3) (Sonneville et al. 2014, eq. for rigid
bodies), with the centre of mass at the frame origin:

    F = [m (U̇ + Ω × U);  J Ω̇ + Ω × J Ω],
    ∂F/∂v = [[m Ω̃, −m Ũ], [0, Ω̃ J − (J Ω)~]],   ∂F/∂Δ = 0,   M = diag(m I, J).

Every group has ``config_index`` (into the extended configuration vector) and
``dof_index`` (into the extended velocity/increment vector: residual rows, matrix columns).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..groups import InertiaGroup
from ..nodes import PLANAR, ROTATION, SE3, SPATIAL, NodeKind
from ..rotations import DG, G_matrix, skew

if USE_KERNELS:
    from ..kernels.bodies import frame_inertia as _kernel_frame_inertia
    from ..kernels.bodies import inertia_force as _kernel_inertia


@dataclass(eq=False)
class Body:
    """A rigid body.  Its frame origin is the centre of mass.

    ``inertia`` is the 3×3 inertia tensor about the centre of mass in body axes (a
    3-vector means principal values).  ``orientation`` is a rotation matrix or Euler
    parameters; ``angular_velocity`` is given in the global frame.
    """

    name: str
    kind: NodeKind
    mass: float
    inertia: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    index: int = -1  # position in the model's body list, set by the model

    def __repr__(self):
        return f"Body({self.name!r}, {self.kind.name})"


class SpatialBodyGroup(InertiaGroup):
    """All spatial bodies, evaluated together as arrays."""

    kind = SPATIAL

    def __init__(self, bodies, dof_index, config_index=None):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 7)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 7)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        self.inertia = np.ascontiguousarray(np.array([b.inertia for b in bodies], dtype=float).reshape(-1, 3, 3))

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def mass_matrix(self, qb):
        G = G_matrix(qb[:, 3:7])
        M = np.zeros((len(self), 7, 7))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        M[:, 3:, 3:] = 4.0 * np.einsum("nji,njk,nkl->nil", G, self.inertia, G)
        return M

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = M(q) a + (quadratic velocity terms); with ∂F/∂q, ∂F/∂v and M."""
        if USE_KERNELS:
            return _kernel_inertia(self, qb, vb, ab, jacobians)
        p, pd, pa = qb[:, 3:7], vb[:, 3:7], ab[:, 3:7]
        G, Gd, Ga = G_matrix(p), G_matrix(pd), G_matrix(pa)
        Jw = self.inertia
        w1 = np.einsum("nij,njk,nk->ni", Jw, G, pa)      # J' G a_p
        w2 = np.einsum("nij,njk,nk->ni", Jw, G, pd)      # J' G ṗ  (= ω'/2 · J')
        F = np.empty((len(self), 7))
        F[:, :3] = self.mass[:, None] * ab[:, :3]
        F[:, 3:] = 4.0 * np.einsum("nij,ni->nj", G, w1) + 8.0 * np.einsum("nij,ni->nj", Gd, w2)
        if not jacobians:
            return F, None, None, None
        M = np.zeros((len(self), 7, 7))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        JG = np.einsum("nij,njk->nik", Jw, G)
        M[:, 3:, 3:] = 4.0 * np.einsum("nji,njk->nik", G, JG)
        K = np.zeros_like(M)
        K[:, 3:, 3:] = 4.0 * (
            np.einsum("ni,ijk->njk", w1, DG) - np.einsum("nji,njk->nik", G, np.einsum("nij,njk->nik", Jw, Ga))
        ) - 8.0 * np.einsum("nji,njk->nik", Gd, np.einsum("nij,njk->nik", Jw, Gd))
        D = np.zeros_like(M)
        D[:, 3:, 3:] = 8.0 * (np.einsum("ni,ijk->njk", w2, DG) + np.einsum("nji,njk->nik", Gd, JG))
        return F, K, D, M

    def element_kinetic_energy(self, qb, vb):
        G = G_matrix(qb[:, 3:7])
        w = np.einsum("nij,nj->ni", G, vb[:, 3:7])
        return 0.5 * self.mass * np.einsum("ni,ni->n", vb[:, :3], vb[:, :3]) + 2.0 * np.einsum(
            "ni,nij,nj->n", w, self.inertia, w
        )


class PlanarBodyGroup(InertiaGroup):
    """All planar bodies: M = diag(m, m, I_z), no velocity-dependent inertia."""

    kind = PLANAR

    def __init__(self, bodies, dof_index, config_index=None):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 3)
        self.config_index = self.dof_index if config_index is None else np.asarray(config_index, int).reshape(-1, 3)
        self.diag = np.array([[b.mass, b.mass, np.asarray(b.inertia)[2, 2]] for b in bodies], dtype=float).reshape(-1, 3)

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def mass_matrix(self, qb):
        return np.einsum("ni,ij->nij", self.diag, np.eye(3))

    def inertia_force(self, qb, vb, ab, jacobians=True):
        F = self.diag * ab
        if not jacobians:
            return F, None, None, None
        M = self.mass_matrix(qb)
        Z = np.zeros_like(M)
        return F, Z, Z.copy(), M

    def element_kinetic_energy(self, qb, vb):
        return 0.5 * np.einsum("ni,ni->n", self.diag, vb * vb)


class RotationBodyGroup(InertiaGroup):
    """All rotation-vector (Lie-group) bodies: body-frame Newton-Euler equations."""

    kind = ROTATION

    def __init__(self, bodies, dof_index, config_index):
        self.bodies = bodies
        self.dof_index = np.asarray(dof_index, dtype=int).reshape(-1, 6)
        self.config_index = np.asarray(config_index, dtype=int).reshape(-1, 7)
        self.mass = np.array([b.mass for b in bodies], dtype=float)
        self.inertia = np.array([b.inertia for b in bodies], dtype=float).reshape(-1, 3, 3)

    def __len__(self):
        return len(self.bodies)

    @property
    def element_names(self):
        return [b.name for b in self.bodies]

    def mass_matrix(self, qb):
        M = np.zeros((len(self), 6, 6))
        M[:, 0, 0] = M[:, 1, 1] = M[:, 2, 2] = self.mass
        M[:, 3:, 3:] = self.inertia
        return M

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = [m a; J Ω̇ + Ω × J Ω]; ∂F/∂Δ = 0, ∂F/∂v, M."""
        w, wd = vb[:, 3:6], ab[:, 3:6]
        Jw = np.einsum("nij,nj->ni", self.inertia, w)
        F = np.empty((len(self), 6))
        F[:, :3] = self.mass[:, None] * ab[:, :3]
        F[:, 3:] = np.einsum("nij,nj->ni", self.inertia, wd) + np.cross(w, Jw)
        if not jacobians:
            return F, None, None, None
        M = self.mass_matrix(qb)
        K = np.zeros_like(M)
        D = np.zeros_like(M)
        D[:, 3:, 3:] = np.einsum("nij,njk->nik", skew(w), self.inertia) - skew(Jw)
        return F, K, D, M

    def element_kinetic_energy(self, qb, vb):
        w = vb[:, 3:6]
        return 0.5 * self.mass * np.einsum("ni,ni->n", vb[:, :3], vb[:, :3]) + 0.5 * np.einsum(
            "ni,nij,nj->n", w, self.inertia, w)


class FrameBodyGroup(RotationBodyGroup):
    """All SE(3) rigid bodies (kind ``se3``): body-frame Newton-Euler on SE(3)."""

    kind = SE3

    def inertia_force(self, qb, vb, ab, jacobians=True):
        """F = [m (U̇ + Ω × U); J Ω̇ + Ω × J Ω]; ∂F/∂Δ = 0, ∂F/∂v, M."""
        if USE_KERNELS:
            n = len(self)
            F = np.empty((n, 6))
            K, D, M = (np.empty((n, 6, 6)) for _ in range(3)) if jacobians else (np.empty((0, 6, 6)),) * 3
            _kernel_frame_inertia(np.ascontiguousarray(vb), np.ascontiguousarray(ab), self.mass, self.inertia,
                                  jacobians, F, K, D, M)
            return (F, K, D, M) if jacobians else (F, None, None, None)
        F, K, D, M = super().inertia_force(qb, vb, ab, jacobians)
        U, w = vb[:, :3], vb[:, 3:6]
        F[:, :3] += self.mass[:, None] * np.cross(w, U)
        if jacobians:
            m = self.mass[:, None, None]
            D[:, :3, :3] = m * skew(w)
            D[:, :3, 3:] = -m * skew(U)
        return F, K, D, M
