"""Geometrically exact beams: shape functions, reference geometry and cross sections.

Modules
    ``shape``     Gauss-Legendre rules, Lagrange polynomials, B-splines and NURBS curves
                  (knot insertion, refinement, degree elevation, isogeometric elements).
    ``geometry``  Stress-free reference curves: position x(s) and section frame R(s)
                  as functions of the arc length s.
    ``sections``  Cross-section constants and the 6x6 stiffness / inertia matrices in the
                  SE(3) twist ordering (translational strains first, then curvatures).
"""
