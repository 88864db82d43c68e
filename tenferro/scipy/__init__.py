"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them: ``special`` (``import
tenferro.scipy.special as tsp``; docs/special.md), ``stats`` (``from tenferro.scipy.stats
import norm``; docs/stats.md) and ``linalg`` (docs/scipy-linalg.md)."""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
