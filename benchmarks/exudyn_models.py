"""The benchmark models in Exudyn, the C++ peer, for side-by-side runs.

Exudyn is optional (``pip install -e .[bench]``); :data:`AVAILABLE` says whether it could
be imported, and nothing here is needed by flexmbd or its tests.

Each model is a :class:`PeerModel`: the Exudyn system built item by item (not timed),
the simulation settings, and the bookkeeping that reads the answer back.  :func:`solve`
is what the runner times: ``mbs.Assemble()`` (the analogue of flexmbd's freezing) and
``exu.SolveDynamic``.

Settings, the same for every model unless stated (they mirror flexmbd's defaults):

* index-3 Newmark through Exudyn's generalized-α solver: ``useNewmark = True``,
  ``newmarkBeta``/``newmarkGamma`` as in the flexmbd run (¼, ½ by default),
  ``useIndex2Constraints = False``, ``spectralRadius = 1``;
* full Newton (``useModifiedNewton = False``; flexmbd's default ``refresh='newton'``)
  with Exudyn's default tolerances (relative 1e-8, absolute 1e-10), or modified Newton
  when the benchmark compares flexmbd's ``refresh='step'``;
* Euler-parameter rigid bodies (``NodeRigidBodyEP``, the Euler-parameter condition as an
  algebraic equation, as in flexmbd);
* dense LU (``EXUdense``) up to :data:`DENSE_LIMIT` unknowns, Eigen's sparse LU above
  (whichever was faster for the model on this project's machines);
* no solution file, no console output, one thread.

Redundant constraints: Exudyn does not remove them, so the P1 slider-crank is built with
a non-redundant joint set (the wrist joint constrains only x and y); it is the same
mechanism, the planar motion being fixed by the other joints.  flexmbd removes the three
redundant equations of its spatial revolute joints itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

try:  # optional peer
    import exudyn as exu
    import exudyn.utilities as exu_utilities  # noqa: F401  (registers the Create* helpers)
    from exudyn.utilities import RigidBodyInertia

    AVAILABLE = True
    VERSION = exu.__version__
except ImportError:  # pragma: no cover - depends on the environment
    exu = None
    AVAILABLE = False
    VERSION = None

#: Exudyn's dense LU (EXUdense) is used up to this many unknowns, EigenSparse above.
#: Measured here: slider-crank (42 unknowns) and tensegrity (48) are 2-7 % faster dense,
#: the 10-body chain (110) is 1.9-2.3× faster with EigenSparse.
DENSE_LIMIT = 60


@dataclass
class PeerModel:
    """An Exudyn system ready to solve, and how to read its answer."""

    SC: object
    mbs: object
    settings: object
    bodies: dict = field(default_factory=dict)   # flexmbd body name -> Exudyn ObjectIndex
    sensors: dict = field(default_factory=dict)  # name -> SensorIndex (stored internally)
    info: dict = field(default_factory=dict)
    static: bool = False                         # solved with exu.SolveStatic (load steps)
    nodes: list = field(default_factory=list)    # NodeIndex of beam nodes, in order

    def node_position(self, i):
        """Current global position of beam node ``i``."""
        return np.asarray(self.mbs.GetNodeOutput(self.nodes[i], exu.OutputVariableType.Position))

    def position(self, body, local=(0.0, 0.0, 0.0)):
        """Current global position of a body point (body-frame ``local``)."""
        return np.asarray(self.mbs.GetObjectOutputBody(self.bodies[body], exu.OutputVariableType.Position,
                                                       localPosition=list(map(float, local))))

    def point(self, body, x0):
        """Current position of the body point that was at global ``x0`` initially."""
        r, A = self.info["frames"][body]
        return self.position(body, A.T @ (np.asarray(x0, float) - r))

    def sensor(self, name):
        """Stored sensor data: columns t, value..."""
        return np.asarray(self.mbs.GetSensorStoredData(self.sensors[name]))


@dataclass
class PeerResult:
    success: bool
    steps: int
    iterations: int     # Newton iterations (solver.it.newtonStepsCount)
    jacobians: int      # Jacobian evaluations and factorizations (solver.it.newtonJacobiCount)
    unknowns: int       # ODE2 coordinates + algebraic variables
    linear_solver: str
    timer: dict | None = None  # Exudyn's solver timer (only when show.computationTime was set)


def _require():
    if not AVAILABLE:
        raise ImportError("Exudyn is not installed: pip install -e .[bench]")


def settings(steps, h, beta=0.25, gamma=0.5, modified_newton=False, sensor_period=None):
    """SimulationSettings for ``steps`` index-3 Newmark steps of size ``h`` (see module doc)."""
    _require()
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = int(steps)
    ti.endTime = steps * h
    ti.verboseMode = 0
    ga = ti.generalizedAlpha
    ga.useNewmark = True
    ga.newmarkBeta = float(beta)
    ga.newmarkGamma = float(gamma)
    ga.useIndex2Constraints = False
    ga.spectralRadius = 1.0
    ti.newton.useModifiedNewton = bool(modified_newton)
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = h if sensor_period is None else sensor_period
    ss.show.computationTime = False
    ss.show.statistics = False
    ss.parallel.numberOfThreads = 1
    return ss


def solve(peer: PeerModel) -> PeerResult:
    """Assemble and run (the timed part).  The linear solver follows :data:`DENSE_LIMIT`.
    Static models (``peer.static``) are solved with ``exu.SolveStatic``: steps are load steps."""
    mbs, ss = peer.mbs, peer.settings
    mbs.Assemble()
    n = mbs.systemData.ODE2Size() + mbs.systemData.AEsize()
    sparse = n > DENSE_LIMIT
    ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse if sparse else exu.LinearSolverType.EXUdense
    if peer.static:
        ok = exu.SolveStatic(mbs, ss, storeSolver=True, autoAssemble=False)
        solver, steps = mbs.sys["staticSolver"], ss.staticSolver.numberOfLoadSteps
    else:
        ok = exu.SolveDynamic(mbs, ss, storeSolver=True, autoAssemble=False)
        solver, steps = mbs.sys["dynamicSolver"], ss.timeIntegration.numberOfSteps
    it = solver.it
    timer = None
    if ss.show.computationTime:
        tm = solver.timer
        timer = {k: float(getattr(tm, k)) for k in dir(tm) if not k.startswith("_") and k != "useTimer"
                 and isinstance(getattr(tm, k), float)}
    return PeerResult(bool(ok), int(steps), int(it.newtonStepsCount), int(it.newtonJacobiCount), n,
                      "EigenSparse" if sparse else "EXUdense", timer)


def timer_split(timer):
    """(assembly, linear) seconds from Exudyn's solver timer: residual, Jacobians and
    constraint terms vs factorization and the Newton increment's back-substitution."""
    asm = sum(timer.get(k, 0.0) for k in ("ODE2RHS", "ODE1RHS", "AERHS", "jacobianODE2", "jacobianODE2_t",
                                          "jacobianODE1", "jacobianAE", "massMatrix"))
    lin = timer.get("factorization", 0.0) + timer.get("newtonIncrement", 0.0)
    return asm, lin


