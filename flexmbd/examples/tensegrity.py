"""P1 example 2: tensegrity form-finding by dynamic relaxation (Kan, Peng & Chen 2017).

Bars are rigid bodies (P1: mass 0.3 kg, 0.1 kg m² transverse, 0.01 kg m² axial; body x
axis along the bar, centre of mass at the bar midpoint); cables are tension-only
spring-dampers attached at the bar end points, all with the same k and c; no supports,
no gravity.  Two structures with closed-form self-equilibria (flexmbd/data):

* the two-stage tower (Sultan, Corless & Skelton 2001; 6 struts, 24 cables): the cable
  rest lengths are set so that in the closed-form geometry each cable carries
  ``prestress × (its normalised force)``, i.e. l0 = l − t/k.  The closed-form shape is
  then an equilibrium, and relaxation from a perturbed start must return to it.  (P1's
  structure had 21 cables and its table is lost; this is not P1's structure.)
* the 3-strut prism (CuikSuite data): zero-rest-length cables with stiffness
  ``scale × force density`` (horizontal : vertical = 1 : √3), rigid struts of the
  file's length; every equilibrium has the twist 150°.

:func:`build_tower` and :func:`build_prism` return a :class:`Tensegrity`, which holds
the :class:`~flexmbd.Model` and the bookkeeping needed to read node positions, member
lengths and forces back from a state vector.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import Model
from ..rotations import perpendicular_pair, rotation_matrix
from ..verify.references import (equilibrium_residual, load_tensegrity_prism,
                                 load_tensegrity_tower, prism_twist_angle)
from .registry import example

BAR_MASS = 0.3
BAR_INERTIA = (0.01, 0.1, 0.1)  # axial (body x along the bar), transverse, transverse

#: P1's energy-plot run: k = 200 N/m, c = 10 N s/m, Newmark β = 0.3, γ = 0.6, h = 0.01 s.
P1_K, P1_C = 200.0, 10.0
P1_BETA, P1_GAMMA, P1_H, P1_TOL, P1_MAX_ITER = 0.3, 0.6, 0.01, 1e-7, 1000

#: Default prestress scale [N] of the tower: the largest cable tension (diagonal and
#: saddle cables, normalised force 0.2175) is then 4.35 N, the order of P1's 4.92 N.
TOWER_PRESTRESS = 20.0


@dataclass
class Tensegrity:
    """A tensegrity model with its reference structure and node bookkeeping.

    ``node_bar[k]`` is the index of the bar (body) carrying node ``k`` and
    ``node_local[k]`` the node in that body's frame; ``cable_index`` are the indices
    of the cables in ``structure.members`` and ``cable_names`` their element names;
    ``strut_index`` the indices of the struts (bar ``b`` is member ``strut_index[b]``).
    ``forces_ref`` are the member forces of the closed form scaled to this model
    (tension positive, struts negative).
    """

    model: Model
    structure: object
    bars: list
    node_bar: np.ndarray
    node_local: np.ndarray
    strut_index: np.ndarray
    cable_index: np.ndarray
    cable_names: list
    bar_length: np.ndarray
    k: np.ndarray
    c: float
    rest_length: np.ndarray
    forces_ref: np.ndarray
    start_nodes: np.ndarray
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------ state → geometry
    def start_q(self):
        """Coordinates of the start configuration (the model's initial state)."""
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.model.freeze().q0

    def nodes(self, q):
        """Node positions (n_nodes, 3) from a coordinate vector q of the frozen model."""
        q = np.asarray(q, dtype=float)
        X = np.empty((len(self.node_bar), 3))
        for b, body in enumerate(self.bars):
            o = 7 * b  # the bars are the only bodies, in order, 7 coordinates each
            R, p = q[o:o + 3], q[o + 3:o + 7]
            A = rotation_matrix(p / np.linalg.norm(p))
            sel = self.node_bar == b
            X[sel] = R + self.node_local[sel] @ A.T
        return X

    def member_lengths(self, q):
        """Node-to-node lengths of all members, in ``structure.members`` order."""
        X = self.nodes(q)
        C = self.structure.connectivity
        return np.linalg.norm(X[C[:, 1]] - X[C[:, 0]], axis=1)

    def cable_forces(self, q):
        """Static cable tensions k (l − l0), clipped at zero (tension-only)."""
        lc = self.member_lengths(q)[self.cable_index]
        return np.maximum(self.k * (lc - self.rest_length), 0.0)

    def strut_forces(self, q):
        """Strut axial forces (negative = compression) from the equilibrium of each bar.

        The cable forces acting on the two end nodes of a bar are summed; in
        equilibrium each sum is a force along the bar, and its component along the
        bar (pointing outward = compression) is the strut force.  Returns
        (forces (n_struts,), misalignment (n_struts,)) where misalignment is the
        largest norm of the transverse part of an end sum, divided by the prestress
        scale (zero in equilibrium).
        """
        X = self.nodes(q)
        C = self.structure.connectivity
        t = self.cable_forces(q)
        end_sum = np.zeros_like(X)
        for ci, f in zip(self.cable_index, t):
            i, j = C[ci]
            u = (X[j] - X[i]) / np.linalg.norm(X[j] - X[i])
            end_sum[i] += f * u
            end_sum[j] -= f * u
        forces, skew = [], []
        for si in self.strut_index:
            i, j = C[si]
            u = (X[j] - X[i]) / np.linalg.norm(X[j] - X[i])
            # cables pull node j inward (−u) for a compressed strut: the strut pushes back
            fj = end_sum[j] @ u
            fi = -(end_sum[i] @ u)
            forces.append(0.5 * (fi + fj))
            skew.append(max(np.linalg.norm(end_sum[j] - fj * u), np.linalg.norm(end_sum[i] + fi * u)))
        scale = float(np.max(np.abs(self.forces_ref)))
        return np.array(forces), np.array(skew) / scale

    def member_forces(self, q):
        """All member forces (struts from bar equilibrium), ``structure.members`` order."""
        f = np.zeros(len(self.structure.members))
        f[self.cable_index] = self.cable_forces(q)
        f[self.strut_index] = self.strut_forces(q)[0]
        return f

    def momenta(self, q, v):
        """Net linear momentum and angular momentum about the origin (global axes)."""
        P, L = np.zeros(3), np.zeros(3)
        for b, body in enumerate(self.bars):
            o = 7 * b
            R, p, Rd, pd = q[o:o + 3], q[o + 3:o + 7], v[o:o + 3], v[o + 3:o + 7]
            p = p / np.linalg.norm(p)
            A = rotation_matrix(p)
            E = np.c_[-p[1:], p[0] * np.eye(3) + _skew(p[1:])]
            w = 2.0 * E @ pd
            P += body.mass * Rd
            L += body.mass * np.cross(R, Rd) + A @ body.inertia @ A.T @ w
        return P, L

    def momentum_scale(self, q, v):
        """Σ over bars of |m (R − c) × Ṙ| + |J ω|: the size the angular momentum would
        have if the bars' contributions did not cancel (for relative momentum errors)."""
        X = q.reshape(-1, 7)
        c = X[:, :3].mean(axis=0)  # equal bar masses
        s = 0.0
        for b, body in enumerate(self.bars):
            o = 7 * b
            R, p, Rd, pd = q[o:o + 3], q[o + 3:o + 7], v[o:o + 3], v[o + 3:o + 7]
            p = p / np.linalg.norm(p)
            A = rotation_matrix(p)
            E = np.c_[-p[1:], p[0] * np.eye(3) + _skew(p[1:])]
            s += np.linalg.norm(body.mass * np.cross(R - c, Rd)) + np.linalg.norm(A @ body.inertia @ A.T @ (2 * E @ pd))
        return s

    def centre_of_mass(self, q):
        return q.reshape(-1, 7)[:, :3].mean(axis=0)  # equal bar masses

    def nodal_residual(self, q):
        """Largest nodal force imbalance (pin-jointed model, reference formula) with the
        cable forces k(l − l0) and the strut forces from bar equilibrium."""
        return float(np.abs(equilibrium_residual(self.nodes(q), self.structure.members,
                                                 self.member_forces(q))).max())

    def length_errors(self, q):
        """Relative errors of all member lengths against the closed form."""
        return self.member_lengths(q) / self.structure.lengths - 1.0

    def twist(self, q):
        """Prism twist angle [deg] (reference definition) of the state q."""
        return prism_twist_angle(self.nodes(q), self.structure.struts)


def _skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0.0]])


