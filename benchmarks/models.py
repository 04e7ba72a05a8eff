"""The benchmark models.

Each benchmark is a :class:`Benchmark`: ``build()`` makes the model (not timed),
``run(model)`` is timed and returns the Result, ``check(result)`` compares the answer
with a reference (a faster wrong answer does not count) and returns a one-line verdict.

Benchmarks with a peer also say how to build the same model in Exudyn
(``peer()``, see :mod:`benchmarks.exudyn_models`), which quantities both codes must
agree on (``answer(result)`` and ``peer_answer(peer_model)`` return them by name) and
the largest allowed difference of each (``tolerance``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from flexmbd import GROUND, Model
from flexmbd.examples import slider_crank


@dataclass
class Benchmark:
    description: str
    build: Callable
    run: Callable                         # model -> Result: model.simulate(t_end=steps h, h=h, **options)
    check: Callable
    answer: Callable | None = None        # Result -> {quantity: array}
    peer: Callable | None = None          # () -> exudyn_models.PeerModel (not timed)
    peer_answer: Callable | None = None   # PeerModel -> {quantity: array}
    tolerance: dict = field(default_factory=dict)  # quantity -> largest allowed |flexmbd − Exudyn|
    reference: Callable | None = None     # {quantity: array} -> verdict against an independent reference
    repeat: int | None = None             # at most this many repeats (long runs)
    family: str | None = None             # benchmarks of one family form a scaling series
    size: int | None = None               # size in that series (bodies)
    steps: int = 0
    h: float = 0.0
    variant: Callable | None = None       # f -> the same benchmark with f times the steps of h / f
    options: dict = field(default_factory=dict)  # simulate() options besides t_end and h


def _simulate(steps, h, **options):
    return lambda m: m.simulate(t_end=steps * h, h=h, **options)


def refine(name, factor=2):
    """The benchmark ``name`` with ``factor`` times as many steps of h / factor."""
    b = BENCHMARKS[name]
    if b.variant is None:
        raise ValueError(f"benchmark {name!r} has no step-size variant")
    return b.variant(factor)


def _rows(res, bodies):
    """Centre positions (len(bodies), 3) of spatial bodies at the last step."""
    q, sys = res.q[-1], res.system
    return np.array([q[sys.body_slice(b)][:3] for b in bodies])


# ---------------------------------------------------------------------------
# P1 slider-crank
# ---------------------------------------------------------------------------


def _slider_crank(steps, h, tol, refresh="newton"):
    k, c = 2e4, 1e3
    key = "slider x(t) [m]"

    def reference(ans):
        from flexmbd.verify.references import slider_crank_minimal

        ref = slider_crank_minimal(k, c, t_end=steps * h)
        x = ans[key]
        t = h * np.arange(len(x))
        return (f"max slider error vs minimal coordinates {np.max(np.abs(x - ref.slider_x(t))):.2e} m, "
                f"at t_end {x[-1] - ref.slider_x(t[-1]):+.2e} m")

    def answer(res):
        return {key: res["slider.position"][:, 0]}

    def peer():
        from . import exudyn_models as exm

        return exm.slider_crank(k, c, steps, h, modified_newton=refresh != "newton")

    def peer_answer(p):
        return {key: p.sensor("slider")[:, 1]}

    def check(res):
        return reference(answer(res))

    mode = "" if refresh == "newton" else ", modified Newton (flexmbd refresh='step'; Exudyn's default)"
    return Benchmark(f"P1 slider-crank (k = 2e4, c = 1e3), {steps} Newmark steps of {h} s{mode}",
                     lambda: slider_crank.build(k=k, c=c), _simulate(steps, h, refresh=refresh), check, answer, peer,
                     peer_answer, {key: tol}, reference, steps=steps, h=h,
                     variant=lambda f: _slider_crank(steps * f, h / f, tol, refresh), options=dict(refresh=refresh))


# ---------------------------------------------------------------------------
# P1 tensegrity tower
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _tower():
    """The tower's bookkeeping (node ↔ bar); deterministic (seeded), built once."""
    import warnings

    from flexmbd.examples import tensegrity

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensegrity.build_tower(k=200.0, c=10.0)


