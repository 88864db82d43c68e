"""Shape ops that make a new array: roll, repeat (with ``unrepeat``, its adjoint), tile,
pad (constant mode), tril and triu. All are linear in x (pad is affine: linear plus its
constant), so no rule reads a value of x. A complex ``constant_values`` pads a real x into
a complex result (as the array API promotes), whose cotangent x gets back real."""

from __future__ import annotations

import math
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
    cast,
    check_shape,
    is_chunked,
    reshaped,
    tangent_sum,
    unbroadcast,
)

from .common import axis_index, is_int
from .views import lazy

_X = np.zeros((2, 3))


# -- roll --------------------------------------------------------------------------------------
def _roll_args(x_ndim: int, shift: Any, axis: Any) -> tuple[Any, Any]:
    shifts = (shift,) if is_int(shift) else tuple(shift) if isinstance(shift, (tuple, list)) else None
    if shifts is None or not all(is_int(k) for k in shifts):
        raise ArgumentError(f"roll: shift must be an int or a tuple of ints, got {shift!r}")
    if axis is None:
        if len(shifts) != 1:
            raise ArgumentError(f"roll: with axis=None (the flattened tensor) shift must be one int, got {shift!r}")
        return int(shifts[0]), None
    axes = (axis,) if is_int(axis) else axis
    axes = tuple(axis_index(a, x_ndim, "roll") for a in (axes if isinstance(axes, (tuple, list)) else [axes]))
    if len(shifts) not in (1, len(axes)) and len(axes) != 1:
        raise ArgumentError(f"roll: shift {shift!r} and axis {axis!r} must have the same length (or one be an int)")
    return tuple(int(k) for k in shifts), axes


def _roll(x: Any, shift: Any, axis: Any = None) -> Any:
    shifts, axes = _roll_args(np.ndim(x), shift, axis)
    return np.roll(x, shifts, axes)


def _unroll(s: Any, g: Any, out: Any, x: Any, shift: Any, axis: Any) -> Any:
    shifts, _ = _roll_args(x.ndim, shift, axis)
    return s.roll(g, -shifts if isinstance(shifts, int) else tuple(-k for k in shifts), axis)


def _roll_batch(s: Any, call: Any, args: Any, batched: Any, shift: Any, axis: Any) -> Any:
    """roll of a batch: the axes moved past the batch axis (the flattened tensor: declined)."""
    if axis is None:
        return None
    shifts, axes = _roll_args(args[0].ndim - 1, shift, axis)
    return call(args[0], shift=shifts, axis=tuple(a + 1 for a in axes))


ROLL = OpSpec(
    name="roll",
    inputs=("x",),
    params={"shift": REQUIRED, "axis": None},
    forward=_roll,
    vjps=(_unroll,),
    linear=True,
    batch=_roll_batch,
    accepts="biufc",
    sample=lazy("roll"),
    reference=lambda x, shift, axis=None: np.roll(np.array(x), shift, axis),
    error_inputs=lambda: [
        ErrorInput((_X,), {"shift": 1, "axis": 2}, AxisError, "axis 2 is out of range for a tensor with 2 dims"),
        ErrorInput((_X,), {"shift": 1.5}, ArgumentError, "shift must be an int"),
        ErrorInput((_X,), {"shift": (1, 2), "axis": (0, 1, 1)}, ArgumentError, "same length"),
    ],
    doc="x shifted by `shift` places along `axis` (None: the flattened tensor), elements rolling "
    "around the end (np.roll).",
)


# -- repeat / unrepeat -------------------------------------------------------------------------
def _repeat_args(shape: tuple[int, ...], repeats: Any, axis: Any, op: str) -> tuple[Any, int | None, int]:
    """(repeats as an int or a tuple, normalised axis, size of the repeated axis)."""
    a = None if axis is None else axis_index(axis, len(shape), op)
    n = math.prod(shape) if a is None else shape[a]
    if is_int(repeats) and repeats >= 0:
        return int(repeats), a, n
    if isinstance(repeats, (tuple, list)) and all(is_int(r) and r >= 0 for r in repeats):
        if len(repeats) == 1:
            return int(repeats[0]), a, n
        if len(repeats) != n:
            where = "the flattened tensor" if a is None else f"axis {a}"
            raise ShapeMismatch(
                f"{op}: {len(repeats)} repeats for {where} of {n} elements (shape {list(shape)}); give one per element"
            )
        return tuple(int(r) for r in repeats), a, n
    raise ArgumentError(f"{op}: repeats must be a non-negative int or a tuple of them, got {repeats!r}")


