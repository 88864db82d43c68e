"""The trace: one :class:`Node` per recorded op, linked to the nodes of its inputs.

A result holds its node; a node holds its op's inputs, whose own nodes hold theirs, so a
result keeps its whole recorded program alive, and nothing is consumed by a backward pass
(which is why ``backward`` can run twice without ``retain_graph``).

A node keeps only the values its VJP reads (the spec's ``residuals``, like the tensors a
PyTorch autograd node saves). In place of a value it does not keep, it holds a *handle*
with the value's shape and dtype only: the producing :class:`Node` for a recorded result
(so the graph stays linked), a :class:`Hollow` for a constant. A value nobody needs is
then freed as soon as the user drops it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .registry import OpSpec


class Hollow:
    """The handle of a constant whose value a node did not keep: shape and dtype only."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def describe(self) -> str:
        return "a constant"


#: Node creation order. A node is always created after the nodes of its inputs, so
#: sorting by ``seq`` is a topological order, and the reverse sweep can take nodes in
#: decreasing ``seq`` (like PyTorch's sequence_nr) without a separate traversal.
_SEQUENCE = itertools.count()


class Node:
    """How one result was computed: the op, its arguments as recorded (EagerTensors, or
    handles where the VJP does not read the value, or Python scalars), its static params,
    the result's value (None when the VJP does not read it), shape and dtype, and its
    creation number. A node is also the handle of its result's shape and dtype."""

    __slots__ = ("spec", "inputs", "params", "value", "shape", "dtype", "seq")

    def __init__(self, spec: OpSpec, inputs: tuple[Any, ...], params: Mapping[str, Any], out: np.ndarray):
        self.seq = next(_SEQUENCE)
        self.spec = spec
        self.inputs = inputs
        self.params = params
        self.value = out if spec.keeps_out else None
        self.shape = out.shape
        self.dtype = out.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def describe(self) -> str:
        return f"the result of {self.spec.name}"
