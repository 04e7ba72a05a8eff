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
    static: bool = False                  # run() returns a StaticResult (steps = load steps)
    accept: Callable | None = None        # {quantity: array} -> (ok, verdict) against a stated reference;
                                          # applied to both codes' answers, a failure fails the row
    warm: Callable | None = None          # untimed warm-up of this benchmark's code paths (once per process)
    peer_accept: bool = True              # apply ``accept`` to the peer's answer too (False: the stated
                                          # reference is flexmbd's own run; the peer is judged by agreement)


def _simulate(steps, h, **options):
    """The timed run.  Multipliers as the index-3 Newton solution gives them (as Exudyn
    reports them): both codes do the same work; flexmbd's default adds one solve a step for
    second-order multipliers (docs/solvers/time-integration.md)."""
    options.setdefault("multipliers", "integrator")
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


def _slider_crank(steps, h, tol, refresh="newton", project=None):
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

    return Benchmark(f"P1 slider-crank (k = 2e4, c = 1e3), {steps} Newmark steps of {h} s{_mode(refresh, project)}",
                     lambda: slider_crank.build(k=k, c=c),
                     _simulate(steps, h, refresh=refresh, project_velocities=project), check, answer, peer,
                     peer_answer, {key: tol}, reference, steps=steps, h=h,
                     variant=lambda f: _slider_crank(steps * f, h / f, tol, refresh, project),
                     options=dict(refresh=refresh, project_velocities=project))


def _mode(refresh, project):
    """The description's note on the Newton policy and the velocity projection."""
    kept = "one Jacobian per step" if refresh == "step" else "the Jacobian kept across steps"
    out = "" if refresh == "newton" else f", modified Newton (flexmbd refresh={refresh!r}: {kept}; Exudyn's default)"
    return out + (", flexmbd without its velocity projection (as Exudyn)" if project is False else "")


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


def _chain(n, steps, h, tol, repeat=None, refresh="newton", project=None):
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

    return Benchmark(f"chain of {n} bars, spherical joints + 3 spring-dampers each, gravity, "
                     f"{steps} Newmark steps of {h} s{_mode(refresh, project)}",
                     lambda: chain(n), _simulate(steps, h, refresh=refresh, project_velocities=project), check,
                     answer, peer, peer_answer, {kc: tol, kt: tol}, repeat=repeat,
                     family="chain" if refresh == "newton" and project is None else None, size=n,
                     steps=steps, h=h, variant=lambda f: _chain(n, steps * f, h / f, tol, repeat, refresh, project),
                     options=dict(refresh=refresh, project_velocities=project))


# Tolerances.  Both codes integrate the same index-3 Newmark equations; what differs is
# flexmbd's velocity projection after each step (the default for β = ¼, γ = ½; Exudyn
# has none) and the Newton tolerances.  With project_velocities=False flexmbd matches
# Exudyn to 5e-8 m (slider-crank) and 3e-10 m (chain-100).  Each tolerance is a fraction
# (≈ ⅓ or less) of the answer's change when h is halved (python -m benchmarks NAME
# --convergence; docs/performance.md), so an answer differing by a discretization error
# fails, and 5× or more above the difference actually seen.
BENCHMARKS = {
    "slider-crank-100": _slider_crank(100, 0.01, 1e-5),
    "slider-crank-100-modified": _slider_crank(100, 0.01, 1e-5, refresh="contraction"),
    "slider-crank-10000": _slider_crank(10000, 1e-4, 1e-7),
    "tensegrity-100": _tensegrity(100, 0.01, 1e-5),
    "chain-10": _chain(10, 1000, 1e-3, 5e-6),
    "chain-100": _chain(100, 300, 1e-3, 1e-6),
    # the modified-Newton rows take the policy measured faster for each (docs/performance.md,
    # "Kept-matrix iterations", "The projection's own factorization"): both keep their matrix
    # across steps (contraction, faster in CPU time in every pair measured; the slider-crank
    # since its projection no longer refines with the Newton LU, kept or not)
    "chain-100-modified": _chain(100, 300, 1e-3, 1e-6, refresh="contraction"),
    "chain-1000": _chain(1000, 20, 1e-3, 1e-7, repeat=2),
}


