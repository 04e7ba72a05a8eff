"""A chain of sliders with friction (Burridge–Knopoff): N blocks on a rail, each in a
prismatic joint to ground with Coulomb friction (μ0 = 0.6, μ = 0.4), neighbours joined by
springs, the first block pulled through a spring by a point moving at constant speed.
Stick–slip travels along the chain: many switches, the case for time-stepping.

    python -m benchmarks.friction_chain [N ...]      # default 20 50 100 200

Prints the 20-slider chain over 5 s (h = 1e-3) by time-stepping and event-driven (wall time,
per step, LCP pivots or acceleration solves, stick/slip events, where the last block ends),
then the cost per step of time-stepping for each N over 0.5 s.
"""
from __future__ import annotations

import sys
import time


import flexmbd as fm


def chain(n: int, k: float = 200.0, k_pull: float = 100.0, v_pull: float = 1.0, spacing: float = 0.5) -> fm.Model:
    m = fm.Model(gravity=(0.0, -9.81, 0.0), name=f"friction-chain-{n}")
    puller = m.planar_body("puller", mass=1.0, inertia=1.0, position=(-spacing, 0.0), velocity=(v_pull, 0.0))
    m.prismatic("ground", puller, at=(-spacing, 0.0), axis=(1, 0, 0), name="puller_rail")
    m.translation_driver("ground", puller, at=(-spacing, 0.0, 0.0), axis=(1, 0, 0), speed=v_pull, name="pull")
    prev, k_prev = puller, k_pull
    for i in range(n):
        x = i * spacing
        b = m.planar_body(f"b{i}", mass=1.0, inertia=0.1, position=(x, 0.0))
        rail = m.prismatic("ground", b, at=(x, 0.0), axis=(1, 0, 0), name=f"rail{i}")
        m.joint_friction(joint=rail, mu=0.4, mu_static=0.6, name=f"f{i}")
        xp = x - spacing
        m.spring_damper(prev, b, at_i=(xp, 0.0, 0.0), at_j=(x, 0.0, 0.0), k=k_prev, c=0.5, name=f"s{i}")
        prev, k_prev = b, k
    return m


def run(n: int, method: str, t_end: float = 2.0, h: float = 1e-3) -> dict:
    model = chain(n)
    t0 = time.perf_counter()
    res = model.simulate(t_end=t_end, h=h, method=method)
    wall = time.perf_counter() - t0
    return dict(n=n, method=method, success=res.success, steps=res.steps, wall=wall, per_step=wall / max(res.steps, 1),
                work=int(res.stats["iterations"][1:].sum()), events=len(res.events),
                x_first=float(res["b0.position"][-1, 0]))


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [20, 50, 100, 200]
    print("| sliders | method | t_end [s] | steps | wall [s] | per step [ms] | LCP pivots / acceleration solves | "
          "events | first block x at the end [m] |")
    print("|---|---|---|---|---|---|---|---|---|")
    jobs = [(20, "time-stepping", 5.0), (20, "event-driven", 5.0)] + [(n, "time-stepping", 0.5) for n in sizes]
    for n, method, t_end in jobs:
        r = run(n, method, t_end)
        print(f"| {n} | {method} | {t_end:g} | {r['steps']} | {r['wall']:.2f} | {1e3 * r['per_step']:.2f} | "
              f"{r['work']} | {r['events']} | {r['x_first']:.6f} |" + ("" if r["success"] else " FAILED"), flush=True)
