"""Reference comparisons: integrators (cases registered below)."""
