"""How NumPy's names beyond the array API are made: ``numpy_name`` makes a function
composed of ``tenferro.numpy`` calls public (its errors name ``tnp.<name>``, a bad
keyword is an ArgumentError, not Python's bare TypeError), and ``on_values`` makes one
that has no derivative (an index builder, a set test, a histogram) NumPy's own function
run on its arguments' values, its arrays returned as constants of their runtime."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.eager import EagerTensor, held, holds_tracked
from ..core.errors import ArgumentError, TenferroError
from ..core.tensor import Tensor, read
from ..core.tracing import note_read
from ._dispatch import renamed, runtime_of

#: The Python errors a composed function meets on arguments it cannot take (a None where
#: an array goes, a ragged list): an ArgumentError naming the function, which says which
#: (SystemError too: a NumPy C function that fails without setting an exception, as
#: unravel_index of the float array [[]] does in NumPy 2.4; MemoryError: a size beyond
#: memory, diag_indices(4e9)).
_PYTHONS = (
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    KeyError,
    OverflowError,
    ZeroDivisionError,
    SystemError,
    MemoryError,
)


def numpy_name(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as ``tnp.<its name>``: a TenferroError raised inside it (by the tnp
    functions it calls) names it, a call that does not bind to its signature is an
    ArgumentError naming it, and so is a Python error its arguments cause (the original
    as its cause). Costs one try block per call."""
    label = f"tnp.{function.__name__}"
    signature = inspect.signature(function)

    @functools.wraps(function)
    def public(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TenferroError as exc:
            if str(exc).startswith(f"{label}:"):
                raise
            raise renamed(exc, label) from None
        except _PYTHONS as exc:
            try:
                signature.bind(*args, **kwargs)
            except TypeError as bad:
                raise ArgumentError(f"{label}: {bad}") from None
            raise ArgumentError(f"{label}: the arguments do not fit ({type(exc).__name__}: {exc})") from exc

    public.__module__ = "tenferro.numpy"
    del public.__wrapped__  # inspect.signature reads the signature functools.wraps copied
    public.__signature__ = signature  # type: ignore[attr-defined]
    return public


def values(value: Any) -> Any:
    """``value`` with every EagerTensor (or Tensor) in it (at any depth of a list or tuple) replaced by
    its NumPy value: what NumPy's own function runs on."""
    if type(value) is EagerTensor:
        note_read(value, "a tenferro.numpy function computed by NumPy")
        return read(held(value))
    if isinstance(value, Tensor):  # the core's plain tensor, whose NumPy protocols would call back here
        return np.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(values(item) for item in value)
    return value


def constants(rt: Any, result: Any) -> Any:
    """NumPy's ``result`` with every array in it (at any depth of a tuple or list) a
    constant of ``rt``; NumPy scalars, Python values and None as they are."""
    if isinstance(result, np.ndarray):
        if result.dtype.kind not in "biufc":
            return result  # an object or string array (printing, frompyfunc) stays NumPy's
        return rt.constant_from(result)
    if isinstance(result, (list, tuple)) and not hasattr(result, "_fields"):
        return type(result)(constants(rt, item) for item in result)
    if hasattr(result, "_fields"):  # a named tuple of arrays
        return type(result)(*(constants(rt, item) for item in result))
    return result


def on_values(function: Callable[..., Any], why: str, tracked: bool = True) -> Callable[..., Any]:
    """NumPy's ``function`` as a tnp function without derivative (``why`` says why, in its
    docstring): it runs on the values of its arguments, and its arrays are constants of
    their runtime. NumPy's errors (a bad keyword, a bad value) are ArgumentErrors naming
    ``tnp.<name>``. Where a result does depend differentiably on a float argument
    (``histogram``'s edges, ``kaiser``'s beta), ``tracked=False`` refuses a value that
    tracks a gradient, which would otherwise be lost without a word."""
    name = function.__name__
    label = f"tnp.{name}"

    @functools.wraps(function)
    def on_values(*args: Any, **kwargs: Any) -> Any:
        if not tracked and (holds_tracked(args) or holds_tracked(kwargs)):
            raise ArgumentError(
                f"{label} reads its arguments as NumPy arrays, and one tracks a gradient that would be lost "
                f"(its result has a derivative tenferro does not compute); pass x.detach() to mean a constant"
            )
        rt = runtime_of((*args, *kwargs.values()))
        try:
            result = function(*values(args), **{key: values(item) for key, item in kwargs.items()})
        except _PYTHONS as exc:
            raise ArgumentError(f"{label}: {exc}") from None
        return constants(rt, result)

    on_values.__module__ = "tenferro.numpy"
    try:
        inspect.signature(function)
    except ValueError:  # a builtin without one (fromstring): say what it takes, not what it wraps
        del on_values.__wrapped__
        on_values.__signature__ = inspect.signature(lambda *args, **kwargs: None)  # type: ignore[attr-defined]
    on_values.__doc__ = f"NumPy's ``numpy.{name}`` on the values of its arguments: {why}"
    return on_values
