"""Boundary conditions of a DT-TMM chain: two linear equations E_f f + E_a a = 0 on the
end station's forces f = (Q, M) and accelerations a = (z'', θ'') (P5: free left boundary,
P₀ = 0, S₀ = 0)."""
from __future__ import annotations

import numpy as np

from ..errors import ModelError

#: name → (E_f, E_a)
BOUNDARIES = {
    "free": (np.eye(2), np.zeros((2, 2))),
    "clamped": (np.zeros((2, 2)), np.eye(2)),
    # z'' = 0 and M = 0
    "pinned": (np.array([[0.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 0.0]])),
}


def equations(name: str, where: str = "boundary"):
    """(E_f, E_a) of a boundary condition by name; ModelError naming it otherwise."""
    try:
        Ef, Ea = BOUNDARIES[name]
    except (KeyError, TypeError):
        raise ModelError(f"{where}: unknown boundary condition {name!r}; choose one of "
                         f"{', '.join(BOUNDARIES)}", key=where) from None
    return Ef.copy(), Ea.copy()


def descriptor(name: str, where: str = "left"):
    """The left boundary's states as f = P_f u, a = P_a u with two unknowns u (a basis of
    the null space of [E_f E_a]): free P_f = 0, P_a = I (P5's P₀ = 0); clamped P_f = I, P_a = 0."""
    Ef, Ea = equations(name, where)
    _, _, vt = np.linalg.svd(np.hstack([Ef, Ea]))
    basis = vt[2:].T                       # (4, 2), orthonormal
    # a canonical basis: for the free end P_a = I exactly
    Pf, Pa = basis[:2], basis[2:]
    top = Pa if abs(np.linalg.det(Pa)) > 1e-12 else None
    if top is not None:
        Pf, Pa = Pf @ np.linalg.inv(top), np.eye(2)
    elif abs(np.linalg.det(Pf)) > 1e-12:
        Pa, Pf = Pa @ np.linalg.inv(Pf), np.eye(2)
    Pf[np.abs(Pf) < 1e-15] = 0.0
    Pa[np.abs(Pa) < 1e-15] = 0.0
    return Pf, Pa
