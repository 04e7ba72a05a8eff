"""Independent reference for the planar crank-rocker with a frictional sliding joint.

The mechanism is the crank-rocker (crank, slotted rocker and a slider pinned to
the crank that slides in the rocker's slot) with Coulomb friction in the
sliding joint, as studied in: X. Wang, Q. Wang, F. Zhuang, "Dynamics of
planar rigid multibody systems with frictional sliding joints and driving
constraints" (2014).  Here it is solved by a separate Newton-Euler formulation
in one minimal coordinate, the crank angle.

Like :mod:`flexmbd.verify.references`, this module imports nothing from
flexmbd (only numpy and scipy), so that a bug in the library cannot enter the
reference.

Conventions
-----------
* Global frame: ``x`` right, ``y`` up; scalar cross product
  ``a x b = a_x b_y - a_y b_x`` (counter-clockwise moments positive).
* Angles are measured from the ``+y`` axis, counter-clockwise positive.
  Unit direction ``e(th) = (-sin th, cos th)`` and its normal
  ``e'(th) = de/dth = (-cos th, -sin th)``; ``e x e' = +1`` and
  ``de'/dth = -e``.
* Rocker pivot ``O = (0, 0)``; crank pivot ``O1 = (0, L4)``.
* Body 1, rocker: revolute joint at ``O``, angle ``th1``, mass ``m1``, centre
  of mass ``L1 e(th1)``, moment of inertia ``J1`` about ``O``; a linear
  resisting torque ``-c th1'`` acts on it.
* Body 2, crank: revolute joint at ``O1``, angle ``th2``, mass ``m2``, centre
  of mass ``O1 + L2 e(th2)``, moment of inertia ``J2`` about ``O1``.
* Body 3, slider: point mass ``m3`` pinned to the crank at
  ``B = O1 + L3 e(th2)``; it slides in a slot along the rocker's axis,
  ``B = rho e(th1)``, ``rho = |OB| > 0`` (here ``rho >= L4 - L3 > 0``).
* Gravity ``-g y`` acts on all three bodies.
* Normal force: the rocker pushes the slider with ``N e'(th1)``, ``N``
  signed (the slot has two sides, ``N > 0`` on one, ``N < 0`` on the other);
  the slider pushes the rocker with ``-N e'(th1)`` applied at ``B``.
* Coulomb friction on the slider along the slot: ``F_f e(th1)`` with
  ``F_f = -mu |N| sgn(rho')`` while sliding (``rho' = drho/dt`` is the
  relative sliding velocity); the reaction ``-F_f e(th1)`` acts on the rocker
  at ``B``.  With ``sigma = sgn(N)`` and ``s = sgn(rho')`` this is
  ``F_f = k N`` with ``k = -mu sigma s``, linear in ``N`` for each sign case.
  At an instant with ``rho' = 0`` the driven reference reports
  ``sgn(0) = 0``, i.e. ``F_f = 0``.
* Pin force ``P``: the force of the crank on the slider at ``B``; the slider
  acts on the crank with ``-P``.
* Motor torque ``tau``: counter-clockwise on the crank about ``O1`` (driven
  case only, driving constraint ``th2 = omega t``).

Free-body equations (Newton-Euler), with ``r_B = B - O1 = L3 e(th2)``::

    rocker, moments about O:
        J1 th1'' = L1 e1 x (0, -m1 g) - c th1' + B x (-N e1' - F_f e1)
    slider, Newton's law:
        m3 a_B   = N e1' + F_f e1 + P + (0, -m3 g)
    crank, moments about O1:
        J2 th2'' = L2 e2 x (0, -m2 g) + r_B x (-P) + tau

with ``e1 = e(th1)``, ``e2 = e(th2)``.  The kinematics is closed form:
``a_B = L3 th2'' e2' - L3 th2'^2 e2`` and ``th1''`` is affine in ``th2''``.
For each sign case ``sigma`` these are four linear equations in the unknowns
(``tau``, ``N``, ``P``) when ``th2`` is driven, or (``th2''``, ``N``,
``P``) when the crank is free (``tau = 0``); the consistent sign case
(``sgn(N) = sigma``) is kept.

Power balance (friction and normal force do work only through the relative
sliding velocity ``rho'``)::

    tau th2' = d(T + V)/dt + c th1'^2 + mu |N| |rho'|
    T = J1 th1'^2/2 + J2 th2'^2/2 + m3 |v_B|^2/2
    V = g (m1 L1 cos th1 + m2 (L4 + L2 cos th2) + m3 B_y)

All quantities are in SI units and angles in radians.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

__all__ = [
    "CrankRockerParameters",
    "CrankRockerKinematics",
    "CrankRockerDriven",
    "CrankRockerEvent",
    "CrankRockerFree",
    "PainleveError",
    "StickingError",
    "crank_rocker_parameters",
    "crank_rocker_kinematics",
    "crank_rocker_driven",
    "crank_rocker_free",
]


class PainleveError(RuntimeError):
    """Neither or both sign cases of the normal force are consistent (a
    Painleve-type situation: the rigid Coulomb problem has no or no unique
    solution)."""


class StickingError(NotImplementedError):
    """The slider would stick in the slot (``rho' = 0`` and no sliding
    direction is consistent); sticking is not modelled by this reference."""


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CrankRockerParameters:
    """Geometry, inertia and load data of the crank-rocker (SI units).

    Attributes
    ----------
    L4 : distance ``|O O1|`` between the rocker pivot and the crank pivot.
    L1, m1, J1 : rocker: distance ``O`` to centre of mass, mass, moment of
        inertia about ``O`` (a uniform rod of length 2 m: ``m1 (2 L1)^2/3``).
    L2, m2, J2 : crank: distance ``O1`` to centre of mass, mass, moment of
        inertia about ``O1``.
    L3, m3 : crank length ``|O1 B|`` and the slider's (point) mass.
    mu : kinetic Coulomb friction coefficient of the sliding joint.
    omega : crank speed of the driving constraint ``th2 = omega t``.
    c_values, g_values : damping coefficients [N m s/rad] and gravitational
        accelerations [m/s^2] of the load cases.
    """

    L4: float = 1.0
    L1: float = 1.0
    m1: float = 4.0
    J1: float = 16.0 / 3.0
    L2: float = 0.25
    m2: float = 2.0
    J2: float = 1.0 / 6.0
    L3: float = 0.5
    m3: float = 0.5
    mu: float = 0.2
    omega: float = 3.0
    c_values: tuple[float, ...] = (0.0, 8.0)
    g_values: tuple[float, ...] = (0.0, 9.81)


def crank_rocker_parameters() -> CrankRockerParameters:
    """The parameter set of the crank-rocker (the single source of the numbers).

    ``L4 = 1``, rocker ``L1 = 1, m1 = 4, J1 = 16/3`` (about ``O``), crank
    ``L2 = 0.25, m2 = 2, J2 = 1/6`` (about ``O1``), ``L3 = 0.5``, slider
    ``m3 = 0.5``, ``mu = 0.2``, ``omega = 3`` rad/s, ``c`` in ``{0, 8}``
    N m s/rad, ``g`` in ``{0, 9.81}`` m/s^2.
    """
    return CrankRockerParameters()


# ---------------------------------------------------------------------------
# Kinematics
# ---------------------------------------------------------------------------


def _e(th):
    return np.stack([-np.sin(th), np.cos(th)], axis=-1)


def _en(th):
    return np.stack([-np.cos(th), -np.sin(th)], axis=-1)


def _cross(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _dot(a, b):
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


@dataclass(frozen=True)
class CrankRockerKinematics:
    """Closed-form kinematics of the crank-rocker (arrays of the input shape).

    Attributes: ``theta1, dtheta1, ddtheta1`` (rocker angle and derivatives),
    ``rho, drho, ddrho`` (``|OB|`` and derivatives), ``B, vB, aB`` (slider
    position, velocity, acceleration, trailing axis of length 2).
    """

    theta1: np.ndarray
    dtheta1: np.ndarray
    ddtheta1: np.ndarray
    rho: np.ndarray
    drho: np.ndarray
    ddrho: np.ndarray
    B: np.ndarray
    vB: np.ndarray
    aB: np.ndarray


def crank_rocker_kinematics(theta2: np.ndarray | float, dtheta2: np.ndarray | float,
                            ddtheta2: np.ndarray | float,
                            params: CrankRockerParameters | None = None) -> CrankRockerKinematics:
    """Rocker angle and slider position with derivatives, from the crank motion.

    ``B = O1 + L3 e(th2)``, ``v_B = L3 th2' e'(th2)``,
    ``a_B = L3 th2'' e'(th2) - L3 th2'^2 e(th2)``.  ``B = rho e(th1)`` gives
    ``rho = |B|`` and ``th1 = atan2(-B_x, B_y)`` (angle of ``B`` from
    ``+y``, counter-clockwise).  Differentiating ``B = rho e1``::

        v_B = rho' e1 + rho th1' e1'
        a_B = (rho'' - rho th1'^2) e1 + (2 rho' th1' + rho th1'') e1'

    so ``rho' = v_B.e1``, ``th1' = v_B.e1'/rho``,
    ``rho'' = a_B.e1 + rho th1'^2``, ``th1'' = (a_B.e1' - 2 rho' th1')/rho``.

    Parameters
    ----------
    theta2, dtheta2, ddtheta2 : float or array_like
        Crank angle [rad], angular velocity [rad/s] and acceleration
        [rad/s^2] (broadcast together).
    params : CrankRockerParameters, optional
        Defaults to :func:`crank_rocker_parameters`.
    """
    p = params or crank_rocker_parameters()
    th2, w2, a2 = np.broadcast_arrays(np.asarray(theta2, float), np.asarray(dtheta2, float),
                                      np.asarray(ddtheta2, float))
    e2, e2n = _e(th2), _en(th2)
    B = np.array([0.0, p.L4]) + p.L3 * e2
    vB = p.L3 * w2[..., None] * e2n
    aB = p.L3 * a2[..., None] * e2n - p.L3 * (w2 ** 2)[..., None] * e2
    rho = np.hypot(B[..., 0], B[..., 1])
    th1 = np.arctan2(-B[..., 0], B[..., 1])
    e1, e1n = _e(th1), _en(th1)
    drho = _dot(vB, e1)
    w1 = _dot(vB, e1n) / rho
    ddrho = _dot(aB, e1) + rho * w1 ** 2
    a1 = (_dot(aB, e1n) - 2.0 * drho * w1) / rho
    return CrankRockerKinematics(th1, w1, a1, rho, drho, ddrho, B, vB, aB)


# ---------------------------------------------------------------------------
# Newton-Euler equations
# ---------------------------------------------------------------------------


def _newton_euler_system(theta2, dtheta2, c, g, mu, s, sigma, p):
    """Coefficients of the four Newton-Euler equations (rocker moment about O,
    slider x and y, crank moment about O1) in the five unknowns
    ``z = (th2'', tau, N, P_x, P_y)``: ``A z = b`` with ``A`` of shape
    (..., 4, 5).  ``F_f = k N`` with ``k = -mu sigma s``."""
    k0 = crank_rocker_kinematics(theta2, dtheta2, 0.0, p)   # th2'' = 0 part
    k1 = crank_rocker_kinematics(theta2, dtheta2, 1.0, p)
    a1 = k1.ddtheta1 - k0.ddtheta1                           # d th1''/d th2''
    b1 = k0.ddtheta1
    aB1 = k1.aB - k0.aB                                      # d a_B / d th2''
    aB0 = k0.aB
    th1, w1, B = k0.theta1, k0.dtheta1, k0.B
    e1, e1n = _e(th1), _en(th1)
    e2 = _e(np.asarray(theta2, float) + 0.0 * w1)
    rB = p.L3 * e2                                           # B - O1
    k = -mu * np.asarray(sigma, float) * np.asarray(s, float) + 0.0 * w1
    # force of the slider on the rocker per unit N:  -e1' - k e1 (applied at B)
    f_rocker = -e1n - k[..., None] * e1
    # force of the rocker on the slider per unit N:   e1' + k e1
    f_slider = e1n + k[..., None] * e1
    zero = np.zeros_like(w1)
    one = np.ones_like(w1)
    grav1 = _cross(p.L1 * e1, np.stack([zero, -p.m1 * g * one], axis=-1))
    grav2 = _cross(p.L2 * e2, np.stack([zero, -p.m2 * g * one], axis=-1))
    A = np.zeros(w1.shape + (4, 5))
    b = np.zeros(w1.shape + (4,))
    # rocker: J1 (a1 th2'' + b1) - N (B x f_rocker) = grav1 - c th1'
    A[..., 0, 0] = p.J1 * a1
    A[..., 0, 2] = -_cross(B, f_rocker)
    b[..., 0] = grav1 - c * w1 - p.J1 * b1
    # slider: m3 (aB1 th2'' + aB0) - N f_slider - P = (0, -m3 g)
    for i in range(2):
        A[..., 1 + i, 0] = p.m3 * aB1[..., i]
        A[..., 1 + i, 2] = -f_slider[..., i]
        A[..., 1 + i, 3 + i] = -1.0
        b[..., 1 + i] = -p.m3 * aB0[..., i]
    b[..., 2] += -p.m3 * g
    # crank: J2 th2'' + r_B x P - tau = grav2
    A[..., 3, 0] = p.J2
    A[..., 3, 1] = -1.0
    A[..., 3, 3] = -rB[..., 1]      # r_B x P = rB_x P_y - rB_y P_x
    A[..., 3, 4] = rB[..., 0]
    b[..., 3] = grav2
    return A, b


def _solve_case(theta2, dtheta2, ddtheta2, c, g, mu, s, sigma, p, driven):
    """Solve one sign case; returns ``z = (th2'', tau, N, P_x, P_y)``."""
    A, b = _newton_euler_system(theta2, dtheta2, c, g, mu, s, sigma, p)
    if driven:
        known, unknown = 0, [1, 2, 3, 4]
        kv = np.asarray(ddtheta2, float) + np.zeros(A.shape[:-2])
    else:
        known, unknown = 1, [0, 2, 3, 4]
        kv = np.zeros(A.shape[:-2])                          # tau = 0
    rhs = b - A[..., known] * kv[..., None]
    x = np.linalg.solve(A[..., unknown], rhs[..., None])[..., 0]
    z = np.empty(A.shape[:-2] + (5,))
    z[..., known] = kv
    z[..., unknown] = x
    return z


def _consistent(theta2, dtheta2, ddtheta2, c, g, mu, s, p, driven, where):
    """Both sign cases of ``N``; keep the consistent one (``sgn(N) = sigma``).
    Vectorised; raises :class:`PainleveError` naming ``where`` (times) if
    neither or two different solutions are consistent.  Returns ``(z, sigma)``."""
    zp = _solve_case(theta2, dtheta2, ddtheta2, c, g, mu, s, +1.0, p, driven)
    zm = _solve_case(theta2, dtheta2, ddtheta2, c, g, mu, s, -1.0, p, driven)
    okp = zp[..., 2] >= 0.0
    okm = zm[..., 2] <= 0.0
    same = np.all(np.isclose(zp, zm, rtol=1e-12, atol=1e-12), axis=-1)
    bad = (~okp & ~okm) | (okp & okm & ~same)
    if np.any(bad):
        t_bad = np.broadcast_to(np.asarray(where, float), bad.shape)[bad]
        raise PainleveError(
            "crank-rocker: %s sign case of the normal force is consistent at t = %s"
            % ("no" if np.any(~okp & ~okm) else "more than one", np.array2string(t_bad[:5])))
    z = np.where(okp[..., None], zp, zm)
    sigma = np.where(okp, 1.0, -1.0)
    return z, sigma


# ---------------------------------------------------------------------------
# Driven crank
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CrankRockerDriven:
    """Driven crank-rocker at times ``t`` (see :func:`crank_rocker_driven`).

    ``P`` has a trailing axis of length 2 (force of the crank on the slider);
    ``tau`` is the motor torque on the crank (counter-clockwise, about
    ``O1``); ``T`` and ``V`` are the kinetic and potential energies.
    """

    t: np.ndarray
    theta1: np.ndarray
    dtheta1: np.ndarray
    ddtheta1: np.ndarray
    theta2: np.ndarray
    dtheta2: np.ndarray
    rho: np.ndarray
    drho: np.ndarray
    N: np.ndarray
    F_f: np.ndarray
    tau: np.ndarray
    P: np.ndarray
    T: np.ndarray
    V: np.ndarray


def _energies(theta2, dtheta2, kin, g, p):
    T = 0.5 * p.J1 * kin.dtheta1 ** 2 + 0.5 * p.J2 * dtheta2 ** 2 \
        + 0.5 * p.m3 * _dot(kin.vB, kin.vB)
    V = g * (p.m1 * p.L1 * np.cos(kin.theta1) + p.m2 * (p.L4 + p.L2 * np.cos(theta2))
             + p.m3 * kin.B[..., 1])
    return T, V


def crank_rocker_driven(t: np.ndarray | float, c: float = 0.0, g: float = 0.0, mu: float = 0.2,
                        omega: float = 3.0,
                        params: CrankRockerParameters | None = None) -> CrankRockerDriven:
    """Crank-rocker with the driving constraint ``th2 = omega t``, ``th2(0) = 0``.

    The motion is given by the kinematics (``th2' = omega``, ``th2'' = 0``);
    the forces follow from the free-body equations (module docstring)::

        rocker (moments about O):   J1 th1'' = L1 e1 x (0,-m1 g) - c th1'
                                               + B x (-N e1' - F_f e1)
        slider (Newton):            m3 a_B = N e1' + F_f e1 + P + (0,-m3 g)
        crank (moments about O1):   J2 th2'' = L2 e2 x (0,-m2 g) + r_B x (-P) + tau

    with ``F_f = -mu |N| sgn(rho')``.  For each sign case ``sigma = sgn(N)``
    the four equations are linear in ``(tau, N, P_x, P_y)``; both are solved
    and the consistent one (``sgn(N) = sigma``) is kept.  At ``rho' = 0``
    (``th2 = 0, pi``; ``|rho'| <= 1e-13 L3 omega`` counts as zero)
    ``sgn(0) = 0`` is used, so ``F_f = 0`` there.  ``N`` changes sign
    during a revolution (the slider bears on both sides of the slot); with
    ``c = 0`` it vanishes at ``th2 = 0, pi``, where every moment about ``O``
    vanishes.

    Parameters
    ----------
    t : float or array_like
        Times [s].
    c : float
        Rocker damping coefficient [N m s/rad].
    g : float
        Gravitational acceleration [m/s^2].
    mu : float
        Kinetic friction coefficient.
    omega : float
        Crank speed [rad/s].
    params : CrankRockerParameters, optional
        Geometry and inertia (defaults to :func:`crank_rocker_parameters`).
    """
    p = params or crank_rocker_parameters()
    t = np.asarray(t, float)
    th2 = omega * t
    w2 = np.full_like(t, omega)
    kin = crank_rocker_kinematics(th2, w2, 0.0, p)
    # sgn(rho') with rho' = 0 (to rounding, th2 = 0, pi) taken as 0
    s = np.where(np.abs(kin.drho) <= 1e-13 * p.L3 * abs(omega), 0.0, np.sign(kin.drho))
    z, _ = _consistent(th2, w2, 0.0, c, g, mu, s, p, True, t)
    N = z[..., 2]
    F_f = -mu * np.abs(N) * s
    T, V = _energies(th2, w2, kin, g, p)
    return CrankRockerDriven(t, kin.theta1, kin.dtheta1, kin.ddtheta1, th2, w2, kin.rho,
                             kin.drho, N, F_f, z[..., 1], z[..., 3:5], T, V)


# ---------------------------------------------------------------------------
# Free crank
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CrankRockerEvent:
    """A non-smooth event of the free crank-rocker.

    ``kind`` is ``"start"``, ``"sliding reversal"`` (``rho' = 0``),
    ``"normal force sign change"`` (``N = 0``) or both joined by ``" and "``;
    ``s`` and ``sigma`` are the
    signs of ``rho'`` and ``N`` on the interval that begins at ``t``.
    """

    t: float
    kind: str
    s: float
    sigma: float


@dataclass
class CrankRockerFree:
    """Free (undriven) crank-rocker sampled at times ``t`` (see :func:`crank_rocker_free`).

    ``E_friction = int mu |N| |rho'| dt`` and ``E_damping = int c th1'^2 dt``
    are integrated along with the motion, so that
    ``T + V + E_friction + E_damping`` is constant.  ``P`` has a trailing
    axis of length 2 (force of the crank on the slider).  :meth:`evaluate`
    samples the dense solution at other times in ``[0, t_end]``.
    """

    t: np.ndarray
    theta2: np.ndarray
    dtheta2: np.ndarray
    ddtheta2: np.ndarray
    theta1: np.ndarray
    dtheta1: np.ndarray
    ddtheta1: np.ndarray
    rho: np.ndarray
    drho: np.ndarray
    N: np.ndarray
    F_f: np.ndarray
    P: np.ndarray
    T: np.ndarray
    V: np.ndarray
    E_friction: np.ndarray
    E_damping: np.ndarray
    events: list[CrankRockerEvent]
    _segments: list = field(default_factory=list, repr=False)
    _model: tuple = field(default=(), repr=False)

    def evaluate(self, t: np.ndarray | float) -> CrankRockerFree:
        """The solution at times ``t`` (within ``[0, t_end]``), from the dense output."""
        return _sample(np.atleast_1d(np.asarray(t, float)), self._segments, self.events,
                       *self._model)


def _sample(t, segments, events, c, g, mu, p):
    n = t.size
    y = np.empty((4, n))
    s = np.empty(n)
    sig = np.empty(n)
    for i, (t0, t1, sol, si, sg) in enumerate(segments):
        last = i == len(segments) - 1
        m = (t >= t0) & ((t < t1) | (last & (t <= t1 + 1e-12 * max(1.0, abs(t1)))))
        if np.any(m):
            y[:, m] = sol(t[m])
            s[m] = si
            sig[m] = sg
    z = _solve_case(y[0], y[1], 0.0, c, g, mu, s, sig, p, False)
    kin = crank_rocker_kinematics(y[0], y[1], z[:, 0], p)
    N = z[:, 2]
    T, V = _energies(y[0], y[1], kin, g, p)
    return CrankRockerFree(t, y[0], y[1], z[:, 0], kin.theta1, kin.dtheta1, kin.ddtheta1,
                           kin.rho, kin.drho, N, -mu * np.abs(N) * s, z[:, 3:5], T, V,
                           y[2], y[3], events, segments, (c, g, mu, p))


def crank_rocker_free(t_end: float, theta2_0: float = 0.0, dtheta2_0: float = 3.0,
                      c: float = 0.0, g: float = 9.81, mu: float = 0.2,
                      rtol: float = 1e-12, atol: float = 1e-12,
                      t_eval: np.ndarray | None = None,
                      params: CrankRockerParameters | None = None,
                      max_events: int = 1000) -> CrankRockerFree:
    """Crank-rocker with a free crank (no motor, ``tau = 0``): one degree of freedom ``th2``.

    At each state ``(th2, th2')`` the Newton-Euler equations (module
    docstring; ``tau = 0``)::

        rocker (moments about O):   J1 th1'' = L1 e1 x (0,-m1 g) - c th1'
                                               + B x (-N e1' - F_f e1)
        slider (Newton):            m3 a_B = N e1' + F_f e1 + P + (0,-m3 g)
        crank (moments about O1):   J2 th2'' = L2 e2 x (0,-m2 g) + r_B x (-P)

    with ``th1'' = th1''(th2, th2', th2'')`` and ``a_B`` affine in ``th2''``
    and ``F_f = -mu sigma s N`` (``sigma = sgn N``, ``s = sgn rho'``) are four
    linear equations in ``(th2'', N, P_x, P_y)`` for each sign case.  Between
    events ``s`` and ``sigma`` are fixed, so the right-hand side is smooth;
    the state ``(th2, th2', E_friction, E_damping)`` is integrated by
    ``scipy.integrate.solve_ivp`` (DOP853) with terminal events at
    ``rho' = 0`` (sliding reversal) and ``N = 0`` (side switch), restarting
    at each event:

    at the start and after each event the new sign case ``(s, sigma)`` is the
    one of the four whose short look-ahead step (one RK4 step of
    ``1e-6/max(1, |th2'|)`` s in that case) is consistent,
    ``sgn(rho') = s`` and ``sgn(N) = sigma``.  This also covers events where
    ``rho'`` and ``N`` vanish together (with ``c = 0`` at ``th2 = 0, pi``):
    ``F_f = -mu sigma s N`` then keeps its form.

    A free crank that loses its energy to friction and damping swings back
    and forth and finally comes to rest with the slider held by friction;
    the integration then stops with :class:`StickingError`.

    Raises
    ------
    StickingError
        (a ``NotImplementedError``) if ``rho' = 0`` and no sliding direction is
        consistent (the slider would stick).
    PainleveError
        if neither or both sign cases of ``N`` are consistent, or a new sign
        case is left at once (all naming the time).

    Parameters
    ----------
    t_end : float
        End time [s].
    theta2_0, dtheta2_0 : float
        Initial crank angle [rad] and angular velocity [rad/s].
    c, g, mu : float
        Rocker damping [N m s/rad], gravity [m/s^2], kinetic friction coefficient.
    rtol, atol : float
        Tolerances of the integrator.
    t_eval : array_like, optional
        Output times (default 1001 equally spaced in ``[0, t_end]``).
    params : CrankRockerParameters, optional
        Geometry and inertia (defaults to :func:`crank_rocker_parameters`).
    max_events : int
        Upper bound on the number of events.
    """
    p = params or crank_rocker_parameters()

    def solve(y, s, sigma):
        return _solve_case(y[0], y[1], 0.0, c, g, mu, s, sigma, p, False)

    def rhs(t, y, s, sigma):
        z = solve(y, s, sigma)
        drho, dth1 = _rates(y, p)
        return np.array([y[1], z[0], mu * abs(z[2]) * abs(drho), c * dth1 ** 2])

    def choose(t, y):
        """Sign case ``(s, sigma)`` on the interval beginning at ``(t, y)``: the
        one of the four whose short look-ahead step keeps ``sgn(rho') = s`` and
        ``sgn(N) = sigma``."""
        h = 1e-6 / max(1.0, abs(y[1]))
        found = []
        for s in (1.0, -1.0):
            for sigma in (1.0, -1.0):
                k1 = rhs(t, y, s, sigma)                     # one classical RK4 step
                k2 = rhs(t, y + 0.5 * h * k1, s, sigma)
                k3 = rhs(t, y + 0.5 * h * k2, s, sigma)
                k4 = rhs(t, y + h * k3, s, sigma)
                yh = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
                if _rates(yh, p)[0] * s > 0.0 and solve(yh, s, sigma)[2] * sigma > 0.0:
                    found.append((s, sigma))
        if not found:
            if abs(_rates(y, p)[0]) <= 1e-8 * p.L3 * max(abs(y[1]), 1.0):
                raise StickingError(
                    "crank-rocker: the slider would stick at t = %.15g (rho' = 0 and no "
                    "sliding direction is consistent); sticking is not modelled" % t)
            raise PainleveError(
                "crank-rocker: no sign case of the normal force is consistent at t = %.15g" % t)
        if len(found) > 1:
            raise PainleveError(
                "crank-rocker: more than one sign case (s, sigma) = %s is consistent at "
                "t = %.15g" % (found, t))
        return found[0]

    t0 = 0.0
    y0 = np.array([theta2_0, dtheta2_0, 0.0, 0.0])
    s, sigma = choose(t0, y0)
    events = [CrankRockerEvent(t0, "start", s, sigma)]
    segments = []
    while True:
        def ev_slide(t, y, s, sigma):
            return float(_rates(y, p)[0])

        def ev_normal(t, y, s, sigma):
            return float(solve(y, s, sigma)[2])

        ev_slide.terminal, ev_slide.direction = True, -s
        ev_normal.terminal, ev_normal.direction = True, -sigma
        sol = solve_ivp(rhs, (t0, t_end), y0, method="DOP853", rtol=rtol, atol=atol,
                        dense_output=True, events=(ev_slide, ev_normal), args=(s, sigma))
        if sol.status < 0:
            raise RuntimeError("crank-rocker: integration failed at t = %.15g: %s"
                               % (sol.t[-1], sol.message))
        segments.append((t0, sol.t[-1], sol.sol, s, sigma))
        if sol.status == 0:
            break
        t1 = float(sol.t[-1])
        y1 = np.array(sol.y[:, -1], float)
        if t1 - t0 <= 1e-12 * max(1.0, abs(t0)) and len(events) > 1:
            raise PainleveError(
                "crank-rocker: the sign case chosen at t = %.15g is left at once" % t0)
        s_new, sigma_new = choose(t1, y1)
        kinds = [name for name, changed in (("sliding reversal", s_new != s),
                                            ("normal force sign change", sigma_new != sigma))
                 if changed]
        if not kinds:
            raise PainleveError("crank-rocker: an event at t = %.15g changes no sign" % t1)
        s, sigma = s_new, sigma_new
        events.append(CrankRockerEvent(t1, " and ".join(kinds), s, sigma))
        if len(events) > max_events:
            raise RuntimeError("crank-rocker: more than %d events before t = %.15g"
                               % (max_events, t1))
        t0, y0 = t1, y1
    if t_eval is None:
        t_eval = np.linspace(0.0, t_end, 1001)
    return _sample(np.atleast_1d(np.asarray(t_eval, float)), segments, events, c, g, mu, p)


def _rates(y, p):
    """``(rho', th1')`` of the state ``y = (th2, th2', ...)`` (scalar, closed form)."""
    kin = crank_rocker_kinematics(y[0], y[1], 0.0, p)
    return float(kin.drho), float(kin.dtheta1)
