"""Cross-section constants against closed forms (Saint-Venant torsion, Cowper 1966)."""
import numpy as np
import pytest

from flexmbd.beams.sections import (
    Section,
    cowper_circle,
    cowper_rectangle,
    cowper_tube,
    rectangle_torsion_constant,
)

STEEL = {"E": 2.1e11, "nu": 0.3}


def test_cowper_factors_nu_03():
    assert cowper_rectangle(0.3) == pytest.approx(13.0 / 15.3, rel=1e-15)      # 0.849673...
    assert cowper_circle(0.3) == pytest.approx(7.8 / 8.8, rel=1e-15)           # 0.886364...
    assert cowper_tube(0.3, 0.0) == pytest.approx(cowper_circle(0.3), rel=1e-15)
    assert cowper_tube(0.3, 1.0) == pytest.approx(2 * 1.3 / (4 + 0.9), rel=1e-15)  # thin-walled tube
    assert cowper_rectangle(0.0) == pytest.approx(10 / 12)
    assert cowper_circle(0.0) == pytest.approx(6 / 7)


def test_square_torsion_constant():
    a = 0.01
    assert rectangle_torsion_constant(a, a) == pytest.approx(0.140577 * a ** 4, rel=1e-5)
    assert rectangle_torsion_constant(1.0, 1.0) == pytest.approx(0.1406, abs=5e-5)     # classic beta


@pytest.mark.parametrize("ratio,beta", [(1.5, 0.196), (2.0, 0.229), (3.0, 0.263), (5.0, 0.291), (10.0, 0.312)])
def test_rectangle_torsion_table(ratio, beta):
    """Tabulated beta in J = beta b t^3 (Timoshenko & Goodier), 3 digits."""
    assert rectangle_torsion_constant(ratio, 1.0) / ratio == pytest.approx(beta, abs=6e-4)
    assert rectangle_torsion_constant(1.0, ratio) == rectangle_torsion_constant(ratio, 1.0)


def test_thin_rectangle_limit():
    t = 1.0
    for b in (1e2, 1e3, 1e4):
        J = rectangle_torsion_constant(b, t)
        # J = b t^3/3 (1 - (192/pi^5) (31/32) zeta(5) t/b) up to exponentially small terms
        zeta5 = 1.0369277551433699
        assert J / (b * t ** 3 / 3) == pytest.approx(1 - 192 / np.pi ** 5 * 31 / 32 * zeta5 * t / b, rel=1e-13)
    assert rectangle_torsion_constant(1e6, 1.0) / (1e6 / 3) == pytest.approx(1.0, rel=1e-6)


def test_paper_square_section():
    s = Section.rectangle(0.01, 0.01, rho=7850.0, **STEEL)
    G = 2.1e11 / 2.6
    A, I = 1e-4, 1e-8 / 12
    assert s.EA == pytest.approx(2.1e11 * A, rel=1e-15)
    assert s.GA2 == s.GA3 == pytest.approx(13 / 15.3 * G * A, rel=1e-14)
    assert s.EI2 == s.EI3 == pytest.approx(2.1e11 * I, rel=1e-14)
    assert s.GJ == pytest.approx(G * 0.1405770149551 * 1e-8, rel=1e-11)
    assert s.rhoA == pytest.approx(7850 * A)
    np.testing.assert_allclose(s.stiffness_matrix(), np.diag([s.EA, s.GA2, s.GA3, s.GJ, s.EI2, s.EI3]))
    np.testing.assert_allclose(s.inertia_matrix(), np.diag([s.rhoA] * 3 + [2 * 7850 * I, 7850 * I, 7850 * I]))


def test_rectangle_axes_and_options():
    b, h = 0.02, 0.05
    s = Section.rectangle(b, h, E=1e9, G=4e8, rho=1000.0, shear_factor=5 / 6)
    assert s.EI2 == pytest.approx(1e9 * b * h ** 3 / 12)     # bending about axis 2 uses the height
    assert s.EI3 == pytest.approx(1e9 * h * b ** 3 / 12)
    assert s.GA2 == pytest.approx(5 / 6 * 4e8 * b * h)
    assert s.rhoI2 == pytest.approx(1000 * b * h ** 3 / 12)
    # nu derived from E and G for Cowper's factor
    s2 = Section.rectangle(b, h, E=1e9, G=1e9 / 2.6)
    assert s2.GA2 == pytest.approx(cowper_rectangle(0.3) * 1e9 / 2.6 * b * h, rel=1e-14)


def test_circle_and_tube():
    d = 0.03
    c = Section.circle(d, rho=7800.0, **STEEL)
    G = 2.1e11 / 2.6
    assert c.GJ == pytest.approx(G * np.pi * d ** 4 / 32, rel=1e-15)
    assert c.EI2 == c.EI3 == pytest.approx(2.1e11 * np.pi * d ** 4 / 64, rel=1e-15)
    assert c.GA2 == pytest.approx(cowper_circle(0.3) * G * np.pi * d ** 2 / 4, rel=1e-15)
    assert c.inertia_matrix()[3, 3] == pytest.approx(7800 * np.pi * d ** 4 / 32)
    t = Section.tube(d, 0.02, **STEEL)
    assert t.GJ == pytest.approx(G * np.pi * (d ** 4 - 0.02 ** 4) / 32, rel=1e-15)
    assert t.EA == pytest.approx(2.1e11 * np.pi * (d ** 2 - 0.02 ** 2) / 4, rel=1e-15)
    assert t.GA2 == pytest.approx(cowper_tube(0.3, 2 / 3) * G * np.pi * (d ** 2 - 0.02 ** 2) / 4, rel=1e-15)
    t0 = Section.tube(d, 0.0, **STEEL)
    assert t0 == Section.circle(d, **STEEL)


def test_user_section_and_massless():
    s = Section.user(EA=1, GA2=2, GA3=3, GJ=4, EI2=5, EI3=6)
    np.testing.assert_array_equal(np.diag(s.stiffness_matrix()), [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(s.inertia_matrix(), np.zeros((6, 6)))


@pytest.mark.parametrize("field,value", [("EA", 0.0), ("GA2", -1.0), ("GA3", np.nan), ("GJ", np.inf),
                                         ("EI2", 0.0), ("EI3", -5.0), ("rhoA", -1.0), ("rhoI3", np.nan)])
def test_validation_names_field(field, value):
    kw = {"EA": 1, "GA2": 2, "GA3": 3, "GJ": 4, "EI2": 5, "EI3": 6, "rhoA": 1, "rhoI2": 1, "rhoI3": 1}
    kw[field] = value
    with pytest.raises(ValueError, match=field):
        Section.user(**kw)


def test_validation_partial_inertia_and_inputs():
    with pytest.raises(ValueError, match="rhoI2"):
        Section.user(EA=1, GA2=2, GA3=3, GJ=4, EI2=5, EI3=6, rhoA=1.0, rhoI2=0.0, rhoI3=1.0)
    with pytest.raises(ValueError, match="width2"):
        Section.rectangle(0.0, 0.01, **STEEL)
    with pytest.raises(ValueError, match="nu"):
        Section.rectangle(0.01, 0.01, E=1e9)
    with pytest.raises(ValueError, match="shear_factor"):
        Section.rectangle(0.01, 0.01, shear_factor="timoshenko", **STEEL)
    with pytest.raises(ValueError, match="d_inner"):
        Section.tube(0.01, 0.02, **STEEL)
    with pytest.raises(ValueError, match="rho"):
        Section.circle(0.01, rho=-1.0, **STEEL)
