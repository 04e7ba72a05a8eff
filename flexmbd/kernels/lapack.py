"""LAPACK routines callable from compiled kernels: SciPy exports its LAPACK as C functions
(``scipy.linalg.cython_lapack``); their addresses are registered with LLVM's symbol table
under fixed names at import (:data:`SYMBOLS`), and the kernels call those names
(``numba.types.ExternalFunction``).  The machine code in Numba's cache names the symbol,
not the address, so it stays valid in every process (this module is imported, and the
names registered, before any kernel that calls them is loaded).  Every argument is passed
by reference (Fortran), as a pointer into a small int32 array.

Used by the banded Newton matrices (kernels/banded.py: ``dgbtrf``/``dgbtrs``) and the dense
ones (kernels/assembly.py ``lu_factor``/``lu_solve``: ``dgetrf``/``dgetrs``)."""
from __future__ import annotations

import llvmlite.binding as _ll
from numba import types
from numba.extending import get_cython_function_address

#: LLVM symbol name → SciPy's LAPACK routine it calls
SYMBOLS = {"flexmbd_dgbtrf": "dgbtrf", "flexmbd_dgbtrs": "dgbtrs",
           "flexmbd_dgetrf": "dgetrf", "flexmbd_dgetrs": "dgetrs"}
for _name, _routine in SYMBOLS.items():
    _ll.add_symbol(_name, get_cython_function_address("scipy.linalg.cython_lapack", _routine))

_int = types.CPointer(types.int32)
_dbl = types.CPointer(types.float64)
_chr = types.CPointer(types.uint8)
#: dgbtrf(m, n, kl, ku, ab, ldab, ipiv, info)
dgbtrf = types.ExternalFunction("flexmbd_dgbtrf", types.void(_int, _int, _int, _int, _dbl, _int, _int, _int))
#: dgbtrs(trans, n, kl, ku, nrhs, ab, ldab, ipiv, b, ldb, info)
dgbtrs = types.ExternalFunction("flexmbd_dgbtrs",
                                types.void(_chr, _int, _int, _int, _int, _dbl, _int, _int, _dbl, _int, _int))
#: dgetrf(m, n, a, lda, ipiv, info)
dgetrf = types.ExternalFunction("flexmbd_dgetrf", types.void(_int, _int, _dbl, _int, _int, _int))
#: dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info)
dgetrs = types.ExternalFunction("flexmbd_dgetrs", types.void(_chr, _int, _int, _dbl, _int, _int, _dbl, _int, _int))
