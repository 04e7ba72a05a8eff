"""The node kind of a modal body from finite-element data: a floating frame with n modal
coordinates (:class:`~flexmbd.nodes.modal.FloatingFrameKind`), q = [R, p, η] (or
[R, Θ, η] with 3-1-3 Euler angles), whose material points are the FE nodes:

    r_k = R + A(p) (X_k + Φ_k η),

X_k the node's position in the body frame and Φ_k (3, n) its rows of the mode shapes
(Shabana, *Dynamics of Multibody Systems*, ch. 5).  Markers are points at FE nodes (a
point elsewhere is refused); directions follow the floating frame.

A kind is described by its nodes and mode shapes; its key
``femodal:<digest>[:euler-313]`` names them by a content hash.  The shapes of every kind
built in this process are kept by digest (:func:`register_shapes`), and results files store
them (``NodeKind.stored_data``) so that :func:`fe_kind_from_key` rebuilds the kind.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .modal import FloatingFrameKind

#: node positions and mode shapes (X (N, 3), Φ (N, 3, n)) by digest
_SHAPES: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def register_shapes(digest: str, nodes: np.ndarray, modes: np.ndarray) -> None:
    """Remember the shapes of a kind's digest (results files call this when read)."""
    _SHAPES[digest] = (np.asarray(nodes, dtype=float).reshape(-1, 3),
                       np.asarray(modes, dtype=float).reshape(len(np.asarray(nodes).reshape(-1, 3)), 3, -1))


class FEModalKind(FloatingFrameKind):
    """A floating frame whose points are FE nodes X (N, 3) displaced by modes Φ (N, 3, n)."""

    name = "femodal"
    noun = "modal body"

    def __init__(self, digest: str, attitude: str = "euler-parameters") -> None:
        if digest not in _SHAPES:
            raise ValueError(f"femodal kind: the FE data of {digest!r} is not loaded (build the model from its "
                             "data file, or read a results file that stores it)")
        self.digest = digest
        self.nodes, self.modes = _SHAPES[digest]
        n = self.modes.shape[2]
        self._setup(n, attitude, [f"eta{i + 1}" for i in range(n)])
        size = float(np.ptp(self.nodes, axis=0).max()) if len(self.nodes) > 1 else 1.0
        self.tol = 1e-9 * max(size, float(np.abs(self.nodes).max()), 1e-12)
        from scipy.spatial import cKDTree   # here: scipy.spatial costs ~0.3 s at import (cold start)

        self._tree = cKDTree(self.nodes)

    @property
    def key(self) -> str:
        key = f"femodal:{self.digest}"
        return key if self.attitude.name == "euler-parameters" else f"{key}:{self.attitude.name}"

    def stored_data(self) -> dict:
        """What a results file stores to rebuild the kind from its key."""
        return {"nodes": self.nodes, "modes": self.modes}

    def node_index(self, u) -> np.ndarray:
        """The FE node at each point ū (N, 3) of the undeformed frame, −1 where none is."""
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        d, k = self._tree.query(u)
        return np.where(d <= self.tol, k, -1)

    def shape_matrix(self, u) -> np.ndarray:
        """S(ū) = Φ_k at FE nodes; zero elsewhere (ground's points evaluated on ground's slot
        of this kind; bodies' points are checked by :meth:`check_offsets`)."""
        k = self.node_index(u)
        S = self.modes[np.maximum(k, 0)].copy()
        S[k < 0] = 0.0
        return S

    def check_offsets(self, names, u, element=None):
        u = np.asarray(u, dtype=float).reshape(-1, 3)
        bad = np.flatnonzero(self.node_index(u) < 0)
        if len(bad):
            k = int(bad[0])
            d, j = self._tree.query(u[k])
            who = f"{element}: " if element else ""
            raise ModelError(f"{who}the point ({', '.join(f'{c:g}' for c in u[k])}) in the frame of modal body "
                             f"{names[k]!r} is not at an FE node (markers sit on nodes; the nearest, node {int(j)} "
                             f"at ({', '.join(f'{c:g}' for c in self.nodes[j])}), is {d:.3g} m away)",
                             element=element)


#: kinds built from keys (their node search trees are built once)
_KINDS: dict[str, FEModalKind] = {}


def fe_kind_from_key(params: str) -> FEModalKind:
    """The kind of a key ``femodal:<digest>[:attitude]`` (the part after "femodal:")."""
    if params not in _KINDS:
        digest, _, attitude = params.partition(":")
        _KINDS[params] = FEModalKind(digest, attitude or "euler-parameters")
    return _KINDS[params]


__all__ = ["FEModalKind", "fe_kind_from_key", "register_shapes"]
