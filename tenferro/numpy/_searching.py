"""The array API's searching, sorting and set functions.

``where`` and ``sort`` record and differentiate (the ops ``where_select`` and ``sort``);
the others have no derivative and return integer or bool constants: ``argmax``,
``argsort``, ``nonzero`` and ``count_nonzero`` through their ops, ``searchsorted`` and the
integers of the ``unique_*`` family computed with NumPy (their shapes depend on the
values); the unique values are x's elements taken at their first indices, so they
differentiate. As the
standard asks, every NaN is a distinct value of its own in ``unique_*``, and -0.0 equals 0.0.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import numpy as np

from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, ShapeMismatch, TenferroError
from ..core.runtime import default_runtime
from ..core.tracing import note_read
from ._dispatch import SCALARS, _named, array_arg, as_array, call, integer_array, lift, renamed

__all__ = [
    "argmax",
    "argmin",
    "argsort",
    "count_nonzero",
    "nonzero",
    "searchsorted",
    "sort",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "where",
]


def _arg_extremum(name: str, op: str, doc: str) -> Any:
    function = f"tnp.{name}"

    def arg_extremum(x: Any, /, *, axis: int | None = None, keepdims: bool = False) -> EagerTensor:
        return call(function, op, x, axis, keepdims)

    return _named(arg_extremum, name, doc)


argmax = _arg_extremum("argmax", "argmax", "Index of the first largest element along `axis` (None: flattened).")
argmin = _arg_extremum("argmin", "argmin", "Index of the first smallest element along `axis` (None: flattened).")


def count_nonzero(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> EagerTensor:
    """The number of nonzero elements along `axis` (an int64 constant)."""
    return call("tnp.count_nonzero", "count_nonzero", x, axis, keepdims)


def nonzero(x: Any, /) -> tuple[EagerTensor, ...]:
    """The indices of x's nonzero elements, one int64 array per axis (x at least 1-D)."""
    return call("tnp.nonzero", "nonzero", x)


def where(condition: Any, x1: Any, x2: Any, /) -> EagerTensor:
    """x1 where `condition` is true, else x2 (broadcast; one of them may be a Python
    scalar, which takes the other's dtype). Differentiable in x1 and x2."""
    for arg in (x1, x2, condition):
        if type(arg) is EagerTensor:
            rt = arg.runtime
            break
    else:
        rt = default_runtime()
    if type(condition) is not EagerTensor:
        condition = as_array(rt, condition, "tnp.where", "condition")
    if type(x1) is not EagerTensor:
        x1 = lift(rt, x1, "tnp.where", "x1")
    if type(x2) is not EagerTensor:
        x2 = lift(rt, x2, "tnp.where", "x2")
    if type(x1) in SCALARS and type(x2) in SCALARS:
        x1 = rt.constant_from(x1)  # two Python scalars: NumPy's result, from 0-d arrays
    s = rt.current_session()
    try:
        if condition.dtype != np.bool_:
            condition = s.compare(condition, 0, "ne")
        return s.where_select(condition, x1, x2)
    except TenferroError as exc:
        raise renamed(exc, "tnp.where") from None


