"""Forward mode: tangents pushed through a recorded trace, node by node in creation order.

A function transform records its function once, then pushes tangents of its arguments
through the trace (``tf.jvp`` once; ``tf.linearize`` and ``tf.jacfwd`` once per tangent,
without running the function again). A node's tangent comes from its op's ``jvp`` rule
(linear and multilinear ops derive theirs) or, for an op without one, from its VJP
transposed: the VJP is linear in its cotangent, so sweeping the rule's own recorded
computation backward, with the input tangents as seeds, gives J·t. Rules compute with the
session given, so the tangents are recorded where an enclosing transform needs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .eager import EagerTensor, vertex
from .errors import RuleError
from .graph import depends_on, leading_to, nodes_in_order, reachable
from .recording import recording
from .rule_errors import rule_fields
from .session import EagerSession
from .sweep import reverse_sweep
from .tensor import TRACKED, seal
from .trace import CALL, SEQUENCE, Node, Vertex
from .tracing import TRACING


class Plan:
    """The nodes a tangent flows through, in creation order; after each node the vertices
    whose tangent no later node reads (dropped then, so a long chain holds a few tangents
    at a time, not one per node, as a reverse sweep frees its cotangents); and per call
    node (an op with several results) which of its results' tangents the plan reads at
    all (``read``: a rule may skip, or not refuse, a tangent nobody reads)."""

    __slots__ = ("nodes", "drops", "read")

    def __init__(self, nodes: list[Node], keep: set[int]):
        self.nodes = nodes
        self.read: dict[int, set[int]] = {}  # call node id -> the indices of its results in the plan
        last: dict[int, int] = {}  # vertex id -> the position of the last node that reads its tangent
        for position, node in enumerate(nodes):
            if node.output is not None and node.output != CALL:
                self.read.setdefault(id(node.parents[0]), set()).add(node.output)
            for parent in node.parents:
                if parent is not None:
                    last[id(parent)] = position
        self.drops: list[list[int]] = [[] for _ in nodes]
        for key, position in last.items():
            if key not in keep:
                self.drops[position].append(key)


def forward_plan(roots: Sequence[Vertex], starts: set[int]) -> Plan:
    """The plan of pushing tangents of the vertices ``starts`` (by id) to ``roots``: the
    nodes between them in creation order (inputs before their users). The walk stops at
    the starts: what computed them is not the transform's business."""
    carried = set(starts)
    nodes = []
    for node in nodes_in_order(reachable(*roots, stops=starts)):
        if id(node) not in starts and any(id(parent) in carried for parent in node.parents if parent is not None):
            carried.add(id(node))
            nodes.append(node)
    return Plan(nodes, {id(root) for root in roots})


def push_tangents(session: EagerSession, plan: Plan, starts: dict[int, EagerTensor]) -> dict[int, Any]:
    """The tangents of the plan's roots (by vertex id; None or absent for zero), given the
    tangents of the start vertices; a call node's entry is the tuple of its results' tangents."""
    tangents: dict[int, Any] = dict(starts)
    get, pop = tangents.get, tangents.pop
    tracing = TRACING.get() is not None  # vmap's trace records integer results: no tangent
    for node, drops in zip(plan.nodes, plan.drops):
        if node.output is not None and node.output != CALL:  # one result of a call: its part
            of_call = get(id(node.parents[0]))
            tangents[id(node)] = None if of_call is None else of_call[node.output]
        else:
            given = [None if parent is None else get(id(parent)) for parent in node.parents]
            if any(t is not None for t in given) and not (tracing and node.dtype.kind in "biu"):
                tangents[id(node)] = node_tangent(session, node, given, plan.read.get(id(node)))
        for key in drops:
            pop(key, None)
    return tangents


def node_tangent(session: EagerSession, node: Node, tangents: list[Any], read: set[int] | None = None) -> Any:
    """The tangent of a node's result given one tangent per input (None for zero), checked:
    from its op's ``jvp`` rule, else its VJP transposed (see :meth:`Op.jvp
    <tenferro.core.op.Op.jvp>`, which says what ``read`` is). The conformance suite calls
    this too."""
    return node.op.jvp(session, node, tangents, read, _transposed)


def _transposed(session: EagerSession, node: Node, tangents: list[Any]) -> Any:
    """J·t for an op without a ``jvp`` rule: the VJP rule, run on a cotangent ``g`` that is
    a variable of its own and recorded, is a linear function of ``g``; sweeping it
    backward with the input tangents as the cotangents of its results gives the tangent
    of the op's result (its transpose, in the real inner product the VJPs live in).

    ``g`` is all ones, not zeros: its value does not change a linear map, but a rule may
    decide by it (eigh's refuses a degenerate spectrum only where the vectors' cotangent
    is nonzero), and forward mode cannot know which parts of the result will be used."""
    rt, engine = session._rt, session._engine
    results = node.value if node.output == CALL else (node,)
    ones = np.ones if engine is None else engine.ones  # ones of the session's engine (not N of them in NumPy)
    gs = tuple(
        EagerTensor(seal(ones(r.shape, r.dtype)), rt, None, leaf=True) if r.dtype in TRACKED else None for r in results
    )
    floor = next(SEQUENCE)  # every node the rule records comes after this number
    with recording(rt), rt.rule_session(engine=engine) as rules:  # the rule's computation is what gets transposed
        cotangents = node.op.vjp(rules, node, gs if node.output == CALL else gs[0])
    wanted = {id(g) for g in gs if g is not None}
    roots = []
    for index, (ct, t) in enumerate(zip(cotangents, tangents)):
        if ct is not None and t is not None:
            found = vertex(ct)
            if found is not None and depends_on(found, frozenset(wanted), floor):
                roots.append((found, t))
            elif np.any(ct._held() != 0):  # linear in g, yet not made from g: the rule cut g off
                raise RuleError(
                    f"the VJP of {node.spec.name} (plugin {node.spec.plugin!r}) returned, for input {index} "
                    f"({node.spec.input_name(index)!r}), a nonzero cotangent that is not computed from the "
                    f"cotangent g with the session's ops (g went through a constant or a NumPy value); forward "
                    f"mode transposes the VJP, so it needs every cotangent computed from g (or a jvp rule)",
                    **rule_fields(node.spec, index),
                )
    got = {}
    if roots:
        with rt.rule_session(_between(roots, wanted, floor), engine) as sweep:
            got = reverse_sweep(sweep, roots)
    transposed = tuple(None if g is None else got.get(id(g), (g, None))[1] for g in gs)
    return transposed if node.output == CALL else transposed[0]


def _between(roots: list[tuple[Vertex, Any]], wanted: set[int], floor: int) -> set[int]:
    """The vertices a sweep from ``roots`` to the variables ``wanted`` must visit, among the
    nodes recorded after ``floor`` (the rule's own: the trace before it cannot lead to the
    rule's cotangent variables, so it is not walked)."""
    return leading_to(reachable(*(v for v, _ in roots), floor=floor), wanted)
