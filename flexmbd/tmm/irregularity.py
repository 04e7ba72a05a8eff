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
                      base_radius: float | None = None, name: str = "wheel centre path"):
    """The effective irregularity a rigid wheel of radius R sees rolling over ``profile``: the
    envelope of the wheel circle, sampled at ``n`` offsets over ±``half_width`` (spacing
    Δ = 2·half_width/(n − 1); for a profile with corners it is low by at most (x/R)·Δ, x the
    corner's distance from below the centre).

    On a flat base (``base_radius`` None, a rail): the height of the wheel centre minus R,
    z_c(s) = max_ξ [r(ξ) + √(R² − (s − ξ)²)] − R.  On a roller of radius R_r
    (``base_radius``; ``profile`` radial, over the roller's arc length): the change of the
    centre distance, D(s) − (R_r + R) with D = max_ψ [ρ cos ψ + √(R² − ρ² sin² ψ)],
    ρ = R_r + r(s + R_r ψ), ψ the angle from the line of centres.

    A wheel follows a profile's concave parts only where their curvature is below the
    relative curvature of the two bodies, 1/R (rail) or 1/R + 1/R_r (roller); over a shorter
    or sharper dent (a joint gap, a wheel flat) it bridges the dent and its centre follows
    this envelope (Zhai, *Vehicle-Track Coupled Dynamics*, Springer 2020, on wheel flats and
    joints).  A cosine dent of depth d and length l has curvature (d/2)(2π/l)² at its bottom:
    P5's 0.3 mm × 300 mm dent, 1/15.2 m, so P5's wheel follows it on a rail and on the
    roller, and the envelope differs from the profile only by the slope terms (µm)."""
    R = _check(name, "radius", radius)
    w = _check(name, "half_width", half_width)
    if w >= R:
        raise ModelError(f"{name}: half_width ({w}) must be smaller than the radius ({R})", element=name,
                         key="half_width")
    if int(n) != n or n < 3:
        raise ModelError(f"{name}: n must be an integer ≥ 3, got {n!r}", element=name, key="n")
    off = np.linspace(-w, w, int(n))
    if base_radius is None:
        cap = np.sqrt(R * R - off * off) - R

        def f(s):
            s = np.asarray(s, dtype=float)
            return np.max(np.asarray(profile(np.add.outer(s, off)), dtype=float) + cap, axis=-1)
        return f
    Rr = _check(name, "base_radius", base_radius)
    psi = off / Rr
    c, sn = np.cos(psi), np.sin(psi)

    def g(s):
        s = np.asarray(s, dtype=float)
        rho = Rr + np.asarray(profile(np.add.outer(s, off)), dtype=float)
        return np.max(rho * c + np.sqrt(R * R - (rho * sn) ** 2), axis=-1) - (Rr + R)
    return g


def hertz_semi_axis(load: float, wheel_radius: float, base_radius: float | None = None,
                    transverse_radius: float = 0.3, E: float = 2.06e11, nu: float = 0.3) -> float:
    """Semi-length a of the Hertz contact patch in the rolling direction under ``load`` [N],
    approximated as circular with the equivalent radius R_e = √(R′R″) (Johnson, *Contact
    Mechanics*, 1985, §4.2): R′ = (1/R_w + 1/R_r)⁻¹ in the rolling direction (R_r
    ``base_radius``, None: a rail), R″ the transverse radius (a conical tread on a rail head
    of crown radius 300 mm, UIC60/CHN60), a = (3 P R_e / 4E*)^{1/3}, E* = E/2(1 − ν²).
    P5's wheel (R_w = 0.4575 m) on its roller (R_r = 0.9 m) under 73 kN: a ≈ 5.3 mm."""
    Rp = 1.0 / (1.0 / _check("contact patch", "wheel_radius", wheel_radius)
                + (0.0 if base_radius is None else 1.0 / _check("contact patch", "base_radius", base_radius)))
    Re = np.sqrt(Rp * _check("contact patch", "transverse_radius", transverse_radius))
    Es = _check("contact patch", "E", E) / (2.0 * (1.0 - nu * nu))
    return float((3.0 * _check("contact patch", "load", load) * Re / (4.0 * Es)) ** (1.0 / 3.0))


