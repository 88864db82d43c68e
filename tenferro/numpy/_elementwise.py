"""The array API's element-wise functions, each the session op of the same meaning
(``tnp.acos`` is the op ``arccos``), plus NumPy's aliases (``absolute``, ``arccos``,
``power`` ...).

The tables below are the whole mapping: ``UNARY`` and ``BINARY`` name -> op, made into
one-line functions by the ``_dispatch`` factories (the common call costs one dict-free
call over the op); ``COMPARISONS`` are the op ``compare``. The few functions that are not
one op are written out: ``clip`` (the op ``clamp``), ``round`` (per part for complex x)
and ``nextafter`` (no derivative: computed with NumPy as a constant).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.eager import EagerTensor, value_out
from ..core.errors import ArgumentError, DTypeError, ShapeMismatch
from ._dispatch import binary, lift, run, runtime_of, session_of, unary

#: Standard name -> the session op that computes it.
UNARY: dict[str, str] = {
    "abs": "abs",
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "bitwise_invert": "bitwise_invert",
    "ceil": "ceil",
    "conj": "conj",
    "cos": "cos",
    "cosh": "cosh",
    "exp": "exp",
    "expm1": "expm1",
    "floor": "floor",
    "imag": "imag",
    "isfinite": "isfinite",
    "isinf": "isinf",
    "isnan": "isnan",
    "log": "log",
    "log1p": "log1p",
    "log2": "log2",
    "log10": "log10",
    "logical_not": "logical_not",
    "negative": "neg",
    "positive": "positive",
    "real": "real",
    "reciprocal": "reciprocal",
    "sign": "sign",
    "signbit": "signbit",
    "sin": "sin",
    "sinh": "sinh",
    "square": "square",
    "sqrt": "sqrt",
    "tan": "tan",
    "tanh": "tanh",
    "trunc": "trunc",
}
BINARY: dict[str, str] = {
    "add": "add",
    "atan2": "arctan2",
    "bitwise_and": "bitwise_and",
    "bitwise_left_shift": "bitwise_left_shift",
    "bitwise_or": "bitwise_or",
    "bitwise_right_shift": "bitwise_right_shift",
    "bitwise_xor": "bitwise_xor",
    "copysign": "copysign",
    "divide": "div",
    "floor_divide": "floor_divide",
    "hypot": "hypot",
    "logaddexp": "logaddexp",
    "logical_and": "logical_and",
    "logical_or": "logical_or",
    "logical_xor": "logical_xor",
    "maximum": "maximum",
    "minimum": "minimum",
    "multiply": "mul",
    "pow": "pow",
    "remainder": "remainder",
    "subtract": "sub",
}
#: Standard name -> the ``op`` argument of the op ``compare`` (a bool constant).
COMPARISONS: dict[str, str] = {
    "equal": "eq",
    "not_equal": "ne",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
}
#: NumPy's names for the same functions.
ALIASES: dict[str, str] = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "bitwise_not": "bitwise_invert",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "conjugate": "conj",
    "power": "pow",
    "true_divide": "divide",
    "mod": "remainder",
}
#: NumPy functions that are ops but not in the standard.
EXTRA_UNARY: dict[str, str] = {"exp2": "exp2"}


def _doc(name: str, op: str, extra: str = "") -> str:
    return f"The array API's ``{name}``: the op ``{op}`` of the arguments' session{extra} (see ``tenferro ops``)."


_made: dict[str, Any] = {}
for _name, _op in {**UNARY, **EXTRA_UNARY}.items():
    _made[_name] = unary(_name, _op, _doc(_name, _op))
for _name, _op in BINARY.items():
    _made[_name] = binary(_name, _op, _doc(_name, _op, "; one operand may be a Python scalar"))
for _name, _how in COMPARISONS.items():
    _made[_name] = binary(_name, "compare", _doc(_name, "compare", f" with op={_how!r}: a bool constant"), _how)
for _alias, _name in ALIASES.items():
    _made[_alias] = _made[_name]
globals().update(_made)


def clip(x: Any, /, min: Any = None, max: Any = None) -> EagerTensor:  # noqa: A002 - the standard's names
    """x clamped to ``[min, max]`` (either bound may be None, an array or a Python
    number): the op ``clamp``, whose gradient goes to x where ``min <= x <= max``. A
    missing ``min`` is x itself and a missing ``max`` the top of x's range (inf), so x's
    dtype is kept and nothing is clamped on that side."""
    session = session_of(x, min, max)
    rt = session.runtime
    if type(x) is not EagerTensor:
        x = lift(rt, x, "tnp.clip")
        if type(x) is not EagerTensor:
            raise ArgumentError(f"tnp.clip: x must be an array, got a Python {type(x).__name__}")
    if x.dtype.kind == "c":
        raise DTypeError("tnp.clip: complex numbers have no order; clip the real and imaginary parts separately")
    if min is None and max is None:
        return x
    if x.dtype.kind in "biu" and (type(min) is float or type(max) is float):
        x = session.astype(x, np.float64)  # NumPy's promotion: an integer x beside a Python float is float64
    lo = x if min is None else _clip_bound(rt, x, min, "min")
    if max is None:  # the top of x's range: clamp is min(max(x, lo), hi), so hi must not bind
        hi = np.iinfo(x.dtype).max if x.dtype.kind in "iu" else (True if x.dtype.kind == "b" else np.inf)
    else:
        hi = _clip_bound(rt, x, max, "max")
    return run("tnp.clip", {"lo": "min", "hi": "max"}, session.clamp, x, lo, hi)


def _clip_bound(rt: Any, x: EagerTensor, value: Any, argument: str) -> Any:
    """A ``clip`` bound as clamp's operand: a Python int outside an integer x's range is
    that range's end (clamping there is exact, where the int would not fit x's dtype)."""
    if type(value) is EagerTensor:
        return value
    if type(value) is int and x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        value = min(max(value, info.min), info.max)
    return lift(rt, value, "tnp.clip", argument)


def nextafter(x1: Any, x2: Any, /) -> EagerTensor:
    """The next float after x1 towards x2 (NumPy's nextafter): a constant, as it has no
    derivative (JAX and PyTorch define none), so a function transform refuses an operand it
    differentiates. One operand may be a Python scalar; both real floating."""
    rt = runtime_of((x1, x2))
    a = _nextafter_operand(rt, x1, "x1")
    b = _nextafter_operand(rt, x2, "x2")
    if (a is None or a.dtype.kind != "f") and (b is None or b.dtype.kind != "f"):
        raise DTypeError("tnp.nextafter: x1 and x2 must be real floating-point arrays")
    if a is None:
        a = np.asarray(x1, b.dtype)
    if b is None:
        b = np.asarray(x2, a.dtype)
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise DTypeError(f"tnp.nextafter: x1 and x2 must be real floating-point arrays, got {a.dtype} and {b.dtype}")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ShapeMismatch(
            f"tnp.nextafter: shapes {list(a.shape)} (x1), {list(b.shape)} (x2) do not broadcast together; sizes "
            f"must match or be 1 in every trailing axis"
        ) from None
    return rt.constant_from(np.nextafter(a, b))


_round_real = unary("round", "round", "")


def round(x: Any, /) -> EagerTensor:  # noqa: A001 - the standard's name
    """x rounded to the nearest integer, halves to even (the op ``round``; a complex x has
    its real and imaginary parts rounded, as NumPy's). Its derivative is 0."""
    if type(x) is not EagerTensor or x.dtype.kind != "c":
        return _round_real(x)
    session = session_of(x)
    return session.add(session.round(session.real(x)), session.mul(session.round(session.imag(x)), 1j))


def _nextafter_operand(rt: Any, value: Any, argument: str) -> np.ndarray | None:
    """The NumPy value of an array operand of ``nextafter``, None for a Python number."""
    if type(value) in (int, float):
        return None
    value = lift(rt, value, "tnp.nextafter", argument)
    if type(value) is not EagerTensor:
        raise ArgumentError(f"tnp.nextafter: {argument} must be a real floating-point array or a Python float")
    return value_out(
        value, f"tnp.nextafter reads {argument} as a NumPy array (it has no derivative, as in JAX and PyTorch)"
    )


__all__ = sorted([*_made, "clip", "nextafter", "round"])
