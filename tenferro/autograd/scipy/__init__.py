"""``autograd.scipy`` on tenferro: ``special`` so far (``tenferro.scipy.special``); ``stats``,
``signal``, ``integrate`` and ``linalg`` are not here yet (docs/autograd.md)."""

from . import special  # noqa: F401
