"""``tf.jit``'s compiled plan: a traced program (``_replay._Program``) as one straight-line
Python function of its input arrays, each recorded op one line calling its kernel.

A line is ``v3 = mul(v1, c, axis=0)``: ``mul`` the op's NumPy kernel (``OpSpec.forward``,
what an op of a CpuEngine session calls, or its ``traced_forward``), ``v1`` the value of
an input (``a0``...) or of an earlier line, ``c`` a constant of the trace (a tensor the
function made or closed over, a Python number), then the op's params (literals, or
constants); a value is deleted after its last use, so the plan holds no more than the
program needs at each line, and a ufunc writes its result into an input it reads for the
last time where it can (``out=v1``: one allocation fewer). There is no tensor per value,
no dispatch, no argument check and no recording: the signature the plan was traced for
(shapes, dtypes, static values) stands for every check the eager call made, and the
kernels and their order are the eager call's, so the numbers are bitwise the same. A 0-d
result is made an array as an op makes it (a full reduction's NumPy scalar).

``plan.source`` is the function's text, for reading what was traced.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from tenferro.core.alias import ALIAS
from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.trace import CALL

from ._replay import _Program

#: The plan's local names (arguments a0, values v3): a kernel is not bound to one of them.
_LOCAL = re.compile(r"[av]\d+")


class Plan:
    """The compiled function of a program: ``run(*arrays)`` gives its output values (one
    per output leaf), ``tensors`` the indices of those that were tensors (the others are
    what ``f`` returned as it is), ``passed`` those that may share memory with an argument
    (an argument itself, or what an op that may return its input gave), ``source`` its text."""

    def __init__(self, program: _Program, name: str):
        names: dict[int, str] = {}  # a vertex's id: the local name of its value
        env: dict[str, Any] = {"asarray": np.asarray}
        inputs = [v for v in program.inputs if v is not None]
        # Which values are known to be C-ordered arrays (``ordered``) or have no memory order
        # (numbers, 0-d: ``orderless``): a ufunc writes into a buffer only where its result
        # is C-ordered, as the eager call's (a signature fixes its arguments' orders).
        ordered: set[str] = set()
        orderless: set[str] = set()
        sharing: set[str] = set()  # values an op that may return its input (a view) gave
        for k, variable in enumerate(inputs):
            names[id(variable)] = f"a{k}"
            sharing.add(f"a{k}")
            if held(variable).flags.c_contiguous:
                ordered.add(f"a{k}")
        lines: list[Line] = []

        bound: dict[int, str] = {}  # id of a value bound in env: its name
        counts: dict[str, int] = {}

        def constant(value: Any, name: str = "c") -> str:
            key = bound.get(id(value))
            if key is None:
                name = re.sub(r"\W", "_", name)  # a qualified op name (plugin.op): an identifier
                if not name.isidentifier():
                    name = f"op_{name}"
                if name != "c" and (keyword.iskeyword(name) or name in env or _LOCAL.fullmatch(name)):
                    name = f"{name}_op"  # an op named like a local (v1), a keyword or asarray
                while key is None or key in env:
                    count = counts[name] = counts.get(name, 0) + 1
                    key = name if count == 1 else f"{name}{count - 1}"
                bound[id(value)] = key
                env[key] = value
                if not isinstance(value, np.ndarray) or value.ndim == 0:
                    orderless.add(key)
                elif value.flags.c_contiguous:
                    ordered.add(key)
            return key

        def param(name: str, value: Any) -> str:
            return f"{name}={value!r}" if _literal(value) else f"{name}={constant(value)}"

        def operand(parent: Any, arg: Any) -> str:
            if parent is None:  # a constant: its array, or the number itself
                return constant(held(arg) if type(arg) is EagerTensor else arg)
            local = names.get(id(parent))
            # (a tensor from outside the trace: its value as it is, where nothing outside
            # tracks, or tf.jit runs the program through its ops: see reads_outside)
            return constant(held(arg)) if local is None else local

        for k, variable in enumerate(inputs):
            for check in program.checks.get(id(variable), ()):
                lines.append(Line(f"{constant(check, 'check')}(a{k})", [f"a{k}"], CHECK))
        for j, node in enumerate(program.nodes):
            if node.output is not None and node.output != CALL:  # one result of a call: picked
                read = [names[id(node.parents[0])]]
                expression = f"{read[0]}[{node.output}]"
            else:
                read = [operand(p, a) for p, a in zip(node.parents, node.inputs)]
                listed = f"[{', '.join(read)}]" if node.spec.variadic else ", ".join(read)
                params = "".join(f", {param(k, v)}" for k, v in node.params.items())
                kernel = node.spec.traced_forward or node.spec.forward
                expression = f"{constant(kernel, node.spec.name)}({listed}{params})"
            if node.output != CALL and not node.shape:  # a 0-d result: an array, as the op makes it
                expression = f"asarray({expression})"
            names[id(node)] = f"v{j}"
            fresh = _elementwise_ufunc(node)
            if node.spec.returns_view:
                sharing.add(f"v{j}")
            if (fresh and all(r in ordered or r in orderless for r in read)) or (
                node.spec.forward is ALIAS.forward and read[0] in ordered
            ):
                ordered.add(f"v{j}")
            lines.append(Line(f"v{j} = {expression}", read, UFUNC if fresh else OTHER, node if fresh else None))
            for check in program.checks.get(id(node), ()):  # a rule's refusal by values, run again
                lines.append(Line(f"{constant(check, 'check')}(v{j})", [f"v{j}"], CHECK))

        results = []
        # the outputs that are tensors, by index (the others: as f returned them)
        self.tensors = [i for i, x in enumerate(program.outputs) if type(x) is EagerTensor]
        for x in program.outputs:
            if type(x) is EagerTensor:
                found = vertex(x)
                local = names.get(id(found)) if found is not None else None
                results.append(local if local is not None else operand(found, x))
            else:
                results.append(constant(x))
        self.passed = frozenset(i for i, name in enumerate(results) if name in sharing)
        body = _with_deletions(_in_place(lines, set(results), ordered), results)
        arguments = ", ".join(f"a{k}" for k in range(len(inputs)))
        returned = f"({', '.join(results)},)" if results else "()"
        lines_of_plan = [f"def plan({arguments}):", *(f"    {line}" for line in body), f"    return {returned}"]
        self.source = "\n".join(lines_of_plan)
        namespace: dict[str, Any] = dict(env)
        exec(compile(self.source, f"<tf.jit plan of {name}>", "exec"), namespace)
        self.run: Callable[..., tuple[Any, ...]] = namespace["plan"]


def reads_outside(program: _Program) -> bool:
    """Whether the program reads a tensor from outside the trace that tracks a derivative
    (a closure over a variable): a plan of it would drop that derivative, so ``tf.jit``
    runs the program through its ops, which record it."""
    inside = {id(v) for v in program.inputs if v is not None} | {id(n) for n in program.nodes}
    read = [p for n in program.nodes for p in n.parents] + [vertex(x) for x in program.outputs]
    return any(p is not None and id(p) not in inside for p in read)


def _literal(value: Any) -> bool:
    """Whether ``value`` is written in the plan's text as it is (its repr reads it back)."""
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is float:
        return np.isfinite(value)
    return type(value) is tuple and all(_literal(v) for v in value)


