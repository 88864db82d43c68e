"""``autograd.scipy`` on tenferro: ``special``, ``stats``, ``linalg``, ``signal`` and
``integrate`` (``tenferro.scipy``'s, dispatching as ``tenferro.autograd.numpy`` does, with
autograd's own signatures where they differ; docs/autograd.md)."""

from . import integrate, linalg, signal, special, stats  # noqa: F401
