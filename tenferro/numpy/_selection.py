"""NumPy's functions that select elements by condition or index (``select``,
``piecewise``, ``choose``, ``compress``, ``extract``, ``argwhere``, ``flatnonzero``,
``partition``, ``sort_complex``, ``bincount``): the positions are constants worked out
from the conditions' and indices' values, the elements moved by ``where``, ``take`` and
``x.at[...]``, so they differentiate in the arrays selected from (``bincount`` in its
weights)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import ravel
from ._composed import numpy_name, values
from ._dispatch import call

__all__ = [
    "argpartition",
    "argwhere",
    "bincount",
    "choose",
    "compress",
    "extract",
    "flatnonzero",
    "partition",
    "piecewise",
    "select",
    "sort_complex",
]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


@numpy_name
def select(condlist: Any, choicelist: Any, default: Any = 0) -> EagerTensor:
    """The entry of the first choice whose condition holds, else `default` (the first
    true condition wins, as NumPy's select)."""
    if len(condlist) != len(choicelist):
        raise ArgumentError("condlist and choicelist must have the same length")
    if len(condlist) == 0:
        raise ArgumentError("select needs at least one condition")
    choices = [_array(choice) for choice in choicelist]
    dtype = np.result_type(*(c.dtype for c in choices), np.asarray(values(default)).dtype)
    result = _array(default)
    for condition, choice in zip(reversed(condlist), reversed(choices), strict=True):
        condition = _array(condition)
        if condition.dtype != np.bool_:
            raise ArgumentError(f"a condition has dtype {condition.dtype}; conditions must be bool")
        result = tnp.where(condition, choice, result)
    return tnp.astype(result, dtype) if result.dtype != dtype else result


@numpy_name
def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> EagerTensor:
    """funclist[i] on the elements of x where condlist[i] holds (a constant where it is
    not callable); one more function than conditions is for where none holds. Each
    function sees only its elements, as NumPy's, so a function undefined elsewhere
    (log where x > 0) gives no nan to the gradient."""
    x = _array(x)
    if isinstance(condlist, (bool, np.bool_)) or (
        np.ndim(values(condlist)) == x.ndim and x.ndim > 0 and not isinstance(condlist, list)
    ):
        condlist = [condlist]
    conditions = [np.asarray(values(c), dtype=bool) for c in condlist]
    if len(funclist) == len(conditions) + 1:
        rest = ~np.any(conditions, axis=0) if conditions else np.ones(x.shape, dtype=bool)
        conditions.append(rest)
    elif len(funclist) != len(conditions):
        raise ArgumentError(
            f"{len(conditions)} conditions for {len(funclist)} functions; pass as many, or one more for 'otherwise'"
        )
    y = tnp.zeros_like(x)
    for condition, function in zip(conditions, funclist, strict=True):
        mask = np.broadcast_to(condition, x.shape)
        if callable(function):
            if mask.any():
                y = y.at[mask].set(tnp.astype(_array(function(x[mask], *args, **kw)), y.dtype))
        else:
            y = y.at[mask].set(function)
    return y


@numpy_name
def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> EagerTensor:
    """choices[a[i]][i] (broadcast), `mode` 'raise', 'wrap' or 'clip' for an index out of range."""
    if out is not None:
        raise ArgumentError("argument 'out' is given; tenferro arrays are immutable: use the result")
    index = np.asarray(values(a))
    if index.dtype.kind not in "iu":
        raise ArgumentError(f"argument 'a' has dtype {index.dtype}; pass integer indices")
    parts = tnp.broadcast_arrays(*[_array(c) for c in choices], tnp.asarray(index))
    stacked, index = tnp.stack(parts[:-1]), values(parts[-1])
    n = stacked.shape[0]
    if mode == "wrap":
        index = index % n
    elif mode == "clip":
        index = np.clip(index, 0, n - 1)
    elif mode != "raise":
        raise ArgumentError(f"argument 'mode' is {mode!r}; pass 'raise', 'wrap' or 'clip'")
    elif index.size and (index.min() < 0 or index.max() >= n):
        raise ArgumentError(f"argument 'a' holds an index out of range for {n} choices")
    return tnp.take_along_axis(stacked, index[None].astype(np.int64), axis=0)[0]


@numpy_name
def compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> EagerTensor:
    """The slices of a along `axis` (None: of a flattened) where `condition` holds."""
    if out is not None:
        raise ArgumentError("argument 'out' is given; tenferro arrays are immutable: use the result")
    x = ravel(a) if axis is None else _array(a)
    axis = 0 if axis is None else operator.index(axis)
    where = np.flatnonzero(np.asarray(values(condition)))
    if where.size and where[-1] >= x.shape[axis]:
        raise ArgumentError(f"argument 'condition' is longer than a's axis ({x.shape[axis]}) where it is true")
    return tnp.take(x, where, axis=axis)


@numpy_name
def extract(condition: Any, arr: Any) -> EagerTensor:
    """The elements of the flattened arr where the flattened `condition` is nonzero."""
    return tnp.take(ravel(arr), np.flatnonzero(np.asarray(values(condition))))


@numpy_name
def argwhere(a: Any) -> EagerTensor:
    """The indices of the nonzero elements, one row each (an int64 constant)."""
    x = _array(a)
    if x.ndim == 0:
        return x.runtime.constant_from(np.argwhere(values(x)))
    return call("tnp.argwhere", "argwhere", x)


@numpy_name
def flatnonzero(a: Any) -> EagerTensor:
    """The indices of the nonzero elements of the flattened a (an int64 constant)."""
    return tnp.nonzero(ravel(a))[0]


def _kth(x: EagerTensor, kth: Any, axis: Any) -> int:
    kths = np.atleast_1d(np.asarray(values(kth)))
    n = x.shape[axis] if axis is not None else x.size
    if kths.dtype.kind not in "iu" or np.any(kths < -n) or np.any(kths >= n):
        raise ArgumentError(f"argument 'kth' is {kth!r}; pass indices in {-n}..{n - 1}")
    return n


@numpy_name
def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None) -> EagerTensor:
    """a sorted along `axis`: a partition at every kth (each kth element in its sorted
    place, none larger before it, none smaller after), the one NumPy does not promise
    to give but every caller may rely on. Differentiates as sort."""
    x = ravel(a) if axis is None else _array(a)
    _kth(x, kth, 0 if axis is None else axis)
    return tnp.sort(x, axis=-1 if axis is None else axis)


