"""``cumulative_sum`` and ``cumulative_prod`` (the array API's names and params: ``axis``,
None only for a 1-D tensor, and ``include_initial``), and the internal ops of their VJPs.

The gradient of a cumulative product is, for element j, L_j·R_j with L_j the product of
the elements before j (``out`` shifted by one) and R_j = sum over k >= j of g_k times the
product of x_(j+1..k): the linear recurrence R_j = x_(j+1)·R_(j+1) + g_j, computed by
``scan_linear`` without division, so it is exact where elements are zero. ``scan_linear``
and ``shift_window`` have rules made of each other, so every derivative order works.

All of them take complex inputs: the sums are linear with real coefficients, the products
holomorphic, so their rules are g·conj(∂) (scan_linear's adjoint recurrence runs on conj(a)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    accumulated,
    batching,
    cast,
    conj,
    copied,
    is_chunked,
)

from .counting import normalize_axis


def _axis(x: Any, axis: Any, op: str) -> int:
    """The array API's axis of a cumulative op: None only for a 1-D tensor."""
    ndim = np.ndim(x)
    if ndim == 0:
        raise ShapeMismatch(f"{op}: needs a tensor with at least one dim, got a 0-d tensor")
    if axis is None:
        if ndim != 1:
            raise AxisError(f"{op}: axis is required for a tensor with {ndim} dims (None is allowed only for 1-D)")
        return 0
    return normalize_axis(axis, ndim, op)


