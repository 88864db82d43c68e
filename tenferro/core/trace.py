"""The trace: one :class:`Node` per recorded op, linked to the nodes of its inputs.

A result holds its node; a node holds its op's inputs, whose own nodes hold theirs, so a
result keeps its whole recorded program alive, and nothing is consumed by a backward pass
(which is why ``backward`` can run twice without ``retain_graph``).

A node keeps only the values its VJP reads (the spec's ``residuals``, like the tensors a
PyTorch autograd node saves). The others are replaced by *hollow* tensors: same node,
shape and dtype, but a :class:`Hollow` instead of an array, so a value nobody needs is
freed as soon as the user drops it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .registry import OpSpec


class ResidualNotSaved(Exception):
    """Raised when a kernel reads a hollow value (turned into a RuleError by the session)."""


class Hollow:
    """Stands in for a value a node did not keep: it has a shape and a dtype, and reading
    its elements raises. ``op`` and ``what`` (an input's name, or "out") say which value of
    which op it replaces, for the error message."""

    __slots__ = ("shape", "dtype", "op", "what")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, op: str, what: str):
        self.shape = shape
        self.dtype = dtype
        self.op = op
        self.what = what

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def origin(self) -> str:
        return f"the result of {self.op}" if self.what == "out" else f"input {self.what!r} of {self.op}"

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise ResidualNotSaved(self.origin)


#: Node creation order. A node is always created after the nodes of its inputs, so
#: sorting by ``seq`` is a topological order, and the reverse sweep can take nodes in
#: decreasing ``seq`` (like PyTorch's sequence_nr) without a separate traversal.
_SEQUENCE = itertools.count()


class Node:
    """How one result was computed: the op, its arguments as recorded (EagerTensors, hollow
    where the VJP does not read them, or Python scalars), its static params, and the
    result's value (None when the VJP does not read it), shape and dtype."""

    __slots__ = ("spec", "inputs", "params", "value", "shape", "dtype", "seq")

    def __init__(self, spec: OpSpec, inputs: tuple[Any, ...], params: Mapping[str, Any], out: np.ndarray):
        self.seq = next(_SEQUENCE)
        self.spec = spec
        self.inputs = inputs
        self.params = params
        self.value = out if spec.keeps_out else None
        self.shape = out.shape
        self.dtype = out.dtype

    def result(self) -> np.ndarray | Hollow:
        """The result's value as the VJP sees it: the array, or a Hollow if not kept."""
        return self.value if self.value is not None else Hollow(self.shape, self.dtype, self.spec.name, "out")