@numpy_name
def argpartition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None) -> EagerTensor:
    """The indices that sort a along `axis` (a partition at every kth, see partition)."""
    x = ravel(a) if axis is None else _array(a)
    _kth(x, kth, 0 if axis is None else axis)
    return tnp.argsort(x, axis=-1 if axis is None else axis)


@numpy_name
def sort_complex(a: Any) -> EagerTensor:
    """a sorted by real part, then imaginary part, as a complex array."""
    x = _array(a)
    if x.dtype.kind != "c":
        wide = (
            np.dtype(np.complex64)
            if x.dtype in (np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16)
            else np.dtype(np.complex128)
        )
        x = tnp.astype(x, wide)
    z = values(x)
    order = np.lexsort((z.imag, z.real), axis=-1)
    return tnp.take_along_axis(x, order, axis=-1)


@numpy_name
def bincount(x: Any, weights: Any = None, minlength: int = 0) -> EagerTensor:
    """The count of each value 0..max(x) in the non-negative ints x, or the sum of the
    `weights` falling on each (a scatter-add, differentiable in the weights)."""
    index = np.asarray(values(x))
    if index.ndim != 1 or (index.size and index.dtype.kind not in "iu"):
        raise ArgumentError("argument 'x' must be a 1-d array of non-negative ints")
    index = index.astype(np.int64)
    if index.size and index.min() < 0:
        raise ArgumentError("argument 'x' holds a negative value; bincount counts non-negative ints")
    length = max(int(index.max()) + 1 if index.size else 0, operator.index(minlength))
    if weights is None:
        return tnp.asarray(np.bincount(index, minlength=length))
    w = _array(weights)
    if w.shape != index.shape:
        raise ArgumentError(f"argument 'weights' has shape {list(w.shape)}; it must match x's {list(index.shape)}")
    w = w if w.dtype.kind in "fc" else tnp.astype(w, np.float64)
    return tnp.zeros((length,), dtype=w.dtype).at[index].add(w)
