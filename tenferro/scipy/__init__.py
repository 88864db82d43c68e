"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them. So far ``tenferro.scipy.special``
(``import tenferro.scipy.special as tsp``; docs/special.md) and ``tenferro.scipy.linalg``
(docs/scipy-linalg.md)."""

from . import linalg, special

__all__ = ["linalg", "special"]
