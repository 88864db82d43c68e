"""``autograd.scipy`` on tenferro: ``special``, ``stats`` and ``linalg`` (``tenferro.scipy``'s,
dispatching as ``tenferro.autograd.numpy`` does; docs/autograd.md)."""

from . import linalg, special, stats  # noqa: F401
