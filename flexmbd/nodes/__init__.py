"""Node kinds (see :mod:`.base`): the coordinates of rigid bodies and beam nodes.

======================  ========  =====  =====  ==========================================
kind                    key       nq     nv     coordinates
======================  ========  =====  =====  ==========================================
:data:`SPATIAL`         spatial   7      7      position, Euler parameters (P1)
:data:`PLANAR`          planar    3      3      x, y, θ
:data:`ROTATION`        spatial-  7      6      position, unit quaternion; body-frame
                        lie                     rotation-vector increments
:data:`SE3`             se3       7      6      a frame on SE(3), body-frame twists
:data:`R3R3`            r3r3      6      6      position, total rotation vector
:data:`ANCF`            ancf      12     12     position, gradients r_x, r_y, r_z
:data:`ANCF_CABLE`      ancf-     6      6      position, gradient r_x (cable)
                        cable
:class:`ModalKind`      modal:…   7 + n  7 + n  position, Euler parameters, n modal
                                                coordinates of a floating-frame beam
:class:`FEModalKind`    femodal:  7 + n  7 + n  the same, modes from finite-element data
                        …
======================  ========  =====  =====  ==========================================

:func:`kind_from_key` finds a kind by its key (results files store keys).  A new kind is a
:class:`NodeKind` subclass in its own module, listed in :data:`KINDS` (or registered with
:func:`register_kind` for kinds with parameters).
"""
from __future__ import annotations

from typing import Callable

from .ancf import ANCF, ANCF_CABLE
from .base import CONSTANT, POINT, VECTOR, ZERO, MarkerSet, NodeKind
from .euler import SPATIAL
from .frame import SE3
from .planar import PLANAR
from .rotation import ROTATION
from .rotvec import R3R3

#: every fixed kind by key, in the canonical order of their ground slots and groups
KINDS: dict[str, NodeKind] = {k.key: k for k in (SPATIAL, PLANAR, ROTATION, SE3, R3R3, ANCF, ANCF_CABLE)}
#: factories of parameterised kinds by the part of the key before ":" (e.g. "modal")
_FAMILIES: dict[str, Callable[[str], NodeKind]] = {}


def register_kind(prefix: str, factory: Callable[[str], NodeKind]) -> None:
    """Make :func:`kind_from_key` build kinds with keys ``"<prefix>:<parameters>"``."""
    _FAMILIES[prefix] = factory


def kind_from_key(key: str) -> NodeKind:
    """The node kind with this key (ValueError naming the known keys otherwise)."""
    if key in KINDS:
        return KINDS[key]
    prefix, _, params = key.partition(":")
    if params and prefix in _FAMILIES:
        return _FAMILIES[prefix](params)
    raise ValueError(f"unknown node kind {key!r}; known: {', '.join(KINDS)}")


from .modal import ModalKind, modal_kind_from_key  # noqa: E402  (registers itself below)

register_kind("modal", modal_kind_from_key)

from .fe_modal import FEModalKind, fe_kind_from_key, register_shapes  # noqa: E402

register_kind("femodal", fe_kind_from_key)
#: restorers of kinds' stored data by key prefix (``NodeKind.stored_data``; results files)
_RESTORERS: dict[str, Callable] = {"femodal": lambda params, data: register_shapes(
    params.partition(":")[0], data["nodes"], data["modes"])}


def restore_kind_data(key: str, data: dict) -> None:
    """Give back a kind's stored data (``NodeKind.stored_data``) before :func:`kind_from_key`."""
    prefix, _, params = key.partition(":")
    if prefix in _RESTORERS:
        _RESTORERS[prefix](params, data)


def kind_order(kind: NodeKind) -> tuple[int, str]:
    """Sort key: the fixed kinds in :data:`KINDS` order, then others by key."""
    keys = list(KINDS)
    return (keys.index(kind.key), "") if kind.key in KINDS else (len(keys), kind.key)


__all__ = ["NodeKind", "MarkerSet", "ZERO", "POINT", "VECTOR", "CONSTANT", "SPATIAL", "PLANAR", "ROTATION", "SE3",
           "R3R3", "ANCF", "ANCF_CABLE", "ModalKind", "FEModalKind", "KINDS", "kind_from_key", "register_kind",
           "kind_order",
           "restore_kind_data"]
