"""Walking the graph of vertices (nodes and variables) by their parents, and the
jaxpr-like listing of B16."""

from __future__ import annotations

from collections.abc import Container
from numbers import Number
from typing import Any

import numpy as np

from .spec import REQUIRED
from .tensor import describe
from .trace import CALL, Node, Vertex


def reachable(*roots: Vertex, stops: Container[int] = (), floor: int = -1) -> dict[int, Vertex]:
    """Every vertex the ``roots`` were computed from, their own included, by id (iterative,
    so a chain of 10^5 ops needs no recursion; each vertex is visited once however many
    roots lead to it). The walk does not go past a vertex whose id is in ``stops`` nor a
    node created at or before ``floor``: those are reached, their parents are not (a
    transform's own arguments; the trace before a rule ran)."""
    seen: dict[int, Vertex] = {}
    for root in roots:  # (a loop, not a comprehension: rt.grad walks from one root, 0.2 µs less)
        seen[id(root)] = root
    stack = list(seen.values())
    bounded = bool(stops) or floor >= 0  # rt.grad's walk has neither: one test per vertex less
    while stack:
        current = stack.pop()
        if type(current) is Node and (not bounded or (current.seq > floor and id(current) not in stops)):
            for parent in current.parents:
                if parent is not None and id(parent) not in seen:
                    seen[id(parent)] = parent
                    stack.append(parent)
    return seen


def depends_on(root: Vertex, wanted: frozenset[int], floor: int) -> bool:
    """Whether ``root`` was computed from a vertex whose id is in ``wanted``, walking only
    the nodes created after ``floor`` (every vertex computed from the wanted ones was)."""
    seen = {id(root)}
    stack = [root]
    while stack:
        current = stack.pop()
        if id(current) in wanted:
            return True
        if type(current) is Node and current.seq > floor:
            for parent in current.parents:
                if parent is not None and id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append(parent)
    return False


def nodes_in_order(vertices: dict[int, Vertex]) -> list[Node]:
    """The nodes among ``vertices`` by creation, which puts inputs before their users."""
    return sorted((v for v in vertices.values() if type(v) is Node), key=lambda node: node.seq)


def leading_to(reached: dict[int, Vertex], wanted: set[int]) -> set[int]:
    """ids of the ``reached`` vertices from which a ``wanted`` vertex can be reached (the
    wanted ones included): the only ones a sweep toward ``wanted`` must visit."""
    needed = set(wanted)
    for node in nodes_in_order(reached):
        if any(parent is not None and id(parent) in needed for parent in node.parents):
            needed.add(id(node))
    return needed


def _alias(names: dict[int, str], name_of: Any, nodes: list[Node]) -> str:
    """One name for every node of one result of a call (a derivative trace may hold two)."""
    name = name_of(nodes[0])
    for other in nodes[1:]:
        names[id(other)] = name
    return name


def _is_default(spec: Any, name: str, value: Any) -> bool:
    """Whether a param has its spec's default (listings leave those out, so a listing
    does not change when an op gains a param such as keepdims)."""
    default = spec.params.get(name, REQUIRED)
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # an array param: == is elementwise
        return False


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


def listing(root: Vertex | None) -> TraceListing:
    """A jaxpr-like listing of the program that computed the vertex ``root`` (None for a
    constant): the variables it reads, the constants, one ``c = mul a b`` line per op
    (``b, c = split a`` for an op with several results; params other than their defaults
    in brackets, ``reduce_sum[axes=1]``), and the output."""
    reached = reachable(root) if root is not None else {}
    names: dict[int, str] = {}

    def name_of(key: object) -> str:
        if id(key) not in names:
            names[id(key)] = _name(len(names))
        return names[id(key)]

    variables = [v for v in reached.values() if type(v) is not Node]
    for variable in variables:
        name_of(variable)
    constants: list[tuple[str, str]] = []
    equations: list[tuple[str, str]] = []
    ordered = nodes_in_order(reached)
    results_of: dict[int, dict[int, list[Node]]] = {}  # a call's result nodes, by result index
    for node in ordered:
        if node.output is not None and node.output != CALL:
            results_of.setdefault(id(node.parents[0]), {}).setdefault(node.output, []).append(node)
    for node in ordered:
        if node.output is not None and node.output != CALL:
            continue  # named on its call's line
        args = []
        for arg, parent in zip(node.inputs, node.parents):
            if parent is not None:
                args.append(name_of(parent))
            elif not isinstance(arg, (Number, np.generic)):  # a constant tensor
                if id(arg) not in names:
                    constants.append((name_of(arg), describe(arg.shape, arg.dtype)))
                args.append(name_of(arg))
            else:
                args.append(repr(arg))
        params = ",".join(f"{k}={v!r}" for k, v in node.params.items() if not _is_default(node.spec, k, v))
        op = f"{node.spec.name}[{params}]" if params else node.spec.name
        if node.output == CALL:  # b, c = split a; _ for a result nothing here reads
            found = results_of.get(id(node), {})
            targets = ", ".join(_alias(names, name_of, found[i]) if i in found else "_" for i in range(len(node.value)))
            kinds = ", ".join(describe(r.shape, r.dtype) for r in node.value)
        else:
            targets, kinds = name_of(node), describe(node.shape, node.dtype)
        equations.append((f"{targets} = {op} {' '.join(args)}", kinds))

    def declare(items: list[tuple[str, str]]) -> str:
        return ", ".join(f"{name}:{kind}" for name, kind in items) or "-"

    width = max((len(text) for text, _ in equations), default=0)
    lines = [f"inputs {declare([(names[id(v)], describe(v.shape, v.dtype)) for v in variables])}"]
    if constants:
        lines.append(f"consts {declare(constants)}")
    lines += [f"  {text.ljust(width)}  # {kind}" for text, kind in equations]
    lines.append(f"output {name_of(root) if root is not None else '-'}")
    return TraceListing("\n".join(lines))
