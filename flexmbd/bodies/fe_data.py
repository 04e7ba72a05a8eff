"""Finite-element data of a modal body (component mode synthesis): reading, checking, mode
shapes and the inertia shape integrals.

The data (``.npz`` or HDF5, the same names as keys or datasets; docs/elements/modal-body.md):

==================  ==============  ================================================================
name                shape           meaning
==================  ==============  ================================================================
``nodes``           (N, 3)          node positions in the body frame [m]
``mass``            (3N, 3N) or     the mass matrix (dense, or its diagonal for a lumped mass); or
                    (3N,)           ``mass_rows``, ``mass_cols``, ``mass_values`` (sparse, COO)
``stiffness``       (3N, 3N)        the stiffness matrix; or ``stiffness_rows`` … (sparse, COO)
``modes``           (3N, n)         optional: mode shapes (Craig-Bampton or free-free elastic modes)
``interface``       (b,)            optional: interface node indices (Craig-Bampton)
``edges``           (E, 2)          optional: node pairs drawn as lines in pictures
==================  ==============  ================================================================

Degrees of freedom are the nodes' translations, node-major (x₀, y₀, z₀, x₁, …): node
rotations are not used (a first version; solid and truss models have none, shell and beam
models need their rotations condensed first).  The mass matrix must act alike on the three
directions, M = M_s ⊗ I₃ (a lumped mass with equal masses per direction, or the
consistent mass of solid and truss elements of isotropic density): the kinetic energy is
then ½ Σ_km M_s[k, m] ṙ_k·ṙ_m in any frame, which is what the floating frame's inertia
integrals need (Shabana, *Dynamics of Multibody Systems*, 3rd ed., sec. 5.4-5.5).

Inertia shape integrals (Shabana eqs. 5.14-5.30 in the channel form of
:mod:`flexmbd.bodies.modal_beam`): node k moves as r_k = R + A(θ)(X_k + Φ_k η) =
Σ_c Π[k, c] ρ_c with Π[k, 0] = 1 and Π[k, 1 + l(n+1) + a] = [X_k, Φ_k][l, a], so

    W = Πᵀ M_s Π,   K_ff = Φᵀ K Φ,   M_ff = Φᵀ M Φ.
"""
from __future__ import annotations

import hashlib
import pathlib
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..errors import ModelError

#: relative tolerance of the symmetry checks
SYMMETRY_RTOL = 1e-9
#: a mode with ω² below this fraction of max K_ii/M_ii (≥ the largest ω²'s order) is a rigid-body mode
RIGID_RTOL = 1e-10
#: up to this many degrees of freedom the eigenproblems are dense
DENSE_LIMIT = 3000


@dataclass
class FEData:
    """The finite-element model of a modal body: node positions (N, 3), the nodal mass
    matrix M_s (N, N; M = M_s ⊗ I₃), the stiffness K (3N, 3N), optional mode shapes
    (3N, n) and interface nodes."""

    nodes: np.ndarray
    mass: object                       # (N, N) ndarray or scipy sparse
    stiffness: object                  # (3N, 3N) ndarray or scipy sparse
    modes: np.ndarray | None = None
    interface: np.ndarray | None = None
    source: str = "data"
    edges: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def full_mass(self):
        """M = M_s ⊗ I₃ (3N, 3N), sparse when M_s is."""
        if sp.issparse(self.mass):
            return sp.kron(self.mass, sp.identity(3), format="csr")
        return np.kron(self.mass, np.eye(3))


# ------------------------------------------------------------------ reading

def _read_arrays(path: pathlib.Path) -> dict:
    names = ("nodes", "mass", "stiffness", "modes", "interface", "edges")
    keys = names + tuple(f"{m}_{p}" for m in ("mass", "stiffness") for p in ("rows", "cols", "values"))
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as f:
                return {k: np.asarray(f[k]) for k in keys if k in f.files}
        if suffix in (".h5", ".hdf5", ".hdf"):
            import h5py

            with h5py.File(path, "r") as f:
                return {k: np.asarray(f[k]) for k in keys if k in f and isinstance(f[k], h5py.Dataset)}
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"{path}: cannot be read as {suffix[1:]} data ({exc})") from None
    raise ModelError(f"{path}: unknown format {suffix!r} (give a .npz or an HDF5 file: .h5, .hdf5)")


