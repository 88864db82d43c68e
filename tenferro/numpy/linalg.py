"""``tnp.linalg``: the array API's linalg extension (2024.12) on the linalg ops, plus
NumPy's ``norm``, ``eig`` and ``eigvals``, and NumPy's other names (``lstsq``, ``cond``,
``multi_dot``, ``tensorsolve``, ``tensorinv``: :mod:`._linalg_more`).

Every function records and differentiates except ``matrix_rank`` (an integer constant)
and ``lstsq``'s rank (an int).
The decompositions return the standard's named tuples (``EighResult``, ``QRResult``,
``SlogdetResult``, ``SVDResult``), NumPy's field names. Pinned choices (DESIGN §11):
``eigh``/``eigvalsh`` give ascending eigenvalues; ``svd`` has ``full_matrices=True`` by
default, as the standard, but its ``U``/``Vh`` are differentiable only with
``full_matrices=False`` (or a square x).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..core.arguments import flag, integer, shown
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, AxisError, DTypeError, TenferroError, UnknownName
from ..core.tracing import note_read
from ..plugins.linalg.batching import NotPositiveDefinite, SingularMatrix
from ._dispatch import OPERANDS, X, array_arg, array_pair, as_array, renamed, run, unary
from ._linear import matmul, matrix_transpose, outer, tensordot, vecdot

__all__ = [
    "NotPositiveDefinite",
    "SingularMatrix",
    "EigResult",
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]


class EighResult(NamedTuple):
    eigenvalues: EagerTensor
    eigenvectors: EagerTensor


class EigResult(NamedTuple):
    eigenvalues: EagerTensor
    eigenvectors: EagerTensor


class QRResult(NamedTuple):
    Q: EagerTensor
    R: EagerTensor


class SlogdetResult(NamedTuple):
    sign: EagerTensor
    logabsdet: EagerTensor


class SVDResult(NamedTuple):
    U: EagerTensor
    S: EagerTensor
    Vh: EagerTensor


def _unary(name: str, doc: str) -> Any:
    """``name(x, /)``: the op of the same name on x's session."""
    function = unary(name, name, doc, f"tnp.linalg.{name}", X)
    function.__module__ = __name__
    return function


det = _unary("det", "The determinant of each matrix of x (..., M, M).")
inv = _unary("inv", "The inverse of each matrix of x (..., M, M); a singular matrix is a SingularMatrix error.")
eigvalsh = _unary(
    "eigvalsh",
    "The eigenvalues of each symmetric (Hermitian) matrix of x, ascending and real; x's Hermitian part "
    "(x + xᴴ)/2 is read, so the gradient is symmetric.",
)
svdvals = _unary("svdvals", "The singular values of each matrix of x, descending and real.")
eigvals = _unary(
    "eigvals",
    "NumPy's eigvals: the eigenvalues of each square matrix of x, always complex, sorted by real part then "
    "imaginary part (LAPACK's order is not smooth in x).",
)


def cholesky(x: Any, /, *, upper: bool = False) -> EagerTensor:
    """The Cholesky factor L (lower; U = Lᴴ with ``upper=True``) of each Hermitian positive
    definite matrix of x; NotPositiveDefinite otherwise."""
    x = array_arg(x, "tnp.linalg.cholesky")
    if flag(upper, "tnp.linalg.cholesky", "upper"):
        return run("tnp.linalg.cholesky", X, x.runtime.current_session().cholesky, x, True)
    return run("tnp.linalg.cholesky", X, x.runtime.current_session().cholesky, x)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> EagerTensor:
    """The cross product of the 3-vectors along ``axis`` of x1 and x2 (broadcasting)."""
    x1, x2 = array_pair(x1, x2, "tnp.linalg.cross")
    axis = integer(axis, "tnp.linalg.cross", "axis")
    if x1.dtype.kind in "biu" and x2.dtype.kind in "biu":  # the op is for floats; integers have no derivative
        _vectors(x1, x2, axis)
        return x1.runtime.constant_from(np.cross(np.asarray(x1), np.asarray(x2), axis=axis))
    if axis == -1:  # the op's default: its fast path binds no params
        return run("tnp.linalg.cross", OPERANDS, x1.runtime.current_session().cross, x1, x2)
    return run("tnp.linalg.cross", OPERANDS, x1.runtime.current_session().cross, x1, x2, axis)


