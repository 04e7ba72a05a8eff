"""Results of a run: time series of q, q', q'', λ, per-step solver statistics, and
named outputs computed from them (positions, spring lengths and forces, driver loads,
joint reactions, energies)."""
from __future__ import annotations

import numpy as np

from .ground import GROUND
from .nodes import PLANAR, POINT

STAT_FIELDS = ("iterations", "refreshes", "factorizations", "seconds", "substeps")
#: outputs every node has (:meth:`flexmbd.nodes.NodeKind.output`)
NODE_OUTPUTS = ("position", "velocity", "orientation", "angular_velocity")


class Result:
    def __init__(self, system, integrator=None, h=None):
        self.system = system
        self.integrator = integrator
        self.h = h
        self._rows = {k: [] for k in ("t", "q", "v", "qdd", "a", "lam")}
        self._stats = {k: [] for k in STAT_FIELDS}
        self.success = True
        self.message = "completed"
        self.assembly = None
        self.wall_time = 0.0
        self._cache = {}

    # ---------------------------------------------------------- recording
    def append(self, state, **stats):
        for k, val in (("t", state.t), ("q", state.q), ("v", state.v), ("qdd", state.qdd), ("a", state.a),
                       ("lam", state.lam)):
            self._rows[k].append(np.array(val, dtype=float))
        for k in STAT_FIELDS:
            self._stats[k].append(stats[k])
        self._cache.clear()

    def fail(self, message):
        self.success = False
        self.message = message

    def finish(self):
        for k, rows in self._rows.items():
            setattr(self, k, np.array(rows))
        self.stats = {k: np.array(v) for k, v in self._stats.items()}

    # ---------------------------------------------------------- statistics
    @property
    def steps(self):
        return len(self.t) - 1

    def mean_iterations(self):
        it = self.stats["iterations"][1:]
        return float(np.mean(it)) if len(it) else 0.0

    def max_iterations(self):
        it = self.stats["iterations"][1:]
        return int(np.max(it)) if len(it) else 0

    def summary(self):
        s = (f"{'completed' if self.success else 'FAILED'}: {self.steps} steps to t = {self.t[-1]:.6g} s, "
             f"{self.stats['iterations'][1:].sum()} Newton iterations "
             f"(mean {self.mean_iterations():.2f}, max {self.max_iterations()} per step), "
             f"{self.stats['factorizations'].sum()} factorizations, {self.wall_time:.3f} s wall")
        if not self.success:
            s += "\n" + self.message
        return s

    # ---------------------------------------------------------- outputs
    def names(self):
        """Every named output this result can give."""
        out = ["energy.kinetic", "energy.potential", "energy.dissipated", "energy.external_work",
               "energy.total", "energy.numerical_dissipation"]
        for b in self.system.model.bodies:
            out += [f"{b.name}.{k}" for k in NODE_OUTPUTS]
        for e in self.system.model.elements:
            if e.kind == "marker":
                out += [f"{e.name}.position", f"{e.name}.velocity"]
        for g in self.system.force_groups:
            for nm in g.element_names if g.output_names else ():
                out += [f"{nm}.{key}" for key in g.output_names]
        for owner in self.system.owner_equations:
            out.append(f"{owner}.multipliers")
            spec = self._spec(owner)
            if spec is not None and spec.kind == "rotation_driver":
                out.append(f"{owner}.torque")
            elif spec is not None and spec.kind == "translation_driver":
                out.append(f"{owner}.force")
            elif spec is not None and spec.kind != "marker":
                out.append(f"{owner}.reaction")
        return out

    def _spec(self, name):
        for e in self.system.model.elements:
            if e.name == name:
                return e
        return None

    def __getitem__(self, name):
        if name not in self._cache:
            self._cache[name] = self._output(name)
        return self._cache[name]

    def _output(self, name):
        sys = self.system
        if name.startswith("energy."):
            if "_energies" not in self._cache:
                self._cache["_energies"] = self._energy()
            return self._cache["_energies"][name.split(".", 1)[1]]
        owner, _, what = name.rpartition(".")
        for b in sys.model.bodies:
            if b.name == owner:
                if what in NODE_OUTPUTS:
                    return b.kind.output(what, self.q[:, sys.config_slice(b)], self.v[:, sys.body_slice(b)])
        spec = self._spec(owner)
        if spec is not None and spec.kind == "marker" and what in ("position", "velocity"):
            return self._marker(spec, what)
        for g in sys.force_groups:
            if what in g.output_names and owner in g.element_names:
                i = g.element_names.index(owner)
                rows = [g.outputs(sys.extend(q), sys.extend_velocity(v), t)[what][i]
                        for t, q, v in zip(self.t, self.q, self.v)]
                return np.array(rows)
        if owner in sys.owner_equations:
            lam = self.lam[:, sys.owner_equations[owner]]
            spec = self._spec(owner)
            if what == "multipliers":
                return lam
            if what in ("torque", "force") and spec.kind.endswith("driver"):
                return -lam[:, 0]
            if what == "reaction":
                return self._reaction(spec, sys.owner_equations[owner])
        raise KeyError(f"no output named {name!r}; available: {', '.join(self.names())}")

    def _reaction(self, spec, rows):
        """Force of the joint on body j (on body i, negated, if j is ground), global axes.

        The constraint force on a body is −Φ_qᵀλ; its translational components (the
        body's centre-of-mass coordinates) are the net force, whatever the joint type and
        whichever of its equations were removed as redundant.
        """
        sys = self.system
        body, sign = (spec.bodies[1], 1.0) if spec.bodies[1] is not GROUND else (spec.bodies[0], -1.0)
        s = sys.body_slice(body)
        k = 3 if body.kind != PLANAR else 2
        out = np.empty((len(self.t), 3))
        out[:, 2] = 0.0
        for i, (t, q, lam) in enumerate(zip(self.t, self.q, self.lam)):
            Jq = sys.constraint_jacobian(sys.extend(q), t)[rows][:, s]
            out[i, :k] = -sign * (Jq.T @ lam[rows])[:k]
        return out

    def _marker(self, spec, what):
        """Position or velocity of a body-fixed point, from the stored q and q'."""
        from .model import body_rotation

        b = spec.bodies[0]
        u = body_rotation(b).T @ (spec.data["at"] - b.position)
        sc, s = self.system.config_slice(b), self.system.body_slice(b)
        ms = b.kind.markers(np.tile(u, (len(self.t), 1)), np.full(len(self.t), POINT))
        x, J = ms.evaluate(self.q[:, sc])
        return x if what == "position" else np.einsum("nij,nj->ni", J, self.v[:, s])

    def _energy(self):
        sys = self.system
        ke = np.array([sys.kinetic_energy(q, v) for q, v in zip(self.q, self.v)])
        pe = np.array([sys.potential_energy(q, t) for t, q in zip(self.t, self.q)])
        pw = np.array([sys.dissipation_power(q, v, t) for t, q, v in zip(self.t, self.q, self.v)])
        lw = np.array([sys.external_power(q, v, t, lam) for t, q, v, lam in zip(self.t, self.q, self.v, self.lam)])
        dt = np.diff(self.t)
        dissipated = np.r_[0.0, np.cumsum(0.5 * (pw[1:] + pw[:-1]) * dt)]
        work = np.r_[0.0, np.cumsum(0.5 * (lw[1:] + lw[:-1]) * dt)]
        total = ke + pe
        return {"kinetic": ke, "potential": pe, "dissipated": dissipated, "external_work": work,
                "total": total, "numerical_dissipation": total[0] + work - total - dissipated}

    def plot(self, *names, path=None, ax=None):
        """Plot named outputs against time; saves to ``path`` if given."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        own = ax is None
        if own:
            fig, ax = plt.subplots(figsize=(7, 4))
        for nm in names:
            y = self[nm]
            if y.ndim == 1:
                ax.plot(self.t, y, label=nm)
            else:
                for j in range(y.shape[1]):
                    ax.plot(self.t, y[:, j], label=f"{nm}[{j}]")
        ax.set_xlabel("time [s]")
        ax.legend()
        ax.grid(True, alpha=0.3)
        if own and path is not None:
            fig.tight_layout()
            fig.savefig(path, dpi=120)
            plt.close(fig)
        return ax

    # ---------------------------------------------------------- files
    @classmethod
    def load(cls, path, model=None):
        """Read a results file written by ``flexmbd run`` or :meth:`save` (HDF5, see
        docs/results-and-pictures.md); ``model`` (Model or System) enables every output."""
        from .io.results_h5 import load_result

        return load_result(path, model=model)

    def save(self, path, model_text=None, settings=None):
        """Write this result to an HDF5 file (the layout of :class:`flexmbd.io.results_h5.ResultWriter`)."""
        from .io.results_h5 import save_result

        return save_result(self, path, model_text=model_text, settings=settings)

    def arrays(self, *names):
        """Plain NumPy arrays: ``{"t": t, name: output, ...}`` (all outputs if no names)."""
        return {"t": np.asarray(self.t), **{nm: np.asarray(self[nm]) for nm in (names or self.names())}}
