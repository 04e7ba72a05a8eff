"""Reference comparisons: integrators (cases registered below).

The Newmark family (Newmark, HHT-α, generalized-α) on a linear two-mass chain
ground –k_soft– m1 –k_stiff– m2, built from planar bodies on prismatic joints
to ground (along x) and two spring-dampers without damping.  Along x the
springs are exactly linear, so the run is the linear modal problem of
:func:`~flexmbd.verify.references.two_mass_chain_modes` and each mode evolves
by the method's amplification matrix A(ωh).

* ``integrator-damping``: one run per method started in the stiff mode alone
  (ω_stiff h ≈ 71) and one started in the soft mode alone (ω_soft h ≈ 0.035).
  The modal coordinate x_n of such a run obeys the linear recurrence whose
  characteristic polynomial is det(z I − A) (order 3; 2 for Newmark, whose third
  eigenvalue is 0).  Its coefficients are fitted by least squares to the
  simulated x_n and the largest root modulus — the asymptotic per-step
  amplitude ratio of that mode — is compared with
  :func:`~flexmbd.verify.references.newmark_family_spectral_radius` at the
  actual ωh.  (At finite ωh the generalized-α value is still well above ρ∞:
  it approaches ρ∞ only like (ωh)^(-2/3); HHT like (ωh)^(-2).)
* ``integrator-order``: a mild chain with both modes resolved, started off
  both modes; max error of x1, x2 against the exact modal solution for h, h/2,
  h/4: ratio ≈ 4 per halving for Newmark, HHT and generalized-α.
"""
from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from ...ground import GROUND
from ...model import Model
from ...solvers.integrators import HHT, GeneralizedAlpha, Newmark
from ..references import newmark_family_spectral_radius, two_mass_chain_modes
from ..registry import case, compare

#: Stiff chain of the damping study: ω_soft = 0.7071 rad/s, ω_stiff = 1414.2 rad/s.
STIFF_CHAIN = dict(m1=1.0, m2=1.0, k_soft=1.0, k_stiff=1e6)
DAMPING_STEP = 0.05
#: Initial modal displacement of the stiff-mode runs [m].  Newton starts each step
#: from the previous acceleration; for ω h ≫ 1 the stiff mode's acceleration changes
#: sign every step, so the first iterate is off by ≈ 2 β h² ω² A.  A must keep that
#: well below the 1 m spring length (else the stiff spring can be "solved" with the
#: masses swapped, |Δx| being the same).  1e-4 m gives 0.13 m.
STIFF_AMPLITUDE = 1e-4
SOFT_AMPLITUDE = 1e-2
STIFF_STEPS = 40
SOFT_STEPS = 200
#: Samples of a decaying mode are used while |x_n| > this × |x_0| (positions are
#: O(1) m, so roundoff is ~1e-16 m ≈ 1e-12 of the 1e-4 m stiff amplitude).
SIGNAL_FLOOR = 1e-9
NEWTON_TOL = 1e-9

#: (method, ρ∞) pairs of the damping study; Newmark (ρ = 1) is the control.
DAMPING_METHODS = (("newmark", None), ("hht", 0.5), ("hht", 0.7), ("hht", 0.9),
                   ("generalized-alpha", 0.2), ("generalized-alpha", 0.5), ("generalized-alpha", 0.8))

#: Mild chain of the order study: ω = 1.369 and 5.842 rad/s, both resolved.
MILD_CHAIN = dict(m1=1.0, m2=1.0, k_soft=4.0, k_stiff=16.0)
ORDER_U0, ORDER_V0 = (0.05, -0.03), (0.1, 0.2)
ORDER_T_END = 2.0
ORDER_STEPS = (0.04, 0.02, 0.01)
ORDER_METHODS = (("newmark", None), ("hht", 0.7), ("generalized-alpha", 0.5))
ORDER_TOL = 1e-11


def integrator(method, rho_inf):
    if method == "newmark":
        return Newmark()
    return HHT(rho_inf) if method == "hht" else GeneralizedAlpha(rho_inf)