# ---------------------------------------------------------------------------
# geometrically exact beams on SE(3) (P3)
# ---------------------------------------------------------------------------

#: P3's straight cantilever: ABAQUS B31 tip z under the tip force (30, 20, 400) N.
CANTILEVER_ABAQUS_Z = 0.5143
#: Exudyn ↔ flexmbd agreement on the tip z, relative to the ABAQUS value (stated by the
#: benchmark: two element formulations converging to the same continuum answer).
CANTILEVER_AGREEMENT = 2e-3


def _beam_warm_up():
    """Compile and load the SE(3) beam kernels (static and dynamic paths) on tiny models."""
    import flexmbd as fm
    from flexmbd.examples import p3_beams as P
    from flexmbd.verify.cases import beams as vb

    vb.solve(vb.cantilever("straight", 2, order=1)[0], steps=2)
    for pm in (P.crank_slider("II", elements=(1, 2)), P.double_pendulum("III", elements=(1, 2))):
        pm.model.simulate(t_end=3e-5 * 3, h=3e-5, integrator=fm.GeneralizedAlpha(0.8), convergence="increment",
                          tol=1e-6)


def _cantilever(n, rel_tol, repeat=None, formulation="se3", peer_model="cantilever", tolerance=None,
               peer_accept=True):
    """P3's straight cantilever (L = 1 m, 0.01 m square, E = 2.1e11, ν = 0.3) of ``n``
    elements of ``formulation`` (first-order SE(3) by default; ANCF cables are clamped by
    a revolute joint about the tangent, flexmbd.verify.cases.beams.cantilever), clamped at
    x = 0, tip force (30, 20, 400) N applied in 10 equal load steps; Newton until
    ‖Δx‖₂ < 1e-10 (flexmbd.verify.cases.beams.solve).  ``peer_model``: the Exudyn model's
    function in :mod:`benchmarks.exudyn_models`; ``tolerance``: the agreement per quantity
    (default: the SE(3) row's)."""
    from flexmbd.verify.cases import beams as vb

    kz, kd = "tip z [m]", "tip displacement [m]"
    tip = f"rod.n{n}.position"

    def build():
        return vb.cantilever("straight", n, formulation=formulation)[0]

    def answer(res):
        d = res[tip][-1] - np.array([1.0, 0.0, 0.0])
        return {kz: np.array([d[2]]), kd: d}

    def peer():
        from . import exudyn_models as exm

        return getattr(exm, peer_model)(n, load_steps=10)

    def peer_answer(p):
        d = p.node_position(n) - np.array([1.0, 0.0, 0.0])
        return {kz: np.array([d[2]]), kd: d}

    def accept(ans):
        z = float(ans[kz][0])
        err = abs(z - CANTILEVER_ABAQUS_Z) / CANTILEVER_ABAQUS_Z
        ok = err <= rel_tol
        return ok, (f"tip z {z:.5f} m vs ABAQUS B31 {CANTILEVER_ABAQUS_Z} m: {err:.1e} relative "
                    f"(tol {rel_tol:.0e}) {'ok' if ok else 'FAIL'}")

    def check(res):
        return accept(answer(res))[1] if res.success else f"FAILED: {res.message}"

    if tolerance is None:
        tolerance = {kz: CANTILEVER_AGREEMENT * CANTILEVER_ABAQUS_Z,
                     # both codes interpolate two-node elements on SE(3): the same discrete model,
                     # so the whole tip displacement agrees to the Newton tolerances (seen: 4e-8 m)
                     kd: 1e-6}
    else:
        tolerance = {kz: tolerance, kd: tolerance}
    if formulation == "se3":
        what = f"first-order SE(3) elements ({6 * n + 6} coordinates)"
    else:
        what = f"{formulation} elements ({(6 if formulation == 'ancf-cable' else 12) * (n + 1)} coordinates)"
    return Benchmark(f"P3 straight cantilever, {n} {what}, tip force (30, 20, 400) N, static, 10 load steps, "
                     f"Newton to ‖Δx‖ < 1e-10",
                     build, lambda m: vb.solve(m), check, answer, peer, peer_answer, tolerance,
                     lambda ans: accept(ans)[1], repeat=repeat,
                     family="cantilever" if formulation == "se3" else f"{formulation}-cantilever", size=n, steps=10,
                     static=True, accept=accept, warm=_beam_warm_up if formulation == "se3" else None,
                     peer_accept=peer_accept)