def _bar_frame(a, b):
    x = (b - a) / np.linalg.norm(b - a)
    y, z = perpendicular_pair(x)  # (y, z, x) right-handed → (x, y, z) right-handed
    return np.c_[x, y, z]


def _perturb_nodes(nodes, struts, lengths, amplitude, seed):
    """Move every node by a random vector of norm ≤ amplitude·(its bar length), then
    rescale each bar about its midpoint to its closed-form length."""
    X = np.array(nodes, dtype=float)
    if amplitude:
        rng = np.random.default_rng(seed)
        for (i, j), L in zip(struts, lengths):
            for n in (i, j):
                d = rng.normal(size=3)
                X[n] += amplitude * L * rng.uniform(0.5, 1.0) * d / np.linalg.norm(d)
            mid = 0.5 * (X[i] + X[j])
            u = (X[j] - X[i]) / np.linalg.norm(X[j] - X[i])
            X[i], X[j] = mid - 0.5 * L * u, mid + 0.5 * L * u
    return X


def _build(structure, X, k_cable, c, rest, forces_ref, name, info):
    m = Model(name=name)
    C = structure.connectivity
    strut_index = np.flatnonzero(structure.is_strut)
    cable_index = np.flatnonzero(~structure.is_strut)
    n_nodes = len(structure.nodes)
    node_bar = np.full(n_nodes, -1)
    node_local = np.zeros((n_nodes, 3))
    bars, bar_length = [], []
    for b, si in enumerate(strut_index):
        i, j = C[si]
        if node_bar[i] >= 0 or node_bar[j] >= 0:
            raise ValueError("every node must be the end of exactly one strut (class-1 tensegrity)")
        L = float(structure.lengths[si])
        A = _bar_frame(X[i], X[j])
        body = m.rigid_body(f"bar{b + 1}", mass=BAR_MASS, inertia=BAR_INERTIA,
                            position=0.5 * (X[i] + X[j]), orientation=A)
        bars.append(body)
        bar_length.append(L)
        node_bar[i], node_bar[j] = b, b
        node_local[i], node_local[j] = (-0.5 * L, 0, 0), (0.5 * L, 0, 0)
    if np.any(node_bar < 0):
        raise ValueError("every node must be the end of a strut")
    names = []
    for n_c, ci in enumerate(cable_index):
        i, j = C[ci]
        sub = structure.members[ci].subtype
        nm = f"cable{n_c + 1}_{sub}_{i + 1}_{j + 1}"
        m.spring_damper(bars[node_bar[i]], bars[node_bar[j]], at_i=X[i], at_j=X[j], k=k_cable[n_c], c=c,
                        rest_length=rest[n_c], tension_only=True, name=nm)
        names.append(nm)
    return Tensegrity(m, structure, bars, node_bar, node_local, strut_index, cable_index, names,
                      np.array(bar_length), np.asarray(k_cable, float), float(c), np.asarray(rest, float),
                      forces_ref, X, info)


