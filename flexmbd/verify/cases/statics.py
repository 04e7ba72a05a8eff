"""Reference comparisons: statics (cases registered below)."""