#: flexmbd ↔ Exudyn agreement of the double pendulum's arm II tip and elbow at t_end.
#: Seen: 1.9e-5 m (tip) and 1.8e-5 m (elbow) from flexmbd's h/4 reference, 3× flexmbd's own
#: time-discretization error at h (5.5e-6 m): a difference of the semi-discrete models
#: (Exudyn's element inertia on Euler-parameter nodes vs flexmbd's SE(3) element with its
#: consistent mass), not of the step or Newton tolerance (Exudyn at h/4 or with relative
#: tolerance 1e-10 moves by < 1e-6 m); the tolerance is 5× that, 10× below
#: the 1e-3 m at which the models would be considered different.
P3_PENDULUM_AGREEMENT = 1e-4


def _p3_dynamic(which, elements, t_end, h, refs, repeat=None):
    """P3's crank-slider (II) or double pendulum (III) of first-order SE(3) beams,
    generalized-α ρ∞ = 0.8, Newton until ‖Δq‖ < 1e-6 (P3's settings).  The double
    pendulum has an Exudyn peer (:func:`benchmarks.exudyn_models.double_pendulum`), judged
    by agreement only: the stated references are flexmbd's own h/4 run, with tolerances at
    flexmbd's discretization error."""
    import flexmbd as fm
    from flexmbd.examples import p3_beams as P

    builder = P.crank_slider if which in P.CRANK_SLIDER else P.double_pendulum
    options = dict(integrator=fm.GeneralizedAlpha(0.8), convergence="increment", tol=1e-6)
    steps = int(round(t_end / h))
    if which in P.CRANK_SLIDER:
        quantities = {"slider x at t_end [m]": lambda r: r["slider.position"][-1, :1],
                      "crank tip at t_end [m]": lambda r: r[f"crank.n{elements[0]}.position"][-1]}
    else:
        quantities = {"arm II tip at t_end [m]": lambda r: r[f"arm2.n{elements[1]}.position"][-1],
                      "elbow at t_end [m]": lambda r: r[f"arm1.n{elements[0]}.position"][-1]}

    def answer(res):
        return {k: np.asarray(f(res), float) for k, f in quantities.items()}

    def accept(ans):
        bad, worst = [], ""
        for k, (ref, tol) in refs.items():
            d = float(np.max(np.abs(np.asarray(ans[k]) - np.asarray(ref))))
            worst += f"{k}: |Δ| {d:.1e} (tol {tol:.0e}); "
            if not d <= tol:
                bad.append(k)
        return not bad, worst + ("ok" if not bad else f"FAIL {bad}")

    def check(res):
        return accept(answer(res))[1] if res.success else f"FAILED: {res.message}"

    peer = peer_answer = None
    tolerance = {}
    if which not in P.CRANK_SLIDER:
        def peer():
            from . import exudyn_models as exm

            return exm.double_pendulum(which, elements, t_end=t_end, h=h, rho_inf=0.8)

        def peer_answer(p):
            return {"arm II tip at t_end [m]": p.node_position(p.info["tip"]),
                    "elbow at t_end [m]": p.node_position(p.info["elbow"])}

        tolerance = {k: P3_PENDULUM_AGREEMENT for k in quantities}

    pm = builder(which, elements)
    return Benchmark(f"P3 {pm.name}, first-order SE(3) beams {elements} ({pm.dofs} DOF), generalized-α ρ∞ = 0.8, "
                     f"{steps} steps of {h} s (first {t_end} s of P3's run), Newton to ‖Δq‖ < 1e-6; checked against "
                     f"flexmbd's own run at h/4",
                     lambda: builder(which, elements).model, _simulate(steps, h, **options), check, answer,
                     peer, peer_answer, tolerance, repeat=repeat, peer_accept=False, steps=steps, h=h, options=options, accept=accept, warm=_beam_warm_up,
                     variant=lambda f: _p3_dynamic(which, elements, t_end, h / f, refs, repeat))


