"""Solves, inverses and determinants (to be written)."""

SPECS: list = []
