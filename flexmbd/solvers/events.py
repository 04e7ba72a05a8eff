"""Events of a run by the index-3 integrators: sign changes of the groups' switching functions.

Groups may expose switching functions (:meth:`flexmbd.groups.Group.switching`: a joint
limit's m − upper and lower − m).  After each step their signs are compared with the
previous step's; a change is an event (time, element, kind), its time interpolated
linearly between the two steps (accurate to O(h²) for a function that is smooth across the
crossing).  The integrator does not stop there: the forces behind these functions are
continuous in the state (penalty laws); the set-valued solvers locate their own events.

A group may also give rates (:meth:`flexmbd.groups.Group.switch_rate`, same shape: a
contact's normal force) whose integral over the time a function stays positive is reported
with the falling crossing (``switch_event(e, j, False, amount)``: the impulse of a
contact), by the trapezoidal rule over the steps, the partial steps at the crossings with
the rates interpolated linearly to the crossing times (O(h²) for smooth rates).
"""
from __future__ import annotations

import numpy as np


class EventWatch:
    """Watches the switching functions of a system's groups from step to step."""

    def __init__(self, system):
        self.system = system
        self.groups = [g for g in system.groups if type(g).switching is not _base_switching()]
        self.rated = [type(g).switch_rate is not _base_rate() for g in self.groups]
        self._prev = None
        self._sums = None

    def __bool__(self) -> bool:
        return bool(self.groups)

    def _values(self, q, v, t):
        qe, ve = self.system.extend(q), self.system.extend_velocity(v)
        return [(g.switching(qe, ve, t), g.switch_rate(qe, ve, t) if r else None)
                for g, r in zip(self.groups, self.rated)]

    def start(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        self._prev = (t, self._values(q, v, t))
        self._sums = [np.zeros_like(s) if r is not None else None for s, r in self._prev[1]]

    def step(self, t: float, q: np.ndarray, v: np.ndarray) -> list[tuple[float, str, str]]:
        """Events between the previous call and (t, q, v), in time order."""
        t0, old = self._prev
        new = self._values(q, v, t)
        events = []
        for g, (a, ra), (b, rb), acc in zip(self.groups, old, new, self._sums):
            with np.errstate(invalid="ignore"):
                crossed = ((a <= 0) & (b > 0)) | ((a > 0) & (b <= 0))
                tau = np.where(crossed & np.isfinite(a) & np.isfinite(b) & (a != b), a / np.where(a != b, a - b, 1.0),
                               1.0)
            if acc is not None:       # ∫ rate dt while positive: whole steps, and the parts of crossed ones
                rc = ra + tau * (rb - ra)
                whole = (a > 0) & (b > 0)
                acc += np.where(whole, 0.5 * (ra + rb) * (t - t0), 0.0)
                acc += np.where(crossed & (b > 0), 0.5 * (rc + rb) * (1.0 - tau) * (t - t0), 0.0)
                acc += np.where(crossed & (a > 0), 0.5 * (ra + rc) * tau * (t - t0), 0.0)
            for e, j in np.argwhere(crossed):
                rising = bool(b[e, j] > 0)
                when = float(t0 + tau[e, j] * (t - t0))
                if acc is not None and not rising:
                    kind = g.switch_event(e, j, False, float(acc[e, j]))
                    acc[e, j] = 0.0
                elif acc is not None:
                    kind = g.switch_event(e, j, True, None)
                else:
                    kind = g.switch_event(e, j, rising)
                events.append((when, g.element_names[e], kind))
        self._prev = (t, new)
        return sorted(events)


def _base_switching():
    from ..groups import Group
    return Group.switching


def _base_rate():
    from ..groups import Group
    return Group.switch_rate
