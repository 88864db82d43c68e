"""What the linalg family's ops share: batching over leading axes as NumPy's linalg does,
the family's errors (:class:`SingularMatrix`, :class:`NotPositiveDefinite`), the shape
checks of a matrix argument and a right-hand side, and the helpers the VJP rules are
written with (the matrix product is the ``contract`` family's ``matmul``; transposes and
diagonals come from ``shape`` and ``elementwise`` ops). The sample strategies are in
:mod:`.samples` (hypothesis is a test-only dependency); the references' batching loop and
the matrices the error inputs share are at the end.

Every matrix argument is ``(..., M, N)``: the last two axes are the matrix, the leading ones
a batch that broadcasts between operands (NumPy's rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ShapeMismatch, TenferroError, broadcastable, conj


# -- errors --------------------------------------------------------------------------------------
class SingularMatrix(ArgumentError, np.linalg.LinAlgError):
    """A matrix the op must invert (solve, inv, a negative matrix_power, lstsq's factor) is
    exactly singular; the message names the op and the batch index. Also NumPy's
    LinAlgError, so ``except np.linalg.LinAlgError`` catches it as it catches NumPy's."""

    #: The first singular matrix of a batch (None unbatched, or where the op does not say).
    batch_index: tuple[int, ...] | None = None


class NotPositiveDefinite(ArgumentError, np.linalg.LinAlgError):
    """cholesky's argument is not (numerically) positive definite; the message names the
    batch index. Also NumPy's LinAlgError, as SingularMatrix."""

    #: The first matrix of a batch that is not positive definite (None as SingularMatrix's).
    batch_index: tuple[int, ...] | None = None


def batch_where(op: str, arg: str, bad: Any, batch: tuple[int, ...]) -> str:
    """``'a'`` or ``'a at batch index (1, 0)'``: where in a batch the first bad matrix is,
    from a bool array over the batch shape (True where bad)."""
    if not batch:
        return f"{op}: {arg}"
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{op}: {arg} at batch index {first if len(first) > 1 else first[0]}"


def explain_nonfinite(op: str, arg: str = "a") -> Any:
    """An ``explain`` for kernels that LAPACK fails on (or silently fills with nan) when the
    matrix has nan or inf entries: the ArgumentError naming the op and the batch index."""

    def explain(a: Any, *rest: Any, **params: Any) -> TenferroError | None:
        if np.ndim(a) < 2:
            return None
        bad = ~np.all(np.isfinite(a), axis=(-2, -1))
        if not np.any(bad):
            return None
        where = batch_where(op, arg, bad, np.shape(a)[:-2])
        return ArgumentError(f"{where} has nan or inf entries; {op} needs a finite matrix")

    return explain


def singular_error(op: str, a: Any, arg: str = "a", hint: str = "") -> SingularMatrix:
    """The SingularMatrix error for ``a`` (..., n, n): which matrix of the batch is singular
    (an exactly zero pivot of its LU factorisation, as LAPACK reports it)."""
    sign, _ = np.linalg.slogdet(a)
    where = batch_where(op, arg, np.equal(sign, 0), np.shape(a)[:-2])
    return SingularMatrix(f"{where} is a singular matrix{hint}")


def check_matrix(op: str, arg: str, x: Any, square: bool = False) -> tuple[int, int]:
    """The (rows, columns) of a matrix argument (its last two axes); ShapeMismatch unless it
    has at least two dims (and is square, with ``square``)."""
    shape = np.shape(x)
    if len(shape) < 2:
        raise ShapeMismatch(f"{op}: {arg} has shape {list(shape)}; it must be a matrix (..., M, N), at least 2-D")
    if square and shape[-1] != shape[-2]:
        raise ShapeMismatch(f"{op}: {arg} has shape {list(shape)}; its last two axes must be square (..., M, M)")
    return shape[-2], shape[-1]


def check_rhs(op: str, a: Any, b: Any, rows: int) -> None:
    """NumPy 2's rule for a right-hand side: b is a vector (M,) only when b.ndim == 1, else a
    stack of matrices (..., M, K) whose batch broadcasts with a's; ShapeMismatch naming both."""
    sa, sb = list(np.shape(a)), list(np.shape(b))
    if len(sb) == 0:
        raise ShapeMismatch(f"{op}: b is 0-d; it must be a vector (M,) or a stack of matrices (..., M, K)")
    if len(sb) == 1:
        if sb[0] != rows:
            raise ShapeMismatch(f"{op}: a has shape {sa} and b has shape {sb}; the vector b needs a's {rows} rows")
        return
    if sb[-2] != rows:
        raise ShapeMismatch(
            f"{op}: a has shape {sa} and b has shape {sb}; b's second-to-last axis must be a's {rows} rows "
            f"(b is (..., M, K) when b.ndim > 1, as NumPy 2's solve; give a vector as 1-D)"
        )
    if not broadcastable([tuple(sa[:-2]), tuple(sb[:-2])]):
        raise ShapeMismatch(f"{op}: a has shape {sa} and b has shape {sb}; their batch axes do not broadcast")


# -- the helpers rules are written with (session ops) ------------------------------------------
def mT(s: Any, x: Any) -> Any:  # noqa: N802 (the array API's name for the matrix transpose)
    """The matrix transpose of x (..., M, N) -> (..., N, M) (a view, with shape's moveaxis)."""
    return s.moveaxis(x, -1, -2)


def mH(s: Any, x: Any) -> Any:  # noqa: N802 (the array API's name for the conjugate transpose)
    """The conjugate transpose of x (..., M, N) -> (..., N, M): :func:`mT` for a real x (no
    conj recorded). Where a real rule transposes, a complex one takes this (the adjoint in
    the real inner product Re(conj(a)·b))."""
    return conj(s, s.moveaxis(x, -1, -2))


def column(s: Any, v: Any) -> Any:
    """A vector (..., M) as a one-column matrix (..., M, 1)."""
    return s.expand_dims(v, -1)


def times(s: Any, m: Any, x: Any, vector: bool) -> Any:
    """m @ x for a stack of matrices m and x a stack of matrices, or of vectors (``vector``:
    a solve's x for a 1-D b, batched when a is)."""
    if not vector or x.ndim == 1:
        return s.matmul(m, x)
    return s.squeeze(s.matmul(m, column(s, x)), -1)


def as_result(s: Any, t: Any, out: Any) -> Any:
    """A solve's tangent in its result's dtype (a real tangent of a complex solve's real
    operand) and shape (a tangent of the operand with the smaller batch)."""
    if t.dtype != out.dtype:
        t = s.astype(t, out.dtype)
    if t.shape != out.shape:
        t = s.broadcast_to(t, out.shape)
    return t


def scale_matrices(s: Any, g: Any, m: Any) -> Any:
    """g (...) times each matrix of m (..., M, N)."""
    return s.mul(s.expand_dims(g, (-2, -1)) if g.ndim else g, m)


def scale_columns(s: Any, x: Any, d: Any) -> Any:
    """x @ diag(d)."""
    return s.mul(x, s.expand_dims(d, -2))


def scale_rows(s: Any, d: Any, x: Any) -> Any:
    """diag(d) @ x."""
    return s.mul(s.expand_dims(d, -1), x)


def constant(s: Any, array: Any) -> Any:
    return s.runtime.constant_from(np.asarray(array))


def eye(s: Any, n: int, dtype: Any) -> Any:
    return constant(s, np.eye(n, dtype=dtype))


def diag_embed(s: Any, d: Any) -> Any:
    """The diagonal matrices with diagonal d (its last axis)."""
    return s.mul(s.expand_dims(d, -1), eye(s, d.shape[-1], d.dtype))


def lazy(name: str, module: str = "samples", **kwargs: Any) -> Callable[[], Any]:
    """A spec's ``sample``: ``<module>.<name>(**kwargs)`` (a module of this package),
    imported when samples are drawn (hypothesis is a test-only dependency)."""

    def make() -> Any:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(**kwargs)

    return make


# -- for references and error inputs ---------------------------------------------------------------
SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]])
SINGULAR = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 4.0]])])  # batch index 1 is singular


def batched_reference(fn: Any, *arrays: Any, vector_b: bool = False) -> np.ndarray:
    """A reference: ``fn`` applied matrix by matrix over the broadcast batch."""
    arrays = [np.asarray(x, np.result_type(x, float)) for x in arrays]  # float64 or complex128
    if vector_b:
        arrays[1] = arrays[1][:, None]
    batch = np.broadcast_shapes(*(x.shape[:-2] for x in arrays))
    parts = [np.broadcast_to(x, batch + x.shape[-2:]) for x in arrays]
    out = np.array([fn(*(p[i] for p in parts)) for i in np.ndindex(batch)]) if batch else fn(*parts)
    out = out.reshape(batch + np.shape(out)[-2:]) if batch else out
    return out[..., 0] if vector_b else out
