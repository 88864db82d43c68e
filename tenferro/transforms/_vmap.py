"""``tf.vmap``: a function mapped over an axis of its arguments, as ``jax.vmap``.

The function is traced on two examples (a Jacobian's sweep over basis vectors on one, see
:func:`over_basis`) and its recorded ops replayed once on the whole
batch through their batching rules (``_replay.py``); where that cannot be done it runs once
per example and its results are stacked, the loop ``vmap`` stands for. Derivatives flow
through either (``tf.grad(tf.vmap(f))``, and ``tf.vmap(tf.grad(f))`` for per-example
gradients).

The mapping follows JAX: ``in_axes`` is an int, None (not mapped) or a tuple with one entry
per positional argument, each a prefix of that argument's pytree; keyword arguments are
mapped over axis 0; ``out_axes`` likewise for the output; a negative axis counts from the
end of its leaf's axes; ``axis_size`` gives the size when nothing is mapped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import optree

from tenferro.core.eager import EagerTensor, held
from tenferro.core.errors import ArgumentError, AxisError, ShapeMismatch
from tenferro.core.runtime import default_runtime
from tenferro.core.tensor import freeze
from tenferro.core.tracing import Trace

from ._replay import LEAST_BATCH, _Program, fallback, replay, same_program
from ._trees import flatten, unflatten, where_in

Axis = int | None


def vmap(
    fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, axis_size: int | None = None
) -> Callable[..., Any]:
    """``fun`` mapped over axis ``in_axes`` of its arguments, its results stacked along
    ``out_axes``, as ``jax.vmap`` (the module doc gives the forms of the axes): one batched
    call per op where the ops have batching rules, else ``fun`` once per example
    (docs/transforms.md, "Mapping over a batch"); derivatives flow through it."""
    if not callable(fun):
        raise ArgumentError(f"vmap: the function to map must be callable, got {type(fun).__name__}")
    _check_axes(in_axes, "in_axes")
    _check_axes(out_axes, "out_axes")
    if axis_size is not None and (
        isinstance(axis_size, bool) or not isinstance(axis_size, (int, np.integer)) or axis_size < 0
    ):
        raise ArgumentError(f"vmap: axis_size must be a non-negative int or None, got {axis_size!r}")
    return _mapping(fun, in_axes, out_axes, axis_size, traces=2)


def over_basis(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``vmap(fun)`` for a derivative's sweep or push over basis vectors (the Jacobians'):
    traced once, not twice. The second trace looks for what a read does not show (a random
    draw, a branch on the data), and a sweep or push is the recorded rules run on the
    basis vector alone: a rule that chooses by values reads them (the trace sees it and the
    loop runs), so the first trace is the program of every vector."""
    return _mapping(fun, 0, 0, None, traces=1)


