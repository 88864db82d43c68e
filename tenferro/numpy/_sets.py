"""NumPy's set functions (``unique``, ``union1d``, ``intersect1d``, ``setdiff1d``,
``setxor1d``): NumPy finds the elements on the values, and each is taken from the input
it came from, so the result differentiates in the inputs' values (the indices, inverses
and counts are constants). ``isin`` is a constant: it has no derivative."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ._aliases import ravel
from ._composed import constants, numpy_name, values

__all__ = ["intersect1d", "setdiff1d", "setxor1d", "union1d", "unique"]


def _taken(source: EagerTensor, found: np.ndarray) -> EagerTensor:
    """The elements ``found`` (values NumPy picked from the flat ``source``) as elements of
    source, so they differentiate: each taken at the first position holding its value."""
    flat = values(source)
    order = np.argsort(flat, kind="stable")
    at = np.searchsorted(flat[order], found)
    return tnp.take(source, order[np.minimum(at, max(flat.size - 1, 0))]) if flat.size else source


@numpy_name
def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,  # noqa: A002 - NumPy's name
) -> Any:
    """The sorted unique elements (rows, along `axis`) of ar, taken from ar; with the
    first indices, the inverse and the counts NumPy gives as constants."""
    x = ar if type(ar) is EagerTensor else tnp.asarray(ar)
    found = np.unique(values(x), True, return_inverse, return_counts, axis=axis, equal_nan=equal_nan)
    first = found[1]
    picked = tnp.take(ravel(x), first) if axis is None else tnp.take(x, first, axis=axis)
    extra = [found[1]] if return_index else []
    extra += list(found[2:])
    if not extra:
        return picked
    return (picked, *constants(x.runtime, tuple(extra)))


def _joined(ar1: Any, ar2: Any) -> EagerTensor:
    return tnp.concat([ravel(ar1), ravel(ar2)], axis=0)


@numpy_name
def union1d(ar1: Any, ar2: Any) -> EagerTensor:
    """The sorted unique elements of either array."""
    return unique(_joined(ar1, ar2))


@numpy_name
def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False) -> Any:
    """The sorted unique elements in both arrays (taken from ar1), with their first
    indices in each if `return_indices`."""
    a, b = ravel(ar1), ravel(ar2)
    common, first1, first2 = np.intersect1d(values(a), values(b), assume_unique, return_indices=True)
    picked = tnp.take(a, first1)
    return (picked, *constants(a.runtime, (first1, first2))) if return_indices else picked


@numpy_name
def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> EagerTensor:
    """The sorted unique elements of ar1 not in ar2."""
    a = ravel(ar1)
    return _taken(a, np.setdiff1d(values(a), values(ravel(ar2)), assume_unique))


@numpy_name
def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> EagerTensor:
    """The sorted unique elements in exactly one of the arrays."""
    joined = _joined(ar1, ar2)
    return _taken(joined, np.setxor1d(values(ravel(ar1)), values(ravel(ar2)), assume_unique))
