"""Parameter studies on Dask: ``flexmbd sweep`` and ``fm.sweep(...)`` (docs/sweep.md).

    import flexmbd as fm
    study = fm.sweep("slider-crank-sda.yaml", {"forces.sda.k": "log:1e2:1e6:5",
                                              "solver.jacobian": ["full", "M1+M3"]},
                     output="study.h5")
    study.column("mean_iterations")

Modules: :mod:`.keypath` (key paths such as ``forces.sda.k``), :mod:`.spec` (values and
cases), :mod:`.case` (one case, on a worker), :mod:`.table` (the study table),
:mod:`.runner` (Dask), :mod:`.report` (plots), :mod:`.command` (the command line).
Dask is an optional dependency (``pip install "flexmbd[sweep]"``); it is imported only
when a study runs.
"""
from __future__ import annotations

import sys
import types

from .runner import DaskMissing, INSTALL_HINT, sweep
from .spec import SweepSpecError
from .table import Study, StudyFileError, read_study


class _CallableModule(types.ModuleType):
    """``flexmbd.sweep`` is this package and, called, :func:`.runner.sweep`, so
    ``fm.sweep(...)`` works whichever of the two the attribute holds."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["sweep", "read_study", "Study", "SweepSpecError", "StudyFileError", "DaskMissing", "INSTALL_HINT"]
