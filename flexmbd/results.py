"""Results of a run: time series of q, q', q'', λ, per-step solver statistics, and
named outputs computed from them (positions, spring lengths and forces, driver loads,
joint reactions, energies)."""
from __future__ import annotations

import numpy as np

from .errors import ModelError
from .ground import GROUND
from .nodes import PLANAR
from .services import service

STAT_FIELDS = ("iterations", "refreshes", "factorizations", "seconds", "substeps")
#: outputs every node has (:meth:`flexmbd.nodes.NodeKind.output`)
NODE_OUTPUTS = ("position", "velocity", "orientation", "angular_velocity")


class Result:
    def __init__(self, system, integrator=None, h=None):
        self.system = system
        self.integrator = integrator
        self.h = h
        #: the stored rows so far, as chunks of consecutive rows (one per ``append``, one per
        #: ``extend``), joined once by :meth:`finish`
        self._rows = {k: [] for k in ("t", "q", "v", "qdd", "a", "lam")}
        self._stats = {k: [] for k in STAT_FIELDS}
        self.success = True
        self.message = "completed"
        self.assembly = None
        self.wall_time = 0.0
        #: seconds spent compiling kernels during the steps (first run only), not in wall_time
        self.compile_seconds = 0.0
        #: outputs a solver records itself, per stored step (e.g. the set-valued friction
        #: force of the event-driven solver): name → rows; they take precedence over the
        #: outputs computed from (q, q', λ)
        self._extra_rows: dict[str, list] = {}
        self.extra: dict[str, np.ndarray] = {}
        #: events a solver located: (time, element, kind) (e.g. stick/slip switches)
        self.events: list[tuple[float, str, str]] = []
        #: what the user must know about how the numbers were obtained (tolerance misses,
        #: fallbacks), each said once; shown by :meth:`summary`, saved with the results
        self.notes: list[str] = []
        self._cache = {}

    # ---------------------------------------------------------- recording
    def append(self, state, extra: dict | None = None, **stats):
        for name, val in (extra or {}).items():
            self._extra_rows.setdefault(name, []).append(val)
        for k, val in (("t", state.t), ("q", state.q), ("v", state.v), ("qdd", state.qdd), ("a", state.a),
                       ("lam", state.lam)):
            self._rows[k].append(np.array(val, dtype=float)[None])
        for k in STAT_FIELDS:
            self._stats[k].append(stats[k])
        self._cache.clear()

    def extend(self, t, q, v, qdd, a, lam, **stats) -> None:
        """Append many rows at once (one per entry of ``t``; ``stats``: an array per field
        of :data:`STAT_FIELDS`), as :meth:`append` row by row."""
        for k, rows in (("t", t), ("q", q), ("v", v), ("qdd", qdd), ("a", a), ("lam", lam)):
            self._rows[k].append(np.array(rows, dtype=float))
        for k in STAT_FIELDS:
            self._stats[k].extend(np.asarray(stats[k]).tolist())
        self._cache.clear()

    def note(self, text: str) -> None:
        """Record a note (once)."""
        if text not in self.notes:
            self.notes.append(text)

    def fail(self, message):
        self.success = False
        self.message = message

    def last_time(self) -> float | None:
        """The time of the last row recorded so far (None before the first)."""
        t = self._rows["t"]
        return float(t[-1][-1]) if t else None

    def finish(self):
        for k, rows in self._rows.items():
            setattr(self, k, np.concatenate(rows) if rows else np.array([]))
        self.stats = {k: np.array(v) for k, v in self._stats.items()}
        self.extra = {k: np.array(v) for k, v in self._extra_rows.items()}
        #: "compiled", or "generic: <why>" (System.assembly)
        self.stats["assembly"] = getattr(self.system, "assembly", "")
        #: the steps made in compiled blocks ("compiled") or "per step: <why>" (solvers/compiled_loop.py)
        if getattr(self, "time_loop", None):
            self.stats["time_loop"] = self.time_loop

    # ---------------------------------------------------------- statistics
    @property
    def steps(self):
        return len(self.t) - 1

    @property
    def computed_steps(self) -> int:
        """Steps the integrator took (more than :attr:`steps`, the stored ones, when only
        every k-th step was stored: ``output_every``)."""
        adaptive = getattr(self, "adaptive", None)
        if adaptive:
            return int(adaptive["accepted"])
        if getattr(self, "steps_taken", None) is not None:
            return int(self.steps_taken)
        every = getattr(self, "output_every", 1)
        if every == 1 or not self.h or len(self.t) < 2:
            return self.steps
        return int(round((self.t[-1] - self.t[0]) / self.h))

    def mean_iterations(self):
        it = self.stats["iterations"][1:]
        return float(np.sum(it) / self.computed_steps) if len(it) else 0.0

    def max_iterations(self):
        it = self.stats["iterations"][1:]
        return int(np.max(it)) if len(it) else 0

    def summary(self):
        method = self.integrator.get("name") if isinstance(self.integrator, dict) else None
        if method in ("event-driven", "moreau-jean"):      # set-valued friction: no Newton iterations
            work = "acceleration solves" if method == "event-driven" else "LCP pivots"
            kinds = {}
            for _, _, kind in self.events:
                kinds[kind] = kinds.get(kind, 0) + 1
            s = (f"{'completed' if self.success else 'FAILED'} ({method}): {self.steps} steps to t = "
                 f"{self.t[-1]:.6g} s, {self.stats['iterations'][1:].sum()} {work}, {len(self.events)} events"
                 + (f" ({', '.join(f'{n} {k}' for k, n in kinds.items())})" if kinds else "")
                 + f", {self.wall_time:.3f} s wall")
            return s + ("\n" + self.message if not self.success else "")
        every = getattr(self, "output_every", 1)
        stored = f" ({self.steps} stored: every {every} steps)" if every > 1 else ""
        if getattr(self, "adaptive", None) or self.computed_steps != self.steps and not stored:
            stored = f" ({self.steps} stored)"
        peak = f", max {self.max_iterations()}" if not stored else ""
        s = (f"{'completed' if self.success else 'FAILED'}: {self.computed_steps} steps{stored} to t = "
             f"{self.t[-1]:.6g} s, {self.stats['iterations'][1:].sum()} Newton iterations "
             f"(mean {self.mean_iterations():.2f}{peak} per step), "
             f"{self.stats['factorizations'].sum()} factorizations, {self.wall_time:.3f} s wall")
        if self.events:
            s += f"; {len(self.events)} events"
        sub = np.asarray(self.stats.get("substeps", []))[1:]
        covered = np.maximum(1, np.round(np.diff(self.t) / self.h)) if every > 1 and sub.size else 1
        adaptive = getattr(self, "adaptive", None)
        settings = getattr(self, "settings", None) or {}
        controlled = bool(adaptive) or bool(settings.get("rtol"))
        if getattr(self, "steps_taken", None) is not None or settings.get("output_times"):
            # stored rows cover several steps: halvings are the sub-steps beyond the steps taken
            extra = int(sub.sum()) - self.computed_steps
            if extra > 0 and not controlled:
                s += f"; steps halved ({extra} extra sub-steps)"
            controlled = True
        if adaptive:
            s += (f"; error-controlled: {adaptive['accepted']} steps ({adaptive['rejected']} rejected), h from "
                  f"{adaptive['h_smallest']:.3g} to {adaptive['h_largest']:.3g} s")
        elif sub.size and np.any(sub > covered) and not controlled:
            halved = sub > covered
            count = f"{int(halved.sum())} steps" if every == 1 else f"steps in {int(halved.sum())} stored intervals"
            s += (f"; {count} halved ({int((sub - covered).sum())} extra sub-steps; first by "
                  f"t = {self.t[1:][halved][0]:.6g} s)")
        for note in getattr(self, "notes", ()):
            s += "\nnote: " + note
        if not self.success:
            s += "\n" + self.message
        return s

    # ---------------------------------------------------------- outputs
    def names(self):
        """Every named output this result can give."""
        sys = self.system
        out = ["energy.kinetic", "energy.potential", "energy.dissipated", "energy.external_work",
               "energy.total", "energy.numerical_dissipation"]
        for b in sys.model.bodies:
            out += [f"{b.name}.{k}" for k in NODE_OUTPUTS]
        for e in sys.model.elements:
            out += [f"{e.name}.{key}" for key in e.type.outputs(e, sys)]
        for g in sys.force_groups:
            for nm in g.element_names if g.output_names else ():
                out += [f"{nm}.{key}" for key in g.output_names]
        out += [f"{owner}.multipliers" for owner in sys.owner_equations]
        return out + [k for k in self.extra if k not in out]

    def __getitem__(self, name):
        if name not in self._cache:
            self._cache[name] = self._output(name)
        return self._cache[name]

    def _group_outputs(self, k, group):
        """Every output of force group ``k`` at every stored step, {name: (steps, n_el, …)},
        evaluated once (one call per step for all its elements and outputs)."""
        key = ("group outputs", k)          # not an output name: names are strings
        if key not in self._cache:
            sys = self.system
            rows = [group.outputs(sys.extend(q), sys.extend_velocity(v), t, lam)
                    for t, q, v, lam in zip(self.t, self.q, self.v, self.lam)]
            self._cache[key] = {what: np.array([r[what] for r in rows]) for what in group.output_names}
        return self._cache[key]

    def _output(self, name):
        if name in self.extra:
            return self.extra[name]
        sys = self.system
        if name.startswith("energy."):
            if "_energies" not in self._cache:
                self._cache["_energies"] = self._energy()
            return self._cache["_energies"][name.split(".", 1)[1]]
        owner, _, what = name.rpartition(".")
        model = sys.model
        for b in model.bodies:
            if b.name == owner and what in NODE_OUTPUTS:
                return b.kind.output(what, self.q[:, sys.config_slice(b)], self.v[:, sys.body_slice(b)])
        for e in model.elements:
            if e.name == owner and what in e.type.outputs(e, sys):
                return e.type.output(e, what, self)
        for k, g in enumerate(sys.force_groups):
            if what in g.output_names and owner in g.element_names:
                return self._group_outputs(k, g)[what][:, g.element_names.index(owner)]
        if what == "multipliers" and owner in sys.owner_equations:
            return self.multipliers(owner)
        if what in NODE_OUTPUTS and "." in owner:   # an alias of an owned node: rod.last.position
            try:
                node = model.resolve_body(owner)
            except ModelError:
                node = None
            if node is not None and node is not GROUND:
                return self[f"{node.name}.{what}"]
        raise KeyError(f"no output named {name!r}; available: {', '.join(self.names())}")

    def multipliers(self, owner: str) -> np.ndarray:
        """The multipliers of an element's equations (rows: times)."""
        return self.lam[:, self.system.owner_equations[owner]]

    def reaction(self, element) -> np.ndarray:
        """Force of a joint on body j (on body i, negated, if j is ground), global axes.

        The constraint force on a body is −Φ_qᵀλ; its translational components (the
        body's origin coordinates) are the net force, whatever the joint type and
        whichever of its equations were removed as redundant.
        """
        sys = self.system
        rows = np.asarray(sys.owner_equations[element.name])
        body, sign = (element.bodies[1], 1.0) if element.bodies[1] is not GROUND else (element.bodies[0], -1.0)
        k = 3 if body.kind != PLANAR else 2
        target = np.arange(sys.body_slice(body).start, sys.body_slice(body).stop)[:k]
        out = np.zeros((len(self.t), 3))
        QE = np.hstack([self.q, np.broadcast_to(sys.extend(self.q[0])[sys.n_q:], (len(self.t), sys.n_q_ext - sys.n_q))]) \
            if len(self.t) else np.zeros((0, sys.n_q_ext))
        for g in sys.constraint_groups:        # all stored steps at once, group by group
            local = rows[(rows >= g.first_row) & (rows < g.first_row + len(g))] - g.first_row
            if not len(local):
                continue
            Jq = g.jacobian_steps(QE, self.t, local)                        # (steps, equations, columns)
            force = Jq * self.lam[:, g.first_row + local][:, :, None]         # λ_e ∂φ_e/∂q per column
            idx = g.dof_index[local]
            for i, c in enumerate(target):
                out[:, i] -= sign * force[:, idx == c].sum(axis=1)
        return out

    def _energy(self):
        sys = self.system
        ke = np.array([sys.kinetic_energy(q, v) for q, v in zip(self.q, self.v)])
        pe = np.array([sys.potential_energy(q, t) for t, q in zip(self.t, self.q)])
        pw = np.array([sys.dissipation_power(q, v, t, lam) for t, q, v, lam in zip(self.t, self.q, self.v, self.lam)])
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

    def view(self, path=None, plot=None, max_frames: int = 2000, height: int = 640):
        """The interactive 3D page of this run (:mod:`flexmbd.viewer`, docs/viewer.md): shown
        inline in Jupyter, written to ``path`` (one self-contained HTML file) when given.
        ``plot``: output names for the page's plot (default: positions of moving bodies)."""
        return service("view_result")(self, path=path, plot=plot, max_frames=max_frames, height=height)

    # ---------------------------------------------------------- files
    @classmethod
    def load(cls, path, model=None):
        """Read a results file written by ``flexmbd run`` or :meth:`save` (HDF5, see
        docs/results-and-pictures.md; :func:`flexmbd.io.results_h5.load_result`); ``model``
        (Model or System) enables every output."""
        return service("load_result")(path, model=model)

    def save(self, path, model_text=None, settings=None):
        """Write this result to an HDF5 file (the layout of :class:`flexmbd.io.results_h5.ResultWriter`)."""
        return service("save_result")(self, path, model_text=model_text, settings=settings)

    def arrays(self, *names):
        """Plain NumPy arrays: ``{"t": t, name: output, ...}`` (all outputs if no names)."""
        return {"t": np.asarray(self.t), **{nm: np.asarray(self[nm]) for nm in (names or self.names())}}
