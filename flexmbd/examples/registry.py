"""Registry of runnable examples for ``flexmbd example``.

An example module registers a function with :func:`example`::

    from flexmbd.examples.registry import example

    @example("slider-crank-sda", "Slider-crank with a flexible connecting rod")
    def run(out_dir, quiet=False):
        ...  # simulate, print a summary unless quiet, write plots to out_dir
        return {"final_angle": 6.28}

The function receives the output directory as a :class:`pathlib.Path`
(which exists), prints its own summary unless ``quiet``, writes its plot
files into ``out_dir`` and returns a dict summary.

Modules are listed in :data:`EXAMPLE_MODULES` and imported by
:func:`load_examples`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

__all__ = ["ExampleInfo", "EXAMPLES", "EXAMPLE_MODULES", "example", "load_examples"]

#: Fully qualified names of the modules that register examples,
#: e.g. ``"flexmbd.examples.slider_crank"``.
EXAMPLE_MODULES: tuple[str, ...] = ("flexmbd.examples.slider_crank", "flexmbd.examples.tensegrity",
                                    "flexmbd.examples.p5_rig")


@dataclass(frozen=True)
class ExampleInfo:
    """A registered example: ``run(out_dir: Path, quiet: bool = False) -> dict``."""

    name: str
    description: str
    run: Callable[..., dict]


#: All registered examples by name (filled by the :func:`example` decorator).
EXAMPLES: dict[str, ExampleInfo] = {}


def example(name: str, description: str):
    """Decorator registering ``run(out_dir, quiet=False) -> dict`` as ``name``.

    Registering a different function under an existing name is an error.
    """

    def decorator(fn: Callable[..., dict]) -> Callable[..., dict]:
        existing = EXAMPLES.get(name)
        if existing is not None and (
            existing.run.__module__,
            existing.run.__qualname__,
        ) != (fn.__module__, fn.__qualname__):
            raise ValueError(
                f"example {name!r} is already registered by "
                f"{existing.run.__module__}.{existing.run.__qualname__}"
            )
        EXAMPLES[name] = ExampleInfo(name=name, description=description, run=fn)
        return fn

    return decorator


def load_examples() -> dict[str, ExampleInfo]:
    """Import every module in :data:`EXAMPLE_MODULES` and return the examples.

    Import errors are not caught: a broken example module must surface.
    """
    for module in EXAMPLE_MODULES:
        importlib.import_module(module)
    return dict(EXAMPLES)
