"""``autograd.scipy`` on tenferro: ``special`` (``tenferro.scipy.special``), ``signal``
(autograd's ``convolve``, with its ``axes`` and ``dot_axes``) and ``integrate``
(``odeint``); ``stats`` and ``linalg`` are not here yet (docs/autograd.md)."""

from . import integrate, signal, special  # noqa: F401
