"""Ops whose result is a read-only view of the input (no copy, and the trace keeps no
value: each is linear, so its rule reads only shapes): reshape, permute_dims/transpose,
expand_dims, squeeze, moveaxis, flip and diagonal, with ``diagonal_scatter``, the adjoint
of diagonal.

``reshape`` is a view whenever NumPy can make one: always for a contiguous tensor (every
tensor made by ``variable_from``/``constant_from``, and every result of a copying op);
reshaping a permuted or sliced view in a way strides cannot express copies, as NumPy does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
    check_shape,
    is_chunked,
    reshaped,
)

from .common import axis_index, axis_list, inverse, permutation, target_shape


def lazy(name: str, **kwargs: Any) -> Callable[[], Any]:
    """A sample factory: ``samples.<name>(**kwargs)``, imported when samples are drawn."""

    def make() -> Any:
        from . import samples

        return getattr(samples, name)(**kwargs)

    return make


_X = np.zeros((2, 3))


# -- reshape -----------------------------------------------------------------------------------
#: reshape's checked target per (shape param, argument shape): reshape is on many VJPs, and
#: the check was 2.6 of its 3.4 µs on small arrays.
_TARGETS: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def _reshape(x: Any, shape: Any) -> Any:
    if type(x) is np.ndarray and type(shape) is tuple and all(type(d) is int for d in shape):
        key = (shape, x.shape)  # (ints only: True == 1 must not find 1's entry)
        target = _TARGETS.get(key)
        if target is None:
            target = target_shape(shape, x.shape, "reshape")
            if len(_TARGETS) < 4096:  # (bounded: a program has few shapes)
                _TARGETS[key] = target
        return x.reshape(target)
    return reshaped(x, target_shape(shape, np.shape(x), "reshape"))


RESHAPE = OpSpec(
    name="reshape",
    batch=batching.reshape,
    inputs=("x",),
    params={"shape": REQUIRED},
    forward=_reshape,
    vjps=(lambda s, g, out, x, shape: s.reshape(g, x.shape),),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("reshape"),
    reference=lambda x, shape: np.array(x).reshape(shape),
    error_inputs=lambda: [
        ErrorInput((np.zeros(6),), {"shape": (4, 2)}, ShapeMismatch, "8 elements"),
        ErrorInput((np.zeros(6),), {"shape": (4, -1)}, ShapeMismatch, "do not split into parts of 4"),
        ErrorInput((np.zeros(6),), {"shape": (-1, -1)}, ArgumentError, "one of them may be -1"),
        ErrorInput((np.zeros(6),), {"shape": (2.0, 3)}, ArgumentError, "sequence of non-negative ints"),
    ],
    doc="x with the same elements (in C order) in `shape`; one entry may be -1. A read-only view "
    "whenever strides allow (always for a contiguous x).",
)


# -- permute_dims / transpose ------------------------------------------------------------------
def _permuter(name: str, axes_default: Any) -> OpSpec:
    """``permute_dims(x, axes)`` (the array API's, axes required) and ``transpose(x,
    axes=None)`` (the seed's and NumPy's: None reverses the axes) from one definition."""

    def perm_of(axes: Any, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim - 1, -1, -1)) if axes is None else permutation(axes, ndim, name)

    def forward(x: Any, axes: Any = axes_default) -> Any:
        return np.transpose(x, perm_of(axes, np.ndim(x)))

    def rule(s: Any, g: Any, out: Any, x: Any, axes: Any) -> Any:
        return s.permute_dims(g, inverse(perm_of(axes, x.ndim)))

    def reference(x: Any, axes: Any = axes_default) -> np.ndarray:
        return np.array(np.asarray(x).transpose(axes))

    errors = [
        ErrorInput((_X,), {"axes": (0,)}, AxisError, "has 1 entries for a tensor with 2 dims"),
        ErrorInput((_X,), {"axes": (0, 2)}, AxisError, f"{name}: axis 2 is out of range for a tensor with 2 dims"),
        ErrorInput((_X,), {"axes": (1, 1)}, AxisError, "names the same axis twice"),
    ]
    reverses = " (None, the default, reverses them as NumPy does)" if axes_default is None else ""
    return OpSpec(
        name=name,
        inputs=("x",),
        params={"axes": axes_default},
        forward=forward,
        batch=batching.permute_dims,
        vjps=(rule,),
        linear=True,
        returns_view=True,
        accepts="biufc",
        sample=lazy("permutation", optional=axes_default is None),
        reference=reference,
        error_inputs=lambda: errors,
        doc=f"x with its axes permuted: result axis i is x's axis axes[i]{reverses}. A read-only view.",
    )


PERMUTE_DIMS = _permuter("permute_dims", REQUIRED)
TRANSPOSE = _permuter("transpose", None)


# -- expand_dims / squeeze ---------------------------------------------------------------------
def _inserted(axis: Any, ndim: int) -> tuple[int, ...]:
    """The positions of the new axes in the result of expand_dims (sorted)."""
    count = 1 if not isinstance(axis, (tuple, list)) else len(axis)
    try:
        return tuple(sorted(axis_list(axis, ndim + count, "expand_dims")))
    except AxisError as exc:
        raise AxisError(f"{exc} (inserting {count} axes into a tensor with {ndim} dims)") from None


def _expand_dims(x: Any, axis: Any = 0) -> Any:
    if type(axis) is tuple and len(axis) == 1 and type(axis[0]) is int:  # (squeeze's VJP gives one so)
        axis = axis[0]
    if type(axis) is int and type(x) is np.ndarray and -x.ndim - 1 <= axis <= x.ndim:
        # One axis of an ndarray (a VJP's g[..., None]): the reshape np.expand_dims makes,
        # without its axis normalisation (1.5 µs of Python).
        position = axis % (x.ndim + 1)
        return x.reshape(x.shape[:position] + (1,) + x.shape[position:])
    return np.expand_dims(x, _inserted(axis, np.ndim(x)))


def _squeezed(axis: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    if type(axis) is int and -len(shape) <= axis < len(shape) and shape[axis] == 1:
        return (axis % len(shape),)  # one axis (a reduction's keepdims undone): at once
    if axis is None:
        return tuple(i for i, n in enumerate(shape) if n == 1)
    axes = tuple(sorted(axis_list(axis, len(shape), "squeeze")))
    for a in axes:
        if shape[a] != 1:
            raise ShapeMismatch(f"squeeze: axis {a} has size {shape[a]}, not 1 (shape {list(shape)})")
    return axes


EXPAND_DIMS = OpSpec(
    name="expand_dims",
    batch=batching.expand_dims,
    inputs=("x",),
    params={"axis": 0},
    forward=_expand_dims,
    vjps=(lambda s, g, out, x, axis: s.squeeze(g, _inserted(axis, x.ndim)),),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("expand_dims"),
    reference=lambda x, axis=0: np.array(np.expand_dims(x, axis)),
    error_inputs=lambda: [
        ErrorInput((_X,), {"axis": 3}, AxisError, "axis 3 is out of range for a tensor with 3 dims"),
        ErrorInput((_X,), {"axis": (0, 0)}, AxisError, "names the same axis twice"),
        ErrorInput((_X,), {"axis": 0.5}, AxisError, "must be an int"),
    ],
    doc="x with new axes of size 1 at the positions `axis` (an int or a tuple) of the result. A read-only view.",
)

SQUEEZE = OpSpec(
    name="squeeze",
    batch=batching.squeeze,
    inputs=("x",),
    params={"axis": None},
    forward=lambda x, axis=None: np.squeeze(x, _squeezed(axis, np.shape(x))),
    vjps=(lambda s, g, out, x, axis: s.expand_dims(g, _squeezed(axis, x.shape)),),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("squeeze"),
    reference=lambda x, axis=None: np.array(np.squeeze(x, axis)),
    error_inputs=lambda: [
        ErrorInput((_X,), {"axis": 1}, ShapeMismatch, "axis 1 has size 3, not 1"),
        ErrorInput((_X,), {"axis": -3}, AxisError, "axis -3 is out of range for a tensor with 2 dims"),
    ],
    doc="x without the axes of size 1 named by `axis` (None: all of them). A read-only view.",
)


# -- moveaxis ----------------------------------------------------------------------------------
def _moves(source: Any, destination: Any, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    src = axis_list(source, ndim, "moveaxis", "source")
    dst = axis_list(destination, ndim, "moveaxis", "destination")
    if len(src) != len(dst):
        raise AxisError(f"moveaxis: source {source!r} and destination {destination!r} must name as many axes")
    return src, dst


def _moveaxis(x: Any, source: Any, destination: Any) -> Any:
    return np.moveaxis(x, *_moves(source, destination, np.ndim(x)))


def _moveaxis_rule(s: Any, g: Any, out: Any, x: Any, source: Any, destination: Any) -> Any:
    src, dst = _moves(source, destination, x.ndim)
    return s.moveaxis(g, dst, src)


MOVEAXIS = OpSpec(
    name="moveaxis",
    batch=batching.moveaxis,
    inputs=("x",),
    params={"source": REQUIRED, "destination": REQUIRED},
    forward=_moveaxis,
    vjps=(_moveaxis_rule,),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("moveaxis"),
    reference=lambda x, source, destination: np.array(np.moveaxis(x, source, destination)),
    error_inputs=lambda: [
        ErrorInput((_X,), {"source": 2, "destination": 0}, AxisError, "source 2 is out of range for a tensor with 2"),
        ErrorInput((_X,), {"source": (0, 1), "destination": 0}, AxisError, "must name as many axes"),
    ],
    doc="x with the axes `source` moved to the positions `destination` (ints or tuples), the "
    "others in order. A read-only view.",
)


# -- flip --------------------------------------------------------------------------------------
def _flip_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim)) if axis is None else axis_list(axis, ndim, "flip")


def _flip_reference(x: Any, axis: Any = None) -> np.ndarray:
    axes = range(np.ndim(x)) if axis is None else [a % np.ndim(x) for a in np.atleast_1d(axis)]
    return np.array(np.asarray(x)[tuple(slice(None, None, -1 if i in axes else 1) for i in range(np.ndim(x)))])


FLIP = OpSpec(
    name="flip",
    inputs=("x",),
    params={"axis": None},
    forward=lambda x, axis=None: np.flip(x, _flip_axes(axis, np.ndim(x))),
    vjps=(lambda s, g, out, x, axis: s.flip(g, axis),),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("flip"),
    reference=_flip_reference,
    error_inputs=lambda: [
        ErrorInput((_X,), {"axis": 2}, AxisError, "axis 2 is out of range for a tensor with 2 dims"),
    ],
    doc="x reversed along `axis` (None: every axis). A read-only view.",
)


# -- diagonal / diagonal_scatter ---------------------------------------------------------------
def _diag_axes(ndim: int, axis1: Any, axis2: Any, op: str) -> tuple[int, int]:
    if ndim < 2:
        raise AxisError(f"{op}: needs a tensor with at least 2 dims, got {ndim}")
    a1, a2 = axis_index(axis1, ndim, op, "axis1"), axis_index(axis2, ndim, op, "axis2")
    if a1 == a2:
        raise AxisError(f"{op}: axis1 and axis2 name the same axis ({a1}) of a tensor with {ndim} dims")
    return a1, a2


def _diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    a1, a2 = _diag_axes(np.ndim(x), axis1, axis2, "diagonal")
    return np.diagonal(x, offset, a1, a2)


def _diagonal_scatter(g: Any, shape: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    shape = check_shape(shape, "diagonal_scatter")
    a1, a2 = _diag_axes(len(shape), axis1, axis2, "diagonal_scatter")
    rest = tuple(n for i, n in enumerate(shape) if i not in (a1, a2))
    length = max(0, min(shape[a1] + min(offset, 0), shape[a2] - max(offset, 0)))
    if np.shape(g) != (*rest, length):
        raise ShapeMismatch(
            f"diagonal_scatter: the diagonal (offset {offset}, axes {a1}, {a2}) of shape {list(shape)} has shape "
            f"{[*rest, length]}, but the argument has shape {list(np.shape(g))}"
        )
    if is_chunked(g):
        return _chunked_diagonal_scatter(g, shape, offset, a1, a2)
    out = np.zeros_like(g, shape=shape)
    steps = np.arange(length)
    np.moveaxis(out, (a1, a2), (-2, -1))[..., steps - min(offset, 0), steps + max(offset, 0)] = g
    return out


def _chunked_diagonal_scatter(g: Any, shape: tuple[int, ...], offset: int, a1: int, a2: int) -> Any:
    """diagonal_scatter of an engine's chunked array, which takes no assignment at two index
    arrays (dask's): g padded to the rows (to the columns below the main diagonal), spread
    along the other axis and kept where a shifted identity is true; each value is g's or a
    zero, as NumPy's assignment leaves them."""
    rows, columns = shape[a1], shape[a2]
    if math.prod(shape) == 0 or g.size == 0:  # nothing to place
        return np.zeros_like(g, shape=shape)
    along_rows = offset >= 0
    size = rows if along_rows else columns
    padded = np.pad(g, [(0, 0)] * (g.ndim - 1) + [(0, size - g.shape[-1])])
    spread = np.expand_dims(padded, -1 if along_rows else -2)
    on_diagonal = np.equal(np.add(np.arange(rows, like=g)[:, None], offset), np.arange(columns, like=g))
    moved = np.where(on_diagonal, spread, np.zeros((), g.dtype))
    return np.moveaxis(moved, (-2, -1), (a1, a2))


def _undiagonal_reference(g: Any, shape: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> np.ndarray:
    out = np.zeros(shape, np.result_type(np.asarray(g), np.float64))
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    for k in range(np.shape(g)[-1]):
        i, j = (k, k + offset) if offset >= 0 else (k - offset, k)
        moved[..., i, j] = np.asarray(g)[..., k]
    return out


_DIAG_ERRORS = [
    ErrorInput((np.zeros(3),), {}, AxisError, "needs a tensor with at least 2 dims, got 1"),
    ErrorInput((_X,), {"axis1": 1, "axis2": -1}, AxisError, "name the same axis"),
    ErrorInput((_X,), {"axis2": 2}, AxisError, "axis2 2 is out of range for a tensor with 2 dims"),
]

DIAGONAL = OpSpec(
    name="diagonal",
    inputs=("x",),
    params={"offset": 0, "axis1": 0, "axis2": 1},
    forward=_diagonal,
    vjps=(lambda s, g, out, x, offset, axis1, axis2: s.diagonal_scatter(g, x.shape, offset, axis1, axis2),),
    linear=True,
    returns_view=True,
    accepts="biufc",
    sample=lazy("diagonal"),
    reference=lambda x, offset=0, axis1=0, axis2=1: np.array(np.diagonal(x, offset, axis1, axis2)),
    error_inputs=lambda: _DIAG_ERRORS,
    doc="The diagonal `offset` above the main one of the axes (axis1, axis2), as a last axis "
    "(NumPy's np.diagonal). A read-only view.",
)

DIAGONAL_SCATTER = OpSpec(
    name="diagonal_scatter",
    inputs=("g",),
    internal=True,
    params={"shape": REQUIRED, "offset": 0, "axis1": 0, "axis2": 1},
    forward=_diagonal_scatter,
    vjps=(lambda s, gg, out, g, shape, offset, axis1, axis2: s.diagonal(gg, offset, axis1, axis2),),
    linear=True,
    accepts="biufc",
    sample=lazy("undiagonal"),
    reference=_undiagonal_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {"shape": (2, 2)}, ShapeMismatch, "but the argument has shape"),
    ],
    doc="Zeros of `shape` with g on the diagonal (offset, axis1, axis2): the adjoint of diagonal (its VJP).",
)

SPECS = [RESHAPE, PERMUTE_DIMS, TRANSPOSE, EXPAND_DIMS, SQUEEZE, MOVEAXIS, FLIP, DIAGONAL, DIAGONAL_SCATTER]
