"""Error-controlled time steps for the Newmark family.

Local error estimate (Zienkiewicz & Xie 1991, "A simple error estimator and adaptive time
stepping procedure for dynamic analysis", Earthquake Eng. Struct. Dyn. 20: 871–887): the
Newmark displacement formula differs from the Taylor series by

    e = (β − 1/6) h² (q''_{n+1} − q''_n)  + O(h⁴),

the first neglected term h³ q''' /6 against β h³ q'''.  For the trapezoidal rule
(β = ¼) e = h² (q''_{n+1} − q''_n)/12; the same estimate serves generalized-α and HHT,
whose displacement error has the same leading form.  The accelerations used are the
consistent ones when ``multipliers = 'consistent'`` (smooth, no index-3 noise).

Error per unit step: the root mean square over the coordinates of
e_i / ((atol + rtol |q_i|) h/T), T = t_end − t_start (vector kinds; Lie-group kinds, whose
increments are not coordinates, use the body's largest coordinate as |q_i|).  Local
errors of a second-order method add up over the T/h steps of a run, so a local error
held to rtol alone gives a global error T/h times larger; held to rtol·h/T, their sum
stays near rtol (Shampine, Numerical Solution of ODEs, 1994, sec. 5.1: "error per unit
step").  A step is accepted when the norm is ≤ 1; the next step is
h · min(2, max(0.2, 0.9 err^(−1/2))) (the normalised error is O(h²)), a rejected one is
retried with the same factor; a Newton failure counts as a rejection with factor ¼.  Steps land exactly on every
output time t_start + k h_out, the interval to it cut into equal steps no longer than the
controller's (no sliver of a step before it); the run stops with a diagnosis when a step
would fall below ``h_min``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FACTOR_MAX, FACTOR_MIN, SAFETY = 2.0, 0.2, 0.9


@dataclass
class StepControl:
    """Counters of the error-controlled run, kept in ``Result.stats['adaptive']``."""

    accepted: int = 0
    rejected: int = 0
    newton_failures: int = 0
    h_smallest: float = np.inf
    h_largest: float = 0.0

    def as_dict(self) -> dict:
        return dict(accepted=self.accepted, rejected=self.rejected, newton_failures=self.newton_failures,
                    h_smallest=self.h_smallest, h_largest=self.h_largest)


class ErrorControl:
    """The local error norm of a step and the next step size."""

    def __init__(self, system, beta: float, rtol: float, atol: float, span: float) -> None:
        self.c = abs(beta - 1.0 / 6.0)
        self.span = span
        self.rtol, self.atol = rtol, atol
        # |q_i| in velocity layout: the coordinate itself for vector kinds, the body's largest
        # coordinate for Lie-group kinds (their increments are not coordinates)
        self.same_layout = system.n_q == system.n
        self.groups = None if self.same_layout else [
            (system.body_slice(b), system.config_slice(b)) for b in system.model.bodies]

    def _magnitude(self, q: np.ndarray) -> np.ndarray:
        if self.same_layout:
            return np.abs(q)
        out = np.empty(sum(v.stop - v.start for v, _ in self.groups))
        for v, c in self.groups:
            out[v] = np.abs(q[c]).max(initial=0.0)
        return out

    def error(self, h: float, qdd0: np.ndarray, qdd1: np.ndarray, q1: np.ndarray) -> float:
        e = self.c * h * h * (qdd1 - qdd0)
        w = (self.atol + self.rtol * self._magnitude(q1)) * (h / self.span)
        return float(np.sqrt(np.mean((e / w) ** 2))) if e.size else 0.0

    @staticmethod
    def factor(err: float) -> float:
        if err == 0.0:
            return FACTOR_MAX
        return min(FACTOR_MAX, max(FACTOR_MIN, SAFETY * err ** (-0.5)))


@dataclass
class Interval:
    """Outcome of :meth:`Controller.advance` (the fields :func:`~.halving.advance` gives)."""

    state: object = None        #: the state at the target time; None if the run must stop
    substeps: int = 0           #: accepted steps
    halvings: int = 0           #: rejected steps
    message: str = ""           #: why the run stops (state None)


class Controller:
    """Advances a run to each output time with error-controlled steps.

    ``step(state, h) -> (state or None, newton outcome)`` is one integrator step (the
    stepper's), ``finish(state) -> state`` what follows an accepted step (the consistent
    multipliers), ``watch(state)`` sees every accepted step (events)."""

    def __init__(self, control: ErrorControl, step, finish, h_first: float, h_max: float, h_min: float,
                 watch=None) -> None:
        self.control, self.step, self.finish, self.watch = control, step, finish, watch
        self.h, self.h_max, self.h_min = min(h_first, h_max), h_max, h_min
        self.stats = StepControl()

    def advance(self, state, target: float) -> Interval:
        out = Interval()
        ctl, st = self.control, self.stats
        while target - state.t > 1e-12 * self.h_max:
            left = target - state.t
            # the steps to the output time equal, none longer than the controller's: no
            # sliver of a step before it (step-size ratios far from 1 cost accuracy)
            h = left / max(1.0, np.ceil(left / self.h - 1e-6))
            new, newton = self.step(state, h)
            if new is None:
                st.newton_failures += 1
                factor, err = 0.25, np.inf
            else:
                new = self.finish(new)
                err = ctl.error(h, state.qdd, new.qdd, new.q)
                factor = ctl.factor(err)
            if err <= 1.0:
                state = new
                out.substeps += 1
                st.accepted += 1
                st.h_smallest, st.h_largest = min(st.h_smallest, h), max(st.h_largest, h)
                if self.watch is not None:
                    self.watch(state)
                if h < self.h:   # shortened to meet an output time: the error the controller's size would have had
                    self.h = min(self.h_max, self.h * ctl.factor(err * (self.h / h) ** 2))
                else:
                    self.h = min(self.h_max, h * factor)
                continue
            out.halvings += 1
            st.rejected += 1
            self.h = h * factor
            if self.h < self.h_min:
                why = (f"Newton: {newton.message}" if new is None else
                       f"local error estimate {err:.3g} × the tolerance")
                out.message = (f"step from t = {state.t:.6g} s rejected down to h = {self.h:.3g} s < h_min = "
                               f"{self.h_min:.3g} s ({why})")
                return out
        out.state = state
        return out
