"""Newmark, HHT-α and generalized-α in one family (Arnold & Brüls 2007 form).

With q'' the acceleration and a an acceleration-like variable,

    q_{n+1} = q_n + h q'_n + h² (½ − β) a_n + h² β a_{n+1},
    q'_{n+1} = q'_n + h (1 − γ) a_n + h γ a_{n+1},
    (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q''_{n+1} + α_f q''_n,

and the equations of motion and constraints are enforced at t_{n+1} (index 3).
Newmark is α_m = α_f = 0 (P1's scheme, β = "α", γ = "δ" in its notation).
Generalized-α (Chung & Hulbert 1993): α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1),
γ = ½ − α_m + α_f, β = ¼ (1 − α_m + α_f)².  HHT-α (Hilber, Hughes & Taylor 1977) in the
same family: α_m = 0, α_f = (1 − ρ∞)/(1 + ρ∞) ∈ [0, ⅓], γ = ½ + α_f, β = ¼ (1 + α_f)²;
its linear spectral properties are those of HHT (Arnold & Brüls 2007, sec. 3).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Newmark:
    beta: float = 0.25
    gamma: float = 0.5
    name = "newmark"

    def coefficients(self):
        if not (self.beta > 0 and self.gamma >= 0.5):
            raise ValueError(f"Newmark needs beta > 0 and gamma ≥ 1/2 (got beta={self.beta}, gamma={self.gamma})")
        return 0.0, 0.0, self.beta, self.gamma


@dataclass(frozen=True)
class GeneralizedAlpha:
    rho_inf: float = 0.8
    name = "generalized-alpha"

    def coefficients(self):
        r = self.rho_inf
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"generalized-alpha needs 0 ≤ rho_inf ≤ 1, got {r}")
        am = (2 * r - 1) / (r + 1)
        af = r / (r + 1)
        gamma = 0.5 - am + af
        return am, af, 0.25 * (1 - am + af) ** 2, gamma


@dataclass(frozen=True)
class HHT:
    rho_inf: float = 0.8
    name = "hht"

    def coefficients(self):
        r = self.rho_inf
        if not 0.5 <= r <= 1.0:
            raise ValueError(f"HHT-alpha needs 1/2 ≤ rho_inf ≤ 1, got {r}")
        af = (1 - r) / (1 + r)
        return 0.0, af, 0.25 * (1 + af) ** 2, 0.5 + af


def integrator_from_name(name: str, **kw):
    table = {"newmark": Newmark, "generalized-alpha": GeneralizedAlpha, "hht": HHT}
    try:
        return table[name](**kw)
    except KeyError:
        raise ValueError(f"unknown integrator {name!r}; choose one of {sorted(table)}") from None