def _flag(value: Any, name: str, op: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentError(f"{op}: {name} must be True or False, got {value!r}")
    return bool(value)


def _along_shape(shape: tuple[int, ...], axis: int, length: int) -> tuple[int, ...]:
    return (*shape[:axis], length, *shape[axis + 1 :])


def _along(axis: int, index: slice) -> tuple[slice, ...]:
    return (slice(None),) * axis + (index,)


def _scanned(ufunc: np.ufunc, x: Any, axis: int, include_initial: bool) -> Any:
    """NumPy's ``cumulative_sum``/``cumulative_prod`` (``ufunc`` add or multiply); for an
    engine's array, which has no cumulative_* (dask's), the ufunc's ``accumulate`` (dask's
    cumsum/cumprod), after the identity where ``include_initial``."""
    if type(x) is np.ndarray:
        scan = np.cumulative_sum if ufunc is np.add else np.cumulative_prod
        return scan(x, axis=axis, include_initial=include_initial)
    out = accumulated(ufunc, x, axis)
    if not include_initial:
        return out
    one = _along_shape(np.shape(x), axis, 1)  # (x may have no first element)
    identity = np.zeros_like(x, shape=one) if ufunc is np.add else np.ones_like(x, shape=one)
    return np.concatenate([identity, out], axis=axis)


# -- cumulative_sum and its transpose --------------------------------------------------------
def _cumulative_sum(x: np.ndarray, axis: Any = None, include_initial: bool = False) -> np.ndarray:
    axis = _axis(x, axis, "cumulative_sum")
    return _scanned(np.add, x, axis, _flag(include_initial, "include_initial", "cumulative_sum"))


def _cumulative_sum_transpose(g: np.ndarray, axis: Any, include_initial: bool = False) -> np.ndarray:
    """ct_j = sum over k >= j + include_initial of g_k (the transpose of cumulative_sum)."""
    axis = _axis(g, axis, "cumulative_sum_transpose")
    reversed_sums = np.flip(_scanned(np.add, np.flip(g, axis), axis, False), axis)
    return reversed_sums[_along(axis, slice(1, None))] if include_initial else reversed_sums


# -- shift_window and scan_linear ------------------------------------------------------------
def _shift_window(x: np.ndarray, axis: Any, offset: Any, length: Any, fill: Any = 0.0) -> np.ndarray:
    """y_k = x_(k + offset) for k in range(length) along ``axis``; ``fill`` where that is
    outside x."""
    axis = _axis(x, axis, "shift_window")
    n = np.shape(x)[axis]
    before, after = max(0, -offset), max(0, length + offset - n)
    widths = [(0, 0)] * np.ndim(x)
    widths[axis] = (before, after)
    if is_chunked(x) and x.size == 0:  # (dask cannot pad an empty array): nothing of x is read
        return np.full_like(x, fill, shape=_along_shape(np.shape(x), axis, length))
    padded = np.pad(x, widths, constant_values=fill)
    start = offset + before
    return copied(padded[_along(axis, slice(start, start + length))])


def _affine_scan(scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Along the last axis, y_k = scale_k·y_(k-1) + shift_k with y_(-1) = 0, for every k at
    once: a Hillis-Steele scan over the composition of affine maps (log2(n) passes)."""
    y, factor = copied(shift), copied(scale)
    step, n = 1, np.shape(y)[-1]
    while step < n:
        y[..., step:] = np.add(np.multiply(factor[..., step:], y[..., :-step]), y[..., step:])
        factor[..., step:] = np.multiply(factor[..., step:], factor[..., :-step])
        step *= 2
    return y


def _scan_linear(a: np.ndarray, b: np.ndarray, axis: Any, reverse: bool = False) -> np.ndarray:
    """reverse=False: y_k = a_k·y_(k-1) + b_k (y_(-1) = 0); reverse=True: y_k = a_(k+1)·y_(k+1)
    + b_k (y_n = 0). Each is the other's transpose in b."""
    if np.shape(a) != np.shape(b):
        raise ShapeMismatch(f"scan_linear: a has shape {list(np.shape(a))} and b {list(np.shape(b))}; they must match")
    axis = _axis(a, axis, "scan_linear")
    a_last, b_last = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    if not reverse:
        y = _affine_scan(a_last, b_last)
    else:
        # reversed, the multiplier of position k is a_(k+1): shift a left by one first
        scale = np.concatenate([a_last[..., 1:], np.zeros_like(a_last[..., :1])], axis=-1)
        y = np.flip(_affine_scan(np.flip(scale, -1), np.flip(b_last, -1)), -1)
    return np.moveaxis(y, -1, axis)


def _scan_vjp(s: Any, g: Any, inputs: tuple[Any, Any], out: Any, axis: Any, reverse: bool) -> tuple[Any, Any]:
    a, b = inputs
    if not (s.needs_grad(a) or s.needs_grad(b)):
        return None, None
    axis = _axis(a, axis, "scan_linear")
    n = a.shape[axis]
    adjoint = s.scan_linear(conj(s, a), g, axis, not reverse)
    ct_a = None
    if s.needs_grad(a):
        if reverse:  # y_k = a_(k+1) y_(k+1) + b_k: a_m gets adjoint_(m-1)·y_m
            ct_a = s.mul(s.shift_window(adjoint, axis, -1, n, 0.0), conj(s, out))
        else:  # y_k = a_k y_(k-1) + b_k: a_k gets adjoint_k·y_(k-1)
            ct_a = s.mul(adjoint, conj(s, s.shift_window(out, axis, -1, n, 0.0)))
    return ct_a, adjoint if s.needs_grad(b) else None


def _scan_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any, axis: Any, reverse: bool) -> Any:
    """The same recurrence driven by the tangent: dy_k = a_k·dy_(k-1) + (da_k·y_(k-1) + db_k)
    (reverse: dy_k = a_(k+1)·dy_(k+1) + (da_(k+1)·y_(k+1) + db_k))."""
    (t_a, t_b), (a, _) = tangents, inputs
    if t_a is None and t_b is None:
        return None
    axis = _axis(a, axis, "scan_linear")
    n = a.shape[axis]
    drive = t_b
    if t_a is not None:
        if reverse:
            from_a = s.shift_window(s.mul(t_a, out), axis, 1, n, 0.0)
        else:
            from_a = s.mul(t_a, s.shift_window(out, axis, -1, n, 0.0))
        drive = from_a if t_b is None else s.add(from_a, t_b)
    return s.scan_linear(a, drive, axis, reverse)


def _shift_window_jvp(
    s: Any, tangents: Any, inputs: Any, out: Any, axis: Any, offset: int, length: int, fill: Any
) -> Any:
    """The window of the tangent, 0 (the fill is a constant) outside it."""
    t = tangents[0]
    return None if t is None else s.shift_window(t, axis, offset, length, 0.0)


def _shift_window_rule(s: Any, g: Any, out: Any, x: Any, axis: Any, offset: int, length: int, fill: Any) -> Any:
    axis = _axis(x, axis, "shift_window")
    return s.shift_window(g, axis, -offset, x.shape[axis], 0.0)


# -- cumulative_prod ------------------------------------------------------------------------------
def _cumulative_prod(x: np.ndarray, axis: Any = None, include_initial: bool = False) -> np.ndarray:
    axis = _axis(x, axis, "cumulative_prod")
    return _scanned(np.multiply, x, axis, _flag(include_initial, "include_initial", "cumulative_prod"))


def _cumulative_prod_rule(s: Any, g: Any, out: Any, x: Any, axis: Any, include_initial: bool) -> Any:
    axis = _axis(x, axis, "cumulative_prod")
    n = x.shape[axis]
    if include_initial:  # out_k = prod of x_(<k), k = 0..n; g_0 reaches nothing
        before, g = s.shift_window(out, axis, 0, n, 1.0), s.shift_window(g, axis, 1, n, 0.0)
    else:
        before = s.shift_window(out, axis, -1, n, 1.0)
    return s.mul(conj(s, before), s.scan_linear(conj(s, x), g, axis, True))


def _cumulative_prod_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axis: Any, include_initial: bool) -> Any:
    """out_k = x_k·out_(k-1), so d out_k = x_k·d out_(k-1) + t_k·out_(k-1): a scan."""
    (t,), (x,) = tangents, inputs
    if t is None:
        return None
    axis = _axis(x, axis, "cumulative_prod")
    n = x.shape[axis]
    if include_initial:  # out_0 = 1 carries no tangent; out_(k+1) = x_k·out_k
        scanned = s.scan_linear(x, s.mul(t, s.shift_window(out, axis, 0, n, 1.0)), axis, False)
        return s.shift_window(scanned, axis, -1, n + 1, 0.0)
    return s.scan_linear(x, s.mul(t, s.shift_window(out, axis, -1, n, 1.0)), axis, False)


