"""Linear solvers of the Newton matrix behind one interface.

Methods (``LinearSolver(method)``, model files' ``linear_solver``):

``dense``    LAPACK LU with partial pivoting (dgetrf/dgetrs) of the full matrix.
``banded``   the unknowns renumbered by reverse Cuthill–McKee (of the unknowns or of
             their groups, :func:`grouped_order`), then LAPACK banded LU with partial
             pivoting (dgbtrf/dgbtrs; the compiled Newton step calls the same routines,
             kernels/banded.py).  Beams and chains give bands of half-width 11–17
             whatever their length.
``superlu``  SciPy's SuperLU, COLAMD column ordering.
``klu``, ``umfpack``  SuiteSparse's KLU and UMFPACK through the optional package
             kvxopt (``pip install kvxopt`` or ``pip install flexmbd[fast]``).
``auto``     chosen once per sparsity pattern from a cost estimate (see ``_choose``);
             always available with SciPy alone.

The Newton matrix of a model keeps its sparsity pattern (CSR ``indptr``/``indices``)
and changes only ``.data``; the analysis of a pattern (ordering, band, symbolic
factorization, the choice of ``auto``) is made once and reused while the pattern is
the same.  A matrix given as a NumPy array (systems up to ``DENSE_LIMIT`` unknowns whose
band gives no cheaper banded LU are assembled dense, :func:`dense_storage`) is always
factorized densely.  Timings: docs/performance.md,
"Linear solvers".
"""
from __future__ import annotations

import weakref

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg.lapack import dgbtrf, dgbtrs, dgetrf, dgetrs
from scipy.sparse.csgraph import reverse_cuthill_mckee

#: systems with at most this many unknowns are assembled as dense arrays (system.py) unless
#: the banded LU is cheaper (:func:`dense_storage`)
DENSE_LIMIT = 150
#: up to DENSE_LIMIT unknowns 'auto' takes the banded LU when its flop count is at most this
#: fraction of dense LU's (measured: benchmarks/band_or_dense.py, docs/performance.md)
BAND_DENSE_FLOPS = 0.5
#: 'auto' takes the banded LU when its flop count 2 n kl (kl + ku + 1) is at most this
#: many times nnz(A).  Measured (docs/performance.md, "Linear solvers"): banded LU beats
#: SuperLU up to ~4500 and loses by 1.3× at ~19000; it beats KLU/UMFPACK up to ~1000.
BAND_FLOPS_PER_NNZ = 4000
BAND_FLOPS_PER_NNZ_KVXOPT = 1000
#: 'auto' with kvxopt installed: KLU up to this nnz, UMFPACK above (measured on grid-like
#: matrices: KLU faster at 16,700 nonzeros, UMFPACK from 44,000)
KLU_MAX_NNZ = 30_000
METHODS = ("auto", "dense", "banded", "superlu", "klu", "umfpack")


class SingularMatrixError(np.linalg.LinAlgError):
    pass


def _singular():
    return SingularMatrixError("iteration matrix is singular")


def _kvxopt():
    try:
        import kvxopt
        import kvxopt.klu
        import kvxopt.umfpack
    except ImportError:
        raise ImportError("linear solvers 'klu' and 'umfpack' need the package kvxopt: "
                          "pip install kvxopt (or pip install flexmbd[fast])") from None
    return kvxopt


def kvxopt_available():
    try:
        _kvxopt()
    except ImportError:
        return False
    return True


class _Dense:
    name = "dense"

    def factor(self, A):
        Ad = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
        lu, piv, info = dgetrf(Ad)
        if info > 0 or not np.all(np.isfinite(lu)):
            raise _singular()
        self.lu, self.piv = lu, piv

    def solve(self, b):
        return dgetrs(self.lu, self.piv, b)[0]


def _band(A, p):
    """(kl, ku, band rows, band columns) of A's entries after the renumbering p."""
    n = A.shape[0]
    inv = np.empty(n, np.intp)
    inv[p] = np.arange(n)
    r = inv[np.repeat(np.arange(n), np.diff(A.indptr))]
    c = inv[A.indices]
    return int(max(0, (r - c).max(initial=0))), int(max(0, (c - r).max(initial=0))), r, c