def diagonal(x: Any, /, *, offset: int = 0) -> EagerTensor:
    """The diagonal ``offset`` above the main one of each matrix in x's last two axes."""
    x = array_arg(x, "tnp.linalg.diagonal")
    _matrix(x, "tnp.linalg.diagonal")
    return run("tnp.linalg.diagonal", {}, x.runtime.current_session().diagonal, x, offset, -2, -1)


def eigh(x: Any, /) -> EighResult:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric (Hermitian) matrix
    of x; x's Hermitian part (x + xᴴ)/2 is read (as JAX's, and cholesky), so the gradient
    is symmetric. Gauge: each eigenvector's largest-magnitude entry is real and positive."""
    x = array_arg(x, "tnp.linalg.eigh")
    return EighResult(*run("tnp.linalg.eigh", X, x.runtime.current_session().eigh, x))


def eig(x: Any, /) -> EigResult:
    """NumPy's eig: (eigenvalues, eigenvectors as columns) of each square matrix of x, always
    complex, sorted by real part then imaginary part; unit eigenvectors."""
    x = array_arg(x, "tnp.linalg.eig")
    return EigResult(*run("tnp.linalg.eig", X, x.runtime.current_session().eig, x))


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: int | float | str | None = "fro") -> EagerTensor:
    """The norm ``ord`` (fro, nuc, 1, -1, 2, -2, inf, -inf) of each matrix in x's last two
    axes; real for a complex x."""
    x = array_arg(x, "tnp.linalg.matrix_norm")
    keepdims = flag(keepdims, "tnp.linalg.matrix_norm", "keepdims")
    ord = _order(ord, "tnp.linalg.matrix_norm", ("fro", "nuc"))
    if (ord == "fro" or ord is None) and not keepdims:
        return run("tnp.linalg.matrix_norm", {}, x.runtime.current_session().matrix_norm, x)
    return run(
        "tnp.linalg.matrix_norm",
        {},
        x.runtime.current_session().matrix_norm,
        x,
        "fro" if ord is None else ord,
        keepdims,
    )


def vector_norm(
    x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, ord: int | float = 2
) -> EagerTensor:
    """The vector norm ``ord`` of x over ``axis`` (None: all of x, as one vector); real for
    a complex x. Any real ord: p >= 1, 0 (the count of nonzeros), inf, -inf are the op's;
    other p < 1 (not norms) are NumPy's (Σ|x|**p)**(1/p)."""
    x = array_arg(x, "tnp.linalg.vector_norm")
    keepdims = flag(keepdims, "tnp.linalg.vector_norm", "keepdims")
    ord = _order(ord, "tnp.linalg.vector_norm", ())
    if axis is None and ord == 2 and not keepdims and type(ord) is int:
        return run("tnp.linalg.vector_norm", {}, x.runtime.current_session().vector_norm, x)
    if isinstance(axis, list):
        axis = tuple(axis)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord < 1 and ord != 0 and ord != -math.inf:
        # not a norm, so not the op's; NumPy's (sum |x|**ord)**(1/ord), differentiable where x != 0
        s = x.runtime.current_session()
        total = run("tnp.linalg.vector_norm", {}, s.reduce_sum, s.pow(s.abs(x), float(ord)), axis, keepdims)
        return s.pow(total, 1.0 / ord)
    return run("tnp.linalg.vector_norm", {}, x.runtime.current_session().vector_norm, x, axis, keepdims, ord)


