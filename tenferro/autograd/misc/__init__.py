"""``autograd.misc`` on tenferro: ``fixed_points.fixed_point``."""