#: What a plan's line is: a call of an elementwise ufunc whose result is a fresh array of
#: the node's shape and dtype, a rule's value check (it reads and keeps nothing), or else.
UFUNC, CHECK, OTHER = "ufunc", "check", "other"


class Line(NamedTuple):
    """One line of a plan: its text, the names it reads, its kind, and (a UFUNC line) its node."""

    text: str
    read: list[str]
    kind: str
    node: Any = None


def _elementwise_ufunc(node: Any) -> bool:
    """Whether a node's kernel is a NumPy ufunc called on its inputs alone (NumPy's ``add``,
    ``sin``...), whose result is then a fresh array: one it may write into a dead input."""
    spec = node.spec
    kernel = spec.traced_forward or spec.forward
    return (
        type(kernel) is np.ufunc
        and kernel.nout == 1
        and not node.params
        and not spec.variadic
        and node.output is None
        and bool(node.shape)  # (a 0-d result is a NumPy scalar: asarray'd)
    )


def _in_place(lines: list[Line], results: set[str], ordered: set[str]) -> list[Line]:
    """The lines with a ufunc writing its result into an input it reads for the last time
    (``out=``), where that input is a fresh array of the result's shape and dtype that
    only ufuncs and checks read (none of them keeps a view of it) and no result is, and
    the result is C-ordered (``ordered``: as the eager call's, whose layout later
    reductions sum in): one allocation fewer per such line, the same numbers (the same
    loop, no cast, the same memory order)."""
    last: dict[str, int] = {}
    only_ufuncs: dict[str, bool] = {}
    for index, line in enumerate(lines):
        for name in line.read:
            last[name] = index
            only_ufuncs[name] = only_ufuncs.get(name, True) and line.kind != OTHER
    fresh: dict[str, Any] = {}  # the values ufunc lines made: their nodes
    rewritten = []
    for index, line in enumerate(lines):
        if line.kind == UFUNC:
            target, node = line.text.split(" = ", 1)[0], line.node
            for name in line.read if target in ordered else ():
                buffer = fresh.get(name)
                if (
                    buffer is not None
                    and last[name] == index
                    and only_ufuncs[name]
                    and name not in results
                    and buffer.shape == node.shape
                    and buffer.dtype == node.dtype
                ):
                    line = line._replace(text=f"{line.text[:-1]}, out={name})")
                    break
            fresh[target] = node
        rewritten.append(line)
    return rewritten


def _with_deletions(lines: list[Line], results: list[str]) -> list[str]:
    """The lines with ``del`` after the last read of each value no result is (``a`` and
    ``v`` names: the caller's arrays are dropped by the plan, not freed)."""
    last: dict[str, int] = {}
    for index, line in enumerate(lines):
        for name in line.read:
            if name[0] in "av":
                last[name] = index
    kept = set(results)
    freed: dict[int, list[str]] = {}
    for name, index in last.items():
        if name not in kept:
            freed.setdefault(index, []).append(name)
    body = []
    for index, line in enumerate(lines):
        body.append(line.text)
        if index in freed:
            body.append(f"del {', '.join(sorted(set(freed[index])))}")
    return body
