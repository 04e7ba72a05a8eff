"""Verification case modules.

Each module listed in :data:`CASE_MODULES` registers its cases with the
:func:`flexmbd.verify.case` decorator when imported. Entries are submodule
names of this package (``"pendulum"``) or fully qualified module names.
Import errors are deliberately not caught: a broken case module must surface.
"""

import importlib

#: Modules imported (and thereby registered) when this package is imported.
CASE_MODULES: tuple[str, ...] = ("slider_crank", "conservative", "integrators", "tensegrity", "statics", "lie_group",
                                 "beams", "ancf_beam", "friction", "ffr", "tmm", "contact")

for _name in CASE_MODULES:
    importlib.import_module(_name if "." in _name else f"{__name__}.{_name}")
