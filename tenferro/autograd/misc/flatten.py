"""``autograd.misc.flatten``: ``flatten(value) -> (vector, unflatten)`` (``tf.flatten``),
the vector a NumPy array where nothing in ``value`` is tracked, as autograd's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tenferro.transforms._ravel import flatten as _flatten

from ..differential_operators import _plain

__all__ = ["flatten"]


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    """The leaves of ``value`` as one vector, and the function that makes it back."""
    vector, unflatten = _flatten(value)
    return _plain(vector), lambda v: _plain(unflatten(v))
