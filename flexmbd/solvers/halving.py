"""Step halving: a step whose solve fails is retried as two halves, recursively.

:func:`advance` is the one implementation; :func:`~flexmbd.solvers.dynamics.simulate`
and :func:`~flexmbd.solvers.relaxation.relax` use it with their own step function.  The
sub-steps are tried in order (whole step; if it fails, first half then second half, each
halved again on failure), so the same failures give the same states and counts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["advance", "Advance", "FailedStep"]


@dataclass
class FailedStep:
    """The sub-step that failed after the last allowed halving."""

    state: Any          #: the state it started from
    h: float            #: its size
    outcome: Any        #: the step function's report of the failure (a NewtonOutcome)
    path: tuple         #: which halves lead to it from the whole step: 0 first, 1 second


@dataclass
class Advance:
    """Outcome of :func:`advance`."""

    state: Any          #: the state at the end of the step; None if a sub-step failed
    substeps: int = 0   #: sub-steps completed (1 when the step needed no halving)
    halvings: int = 0   #: times a step or sub-step was split in two
    failure: FailedStep | None = None


def advance(step: Callable[[Any, float], tuple], state: Any, h: float, max_halvings: int,
            failed: Any = None) -> Advance:
    """Advance ``state`` by ``h`` with ``step(state, h) -> (new state or None, outcome)``,
    halving a failed step recursively up to ``max_halvings`` levels deep.

    On success ``substeps = halvings + 1``.  On failure ``state`` is None and ``failure``
    describes the sub-step that still failed at ``h / 2**max_halvings``; the counts are
    those of the sub-steps tried until then.  ``failed``: the outcome of the whole step,
    already tried and failed elsewhere (the compiled loop, solvers/compiled_loop.py): the
    halving starts from it without trying the step again.
    """
    tally = Advance(None)
    tally.state = _advance(step, state, h, max_halvings, 0, (), tally, failed)
    return tally


def _advance(step, state, h, max_halvings, depth, path, tally, failed=None):
    new, out = (None, failed) if failed is not None else step(state, h)
    if new is not None:
        tally.substeps += 1
        return new
    if depth >= max_halvings:
        tally.failure = FailedStep(state, h, out, path)
        return None
    tally.halvings += 1
    mid = _advance(step, state, h / 2, max_halvings, depth + 1, path + (0,), tally)
    if mid is None:
        return None
    return _advance(step, mid, h / 2, max_halvings, depth + 1, path + (1,), tally)