def _new_system():
    _require()
    SC = exu.SystemContainer()
    return SC, SC.AddSystem()


# ---------------------------------------------------------------------------
# P1 slider-crank (hand-built: a non-redundant joint set)
# ---------------------------------------------------------------------------


def slider_crank(k=2e4, c=1e3, steps=100, h=0.01, modified_newton=False):
    """The P1 slider-crank (flexmbd.examples.slider_crank) with an SDA between the links.

    Joints: revolute z at the crank pin and the elbow (5 equations each), prismatic x for
    the slider (5), and at the wrist only the x and y components of the spherical
    condition (2) — 17 independent equations for 18 coordinates (1 degree of freedom).
    A sensor stores the slider's x at every step.
    """
    from flexmbd.examples import slider_crank as sc

    SC, mbs = _new_system()
    L, phi = sc.LENGTH, sc.CRANK_ANGLE
    A = L * np.array([np.cos(phi), np.sin(phi), 0.0])
    B = np.array([2 * L * np.cos(phi), 0.0, 0.0])
    J_link = np.diag(sc.LINK_INERTIA)
    ground = mbs.CreateGround()
    crank = mbs.CreateRigidBody(inertia=RigidBodyInertia(sc.LINK_MASS, J_link), referencePosition=list(A / 2),
                                referenceRotationMatrix=_rot_z(phi))
    link = mbs.CreateRigidBody(inertia=RigidBodyInertia(sc.LINK_MASS, J_link), referencePosition=list((A + B) / 2),
                               referenceRotationMatrix=_rot_z(-phi))
    slider = mbs.CreateRigidBody(inertia=RigidBodyInertia(sc.SLIDER_MASS, np.diag(sc.SLIDER_INERTIA)),
                                 referencePosition=list(B))
    z = [0.0, 0.0, 1.0]
    mbs.CreateRevoluteJoint(itemNumbers=[ground, crank], position=[0.0, 0.0, 0.0], axis=z)
    mbs.CreateRevoluteJoint(itemNumbers=[crank, link], position=list(A), axis=z)
    mbs.CreateSphericalJoint(itemNumbers=[link, slider], position=list(B), constrainedAxes=[1, 1, 0])
    mbs.CreatePrismaticJoint(itemNumbers=[ground, slider], position=list(B), axis=[1.0, 0.0, 0.0])
    mbs.CreateSpringDamper(itemNumbers=[crank, link], stiffness=float(k), damping=float(c))
    mbs.CreateForce(itemNumber=slider, loadVector=[sc.FORCE, 0.0, 0.0])
    s = mbs.AddSensor(exu.itemInterface.SensorBody(bodyNumber=slider, storeInternal=True, writeToFile=False,
                                                   outputVariableType=exu.OutputVariableType.Position))
    frames = {"crank": (A / 2, _rot_z(phi)), "link": ((A + B) / 2, _rot_z(-phi)), "slider": (B, np.eye(3))}
    return PeerModel(SC, mbs, settings(steps, h, modified_newton=modified_newton),
                     {"crank": crank, "link": link, "slider": slider}, {"slider": s}, {"frames": frames})


