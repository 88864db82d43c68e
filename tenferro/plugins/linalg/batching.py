"""What the linalg family's ops share: batching over leading axes as NumPy's linalg does,
the family's errors (:class:`SingularMatrix`, :class:`NotPositiveDefinite`), the
family-internal batched matrix product ``linalg_matmul`` its VJPs are written with (the
``contract`` family's ``matmul`` is written in parallel; this one is all the rules need),
and the sample strategies of well-conditioned matrices.

Every matrix argument is ``(..., M, N)``: the last two axes are the matrix, the leading ones
a batch that broadcasts between operands (NumPy's rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ErrorInput, OpSpec, SampleInput, ShapeMismatch, broadcastable, unbroadcast


# -- errors --------------------------------------------------------------------------------------
class SingularMatrix(ArgumentError):
    """A matrix the op must invert (solve, inv, a negative matrix_power, lstsq's factor) is
    exactly singular; the message names the op and the batch index."""


class NotPositiveDefinite(ArgumentError):
    """cholesky's argument is not (numerically) positive definite; the message names the
    batch index."""


def batch_where(op: str, arg: str, bad: Any, batch: tuple[int, ...]) -> str:
    """``'a'`` or ``'a at batch index (1, 0)'``: where in a batch the first bad matrix is,
    from a bool array over the batch shape (True where bad)."""
    if not batch:
        return f"{op}: {arg}"
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{op}: {arg} at batch index {first if len(first) > 1 else first[0]}"


def singular_error(op: str, a: Any, arg: str = "a", hint: str = "") -> SingularMatrix:
    """The SingularMatrix error for ``a`` (..., n, n): which matrix of the batch is singular
    (an exactly zero pivot of its LU factorisation, as LAPACK reports it)."""
    sign, _ = np.linalg.slogdet(a)
    where = batch_where(op, arg, np.equal(sign, 0), np.shape(a)[:-2])
    return SingularMatrix(f"{where} is a singular matrix{hint}")


def matrix_shape(op: str, arg: str, x: Any, square: bool = False) -> tuple[int, int]:
    """The (rows, columns) of a matrix argument; ShapeMismatch unless it has at least two
    dims (and is square, with ``square``)."""
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


# -- the helpers rules are written with ------------------------------------------------------------
def mT(s: Any, x: Any) -> Any:
    """The matrix transpose of x (..., M, N) -> (..., N, M) (a view, with shape's moveaxis)."""
    return s.moveaxis(x, -1, -2)


def mm(s: Any, a: Any, b: Any) -> Any:
    """The batched matrix product of two (..., M, N) tensors (the family's linalg_matmul)."""
    return s.linalg_matmul(a, b)


def column(s: Any, v: Any) -> Any:
    """A vector (..., M) as a one-column matrix (..., M, 1)."""
    return s.expand_dims(v, -1)


def scale_matrices(s: Any, g: Any, m: Any) -> Any:
    """g (...) times each matrix of m (..., M, N)."""
    return s.mul(s.expand_dims(g, (-2, -1)) if g.ndim else g, m)


# -- linalg_matmul --------------------------------------------------------------------------------
def _matmul(a: Any, b: Any) -> Any:
    matrix_shape("linalg_matmul", "a", a)
    matrix_shape("linalg_matmul", "b", b)
    if np.shape(a)[-1] != np.shape(b)[-2]:
        raise ShapeMismatch(
            f"linalg_matmul: a has shape {list(np.shape(a))} and b has shape {list(np.shape(b))}; a's last axis "
            f"must match b's second-to-last (the contracted axis)"
        )
    if not broadcastable([np.shape(a)[:-2], np.shape(b)[:-2]]):
        raise ShapeMismatch(
            f"linalg_matmul: a has shape {list(np.shape(a))} and b has shape {list(np.shape(b))}; their batch "
            f"axes do not broadcast"
        )
    return np.matmul(a, b)


def _matmul_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
        batch_a, batch_b = draw(st.sampled_from([((), ()), ((2,), (2,)), ((2,), ()), ((1,), (3,)), ((2, 1), (2,))]))
        return SampleInput((draw(floats_array((*batch_a, m, k))), draw(floats_array((*batch_b, k, n)))))

    return sample()


LINALG_MATMUL = OpSpec(
    name="linalg_matmul",
    internal=True,
    inputs=("a", "b"),
    forward=_matmul,
    vjps=(
        lambda s, g, out, a, b: mm(s, g, mT(s, b)),
        lambda s, g, out, a, b: mm(s, mT(s, a), g),
    ),
    unbroadcast=unbroadcast,
    multilinear=True,
    accepts="f",
    sample=_matmul_sample,
    reference=lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
    error_inputs=lambda: [
        ErrorInput(
            (np.zeros((2, 3)), np.zeros((2, 3))), {}, ShapeMismatch, "a has shape [2, 3] and b has shape [2, 3]"
        ),
        ErrorInput((np.zeros(3), np.zeros((3, 3))), {}, ShapeMismatch, "at least 2-D"),
        ErrorInput((np.zeros((2, 2, 2)), np.zeros((3, 2, 2))), {}, ShapeMismatch, "batch axes do not broadcast"),
    ],
    doc="Batched matrix product of (..., M, K) and (..., K, N), batch axes broadcasting: what the linalg "
    "family's VJPs are written with.",
)


# -- samples: well-conditioned matrices -----------------------------------------------------------
def orthogonal(draw: Any, n: int, batch: tuple[int, ...]) -> np.ndarray:
    """A (batch..., n, n) stack of orthogonal matrices (Q of a drawn matrix's QR)."""
    from tenferro.testing.strategies import floats_array

    return np.linalg.qr(draw(floats_array((*batch, n, n), -1.0, 1.0)) + 2.0 * np.eye(n)).Q


def conditioned(draw: Any, n: int, batch: tuple[int, ...] = (), kind: str = "general", m: int | None = None) -> Any:
    """A stack of well-conditioned matrices: Q diag(d) Rᵀ with Q, R orthogonal and |d| in
    [1, 3] (``kind="general"``, d's signs drawn too), Q diag(d) Qᵀ with d in [1, 3]
    (``"spd"``), or an (m, n) matrix of full rank with singular values in [1, 3]
    (``"rect"``)."""
    from tenferro.testing.strategies import floats_array

    rows = n if m is None else m
    k = min(rows, n)
    d = draw(floats_array((*batch, k), 1.0, 3.0))
    if kind == "general":
        d = d * np.where(draw(floats_array((*batch, k), -1.0, 1.0)) < 0, -1.0, 1.0)
    q = orthogonal(draw, rows, batch)[..., :k]
    r = q if kind == "spd" else orthogonal(draw, n, batch)[..., :k]
    a = np.einsum("...ik,...k,...jk->...ij", q, d, r)
    if kind == "spd":
        a = (a + np.swapaxes(a, -1, -2)) / 2
    return a


def matrix_sample(make: Callable[[Any], SampleInput]) -> Callable[[], Any]:
    """A spec's ``sample``: the hypothesis strategy that calls ``make(draw)``."""

    def strategy() -> Any:
        from hypothesis import strategies as st

        return st.composite(lambda draw: make(draw))()

    return strategy


BATCHES: tuple[tuple[int, ...], ...] = ((), (2,), (1, 2))
