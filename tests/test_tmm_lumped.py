"""Zhai's explicit method, Hertz contact, irregularities and spectra of flexmbd.tmm (P5)
against closed forms."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbd.errors import ModelError
from flexmbd.tmm import contact, irregularity, spectra
from flexmbd.tmm.zhai import Zhai


def oscillator_error(h, psi, phi, t_end=2.0):
    w, zeta = 2 * np.pi, 0.05
    n = int(round(t_end / h))
    t, X, V = Zhai(psi, phi).integrate(lambda x, v, t: -w * w * x - 2 * zeta * w * v, [1.0], [0.0], h, n)
    wd = w * np.sqrt(1 - zeta ** 2)
    exact = np.exp(-zeta * w * t) * (np.cos(wd * t) + zeta * w / wd * np.sin(wd * t))
    return np.max(np.abs(X[:, 0] - exact))


def test_zhai_method_is_second_order_with_psi_phi_one_half():
    e = [oscillator_error(h, 0.5, 0.5) for h in (2e-3, 1e-3, 5e-4)]
    assert 3.6 < e[0] / e[1] < 4.4 and 3.6 < e[1] / e[2] < 4.4
    assert e[2] < 1e-4


def test_zhai_method_is_first_order_with_psi_phi_zero():
    e = [oscillator_error(h, 0.0, 0.0) for h in (1e-3, 5e-4)]
    assert 1.8 < e[0] / e[1] < 2.2


def test_hertz_static_deflection():
    # a 8 t half-axle load on the contact, settled with a damper: δ = G P^{2/3}
    G = contact.hertz_constant(0.4575)
    m, g = 8000.0, 9.81
    k_lin = contact.linear_stiffness(m * g, G)
    c = 2 * 0.5 * np.sqrt(k_lin * m)
    h = 0.05 * np.sqrt(m / k_lin)
    # compression δ grows under gravity: δ'' = g − (F(δ) + c δ')/m
    _, X, _ = Zhai().integrate(lambda d, v, t: g - (contact.hertz_force(d, G) + c * v) / m, [0.0], [0.0], h, 6000)
    assert X[-1, 0] == pytest.approx(contact.static_deflection(m * g, G), rel=1e-8)
    assert contact.static_deflection(m * g, G) == pytest.approx(G * (m * g) ** (2 / 3))


def test_hertz_impact_loses_contact_with_the_closed_form_duration():
    # elastic Hertz impact at speed v (no gravity): δ_max = (5 m v² / 4K)^{2/5} with K = G^{−3/2},
    # contact time 2.9432 δ_max / v, rebound at speed v; the force is zero after separation
    G = contact.hertz_constant(0.46)
    K = G ** -1.5
    m, v0 = 500.0, 0.5
    dmax = (5 * m * v0 ** 2 / (4 * K)) ** 0.4
    tc = 2.94320 * dmax / v0
    h = tc / 4000
    t, X, V = Zhai().integrate(lambda d, v, t: -contact.hertz_force(d, G) / m, [0.0], [v0], h, 6000)
    d = X[:, 0]
    assert d.max() == pytest.approx(dmax, rel=1e-4)
    sep = t[np.nonzero((d[:-1] > 0) & (d[1:] <= 0))[0][0]]
    assert sep == pytest.approx(tc, rel=1e-3)
    assert V[-1, 0] == pytest.approx(-v0, rel=1e-4)
    assert np.all(contact.hertz_force(d[t > sep + 2 * h], G) == 0.0)


def test_polygon_wavelength_and_passing_frequency_of_p5():
    # 36th-order polygon on a 1.8 m roller: λ = π·1.8/36 = 157 mm; at 400 km/h 707 Hz
    poly = irregularity.harmonic(0.9, 36, 0.05e-3)
    lam = 2 * np.pi * 0.9 / 36
    assert lam == pytest.approx(0.157, abs=5e-4)
    s = np.linspace(0, 10 * lam, 2001)
    assert np.allclose(poly(s), poly(s + lam), atol=1e-15)
    assert (400 / 3.6) / lam == pytest.approx(707.4, abs=0.5)


def test_dent_shape():
    d = irregularity.dent(1.0, 0.3, 0.3e-3, period=np.pi * 1.8)
    assert d(1.15) == pytest.approx(-0.3e-3)
    assert d(0.99) == 0.0 and d(1.31) == 0.0
    assert d(1.15 + np.pi * 1.8) == pytest.approx(-0.3e-3)


def test_random_roughness_has_the_psd_mean_square_and_is_seeded():
    psd = lambda k: 1e-9 / k ** 2  # noqa: E731
    r = irregularity.random_roughness(psd, (0.05, 2.0), seed=7)
    s = np.random.default_rng(0).uniform(0.0, 1e4, 10000)      # sample points along 10 km
    k = np.linspace(2 * np.pi / 2.0, 2 * np.pi / 0.05, 2000)
    ms = np.trapezoid(psd(k), k) if hasattr(np, "trapezoid") else np.trapz(psd(k), k)
    assert np.mean(r(s) ** 2) == pytest.approx(ms, rel=0.03)
    assert np.array_equal(r(s[:100]), irregularity.random_roughness(psd, (0.05, 2.0), seed=7)(s[:100]))
    scaled = irregularity.random_roughness(psd, (0.05, 2.0), seed=7, rms=1e-5)
    assert np.sqrt(np.mean(scaled(s) ** 2)) == pytest.approx(1e-5, rel=0.03)


def test_spectra_find_the_tones_and_the_lowpass_removes_the_high_one():
    t = np.arange(0, 2.0, 1e-4)
    y = 3.0 * np.sin(2 * np.pi * 39 * t) + 1.0 * np.sin(2 * np.pi * 707 * t)
    f, S = spectra.psd(t, y, segment_seconds=0.5)
    assert np.allclose(np.sort(spectra.peaks(f, S, 2)), [39, 707], atol=2.0)
    fa, A = spectra.amplitude_spectrum(t, y)
    assert A[np.argmin(np.abs(fa - 39))] == pytest.approx(3.0, rel=0.02)
    # zero-phase 4th-order digital Butterworth (bilinear transform, fs = 10 kHz): gain
    # 1/(1 + (tan(πf/fs)/tan(πfc/fs))⁸), squared by filtering forwards and backwards
    _, B = spectra.amplitude_spectrum(t, spectra.lowpass(t, y, 500.0))
    gain = lambda f: 1 / (1 + (np.tan(np.pi * f / 1e4) / np.tan(np.pi * 500 / 1e4)) ** 8)  # noqa: E731
    for f0, amp in ((39, 3.0), (707, 1.0)):
        assert B[np.argmin(np.abs(fa - f0))] == pytest.approx(amp * gain(f0), rel=0.02)


def test_bad_inputs_are_named():
    with pytest.raises(ModelError, match="polygon.*order"):
        irregularity.harmonic(0.9, 2.5, 1e-5, name="polygon")
    with pytest.raises(ModelError, match="dent.*length"):
        irregularity.dent(0.0, -0.3, 1e-4)
    with pytest.raises(ModelError, match="psi"):
        Zhai(psi=0.7)
    with pytest.raises(ModelError, match="profile"):
        contact.hertz_constant(0.45, "flat")


def test_wheel_centre_path_over_a_pit_and_over_p5s_dent():
    # a rectangular pit of width b deeper than the wheel can sink: the centre rests on the two
    # corners, z_c(x) = √(R² − (b/2 − |x|)²) − R (closed form); grid error ≤ (b/2R)Δ
    R, b, w, n = 0.4575, 0.05, 0.03, 1201
    pit = lambda s: np.where(np.abs(s) < b / 2, -0.01, 0.0)  # noqa: E731
    path = irregularity.wheel_centre_path(pit, R, w, n)
    x = np.linspace(-0.02, 0.02, 41)
    exact = np.sqrt(R * R - (b / 2 - np.abs(x)) ** 2) - R
    assert np.max(np.abs(path(x) - exact)) <= (b / 2 / R) * (2 * w / (n - 1))
    assert path(0.0) == pytest.approx(np.sqrt(R * R - b * b / 4) - R, abs=(b / 2 / R) * (2 * w / (n - 1)))
    # P5's cosine dent (0.3 mm × 300 mm): its bottom curvature 1/15.2 m is below 1/R, so the
    # wheel reaches the bottom, and elsewhere the path differs by the slope term ≤ R r'²/2
    d, l = 0.3e-3, 0.3
    dent = irregularity.dent(0.0, l, d)
    path = irregularity.wheel_centre_path(dent, R, 0.005, 2001)
    s = np.linspace(-0.05, 0.35, 801)
    slope = 0.5 * d * 2 * np.pi / l
    assert path(0.5 * l) == pytest.approx(-d, abs=1e-12)
    assert np.max(np.abs(path(s) - dent(s))) <= 0.5 * R * slope ** 2
    assert np.all(path(s) >= dent(s) - 1e-15)
    with pytest.raises(ModelError, match="half_width"):
        irregularity.wheel_centre_path(dent, R, 0.5)
