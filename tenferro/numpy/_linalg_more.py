"""NumPy's linear algebra beyond the array API standard's, in ``tnp.linalg``: ``lstsq``,
``cond``, ``multi_dot``, ``tensorsolve`` and ``tensorinv``, each composed of the linalg
ops (through ``tnp.linalg``'s functions) in NumPy's own steps, so the numbers are NumPy's
to rounding and the derivatives flow through the ops."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, AxisError, ContextMismatch, DTypeError, ShapeMismatch
from ..core.tracing import note_read
from ..plugins.linalg.batching import SingularMatrix
from ._dispatch import as_array, run, runtime_of
from ._linear import matmul
from .linalg import inv, norm, pinv, solve, svdvals


def _arrays(function: str, floating: bool = True, **given: Any) -> list[EagerTensor]:
    """The array arguments as tensors of one runtime (the first tensor's), in order, float
    or complex ones where ``floating`` (the solvers', as tnp.linalg's): ContextMismatch or
    DTypeError naming the argument otherwise."""
    rt = runtime_of(tuple(given.values()))
    arrays = [as_array(rt, value, function, name) for name, value in given.items()]
    for name, array in zip(given, arrays):
        if array.runtime is not rt:
            raise ContextMismatch(
                f"{function}: argument {name!r} is a tensor of another runtime ({array.runtime!r}, not {rt!r}); "
                f"{rt.mixed_with(array.runtime)}"
            )
        if floating and array.dtype.kind not in "fc":
            raise DTypeError(
                f"{function}: argument {name!r} has dtype {array.dtype}; it must be a float or complex array "
                f"(tnp.astype(x, float) first)"
            )
    return arrays


def lstsq(a: Any, b: Any, rcond: float | None = None) -> tuple[EagerTensor, EagerTensor, int, EagerTensor]:
    """NumPy's ``lstsq`` for a (M, N) and b (M,) or (M, K): (x, residuals, rank, s). x
    minimises ‖b - a·x‖, the one of least norm where a's rank is below N: the lstsq op
    (QR, and its derivative) where a has full rank, else the pseudo-inverse of a with the
    singular values at or below ``rcond``·max(s) cut, times b. residuals: the squared norm
    of each column of b - a·x where rank = N < M, else empty (NumPy's); rank: an int, read
    (no derivative); s: a's singular values. ``rcond=None`` is NumPy's eps·max(M, N). The
    rank-deficient solution differentiates as ``pinv`` with an rtol does (through svd:
    distinct singular values)."""
    function = "tnp.linalg.lstsq"
    a, b = _arrays(function, a=a, b=b)
    rt = a.runtime
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ArgumentError(
            f"{function}: a has shape {list(a.shape)} and b {list(b.shape)}; a must be a matrix (M, N) and b of "
            f"shape (M,) or (M, K) with a's M rows (NumPy's lstsq takes no batch axes)"
        )
    if rcond is not None and (isinstance(rcond, bool) or not isinstance(rcond, (int, float))):
        raise ArgumentError(f"{function}: rcond must be a number or None, got {rcond!r}")
    rows, columns = a.shape
    s = rt.current_session()
    singular = run(function, None, s.svdvals, a)
    note_read(singular, function)  # (the rank is read: it chooses the formula)
    values = held(singular)
    rtol = max(rows, columns) * np.finfo(values.dtype).eps if rcond is None else float(rcond)
    rank = int(np.count_nonzero(values > rtol * values.max(initial=0.0)))
    x = None
    if rank == min(rows, columns):
        try:
            x = run(function, None, s.lstsq, a, b)
        except SingularMatrix:  # (the op's own rank test is a hair stricter: then the cut pseudo-inverse)
            x = None
    if x is None:
        x = matmul(pinv(a, rtol=rtol), b)
    if rank == columns < rows:
        r = s.sub(b, matmul(a, x))
        squares = s.real(s.mul(s.conj(r), r)) if r.dtype.kind == "c" else s.mul(r, r)
        residuals = s.reduce_sum(squares, axes=0)
        residuals = s.reshape(residuals, (1,)) if b.ndim == 1 else residuals
    else:
        residuals = rt.constant_from(np.zeros(0, values.dtype))
    return x, residuals, rank, singular


#: The orders of cond (those of a matrix norm).
_ORDERS = (None, 1, -1, 2, -2, math.inf, -math.inf, "fro", "nuc")


def cond(x: Any, p: int | float | str | None = None) -> EagerTensor:
    """NumPy's ``cond``, the condition number of each matrix of x: for ``p`` None, 2 or -2
    the ratio of its extreme singular values, else ``norm(x, p)·norm(inv(x), p)`` (square
    matrices); inf where x is singular (nan made inf unless x holds a nan), as NumPy's. A
    singular matrix that tracks a gradient is an error: its condition has no derivative."""
    function = "tnp.linalg.cond"
    number = isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool)
    if not (p is None or (isinstance(p, str) and p in _ORDERS) or (number and p in _ORDERS)):
        raise ArgumentError(f"{function}: p must be one of None, 1, -1, 2, -2, inf, -inf, 'fro', 'nuc', got {p!r}")
    (x,) = _arrays(function, x=x)
    if x.ndim < 2 or 0 in x.shape[-2:]:
        raise ArgumentError(f"{function}: x has shape {list(x.shape)}; cond needs matrices with entries (..., M, N)")
    if p not in (None, 2, -2) and x.shape[-1] != x.shape[-2]:
        raise ShapeMismatch(f"{function}: x has shape {list(x.shape)}; cond of order {p!r} needs square matrices")
    if p is None or p == 2 or p == -2:
        s = svdvals(x)
        extremes = (s[..., -1], s[..., 0]) if p == -2 else (s[..., 0], s[..., -1])
        r = extremes[0] / extremes[1]  # (a zero singular value gives inf, as NumPy's)
    else:
        try:
            inverse = run(function, None, inv, x)
        except SingularMatrix:
            if x.tracks_grad():
                raise SingularMatrix(
                    f"{function}: x holds a singular matrix, whose condition number (inf) has no derivative; "
                    f"take cond of a value that tracks none (tf.stop_gradient(x)) for NumPy's inf"
                ) from None
            note_read(x, function)
            return x.runtime.constant_from(np.asarray(np.linalg.cond(held(x), p)))
        r = norm(x, p, axis=(-2, -1)) * norm(inverse, p, axis=(-2, -1))
    from . import any as any_of  # noqa: PLC0415  (tnp's, defined after this module)
    from . import isnan, where

    made_nan = isnan(r) & ~any_of(isnan(x), axis=(-2, -1))
    return where(made_nan, np.inf, r)


def multi_dot(arrays: Sequence[Any]) -> EagerTensor:
    """NumPy's ``multi_dot``: the product of two or more matrices, multiplied in the order
    of fewest multiplications (NumPy's choice: its order, so its numbers to rounding); a
    1-D first array is a row and a 1-D last one a column, as in ``dot``."""
    function = "tnp.linalg.multi_dot"
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        raise ArgumentError(f"{function}: arrays must be a list of two or more arrays, got {type(arrays).__name__}")
    xs = _arrays(function, floating=False, **{f"arrays[{i}]": a for i, a in enumerate(arrays)})
    shapes = [list(x.shape) for x in xs]
    first, last = xs[0].ndim, xs[-1].ndim
    xs[0] = xs[0][None, :] if first == 1 else xs[0]
    xs[-1] = xs[-1][:, None] if last == 1 else xs[-1]
    for i, x in enumerate(xs):
        if x.ndim != 2:
            raise ArgumentError(
                f"{function}: arrays[{i}] has shape {list(x.shape)}; it must be 2-D (the first and the last may be 1-D)"
            )
    for i in range(len(xs) - 1):
        if xs[i].shape[1] != xs[i + 1].shape[0]:
            raise ShapeMismatch(
                f"{function}: arrays[{i}] of shape {shapes[i]} and arrays[{i + 1}] of shape {shapes[i + 1]} do not "
                f"chain (columns must equal the next one's rows)"
            )
    split = _chain_order([x.shape for x in xs])
    result = _chained(xs, split, 0, len(xs) - 1)
    if first == 1 and last == 1:
        return result[0, 0]
    return result.reshape(-1) if first == 1 or last == 1 else result


def _chain_order(shapes: list[tuple[int, ...]]) -> dict[tuple[int, int], int]:
    """Where to split each run i..j of the chain: NumPy's rule (its cost comparison for
    three matrices, Cormen's dynamic programme for more)."""
    n = len(shapes)
    if n == 2:
        return {(0, 1): 0}
    if n == 3:
        (a0, a1), _, (_, c1) = shapes
        b1 = shapes[1][1]
        return {(0, 2): 1 if a0 * b1 * (a1 + c1) < a1 * c1 * (a0 + b1) else 0, (0, 1): 0, (1, 2): 1}
    dims = [shape[0] for shape in shapes] + [shapes[-1][1]]
    cost = [[0.0] * n for _ in range(n)]
    split: dict[tuple[int, int], int] = {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i, j] = q, k
    return split


def _chained(xs: list[EagerTensor], split: dict[tuple[int, int], int], i: int, j: int) -> EagerTensor:
    if i == j:
        return xs[i]
    k = split[i, j]
    return matmul(_chained(xs, split, i, k), _chained(xs, split, k + 1, j))


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> EagerTensor:
    """NumPy's ``tensorsolve``: x with ``tensordot(a, x, x.ndim) == b``, x of shape
    a.shape[b.ndim:] (after ``axes`` of a are moved to the end), by one solve of a reshaped
    to a square matrix."""
    function = "tnp.linalg.tensorsolve"
    a, b = _arrays(function, a=a, b=b)
    if axes is not None:
        moved = _axes(axes, a.ndim, function)
        a = a.transpose([*(k for k in range(a.ndim) if k not in moved), *moved])
    shape = a.shape[b.ndim :]
    size = math.prod(shape)
    if b.ndim > a.ndim or math.prod(a.shape) != size * size or math.prod(b.shape) != size:
        raise ShapeMismatch(
            f"{function}: a has shape {list(a.shape)} and b {list(b.shape)}; prod(a.shape[b.ndim:]) must equal "
            f"prod(a.shape[:b.ndim]) and b's size (a square system)"
        )
    return run(function, {"x1": "a", "x2": "b"}, solve, a.reshape(size, size), b.reshape(size)).reshape(shape)


def _axes(axes: Any, ndim: int, function: str) -> list[int]:
    """``axes``, distinct ints within ``ndim`` axes (negative ones from the end), or AxisError."""
    if isinstance(axes, (str, bytes)) or not isinstance(axes, Sequence):
        raise AxisError(f"{function}: axes must be None or a sequence of ints, got {axes!r}")
    if not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in axes):
        raise AxisError(f"{function}: axes must be None or a sequence of ints, got {axes!r}")
    if any(not -ndim <= k < ndim for k in axes) or len({int(k) % ndim for k in axes}) != len(axes):
        raise AxisError(f"{function}: axes {list(axes)} must be distinct axes of a's {ndim}")
    return [int(k) % ndim for k in axes]


def tensorinv(a: Any, ind: int = 2) -> EagerTensor:
    """NumPy's ``tensorinv``: the inverse of a as a map from its first ``ind`` axes to the
    rest, of shape a.shape[ind:] + a.shape[:ind] (one inv of a reshaped square)."""
    function = "tnp.linalg.tensorinv"
    (a,) = _arrays(function, a=a)
    if isinstance(ind, bool) or not isinstance(ind, int) or ind <= 0:
        raise ArgumentError(f"{function}: ind must be a positive int, got {ind!r}")
    rows, columns = math.prod(a.shape[:ind]), math.prod(a.shape[ind:])
    if rows != columns:
        raise ShapeMismatch(
            f"{function}: a has shape {list(a.shape)}; prod(a.shape[:ind]) = {rows} must equal prod(a.shape[ind:]) "
            f"= {columns}"
        )
    return run(function, {"x": "a"}, inv, a.reshape(rows, columns)).reshape(*a.shape[ind:], *a.shape[:ind])
