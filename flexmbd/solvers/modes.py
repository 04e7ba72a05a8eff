"""Linearised eigenvalue analysis of a model about a state (natural frequencies, damping
ratios and mode shapes of the constrained system).

About a state (q, q', q'', λ) of the index-3 equations F(q, q', q'') + Φ_qᵀ λ = 0, Φ(q) = 0,
small motions δq (increments), δλ obey

    M δq'' + D δq' + K δq + Φ_qᵀ δλ = 0,    Φ_q δq = 0,

with M = ∂F/∂q'', D = ∂F/∂q', K = ∂F/∂q + ∂(Φ_qᵀ λ)/∂q — the blocks of the Newton matrix
the assembled system already gives (``System.evaluate`` with (c_M, c_D, c_K) = (1, 0, 0),
(0, 1, 0), (0, 0, 1)).  With N an orthonormal basis of the null space of Φ_q, δq = N y and
premultiplying by Nᵀ removes the multipliers (null-space projection; Géradin & Cardona,
Flexible Multibody Dynamics, 2001, sec. 11.6; Shabana, Dynamics of Multibody Systems,
sec. 6.7):

    M̃ y'' + D̃ y' + K̃ y = 0,    X̃ = Nᵀ X N.

Its eigenvalues s = −ζ ω ± i ω √(1 − ζ²) give the natural frequency ω = |s| and the damping
ratio ζ = −Re s/|s|; without damping and with symmetric K̃ the generalised symmetric
problem K̃ φ = ω² M̃ φ is solved instead.  Mode shapes are N φ in the increment
coordinates of the model (``System.velocity_names``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from ..errors import ModelError
from .initial import consistent_accelerations


@dataclass
class LinearModes:
    """The result of :func:`linear_modes`, modes sorted by natural frequency."""

    #: natural frequencies ω = |s| [rad/s] (k,)
    omega: np.ndarray
    #: damping ratios ζ = −Re s/|s| (k,) (1 for real, overdamped or rigid-body roots)
    damping: np.ndarray
    #: eigenvalues s (k,) (complex)
    eigenvalues: np.ndarray
    #: mode shapes in increment coordinates (n, k), scaled to a largest entry of 1
    shapes: np.ndarray
    #: names of the increment coordinates (n,)
    names: list
    #: the state analysed
    t: float = 0.0
    q: np.ndarray = field(default=None, repr=False)
    v: np.ndarray = field(default=None, repr=False)
    lam: np.ndarray = field(default=None, repr=False)
    #: number of degrees of freedom (size of the null space of Φ_q)
    dof: int = 0

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies in Hz (k,)."""
        return self.omega / (2.0 * np.pi)

    def table(self, count: int | None = None) -> str:
        """The modes as a text table."""
        lines = [f"{self.dof} degrees of freedom about the state at t = {self.t:g} s",
                 f"{'mode':>4}  {'f [Hz]':>14}  {'ω [rad/s]':>14}  {'ζ':>9}  largest entries"]
        k = len(self.omega) if count is None else min(count, len(self.omega))
        for i in range(k):
            shape = np.real(self.shapes[:, i])
            top = np.argsort(-np.abs(shape))[:3]
            desc = ", ".join(f"{self.names[j]} {shape[j]:+.2f}" for j in top if abs(shape[j]) > 1e-3)
            lines.append(f"{i + 1:>4}  {self.frequencies[i]:>14.6g}  {self.omega[i]:>14.6g}  {self.damping[i]:>9.4f}  "
                         f"{desc}")
        return "\n".join(lines)


def _blocks(system, q, v, a, lam, t):
    n = system.n

    def block(cM, cD, cK):
        _, _, A = system.evaluate(q, v, a, lam, t, cM=cM, cD=cD, cK=cK)
        A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
        return A
    AM = block(1.0, 0.0, 0.0)
    AD = block(0.0, 1.0, 0.0)
    AK = block(0.0, 0.0, 1.0)
    return AM[:n, :n], AD[:n, :n], AK[:n, :n], AM[n:, :n]


