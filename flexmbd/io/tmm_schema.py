"""The schema of model files with a top-level ``tmm:`` section (DT-TMM chains and P5's
roller rig; :mod:`flexmbd.io.tmm_file` reads and runs them, docs/solvers/tmm.md).  The
chain's element entries are the registered element types of the ``tmm`` family
(:mod:`flexmbd.registry`); :mod:`flexmbd.io.model_schema` puts :class:`TmmFile` beside the
index-3 model file in ``flexmbd schema``.  Units SI; speeds in km/h.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from ..registry import element_types
from ..tmm import elements as _elements  # noqa: F401  (registers the DT-TMM element types)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: an element entry: any registered DT-TMM element type (flexmbd.registry, family tmm), told
#: apart by its ``type``
Element = Annotated[Union[tuple(t.Spec for t in element_types("tmm.chain.elements", family="tmm"))],
                    Field(discriminator="type")]


def _titled(title: str) -> ConfigDict:
    return ConfigDict(extra="forbid", title=title)


class LoadEntry(_Strict):
    """A load on one element of the chain, times ``scale``."""
    model_config = _titled("DT-TMM load")
    element: str = Field(description="name of the loaded element")
    force: float = Field(0.0, description="vertical force at a rigid body's centre of mass [N], upward positive")
    moment: float = Field(0.0, description="moment on a rigid body [N m]")
    distributed: float = Field(0.0, description="uniform load on a beam segment [N/m], upward positive")
    scale: Union[float, str] = Field(1.0, description="a number or an expression of t")


class Newmark(_Strict):
    """Newmark-β parameters of the chain's time step (P5)."""
    model_config = _titled("DT-TMM Newmark")
    beta: float = Field(0.25, description="Newmark β")
    gamma: float = Field(0.5, description="Newmark γ")


class ChainSection(_Strict):
    """A DT-TMM chain: elements left to right between two boundaries."""
    model_config = _titled("DT-TMM chain")
    left: str = Field("free", description="left boundary: free | pinned | clamped")
    right: str = Field("free", description="right boundary: free | pinned | clamped")
    elements: list[Element] = Field(min_length=1, description="the elements, left to right (type beam | rigid | "
                                                              "spring)")
    loads: list[LoadEntry] = Field([], description="loads on elements")
    newmark: Newmark = Field(Newmark(), description="time discretisation")


class Harmonic(_Strict):
    """Wheel out-of-round or roller polygon of order n: A cos(n s / R + phase)."""
    model_config = _titled("DT-TMM irregularity: polygon, out_of_round")
    type: Literal["polygon", "out_of_round"]
    order: int = Field(ge=1, description="order n (harmonics per revolution)")
    amplitude: float = Field(ge=0, description="amplitude A [m]")
    phase: float = Field(0.0, description="phase [rad]")
    radius: float | None = Field(None, gt=0, description="radius R [m]; default the roller's (polygon) or the "
                                                         "wheel's (out_of_round)")


class Dent(_Strict):
    """A cosine dent −d/2 (1 − cos 2π(s − start)/length) of rolling distance s."""
    model_config = _titled("DT-TMM irregularity: dent")
    type: Literal["dent"]
    start: float = Field(description="rolling distance where the dent begins [m]")
    length: float = Field(gt=0, description="dent length [m]")
    depth: float = Field(ge=0, description="dent depth d [m]")
    period: float | None = Field(None, gt=0, description="repeat every period [m] (a circumference)")


class Roughness(_Strict):
    """Random roughness from the PSD S(κ) ∝ κ^−exponent, scaled to ``rms``."""
    model_config = _titled("DT-TMM irregularity: roughness")
    type: Literal["roughness"]
    rms: float = Field(ge=0, description="rms roughness [m]")
    wavelengths: tuple[float, float] = Field((0.01, 1.0), description="shortest and longest wavelength [m]")
    exponent: float = Field(2.0, description="exponent of S(κ) ∝ κ^−exponent")
    seed: int = Field(0, description="seed of the random phases")


class BandRoughness(_Strict):
    """Random roughness with ISO 3095:2013's limit spectrum (one-third octave bands, the
    orders of the roller's or wheel's circumference), times ``scale``."""
    model_config = _titled("DT-TMM irregularity: iso3095")
    type: Literal["iso3095"]
    scale: float = Field(1.0, ge=0, description="factor on the band rms values (1: the limit; −16 dB: 0.158)")
    shortest: float = Field(0.0315, gt=0, description="shortest band centre wavelength kept [m]")
    seed: int = Field(0, description="seed of the random phases")
    radius: float | None = Field(None, gt=0, description="radius whose circumference the profile repeats on [m] "
                                 "(default: the roller's or the wheel's)")


Irregularity = Annotated[Union[Harmonic, Dent, Roughness, BandRoughness], Field(discriminator="type")]


class RigSection(_Strict):
    """P5's roller rig (flexmbd.tmm.rig)."""
    model_config = _titled("DT-TMM rig")
    speed: float = Field(gt=0, description="rolling speed [km/h]")
    flexible: bool = Field(True, description="flexible axle (false: P5's rigid wheelset)")
    parameters: dict[str, Union[float, int, str, list[float]]] = Field(
        {}, description="changes to the rig's RigParameters (flexmbd/tmm/rig.py)")
    roller: tuple[list[Irregularity], list[Irregularity]] = Field(
        ([], []), description="irregularities of roller 1 and roller 2")
    wheel: tuple[list[Irregularity], list[Irregularity]] = Field(
        ([], []), description="irregularities of wheel 4 and wheel 9")
    settle: float = Field(0.2, ge=0, description="settling time before rolling [s]")
    every: int = Field(1, ge=1, description="store every n-th step")


class TmmSection(_Strict):
    """The DT-TMM run: exactly one of chain and rig."""
    model_config = _titled("DT-TMM section")
    h: float = Field(gt=0, description="time step [s]")
    t_end: float = Field(gt=0, description="end time [s]")
    chain: ChainSection | None = Field(None, description="a chain of elements")
    rig: RigSection | None = Field(None, description="P5's roller rig")


class TmmFile(_Strict):
    """A DT-TMM model file (flexmbd run FILE)."""
    model_config = _titled("flexmbd DT-TMM model file")
    name: str = Field("", description="model name")
    description: str = Field("", description="free text")
    tmm: TmmSection = Field(description="the DT-TMM chain or rig and its time step")
