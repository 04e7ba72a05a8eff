"""Floating-frame modal beams (P4): the spin-up beam against the SE(3) beam.

The spin-up problem (Kane, Ryan & Banerjee 1987; the data of Simo & Vu-Quoc 1986):
a cantilever of length L = 10 m clamped to a hub turning about the global z axis, driven
from rest along ω(t) = Ω/T (t − T/(2π) sin(2πt/T)) for t < T and Ω after, with Ω = 4 rad/s,
T = 15 s; EA = 2.8e7 N, EI = 1.4e4 N m², ρA = 1.2 kg/m (GJ and the sections' rotary
inertia, which the in-plane motion hardly feels, are flexmbd's choice: GJ = 1.4e4 N m²,
ρI = 6e-4 kg m).  Ω exceeds the first bending frequency (3.8 rad/s): without the
centrifugal stiffening the linear modal beam softens and diverges.
"""
from __future__ import annotations

import numpy as np

import flexmbd as fm

from ..beams.sections import Section
from ..ground import GROUND
from ..timefunctions import UserFunction

OMEGA, T_UP, LENGTH = 4.0, 15.0, 10.0
SPIN_SECTION = Section.user(EA=2.8e7, GA2=1e7, GA3=1e7, GJ=1.4e4, EI2=1.4e4, EI3=1.4e4, rhoA=1.2, rhoI2=6e-4,
                            rhoI3=6e-4)


#: simulate options of the SE(3) beam: its axial stiffness makes the residual test too
#: strict at the default tolerance, the increment test converges (docs/model-format.md)
SE3_OPTIONS = dict(convergence="increment")


def hub_angle(omega: float = OMEGA, T: float = T_UP) -> UserFunction:
    """θ(t) of ω(t) = Ω/T (t − T/(2π) sin(2πt/T)) for t < T, Ω after, with exact θ', θ''."""

    def f(t):
        if t < T:
            return omega / T * (t ** 2 / 2 + (T / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T) - 1))
        return omega * T / 2 + omega * (t - T)

    def df(t):
        return omega / T * (t - T / (2 * np.pi) * np.sin(2 * np.pi * t / T)) if t < T else omega

    def ddf(t):
        return omega / T * (1 - np.cos(2 * np.pi * t / T)) if t < T else 0.0
    return UserFunction(f, df, ddf)


def spin_up_model(formulation: str = "modal", stiffening: bool = True, modes: int = 3, elements: int = 10) -> fm.Model:
    """The spin-up beam as a modal beam (``formulation`` "modal", ``modes`` in-plane
    clamped-free bending modes) or an SE(3) beam ("se3", ``elements`` linear elements),
    its root on a revolute joint at the origin with the hub angle driven."""
    m = fm.Model(gravity=(0, 0, 0))
    if formulation == "modal":
        node = m.modal_beam(name="b", length=LENGTH, section=SPIN_SECTION, ends="clamped-free",
                            modes=dict(bending_y=modes), geometric_stiffening=stiffening)
    else:
        node = m.beam("rod", section=SPIN_SECTION, elements=elements, start=(0, 0, 0), end=(LENGTH, 0, 0),
                      formulation="se3", e2=(0, 1, 0)).first
    m.revolute(GROUND, node, at=(0, 0, 0), axis=(0, 0, 1), name="hub")
    m.rotation_driver(GROUND, node, axis=(0, 0, 1), angle=hub_angle(), name="drive")
    return m


def spin_up_tip(result, formulation: str = "modal") -> np.ndarray:
    """The tip's deflection along the hub's rotating y axis (steps,) [m]."""
    if formulation == "modal":
        return result["b.tip_deflection"][:, 1]
    x = result["rod.last.position"]
    a = np.array([hub_angle()(t) for t in result.t])
    return -np.sin(a) * x[:, 0] + np.cos(a) * x[:, 1]


__all__ = ["OMEGA", "T_UP", "LENGTH", "SPIN_SECTION", "SE3_OPTIONS", "hub_angle", "spin_up_model", "spin_up_tip"]