def _rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


# ---------------------------------------------------------------------------
# any flexmbd model of spatial rigid bodies, spherical joints, spring-dampers, forces
# ---------------------------------------------------------------------------


def from_model(model, steps, h, beta=0.25, gamma=0.5, modified_newton=False, cables="symbolic", sensors=()):
    """Translate a flexmbd :class:`~flexmbd.Model` item by item into Exudyn.

    Supported: spatial rigid bodies (Euler parameters, initial velocities), gravity,
    spherical joints, spring-dampers with constant k, c, rest length and no actuator,
    constant point forces, markers (answers are read with :meth:`PeerModel.position`).
    Anything else raises ``NotImplementedError`` naming it, so a benchmark can never
    silently compare different models.

    ``cables``: how tension-only spring-dampers are built — ``"symbolic"`` (default): a
    spring-force user function that drops the force while slack, as an Exudyn symbolic
    expression evaluated in C++ (``CreateSymbolicUserFunction``, Exudyn's recommended
    way to give a custom law without Python callbacks); ``"user"``: the same as a Python
    function (a Python call per cable per evaluation); ``"linear"``: ordinary
    spring-dampers (the same model only as long as no cable goes slack).  ``sensors``: body names whose centre position is stored every step.
    """
    from flexmbd.ground import GROUND
    from flexmbd.nodes import SPATIAL
    from flexmbd.rotations import rotation_matrix

    SC, mbs = _new_system()
    ground = mbs.CreateGround()
    g = [float(x) for x in model.gravity]
    if cables not in ("symbolic", "user", "linear"):
        raise ValueError(f"cables must be 'symbolic', 'user' or 'linear', got {cables!r}")
    bodies, frames, cable_items = {}, {}, []
    for b in model.bodies:
        if b.kind != SPATIAL:
            raise NotImplementedError(f"body {b.name!r}: only spatial rigid bodies are translated")
        A = rotation_matrix(b.orientation / np.linalg.norm(b.orientation))
        bodies[b.name] = mbs.CreateRigidBody(
            inertia=RigidBodyInertia(float(b.mass), np.asarray(b.inertia, float)), referencePosition=list(b.position),
            referenceRotationMatrix=A, initialVelocity=list(map(float, b.velocity)),
            initialAngularVelocity=list(map(float, b.angular_velocity)), gravity=g)
        frames[b.name] = (np.asarray(b.position, float), A)

    def item(body):
        return ground if body is GROUND else bodies[body.name]

    def local(body, x):
        if body is GROUND:
            return [float(v) for v in x]
        r, A = frames[body.name]
        return [float(v) for v in A.T @ (np.asarray(x, float) - r)]

    for e in model.elements:
        bi = e.bodies[0]
        if e.kind == "spherical":
            mbs.CreateSphericalJoint(itemNumbers=[item(bi), item(e.bodies[1])], position=list(map(float, e.data["at"])))
        elif e.kind == "spring_damper":
            d = e.data
            if d["law"] is not None or not _is_zero(d["actuator"]):
                raise NotImplementedError(f"spring_damper {e.name!r}: only linear elements without actuator")
            bj = e.bodies[1]
            kw = dict(itemNumbers=[item(bi), item(bj)], localPosition0=local(bi, d["at_i"]),
                      localPosition1=local(bj, d["at_j"]), referenceLength=float(d["rest_length"]),
                      stiffness=float(d["k"]), damping=float(d["c"]))
            if d["tension_only"] and cables == "user":
                kw["springForceUserFunction"] = _cable_force
            co = mbs.CreateSpringDamper(**kw)
            if d["tension_only"] and cables == "symbolic":
                cable_items.append(co)
        elif e.kind == "force":
            d = e.data
            if not _is_one(d["scale"]):
                raise NotImplementedError(f"force {e.name!r}: only constant forces")
            mbs.CreateForce(itemNumber=item(bi), loadVector=list(map(float, d["force"])),
                            localPosition=local(bi, d["at"]), bodyFixed=bool(d["body_fixed"]))
        elif e.kind in ("marker", "rigid"):
            continue  # markers are read with PeerModel.position; rigid bodies were made above
        else:
            raise NotImplementedError(f"{e.kind} {e.name!r}: not translated to Exudyn")
    info = {"frames": frames, "cables": cables}
    if cable_items:
        from exudyn.utilities import CreateSymbolicUserFunction

        # one symbolic function shared by all cables; the handle must outlive the solve
        info["cable_function"] = fn = CreateSymbolicUserFunction(mbs, _cable_force_symbolic, "springForceUserFunction",
                                                                 cable_items[0])
        for co in cable_items:
            mbs.SetObjectParameter(co, "springForceUserFunction", fn)
    sens = {name: mbs.AddSensor(exu.itemInterface.SensorBody(
        bodyNumber=bodies[name], storeInternal=True, writeToFile=False,
        outputVariableType=exu.OutputVariableType.Position)) for name in sensors}
    return PeerModel(SC, mbs, settings(steps, h, beta, gamma, modified_newton), bodies, sens, info)


