"""The energy balance of every bundled dynamic model (docs/results-and-pictures.md, "Energies").

    python -m benchmarks.energy_balance

For each model, with its own solver settings: the external work (loads, actuators,
prescribed motions), the dissipated energy (dampers), the change of kinetic + stored
energy, and the rest, "numerical dissipation" = E(0) + W − E(t) − D(t): the integrator's
own dissipation (generalized-α, HHT: intended) plus the quadrature and step errors.
"""
from __future__ import annotations

import warnings

import numpy as np

from flexmbd.io.model_file import load_model_text
from flexmbd.io.model_library import bundled_models


def rows():
    out = []
    for name, path in sorted(bundled_models().items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lm = load_model_text(path.read_text(), file=str(path))
            if lm.static:
                continue
            res = lm.model.simulate(**lm.simulate_options(), system=lm.freeze())
        e = {k: res[f"energy.{k}"] for k in ("total", "external_work", "dissipated", "numerical_dissipation")}
        integ = type(res.integrator).__name__
        out.append((name, integ, res.h, res.t[-1], e["external_work"][-1], e["dissipated"][-1],
                    e["total"][-1] - e["total"][0], e["numerical_dissipation"][-1],
                    float(np.max(np.abs(e["numerical_dissipation"])))))
    return out


def main():
    print("| model | integrator | h [s] | t_end [s] | external work [J] | dissipated [J] | ΔE [J] | "
          "numerical dissipation at t_end [J] | max over the run [J] |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows():
        print(f"| {r[0]} | {r[1]} | {r[2]:g} | {r[3]:g} | {r[4]:.4g} | {r[5]:.4g} | {r[6]:.4g} | {r[7]:.3g} | {r[8]:.3g} |")


if __name__ == "__main__":
    main()
