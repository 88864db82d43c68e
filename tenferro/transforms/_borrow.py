"""A transform's NumPy arguments read in place instead of copied (see ``core/borrowed.py``).

A transform that computes its derivatives before it returns borrows the NumPy arrays among
its arguments for the call: each is marked read-only (a write into one while the function
runs raises NumPy's ValueError where it would change a recorded value), taken as it is by
the lifts and by the transform's own variables, and given its write flag back when the
call ends. Before then, nothing that outlives the call may share the arrays' memory: a
result that does is copied, and where the call's record outlives it (the function closes
over a tensor something outside tracks), every value that record keeps in their memory is
copied first. Arrays under ``BORROWED_BYTES``, views of others and arrays read-only
already are not borrowed: they are copied as before (docs/transforms.md, "NumPy
arguments").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import optree

from tenferro.core.borrowed import BORROWED
from tenferro.core.eager import EagerTensor
from tenferro.core.graph import reachable
from tenferro.core.tensor import freeze
from tenferro.core.trace import Node, Vertex

#: The smallest array borrowed: below it a copy costs less than borrowing it (marking it
#: read-only and back, checking the results for its memory). Measured on tf.grad of
#: sum((X * w) ** 2): borrowing took 3-6 % longer than copying at 64 KiB, the same at 128 KiB,
#: 26 % less at 512 KiB.
BORROWED_BYTES = 1 << 17


def borrow(trees: Iterable[Any]) -> Borrowed:
    """Borrow the arrays among the leaves of ``trees`` that can be (see the module doc)."""
    arrays: dict[int, np.ndarray] = {}
    for tree in trees:
        for leaf in (tree,) if type(tree) in _LEAVES else optree.tree_leaves(tree):
            if type(leaf) is np.ndarray and leaf.nbytes >= BORROWED_BYTES and leaf.dtype.kind in "biufc":
                flags = leaf.flags
                if flags.owndata and flags.writeable:
                    arrays[id(leaf)] = leaf
    return Borrowed(arrays) if arrays else NOTHING_BORROWED


#: Leaves that are no pytree: no flattening needed to find the arrays.
_LEAVES = frozenset({np.ndarray, EagerTensor, float, int})


class Borrowed:
    """The arrays one call borrowed, by id, read-only until :meth:`release`."""

    __slots__ = ("arrays", "_token")

    def __init__(self, arrays: dict[int, np.ndarray]):
        for array in arrays.values():
            array.setflags(write=False)
        self.arrays = arrays
        self._token: Any = None

    def __contains__(self, value: Any) -> bool:
        return self.arrays.get(id(value)) is value

    def lend(self) -> None:
        """Name the arrays for the lifts of this context while the function runs."""
        if self.arrays:
            self._token = BORROWED.set({**(BORROWED.get() or {}), **self.arrays})

    def end_lending(self) -> None:
        if self._token is not None:
            BORROWED.reset(self._token)
            self._token = None

    def release(self) -> None:
        """Give the arrays their write flag back (once; nothing recorded may share them now)."""
        self.end_lending()
        for array in self.arrays.values():
            array.setflags(write=True)
        self.arrays = {}

    def shares(self, value: Any) -> bool:
        """Whether ``value`` is a borrowed array or a view of one (a NumPy view's ``base`` is
        the array that owns the memory)."""
        arrays = self.arrays
        while type(value) is np.ndarray:
            if id(value) in arrays:
                return True
            value = value.base
        return False

    def returned(self, tree: Any) -> Any:
        """``tree`` (a transform's results) with each tensor that shares a borrowed array's
        memory replaced by a copy, then the arrays released."""
        if self.arrays:
            leaves, spec = optree.tree_flatten(tree)
            for x in leaves:
                if type(x) is EagerTensor and self.shares(x._value):
                    tree = optree.tree_unflatten(spec, [self._fresh(x) for x in leaves])
                    break
            self.release()
        return tree

    def _fresh(self, x: Any) -> Any:
        if type(x) is EagerTensor and self.shares(x._value):
            return EagerTensor(freeze(x._value.copy()), x._rt)
        return x

    def detach_record(self, roots: Iterable[Vertex], tensors: Iterable[EagerTensor]) -> None:
        """Copy every value the record of ``roots`` keeps, and every one of ``tensors``, that
        shares a borrowed array's memory, in place (one copy per value, so values that were
        one array stay one), then release the arrays: the record outlives the call."""
        copies: dict[int, Any] = {}

        def fresh(value: Any) -> Any:
            if type(value) is not np.ndarray:
                return value
            if id(value) not in copies:
                copies[id(value)] = (value, freeze(value.copy()) if self.shares(value) else value)
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
        self.release()


#: What a call that borrows nothing holds.
NOTHING_BORROWED = Borrowed({})
