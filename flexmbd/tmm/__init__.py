"""Discrete-time transfer matrix method (DT-TMM) with Riccati transfer (paper P5).

A solver family beside the index-3 one: a chain of elements (Euler-Bernoulli beam
segments by modal expansion, rigid bodies, spring-dampers) between two boundaries, each
element relating the state vectors W = [M, Q, θ'', z''] of its two ends for one
Newmark-β time step; the Riccati transfer solves a step in O(number of elements) with
2×2 matrices.  docs/solvers/tmm.md gives the theory and the verification.

Modules: :mod:`flexmbd.tmm.modes` (free-free beam modes), :mod:`flexmbd.tmm.elements`
(element data), :mod:`flexmbd.tmm.boundary` (boundary conditions),
:mod:`flexmbd.tmm.riccati` (the sweep and a direct solve of the same equations),
:mod:`flexmbd.tmm.chain` (time stepping), :mod:`flexmbd.tmm.frequency` (frequency-domain
transfer matrices).
"""