def _tensegrity(steps, h=0.01, tol=1e-6):
    from flexmbd.examples import tensegrity
    from flexmbd.solvers.integrators import Newmark

    key = "node positions at t_end [m]"

    def check(res):
        e = res["energy.numerical_dissipation"]
        T = _tower()
        fmin = min(float(np.min(res[f"{n}.force"])) for n in T.cable_names)
        return (f"completed {res.success}; |numerical dissipation| {abs(e[-1]):.2e} J of {res['energy.total'][0]:.3f} J; "
                f"smallest cable force {fmin:.3f} N ({'no cable slack' if fmin > 0 else 'a cable went SLACK'})")

    def answer(res):
        return {key: _tower().nodes(res.q[-1])}

    def peer():
        from . import exudyn_models as exm

        # cables go slack in this run: tension-only cables as a symbolic user function
        return exm.from_model(tensegrity.build_tower(k=200.0, c=10.0).model, steps, h, beta=0.3, gamma=0.6,
                              cables="symbolic")

    def peer_answer(p):
        T = _tower()
        return {key: np.array([p.position(T.bars[b].name, u) for b, u in zip(T.node_bar, T.node_local)])}

    return Benchmark(f"P1 tensegrity tower (6 bars, 24 cables, k = 200, c = 10), {steps} Newmark (β = 0.3, γ = 0.6) "
                     f"steps of {h} s",
                     lambda: tensegrity.build_tower(k=200.0, c=10.0).model,
                     _simulate(steps, h, integrator=Newmark(0.3, 0.6)), check, answer, peer, peer_answer, {key: tol},
                     steps=steps, h=h, variant=lambda f: _tensegrity(steps * f, h / f, tol),
                     options=dict(integrator=Newmark(0.3, 0.6)))


# ---------------------------------------------------------------------------
# chain of rigid bars with spherical joints and spring-dampers
# ---------------------------------------------------------------------------

#: Bar: 0.1 m, 0.1 kg, a slender cylinder of radius 1 cm (body x along the bar).
BAR_LENGTH, BAR_MASS = 0.1, 0.1
BAR_INERTIA = (5e-6, 8.6e-5, 8.6e-5)
#: Three spring-dampers in parallel with every joint: from a point of the inner body
#: CHAIN_SPAN before the joint, offset CHAIN_OFFSET from the axis at angles 90°, 210°,
#: 330°, to a point of the outer body CHAIN_SPAN after the joint at the angle + 60°.  The
#: twisted (helical) pattern gives the joint stiffness about all three axes (bending
#: 2.9 N m/rad, torsion 1.4 N m/rad for small rotations), so there is no zero-stiffness
#: mode; the motion from the straight start is three-dimensional (the twist couples them).
CHAIN_SPAN, CHAIN_OFFSET, CHAIN_K, CHAIN_C = 0.02, 0.02, 8000.0, 30.0
CHAIN_GRAVITY = (0.0, 0.0, -9.81)
_ANGLES = np.radians([90.0, 210.0, 330.0])
_TWIST = np.radians(60.0)


def chain_spring_points(x):
    """(points on the inner body, points on the outer body) of the springs of the joint at x."""
    a, d = CHAIN_SPAN, CHAIN_OFFSET
    inner = [np.array([x - a, d * np.cos(t), d * np.sin(t)]) for t in _ANGLES]
    outer = [np.array([x + a, d * np.cos(t + _TWIST), d * np.sin(t + _TWIST)]) for t in _ANGLES]
    return inner, outer


