"""Errors of model input."""
from __future__ import annotations

import functools
import os


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


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first caller outside
    the flexmbd package (the user's line), however many flexmbd frames (services,
    Model methods, solvers) lie between: a fixed number went stale whenever a call path
    gained a frame, and the warnings then pointed at flexmbd/model.py."""
    import sys

    frame, level = sys._getframe(1), 1  # the function that calls warnings.warn
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


@functools.lru_cache(maxsize=512)
def _in_package(filename: str) -> bool:
    """Whether a code object's file lies in the flexmbd package (once per file name)."""
    return os.path.abspath(filename).startswith(os.path.dirname(os.path.abspath(__file__)) + os.sep)
