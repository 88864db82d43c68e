"""Batching rules: how an op runs once on a batch for ``tf.vmap`` (``OpSpec(batch=...)``).

A rule is ``batch(s, call, args, batched, **params)``: ``args`` are the op's arguments,
those whose ``batched`` flag is set holding the batch as a new leading axis (the others as
the op takes them), ``call(*args, **params)`` runs the op itself on the session ``s``, and
the rule returns the batched result (batch axis leading), or None when it does not apply
to these arguments (``tf.vmap`` then calls the op once per example). The factories here
cover the common kinds; :func:`elementwise` is derived for every ``elementwise`` op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tenferro.core.errors import ShapeMismatch

Rule = Callable[..., Any]


def _per_example_ndim(x: Any) -> int:
    return x.ndim - 1


def aligned(s: Any, x: Any, rank: int) -> Any:
    """A batched ``x`` with size-1 axes after the batch axis up to ``rank`` axes per example,
    so that it broadcasts with unbatched arguments of that rank as one example would."""
    missing = rank - _per_example_ndim(x)
    if missing <= 0:
        return x
    return s.reshape(x, (x.shape[0], *(1,) * missing, *x.shape[1:]))


def elementwise(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
    """The rule of an op whose arguments broadcast: each batched argument aligned to the
    largest rank of one example's arguments, then the op once."""
    ndims = [(_per_example_ndim(x) if flag else getattr(x, "ndim", 0)) for x, flag in zip(args, batched)]
    rank = max(ndims, default=0)
    given = [aligned(s, x, rank) if flag else x for x, flag in zip(args, batched)]
    try:
        return call(*given, **params)
    except ShapeMismatch:  # an op that does not broadcast (add_any): every tensor given the batch's shape
        shape = np.broadcast_shapes(*(np.shape(x) for x in given if hasattr(x, "shape")))
        return call(*(s.broadcast_to(x, shape) if hasattr(x, "shape") and x.shape != shape else x for x in given))


def per_example(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], multiple_results: bool = False
) -> Any:
    """The op once per example, the results stacked: what ``tf.vmap`` does for an op
    without a rule, and the rule of one whose derivative rules are written for one example
    (a custom function's call, whose rules are the user's)."""
    size = next(x.shape[0] for x, flag in zip(args, batched) if flag)
    examples = [call(*(x[i] if flag else x for x, flag in zip(args, batched))) for i in range(size)]
    if multiple_results:
        return tuple(s.stack(list(column), axis=0) for column in zip(*examples))
    return s.stack(examples, axis=0)


def _shifted(axis: Any, ndim: int) -> int | None:
    """A non-negative axis of one example, as an axis of the batch (None: out of range)."""
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        return None
    return axis % ndim + 1


def _shifted_all(axes: Any, ndim: int) -> tuple[int, ...] | None:
    given = (axes,) if isinstance(axes, int) else axes
    if not isinstance(given, (tuple, list)):
        return None
    shifted = tuple(_shifted(a, ndim) for a in given)
    return None if None in shifted else shifted