def chain(n, parameterization="quaternion"):
    """N bars hanging from ground, initially straight and horizontal along +x (released at
    rest under gravity −z): spherical joints at the bar ends, the first to ground at the
    origin, with three spring-dampers in parallel with every joint (rest length = initial
    length); a marker ``tip`` at the free end.  7 n coordinates, 4 n constraint equations
    (3 per joint, 1 Euler-parameter condition per bar), 3 n spring-dampers.
    ``parameterization="rotation"`` builds the bars as rotation-vector (Lie-group) bodies
    instead: 6 n increments, no Euler-parameter conditions.
    """
    m = Model(gravity=CHAIN_GRAVITY, name=f"chain-{n}")
    prev = GROUND
    for i in range(n):
        bar = m.rigid_body(f"bar{i + 1}", mass=BAR_MASS, inertia=BAR_INERTIA, position=((i + 0.5) * BAR_LENGTH, 0, 0),
                           parameterization=parameterization)
        x = i * BAR_LENGTH
        m.spherical(prev, bar, at=(x, 0.0, 0.0), name=f"joint{i + 1}")
        for s, (pi, pj) in enumerate(zip(*chain_spring_points(x))):
            m.spring_damper(prev, bar, at_i=pi, at_j=pj, k=CHAIN_K, c=CHAIN_C, name=f"spring{i + 1}_{s + 1}")
        prev = bar
    m.marker(prev, at=(n * BAR_LENGTH, 0.0, 0.0), name="tip")
    return m


def _chain(n, steps, h, tol, repeat=None, refresh="newton"):
    kc, kt = "bar centres at t_end [m]", "tip at t_end [m]"

    def answer(res):
        return {kc: _rows(res, res.system.model.bodies), kt: res["tip.position"][-1]}

    def peer():
        from . import exudyn_models as exm

        return exm.from_model(chain(n), steps, h, modified_newton=refresh != "newton")

    def peer_answer(p):
        return {kc: np.array([p.position(f"bar{i + 1}") for i in range(n)]),
                kt: p.point(f"bar{n}", (n * BAR_LENGTH, 0.0, 0.0))}

    def check(res):
        c = _rows(res, res.system.model.bodies)
        tip = res["tip.position"][-1]
        return (f"completed {res.success}; tip at ({tip[0]:.4f}, {tip[1]:.4f}, {tip[2]:.4f}) m; "
                f"lowest bar centre z {c[:, 2].min():.4f} m")

    mode = "" if refresh == "newton" else ", modified Newton (flexmbd refresh='step'; Exudyn's default)"
    return Benchmark(f"chain of {n} bars, spherical joints + 3 spring-dampers each, gravity, "
                     f"{steps} Newmark steps of {h} s{mode}",
                     lambda: chain(n), _simulate(steps, h, refresh=refresh), check, answer, peer, peer_answer,
                     {kc: tol, kt: tol}, repeat=repeat, family="chain" if refresh == "newton" else None, size=n,
                     steps=steps, h=h, variant=lambda f: _chain(n, steps * f, h / f, tol, repeat, refresh),
                     options=dict(refresh=refresh))


# Tolerances.  Both codes integrate the same index-3 Newmark equations; what differs is
# flexmbd's velocity projection after each step (the default for β = ¼, γ = ½; Exudyn
# has none) and the Newton tolerances.  With project_velocities=False flexmbd matches
# Exudyn to 5e-8 m (slider-crank) and 3e-10 m (chain-100).  Each tolerance is a fraction
# (≈ ⅓ or less) of the answer's change when h is halved (python -m benchmarks NAME
# --convergence; docs/performance.md), so an answer differing by a discretization error
# fails, and 5× or more above the difference actually seen.
BENCHMARKS = {
    "slider-crank-100": _slider_crank(100, 0.01, 1e-5),
    "slider-crank-100-modified": _slider_crank(100, 0.01, 1e-5, refresh="step"),
    "slider-crank-10000": _slider_crank(10000, 1e-4, 1e-7),
    "tensegrity-100": _tensegrity(100, 0.01, 1e-5),
    "chain-10": _chain(10, 1000, 1e-3, 5e-6),
    "chain-100": _chain(100, 300, 1e-3, 1e-6),
    "chain-100-modified": _chain(100, 300, 1e-3, 1e-6, refresh="step"),
    "chain-1000": _chain(1000, 20, 1e-3, 1e-7, repeat=2),
}
