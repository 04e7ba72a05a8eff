"""Inertia of beam elements on SE(3) nodes.

The twist of the section at s is a linear map of the nodes' body-frame twists,
η(s) = P(s) η_e with η_e = (η_1, …, η_n), and every section obeys the balance of momentum
of a rigid body on SE(3), M_s η̇ − ad(η)ᵀ M_s η (Sonneville, Cardona & Brüls 2014, sec. 5),
so with Gauss points s_g and weights w_g

    F = Σ_g w_g P_gᵀ [M_s η̇_g − ad(η_g)ᵀ M_s η_g],   η_g = P_g η_e,  η̇_g = P_g η̇_e,
    M = Σ_g w_g P_gᵀ M_s P_g (constant),   ∂F/∂η_e = Σ_g w_g P_gᵀ (∂g/∂η) P_g,
    ∂g/∂η = −ad(η)ᵀ M_s − [[0, p̃_U], [p̃_U, p̃_Ω]],   p = M_s η,

and ∂F/∂Δ = 0.  The power of the gyroscopic terms vanishes (η_gᵀ ad(η_g)ᵀ p_g = 0), so the
semi-discrete kinetic energy ½ Σ_g w_g η_gᵀ M_s η_g is conserved by them.

The map P is constant (``BeamInertiaGroup`` keeps it):

* two-node elements: P = [N_1 I, N_2 I], the linear interpolation of the nodes' twists of
  [SCB14] (exact for the element in rigid motion, whose local twist is linear along its
  straight axis; optimal for linear elements);
* n-node elements (Lagrange of order ≥ 2, NURBS): P = ∂η(s)/∂η_e of the element's own
  interpolation H(s) = H_1 exp(Σ N_k ξ_k) at its reference configuration
  (:func:`flexmbd.beams.se3_beam.section_velocity_map`): the Bubnov-Galerkin mass of the
  beam linearised about its reference, so natural frequencies converge at O(h^{2p}) (as a
  consistent mass does, Cottrell, Reali, Bazilevs & Hughes, CMAME 195 (2006) 5257, for
  isogeometric elements).  Interpolating the nodes' twists instead, Σ N_k η_k (a
  Petrov-Galerkin choice), is inconsistent with the strain's variation by
  Σ N_k ½ δθ_k × (x(s) − x_k) in the linear limit: O(h^{p+1}) for Lagrange nodes, which
  lie on the axis, but O(h²) for NURBS control frames, which are not sections — cubic
  NURBS frequencies then converged at second order (docs/elements/beam-se3.md, "Inertia").
  P is exact for rigid motions of the undeformed element and invariant under rigid motion
  (it depends on the relative reference twists only); for a deformed element it differs
  from the current configuration's map by O(deformation) (no configuration-dependent mass).
"""
from __future__ import annotations

import numpy as np

from ..kernels import AVAILABLE as USE_KERNELS
from ..lie import se3_ad
from ..rotations import skew

if USE_KERNELS:
    from ..kernels import se3_beam as _kernel

__all__ = ["inertia_forces", "kinetic_energy", "velocity_map"]


def velocity_map(N):
    """P (E or 1, G, 6, 6n) of a velocity map given as shape values N (G, n) or (E, G, n)
    (P = [N_1 I, …, N_n I]); a map (…, G, 6, 6n) is returned as (E or 1, G, 6, 6n)."""
    N = np.asarray(N, dtype=float)
    if N.ndim == 4:
        return np.ascontiguousarray(N)
    if N.ndim == 2:
        N = N[None]
    E, G, n = N.shape
    P = np.einsum("egk,ij->egikj", N, np.eye(6)).reshape(E, G, 6, 6 * n)
    return np.ascontiguousarray(P)


def _element_maps(P, E):
    return np.broadcast_to(P, (E,) + P.shape[1:])


def inertia_forces(v, a, N, w, Ms, jacobians=True, mass=None):
    """Inertia forces of beam elements.

    v, a (E, n, 6) node twists and their rates; N the velocity map at the Gauss points:
    shape values (G, n) or (E, G, n), or a map P (E or 1, G, 6, 6n) (module docstring);
    w (E, G) arc-length weights; Ms (E, 6, 6) section inertia per length; ``mass`` the
    (constant) mass matrices M (E, 6n, 6n) if already known (returned as a copy instead of
    being summed again).  Returns F (E, 6n), D = ∂F/∂v (E, 6n, 6n), M (E, 6n, 6n) (None
    unless ``jacobians``).  Compiled (:mod:`flexmbd.kernels.se3_beam`) when Numba is available.
    """
    E, n = v.shape[:2]
    P = velocity_map(N)
    m = 6 * n
    if USE_KERNELS:
        F = np.empty((E, m))
        if not jacobians:
            D = M = np.empty((0, m, m))
        else:
            D = np.empty((E, m, m))
            M = np.empty((E, m, m)) if mass is None else np.array(mass, dtype=float)
        c = np.ascontiguousarray
        _kernel.inertia_forces(c(v, dtype=float), c(a, dtype=float), P, c(w, dtype=float),
                               c(Ms, dtype=float), jacobians, mass is None, F, D, M)
        return (F, D, M) if jacobians else (F, None, None)
    Pe = _element_maps(P, E)
    eta = np.einsum("egia,ea->egi", Pe, v.reshape(E, m))
    acc = np.einsum("egia,ea->egi", Pe, a.reshape(E, m))
    p = np.einsum("eij,egj->egi", Ms, eta)
    adT = np.swapaxes(se3_ad(eta), -1, -2)
    g = np.einsum("egij,egj->egi", Ms[:, None], acc) - np.einsum("egij,egj->egi", adT, p)
    F = np.einsum("eg,egia,egi->ea", w, Pe, g)
    if not jacobians:
        return F, None, None
    dg = -np.einsum("egij,ejk->egik", adT, Ms)
    pU, pO = skew(p[..., :3]), skew(p[..., 3:])
    dg[..., :3, 3:] -= pU
    dg[..., 3:, :3] -= pU
    dg[..., 3:, 3:] -= pO
    wP = w[..., None, None] * Pe
    D = np.einsum("egia,egij,egjb->eab", wP, dg, Pe, optimize=True)
    if mass is not None:
        return F, D, np.array(mass, dtype=float)
    M = np.einsum("egia,eij,egjb->eab", wP, Ms, Pe, optimize=True)
    return F, D, M


def kinetic_energy(v, N, w, Ms):
    """½ Σ_g w_g η_gᵀ M_s η_g per element (E,), η_g = P_g η_e (N as in ``inertia_forces``)."""
    P = velocity_map(N)
    if USE_KERNELS:
        T = np.empty(len(v))
        c = np.ascontiguousarray
        _kernel.kinetic_energy(c(v, dtype=float), P, c(w, dtype=float), c(Ms, dtype=float), T)
        return T
    E = len(v)
    eta = np.einsum("egia,ea->egi", _element_maps(P, E), np.reshape(v, (E, -1)))
    return 0.5 * np.einsum("eg,egi,eij,egj->e", w, eta, Ms, eta)
