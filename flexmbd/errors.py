"""Errors of model input."""
from __future__ import annotations


class ModelError(ValueError):
    """Invalid model input; the message names the offending item.

    ``element`` and ``key`` (when known) locate it: the name of the body or element and
    the key of its specification (``"at_j"``, ``"axis"``), so a model file can point at
    the line.
    """

    def __init__(self, message: str, *, element: str | None = None, key: str | tuple | None = None):
        super().__init__(message)
        self.element = element
        self.key = key
