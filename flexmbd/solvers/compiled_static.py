"""The Newton iterations of a static load step in one compiled call.

For a system whose every group has a compiled slot (vector coordinates only: no
Lie-group nodes) and whose Newton matrix is dense or factorized by the banded LU,
:func:`~.static.static_equilibrium` hands each load step to kernels/static.py
``static_newton``: the static residual [F; Φ] at q' = q'' = 0 with the loads scaled by
the load factor and its matrix (c_M = c_D = 0, c_K = 1), full Newton with the same
convergence test as :class:`~.newton.NewtonSolver` (``residual``, or ``increment`` with
the error estimate), the LU of the compiled dynamic step.  Same iterates to rounding
(the dense LU is LAPACK's of the transpose, the banded one LAPACK's band LU), same counters, same outcome
and message on failure; the load stepping, the cuts of a failed increment and the
diagnosis of a failure stay in Python.  Other systems take the Python path
(:meth:`CompiledStatic.reason`, ``StaticResult.stats["newton_path"]``).
"""
from __future__ import annotations

import time

import numpy as np

from ..system import JACOBIAN_TERMS
from .dynamics import compiled_newton_reason, newton_storage
from .newton import NewtonOutcome, NewtonSolver


class CompiledStatic:
    """Load steps of one static analysis by the compiled Newton iterations."""

    def __init__(self, system, newton: NewtonSolver, time_value: float):
        from ..kernels import assembly, static

        self.k, self.kernel = assembly, static.static_newton
        self.sys, self.newton, self.ca = system, newton, system.compiled
        self.band, self.pos, width = newton_storage(system, newton.lin.method)
        N = system.n + system.m
        self.LU, self.piv = np.zeros((N, width)), np.zeros(N, dtype=np.int64)
        self.time = float(time_value)
        self.arrays = self.ca.arrays(self.time)      # the inputs at the analysis' fixed time
        self.stats = np.zeros(4, dtype=np.int64)

    @classmethod
    def for_system(cls, system, newton: NewtonSolver, terms, time_value: float) -> "CompiledStatic | None":
        return cls(system, newton, time_value) if cls.reason(system, newton, terms) is None else None

    @staticmethod
    def reason(system, newton: NewtonSolver, terms) -> str | None:
        """None if the load steps of ``system`` can be solved by the compiled Newton
        iterations, else why not."""
        if system.compiled is None:
            return system.assembly      # "generic: <why>" (Lie-group nodes, a group without a slot…)
        why = compiled_newton_reason(system, newton.lin.method)
        if why is not None:
            return why
        if len(terms) != len(JACOBIAN_TERMS):
            return "partial Jacobian"
        if newton.policy != "newton" or newton.convergence not in ("residual", "increment"):
            return f"refresh = {newton.policy}, convergence = {newton.convergence}"
        return None

    def solve(self, x0: np.ndarray, load_factor: float) -> NewtonOutcome:
        """Newton from x0 = [q; λ] at ``load_factor``: the :class:`NewtonOutcome` of
        :meth:`NewtonSolver.solve` on the static residual, its counters added to the
        solver's statistics."""
        nw, ca, k, sys = self.newton, self.ca, self.k, self.sys
        self.stats[:] = 0
        c0 = time.perf_counter()
        code, x, norm, chk, it = self.kernel(
            np.ascontiguousarray(x0, dtype=float), sys.n, float(load_factor), nw.tol, nw.convergence == "increment",
            nw.max_iter, nw.last_iterations, ca.ground_q, ca.n_ext, ca.layout, ca.vsize, ca.bsize, ca.vec_index,
            self.pos, self.band, ca.vec, ca.blk, *self.arrays, self.LU, self.piv, self.stats)
        st = nw.stats
        st.compiled_seconds += time.perf_counter() - c0
        st.iterations += int(self.stats[0])
        st.refreshes += int(self.stats[1])
        st.factorizations += int(self.stats[2])
        st.residual_evaluations += int(self.stats[3])
        nw.last_iterations = int(it)
        nw.nnz = sys.nnz
        if code == k.CONVERGED:
            return NewtonOutcome(True, x, int(it), float(norm), chk)
        if code == k.ZERO_LENGTH:       # the force's own error, as on the Python path
            ca.raise_undefined(sys.extend(x[:sys.n]), np.zeros(sys.n_ext), self.time)
        st.failures += 1
        message = {k.NOT_FINITE: "residual is not finite", k.MAX_ITER: f"no convergence in {nw.max_iter} iterations",
                   k.SINGULAR: "singular iteration matrix (iteration matrix is singular)"}[code]
        return NewtonOutcome(False, x, int(it), float(norm), chk, message)