def _matrix(arrays, name, n3, where):
    """A (3N, 3N) matrix from dense, diagonal or COO-triplet data (None if absent)."""
    trip = [f"{name}_{p}" for p in ("rows", "cols", "values")]
    if name in arrays:
        a = np.asarray(arrays[name], dtype=float)
        if a.shape == (n3,):
            a = sp.diags(a, format="csr")
        elif a.shape != (n3, n3):
            raise ModelError(f"{where} key {name!r}: shape {a.shape}, expected ({n3}, {n3}) (3 per node) or ({n3},)")
    elif all(t in arrays for t in trip):
        r, c, v = (np.asarray(arrays[t]).reshape(-1) for t in trip)
        if not (len(r) == len(c) == len(v)):
            raise ModelError(f"{where} keys {', '.join(trip)}: lengths {len(r)}, {len(c)}, {len(v)} differ")
        if len(r) and (min(r.min(), c.min()) < 0 or max(r.max(), c.max()) >= n3):
            raise ModelError(f"{where} keys {trip[0]}/{trip[1]}: indices outside 0 … {n3 - 1}")
        a = sp.coo_matrix((v.astype(float), (r.astype(int), c.astype(int))), shape=(n3, n3)).tocsr()
    else:
        return None
    values = a.data if sp.issparse(a) else a
    if not np.all(np.isfinite(values)):
        raise ModelError(f"{where} key {name!r}: contains NaN or infinite values")
    return a


def _maxabs(a) -> float:
    if sp.issparse(a):
        return float(abs(a).max()) if a.nnz else 0.0
    return float(np.abs(a).max()) if a.size else 0.0


def _is_symmetric(a) -> tuple[bool, float]:
    big, err = _maxabs(a), _maxabs(a - a.T)
    return bool(err <= SYMMETRY_RTOL * big), (err / big if big else 0.0)


def _nodal_mass(M, n, where):
    """M_s (N, N) of M = M_s ⊗ I₃, refusing a mass that couples directions or differs between them."""
    Mc = M.tocsr() if sp.issparse(M) else M
    blocks = [Mc[i::3, j::3] for i in range(3) for j in range(3)]
    Ms = blocks[0]
    big = _maxabs(Ms)
    for i in range(3):
        for j in range(3):
            b = blocks[3 * i + j]
            if _maxabs(b - Ms if i == j else b) > SYMMETRY_RTOL * big:
                raise ModelError(f"{where} key 'mass': the mass matrix must act alike on x, y and z "
                                 f"(M = M_s ⊗ I₃: a lumped mass or the consistent mass of solid or truss "
                                 f"elements); its block of directions {'xyz'[i]}{'xyz'[j]} differs")
    return Ms.tocsr() if sp.issparse(Ms) else np.array(Ms)


def _check_positive_definite(Ms, where):
    if sp.issparse(Ms) and Ms.shape[0] > DENSE_LIMIT:
        diag = Ms.diagonal()
        off = Ms - sp.diags(diag)
        if off.nnz == 0 or abs(off).max() == 0:
            lam = diag.min()
        else:
            from scipy.sparse.linalg import eigsh

            lam = eigsh(Ms, k=1, which="SA", return_eigenvectors=False, tol=1e-8)[0]
        ok = lam > 0
    else:
        A = Ms.toarray() if sp.issparse(Ms) else Ms
        try:
            sla.cholesky(A)
            ok = True
        except np.linalg.LinAlgError:
            ok = False
    if not ok:
        raise ModelError(f"{where} key 'mass': the mass matrix is not positive definite (indefinite or singular: "
                         "every node needs mass)")


def load_fe_data(path, label: str | None = None) -> FEData:
    """Read and check FE data from a ``.npz`` or HDF5 file (module docstring); errors name
    the file and the key."""
    path = pathlib.Path(path)
    return check_fe_data(_read_arrays(path), str(label or path))