# ---------------------------------------------------------------------------
# ANCF beams (issue: P3 part 2)
# ---------------------------------------------------------------------------

#: flexmbd ↔ Exudyn agreement of the ANCF cable cantilever's tip: the same cubic Hermite
#: element and clamp, but the bending strain differs in its normalisation by |r′| (flexmbd
#: κ = |r′ × r″|/|r′|³; seen: 1.6e-5 m at 32 elements, the size of the axial strain ≈ 2e-5
#: times the deflection); the tolerance is 3× that.
ANCF_CABLE_AGREEMENT = 5e-5


#: flexmbd's fully parameterized ANCF beam ↔ Exudyn's ObjectANCFBeam: different elements
#: (a continuum element with 12 coordinates per node and the strain split against Exudyn's
#: section-based element with r, r_y, r_z per node), so they agree only within the peer's
#: discretization error at this mesh (seen: Exudyn's tip z 0.5216 m at 32 elements, 1.4 %
#: from ABAQUS and from flexmbd's 0.5139); flexmbd's answer is checked against ABAQUS.
ANCF_BEAM_AGREEMENT = 1e-2


#: The cable double pendulum's arm II tip and elbow at t_end, flexmbd and Exudyn: the
#: same semi-discrete model (cubic Hermite cables, consistent mass, spherical joints of node
#: positions) and integrator; seen: equal to 1e-8 m at (6, 10) elements.
ANCF_PENDULUM_AGREEMENT = 1e-6


def _ancf_cable_pendulum(elements, t_end, h, repeat=None):
    """P3's Model III double pendulum with ANCF cable arms (the torsion-free model of the
    same arms): generalized-α ρ∞ = 0.8, Newton to ‖Δq‖ < 1e-6."""
    import flexmbd as fm
    from flexmbd.examples import p3_beams as P

    options = dict(integrator=fm.GeneralizedAlpha(0.8), convergence="increment", tol=1e-6)
    steps = int(round(t_end / h))
    quantities = {"arm II tip at t_end [m]": lambda r: r[f"arm2.n{elements[1]}.position"][-1],
                  "elbow at t_end [m]": lambda r: r[f"arm1.n{elements[0]}.position"][-1]}

    def answer(res):
        return {k: np.asarray(f(res), float) for k, f in quantities.items()}

    def check(res):
        if not res.success:
            return f"FAILED: {res.message}"
        return "answers compared with Exudyn's (same semi-discrete model)"

    def peer():
        from . import exudyn_models as exm

        return exm.ancf_cable_double_pendulum(elements, t_end=t_end, h=h, rho_inf=0.8)

    def peer_answer(p):
        return {"arm II tip at t_end [m]": p.node_position(p.info["tip"]),
                "elbow at t_end [m]": p.node_position(p.info["elbow"])}

    pm = P.double_pendulum("III", elements, formulation="ancf-cable")
    return Benchmark(f"P3 Model III double pendulum of ANCF cables {elements} ({pm.dofs} coordinates), "
                     f"generalized-α ρ∞ = 0.8, {steps} steps of {h} s, Newton to ‖Δq‖ < 1e-6",
                     lambda: P.double_pendulum("III", elements, formulation="ancf-cable").model,
                     _simulate(steps, h, **options), check, answer, peer, peer_answer,
                     {k: ANCF_PENDULUM_AGREEMENT for k in quantities}, repeat=repeat, steps=steps, h=h,
                     options=options, variant=lambda f: _ancf_cable_pendulum(elements, t_end, h / f, repeat))


