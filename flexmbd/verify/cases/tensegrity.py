"""Reference comparisons: tensegrity (cases registered below)."""
