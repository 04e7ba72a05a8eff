"""Key paths into a model file's data: ``forces.sda.k``, ``bodies.rod.mass``,
``parameters.k``, ``solver.jacobian``, ``bodies.rod.position[0]``.

A segment after a list (``bodies``, ``forces``, ...) names the item by its ``name`` key
(or gives its index, ``bodies[0]``/``bodies.0``); every other segment is a mapping key.
:func:`resolve` turns the text into the index path that
:func:`flexmbd.io.model_file.apply_values` sets, and says which segment is wrong, with
the names or keys that exist there.
"""
from __future__ import annotations

import re

from ..spec import format_key


class KeyPathError(ValueError):
    """A key path that does not lead into the model file's data."""


_SEGMENT = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def split(text: str) -> list[str]:
    """``"bodies.rod.position[0]"`` → ``["bodies", "rod", "position", "0"]``."""
    text = str(text).strip()
    if not text:
        raise KeyPathError("empty key path")
    parts, pos = [], 0
    while pos < len(text):
        if text[pos] == "." and parts:
            pos += 1
        m = _SEGMENT.match(text, pos)
        if m is None or (m.group(2) is not None and not m.group(2).strip()):
            raise KeyPathError(f"{text!r} is not a key path (write it as section.name.key, e.g. forces.sda1.k)")
        parts.append((m.group(1) if m.group(1) is not None else m.group(2)).strip())
        pos = m.end()
    return parts


def _listing(items, limit=12) -> str:
    items = list(items)
    shown = ", ".join(str(x) for x in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def resolve(data: dict, text: str) -> tuple:
    """The index path of ``text`` in ``data`` (a model file as read); raises
    :class:`KeyPathError` naming the path, the segment and what exists there.

    The last key of a mapping may be new (``solver.jacobian`` where the file does not set
    it: the schema then checks it), except in ``parameters``, whose entries must exist."""
    parts = split(text)
    node, path = data, []
    for i, seg in enumerate(parts):
        where = format_key(path) or "the top level"
        last = i == len(parts) - 1
        if isinstance(node, list):
            names = [x.get("name") for x in node if isinstance(x, dict)]
            if seg in names:
                idx = names.index(seg)
            elif re.fullmatch(r"-?\d+", seg) and -len(node) <= int(seg) < len(node):
                idx = int(seg) % len(node)
            else:
                named = [n for n in names if n is not None]
                have = f"names: {_listing(named)}" if named else f"{len(node)} items, indices 0 to {len(node) - 1}"
                raise KeyPathError(f"--param {text}: {where} has no item named {seg!r} ({have})")
            path.append(idx)
            node = node[idx]
        elif isinstance(node, dict):
            if seg not in node and (not last or path == ["parameters"] or not path):
                keys = _listing(k for k in node)
                raise KeyPathError(f"--param {text}: {where} has no key {seg!r} (keys: {keys})")
            path.append(seg)
            node = node.get(seg)
        else:
            raise KeyPathError(f"--param {text}: {format_key(path)} is a value ({node!r}), not a section or list, "
                               f"so it has no {seg!r}")
    return tuple(path)


__all__ = ["KeyPathError", "resolve", "split"]
