"""Solvers: implicit integrators, Newton, statics, kinematics, relaxation."""
from .integrators import HHT, GeneralizedAlpha, Newmark
from .settings import DynamicSettings, RelaxSettings, SettingError, StaticSettings

__all__ = ["Newmark", "HHT", "GeneralizedAlpha", "DynamicSettings", "StaticSettings", "RelaxSettings", "SettingError"]
