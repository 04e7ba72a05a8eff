"""Solvers: implicit integrators, Newton, statics, kinematics, relaxation."""
from .integrators import HHT, GeneralizedAlpha, Newmark

__all__ = ["Newmark", "HHT", "GeneralizedAlpha"]
