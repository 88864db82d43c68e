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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import engine as engines
from .recording import paused
from .tensor import Hollow

if TYPE_CHECKING:
    from .eager import EagerTensor

#: A vertex of the graph: a Node for a recorded result, the EagerTensor for a variable.
Vertex = Any

#: Node creation order. A node is always created after the nodes of its inputs, so
#: sorting by ``seq`` is a topological order, and the reverse sweep can take nodes in
#: decreasing ``seq`` (like PyTorch's sequence_nr) without a separate traversal.
SEQUENCE = itertools.count()


#: ``Node.output`` of the node of a call with several results (see :func:`call_node`).
CALL = -1


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
        op: Any,
        inputs: tuple[EagerTensor | Any, ...],
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


def derived(out: Any, key: Any, compute: Callable[..., Any], *args: Any) -> Any:
    """``compute(*args)``, a value a rule derives from its op's inputs and params alone with
    one session op (sin's ``cos(x)``; never anything computed from the cotangent
    or tangent), computed once per node: where it is recorded, the node keeps it, and a
    later sweep over the node (the second sweep of a Hessian-vector product, each row of a
    Jacobian of a gradient) takes it again without running the kernel. Where that sweep
    records, the value is recorded anew as a node like the one running ``compute`` would
    make (same op, inputs and params, created now), so every derivative is bitwise what
    it was without the reuse. The derivative trace holds that value anyway.

    Kept only when ``out`` is the node (an op whose rules do not read its result: one
    computed from the result would hold the node that holds it, a cycle), when every
    tensor among ``args`` is one of the node's inputs (a value computed from the cotangent
    would be stale in the next sweep: it is computed each time instead), when ``compute``
    recorded exactly one op on values made before it, and never where nothing records (a
    ``backward`` pass: a training loop holds nothing more) nor for another engine's values
    (a dask array). ``key`` tells apart several values of one node; ``compute`` and
    ``args`` are given apart so that a rule makes no closure per call."""
    if type(out) is not Node:
        return compute(*args)
    kept = out.derived
    if kept is not None and key in kept:
        value = kept[key]
        rt = value._rt
        if rt in paused():
            return value
        made = value._node
        return type(value)(value._value, rt, Node(made.op, made.inputs, made.parents, made.params, value._value))
    before = next(SEQUENCE)
    value = compute(*args)
    made = getattr(value, "_node", None)
    if (
        made is not None
        and made.seq > before
        and made.output is None
        and type(value._value) is np.ndarray
        and all(type(parent) is not Node or parent.seq < before for parent in made.parents)
        # every tensor argument (an EagerTensor, as value is) one of the node's own inputs
        and all(type(arg) is not type(value) or any(arg is given for given in out.inputs) for arg in args)
    ):
        if kept is None:
            out.derived = {key: value}
        else:
            kept[key] = value
    return value


def call_node(
    op: Any,
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