def grouped_order(S):
    """A renumbering for a narrow band of a Newton matrix [K Φ_qᵀ; Φ_q 0] from its
    symmetric pattern S alone: reverse Cuthill–McKee of the graph of coordinate *groups*
    (rows with a structural diagonal and identical patterns among those rows — a body's or
    a node's coordinates), each group numbered in one run, and every row without a
    diagonal (a constraint equation) placed beside its coordinates: just before the last
    group it couples when it couples several (a joint between bodies i and i+1: between
    them), else on the side of its group away from the group's neighbours (a body's
    normalisation, a joint to ground at the end of a chain: outside).  Plain RCM of the unknowns interleaves the
    coordinates of neighbouring bodies and the equations of their joints, which widens the
    band (chain-100: half-width 28 against 17; cantilever-256: 16 against 11;
    docs/performance.md, "Linear solvers")."""
    n = S.shape[0]
    rows = np.repeat(np.arange(n), np.diff(S.indptr))
    cols = S.indices
    diag = np.zeros(n, bool)
    diag[rows[cols == rows]] = True
    coord = np.flatnonzero(diag)
    if coord.size == 0:
        return reverse_cuthill_mckee(S, symmetric_mode=True).astype(np.intp)
    # coordinate rows with the same coordinate columns: equal weighted sums (a collision of
    # the random weights would only join two groups, i.e. widen the band, never be wrong)
    both = diag[rows] & diag[cols]
    w = np.random.default_rng(12345).random((3, n))
    sig = np.stack([np.bincount(rows[both], weights=w[k][cols[both]], minlength=n)[coord] for k in range(3)]
                   + [np.bincount(rows[both], minlength=n)[coord].astype(float)], axis=1)
    _, grp = np.unique(sig, axis=0, return_inverse=True)
    grp = grp.reshape(-1)
    group = np.full(n, -1)
    group[coord] = grp
    g = int(grp.max()) + 1
    G = sp.csr_matrix((np.ones(int(both.sum())), (group[rows[both]], group[cols[both]])), shape=(g, g))
    order = reverse_cuthill_mckee(G.tocsr(), symmetric_mode=True)
    rank = np.empty(g)
    rank[order] = np.arange(g)
    key = np.full(n, np.inf)
    key[coord] = rank[grp]
    # the equations: beside the groups they couple
    eq = ~diag[rows] & diag[cols]
    hi = np.full(n, -np.inf)
    lo = np.full(n, np.inf)
    np.maximum.at(hi, rows[eq], rank[group[cols[eq]]])
    np.minimum.at(lo, rows[eq], rank[group[cols[eq]]])
    # where a group's neighbouring groups lie: above its rank (+) or below (−) on average
    G = G.tocoo()
    side = np.bincount(G.row, weights=np.sign(rank[G.col] - rank[G.row]), minlength=g)
    eq_rows = np.flatnonzero(~diag & np.isfinite(hi))
    single = lo[eq_rows] == hi[eq_rows]
    outward = np.where(side[order[hi[eq_rows].astype(np.intp)]] > 0, -0.5, 0.5)
    key[eq_rows] = hi[eq_rows] + np.where(single, outward, -0.5)
    return np.argsort(key, kind="stable").astype(np.intp)


class _Banded:
    """Banded LU after a renumbering of A + Aᵀ's pattern: reverse Cuthill–McKee of the
    unknowns or of their groups (:func:`grouped_order`), whichever gives fewer flops."""
    name = "banded"

    def __init__(self, A):
        n = A.shape[0]
        S = sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        S = (S + S.T).tocsr()
        best = None
        for p in (reverse_cuthill_mckee(S, symmetric_mode=True).astype(np.intp), grouped_order(S)):
            kl, ku, r, c = _band(A, p)
            if best is None or kl * (kl + ku + 1) < best[1] * (best[1] + best[2] + 1):
                best = (p, kl, ku, r, c)
        self.p, self.kl, self.ku, r, c = best
        # LAPACK band storage: A[i, j] at row kl + ku + i − j of a (2 kl + ku + 1) × n Fortran
        # array; the top kl rows take the fill of the row interchanges.  It is kept as its
        # transpose, an n × ld C array, made at the first factorization and then reused
        # (not before: 'auto' makes this analysis also for matrices it gives to others).
        self.shape = (n, 2 * self.kl + self.ku + 1)
        self.pos = c * self.shape[1] + (self.kl + self.ku + r - c)
        self.ab = None
        self.flops = 2.0 * n * self.kl * (self.kl + self.ku + 1)

    def factor(self, A):
        if self.ab is None:
            self.ab = np.zeros(self.shape)
        ab = self.ab
        ab.fill(0.0)
        ab.ravel()[self.pos] = A.data
        lu, self.piv, info = dgbtrf(ab.T, self.kl, self.ku, overwrite_ab=1)
        if info > 0 or not np.all(np.isfinite(lu[self.kl + self.ku])):
            raise _singular()
        self.lu = lu

    def solve(self, b):
        b = np.asarray(b, dtype=float)
        y, info = dgbtrs(self.lu, self.kl, self.ku, b[self.p], self.piv)
        x = np.empty_like(y)
        x[self.p] = y
        return x


