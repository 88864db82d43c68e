"""``autograd.scipy`` on tenferro: ``special`` (``tenferro.scipy.special``) and ``linalg``
(``tenferro.scipy.linalg``); ``stats``, ``signal`` and ``integrate`` are not here yet
(docs/autograd.md)."""

from . import linalg, special  # noqa: F401
