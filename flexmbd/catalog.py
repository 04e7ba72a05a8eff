"""The list of element types: every module that declares element types, in canonical order.

The order is the order of the types in model-file sections and JSON Schema, of the
builders (so of the groups: rigid-body inertia before beam inertia, applied loads before
structural forces) and of the outputs.  A new element type is one module added here
(see docs/adding-an-element.md).
"""
from __future__ import annotations

import importlib

from .registry import set_module_order

ELEMENT_MODULES = (
    "flexmbd.bodies.rigid",
    "flexmbd.beams.builder",
    "flexmbd.constraints.joint_types",
    "flexmbd.forces.spring_damper",
    "flexmbd.forces.rotational_spring",
    "flexmbd.forces.loads",
    "flexmbd.forces.bushing",
    "flexmbd.bodies.marker",
)

set_module_order(list(ELEMENT_MODULES))
for _module in ELEMENT_MODULES:
    importlib.import_module(_module)
