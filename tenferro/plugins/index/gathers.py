"""Reading by index: ``take``, ``take_along_axis``, ``gather``, ``boolean_mask``,
``dynamic_slice``, and their adjoints ``scatter_add_to`` and ``dynamic_pad``; ``argwhere`` and ``nonzero``.

Every reading op is linear in ``x``, and its VJP writes the cotangent back where the
values were read, adding where a position was read more than once: ``scatter_add_to``
(zeros of x's shape with the cotangent scatter-added at the indices, in the reading op's
index layout) or ``dynamic_pad`` (zeros with the cotangent placed at the window). Their
VJPs read again, so every derivative of any order stays in this family.

All of them take complex values (the indices stay integers): reading and its adjoint move
values without arithmetic, so the same rules hold in the real inner product of complex
cotangents. ``argwhere`` and ``nonzero`` read a complex element as true where it is not 0j.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    DTypeError,
    EngineError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    broadcast,
    check_shape,
    checked,
    copied,
    is_chunked,
    reshaped,
    whole,
)

from . import batch_rules, chunked, samples
from .positions import IndexOutOfRange, check_layout, index_tuple, normalize, picked_shape


# -- kernels -------------------------------------------------------------------------------
def pick(x: Any, indices: Any, axis: Any, layout: str, op: str) -> Any:
    """The elements of ``x`` that ``indices`` points at in ``layout``, as a new array."""
    shape = tuple(np.shape(x))
    axis = normalize(shape, tuple(np.shape(indices)), axis, layout, op)
    chunks = is_chunked(x, indices)
    if chunks and layout == "along":
        return chunked.read_along(x, indices, axis, op)
    where = index_tuple(shape, indices, axis, layout, op)
    if chunks:
        return chunked.read_flat(reshaped(x, (math.prod(shape),)) if layout == "take" and axis is None else x, where)
    source = np.reshape(x, (-1,)) if layout == "take" and axis is None else x
    out = source[where]
    # 0-d positions are basic indexing in NumPy, which gives a view (or a scalar): copy it
    return np.copy(out) if all(np.ndim(w) == 0 for w in where if not isinstance(w, slice)) else out


def scatter_add_to(updates: Any, indices: Any, shape: Any, axis: Any = 0, layout: str = "nd") -> Any:
    """Zeros of ``shape`` with ``updates`` added where ``indices`` points in ``layout``
    (repeated positions accumulate): the adjoint of reading with those indices."""
    op = "scatter_add_to"
    shape = check_shape(shape, op)
    layout = check_layout(layout, op)
    axis = normalize(shape, tuple(np.shape(indices)), axis, layout, op)
    target = picked_shape(shape, tuple(np.shape(indices)), axis, layout)
    check_fits(np.shape(updates), target, op)
    updates = broadcast_updates(updates, target)
    if is_chunked(updates, indices):
        return _engine_scatter_add(updates, indices, shape, axis, layout, op)
    where = index_tuple(shape, indices, axis, layout, op)
    summed = summed_at(shape, where, updates)
    if summed is not None:
        return summed
    out = np.zeros_like(updates, shape=shape)
    if layout == "take" and axis is None and len(shape) != 1:  # positions into x flattened
        if type(out) is np.ndarray:  # add through a flat view: the result is out itself, not a view
            np.add.at(np.reshape(out, (-1,)), where, updates)
            return out
        flat = np.zeros_like(updates, shape=(int(np.prod(shape, dtype=np.int64)),))
        np.add.at(flat, where, updates)
        return np.reshape(flat, shape)
    np.add.at(out, where, updates)
    return out


def _engine_scatter_add(updates: Any, indices: Any, shape: tuple[int, ...], axis: Any, layout: str, op: str) -> Any:
    """scatter_add_to on an engine's chunked arrays (see :mod:`.chunked`): per lane for
    ``"along"``, else by bincount at flat positions (floats and complex values only)."""
    if layout == "along":
        return chunked.scatter_along(updates, indices, shape, axis, op)
    if np.result_type(updates).kind not in "fc":
        raise EngineError(
            f"{op}: integer updates have no path on an engine's chunked arrays (their sum by bincount is in "
            f"float64, which would round integers past 2**53); cast the updates to float, or scatter on CpuEngine"
        )
    where = index_tuple(shape, indices, axis, layout, op)
    if layout == "take" and axis is None and len(shape) != 1:  # positions into x flattened
        return reshaped(chunked.scatter_flat((math.prod(shape),), where, updates), shape)
    return chunked.scatter_flat(shape, where, updates)


def broadcast_updates(updates: Any, target: tuple[int, ...]) -> Any:
    """``updates`` as ``ufunc.at`` may take them: broadcast to the ``target`` positions by
    NumPy's own broadcast_to where they have dims but not that shape. NumPy 2.4's ufunc.at
    broadcasts values along a trailing axis wrongly and reads past their buffer
    (``np.add.at(zeros(4), (arange(4).reshape(2, 2),), [1., 2.])`` gives 1, 2 and garbage)."""
    if np.ndim(updates) == 0 or tuple(np.shape(updates)) == tuple(target):
        return updates
    return broadcast(updates, target)


def summed_at(shape: tuple[int, ...], where: tuple[Any, ...], updates: Any) -> Any:
    """Zeros of ``shape`` with ``updates`` added at ``where`` (an index tuple), in order, by
    ``np.bincount`` where that is bitwise ``np.add.at`` on zeros and faster (0.74–0.82× its
    time alone at 10⁶ random positions): a 1-D float64 NumPy result and one integer array of
    non-negative positions (bincount adds each weight in turn to a 0.0, as add.at does).
    None in every other case (float32 and integers: bincount sums in float64), where the
    caller uses ``np.add.at``."""
    if len(shape) != 1 or len(where) != 1:
        return None
    positions = where[0]
    if (
        type(positions) is not np.ndarray
        or type(updates) is not np.ndarray
        or updates.dtype != np.float64
        or positions.dtype.kind not in "iu"
        or positions.size == 0  # bincount's result would be an integer array
    ):
        return None
    weights = np.ravel(np.broadcast_to(updates, positions.shape))
    return np.bincount(np.ravel(positions), weights=weights, minlength=shape[0])


def check_fits(updates_shape: tuple[int, ...], target: tuple[int, ...], op: str) -> None:
    """ShapeMismatch unless updates of ``updates_shape`` broadcast to the ``target`` positions."""
    try:
        fits = np.broadcast_shapes(tuple(updates_shape), target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ShapeMismatch(
            f"{op}: updates of shape {list(updates_shape)} do not broadcast to the {list(target)} positions the "
            f"indices point at"
        )


def _boolean_mask(x: Any, mask: Any) -> Any:
    k = np.ndim(mask)
    if k == 0 or tuple(np.shape(x))[:k] != tuple(np.shape(mask)):
        raise ShapeMismatch(
            f"boolean_mask: the mask of shape {list(np.shape(mask))} must have at least one axis and equal the "
            f"leading axes of x, of shape {list(np.shape(x))}"
        )
    return x[mask]


def window(shape: tuple[int, ...], start: Any, sizes: tuple[int, ...], op: str) -> tuple[slice, ...]:
    """The slices of the window of ``sizes`` at ``start`` (negative starts count from the
    end); IndexOutOfRange where it does not fit."""
    if tuple(np.shape(start)) != (len(shape),) or len(sizes) != len(shape):
        raise ShapeMismatch(
            f"{op}: start of shape {list(np.shape(start))} and sizes {list(sizes)} need one entry per axis of the "
            f"{len(shape)}-dim array of shape {list(shape)}"
        )
    slices = []
    for axis, (n, size) in enumerate(zip(shape, sizes)):
        given = int(start[axis])
        begin = given + n if given < 0 else given
        if size > n or not 0 <= begin <= n - size:
            raise IndexOutOfRange(
                f"{op}: argument 'start' holds the index {given} for axis {axis} of length {n}, where a window "
                f"of size {size} must start in 0..{n - size} (or {-n}..{-size} from the end)"
            )
        slices.append(slice(begin, begin + size))
    return tuple(slices)


def _sizes(sizes: Any, op: str) -> tuple[int, ...]:
    """``sizes`` as a shape (check_shape's rules), a bad entry named as the param ``sizes``
    (check_shape would call it ``shape``)."""
    entries = [sizes] if isinstance(sizes, (int, np.integer)) else sizes
    if isinstance(entries, (str, bytes)) or not isinstance(entries, (Sequence, np.ndarray)):
        entries = None
    if entries is None or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in entries):
        raise ArgumentError(
            f"{op}: sizes must be a sequence of non-negative ints (the window's size along each axis), got {sizes!r}"
        )
    return check_shape(sizes, op)


def _dynamic_slice(x: Any, start: Any, sizes: Any) -> Any:
    sizes = _sizes(sizes, "dynamic_slice")
    if is_chunked(x, start):
        positions = _window_positions(tuple(np.shape(x)), start, sizes, "dynamic_slice")
        return chunked.read_flat(x, positions) if positions else copied(x)  # (0-d: x itself)
    return np.copy(x[window(tuple(np.shape(x)), start, sizes, "dynamic_slice")])


def _window_positions(shape: tuple[int, ...], start: Any, sizes: tuple[int, ...], op: str) -> tuple[Any, ...]:
    """The window's positions along each axis (an index tuple of arrays that broadcast to
    ``sizes``) for a ``start`` held on an engine: checked by :func:`window` where it is
    computed (its values are not read here), negative starts counted from the end."""
    if tuple(np.shape(start)) != (len(shape),) or len(sizes) != len(shape):
        window(shape, np.zeros(np.shape(start), np.int64), sizes, op)  # the ShapeMismatch
    start = checked(whole(start, 0), lambda values: window(shape, values, sizes, op))
    begins = np.where(np.less(start, 0), np.add(start, np.asarray(shape, np.int64)), start)
    ndim = len(shape)
    along = [(1,) * axis + (size,) + (1,) * (ndim - axis - 1) for axis, size in enumerate(sizes)]
    return tuple(
        np.reshape(np.add(begins[axis], np.arange(size, like=start)), along[axis]) for axis, size in enumerate(sizes)
    )


def _dynamic_pad(update: Any, start: Any, shape: Any) -> Any:
    shape = check_shape(shape, "dynamic_pad")
    if is_chunked(update, start):
        if np.result_type(update).kind not in "fc":
            raise EngineError(
                "dynamic_pad: integer values have no path on an engine's chunked arrays (placed by bincount, in "
                "float64); cast them to float, or pad on CpuEngine"
            )
        positions = _window_positions(shape, start, tuple(np.shape(update)), "dynamic_pad")
        return chunked.scatter_flat(shape, positions, update) if positions else copied(update)
    out = np.zeros_like(update, shape=shape)
    out[window(shape, start, tuple(np.shape(update)), "dynamic_pad")] = update
    return out


# -- rules ----------------------------------------------------------------------------------
def _scatter_back(layout: str) -> Any:
    def rule(s: Any, g: Any, out: Any, x: Any, indices: Any, axis: Any) -> Any:
        return s.scatter_add_to(g, indices, x.shape, axis, layout)

    return rule


READERS = {"take": "take", "along": "take_along_axis", "nd": "gather"}


def _read_back(s: Any, g: Any, out: Any, updates: Any, indices: Any, shape: Any, axis: Any, layout: str) -> Any:
    return getattr(s, READERS[layout])(g, indices, axis)


# -- references (independent of the kernels: plain loops) ------------------------------------
def _scatter_add_reference(
    updates: np.ndarray, indices: np.ndarray, shape: Any, axis: Any = 0, layout: str = "nd"
) -> np.ndarray:
    shape = tuple(shape)
    if layout == "take" and axis is None:
        flat = np.zeros(int(np.prod(shape, dtype=np.int64)), np.asarray(updates).dtype)
        for i, value in zip(np.asarray(indices).reshape(-1), np.asarray(updates).reshape(-1)):
            flat[i] += value
        return flat.reshape(shape)
    out = np.zeros(shape, np.asarray(updates).dtype)
    axis %= len(shape)
    if layout == "take":
        for pos in np.ndindex(*np.shape(updates)):
            i = pos[axis : axis + np.ndim(indices)]
            out[pos[:axis] + (int(indices[i]),) + pos[axis + np.ndim(indices) :]] += updates[pos]
    elif layout == "along":
        for pos in np.ndindex(*np.shape(updates)):
            out[pos[:axis] + (int(indices[pos]),) + pos[axis + 1 :]] += updates[pos]
    else:
        batch = np.ndim(indices) - 1
        for pos in np.ndindex(*np.shape(updates)):
            coords = tuple(int(c) for c in indices[pos[axis : axis + batch]])
            out[pos[:axis] + coords + pos[axis + batch :]] += updates[pos]
    return out


def _nonzero(x: Any) -> tuple[Any, ...]:
    if np.ndim(x) == 0:
        raise ShapeMismatch("nonzero of a 0-d tensor is not defined (as in NumPy 2); use argwhere, or reshape to 1-d")
    return np.nonzero(x)


def _argwhere_reference(x: np.ndarray) -> np.ndarray:
    coords = [c for c in np.ndindex(*np.shape(x)) if np.asarray(x)[c] != 0]
    return np.array(coords, dtype=np.int64).reshape(len(coords), np.ndim(x))


def _window_reference(x: np.ndarray, start: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    begins = [int(b) % n if n else 0 for b, n in zip(start, np.shape(x))]
    return np.array(x)[tuple(slice(b, b + m) for b, m in zip(begins, sizes))]


def _pad_reference(update: np.ndarray, start: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, np.result_type(np.asarray(update), np.float64))
    begins = [int(b) % n if n else 0 for b, n in zip(start, shape)]
    out[tuple(slice(b, b + m) for b, m in zip(begins, np.shape(update)))] = update
    return out


# -- specs ----------------------------------------------------------------------------------
_X = np.arange(6.0).reshape(2, 3)
_I = np.array([0, 2])


def _reader(
    name: str, layout: str, default_axis: Any, sample: Any, reference: Any, doc: str, errors: list, batch: Any = None
) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("x", "indices"),
        params={"axis": default_axis},
        forward=lambda x, indices, axis=default_axis: pick(x, indices, axis, layout, name),
        vjps=(_scatter_back(layout), None),
        linear=True,
        batch=batch,
        accepts=("biufc", "iu"),
        sample=sample,
        reference=reference,
        error_inputs=lambda: [
            ErrorInput((_X, np.array([0.0])), {}, DTypeError, "argument 'indices' has dtype f64"),
            *errors,
        ],
        doc=doc,
    )


def _along_reference(x: np.ndarray, indices: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.take_along_axis(x, indices, axis=axis)


def _gather_reference(x: np.ndarray, indices: np.ndarray, axis: int = 0) -> np.ndarray:
    axis %= x.ndim
    out = np.empty(picked_shape(x.shape, indices.shape, axis, "nd"), x.dtype)
    lead = x.shape[:axis]
    for i in np.ndindex(*lead):
        for b in np.ndindex(*indices.shape[:-1]):
            out[i + b] = x[i + tuple(int(c) for c in indices[b])]
    return out


SPECS = [
    _reader(
        "take",
        "take",
        None,
        samples.take_sample,
        lambda x, indices, axis=None: np.take(x, indices, axis=axis),
        "Elements of x at `indices` along `axis` (None: of x flattened), as NumPy's take: the result has "
        "shape x.shape[:axis] + indices.shape + x.shape[axis+1:]. Negative indices count from the end; "
        "out of range is an error. VJP: scatter-add (repeated indices accumulate).",
        [
            ErrorInput((_X, np.array([6])), {}, IndexOutOfRange, "holds the index 6, out of range for x flattened"),
            ErrorInput((_X, np.array([[1, -4]])), {"axis": 1}, IndexOutOfRange, "index -4, out of range for axis 1"),
            ErrorInput((_X, _I), {"axis": 2}, AxisError, "out of range"),
        ],
        batch_rules.take,
    ),
    _reader(
        "take_along_axis",
        "along",
        -1,
        samples.along_sample,
        _along_reference,
        "x at `indices` along `axis`, elementwise (NumPy's take_along_axis, PyTorch's gather): indices has "
        "x's rank and its sizes except along `axis`; the result has indices' shape. VJP: scatter-add.",
        [
            ErrorInput((_X, np.array([[0], [3]])), {}, IndexOutOfRange, "index 3, out of range for axis 1 of length 3"),
            ErrorInput((_X, np.array([[0, 1, 2]])), {"axis": 1}, ShapeMismatch, "need x's rank and its sizes"),
        ],
        batch_rules.take_along_axis,
    ),
    _reader(
        "gather",
        "nd",
        0,
        samples.gather_sample,
        _gather_reference,
        "NumPy's integer-array indexing x[:, ..., i0, i1, ...] (`axis` full slices first): the last axis of "
        "`indices` holds the k coordinates (i0, i1, ...) of each picked element along axes axis..axis+k-1; "
        "the result has shape x.shape[:axis] + indices.shape[:-1] + x.shape[axis+k:]. VJP: scatter-add.",
        [
            ErrorInput((_X, np.array([[1, 3]])), {}, IndexOutOfRange, "index 3, out of range for axis 1 of length 3"),
            ErrorInput((_X, np.array([[0, 0, 0]])), {}, ShapeMismatch, "must be 1..2"),
            ErrorInput((_X, np.array(0)), {}, ShapeMismatch, "hold coordinates in their last axis"),
        ],
        batch_rules.gather,
    ),
    OpSpec(
        name="scatter_add_to",
        internal=True,
        inputs=("updates", "indices"),
        params={"shape": REQUIRED, "axis": 0, "layout": "nd"},
        forward=scatter_add_to,
        vjps=(_read_back, None),
        linear=True,
        batch=batch_rules.scatter_add_to,
        accepts=("fiuc", "iu"),
        sample=samples.scatter_add_to_sample,
        reference=_scatter_add_reference,
        error_inputs=lambda: [
            ErrorInput((np.ones(2), _I), {"shape": (2,), "layout": "take"}, IndexOutOfRange, "holds the index 2"),
            ErrorInput((np.ones(3), _I), {"shape": (3,), "layout": "take"}, ShapeMismatch, "do not broadcast"),
            ErrorInput((np.ones(2), _I), {"shape": (3,), "layout": "rows"}, ArgumentError, "layout must be one of"),
        ],
        doc="Zeros of `shape` with `updates` added where `indices` points (layout 'take', 'along' or 'nd', as "
        "take, take_along_axis and gather read); repeated indices accumulate. The VJP of those reads.",
    ),
    OpSpec(
        name="boolean_mask",
        inputs=("x", "mask"),
        forward=_boolean_mask,
        vjps=(lambda s, g, out, x, mask: s.scatter_add_to(g, s.argwhere(mask), x.shape, 0, "nd"), None),
        linear=True,
        accepts=("biufc", "b"),
        sample=samples.boolean_mask_sample,
        reference=lambda x, mask: np.asarray(x)[np.asarray(mask)],
        error_inputs=lambda: [
            ErrorInput((_X, np.array([True, False, True])), {}, ShapeMismatch, "equal the leading axes"),
            ErrorInput((_X, np.array([1, 0])), {}, DTypeError, "argument 'mask' has dtype i64"),
        ],
        doc="x[mask] as NumPy: the mask (bool, no gradient) covers x's leading axes; the result has shape "
        "(count,) + x.shape[mask.ndim:], the selected elements in C order. VJP: scatter-add at argwhere(mask).",
    ),
    OpSpec(
        name="argwhere",
        inputs=("x",),
        forward=np.argwhere,
        accepts="biufc",
        integer_results=True,
        sample=samples.argwhere_sample,
        complex_sample=lambda: samples.argwhere_sample(complex_=True),
        error_inputs=lambda: [ErrorInput((1.5,), {}, ArgumentError, "argwhere: every argument is a scalar")],
        reference=_argwhere_reference,
        doc="The coordinates of x's non-zero elements, one row each in C order: an int64 (count, x.ndim) "
        "constant (np.argwhere, PyTorch's nonzero). NumPy's tuple-valued nonzero is its columns.",
    ),
    OpSpec(
        name="nonzero",
        inputs=("x",),
        forward=_nonzero,
        accepts="biufc",
        multiple_results=True,
        integer_results=True,
        sample=samples.nonzero_sample,
        complex_sample=lambda: samples.nonzero_sample(complex_=True),
        error_inputs=lambda: [ErrorInput((np.array(1.0),), {}, ShapeMismatch, "nonzero of a 0-d tensor")],
        reference=lambda x: tuple(np.ascontiguousarray(column) for column in _argwhere_reference(x).T),
        doc="The indices of x's non-zero elements as a tuple of int64 constants, one per axis (NumPy's "
        "and the array API's nonzero; argwhere stacks them as columns). x must have at least one dim.",
    ),
    OpSpec(
        name="dynamic_slice",
        inputs=("x", "start"),
        params={"sizes": REQUIRED},
        forward=_dynamic_slice,
        vjps=(lambda s, g, out, x, start, sizes: s.dynamic_pad(g, start, x.shape), None),
        linear=True,
        accepts=("biufc", "iu"),
        sample=samples.dynamic_slice_sample,
        reference=_window_reference,
        error_inputs=lambda: [
            ErrorInput((_X, np.array([1, 2])), {"sizes": (1, 2)}, IndexOutOfRange, "must start in 0..1"),
            ErrorInput((_X, np.array([1])), {"sizes": (1, 2)}, ShapeMismatch, "one entry per axis"),
            ErrorInput((_X, np.array([0, 0])), {"sizes": (3, 1)}, IndexOutOfRange, "window of size 3"),
            ErrorInput((_X, np.array([0, 0])), {"sizes": (-1, 2)}, ArgumentError, "dynamic_slice: sizes must be"),
        ],
        doc="The window of x of static `sizes` at `start`, a tensor of one index per axis (negative: from "
        "the end). A window that does not fit is an error (JAX clamps it instead). VJP: dynamic_pad.",
    ),
    OpSpec(
        name="dynamic_pad",
        internal=True,
        inputs=("update", "start"),
        params={"shape": REQUIRED},
        forward=_dynamic_pad,
        vjps=(lambda s, g, out, update, start, shape: s.dynamic_slice(g, start, update.shape), None),
        linear=True,
        accepts=("fiuc", "iu"),
        sample=samples.dynamic_pad_sample,
        reference=_pad_reference,
        error_inputs=lambda: [
            ErrorInput((np.ones((1, 2)), np.array([0, 2])), {"shape": (2, 3)}, IndexOutOfRange, "must start in 0..1")
        ],
        doc="Zeros of `shape` with `update` placed at `start`: dynamic_slice's VJP.",
    ),
]
