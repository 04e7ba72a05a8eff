"""Spectra and filters of output signals as P5 compares them: Welch PSD with a window,
FFT amplitude spectra, zero-phase Butterworth low-pass (500 Hz, 1000 Hz in P5)."""
from __future__ import annotations

import numpy as np
from scipy import signal

from ..errors import ModelError


def _fs(t):
    dt = np.diff(np.asarray(t, dtype=float))
    if len(dt) < 8 or np.ptp(dt) > 1e-6 * np.mean(dt):
        raise ModelError("spectra need at least 9 equally spaced samples", key="t")
    return 1.0 / np.mean(dt)


def psd(t, y, segment_seconds: float = 0.25, window: str = "hann"):
    """Welch power spectral density: (f [Hz], S [unit²/Hz])."""
    fs = _fs(t)
    nper = min(len(y), max(16, int(round(segment_seconds * fs))))
    return signal.welch(np.asarray(y, dtype=float), fs=fs, window=window, nperseg=nper, detrend="constant")


def amplitude_spectrum(t, y, window: str = "hann"):
    """Single-sided amplitude spectrum with window (amplitude-corrected): (f, |Y|)."""
    fs = _fs(t)
    y = np.asarray(y, dtype=float) - np.mean(y)
    w = signal.get_window(window, len(y))
    Y = np.fft.rfft(y * w)
    return np.fft.rfftfreq(len(y), 1.0 / fs), 2.0 * np.abs(Y) / np.sum(w)


def lowpass(t, y, cutoff: float, order: int = 4):
    """Zero-phase Butterworth low-pass at ``cutoff`` Hz."""
    fs = _fs(t)
    if not 0 < cutoff < 0.5 * fs:
        raise ModelError(f"low-pass cutoff must lie in (0, {0.5 * fs:g}) Hz, got {cutoff!r}", key="cutoff")
    sos = signal.butter(order, cutoff, fs=fs, output="sos")
    return signal.sosfiltfilt(sos, np.asarray(y, dtype=float))


def peaks(f, S, n: int = 5, f_min: float = 1.0, prominence: float = 0.05):
    """The ``n`` largest spectral peaks above ``f_min`` Hz: frequencies, descending by height."""
    f, S = np.asarray(f), np.asarray(S)
    keep = f >= f_min
    idx, _ = signal.find_peaks(S[keep], prominence=prominence * np.max(S[keep]))
    order = np.argsort(S[keep][idx])[::-1][:n]
    return f[keep][idx][order]
