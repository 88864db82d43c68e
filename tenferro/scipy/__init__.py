"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them. So far ``tenferro.scipy.special``
(``import tenferro.scipy.special as tsp``); see docs/special.md."""

from . import special

__all__ = ["special"]
