"""Wheel-roller (wheel-rail) normal contact: Hertz's nonlinear spring F = (δ/G)^{3/2}
for compression δ > 0 and F = 0 when the wheel leaves the roller (P5, after Zhai).

G [m/N^{2/3}] from the wheel radius R [m] by Zhai's fits (W. Zhai, *Vehicle-Track
Coupled Dynamics: Theory and Applications*, Springer 2020, ch. 2):
conical tread G = 4.57 R^{−0.149} × 10⁻⁸, worn tread G = 3.86 R^{−0.115} × 10⁻⁸.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError

PROFILES = {"conical": (4.57e-8, -0.149), "worn": (3.86e-8, -0.115)}


def hertz_constant(wheel_radius: float, profile: str = "conical") -> float:
    """Zhai's contact constant G for a wheel of radius ``wheel_radius``."""
    if not (np.isfinite(wheel_radius) and wheel_radius > 0):
        raise ModelError(f"contact: wheel radius must be > 0, got {wheel_radius!r}", key="wheel_radius")
    try:
        c, e = PROFILES[profile]
    except KeyError:
        raise ModelError(f"contact: unknown tread profile {profile!r}; choose one of {', '.join(PROFILES)}",
                         key="profile") from None
    return c * wheel_radius ** e


def hertz_force(delta, G: float):
    """Normal force (δ/G)^{3/2} for δ > 0, zero on loss of contact (δ ≤ 0)."""
    d = np.maximum(np.asarray(delta, dtype=float), 0.0)
    return (d / G) ** 1.5


def static_deflection(load: float, G: float) -> float:
    """Compression under a static load P: δ₀ = G P^{2/3}."""
    return G * load ** (2.0 / 3.0)


def linear_stiffness(load: float, G: float) -> float:
    """Tangent stiffness dF/dδ = 3/2 P^{1/3} / G at the static load P."""
    return 1.5 * load ** (1.0 / 3.0) / G
