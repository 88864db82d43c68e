"""The array API's linear algebra functions (``matmul``, ``matrix_transpose``,
``tensordot``, ``vecdot``) and NumPy's ``einsum``, ``outer`` and ``dot``, on the contract
ops (the plumbing they share with ``tnp.linalg`` and ``tnp.fft`` is ``_dispatch``'s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, AxisError
from ._dispatch import OPERANDS, array_arg, array_pair, as_array, binary, run, runtime_of

__all__ = ["dot", "einsum", "matmul", "matrix_transpose", "outer", "tensordot", "vecdot"]


matmul = binary(
    "matmul",
    "matmul",
    "The matrix product x1 @ x2 (NumPy's matmul: 1-D operands are promoted to a row or column and "
    "dropped again, batch dimensions broadcast).",
    arrays=True,
)

outer = binary(
    "outer",
    "outer",
    "The outer product result[i, j] = x1[i]·x2[j] (the standard's is for 1-D vectors; NumPy's flattens).",
    arrays=True,
)


def matrix_transpose(x: Any, /) -> EagerTensor:
    """x with its last two axes swapped (``x.mT``), a view."""
    if type(x) is not EagerTensor:
        x = array_arg(x, "tnp.matrix_transpose")
    n = x.ndim
    if n < 2:
        raise ArgumentError(
            f"tnp.matrix_transpose: x has shape {list(x.shape)}; it needs at least two axes (..., M, N)"
        )
    return x.runtime.current_session().permute_dims(x, (*range(n - 2), n - 1, n - 2))


def tensordot(x1: Any, x2: Any, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> EagerTensor:
    """Sum of products of x1's and x2's elements over ``axes``: an int N (x1's last N with
    x2's first N) or a pair of axis sequences; the result has x1's free axes, then x2's."""
    if type(x1) is not EagerTensor or type(x2) is not EagerTensor:
        x1, x2 = array_pair(x1, x2, "tnp.tensordot")
    if type(axes) is not int and not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        raise ArgumentError(
            f"tnp.tensordot: axes must be an int or a pair of axis sequences ((x1 axes), (x2 axes)), got {axes!r}"
        )
    if axes == 2 and type(axes) is int:
        return run("tnp.tensordot", OPERANDS, x1.runtime.current_session().tensordot, x1, x2)
    return run("tnp.tensordot", OPERANDS, x1.runtime.current_session().tensordot, x1, x2, axes)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> EagerTensor:
    """The dot product Σ conj(x1)·x2 along ``axis``, the other axes broadcast."""
    if type(x1) is not EagerTensor or type(x2) is not EagerTensor:
        x1, x2 = array_pair(x1, x2, "tnp.vecdot")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"tnp.vecdot: axis must be an int (the one axis the dot product runs along), got {axis!r}")
    if axis >= 0:  # the standard counts the axis from the end of each operand
        n = min(x1.ndim, x2.ndim)
        if axis >= n:
            raise AxisError(f"tnp.vecdot: axis {axis} is out of range for operands of {n} axes")
        axis -= n
    s = x1.runtime.current_session()
    if axis == -1:
        result = run("tnp.vecdot", OPERANDS, s.vecdot, x1, x2)
    else:
        result = run("tnp.vecdot", OPERANDS, s.vecdot, x1, x2, axis)
    if result.dtype.kind in "iu":  # the op sums integers as int64/uint64; the standard keeps the operands' type
        target = np.result_type(x1.dtype, x2.dtype)
        if result.dtype != target:
            result = s.astype(result, target)
    return result


def einsum(subscripts: str, /, *operands: Any, optimize: Any = "greedy") -> EagerTensor:
    """NumPy's ``einsum(subscripts, *operands)`` (explicit or implicit output, ``...``,
    repeated labels), contracted pairwise along NumPy's greedy path (``optimize`` is
    accepted for NumPy code and ignored: the path is always the greedy one)."""
    if not isinstance(subscripts, str):
        raise ArgumentError(
            f"tnp.einsum: subscripts must be a string such as 'ij,jk->ik', got {type(subscripts).__name__} "
            f"(the interleaved operand/sublist form is not supported)"
        )
    rt = runtime_of(operands)
    arrays = [
        x if type(x) is EagerTensor else as_array(rt, x, "tnp.einsum", f"operands[{i}]") for i, x in enumerate(operands)
    ]
    return run("tnp.einsum", {}, rt.current_session().einsum, arrays, subscripts)


def dot(a: Any, b: Any, /) -> EagerTensor:
    """NumPy's ``dot``: a product with a 0-d operand, else the sum over a's last axis and b's
    second-to-last (its only one for a 1-D b)."""
    a, b = array_pair(a, b, "tnp.dot")
    s = a.runtime.current_session()
    if a.ndim == 0 or b.ndim == 0:
        return run("tnp.dot", OPERANDS, s.mul, a, b)
    if a.ndim <= 2 and b.ndim <= 2:  # matmul's product, and its VJP, without an einsum plan (half the time)
        return run("tnp.dot", OPERANDS, s.matmul, a, b)
    return run("tnp.dot", OPERANDS, s.tensordot, a, b, ((a.ndim - 1,), (max(b.ndim - 2, 0),)))
