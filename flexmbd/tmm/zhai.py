"""Zhai's explicit two-step integration method for the lumped subsystems (P5: frame and
rollers; W. Zhai, "Two simple fast integration methods for large-scale dynamic
problems in engineering", Int. J. Numer. Meth. Eng. 39 (1996) 4199-4214):

    X_{n+1} = X_n + V_n h + (1/2 + ψ) A_n h² − ψ A_{n−1} h²,
    V_{n+1} = V_n + (1 + φ) A_n h − φ A_{n−1} h,

with ψ = φ = 0 on the first step (no A_{n−1}); ψ = φ = 1/2 (P5's choice, the default) is
second-order accurate and needs no equation solve: A_{n+1} = M⁻¹ F(X_{n+1}, V_{n+1}, t_{n+1}).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError


class Zhai:
    """The method's two parameters (0 ≤ ψ, φ ≤ 1/2 keep it stable, Zhai 1996)."""

    def __init__(self, psi: float = 0.5, phi: float = 0.5):
        for key, v in (("psi", psi), ("phi", phi)):
            if not (np.isfinite(v) and 0.0 <= v <= 0.5):
                raise ModelError(f"Zhai's method: {key} must lie in [0, 0.5], got {v!r}", key=key)
        self.psi, self.phi = float(psi), float(phi)

    def predict(self, X, V, A, A_prev, h: float):
        """(X_{n+1}, V_{n+1}); ``A_prev`` None on the first step."""
        if A_prev is None:
            return X + V * h + 0.5 * A * h * h, V + A * h
        ps, ph = self.psi, self.phi
        return (X + V * h + (0.5 + ps) * A * h * h - ps * A_prev * h * h,
                V + (1.0 + ph) * A * h - ph * A_prev * h)

    def integrate(self, accel, X0, V0, h: float, n_steps: int, t0: float = 0.0):
        """Integrate X'' = accel(X, V, t) from (X0, V0): times, X, V (n_steps+1 rows)."""
        X = np.array(X0, dtype=float)
        V = np.array(V0, dtype=float)
        T = t0 + h * np.arange(n_steps + 1)
        Xs, Vs = np.empty((n_steps + 1,) + X.shape), np.empty((n_steps + 1,) + X.shape)
        Xs[0], Vs[0] = X, V
        A, A_prev = accel(X, V, t0), None
        for i in range(1, n_steps + 1):
            X, V = self.predict(X, V, A, A_prev, h)
            A_prev, A = A, accel(X, V, T[i])
            Xs[i], Vs[i] = X, V
        return T, Xs, Vs