def _repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    reps, a, _ = _repeat_args(np.shape(x), repeats, axis, "repeat")
    if not is_chunked(x):
        return np.repeat(x, reps, a)
    if a is None:  # dask's repeat takes an axis: that of x flattened
        x, a = reshaped(x, (math.prod(np.shape(x)),)), 0
    if isinstance(reps, int):
        return np.repeat(x, reps, a)
    # dask's repeat takes one count: each element's slice repeated, joined (NumPy's order)
    pieces = [np.repeat(x[_at(a, slice(i, i + 1))], r, a) for i, r in enumerate(reps) if r]
    return np.concatenate(pieces, axis=a) if pieces else np.zeros_like(x, shape=_resized(x.shape, a, 0))


def _at(axis: int, index: Any) -> tuple[Any, ...]:
    return (slice(None),) * axis + (index,)


def _resized(shape: tuple[int, ...], axis: int, size: int) -> tuple[int, ...]:
    return (*shape[:axis], size, *shape[axis + 1 :])


def _unrepeat(g: Any, shape: Any, repeats: Any, axis: Any = None) -> Any:
    shape = check_shape(shape, "unrepeat")
    reps, a, n = _repeat_args(shape, repeats, axis, "unrepeat")
    flat = a is None
    axis_ = 0 if flat else a
    base = (n,) if flat else shape
    total = n * reps if isinstance(reps, int) else sum(reps)
    expected = (total,) if flat else (*shape[:axis_], total, *shape[axis_ + 1 :])
    if np.shape(g) != expected:
        raise ShapeMismatch(f"unrepeat: expected a cotangent of shape {list(expected)}, got {list(np.shape(g))}")
    if isinstance(reps, int):
        split = reshaped(g, (*base[:axis_], n, reps, *base[axis_ + 1 :]))
        out = np.sum(split, axis=axis_ + 1)
    elif is_chunked(g):  # no reduceat on dask: each element's repeats summed, joined
        starts = np.cumsum([0, *reps]).tolist()
        sums = [
            np.sum(g[_at(axis_, slice(b, e))], axis=axis_, keepdims=True)
            if e > b
            else np.zeros_like(g, shape=_resized(g.shape, axis_, 1))
            for b, e in zip(starts, starts[1:])
        ]
        out = np.concatenate(sums, axis=axis_) if sums else np.zeros_like(g, shape=base)
    else:
        out = np.zeros_like(g, shape=base)
        kept = [i for i, r in enumerate(reps) if r]
        starts = np.cumsum([0, *reps])[:-1][kept].tolist()
        if kept:
            moved = np.moveaxis(out, axis_, 0)
            moved[kept] = np.moveaxis(np.add.reduceat(g, starts, axis=axis_), axis_, 0)
    return reshaped(out, shape) if flat else out


def _unrepeat_reference(g: Any, shape: Any, repeats: Any, axis: Any = None) -> np.ndarray:
    # the transpose of repeat, built as a 0/1 matrix over the repeated axis
    g = np.asarray(g, dtype=np.result_type(np.asarray(g), np.float64))
    n = math.prod(shape) if axis is None else shape[axis]
    index = np.repeat(np.arange(n), repeats)
    matrix = (index[:, None] == np.arange(n)[None, :]).astype(np.float64)  # (total, n)
    if axis is None:
        return (g @ matrix).reshape(shape)
    return np.moveaxis(np.moveaxis(g, axis, -1) @ matrix, -1, axis)