#: Reference answers of the P3 dynamic rows: flexmbd's own run of the same mesh and
#: settings at h/4 (``refine(name, 4)``; commit a95d715), as (value, tolerance).  The
#: answer at h differs from these by the time-discretization error at h: seen 1.0e-4 m
#: (slider x), 8.6e-5 m (crank tip), 5.5e-6 m (arm II tip), 1.9e-7 m (elbow); the
#: tolerances are 3-5× those, so a change of the model, the element or the integrator
#: beyond the discretization error fails.  (The crank's angular speed is not used: the
#: flexible crank's first node vibrates, its ω_z at t_end changes by 5 % from h to h/2.)
P3_REFS = {
    "II": {"slider x at t_end [m]": ([0.6957753493695588], 5e-4),
           "crank tip at t_end [m]": ([0.23290574940429667, 0.18909007570069347, 0.0], 5e-4)},
    "III": {"arm II tip at t_end [m]": ([0.3178539759691919, 0.49339194722758767, -0.17667376106117247], 2e-5),
            "elbow at t_end [m]": ([0.21651961421307794, 0.00956079912946484, -0.2073688681536163], 1e-6)},
}

BENCHMARKS.update({
    "cantilever-16": _cantilever(16, 2e-3),
    "cantilever-64": _cantilever(64, 1e-3),
    "cantilever-256": _cantilever(256, 1e-3),
    "p3-model-II-300": _p3_dynamic("II", (18, 30), 0.02, 3e-5, P3_REFS["II"], repeat=2),
    "p3-model-III": _p3_dynamic("III", (9, 15), 0.2, 5e-4, P3_REFS["III"], repeat=3),
    "ancf-cable-cantilever-32": _cantilever(32, 1e-3, formulation="ancf-cable", peer_model="ancf_cable_cantilever",
                                             tolerance=ANCF_CABLE_AGREEMENT),
    "ancf-cantilever-32": _cantilever(32, 1e-3, formulation="ancf", peer_model="ancf_beam_cantilever",
                                      tolerance=ANCF_BEAM_AGREEMENT, peer_accept=False),
    "ancf-cable-pendulum": _ancf_cable_pendulum((6, 10), 0.2, 5e-4, repeat=3),
})


# ---------------------------------------------------------------------------
# floating-frame modal bodies (issue 14: modal bodies from FE data, modal beams)
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def fe_truss():
    """The FE data of the modal-body rows: the space-truss cantilever of
    :mod:`flexmbd.bodies.fe_lattice` (20 bays, 84 nodes, 1 m, E = 7e10, 1e-5 m² bars, 0.05 kg
    nodes) with Craig-Bampton modes of its root section (6 static + 4 fixed-interface
    modes), computed once and given to both codes."""
    from flexmbd.bodies.fe_data import check_fe_data, normalised, select_modes
    from flexmbd.bodies.fe_lattice import truss_beam

    fe = truss_beam(length=1.0, bays=20, width=0.05, E=7e10, area=1e-5, node_mass=0.05)
    data = {k: fe[k] for k in ("nodes", "mass", "stiffness")}
    modes = normalised(select_modes(check_fe_data(data), 4, "craig-bampton", fe["root"])[0])
    return dict(data, modes=modes, root=fe["root"], tip=fe["tip"])


