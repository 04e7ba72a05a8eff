"""Timing of SE(3) beam models: P3's crank-slider (time per Newton iteration) and static
cantilevers of 16/64/256 elements.  Run with PYTHONPATH=<repo> (FLEXMBD_NUMBA=0 for NumPy)."""
import sys
import time
import warnings

warnings.simplefilter("ignore")
import flexmbd as fm
from flexmbd.beams.sections import Section
from flexmbd.examples import p3_beams as P


def crank_slider(t_end=0.01):
    pm = P.crank_slider("I", (4, 6))
    res = pm.model.simulate(t_end=t_end, h=1e-4, integrator=fm.GeneralizedAlpha(0.8), convergence="increment",
                            tol=1e-6)
    return res.newton, res.wall_time, res.newton.iterations


def cantilever(n):
    sec = Section.rectangle(0.01, 0.02, E=2.1e11, nu=0.3, rho=7800.0)
    m = fm.Model()
    b = m.beam("rod", section=sec, elements=n, start=(0, 0, 0), end=(1, 0, 0))
    m.fixed(fm.GROUND, b.first)
    m.force(b.last, (30, 20, 400), at=b.last.position)
    t0 = time.perf_counter()
    res = m.static_equilibrium(load_steps=10, convergence="increment", tol=1e-10)
    return time.perf_counter() - t0, res


if __name__ == "__main__":
    crank_slider(0.0003)  # warm-up (compilation / caches)
    newton, wall, it = crank_slider()
    print(f"crank-slider: newton={newton} wall={wall:.3f} s  per iteration {1e3 * wall / it:.3f} ms")
    for n in (16, 64, 256):
        cantilever(n)
        best = min(cantilever(n)[0] for _ in range(2))
        print(f"cantilever {n:4d} elements: {best:.3f} s")
    sys.stdout.flush()