def _cable_force(mbs, t, itemNumber, u, v, k, d, F0):
    """flexmbd's cable rule: no force while slack (δ ≤ 0) or when the law would push."""
    f = k * u + d * v + F0
    return f if (u > 0.0 and f > 0.0) else 0.0


def _cable_force_symbolic(mbs, t, itemNumber, u, v, k, d, F0):
    """:func:`_cable_force` as an Exudyn symbolic expression (traced once, run in C++)."""
    esym = exu.symbolic
    zero = esym.Real(0.0)
    return esym.IfThenElse(u > zero, esym.max(k * u + d * v + F0, zero), zero)


def _is_zero(fn):
    try:
        return all(float(fn(t)) == 0.0 for t in (0.0, 0.37, 1.0))
    except TypeError:
        return float(fn) == 0.0


def _is_one(fn):
    try:
        return all(float(fn(t)) == 1.0 for t in (0.0, 0.37, 1.0))
    except TypeError:
        return float(fn) == 1.0


# ---------------------------------------------------------------------------
# geometrically exact beams (ObjectBeamGeometricallyExact)
# ---------------------------------------------------------------------------


def static_settings(load_steps=10):
    """Static solver: ``load_steps`` equal load steps (no adaptive step size), full Newton
    with Exudyn's default tolerances (relative 1e-8, absolute 1e-10), no output, one thread."""
    _require()
    ss = exu.SimulationSettings()
    st = ss.staticSolver
    st.numberOfLoadSteps = int(load_steps)
    st.adaptiveStep = False
    st.verboseMode = 0
    st.newton.useModifiedNewton = False
    ss.solution.file.write = False
    ss.show.computationTime = False
    ss.show.statistics = False
    ss.parallel.numberOfThreads = 1
    return ss


def beam_section(section):
    """exu.BeamSection from a flexmbd Section: the same diagonal stiffness
    diag(EA, GA2, GA3, GJ, EI2, EI3) (strains and curvatures in the section frame) and
    inertia (mass per length ρA, section inertia diag(ρI2 + ρI3, ρI2, ρI3))."""
    bs = exu.BeamSection()
    bs.stiffnessMatrix = np.diag([section.EA, section.GA2, section.GA3, section.GJ, section.EI2, section.EI3])
    bs.massPerLength = float(section.rhoA)
    bs.inertia = np.diag([section.rhoI2 + section.rhoI3, section.rhoI2, section.rhoI3])
    return bs


def cantilever(n, load_steps=10, force=(30.0, 20.0, 400.0)):
    """P3's straight cantilever (flexmbd.verify.cases.beams.cantilever("straight", n)):
    ``n`` two-node ``ObjectBeamGeometricallyExact`` elements from x = 0 to x = 1 on
    rotation-vector Lie-group nodes (``NodeRigidBodyRotVecLG``), all six coordinates of
    node 0 fixed by coordinate constraints (the clamp), the force on the last node."""
    from flexmbd.verify.cases.beams import SECTION

    from exudyn.itemInterface import (CoordinateConstraint, LoadForceVector, MarkerNodeCoordinate,
                                      MarkerNodePosition, NodePointGround, NodeRigidBodyRotVecLG,
                                      ObjectBeamGeometricallyExact)

    SC, mbs = _new_system()
    sec = beam_section(SECTION)
    L = 1.0 / n
    nodes = [mbs.AddNode(NodeRigidBodyRotVecLG(referenceCoordinates=[i * L, 0.0, 0.0, 0.0, 0.0, 0.0]))
             for i in range(n + 1)]
    for i in range(n):
        mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=L, sectionData=sec))
    gm = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    for c in range(6):
        mc = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=c))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[gm, mc]))
    tip = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1]))
    mbs.AddLoad(LoadForceVector(markerNumber=tip, loadVector=list(map(float, force))))
    return PeerModel(SC, mbs, static_settings(load_steps), static=True, nodes=nodes)