def label(method, rho_inf):
    return method if rho_inf is None else f"{method} ρ∞={rho_inf:g}"


def chain_model(u0=(0.0, 0.0), v0=(0.0, 0.0), m1=1.0, m2=1.0, k_soft=1.0, k_stiff=1e6):
    """ground –k_soft– m1 –k_stiff– m2 on the x axis; equilibrium at x1 = 1, x2 = 2.

    Planar bodies on prismatic joints to ground (axis x) keep y = θ = 0; the
    springs have rest length 1 m, so their force is exactly k Δx along x.
    ``u0``, ``v0`` are the initial displacements and velocities of (m1, m2).
    """
    m = Model(name="two-mass-chain")
    b1 = m.planar_body("m1", mass=m1, inertia=1.0, position=(1.0 + u0[0], 0.0), velocity=(v0[0], 0.0))
    b2 = m.planar_body("m2", mass=m2, inertia=1.0, position=(2.0 + u0[1], 0.0), velocity=(v0[1], 0.0))
    m.prismatic(GROUND, b1, at=(1.0, 0.0), axis=(1, 0, 0), name="slide1")
    m.prismatic(GROUND, b2, at=(2.0, 0.0), axis=(1, 0, 0), name="slide2")
    m.spring_damper(GROUND, b1, at_i=(0.0, 0.0), at_j=b1.position, k=k_soft, rest_length=1.0, name="soft")
    m.spring_damper(b1, b2, k=k_stiff, rest_length=1.0, name="stiff")
    return m


def displacements(res):
    """(x1 − 1, x2 − 2) along the run, shape (n, 2)."""
    return np.c_[res["m1.position"][:, 0] - 1.0, res["m2.position"][:, 0] - 2.0]


def fit_recurrence(x, order):
    """Roots of z^p − c_1 z^(p−1) − … − c_p for the least-squares recurrence
    x_{n+p} = c_1 x_{n+p−1} + … + c_p x_n fitted to the samples x."""
    x = np.asarray(x, float)
    X = np.column_stack([x[order - 1 - j:len(x) - 1 - j] for j in range(order)])
    c = np.linalg.lstsq(X, x[order:], rcond=None)[0]
    return np.roots(np.r_[1.0, -c])


