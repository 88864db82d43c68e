"""The contraction ops (to be written)."""

SPECS: list = []