def double_pendulum(which="III", elements=(9, 15), t_end=0.2, h=5e-4, rho_inf=0.8):
    """P3's spatial double pendulum (flexmbd.examples.p3_beams.double_pendulum): arm I
    from the origin along +X, arm II from arm I's tip along +Y, each of two-node
    ``ObjectBeamGeometricallyExact`` elements on ``NodeRigidBodyRotVecLG`` nodes with the
    same section as flexmbd (:func:`beam_section`: stiffness, ρA and the section's ρI).
    The nodes are Euler-parameter nodes (``NodeRigidBodyEP``): with rotation-vector
    Lie-group nodes (``NodeRigidBodyRotVecLG``, used by the static cantilever) Exudyn
    1.13.6's implicit dynamic solver does not converge (Newton stalls at a relative error
    ~3e-4 in the first step, also at h/1000; the same with Newmark).  Arm II's nodes are
    rotated by π/2 about Z (its axis is the elements' local x).
    Spherical joints: arm I's first node to ground at the origin, arm I's last node to arm
    II's first node (two nodes at the elbow, as in flexmbd).  Gravity −Z 9.81 as a
    mass-proportional (distributed) load on every element.  Exudyn's generalized-α with
    spectral radius ``rho_inf`` (not Newmark), index-3 constraints, full Newton."""
    from flexmbd.examples import p3_beams as P

    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerNodePosition, NodePointGround,
                                      NodeRigidBodyEP, ObjectBeamGeometricallyExact, ObjectJointSpherical)

    pm = P.double_pendulum(which, elements)
    SC, mbs = _new_system()
    p = pm.params
    sec = beam_section(P.Section.rectangle(p["width"], p["width"], E=p["E"], nu=P.NU, rho=p["rho"]))
    g = [float(x) for x in pm.model.gravity]

    def arm(n, start, length, angle):
        d = np.array([np.cos(angle), np.sin(angle), 0.0])
        ep = [np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)]  # rotation by ``angle`` about Z
        L = length / n
        nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[*(np.asarray(start) + i * L * d), *ep]))
                 for i in range(n + 1)]
        for i in range(n):
            e = mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=L,
                                                           sectionData=sec))
            mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=e)), loadVector=g))
        return nodes

    n1, n2 = elements
    arm1 = arm(n1, (0.0, 0.0, 0.0), 0.3, 0.0)
    arm2 = arm(n2, (0.3, 0.0, 0.0), 0.5, np.pi / 2)
    ground = mbs.AddMarker(MarkerNodePosition(nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0.0] * 3))))
    pos = [mbs.AddMarker(MarkerNodePosition(nodeNumber=k)) for k in (arm1[0], arm1[-1], arm2[0])]
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[ground, pos[0]]))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[pos[1], pos[2]]))
    steps = int(round(t_end / h))
    ss = settings(steps, h)
    ga = ss.timeIntegration.generalizedAlpha
    ga.useNewmark = False
    ga.spectralRadius = float(rho_inf)
    return PeerModel(SC, mbs, ss, nodes=arm1 + arm2, info={"elbow": n1, "tip": n1 + 1 + n2})


# ---------------------------------------------------------------------------
# ANCF beams (ObjectANCFCable, ObjectANCFBeam)
# ---------------------------------------------------------------------------

#: P3's cantilever section: square 0.01 m, E = 2.1e11 Pa, ν = 0.3 (mass only for dynamics)
ANCF_SQUARE, ANCF_E, ANCF_NU, ANCF_RHO = 0.01, 2.1e11, 0.3, 7850.0


def _clamp(mbs, node, values):
    """Coordinate constraints fixing ``node``'s coordinates at ``values`` (None: free)."""
    from exudyn.itemInterface import CoordinateConstraint, MarkerNodeCoordinate, NodePointGround

    ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    for c, value in enumerate(values):
        if value is not None:
            marker = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=c))
            mbs.AddObject(CoordinateConstraint(markerNumbers=[ground, marker], offset=float(value)))


