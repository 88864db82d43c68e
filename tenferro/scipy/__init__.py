"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them: ``tenferro.scipy.special``
(``import tenferro.scipy.special as tsp``; docs/special.md) and ``tenferro.scipy.stats``
(``from tenferro.scipy.stats import norm``; docs/stats.md)."""

from . import special, stats

__all__ = ["special", "stats"]
