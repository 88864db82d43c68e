"""The trace of a function that ``tf.vmap`` and ``tf.jit`` share (:class:`_Program`), and
``tf.vmap``'s batched path: the function traced on one example, then its recorded ops
replayed once on the whole batch, each through its batching rule (``OpSpec.batch``).
``tf.jit`` traces with a Trace that refuses what would block it, and replays unbatched
(:func:`replay` through the ops, or its compiled plan).

The trace runs ``f`` on example 0 with the mapped arguments as variables of its own
(integer and bool ones too), so that every op computed from them records a node (integer
results too, while a trace runs: ``core/tracing.py``), and on example 1 again: the replay
is used only when both traces are the same program (the same ops with the same params, the
same wiring, the same constants) and nothing blocked them (a value of a mapped argument
read into NumPy or Python, an integer result of an op with several). Otherwise ``f`` runs
once per example, as the loop it stands for. The replay calls each op on the caller's
session, so derivatives flow through it as through any program (``tf.grad`` of a vmapped
function); an op with several results is one call, whose results its result nodes pick.
An op without a rule (or whose rule declines its arguments) runs once per example inside
the replay, with a warning, once per op.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import numpy as np

from tenferro import batching
from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.graph import nodes_in_order, reachable
from tenferro.core.recording import recording
from tenferro.core.tensor import Hollow
from tenferro.core.trace import CALL, SEQUENCE, Node
from tenferro.core.tracing import TRACING, Trace, check_values

from ._call import MADE
from ._trees import flatten, unflatten

#: The fewest examples batched: below, the two traces cost more than the loop.
LEAST_BATCH = 3


class BatchingFallback(UserWarning):
    """``tf.vmap`` runs an op (or the whole function) once per example: it has no batching
    rule, or the function cannot be traced as one program (the message says why)."""


_WARNED: set[str] = set()
#: Set while a transform maps over its own basis vectors (the Jacobians): no warnings then.
QUIET: ContextVar[bool] = ContextVar("tenferro_vmap_quiet", default=False)


def _warn_once(key: str, message: str) -> None:
    if key not in _WARNED and not QUIET.get():
        _WARNED.add(key)
        warnings.warn(message, BatchingFallback, stacklevel=4)


class _Program:
    """One trace of ``fun`` on ``leaves``, those with an array in ``traced`` replaced by a
    variable of the trace holding it (a float, complex, integer or bool one: integers are
    variables of the trace only, which no derivative reaches, so that indexing by them and
    comparisons of them record): the trace's variables (None for the other leaves), its
    nodes in creation order, its output leaves and their structure, or why it cannot be
    replayed. Under a ``trace`` that refuses what would block it (``tf.jit``'s), an
    exception of ``fun`` propagates; else it blocks the replay (the loop raises it again)."""

    def __init__(self, fun: Callable[..., Any], leaves: list[Any], traced: list[Any], spec: Any, rt: Any, trace: Trace):
        self.inputs: list[EagerTensor | None] = []
        self.nodes: list[Node] = []
        self.outputs: list[Any] = []
        self.out_spec: Any = None
        self.unreplayable: str | None = None
        #: The variables the transforms inside ``fun`` made for their arguments, by id: their
        #: sweeps ran in the trace (recorded), so nothing differentiates the replay by them.
        self.made: dict[int, EagerTensor] = {}
        token, opened = TRACING.set(trace), MADE.set((*MADE.get(), self.made))
        floor = next(SEQUENCE)
        try:
            given = []
            for leaf, value in zip(leaves, traced):
                variable = None if value is None else EagerTensor(value, rt, None, leaf=True)
                self.inputs.append(variable)
                given.append(leaf if variable is None else variable)
            with recording(rt):
                *positional, keywords = unflatten(spec, given)
                self.outputs, self.out_spec = flatten(fun(*positional, **keywords))
        except Exception as exc:
            if trace.refuses:
                raise
            trace.block(f"it raised {type(exc).__name__} ({str(exc)[:200]}) on one example")
        finally:
            MADE.reset(opened)
            TRACING.reset(token)
        self.blocked = trace.blocked
        #: The rules' value checks (``core.tracing.check_values``), by the id of the vertex checked.
        self.checks: dict[int, list[Callable[[Any], None]]] = {}
        if self.blocked is None:
            roots = [v for v in map(vertex, (x for x in self.outputs if type(x) is EagerTensor)) if v is not None]
            roots += [v for v, _ in trace.checks if not isinstance(v, EagerTensor)]  # (their values are computed)
            # (a result node made in the trace for a call made before it, as forward mode
            # makes one it needs, is a fixed tensor: its call is not replayed)
            self.nodes = [
                n
                for n in nodes_in_order(reachable(*roots, floor=floor))
                if n.seq > floor and (n.output is None or n.output == CALL or n.parents[0].seq > floor)
            ]
            #: The first op the trace cannot replay on other values (see OpSpec.replayable), or None.
            self.unreplayable = next((n.spec.name for n in self.nodes if not n.spec.replayable), None)
            if self.unreplayable is not None and not trace.refuses:
                self.blocked = f"it calls {self.unreplayable}, whose recorded call holds the values of its run"
            inside = {id(n) for n in self.nodes} | {id(v) for v in self.inputs if v is not None}
            for checked, check in trace.checks:
                if id(checked) in inside:
                    self.checks.setdefault(id(checked), []).append(check)

    def signature(self) -> list[Any]:
        """The program, comparable across traces: per node its op, params, which result of
        a call it is, and its inputs (a mapped argument's or a node's index, a fixed tensor,
        a constant), then the outputs."""
        index: dict[int, tuple[str, int]] = {id(v): ("argument", k) for k, v in enumerate(self.inputs) if v is not None}
        for j, node in enumerate(self.nodes):
            index[id(node)] = ("node", j)

        def ref(parent: Any, arg: Any) -> Any:
            if parent is None:
                return ("constant", arg)
            return index.get(id(parent), ("fixed", parent))

        listed = [(n.op, n.params, n.output, [ref(p, a) for p, a in zip(n.parents, n.inputs)]) for n in self.nodes]
        outs = [ref(vertex(x), x) if type(x) is EagerTensor else ("constant", x) for x in self.outputs]
        checks = sorted((index[k], [id(c) for c in cs]) for k, cs in self.checks.items())
        return [listed, self.out_spec, outs, checks]


def same_program(a: _Program, b: _Program) -> bool:
    return same(a.signature(), b.signature())


#: Types a signature compares with ``==`` at once (most of its items: names, indices, params).
_PLAIN = frozenset({str, int, float, bool, type(None)})


def same(a: Any, b: Any) -> bool:
    """Whether two parts of signatures are the same: ops, fixed tensors and the trace's own
    objects by identity, constants and variables by value (bitwise, dtype and shape too),
    containers item by item."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _PLAIN:
        return a == b
    if kind is tuple or kind is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x is not y and not same(x, y):
                return False
        return True
    if isinstance(a, (list, tuple)):  # (a namedtuple)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if type(a) is EagerTensor:
        # A variable one of f's own transforms made (its value the same unmapped argument in
        # each trace) matches by value; another tracked tensor only itself.
        if (vertex(a) is not None and not a.is_variable()) or (vertex(b) is not None and not b.is_variable()):
            return False
        a, b = held(a), held(b)
    if isinstance(a, np.ndarray):  # bitwise (a -0.0 constant is not 0.0), and 5 x cheaper than array_equal
        return a.dtype == b.dtype and a.shape == b.shape and (a is b or a.tobytes() == b.tobytes())
    if isinstance(a, Node) and a.output is not None and a.output != CALL:  # a fixed result of a call
        return a.output == b.output and a.parents[0] is b.parents[0]
    if isinstance(a, (Node, Hollow)):
        return False
    if hasattr(a, "__dask_tokenize__"):  # a lazy array (an engine's): its graph's token, never its values
        return a.shape == b.shape and a.dtype == b.dtype and a.__dask_tokenize__() == b.__dask_tokenize__()
    try:
        return bool(a == b)
    except Exception:
        return False


def replay(program: _Program, given: list[tuple[Any, bool]], rt: Any) -> list[tuple[Any, bool]]:
    """The program's ops called on the session, the trace's variables given their values
    in ``given`` (each a tensor and whether it is batched, its batch axis leading): per
    output leaf its value and whether it is batched. Unbatched, it is the program run
    again through its ops (``tf.jit``'s, for arguments a transform differentiates)."""
    session = rt.current_session()
    inputs = [v for v in program.inputs if v is not None]
    values: dict[int, tuple[Any, bool]] = {id(v): value for v, value in zip(inputs, given)}
    # (a variable a transform inside the function made is a constant here: its values
    # flow, and no derivative by it is taken, so the ops on it need not record)
    values.update((key, (EagerTensor(held(v), rt), False)) for key, v in program.made.items())
    for variable in inputs:
        _check(program, variable, values[id(variable)][0])
    for node in program.nodes:
        if node.output is not None and node.output != CALL:  # one result of a call replayed before it
            results, flag = values[id(node.parents[0])]
            values[id(node)] = (results[node.output], flag)
            _check(program, node, results[node.output])
            continue
        args, flags = [], []
        for parent, arg in zip(node.parents, node.inputs):
            value, flag = values.get(id(parent), (arg, False)) if parent is not None else (arg, False)
            args.append(value)
            flags.append(flag)
        params = dict(node.params)
        if not any(flags):
            out = node.op(session, *([args] if node.spec.variadic else args), **params)
        else:
            out = _batched_call(session, node, args, flags, params)
        values[id(node)] = (out, any(flags))
        _check(program, node, out)
    results = []
    for x in program.outputs:  # a node's, a mapped argument's, or as it is (a constant, an outer tensor)
        results.append(values.get(id(vertex(x)), (x, False)) if type(x) is EagerTensor else (x, False))
    return results


def _check(program: _Program, checked: Any, value: Any) -> None:
    """The rules' value checks of a vertex, on the value the replay computed for it (kept
    again by a trace the replay runs in: ``tf.jit`` of a vmapped function)."""
    for check in program.checks.get(id(checked), ()):
        check_values(value, check)


def _batched_call(session: Any, node: Node, args: list[Any], flags: list[bool], params: dict[str, Any]) -> Any:
    spec, op = node.spec, node.op
    rule = spec.batch_rule

    def call(*given: Any, **changed: Any) -> Any:
        return op(session, *([list(given)] if spec.variadic else given), **{**params, **changed})

    out = None
    if rule == "elementwise":
        out = batching.elementwise(session, call, args, flags, **params)
    elif callable(rule):
        out = rule(session, call, args, flags, **params)
    if out is not None:
        return out
    _warn_once(
        f"op:{spec.plugin}.{spec.name}",
        f"tf.vmap: {spec.name} (plugin {spec.plugin!r}) has no batching rule for these arguments, so it runs once "
        f"per example; give its OpSpec a batch= rule (tenferro.batching) to batch it",
    )
    return batching.per_example(session, call, args, flags, spec.multiple_results)


def fallback(fun: Any, reason: str) -> None:
    """Say, once per function and reason, that ``tf.vmap`` runs ``fun`` once per example."""
    name = getattr(fun, "__name__", type(fun).__name__)
    # (by the function object: two lambdas share a name, not a warning)
    _warn_once(f"fun:{id(fun)}:{reason}", f"tf.vmap({name}) runs it once per example: {reason} (docs/transforms.md)")