def ancf_cable_cantilever(n, load_steps=10, force=(30.0, 20.0, 400.0)):
    """P3's straight cantilever of ``n`` ``ObjectANCFCable`` elements (cubic Hermite,
    ε = |r'| − 1, material curvature; EA = E a², EI = E a⁴/12, no shear, no torsion) on
    ``NodePointSlope1`` nodes (r, r'); the clamp fixes node 0's position and the lateral
    slope components r'_y = r'_z = 0 (the axial slope stays free, as in Exudyn's examples);
    the force on the last node."""
    from exudyn.itemInterface import LoadForceVector, MarkerNodePosition, NodePointSlope1, ObjectANCFCable

    SC, mbs = _new_system()
    a, E = ANCF_SQUARE, ANCF_E
    L = 1.0 / n
    nodes = [mbs.AddNode(NodePointSlope1(referenceCoordinates=[i * L, 0.0, 0.0, 1.0, 0.0, 0.0])) for i in range(n + 1)]
    for i in range(n):
        mbs.AddObject(ObjectANCFCable(nodeNumbers=[nodes[i], nodes[i + 1]], length=L, massPerLength=ANCF_RHO * a * a,
                                      bendingStiffness=E * a ** 4 / 12, axialStiffness=E * a * a))
    _clamp(mbs, nodes[0], [0.0, 0.0, 0.0, None, 0.0, 0.0])
    tip = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1]))
    mbs.AddLoad(LoadForceVector(markerNumber=tip, loadVector=list(map(float, force))))
    return PeerModel(SC, mbs, static_settings(load_steps), static=True, nodes=nodes)


def ancf_beam_cantilever(n, load_steps=10, force=(30.0, 20.0, 400.0)):
    """P3's straight cantilever of ``n`` ``ObjectANCFBeam`` elements: Exudyn's ANCF beam
    with nodes r, r_y, r_z (``NodePointSlope23``, 9 coordinates) and a section stiffness
    matrix diag(EA, k GA, k GA, GJ, EI, EI) (Cowper's k, Saint-Venant torsion of the square,
    as flexmbd's rectangle section) — not a continuum element like flexmbd's fully
    parameterized one, so the two agree only as both converge (seen: Exudyn's tip z 0.5216
    at 32 elements, 0.5183 at 64, against ABAQUS 0.5143).  The clamp fixes node 0's nine
    coordinates."""
    from flexmbd.beams import Section

    from exudyn.itemInterface import LoadForceVector, MarkerNodePosition, NodePointSlope23, ObjectANCFBeam

    SC, mbs = _new_system()
    sec = beam_section(Section.rectangle(ANCF_SQUARE, ANCF_SQUARE, E=ANCF_E, nu=ANCF_NU, rho=ANCF_RHO))
    L = 1.0 / n
    ref = [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    nodes = [mbs.AddNode(NodePointSlope23(referenceCoordinates=[i * L, 0.0, 0.0, *ref])) for i in range(n + 1)]
    for i in range(n):
        mbs.AddObject(ObjectANCFBeam(nodeNumbers=[nodes[i], nodes[i + 1]], length=L, sectionData=sec))
    _clamp(mbs, nodes[0], [0.0, 0.0, 0.0, *ref])
    tip = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1]))
    mbs.AddLoad(LoadForceVector(markerNumber=tip, loadVector=list(map(float, force))))
    return PeerModel(SC, mbs, static_settings(load_steps), static=True, nodes=nodes)


def ancf_cable_double_pendulum(elements=(6, 10), t_end=0.2, h=5e-4, rho_inf=0.8, width=5e-4, rho=2700.0, E=2.1e10):
    """A spatial double pendulum of ANCF cables with P3's Model III arms (0.3 m and 0.5 m,
    square ``width``, ρ, E): arm I from the origin along +X, arm II from arm I's tip along
    +Y, released from rest under gravity −Z 9.81 (mass-proportional load on every element);
    spherical joints of node positions (ground–arm I, arm I's tip–arm II's first node).
    Exudyn's generalized-α with spectral radius ``rho_inf``, index-3, full Newton."""
    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerNodePosition, NodePointGround,
                                      NodePointSlope1, ObjectANCFCable, ObjectJointSpherical)

    SC, mbs = _new_system()

    def arm(n, start, length, direction):
        d = np.asarray(direction, float)
        L = length / n
        nodes = [mbs.AddNode(NodePointSlope1(referenceCoordinates=[*(np.asarray(start, float) + i * L * d), *d]))
                 for i in range(n + 1)]
        for i in range(n):
            e = mbs.AddObject(ObjectANCFCable(nodeNumbers=[nodes[i], nodes[i + 1]], length=L,
                                              massPerLength=rho * width ** 2, bendingStiffness=E * width ** 4 / 12,
                                              axialStiffness=E * width ** 2))
            mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=e)),
                                             loadVector=[0.0, 0.0, -9.81]))
        return nodes

    n1, n2 = elements
    arm1 = arm(n1, (0.0, 0.0, 0.0), 0.3, (1.0, 0.0, 0.0))
    arm2 = arm(n2, (0.3, 0.0, 0.0), 0.5, (0.0, 1.0, 0.0))
    ground = mbs.AddMarker(MarkerNodePosition(nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0.0] * 3))))
    pos = [mbs.AddMarker(MarkerNodePosition(nodeNumber=k)) for k in (arm1[0], arm1[-1], arm2[0])]
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[ground, pos[0]]))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[pos[1], pos[2]]))
    ss = settings(int(round(t_end / h)), h)
    ga = ss.timeIntegration.generalizedAlpha
    ga.useNewmark = False
    ga.spectralRadius = float(rho_inf)
    return PeerModel(SC, mbs, ss, nodes=arm1 + arm2, info={"elbow": n1, "tip": n1 + 1 + n2})