def contact_filter(profile: Callable, semi_axis: float, n: int = 32, name: str = "contact filter"):
    """The roughness a contact patch of semi-length a feels: the profile averaged over the
    patch with the Hertz pressure weight (2/πa²)√(a² − x²) (Remington 1987; Thompson,
    *Railway Noise and Vibration*, 2009, §5.5: the "contact filter").  A harmonic
    cos(ks) passes with the factor 2J₁(ka)/(ka) (``f.transfer(k)``): 0.85 at λ = 30 mm for
    P5's a ≈ 5.3 mm, > 0.99 at the polygon's 157 mm.  Quadrature: ``n``-point
    Gauss-Chebyshev of the second kind (exact for the weight)."""
    a = _check(name, "semi_axis", semi_axis)
    if int(n) != n or n < 1:
        raise ModelError(f"{name}: n must be a positive integer, got {n!r}", element=name, key="n")
    th = np.arange(1, int(n) + 1) * np.pi / (int(n) + 1)
    u = a * np.cos(th)
    wt = 2.0 / (int(n) + 1) * np.sin(th) ** 2            # (2/π)·π/(n+1)·sin²θ: the weights sum to 1

    def f(s):
        s = np.asarray(s, dtype=float)
        return np.asarray(profile(np.add.outer(s, u)), dtype=float) @ wt

    def transfer(k):
        from scipy.special import j1

        ka = np.asarray(k, dtype=float) * a
        return np.where(ka == 0, 1.0, 2.0 * j1(ka) / np.where(ka == 0, 1.0, ka))
    f.transfer = transfer
    return f


#: ISO 3095:2013 (6.2.5): the limit spectrum of rail roughness for the reference track of
#: pass-by tests, one-third octave band level [dB re 1 µm] per band centre wavelength [m]
#: (the band's rms roughness is 10^(L/20) µm).  EN 15610 measures it.
ISO3095_LIMIT = {0.4: 17.1, 0.315: 15.0, 0.25: 13.0, 0.2: 11.0, 0.16: 9.0, 0.125: 7.0, 0.1: 4.9, 0.08: 2.9,
                 0.063: 0.9, 0.05: -1.1, 0.04: -3.2, 0.0315: -5.0, 0.025: -5.6, 0.02: -6.2, 0.016: -6.8,
                 0.0125: -7.4, 0.01: -8.0, 0.008: -8.6, 0.0063: -9.2, 0.005: -9.8, 0.004: -10.4, 0.00315: -11.0}


def band_roughness(levels: dict, seed: int, circumference: float | None = None, per_band: int = 40,
                   scale: float = 1.0, name: str = "roughness"):
    """Random roughness from one-third octave band levels ``levels`` {centre wavelength [m]:
    L [dB re 1 µm]} (e.g. :data:`ISO3095_LIMIT`): in each band
    harmonics of equal amplitude and phases uniform from ``seed`` whose mean square is the
    band's (10^(L/20) µm)², times ``scale`` (band edges, ``f.band_edges``: the geometric means
    of neighbouring centres, so that a wavenumber belongs to one band).  On a roller or wheel of ``circumference`` the
    harmonics are its orders (the profile repeats every turn; every order inside the band),
    otherwise ``per_band`` evenly spaced wavenumbers.  ``f.band_rms`` holds each band's rms."""
    if not levels:
        raise ModelError(f"{name}: no band levels given", element=name, key="levels")
    rng = np.random.default_rng(seed)
    ks, amps, rms, edges = [], [], {}, {}
    bands = sorted((_check(name, "wavelength", lam), L) for lam, L in levels.items())[::-1]
    kc = np.array([2 * np.pi / lam for lam, _ in bands])
    # band edges: geometric means of neighbouring centres (1/6 octave beyond the outer ones),
    # so that every wavenumber belongs to one band
    inner = np.sqrt(kc[1:] * kc[:-1])
    lo_all = np.r_[kc[0] * 2 ** (-1 / 6), inner]
    hi_all = np.r_[inner, kc[-1] * 2 ** (1 / 6)]
    for (lam, L), lo, hi in zip(bands, lo_all, hi_all):
        if not np.isfinite(L):
            raise ModelError(f"{name}: band level at {lam} m must be finite, got {L!r}", element=name, key="levels")
        if circumference is not None:
            C = _check(name, "circumference", circumference)
            orders = np.arange(np.ceil(lo * C / (2 * np.pi)), np.ceil(hi * C / (2 * np.pi)))
            if len(orders) == 0:
                raise ModelError(f"{name}: the band at {lam} m holds no order of a circumference of {C} m",
                                 element=name, key="levels")
            k = 2 * np.pi * orders / C
        else:
            k = lo + (hi - lo) * (np.arange(per_band) + 0.5) / per_band
        r = scale * 10 ** (L / 20) * 1e-6
        ks.append(k)
        amps.append(np.full(len(k), r * np.sqrt(2.0 / len(k))))
        rms[lam] = r
        edges[lam] = (lo, hi)
    k, amp = np.concatenate(ks), np.concatenate(amps)
    phase = rng.uniform(0.0, 2 * np.pi, len(k))

    def f(s):
        s = np.asarray(s, dtype=float)
        return np.cos(np.multiply.outer(s, k) + phase) @ amp
    f.amplitudes, f.wavenumbers, f.band_rms, f.band_edges = amp, k, rms, edges
    return f


def combine(parts: Sequence[Callable]):
    """The sum of several irregularities."""
    parts = list(parts)
    return lambda s: sum((p(s) for p in parts), np.zeros(np.shape(s)))
