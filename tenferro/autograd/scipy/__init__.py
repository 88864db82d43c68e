"""``autograd.scipy`` on tenferro: ``special`` (``tenferro.scipy.special``) and ``stats``
(``tenferro.scipy.stats``); ``signal``, ``integrate`` and ``linalg`` are not here yet
(docs/autograd.md)."""

from . import special, stats  # noqa: F401
