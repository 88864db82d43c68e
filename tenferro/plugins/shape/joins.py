"""Joining tensors and taking them apart: ``concat`` (the array API's name;
``concatenate``, the seed's and NumPy's, is the same op) and ``stack`` take a list of
tensors (variadic ops: ``s.concat([a, b], axis=0)``); ``split`` and ``unstack``, their
inverses, return a tuple of read-only views (ops with multiple results).

Each one's VJP is the other: a join's slices the cotangent back into one piece per input
(with the family's ``slice``), a split's joins the cotangents of its pieces (zeros for a
piece that got none). All four are linear, so they differentiate to any order. Inputs of
different float or complex dtypes are promoted as NumPy promotes them (a real and a complex
tensor join into a complex one); each piece of a join's cotangent is cast back to its
input's dtype (``tenferro.extend.unbroadcast``: elementwise's astype, which keeps the real
part for a real input).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    batching,
    is_chunked,
    unbroadcast,
)

from .common import axis_index, is_int
from .views import lazy

_ALL = (None, None, None)  # a full slice in the tuple spelling of ``slice``'s index


def _shapes(arrays: Sequence[Any]) -> str:
    return ", ".join(str(list(np.shape(a))) for a in arrays)


def _concat_axis(arrays: Sequence[Any], axis: Any, op: str) -> int | None:
    """The axis to join along (None: every input flattened), or the error naming the shapes."""
    if axis is None:
        return None
    ndims = {np.ndim(a) for a in arrays}
    if 0 in ndims:
        raise ShapeMismatch(f"{op}: 0-d tensors cannot be concatenated (shapes {_shapes(arrays)}); stack them")
    if len(ndims) != 1:
        raise ShapeMismatch(f"{op}: every tensor must have the same number of dims, got shapes {_shapes(arrays)}")
    (ndim,) = ndims
    along = axis_index(axis, ndim, op)
    others = {tuple(n for i, n in enumerate(np.shape(a)) if i != along) for a in arrays}
    if len(others) != 1:
        raise ShapeMismatch(
            f"{op}: shapes {_shapes(arrays)} differ outside axis {along}; only the sizes along the "
            f"joined axis may differ"
        )
    return along


def _concatenation(name: str) -> OpSpec:
    """``concat`` and ``concatenate``: one op under the array API's and the seed's name."""

    def forward(arrays: list[Any], axis: Any = 0) -> Any:
        along = _concat_axis(arrays, axis, name)
        return np.concatenate(arrays, axis=along)

    def vjp(s: Any, g: Any, inputs: tuple[Any, ...], out: Any, axis: Any) -> list[Any]:
        along = None if axis is None else axis_index(axis, out.ndim, name)
        cotangents: list[Any] = []
        start = 0
        for x in inputs:
            size = int(np.prod(x.shape)) if along is None else x.shape[along]
            if s.needs_grad(x):
                if along is None:
                    piece = s.reshape(s.slice(g, ((start, start + size, None),)), x.shape)
                else:
                    piece = s.slice(g, (_ALL,) * along + ((start, start + size, None),))
                cotangents.append(unbroadcast(s, piece, x))
            else:
                cotangents.append(None)
            start += size
        return cotangents

    return OpSpec(
        batch=batching.concat,
        name=name,
        inputs=("arrays",),
        params={"axis": 0},
        forward=forward,
        vjp=vjp,
        variadic=True,
        linear=True,
        accepts="biufc",
        sample=lazy("concat"),
        complex_sample=lazy("mixed_join", join="concat"),
        reference=lambda arrays, axis=0: np.concatenate([np.asarray(a) for a in arrays], axis=axis),
        error_inputs=lambda: _join_errors(name, np.zeros((2, 3)), np.zeros((2, 4))),
        doc="The tensors joined along an existing `axis` (None: each flattened first), as NumPy's "
        "concatenate; a list of tensors whose shapes agree except along `axis`.",
    )


def _stack(arrays: list[Any], axis: Any = 0) -> Any:
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ShapeMismatch(f"stack: every tensor must have the same shape, got {_shapes(arrays)}")
    along = axis_index(axis, np.ndim(arrays[0]) + 1, "stack")
    return np.stack(arrays, axis=along)


def _unstack_vjp(s: Any, g: Any, inputs: tuple[Any, ...], out: Any, axis: Any) -> list[Any]:
    along = axis_index(axis, out.ndim, "stack")
    return [
        unbroadcast(s, s.slice(g, (_ALL,) * along + (i,)), x) if s.needs_grad(x) else None for i, x in enumerate(inputs)
    ]


def _join_errors(name: str, a: np.ndarray, b: np.ndarray) -> list[ErrorInput]:
    cases = [
        ErrorInput((a, b), {"axis": 0}, ShapeMismatch, "differ outside axis 0"),
        ErrorInput((a, a), {"axis": 2}, AxisError, "out of range"),
        ErrorInput((a, np.zeros(3)), {"axis": 0}, ShapeMismatch, "same number of dims"),
    ]
    if name == "stack":
        cases[:3] = [
            ErrorInput((a, b), {"axis": 0}, ShapeMismatch, "stack: every tensor must have the same shape"),
            ErrorInput((a, a), {"axis": 3}, AxisError, "out of range"),
        ]
    return cases


CONCAT = _concatenation("concat")
CONCATENATE = _concatenation("concatenate")
STACK = OpSpec(
    name="stack",
    batch=batching.stack,
    inputs=("arrays",),
    params={"axis": 0},
    forward=_stack,
    vjp=_unstack_vjp,
    variadic=True,
    linear=True,
    accepts="biufc",
    sample=lazy("stack"),
    complex_sample=lazy("mixed_join", join="stack"),
    reference=lambda arrays, axis=0: np.stack([np.asarray(a) for a in arrays], axis=axis),
    error_inputs=lambda: _join_errors("stack", np.zeros((2, 3)), np.zeros((2, 4))),
    doc="The tensors, all of one shape, joined along a new `axis`, as NumPy's stack.",
)


# -- split / unstack -----------------------------------------------------------------------------
def _split_points(size: int, sections: Any, op: str = "split") -> list[int]:
    """Where ``split`` cuts an axis of ``size``: ``sections`` equal parts (an int that
    divides it) or the cut points given (NumPy's indices_or_sections). Cut points are read
    as NumPy's slice bounds (a negative point counts from the end, and points clip to
    [0, size]) and must then be non-decreasing, so that the pieces tile the axis."""
    if is_int(sections):
        if sections <= 0 or size % sections:
            raise ShapeMismatch(
                f"{op}: an axis of size {size} does not split into {int(sections)} equal parts; "
                f"give the cut points instead (a tuple of indices)"
            )
        step = size // int(sections)
        return [step * i for i in range(1, int(sections))]
    try:
        points = [int(p) for p in sections if is_int(p)] if not isinstance(sections, (str, bytes)) else None
    except TypeError:
        points = None
    if points is None or len(points) != len(sections):
        raise ArgumentError(f"{op}: indices_or_sections must be an int or a tuple of ints, got {sections!r}")
    cuts = [min(max(p + size if p < 0 else p, 0), size) for p in points]
    if any(b < a for a, b in zip(cuts, cuts[1:])):
        raise ArgumentError(
            f"{op}: the cut points {tuple(points)} must be in increasing order along an axis of size "
            f"{size} (they read as {tuple(cuts)}); sort them"
        )
    return cuts


def _zeros_like(s: Any, like: Any) -> Any:
    return s.runtime.constant_from(np.zeros(like.shape, like.dtype))


def _split(x: Any, indices_or_sections: Any, axis: Any = 0) -> list[Any]:
    along = axis_index(axis, np.ndim(x), "split")
    cuts = _split_points(np.shape(x)[along], indices_or_sections)
    if is_chunked(x):  # dask has no split: the pieces as slices (NumPy's own split slices too)
        bounds = zip([0, *cuts], [*cuts, np.shape(x)[along]])
        return [x[(slice(None),) * along + (slice(start, stop),)] for start, stop in bounds]
    return np.split(x, cuts, axis=along)


def _unsplit_vjp(s: Any, g: tuple[Any, ...], inputs: tuple[Any, ...], out: tuple[Any, ...], **params: Any) -> Any:
    along = axis_index(params["axis"], inputs[0].ndim, "split")
    return (s.concat([gi if gi is not None else _zeros_like(s, piece) for gi, piece in zip(g, out)], along),)


def _unstack(x: Any, axis: Any = 0) -> list[Any]:
    along = axis_index(axis, np.ndim(x), "unstack")
    return [x[(slice(None),) * along + (i, Ellipsis)] for i in range(np.shape(x)[along])]


def _restack_vjp(s: Any, g: tuple[Any, ...], inputs: tuple[Any, ...], out: tuple[Any, ...], axis: Any) -> Any:
    along = axis_index(axis, inputs[0].ndim, "unstack")
    return (s.stack([gi if gi is not None else _zeros_like(s, piece) for gi, piece in zip(g, out)], along),)


SPLIT = OpSpec(
    name="split",
    inputs=("x",),
    params={"indices_or_sections": REQUIRED, "axis": 0},
    forward=_split,
    vjp=_unsplit_vjp,
    multiple_results=True,
    batch=batching.over_axes("axis", none_is_all=False),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("split"),
    reference=lambda x, indices_or_sections, axis=0: [
        np.array(p) for p in np.split(np.asarray(x), indices_or_sections, axis)
    ],
    error_inputs=lambda: [
        ErrorInput((np.zeros((2, 5)),), {"indices_or_sections": 2, "axis": 1}, ShapeMismatch, "size 5 does not split"),
        ErrorInput((np.zeros((2, 5)),), {"indices_or_sections": 2, "axis": 2}, AxisError, "out of range"),
        ErrorInput((np.zeros(4),), {"indices_or_sections": (1.5,)}, ArgumentError, "an int or a tuple of ints"),
        ErrorInput((np.zeros((2, 3)),), {"indices_or_sections": (2, 1), "axis": 1}, ArgumentError, "increasing"),
    ],
    doc="x cut along `axis` into a tuple of read-only views: `indices_or_sections` equal parts (an int "
    "that divides the axis) or at the cut points given (non-decreasing; negative ones count from the end), "
    "as NumPy's split.",
)
UNSTACK = OpSpec(
    name="unstack",
    inputs=("x",),
    params={"axis": 0},
    forward=_unstack,
    vjp=_restack_vjp,
    multiple_results=True,
    batch=batching.over_axes("axis", none_is_all=False),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("unstack"),
    reference=lambda x, axis=0: [np.array(p) for p in np.moveaxis(np.asarray(x), axis, 0)],
    error_inputs=lambda: [
        ErrorInput((np.zeros((2, 3)),), {"axis": 2}, AxisError, "out of range"),
        ErrorInput((np.zeros(()),), {"axis": 0}, AxisError, "out of range"),
    ],
    doc="The tuple of x's slices along `axis` (each a read-only view without that axis), the array "
    "API's unstack; the inverse of stack.",
)

SPECS = [CONCAT, CONCATENATE, STACK, SPLIT, UNSTACK]
