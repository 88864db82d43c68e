"""The trace: one :class:`Node` per recorded op.

A recorded result (an EagerTensor) holds the node that made it. For each argument of its
op, a node holds two things: the argument as the op's VJP rule will see it (``inputs``: an
EagerTensor or a Python scalar) and its *parent* (``parents``): the node that computed it,
the variable itself, or None for a constant or scalar, where gradients stop. Nodes and
variables are the *vertices* of the graph; the walkers (``graph.py``, ``sweep.py``) follow
parents only.

A result keeps its whole recorded program alive through its node, and nothing is consumed
by a backward pass, which is why ``backward`` can run twice without ``retain_graph``.

A node keeps only the values its VJP reads (the spec's ``residuals``, like the tensors a
PyTorch autograd node saves). An argument whose value it does not read is recorded as a
*hollow copy*: an EagerTensor with the same parent, shape and dtype, whose value is a
:class:`~tenferro.core.tensor.Hollow`. A value nobody needs is then freed as soon as the
user drops it, and a rule that reads one anyway gets a RuleError naming the op.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from . import engine as engines
from .spec import OpSpec
from .tensor import Hollow

#: A vertex of the graph: a Node for a recorded result, the EagerTensor for a variable.
Vertex = Any

#: Node creation order. A node is always created after the nodes of its inputs, so
#: sorting by ``seq`` is a topological order, and the reverse sweep can take nodes in
#: decreasing ``seq`` (like PyTorch's sequence_nr) without a separate traversal.
SEQUENCE = itertools.count()


#: ``Node.output`` of the node of a call with several results (see :func:`call_node`).
CALL = -1


class Recorder(Protocol):
    """What a node needs of the op that recorded it (an :class:`~tenferro.core.op.Op`,
    declared here, below it): its spec."""

    spec: OpSpec


class Node(Hollow):
    """How one result was computed: the op (``op``, an :class:`~tenferro.core.op.Op`, and
    its ``spec``), its arguments as recorded (``inputs``)
    and their ``parents``, its static params, the result's value (None when the VJP does
    not read it), and the node's creation number.

    A node knows its result's shape and dtype, so it is also the Hollow that stands for
    the result's value where a trace did not keep it.

    An op with several results (``multiple_results``) records a *call node*
    (:func:`call_node`, ``output == CALL``), which holds the op's inputs and one stand-in
    per result, and one *result node* per float result (:func:`result_node`, ``output``
    its index), whose one parent is the call node. References run from results to the
    call only, so a trace has no cycles, and the sweep runs the op's rule once, at the
    call node, with the cotangents of all its results.
    """

    __slots__ = ("op", "spec", "inputs", "parents", "params", "value", "seq", "output", "derived")

    def __init__(
        self,
        op: Recorder,
        inputs: tuple[Any, ...],
        parents: tuple[Vertex | None, ...],
        params: Mapping[str, Any],
        out: np.ndarray | Hollow,
        output: int | None = None,
    ):
        self.seq = next(SEQUENCE)
        self.op = op
        self.spec = spec = op.spec
        self.inputs = inputs
        self.parents = parents
        self.params = params
        self.value = out if spec.keeps_out else None  # a result node's stand-in is a Hollow only when not kept
        self.shape = out.shape
        self.dtype = out.dtype
        self.output = output
        #: What the op's rules derived from its inputs, kept for later sweeps (see :func:`derived`).
        self.derived: dict[Any, Any] | None = None


def call_node(
    op: Recorder,
    inputs: tuple[Any, ...],
    parents: tuple[Vertex | None, ...],
    params: Mapping[str, Any],
    results: tuple[Any, ...],
) -> Node:
    """The node of a call with several results. Its ``value`` holds one stand-in per
    result: the array where the rule reads results (``"out"`` in residuals), else a
    Hollow with its shape and dtype; a result that records no node (an integer result)
    is given as its constant EagerTensor and kept as it is."""
    arrays = (np.ndarray, *engines.ENGINE_ARRAYS)  # an array of any engine (NumPy, dask)
    spec = op.spec
    node = Node(op, inputs, parents, params, Hollow((len(results),), np.dtype(object)), CALL)
    node.value = tuple(r if not isinstance(r, arrays) or spec.keeps_out else Hollow(r.shape, r.dtype) for r in results)
    return node


def result_node(call: Node, index: int) -> Node:
    """The node of result ``index`` of ``call`` (its one parent)."""
    stand_in = call.value[index]
    return Node(call.op, (), (call,), call.params, stand_in, index)