def check_fe_data(arrays: dict, where: str = "FE data") -> FEData:
    """FEData from arrays of the file's names, with clear errors (module docstring)."""
    if "nodes" not in arrays:
        raise ModelError(f"{where}: no key 'nodes' (the node positions, (N, 3))")
    X = np.asarray(arrays["nodes"], dtype=float)
    if X.ndim != 2 or X.shape[1] != 3 or len(X) < 1:
        raise ModelError(f"{where} key 'nodes': shape {X.shape}, expected (N, 3)")
    if not np.all(np.isfinite(X)):
        raise ModelError(f"{where} key 'nodes': contains NaN or infinite values")
    n3 = 3 * len(X)
    M = _matrix(arrays, "mass", n3, where)
    K = _matrix(arrays, "stiffness", n3, where)
    if M is None:
        raise ModelError(f"{where}: no key 'mass' (or mass_rows, mass_cols, mass_values)")
    if K is None:
        raise ModelError(f"{where}: no key 'stiffness' (or stiffness_rows, stiffness_cols, stiffness_values)")
    for name, a in (("mass", M), ("stiffness", K)):
        ok, err = _is_symmetric(a)
        if not ok:
            raise ModelError(f"{where} key {name!r}: not symmetric (max |A − Aᵀ| = {err:.3g} of max |A|)")
    Ms = _nodal_mass(M, len(X), where)
    _check_positive_definite(Ms, where)
    modes = None
    if "modes" in arrays:
        modes = np.asarray(arrays["modes"], dtype=float)
        if modes.ndim == 1:
            modes = modes[:, None]
        if modes.ndim != 2 or modes.shape[0] != n3:
            raise ModelError(f"{where} key 'modes': shape {modes.shape}, expected ({n3}, n) (3 rows per node)")
        if not np.all(np.isfinite(modes)):
            raise ModelError(f"{where} key 'modes': contains NaN or infinite values")
    interface = None
    if "interface" in arrays:
        interface = _node_list(arrays["interface"], len(X), f"{where} key 'interface'")
    edges = None
    if "edges" in arrays:
        e = np.asarray(arrays["edges"])
        if e.ndim != 2 or e.shape[1] != 2:
            raise ModelError(f"{where} key 'edges': shape {e.shape}, expected (E, 2)")
        edges = _node_list(e.reshape(-1), len(X), f"{where} key 'edges'", unique=False).reshape(-1, 2)
    return FEData(X, Ms, K, modes, interface, where, edges)


def _node_list(values, n_nodes, where, unique=True):
    a = np.asarray(values).reshape(-1)
    if a.size == 0 or not np.all(np.equal(np.mod(a, 1), 0)):
        raise ModelError(f"{where}: give node indices (integers)")
    a = a.astype(int)
    if a.min() < 0 or a.max() >= n_nodes:
        raise ModelError(f"{where}: node index {int(a.max() if a.max() >= n_nodes else a.min())} outside "
                         f"0 … {n_nodes - 1}")
    if unique and len(set(a.tolist())) != len(a):
        raise ModelError(f"{where}: repeated node indices")
    return a


# ------------------------------------------------------------------ mode shapes

def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _lowest(K, M, k, where, sigma=None):
    """The k lowest eigenpairs of K φ = ω² M φ (dense below DENSE_LIMIT, else shift-invert Lanczos)."""
    n = K.shape[0]
    if k > n:
        raise ModelError(f"{where}: {k} modes asked for but the FE model has only {n} degrees of freedom", key="modes")
    if n <= DENSE_LIMIT or k >= n - 1:
        lam, V = sla.eigh(_dense(K), _dense(M), subset_by_index=[0, k - 1])
        return lam, V
    from scipy.sparse.linalg import eigsh

    Kd, Md = K.diagonal(), M.diagonal()
    shift = -1e-3 * float(np.median(Kd[Md > 0] / Md[Md > 0])) if sigma is None else sigma
    lam, V = eigsh(sp.csc_matrix(K), k=k, M=sp.csc_matrix(M), sigma=shift, which="LM")
    order = np.argsort(lam)
    return lam[order], V[:, order]


def _omega2_scale(K, M) -> float:
    """max K_ii/M_ii: the order of the largest ω² (the scale of 'ω ≈ 0')."""
    kd, md = np.asarray(K.diagonal()), np.asarray(M.diagonal())
    return float(np.max(kd[md > 0] / md[md > 0])) if np.any(md > 0) else 1.0


def _drop_rigid(lam, V, where, scale):
    """Drop the six rigid-body modes (ω² ≈ 0) of a free body; anything else is refused."""
    scale = max(scale, abs(lam).max(), 1e-300)
    rigid = int(np.sum(lam < RIGID_RTOL * scale))
    if rigid != 6:
        raise ModelError(f"{where}: the free FE model has {rigid} modes with ω ≈ 0, expected the 6 rigid-body "
                         f"modes (a mechanism or a disconnected part has more; the stiffness is wrong if fewer)")
    return lam[6:], V[:, 6:]


