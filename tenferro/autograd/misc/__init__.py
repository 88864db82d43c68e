"""``autograd.misc`` on tenferro: ``flatten``, ``optimizers`` (autograd's drivers) and
``fixed_points.fixed_point``."""

from .flatten import flatten

__all__ = ["flatten"]
