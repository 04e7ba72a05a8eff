"""Write the model files of P1's parameter studies for ``flexmbd sweep`` (docs/sweep.md):
``python -m benchmarks.sweep_models`` → benchmarks/sweeps/*.yaml.

* ``slider-crank-p1.yaml``: the bundled slider-crank-sda model with the solver settings
  of :func:`flexmbd.examples.slider_crank.jacobian_study` (P1's scheme: residual test,
  multipliers from the integrator, at most 50 iterations, 100 steps of 0.01 s), c = 0.
* ``tensegrity-p1.yaml``: the tower of :func:`flexmbd.examples.tensegrity.build_tower`
  with ``parameters: {k, c}``: every cable's k and c are those names and its rest length
  the expression ``l - t/k`` of the builder, so a sweep over ``parameters.k`` rebuilds the
  tower as ``build_tower(k=...)`` does; the solver settings of
  :func:`flexmbd.examples.tensegrity.jacobian_study`.
"""
from __future__ import annotations

import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent / "sweeps"


def slider_crank_text() -> str:
    from flexmbd.io.model_file import dump_yaml, parse_text, read_file
    from flexmbd.io.model_library import bundled_models

    src = bundled_models()["slider-crank-sda"]
    data, _ = parse_text(read_file(src), str(src))
    data["description"] = "P1 slider-crank for the k and c studies (flexmbd sweep; c = 0 as in study A)"
    next(f for f in data["forces"] if f["name"] == "sda")["c"] = 0.0
    data["solver"] = {"t_end": 1.0, "h": 0.01, "integrator": "newmark", "tol": 1e-7, "max_iter": 50,
                      "jacobian": "full", "convergence": "residual", "multipliers": "integrator"}
    return dump_yaml(data, "Written by benchmarks/sweep_models.py: P1's slider-crank studies A and B.")


def tensegrity_text() -> str:
    from flexmbd.examples.tensegrity import P1_BETA, P1_C, P1_GAMMA, P1_H, P1_K, P1_MAX_ITER, P1_TOL, build_tower
    from flexmbd.io.model_file import dump_yaml, model_to_dict

    tower = build_tower(k=P1_K, c=P1_C)
    data = model_to_dict(tower.model, solver={
        "t_end": 100 * P1_H, "h": P1_H, "integrator": {"type": "newmark", "beta": P1_BETA, "gamma": P1_GAMMA},
        "tol": P1_TOL, "max_iter": P1_MAX_ITER, "jacobian": "full", "max_halvings": 0, "convergence": "residual",
        "multipliers": "integrator"}, description="P1 tensegrity tower with parameters k and c (flexmbd sweep)")
    lengths = tower.structure.lengths[tower.cable_index]
    tension = tower.forces_ref[tower.cable_index]
    cables = {name: (float(l), float(t)) for name, l, t in zip(tower.cable_names, lengths, tension)}
    for f in data["forces"]:
        if f["name"] in cables:
            l, t = cables[f["name"]]
            assert np.isclose(f["rest_length"], l - t / P1_K)
            f["k"], f["c"], f["rest_length"] = "k", "c", f"{l!r} - {t!r}/k"
    data = {"format": data["format"], "name": data["name"], "description": data["description"],
            "parameters": {"k": P1_K, "c": P1_C}, **{k: v for k, v in data.items()
                                                     if k not in ("format", "name", "description")}}
    return dump_yaml(data, "Written by benchmarks/sweep_models.py: P1's tensegrity (k, c, Jacobian parts) "
                           "study.\nRest length of each cable: l - t/k (closed-form length l, prestress "
                           "tension t).")


def main():
    HERE.mkdir(exist_ok=True)
    for name, text in (("slider-crank-p1.yaml", slider_crank_text()), ("tensegrity-p1.yaml", tensegrity_text())):
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
