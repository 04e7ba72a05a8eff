"""Laws of joint actuators: a force or torque F(t, s) of the joint signals s, with ∂F/∂s.

The signals of an actuator are the coordinates and rates of joints' free motions
(:mod:`.joint_motion`): s = [q, q_rate] of its own joint, then [x, x_rate] for each input
joint named x.  Each law returns F and its derivatives with respect to every signal,
which the actuator group chains with the signals' exact gradients:

* :class:`ExpressionLaw` — a text in t and the signal names, parsed safely and
  differentiated symbolically (:mod:`flexmbd.expressions`): exact;
* :class:`CallableLaw` — a Python function ``law(t, q, q_rate, **inputs)``: derivatives by
  central differences (labelled ``finite differences`` in ``jacobian``; relative accuracy
  about 1e-8 for smooth laws);
* :class:`PDLaw` — the proportional-derivative controller F = k_p (q_d(t) − q) + k_d
  (q_d'(t) − q_rate) towards a set-point function, optionally saturated at ±F_max;
* :class:`MotorLaw` — a DC motor's linear torque-speed curve F = F_stall (u − q_rate/ω₀),
  u = clip(command, −1, 1) with the command a time function or an expression law.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..expressions import ExpressionError, compile_tree, derivative, parse
from ..timefunctions import TimeFunction


def signal_names(inputs: list[str]) -> tuple[str, ...]:
    """('q', 'q_rate', x, 'x_rate', …) for the input joints' variable names x."""
    return ("q", "q_rate") + tuple(n for x in inputs for n in (x, f"{x}_rate"))


class ExpressionLaw:
    """F from an expression text in t and the signals (exact derivatives)."""

    jacobian = "exact"

    def __init__(self, text: str, inputs: list[str]):
        self.text = text
        self.names = signal_names(inputs)
        variables = ("t",) + self.names
        tree = parse(text, variables)
        self._f = compile_tree(tree, variables)
        self._d = [compile_tree(derivative(tree, v), variables) for v in self.names]

    def __call__(self, t: float, s: np.ndarray) -> tuple[float, np.ndarray]:
        args = (t, *s)
        try:
            F = float(self._f(*args))
            dF = np.array([float(d(*args)) for d in self._d])
        except (ArithmeticError, ValueError) as exc:
            raise ExpressionError(f"the law {self.text!r} cannot be evaluated at t = {t:g} s "
                                  f"({', '.join(f'{n} = {v:g}' for n, v in zip(self.names, s))}): {exc}") from None
        if not (np.isfinite(F) and np.all(np.isfinite(dF))):
            raise ExpressionError(f"the law {self.text!r} is not finite at t = {t:g} s")
        return F, dF


class CallableLaw:
    """F from a Python function of (t, q, q_rate, **inputs); derivatives by central differences."""

    jacobian = "finite differences"

    def __init__(self, function: Callable, inputs: list[str]):
        self.function = function
        self.names = signal_names(inputs)

    def _call(self, t, s):
        kw = {n: float(v) for n, v in zip(self.names[2:], s[2:])}
        return float(self.function(t, float(s[0]), float(s[1]), **kw))

    def __call__(self, t: float, s: np.ndarray) -> tuple[float, np.ndarray]:
        F = self._call(t, s)
        dF = np.empty(len(s))
        for i in range(len(s)):
            step = 1e-6 * max(1.0, abs(s[i]))
            sp, sm = s.copy(), s.copy()
            sp[i] += step
            sm[i] -= step
            dF[i] = (self._call(t, sp) - self._call(t, sm)) / (2 * step)
        return F, dF


class PDLaw:
    """F = sat(k_p (q_d − q) + k_d (q_d' − q_rate)); sat clips at ±max_force (None: no limit)."""

    jacobian = "exact"

    def __init__(self, setpoint: TimeFunction, kp: float, kd: float, max_force: float | None = None):
        self.setpoint, self.kp, self.kd, self.max_force = setpoint, float(kp), float(kd), max_force

    def __call__(self, t, s):
        qd, qd_dot, _ = self.setpoint.derivatives(t)
        F = self.kp * (qd - s[0]) + self.kd * (qd_dot - s[1])
        dF = np.zeros(len(s))
        dF[:2] = -self.kp, -self.kd
        if self.max_force is not None and abs(F) > self.max_force:
            return float(np.sign(F) * self.max_force), np.zeros(len(s))
        return float(F), dF


class MotorLaw:
    """F = F_stall (clip(u, −1, 1) − q_rate/ω₀), u a time function or a law of the signals."""

    def __init__(self, stall: float, no_load_speed: float, command):
        self.stall, self.w0, self.command = float(stall), float(no_load_speed), command
        self.jacobian = getattr(command, "jacobian", "exact")

    def __call__(self, t, s):
        if isinstance(self.command, TimeFunction):
            u, du = self.command.derivatives(t)[0], np.zeros(len(s))
        else:
            u, du = self.command(t, s)
        if abs(u) > 1.0:
            u, du = float(np.sign(u)), np.zeros(len(s))
        F = self.stall * (u - s[1] / self.w0)
        dF = self.stall * du
        dF[1] -= self.stall / self.w0
        return float(F), dF