def linear_modes(model, state: str | tuple = "initial", t: float = 0.0, rtol: float = 1e-9) -> LinearModes:
    """Natural frequencies, damping ratios and mode shapes of ``model`` (a Model or a
    frozen System) linearised about a state (module docstring):

    * ``"initial"``: the initial state (positions assembled, velocities projected),
      with consistent accelerations and multipliers;
    * ``"static"``: the static equilibrium (``Model.static_equilibrium``), at rest;
    * a tuple (q, v) or (q, v, λ): that state (λ and q'' consistent ones if not given).

    ``rtol``: relative size below which D̃ counts as zero and K̃ as symmetric."""
    from .initial import initial_state
    system = model.freeze() if hasattr(model, "freeze") else model
    if isinstance(state, str):
        if state == "initial":
            st, _ = initial_state(system, t)
            q, v = st.q, st.v
        elif state == "static":
            res = system.model.static_equilibrium()
            if not res.success:
                raise ModelError(f"modes: the static equilibrium was not found ({res.message})")
            q, v = res.q[-1], np.zeros(system.n)
        else:
            raise ModelError(f"modes: state must be 'initial', 'static' or (q, v[, λ]), got {state!r}")
        a, lam = consistent_accelerations(system, q, v, t)
    else:
        q, v = np.asarray(state[0], float), np.asarray(state[1], float)
        a, lam = consistent_accelerations(system, q, v, t)
        if len(state) > 2:
            lam = np.asarray(state[2], float)
    M, D, K, Jq = _blocks(system, q, v, a, lam, t)
    N = sla.null_space(Jq) if Jq.shape[0] else np.eye(system.n)
    Mt, Dt, Kt = (N.T @ X @ N for X in (M, D, K))
    dof = N.shape[1]
    if dof == 0:
        return LinearModes(np.zeros(0), np.zeros(0), np.zeros(0, complex), np.zeros((system.n, 0)),
                           list(system.velocity_names), t, q, v, lam, 0)
    scale = max(np.abs(Kt).max(), 1e-300)
    Mt = 0.5 * (Mt + Mt.T)
    undamped = np.abs(Dt).max() <= rtol * np.sqrt(np.abs(Mt).max() * scale)
    symmetric = np.abs(Kt - Kt.T).max() <= rtol * scale
    try:
        if undamped and symmetric:
            w2, Y = sla.eigh(0.5 * (Kt + Kt.T), Mt)
            omega = np.sqrt(np.abs(w2))
            s = np.where(w2 >= 0, 1j * omega, omega + 0j)
            zeta = np.where(w2 >= 0, 0.0, -1.0)             # a negative ω²: unstable (s = +√−ω²)
            shapes = Y
        else:
            Minv = np.linalg.inv(Mt)
            A = np.block([[np.zeros((dof, dof)), np.eye(dof)], [-Minv @ Kt, -Minv @ Dt]])
            s_all, V = np.linalg.eig(A)
            keep = s_all.imag >= -1e-12 * np.maximum(1.0, np.abs(s_all))       # one of each conjugate pair
            s, Y = s_all[keep], V[:dof, keep]
            omega = np.abs(s)
            zeta = np.divide(-s.real, omega, out=np.ones_like(omega), where=omega > 0)
            shapes = Y
    except np.linalg.LinAlgError as exc:
        raise ModelError(f"modes: the projected mass matrix is singular ({exc}); every degree of freedom needs "
                         "inertia") from None
    order = np.argsort(omega, kind="stable")
    shapes = N @ shapes[:, order]
    big = np.abs(shapes).max(axis=0)
    idx = np.argmax(np.abs(shapes), axis=0)
    ref = shapes[idx, np.arange(shapes.shape[1])]
    shapes = shapes / np.where(big > 0, ref, 1.0)
    if np.isrealobj(shapes) or np.abs(shapes.imag).max() <= 1e-12:
        shapes = np.real(shapes)
    return LinearModes(omega[order], zeta[order], s[order], shapes, list(system.velocity_names), t, q, v, lam, dof)


__all__ = ["LinearModes", "linear_modes"]
