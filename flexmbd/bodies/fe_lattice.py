"""A small finite-element model with translational degrees of freedom only, for the modal
body's examples and tests: a space-truss beam (a lattice of pin-jointed bars).

Four nodes per station at (x, ±w/2, ±w/2), stations a = L/bays apart along x; bars along
the four edges, round each station's square with one diagonal across it, and one diagonal
on each of the four faces of every bay.  Point masses at the nodes (a lumped, diagonal
mass, M = M_s ⊗ I₃) and, optionally, the bars' consistent mass (ρAℓ/6)[2I, I; I, 2I].
Bar stiffness EA/ℓ e eᵀ (e the bar's unit vector).

As a beam it bends with EI ≈ E A_bar w² (the four edge bars at distance w/2·√2 … in each
bending plane: 4 A (w/2)² = A w²) and carries the mass per length μ = 4 m/a; its bending
frequencies approach Bernoulli-Euler's ω_i = (β_i L)² √(EI/(μ L⁴)) as the beam gets slender
(the diagonals' shear flexibility and the rotary inertia of the nodes are the difference).
"""
from __future__ import annotations

import numpy as np


def truss_beam(length: float = 1.0, bays: int = 10, width: float = 0.05, E: float = 7e10, area: float = 1e-5,
               node_mass: float = 0.05, bar_density: float = 0.0, centered: bool = False) -> dict:
    """FE data of the truss beam (module docstring) with the keys of the modal body's data
    files: ``nodes`` (N, 3), ``mass`` (3N, 3N), ``stiffness`` (3N, 3N); and ``root``: the
    four nodes of the first station (an interface for Craig-Bampton modes or a clamp),
    ``tip``: the last station's, ``edges``: the bars' node pairs (E, 2).  ``centered`` puts the
    origin at the centre of mass."""
    a = length / bays
    h = 0.5 * width
    corners = np.array([[h, h], [-h, h], [-h, -h], [h, -h]])
    nodes = np.array([[i * a, y, z] for i in range(bays + 1) for y, z in corners])
    if centered:
        nodes[:, 0] -= 0.5 * length
    bars = []
    for i in range(bays + 1):
        s = 4 * i
        bars += [(s + k, s + (k + 1) % 4) for k in range(4)] + [(s, s + 2)]
        if i < bays:
            t = s + 4
            bars += [(s + k, t + k) for k in range(4)] + [(s + k, t + (k + 1) % 4) for k in range(4)]
    N = len(nodes)
    K = np.zeros((3 * N, 3 * N))
    Ms = np.eye(N) * node_mass
    for i, j in bars:
        d = nodes[j] - nodes[i]
        ell = np.linalg.norm(d)
        e = d / ell
        k = E * area / ell * np.outer(e, e)
        for p, q, sgn in ((i, i, 1.0), (j, j, 1.0), (i, j, -1.0), (j, i, -1.0)):
            K[3 * p:3 * p + 3, 3 * q:3 * q + 3] += sgn * k
        if bar_density:
            m = bar_density * area * ell / 6.0
            Ms[i, i] += 2 * m
            Ms[j, j] += 2 * m
            Ms[i, j] += m
            Ms[j, i] += m
    return dict(nodes=nodes, mass=np.kron(Ms, np.eye(3)), stiffness=K, root=np.arange(4),
                tip=np.arange(4 * bays, 4 * bays + 4), edges=np.array(bars))


def beam_properties(length=1.0, bays=10, width=0.05, E=7e10, area=1e-5, node_mass=0.05) -> dict:
    """The equivalent Bernoulli-Euler beam of :func:`truss_beam` with point masses only:
    EI = E A w², μ = 4 m / a (per length), ρI = m w² / a (the nodes' rotary inertia per length)."""
    a = length / bays
    return dict(EI=E * area * width ** 2, mu=4 * node_mass / a, rhoI=node_mass * width ** 2 / a)


def save_truss(path, **kw) -> dict:
    """Write :func:`truss_beam` FE data to ``path`` (.npz or HDF5) in the sparse form of the
    data files (``mass`` its diagonal, ``stiffness_rows``/``_cols``/``_values``) with the
    root section as ``interface``; returns the truss."""
    import pathlib

    fe = truss_beam(**kw)
    K = fe["stiffness"]
    rows, cols = np.nonzero(K)
    arrays = dict(nodes=fe["nodes"], mass=np.diag(fe["mass"]).copy(), stiffness_rows=rows, stiffness_cols=cols,
                  stiffness_values=K[rows, cols], interface=fe["root"], edges=fe["edges"])
    path = pathlib.Path(path)
    if path.suffix == ".npz":
        np.savez_compressed(path, **arrays)
    else:
        import h5py

        with h5py.File(path, "w") as f:
            for k, v in arrays.items():
                f[k] = v
    return fe


def truss_data(**kw) -> tuple[dict, dict]:
    """The FE data of :func:`truss_beam` (keyword arguments override its defaults) as a
    modal body takes it (nodes, mass, stiffness), and the whole model."""
    fe = truss_beam(**kw)
    return {k: fe[k] for k in ("nodes", "mass", "stiffness")}, fe


def clamped_eigenvalues(fe: dict, count: int) -> np.ndarray:
    """The FE model's ``count`` lowest eigenvalues ω² with its root nodes held."""
    import scipy.linalg as sla

    keep = np.setdiff1d(np.arange(len(fe["stiffness"])), (3 * fe["root"][:, None] + np.arange(3)).ravel())
    K, M = fe["stiffness"][np.ix_(keep, keep)], fe["mass"][np.ix_(keep, keep)]
    return sla.eigh(K, M, eigvals_only=True, subset_by_index=[0, count - 1])


__all__ = ["truss_beam", "beam_properties", "save_truss", "truss_data", "clamped_eigenvalues"]