REPEAT = OpSpec(
    name="repeat",
    inputs=("x",),
    params={"repeats": REQUIRED, "axis": None},
    forward=_repeat,
    vjps=(lambda s, g, out, x, repeats, axis: s.unrepeat(g, x.shape, repeats, axis),),
    linear=True,
    accepts="biufc",
    sample=lazy("repeat"),
    reference=lambda x, repeats, axis=None: np.repeat(np.array(x), repeats, axis),
    error_inputs=lambda: [
        ErrorInput((_X,), {"repeats": (1, 2), "axis": 1}, ShapeMismatch, "2 repeats for axis 1 of 3 elements"),
        ErrorInput((_X,), {"repeats": -1}, ArgumentError, "non-negative int"),
        ErrorInput((_X,), {"repeats": 2, "axis": -3}, AxisError, "axis -3 is out of range for a tensor with 2 dims"),
    ],
    doc="Each element of x repeated `repeats` times (an int, or one count per element) along "
    "`axis` (None: the flattened tensor), as np.repeat.",
)

UNREPEAT = OpSpec(
    name="unrepeat",
    inputs=("g",),
    internal=True,
    params={"shape": REQUIRED, "repeats": REQUIRED, "axis": None},
    forward=_unrepeat,
    vjps=(lambda s, gg, out, g, shape, repeats, axis: s.repeat(gg, repeats, axis),),
    linear=True,
    accepts="iufc",
    sample=lazy("unrepeat"),
    reference=_unrepeat_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(5),), {"shape": (3,), "repeats": 2}, ShapeMismatch, "expected a cotangent of shape"),
    ],
    doc="g summed over each element's repeats: the adjoint of repeat (its VJP).",
)


# -- tile --------------------------------------------------------------------------------------
def _tile_reps(reps: Any) -> tuple[int, ...]:
    items = (reps,) if is_int(reps) else reps
    if not isinstance(items, (tuple, list)) or not all(is_int(r) and r >= 0 for r in items):
        raise ArgumentError(f"tile: reps must be a non-negative int or a tuple of them, got {reps!r}")
    return tuple(int(r) for r in items)


def _tile(x: Any, reps: Any) -> Any:
    return np.tile(x, _tile_reps(reps))


