"""flexmbd: rigid and flexible multibody dynamics."""
from . import catalog  # noqa: F401  (registers every element type)
from .bodies import shapes  # noqa: F401  (fm.shapes.Box, …: bodies from shapes)
from . import visuals  # noqa: F401  (fm.visuals.Box, …: what bodies look like)
from .ground import GROUND
from .model import Model, ModelError
from .system import RedundantConstraintWarning
from .rotations import quaternion_from_axis_angle
from .solvers.integrators import HHT, GeneralizedAlpha, Newmark
from .timefunctions import Constant, ConstantSpeed, Polynomial, Ramp, UserFunction
from ._version import __version__
from . import system, solvers, io  # noqa: F401,E402  (they provide the Model's analyses and results files)
from .solvers import dynamics, kinematics, static  # noqa: F401,E402
from .io import results_h5  # noqa: F401,E402
from . import viewer  # noqa: F401,E402  (provides Result.view)



def __getattr__(name):
    """``fm.sweep(...)``: parameter studies on Dask (flexmbd/sweep/, docs/sweep.md), imported
    on first use; the package ``flexmbd.sweep`` is callable as :func:`flexmbd.sweep.sweep`."""
    if name == "sweep":
        import importlib

        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Model", "ModelError", "GROUND", "Newmark", "HHT", "GeneralizedAlpha", "Constant", "ConstantSpeed",
           "Polynomial", "Ramp", "UserFunction", "quaternion_from_axis_angle", "RedundantConstraintWarning",
           "__version__"]
