"""Reference comparisons for rotation-vector (Lie-group) bodies, kind ``spatial-lie``.

The P1 slider-crank and the nutating heavy top built with
``rigid_body(parameterization="rotation")`` against the minimal-coordinate references
and against the Euler-parameter runs (see docs/verification-conservative.md,
"Rotation-vector bodies").
"""
from __future__ import annotations

import warnings

import numpy as np

from ...examples.slider_crank import build
from ..references import heavy_top_minimal_ode, slider_crank_minimal
from ..registry import case, compare
from . import conservative as C

MINIMAL = "minimal coordinates (Lagrange, solve_ivp DOP853 rtol 1e-10)"
TOP_T_END = 0.5


@case("rotation-vector-slider-crank", description="P1 slider-crank with rotation-vector bodies vs one-coordinate "
      "Lagrange solution (h = 1e-3, 1 s)")
def slider_crank_case():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = build(k=2e4, c=1e3, parameterization="rotation").simulate(t_end=1.0, h=1e-3)
    ref = slider_crank_minimal(2e4, 1e3, t_end=1.0)
    err = float(np.max(np.abs(res["slider.position"][:, 0] - ref.slider_x(res.t)))) if res.success else np.nan
    name = "rotation-vector-slider-crank"
    return [
        compare(name, "max |x_slider − x_ref| over 1 s, h = 1e-3", 1e-5, err, unit="m", tolerance=0.0,
                source=MINIMAL + "; issue bound 1e-5 m", mode="max"),
        compare(name, "max Newton iterations per step", 4, res.max_iterations() if res.success else np.nan,
                tolerance=0.0, source="exact Newton matrix (tangent operator included)", mode="max"),
    ]


def _top(par, h):
    model = C.heavy_top(*C.top_state_from_euler(C.NUTATING_EULER0, C.NUTATING_RATES0), parameterization=par)
    res = C._simulate(model, TOP_T_END, h, C.TOP_INTEGRATOR)
    return res


@case("rotation-vector-top", description="nutating heavy top with rotation-vector bodies: COM path vs Euler-angle "
      "ODE and vs the Euler-parameter run, O(h²)")
def top_case():
    com, err = {}, {}
    for h in (2e-3, 1e-3):
        for par in ("quaternion", "rotation"):
            res = _top(par, h)
            ref = heavy_top_minimal_ode(*C.top_parameters(), C.NUTATING_EULER0, C.NUTATING_RATES0, TOP_T_END,
                                        g=C.G, t_eval=res.t)
            com[par, h] = res["top.position"]
            err[par, h] = float(np.max(np.linalg.norm(com[par, h] - ref.com, axis=1))) / C.TOP_COM
    diff = {h: float(np.max(np.linalg.norm(com["quaternion", h] - com["rotation", h], axis=1))) / C.TOP_COM
            for h in (2e-3, 1e-3)}
    name = "rotation-vector-top"
    src = "Euler-angle ODE (Goldstein 5.7), solve_ivp DOP853"
    return [
        compare(name, "COM error / l vs ODE, h = 1e-3, 0.5 s", 5e-3, err["rotation", 1e-3], tolerance=0.0,
                source=src, mode="max"),
        compare(name, "order of the COM error (h = 2e-3 → 1e-3)", 2.0,
                float(np.log2(err["rotation", 2e-3] / err["rotation", 1e-3])), tolerance=0.1,
                source="generalized-α is second order"),
        compare(name, "order of the difference from the Euler-parameter run", 2.0,
                float(np.log2(diff[2e-3] / diff[1e-3])), tolerance=0.1,
                source="both discretisations O(h²)"),
    ]
