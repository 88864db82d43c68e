"""``tenferro.scipy.linalg``'s matrix functions: ``expm`` (Padé scaling and squaring,
composed from ops: :mod:`._expm`), ``expm_frechet`` (expm of a block matrix) and ``sqrtm``
(the ``linalg`` plugin's op, SciPy's Schur method)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, DTypeError, ShapeMismatch
from ..plugins.linalg.batching import SingularMatrix
from . import _expm
from . import _linalg_checks as check
from ._linalg_checks import public, session


def _exponential(a: EagerTensor, values: Any) -> EagerTensor:
    """exp(a) of a checked (square, finite: ``values``) matrix or stack."""
    return a if a.shape[-1] == 0 else _expm.expm(session(a), a, values)


@public
def expm(A: Any) -> EagerTensor:  # noqa: N803 (scipy's name)
    """exp(A) of each square matrix of A, by Padé scaling and squaring (Higham 2005, as
    jax.scipy.linalg.expm), composed from matmul and solve: every order differentiates."""
    (a,) = check.arrays("expm", A=A)
    check.matrix(a, "expm", "A")
    return _exponential(a, check.finite(a, "expm", "A"))


@public
def expm_frechet(
    A: Any,  # noqa: N803 (scipy's names)
    E: Any,  # noqa: N803
    method: str | None = None,
    compute_expm: bool = True,
    check_finite: bool = True,
) -> Any:
    """(expm(A), L(A, E)), the Fréchet derivative of expm at A along E, from the exponential
    of the block matrix [[A, E], [0, A]] (whose upper right block is L(A, E)); L(A, E) alone
    with ``compute_expm=False``. ``method`` (scipy's 'SPS' or 'blockEnlarge') is checked and
    changes nothing: the block matrix is always used, and its derivatives are expm's."""
    a, e = check.arrays("expm_frechet", A=A, E=E)
    check.matrix(a, "expm_frechet", "A")
    if e.shape != a.shape:
        message = f"A has shape {list(a.shape)} and E has shape {list(e.shape)}; they must be equal"
        raise check.error(ShapeMismatch, "expm_frechet", "E", message)
    check.choice(method, (None, "SPS", "blockEnlarge"), "expm_frechet", "method")
    compute_expm = check.flag(compute_expm, "expm_frechet", "compute_expm")
    check.finite(a, "expm_frechet", "A")
    check.finite(e, "expm_frechet", "E")
    n = a.shape[-1]
    dtype = np.result_type(a.dtype, e.dtype)
    a, e = tnp.astype(a, dtype), tnp.astype(e, dtype)
    zeros = tnp.zeros_like(a)
    block = tnp.concat([tnp.concat([a, e], axis=-1), tnp.concat([zeros, a], axis=-1)], axis=-2)
    big = _exponential(block, check.finite(block, "expm_frechet", "A"))
    frechet = big[..., :n, n:]
    return (big[..., :n, :n], frechet) if compute_expm else frechet


#: What the op sqrtm's value errors (by class) say of the matrices of A they mark.
_SQRTM_REFUSED = {
    DTypeError: "has a negative real eigenvalue, so its principal square root is complex; pass a complex matrix "
    "(A.astype(complex)) for it",
    SingularMatrix: "is a singular matrix with no square root (SciPy's Schur method meets a zero eigenvalue it "
    "cannot take the root of)",
}


@public
def sqrtm(A: Any, disp: bool = True, blocksize: int = 64) -> EagerTensor:  # noqa: N803 (scipy's name)
    """The principal square root of each square matrix of A (the op ``sqrtm``:
    scipy.linalg.sqrtm's values); a real A with a negative real eigenvalue needs a complex
    A. ``disp=False`` (scipy's error estimate) is not supported; ``blocksize`` changes nothing."""
    if disp is not True:
        raise check.error(
            ArgumentError,
            "sqrtm",
            "disp",
            "disp=False (a result with scipy's error estimate) is not supported; leave disp=True",
        )
    (a,) = check.arrays("sqrtm", A=A)
    check.matrix(a, "sqrtm", "A")
    check.finite(a, "sqrtm", "A")
    try:
        return session(a).sqrtm(a)
    except (DTypeError, SingularMatrix) as exc:  # the op's refusals of A's values, by class
        if exc.op != "sqrtm":
            raise
        bad = np.zeros(a.shape[:-2], bool)
        if exc.batch_index is not None:  # the op's field: the first matrix it refused
            bad[exc.batch_index] = True
        raise check.refused(exc, "sqrtm", "A", bad, _SQRTM_REFUSED[type(exc)]) from None
