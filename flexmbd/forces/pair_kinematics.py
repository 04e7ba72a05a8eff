"""Relative motions of two bodies measured by markers, with exact first and second derivatives.

Two scalar measures serve the pair force elements (the rotational spring-damper and the
joint friction):

* the **relative angle** about an axis a (:func:`relative_angle`): with body-fixed unit
  vectors f_i, g_i on body i and f_j on body j ((f, g, a) right-handed),

      x = f_i·f_j,   y = g_i·f_j,   δ = atan2(y, x),
      ∂δ/∂q = (x ∂y − y ∂x)/r²,   r² = x² + y²,
      ∂²δ/∂q² = (∂y ∂xᵀ − ∂x ∂yᵀ + x ∂²y − y ∂²x)/r² − 2 ∂δ ⊗ (x ∂x + y ∂y)/r²;

* the **sliding coordinate** along an axis a_i of body i (:func:`sliding_coordinate`):

      s = a_i·(P_j − P_i),   ∂s/∂q = (P_j − P_i)ᵀ ∂a_i + a_iᵀ (∂P_j − ∂P_i),

  the travel of point P_j of body j along the axis through P_i (the prismatic joint's
  axial coordinate; Haug 1989, sec. 3.3, the dot-2 form).

Both return the value, its rate ḿ = ∂m/∂q · q', the gradient row (n, 2 nv) over the
pair's increments and, if asked, H = ∂(∂m/∂q)/∂Δ (n, 2 nv, 2 nv), whose second factor
comes from the markers (:meth:`flexmbd.nodes.MarkerSet.contract`).  Along Lie-group
increments H is not symmetric; ∂ḿ/∂q = Hᵀ q'.
"""
from __future__ import annotations

import numpy as np

from ..nodes import MarkerSet


def _outer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[:, :, None] * b[:, None, :]


def _pair_blocks(ii, jj, ij) -> np.ndarray:
    """The (n, 2w, 2w) matrix [[ii, ij], [ijᵀ, jj]]."""
    n, w = ii.shape[0], ii.shape[1]
    H = np.zeros((n, 2 * w, 2 * w))
    H[:, :w, :w] = ii
    H[:, w:, w:] = jj
    H[:, :w, w:] = ij
    H[:, w:, :w] = ij.transpose(0, 2, 1)
    return H


def relative_angle(mf_i: MarkerSet, mg_i: MarkerSet, mf_j: MarkerSet, qi: np.ndarray, qj: np.ndarray,
                   vl: np.ndarray, hessian: bool, names: list[str], what: str) -> dict:
    """δ (n,), its gradient ``J`` (n, 2nv), ``rate`` δ' and, if ``hessian``, ``H``; see the
    module docstring.  ``names``/``what`` name an element whose angle is undefined
    (f_j parallel to the axis of i) in the FloatingPointError raised then."""
    Fi, JFi = mf_i.evaluate(qi)
    Gi, JGi = mg_i.evaluate(qi)
    Fj, JFj = mf_j.evaluate(qj)
    x = np.einsum("ni,ni->n", Fi, Fj)
    y = np.einsum("ni,ni->n", Gi, Fj)
    r2 = x * x + y * y
    if np.any(r2 < 1e-300):
        bad = names[int(np.flatnonzero(r2 < 1e-300)[0])]
        raise FloatingPointError(f"{what} {bad!r}: f_j is parallel to the axis of i; its angle is undefined")
    gx = np.concatenate([np.einsum("ni,nij->nj", Fj, JFi), np.einsum("ni,nij->nj", Fi, JFj)], axis=1)
    gy = np.concatenate([np.einsum("ni,nij->nj", Fj, JGi), np.einsum("ni,nij->nj", Gi, JFj)], axis=1)
    J = (x[:, None] * gy - y[:, None] * gx) / r2[:, None]
    out = dict(value=np.arctan2(y, x), J=J, rate=np.einsum("nj,nj->n", J, vl))
    if hessian:
        Hx = _pair_blocks(mf_i.contract(qi, Fj), mf_j.contract(qj, Fi), np.einsum("nki,nkj->nij", JFi, JFj))
        Hy = _pair_blocks(mg_i.contract(qi, Fj), mf_j.contract(qj, Gi), np.einsum("nki,nkj->nij", JGi, JFj))
        H = (_outer(gy, gx) - _outer(gx, gy) + x[:, None, None] * Hy - y[:, None, None] * Hx) / r2[:, None, None]
        out["H"] = H - 2.0 * _outer(J, x[:, None] * gx + y[:, None] * gy) / r2[:, None, None]
    return out


def sliding_coordinate(ma_i: MarkerSet, mp_i: MarkerSet, mp_j: MarkerSet, qi: np.ndarray, qj: np.ndarray,
                       vl: np.ndarray, hessian: bool) -> dict:
    """s (n,), its gradient ``J`` (n, 2nv), ``rate`` s' and, if ``hessian``, ``H``; see the
    module docstring."""
    A, JA = ma_i.evaluate(qi)
    Pi, JPi = mp_i.evaluate(qi)
    Pj, JPj = mp_j.evaluate(qj)
    d = Pj - Pi
    J = np.concatenate([np.einsum("ni,nij->nj", d, JA) - np.einsum("ni,nij->nj", A, JPi),
                        np.einsum("ni,nij->nj", A, JPj)], axis=1)
    out = dict(value=np.einsum("ni,ni->n", A, d), J=J, rate=np.einsum("nj,nj->n", J, vl))
    if hessian:
        ii = (ma_i.contract(qi, d) - mp_i.contract(qi, A)
              - np.einsum("nki,nkj->nij", JA, JPi) - np.einsum("nki,nkj->nij", JPi, JA))
        out["H"] = _pair_blocks(ii, mp_j.contract(qj, A), np.einsum("nki,nkj->nij", JA, JPj))
    return out
