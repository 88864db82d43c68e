"""``autograd.numpy.random``: NumPy's random module. Its draws are NumPy arrays, constants
to every transform, as autograd's are."""

from numpy.random import *  # noqa: F403