def _simulate(model, t_end, h, integ, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        res = model.simulate(t_end=t_end, h=h, tol=tol, integrator=integ)
        res.elapsed = time.perf_counter() - t0
    if not res.success:
        raise RuntimeError(f"chain run failed: {res.message}")
    return res


@functools.lru_cache(maxsize=None)
def mode_decay_run(method, rho_inf, mode, h=DAMPING_STEP):
    """Start the stiff chain in one mode (0 soft, 1 stiff) and measure that mode's
    per-step amplitude ratio (largest root of the fitted recurrence)."""
    ch = two_mass_chain_modes(**STIFF_CHAIN)
    shape = ch.modes[:, mode] / np.max(np.abs(ch.modes[:, mode]))
    amp, n_steps = (STIFF_AMPLITUDE, STIFF_STEPS) if mode == 1 else (SOFT_AMPLITUDE, SOFT_STEPS)
    res = _simulate(chain_model(amp * shape, (0.0, 0.0), **STIFF_CHAIN), n_steps * h, h,
                    integrator(method, rho_inf), NEWTON_TOL)
    eta = displacements(res) @ ch.M @ ch.modes           # modal coordinates (M-orthonormal modes)
    x = eta[:, mode]
    small = np.flatnonzero(np.abs(x) < SIGNAL_FLOOR * abs(x[0]))
    used = x[: small[0]] if small.size else x
    order = 2 if method == "newmark" else 3
    roots = fit_recurrence(used, order)
    omega_h = float(ch.omega[mode] * h)
    ref = newmark_family_spectral_radius(omega_h, rho_inf, method)
    other = eta[:, 1 - mode]
    return dict(method=method, rho_inf=rho_inf, mode=mode, h=h, omega_h=omega_h, samples=len(used),
                roots=np.sort(np.abs(roots))[::-1], measured=float(np.max(np.abs(roots))), reference=float(ref),
                cross_talk=float(np.max(np.abs(other)) / abs(x[0])), seconds=res.elapsed,
                steps_per_soft_period=float(2 * np.pi / (two_mass_chain_modes(**STIFF_CHAIN).omega[0] * h)))


def damping_study(methods=DAMPING_METHODS):
    rows = []
    for method, rho in methods:
        stiff, soft = mode_decay_run(method, rho, 1), mode_decay_run(method, rho, 0)
        rows.append(dict(method=method, rho_inf=rho, stiff=stiff, soft=soft,
                         soft_retained_per_period=soft["measured"] ** soft["steps_per_soft_period"]))
    return rows


@case("integrator-damping", description="stiff two-mass chain: per-step decay of the stiff (ωh≈71) and soft "
      "(ωh≈0.035) modes vs. the spectral radius ρ(ωh) of Newmark/HHT/gen-α")
def integrator_damping_case():
    """Per-step amplitude ratio of the stiff and soft modes vs. newmark_family_spectral_radius."""
    out = []
    for row in damping_study():
        name = label(row["method"], row["rho_inf"])
        st, so = row["stiff"], row["soft"]
        # linear problem, Newton exact to roundoff: the fit is limited by the 1e-9 signal
        # floor; 1e-6 (stiff) leaves a 1000× margin and is 1000× tighter than the 1e-3 asked.
        out.append(compare("integrator-damping", f"{name}: stiff-mode ρ per step (ωh={st['omega_h']:.1f})",
                           st["reference"], st["measured"], tolerance=1e-6, mode="abs",
                           source="spectral radius of the amplification matrix A(ωh) (Chung & Hulbert 1993)"))
        out.append(compare("integrator-damping", f"{name}: soft-mode ρ per step (ωh={so['omega_h']:.4f})",
                           so["reference"], so["measured"], tolerance=1e-9, mode="abs",
                           source="spectral radius of A(ωh): 1 − ρ = O((ωh)⁴), soft mode barely damped"))
    return out


@functools.lru_cache(maxsize=None)
def order_run(method, rho_inf, h):
    ch = two_mass_chain_modes(**MILD_CHAIN)
    res = _simulate(chain_model(ORDER_U0, ORDER_V0, **MILD_CHAIN), ORDER_T_END, h, integrator(method, rho_inf),
                    ORDER_TOL)
    exact = ch.response(res.t, ORDER_U0, ORDER_V0)
    return dict(h=h, error=float(np.max(np.abs(displacements(res) - exact))), seconds=res.elapsed,
                omega_h=float(ch.omega[1] * h))


def order_study(methods=ORDER_METHODS, steps=ORDER_STEPS):
    rows = []
    for method, rho in methods:
        e = np.array([order_run(method, rho, h)["error"] for h in steps])
        rows.append(dict(method=method, rho_inf=rho, steps=steps, errors=e, ratios=e[:-1] / e[1:],
                         seconds=sum(order_run(method, rho, h)["seconds"] for h in steps)))
    return rows


@case("integrator-order", description="mild two-mass chain: error vs. the exact modal solution falls 4× per "
      "halving of h for Newmark, HHT and gen-α")
def integrator_order_case():
    """Second-order convergence of Newmark, HHT and generalized-α on a linear chain."""
    out = []
    for row in order_study():
        name = label(row["method"], row["rho_inf"])
        for h, ratio in zip(row["steps"], row["ratios"]):
            # e(h) = C h² (1 + O(ωh)) for the non-symmetric HHT/gen-α; ωh ≤ 0.23 here.
            out.append(compare("integrator-order", f"{name}: error ratio h={h:g}/{h / 2:g}", 4.0, ratio,
                               tolerance=0.1, source="exact modal solution (two_mass_chain_modes); order 2"))
    return out
