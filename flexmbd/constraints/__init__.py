"""Kinematic constraints: joints, drivers and the Euler-parameter normalisation."""