# -- samples and references ---------------------------------------------------------------------
def _samples(zeros: bool = False, pair: str = "", complex_: bool = False) -> Callable[[], Any]:
    """(x[, b], axis, include_initial); with ``zeros``, x often holds exact zeros. ``pair``
    names the second array: "b" (same shape) or "g" (the shape of cumulative_*'s result).
    With ``complex_``, x (and b) are complex128 (the zeros exact 0j)."""

    def make() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.testing.strategies import floats_array

        @st.composite
        def sample(draw: Any) -> SampleInput:
            shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
            x = draw(floats_array(shape, -2.0, 2.0))
            if complex_:
                x = x + 1j * draw(floats_array(shape, -1.0, 1.0))
            if zeros:
                x = np.where(draw(hnp.arrays(np.bool_, shape)), 0.0, x)
            axis = draw(st.integers(-len(shape), len(shape) - 1))
            if len(shape) == 1 and draw(st.booleans()):
                axis = None
            if pair == "b":
                b = draw(floats_array(shape))
                b = b + 1j * draw(floats_array(shape)) if complex_ else b
                return SampleInput((x, b), {"axis": axis, "reverse": draw(st.booleans())})
            if pair == "window":
                n = shape[axis or 0]
                offset, length = draw(st.integers(-n - 1, n + 1)), draw(st.integers(0, n + 2))
                params = {"axis": axis, "offset": offset, "length": length, "fill": draw(st.sampled_from([0.0, 1.0]))}
                return SampleInput((x,), params)
            return SampleInput((x,), {"axis": axis, "include_initial": draw(st.booleans())})

        return sample()

    return make


def _rows(x: np.ndarray, axis: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    x = np.asarray(x)
    x = x if x.dtype.kind in "fc" else cast(x, np.float64)
    axis = 0 if axis is None else axis % x.ndim
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(-1, moved.shape[-1]), lambda y: np.moveaxis(y.reshape(*moved.shape[:-1], -1), -1, axis)


def _loop_reference(combine: Callable[[float, float], float], start: float) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, axis: Any = None, include_initial: bool = False) -> np.ndarray:
        rows, restore = _rows(x, axis)
        out = []
        for row in rows.tolist():
            acc, line = start, [start] if include_initial else []
            for v in row:
                acc = combine(acc, v)
                line.append(acc)
            out.append(line)
        return restore(np.array(out))

    return reference


def _transpose_reference(g: np.ndarray, axis: Any, include_initial: bool = False) -> np.ndarray:
    rows, restore = _rows(g, axis)
    inc = int(include_initial)
    sums = [[sum(row[j + inc :]) for j in range(len(row) - inc)] for row in rows.tolist()]
    return restore(np.array(sums, dtype=rows.dtype))


def _scan_reference(a: np.ndarray, b: np.ndarray, axis: Any, reverse: bool = False) -> np.ndarray:
    a_rows, restore = _rows(a, axis)
    b_rows, _ = _rows(b, axis)
    out = []
    for ra, rb in zip(a_rows.tolist(), b_rows.tolist()):
        n, y = len(ra), [0.0] * len(ra)
        for k in reversed(range(n)) if reverse else range(n):
            prev = (y[k + 1] * ra[k + 1] if k + 1 < n else 0.0) if reverse else (y[k - 1] * ra[k] if k else 0.0)
            y[k] = prev + rb[k]
        out.append(y)
    return restore(np.array(out))


