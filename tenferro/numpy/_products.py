"""NumPy's products beyond the array API's (``inner``, ``vdot``, ``kron``, ``cross``
in NumPy's signature, ``matvec``, ``vecmat``), each a contraction or an elementwise
product of reshaped operands, so they differentiate, complex numbers too."""

from __future__ import annotations

from typing import Any

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import ravel
from ._composed import numpy_name

__all__ = ["cross", "inner", "kron", "matvec", "vdot", "vecmat"]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


@numpy_name
def inner(a: Any, b: Any, /) -> EagerTensor:
    """The sum of products over the last axes of a and b (a product with a 0-d operand)."""
    a, b = _array(a), _array(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tnp.tensordot(a, b, axes=((-1,), (-1,)))


@numpy_name
def vdot(a: Any, b: Any, /) -> EagerTensor:
    """The dot product of the flattened a and b, a conjugated: sum(conj(a)·b)."""
    a, b = ravel(a), ravel(b)
    return tnp.sum((tnp.conj(a) if a.dtype.kind == "c" else a) * b)


@numpy_name
def kron(a: Any, b: Any) -> EagerTensor:
    """The Kronecker product: blocks a[i]·b, the operands given the same number of axes
    by leading 1s, as NumPy's kron."""
    a, b = _array(a), _array(b)
    ndim = max(a.ndim, b.ndim)
    sa, sb = (1,) * (ndim - a.ndim) + a.shape, (1,) * (ndim - b.ndim) + b.shape
    spread_a = tnp.reshape(a, tuple(n for size in sa for n in (size, 1)))
    spread_b = tnp.reshape(b, tuple(n for size in sb for n in (1, size)))
    return tnp.reshape(spread_a * spread_b, tuple(x * y for x, y in zip(sa, sb, strict=True)))


@numpy_name
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> EagerTensor:
    """The cross product of the 3-vectors (or 2-vectors, given a zero third component)
    along `axisa` of a and `axisb` of b, the result's vectors along `axisc` (`axis` sets
    all three); two 2-vectors give the z component alone, as NumPy's cross."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = tnp.moveaxis(_array(a), axisa, -1), tnp.moveaxis(_array(b), axisb, -1)
    sizes = (a.shape[-1], b.shape[-1])
    if not set(sizes) <= {2, 3}:
        raise ArgumentError(f"the vectors have {sizes[0]} and {sizes[1]} components; cross takes 2 or 3")
    if sizes == (2, 2):
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a, b = _three(a), _three(b)
    return tnp.moveaxis(tnp.linalg.cross(a, b, axis=-1), -1, axisc)


def _three(v: EagerTensor) -> EagerTensor:
    if v.shape[-1] == 3:
        return v
    return tnp.concat([v, tnp.zeros((*v.shape[:-1], 1), dtype=v.dtype)], axis=-1)


@numpy_name
def matvec(x1: Any, x2: Any, /) -> EagerTensor:
    """The matrix-vector product of the stacks x1 (..., m, n) and x2 (..., n): (..., m)."""
    x2 = _array(x2)
    return tnp.matmul(x1, x2[..., None])[..., 0]


@numpy_name
def vecmat(x1: Any, x2: Any, /) -> EagerTensor:
    """The vector-matrix product conj(x1) (..., n) times x2 (..., n, m): (..., m)."""
    x1 = _array(x1)
    x1 = tnp.conj(x1) if x1.dtype.kind == "c" else x1
    return tnp.matmul(x1[..., None, :], x2)[..., 0, :]
