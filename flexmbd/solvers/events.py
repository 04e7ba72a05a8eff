"""Events of a run by the index-3 integrators: sign changes of the groups' switching functions.

Groups may expose switching functions (:meth:`flexmbd.groups.Group.switching`: a joint
limit's m − upper and lower − m).  After each step their signs are compared with the
previous step's; a change is an event (time, element, kind), its time interpolated
linearly between the two steps (accurate to O(h²) for a function that is smooth across the
crossing).  The integrator does not stop there: the forces behind these functions are
continuous in the state (penalty laws); the set-valued solvers locate their own events.
"""
from __future__ import annotations

import numpy as np


class EventWatch:
    """Watches the switching functions of a system's groups from step to step."""

    def __init__(self, system):
        self.system = system
        self.groups = [g for g in system.groups if type(g).switching is not _base_switching()]
        self._prev = None

    def __bool__(self) -> bool:
        return bool(self.groups)

    def _values(self, q, v, t):
        qe, ve = self.system.extend(q), self.system.extend_velocity(v)
        return [g.switching(qe, ve, t) for g in self.groups]

    def start(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        self._prev = (t, self._values(q, v, t))

    def step(self, t: float, q: np.ndarray, v: np.ndarray) -> list[tuple[float, str, str]]:
        """Events between the previous call and (t, q, v), in time order."""
        t0, old = self._prev
        new = self._values(q, v, t)
        events = []
        for g, a, b in zip(self.groups, old, new):
            with np.errstate(invalid="ignore"):
                crossed = np.argwhere(((a <= 0) & (b > 0)) | ((a > 0) & (b <= 0)))
            for e, j in crossed:
                fa, fb = a[e, j], b[e, j]
                tau = fa / (fa - fb) if np.isfinite(fa) and np.isfinite(fb) and fa != fb else 1.0
                events.append((float(t0 + tau * (t - t0)), g.element_names[e], g.switch_event(e, j, fb > 0)))
        self._prev = (t, new)
        return sorted(events)


def _base_switching():
    from ..groups import Group
    return Group.switching