def build_tower(k=P1_K, c=P1_C, prestress=TOWER_PRESTRESS, perturbation=0.03, seed=0, base_cables=True):
    """The two-stage tower: 6 rigid bars, 24 cables (21 without ``base_cables``).

    Each cable has stiffness ``k``, damping ``c`` and rest length l0 = l − t/k with
    t = prestress × (normalised force of the file), l its closed-form length, so that the
    closed-form geometry is a self-equilibrium with those tensions.  ``perturbation``:
    every node is moved by a random vector of norm up to ``perturbation`` × bar length
    (seeded), then each bar is rescaled about its midpoint to its closed-form length.
    Without the base cables the closed-form geometry is *not* an equilibrium (the base
    cables carry 6 % of the largest tension); the option exists for P1's cable count.
    """
    S = load_tensegrity_tower()
    forces_ref = prestress * S.forces
    cable_index = np.flatnonzero(~S.is_strut)
    if not base_cables:
        keep = [m for m in S.members if m.subtype != "base"]
        idx = [n for n, m in enumerate(S.members) if m.subtype != "base"]
        S = type(S)(S.name + "_no_base", S.nodes, keep, S.lengths[idx], S.forces[idx],
                    S.force_densities[idx], S.rest_lengths[idx], S.stiffness[idx], S.about, S.extra)
        forces_ref = forces_ref[idx]
        cable_index = np.flatnonzero(~S.is_strut)
    t = forces_ref[cable_index]
    rest = S.lengths[cable_index] - t / k
    if np.any(rest <= 0):
        raise ValueError(f"prestress {prestress} N is too large for k = {k} N/m: a rest length would be ≤ 0")
    X = _perturb_nodes(S.nodes, S.struts, S.lengths[S.is_strut], perturbation, seed)
    return _build(S, X, np.full(len(cable_index), float(k)), c, rest, forces_ref, "tensegrity-tower",
                  dict(prestress=prestress, perturbation=perturbation, seed=seed))