# ---------------------------------------------------------------------------
# floating-frame modal bodies (ObjectFFRFreducedOrder)
# ---------------------------------------------------------------------------


def ffrf_body(mbs, nodes, mass, modes, stiffness=None, reduced_stiffness=None, position=(0.0, 0.0, 0.0),
              gravity=(0.0, 0.0, 0.0)):
    """An ``ObjectFFRFreducedOrder`` (Exudyn's component-mode-synthesis body; Zwölfer &
    Gerstmayr) of FE data: node positions (N, 3), mass matrix (3N, 3N, dense or sparse),
    modes (3N, n), and the stiffness as a (3N, 3N) matrix or directly reduced (n, n)
    (``reduced_stiffness``: the modal stiffness of data whose FE stiffness matrix is not at
    hand, e.g. a modal beam's exact modes).  Gravity as Exudyn's mass-proportional load.
    Returns Exudyn's dictionary (``oFFRFreducedOrder``, ``nRigidBody``, ``nGenericODE2``)."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface

    nodes = np.asarray(nodes, float)
    fem = FEMinterface()
    fem.nodes = {"Position": nodes}
    fem.massMatrix = sp.csr_matrix(mass)
    fem.stiffnessMatrix = sp.csr_matrix(stiffness if stiffness is not None else (3 * len(nodes),) * 2)
    fem.modeBasis = {"matrix": np.asarray(modes, float)}
    fem.surface = []
    cms = ObjectFFRFreducedOrderInterface(fem)
    if reduced_stiffness is not None:
        cms.stiffnessMatrixReduced = np.asarray(reduced_stiffness, float)
    return cms.AddObjectFFRFreducedOrder(mbs, positionRef=list(map(float, position)),
                                         gravity=list(map(float, gravity)))


def fe_modal_body(d, steps, h, force):
    """The FE modal body benchmark (:func:`benchmarks.models.fe_modal_body_model`): the truss
    FE data ``d`` (nodes, mass, stiffness, modes, root, tip), root nodes held by spherical
    joints to ground, a step load ``force`` (3,) shared by the tip nodes; a sensor stores
    the tip nodes' mean position."""
    from exudyn.itemInterface import (LoadForceVector, MarkerBodyPosition, MarkerSuperElementPosition,
                                      ObjectGround, ObjectJointSpherical, SensorMarker)

    SC, mbs = _new_system()
    body = ffrf_body(mbs, d["nodes"], d["mass"], d["modes"], d["stiffness"])["oFFRFreducedOrder"]
    ground = mbs.AddObject(ObjectGround())
    X = np.asarray(d["nodes"], float)
    for k in d["root"]:
        mn = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[int(k)],
                                                      weightingFactors=[1.0]))
        mg = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=list(map(float, X[k]))))
        mbs.AddObject(ObjectJointSpherical(markerNumbers=[mg, mn]))
    tip = [int(k) for k in d["tip"]]
    mean = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=tip,
                                                    weightingFactors=[1.0 / len(tip)] * len(tip)))
    for k in tip:
        mk = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[k], weightingFactors=[1.0]))
        mbs.AddLoad(LoadForceVector(markerNumber=mk, loadVector=[float(f) / len(tip) for f in force]))
    s = mbs.AddSensor(SensorMarker(markerNumber=mean, outputVariableType=exu.OutputVariableType.Position,
                                   storeInternal=True, writeToFile=False))
    return PeerModel(SC, mbs, settings(steps, h), sensors={"tip": s})


def _symbolic_hub_angle(omega, T):
    """θ(t) of :func:`flexmbd.examples.ffr_beams.hub_angle` as an Exudyn symbolic function
    of t (the joint offset of a driven hub, evaluated in C++)."""
    esym = exu.symbolic

    def offset(mbs, t, itemNumber, parameters):
        c = esym.cos(2.0 * np.pi * t / T)
        angle = esym.IfThenElse(t < T, omega / T * (t * t / 2.0 + (T / (2.0 * np.pi)) ** 2 * (c - 1.0)),
                                omega * T / 2.0 + omega * (t - T))
        return [0.0, 0.0, 0.0, 0.0, 0.0, angle]
    return offset


