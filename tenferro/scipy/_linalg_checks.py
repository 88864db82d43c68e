"""What ``tenferro.scipy.linalg``'s modules share: the checks of their arguments, each an
error naming ``tenferro.scipy.linalg.<function>`` and scipy's name of the argument (in its
text and its ``argument`` field), made before any op runs; and :func:`public`, which labels
an op's error raised after them (a singular or an indefinite matrix) with the function.

No message is rewritten: an op's error keeps its text after the op's name, so the checks
come first wherever the op's name of an argument is not scipy's. Where only the values
tell which argument is at fault (eigh's b, sqrtm's A), the function raises its own error
from the op's class and fields (see :func:`refused`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core import arguments
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, ShapeMismatch, TenferroError
from ..numpy._dispatch import as_array, renamed, runtime_of
from ..plugins.linalg.batching import SingularMatrix

PREFIX = "tenferro.scipy.linalg."


def public(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as ``tenferro.scipy.linalg.<its name>``: a TenferroError raised inside it
    (an op's, a tnp function's, another of these functions') names it in place of whatever
    its text began with (``renamed``, with no names: the rest of the text and the fields are
    kept as raised)."""
    label = PREFIX + function.__name__

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TenferroError as exc:
            raise renamed(exc, label) from None

    return wrapper


def about(argument: str, op: Callable[..., Any], *args: Any) -> Any:
    """``op(*args)``, an op whose only possible failure, once the shapes are checked, is the
    values of ``argument`` (a singular matrix): its error carries that argument's name."""
    try:
        return op(*args)
    except TenferroError as exc:
        if exc.argument is None:
            exc.argument = argument
        raise


def error(cls: type[TenferroError], function: str, argument: str, message: str) -> TenferroError:
    """``cls`` naming ``tenferro.scipy.linalg.<function>`` and ``argument`` (text and field)."""
    return cls(f"{PREFIX}{function}: {message}", argument=argument)


def choice(value: Any, choices: tuple[Any, ...], function: str, argument: str) -> Any:
    """``value`` if it is one of ``choices`` (strings, ints or None), else an ArgumentError
    listing them (an array or a list is refused, never compared)."""
    if isinstance(value, np.integer):
        value = int(value)
    if (value is None or type(value) in (str, int)) and value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices)
    raise error(ArgumentError, function, argument, f"{argument} must be one of {listed}, got {arguments.shown(value)}")


def flag(value: Any, function: str, argument: str) -> bool:
    """``value`` as a bool (core's rule: True, False or a NumPy bool), naming the argument."""
    try:
        return arguments.flag(value, PREFIX + function, argument)
    except ArgumentError as exc:
        exc.argument = argument
        raise


def integer(value: Any, function: str, argument: str) -> int:
    """``value`` as a Python int (core's rule), naming the argument."""
    try:
        return arguments.integer(value, PREFIX + function, argument)
    except ArgumentError as exc:
        exc.argument = argument
        raise


def pair(value: Any, function: str, argument: str, what: str) -> tuple[Any, Any]:
    """A 2-tuple argument (cho_solve's (c, lower), lu_solve's (lu, piv)) as its two items."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise error(
            ArgumentError, function, argument, f"argument {argument!r} must be {what}, got {arguments.shown(value)}"
        )
    return value[0], value[1]


def arrays(function: str, **named: Any) -> list[EagerTensor]:
    """The array arguments (by scipy's names) as EagerTensors of one runtime, integers and
    bools as float64 (scipy computes in float64)."""
    rt = runtime_of(tuple(named.values()))
    lifted = []
    for name, value in named.items():
        try:
            lifted.append(inexact(as_array(rt, value, PREFIX + function, name)))
        except TenferroError as exc:
            exc.argument = name
            raise
    return lifted


def inexact(x: EagerTensor) -> EagerTensor:
    """x, or x as float64 when it holds integers or bools."""
    return x if x.dtype.kind in "fc" else session(x).astype(x, np.float64)


def session(x: EagerTensor) -> Any:
    return x.runtime.current_session()


def matrix(x: EagerTensor, function: str, argument: str, square: bool = True) -> int:
    """x's rows; a ShapeMismatch unless x is a (square) matrix or a stack of them."""
    if x.ndim < 2 or (square and x.shape[-1] != x.shape[-2]):
        what = "a square matrix (..., M, M)" if square else "a matrix (..., M, N), at least 2-D"
        raise error(ShapeMismatch, function, argument, f"{argument} has shape {list(x.shape)}; it must be {what}")
    return x.shape[-2]


def rhs(b: EagerTensor, rows: int, function: str, argument: str, shape: tuple[int, ...]) -> None:
    """b a vector (M,) or a stack (..., M, K) for a matrix ``argument`` of ``shape`` with
    ``rows`` rows (NumPy 2's rule, as tnp.linalg.solve's); a ShapeMismatch naming b."""
    head = f"{argument} has shape {list(shape)} and b has shape {list(b.shape)}"
    if b.ndim == 0 or b.shape[0 if b.ndim == 1 else -2] != rows:
        raise error(ShapeMismatch, function, "b", f"{head}; b must be ({rows},) or (..., {rows}, K), {argument}'s rows")
    if b.ndim > 1:
        try:
            np.broadcast_shapes(tuple(shape[:-2]), tuple(b.shape[:-2]))
        except ValueError:
            raise error(ShapeMismatch, function, "b", f"{head}; their batch axes do not broadcast") from None


def finite(x: EagerTensor, function: str, argument: str) -> np.ndarray:
    """x's values (read to decide, not differentiated); an ArgumentError if any is nan or inf."""
    values = np.asarray(held(x))
    if not np.all(np.isfinite(values)):
        message = f"{argument} has nan or inf entries; {function} needs a finite matrix"
        raise error(ArgumentError, function, argument, message)
    return values


def where(argument: str, bad: np.ndarray) -> str:
    """``'b'`` or ``'b at batch index 1'`` (``bad``: True over the batch where at fault)."""
    if bad.ndim == 0 or not np.any(bad):
        return argument
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{argument} at batch index {first if len(first) > 1 else first[0]}"


def refused(exc: TenferroError, function: str, argument: str, bad: np.ndarray, what: str) -> TenferroError:
    """An op's value error (``exc``: its class) as the function's, about ``argument``: ``bad``
    marks the matrices of the batch at fault, ``what`` says what is wrong with them."""
    new = error(type(exc), function, argument, f"{where(argument, bad)} {what}")
    new.op = exc.op
    return new


def hermitian_from(x: EagerTensor, lower: bool) -> EagerTensor:
    """The Hermitian matrix of x's lower (upper) triangle, which is all scipy reads: the
    other triangle takes no part, and gets no gradient."""
    s = session(x)
    if lower:
        return s.add(s.tril(x), tnp.conj(tnp.matrix_transpose(s.tril(x, -1))))
    return s.add(s.triu(x), tnp.conj(tnp.matrix_transpose(s.triu(x, 1))))


def diagonal_nonzero(x: EagerTensor, function: str, argument: str) -> None:
    """A SingularMatrix naming ``argument`` where a triangular factor has a zero on its diagonal."""
    bad = np.any(np.diagonal(np.asarray(held(x)), axis1=-2, axis2=-1) == 0, axis=-1)
    if np.any(bad):
        raise error(SingularMatrix, function, argument, f"{where(argument, bad)} is singular (a zero on its diagonal)")
