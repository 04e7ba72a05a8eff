"""Linear solvers behind one interface: dense LU for small systems, SuperLU otherwise.

Measured on this project's machines (../PERFORMANCE-NOTES): dense LU of 45×45 costs
21 µs, SuperLU of 231×231 about 0.7 ms; so small rigid models use dense LU.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dgetrf, dgetrs
import scipy.sparse.linalg as spla

DENSE_LIMIT = 150


class SingularMatrixError(np.linalg.LinAlgError):
    pass


class LinearSolver:
    def __init__(self, method: str = "auto"):
        if method not in ("auto", "dense", "superlu"):
            raise ValueError(f"unknown linear solver {method!r}: use 'auto', 'dense' or 'superlu'")
        self.method = method
        self._factor = None
        self._dense = None

    def factorize(self, A):
        n = A.shape[0]
        dense = self.method == "dense" or (self.method == "auto" and n <= DENSE_LIMIT) or isinstance(A, np.ndarray)
        self._dense = dense
        try:
            if dense:
                Ad = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=float)
                # LAPACK directly: scipy.linalg.lu_factor's checks cost more than a 41 × 41 LU
                lu, piv, info = dgetrf(Ad)
                if info != 0 or not np.isfinite(lu).all():
                    raise SingularMatrixError("iteration matrix is singular")
                self._factor = (lu, piv)
            else:
                self._factor = spla.splu(sp.csc_matrix(A), permc_spec="COLAMD")
        except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
            raise SingularMatrixError(str(exc)) from None

    def solve(self, b):
        if self._dense:
            x, info = dgetrs(*self._factor, b)
            return x
        return self._factor.solve(b)
