"""The trace: one :class:`Node` per recorded op, linked from each result to its inputs.

A result's node holds the op's input EagerTensors, which hold their own nodes, so a result
keeps its whole recorded program (and every residual) alive; nothing is consumed by a
backward pass, which is why ``backward`` can run twice without ``retain_graph``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .tensor import describe

if TYPE_CHECKING:
    from .eager import EagerTensor
    from .registry import OpSpec


class Node:
    """How one EagerTensor was computed: the op, its arguments as passed (EagerTensors or
    Python scalars) and its static params. The result itself is not stored (it is the
    EagerTensor that owns this node), so traces contain no reference cycles."""

    __slots__ = ("spec", "inputs", "params")

    def __init__(self, spec: OpSpec, inputs: tuple[Any, ...], params: Mapping[str, Any]):
        self.spec = spec
        self.inputs = inputs
        self.params = params


def topological_order(output: EagerTensor) -> list[EagerTensor]:
    """Every gradient-tracking tensor ``output`` was computed from (``output`` included),
    inputs before the results that use them.

    Iterative depth-first search: a chain of 10^5 ops needs no recursion.
    """
    from .eager import EagerTensor

    order: list[EagerTensor] = []
    seen = {id(output)}
    stack: list[tuple[EagerTensor, int]] = [(output, 0)]
    while stack:
        tensor, position = stack[-1]
        inputs = tensor._node.inputs if tensor._node is not None else ()
        while position < len(inputs):
            arg = inputs[position]
            position += 1
            if type(arg) is EagerTensor and (arg._leaf or arg._node is not None) and id(arg) not in seen:
                seen.add(id(arg))
                stack[-1] = (tensor, position)
                stack.append((arg, 0))
                break
        else:
            stack.pop()
            order.append(tensor)
    return order


class TraceListing(str):
    """The recorded program as text; shows itself as the listing in a REPL."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _name(index: int) -> str:
    """a, b, ..., z, ba, bb, ...: short variable names like a jaxpr's."""
    letters = ""
    while True:
        letters = chr(ord("a") + index % 26) + letters
        index //= 26
        if index == 0:
            return letters


def listing(output: EagerTensor) -> TraceListing:
    """A jaxpr-like listing of the program that computed ``output``: the variables it reads,
    the constants, one ``c = mul a b`` line per op, and the output."""
    from .eager import EagerTensor

    order = topological_order(output)
    names: dict[int, str] = {}

    def name_of(tensor: EagerTensor) -> str:
        if id(tensor) not in names:
            names[id(tensor)] = _name(len(names))
        return names[id(tensor)]

    variables = [t for t in order if t._node is None]
    for tensor in variables:
        name_of(tensor)
    constants: list[EagerTensor] = []
    equations: list[tuple[str, str]] = []
    for tensor in order:
        node = tensor._node
        if node is None:
            continue
        args = []
        for arg in node.inputs:
            if type(arg) is not EagerTensor:
                args.append(repr(arg))
                continue
            if id(arg) not in names and not arg.tracks_grad():
                constants.append(arg)
            args.append(name_of(arg))
        params = ",".join(f"{k}={v!r}" for k, v in node.params.items())
        op = f"{node.spec.name}[{params}]" if params else node.spec.name
        equations.append((f"{name_of(tensor)} = {op} {' '.join(args)}", describe(tensor.shape, tensor.dtype)))

    def declare(tensors: list[EagerTensor]) -> str:
        return ", ".join(f"{names[id(t)]}:{describe(t.shape, t.dtype)}" for t in tensors) or "-"

    width = max((len(text) for text, _ in equations), default=0)
    lines = [f"inputs {declare(variables)}"]
    if constants:
        lines.append(f"consts {declare(constants)}")
    lines += [f"  {text.ljust(width)}  # {kind}" for text, kind in equations]
    lines.append(f"output {name_of(output)}")
    return TraceListing("\n".join(lines))
