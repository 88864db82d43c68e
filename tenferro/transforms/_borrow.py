"""A transform's NumPy arguments read in place instead of copied (``core/borrowed.py``).

A transform that computes its derivatives before it returns borrows the NumPy arrays among
its arguments for the call: each is marked read-only (a write into one while the function
runs raises NumPy's ValueError where it would change a recorded value), taken as it is by
the lifts and by the transform's own variables, and given its write flag back when the
call ends. Before then, nothing that outlives the call may share the arrays' memory: a
result that does is copied, and where the call's record outlives it (the function closes
over a tensor something outside tracks, or a tangent given tracks), every value that record
keeps in their memory is copied first. Arrays under ``BORROWED_BYTES``, views of others and arrays read-only
already are not borrowed: they are copied as before (docs/transforms.md, "NumPy
arguments").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import optree

from tenferro.core.borrowed import BORROWED, copy_shared, unshared
from tenferro.core.eager import EagerTensor
from tenferro.core.trace import Vertex

from ._trees import LEAF_TYPES

#: The smallest array borrowed: below it a copy costs less than borrowing it (marking it
#: read-only and back, checking the results for its memory). Measured on tf.grad of
#: sum((X * w) ** 2): borrowing took 3-6 % longer than copying at 64 KiB, the same at 128 KiB,
#: 26 % less at 512 KiB.
BORROWED_BYTES = 1 << 17


def borrow(trees: Iterable[Any]) -> Borrowed:
    """Borrow the arrays among the leaves of ``trees`` that can be (see the module doc)."""
    arrays: dict[int, np.ndarray] = {}
    for tree in trees:
        for leaf in (tree,) if type(tree) in LEAF_TYPES else optree.tree_leaves(tree):
            if type(leaf) is np.ndarray and leaf.nbytes >= BORROWED_BYTES and leaf.dtype.kind in "biufc":
                flags = leaf.flags
                if flags.owndata and flags.writeable:
                    arrays[id(leaf)] = leaf
    return Borrowed(arrays) if arrays else NOTHING_BORROWED


class Borrowed:
    """The arrays one call borrowed, by id, read-only until :meth:`release`."""

    __slots__ = ("arrays", "token")

    def __init__(self, arrays: dict[int, np.ndarray]):
        for array in arrays.values():
            array.setflags(write=False)
        self.arrays = arrays
        self.token: Any = None

    def __contains__(self, value: Any) -> bool:
        return self.arrays.get(id(value)) is value

    def lend(self) -> None:
        """Name the arrays for the lifts of this context while the function runs."""
        if self.arrays:
            self.token = BORROWED.set({**(BORROWED.get() or {}), **self.arrays})

    def end_lending(self) -> None:
        if self.token is not None:
            BORROWED.reset(self.token)
            self.token = None

    def release(self) -> None:
        """Give the arrays their write flag back (once; nothing kept may share them now)."""
        self.end_lending()
        for array in self.arrays.values():
            array.setflags(write=True)
        self.arrays = {}

    def returned(self, tree: Any) -> Any:
        """``tree`` (a transform's results) with each tensor that shares a borrowed array's
        memory replaced by a copy, then the arrays released."""
        arrays = self.arrays
        if arrays:
            leaves, spec = optree.tree_flatten(tree)
            kept = [unshared(x, arrays) if type(x) is EagerTensor else x for x in leaves]
            if any(a is not b for a, b in zip(kept, leaves)):
                tree = optree.tree_unflatten(spec, kept)
            self.release()
        return tree

    def outlived_by(self, roots: Iterable[Vertex], tensors: Iterable[EagerTensor]) -> None:
        """The record of ``roots`` and ``tensors`` outlive the call: copy what they keep in
        the arrays' memory, then release the arrays."""
        copy_shared(roots, tensors, self.arrays)
        self.release()


#: What a call that borrows nothing holds.
NOTHING_BORROWED = Borrowed({})
