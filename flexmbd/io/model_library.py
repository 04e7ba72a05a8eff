"""The bundled model files in ``flexmbd/models/`` (one per example, named after it)."""
from __future__ import annotations

import pathlib
from importlib import resources


def models_dir() -> pathlib.Path:
    return pathlib.Path(str(resources.files("flexmbd").joinpath("models")))


def bundled_models() -> dict[str, pathlib.Path]:
    """{example name: path} of every bundled .yaml/.json model file."""
    d = models_dir()
    if not d.is_dir():
        return {}
    return {p.stem: p for p in sorted(d.iterdir()) if p.suffix in (".yaml", ".yml", ".json")}


def bundled_tmm_models() -> dict[str, pathlib.Path]:
    """{example name: path} of the bundled DT-TMM model files (``flexmbd/models/tmm/``, a
    top-level ``tmm:`` section; flexmbd/io/tmm_file.py), kept apart from the index-3 models."""
    d = models_dir() / "tmm"
    if not d.is_dir():
        return {}
    return {p.stem: p for p in sorted(d.iterdir()) if p.suffix in (".yaml", ".yml", ".json")}


def description(path) -> str:
    """The ``description`` of a bundled model file (cheap: no validation)."""
    import yaml

    try:
        data = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
        return str(data.get("description", "")) if isinstance(data, dict) else ""
    except Exception:  # noqa: BLE001 - a listing must not fail
        return ""


__all__ = ["models_dir", "bundled_models", "bundled_tmm_models", "description"]
