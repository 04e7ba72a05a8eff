"""Bundled examples: each source-paper example as a function that builds a Model."""
