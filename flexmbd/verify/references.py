"""Independent reference solutions used to check the multibody solver.

Every function here is written from a textbook or paper formula with plain
numpy/scipy only.  On purpose this module imports nothing else from flexmbd,
so that a bug in the library cannot hide itself by also entering the
reference.  Each docstring names the source of its formula.

Contents
--------
1. Pendulums: :func:`pendulum_period`, :func:`compound_pendulum_period`
   (exact large-amplitude period through the complete elliptic integral).
2. Heavy symmetric top with a fixed tip (Goldstein, ZXZ Euler angles):
   :func:`heavy_top_steady_precession`, :func:`heavy_top_initial_state`,
   :func:`heavy_top_minimal_ode`, :func:`euler_zxz_matrix`.
3. Planar slider-crank with a spring-damper between the link centres of mass
   in one minimal coordinate (Lagrange): :func:`slider_crank_minimal`,
   :func:`slider_crank_kinematics`, :func:`slider_crank_mass`.
4. Tensegrity closed-form data (two-stage tower of Sultan, Corless & Skelton
   2001, and the 3-strut prism): :func:`load_tensegrity_tower`,
   :func:`load_tensegrity_prism`, :func:`prism_twist_angle`,
   :func:`equilibrium_residual`.
5. Linear stability of the Newmark family (Newmark, HHT-alpha, generalized-
   alpha) and a stiff two-mass chain:
   :func:`newmark_family_parameters`, :func:`newmark_family_step`,
   :func:`newmark_family_amplification_matrix`,
   :func:`newmark_family_spectral_radius`, :func:`two_mass_chain_modes`.
6. Beams: the elastica, a cantilever under a tip load, exact through elliptic
   integrals: :func:`elastica_cantilever`; natural frequencies of a Timoshenko
   cantilever (shear and rotary inertia) by shooting,
   :func:`timoshenko_cantilever_frequencies`, and from the closed-form frequency
   equation, :func:`timoshenko_cantilever_frequency_equation` (each checks the other).
7. Rolling contact geometry: the path of a wheel's centre over a smooth profile it follows,
   on a rail or on a roller (the offset curve): :func:`wheel_centre_offset_curve`.

All quantities are in SI units and angles in radians unless a name says
``_deg``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import eigh
from scipy.optimize import brentq
from scipy.special import ellipe, ellipeinc, ellipk, ellipkinc

__all__ = [
    # 7. rolling contact geometry
    "wheel_centre_offset_curve",
    # 1. pendulums
    "pendulum_period",
    "compound_pendulum_period",
    # 2. heavy top
    "PrecessionRoots",
    "HeavyTopInitialState",
    "HeavyTopSolution",
    "euler_zxz_matrix",
    "heavy_top_steady_precession",
    "heavy_top_initial_state",
    "heavy_top_minimal_ode",
    # 3. slider-crank
    "SliderCrankKinematics",
    "SliderCrankSolution",
    "slider_crank_kinematics",
    "slider_crank_mass",
    "slider_crank_minimal",
    # 4. tensegrity
    "Member",
    "TensegrityStructure",
    "load_tensegrity_tower",
    "load_tensegrity_prism",
    "prism_twist_angle",
    "equilibrium_residual",
    # 5. time integration
    "NewmarkFamilyParameters",
    "newmark_family_parameters",
    "newmark_family_step",
    "newmark_family_amplification_matrix",
    "newmark_family_spectral_radius",
    "ChainModes",
    "two_mass_chain_modes",
    # 6. elastica
    "ElasticaTip",
    "elastica_cantilever",
    "timoshenko_cantilever_frequencies",
    "timoshenko_cantilever_frequency_equation",
]

#: Integration tolerances used by the ODE references (relative, absolute).
ODE_RTOL = 1e-10
ODE_ATOL = 1e-12


# ---------------------------------------------------------------------------
# 1. Pendulums
# ---------------------------------------------------------------------------


def pendulum_period(length, amplitude, g=9.81):
    """Exact period of a simple (point-mass) pendulum of any amplitude.

    ``T = 4 sqrt(L/g) K(k)`` with modulus ``k = sin(theta0/2)``, where ``K`` is
    the complete elliptic integral of the first kind (Landau & Lifshitz,
    *Mechanics*, 3rd ed., sec. 11, problem 1; the same integral arises from
    the energy integral of Goldstein, *Classical Mechanics*, ch. 3).
    ``scipy.special.ellipk`` takes the *parameter* ``m = k**2``, not the
    modulus, so ``ellipk(sin(theta0/2)**2)`` is evaluated.  For ``theta0 -> 0`` this tends to ``2 pi sqrt(L/g)``; for
    ``theta0 = 90 deg``, ``T / T0 = 2 K(1/2) / pi = 1.18034060``.

    Parameters
    ----------
    length : float
        Pendulum length ``L`` > 0 (pivot to point mass) [m].
    amplitude : float or array_like
        Release angle ``theta0`` from the downward vertical, released at rest,
        ``0 <= theta0 < pi`` [rad].
    g : float
        Gravitational acceleration [m/s^2].

    Returns
    -------
    float or ndarray
        Period [s].
    """
    amplitude = np.asarray(amplitude, dtype=float)
    if length <= 0 or g <= 0:
        raise ValueError("length and g must be positive")
    if np.any(np.abs(amplitude) >= np.pi):
        raise ValueError("amplitude must satisfy |theta0| < pi (no periodic swing otherwise)")
    m = np.sin(0.5 * amplitude) ** 2
    period = 4.0 * np.sqrt(length / g) * ellipk(m)
    return float(period) if period.ndim == 0 else period


def compound_pendulum_period(mass, inertia_about_pivot, com_distance, amplitude, g=9.81):
    """Exact period of a compound (physical) pendulum of any amplitude.

    The equation of motion ``I_O theta'' + m g d sin(theta) = 0`` is that of a
    simple pendulum of equivalent length ``L_eq = I_O / (m d)`` (Goldstein,
    *Classical Mechanics*; any text on the physical pendulum), so the period
    is :func:`pendulum_period` evaluated at ``L_eq``.

    Parameters
    ----------
    mass : float
        Body mass ``m`` [kg].
    inertia_about_pivot : float
        Moment of inertia ``I_O`` about the pivot axis (NOT the centroidal
        value; by Steiner ``I_O = I_c + m d^2``) [kg m^2].
    com_distance : float
        Distance ``d`` from the pivot to the centre of mass [m].
    amplitude : float or array_like
        Release angle from the stable equilibrium [rad].
    g : float
        Gravitational acceleration [m/s^2].
    """
    if mass <= 0 or com_distance <= 0 or inertia_about_pivot <= 0:
        raise ValueError("mass, inertia_about_pivot and com_distance must be positive")
    equivalent_length = inertia_about_pivot / (mass * com_distance)
    return pendulum_period(equivalent_length, amplitude, g)


# ---------------------------------------------------------------------------
# 2. Heavy symmetric top with a fixed tip
# ---------------------------------------------------------------------------


def _rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def euler_zxz_matrix(phi, theta, psi):
    """Rotation matrix (body -> world) of Goldstein's ZXZ Euler angles.

    ``R = Rz(phi) Rx(theta) Rz(psi)``: precession ``phi`` about the world Z
    axis, nutation ``theta`` about the line of nodes, spin ``psi`` about the
    body z axis (Goldstein, Poole & Safko, *Classical Mechanics*, 3rd ed.,
    sec. 4.4; Goldstein's matrix ``A`` is the transpose, world -> body).
    A body vector ``x_b`` has world components ``R @ x_b``.
    """
    return _rot_z(phi) @ _rot_x(theta) @ _rot_z(psi)


def _pivot_transverse_inertia(mass, com_distance, I_transverse, inertia_about):
    if inertia_about == "com":
        return I_transverse + mass * com_distance**2
    if inertia_about in ("tip", "pivot"):
        return float(I_transverse)
    raise ValueError("inertia_about must be 'com' or 'tip'")


class PrecessionRoots(NamedTuple):
    """The two steady-precession rates ``Omega = phi'`` [rad/s].

    ``slow`` is the root of smaller magnitude, ``fast`` the larger one
    (``fast`` is ``inf`` for a horizontal axis, ``cos(theta) = 0``).
    """

    slow: float
    fast: float


def heavy_top_steady_precession(mass, com_distance, I_axial, I_transverse, spin_rate,
                                nutation_angle, g=9.81, inertia_about="com"):
    """Both steady-precession rates of a heavy symmetric top with a fixed tip.

    With Goldstein's ZXZ Euler angles (precession ``phi``, nutation ``theta``,
    spin ``psi``) the Lagrangian of the top is (Goldstein, *Classical
    Mechanics*, 3rd ed., sec. 5.7)::

        L = I1/2 (theta'^2 + phi'^2 sin^2 theta) + I3/2 (psi' + phi' cos theta)^2
            - m g l cos theta

    ``I1`` = transverse moment of inertia about the FIXED TIP, ``I3`` = axial
    moment.  Steady precession (``theta' = theta'' = 0``, ``phi' = Omega``)
    requires, from the ``theta`` equation of motion::

        I1 cos(theta) Omega^2 - I3 omega3 Omega + m g l = 0

    where ``omega3 = psi' + phi' cos(theta)`` is the component of the angular
    velocity along the symmetry axis (constant for the top).

    **Spin-rate convention:** ``spin_rate`` is ``omega3``, the axial component
    of the total angular velocity (body z component of omega), *not* the
    relative spin ``psi'``.  The relative spin follows as
    ``psi' = omega3 - Omega cos(theta)`` (see :func:`heavy_top_initial_state`).

    **Inertia convention:** by default (``inertia_about='com'``)
    ``I_transverse`` is the *centroidal* transverse moment, as a multibody
    body would be specified, and ``I1 = I_transverse + m l^2`` is formed
    here.  Pass ``inertia_about='tip'`` if ``I_transverse`` is already the
    value about the tip (Goldstein's ``I1``).

    Parameters
    ----------
    mass : float
        Mass ``m`` [kg].
    com_distance : float
        Distance ``l`` from the fixed tip to the centre of mass along the
        symmetry axis [m].
    I_axial : float
        Moment of inertia ``I3`` about the symmetry axis [kg m^2].
    I_transverse : float
        Transverse moment of inertia, see ``inertia_about`` [kg m^2].
    spin_rate : float
        ``omega3`` [rad/s], see above.
    nutation_angle : float
        ``theta``, angle between the symmetry axis and the upward vertical
        [rad].
    g : float
        Gravitational acceleration, acting along world -Z [m/s^2].
    inertia_about : {'com', 'tip'}
        Reference point of ``I_transverse``.

    Returns
    -------
    PrecessionRoots
        ``(slow, fast)`` precession rates [rad/s], ordered by magnitude.

    Raises
    ------
    ValueError
        If the discriminant ``I3^2 omega3^2 - 4 I1 m g l cos(theta)`` is
        negative: the top spins too slowly to precess steadily at that angle.
    """
    I1 = _pivot_transverse_inertia(mass, com_distance, I_transverse, inertia_about)
    I3 = float(I_axial)
    w3 = float(spin_rate)
    cos_t = np.cos(nutation_angle)
    mgl = mass * g * com_distance
    b = I3 * w3
    a = I1 * cos_t
    if abs(a) < 1e-15 * max(abs(b), mgl, 1e-300):
        # horizontal symmetry axis: linear equation, a single finite root
        return PrecessionRoots(mgl / b, np.inf)
    disc = b * b - 4.0 * a * mgl
    if disc < 0:
        raise ValueError(
            "no steady precession: I3^2 omega3^2 < 4 I1 m g l cos(theta) "
            f"({b * b:.6g} < {4.0 * a * mgl:.6g}); increase the spin rate")
    # numerically stable pair of roots (no cancellation)
    sgn = 1.0 if b >= 0 else -1.0
    qq = b + sgn * np.sqrt(disc)
    r1 = qq / (2.0 * a)
    r2 = 2.0 * mgl / qq
    slow, fast = sorted((r1, r2), key=abs)
    return PrecessionRoots(float(slow), float(fast))


@dataclass(frozen=True)
class HeavyTopInitialState:
    """Initial state of a heavy top started exactly on steady precession.

    Attributes
    ----------
    euler : ndarray (3,)
        ``(phi, theta, psi)`` Goldstein ZXZ angles; here ``(0, theta, 0)``.
    euler_rates : ndarray (3,)
        ``(phi', theta', psi') = (Omega, 0, omega3 - Omega cos theta)``.
    rotation : ndarray (3, 3)
        Body -> world rotation ``R = Rx(theta)`` (tilt about world +x).
    omega_body : ndarray (3,)
        Angular velocity in body components, ``(0, Omega sin theta, omega3)``.
    omega_world : ndarray (3,)
        Angular velocity in world components, ``R @ omega_body``.
    com_position : ndarray (3,)
        World position of the centre of mass, ``l R e_z``.
    com_velocity : ndarray (3,)
        World velocity of the centre of mass, ``omega_world x com_position``.
    precession_rate : float
        ``Omega`` [rad/s] (the chosen root).
    spin_rate : float
        ``omega3`` [rad/s], the axial angular-velocity component.
    relative_spin_rate : float
        ``psi'`` [rad/s].
    """

    euler: np.ndarray
    euler_rates: np.ndarray
    rotation: np.ndarray
    omega_body: np.ndarray
    omega_world: np.ndarray
    com_position: np.ndarray
    com_velocity: np.ndarray
    precession_rate: float
    spin_rate: float
    relative_spin_rate: float


def heavy_top_initial_state(mass, com_distance, I_axial, I_transverse, spin_rate,
                            nutation_angle, root="slow", g=9.81, inertia_about="com"):
    """Initial state putting a heavy top exactly on steady precession.

    Geometry: the tip is fixed at the world origin, gravity acts along world
    -Z, the symmetry axis is the body z axis, and at ``t = 0`` the body frame
    is the world frame rotated by ``theta`` about the world +x axis
    (``R = Rx(theta)``), i.e. Goldstein ZXZ angles ``phi = psi = 0``.  The
    symmetry axis then points along ``(0, -sin theta, cos theta)``.

    With ``theta' = 0``, ``phi' = Omega`` (the chosen root of
    :func:`heavy_top_steady_precession`) and ``psi' = omega3 - Omega cos
    theta``, Goldstein's body angular velocity (eq. 4.87)::

        omega_b = (phi' sin th sin psi + th' cos psi,
                   phi' sin th cos psi - th' sin psi,
                   phi' cos th + psi')

    reduces to ``(0, Omega sin theta, omega3)``; in world components
    ``omega_w = Omega e_Z + psi' e_3 = (0, Omega sin th cos th - omega3 sin th,
    Omega sin^2 th + omega3 cos th)``.  Under steady precession the symmetry
    axis turns about world Z at the rate ``Omega`` with constant ``theta``.

    Parameters are those of :func:`heavy_top_steady_precession`; ``root`` is
    ``'slow'`` or ``'fast'`` (or a float to use a given ``Omega``).
    """
    if isinstance(root, str):
        roots = heavy_top_steady_precession(mass, com_distance, I_axial, I_transverse,
                                            spin_rate, nutation_angle, g, inertia_about)
        if root not in ("slow", "fast"):
            raise ValueError("root must be 'slow', 'fast' or a number")
        Omega = getattr(roots, root)
        if not np.isfinite(Omega):
            raise ValueError("the fast root is infinite for a horizontal axis")
    else:
        Omega = float(root)
    th = float(nutation_angle)
    w3 = float(spin_rate)
    psi_dot = w3 - Omega * np.cos(th)
    R = _rot_x(th)
    omega_b = np.array([0.0, Omega * np.sin(th), w3])
    omega_w = R @ omega_b
    r_com = com_distance * R[:, 2]
    v_com = np.cross(omega_w, r_com)
    return HeavyTopInitialState(
        euler=np.array([0.0, th, 0.0]),
        euler_rates=np.array([Omega, 0.0, psi_dot]),
        rotation=R,
        omega_body=omega_b,
        omega_world=omega_w,
        com_position=r_com,
        com_velocity=v_com,
        precession_rate=float(Omega),
        spin_rate=w3,
        relative_spin_rate=float(psi_dot),
    )


@dataclass
class HeavyTopSolution:
    """Solution of :func:`heavy_top_minimal_ode` on the requested time grid.

    Attributes
    ----------
    t : ndarray (n,)
    phi, theta, psi : ndarray (n,)
        Goldstein ZXZ Euler angles [rad] (``phi``, ``psi`` are not wrapped).
    phi_dot, theta_dot, psi_dot : ndarray (n,)
        Their rates [rad/s].
    com : ndarray (n, 3)
        World position of the centre of mass, ``l (sin th sin phi,
        -sin th cos phi, cos th)``.
    omega3 : ndarray (n,)
        Axial angular-velocity component ``psi' + phi' cos th`` (conserved).
    p_phi : ndarray (n,)
        Conserved momentum ``I1 phi' sin^2 th + I3 omega3 cos th`` (the
        vertical angular momentum about the tip).
    energy : ndarray (n,)
        Total energy ``T + m g l cos th`` (conserved).
    sol : object
        The ``scipy.integrate.solve_ivp`` result (with ``dense_output``).
    """

    t: np.ndarray
    phi: np.ndarray
    theta: np.ndarray
    psi: np.ndarray
    phi_dot: np.ndarray
    theta_dot: np.ndarray
    psi_dot: np.ndarray
    com: np.ndarray
    omega3: np.ndarray
    p_phi: np.ndarray
    energy: np.ndarray
    sol: object = field(repr=False, default=None)


def heavy_top_minimal_ode(mass, com_distance, I_axial, I_transverse, euler0, euler_rates0,
                          t_end, g=9.81, inertia_about="com", t_eval=None, n_eval=1001,
                          rtol=ODE_RTOL, atol=ODE_ATOL, method="DOP853"):
    """Integrate the heavy symmetric top in Goldstein ZXZ Euler angles.

    Lagrange's equations of ``L = I1/2 (th'^2 + phi'^2 sin^2 th) + I3/2
    omega3^2 - m g l cos th``, ``omega3 = psi' + phi' cos th`` (Goldstein,
    *Classical Mechanics*, 3rd ed., sec. 5.7), written explicitly::

        th''   = [I1 phi'^2 sin th cos th - I3 omega3 phi' sin th + m g l sin th] / I1
        phi''  = th' (I3 omega3 - 2 I1 phi' cos th) / (I1 sin th)   (p_phi conserved)
        psi''  = -phi'' cos th + phi' th' sin th                    (omega3 conserved)

    The equations are singular at ``sin(theta) = 0`` (gimbal lock of the ZXZ
    angles), so the motion must keep the axis away from the vertical.

    Geometry and conventions as in :func:`heavy_top_initial_state`: tip at
    the origin, gravity along world -Z, symmetry axis = body z, body ->
    world rotation :func:`euler_zxz_matrix`.

    Parameters
    ----------
    mass, com_distance, I_axial, I_transverse, g, inertia_about
        As in :func:`heavy_top_steady_precession`.
    euler0 : array_like (3,)
        Initial ``(phi, theta, psi)`` [rad].
    euler_rates0 : array_like (3,)
        Initial ``(phi', theta', psi')`` [rad/s] (note: Euler-angle rates,
        not angular-velocity components).
    t_end : float
        Final time [s] (the integration starts at 0).
    t_eval : array_like, optional
        Output times; default ``linspace(0, t_end, n_eval)``.
    rtol, atol, method
        Passed to ``scipy.integrate.solve_ivp`` (defaults rtol 1e-10,
        atol 1e-12, DOP853).

    Returns
    -------
    HeavyTopSolution
    """
    I1 = _pivot_transverse_inertia(mass, com_distance, I_transverse, inertia_about)
    I3 = float(I_axial)
    mgl = mass * g * com_distance
    l = float(com_distance)

    def rhs(_t, y):
        _phi, th, _psi, dphi, dth, dpsi = y
        s, c = np.sin(th), np.cos(th)
        w3 = dpsi + dphi * c
        ddth = (I1 * dphi * dphi * s * c - I3 * w3 * dphi * s + mgl * s) / I1
        ddphi = dth * (I3 * w3 - 2.0 * I1 * dphi * c) / (I1 * s)
        ddpsi = -ddphi * c + dphi * dth * s
        return np.array([dphi, dth, dpsi, ddphi, ddth, ddpsi])

    y0 = np.concatenate([np.asarray(euler0, float), np.asarray(euler_rates0, float)])
    if t_eval is None:
        t_eval = np.linspace(0.0, t_end, n_eval)
    t_eval = np.asarray(t_eval, float)
    sol = solve_ivp(rhs, (0.0, t_end), y0, method=method, rtol=rtol, atol=atol,
                    dense_output=True)
    if not sol.success:
        raise RuntimeError(f"heavy top integration failed: {sol.message}")
    phi, th, psi, dphi, dth, dpsi = sol.sol(t_eval)
    s, c = np.sin(th), np.cos(th)
    com = l * np.column_stack([s * np.sin(phi), -s * np.cos(phi), c])
    w3 = dpsi + dphi * c
    p_phi = I1 * dphi * s * s + I3 * w3 * c
    energy = 0.5 * I1 * (dth**2 + dphi**2 * s * s) + 0.5 * I3 * w3**2 + mgl * c
    return HeavyTopSolution(t=t_eval, phi=phi, theta=th, psi=psi, phi_dot=dphi,
                            theta_dot=dth, psi_dot=dpsi, com=com, omega3=w3,
                            p_phi=p_phi, energy=energy, sol=sol)


# ---------------------------------------------------------------------------
# 3. Slider-crank with a spring-damper, one minimal coordinate
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SliderCrankKinematics:
    """Positions of the slider-crank and their derivatives w.r.t. ``phi``.

    For each point ``p(phi)`` the arrays hold ``p``, ``dp/dphi`` and
    ``d2p/dphi2`` (shape ``(..., 2)``, planar x-y components).

    Attributes
    ----------
    c1, dc1, ddc1 : centre of mass of link 1 (crank).
    c2, dc2, ddc2 : centre of mass of link 2 (connecting rod).
    a, da : crank tip (joint crank / rod).
    b, db, ddb : slider position (joint rod / slider), on the x axis.
    angle1, dangle1 : orientation of link 1 (``phi``) and its derivative.
    angle2, dangle2 : orientation of link 2 (``-phi``) and its derivative.
    """

    c1: np.ndarray
    dc1: np.ndarray
    ddc1: np.ndarray
    c2: np.ndarray
    dc2: np.ndarray
    ddc2: np.ndarray
    a: np.ndarray
    da: np.ndarray
    b: np.ndarray
    db: np.ndarray
    ddb: np.ndarray
    angle1: np.ndarray
    dangle1: np.ndarray
    angle2: np.ndarray
    dangle2: np.ndarray


def slider_crank_kinematics(phi, length=2.0):
    """Kinematics of the equal-link slider-crank as a function of ``phi``.

    Geometry (planar, x-y plane): crank (link 1) of length ``L`` pinned to
    ground at the origin ``O``, crank angle ``phi`` from +x; crank tip
    ``A = L (cos phi, sin phi)``.  Link 2 of the same length ``L`` joins ``A``
    to the slider ``B`` on the x axis with ``B_x > A_x``; the loop closure
    ``|B - A| = L`` gives ``B = (2 L cos phi, 0)`` and the orientation of
    link 2 is ``-phi``.  Centres of mass at mid-length:
    ``c1 = A/2``, ``c2 = (A + B)/2 = (3L/2 cos phi, L/2 sin phi)``.

    Returns
    -------
    SliderCrankKinematics
    """
    phi = np.asarray(phi, dtype=float)
    L = float(length)
    c, s = np.cos(phi), np.sin(phi)
    z = np.zeros_like(phi)
    one = np.ones_like(phi)

    def v(x, y):
        return np.stack([x, y], axis=-1)

    a = v(L * c, L * s)
    da = v(-L * s, L * c)
    dda = v(-L * c, -L * s)
    b = v(2 * L * c, z)
    db = v(-2 * L * s, z)
    ddb = v(-2 * L * c, z)
    return SliderCrankKinematics(
        c1=0.5 * a, dc1=0.5 * da, ddc1=0.5 * dda,
        c2=0.5 * (a + b), dc2=0.5 * (da + db), ddc2=0.5 * (dda + ddb),
        a=a, da=da, b=b, db=db, ddb=ddb,
        angle1=phi, dangle1=one, angle2=-phi, dangle2=-one,
    )


def slider_crank_mass(phi, length=2.0, link_mass=50.0, link_inertia=15.0, slider_mass=1.0):
    """Generalized mass ``m(phi)`` and its derivative ``m'(phi)``.

    From ``T = 1/2 sum_i (m_i |dc_i/dphi|^2 + J_i (dangle_i/dphi)^2) phi'^2
    = 1/2 m(phi) phi'^2`` (links: mass and centroidal inertia ``J`` about z;
    slider: translation only).  ``m'(phi) = 2 sum_i m_i dc_i . d2c_i``
    (the link angular rates are constant multiples of ``phi'``).  For the
    default data ``m(phi) = m_l L^2/2 + 2 J + (2 m_l + 4 m_s) L^2 sin^2 phi
    = 130 + 416 sin^2 phi`` kg m^2 > 0, so there is no singularity at the
    dead point ``phi = 0``.

    Returns
    -------
    (m, dm) : tuple of float or ndarray
    """
    k = slider_crank_kinematics(phi, length)

    def dot(p, q):
        return np.sum(p * q, axis=-1)

    m = (link_mass * (dot(k.dc1, k.dc1) + dot(k.dc2, k.dc2))
         + link_inertia * (k.dangle1**2 + k.dangle2**2)
         + slider_mass * dot(k.db, k.db))
    dm = 2.0 * (link_mass * (dot(k.dc1, k.ddc1) + dot(k.dc2, k.ddc2))
                + slider_mass * dot(k.db, k.ddb))
    return m, dm


class SliderCrankSolution:
    """Dense solution of :func:`slider_crank_minimal`.

    All methods take a scalar or an array of times within ``[0, t_end]``.

    Energy bookkeeping (the state is augmented with the dissipated energy
    ``D(t) = int_0^t c l'^2 dt``)::

        T + V_spring - W_F + D = T(0) + V_spring(0) = const  (0 from rest)

    with ``T = 1/2 m(phi) phi'^2``, ``V_spring = 1/2 k (l - l0)^2``,
    ``W_F = F (x_B(t) - x_B(0))`` the work of the slider force.  The damper
    work is ``-D``.  :meth:`energy_balance` returns the left side minus its
    initial value (ideally 0).
    """

    def __init__(self, sol, params):
        self.sol = sol
        self.params = dict(params)
        self.t_end = params["t_end"]
        self.rest_length = params["rest_length"]
        self.k = params["k"]
        self.c = params["c"]
        self.F = params["F"]
        self.length = params["length"]
        y0 = sol.sol(0.0)
        self._xB0 = 2.0 * self.length * np.cos(y0[0])
        self._E0 = self._energy_sum(0.0)

    # state ------------------------------------------------------------
    def state(self, t):
        """``(phi, phi', D)`` at ``t`` (rows), from the dense output."""
        return self.sol.sol(t)

    def crank_angle(self, t):
        """Crank angle ``phi(t)`` [rad] (from +x, counter-clockwise)."""
        return self.sol.sol(t)[0]

    def crank_rate(self, t):
        """Crank angular velocity ``phi'(t)`` [rad/s]."""
        return self.sol.sol(t)[1]

    def _kin(self, t):
        return slider_crank_kinematics(self.crank_angle(t), self.length)

    def slider_x(self, t):
        """Slider position ``x_B(t) = 2 L cos phi`` [m]."""
        return 2.0 * self.length * np.cos(self.crank_angle(t))

    def slider_velocity(self, t):
        """Slider velocity ``x_B' = -2 L sin(phi) phi'`` [m/s]."""
        phi, dphi = self.sol.sol(t)[:2]
        return -2.0 * self.length * np.sin(phi) * dphi

    def com_positions(self, t):
        """World positions of ``(c1, c2)``, each of shape ``(..., 2)``."""
        k = self._kin(t)
        return k.c1, k.c2

    def spring_length(self, t):
        """Spring-damper length ``l = |c2 - c1|`` [m]."""
        k = self._kin(t)
        return np.linalg.norm(k.c2 - k.c1, axis=-1)

    def spring_rate(self, t):
        """Spring-damper elongation rate ``l'`` [m/s]."""
        phi, dphi = self.sol.sol(t)[:2]
        _, dl = _spring_length_and_gradient(phi, self.length)
        return dl * dphi

    def spring_force(self, t):
        """Spring-damper tension ``k (l - l0) + c l'`` [N] (positive pulls)."""
        return self.k * (self.spring_length(t) - self.rest_length) + self.c * self.spring_rate(t)

    # energy -----------------------------------------------------------
    def kinetic_energy(self, t):
        """``T = 1/2 m(phi) phi'^2`` [J]."""
        phi, dphi = self.sol.sol(t)[:2]
        m, _ = slider_crank_mass(phi, self.length, self.params["link_mass"],
                                 self.params["link_inertia"], self.params["slider_mass"])
        return 0.5 * m * dphi**2

    def spring_energy(self, t):
        """``V = 1/2 k (l - l0)^2`` [J]."""
        return 0.5 * self.k * (self.spring_length(t) - self.rest_length) ** 2

    def work_force(self, t):
        """Work done by the slider force, ``F (x_B(t) - x_B(0))`` [J]."""
        return self.F * (self.slider_x(t) - self._xB0)

    def dissipated_energy(self, t):
        """Energy dissipated by the damper, ``int_0^t c l'^2 dt`` [J] (>= 0);
        the work of the damper on the system is its negative."""
        return self.sol.sol(t)[2]

    def _energy_sum(self, t):
        return (self.kinetic_energy(t) + self.spring_energy(t) - self.work_force(t)
                + self.dissipated_energy(t))

    def energy_balance(self, t):
        """``T + V - W_F + D`` minus its initial value [J]; ideally zero."""
        return self._energy_sum(t) - self._E0

    def energy_scale(self, t):
        """A scale for relative energy errors: ``max |W_F|, max T`` over ``t``."""
        return float(max(np.max(np.abs(self.work_force(t))), np.max(self.kinetic_energy(t)),
                         1e-300))

    def crank_acceleration(self, t):
        """phi'' [rad/s^2] from Lagrange's equation (:func:`slider_crank_minimal`)."""
        phi, dphi = self.crank_angle(t), self.crank_rate(t)
        p = self.params
        m, dm = slider_crank_mass(phi, self.length, p["link_mass"], p["link_inertia"], p["slider_mass"])
        kin = slider_crank_kinematics(phi, self.length)
        l, dl_dphi = _spring_length_and_gradient(phi, self.length)
        f_sd = self.k * (l - self.rest_length) + self.c * dl_dphi * dphi
        Q = self.F * kin.db[..., 0] - f_sd * dl_dphi
        return (Q - 0.5 * dm * dphi * dphi) / m

    def joint_forces(self, t):
        """Forces of the guide on the slider, (0, N), and of the ground pivot on the crank,
        R_O, each (..., 2) [N], by Newton-Euler from the motion (d'Alembert).

        Link 2 with the slider, moments about A (z components; A's acceleration drops out
        because R_A acts there)::

            (c2 − A) × m_l a_c2 + (B − A) × m_s a_B − J_l phi''
                = (B − A) × (F, N) + (c2 − A) × (−f_sd e),   e = (c2 − c1)/l,

        solved for N; the whole mechanism (the spring is internal):
        R_O = m_l (a_c1 + a_c2) + m_s a_B − (F, N).  No gravity (as the model).
        """
        phi, dphi, ddphi = self.crank_angle(t), self.crank_rate(t), self.crank_acceleration(t)
        p = self.params
        ml, Jl, ms = p["link_mass"], p["link_inertia"], p["slider_mass"]
        k = slider_crank_kinematics(phi, self.length)
        acc = lambda d, dd: d * ddphi[..., None] + dd * (dphi**2)[..., None]  # noqa: E731
        a_c1, a_c2 = acc(k.dc1, k.ddc1), acc(k.dc2, k.ddc2)
        a_B = acc(k.db, k.ddb)

        def cross(u, w):
            return u[..., 0] * w[..., 1] - u[..., 1] * w[..., 0]

        e = k.c2 - k.c1
        e = e / np.linalg.norm(e, axis=-1)[..., None]
        f_sd = self.spring_force(t)
        BA, cA = k.b - k.a, k.c2 - k.a
        lhs = ml * cross(cA, a_c2) + ms * cross(BA, a_B) - Jl * ddphi
        N = (lhs + BA[..., 1] * self.F - cross(cA, -f_sd[..., None] * e)) / BA[..., 0]
        guide = np.stack([np.zeros_like(N), N], axis=-1)
        R_O = ml * (a_c1 + a_c2) + ms * a_B - np.stack([np.full_like(N, self.F), N], axis=-1)
        return guide, R_O

    def energy(self, t):
        """Dictionary of the energy terms at ``t`` (kinetic, spring,
        work_force, dissipated, balance)."""
        return {
            "kinetic": self.kinetic_energy(t),
            "spring": self.spring_energy(t),
            "work_force": self.work_force(t),
            "dissipated": self.dissipated_energy(t),
            "balance": self.energy_balance(t),
        }


def _spring_length_and_gradient(phi, length):
    """Spring length ``l = |c2 - c1|`` and ``dl/dphi = u . (dc2 - dc1)``."""
    k = slider_crank_kinematics(phi, length)
    d = k.c2 - k.c1
    l = np.linalg.norm(d, axis=-1)
    dl = np.sum(d * (k.dc2 - k.dc1), axis=-1) / l
    return l, dl


def slider_crank_minimal(k, c, t_end=1.0, F=1000.0, length=2.0, link_mass=50.0,
                         link_inertia=15.0, slider_mass=1.0, phi0=np.pi / 4, phidot0=0.0,
                         rest_length=None, rtol=ODE_RTOL, atol=ODE_ATOL, method="DOP853"):
    """Slider-crank with a spring-damper, integrated in one minimal coordinate.

    Mechanism (the "P1" example): see :func:`slider_crank_kinematics` for the
    geometry.  Links: mass ``link_mass``, centroidal moment of inertia
    ``link_inertia`` about z, centre of mass at mid-length.  Slider: mass
    ``slider_mass``, translating along x only.  A constant force ``F`` acts on
    the slider along +x.  A linear spring-damper (stiffness ``k``, damping
    ``c``, no actuator force) joins the centres of mass of links 1 and 2; its
    length is ``l(phi) = |c2 - c1|`` (``= L |cos phi|`` for this geometry) and
    its rest length is ``l(phi0)`` unless given.  No gravity.

    Lagrange's equation for the single coordinate ``phi`` (e.g. Goldstein,
    *Classical Mechanics*, ch. 1-2; Shabana, *Computational Dynamics*)::

        T = 1/2 m(phi) phi'^2,   d/dt(dT/dphi') - dT/dphi = Q
        =>  m(phi) phi'' + 1/2 m'(phi) phi'^2 = Q(phi, phi')

        Q = F dx_B/dphi - f_sd dl/dphi,   f_sd = k (l - l0) + c l',
        l' = (dl/dphi) phi',   dl/dphi = (c2 - c1)/l . (dc2/dphi - dc1/dphi)

    (the spring-damper tension ``f_sd`` acts along the line of centres;
    ``m(phi)`` from :func:`slider_crank_mass`).  The state is augmented with
    the dissipated energy ``D' = c l'^2`` for the energy bookkeeping of
    :class:`SliderCrankSolution`.  The dead point ``phi = 0`` (slider at its
    extreme) is harmless: one coordinate and ``m(phi) > 0``.  The spring
    length vanishes at ``phi = +-pi/2``, where its direction is undefined;
    this reference is not meant for motions reaching that configuration.

    Integrated with ``scipy.integrate.solve_ivp`` (DOP853, rtol 1e-10,
    atol 1e-12, dense output).

    Returns
    -------
    SliderCrankSolution
    """
    L = float(length)
    if rest_length is None:
        rest_length = float(_spring_length_and_gradient(phi0, L)[0])

    def rhs(_t, y):
        phi, dphi = y[0], y[1]
        m, dm = slider_crank_mass(phi, L, link_mass, link_inertia, slider_mass)
        kin = slider_crank_kinematics(phi, L)
        l, dl_dphi = _spring_length_and_gradient(phi, L)
        ldot = dl_dphi * dphi
        f_sd = k * (l - rest_length) + c * ldot
        Q = F * kin.db[0] - f_sd * dl_dphi
        ddphi = (Q - 0.5 * dm * dphi * dphi) / m
        return np.array([dphi, ddphi, c * ldot * ldot])

    sol = solve_ivp(rhs, (0.0, t_end), np.array([phi0, phidot0, 0.0]), method=method,
                    rtol=rtol, atol=atol, dense_output=True)
    if not sol.success:
        raise RuntimeError(f"slider-crank integration failed: {sol.message}")
    params = dict(k=float(k), c=float(c), t_end=float(t_end), F=float(F), length=L,
                  link_mass=float(link_mass), link_inertia=float(link_inertia),
                  slider_mass=float(slider_mass), phi0=float(phi0), phidot0=float(phidot0),
                  rest_length=float(rest_length))
    return SliderCrankSolution(sol, params)


# ---------------------------------------------------------------------------
# 4. Tensegrity closed-form data
# ---------------------------------------------------------------------------

TOWER_FILE = "tensegrity_two_stage_tower.json"
PRISM_FILE = "tensegrity_prism3.json"

_TOWER_SUBTYPES = {"d": "diagonal", "v": "vertical", "s": "saddle", "b": "base", "p": "platform"}


@dataclass(frozen=True)
class Member:
    """A tensegrity member between nodes ``i`` and ``j`` (0-based).

    ``kind`` is ``'strut'`` or ``'cable'``; ``subtype`` is a finer label
    (tower: ``'strut'``, ``'diagonal'``, ``'vertical'``, ``'saddle'``,
    ``'base'``, ``'platform'``; prism: ``'strut'``, ``'horizontal'``,
    ``'vertical'``).
    """

    i: int
    j: int
    kind: str
    subtype: str


@dataclass
class TensegrityStructure:
    """Tensegrity geometry and self-stress in equilibrium.

    Attributes
    ----------
    name : str
    nodes : ndarray (n, 3)
        Node coordinates [m]; row ``k`` is node ``k + 1`` of the file.
    members : list of Member
        0-based connectivity with kind and subtype.
    lengths : ndarray (m,)
        Member lengths computed from ``nodes`` [m].
    forces : ndarray (m,)
        Axial forces, tension positive, struts negative.
    force_densities : ndarray (m,)
        ``forces / lengths``.
    rest_lengths : ndarray (m,)
        Rest lengths where the source gives them, else ``nan``.
    stiffness : ndarray (m,)
        Axial stiffness ``f / (L - L0)`` where the source gives it, else
        ``nan``.
    about : str
        Provenance note copied from the data file.
    extra : dict
        Other data of the file.
    """

    name: str
    nodes: np.ndarray
    members: list
    lengths: np.ndarray
    forces: np.ndarray
    force_densities: np.ndarray
    rest_lengths: np.ndarray
    stiffness: np.ndarray
    about: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def connectivity(self) -> np.ndarray:
        """``(m, 2)`` int array of 0-based member end nodes."""
        return np.array([(mb.i, mb.j) for mb in self.members], dtype=int).reshape(-1, 2)

    @property
    def is_strut(self) -> np.ndarray:
        """Boolean mask of the struts."""
        return np.array([mb.kind == "strut" for mb in self.members], dtype=bool)

    @property
    def struts(self) -> np.ndarray:
        """``(s, 2)`` 0-based end nodes of the struts."""
        return self.connectivity[self.is_strut]


def _data_path(filename):
    """Location of a package data file in ``flexmbd/data``.

    Resolved with ``importlib.resources.files("flexmbd")`` (works for an
    installed package, zipped or not).  If that fails -- e.g. while
    ``flexmbd`` is still a namespace package, which ``importlib.resources``
    of Python 3.11 does not handle, or when this file is used on its own --
    the path relative to this file is used.
    """
    try:
        from importlib.resources import files

        res = files("flexmbd") / "data" / filename
        if res.is_file():
            return res
    except Exception:  # noqa: BLE001 - any failure: use the file-relative path
        pass
    return Path(__file__).resolve().parent.parent / "data" / filename


def _read_json(path, default_name):
    if path is None:
        path = _data_path(default_name)
    if hasattr(path, "read_text") and not isinstance(path, (str, Path)):
        text = path.read_text(encoding="utf-8")  # importlib.resources Traversable
    else:
        text = Path(path).read_text(encoding="utf-8")
    return json.loads(text)


def _member_lengths(nodes, conn):
    return np.linalg.norm(nodes[conn[:, 1]] - nodes[conn[:, 0]], axis=1)


def load_tensegrity_tower(path=None):
    """Two-stage class-1 tensegrity tower in exact self-equilibrium.

    Closed form of Sultan, Corless & Skelton, "The prestressability problem
    of tensegrity structures: some analytical solutions", *Int. J. Solids
    Struct.* 38 (2001) 5223-5252, with ``b = 0.27``, strut length ``l = 0.4``,
    ``alpha = 60 deg``, ``delta = 30 deg``; element data as published in the
    CuikSuite examples (tower3D).  6 struts, 24 cables (6 diagonal, 6
    vertical, 6 saddle, 3 base, 3 platform).  Forces are normalised so that
    the 2-norm of all 30 member forces is 1 (tension positive).

    Parameters
    ----------
    path : str or Path, optional
        JSON file; default the package copy
        ``flexmbd/data/tensegrity_two_stage_tower.json``.

    Returns
    -------
    TensegrityStructure
        Node ``k`` of the file is row ``k - 1``.  ``rest_lengths`` and
        ``stiffness`` are ``nan`` where the file has none (struts and the
        base/platform cables).
    """
    data = _read_json(path, TOWER_FILE)
    labels = sorted(data["nodes"], key=int)
    if [int(s) for s in labels] != list(range(1, len(labels) + 1)):
        raise ValueError("tower nodes must be numbered 1..n")
    nodes = np.array([data["nodes"][s] for s in labels], dtype=float)
    members, forces, rest, stiff, file_len = [], [], [], [], []
    for el in data["elements"]:
        i, j = (int(n) - 1 for n in el["nodes"])
        etype = el["type"]
        if etype == "strut":
            kind, sub = "strut", "strut"
        elif etype.startswith("cable_"):
            kind, sub = "cable", _TOWER_SUBTYPES[etype.split("_", 1)[1]]
        else:
            raise ValueError(f"unknown element type {etype!r}")
        members.append(Member(i, j, kind, sub))
        forces.append(float(el["force"]))
        rl = el.get("rest_length")
        rest.append(np.nan if rl is None else float(rl))
        st = el.get("axial_stiffness_f_over_(L-L0)")
        stiff.append(np.nan if st is None else float(st))
        file_len.append(float(el["length"]))
    conn = np.array([(m.i, m.j) for m in members], dtype=int)
    lengths = _member_lengths(nodes, conn)
    forces = np.array(forces)
    return TensegrityStructure(
        name="two_stage_tower", nodes=nodes, members=members, lengths=lengths,
        forces=forces, force_densities=forces / lengths, rest_lengths=np.array(rest),
        stiffness=np.array(stiff), about=data.get("_about", ""),
        extra={"file_lengths": np.array(file_len)},
    )


def load_tensegrity_prism(path=None):
    """3-strut tensegrity prism (class 1) in self-equilibrium.

    Data verbatim from the CuikSuite examples (``prism.tens`` and
    ``Formfinding/definePrism.m``, equilibrium nodes ``x1..x6``).  The
    struts join bottom nodes 1, 3, 5 to top nodes 2, 4, 6.  Force densities
    are ``q_horizontal`` for the cables of the bottom and top triangles,
    ``q_vertical`` for the three side ("vertical") cables and ``q_strut =
    -q_vertical`` for the struts; ``q_vertical / q_horizontal = sqrt(3)``, the
    known equilibrium ratio of the 3-prism (Tibert & Pellegrino, "Review of
    form-finding methods for tensegrity structures", *Int. J. Space Struct.*
    18 (2003)).  Member force ``= q * length`` (struts negative).  In the
    source all members are zero-rest-length springs, so ``rest_lengths`` is 0
    and ``stiffness`` equals ``q`` (negative for the struts).

    Parameters
    ----------
    path : str or Path, optional
        JSON file; default the package copy
        ``flexmbd/data/tensegrity_prism3.json``.

    Returns
    -------
    TensegrityStructure
        Node ``x<k>`` is row ``k - 1``; struts first, then cables in file
        order.  ``extra`` holds the force densities and the nominal
        ``prism_tens_nominal`` dictionary of the file.
    """
    data = _read_json(path, PRISM_FILE)
    nd = data["nodes_definePrism"]
    n = len(nd)
    nodes = np.array([nd[f"x{k}"] for k in range(1, n + 1)], dtype=float)
    q_h, q_v, q_s = (float(data[key]) for key in ("q_horizontal", "q_vertical", "q_strut"))
    struts = [(int(a) - 1, int(b) - 1) for a, b in data["struts"]]
    bottom = {a for a, _ in struts}
    top = {b for _, b in struts}
    members, q = [], []
    for a, b in struts:
        members.append(Member(a, b, "strut", "strut"))
        q.append(q_s)
    for a, b in data["strings"]:
        a, b = int(a) - 1, int(b) - 1
        same_ring = ({a, b} <= bottom) or ({a, b} <= top)
        members.append(Member(a, b, "cable", "horizontal" if same_ring else "vertical"))
        q.append(q_h if same_ring else q_v)
    q = np.array(q)
    conn = np.array([(m.i, m.j) for m in members], dtype=int)
    lengths = _member_lengths(nodes, conn)
    return TensegrityStructure(
        name="prism3", nodes=nodes, members=members, lengths=lengths, forces=q * lengths,
        force_densities=q, rest_lengths=np.zeros(len(members)), stiffness=q.copy(),
        about=data.get("_about", ""),
        extra={"q_horizontal": q_h, "q_vertical": q_v, "q_strut": q_s,
               "prism_tens_nominal": data.get("prism_tens_nominal", {})},
    )


def _as_connectivity(members):
    """``(m, 2)`` int array from Members, tuples ``(i, j, ...)`` or an array."""
    if isinstance(members, np.ndarray):
        return members[:, :2].astype(int)
    out = []
    for mb in members:
        if isinstance(mb, Member):
            out.append((mb.i, mb.j))
        else:
            out.append((int(mb[0]), int(mb[1])))
    return np.array(out, dtype=int).reshape(-1, 2)


def prism_twist_angle(nodes, struts, signed=False):
    """Twist angle of a 3-strut (or n-strut) tensegrity prism, in degrees.

    Definition (the one for which the equilibrium of the class-1 prism is
    ``alpha = 90 deg + 180 deg / n``, i.e. 150 deg for ``n = 3``; Tibert &
    Pellegrino 2003, Kenner 1976): the first end of each strut is a bottom
    node, the second a top node.  The prism axis ``e`` is the line from the
    centroid of the bottom nodes to the centroid of the top nodes.  For each
    strut, both its ends are projected on the plane normal to ``e`` relative
    to their own ring's centroid, and the angle from the bottom node to the
    top node *of the same strut* is measured right-handedly about ``e``.  The
    result is the mean over the struts, wrapped to ``(-180, 180]``.  With
    ``signed=False`` (default) its magnitude is returned, so both mirror
    images give 150 deg at equilibrium.  (The angle to the top node joined by
    a vertical cable is then 30 deg, the complementary convention.)

    The definition uses only relative positions, so it is invariant under
    rigid motions of the prism.

    Parameters
    ----------
    nodes : array_like (n_nodes, 3)
    struts : array_like (n, 2) or list of Member
        0-based ``(bottom, top)`` node pairs.
    signed : bool
        Return the signed angle instead of its magnitude.
    """
    X = np.asarray(nodes, dtype=float)
    S = _as_connectivity(struts)
    bot, top = S[:, 0], S[:, 1]
    cb, ct = X[bot].mean(axis=0), X[top].mean(axis=0)
    e = ct - cb
    e /= np.linalg.norm(e)
    angles = []
    for ib, it in zip(bot, top):
        rb = X[ib] - cb
        rt = X[it] - ct
        rb -= np.dot(rb, e) * e
        rt -= np.dot(rt, e) * e
        ang = np.arctan2(np.dot(np.cross(rb, rt), e), np.dot(rb, rt))
        angles.append(ang)
    # circular mean so that angles close to +-180 deg average correctly
    mean = np.angle(np.mean(np.exp(1j * np.array(angles))))
    deg = float(np.degrees(mean))
    if deg <= -180.0:
        deg += 360.0
    return deg if signed else abs(deg)


def equilibrium_residual(nodes, members, forces, external=None):
    """Nodal force imbalance of a pin-jointed structure.

    ``r_k = sum_{members (k, j)} f_kj (x_j - x_k) / |x_j - x_k| + p_k``
    (force method / nodal equilibrium, e.g. Schek 1974, "The force density
    method"): each member pulls its ends towards each other when its force
    is positive (tension) and pushes them apart when negative.  Zero rows
    mean equilibrium.

    Parameters
    ----------
    nodes : array_like (n, 3)
    members : list of Member, tuples ``(i, j, ...)`` or ``(m, 2)`` array
    forces : array_like (m,)
        Axial forces, tension positive.
    external : array_like (n, 3), optional
        External nodal loads ``p``.

    Returns
    -------
    ndarray (n, 3)
    """
    X = np.asarray(nodes, dtype=float)
    C = _as_connectivity(members)
    f = np.asarray(forces, dtype=float)
    d = X[C[:, 1]] - X[C[:, 0]]
    u = d / np.linalg.norm(d, axis=1)[:, None]
    pull = f[:, None] * u
    r = np.zeros_like(X)
    np.add.at(r, C[:, 0], pull)
    np.add.at(r, C[:, 1], -pull)
    if external is not None:
        r += np.asarray(external, dtype=float)
    return r


# ---------------------------------------------------------------------------
# 5. Newmark family: amplification matrix and spectral radius
# ---------------------------------------------------------------------------


class NewmarkFamilyParameters(NamedTuple):
    """Parameters of the Arnold-Bruls form of the Newmark family."""

    alpha_m: float
    alpha_f: float
    beta: float
    gamma: float


def newmark_family_parameters(rho_inf=None, method="generalized-alpha", beta=None, gamma=None):
    """Parameters ``(alpha_m, alpha_f, beta, gamma)`` of a Newmark-family method.

    All methods are written in the Arnold & Bruls (2007) form used by the
    solver (see :func:`newmark_family_step`); for linear problems it is
    identical to the Chung & Hulbert (1993) generalized-alpha method with the
    same ``alpha_m``, ``alpha_f`` (the Chung-Hulbert acceleration is replaced
    by the acceleration-like variable ``a``).

    * ``'generalized-alpha'`` (Chung & Hulbert, *J. Appl. Mech.* 60 (1993)
      371-375): ``alpha_m = (2 rho - 1)/(rho + 1)``,
      ``alpha_f = rho/(rho + 1)``, ``gamma = 1/2 - alpha_m + alpha_f``,
      ``beta = 1/4 (1 - alpha_m + alpha_f)^2``; ``0 <= rho_inf <= 1``
      (default 0.9).
    * ``'hht'`` (Hilber, Hughes & Taylor, *Earthquake Eng. Struct. Dyn.* 5
      (1977) 283-292): ``alpha_m = 0``, ``alpha_f = alpha = (1 - rho)/(1 +
      rho)``, ``beta = (1 + alpha)^2/4``, ``gamma = 1/2 + alpha``;
      ``1/2 <= rho_inf <= 1`` i.e. ``0 <= alpha <= 1/3`` (default 0.9).
      HHT's own paper writes ``alpha in [-1/3, 0]`` with the stiffness term
      ``(1 + alpha) K q_{n+1} - alpha K q_n``; here ``alpha_f = -alpha_HHT``.
      In the Arnold-Bruls form with ``alpha_m = 0`` this ``alpha_f`` does give
      spectral radius ``rho_inf`` at infinite ``Omega h`` (checked in the
      tests).
    * ``'newmark'`` (Newmark 1959): ``alpha_m = alpha_f = 0``; defaults
      ``beta = 1/4``, ``gamma = 1/2`` (trapezoidal rule); ``rho_inf`` must be
      None.

    ``beta`` / ``gamma`` given explicitly override the values above.
    """
    method = method.lower().replace("_", "-")
    if method in ("generalized-alpha", "gen-alpha", "genalpha"):
        rho = 0.9 if rho_inf is None else float(rho_inf)
        if not 0.0 <= rho <= 1.0:
            raise ValueError("generalized-alpha needs 0 <= rho_inf <= 1")
        am = (2.0 * rho - 1.0) / (rho + 1.0)
        af = rho / (rho + 1.0)
        g = 0.5 - am + af
        b = 0.25 * (1.0 - am + af) ** 2
    elif method in ("hht", "hht-alpha"):
        rho = 0.9 if rho_inf is None else float(rho_inf)
        if not 0.5 <= rho <= 1.0:
            raise ValueError("HHT-alpha needs 1/2 <= rho_inf <= 1")
        alpha = (1.0 - rho) / (1.0 + rho)
        am, af = 0.0, alpha
        g = 0.5 + alpha
        b = 0.25 * (1.0 + alpha) ** 2
    elif method == "newmark":
        if rho_inf is not None:
            raise ValueError("plain Newmark is specified by beta and gamma, not rho_inf")
        am = af = 0.0
        g, b = 0.5, 0.25
    else:
        raise ValueError(f"unknown method {method!r}")
    if beta is not None:
        b = float(beta)
    if gamma is not None:
        g = float(gamma)
    return NewmarkFamilyParameters(am, af, b, g)


def newmark_family_step(q, v, a, omega, h, params):
    """One step of the Arnold-Bruls Newmark-family scheme on ``x'' + omega^2 x = 0``.

    Scheme (Arnold & Bruls, "Convergence of the generalized-alpha scheme for
    constrained mechanical systems", *Multibody Syst. Dyn.* 18 (2007)
    185-202, sec. 2)::

        q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
        v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
        (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) qdd_{n+1} + alpha_f qdd_n
        qdd_{n+1} = -omega^2 q_{n+1}          (equilibrium at t_{n+1})

    with ``qdd_n = -omega^2 q_n``.  The three implicit equations are solved
    for ``(q_{n+1}, v_{n+1}, a_{n+1})``.

    Parameters
    ----------
    q, v, a : float
        Position, velocity, acceleration-like variable at ``t_n``.
    omega, h : float
        Natural frequency and step size.
    params : NewmarkFamilyParameters or tuple (alpha_m, alpha_f, beta, gamma)

    Returns
    -------
    (q1, v1, a1) : tuple of float
    """
    am, af, b, g = params
    w2 = omega * omega
    lhs = np.array([[1.0, 0.0, -h * h * b],
                    [0.0, 1.0, -h * g],
                    [(1.0 - af) * w2, 0.0, 1.0 - am]])
    rhs = np.array([q + h * v + h * h * (0.5 - b) * a,
                    v + h * (1.0 - g) * a,
                    -am * a - af * w2 * q])
    q1, v1, a1 = np.linalg.solve(lhs, rhs)
    return q1, v1, a1


def newmark_family_amplification_matrix(omega_h, rho_inf=None, method="generalized-alpha",
                                        beta=None, gamma=None):
    """Amplification matrix ``A`` of the Newmark family on ``x'' + omega^2 x = 0``.

    ``[q, h v, h^2 a]_{n+1} = A [q, h v, h^2 a]_n``; ``A`` depends only on
    ``Omega h = omega h``.  Built numerically: each column is one step of
    :func:`newmark_family_step` (with ``h = 1``, ``omega = Omega h``) from a
    unit initial vector; no eigenvalue formula is hard-coded.  For plain
    Newmark (``alpha_m = alpha_f = 0``) the 3x3 matrix has the two Newmark
    eigenvalues plus a spurious eigenvalue 0.
    """
    params = newmark_family_parameters(rho_inf, method, beta, gamma)
    W = float(omega_h)
    A = np.empty((3, 3))
    for col, e in enumerate(np.eye(3)):
        A[:, col] = newmark_family_step(e[0], e[1], e[2], W, 1.0, params)
    return A


def newmark_family_spectral_radius(omega_h, rho_inf=None, method="generalized-alpha",
                                   beta=None, gamma=None):
    """Spectral radius of the Newmark-family amplification matrix.

    ``rho(Omega h) = max |eig(A(Omega h))|`` with ``A`` from
    :func:`newmark_family_amplification_matrix` (Arnold-Bruls form;
    parameters and conventions in :func:`newmark_family_parameters`).
    Expected limits: ``rho -> 1`` as ``Omega h -> 0`` and ``rho -> rho_inf``
    as ``Omega h -> infinity`` (Chung & Hulbert 1993).

    Note: for generalized-alpha the three eigenvalues coalesce into a triple
    root ``-rho_inf`` at infinity, so ``rho(Omega h) - rho_inf`` decays only
    like ``(Omega h)^(-2/3)`` (about 1e-4 at ``Omega h = 1e6``).  For HHT the
    spurious root at infinity is ``-alpha/(1 - alpha)``, smaller than
    ``rho_inf`` in magnitude, and the error decays like ``(Omega h)^(-2)``;
    except at ``alpha = 1/3`` (``rho_inf = 1/2``, identical to
    generalized-alpha with ``rho_inf = 1/2``), where it is again a triple
    root.

    Parameters
    ----------
    omega_h : float or array_like
        Non-dimensional frequency ``Omega h`` (>= 0).
    rho_inf, method, beta, gamma
        See :func:`newmark_family_parameters`.

    Returns
    -------
    float or ndarray
    """
    W = np.asarray(omega_h, dtype=float)
    out = np.array([
        np.max(np.abs(np.linalg.eigvals(
            newmark_family_amplification_matrix(w, rho_inf, method, beta, gamma))))
        for w in W.ravel()
    ]).reshape(W.shape)
    return float(out) if out.ndim == 0 else out


@dataclass
class ChainModes:
    """Modes of the two-mass chain of :func:`two_mass_chain_modes`.

    Attributes
    ----------
    omega : ndarray (2,)
        Natural angular frequencies [rad/s], ascending (soft mode first).
    frequency_hz : ndarray (2,)
        ``omega / (2 pi)``.
    modes : ndarray (2, 2)
        Mass-normalised mode shapes as columns (``modes.T @ M @ modes = I``),
        sign fixed so that the displacement of ``m1`` is >= 0.
    M, K : ndarray (2, 2)
        Mass and stiffness matrices.
    """

    omega: np.ndarray
    frequency_hz: np.ndarray
    modes: np.ndarray
    M: np.ndarray
    K: np.ndarray

    def response(self, t, q0, v0):
        """Exact free response ``q(t)`` (shape ``(len(t), 2)``) by modal
        superposition, from initial displacements ``q0`` and velocities
        ``v0``."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        eta0 = self.modes.T @ self.M @ np.asarray(q0, float)
        deta0 = self.modes.T @ self.M @ np.asarray(v0, float)
        w = self.omega
        eta = eta0 * np.cos(np.outer(t, w)) + deta0 / w * np.sin(np.outer(t, w))
        return eta @ self.modes.T


def two_mass_chain_modes(m1, m2, k_soft, k_stiff):
    """Natural frequencies and modes of the chain ground -k_soft- m1 -k_stiff- m2.

    Two point masses on a line: ``m1`` is tied to ground by ``k_soft`` and to
    ``m2`` by ``k_stiff``; ``m2`` is otherwise free.  With displacements
    ``q = (x1, x2)``::

        M = diag(m1, m2),   K = [[k_soft + k_stiff, -k_stiff],
                                 [-k_stiff,           k_stiff]]

    and ``K phi = omega^2 M phi`` (generalized symmetric eigenproblem, solved
    with ``scipy.linalg.eigh``).  The characteristic equation is
    ``m1 m2 w^4 - (m1 k_stiff + m2 (k_soft + k_stiff)) w^2 + k_soft k_stiff = 0``.
    For ``k_stiff >> k_soft`` the low mode is the two masses moving together
    on ``k_soft`` (``w^2 ~ k_soft/(m1 + m2)``) and the high, stiff mode the
    masses vibrating against each other (``w^2 ~ k_stiff (1/m1 + 1/m2)``) --
    the mode a dissipative integrator (``rho_inf < 1``) should damp.
    """
    M = np.diag([float(m1), float(m2)])
    K = np.array([[k_soft + k_stiff, -k_stiff], [-k_stiff, k_stiff]], dtype=float)
    w2, Phi = eigh(K, M)
    for col in range(2):
        if Phi[0, col] < 0:
            Phi[:, col] *= -1.0
    omega = np.sqrt(w2)
    return ChainModes(omega=omega, frequency_hz=omega / (2 * np.pi), modes=Phi, M=M, K=K)


# ---------------------------------------------------------------------------
# 6. The elastica
# ---------------------------------------------------------------------------


class ElasticaTip(NamedTuple):
    """Tip of the elastica cantilever, over the length L: ``x`` along the undeformed
    axis, ``deflection`` along the load, ``rotation`` the tip's slope angle [rad]."""

    x: float
    deflection: float
    rotation: float


def elastica_cantilever(alpha: float) -> ElasticaTip:
    """Tip of an inextensible, unshearable cantilever under a dead tip load.

    A beam of length L and bending stiffness EI, clamped at s = 0 along x, carries at
    s = L a force P perpendicular to its undeformed axis; ``alpha = P L^2 / EI``.  The
    slope angle θ(s) obeys EI θ'' + P cos θ = 0, θ(0) = 0, θ'(L) = 0 (Euler's
    elastica), whose first integral ½ EI θ'^2 = P (sin θ_L − sin θ) the substitution
    1 + sin θ = 2 m sin²φ turns into elliptic integrals of parameter m = (1 + sin θ_L)/2
    (Bisshopp & Drucker, "Large deflection of cantilever beams", Quart. Appl. Math. 3
    (1945) 272-275; Frisch-Fay, *Flexible Bars*, Butterworths 1962, ch. 3):

        √α = K(m) − F(φ₁|m),          sin φ₁ = 1/√(2m),
        x_L / L = 2 √m cos φ₁ / √α,
        δ_L / L = 1 − 2 (E(m) − E(φ₁|m)) / √α,
        sin θ_L = 2m − 1,

    K, E complete and F, E incomplete elliptic integrals of the first and second kind
    (``scipy.special.ellipk``, ``ellipe``, ``ellipkinc``, ``ellipeinc``, which take the
    parameter m = k², not the modulus).  m ∈ (½, 1) is found by bracketing (Brent's
    method) to rounding: the right-hand side grows from 0 at m = ½ to ∞ at m → 1.

    Parameters
    ----------
    alpha : float
        Load parameter P L² / EI > 0.

    Returns
    -------
    ElasticaTip
        Tip position (x along the axis, deflection along the load) over L and tip
        rotation.  For alpha = 1: (0.94357, 0.30172, 0.46135 rad) (Bisshopp & Drucker's
        table: δ/L = 0.302).
    """
    alpha = float(alpha)
    if not alpha > 0:
        raise ValueError("alpha = P L^2 / EI must be positive")
    root = np.sqrt(alpha)

    def phi1(m):
        return np.arcsin(min(1.0, 1.0 / np.sqrt(2.0 * m)))

    def residual(m):
        return ellipk(m) - ellipkinc(phi1(m), m) - root

    lo, hi = 0.5, 0.5 + 0.25
    while residual(hi) < 0.0:            # K(m) → ∞ as m → 1: the bracket closes in on 1
        lo, hi = hi, 0.5 * (hi + 1.0)
    m = brentq(residual, lo, hi, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=200)
    p1 = phi1(m)
    x = 2.0 * np.sqrt(m) * np.cos(p1) / root
    deflection = 1.0 - 2.0 * (ellipe(m) - ellipeinc(p1, m)) / root
    return ElasticaTip(float(x), float(deflection), float(np.arcsin(2.0 * m - 1.0)))


def timoshenko_cantilever_frequencies(length: float, EI: float, kGA: float, rhoA: float, rhoI: float,
                                      modes: int = 2) -> np.ndarray:
    """Bending natural frequencies [rad/s] of a clamped-free Timoshenko beam.

    Timoshenko's equations for the deflection w and the section rotation ψ in harmonic
    motion at ω (Timoshenko, Phil. Mag. 41 (1921) 744-746; boundary conditions as in
    Han, Benaroya & Wei, J. Sound Vib. 225 (1999) 935-988, sec. 5):

        kGA (w'' − ψ') + ρA ω² w = 0,     EI ψ'' + kGA (w' − ψ) + ρI ω² ψ = 0,
        clamped at x = 0: w = ψ = 0;      free at x = L: EI ψ' = 0, kGA (w' − ψ) = 0.

    Solved by shooting, not through the closed-form frequency equation: the two
    solutions with w = ψ = 0 and (w', ψ') = (1, 0), (0, 1) at x = 0 are integrated to
    x = L (``solve_ivp``, DOP853, rtol 1e-12), and ω is a root of the determinant of the
    2×2 matrix of the free-end conditions, bracketed around the Euler-Bernoulli values
    (β_k L = 1.8751, 4.6941, 7.8548, … , cos βL cosh βL = −1), which the Timoshenko
    frequencies lie below.

    Parameters
    ----------
    length, EI, kGA, rhoA, rhoI : float
        L, bending stiffness, shear stiffness (shear factor included), mass and rotary
        inertia per unit length.
    modes : int
        How many of the lowest frequencies.

    Returns
    -------
    ndarray
        ω_1 … ω_modes [rad/s].
    """
    L, EI, kGA, rhoA, rhoI = map(float, (length, EI, kGA, rhoA, rhoI))

    def det(w):
        def rhs(x, u):          # u = [w, w', ψ, ψ']
            ww, dw, psi, dpsi = u
            ddw = dpsi - rhoA * w * w * ww / kGA
            ddpsi = -(kGA * (dw - psi) + rhoI * w * w * psi) / EI
            return [dw, ddw, dpsi, ddpsi]

        ends = [solve_ivp(rhs, (0.0, L), u0, method="DOP853", rtol=1e-12, atol=1e-14).y[:, -1]
                for u0 in ([0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])]
        a = np.array([[EI * e[3], kGA * (e[1] - e[2])] for e in ends])
        return a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]

    out = []
    for k in range(1, int(modes) + 1):     # the k-th root of cos βL cosh βL = −1 lies in ((k−1)π, kπ)
        beta = brentq(lambda b: np.cos(b) * np.cosh(b) + 1.0, (k - 1) * np.pi, k * np.pi, xtol=1e-15)
        w_eb = beta**2 * np.sqrt(EI / (rhoA * L**4))
        lo = 0.5 * w_eb
        grid = np.linspace(lo, w_eb * (1.0 + 1e-9), 41)
        vals = [det(w) for w in grid]
        i = next(j for j in range(len(grid) - 1, 0, -1) if np.sign(vals[j - 1]) != np.sign(vals[j]))
        out.append(brentq(det, grid[i - 1], grid[i], xtol=1e-13 * w_eb, rtol=1e-14))
    return np.array(out)


def timoshenko_cantilever_frequency_equation(length: float, EI: float, kGA: float, rhoA: float, rhoI: float,
                                             modes: int = 2) -> np.ndarray:
    """Bending natural frequencies [rad/s] of a clamped-free Timoshenko beam from the
    closed-form frequency equation (no ODE solver: an independent check of
    :func:`timoshenko_cantilever_frequencies`; Huang, J. Appl. Mech. 28 (1961) 579-584;
    Han, Benaroya & Wei, J. Sound Vib. 225 (1999) 935-988, sec. 5).

    With w, ψ ∝ e^{λx} in kGA (w'' − ψ') + ρA ω² w = 0, EI ψ'' + kGA (w' − ψ) + ρI ω² ψ = 0:

        EI kGA λ⁴ + ω² (EI ρA + kGA ρI) λ² + ρA ω² (ρI ω² − kGA) = 0,
        ψ-amplitude / w-amplitude = (kGA λ² + ρA ω²) / (kGA λ)  (odd in λ).

    Below the cut-off ω² < kGA/ρI the roots are λ² = a² > 0 and λ² = −b² < 0, so
    w = C₁ cosh ax + C₂ sinh ax + C₃ cos bx + C₄ sin bx,
    ψ = α (C₁ sinh ax + C₂ cosh ax) + β (C₃ sin bx − C₄ cos bx),
    α = (kGA a² + ρA ω²)/(kGA a), β = (ρA ω² − kGA b²)/(kGA b).  The clamped end
    (w = ψ = 0) gives C₃ = −C₁, C₄ = (α/β) C₂; the free end (ψ' = 0, w' − ψ = 0) leaves the
    2×2 determinant

        | α a cosh aL − β b cos bL             α (a sinh aL + b sin bL)            |
        | (a − α) sinh aL + (b + β) sin bL     (a − α) cosh aL + (b + β)(α/β) cos bL |  = 0,

    whose roots are bracketed as in :func:`timoshenko_cantilever_frequencies`.  Valid for
    modes below the cut-off frequency √(kGA/ρI) (all low modes of slender beams).
    """
    L, EI, kGA, rhoA, rhoI = map(float, (length, EI, kGA, rhoA, rhoI))

    def det(w):
        w2 = w * w
        B = w2 * (EI * rhoA + kGA * rhoI)
        C = rhoA * w2 * (rhoI * w2 - kGA)
        disc = np.sqrt(B * B - 4.0 * EI * kGA * C)
        a = np.sqrt((-B + disc) / (2.0 * EI * kGA))
        b = np.sqrt((B + disc) / (2.0 * EI * kGA))
        al = (kGA * a * a + rhoA * w2) / (kGA * a)
        be = (rhoA * w2 - kGA * b * b) / (kGA * b)
        ch, sh, c, s = np.cosh(a * L), np.sinh(a * L), np.cos(b * L), np.sin(b * L)
        m11 = al * a * ch - be * b * c
        m12 = al * (a * sh + b * s)
        m21 = (a - al) * sh + (b + be) * s
        m22 = (a - al) * ch + (b + be) * (al / be) * c
        return (m11 * m22 - m12 * m21) / ch ** 2

    cutoff = np.sqrt(kGA / rhoI) if rhoI > 0 else np.inf
    out = []
    for k in range(1, int(modes) + 1):
        beta = brentq(lambda x: np.cos(x) * np.cosh(x) + 1.0, (k - 1) * np.pi, k * np.pi, xtol=1e-15)
        w_eb = beta**2 * np.sqrt(EI / (rhoA * L**4))
        if w_eb >= cutoff:
            raise ValueError(f"timoshenko_cantilever_frequency_equation: mode {k} lies near or above the cut-off "
                             f"frequency {cutoff:.6g} rad/s; use timoshenko_cantilever_frequencies")
        grid = np.linspace(0.5 * w_eb, w_eb * (1.0 + 1e-9), 401)
        vals = [det(w) for w in grid]
        i = next(j for j in range(len(grid) - 1, 0, -1) if np.sign(vals[j - 1]) != np.sign(vals[j]))
        out.append(brentq(det, grid[i - 1], grid[i], xtol=1e-14 * w_eb, rtol=4 * np.finfo(float).eps))
    return np.array(out)


# ---------------------------------------------------------------- 7. rolling contact geometry
def wheel_centre_offset_curve(r, dr, radius, xi, base_radius=None):
    """Where the centre of a wheel of ``radius`` R is while it touches a smooth profile at the
    points ``xi`` (arc length; height ``r(xi)``, slope ``dr(xi)``), valid where the wheel
    follows the profile (its concave curvature below the relative curvature of the bodies):
    the centre lies at R along the surface normal of the contact point (the offset curve,
    e.g. do Carmo, *Differential Geometry of Curves and Surfaces*, 1976, §1-5).

    Flat base (a rail): returns (x, z − R) = (ξ − R r'/√(1 + r'²), r + R/√(1 + r'²) − R).
    Roller of radius R_r (``base_radius``; ``r`` radial over the roller's arc length):
    P = ρ e_r(ψ), ρ = R_r + r, ψ = ξ/R_r, normal n ∝ ρ e_r − (dρ/dψ) e_ψ, C = P + R n̂;
    returns (R_r · angle of C, |C| − R_r − R), the rolling distance and the change of the
    centre distance."""
    xi = np.asarray(xi, dtype=float)
    h, hp = np.asarray(r(xi), dtype=float), np.asarray(dr(xi), dtype=float)
    if base_radius is None:
        q = np.sqrt(1.0 + hp * hp)
        return xi - radius * hp / q, h + radius / q - radius
    psi = xi / base_radius
    rho = base_radius + h
    er = np.array([np.sin(psi), np.cos(psi)])
    ep = np.array([np.cos(psi), -np.sin(psi)])
    nrm = rho * er - hp * base_radius * ep
    C = rho * er + radius * nrm / np.linalg.norm(nrm, axis=0)
    return base_radius * np.arctan2(C[0], C[1]), np.linalg.norm(C, axis=0) - base_radius - radius
