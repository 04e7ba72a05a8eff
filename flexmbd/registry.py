"""Element types: what an element is, declared once, in its own module.

An element type (:class:`ElementType`) says

* its name — the ``type`` of its model-file entries and the name of its ``Model`` method —
  and the model-file section its entries live in (``bodies``, ``beams``, ``joints``,
  ``drivers``, ``forces``, ``markers``);
* its specification: one pydantic model (:mod:`flexmbd.spec`) that validates the Python
  sugar's arguments and the model file's entries, writes entries back (``dump``) and gives
  the JSON Schema;
* how a specification becomes an :class:`Element` of a model (``prepare``: defaults that
  need the model, checks with a :class:`~flexmbd.errors.ModelError` naming the key);
* how the elements of a frozen model become vectorised groups (``build``; types that share
  a builder, such as all dot-product joints and drivers, are built together in model
  order), its named outputs, and what pictures draw for it (``geometry``);
* a sample use between two bodies for the generic derivative test (``sample``).

The system, the model-file loader and dumper, the results and the solvers loop over the
registry and name no element type.  A module declares its type with :func:`register`;
``flexmbd.catalog`` imports every element module (the list of element types).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, NamedTuple

import numpy as np

from .errors import ModelError
from .ground import GROUND
from .spec import SpecBase, validate

#: solver families: each has its own element types (names may repeat across families), its
#: own model-file sections and its own assembly; a type says its family (``ElementType.family``)
FAMILIES: dict[str, str] = {
    "index3": "index-3 DAE models: bodies, beams, joints, drivers, forces, markers at the top level",
    "tmm": "discrete-time transfer matrix chains (paper P5): the elements of a tmm: file's chain",
}


class Section(NamedTuple):
    """A model-file section of elements: what one entry is, the section's description, the
    type of an entry without a ``type`` key, and the solver family whose types it holds."""
    entry: str
    description: str
    default: str | None
    family: str = "index3"


#: model-file sections of elements, in file order (the index-3 sections are top-level keys,
#: the DT-TMM one is the path of its list in a ``tmm:`` file)
SECTIONS: dict[str, Section] = {
    "bodies": Section("body", "the rigid bodies", "rigid"),
    "beams": Section("beam", "flexible beams; their nodes are bodies NAME.n0 … NAME.nN", "beam"),
    "joints": Section("joint", "kinematic joints", None),
    "drivers": Section("driver", "prescribed motions (rheonomic constraints)", None),
    "forces": Section("force element", "force elements and applied loads", None),
    "markers": Section("marker", "named points on bodies; outputs NAME.position, NAME.velocity", None),
    "tmm.chain.elements": Section("DT-TMM element", "the elements of a DT-TMM chain, left to right", None, "tmm"),
}


def sections(family: str = "index3") -> list[str]:
    """The element sections of a solver family, in file order."""
    return [name for name, sec in SECTIONS.items() if sec.family == family]


@dataclass(eq=False)
class Element:
    """One element of a model as the user described it.

    ``kind`` is the element type's name, ``bodies`` the nodes it acts on (GROUND allowed),
    ``spec`` the validated input (what a model file holds), ``data`` the values its
    builder uses (defaults resolved, points as 3-vectors, axes normalised, functions of
    time as objects), ``nodes`` the nodes it owns (a rigid body's own node, a beam's nodes).
    """

    kind: str
    name: str
    bodies: tuple
    data: dict = field(default_factory=dict)
    spec: SpecBase | None = None
    nodes: tuple = ()

    @property
    def type(self) -> "ElementType":
        return element_type(self.kind)

    def __repr__(self) -> str:
        return f"Element({self.kind} {self.name!r})"


class ElementType:
    """Base class of element types; see the module docstring."""

    #: the type's name: model-file ``type`` and ``Model`` method
    name: ClassVar[str]
    #: the model-file section of its entries (:data:`SECTIONS`)
    section: ClassVar[str]
    #: its solver family (:data:`FAMILIES`); the section must belong to it
    family: ClassVar[str] = "index3"
    #: its specification
    Spec: ClassVar[type[SpecBase]]
    #: the fields of the specification that name bodies, in order (Element.bodies)
    body_fields: ClassVar[tuple[str, ...]] = ()
    #: build(elements, system) -> groups; types with the same builder are built together
    builder: ClassVar[Callable | None] = None
    #: outputs of every element, "<element>.<key>", computed by :meth:`output` (outputs of
    #: the groups' elements are the groups' ``output_names``)
    output_names: ClassVar[tuple[str, ...]] = ()
    #: element prescribes a motion (a driver): kinematic analysis reports its load
    prescribes_motion: ClassVar[bool] = False
    #: element is a load from outside the system (not allowed in a free system)
    applied_load: ClassVar[bool] = False

    #: what an element is called in messages (default: the type's name)
    noun: ClassVar[str | None] = None

    # ------------------------------------------------------------- creation
    def label(self, name: str | None) -> str:
        """"<type> '<name>'" for messages."""
        noun = self.noun or self.name
        return f"{noun} {name!r}" if name is not None else noun

    def validate(self, data: dict, name: str | None = None) -> SpecBase:
        """The specification of keyword data (ModelError naming the key)."""
        return validate(self.Spec, {"type": self.name, **data} if "type" in self.Spec.model_fields else data,
                        self.label(name if name is not None else data.get("name")))

    def create(self, model, spec: SpecBase) -> Element:
        """A new element of ``model`` from a validated specification."""
        name = model.new_name(getattr(spec, "name", None), self.name)
        what = self.label(name)
        bodies = tuple(model.resolve_body(getattr(spec, f), what, key=f) for f in self.body_fields)
        if len(bodies) == 2 and bodies[0] is bodies[1]:
            raise ModelError(f"{what}: connects {getattr(bodies[0], 'name', bodies[0])!r} to itself; body_i and "
                             "body_j must differ", element=name, key=self.body_fields[1])
        if len(bodies) > 1 and not self.joins_kinds(bodies):
            _check_kinds(what, name, bodies, self.body_fields)
        data = self.prepare(model, spec, bodies, name)
        if "name" in self.Spec.model_fields:
            spec = spec.model_copy(update={"name": name})
        return Element(self.name, name, bodies, data, spec)

    def joins_kinds(self, bodies: tuple) -> bool:
        """True if the type itself joins these bodies of different kinds (its builder
        handles them; the spherical joint between vector kinds, ``constraints/mixed.py``).
        Otherwise elements connect bodies of one kind."""
        return False

    def prepare(self, model, spec: SpecBase, bodies: tuple, name: str) -> dict:
        """The element's data from its specification (defaults that need the model,
        checks that need the bodies: raise ModelError with ``key``)."""
        return {}

    def added(self, model, element: Element) -> Any:
        """Called once the element is in the model; returns what the Python sugar returns."""
        return element

    # ------------------------------------------------------------ model files
    def dump(self, element: Element) -> dict:
        """The element as a model-file entry (DumpError for what files cannot hold)."""
        return element.spec.model_dump(mode="python", exclude_defaults=True) | (
            {"type": self.name} if "type" in self.Spec.model_fields else {})

    def node_aliases(self, element: Element) -> dict[str, Any]:
        """Alternative names of owned nodes ("first" → node …), reachable as "<element>.<alias>"."""
        return {}

    # ---------------------------------------------------------------- results
    def outputs(self, element: Element, system) -> tuple[str, ...]:
        """The element's outputs in a frozen system (see :meth:`output`)."""
        return self.output_names

    def output(self, element: Element, what: str, result) -> np.ndarray | None:
        """An output computed from the stored results (None: ask the groups)."""
        return None

    def node_boxes(self, element: Element) -> list[tuple]:
        """Boxes drawn for the nodes the element owns: [(node, half sides (3,), axes (3, 3)
        columns in the node frame)] (nodes of no element: small cubes)."""
        return []

    def geometry(self, element: Element) -> list[tuple]:
        """What pictures draw: [("line", name, body_i, body_j, point on i, point on j) |
        ("marker", name, body, point)], points global in the initial configuration."""
        return []

    # ---------------------------------------------------------------- testing
    def sample(self, model, a, b) -> None:
        """Add typical elements of this type between bodies a and b (and ground) for the
        generic derivative test; the bodies are of one kind (``a.kind``)."""