def _blocks(shape: tuple[int, ...], reps: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """np.tile's result seen as blocks: the shape (r0, n0, r1, n1, ...) and its block axes
    (reps and x's shape padded with leading 1s to the same length)."""
    ndim = max(len(reps), len(shape))
    sizes = (1,) * (ndim - len(shape)) + tuple(shape)
    counts = (1,) * (ndim - len(reps)) + reps
    return tuple(d for pair in zip(counts, sizes) for d in pair), tuple(range(0, 2 * ndim, 2))


def _untile(g: Any, shape: Any, reps: Any) -> Any:
    shape, reps = check_shape(shape, "untile"), _tile_reps(reps)
    blocks, axes = _blocks(shape, reps)
    expected = tuple(blocks[i] * blocks[i + 1] for i in axes)
    if np.shape(g) != expected:
        raise ShapeMismatch(f"untile: expected a cotangent of shape {list(expected)}, got {list(np.shape(g))}")
    return np.reshape(np.sum(np.reshape(g, blocks), axis=axes), shape)


def _untile_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.extend import SampleInput
    from tenferro.testing.strategies import floats_array

    from . import samples

    @st.composite
    def sample(draw: Any) -> Any:
        base = draw(samples.tile())
        x, reps = base.args[0], base.params["reps"]
        return SampleInput((draw(floats_array(np.tile(x, reps).shape)),), {"shape": x.shape, "reps": reps})

    return sample()


TILE = OpSpec(
    name="tile",
    inputs=("x",),
    params={"reps": REQUIRED},
    forward=_tile,
    vjps=(lambda s, g, out, x, reps: s.untile(g, x.shape, reps),),
    linear=True,
    accepts="biufc",
    sample=lazy("tile"),
    reference=lambda x, reps: np.tile(np.array(x), reps),
    error_inputs=lambda: [ErrorInput((_X,), {"reps": (2, -1)}, ArgumentError, "non-negative int")],
    doc="x repeated as whole blocks `reps` times along each axis (np.tile: reps and x's shape are "
    "padded with leading 1s to the same length).",
)


# -- pad ---------------------------------------------------------------------------------------
def _pad_pairs(pad_width: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    """NumPy's pad_width forms (an int, (before, after), or one pair per axis) as one
    (before, after) pair per axis."""
    bad = ArgumentError(
        f"pad: pad_width must be a non-negative int, a (before, after) pair, or one pair per axis "
        f"(a tensor with {ndim} dims), got {pad_width!r}"
    )
    if is_int(pad_width):
        pairs: Any = ((pad_width, pad_width),) * ndim
    elif isinstance(pad_width, (tuple, list)) and len(pad_width) == 2 and all(is_int(w) for w in pad_width):
        pairs = (tuple(pad_width),) * ndim
    elif isinstance(pad_width, (tuple, list)) and len(pad_width) == 1 and isinstance(pad_width[0], (tuple, list)):
        pairs = (tuple(pad_width[0]),) * ndim
    elif isinstance(pad_width, (tuple, list)) and all(isinstance(p, (tuple, list)) for p in pad_width):
        if len(pad_width) != ndim:
            raise bad
        pairs = tuple(tuple(p) for p in pad_width)
    else:
        raise bad
    if not all(len(p) == 2 and all(is_int(w) and w >= 0 for w in p) for p in pairs):
        raise bad
    return tuple((int(b), int(a)) for b, a in pairs)


def _pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Any:
    if mode != "constant":
        raise ArgumentError(f"pad: mode {mode!r} is not supported; only 'constant' is (with constant_values)")
    if not isinstance(constant_values, (int, float, complex, np.number)) or isinstance(constant_values, bool):
        raise ArgumentError(f"pad: constant_values must be a number, got {constant_values!r}")
    pairs = _pad_pairs(pad_width, np.ndim(x))
    if np.iscomplexobj(constant_values) and x.dtype.kind != "c":  # promote, never drop the imaginary part
        x = cast(x, np.result_type(x.dtype, constant_values, np.float32))
    return np.pad(x, pairs or 0, mode="constant", constant_values=constant_values)  # np.pad refuses () for 0-d


def _unpad(s: Any, g: Any, out: Any, x: Any, pad_width: Any, mode: str, constant_values: Any) -> Any:
    pairs = _pad_pairs(pad_width, x.ndim)
    # a complex constant made a real x's result complex: its cotangent comes back real
    return unbroadcast(s, s.slice(g, tuple((before, before + n, 1) for (before, _), n in zip(pairs, x.shape))), x)


def _pad_jvp(s: Any, tangents: Any, inputs: Any, out: Any, pad_width: Any, mode: str, constant_values: Any) -> Any:
    """The tangent padded with zeros (the constant carries none), of the result's dtype (a
    complex constant makes a real x's result complex)."""
    t = tangents[0]
    return None if t is None else tangent_sum(s, [s.pad(t, pad_width, mode, 0)], out)


def _pad_batch(
    s: Any, call: Any, args: Any, batched: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0
) -> Any:
    """pad of a batch: one pair per axis of an example, and none for the batch axis."""
    pairs = _pad_pairs(pad_width, args[0].ndim - 1)
    return call(args[0], pad_width=((0, 0), *pairs), mode=mode, constant_values=constant_values)


PAD = OpSpec(
    name="pad",
    inputs=("x",),
    params={"pad_width": REQUIRED, "mode": "constant", "constant_values": 0},
    forward=_pad,
    vjps=(_unpad,),
    batch=_pad_batch,
    jvp=_pad_jvp,
    residuals=(),
    accepts="biufc",
    sample=lazy("pad"),
    reference=lambda x, pad_width, mode="constant", constant_values=0: np.pad(
        np.array(x, np.result_type(np.asarray(x), complex) if np.iscomplexobj(constant_values) else None),
        pad_width if np.ndim(x) else 0,
        constant_values=constant_values,
    ),
    complex_sample=lazy("complex_pad"),
    error_inputs=lambda: [
        ErrorInput((_X,), {"pad_width": 1, "mode": "reflect"}, ArgumentError, "mode 'reflect' is not supported"),
        ErrorInput((_X,), {"pad_width": -1}, ArgumentError, "pad_width must be a non-negative int"),
        ErrorInput((_X,), {"pad_width": ((1, 1),) * 3}, ArgumentError, "a tensor with 2 dims"),
        ErrorInput((_X,), {"pad_width": 1, "constant_values": (1, 2)}, ArgumentError, "must be a number"),
    ],
    doc="x with `pad_width` elements of `constant_values` added before and after each axis (np.pad, "
    "mode 'constant' only; a complex constant makes a real x's result complex). Its VJP slices the padding off.",
)


# -- tril / triu -------------------------------------------------------------------------------
def _kept(name: str, shape: tuple[int, ...], k: int) -> np.ndarray:
    above = np.subtract.outer(np.arange(shape[-1]), np.arange(shape[-2])).T  # j - i at [i, j]
    return above <= k if name == "tril" else above >= k


def _triangle(name: str, kernel: Any, keeps: str) -> OpSpec:
    def forward(x: Any, k: int = 0) -> Any:
        if np.ndim(x) < 2:
            raise AxisError(
                f"{name}: needs a tensor with at least 2 dims (the last two are the matrix), got {np.ndim(x)}"
            )
        if not is_int(k):
            raise ArgumentError(f"{name}: k must be an int, got {k!r}")
        rows, columns = np.shape(x)[-2:]
        # (a diagonal beyond the matrix keeps all or nothing, as the one just past its edge:
        # NumPy's arange(-k, ...) would overflow on a k near the int64 bounds)
        return kernel(x, min(max(int(k), -rows), columns))

    return OpSpec(
        name=name,
        inputs=("x",),
        params={"k": 0},
        forward=forward,
        vjps=(lambda s, g, out, x, k: getattr(s, name)(g, k),),
        linear=True,
        batch=batching.leading,  # (of the last two axes: a stack of matrices is one call)
        accepts="biufc",
        sample=lazy("triangle"),
        reference=lambda x, k=0: np.where(_kept(name, np.shape(x), k), x, 0.0),
        error_inputs=lambda: [
            ErrorInput((np.zeros(3),), {}, AxisError, "needs a tensor with at least 2 dims"),
            ErrorInput((_X,), {"k": 0.5}, ArgumentError, "k must be an int"),
        ],
        doc=f"x with the elements {keeps} the k-th diagonal of its last two axes kept, the others zero.",
    )


TRIL = _triangle("tril", np.tril, "on and below")
TRIU = _triangle("triu", np.triu, "on and above")

UNTILE = OpSpec(
    name="untile",
    inputs=("g",),
    internal=True,
    params={"shape": REQUIRED, "reps": REQUIRED},
    forward=_untile,
    vjps=(lambda s, gg, out, g, shape, reps: s.tile(gg, reps),),
    linear=True,
    accepts="iufc",
    sample=_untile_sample,
    reference=lambda g, shape, reps: _untile_reference(g, shape, reps),
    error_inputs=lambda: [
        ErrorInput((np.zeros(5),), {"shape": (3,), "reps": 2}, ShapeMismatch, "expected a cotangent of shape"),
    ],
    doc="g summed over the blocks of tile: the adjoint of tile (its VJP).",
)


def _untile_reference(g: Any, shape: Any, reps: Any) -> np.ndarray:
    # the transpose of tile by brute force: every input element collects the cotangent of
    # the output positions its label lands on
    labels = np.arange(int(np.prod(shape))).reshape(shape)
    g = np.asarray(g, dtype=np.result_type(np.asarray(g), np.float64))
    out = np.zeros(labels.size, g.dtype)
    np.add.at(out, np.tile(labels, reps).ravel(), g.ravel())
    return out.reshape(shape)


SPECS = [ROLL, REPEAT, UNREPEAT, TILE, UNTILE, PAD, TRIL, TRIU]