def matrix_power(x: Any, n: int, /) -> EagerTensor:
    """x to the integer power n (n = 0: the identity; n < 0: powers of the inverse)."""
    x = array_arg(x, "tnp.linalg.matrix_power")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ArgumentError(f"tnp.linalg.matrix_power: n must be an int, got {type(n).__name__}")
    return run("tnp.linalg.matrix_power", X, x.runtime.current_session().matrix_power, x, int(n))


def matrix_rank(x: Any, /, *, rtol: float | Any | None = None) -> EagerTensor:
    """The rank of each matrix of x: the singular values above ``rtol``·max(s) (default
    max(M, N)·eps), an int64 constant (no derivative)."""
    x = array_arg(x, "tnp.linalg.matrix_rank")
    _matrix(x, "tnp.linalg.matrix_rank")
    note_read(x, "tnp.linalg.matrix_rank")
    value = held(x)  # the rank has no derivative: a read, not an exit
    if value.dtype.kind not in "fc":
        raise DTypeError(f"tnp.linalg.matrix_rank: x has dtype {value.dtype}; it must be a float or complex array")
    if not np.all(np.isfinite(value)):  # LAPACK's svd fails on them with a bare LinAlgError
        raise ArgumentError("tnp.linalg.matrix_rank: x has nan or inf entries; the rank needs a finite matrix")
    s = np.linalg.svd(value, compute_uv=False)
    if rtol is None:
        rtol = max(value.shape[-2:]) * np.finfo(value.dtype).eps
    else:  # a cutoff of an integer count: its value is read, it has no derivative
        rtol = _real(held(rtol) if type(rtol) is EagerTensor else rtol, "tnp.linalg.matrix_rank", "rtol")[..., None]
    tol = rtol * (s.max(axis=-1, keepdims=True) if s.shape[-1] else 0.0)
    return x.runtime.constant_from(np.count_nonzero(s > tol, axis=-1).astype(np.int64))


def pinv(x: Any, /, *, rtol: float | Any | None = None) -> EagerTensor:
    """The Moore-Penrose pseudo-inverse of each matrix of x, the singular values at or below
    ``rtol``·max(s) taken as zero. ``rtol=None`` is the pinv op (NumPy's cutoff, 1e-15, and
    the derivative at constant rank); an explicit ``rtol`` composes it from ``svd``, whose
    gradient needs distinct singular values."""
    x = array_arg(x, "tnp.linalg.pinv")
    s = x.runtime.current_session()
    given = None if rtol is None else array_or_number(x.runtime, rtol)  # (checked before it is used)
    if given is None or 0 in x.shape[-2:]:  # (a matrix without entries has no singular value to cut)
        return run("tnp.linalg.pinv", X, s.pinv, x)
    u, sv, vh = run("tnp.linalg.pinv", X, s.svd, x, full_matrices=False)
    cutoff = s.mul(s.reduce_max(sv, axes=-1, keepdims=True), given)
    keep = s.compare(sv, cutoff, "gt")
    safe = s.where_select(keep, sv, 1.0)
    inverse = s.where_select(keep, s.reciprocal(safe), 0.0)
    if inverse.dtype != vh.dtype:
        inverse = s.astype(inverse, vh.dtype)
    # x⁺ = V diag(1/s) Uᴴ
    v = s.conj(matrix_transpose(vh))
    return s.matmul(s.mul(v, s.expand_dims(inverse, -2)), s.conj(matrix_transpose(u)))