def build_prism(scale=100.0, c=P1_C, perturbation=0.03, seed=0, twist=None):
    """The 3-strut prism: 3 rigid bars, 9 zero-rest-length cables.

    Cable stiffness = ``scale`` × the file's force density (q_h for the 6 horizontal,
    q_v = √3 q_h for the 3 vertical cables), damping ``c`` for all.  The start is
    either the file's equilibrium with random node perturbations (as for the tower),
    or, with ``twist`` [deg], a symmetric prism of that twist: the top triangle is
    rotated about the prism axis so the strut twist angle is ``twist`` and moved along
    the axis so the struts keep their length.
    """
    S = load_tensegrity_prism()
    k_cable = scale * S.force_densities[~S.is_strut]
    forces_ref = scale * S.forces
    L = float(S.lengths[S.is_strut][0])
    if twist is None:
        X = _perturb_nodes(S.nodes, S.struts, S.lengths[S.is_strut], perturbation, seed)
    else:
        X = _symmetric_prism(S, np.radians(twist), L)
    rest = np.zeros(len(k_cable))
    return _build(S, X, k_cable, c, rest, forces_ref, "tensegrity-prism",
                  dict(scale=scale, perturbation=perturbation, seed=seed, twist=twist))


def _symmetric_prism(S, alpha, L):
    """Regular prism on the file's base triangle with strut twist ``alpha`` and strut length L."""
    X0 = S.nodes
    bot, top = S.struts[:, 0], S.struts[:, 1]
    cb = X0[bot].mean(axis=0)
    r = np.linalg.norm(X0[bot[0]] - cb)
    chord2 = 2 * r * r * (1 - np.cos(alpha))
    if chord2 >= L * L:
        raise ValueError(f"no prism with twist {np.degrees(alpha)} deg: the struts are too short")
    h = np.sqrt(L * L - chord2)
    X = np.array(X0, dtype=float)
    for b, t in zip(bot, top):
        rb = X0[b] - cb
        phi = np.arctan2(rb[1], rb[0]) + alpha
        X[t] = cb + (0.0, 0.0, h) + r * np.array([np.cos(phi), np.sin(phi), 0.0])
    return X


# ---------------------------------------------------------------------------
# studies: form-finding, P1's energy plot, P1's Jacobian table
# ---------------------------------------------------------------------------


def form_finding(t, damping="kinetic", h=0.01, **options):
    """Relax a :class:`Tensegrity` (see :func:`flexmbd.solvers.relaxation.relax`)."""
    from ..solvers.relaxation import relax

    return relax(t.model, h=h, damping=damping, **options)


