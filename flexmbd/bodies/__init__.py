"""Rigid bodies: data classes the user creates and vectorised inertia evaluation."""
from .rigid import Body, Ground, GROUND, SpatialBodyGroup, PlanarBodyGroup

__all__ = ["Body", "Ground", "GROUND", "SpatialBodyGroup", "PlanarBodyGroup"]