#: every registered element type by family and name, in the catalog's order
REGISTRIES: dict[str, dict[str, ElementType]] = {family: {} for family in FAMILIES}
#: the index-3 family's types by name (the assembly's, the model loader's and the Model's)
REGISTRY: dict[str, ElementType] = REGISTRIES["index3"]
#: modules of element types in their canonical order (``flexmbd.catalog`` sets it): the
#: order of model-file sections' types, of builders and so of the groups
MODULE_ORDER: list[str] = []


def _rank(etype: ElementType, seq: int) -> tuple[int, int]:
    mod = type(etype).__module__
    return (MODULE_ORDER.index(mod) if mod in MODULE_ORDER else len(MODULE_ORDER), seq)


def register(etype: type[ElementType]) -> type[ElementType]:
    """Class decorator: register an element type (one instance) under its family and name."""
    inst = etype()
    if inst.family not in FAMILIES:
        raise ValueError(f"element type {inst.name!r}: unknown solver family {inst.family!r}")
    table = REGISTRIES[inst.family]
    if inst.name in table and type(table[inst.name]) is not etype:
        raise ValueError(f"{inst.family} element type {inst.name!r} is already registered by "
                         f"{type(table[inst.name]).__name__}")
    if inst.section not in SECTIONS or SECTIONS[inst.section].family != inst.family:
        raise ValueError(f"element type {inst.name!r}: unknown model-file section {inst.section!r} of the "
                         f"{inst.family} family")
    table[inst.name] = inst
    _sort()
    return etype