class _SuperLU:
    name = "superlu"

    def factor(self, A):
        try:
            self.lu = spla.splu(A.tocsc(), permc_spec="COLAMD")
        except RuntimeError as exc:  # "Factor is exactly singular"
            raise SingularMatrixError(str(exc)) from None

    def solve(self, b):
        return self.lu.solve(np.asarray(b, dtype=float))


class _SuiteSparse:
    """KLU or UMFPACK (kvxopt).  A's CSR arrays are the compressed columns of Aᵀ, so
    Aᵀ is factorized without a copy and the solves are transposed; the symbolic
    factorization is made once per pattern."""

    def __init__(self, A, name):
        kvx = _kvxopt()
        self.name, self.matrix = name, kvx.matrix
        self.mod = kvx.klu if name == "klu" else kvx.umfpack
        n = A.shape[0]
        cols = np.repeat(np.arange(n), np.diff(A.indptr))
        self.S = kvx.spmatrix(A.data.astype(float), A.indices.tolist(), cols.tolist(), (n, n))
        if self.S.CCS[0].size[0] != n + 1 or len(self.S.V) != A.nnz:
            raise ValueError("kvxopt changed the matrix's pattern")
        self.Fs = self.mod.symbolic(self.S)

    def factor(self, A):
        if not np.all(np.isfinite(A.data)):
            raise _singular()
        self.S.V = self.matrix(A.data.astype(float))
        try:
            self.Fn = self.mod.numeric(self.S, self.Fs)
        except ArithmeticError:
            raise _singular() from None
        self.A = A

    def _solve(self, b):
        B = self.matrix(np.asfortranarray(b.reshape(len(b), -1)))
        if self.name == "klu":
            self.mod.solve(self.S, self.Fs, self.Fn, B, trans="T")
        else:
            self.mod.solve(self.S, self.Fn, B, trans="T")
        return np.array(B).reshape(b.shape)

    def solve(self, b):
        b = np.asarray(b, dtype=float)
        x = self._solve(b)
        if self.name == "klu":
            # KLU's threshold pivoting (a pivot down to 0.001 of its column's largest entry)
            # leaves backward errors up to ~1e3 ε on saddle-point matrices; one step of
            # iterative refinement brings them to the ε of partial pivoting
            x += self._solve(b - self.A @ x)
        return x


def _band_beats_dense(band: _Banded, n: int) -> bool:
    """Up to DENSE_LIMIT unknowns: whether the banded LU (scatter, dgbtrf, dgbtrs) of a
    matrix with ``band``'s analysis is cheaper than the dense one (scatter into n × n,
    dgetrf, dgetrs).  Measured on this machine from Python and from compiled code
    (benchmarks/band_or_dense.py; docs/performance.md, "Linear solvers"): the banded LU
    costs less when its flop count 2 n kl (kl + ku + 1) is at most BAND_DENSE_FLOPS of
    dense LU's 2 n³ / 3."""
    return band.flops <= BAND_DENSE_FLOPS * (2.0 * n ** 3 / 3.0)


def _choose(A):
    """'auto' for a sparse pattern: the banded LU when its flop count is small, against
    dense LU up to DENSE_LIMIT unknowns (:func:`_band_beats_dense`) and against sparse LU
    (nnz) above; otherwise dense LU up to DENSE_LIMIT, then KLU/UMFPACK when kvxopt is
    installed, else SuperLU."""
    n = A.shape[0]
    band, kvx = _Banded(A), kvxopt_available()
    limit = BAND_FLOPS_PER_NNZ_KVXOPT if kvx else BAND_FLOPS_PER_NNZ
    if band.flops <= limit * A.nnz and (n > DENSE_LIMIT or _band_beats_dense(band, n)):
        return band
    if n <= DENSE_LIMIT:
        return _Dense()
    if kvx:
        return _SuiteSparse(A, "klu" if A.nnz <= KLU_MAX_NNZ else "umfpack")
    return _SuperLU()