def fe_modal_body_model(force=(0.0, 0.0, -0.5)):
    """The truss (:func:`fe_truss`) as a modal body held at its four root nodes by
    spherical joints to ground, a step load ``force`` shared by the four tip nodes, no
    gravity."""
    d = fe_truss()
    m = Model(name="fe-modal-body")
    b = m.modal(name="b", data={k: d[k] for k in ("nodes", "mass", "stiffness", "modes")}, mode_type="file")
    for k in d["root"]:
        m.spherical(GROUND, b, at=b.node_position(int(k)), name=f"r{k}")
    for k in d["tip"]:
        m.force(b, tuple(f / len(d["tip"]) for f in force), at=b.node_position(int(k)), name=f"f{k}")
    return m


def _fe_modal_body(steps, h, tol, force=(0.0, 0.0, -0.5)):
    """The modal body from FE data against Exudyn's ObjectFFRFreducedOrder on the same FE
    data and modes: the same semi-discrete equations (FFR inertia of the nodes' lumped and
    consistent mass, modal stiffness), index-3 Newmark in both."""
    from flexmbd.solvers.integrators import Newmark

    key = "tip z displacement history [m]"

    def answer(res):
        z = res["b.node_positions"][:, fe_truss()["tip"], 2].mean(axis=1)
        return {key: z - z[0]}

    def peer():
        from . import exudyn_models as exm

        return exm.fe_modal_body(fe_truss(), steps, h, force)

    def peer_answer(p):
        z = p.sensor("tip")[:, 3]
        return {key: z - z[0]}

    def check(res):
        z = answer(res)[key]
        return f"completed {res.success}; tip z: peak {z.min():.4e} m, at t_end {z[-1]:.4e} m"

    return Benchmark(f"modal body from FE data (truss, 84 nodes, 10 Craig-Bampton modes), root held by 4 spherical "
                     f"joints, step tip load, {steps} Newmark steps of {h} s{_mode('newton', False)}",
                     fe_modal_body_model, _simulate(steps, h, integrator=Newmark(), project_velocities=False), check,
                     answer, peer, peer_answer, {key: tol}, steps=steps, h=h,
                     options=dict(integrator=Newmark(), project_velocities=False),
                     variant=lambda f: _fe_modal_body(steps * f, h / f, tol, force))


def modal_beam_points(kind, section, ends=True):
    """Lumped mass points that carry a modal beam's shape integrals exactly, for a peer that
    takes FE data (nodes, mass, mode shapes): at each point s_k of the Gauss rule of
    :func:`flexmbd.bodies.modal_beam.beam_invariants` (weight w_k), four points in the section
    at (±c_y, 0) and (0, ±c_z), each of mass ρA w_k / 4, with c_y² = 2 ρI₃/ρA and
    c_z² = 2 ρI₂/ρA: Σ m π πᵀ over them is ρA π₀π₀ᵀ + ρI₃ π_yπ_yᵀ + ρI₂ π_zπ_zᵀ, the beam's
    W (the mode shapes are linear in y, z).  ``ends``: massless points at the beam's start
    and end, first and last (joint points).  Linear kinematics only (no foreshortening).
    Returns nodes (N, 3), mass (3N, 3N), modes (3N, n) and the modal stiffness K (n, n)."""
    from flexmbd.bodies.modal_beam import beam_invariants
    from flexmbd.nodes.beam_modes import gauss_rule

    if kind.pairs:
        raise ValueError("modal_beam_points: the foreshortening is not a linear mode shape")
    s, w = gauss_rule(kind.length, max(kind.counts + (1,)))
    cy, cz = np.sqrt(2.0 * section.rhoI3 / section.rhoA), np.sqrt(2.0 * section.rhoI2 / section.rhoA)
    offsets = np.array([[0.0, cy, 0.0], [0.0, -cy, 0.0], [0.0, 0.0, cz], [0.0, 0.0, -cz]])
    pts = (np.c_[kind.start + s, np.zeros((len(s), 2))][:, None, :] + offsets[None]).reshape(-1, 3)
    mass = np.repeat(section.rhoA * w / 4.0, 4)
    if ends:
        tips = np.array([[kind.start, 0.0, 0.0], [kind.start + kind.length, 0.0, 0.0]])
        pts = np.vstack([tips[:1], pts, tips[1:]])
        mass = np.r_[0.0, mass, 0.0]
    modes = kind.shape_matrix(pts).reshape(-1, kind.n) if kind.n else np.zeros((3 * len(pts), 0))
    K = beam_invariants(kind, section)["K"]
    return dict(nodes=pts, mass=np.diag(np.repeat(mass, 3)), modes=modes, K=K)


