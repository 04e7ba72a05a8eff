"""DT-TMM beam chains (flexmbd.tmm, paper P5) against closed-form modal solutions, the
frequency-domain transfer matrices against analytic natural frequencies, and the Riccati
sweep against a direct solve of the same step equations."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbd.errors import ModelError
from flexmbd.tmm.chain import Chain
from flexmbd.tmm.elements import BeamSegment, RigidBody, SpringDamper
from flexmbd.tmm.frequency import natural_frequencies
from flexmbd.tmm.modes import free_free_roots

#: a steel shaft Ø 0.2 m, 2 m long (EI = E π d⁴/64, ρA = ρ π d²/4)
L, E, RHO, D = 2.0, 2.1e11, 7850.0, 0.2
EI = E * np.pi * D ** 4 / 64
RHOA = RHO * np.pi * D ** 2 / 4
C_BEAM = np.sqrt(EI / RHOA)


def segments(n, n_modes=6, damping=0.0):
    return [BeamSegment(f"s{i}", L / n, EI, RHOA, n_modes=n_modes, damping=damping) for i in range(n)]


def cantilever_mode(x):
    """First clamped-free mode φ = cosh βx − cos βx − σ (sinh βx − sin βx), φ(L) = 2."""
    lam = 1.8751040687119611
    b = lam / L
    sigma = (np.cosh(lam) + np.cos(lam)) / (np.sinh(lam) + np.sin(lam))
    return np.cosh(b * x) - np.cos(b * x) - sigma * (np.sinh(b * x) - np.sin(b * x)), b * b * C_BEAM


def shaped_load(segs, shape):
    """Generalised loads of a distributed load shape(x) (global x) on the segments."""
    x0 = np.cumsum([0.0] + [s.length for s in segs])
    out = np.zeros((len(segs), max(s.n_modes for s in segs)))
    for i, s in enumerate(segs):
        out[i, :s.n_modes] = s.distributed_load(lambda x: shape(x + x0[i]))
    return out


def relative_error(a, ref):
    """max over time of |a − a_ref| / max |a_ref|."""
    return np.max(np.abs(a - ref)) / np.max(np.abs(ref))


def test_simply_supported_beam_under_a_step_load_matches_the_modal_solution():
    # a step load p₀ sin(πx/L) excites the first mode alone: z'' = p₀/ρA cos(ω₁t) sin(πx/L)
    segs = segments(8)
    chain = Chain(segs, "pinned", "pinned")
    w1 = (np.pi / L) ** 2 * C_BEAM
    p0 = 2.0e4
    load = shaped_load(segs, lambda x: p0 * np.sin(np.pi * x / L))
    h = 2 * np.pi / w1 / 200          # trapezoidal rule: period error (ωh)²/12 ≈ 8e-5 per period
    t, acc, _, z = chain.simulate(h, 600, load=lambda t: load)
    ref = p0 / RHOA * np.cos(w1 * t)
    assert relative_error(acc[:, 4, 0], ref) < 0.01          # mid-span
    assert relative_error(acc[:, 2, 0], ref * np.sin(np.pi / 4)) < 0.01
    zref = p0 / (RHOA * w1 ** 2) * (1 - np.cos(w1 * t))
    assert relative_error(z[:, 4, 0], zref) < 0.01


def test_cantilever_under_a_harmonic_load_matches_the_modal_solution():
    # load p₀ φ₁(x) sin Ωt from rest: q̈ = p₀ Ω (ω₁ sin ω₁t − Ω sin Ωt)/(ω₁² − Ω²) (∫φ₁² = L)
    segs = segments(8)
    chain = Chain(segs, "clamped", "free")
    _, w1 = cantilever_mode(0.0)
    Om = 0.6 * w1
    p0 = 5.0e3
    shape = shaped_load(segs, lambda x: p0 * cantilever_mode(x)[0])
    h = 2 * np.pi / w1 / 200
    t, acc, _, _ = chain.simulate(h, 800, load=lambda t: shape * np.sin(Om * t))
    qdd = p0 / RHOA * Om * (w1 * np.sin(w1 * t) - Om * np.sin(Om * t)) / (w1 ** 2 - Om ** 2)
    assert relative_error(acc[:, 8, 0], 2.0 * qdd) < 0.01                       # tip
    assert relative_error(acc[:, 4, 0], cantilever_mode(L / 2)[0] * qdd) < 0.01  # mid-span


def test_time_error_shrinks_with_the_square_of_the_step():
    # Newmark's trapezoidal rule is second order: the change of the solution from h to h/2
    # is ≈ 4 times the change from h/2 to h/4 (the spatial error cancels in differences)
    segs = segments(8)
    w1 = (np.pi / L) ** 2 * C_BEAM
    load = shaped_load(segs, lambda x: 1e4 * np.sin(np.pi * x / L))
    runs = []
    for n in (100, 200, 400):
        chain = Chain(segs, "pinned", "pinned")
        t, acc, _, _ = chain.simulate(2 * np.pi / w1 / n, 2 * n, load=lambda t: load)
        runs.append(acc[:: n // 100, 4, 0])
    d1 = np.max(np.abs(runs[0] - runs[1]))
    d2 = np.max(np.abs(runs[1] - runs[2]))
    assert 3.5 < d1 / d2 < 4.5


def mixed_chain(left, right):
    parts = [RigidBody("box", 300.0, 5.0), SpringDamper("bearing", 2e8, 4e4, 5e6, 1e3)]
    parts += [BeamSegment("journal", 0.3, EI, RHOA, 5, damping=0.02), RigidBody("wheel", 400.0, 30.0, 0.1, 0.05)]
    parts += segments(3, 7) + [SpringDamper("rigid", np.inf, 0.0), RigidBody("gear", 200.0, 8.0)]
    return Chain(parts, left, right)


@pytest.mark.parametrize("left,right", [("free", "free"), ("clamped", "free"), ("pinned", "pinned"),
                                        ("free", "clamped"), ("clamped", "pinned")])
def test_riccati_sweep_and_direct_solve_agree_to_rounding(left, right):
    rng = np.random.default_rng(3)
    a, b = mixed_chain(left, right), mixed_chain(left, right)
    load = rng.normal(size=a.zero_load().shape) * 1e3
    q, qd = rng.normal(size=a.q.shape) * 1e-5, rng.normal(size=a.q.shape) * 1e-3
    q[a._rigid[:, 0]] = qd[a._rigid[:, 0]] = 0.0
    for chain in (a, b):
        chain.q, chain.qd = q.copy(), qd.copy()
    for h in (1e-3, 1e-5, 1e-7):             # small steps: stiff relations, still to rounding
        fa, aa = a.step(h, load, "riccati")
        fb, ab = b.step(h, load, "direct")
        assert np.allclose(aa, ab, rtol=1e-9, atol=1e-9 * np.max(np.abs(ab)))
        assert np.allclose(fa, fb, rtol=1e-9, atol=1e-9 * np.max(np.abs(fb)))


def test_natural_frequencies_of_free_free_and_simply_supported_beams():
    segs = segments(4)
    c = C_BEAM / (2 * np.pi)
    ff = natural_frequencies(segs, "free", "free", f_max=5000.0)[:5]
    assert np.allclose(ff, (free_free_roots(5) / L) ** 2 * c, rtol=1e-9)
    ss = natural_frequencies(segs, "pinned", "pinned", f_max=5000.0)[:5]
    assert np.allclose(ss, (np.arange(1, 6) * np.pi / L) ** 2 * c, rtol=1e-9)


def test_time_domain_chain_vibrates_at_the_frequency_domain_natural_frequency():
    # free vibration of a clamped-free wheelset-like chain from the first mode's static
    # shape: the dominant frequency of the tip acceleration is the FD-TMM's first one
    parts = [RigidBody("hub", 50.0, 0.5)] + segments(4) + [RigidBody("tip", 80.0, 2.0)]
    f1 = natural_frequencies(parts, "clamped", "free", f_max=200.0)[0]
    chain = Chain(parts, "clamped", "free")
    h = 1 / f1 / 400
    load = chain.zero_load()
    load[-1, 0] = 1e4                                     # step force at the tip
    t, _, _, z = chain.simulate(h, 4000, load=lambda t: load)
    tip = z[:, -1, 0] - np.mean(z[:, -1, 0])             # displacement: the first mode dominates
    zc = t[np.nonzero((tip[:-1] > 0) & (tip[1:] <= 0))[0]]
    f_td = (len(zc) - 1) / (zc[-1] - zc[0])
    assert abs(f_td / f1 - 1) < 0.003


def test_bad_elements_and_boundaries_are_named():
    with pytest.raises(ModelError, match="axle.*EI"):
        BeamSegment("axle", 1.0, -3.0, 10.0)
    with pytest.raises(ModelError, match="axle.*n_modes"):
        BeamSegment("axle", 1.0, 3.0, 10.0, n_modes=3)
    with pytest.raises(ModelError, match="wheel.*mass"):
        RigidBody("wheel", float("nan"), 1.0)
    with pytest.raises(ModelError, match="left.*hinged"):
        Chain(segments(2), "hinged", "free")
    with pytest.raises(ModelError, match="s0"):
        Chain(segments(2) + segments(1), "free", "free")
    chain = Chain(segments(2), "clamped", "free")
    load = chain.zero_load()
    load[1, 0] = np.nan
    with pytest.raises(ModelError, match="s1: its load is not finite"):
        chain.step(1e-4, load)


def se3_comparison() -> dict:
    """The same slender cantilever (L/d = 40, so shear and rotary inertia are ≈ 0.1 % effects)
    by DT-TMM and as third-order SE(3) beam elements under a smooth tip force
    F₀ (1 − cos Ωt); both use Newmark's trapezoidal rule with the same step; the deflection
    stays 1e-3 L.  Relative errors of tip and mid-span deflection and tip acceleration
    (also printed by benchmarks/tmm_checks.py)."""
    import flexmbd as fm
    from flexmbd.beams import Section

    d = 0.05
    EI_, rhoA_ = E * np.pi * d ** 4 / 64, RHO * np.pi * d ** 2 / 4
    w1 = (1.8751040687 / L) ** 2 * np.sqrt(EI_ / rhoA_)
    Om, F0 = 0.5 * w1, 20.0
    h = 2 * np.pi / w1 / 200
    m = fm.Model()
    rod = m.beam("rod", section=Section.circle(d, E=E, nu=0.3, rho=RHO), elements=8, order=3,
                 start=(0, 0, 0), end=(L, 0, 0))
    m.fixed(fm.GROUND, rod.first)
    m.force(rod.last, (0, 0, F0), at=rod.last.position, scale=lambda t: 1 - np.cos(Om * t))
    res = m.simulate(t_end=300 * h, h=h, integrator="newmark", convergence="increment", tol=1e-13)
    assert res.success
    chain = Chain([BeamSegment(f"s{i}", L / 8, EI_, rhoA_) for i in range(8)], "clamped", "free")

    def load(t):
        out = chain.zero_load()
        out[-1] = chain.U[-1, 2] * F0 * (1 - np.cos(Om * t))     # tip force: U(ℓ)ᵀ F
        return out

    _, acc, _, z = chain.simulate(h, len(res.t) - 1, load=load)
    a_se3 = np.gradient(res["rod.last.velocity"][:, 2], res.t)    # central differences
    return {"tip": relative_error(z[:, 8, 0], res["rod.last.position"][:, 2]),
            "mid": relative_error(z[:, 4, 0], res["rod.n12.position"][:, 2]),
            "tip acceleration": relative_error(acc[1:-1, 8, 0], a_se3[1:-1])}


def test_cantilever_matches_flexmbd_geometrically_exact_beam_at_small_amplitude():
    err = se3_comparison()
    assert err["tip"] < 0.002 and err["mid"] < 0.002
    assert err["tip acceleration"] < 0.01


def test_stiffness_proportional_damping_gives_the_chain_rayleigh_modal_damping():
    # β_R K on every segment is β_R K of the whole chain: the simply supported beam's first
    # mode then has ζ = β_R ω₁/2, and the step load p₀ sin(πx/L) gives the damped step
    # response z'' = (p₀/ρA) e^{−ζω₁t} (cos ω_d t − ζ/√(1−ζ²) sin ω_d t) sin(πx/L)
    w1 = (np.pi / L) ** 2 * C_BEAM
    zeta = 0.03
    segs = [BeamSegment(f"s{i}", L / 8, EI, RHOA, n_modes=6, stiffness_damping=2 * zeta / w1) for i in range(8)]
    chain = Chain(segs, "pinned", "pinned")
    p0 = 2.0e4
    load = shaped_load(segs, lambda x: p0 * np.sin(np.pi * x / L))
    h = 2 * np.pi / w1 / 200
    t, acc, _, _ = chain.simulate(h, 600, load=lambda t: load)
    wd = w1 * np.sqrt(1 - zeta ** 2)
    ref = p0 / RHOA * np.exp(-zeta * w1 * t) * (np.cos(wd * t) - zeta / np.sqrt(1 - zeta ** 2) * np.sin(wd * t))
    assert relative_error(acc[:, 4, 0], ref) < 0.01
    # a modal ratio of each segment's own modes barely damps the chain's first mode
    # (ζ ω₁/ω_segment ≈ 0.03 × 1/300 here): the undamped closed form holds instead
    chain2 = Chain(segments(8, damping=zeta), "pinned", "pinned")
    _, acc2, _, _ = chain2.simulate(h, 600, load=lambda t: load)
    assert relative_error(acc2[:, 4, 0], p0 / RHOA * np.cos(w1 * t)) < 0.01


@pytest.mark.parametrize("omega", [0.0, 1e-3, 40.0, 2 * np.pi * 103.0, 2 * np.pi * 700.0, 2 * np.pi * 5000.0])
def test_closed_form_beam_field_matrix_is_the_exponential_of_the_field(omega):
    """Krylov-Duncan closed form (u = βℓ from 0 to ≈ 6.6 here) against scipy's expm of Aℓ:
    entries scaled by their row/column units; both are exact to rounding, amplified by
    cosh u ≤ 400 at most."""
    from scipy.linalg import expm

    from flexmbd.tmm.frequency import _field_generator, beam_field_matrix

    EI, rhoA, L = 2.06e11 * np.pi * (0.19**4 - 0.065**4) / 64, 7850 * np.pi * (0.19**2 - 0.065**2) / 4, 0.5
    T = beam_field_matrix(EI, rhoA, L, omega)
    E = expm(_field_generator(EI, rhoA, omega) * L)
    units = np.array([1.0, 1.0 / L, EI / L**2, EI / L**3])        # z, θ, M, Q scales
    scale = units[:, None] / units[None, :]
    np.testing.assert_allclose(T / scale, E / scale, rtol=0, atol=1e-12 * max(1.0, np.abs(E / scale).max()))
