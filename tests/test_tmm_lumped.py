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


@pytest.mark.parametrize("base_radius", [None, 0.9])
def test_wheel_centre_path_over_a_cosine_dent_equals_the_offset_curve(base_radius):
    from flexmbd.verify.references import wheel_centre_offset_curve

    # P5's dent 0.3 mm × 300 mm under P5's wheel, on a rail and on P5's 1.8 m roller: the
    # envelope (a max over sampled wheel points) equals the closed-form offset curve to the
    # grid's second-order error, and the wheel reaches the dent's bottom; the path differs
    # from the dent itself by µm (no geometric filtering of this dent)
    R, d, l = 0.4575, 0.3e-3, 0.3
    dent = irregularity.dent(0.0, l, d)
    slope = lambda x: np.where((x >= 0) & (x <= l), -0.5 * d * 2 * np.pi / l * np.sin(2 * np.pi * x / l), 0.0)  # noqa: E731
    path = irregularity.wheel_centre_path(dent, R, 0.006, 4001, base_radius=base_radius)
    xi = np.linspace(-0.02, l + 0.02, 3001)
    s, z = wheel_centre_offset_curve(dent, slope, R, xi, base_radius)
    assert np.all(np.diff(s) > 0)
    assert np.max(np.abs(path(s) - z)) < 1e-10
    assert path(0.5 * l) == pytest.approx(-d, abs=1e-10)
    assert np.max(np.abs(path(s) - dent(s))) < 3e-6


def test_wheel_centre_path_on_a_roller_bridges_a_short_pit():
    # a pit of width b on the roller: the wheel rests on both corners; centre distance by the
    # triangle roller centre - corner - wheel centre (law of cosines), closed form; the grid
    # misses the corner by ≤ Δ, where the two surfaces part at the relative slope (b/2)(1/R + 1/R_r)
    R, Rr, b = 0.4575, 0.9, 0.04
    pit = lambda s: np.where(np.abs(s) < b / 2, -0.01, 0.0)  # noqa: E731
    n, w = 4001, 0.03
    path = irregularity.wheel_centre_path(pit, R, w, n, base_radius=Rr)
    a = b / 2 / Rr                                  # corner angle from the line of centres
    D = Rr * np.cos(a) + np.sqrt(R * R - (Rr * np.sin(a)) ** 2)
    assert path(0.0) == pytest.approx(D - Rr - R, abs=(b / 2) * (1 / R + 1 / Rr) * 2 * w / (n - 1))
    assert path(0.0) > -0.01 / 10                      # it bridges the 10 mm deep pit


def test_contact_filter_passes_harmonics_with_the_bessel_factor():
    # Hertz-weighted average over the patch: cos(ks) → 2J₁(ka)/(ka) cos(ks) (closed form)
    from scipy.special import j1

    a = irregularity.hertz_semi_axis(73.2e3, 0.4575, 0.9)
    assert 4.5e-3 < a < 6.0e-3
    s = np.linspace(0.0, 0.5, 101)
    for lam in (0.03, 0.157, 0.3, 0.01):
        k = 2 * np.pi / lam
        f = irregularity.contact_filter(lambda x: np.cos(k * x), a)
        exact = 2 * j1(k * a) / (k * a)
        assert np.max(np.abs(f(s) - exact * np.cos(k * s))) < 1e-12
        assert f.transfer(k) == pytest.approx(exact, rel=1e-14)
    assert irregularity.contact_filter(lambda x: np.cos(2 * np.pi * x / 0.03), a).transfer(2 * np.pi / 0.03) < 0.9


def test_band_roughness_has_the_band_levels():
    # ISO 3095's limit spectrum: the generated profile's mean square is the sum of the
    # bands' (10^(L/20) µm)², and an FFT of one roller turn recovers each band's rms
    C = np.pi * 1.8
    f = irregularity.band_roughness(irregularity.ISO3095_LIMIT, seed=4, circumference=C)
    n = 2 ** 16
    s = np.arange(n) * C / n
    r = f(s)
    total = sum(v ** 2 for v in f.band_rms.values())
    assert np.mean(r ** 2) == pytest.approx(total, rel=1e-9)        # one full turn: exact
    assert np.max(np.abs(f(s + C) - r)) < 1e-12 * np.max(np.abs(r))  # repeats every turn
    R = np.fft.rfft(r) / n
    k = 2 * np.pi * np.arange(len(R)) / C
    for lam, rms in f.band_rms.items():
        lo, hi = f.band_edges[lam]
        band = (k >= lo) & (k < hi)
        assert np.sqrt(2 * np.sum(np.abs(R[band]) ** 2)) == pytest.approx(rms, rel=1e-9)
    assert f.band_rms[0.4] == pytest.approx(10 ** (17.1 / 20) * 1e-6)
    with pytest.raises(ModelError, match="no order"):
        irregularity.band_roughness({100.0: 1.0}, 1, circumference=0.5)
