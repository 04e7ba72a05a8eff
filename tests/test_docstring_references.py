"""Every name a public docstring cites resolves.

Docstrings of the public API (the objects of ``flexmbd.__all__`` and their methods) and of
every module of the package, with its public classes, functions and methods, are
searched for

* dotted names ``flexmbd.a.b`` (plain or in double backticks), and the bare names listed
  after one in the same backticked enumeration (``flexmbd.beams.StraightLine``,
  ``CircularArc`` → ``flexmbd.beams.CircularArc``);
* Sphinx roles :class:`…`, :func:`…`, :meth:`…`, :mod:`…`, :attr:`…`, :data:`…`,
  :exc:`…` (``~`` dropped), resolved as Sphinx does: names are looked up in the class and
  the module that hold the docstring, then as absolute names; a leading ``.`` is tried
  below the module's package, then as the suffix of any module or object of the package.

Each must resolve by import and getattr (class attributes declared by annotation count).
Docstrings are checked where they are written (a method's inherited docstring at its
base class).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import flexmbd

DOTTED = re.compile(r"(?<![\w.])(flexmbd(?:\.\w+)+)")
#: ``flexmbd.x.Y``, ``Z``, ``W``: bare names listed after a dotted one, relative to its parent
ENUMERATION = re.compile(r"``(flexmbd(?:\.\w+)+)``((?:\s*(?:,\s*)?(?:or\s+|and\s+)?``\w+``)+)")
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc):`~?([\w.]+)`")


def resolve(name: str, namespace=None) -> bool:
    """Whether ``name`` (a.b.c) is an importable module or an attribute chain below one
    (or, given a namespace object, an attribute chain below it)."""
    parts = name.split(".")
    if namespace is not None:
        return _walk(namespace, parts)
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        return _walk(obj, parts[i:])
    return False


def _walk(obj, parts):
    for i, p in enumerate(parts):
        if hasattr(obj, p):
            obj = getattr(obj, p)
        elif i == len(parts) - 1 and inspect.isclass(obj) and any(
                p in getattr(c, "__annotations__", {}) for c in obj.__mro__):
            return True                                   # an attribute declared by annotation
        else:
            return False
    return True


def _suffix_match(target: str) -> bool:
    """Sphinx's rule for ``.name`` not found relative to the current module: any module or
    public object of the package whose full name ends with it."""
    tail = target.lstrip(".")
    for info in pkgutil.walk_packages(flexmbd.__path__, "flexmbd."):
        if info.name.endswith("." + tail):
            return True
        if _walk(importlib.import_module(info.name), tail.split(".")):
            return True
    return False


def cited(doc: str) -> tuple[set, set]:
    """(absolute dotted names, role targets) cited in a docstring."""
    names = {n.rstrip(".") for n in DOTTED.findall(doc)}
    for head, tail in ENUMERATION.findall(doc):
        parent = head.rsplit(".", 1)[0]
        names |= {f"{parent}.{bare}" for bare in re.findall(r"``(\w+)``", tail)}
    return names, set(ROLE.findall(doc))


def documented_objects():
    """(label, object, module, class or None) for the public API and every module of the package."""
    out = []

    def members(label, obj, module):
        out.append((label, obj, module, obj if inspect.isclass(obj) else None))
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if callable(value) or isinstance(value, property):
                    out.append((f"{label}.{attr}", value, module, obj))

    for name in flexmbd.__all__:
        obj = getattr(flexmbd, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            members(f"flexmbd.{name}", obj, importlib.import_module(obj.__module__))
    for info in pkgutil.walk_packages(flexmbd.__path__, "flexmbd."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        out.append((info.name, module, module, None))
        for attr, value in vars(module).items():
            if attr.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(value) or inspect.isfunction(value):
                members(f"{info.name}.{attr}", value, module)
    return out


def unresolved():
    bad = []
    for label, obj, module, owner in documented_objects():
        doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")   # its own docstring, not an inherited one
        names, roles = cited(doc)
        bad += [(label, n) for n in sorted(names) if not resolve(n)]
        package = module.__name__ if hasattr(module, "__path__") else module.__name__.rsplit(".", 1)[0]
        for target in sorted(roles):
            if target.startswith("."):
                ok = resolve(package + target) or _suffix_match(target)
            else:
                ok = (owner is not None and resolve(target, owner)) or resolve(target, module) or resolve(target)
            if not ok:
                bad.append((label, target))
    return sorted(set(bad))


def test_cited_names_resolve():
    assert unresolved() == []


def test_the_check_catches_a_missing_name():
    names, roles = cited("A ``flexmbd.beams.StraightLine``, ``CircularArc`` or ``NoSuchCurve``; "
                         "see :class:`~flexmbd.beams.NoSuchSection` and flexmbd.lie.se3_exp.")
    assert names == {"flexmbd.beams.StraightLine", "flexmbd.beams.CircularArc", "flexmbd.beams.NoSuchCurve",
                     "flexmbd.beams.NoSuchSection", "flexmbd.lie.se3_exp"}
    assert roles == {"flexmbd.beams.NoSuchSection"}
    assert resolve("flexmbd.lie.se3_exp") and resolve("flexmbd.solvers.relaxation")
    assert not resolve("flexmbd.beams.NoSuchCurve") and not resolve("flexmbd.beams.NoSuchSection")


@pytest.mark.parametrize("name", ["Section", "StraightLine", "CircularArc", "NurbsReference", "NurbsCurve"])
def test_sections_and_geometry_have_one_public_path(name):
    """``flexmbd.beams.<name>`` is the class of the submodule that defines it."""
    import flexmbd.beams as beams
    from flexmbd.beams import geometry, sections, shape

    defined = next(getattr(m, name) for m in (sections, geometry, shape) if hasattr(m, name))
    assert getattr(beams, name) is defined
    assert name in beams.__all__