def _mapping(fun: Callable[..., Any], in_axes: Any, out_axes: Any, axis_size: int | None, traces: int) -> Any:
    """:func:`vmap`'s mapped function, its arguments checked; ``traces``: 2 (the examples'
    programs compared) or 1 (see :func:`over_basis`)."""

    def mapped(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
            raise ArgumentError(
                f"vmap: in_axes has {len(in_axes)} entries, but the function was called with {len(args)} "
                f"positional argument(s); give one entry per positional argument (None: not mapped)"
            )
        per_arg = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        trees = (*args, kwargs)
        leaves, spec = flatten(trees)
        axes = _argument_axes(args, per_arg, leaves, trees)
        size = _size(leaves, axes, axis_size, trees)
        raised = None
        if size >= LEAST_BATCH:
            batched = _batched(fun, leaves, axes, spec, size, out_axes, traces)
            if type(batched) is not _Unbatched:
                return batched
            raised = batched.raised
        results = []
        for i in range(size) if size else (None,):  # a size-0 batch: one call on zeros, for the shapes
            *positional, keywords = unflatten(spec, [_example(x, a, i) for x, a in zip(leaves, axes)])
            results.append(fun(*positional, **keywords))
        if raised is not None:  # the loop did not raise it again: the trace alone failed, say so
            fallback(fun, f"{raised} while traced, but not when run per example")
        return _stacked(results, out_axes, size)

    functools.update_wrapper(mapped, fun)
    mapped.__name__ = mapped.__qualname__ = f"vmap({getattr(fun, '__name__', type(fun).__name__)})"
    return mapped


class _Unbatched:
    """What :func:`_batched` gives when the function must run once per example; ``raised``:
    the error its trace met, where that is why (the loop raises it again where it
    belongs; if it does not, the trace alone failed)."""

    __slots__ = ("raised",)

    def __init__(self, raised: str | None = None):
        self.raised = raised


def _batched(
    fun: Callable[..., Any], leaves: list[Any], axes: list[Axis], spec: Any, size: int, out_axes: Any, traces: int
) -> Any:
    """``fun`` traced (on ``traces`` examples) and replayed on the batch (``_replay.py``), or
    :class:`_Unbatched`."""
    dtypes = (_value_of(x).dtype for x, axis in zip(leaves, axes) if axis is not None)
    odd = next((dtype for dtype in dtypes if dtype.kind not in "biufc"), None)
    if odd is not None:
        fallback(fun, f"a mapped argument has dtype {odd}")
        return _Unbatched()
    rt = next((x.runtime for x in leaves if type(x) is EagerTensor), None) or default_runtime()
    first = _traced(fun, leaves, axes, spec, 0, rt)
    if first.blocked is None and traces == 1:
        reason = None
    elif first.blocked is None:
        second = _traced(fun, leaves, axes, spec, 1, rt)
        reason = second.blocked or (None if same_program(first, second) else "its trace differs between examples")
    else:
        reason = first.blocked
    if reason is not None:
        if reason.startswith("it raised"):
            return _Unbatched(reason)
        fallback(fun, reason)
        return _Unbatched()
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    given = [
        (tnp.moveaxis(leaf if type(leaf) is EagerTensor else rt.constant_from(leaf), axis, 0), True)
        for leaf, axis in zip(leaves, axes)
        if axis is not None
    ]
    return _placed(replay(first, given, rt), first.out_spec, out_axes, size)


def _traced(fun: Callable[..., Any], leaves: list[Any], axes: list[Axis], spec: Any, index: int, rt: Any) -> _Program:
    """``fun`` traced on example ``index`` of the mapped leaves."""
    examples = [
        None if axis is None else freeze(np.asarray(np.take(_value_of(leaf), index, axis=axis)))
        for leaf, axis in zip(leaves, axes)
    ]
    return _Program(fun, leaves, examples, spec, rt, Trace())


def _placed(results: list[tuple[Any, bool]], out_spec: Any, out_axes: Any, size: int) -> Any:
    """The replay's outputs with their batch axes where ``out_axes`` puts them."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    axes = _leaf_axes(out_axes, unflatten(out_spec, [v for v, _ in results]), "out_axes", "the output")
    placed = []
    for index, ((value, batched), axis) in enumerate(zip(results, axes)):
        if axis is None:
            if batched:
                raise _varies(index)
            placed.append(value)
            continue
        value = tnp.asarray(value)
        if not batched:
            value = tnp.broadcast_to(value, (size, *value.shape))
        ndim = value.ndim
        if not -ndim <= axis < ndim:
            raise AxisError(f"vmap: out_axes {axis} is out of range for an output leaf with {ndim} axes (batched)")
        placed.append(value if axis % ndim == 0 else tnp.moveaxis(value, 0, axis))
    return unflatten(out_spec, placed)


def _check_axes(axes: Any, name: str) -> None:
    for leaf in optree.tree_leaves(axes, none_is_leaf=True):
        if leaf is not None and (isinstance(leaf, bool) or not isinstance(leaf, (int, np.integer))):
            raise ArgumentError(f"vmap: {name} must hold ints or None, got {leaf!r}")


def _leaf_axes(axes: Any, tree: Any, name: str, where: str) -> list[Axis]:
    """One axis per leaf of ``tree``, ``axes`` being a prefix of it (an int or None stands
    for a whole subtree)."""
    if axes is None or isinstance(axes, (int, np.integer)):
        return [None if axes is None else int(axes)] * len(flatten(tree)[0])
    given = optree.tree_flatten_one_level(axes, none_is_leaf=True)
    held = None if type(axes) is not type(tree) else optree.tree_flatten_one_level(tree)
    if held is None or tuple(given.entries) != tuple(held.entries):
        raise ArgumentError(
            f"vmap: the {name} of {where} ({axes!r}) is not a prefix of its structure "
            f"({optree.tree_structure(tree)}); give an int or None for the whole of it, or a tree of them "
            f"shaped as it is"
        )
    return [axis for a, t in zip(given.children, held.children) for axis in _leaf_axes(a, t, name, where)]


def _ndim(leaf: Any) -> int:
    return leaf.ndim if type(leaf) is EagerTensor else np.ndim(leaf)


def _argument_axes(args: tuple[Any, ...], per_arg: Any, leaves: list[Any], trees: Any) -> list[Axis]:
    """Each argument leaf's mapped axis, non-negative (None: not mapped); keyword
    arguments are mapped over axis 0, as in JAX."""
    axes: list[Axis] = []
    for n, (tree, axis) in enumerate(zip(args, per_arg)):
        axes += _leaf_axes(axis, tree, "in_axes", f"argument {n}")
    axes += [0] * (len(leaves) - len(axes))
    for index, (leaf, axis) in enumerate(zip(leaves, axes)):
        if axis is not None:
            ndim = _ndim(leaf)
            if not -ndim <= axis < ndim:
                what = where_in("vmap", "the argument leaf", trees, index)
                raise AxisError(f"vmap: {what} has {ndim} axes, so it cannot be mapped over axis {axis}")
            axes[index] = axis % ndim
    return axes


def _size(leaves: list[Any], axes: list[Axis], axis_size: int | None, trees: Any) -> int:
    """The one size of the mapped axes (and ``axis_size``)."""
    sizes = {index: np.shape(leaf)[axis] for index, (leaf, axis) in enumerate(zip(leaves, axes)) if axis is not None}
    found = set(sizes.values()) | ({int(axis_size)} if axis_size is not None else set())
    if not found:
        raise ArgumentError(
            "vmap: nothing is mapped (every in_axes is None) and axis_size is not given; map an argument or "
            "pass axis_size"
        )
    if len(found) > 1:
        listed = "; ".join(
            f"{where_in('vmap', 'the argument leaf', trees, i)} has size {s} on axis {axes[i]}"
            for i, s in sizes.items()
        )
        given = f"; axis_size is {axis_size}" if axis_size is not None else ""
        raise ShapeMismatch(f"vmap: the mapped axes differ in size ({listed}{given}); they must have one size")
    return found.pop()


def _example(leaf: Any, axis: Axis, i: int | None) -> Any:
    """Example ``i`` of a mapped leaf (an index op for a tensor, so derivatives flow), the
    leaf itself when it is not mapped; for ``i`` None (a size-0 batch), zeros of one
    example's shape and dtype."""
    if axis is None:
        return leaf
    if i is None:
        shape = np.shape(leaf)
        zeros = np.zeros(shape[:axis] + shape[axis + 1 :], leaf.dtype)
        return leaf.runtime.constant_from(zeros) if type(leaf) is EagerTensor else zeros
    return leaf[(slice(None),) * axis + (i,)]


def _stacked(results: list[Any], out_axes: Any, size: int) -> Any:
    """The examples' outputs stacked along ``out_axes`` (a size-0 batch: empty arrays of
    the shapes the one call on zeros gave)."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    flat = [flatten(r) for r in results]
    spec = flat[0][1]
    for _, other in flat[1:]:
        if other != spec:
            raise ArgumentError(
                f"vmap: the function returned outputs of different structures for different examples ({spec} "
                f"and {other}); it must return one structure"
            )
    axes = _leaf_axes(out_axes, results[0], "out_axes", "the output")
    stacked = []
    for index, axis in enumerate(axes):
        column = [leaves[index] for leaves, _ in flat]
        if axis is None:
            stacked.append(_unmapped(column, index))
            continue
        ndim = _ndim(column[0]) + 1
        if not -ndim <= axis < ndim:
            raise AxisError(f"vmap: out_axes {axis} is out of range for an output leaf with {ndim} axes (batched)")
        if size == 0:
            example = tnp.asarray(column[0])
            shape = list(example.shape)
            shape.insert(axis % ndim, 0)
            stacked.append(tnp.zeros(tuple(shape), dtype=example.dtype))
        else:
            stacked.append(tnp.stack(column, axis=axis))
    return unflatten(spec, stacked)


def _unmapped(column: list[Any], index: int) -> Any:
    """An output leaf with out_axes None: the same for every example (as JAX requires)."""
    first = _value_of(column[0])
    for other in column[1:]:
        if not np.array_equal(_value_of(other), first, equal_nan=True):
            raise _varies(index)
    return column[0]


def _value_of(leaf: Any) -> Any:
    """A leaf's value, for a comparison or an example (a decision: read also where a
    transform is differentiating it)."""
    return held(leaf) if type(leaf) is EagerTensor else np.asarray(leaf)


def _varies(index: int) -> ArgumentError:
    return ArgumentError(
        f"vmap: output leaf {index} has out_axes None, but it differs between examples; give it an "
        f"out_axes (an int) to stack it, or make it independent of the mapped arguments"
    )
