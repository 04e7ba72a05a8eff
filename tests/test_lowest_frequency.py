"""``relaxation.lowest_frequency`` on beams whose stiffest modes lie far above the lowest.

Euler-Bernoulli beam, EI = ρA = L = 1: ω_k = (β_k L)² √(EI / (ρA L⁴)) with β_1 L =
1.8751040687119611 (clamped-free, root of cos βL cosh βL = −1) and 4.730040744862704
(free-free, first flexible mode, root of cos βL cosh βL = 1); e.g. Meirovitch,
*Fundamentals of Vibrations* (2001), sec. 8.7.  With EA = GA ≥ 1e6 EI/L² and the rotary
inertia ρI = ρA EI/EA, shear and rotary inertia change ω_1 by O(EI/(GA L²)) ≤ 1e-6;
the first-order SE(3) elements converge at O(h²) (measured: relative error 1.1e-4 at 32
and 2.5e-5 at 64 elements).
"""
import warnings

import pytest

import flexmbd as fm
from flexmbd.beams import Section
from flexmbd.solvers.relaxation import lowest_frequency, relax

CLAMPED = 1.8751040687119611 ** 2     # ω_1 of the clamped-free beam [rad/s]
FREE = 4.730040744862704 ** 2         # first flexible ω of the free-free beam


def beam(elements, EA, clamped=True, load=0.0):
    sec = Section.user(EA=EA, GA2=EA, GA3=EA, GJ=1.0, EI2=1.0, EI3=1.0, rhoA=1.0, rhoI2=1.0 / EA, rhoI3=1.0 / EA)
    m = fm.Model()
    b = m.beam("rod", section=sec, elements=elements, start=(0, 0, 0), end=(1, 0, 0))
    if clamped:
        m.fixed(fm.GROUND, b.first)
    if load:
        m.force(b.last, (0.0, load, 0.0))
    return m


def frozen(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.freeze()


def test_clamped_cantilever_converges_at_second_order_to_euler_bernoulli():
    """64 elements, EA = 1e6 EI/L²: the old relative floor (1e-6 of the largest ω²)
    skipped every bending mode and returned 1110 rad/s."""
    err = {}
    for n in (32, 64):
        s = frozen(beam(n, 1e6))
        err[n] = abs(lowest_frequency(s, s.q0) - CLAMPED) / CLAMPED
    assert err[64] <= (1 / 64) ** 2          # O(h²), unit constant (measured 0.1)
    # second-order convergence: 4, moved by the O(1e-6) shear/rotary-inertia offset of the
    # limit from Euler-Bernoulli (measured 4.55)
    assert 3.0 < err[32] / err[64] < 5.0


def test_stiff_clamped_cantilever():
    """EA = 1e8 EI/L²: the old floor returned 1.0e5 rad/s (an axial mode).  The bending
    ω² lies 1e12 below the largest, so rounding (ε κ, measured 1.5e-5 relative) adds to
    the O(h²) error."""
    s = frozen(beam(64, 1e8))
    assert abs(lowest_frequency(s, s.q0) - CLAMPED) / CLAMPED <= (1 / 64) ** 2


@pytest.mark.parametrize("parameterization", ["quaternion", "se3"])
def test_a_free_rigid_body_has_no_frequency(parameterization):
    """Only zero modes (six, plus the Euler-parameter normalisation's constraint row):
    no positive non-zero ω², so 0.0."""
    m = fm.Model()
    m.rigid_body("b", mass=2.0, inertia=(1.0, 2.0, 3.0), parameterization=parameterization)
    s = frozen(m)
    assert lowest_frequency(s, s.q0) == 0.0


def test_viscous_relaxation_defaults_to_twice_the_lowest_frequency():
    """relax(…, damping='viscous') takes α = 2 ω_min: near 2 × 3.516 for the stiff
    cantilever, not 2 × 1.0e5 (which over-damped it by four orders)."""
    rel = relax(beam(64, 1e8, load=-1e-3), h=0.05, damping="viscous", max_steps=1)
    assert rel.alpha == pytest.approx(2 * CLAMPED, rel=(1 / 64) ** 2)
