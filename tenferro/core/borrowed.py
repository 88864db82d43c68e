"""The NumPy arrays a function transform reads in place while its function runs.

Lifting a NumPy array into a constant copies it, so that a later write into the array
changes nothing recorded. A transform that computes its derivatives before it returns
(``tf.grad``, ``tf.value_and_grad``) needs no such copy: it marks the arrays it was given
read-only for the call and names them here, and ``tenferro.numpy``'s lift takes a named
array as it is (see ``transforms/_borrow.py`` for what the transform does before it
returns).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import numpy as np

#: id -> array: the arrays borrowed by the transforms whose functions run in this context
#: (an inner transform's call sets it to the enclosing ones' and its own).
BORROWED: ContextVar[dict[int, np.ndarray] | None] = ContextVar("tenferro_borrowed", default=None)


def is_borrowed(value: Any) -> bool:
    """Whether ``value`` is an array a running transform borrowed (read-only for its call)."""
    arrays = BORROWED.get()
    return arrays is not None and arrays.get(id(value)) is value