def over_axes(param: str = "axes", none_is_all: bool = True) -> Rule:
    """The rule of an op of one batched input whose param ``param`` names axes of it (an
    int or a tuple; None all of them, unless ``none_is_all`` is false): the axes moved past
    the batch axis."""

    def rule(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
        if not batched[0] or any(batched[1:]):
            return None
        ndim, axes = _per_example_ndim(args[0]), params[param]
        if axes is None:
            if not none_is_all:
                return None
            shifted: Any = tuple(range(1, ndim + 1))
        elif isinstance(axes, int) and not isinstance(axes, bool):
            shifted = _shifted(axes, ndim)
        else:
            shifted = _shifted_all(axes, ndim)
        if shifted is None:
            return None
        return call(*args, **{**params, param: shifted})

    return rule


def reshape(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any) -> Any:
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    return call(args[0], shape=(args[0].shape[0], *dims))


def expand_dims(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    given = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = _per_example_ndim(args[0]) + len(given)  # the result's axes, per example
    shifted = tuple(a + 1 if 0 <= a < ndim else a if -ndim <= a < 0 else None for a in given)
    if None in shifted:
        return None
    return call(args[0], axis=shifted if not isinstance(axis, int) else shifted[0])


def squeeze(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    x = args[0]
    if axis is None:
        shifted: Any = tuple(i + 1 for i, n in enumerate(x.shape[1:]) if n == 1)
    else:
        shifted = _shifted_all(axis, _per_example_ndim(x))
    return None if shifted is None else call(x, axis=shifted)


def permute_dims(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axes: Any) -> Any:
    ndim = _per_example_ndim(args[0])
    shifted = tuple(range(ndim, 0, -1)) if axes is None else _shifted_all(axes, ndim)  # None reverses them
    return None if shifted is None else call(args[0], axes=(0, *shifted))


def broadcast_to(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any) -> Any:
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    x = aligned(s, args[0], len(dims))
    return call(x, shape=(x.shape[0], *dims))


def sum_to(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any) -> Any:
    x, dims = args[0], tuple(shape)
    lead = _per_example_ndim(x) - len(dims)
    if lead < 0:
        return None
    summed = call(x, shape=(x.shape[0], *(1,) * lead, *dims))
    return s.reshape(summed, (x.shape[0], *dims)) if lead else summed


def expand_to(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any, axes: Any, keepdims: Any
) -> Any:
    ndim = len(shape)
    shifted = tuple(range(1, ndim + 1)) if axes is None else _shifted_all(axes, ndim)
    if shifted is None:
        return None
    return call(args[0], shape=(args[0].shape[0], *shape), axes=shifted, keepdims=keepdims)


def matmul(
    s: Any,
    call: Callable[..., Any],
    args: Sequence[Any],
    batched: Sequence[bool],
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> Any:
    """matmul of a batch: a 1-D operand promoted as matmul promotes it (a row, b a column)
    and its axis squeezed after, the matrices' batch dims aligned as one example's."""
    (a, b), (batched_a, batched_b) = args, batched
    ndim_a = _per_example_ndim(a) if batched_a else a.ndim
    ndim_b = _per_example_ndim(b) if batched_b else b.ndim
    squeeze = []
    if ndim_a == 1:
        a = s.expand_dims(a, -2)
        ndim_a, squeeze = 2, [*squeeze, -2]
    if ndim_b == 1:
        b = s.expand_dims(b, -1)
        ndim_b, squeeze = 2, [*squeeze, -1]
    rank = max(ndim_a, ndim_b) - 2  # batch dims of one example
    a = aligned(s, a, rank + 2) if batched_a else a
    b = aligned(s, b, rank + 2) if batched_b else b
    out = call(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return s.squeeze(out, tuple(squeeze)) if squeeze else out


def einsum(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], subscripts: Any) -> Any:
    """einsum of a batch: a label of its own for the batch axis, leading in each batched
    operand's subscripts and in the output's (explicit subscripts only)."""
    if not isinstance(subscripts, str) or "->" not in subscripts:
        return None
    inputs, output = subscripts.replace(" ", "").split("->")
    operands = inputs.split(",")
    label = next((c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subscripts), None)
    if label is None or len(operands) != len(args):
        return None
    given = ",".join(label + o if flag else o for o, flag in zip(operands, batched))
    return call(*args, subscripts=f"{given}->{label}{output}")


def tensordot(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axes: Any) -> Any:
    """tensordot of a batch with one batched operand: its contracted axes moved past the
    batch axis, which is a free axis of the result (moved to the front for b)."""
    a, b = args
    if batched[0] == batched[1]:
        return None
    ndim_a = _per_example_ndim(a) if batched[0] else a.ndim
    ndim_b = _per_example_ndim(b) if batched[1] else b.ndim
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(ndim_a, ndim_b):
            return None
        pair: Any = (tuple(range(ndim_a - axes, ndim_a)), tuple(range(axes)))
    else:
        pair = axes
    try:
        a_axes, b_axes = ((x,) if isinstance(x, int) else tuple(x) for x in pair)
    except (TypeError, ValueError):
        return None
    if batched[0]:
        shifted = _shifted_all(a_axes, ndim_a)
        return None if shifted is None else call(a, b, axes=(shifted, tuple(x % ndim_b for x in b_axes)))
    shifted = _shifted_all(b_axes, ndim_b)
    if shifted is None:
        return None
    out = call(a, b, axes=(tuple(x % ndim_a for x in a_axes), shifted))
    return s.moveaxis(out, ndim_a - len(a_axes), 0)


def moveaxis(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], source: Any, destination: Any
) -> Any:
    ndim = _per_example_ndim(args[0])
    moved = _shifted_all(source, ndim), _shifted_all(destination, ndim)
    if None in moved:
        return None
    single = isinstance(source, int)
    return call(args[0], source=moved[0][0] if single else moved[0], destination=moved[1][0] if single else moved[1])


def _joined_items(args: Sequence[Any], batched: Sequence[bool], s: Any) -> list[Any]:
    """The items of a stack or concat of a batch, an unbatched one broadcast to the batch."""
    size = next(x.shape[0] for x, flag in zip(args, batched) if flag)
    return [x if flag else s.broadcast_to(x, (size, *x.shape)) for x, flag in zip(args, batched)]


def stack(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    """stack of a batch: the items given the batch axis, the new axis moved past it."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        return None
    items = _joined_items(args, batched, s)
    ndim = _per_example_ndim(items[0]) + 1  # the result's axes, per example
    if not -ndim <= axis < ndim:
        return None
    return call(*items, axis=axis % ndim + 1)


def concat(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    """concat of a batch: the items given the batch axis, the axis moved past it."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        return None
    items = _joined_items(args, batched, s)
    shifted = _shifted(axis, _per_example_ndim(items[0]))
    return None if shifted is None else call(*items, axis=shifted)


def leading(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
    """The rule of an op that maps over leading batch axes of its inputs by itself (the
    linalg family's, on stacks of matrices): an unbatched input given the batch axis too."""
    size = next(x.shape[0] for x, flag in zip(args, batched) if flag)
    given = [
        x if flag or not hasattr(x, "shape") else s.broadcast_to(x, (size, *x.shape)) for x, flag in zip(args, batched)
    ]
    return call(*given, **params)


def matrices(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
    """The rule of an op on stacks of matrices whose batch axes broadcast together
    (solve_sylvester's a, b and q): as :func:`leading`, each example's batch axes aligned
    to the most any argument has (as matmul's), so that one example broadcasts as alone."""
    size = next(x.shape[0] for x, flag in zip(args, batched) if flag)
    given = [x if flag else s.broadcast_to(x, (size, *x.shape)) for x, flag in zip(args, batched)]
    rank = max(_per_example_ndim(x) for x in given)
    return call(*(aligned(s, x, rank) for x in given), **params)


def solve(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], **params: Any) -> Any:
    """The rule of a solve ``(a, b)`` over leading batch axes: as :func:`leading`, with a
    vector ``b`` (1-D per example) solved as a column, which a batch of vectors would not be;
    one matrix beside a batch of right-hand sides solves them as the columns of one."""
    a, b = args
    vector = (_per_example_ndim(b) if batched[1] else b.ndim) == 1
    if not batched[0] and a.ndim == 2 and batched[1] and _per_example_ndim(b) <= 2:
        return _shared_matrix(s, call, a, b, vector, params)
    size = (a if batched[0] else b).shape[0]
    a = a if batched[0] else s.broadcast_to(a, (size, *a.shape))
    b = b if batched[1] else s.broadcast_to(b, (size, *b.shape))
    if vector:
        b = s.expand_dims(b, -1)
    rank = max(_per_example_ndim(a), _per_example_ndim(b))  # one example's batch dims aligned, as matmul's
    out = call(aligned(s, a, rank), aligned(s, b, rank), **params)
    return s.squeeze(out, -1) if vector else out


def _shared_matrix(s: Any, call: Callable[..., Any], a: Any, b: Any, vector: bool, params: dict[str, Any]) -> Any:
    """A solve of one matrix ``a`` for a batch of right-hand sides: the batch as columns of
    one, so that ``a`` is factorised once (a Jacobian's basis, per-example solves against
    one covariance), not once per example. (The solution has a's columns as its rows: a
    least-squares ``a`` need not be square.)"""
    rows, size = b.shape[1], b.shape[0]
    if vector:  # (size, rows): each example a column
        return s.moveaxis(call(a, s.moveaxis(b, 0, -1), **params), -1, 0)
    k = b.shape[-1]
    columns = call(a, s.reshape(s.moveaxis(b, 0, -2), (rows, size * k)), **params)
    return s.moveaxis(s.reshape(columns, (a.shape[-1], size, k)), -2, 0)


def _behind_the_batch(index: Any) -> tuple[Any, ...]:
    """A basic index (an item or a tuple of them) with the batch axis taken whole first."""
    return (slice(None), *(index if isinstance(index, tuple) else (index,)))


def basic_slice(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], index: Any) -> Any:
    """slice (``x[index]``, basic indexing) of a batch: the batch axis kept whole."""
    return call(args[0], index=_behind_the_batch(index))


def slice_scatter(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any, index: Any
) -> Any:
    """slice_scatter (slice's adjoint) of a batch: into the batch's shape, the batch axis whole."""
    return call(args[0], shape=(args[0].shape[0], *shape), index=_behind_the_batch(index))
