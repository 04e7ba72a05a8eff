"""Cross sections of geometrically exact beams.

Axis 1 runs along the beam, axes 2 and 3 span the section.  The strain and stress
resultants are ordered like SE(3) twists (U, Omega): axial, shear 2, shear 3, torsion,
bending about 2, bending about 3, so that

    D   = diag(EA, GA2, GA3, GJ, EI2, EI3)                      (stiffness)
    M_s = diag(rhoA, rhoA, rhoA, rhoI2 + rhoI3, rhoI2, rhoI3)   (inertia per unit length)

with I2 = int x3^2 dA, I3 = int x2^2 dA and GA2, GA3 including the shear correction
factor k.  Shear factors: Cowper, "The shear coefficient in Timoshenko's beam theory",
J. Appl. Mech. 33 (1966) 335-340.  Rectangle torsion constant: Saint-Venant's series,
e.g. Timoshenko & Goodier, *Theory of Elasticity*, 3rd ed., section 109.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

__all__ = ["Section", "cowper_circle", "cowper_rectangle", "cowper_tube", "rectangle_torsion_constant"]

_STIFFNESS = ("EA", "GA2", "GA3", "GJ", "EI2", "EI3")
_INERTIA = ("rhoA", "rhoI2", "rhoI3")


def rectangle_torsion_constant(b: float, t: float, n_terms: int = 4000) -> float:
    """Saint-Venant torsion constant of a b x t rectangle (b >= t after sorting):

        J = (b t^3 / 3) [1 - (192 / pi^5) (t / b) sum_{n = 1, 3, 5, ...} tanh(n pi b / (2 t)) / n^5].

    The series tail after ``n_terms`` odd terms is below 1e-15 relative.
    """
    b, t = max(b, t), min(b, t)
    n = 2.0 * np.arange(n_terms) + 1.0
    series = np.sum(np.tanh(n * np.pi * b / (2.0 * t)) / n ** 5)
    return b * t ** 3 / 3.0 * (1.0 - 192.0 / np.pi ** 5 * (t / b) * series)


def cowper_rectangle(nu: float) -> float:
    """Cowper (1966) shear factor of a rectangle: k = 10 (1 + nu) / (12 + 11 nu)."""
    return 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)


def cowper_circle(nu: float) -> float:
    """Cowper (1966) shear factor of a solid circle: k = 6 (1 + nu) / (7 + 6 nu)."""
    return 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)


def cowper_tube(nu: float, m: float) -> float:
    """Cowper (1966) shear factor of a hollow circle, m = d_inner / d_outer:
    k = 6 (1 + nu) (1 + m^2)^2 / [(7 + 6 nu) (1 + m^2)^2 + (20 + 12 nu) m^2]
    (m = 0: solid circle; m -> 1: thin tube 2 (1 + nu) / (4 + 3 nu))."""
    a = (1.0 + m * m) ** 2
    return 6.0 * (1.0 + nu) * a / ((7.0 + 6.0 * nu) * a + (20.0 + 12.0 * nu) * m * m)


def _moduli(E, nu, G):
    """(E, nu, G) from E and one of nu, G (G = E / (2 (1 + nu)) if G is not given)."""
    if E is None or not (np.isfinite(E) and E > 0):
        raise ValueError(f"Section: E must be finite and > 0, got {E}")
    if nu is None and G is None:
        raise ValueError("Section: give nu or G (or both)")
    if G is None:
        if not (np.isfinite(nu) and -1.0 < nu < 0.5):
            raise ValueError(f"Section: nu must lie in (-1, 0.5), got {nu}")
        G = E / (2.0 * (1.0 + nu))
    if not (np.isfinite(G) and G > 0):
        raise ValueError(f"Section: G must be finite and > 0, got {G}")
    if nu is None:
        nu = E / (2.0 * G) - 1.0
    return float(E), float(nu), float(G)


def _shear_factor(shear_factor, cowper, nu):
    if isinstance(shear_factor, str):
        if shear_factor.lower() != "cowper":
            raise ValueError(f"Section: shear_factor must be 'cowper' or a number, got {shear_factor!r}")
        if not (np.isfinite(nu) and -1.0 < nu < 0.5):
            raise ValueError(f"Section: Cowper's shear factor needs nu in (-1, 0.5), got {nu}")
        return cowper(nu)
    k = float(shear_factor)
    if not (np.isfinite(k) and k > 0):
        raise ValueError(f"Section: shear_factor must be finite and > 0, got {shear_factor}")
    return k


@dataclass(frozen=True)
class Section:
    """Beam cross-section constants (SI units, per unit length for the inertia).

    Validation: the six stiffnesses must be finite and > 0; the three inertias must
    be finite and either all > 0 or all 0 (massless section); otherwise ``ValueError``
    naming the field.
    """

    EA: float
    GA2: float
    GA3: float
    GJ: float
    EI2: float
    EI3: float
    rhoA: float = 0.0
    rhoI2: float = 0.0
    rhoI3: float = 0.0

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"Section: {f.name} must be a number, got {v!r}") from None
            object.__setattr__(self, f.name, v)
            if not np.isfinite(v):
                raise ValueError(f"Section: {f.name} must be finite, got {v}")
            if f.name in _STIFFNESS and not v > 0:
                raise ValueError(f"Section: {f.name} must be > 0, got {v}")
            if f.name in _INERTIA and v < 0:
                raise ValueError(f"Section: {f.name} must be >= 0, got {v}")
        zero = [n for n in _INERTIA if getattr(self, n) == 0.0]
        if zero and len(zero) < len(_INERTIA):
            raise ValueError(f"Section: {zero[0]} is 0 while other inertia terms are > 0 "
                             "(the inertia must be all positive or all zero)")

    # ---- constructors
    @classmethod
    def user(cls, *, EA, GA2, GA3, GJ, EI2, EI3, rhoA=0.0, rhoI2=0.0, rhoI3=0.0) -> Section:
        """Section from the nine constants given directly (keyword arguments)."""
        return cls(EA, GA2, GA3, GJ, EI2, EI3, rhoA, rhoI2, rhoI3)

    @classmethod
    def _from_geometry(cls, A, I2, I3, J, E, G, rho, k):
        rho = float(rho)
        if not (np.isfinite(rho) and rho >= 0):
            raise ValueError(f"Section: rho must be finite and >= 0, got {rho}")
        return cls(EA=E * A, GA2=k * G * A, GA3=k * G * A, GJ=G * J, EI2=E * I2, EI3=E * I3,
                   rhoA=rho * A, rhoI2=rho * I2, rhoI3=rho * I3)

    @classmethod
    def rectangle(cls, width2, height3, E, nu=None, G=None, rho=0.0, shear_factor="cowper") -> Section:
        """Solid rectangle, ``width2`` along axis 2 and ``height3`` along axis 3:
        A = b h, I2 = b h^3/12, I3 = h b^3/12, J from ``rectangle_torsion_constant``,
        k = 10 (1 + nu)/(12 + 11 nu) (Cowper) or the number given."""
        b, h = _positive(width2=width2, height3=height3)
        E_, nu_, G_ = _moduli(E, nu, G)
        k = _shear_factor(shear_factor, cowper_rectangle, nu_)
        return _defined(cls._from_geometry(b * h, b * h ** 3 / 12.0, h * b ** 3 / 12.0,
                                           rectangle_torsion_constant(b, h), E_, G_, rho, k),
                        shape="rectangle", width2=b, height3=h, E=E, nu=nu, G=G, rho=rho, shear_factor=shear_factor)

    @classmethod
    def circle(cls, d, E, nu=None, G=None, rho=0.0, shear_factor="cowper") -> Section:
        """Solid circle of diameter d: A = pi d^2/4, I2 = I3 = pi d^4/64, J = pi d^4/32,
        k = 6 (1 + nu)/(7 + 6 nu) (Cowper)."""
        (d,) = _positive(d=d)
        E_, nu_, G_ = _moduli(E, nu, G)
        k = _shear_factor(shear_factor, cowper_circle, nu_)
        i2 = np.pi * d ** 4 / 64.0
        return _defined(cls._from_geometry(np.pi * d ** 2 / 4.0, i2, i2, 2.0 * i2, E_, G_, rho, k),
                        shape="circle", d=d, E=E, nu=nu, G=G, rho=rho, shear_factor=shear_factor)

    @classmethod
    def tube(cls, d_outer, d_inner, E, nu=None, G=None, rho=0.0, shear_factor="cowper") -> Section:
        """Circular tube: A = pi (D^2 - d^2)/4, I2 = I3 = pi (D^4 - d^4)/64, J = 2 I2,
        k from ``cowper_tube`` with m = d/D (Cowper 1966)."""
        (D,) = _positive(d_outer=d_outer)
        d = float(d_inner)
        if not (np.isfinite(d) and 0.0 <= d < D):
            raise ValueError(f"Section: d_inner must satisfy 0 <= d_inner < d_outer, got {d_inner}")
        E_, nu_, G_ = _moduli(E, nu, G)
        k = _shear_factor(shear_factor, lambda v: cowper_tube(v, d / D), nu_)
        i2 = np.pi * (D ** 4 - d ** 4) / 64.0
        return _defined(cls._from_geometry(np.pi * (D ** 2 - d ** 2) / 4.0, i2, i2, 2.0 * i2, E_, G_, rho, k),
                        shape="tube", d_outer=D, d_inner=d, E=E, nu=nu, G=G, rho=rho, shear_factor=shear_factor)

    # ---- matrices
    def stiffness_matrix(self) -> np.ndarray:
        """6x6 D = diag(EA, GA2, GA3, GJ, EI2, EI3) (axial, shear 2, shear 3, torsion, bending 2, bending 3)."""
        return np.diag([self.EA, self.GA2, self.GA3, self.GJ, self.EI2, self.EI3])

    def inertia_matrix(self) -> np.ndarray:
        """6x6 M_s = diag(rhoA, rhoA, rhoA, rhoI2 + rhoI3, rhoI2, rhoI3) per unit length."""
        return np.diag([self.rhoA, self.rhoA, self.rhoA, self.rhoI2 + self.rhoI3, self.rhoI2, self.rhoI3])


def _defined(section, **definition):
    """The section, remembering the shape and parameters it was made from (``definition``,
    written back to model files)."""
    object.__setattr__(section, "definition", {k: (float(v) if isinstance(v, (int, float, np.floating))
                                                   and not isinstance(v, bool) else v)
                                               for k, v in definition.items()})
    return section


def _positive(**kw):
    out = []
    for name, v in kw.items():
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"Section: {name} must be a number, got {v!r}") from None
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"Section: {name} must be finite and > 0, got {v}")
        out.append(v)
    return out
