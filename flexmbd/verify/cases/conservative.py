"""Reference comparisons: conservative (cases registered below)."""
