"""Markers: named points fixed on a body, reported as outputs.

A marker at a global point x₀ of the initial configuration is the body-fixed vector
u = A₀ᵀ (x₀ − R₀); its outputs ``<marker>.position`` and ``<marker>.velocity`` are
x = R + A u and ẋ = J q' from the body's node kind (:meth:`flexmbd.nodes.MarkerSet.evaluate`).
"""
from __future__ import annotations

from typing import Literal, Optional

import numpy as np
from pydantic import ConfigDict, Field

from ..errors import ModelError
from ..ground import GROUND
from ..nodes import POINT
from ..registry import ElementType, register
from ..spec import BodyRef, Name, Point, SpecBase, point3


class Marker(SpecBase):
    """A named point fixed on a body; outputs NAME.position [m] and NAME.velocity [m/s]."""

    model_config = ConfigDict(title="Marker")

    type: Literal["marker"]
    name: Optional[Name] = Field(None, description="unique name (default: marker and a number)")
    body: BodyRef = Field(description="the body the point is fixed on")
    at: Point = Field(description="the point, global, initial configuration [m]")


@register
class MarkerType(ElementType):
    name = "marker"
    section = "markers"
    Spec = Marker
    body_fields = ("body",)
    output_names = ("position", "velocity")

    def prepare(self, model, spec, bodies, name):
        if bodies[0] is GROUND:
            raise ModelError(f"marker {name!r}: a marker on ground does not move; use a constant instead",
                             element=name, key="body")
        return dict(at=point3(spec.at))

    def output(self, element, what, result):
        """Position or velocity of the body-fixed point, from the stored q and q'."""
        b = element.bodies[0]
        system = result.system
        u = system.rotation(b).T @ (element.data["at"] - system.body_position(b))
        n = len(result.t)
        x, J = b.kind.markers(np.tile(u, (n, 1)), np.full(n, POINT)).evaluate(result.q[:, system.config_slice(b)])
        return x if what == "position" else np.einsum("nij,nj->ni", J, result.v[:, system.body_slice(b)])