#: the modal-beam peer rows' hub speed: the linear floating frame (both codes' model here:
#: Exudyn's FFR body has no geometric stiffening) stays stable below the first bending
#: frequency, 3.5 rad/s (the classic Ω = 4 rad/s diverges without stiffening)
SPIN_PEER_OMEGA = 2.0


def _ffr_spin_up(steps, h, tol, modes=3, omega=SPIN_PEER_OMEGA):
    """The spin-up beam (flexmbd.examples.ffr_beams) as a linear modal beam
    (``geometric_stiffening: none``), against Exudyn's ObjectFFRFreducedOrder on the beam's
    own Gauss points (:func:`modal_beam_points`): the same semi-discrete equations."""
    from flexmbd.examples.ffr_beams import T_UP, spin_up_model

    key = "tip deflection history in the hub frame [m]"

    def build():
        return spin_up_model("modal", stiffening=False, modes=modes, omega=omega)

    def _kind():
        return build().bodies[0].kind

    def answer(res):
        return {key: res["b.tip_deflection"][:, 1]}

    def peer():
        from flexmbd.examples.ffr_beams import SPIN_SECTION

        from . import exudyn_models as exm

        return exm.ffr_spin_up(modal_beam_points(_kind(), SPIN_SECTION, ends=False), steps, h, omega, T_UP)

    def peer_answer(p):
        kind = _kind()
        S = kind.shape_matrix(np.array([[kind.start + kind.length, 0.0, 0.0]]))[0]
        return {key: p.sensor("eta")[:, 1:] @ S[1]}

    def check(res):
        tip = answer(res)[key]
        return f"completed {res.success}; tip deflection: peak {np.abs(tip).max():.4f} m, at t_end {tip[-1]:+.4f} m"

    return Benchmark(f"spin-up beam (hub to {omega} rad/s in {T_UP} s), linear modal beam ({modes} bending modes, "
                     f"no geometric stiffening: Exudyn's FFR body has none), {steps} Newmark steps of {h} s"
                     f"{_mode('newton', False)}",
                     build, _simulate(steps, h, project_velocities=False), check, answer, peer, peer_answer, {key: tol},
                     steps=steps, h=h, options=dict(project_velocities=False),
                     variant=lambda f: _ffr_spin_up(steps * f, h / f, tol, modes, omega))


#: the flexible chain's links: aluminium 10 mm × 10 mm, 0.5 m, pinned-pinned modes
#: (frame through both ends), 2 bending modes across gravity and 1 in the other plane
FFR_CHAIN_LENGTH = 0.5
FFR_CHAIN_KEYS = ("frame origins at t_end [m]", "tip at t_end [m]")
FFR_CHAIN_MODES = dict(bending_y=1, bending_z=2)


def ffr_chain_section():
    from flexmbd.beams.sections import Section

    return Section.rectangle(0.01, 0.01, E=7e10, nu=0.33, rho=2700.0)


def ffr_chain(n):
    """``n`` linear modal beams (:data:`FFR_CHAIN_MODES`, no geometric stiffening) in a row
    along +x, spherical joints at their ends (the first to ground at the origin), released
    straight from rest under gravity −z; a marker ``tip`` at the free end."""
    m = Model(gravity=(0.0, 0.0, -9.81), name=f"ffr-chain-{n}")
    prev = GROUND
    for i in range(n):
        b = m.modal_beam(name=f"b{i + 1}", length=FFR_CHAIN_LENGTH, section=ffr_chain_section(), ends="pinned-pinned",
                         modes=FFR_CHAIN_MODES, position=(i * FFR_CHAIN_LENGTH, 0.0, 0.0),
                         geometric_stiffening="none")
        m.spherical(prev, b, at=(i * FFR_CHAIN_LENGTH, 0.0, 0.0), name=f"joint{i + 1}")
        prev = b
    m.marker(prev, at=(n * FFR_CHAIN_LENGTH, 0.0, 0.0), name="tip")
    return m


