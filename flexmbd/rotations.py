"""Euler-parameter (unit quaternion) kinematics.

Conventions follow Nikravesh, *Computer-Aided Analysis of Mechanical Systems* (1988),
ch. 6, which is also the parameterisation of P1 (Kan, Peng & Chen 2017, N = 7 body
coordinates with the normalisation constraint p·p = 1):

    p = [e0, e1, e2, e3],  A(p) = (e0² − e·e) I + 2 e eᵀ + 2 e0 ẽ,
    ω  = 2 E(p) ṗ  (global frame),   ω' = 2 G(p) ṗ  (body frame),  A = E Gᵀ.

Because A(p)u is a quadratic form in p, it is written with one constant tensor
``CHAT``:  (A(p) u)_i = Σ_jkl CHAT[i, j, k, l] p_j p_k u_l  with CHAT symmetric in (j, k).
Then ∂(A u)/∂p = 2 C(u) p and ∂²(A u)_i/∂p² = 2 C(u)_i exactly, which gives the marker
Jacobians and their exact derivatives (P1's appendix) without hand-expanded matrices.
"""
from __future__ import annotations

import numpy as np


def skew(v):
    """Cross-product matrix ṽ with ṽ w = v × w (works on (..., 3) arrays)."""
    v = np.asarray(v, dtype=float)
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def rotation_matrix(p):
    """A(p) for (..., 4) Euler parameters (not normalised here)."""
    p = np.asarray(p, dtype=float)
    e0, e = p[..., 0], p[..., 1:]
    eye = np.eye(3)
    return (
        (e0**2 - np.einsum("...i,...i", e, e))[..., None, None] * eye
        + 2.0 * e[..., :, None] * e[..., None, :]
        + 2.0 * e0[..., None, None] * skew(e)
    )


def _bilinear_rotation(p, s):
    """Symmetric bilinear form A(p, s) with A(p, p) = A(p)."""
    p0, pv, s0, sv = p[0], p[1:], s[0], s[1:]
    return (
        (p0 * s0 - pv @ sv) * np.eye(3)
        + np.outer(pv, sv)
        + np.outer(sv, pv)
        + p0 * skew(sv)
        + s0 * skew(pv)
    )


def _build_chat():
    basis = np.eye(4)
    chat = np.zeros((3, 4, 4, 3))
    for j in range(4):
        for k in range(4):
            chat[:, j, k, :] = _bilinear_rotation(basis[j], basis[k])
    return chat


#: (A(p) u)_i = CHAT[i, j, k, l] p_j p_k u_l
CHAT = _build_chat()


def _build_g_derivative(rows):
    d = np.zeros((3, 4, 4))
    for k in range(4):
        e = np.zeros(4)
        e[k] = 1.0
        d[:, :, k] = rows(e)
    return d


_G_INDEX = np.array([[1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]])
_G_SIGN = np.array([[-1.0, 1, 1, -1], [-1, -1, 1, 1], [-1, 1, -1, 1]])
_E_INDEX = np.array([[1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]])
_E_SIGN = np.array([[-1.0, 1, -1, 1], [-1, 1, 1, -1], [-1, -1, 1, 1]])


def G_matrix(p):
    """Body-frame G(p) (…, 3, 4): ω' = 2 G ṗ.  Linear in p, G(p) p = 0.

    G = [[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]].
    """
    return np.asarray(p, dtype=float)[..., _G_INDEX] * _G_SIGN


def E_matrix(p):
    """Global-frame E(p) (…, 3, 4): ω = 2 E ṗ.  Linear in p, E(p) p = 0.

    E = [[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]].
    """
    return np.asarray(p, dtype=float)[..., _E_INDEX] * _E_SIGN


#: DG[i, j, k] = ∂G_ij/∂p_k (G is linear in p, so this is constant)
DG = _build_g_derivative(G_matrix)
#: DE[i, j, k] = ∂E_ij/∂p_k
DE = _build_g_derivative(E_matrix)


def quaternion_from_axis_angle(axis, angle):
    """Euler parameters of a rotation by ``angle`` about the unit ``axis``."""
    axis = np.asarray(axis, dtype=float)
    n = np.linalg.norm(axis)
    if n == 0.0:
        raise ValueError("rotation axis has zero length")
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / n]


def perpendicular_pair(axis):
    """Two unit vectors f, g with (f, g, a) a right-handed orthonormal triad."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    trial = np.eye(3)[int(np.argmin(np.abs(a)))]
    f = trial - (trial @ a) * a
    f /= np.linalg.norm(f)
    g = np.cross(a, f)
    return f, g