def set_module_order(modules: list[str]) -> None:
    """The canonical order of element modules (the catalog's list)."""
    MODULE_ORDER[:] = modules
    _sort()


def _sort():
    for table in REGISTRIES.values():
        items = sorted(enumerate(table.items()), key=lambda x: _rank(x[1][1], x[0]))
        table.clear()
        table.update(kv for _, kv in items)


def element_type(name: str, family: str = "index3") -> ElementType:
    """The registered type ``name`` of a solver family (ModelError listing the known ones)."""
    table = REGISTRIES.get(family, {})
    try:
        return table[name]
    except KeyError:
        raise ModelError(f"unknown element type {name!r}; known: {', '.join(table)}") from None


def element_types(section: str | None = None, family: str = "index3") -> list[ElementType]:
    """The registered types of a solver family (of one section), in registration order."""
    return [t for t in REGISTRIES.get(family, {}).values() if section is None or t.section == section]


def builders() -> list[Callable]:
    """Every distinct builder of the index-3 family, in registration order of the first type
    using it."""
    return [b for b in dict.fromkeys(t.builder for t in REGISTRY.values()) if b is not None]


def _check_kinds(what: str, name: str, bodies, keys) -> None:
    """Elements connect nodes of one kind: a ModelError naming both (at the second key)."""
    nodes = [(b, k) for b, k in zip(bodies, keys) if b is not GROUND]
    kinds = list(dict.fromkeys(b.kind for b, _ in nodes))
    if len(kinds) <= 1:
        return
    which = " and ".join(f"{b.name!r} is {b.kind.name}" for b, _ in nodes)
    names = " and a ".join(sorted(k.name for k in kinds))
    hint = ""
    if any(k.has_branches for k in kinds):
        hint = ("; nodes of R³×R³ beams (formulation='r3r3', kind r3r3) connect only to other R³×R³ "
                "nodes and ground; use formulation='se3' to join a beam to rigid bodies")
    elif any(k.name == "ancf" for k in kinds):
        hint = ("; rigid bodies joined to the nodes of ANCF beams (kind ancf) by any joint need parameterization "
                "ancf (parameterization='ancf' in Python); nodes of other spatial kinds (rigid bodies, SE(3) "
                "beam nodes) join ANCF nodes through spherical joints only")
    elif any(not k.rotations for k in kinds):
        hint = "; ANCF cable nodes join nodes of other spatial kinds through spherical joints only"
    elif any(k.name == "se3" for k in kinds):
        hint = ("; rigid bodies joined to beam nodes (kind se3) by joints other than spherical need "
                "parameterization se3 (parameterization='se3' in Python)")
    raise ModelError(f"{what}: connects a {names} body, which is not supported ({which}; joints and force "
                     f"elements connect bodies of one kind){hint}", element=name, key=nodes[-1][1])


def pair_kind(element: Element):
    """The node kind of the bodies an element connects (ModelError if they differ)."""
    _check_kinds(element.type.label(element.name), element.name, element.bodies, element.type.body_fields)
    return next(b.kind for b in element.bodies if b is not GROUND)


__all__ = ["Element", "ElementType", "FAMILIES", "REGISTRIES", "REGISTRY", "SECTIONS", "Section", "sections", "register", "element_type", "element_types",
           "builders", "pair_kind"]