def _ffr_chain(n, steps, h, tol: dict):
    """The flexible chain (:func:`ffr_chain`) against Exudyn's ObjectFFRFreducedOrder bodies
    on the beams' own Gauss points (:func:`modal_beam_points`): the same semi-discrete model."""
    kc, kt = FFR_CHAIN_KEYS

    def answer(res):
        return {kc: _rows(res, res.system.model.bodies), kt: res["tip.position"][-1]}

    def peer():
        from . import exudyn_models as exm

        kind = ffr_chain(1).bodies[0].kind
        return exm.ffr_chain(modal_beam_points(kind, ffr_chain_section()), n, FFR_CHAIN_LENGTH, steps, h,
                             (0.0, 0.0, -9.81))

    def peer_answer(p):
        return {kc: np.array([p.sensor(f"b{i + 1}")[-1, 1:] for i in range(n)]), kt: p.sensor("tip")[-1, 1:]}

    def check(res):
        tip = res["tip.position"][-1]
        return f"completed {res.success}; tip at ({tip[0]:.4f}, {tip[1]:.4f}, {tip[2]:.4f}) m"

    return Benchmark(f"chain of {n} modal beams (aluminium 0.5 m, 3 modes each, linear), spherical joints, gravity, "
                     f"{steps} Newmark steps of {h} s{_mode('newton', False)}", lambda: ffr_chain(n),
                     _simulate(steps, h, project_velocities=False), check, answer, peer, peer_answer, tol, steps=steps,
                     h=h, options=dict(project_velocities=False), variant=lambda f: _ffr_chain(n, steps * f, h / f, tol))


# Tolerances of the floating-frame rows (flexmbd without its velocity projection, as
# Exudyn: the same index-3 Newmark equations; `python -m benchmarks NAME --convergence`):
# * fe-modal-body: seen 9e-16 m (the same discrete model and integrator, a nearly linear
#   response); the answer changes by 5.9e-8 m when h is halved: 1e-9 m.
# * ffr-spin-up: seen 2.6e-5 m of a 0.23 m peak, growing while the hub accelerates and
#   falling with h (1.9e-5 at h/2, 2.9e-6 at h/4): an O(h²) difference between the two
#   codes' steps of the driven frame, a quarter of flexmbd's own time-discretization error
#   (the answer moves by 7.8e-5 m from h to h/2, 9.7e-5 m to h/4).  5e-5 m: two times the
#   difference seen, below the discretization error; a change of the model (modes, mass,
#   the drive, the stiffening) moves it by far more (the foreshortening: 4.2e-2 m; peak
#   0.207 m against the linear 0.230 m).
# * ffr-chain-10: seen 2.5e-7 m (frame origins), 8.7e-8 m (tip), falling as h² (6e-8,
#   2e-8 at h/2); the answers change by 9.3e-6 m and 3.8e-6 m when h is halved: 1.5e-6 m
#   and 1e-6 m.  (Exudyn's mass-proportional load on this body takes the weight's moment
#   about the undeformed centre of mass, 2.4e-6 m away from the exact weight here; the peer
#   carries the weight on a massless node instead, exactly: exudyn_models.ffr_chain.)
BENCHMARKS.update({
    "fe-modal-body": _fe_modal_body(400, 2.5e-4, 1e-9),
    "ffr-spin-up": _ffr_spin_up(1000, 0.02, 5e-5),
    "ffr-chain-10": _ffr_chain(10, 500, 1e-3, dict(zip(FFR_CHAIN_KEYS, (1.5e-6, 1e-6)))),
})
