"""The array API's linear algebra functions (``matmul``, ``matrix_transpose``,
``tensordot``, ``vecdot``) and NumPy's ``einsum``, ``outer`` and ``dot``, on the contract
ops; and the plumbing ``tnp.linalg`` and ``tnp.fft`` share: one or two array arguments
lifted to a session, and op errors reworded to name the ``tnp`` function and its argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, AxisError, TenferroError
from ..core.runtime import EagerRuntime
from ._dispatch import OPERANDS, _named, array_arg, lift, renamed, runtime_of

__all__ = ["dot", "einsum", "matmul", "matrix_transpose", "outer", "tensordot", "vecdot"]


def array(rt: EagerRuntime, value: Any, label: str, argument: str = "x") -> EagerTensor:
    """``value`` as an EagerTensor of ``rt`` (a Python number becomes a 0-d constant)."""
    value = lift(rt, value, label, argument)
    return value if type(value) is EagerTensor else rt.constant_from(value)


def one(x: Any, label: str) -> EagerTensor:
    """The one array argument ``x`` of ``label`` as an EagerTensor (lifted onto the default
    runtime unless it is one)."""
    return x if type(x) is EagerTensor else array_arg(x, label)


def two(x1: Any, x2: Any, label: str) -> tuple[EagerTensor, EagerTensor]:
    """Both array arguments of ``label`` on the runtime of whichever is an EagerTensor."""
    if type(x1) is EagerTensor and type(x2) is EagerTensor:
        return x1, x2
    rt = runtime_of((x1, x2))
    return array(rt, x1, label, "x1"), array(rt, x2, label, "x2")


#: Our argument names for the op's, for the ops that take ``(a)`` or ``(a, b)``.
X = {"a": "x"}


def run(label: str, names: dict[str, str], method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``method(*args, **kwargs)`` with its TenferroError reworded for ``label``."""
    try:
        return method(*args, **kwargs)
    except TenferroError as exc:
        raise renamed(exc, label, names) from None


def unary(name: str, op: str, doc: str, label: str, names: dict[str, str] = X) -> Callable[[Any], Any]:
    """The function ``name(x, /)``: the op ``op`` of x's session (``label`` in errors)."""

    def function(x: Any, /) -> Any:
        if type(x) is not EagerTensor:
            x = one(x, label)
        rt = x._rt
        session = rt.current_session()
        try:
            return getattr(session, op)(x)
        except TenferroError as exc:
            raise renamed(exc, label, names) from None

    return _named(function, name, doc)


def binary(name: str, op: str, doc: str, label: str) -> Callable[[Any, Any], Any]:
    """The function ``name(x1, x2, /)``: the op ``op(a, b)`` of their session."""

    def function(x1: Any, x2: Any, /) -> Any:
        if type(x1) is not EagerTensor or type(x2) is not EagerTensor:
            x1, x2 = two(x1, x2, label)
        rt = x1._rt
        session = rt.current_session()
        try:
            return getattr(session, op)(x1, x2)
        except TenferroError as exc:
            raise renamed(exc, label, OPERANDS) from None

    return _named(function, name, doc)


matmul = binary(
    "matmul",
    "matmul",
    "The matrix product x1 @ x2 (NumPy's matmul: 1-D operands are promoted to a row or column and "
    "dropped again, batch dimensions broadcast).",
    "tnp.matmul",
)

outer = binary(
    "outer",
    "outer",
    "The outer product result[i, j] = x1[i]·x2[j] (the standard's is for 1-D vectors; NumPy's flattens).",
    "tnp.outer",
)


def matrix_transpose(x: Any, /) -> EagerTensor:
    """x with its last two axes swapped (``x.mT``), a view."""
    if type(x) is not EagerTensor:
        x = one(x, "tnp.matrix_transpose")
    n = x.ndim
    if n < 2:
        raise ArgumentError(
            f"tnp.matrix_transpose: x has shape {list(x.shape)}; it needs at least two axes (..., M, N)"
        )
    return x._rt.current_session().permute_dims(x, (*range(n - 2), n - 1, n - 2))


def tensordot(x1: Any, x2: Any, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> EagerTensor:
    """Sum of products of x1's and x2's elements over ``axes``: an int N (x1's last N with
    x2's first N) or a pair of axis sequences; the result has x1's free axes, then x2's."""
    if type(x1) is not EagerTensor or type(x2) is not EagerTensor:
        x1, x2 = two(x1, x2, "tnp.tensordot")
    if type(axes) is not int and not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        raise ArgumentError(
            f"tnp.tensordot: axes must be an int or a pair of axis sequences ((x1 axes), (x2 axes)), got {axes!r}"
        )
    if axes == 2 and type(axes) is int:
        return run("tnp.tensordot", OPERANDS, x1._rt.current_session().tensordot, x1, x2)
    return run("tnp.tensordot", OPERANDS, x1._rt.current_session().tensordot, x1, x2, axes)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> EagerTensor:
    """The dot product Σ conj(x1)·x2 along ``axis``, the other axes broadcast."""
    if type(x1) is not EagerTensor or type(x2) is not EagerTensor:
        x1, x2 = two(x1, x2, "tnp.vecdot")
    if axis >= 0:  # the standard counts the axis from the end of each operand
        n = min(x1.ndim, x2.ndim)
        if axis >= n:
            raise AxisError(f"tnp.vecdot: axis {axis} is out of range for operands of {n} axes")
        axis -= n
    s = x1._rt.current_session()
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
        x if type(x) is EagerTensor else array(rt, x, "tnp.einsum", f"operands[{i}]") for i, x in enumerate(operands)
    ]
    return run("tnp.einsum", {}, rt.current_session().einsum, arrays, subscripts)


def dot(a: Any, b: Any, /) -> EagerTensor:
    """NumPy's ``dot``: a product with a 0-d operand, else the sum over a's last axis and b's
    second-to-last (its only one for a 1-D b)."""
    a, b = two(a, b, "tnp.dot")
    s = a._rt.current_session()
    if a.ndim == 0 or b.ndim == 0:
        return run("tnp.dot", OPERANDS, s.mul, a, b)
    return run("tnp.dot", OPERANDS, s.tensordot, a, b, ((a.ndim - 1,), (max(b.ndim - 2, 0),)))
