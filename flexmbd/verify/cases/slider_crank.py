"""Reference comparisons: slider crank (cases registered below)."""
