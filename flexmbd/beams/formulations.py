"""Beam formulations: the plug-in seam of ``Model.beam`` / model files' ``beams:``.

``BeamType`` (:mod:`.builder`) reads a beam's specification, builds its reference
geometry (straight line, circular arc, NURBS) and its cross section, and hands the rest
to the :class:`BeamFormulation` named by ``formulation``: which node kind the beam's
nodes are, which orders, interpolations and integrations it accepts, where its nodes sit
on the reference and what reference data its elements keep, the groups of all its beams
in a frozen model, and its axis positions for outputs.  A formulation is one object
registered by name (:func:`register_formulation`) from its own module; the modules are
listed in ``flexmbd.catalog`` (``BEAM_FORMULATION_MODULES``), so a new formulation is one
module plus one line there (docs/adding-an-element.md, "A new beam formulation").

Registered today: ``se3`` and ``r3r3`` (:mod:`.exact`, geometrically exact beams),
``ancf-cable`` (:mod:`.ancf_cable`) and ``ancf`` (:mod:`.ancf_formulation`).
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..errors import ModelError
from ..nodes import NodeKind


class BeamFormulation:
    """One beam formulation; subclasses set the attributes and implement the methods.

    The element data (``Element.data`` of the beam) is a dict that :meth:`topology`
    starts and :meth:`reference` completes; ``BeamType`` adds ``section``,
    ``formulation``, ``order``, ``integration``, ``interpolation``, ``length_total`` and
    the formulation's ``options``.  It must hold ``conn`` (elements × nodes per element,
    indices into the beam's nodes), ``length`` (reference length per element) and
    ``s_range`` (reference arc length at each element's ends)."""

    #: the model files' ``formulation`` value
    name: str
    #: the node kind of the beam's nodes
    kind: NodeKind
    #: one line for error messages and the docs
    summary: str = ""
    #: the element's options beyond the common keys, with their defaults (e.g. ``bending``)
    options: ClassVar[dict[str, Any]] = {}

    def check(self, what: str, name: str, order: int, interpolation: str, integration: str,
              options: dict[str, Any]) -> None:
        """Refuse what the formulation does not offer: ModelError(element=name, key=…)."""

    def default_integration(self, order: int, interpolation: str) -> str:
        """The Gauss rule when the model gives none."""
        return "full"

    def topology(self, geometry, n_el: int, order: int, interpolation: str, integration: str) -> dict:
        """Element data on the reference ``geometry`` with its nodes' reference positions
        ``x`` (n_nodes, 3) and frames ``R`` (n_nodes, 3, 3) (columns: tangent, section
        axes), which ``BeamType`` pops to make the nodes."""
        raise NotImplementedError

    def reference(self, data: dict, q: np.ndarray) -> None:
        """Complete ``data`` with the elements' reference quantities; q (n_nodes, 7): the
        nodes' positions and Euler parameters as created."""

    def build(self, system, elements: list) -> list:
        """Every group of the beams ``elements`` (all of this formulation) in a frozen
        ``system``: inertia, weights (applied loads) and elastic forces (``stage = 1``)."""
        raise NotImplementedError

    def positions(self, beam, result, s: float) -> np.ndarray:
        """Axis positions (rows, 3) at reference arc length ``s`` for the rows of ``result``."""
        raise NotImplementedError


#: every registered formulation by name, in registration order
FORMULATIONS: dict[str, BeamFormulation] = {}


def register_formulation(formulation: BeamFormulation) -> BeamFormulation:
    """Register a formulation instance under its name (one name, one formulation)."""
    old = FORMULATIONS.get(formulation.name)
    if old is not None and type(old) is not type(formulation):
        raise ValueError(f"beam formulation {formulation.name!r} is already registered by {type(old).__name__}")
    FORMULATIONS[formulation.name] = formulation
    return formulation


def beam_formulation(name: str, what: str = "beam", element: str | None = None) -> BeamFormulation:
    """The formulation called ``name``; ModelError naming the known ones otherwise."""
    try:
        return FORMULATIONS[name]
    except KeyError:
        raise ModelError(f"{what}: formulation must be one of {tuple(FORMULATIONS)}, got {name!r}",
                         element=element, key="formulation") from None


__all__ = ["BeamFormulation", "FORMULATIONS", "register_formulation", "beam_formulation"]
