"""Reference comparisons for the P1 slider-crank with a spring-damper-actuator."""
from __future__ import annotations

import warnings

import numpy as np

from ...examples.slider_crank import STUDY_A, STUDY_B, build, jacobian_study
from ..references import slider_crank_minimal
from ..registry import case, compare

MINIMAL = "minimal coordinates (Lagrange, solve_ivp DOP853 rtol 1e-10)"


def _slider_error(h, k=2e4, c=1e3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=k, c=c).simulate(t_end=1.0, h=h)
    ref = slider_crank_minimal(k, c, t_end=1.0)
    return float(np.max(np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t)))), res


@case("slider-crank-trajectory", description="P1 slider-crank vs one-coordinate Lagrange solution; order of accuracy")
def trajectory():
    errs = {h: _slider_error(h)[0] for h in (4e-3, 2e-3, 1e-3)}
    order = np.log2(errs[2e-3] / errs[1e-3])
    case_ = "slider-crank-trajectory"
    return [
        compare(case_, "max |x_slider − x_ref| over 1 s, h = 1e-3", 1e-5, errs[1e-3], unit="m", tolerance=0.0,
                source=MINIMAL + "; issue bound 1e-5 m", mode="max"),
        compare(case_, "observed order of accuracy (h = 2e-3 → 1e-3)", 2.0, order, tolerance=0.1,
                source="Newmark β = ¼, γ = ½ is second order"),
    ]


def _study_rows(case_, rows, varied, source):
    out = []
    for r in rows:
        label = f"{varied} = {r[varied]:.0e}"
        if r["jacobian"] == "M1+M2+M3":
            out.append(compare(case_, f"max Newton iterations per step, exact Jacobian, {label}", 4,
                               r["max_iterations"] if r["success"] else np.nan, tolerance=0.0,
                               source=source + " (P1: 3 per step)", mode="max"))
    full = [r for r in rows if r["jacobian"] == "M1+M2+M3"]
    part = [r for r in rows if r["jacobian"] != "M1+M2+M3"]
    # without the SDA part the iterations grow with the varied parameter (or the run fails)
    cost = [r["mean_iterations"] if r["success"] else np.inf for r in part]
    out.append(compare(case_, f"mean iterations without SDA part grow with {varied} (last/first)", 1.0,
                       cost[-1] / cost[0], tolerance=0.0, source=source + ": iterations grow with " + varied,
                       mode="min"))
    out.append(compare(case_, f"mean iterations with exact Jacobian stay flat across {varied} (max/min)", 1.5,
                       max(r["mean_iterations"] for r in full) / min(r["mean_iterations"] for r in full),
                       tolerance=0.0, source=source, mode="max"))
    return out


@case("slider-crank-study-a", description="P1 study A: k swept (c = 0), with and without ∂Q/∂q")
def study_a():
    rows = jacobian_study(STUDY_A, without="M1+M3")
    return _study_rows("slider-crank-study-a", rows, "k", "P1 example 1, study A")


@case("slider-crank-study-b", description="P1 study B: c swept (k = 2e4), with and without ∂Q/∂q'")
def study_b():
    rows = jacobian_study(STUDY_B, without="M1+M2")
    return _study_rows("slider-crank-study-b", rows, "c", "P1 example 1, study B")