def free_free_modes(data: FEData, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The lowest ``count`` elastic free-free modes (ω² (count,), Φ (3N, count)): the 6
    rigid-body modes dropped."""
    where = data.source
    n3 = 3 * data.n_nodes
    if count + 6 > n3:
        raise ModelError(f"{where}: {count} free-free modes asked for, but {n3} degrees of freedom leave at most "
                         f"{n3 - 6} elastic modes", key="modes")
    M = data.full_mass()
    lam, V = _lowest(data.stiffness, M, count + 6, where)
    return _drop_rigid(lam, V, where, _omega2_scale(data.stiffness, M))


def craig_bampton_modes(data: FEData, interface, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Craig-Bampton modes (Craig & Bampton, AIAA J. 6(7), 1968): the static (constraint)
    modes of unit displacements of the interface nodes' DOFs and the ``count`` lowest
    fixed-interface modes, orthogonalised by the reduced eigenproblem, whose six rigid-body
    modes are dropped (the floating frame carries the rigid motion).  Returns ω² of the
    reduced free body and Φ (3N, 3b − 6 + count)."""
    where = data.source
    try:
        b = _node_list(interface, data.n_nodes, f"{where}: interface")
    except ModelError as exc:
        raise ModelError(str(exc), key="interface_nodes") from None
    n3 = 3 * data.n_nodes
    bd = (3 * b[:, None] + np.arange(3)).reshape(-1)
    internal = np.setdiff1d(np.arange(n3), bd)
    if count > len(internal):
        raise ModelError(f"{where}: {count} fixed-interface modes asked for, but the {len(internal)} interior "
                         "degrees of freedom give at most that many", key="modes")
    if 3 * len(b) < 6:
        raise ModelError(f"{where}: a Craig-Bampton interface needs at least 3 nodes not on one line "
                         "(translations only: the static modes must contain the rigid-body motion)")
    K = sp.csr_matrix(data.stiffness) if sp.issparse(data.stiffness) else np.asarray(data.stiffness)
    M = data.full_mass()
    Kii, Kib = K[internal][:, internal], K[internal][:, bd]
    try:
        big = float(np.max(np.abs(Kii.diagonal())))
        if sp.issparse(Kii):
            from scipy.sparse.linalg import splu

            lu = splu(sp.csc_matrix(Kii))
            pivots = np.abs(lu.U.diagonal())
            psi = -lu.solve(_dense(Kib))
        else:
            c = sla.cho_factor(Kii)
            pivots = np.diag(c[0]) ** 2
            psi = -sla.cho_solve(c, Kib)
        if not np.all(np.isfinite(psi)) or pivots.min() < 1e-10 * big:     # a mechanism held by rounding
            raise np.linalg.LinAlgError
    except (np.linalg.LinAlgError, RuntimeError):
        raise ModelError(f"{where}: the FE model held at the interface nodes is not stable (its interior "
                         "stiffness is singular): give more interface nodes, not on one line") from None
    B = np.zeros((n3, len(bd) + count))
    B[bd, np.arange(len(bd))] = 1.0
    B[internal, :len(bd)] = psi
    if count:
        Mii = M[internal][:, internal]
        _, Vi = _lowest(Kii, Mii, count, where)
        B[internal, len(bd):] = Vi
    Kr, Mr = B.T @ (K @ B), B.T @ (M @ B)
    lam, Y = sla.eigh(0.5 * (Kr + Kr.T), 0.5 * (Mr + Mr.T))
    lam, Y = _drop_rigid(lam, Y, where, _omega2_scale(K, M))
    return lam, B @ Y


def normalised(modes: np.ndarray) -> np.ndarray:
    """Mode shapes scaled to a largest nodal displacement of 1 (the modal coordinates are
    then the largest displacement of each mode, in metres), the sign making that entry positive."""
    Phi = np.array(modes, dtype=float)
    if Phi.shape[1] == 0:
        return Phi
    n = Phi.shape[0] // 3
    disp = np.linalg.norm(Phi.reshape(n, 3, -1), axis=1)                  # (N, n)
    k = np.argmax(disp, axis=0)
    big = disp[k, np.arange(Phi.shape[1])]
    if np.any(big == 0):
        raise ValueError("a mode shape is zero")
    j = np.argmax(np.abs(Phi), axis=0)
    return Phi * (np.sign(Phi[j, np.arange(Phi.shape[1])]) / big)


# ------------------------------------------------------------------ reduced data

def select_modes(data: FEData, count: int | None, method: str, interface=None) -> tuple[np.ndarray, str]:
    """Φ (3N, n) of ``method`` "file" (the file's first ``count`` modes, all if None),
    "free-free" or "craig-bampton" (``count`` fixed-interface modes), and a description."""
    where = data.source
    if method == "file":
        if data.modes is None:
            raise ModelError(f"{where}: no key 'modes' (give mode shapes, or let flexmbd compute them: "
                             "mode_type free-free or craig-bampton)")
        avail = data.modes.shape[1]
        n = avail if count is None else int(count)
        if n > avail:
            raise ModelError(f"{where} key 'modes': {n} modes asked for but the data has {avail}", key="modes")
        Phi = data.modes[:, :n]
        return Phi, f"{n} modes from the file"
    if count is None:
        raise ModelError(f"{where}: give the number of modes (modes: n) for mode_type {method}")
    if method == "free-free":
        return free_free_modes(data, int(count))[1], f"{count} free-free modes"
    if method == "craig-bampton":
        iface = interface if interface is not None else data.interface
        if iface is None:
            raise ModelError(f"{where}: mode_type craig-bampton needs interface nodes (key 'interface' in the "
                             "data or interface_nodes in the body)")
        lam, Phi = craig_bampton_modes(data, iface, int(count))
        return Phi, f"Craig-Bampton: {len(np.atleast_1d(iface))} interface nodes, {count} fixed-interface modes"
    raise ModelError(f"{where}: unknown mode_type {method!r} (file, free-free, craig-bampton)")


def reduced(data: FEData, Phi: np.ndarray) -> dict:
    """The reduced data of modes Φ (3N, n): W, K_ff, M_ff (module docstring), with checks
    of the modes (independent, elastic)."""
    where = data.source
    X, Ms = data.nodes, data.mass
    N, n = len(X), Phi.shape[1]
    Phi3 = Phi.reshape(N, 3, n)
    P = np.concatenate([X[:, :, None], Phi3], axis=2)                       # (N, 3, n+1)
    Pi = np.concatenate([np.ones((N, 1)), P.reshape(N, -1)], axis=1)       # (N, nc)
    W = Pi.T @ (Ms @ Pi)
    M = data.full_mass()
    K = data.stiffness
    Mff = Phi.T @ (M @ Phi)
    Kff = Phi.T @ (K @ Phi)
    Mff, Kff = 0.5 * (Mff + Mff.T), 0.5 * (Kff + Kff.T)
    if n:
        try:
            sla.cholesky(Mff)
        except np.linalg.LinAlgError:
            raise ModelError(f"{where}: the mode shapes are linearly dependent (ΦᵀMΦ is singular)") from None
        lam = sla.eigh(Kff, Mff, eigvals_only=True)
        scale = max(abs(lam).max(), _omega2_scale(K, M), 1e-300)
        if lam.min() < RIGID_RTOL * scale:
            raise ModelError(f"{where}: the mode shapes contain a rigid-body motion or a mechanism (ω ≈ 0 in "
                             "ΦᵀKΦ, ΦᵀMΦ): leave out the rigid-body modes, the floating frame carries them")
    return dict(W=0.5 * (W + W.T), K=Kff, Mff=Mff, KG=np.zeros((n, n)))


def modal_damping(Kff, Mff, ratio: float = 0.0, rayleigh=(0.0, 0.0)) -> np.ndarray:
    """C_ff: Rayleigh α M_ff + β K_ff plus modal damping of ratio ζ for every mode of the
    reduced problem, C = M Y diag(2ζω) Yᵀ M (Yᵀ M Y = I)."""
    C = rayleigh[0] * Mff + rayleigh[1] * Kff
    if ratio and len(Kff):
        lam, Y = sla.eigh(Kff, Mff)
        MY = Mff @ Y
        C = C + MY @ np.diag(2.0 * ratio * np.sqrt(np.maximum(lam, 0.0))) @ MY.T
    return C


def digest(*arrays) -> str:
    """A short content hash of the arrays (the node kind's key)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=float)
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


__all__ = ["FEData", "load_fe_data", "check_fe_data", "free_free_modes", "craig_bampton_modes", "select_modes",
           "reduced", "modal_damping", "normalised", "digest"]
