"""Error-controlled steps: global error against rtol, and steps against a fixed step of the
same accuracy on a problem with a fast transient (docs/solvers/time-integration.md,
"Error-controlled steps").

    python -m benchmarks.adaptive_study        # docs/adaptive_study.png and the tables

Problems, each against an independent reference:
* the simple pendulum released at 90° (5 s; θ'' = −g/L sin θ, scipy DOP853 at 1e-13);
* the heavy top released with spin only (2 s, generalized-α 0.9; Lagrange's equations in
  ZXZ Euler angles, flexmbd/verify/references.py);
* P1's slider-crank (1 s; one-coordinate Lagrange solution);
* the pendulum at 0.3 rad struck by a 10 ms horizontal force pulse at t = 1 s (3 s): the
  fast transient, where fixed steps must be small all along.
Errors: the largest over the run, relative to the pendulum length, the top's centre-of-mass
distance, the slider's largest position.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

import flexmbd as fm
import flexmbd.verify.cases.conservative as C
from flexmbd.examples.slider_crank import build
from flexmbd.verify.references import heavy_top_minimal_ode, slider_crank_minimal

DOCS = Path(__file__).resolve().parents[1] / "docs"
RTOLS = (1e-3, 1e-4, 1e-5, 1e-6)

# ------------------------------------------------------------------ the fast transient
KICK_T0, KICK_WIDTH, KICK_FORCE, KICK_T_END, KICK_AMPLITUDE = 1.0, 0.01, 400.0, 3.0, 0.3


def _pulse(t, derivative=0):
    """A sin² force pulse of KICK_WIDTH from KICK_T0 (C¹), and its derivatives."""
    s = (t - KICK_T0) / KICK_WIDTH
    if not 0.0 < s < 1.0:
        return 0.0
    w = np.pi / KICK_WIDTH
    return KICK_FORCE * (np.sin(np.pi * s) ** 2, w * np.sin(2 * np.pi * s), 2 * w * w * np.cos(2 * np.pi * s))[derivative]


def kicked_pendulum() -> fm.Model:
    m = C.simple_pendulum(KICK_AMPLITUDE)
    m.force("bob", (1.0, 0.0, 0.0), scale=fm.UserFunction(_pulse, df=lambda t: _pulse(t, 1),
                                                          ddf=lambda t: _pulse(t, 2)), name="kick")
    return m


def pendulum_reference(amplitude, t_end, force=None):
    L, g = C.PENDULUM_LENGTH, C.G

    def rhs(t, y):
        extra = force(t) * np.cos(y[0]) / L if force is not None else 0.0   # unit mass
        return [y[1], -g / L * np.sin(y[0]) + extra]

    sol = solve_ivp(rhs, (0.0, t_end), [amplitude, 0.0], method="DOP853", rtol=1e-13, atol=1e-13,
                    dense_output=True, max_step=1e-3)
    return lambda t: (lambda th: np.c_[L * np.sin(th), -L * np.cos(th)])(sol.sol(t)[0])


def _pendulum_error(res, ref):
    return float(np.abs(res["bob.position"][:, :2] - ref(res.t)).max() / C.PENDULUM_LENGTH)


# ------------------------------------------------------------------ the runs
def pendulum(rtol, ref=None):
    ref = ref or pendulum_reference(np.pi / 2, 5.0)
    res = C.simple_pendulum(np.pi / 2).simulate(t_end=5.0, h=0.05, rtol=rtol)
    return _pendulum_error(res, ref), res.adaptive["accepted"]


def heavy_top(rtol, t_end=2.0):
    model = C.heavy_top(*C.top_state_from_euler(C.NUTATING_EULER0, C.NUTATING_RATES0))
    res = model.simulate(t_end=t_end, h=0.01, rtol=rtol, integrator=fm.GeneralizedAlpha(0.9))
    ref = heavy_top_minimal_ode(*C.top_parameters(), C.NUTATING_EULER0, C.NUTATING_RATES0, t_end, g=C.G,
                                t_eval=res.t)
    return float(np.linalg.norm(res["top.position"] - ref.com, axis=1).max() / C.TOP_COM), res.adaptive["accepted"]


def slider_crank(rtol, ref=None):
    ref = ref or slider_crank_minimal(2e4, 1e3, t_end=1.0, rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=2e4, c=1e3).simulate(t_end=1.0, h=0.01, rtol=rtol)
    x = ref.slider_x(res.t)
    return float(np.abs(res["slider.position"][:, 0] - x).max() / np.abs(x).max()), res.adaptive["accepted"]


def kicked(rtol=None, h=None, ref=None):
    """Error and steps of the kicked pendulum: error-controlled (output every 2 ms) or fixed h."""
    ref = ref or pendulum_reference(KICK_AMPLITUDE, KICK_T_END, _pulse)
    if rtol is not None:
        res = kicked_pendulum().simulate(t_end=KICK_T_END, h=2e-3, rtol=rtol)
        return _pendulum_error(res, ref), res.adaptive["accepted"]
    res = kicked_pendulum().simulate(t_end=KICK_T_END, h=h)
    return _pendulum_error(res, ref), res.steps


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    refs = dict(pendulum=pendulum_reference(np.pi / 2, 5.0),
                slider=slider_crank_minimal(2e4, 1e3, t_end=1.0, rtol=1e-12, atol=1e-12),
                kick=pendulum_reference(KICK_AMPLITUDE, KICK_T_END, _pulse))
    rows = {"pendulum 90°": [pendulum(r, refs["pendulum"]) for r in RTOLS],
            "heavy top": [heavy_top(r) for r in RTOLS],
            "P1 slider-crank": [slider_crank(r, refs["slider"]) for r in RTOLS],
            "kicked pendulum": [kicked(r, ref=refs["kick"]) for r in RTOLS]}
    fixed = [kicked(h=h, ref=refs["kick"]) for h in (1e-3, 5e-4, 2.5e-4, 1.25e-4)]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    r = np.array(RTOLS)
    for name, vals in rows.items():
        ax.loglog(r, [v[0] for v in vals], "o-", label=name)
    ax.loglog(r, r, "k--", lw=0.8, label="error = rtol")
    ax.set_xlabel("rtol")
    ax.set_ylabel("largest error over the run (relative)")
    ax.set_title("global error against the tolerance")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    bx.loglog([v[1] for v in rows["kicked pendulum"]], [v[0] for v in rows["kicked pendulum"]], "o-",
              label="error-controlled (rtol 1e-3 … 1e-6)")
    bx.loglog([v[1] for v in fixed], [v[0] for v in fixed], "s--", label="fixed h (1e-3 … 1.25e-4 s)")
    bx.set_xlabel("steps")
    bx.set_ylabel("largest error (relative to L)")
    bx.set_title("pendulum struck by a 10 ms pulse: steps for an accuracy")
    bx.grid(True, which="both", alpha=0.3)
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(DOCS / "adaptive_study.png", dpi=110)
    print(f"wrote {DOCS / 'adaptive_study.png'}")
    print("rtol      " + "".join(f"{name:>26s}" for name in rows))
    for i, rt in enumerate(RTOLS):
        print(f"{rt:8.0e}  " + "".join(f"   {rows[n][i][0]:.2e} ({rows[n][i][0] / rt:4.2f}) {rows[n][i][1]:6d}" for n in rows))
    print("fixed h on the kicked pendulum: " + ", ".join(f"h {h:g}: {e:.2e} in {n} steps"
                                                      for h, (e, n) in zip((1e-3, 5e-4, 2.5e-4, 1.25e-4), fixed)))


if __name__ == "__main__":
    main()
