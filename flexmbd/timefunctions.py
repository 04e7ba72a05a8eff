"""Functions of time for drivers, actuator forces and loads.

Every time function returns its value and first two derivatives, because a driving
constraint Φ(q, t) = 0 needs Φ_t and Φ_tt for consistent velocities and accelerations.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


class TimeFunction:
    """f(t) with derivatives; subclasses implement :meth:`derivatives`."""

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """Return (f, f', f'') at time t."""
        raise NotImplementedError

    def __call__(self, t: float) -> float:
        return self.derivatives(t)[0]


@dataclass(frozen=True)
class Constant(TimeFunction):
    value: float

    def derivatives(self, t):
        return float(self.value), 0.0, 0.0


@dataclass(frozen=True)
class ConstantSpeed(TimeFunction):
    """f(t) = offset + speed·t (constant angular or linear speed)."""

    speed: float
    offset: float = 0.0

    def derivatives(self, t):
        return self.offset + self.speed * t, float(self.speed), 0.0


@dataclass(frozen=True)
class Polynomial(TimeFunction):
    """f(t) = Σ c_k t^k with coefficients in increasing order."""

    coefficients: tuple[float, ...]

    def derivatives(self, t):
        c = np.polynomial.Polynomial(self.coefficients)
        return float(c(t)), float(c.deriv(1)(t)), float(c.deriv(2)(t))


@dataclass(frozen=True)
class Ramp(TimeFunction):
    """Smooth ramp from 0 to ``value`` over [0, duration] (quintic, zero end rates)."""

    value: float
    duration: float

    def derivatives(self, t):
        if t >= self.duration:
            return float(self.value), 0.0, 0.0
        if t <= 0.0:
            return 0.0, 0.0, 0.0
        s = t / self.duration
        f = 10 * s**3 - 15 * s**4 + 6 * s**5
        df = (30 * s**2 - 60 * s**3 + 30 * s**4) / self.duration
        ddf = (60 * s - 180 * s**2 + 120 * s**3) / self.duration**2
        return self.value * f, self.value * df, self.value * ddf


class UserFunction(TimeFunction):
    """A user callable f(t); derivatives given, or by central differences.

    Central differences are accurate to about 1e-7 relative here; pass ``df``/``ddf``
    when a driver must be exact.
    """

    def __init__(self, f: Callable[[float], float], df=None, ddf=None, step: float = 1e-5):
        if not callable(f):
            raise TypeError(f"time function must be callable, got {f!r}")
        self.f, self.df, self.ddf, self.step = f, df, ddf, step

    def derivatives(self, t):
        f0 = float(self.f(t))
        h = self.step
        df = float(self.df(t)) if self.df else (self.f(t + h) - self.f(t - h)) / (2 * h)
        if self.ddf:
            ddf = float(self.ddf(t))
        elif self.df:
            ddf = (self.df(t + h) - self.df(t - h)) / (2 * h)
        else:
            ddf = (self.f(t + h) - 2 * f0 + self.f(t - h)) / h**2
        return f0, float(df), float(ddf)


def as_time_function(x) -> TimeFunction:
    """Accept a number, a TimeFunction or a callable."""
    if isinstance(x, TimeFunction):
        return x
    if callable(x):
        return UserFunction(x)
    try:
        return Constant(float(x))
    except (TypeError, ValueError):
        raise TypeError(f"expected a number, a TimeFunction or a callable of t, got {x!r}") from None
