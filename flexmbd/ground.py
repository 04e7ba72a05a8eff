"""The fixed ground frame.

Joints and force elements attached to ground name :data:`GROUND` (``"ground"`` in model
files).  Ground has no coordinates of its own: a frozen system gives it the fixed ground
configuration of the node kind of the body it is joined to
(:attr:`flexmbd.nodes.NodeKind.ground_q`), so an element on ground is evaluated exactly
like one between two bodies.
"""
from __future__ import annotations


class Ground:
    """The fixed ground frame; use the module constant :data:`GROUND`."""

    name = "ground"
    index = -1

    def __repr__(self) -> str:
        return "GROUND"


GROUND = Ground()


def is_ground(body: object) -> bool:
    """True for the ground frame (the object or its name)."""
    return body is GROUND or isinstance(body, Ground) or body == "ground"