def _window_reference(x: np.ndarray, axis: Any, offset: int, length: int, fill: float = 0.0) -> np.ndarray:
    rows, restore = _rows(x, axis)
    n = rows.shape[1]
    picked = [[row[k + offset] if 0 <= k + offset < n else fill for k in range(length)] for row in rows]
    return restore(np.array(picked, rows.dtype))


def _errors(name: str) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        cases = [
            ErrorInput((np.zeros((2, 3)),), {}, AxisError, "axis is required"),
            ErrorInput((np.zeros((2, 3)),), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((np.zeros(()),), {"axis": None}, ShapeMismatch, "at least one dim"),
            ErrorInput((np.zeros(3),), {"include_initial": 1}, ArgumentError, "include_initial must be True or False"),
        ]
        if name == "cumulative_prod":
            cases.append(ErrorInput((np.zeros(3, bool),), {}, DTypeError, "argument 'x' has dtype bool"))
        return cases

    return errors


_WHICH = "`axis` (None only for a 1-D tensor); `include_initial` puts the empty {} first."

SPECS = [
    OpSpec(
        name="cumulative_sum",
        batch=batching.over_axes("axis", none_is_all=False),
        inputs=("x",),
        params={"axis": None, "include_initial": False},
        forward=_cumulative_sum,
        vjps=(lambda s, g, out, x, axis, include_initial: s.cumulative_sum_transpose(g, axis, include_initial),),
        linear=True,
        accepts="biufc",
        sample=_samples(),
        reference=_loop_reference(lambda acc, v: acc + v, 0.0),
        error_inputs=_errors("cumulative_sum"),
        doc="Running sum along " + _WHICH.format("sum (0)"),
    ),
    OpSpec(
        name="cumulative_prod",
        inputs=("x",),
        params={"axis": None, "include_initial": False},
        forward=_cumulative_prod,
        vjps=(_cumulative_prod_rule,),
        jvp=_cumulative_prod_jvp,
        accepts="iufc",
        residuals=("x", "out"),
        sample=_samples(zeros=True),
        complex_sample=_samples(zeros=True, complex_=True),
        reference=_loop_reference(lambda acc, v: acc * v, 1.0),
        error_inputs=_errors("cumulative_prod"),
        doc="Running product along " + _WHICH.format("product (1)") + " Its gradient is exact where "
        "elements are zero (no division), to every order.",
    ),
    OpSpec(
        name="cumulative_sum_transpose",
        internal=True,
        inputs=("g",),
        params={"axis": REQUIRED, "include_initial": False},
        forward=_cumulative_sum_transpose,
        vjps=(lambda s, g, out, x, axis, include_initial: s.cumulative_sum(g, axis, include_initial),),
        linear=True,
        accepts="fc",
        sample=_samples(),
        reference=_transpose_reference,
        error_inputs=lambda: [ErrorInput((np.zeros(()),), {"axis": None}, ShapeMismatch, "at least one dim")],
        doc="ct_j = sum of g_k over k >= j (+1 with include_initial): the VJP of cumulative_sum.",
    ),
    OpSpec(
        name="scan_linear",
        internal=True,
        inputs=("a", "b"),
        params={"axis": REQUIRED, "reverse": False},
        forward=_scan_linear,
        vjp=_scan_vjp,
        jvp=_scan_jvp,
        accepts="fc",
        sample=_samples(zeros=True, pair="b"),
        complex_sample=_samples(zeros=True, pair="b", complex_=True),
        reference=_scan_reference,
        error_inputs=lambda: [ErrorInput((np.zeros(2), np.zeros(3)), {"axis": 0}, ShapeMismatch, "must match")],
        doc="The linear recurrence y_k = a_k·y_(k-1) + b_k along `axis` (reverse: y_k = a_(k+1)·y_(k+1) "
        "+ b_k), without division; cumulative_prod's VJP.",
    ),
    OpSpec(
        name="shift_window",
        internal=True,
        inputs=("x",),
        params={"axis": REQUIRED, "offset": REQUIRED, "length": REQUIRED, "fill": 0.0},
        forward=_shift_window,
        vjps=(_shift_window_rule,),
        jvp=_shift_window_jvp,
        accepts="fc",
        residuals=(),
        sample=_samples(pair="window"),
        reference=_window_reference,
        error_inputs=lambda: [
            ErrorInput((np.zeros(()),), {"axis": 0, "offset": 0, "length": 1}, ShapeMismatch, "at least one dim")
        ],
        doc="y_k = x_(k+offset) for k < length along `axis`, `fill` outside x (shifts and windows in scan VJPs).",
    ),
]
