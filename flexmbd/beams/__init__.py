"""Geometrically exact beam elements."""
