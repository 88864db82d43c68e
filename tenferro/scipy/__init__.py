"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them: ``tenferro.scipy.special``
(``import tenferro.scipy.special as tsp``; docs/special.md), ``.signal`` (``convolve``,
``correlate``, ``convolve2d``, ``correlate2d``) and ``.integrate`` (``odeint`` by the
adjoint method; both in docs/scipy-signal-integrate.md)."""

from . import integrate, signal, special

__all__ = ["integrate", "signal", "special"]
