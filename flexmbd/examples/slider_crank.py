"""P1 example 1: slider-crank with a spring-damper-actuator (Kan, Peng & Chen 2017).

The figure of P1 is lost; flexmbd assumes (PAPERS.md): crank 45° above +x, link 2 down to
the slider on the x axis, spring rest length = initial length.  Links: 2 m, 50 kg,
15 kg m² transverse and 0.02 kg m² axial; slider 1 kg, 1 kg m²; 1 kN on the slider
along +x; SDA between the centres of mass of the two links; no gravity; at rest.
All three bodies are spatial (Euler parameters) and all joints spatial, so the planar
mechanism has three redundant constraint equations, which the assembly removes.
"""
from __future__ import annotations

import numpy as np

from .. import GROUND, Model
from ..rotations import quaternion_from_axis_angle
from .registry import example

LENGTH = 2.0
LINK_MASS = 50.0
LINK_INERTIA = (0.02, 15.0, 15.0)  # axial (body x along the link), transverse, transverse
SLIDER_MASS = 1.0
SLIDER_INERTIA = (1.0, 1.0, 1.0)
FORCE = 1000.0
CRANK_ANGLE = np.pi / 4


def build(k=2e4, c=0.0, actuator=0.0, parameterization="quaternion"):
    """The P1 slider-crank as a :class:`Model` (bodies 'crank', 'link', 'slider').

    ``parameterization`` of the bodies: "quaternion" (P1's Euler parameters) or "rotation"
    (rotation-vector increments, :data:`~flexmbd.nodes.ROTATION`)."""
    par = dict(parameterization=parameterization)
    L, phi = LENGTH, CRANK_ANGLE
    A = L * np.array([np.cos(phi), np.sin(phi), 0.0])
    B = np.array([2 * L * np.cos(phi), 0.0, 0.0])
    m = Model(name="slider-crank-sda")
    crank = m.rigid_body("crank", mass=LINK_MASS, inertia=LINK_INERTIA, position=A / 2,
                         orientation=quaternion_from_axis_angle((0, 0, 1), phi), **par)
    link = m.rigid_body("link", mass=LINK_MASS, inertia=LINK_INERTIA, position=(A + B) / 2,
                        orientation=quaternion_from_axis_angle((0, 0, 1), -phi), **par)
    slider = m.rigid_body("slider", mass=SLIDER_MASS, inertia=SLIDER_INERTIA, position=B, **par)
    z = (0, 0, 1)
    m.revolute(GROUND, crank, at=(0, 0, 0), axis=z, name="crank_pin")
    m.revolute(crank, link, at=A, axis=z, name="elbow")
    m.revolute(link, slider, at=B, axis=z, name="wrist")
    m.prismatic(GROUND, slider, at=B, axis=(1, 0, 0), name="slide")
    m.spring_damper(crank, link, k=k, c=c, actuator=actuator, name="sda")
    m.force(slider, (FORCE, 0, 0), name="push")
    return m


@example("slider-crank-sda", "P1 slider-crank with a spring-damper-actuator: Newmark, exact Jacobian, vs minimal coordinates")
def run(out_dir, quiet=False):
    """Run the P1 slider-crank (k = 2e4 N/m, c = 1e3 N s/m), print a summary, plot."""
    import warnings

    from ..verify.references import slider_crank_minimal

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=2e4, c=1e3).simulate(t_end=1.0, h=0.01)
    ref = slider_crank_minimal(2e4, 1e3, t_end=1.0)
    x = res["slider.position"][:, 0]
    err = float(np.max(np.abs(x - ref.slider_x(res.t))))
    if not quiet:
        print("P1 slider-crank with a spring-damper-actuator (k = 2e4 N/m, c = 1e3 N s/m), Newmark h = 0.01 s")
        print(res.summary())
        print(f"slider position at t = 1 s: {x[-1]:.6f} m (minimal-coordinate reference {ref.slider_x(1.0):.6f} m)")
        print(f"max |slider x − reference| over 1 s: {err:.2e} m")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    axes[0].plot(res.t, x, label="flexmbd")
    tt = np.linspace(0, 1, 400)
    axes[0].plot(tt, ref.slider_x(tt), "--", label="minimal coordinates (scipy)")
    axes[0].set_ylabel("slider x [m]")
    axes[0].legend()
    axes[1].plot(res.t[1:], res.stats["iterations"][1:], "o-", ms=3)
    axes[1].set_ylabel("Newton iterations")
    axes[1].set_xlabel("time [s]")
    fig.tight_layout()
    path = out_dir / "slider_crank_sda.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    if not quiet:
        print(f"plot written to {path}")
    return {"slider_x_end": float(x[-1]), "max_error": err, "mean_iterations": res.mean_iterations(),
            "max_iterations": res.max_iterations(), "plot": str(path)}


#: P1's two studies: (k, c) pairs and the Jacobian used without the SDA part.
STUDY_A = [(k, 0.0) for k in (1e2, 1e3, 1e4, 1e5, 1e6)]
STUDY_B = [(2e4, c) for c in (1e1, 1e2, 1e3, 1e4)]


def jacobian_study(cases, without, h=0.01, steps=100, tol=1e-7, max_iter=50):
    """P1's iteration study: each (k, c) with the full Newton matrix and with ``without``.

    Returns one dict per run: k, c, jacobian, success, mean and max iterations per step,
    total Newton iterations and wall time.
    """
    import warnings

    rows = []
    for k, c in cases:
        for jac in ("full", without):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = build(k=k, c=c).simulate(t_end=steps * h, h=h, jacobian=jac, tol=tol, max_iter=max_iter,
                                               convergence="residual", multipliers="integrator")   # P1's scheme
            rows.append(dict(k=k, c=c, jacobian="M1+M2+M3" if jac == "full" else jac, success=res.success,
                             mean_iterations=res.mean_iterations(), max_iterations=res.max_iterations(),
                             iterations=int(res.stats["iterations"].sum()), seconds=res.wall_time,
                             substeps=int(res.stats["substeps"][1:].sum()), steps=res.steps))
    return rows


def format_study(rows):
    """A Markdown table of :func:`jacobian_study` rows."""
    out = ["| k [N/m] | c [N s/m] | Newton matrix | completed | mean it./step | max it./step | total it. | time [s] |",
           "|---:|---:|---|---|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['k']:.0e} | {r['c']:.0e} | {r['jacobian']} | {'yes' if r['success'] else 'no'} | "
                   f"{r['mean_iterations']:.2f} | {r['max_iterations']} | {r['iterations']} | {r['seconds']:.3f} |")
    return "\n".join(out)
