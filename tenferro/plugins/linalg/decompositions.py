"""Decompositions and norms (to be written)."""

SPECS: list = []
