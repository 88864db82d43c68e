"""The NumPy arrays a function transform reads in place while its function runs.

Lifting a NumPy array into a constant copies it, so that a later write into the array
changes nothing recorded. A transform that computes its derivatives before it returns
(``tf.grad``, ``tf.value_and_grad``) needs no such copy: it marks the arrays it was given
read-only for the call and names them here, ``tenferro.numpy``'s lift takes a named array
as it is, and before the arrays are writable again the transform copies what would
outlive the call in their memory (:func:`copy_shared`; ``transforms/_borrow.py`` says
when).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import numpy as np

from .eager import EagerTensor
from .graph import reachable
from .tensor import freeze
from .trace import Node, Vertex

#: id -> array: the arrays borrowed by the transforms whose functions run in this context
#: (an inner transform's call sets it to the enclosing ones' and its own).
BORROWED: ContextVar[dict[int, np.ndarray] | None] = ContextVar("tenferro_borrowed", default=None)


def is_borrowed(value: Any) -> bool:
    """Whether ``value`` is an array a running transform borrowed (read-only for its call)."""
    arrays = BORROWED.get()
    return arrays is not None and arrays.get(id(value)) is value


def shares(value: Any, arrays: dict[int, np.ndarray]) -> bool:
    """Whether ``value`` is one of ``arrays`` (by id) or a view of one (a NumPy view's
    ``base`` is the array that owns the memory)."""
    while type(value) is np.ndarray:
        if id(value) in arrays:
            return True
        value = value.base
    return False


def unshared(tensor: EagerTensor, arrays: dict[int, np.ndarray]) -> EagerTensor:
    """``tensor``, or a constant copy of it where its value shares one of ``arrays``."""
    if shares(tensor._value, arrays):
        return EagerTensor(freeze(tensor._value.copy()), tensor._rt)
    return tensor


def copy_shared(roots: Iterable[Vertex], tensors: Iterable[EagerTensor], arrays: dict[int, np.ndarray]) -> None:
    """Copy, in place, every value that shares one of ``arrays`` and that the record of
    ``roots`` keeps (its nodes' inputs and kept results, its variables) or that one of
    ``tensors`` holds: one copy per value, so values that were one array stay one."""
    copies: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def fresh(value: Any) -> Any:
        if type(value) is not np.ndarray:
            return value
        if id(value) not in copies:  # (the value is kept beside its copy: ids stay unique)
            copies[id(value)] = (value, freeze(value.copy()) if shares(value, arrays) else value)
        return copies[id(value)][1]

    for vertex in reachable(*roots).values():
        if type(vertex) is Node:
            for x in vertex.inputs:
                if type(x) is EagerTensor:
                    x._value = fresh(x._value)
            value = vertex.value
            vertex.value = tuple(map(fresh, value)) if type(value) is tuple else fresh(value)
        else:
            vertex._value = fresh(vertex._value)
    for tensor in tensors:
        tensor._value = fresh(tensor._value)
