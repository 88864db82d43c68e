"""The symmetric eigendecomposition: ``eigh`` and ``eigvalsh``, batched over leading axes as
NumPy's linalg. Real floating inputs. The rule is PyTorch's ``linalg_eigh_backward`` (Giles
2008), written with session ops, so second order works. Conventions
(docs/linalg-decompositions.md):

- **Gauge.** Each eigenvector has its largest-magnitude entry positive, so the results are
  smooth functions of the input wherever that entry is unique.
- **Degenerate spectra.** Differentiating eigenvectors needs 1/(w[j] - w[i]); where two
  eigenvalues whose vectors carry a cotangent are within sqrt(eps)·max|w| of each other,
  the rule raises NotDifferentiable naming them, where PyTorch returns inf/nan silently.
  Eigenvalues alone (eigvalsh) are always differentiable (a subgradient at ties).
- **Which triangle.** eigh/eigvalsh read only the triangle UPLO names, so the gradient
  lives on that triangle (the off-diagonal part is the symmetric gradient doubled).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ErrorInput, OpSpec

from .batching import SQUARE, check_matrix, diag_embed, explain_nonfinite, lazy, mT, scale_columns
from .decomp_common import (
    column_signs,
    fold_triangle,
    inverse_gaps,
    matrix_errors,
    refuse_degenerate,
    used_columns,
    values,
)


def _check_uplo(op: str, UPLO: Any) -> bool:  # noqa: N803 (NumPy's name)
    """True for "U"; ArgumentError for anything but "L"/"U"."""
    if UPLO not in ("L", "U"):
        raise ArgumentError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "U"


# -- eigh / eigvalsh -------------------------------------------------------------------------
def _eigh(a: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
    _check_uplo("eigh", UPLO)
    check_matrix("eigh", "a", a, square=True)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    if np.shape(v)[-1] == 0:
        return w, v
    return w, np.multiply(v, column_signs(v))


def _eigh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    (gw, gv), (w, v) = g, out
    if gv is not None:
        refuse_degenerate(
            "eigh",
            values(w),
            used_columns(gv),
            "eigenvalues",
            "differentiate a function of the eigenvalues only (eigvalsh), or move the eigenvalues apart",
        )
        inner = s.mul(inverse_gaps(s, w), s.matmul(mT(s, v), gv))  # F ∘ (Vᵀ gV)
        if gw is not None:
            inner = s.add(inner, diag_embed(s, gw))
        full = s.matmul(v, s.matmul(inner, mT(s, v)))
    else:
        full = s.matmul(scale_columns(s, v, gw), mT(s, v))  # V diag(gw) Vᵀ
    return fold_triangle(s, full, UPLO == "U")


def eigh_reference(a: Any, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    a = np.asarray(a)
    lower = np.tril(a) if UPLO == "L" else np.swapaxes(np.triu(a), -1, -2)
    sym = lower + np.swapaxes(np.tril(lower, -1), -1, -2)
    w, v = np.linalg.eig(sym)  # a different LAPACK routine: the general eigensolver
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w.real, order, -1)
    v = np.take_along_axis(v.real, order[..., None, :], -1)
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    pivot = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
    return w, v * np.where(pivot < 0, -1.0, 1.0)


EIGH = OpSpec(
    name="eigh",
    explain=explain_nonfinite("eigh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigh,
    vjps=(_eigh_rule,),
    multiple_results=True,
    residuals=("out",),
    accepts="f",
    sample=lazy("symmetric", uplo=True),
    reference=eigh_reference,
    error_inputs=lambda: [
        *matrix_errors("eigh"),
        ErrorInput((SQUARE,), {"UPLO": "X"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="(eigenvalues ascending, eigenvectors as columns) of the symmetric matrices whose UPLO "
    "triangle a holds, as NumPy's eigh. Gauge: each eigenvector's largest-magnitude entry is "
    "positive. Differentiating eigenvectors whose eigenvalues are within "
    "sqrt(eps)·max|w| of another's raises NotDifferentiable (PyTorch gives inf/nan).",
)


def _eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803
    _check_uplo("eigvalsh", UPLO)
    check_matrix("eigvalsh", "a", a, square=True)
    return np.linalg.eigvalsh(a, UPLO=UPLO)


def _eigvalsh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    _, v = s.eigh(a, UPLO)
    return fold_triangle(s, s.matmul(scale_columns(s, v, g), mT(s, v)), UPLO == "U")


EIGVALSH = OpSpec(
    name="eigvalsh",
    explain=explain_nonfinite("eigvalsh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigvalsh,
    vjps=(_eigvalsh_rule,),
    residuals=("a",),
    accepts="f",
    sample=lazy("symmetric", uplo=True),
    reference=lambda a, UPLO="L": eigh_reference(a, UPLO)[0],  # noqa: N803
    error_inputs=lambda: [
        *matrix_errors("eigvalsh"),
        ErrorInput((SQUARE,), {"UPLO": "l"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="The eigenvalues (ascending) of the symmetric matrices whose UPLO triangle a holds. "
    "Its gradient V diag(g) Vᵀ is defined at repeated eigenvalues too (the rule recomputes eigh).",
)


SPECS = [EIGH, EIGVALSH]
