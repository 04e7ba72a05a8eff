"""Floating-frame modal beams (P4): the spin-up beam against the SE(3) beam, P3's
crank-slider Model II with modal beams, and the spatial flexible manipulator
(flexmbd/models/ffr-manipulator.yaml).

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


def spin_up_model(formulation: str = "modal", stiffening: bool | str = True, modes: int = 3, elements: int = 10,
                  omega: float = OMEGA) -> fm.Model:
    """The spin-up beam as a modal beam (``formulation`` "modal", ``modes`` in-plane
    clamped-free bending modes) or an SE(3) beam ("se3", ``elements`` linear elements),
    its root on a revolute joint at the origin with the hub angle driven to ``omega``."""
    m = fm.Model(gravity=(0, 0, 0))
    if formulation == "modal":
        node = m.modal_beam(name="b", length=LENGTH, section=SPIN_SECTION, ends="clamped-free",
                            modes=dict(bending_y=modes), geometric_stiffening=stiffening)
    else:
        node = m.beam("rod", section=SPIN_SECTION, elements=elements, start=(0, 0, 0), end=(LENGTH, 0, 0),
                      formulation="se3", e2=(0, 1, 0)).first
    m.revolute(GROUND, node, at=(0, 0, 0), axis=(0, 0, 1), name="hub")
    m.rotation_driver(GROUND, node, axis=(0, 0, 1), angle=hub_angle(omega), name="drive")
    return m


def spin_up_tip(result, formulation: str = "modal") -> np.ndarray:
    """The tip's deflection along the hub's rotating y axis (steps,) [m]."""
    if formulation == "modal":
        return result["b.tip_deflection"][:, 1]
    x = result["rod.last.position"]
    a = np.array([hub_angle()(t) for t in result.t])
    return -np.sin(a) * x[:, 0] + np.cos(a) * x[:, 1]


# ------------------------------------------------------------------ P3's crank-slider

def crank_slider_model(which: str = "II", modes: int = 5, stiffening: str = "foreshortening") -> fm.Model:
    """P3's crank-slider (:func:`flexmbd.examples.p3_beams.crank_slider`'s data) with the
    crank and the connecting rod as pinned-pinned modal beams (frames through their ends,
    ``modes`` in-plane bending modes each); markers A, C, B at the rod's start, middle and
    end for P3's deformation measure d/L."""
    from .p3_beams import CRANK_SLIDER, NU

    p = CRANK_SLIDER[which]
    sec = Section.rectangle(p["width"], p["width"], E=p["E"], nu=NU, rho=p["rho"])
    m = fm.Model(name=f"p3-crank-slider-{which}-modal")
    kw = dict(section=sec, ends="pinned-pinned", modes=dict(bending_y=modes), geometric_stiffening=stiffening)
    crank = m.modal_beam(name="crank", length=0.3, **kw)
    rod = m.modal_beam(name="rod", length=0.5, position=(0.3, 0, 0), **kw)
    slider = m.rigid_body("slider", mass=0.1, inertia=np.full(3, 0.1 * 0.02 ** 2 / 6), position=(0.8, 0, 0))
    m.spherical(GROUND, crank, at=(0, 0, 0), name="bearing")
    m.spherical(crank, rod, at=(0.3, 0, 0), name="crank_pin")
    m.revolute(rod, slider, at=(0.8, 0, 0), axis=(0, 0, 1), name="wrist_pin")
    m.prismatic(GROUND, slider, at=(0.8, 0, 0), axis=(1, 0, 0), name="guide")
    m.torque(crank, (0, 0, p["torque"]), name="drive")
    for name, x in (("A", 0.3), ("C", 0.55), ("B", 0.8)):
        m.marker(rod, at=(x, 0, 0), name=name)
    return m


def crank_slider_deformation(result) -> np.ndarray:
    """P3's d/L of the rod: distance of its midpoint C from the chord AB over |AB|² (steps,)."""
    a, c, b = result["A.position"], result["C.position"], result["B.position"]
    chord = b - a
    return np.linalg.norm(np.cross(c - a, chord), axis=1) / np.sum(chord * chord, axis=1)


# ------------------------------------------------------------------ the manipulator

def manipulator_rigid_tool(t, p: dict) -> np.ndarray:
    """The tool's position (steps, 3) of flexmbd/models/ffr-manipulator.yaml with rigid
    links (forward kinematics of the three driven joints), for the file's parameters ``p``."""
    t = np.asarray(t, dtype=float)
    tau = np.minimum(t, p["T"]) / p["T"]
    s = tau - np.sin(2 * np.pi * tau) / (2 * np.pi)
    a1, a2, a3 = p["turn"] * s, p["lift"] * s, p["bend"] * s
    reach = p["L1"] * np.cos(a2) + p["L2"] * np.cos(a2 - a3)
    height = p["H"] + p["L1"] * np.sin(a2) + p["L2"] * np.sin(a2 - a3)
    return np.c_[reach * np.cos(a1), reach * np.sin(a1), height]


def manipulator_figure(result, p: dict, path) -> None:
    """The tool's path (top view and height) beside the rigid links' path, the tool's
    deviation from it, and the links' tip deflections in their frames (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result.t
    tool, rigid = result["tool.position"], manipulator_rigid_tool(t, p)
    fig, ax = plt.subplots(2, 2, figsize=(10, 7))
    ax[0, 0].plot(rigid[:, 0], rigid[:, 1], "k--", label="rigid links")
    ax[0, 0].plot(tool[:, 0], tool[:, 1], label="flexible links")
    ax[0, 0].set(xlabel="x [m]", ylabel="y [m]", title="tool path, top view", aspect="equal")
    ax[0, 0].legend()
    ax[0, 1].plot(t, rigid[:, 2], "k--", label="rigid links")
    ax[0, 1].plot(t, tool[:, 2], label="flexible links")
    ax[0, 1].set(xlabel="t [s]", ylabel="z [m]", title="tool height")
    ax[0, 1].legend()
    dev = (tool - rigid) * 1e3
    for k, c in enumerate("xyz"):
        ax[1, 0].plot(t, dev[:, k], label=c)
    ax[1, 0].set(xlabel="t [s]", ylabel="[mm]", title="tool − rigid-link path")
    ax[1, 0].legend()
    for name in ("upper_arm", "forearm"):
        d = result[f"{name}.tip_deflection"] * 1e3
        ax[1, 1].plot(t, d[:, 1], label=f"{name}, frame y")
        ax[1, 1].plot(t, d[:, 2], label=f"{name}, frame z")
    ax[1, 1].set(xlabel="t [s]", ylabel="[mm]", title="link tip deflections")
    ax[1, 1].legend(fontsize=8)
    for a in ax.flat:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


__all__ = ["OMEGA", "T_UP", "LENGTH", "SPIN_SECTION", "SE3_OPTIONS", "hub_angle", "spin_up_model", "spin_up_tip",
           "crank_slider_model", "crank_slider_deformation", "manipulator_rigid_tool", "manipulator_figure"]
