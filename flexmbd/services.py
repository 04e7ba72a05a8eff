"""Operations a lower layer offers on behalf of a higher one (dependency inversion).

``Model.freeze()``/``simulate()``/``static_equilibrium()``/``kinematics()`` and
``Result.save()``/``Result.load()`` are conveniences on low-level objects whose work is done
by higher layers (the system, the solvers, the results files).  So that no module imports
upward, those layers :func:`provide` their function under a name when imported (the
package's ``__init__`` imports them all) and the conveniences look it up with
:func:`service`.
"""
from __future__ import annotations

from typing import Callable

_SERVICES: dict[str, Callable] = {}


def provide(name: str, function: Callable) -> Callable:
    """Offer ``function`` under ``name`` (returns it, so it can decorate)."""
    _SERVICES[name] = function
    return function


def service(name: str) -> Callable:
    try:
        return _SERVICES[name]
    except KeyError:
        raise RuntimeError(f"{name!r} is provided by a flexmbd module that has not been imported; "
                           "import flexmbd") from None
