"""flexmbd: rigid and flexible multibody dynamics."""
from . import catalog  # noqa: F401  (registers every element type)
from .ground import GROUND
from .model import Model, ModelError
from .rotations import quaternion_from_axis_angle
from .solvers.integrators import HHT, GeneralizedAlpha, Newmark
from .timefunctions import Constant, ConstantSpeed, Polynomial, Ramp, UserFunction

__version__ = "0.1.0"

__all__ = ["Model", "ModelError", "GROUND", "Newmark", "HHT", "GeneralizedAlpha", "Constant", "ConstantSpeed",
           "Polynomial", "Ramp", "UserFunction", "quaternion_from_axis_angle", "__version__"]
