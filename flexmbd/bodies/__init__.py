"""Rigid bodies: data classes the user creates and vectorised inertia evaluation."""
from .rigid import Body, PlanarBodyGroup, SpatialBodyGroup

__all__ = ["Body", "SpatialBodyGroup", "PlanarBodyGroup"]