def ffr_spin_up(points, steps, h, omega, T):
    """The spin-up beam (flexmbd.examples.ffr_beams) as an ObjectFFRFreducedOrder on the modal
    beam's own points (:func:`benchmarks.models.modal_beam_points`: nodes, lumped mass,
    mode shapes, modal stiffness), its frame clamped to the hub: a generic joint to ground
    at the origin with all six axes constrained and the rotation about z offset by the hub
    angle (a symbolic user function).  A sensor stores the modal coordinates."""
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    from exudyn.itemInterface import (MarkerBodyRigid, MarkerNodeRigid, ObjectGround, ObjectJointGeneric,
                                      SensorNode)

    SC, mbs = _new_system()
    ffrf = ffrf_body(mbs, points["nodes"], points["mass"], points["modes"], reduced_stiffness=points["K"])
    ground = mbs.AddObject(ObjectGround())
    m0 = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m1 = mbs.AddMarker(MarkerNodeRigid(nodeNumber=ffrf["nRigidBody"]))
    joint = mbs.AddObject(ObjectJointGeneric(markerNumbers=[m0, m1], constrainedAxes=[1] * 6))
    fn = CreateSymbolicUserFunction(mbs, _symbolic_hub_angle(omega, T), "offsetUserFunction", joint)
    mbs.SetObjectParameter(joint, "offsetUserFunction", fn)
    s = mbs.AddSensor(SensorNode(nodeNumber=ffrf["nGenericODE2"], outputVariableType=exu.OutputVariableType.Coordinates,
                                 storeInternal=True, writeToFile=False))
    return PeerModel(SC, mbs, settings(steps, h), sensors={"eta": s}, info={"offset": fn})


def ffr_chain(points, count, length, steps, h, gravity):
    """``count`` modal beams in a row along +x (each an ObjectFFRFreducedOrder on the modal
    beam's points, :func:`benchmarks.models.modal_beam_points`, whose first and last nodes
    are the beam's ends), spherical joints at the ends (the first to ground at the origin),
    released from rest under gravity.  Sensors store every frame origin."""
    from exudyn.itemInterface import (LoadForceVector, MarkerBodyPosition, MarkerSuperElementPosition, ObjectGround,
                                      ObjectJointSpherical, SensorMarker, SensorNode)

    SC, mbs = _new_system()
    ground = mbs.AddObject(ObjectGround())
    prev = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    sensors, last = {}, len(points["nodes"]) - 1
    # The weight: Exudyn's mass-proportional load on this body takes the weight's moment
    # about the undeformed centre of mass (2.4e-6 m off the exact answer here).  Exactly: a
    # massless node at the centre of mass χ whose mode shape is the mass-weighted mean
    # Φ̄ = Σ m_k Φ_k / m carries the total weight (its Jacobian is Σ m_k J_k / m, the node
    # positions being linear in the modal coordinates).
    m_node = np.diag(points["mass"])[::3]
    total = float(m_node.sum())
    n = points["modes"].shape[1]
    centre = len(points["nodes"])
    nodes = np.vstack([points["nodes"], m_node @ points["nodes"] / total])
    modes = np.vstack([points["modes"], np.einsum("k,kin->in", m_node, points["modes"].reshape(-1, 3, n)) / total])
    mass = np.zeros((3 * len(nodes),) * 2)
    mass[:-3, :-3] = points["mass"]
    for i in range(count):
        ffrf = ffrf_body(mbs, nodes, mass, modes, reduced_stiffness=points["K"], position=(i * length, 0.0, 0.0))
        body = ffrf["oFFRFreducedOrder"]
        weight = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[centre],
                                                          weightingFactors=[1.0]))
        mbs.AddLoad(LoadForceVector(markerNumber=weight, loadVector=[total * g for g in gravity]))
        start = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[0], weightingFactors=[1.0]))
        mbs.AddObject(ObjectJointSpherical(markerNumbers=[prev, start]))
        prev = mbs.AddMarker(MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=[last],
                                                        weightingFactors=[1.0]))
        sensors[f"b{i + 1}"] = mbs.AddSensor(SensorNode(nodeNumber=ffrf["nRigidBody"],
                                                        outputVariableType=exu.OutputVariableType.Position,
                                                        storeInternal=True, writeToFile=False))
    sensors["tip"] = mbs.AddSensor(SensorMarker(markerNumber=prev, outputVariableType=exu.OutputVariableType.Position,
                                                storeInternal=True, writeToFile=False))
    return PeerModel(SC, mbs, settings(steps, h), sensors=sensors)