def energy_run(k=P1_K, c=P1_C, t_end=0.3, h=P1_H, **build_options):
    """P1's energy run: free motion of the perturbed tower, Newmark β = 0.3, γ = 0.6.

    Returns (tensegrity, Result, dict of energy histories): ``total`` (kinetic +
    spring), ``damper`` (work of the cable dampers) and ``numerical`` (= initial −
    remaining − damper work).
    """
    import warnings

    from ..solvers.integrators import Newmark

    t = build_tower(k=k, c=c, **build_options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = t.model.simulate(t_end=t_end, h=h, integrator=Newmark(P1_BETA, P1_GAMMA), tol=P1_TOL,
                               max_iter=P1_MAX_ITER, convergence="residual",
                               multipliers="integrator")
    total = res["energy.kinetic"] + res["energy.potential"]
    e = {"kinetic": res["energy.kinetic"], "spring": res["energy.potential"], "total": total,
         "damper": res["energy.dissipated"], "numerical": res["energy.numerical_dissipation"]}
    return t, res, e


#: (k [N/m], c [N s/m]) of the Jacobian study; the last two are stiff and undamped.
JACOBIAN_CASES = ((200.0, 0.0), (200.0, 10.0), (200.0, 100.0), (2e3, 0.0), (2e3, 10.0), (2e3, 100.0),
                  (2e4, 0.0), (2e4, 10.0), (2e4, 100.0), (3e5, 0.0), (1e6, 0.0))
JACOBIAN_PARTS = ("M1", "M1+M2", "M1+M3", "M1+M2+M3")


def jacobian_study(cases=JACOBIAN_CASES, parts=JACOBIAN_PARTS, steps=100, h=P1_H, **build_options):
    """P1's table: mean Newton iterations and time over the first ``steps`` steps.

    Every (k, c, part) runs the perturbed tower from rest with Newmark β = 0.3, γ = 0.6,
    tolerance 1e-7, at most 1000 iterations a step and *no* step halving, so a step
    that Newton cannot solve at h ends the run.  Returns a list of dicts with k, c,
    part, success, steps (completed), mean_iterations, max_iterations, seconds (wall
    time of the completed steps), ms_per_step, message.
    """
    import time
    import warnings

    from ..solvers.integrators import Newmark

    rows = []
    for k, c in cases:
        for part in parts:
            t = build_tower(k=k, c=c, **build_options)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c0 = time.perf_counter()
                res = t.model.simulate(t_end=steps * h, h=h, integrator=Newmark(P1_BETA, P1_GAMMA), tol=P1_TOL,
                                       max_iter=P1_MAX_ITER, jacobian=part, max_halvings=0, convergence="residual",
                                       multipliers="integrator")
                wall = time.perf_counter() - c0
            it = res.stats["iterations"][1:]
            sec = float(np.sum(res.stats["seconds"][1:]))
            rows.append(dict(k=k, c=c, part=part, success=bool(res.success), steps=int(len(it)),
                             mean_iterations=float(it.mean()) if len(it) else float("nan"),
                             max_iterations=int(it.max()) if len(it) else 0,
                             seconds=sec if len(it) else wall, ms_per_step=1e3 * sec / len(it) if len(it) else
                             float("nan"), wall=wall, message=res.message))
    return rows


def jacobian_table_markdown(rows):
    """The rows of :func:`jacobian_study` as a markdown table (one line per (k, c))."""
    parts = list(dict.fromkeys(r["part"] for r in rows))
    out = ["| k [N/m] | c [N s/m] | " + " | ".join(parts) + " |",
           "|---:|---:|" + "---|" * len(parts)]
    for key in dict.fromkeys((r["k"], r["c"]) for r in rows):
        cells = []
        for part in parts:
            r = next(x for x in rows if (x["k"], x["c"]) == key and x["part"] == part)
            if r["success"]:
                cells.append(f"{r['mean_iterations']:.2f} it, {r['ms_per_step']:.2f} ms")
            else:
                cells.append(f"fails at step {r['steps'] + 1} ({_reason(r['message'])})")
        out.append(f"| {key[0]:g} | {key[1]:g} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _reason(message):
    if "not finite" in message:
        return "diverged to inf"
    if "no convergence" in message:
        return "no convergence in 1000 it"
    if "singular" in message:
        return "singular matrix"
    return message[:40]


# ---------------------------------------------------------------------------
# registered examples
# ---------------------------------------------------------------------------


def tower_summary(t, q):
    """Member-length errors, force ratios and equilibrium numbers of a tower state."""
    f = t.member_forces(q)
    ref = t.structure.forces
    skew = t.strut_forces(q)[1]
    return dict(max_length_error=float(np.abs(t.length_errors(q)).max()),
                max_bar_length_error=float(np.abs(t.length_errors(q)[t.strut_index]).max()),
                max_force_ratio_error=float(np.abs(f / np.linalg.norm(f) - ref / np.linalg.norm(ref)).max()),
                max_force_error=float(np.abs(f / t.forces_ref - 1).max()),
                min_cable_tension=float(f[t.cable_index].min()),
                max_cable_tension=float(f[t.cable_index].max()),
                max_strut_compression=float(-f[t.strut_index].min()),
                min_strut_compression=float(-f[t.strut_index].max()),
                bar_end_force_misalignment=float(skew.max()),
                nodal_residual=t.nodal_residual(q))


@example("tensegrity-tower", "P1 tensegrity form-finding: two-stage tower, dynamic relaxation, energy plot")
def run(out_dir, quiet=False):
    """Form-find the two-stage tower from a perturbed start; P1's energy plot."""
    t = build_tower()
    rel = form_finding(t, "kinetic", h=P1_H)
    s = tower_summary(t, rel.q)
    tt, res, e = energy_run()
    if not quiet:
        print(f"Two-stage tensegrity tower (6 rigid bars, 24 cables), k = {P1_K:g} N/m, c = {P1_C:g} N s/m, "
              f"prestress scale {TOWER_PRESTRESS:g} N, start: nodes moved by up to 3 % of the bar length")
        print("form-finding by dynamic relaxation (kinetic damping, Newmark β = 0.3, γ = 0.6, h = 0.01 s):")
        print("  " + rel.summary().replace("\n", "\n  "))
        print(f"  max |member length / closed form − 1| = {s['max_length_error']:.2e} (bars {s['max_bar_length_error']:.1e})")
        print(f"  max |normalised force − file's normalised force| = {s['max_force_ratio_error']:.2e}")
        print(f"  cable tensions {s['min_cable_tension']:.4f} … {s['max_cable_tension']:.4f} N (all taut); "
              f"bar compressions {s['min_strut_compression']:.4f} … {s['max_strut_compression']:.4f} N")
        print(f"  nodal force residual {s['nodal_residual']:.2e} N")
        print(f"P1 energy run 0–0.3 s (h = 0.01 s, tol 1e-7): {res.summary()}")
        print(f"  kinetic + spring energy {e['total'][0]:.5f} J → {e['total'][-1]:.5f} J; damper work "
              f"{e['damper'][-1]:.5f} J; numerical dissipation {e['numerical'][-1]:+.5f} J")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(res.t, e["total"], label="kinetic + spring energy")
    ax.plot(res.t, e["damper"], label="dissipated by the cable dampers")
    ax.plot(res.t, e["numerical"], label="numerical dissipation = initial − remaining − damper work")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title("P1 tensegrity tower: k = 200 N/m, c = 10 N s/m, Newmark β = 0.3, γ = 0.6, h = 0.01 s",
                 fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out_dir / "tensegrity_tower_energy.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    if not quiet:
        print(f"plot written to {path}")
    return {**s, "converged": rel.converged, "steps": rel.steps, "newton_iterations": rel.total_iterations,
            "energy_initial": float(e["total"][0]), "energy_final": float(e["total"][-1]),
            "damper_work": float(e["damper"][-1]), "numerical_dissipation": float(e["numerical"][-1]),
            "mean_iterations_energy_run": res.mean_iterations(), "plot": str(path)}


@example("tensegrity-prism", "3-strut tensegrity prism: dynamic relaxation to the 150° twist")
def run_prism(out_dir, quiet=False):
    """Relax the prism from symmetric starts at 120° and 170° and from a random one."""
    out = {}
    for label, kw in (("start twist 120°", dict(twist=120.0)), ("start twist 170°", dict(twist=170.0)),
                      ("random 3 % node perturbation", dict(perturbation=0.03))):
        p = build_prism(**kw)
        rel = form_finding(p, "kinetic", h=0.05)
        tw0, tw = p.twist(p.start_q()), p.twist(rel.q)
        f = p.member_forces(rel.q)
        L = p.member_lengths(rel.q)
        qs = f[p.strut_index] / L[p.strut_index]
        if not quiet:
            print(f"prism, {label}: twist {tw0:.4f}° → {tw:.9f}° in {rel.steps} steps "
                  f"({rel.total_iterations} Newton iterations, {rel.resets} resets); strut force density "
                  f"{qs.mean():.6f} N/m (expected {p.info['scale'] * p.structure.extra['q_strut']:.6f})")
        out[label] = dict(twist_start=tw0, twist=tw, steps=rel.steps, converged=rel.converged)
    return out


if __name__ == "__main__":  # python -m flexmbd.examples.tensegrity: print P1's table
    import platform

    rows = jacobian_study()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(jacobian_table_markdown(rows))
