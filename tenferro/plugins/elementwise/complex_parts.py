"""The parts of a complex number: ``conj``, ``real``, ``imag``.

Cotangents live in the real inner product ⟨a, b⟩ = Re(conj(a)·b) (PyTorch's convention,
DESIGN §10), so each op's VJP is its adjoint there: conj's is conj, real's puts the
(real) cotangent in the real part, imag's in the imaginary part (g ↦ i·g). On a real
input, ``conj`` and ``real`` are the identity and ``imag`` is zero, as in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import DTypeError, ErrorInput, OpSpec


def _unary() -> Any:
    from tenferro.testing.strategies import unary

    return unary()


def _to_input(s: Any, g: Any, x: Any) -> Any:
    """The real cotangent ``g`` as a cotangent of ``x`` (complex when ``x`` is)."""
    return g if g.dtype == x.dtype else s.astype(g, x.dtype)


def _imag_vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
    return s.mul(s.astype(g, x.dtype), 1j) if x.dtype.kind == "c" else None


def _real(x: Any) -> Any:
    return np.real(x) if x.dtype.kind == "c" else np.positive(x)  # np.real(real array) is the array itself


def _spec(name: str, forward: Any, rule: Any, reference: Any, doc: str, returns_view: bool = False) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("x",),
        returns_view=returns_view,
        forward=forward,
        vjps=(rule,),
        linear=True,
        accepts="fiuc",
        sample=_unary,
        reference=reference,
        error_inputs=lambda: [ErrorInput((np.array([True]),), {}, DTypeError, "accepts float")],
        doc=doc,
    )


SPECS = [
    _spec(
        "conj",
        np.conjugate,
        lambda s, g, out, x: s.conj(g),
        lambda x: np.asarray(x).conj(),
        "The complex conjugate (x itself, copied, for a real x).",
    ),
    _spec(
        "real",
        _real,
        lambda s, g, out, x: _to_input(s, g, x),
        lambda x: np.asarray(x).real.copy(),
        "The real part, a float tensor (x itself, copied, for a real x).",
        returns_view=True,
    ),
    _spec(
        "imag",
        np.imag,
        _imag_vjp,
        lambda x: np.asarray(x).imag.copy(),
        "The imaginary part, a float tensor (zeros for a real x).",
        returns_view=True,
    ),
]
