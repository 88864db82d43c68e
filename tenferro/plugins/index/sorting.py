"""``sort`` and ``argsort`` along an axis, ascending or descending, always stable (equal
elements keep their order, also when descending: PyTorch's ``stable=True``).

``sort`` is ``take_along_axis(x, argsort(x))`` and is differentiated as that read: each
sorted element's cotangent goes back to the element it came from, so among equal
elements the one the stable order put at a position gets that position's cotangent
(PyTorch's convention). ``argsort``'s indices are an integer constant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import NO_ORDER, ArgumentError, AxisError, DTypeError, ErrorInput, Kink, OpSpec, is_chunked

from . import chunked, samples
from .positions import one_axis


def _descending(descending: Any, op: str) -> bool:
    """``descending`` as a bool; an ArgumentError naming the op for anything else (a
    truthy string such as 'yes' is a mistake, not True)."""
    if not isinstance(descending, (bool, np.bool_)):
        raise ArgumentError(f"{op}: descending must be True or False, got {descending!r}")
    return bool(descending)


def argsort(x: Any, axis: Any = -1, descending: bool = False) -> Any:
    return _sorted(x, axis, descending, "argsort", _lane_order, np.dtype(np.intp))


def _sort(x: Any, axis: Any = -1, descending: bool = False) -> Any:
    return _sorted(x, axis, descending, "sort", _lane_sort, np.result_type(x))


def _sorted(x: Any, axis: Any, descending: Any, op: str, kernel: Callable[..., Any], dtype: np.dtype) -> Any:
    """``kernel(x, axis, descending)`` after checking the params (errors naming ``op``); on an
    engine's chunked array, per block holding whole lanes (see :mod:`.chunked`), bitwise
    NumPy's as lanes are sorted alone."""
    axis, descending = one_axis(axis, np.ndim(x), op), _descending(descending, op)
    if is_chunked(x):
        return chunked.lanes(x, axis, lambda block: kernel(block, axis, descending), dtype)
    return kernel(x, axis, descending)


def _lane_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # the stable ascending order of x reversed, reversed again: descending, ties in order
    reversed_order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.subtract(np.shape(x)[axis] - 1, np.flip(reversed_order, axis))


def _lane_sort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    return np.take_along_axis(x, _lane_order(x, axis, descending), axis=axis)


def _sort_rule(s: Any, g: Any, out: Any, x: Any, axis: Any, descending: bool) -> Any:
    return s.scatter_add_to(g, s.argsort(x, axis, descending), x.shape, axis, "along")


def _sort_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axis: Any, descending: bool) -> Any:
    """The tangent read in the sorted order (the transpose of the VJP's scatter)."""
    t, x = tangents[0], inputs[0]
    return None if t is None else s.take_along_axis(t, s.argsort(x, axis, descending), axis)


def _reference_order(x: np.ndarray, axis: int = -1, descending: bool = False) -> np.ndarray:
    """Per lane, a Python sort of (key, position) pairs: stable by construction."""
    moved = np.moveaxis(np.asarray(x), axis, -1)
    out = np.empty(moved.shape, np.int64)
    for lane in np.ndindex(*moved.shape[:-1]):
        keys = [(-v if descending else v, i) for i, v in enumerate(moved[lane].tolist())]
        out[lane] = [i for _, i in sorted(keys)]
    return np.moveaxis(out, -1, axis)


def _errors(op: str) -> list[ErrorInput]:
    return [
        ErrorInput((np.array(1.0),), {}, AxisError, f"{op}: axis -1 is out of range for a tensor with 0 dims"),
        ErrorInput((np.ones((2, 2)),), {"axis": 1.0}, AxisError, f"{op}: axis must be an int"),
        ErrorInput((np.ones(2),), {"descending": "yes"}, ArgumentError, f"{op}: descending must be True or False"),
        ErrorInput((np.ones(2, complex),), {}, DTypeError, "complex numbers have no order"),
    ]


SPECS = [
    OpSpec(
        name="sort",
        inputs=("x",),
        params={"axis": -1, "descending": False},
        forward=_sort,
        vjps=(_sort_rule,),
        jvp=_sort_jvp,
        accepts="fiu",
        refuses=NO_ORDER,
        residuals=("x",),
        sample=lambda: samples.along_sample("distinct"),
        reference=lambda x, axis=-1, descending=False: np.take_along_axis(
            np.asarray(x), _reference_order(x, axis, descending), axis=axis
        ),
        error_inputs=lambda: [
            *_errors("sort"),
            ErrorInput((np.array([True]),), {}, DTypeError, "argument 'x' has dtype bool"),
        ],
        kinks=(
            # ties: the stable order decides which equal element takes which cotangent
            Kink((np.array([1.0, 1.0, 0.0]),), (np.array([2.0, 3.0, 1.0]),), {}, np.array([1.0, 2.0, 3.0])),
            Kink(
                (np.array([1.0, 1.0, 0.0]),),
                (np.array([1.0, 2.0, 3.0]),),
                {"descending": True},
                np.array([1.0, 2.0, 3.0]),
            ),
        ),
        doc="x sorted along `axis` (ascending, or `descending`), stably. Differentiated as the read "
        "take_along_axis(x, argsort(x)): among equal elements the stable order routes the cotangent (PyTorch's).",
    ),
    OpSpec(
        name="argsort",
        inputs=("x",),
        params={"axis": -1, "descending": False},
        forward=argsort,
        accepts="biuf",
        refuses=NO_ORDER,
        integer_results=True,
        sample=lambda: samples.along_sample("distinct"),
        reference=_reference_order,
        error_inputs=lambda: _errors("argsort"),
        doc="The int64 indices that sort x along `axis` (ascending, or `descending`), stably: equal elements "
        "keep their order. A constant (no gradient).",
    ),
]