def dense_storage(pattern) -> bool:
    """The storage rule of a system's Newton matrix (system.py ``dense``): dense (an
    N × N array, dense LU) when 'auto' would factorize this sparsity pattern densely — at
    most DENSE_LIMIT unknowns and no banded LU cheaper (:func:`_choose`) — else sparse
    (CSR; the compiled Newton step stores it banded when the solver's method gives the
    banded LU).  One rule for the Python and the compiled paths; the analysis is kept with
    the pattern (:func:`band_plan`)."""
    n = pattern.shape[0]
    if n > DENSE_LIMIT:
        return False
    # first a bound that needs no ordering: a row of r entries needs kl + ku + 1 ≥ r under any
    # renumbering, so kl = ku ≥ (r − 1)/2 for the structurally symmetric Newton matrix; when
    # even that band is too dense, dense without the analysis (≈ 1.1 ms at 41 unknowns:
    # slider-crank, tensegrity, the FFR bodies settle here)
    kl = (np.diff(pattern.indptr).max(initial=1) - 1) / 2.0
    if 2.0 * n * kl * (2.0 * kl + 1.0) > BAND_DENSE_FLOPS * (2.0 * n ** 3 / 3.0):
        return True
    return band_plan(pattern, "auto") is None


def band_plan(pattern, method: str = "auto") -> "_Banded | None":
    """The banded LU's analysis of a sparse pattern (permutation, band, storage positions)
    when ``method`` factorizes it so — "banded", or "auto" choosing it (:func:`_choose`) —
    else None.  The compiled Newton step (kernels/banded.py) factorizes with it.  Kept per
    pattern object (systems of one structure share theirs: system.py ``_PATTERNS``)."""
    if method not in ("banded", "auto"):
        return None
    ref, plans = _PLANS.get(id(pattern), (None, None))
    if ref is None or ref() is not pattern:
        if len(_PLANS) > 64:
            _PLANS.clear()
        plans = {}
        _PLANS[id(pattern)] = (weakref.ref(pattern), plans)
    if method not in plans:
        plan = _Banded(pattern) if method == "banded" else _choose(pattern)
        plans[method] = plan if isinstance(plan, _Banded) else None
    return plans[method]


#: band_plan's analyses: id(pattern) → (weak reference to it, {method: plan})
_PLANS: dict = {}


class LinearSolver:
    """``factorize(A)`` then any number of ``solve(b)``; see the module's docstring."""

    def __init__(self, method: str = "auto"):
        if method not in METHODS:
            raise ValueError(f"unknown linear solver {method!r}: use one of {', '.join(map(repr, METHODS))}")
        if method in ("klu", "umfpack"):
            _kvxopt()  # a missing package is reported here, not at the first factorization
        self.method = method
        self.analyses = 0      # analyses of a new sparsity pattern made so far
        self.used = None       # the method of the last factorization ('auto' resolved)
        self._pattern = None   # (shape, indptr, indices) of the analysed pattern
        self._seen = (None, None)   # index arrays last found equal to it (compared by identity first)
        self._plan = None      # its backend, with the analysis
        self._factor = None

    def _analyse(self, A):
        m = self.method
        if m == "auto":
            return _choose(A)
        if m == "dense":
            return _Dense()
        if m == "banded":
            return _Banded(A)
        if m == "superlu":
            return _SuperLU()
        return _SuiteSparse(A, m)

    def _same_pattern(self, A):
        if self._pattern is None:
            return False
        if A.indptr is self._seen[0] and A.indices is self._seen[1]:
            # the index arrays compared last time (a system's Newton matrices share its
            # pattern's, system.py _scatter_matrix; index arrays are never modified in place)
            return True
        shape, indptr, indices = self._pattern
        same = A.shape == shape and np.array_equal(A.indptr, indptr) and np.array_equal(A.indices, indices)
        if same:
            self._seen = (A.indptr, A.indices)
        return same

    def factorize(self, A):
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"linear solver needs a square matrix, got shape {A.shape}")
        if not sp.issparse(A):
            plan = _Dense()
        else:
            if A.format != "csr":
                A = A.tocsr()
            if not A.has_canonical_format:
                A = A.copy()
                A.sum_duplicates()
            if not self._same_pattern(A):
                self._plan = None
                self._plan = self._analyse(A)
                self._pattern = (A.shape, A.indptr.copy(), A.indices.copy())
                self._seen = (A.indptr, A.indices)
                self.analyses += 1
            plan = self._plan
        self._factor = None
        if sp.issparse(A) and not np.all(np.isfinite(A.data)):
            raise _singular()
        plan.factor(A)
        self._factor, self.used = plan, plan.name

    def solve(self, b):
        if self._factor is None:
            raise RuntimeError("solve() before a successful factorize()")
        return self._factor.solve(b)
