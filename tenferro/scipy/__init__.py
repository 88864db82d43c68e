"""``tenferro.scipy``: SciPy's namespaces on tenferro's ops, differentiable, as
``jax.scipy`` and ``autograd.scipy`` offer them: ``special`` (``import
tenferro.scipy.special as tsp``; docs/special.md), ``stats`` (``from tenferro.scipy.stats
import norm``; docs/stats.md), ``linalg`` (docs/scipy-linalg.md), ``signal`` and
``integrate`` (docs/scipy-signal-integrate.md)."""

from . import integrate, linalg, signal, special, stats

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
