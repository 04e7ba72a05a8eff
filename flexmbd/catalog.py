"""The list of element types: every module that declares element types, in canonical order.

The order is the order of the types in model-file sections and JSON Schema, of the
builders (so of the groups: rigid-body inertia before beam inertia, applied loads before
structural forces) and of the outputs.  A new element type is one module added here
(see docs/adding-an-element.md).

``BEAM_FORMULATION_MODULES`` lists the modules that register beam formulations
(``flexmbd.beams.formulations``; the built-in se3 and r3r3 come with the beam type), in
the order of their groups.
"""
from __future__ import annotations

import importlib

from .registry import set_module_order

ELEMENT_MODULES = (
    "flexmbd.bodies.rigid",
    "flexmbd.bodies.modal_beam",
    "flexmbd.bodies.modal_body",
    "flexmbd.beams.builder",
    "flexmbd.constraints.joint_types",
    "flexmbd.constraints.gear",
    "flexmbd.forces.spring_damper",
    "flexmbd.forces.rotational_spring",
    "flexmbd.forces.loads",
    "flexmbd.forces.bushing",
    "flexmbd.forces.contact",
    "flexmbd.forces.joint_friction",
    "flexmbd.forces.joint_limit",
    "flexmbd.forces.joint_actuator",
    "flexmbd.bodies.marker",
)

BEAM_FORMULATION_MODULES = (
    "flexmbd.beams.exact",
    "flexmbd.beams.ancf_cable",
    "flexmbd.beams.ancf_formulation",
)

set_module_order(list(ELEMENT_MODULES))
for _module in ELEMENT_MODULES + BEAM_FORMULATION_MODULES:
    importlib.import_module(_module)
