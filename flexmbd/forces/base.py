"""Common interface of force-element groups.

A group holds every element of one type, evaluated together as arrays.  ``dof_index``
(n_el, m) maps each element's local coordinates into the extended coordinate vector
(free coordinates followed by ground's fixed ones).  ``evaluate`` returns

    Q (n_el, m)        generalised applied force,
    K (n_el, m, m)     ∂Q/∂q   (P1's "M2" part for spring-damper-actuators),
    D (n_el, m, m)     ∂Q/∂q'  (P1's "M3" part),

so a solver never needs to know what the element is.
"""
from __future__ import annotations

import numpy as np


class ForceGroup:
    #: name of the Jacobian parts this group's K and D belong to (switchable by name)
    stiffness_term = "force_stiffness"
    damping_term = "force_damping"
    #: scaled by the load factor in static load stepping
    is_load = False
    #: keys of :meth:`outputs`, reported per element as "<element>.<key>"
    output_names: tuple = ()

    element_names: list[str]
    dof_index: np.ndarray

    def __len__(self):
        return len(self.element_names)

    def evaluate(self, qe, ve, t, jacobians=True):
        raise NotImplementedError

    def potential_energy(self, qe, t) -> float:
        return 0.0

    def dissipation_power(self, qe, ve, t) -> float:
        return 0.0

    def outputs(self, qe, ve, t) -> dict:
        """Named per-element outputs, each an (n_el,) array."""
        return {}
