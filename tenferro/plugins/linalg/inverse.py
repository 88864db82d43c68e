"""Functions of a square matrix: ``inv``, ``det``, ``slogdet`` (on the LU factorisation of
:mod:`.solve_lu`, which ``solve`` shares) and ``matrix_power``, batched over leading axes as
NumPy's linalg is.

VJPs are the published ones (Giles 2008; PyTorch's FunctionsManual.cpp), written with
session ops, so they differentiate again; ``slogdet``/``det`` take inv(a) from the forward
pass's LU. An exactly singular matrix in inv or a negative matrix_power is a
:class:`~.batching.SingularMatrix` error naming the op and the batch index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import REQUIRED, ArgumentError, DTypeError, ErrorInput, OpSpec, ShapeMismatch

from . import solve_lu
from .batching import (
    SINGULAR,
    SQUARE,
    SingularMatrix,
    batched_reference,
    check_matrix,
    lazy,
    mT,
    scale_matrices,
    singular_error,
)


# -- inv, det, slogdet ---------------------------------------------------------------------------
def _inv(a: Any) -> Any:
    check_matrix("inv", "a", a, square=True)
    return solve_lu.inv(a)


def _square_errors(op: str, singular: bool = True) -> Any:
    cases = [
        ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, f"{op}: a has shape [2, 3]"),
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D"),
        ErrorInput((np.eye(2, dtype=bool),), {}, DTypeError, "argument 'a' has dtype bool"),
    ]
    if singular:
        cases.append(ErrorInput((SINGULAR,), {}, SingularMatrix, f"{op}: a at batch index 1 is a singular matrix"))
    return lambda: cases


INV = OpSpec(
    name="inv",
    inputs=("a",),
    forward=_inv,
    vjps=(lambda s, g, out, a: s.neg(s.matmul(mT(s, out), s.matmul(g, mT(s, out)))),),
    residuals=("out",),
    accepts="f",
    sample=lazy("square"),
    reference=lambda a: batched_reference(lambda m: np.linalg.solve(m, np.eye(len(m))), a),
    error_inputs=_square_errors("inv"),
    doc="The inverse of each matrix of a (..., M, M). VJP: -a⁻ᵀ g a⁻ᵀ. Singular a: SingularMatrix.",
)


def _det(a: Any) -> Any:
    check_matrix("det", "a", a, square=True)
    return solve_lu.det(a)


def _det_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    # d det = det · tr(a⁻¹ da): ga = g det a⁻ᵀ (inv from the LU the forward pass made)
    return scale_matrices(s, s.mul(g, out), mT(s, s.inv(a)))


DET = OpSpec(
    name="det",
    inputs=("a",),
    forward=_det,
    vjps=(_det_rule,),
    residuals=("a", "out"),
    accepts="f",
    sample=lazy("square"),
    reference=lambda a: np.prod(np.linalg.eigvals(np.asarray(a, float)), axis=-1).real,
    error_inputs=_square_errors("det", singular=False),
    doc="The determinant of each matrix of a (..., M, M). VJP: g·det·a⁻ᵀ, so its gradient at a singular "
    "matrix is a SingularMatrix error (PyTorch's, through an SVD, is not implemented).",
)


def _slogdet(a: Any) -> tuple[Any, Any]:
    check_matrix("slogdet", "a", a, square=True)
    return solve_lu.slogdet(a)


def _slogdet_rule(s: Any, g: tuple[Any, Any], out: Any, a: Any) -> Any:
    g_logabsdet = g[1]  # the sign is piecewise constant: no gradient
    if g_logabsdet is None:
        return None
    return scale_matrices(s, g_logabsdet, mT(s, s.inv(a)))


def _slogdet_reference(a: Any) -> list[np.ndarray]:
    d = np.prod(np.linalg.eigvals(np.asarray(a, float)), axis=-1).real
    return [np.sign(d), np.log(np.abs(d))]


SLOGDET = OpSpec(
    name="slogdet",
    inputs=("a",),
    forward=_slogdet,
    vjps=(_slogdet_rule,),
    multiple_results=True,
    residuals=("a",),
    accepts="f",
    sample=lazy("square"),
    reference=_slogdet_reference,
    error_inputs=_square_errors("slogdet", singular=False),
    doc="(sign, logabsdet) of each matrix of a (..., M, M), two results, as NumPy's; a singular matrix gives "
    "(0, -inf). VJP: g_logabsdet·a⁻ᵀ (the sign has none).",
)


# -- matrix_power -----------------------------------------------------------------------------------
def _matrix_power(a: Any, n: Any = REQUIRED) -> Any:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ArgumentError(f"matrix_power: n must be an int (negative: powers of the inverse), got {n!r}")
    check_matrix("matrix_power", "a", a, square=True)
    try:
        out = np.linalg.matrix_power(a, int(n))
        return np.copy(out) if int(n) == 1 else out  # NumPy returns a itself for n = 1
    except np.linalg.LinAlgError:
        raise singular_error("matrix_power", a, hint=f" (n = {int(n)} needs its inverse)") from None


def _power_cotangent(s: Any, a: Any, k: int, g: Any) -> Any:
    """The VJP of a ↦ aᵏ (k ≥ 1) along NumPy's repeated squaring: aᵏ = b·b with b = a^(k/2)
    for even k (so g_b = g bᵀ + bᵀ g), a·a^(k-1) for odd k; O(log k) matrix products, where
    the sum Σⱼ (aʲ)ᵀ g (a^(k-1-j))ᵀ takes O(k)."""
    if k == 1:
        return g
    if k % 2:
        rest = s.matrix_power(a, k - 1)
        return s.add(s.matmul(g, mT(s, rest)), _power_cotangent(s, a, k - 1, s.matmul(mT(s, a), g)))
    half = s.matrix_power(a, k // 2)
    return _power_cotangent(s, a, k // 2, s.add(s.matmul(g, mT(s, half)), s.matmul(mT(s, half), g)))


def _matrix_power_rule(s: Any, g: Any, out: Any, a: Any, n: int) -> Any:
    n = int(n)
    if n == 0:
        return None
    if n > 0:
        return _power_cotangent(s, a, n, g)
    inverse = s.inv(a)  # a⁻ⁿ = (a⁻¹)ⁿ, and inv's VJP: -a⁻ᵀ h a⁻ᵀ
    h = _power_cotangent(s, inverse, -n, g)
    return s.neg(s.matmul(mT(s, inverse), s.matmul(h, mT(s, inverse))))


def _power_reference(a: Any, n: int) -> np.ndarray:
    a = np.asarray(a, float)
    base = np.linalg.solve(a, np.broadcast_to(np.eye(a.shape[-1]), a.shape)) if n < 0 else a
    out = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for _ in range(abs(n)):
        out = out @ base
    return out


MATRIX_POWER = OpSpec(
    name="matrix_power",
    inputs=("a",),
    params={"n": REQUIRED},
    forward=_matrix_power,
    vjps=(_matrix_power_rule,),
    residuals=("a",),
    accepts="f",
    sample=lazy("matrix_power"),
    reference=_power_reference,
    error_inputs=lambda: [
        ErrorInput((SQUARE,), {"n": 1.5}, ArgumentError, "n must be an int"),
        ErrorInput((np.zeros((2, 3)),), {"n": 2}, ShapeMismatch, "must be square"),
        ErrorInput((SINGULAR,), {"n": -1}, SingularMatrix, "matrix_power: a at batch index 1 is a singular"),
    ],
    doc="a to the int power n (..., M, M), as NumPy's matrix_power (n = 0: the identity; n < 0: powers of "
    "inv(a)). VJP: along repeated squaring, O(log |n|) matrix products.",
)


SPECS = [INV, DET, SLOGDET, MATRIX_POWER]