def array_or_number(rt: Any, value: Any) -> Any:
    """An rtol: a Python number as it is, an array as a constant with a trailing axis (to
    broadcast against each matrix's singular values)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if type(value) is not EagerTensor:
        value = as_array(rt, _real(value, "tnp.linalg.pinv", "rtol"), "tnp.linalg.pinv", "rtol")
    elif value.dtype.kind not in "iuf":
        raise DTypeError(f"tnp.linalg.pinv: rtol must be real numbers, got a tensor of dtype {value.dtype}")
    return run("tnp.linalg.pinv", {"x": "rtol"}, rt.current_session().expand_dims, value, -1)


def qr(x: Any, /, *, mode: str = "reduced") -> QRResult:
    """(Q, R) with x = Q R, Q with orthonormal columns and R upper triangular with a real,
    non-negative diagonal. ``mode="complete"`` gives Q of shape (..., M, M): the reduced QR
    of [x | I], whose first N columns of R are x's."""
    x = array_arg(x, "tnp.linalg.qr")
    _matrix(x, "tnp.linalg.qr")
    if type(mode) is not str:
        raise ArgumentError(f"tnp.linalg.qr: mode must be 'reduced' or 'complete', got {shown(mode)}")
    s = x.runtime.current_session()
    if mode == "reduced" or (mode == "complete" and x.shape[-2] <= x.shape[-1]):
        return QRResult(*run("tnp.linalg.qr", X, s.qr, x))
    if mode != "complete":
        raise ArgumentError(f"tnp.linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    m, n = x.shape[-2:]
    eye = x.runtime.constant_from(np.broadcast_to(np.eye(m, dtype=x.dtype), (*x.shape[:-2], m, m)))
    q, r = run("tnp.linalg.qr", X, s.qr, s.concat([x, eye], axis=-1))
    return QRResult(q, s.slice(r, (Ellipsis, slice(None), slice(0, n))))


def slogdet(x: Any, /) -> SlogdetResult:
    """(sign, logabsdet) of each matrix of x: det = sign·exp(logabsdet); a singular matrix
    gives (0, -inf). A complex x has a complex sign of modulus 1."""
    x = array_arg(x, "tnp.linalg.slogdet")
    return SlogdetResult(*run("tnp.linalg.slogdet", X, x.runtime.current_session().slogdet, x))


def solve(x1: Any, x2: Any, /) -> EagerTensor:
    """The solution of x1 · result = x2 for each square matrix of x1; x2 a vector (M,) when
    1-D, else (..., M, K), batches broadcasting."""
    x1, x2 = array_pair(x1, x2, "tnp.linalg.solve")
    return run("tnp.linalg.solve", OPERANDS, x1.runtime.current_session().solve, x1, x2)


def svd(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """(U, S, Vh) with x = U diag(S) Vh, S descending and real. ``full_matrices=True`` (the
    standard's default) gives square U and Vh; their gradient is defined only for
    ``full_matrices=False`` or a square x. Gauge: each column of U has its largest-magnitude
    entry real and positive."""
    x = array_arg(x, "tnp.linalg.svd")
    return SVDResult(
        *run(
            "tnp.linalg.svd",
            X,
            x.runtime.current_session().svd,
            x,
            flag(full_matrices, "tnp.linalg.svd", "full_matrices"),
        )
    )


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> EagerTensor:
    """The sum of the diagonal ``offset`` of each matrix in x's last two axes (signed
    integers narrower than int64 sum as int64, unsigned ones as uint64)."""
    x = array_arg(x, "tnp.linalg.trace")
    _matrix(x, "tnp.linalg.trace")
    offset = integer(offset, "tnp.linalg.trace", "offset")
    s = x.runtime.current_session()
    if dtype is None:
        kind = x.dtype.kind
        target = np.dtype(np.int64 if kind == "i" else np.uint64) if kind in "iu" and x.dtype.itemsize < 8 else None
    else:
        try:
            target = np.dtype(dtype)
        except (TypeError, ValueError):
            raise DTypeError(
                f"tnp.linalg.trace: dtype must be a dtype (np.float64, 'float32', x.dtype), got {dtype!r}"
            ) from None
    if target is not None and target != x.dtype:
        x = run("tnp.linalg.trace", X, s.astype, x, target)
    return s.reduce_sum(s.diagonal(x, offset, -2, -1), axes=-1)


def norm(
    x: Any, ord: int | float | str | None = None, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> EagerTensor:
    """NumPy's ``linalg.norm``: a vector norm over one axis (or all of x when ``axis`` and
    ``ord`` are None, or x is 1-D), a matrix norm over two (``axis`` a pair, or a 2-D x)."""
    try:
        return _norm(array_arg(x, "tnp.linalg.norm"), ord, axis, keepdims)
    except TenferroError as exc:  # the vector or matrix norm's error, as the function called
        raise renamed(exc, "tnp.linalg.norm") from None


def _norm(x: EagerTensor, ord: Any, axis: Any, keepdims: Any) -> EagerTensor:
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        if x.ndim == 1:
            return vector_norm(x, ord=ord, keepdims=keepdims)
        if x.ndim == 2:
            return matrix_norm(x, ord=ord, keepdims=keepdims)
        raise ArgumentError(
            f"tnp.linalg.norm: x has {x.ndim} axes; with ord={ord!r} pass axis (one axis: a vector norm, "
            f"two: a matrix norm)"
        )
    if isinstance(axis, (int, np.integer)) or (isinstance(axis, (tuple, list)) and len(axis) == 1):
        return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)
    if not (isinstance(axis, (tuple, list)) and len(axis) == 2):
        raise ArgumentError(f"tnp.linalg.norm: axis must be None, an int or a pair of ints, got {axis!r}")
    n = x.ndim
    rows, cols = (a + n if a < 0 else a for a in (integer(a, "tnp.linalg.norm", "axis") for a in axis))
    if not (0 <= rows < n and 0 <= cols < n) or rows == cols:
        raise AxisError(f"tnp.linalg.norm: axis {tuple(axis)} is not a pair of distinct axes of x ({n} axes)")
    s = x.runtime.current_session()
    moved = s.moveaxis(x, (rows, cols), (-2, -1))
    result = matrix_norm(moved, ord="fro" if ord is None else ord, keepdims=keepdims)
    return s.moveaxis(result, (-2, -1), (rows, cols)) if keepdims else result


def _order(ord: Any, function: str, names: tuple[str, ...]) -> Any:
    """A norm's ``ord``: None, one of ``names`` or a real number (which the op checks);
    anything else (an array, a complex number) an ArgumentError naming it."""
    if ord is None or (type(ord) is str and ord in names):
        return ord
    if isinstance(ord, (int, float, np.integer, np.floating)) and not isinstance(ord, (bool, np.bool_)):
        return ord
    accepted = ", ".join(repr(n) for n in names) + ", " if names else ""
    raise ArgumentError(f"{function}: ord must be {accepted}a real number or None, got {shown(ord)}")


def _real(value: Any, function: str, argument: str) -> np.ndarray:
    """A tolerance: a real number or an array of them, as a NumPy array."""
    try:
        array = np.asarray(value) if isinstance(value, (int, float, np.generic, np.ndarray, list, tuple)) else None
    except (TypeError, ValueError):  # a ragged list, an array of tensors
        array = None
    if array is None or array.dtype.kind not in "iuf":
        raise ArgumentError(f"{function}: {argument} must be a real number or an array of them, got {shown(value)}")
    return array


def _vectors(x1: EagerTensor, x2: EagerTensor, axis: int) -> None:
    """The checks of the cross op, for the integer arrays NumPy computes."""
    for name, x in (("x1", x1), ("x2", x2)):
        if not -x.ndim <= axis < x.ndim or x.shape[axis] != 3:
            raise ArgumentError(
                f"tnp.linalg.cross: {name} has shape {list(x.shape)}; axis {axis} must be an axis of size 3"
            )


def _matrix(x: EagerTensor, label: str) -> None:
    if x.ndim < 2:
        raise ArgumentError(f"{label}: x has shape {list(x.shape)}; it needs at least two axes (..., M, N)")


from ._linalg_more import cond, lstsq, multi_dot, tensorinv, tensorsolve  # noqa: E402  (they use the above)


def __getattr__(name: str) -> object:
    import numpy.linalg

    raise UnknownName.of("tnp.linalg", name, __all__, numpy=numpy.linalg)
