"""Irregularity inputs as functions of rolling distance s [m] → height [m] (positive: the
surface rises, compressing the contact) (P5, "excitations": initial roughness,
wheel out-of-round, roller polygon, local dent).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import ModelError


def _check(name, key, value, positive=True):
    v = float(value)
    if not np.isfinite(v) or (positive and v <= 0) or (not positive and v < 0):
        raise ModelError(f"{name}: {key} must be a finite number {'>' if positive else '≥'} 0, got {value!r}",
                         element=name, key=key)
    return v


def harmonic(radius: float, order: int, amplitude: float, phase: float = 0.0, name: str = "out-of-round"):
    """Out-of-roundness of a wheel, or a polygon of a roller, of ``order`` n on a circle of
    radius R: A cos(n s / R + phase) (wavelength 2πR/n; P5's 36th-order roller polygon,
    R = 0.9 m: 157 mm)."""
    R = _check(name, "radius", radius)
    A = _check(name, "amplitude", amplitude, positive=False)
    if int(order) != order or order < 1:
        raise ModelError(f"{name}: order must be a positive integer, got {order!r}", element=name, key="order")
    k = order / R
    return lambda s: A * np.cos(k * np.asarray(s, dtype=float) + phase)


def dent(start: float, length: float, depth: float, period: float | None = None, name: str = "dent"):
    """A local dent, cosine-shaped: −d/2 (1 − cos 2π(s − s₀)/l) on s₀ ≤ s ≤ s₀ + l (P5: 300 mm
    long, 0.3 mm deep), repeating every ``period`` (a circumference) if given."""
    l = _check(name, "length", length)
    d = _check(name, "depth", depth, positive=False)
    if period is not None:
        period = _check(name, "period", period)
        if l >= period:
            raise ModelError(f"{name}: length ({l}) must be shorter than the period ({period})",
                             element=name, key="length")

    def f(s):
        x = np.asarray(s, dtype=float) - start
        if period is not None:
            x = np.mod(x, period)
        inside = (x >= 0.0) & (x <= l)
        return np.where(inside, -0.5 * d * (1.0 - np.cos(2.0 * np.pi * x / l)), 0.0)
    return f


def random_roughness(psd: Callable, wavelengths: tuple[float, float], seed: int, n: int = 2000,
                     rms: float | None = None, name: str = "roughness"):
    """Random roughness from a one-sided PSD S(κ) [m²/(rad/m)] over wavenumbers
    κ = 2π/λ for λ in ``wavelengths`` (min, max): the spectral representation
    r(s) = Σ √(2 S(κ_i) Δκ) cos(κ_i s + ϕ_i) with phases ϕ_i uniform from ``seed``
    (Shinozuka's method); its mean square is Σ S Δκ ≈ ∫S dκ.  ``rms`` rescales it."""
    lo, hi = (_check(name, "wavelengths", w) for w in wavelengths)
    if lo >= hi:
        raise ModelError(f"{name}: wavelengths must be (shortest, longest), got {wavelengths!r}",
                         element=name, key="wavelengths")
    k = np.linspace(2 * np.pi / hi, 2 * np.pi / lo, n)
    dk = k[1] - k[0]
    S = np.asarray(psd(k), dtype=float)
    if np.any(~np.isfinite(S)) or np.any(S < 0):
        raise ModelError(f"{name}: the PSD must be finite and ≥ 0 on the wavenumber range", element=name, key="psd")
    amp = np.sqrt(2.0 * S * dk)
    if rms is not None:
        amp *= _check(name, "rms", rms, positive=False) / np.sqrt(0.5 * np.sum(amp ** 2))
    phase = np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n)

    def f(s):
        s = np.asarray(s, dtype=float)
        return np.sum(amp * np.cos(np.multiply.outer(s, k) + phase), axis=-1)
    f.amplitudes, f.wavenumbers = amp, k
    return f


def wheel_centre_path(profile: Callable, radius: float, half_width: float, n: int = 801,
                      name: str = "wheel centre path"):
    """The height of the centre of a rigid wheel of radius R rolling over ``profile`` (minus R):
    the envelope z_c(s) = max_ξ [r(ξ) + √(R² − (s − ξ)²)] − R over |s − ξ| ≤ ``half_width``,
    sampled at ``n`` points (spacing Δ = 2·half_width/(n − 1); for a profile with corners the
    height is low by at most (x/R)·Δ, x the corner's distance from below the centre).

    A wheel follows a profile's concave parts only where their curvature is below 1/R; over a
    shorter or sharper dent (a rail joint gap, a wheel flat) it bridges the dent and its centre
    follows this envelope, not the profile (Zhai, *Vehicle-Track Coupled Dynamics*, Springer
    2020, on wheel flats and joints).  A cosine dent of depth d and length l has curvature
    (d/2)(2π/l)² at its bottom: P5's 0.3 mm × 300 mm dent, 1/15.2 m, so a wheel of 0.4575 m
    follows it and the envelope differs from the profile only by the slope term ≤ R r'²/2."""
    R = _check(name, "radius", radius)
    w = _check(name, "half_width", half_width)
    if w >= R:
        raise ModelError(f"{name}: half_width ({w}) must be smaller than the radius ({R})", element=name,
                         key="half_width")
    if int(n) != n or n < 3:
        raise ModelError(f"{name}: n must be an integer ≥ 3, got {n!r}", element=name, key="n")
    off = np.linspace(-w, w, int(n))
    cap = np.sqrt(R * R - off * off) - R

    def f(s):
        s = np.asarray(s, dtype=float)
        return np.max(np.asarray(profile(np.add.outer(s, off)), dtype=float) + cap, axis=-1)
    return f


def combine(parts: Sequence[Callable]):
    """The sum of several irregularities."""
    parts = list(parts)
    return lambda s: sum((p(s) for p in parts), np.zeros(np.shape(s)))
