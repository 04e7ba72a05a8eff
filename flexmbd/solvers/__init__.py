"""Solvers: implicit integrators, Newton, statics, kinematics, relaxation."""
from .integrators import HHT, GeneralizedAlpha, Newmark
from .settings import DynamicSettings, KinematicSettings, RelaxSettings, SettingError, StaticSettings

__all__ = ["Newmark", "HHT", "GeneralizedAlpha", "DynamicSettings", "StaticSettings", "KinematicSettings",
           "RelaxSettings", "SettingError"]
