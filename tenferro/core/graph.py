"""Walking the trace: vertices, topological order, and the jaxpr-like listing of B16.

A *vertex* is a :class:`~tenferro.core.trace.Node` for a recorded result, or the
EagerTensor itself for a variable. A result and its hollow copies share one node, so they
are one vertex.
"""

from __future__ import annotations

from .eager import EagerTensor
from .tensor import describe
from .trace import Hollow, Node

#: A vertex of the trace: a Node for a recorded result, the EagerTensor for a variable.
Vertex = Node | EagerTensor


def vertex(tensor: EagerTensor) -> Vertex:
    """The vertex a tracked tensor stands for."""
    return tensor._node if tensor._node is not None else tensor


def input_vertices(node: Node) -> list[Vertex]:
    """The vertices of a node's tracked inputs (an input kept as a handle is its node), in
    argument order."""
    found: list[Vertex] = []
    for arg in node.inputs:
        if type(arg) is Node:
            found.append(arg)
        elif type(arg) is EagerTensor and (arg._leaf or arg._node is not None):
            found.append(arg._node if arg._node is not None else arg)
    return found


def topological_order(output: EagerTensor) -> list[Vertex]:
    """Every vertex ``output`` was computed from (its own included), inputs before the
    nodes that use them: the variables, then the nodes in creation order. Iterative (a
    chain of 10^5 ops needs no recursion)."""
    seen = reachable(vertex(output))
    return [v for v in seen.values() if type(v) is not Node] + nodes_in_order(seen)


def nodes_in_order(vertices: dict[int, Vertex]) -> list[Node]:
    """The nodes among ``vertices`` by creation, which puts inputs before their users."""
    return sorted((v for v in vertices.values() if type(v) is Node), key=lambda node: node.seq)


def reachable(*roots: Vertex) -> dict[int, Vertex]:
    """Every vertex the ``roots`` were computed from, their own included, by id (iterative;
    each vertex is visited once however many roots lead to it)."""
    seen: dict[int, Vertex] = {id(root): root for root in roots}
    stack = list(seen.values())
    while stack:
        current = stack.pop()
        if type(current) is Node:
            for nxt in input_vertices(current):
                if id(nxt) not in seen:
                    seen[id(nxt)] = nxt
                    stack.append(nxt)
    return seen


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
    order = topological_order(output)
    names: dict[int, str] = {}

    def name_of(key: object) -> str:
        if id(key) not in names:
            names[id(key)] = _name(len(names))
        return names[id(key)]

    variables = [v for v in order if type(v) is not Node]
    for variable in variables:
        name_of(variable)
    constants: list[tuple[str, str]] = []
    equations: list[tuple[str, str]] = []
    for node in order:
        if type(node) is not Node:
            continue
        args = []
        for arg in node.inputs:
            if type(arg) is Node:
                args.append(name_of(arg))
            elif type(arg) is EagerTensor and (arg._leaf or arg._node is not None):
                args.append(name_of(vertex(arg)))
            elif type(arg) is EagerTensor or type(arg) is Hollow:  # a constant, or its handle
                if id(arg) not in names:
                    constants.append((name_of(arg), describe(arg.shape, arg.dtype)))
                args.append(name_of(arg))
            else:
                args.append(repr(arg))
        params = ",".join(f"{k}={v!r}" for k, v in node.params.items())
        op = f"{node.spec.name}[{params}]" if params else node.spec.name
        equations.append((f"{name_of(node)} = {op} {' '.join(args)}", describe(node.shape, node.dtype)))

    def declare(items: list[tuple[str, str]]) -> str:
        return ", ".join(f"{name}:{kind}" for name, kind in items) or "-"

    width = max((len(text) for text, _ in equations), default=0)
    lines = [f"inputs {declare([(names[id(v)], describe(v.shape, v.dtype)) for v in variables])}"]
    if constants:
        lines.append(f"consts {declare(constants)}")
    lines += [f"  {text.ljust(width)}  # {kind}" for text, kind in equations]
    lines.append(f"output {name_of(vertex(output)) if output.tracks_grad() else '-'}")
    return TraceListing("\n".join(lines))