def _sorting(name: str, op: str, doc: str) -> Any:
    function = f"tnp.{name}"

    def sorting(x: Any, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> EagerTensor:
        if type(stable) is not bool:
            raise ArgumentError(f"{function}: argument 'stable' is {stable!r}; pass True or False")
        return call(function, op, x, axis, descending)  # always stable: `stable` asks no more

    return _named(sorting, name, doc)


sort = _sorting("sort", "sort", "x sorted along `axis` (stably; `descending` reverses the order). Differentiable.")
argsort = _sorting("argsort", "argsort", "The int64 indices that sort x along `axis`, stably (a constant).")


def searchsorted(
    x1: Any, x2: Any, /, *, side: Literal["left", "right"] = "left", sorter: Any | None = None
) -> EagerTensor:
    """Indices into the sorted 1-D x1 where the values x2 would be inserted to keep it
    sorted (`side`: before or after equal elements); an int64 constant."""
    if type(side) is not str or side not in ("left", "right"):
        raise ArgumentError(f"tnp.searchsorted: argument 'side' is {side!r}; pass 'left' or 'right'")
    if type(x1) is not EagerTensor:
        x1 = array_arg(x1, "tnp.searchsorted", "x1")
    if type(x2) is not EagerTensor:
        x2 = as_array(x1.runtime, x2, "tnp.searchsorted", "x2")  # a Python number: a 0-d array, as NumPy takes it
    note_read(x1, "tnp.searchsorted")
    note_read(x2, "tnp.searchsorted")
    a = held(x1)
    if a.ndim != 1:
        raise ShapeMismatch(f"tnp.searchsorted: x1 must be 1-D (sorted), got shape {list(a.shape)}")
    if sorter is not None:
        order = integer_array(sorter, "tnp.searchsorted", "sorter")
        if order.shape != a.shape or (order.size and not (-a.size <= order.min() and order.max() < a.size)):
            raise ArgumentError(
                f"tnp.searchsorted: argument 'sorter' must be integer indices into x1 of its shape {list(a.shape)}, "
                f"got shape {list(order.shape)}" + (f" and values {order.min()}..{order.max()}" if order.size else "")
            )
        a = a[order]
    found = np.searchsorted(a, held(x2), side=side)  # no derivative: a read, not an exit
    return x1.runtime.constant_from(np.asarray(found, dtype=np.int64))


class UniqueAllResult(NamedTuple):
    values: EagerTensor
    indices: EagerTensor
    inverse_indices: EagerTensor
    counts: EagerTensor


class UniqueCountsResult(NamedTuple):
    values: EagerTensor
    counts: EagerTensor


class UniqueInverseResult(NamedTuple):
    values: EagerTensor
    inverse_indices: EagerTensor


def _unique(x: Any, function: str) -> tuple[Any, EagerTensor, np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """(runtime, values, first indices, inverse indices, counts, x's shape), NaNs distinct.
    The values are x's elements at their first indices (``take``, which records: the
    values differentiate, each in the element it is); the rest are integers, read as such."""
    if type(x) is not EagerTensor:
        x = array_arg(x, function)
    note_read(x, function)
    a = held(x)
    _, indices, inverse, counts = np.unique(
        a.reshape(-1), return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    rt = x.runtime
    s = rt.current_session()
    values = s.take(s.reshape(x, (-1,)), rt.constant_from(indices.astype(np.int64)), 0)
    return rt, values, indices, inverse, counts, a.shape


def unique_all(x: Any, /) -> UniqueAllResult:
    """(values, indices, inverse_indices, counts): x's distinct values (sorted), the
    first index of each in x flattened, the index into values of each element of x (x's
    shape), and how often each occurs. The values differentiate (see unique_values), the
    integers are constants."""
    rt, values, indices, inverse, counts, shape = _unique(x, "tnp.unique_all")
    return UniqueAllResult(
        values,
        rt.constant_from(indices.astype(np.int64)),
        rt.constant_from(inverse.reshape(shape).astype(np.int64)),
        rt.constant_from(counts.astype(np.int64)),
    )


def unique_counts(x: Any, /) -> UniqueCountsResult:
    """(values, counts) of :func:`unique_all`."""
    rt, values, _, _, counts, _ = _unique(x, "tnp.unique_counts")
    return UniqueCountsResult(values, rt.constant_from(counts.astype(np.int64)))


def unique_inverse(x: Any, /) -> UniqueInverseResult:
    """(values, inverse_indices) of :func:`unique_all`."""
    rt, values, _, inverse, _, shape = _unique(x, "tnp.unique_inverse")
    return UniqueInverseResult(values, rt.constant_from(inverse.reshape(shape).astype(np.int64)))


def unique_values(x: Any, /) -> EagerTensor:
    """x's distinct values, sorted (each NaN counts as its own value); they differentiate,
    each in the first element of x that holds it."""
    return _unique(x, "tnp.unique_values")[1]
