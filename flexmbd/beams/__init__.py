"""Geometrically exact beams: shape functions, reference geometry and cross sections.

Modules
    ``shape``     Gauss-Legendre rules, Lagrange polynomials, B-splines and NURBS curves
                  (knot insertion, refinement, degree elevation, isogeometric elements).
    ``geometry``  Stress-free reference curves: position x(s) and section frame R(s)
                  as functions of the arc length s.
    ``sections``  Cross-section constants and the 6x6 stiffness / inertia matrices in the
                  SE(3) twist ordering (translational strains first, then curvatures).

The classes a model is built from have one public import path here:
``flexmbd.beams.Section`` (cross sections), ``flexmbd.beams.StraightLine``,
``CircularArc`` and ``NurbsReference`` (reference geometry) and ``NurbsCurve`` (the
curve of a ``NurbsReference``); they are the classes of the submodules above.
"""
from .geometry import CircularArc, NurbsReference, StraightLine
from .sections import Section
from .shape import NurbsCurve

__all__ = ["CircularArc", "NurbsCurve", "NurbsReference", "Section", "StraightLine"]
