"""How a ``tenferro.numpy`` function or an operator reaches an op: the runtime of its
tensor arguments (or the default runtime), that runtime's current session in this thread
(an open ``rt.eager_session``, else its implicit session), and its arguments as the
session's ops take them (NumPy arrays become constants of that runtime).

Everything in ``tenferro.numpy`` goes through :func:`session_of` and :func:`lift`; the
factories below make the one-line functions (``tnp.sin``) with the common call inline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..core.arguments import INT_MIN, shown
from ..core.borrowed import is_borrowed
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, ContextMismatch, DTypeError, TenferroError
from ..core.runtime import EagerRuntime, default_runtime
from ..core.session import EagerSession
from ..core.tensor import Tensor, freeze, read
from ..core.tracing import note_read

#: Python scalars the session's ops take as constant operands as they are.
SCALARS = (bool, int, float, complex)
#: The largest Python int NumPy makes an integer array of (a uint64).
UINT_MAX = int(np.iinfo(np.uint64).max)


def runtime_of(args: tuple[Any, ...]) -> EagerRuntime:
    """The runtime of the first EagerTensor among ``args`` (or at any depth inside a list or
    tuple argument), else the default runtime."""
    rt = runtime_in(args)
    return default_runtime() if rt is None else rt


def runtime_in(items: list[Any] | tuple[Any, ...]) -> EagerRuntime | None:
    """The runtime of the first EagerTensor at any depth of a nested sequence, or None."""
    for item in items:
        if type(item) is EagerTensor:
            return item.runtime
        if isinstance(item, (list, tuple)):
            rt = runtime_in(item)
            if rt is not None:
                return rt
    return None


def session_of(*args: Any) -> EagerSession:
    """The session an op on ``args`` runs in: the current one of their runtime."""
    return runtime_of(args).current_session()


def as_array(rt: EagerRuntime, value: Any, function: str, argument: str = "x") -> EagerTensor:
    """``value`` as an EagerTensor of ``rt`` (a Python number becomes a 0-d constant, as
    NumPy makes it)."""
    value = lift(rt, value, function, argument)
    if type(value) is EagerTensor:
        return value
    if type(value) is int and not INT_MIN <= value <= UINT_MAX:  # NumPy would make it an object array
        raise ArgumentError(
            f"{function}: argument {argument!r} is the int {value}, which does not fit in a 64-bit integer; "
            f"write it as a float ({float(value):.6g}) for a number of that size"
        )
    return rt.constant_from(value)


def integer_array(value: Any, function: str, argument: str, what: str | None = None) -> np.ndarray:
    """An argument of integers that no derivative flows through (counts, cut points, a
    sorter, labels) as a NumPy integer array: a tenferro array of integers is read as it is
    (integers are never tracked); anything else NumPy takes is converted. A float, a ragged
    list or a string is an ArgumentError naming the function and the argument (as ``what``
    says it: ``argument 'repeats'`` by default)."""
    what = what or f"argument {argument!r}"
    if isinstance(value, (list, tuple)) and runtime_in(value) is not None:  # [x[0], 1]: their stack
        value = stacked(runtime_in(value), value, function, argument)
    if type(value) is EagerTensor:
        note_read(value, function)
        array = read(held(value))
    else:
        try:
            array = np.asarray(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ArgumentError(f"{function}: {what} is not an array of integers ({exc})") from None
    if array.size == 0 and array.dtype.kind == "f":  # [] converts to float64
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise ArgumentError(f"{function}: {what} must be integers, got {shown(value)}")
    return array


def array_arg(value: Any, function: str, argument: str = "x") -> EagerTensor:
    """``value`` as an EagerTensor: as it is, or lifted onto the default runtime (or the
    runtime of the arrays inside a list). For functions whose argument must be an array."""
    if type(value) is EagerTensor:
        return value
    rt = runtime_of((value,)) if isinstance(value, (list, tuple)) else default_runtime()
    return as_array(rt, value, function, argument)


def array_pair(x1: Any, x2: Any, function: str) -> tuple[EagerTensor, EagerTensor]:
    """Both array arguments ``x1``, ``x2`` of ``function`` as EagerTensors on the runtime of
    whichever is one (for functions where neither may be a Python number: ``matmul``)."""
    if type(x1) is EagerTensor and type(x2) is EagerTensor:
        return x1, x2
    rt = runtime_of((x1, x2))
    return as_array(rt, x1, function, "x1"), as_array(rt, x2, function, "x2")


def renamed(exc: TenferroError, function: str, names: Mapping[str, str] | None = None) -> TenferroError:
    """``exc``, an op's error (``"inv: a has shape ..."``), as the same error class naming
    what the user called (``"tnp.linalg.inv: x has shape ..."``): the op's name replaced by
    ``function``, and the op's argument names by the function's (``names``: op's -> ours;
    ``'axes'`` is always the standard's ``'axis'``), in its text and its ``argument``; its
    ``op`` still says which op failed."""
    message = str(exc)
    head, sep, rest = message.partition(": ")
    if sep and re.fullmatch(r"[\w.]+", head):
        message = rest
    message = message.replace("'axes'", "'axis'")
    for theirs, ours in (names or {}).items():
        message = re.sub(
            rf"(?<![\w'.]){theirs}(?=('s\b| has\b| is\b| and\b| must\b| of shape\b|,|\)| \(size))", ours, message
        )
        message = message.replace(f"'{theirs}'", f"'{ours}'")
    try:
        new = type(exc)(f"{function}: {message}")
    except Exception:  # an error class with its own constructor: keep it as it is
        return exc
    new.__cause__ = exc.__cause__
    new.__dict__.update(exc.__dict__)  # its fields: the op that failed, its argument as the function names it
    if exc.argument is not None:
        new.argument = "axis" if exc.argument == "axes" else (names or {}).get(exc.argument, exc.argument)
    return new


#: The standard's names of the operands of binary functions, for the ops' ``a`` and ``b``.
OPERANDS = {"a": "x1", "b": "x2"}


#: The dtype NumPy gives a bool array beside a Python number of each type.
BESIDE_SCALAR = {int: np.dtype(np.int64), float: np.dtype(np.float64), complex: np.dtype(np.complex128)}
_BOOL = np.dtype(np.bool_)


def bool_cast(session: EagerSession, a: Any, b: Any) -> tuple[Any, Any] | None:
    """``(a, b)`` with their one bool operand cast as NumPy, PyTorch and JAX promote it (to
    the other array's dtype; beside a Python int, float or complex to int64, float64 or
    complex128; a Python bool beside a number array is the int 0 or 1), or None when no
    bool stands beside a number (two bools: NumPy's bool arithmetic is not an op's)."""
    ta, tb = type(a), type(b)
    if ta is EagerTensor and a.dtype == _BOOL:
        if tb is EagerTensor:
            return None if b.dtype == _BOOL else (session.astype(a, b.dtype), b)
        return (session.astype(a, BESIDE_SCALAR[tb]), b) if tb in BESIDE_SCALAR else None
    if tb is EagerTensor and b.dtype == _BOOL:
        if ta is EagerTensor:
            return a, session.astype(b, a.dtype)
        return (a, session.astype(b, BESIDE_SCALAR[ta])) if ta in BESIDE_SCALAR else None
    if ta is bool and tb is EagerTensor:
        return int(a), b
    if tb is bool and ta is EagerTensor:
        return a, int(b)
    return None


def retried(
    exc: TenferroError,
    session: EagerSession,
    op: str,
    a: Any,
    b: Any,
    params: tuple[Any, ...],
    function: str,
    names: Mapping[str, str],
) -> Any:
    """The binary op ``op(a, b, *params)`` that raised ``exc`` run again with a bool operand
    cast (:func:`bool_cast`) when ``exc`` is a DTypeError, so ``x * (x > 1)`` and
    ``mean(pred == y)`` work as in NumPy while the common call pays nothing; else ``exc``
    raised naming ``function`` and its operands (``names``: the op's a, b -> ours)."""
    if isinstance(exc, DTypeError):
        cast = bool_cast(session, a, b)
        if cast is not None:
            try:
                return getattr(session, op)(*cast, *params)
            except TenferroError as again:
                exc = again
    raise renamed(exc, function, names) from None


#: The standard's name of the one operand of unary functions, for the ops' ``a``.
X = {"a": "x"}


def run(function: str, names: Mapping[str, str] | None, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``method(*args, **kwargs)`` (a session op) with its TenferroError reworded to name
    ``function`` and its arguments (``names``, see :func:`renamed`)."""
    try:
        return method(*args, **kwargs)
    except TenferroError as exc:
        raise renamed(exc, function, names) from None


def call(function: str, op: str, x: Any, *params: Any) -> Any:
    """The op ``op`` on the array ``x`` with ``params``, on x's current session, its errors
    naming ``function``: the body of the namespace functions that take one array."""
    if type(x) is not EagerTensor:
        x = array_arg(x, function)
    try:  # run(), inlined: this is the body of many functions
        return getattr(x.runtime.current_session(), op)(x, *params)
    except TenferroError as exc:
        raise renamed(exc, function) from None


def arrays_arg(arrays: Any, function: str, argument: str = "arrays") -> tuple[EagerSession, list[EagerTensor]]:
    """The session of a sequence of arrays (``concat``, ``stack``) and its items as
    EagerTensors of that session's runtime."""
    if not isinstance(arrays, (list, tuple)):
        raise ArgumentError(
            f"{function}: argument {argument!r} is a {type(arrays).__name__}; pass a tuple or list of arrays"
        )
    rt = runtime_of(tuple(arrays))
    items = []
    for index, item in enumerate(arrays):
        if type(item) is not EagerTensor:
            item = as_array(rt, item, function, f"{argument}[{index}]")
        items.append(item)
    session = rt.current_session()
    return session, items


def lift(rt: EagerRuntime, value: Any, function: str, argument: str = "x") -> Any:
    """``value`` as an op argument of ``rt``: EagerTensors and Python scalars as they are,
    a NumPy scalar as a 0-d constant, anything ``np.asarray`` takes (a NumPy array, a
    nested list, a Tensor) as a constant copy, so changing the array later changes nothing
    recorded. A nested sequence holding EagerTensors at any depth is their ``stack`` (see
    :func:`stacked`), so it records, never a constant of their values."""
    if type(value) is EagerTensor or type(value) in SCALARS:
        return value
    if isinstance(value, (list, tuple)) and runtime_in(value) is not None:
        return stacked(rt, value, function, argument)
    if isinstance(value, Tensor):
        return EagerTensor(np.asarray(value), rt)  # the Tensor's read-only array, not a copy
    if is_borrowed(value):  # read-only while the transform that borrowed it runs (core/borrowed.py)
        return EagerTensor(value, rt)
    if isinstance(value, (np.ndarray, np.generic, list, tuple)) or hasattr(value, "__array__"):
        try:
            array = np.array(value)
        except Exception as exc:
            raise ArgumentError(f"{function}: argument {argument!r} is not an array ({exc})") from None
        if not isinstance(value, (np.ndarray, np.generic, list, tuple)):  # np.array copies those; an
            array = array.copy()  # __array__ that ignores copy=True gives its own buffer, which must not be frozen
        if array.dtype.kind not in "biufc":
            raise ArgumentError(
                f"{function}: argument {argument!r} has dtype {array.dtype}; tenferro arrays are bool, "
                f"integer, float or complex"
            )
        return EagerTensor(freeze(array), rt)  # one copy, not constant_from's second
    raise ArgumentError(
        f"{function}: argument {argument!r} is a {type(value).__name__}; pass an array (a tenferro or "
        f"NumPy array) or a Python number"
    )


def stacked(rt: EagerRuntime, value: list[Any] | tuple[Any, ...], function: str, argument: str = "x") -> EagerTensor:
    """A nested sequence holding EagerTensors as one array of ``rt`` made by the op
    ``stack`` (which records): its items lifted (Python numbers and NumPy arrays as
    constants), their dtypes promoted as NumPy's ``np.array`` would. An EagerTensor of
    another runtime raises ContextMismatch, as the ops do."""
    session = rt.current_session()
    leaves: list[EagerTensor] = []
    items = _stack_items(rt, session, value, function, argument, leaves)
    dtype = np.result_type(*[leaf.dtype for leaf in leaves])
    return _stack_level(session, items, dtype, function, argument)


def _stack_items(
    rt: EagerRuntime, session: EagerSession, value: Any, function: str, argument: str, leaves: list[EagerTensor]
) -> Any:
    """``value`` with each leaf an EagerTensor of ``rt`` (collected into ``leaves``)."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise ArgumentError(
                f"{function}: argument {argument!r} holds an empty sequence beside arrays, which has no shape"
            )
        return [_stack_items(rt, session, item, function, argument, leaves) for item in value]
    if type(value) is EagerTensor:
        if value.runtime is not rt:
            raise ContextMismatch(
                f"{function}: argument {argument!r} holds a tensor of another runtime ({value.runtime!r}, not {rt!r}); "
                f"{rt.mixed_with(value.runtime)}"
            )
        leaf = value
    else:  # a Python number becomes what NumPy's np.array types it (float64, int64, ...)
        leaf = as_array(rt, value, function, argument)
    leaves.append(leaf)
    return leaf


def _stack_level(session: EagerSession, items: Any, dtype: np.dtype, function: str, argument: str) -> EagerTensor:
    if type(items) is EagerTensor:
        return items if items.dtype == dtype else session.astype(items, dtype)
    parts = [_stack_level(session, item, dtype, function, argument) for item in items]
    try:
        return session.stack(parts, 0)
    except TenferroError as exc:
        raise ArgumentError(f"{function}: cannot stack the arrays in argument {argument!r} into one ({exc})") from None


def unary(
    name: str, op: str, doc: str, label: str | None = None, names: Mapping[str, str] | None = None
) -> Callable[[Any], EagerTensor]:
    """The function ``name(x, /)`` of the namespace, the op ``op`` of x's session; its
    errors name ``label`` (default ``tnp.<name>``) and the op's arguments by ``names``."""

    def function(x: Any, /) -> EagerTensor:
        if type(x) is EagerTensor:
            rt = x.runtime
        else:
            rt = default_runtime()
            if isinstance(x, (list, tuple)):
                rt = runtime_of((x,))
            x = as_array(rt, x, public)  # a Python scalar: a 0-d array, as NumPy makes it
        try:
            return getattr(rt.current_session(), op)(x)
        except TenferroError as exc:
            raise renamed(exc, public, names) from None

    public = label or f"tnp.{name}"

    return _named(function, name, doc)


def binary(
    name: str,
    op: str,
    doc: str,
    *params: Any,
    label: str | None = None,
    arrays: bool = False,
    operands: tuple[str, str] = ("x1", "x2"),
    names: Mapping[str, str] = OPERANDS,
) -> Callable[[Any, Any], EagerTensor]:
    """The function ``name(x1, x2, /)`` of the namespace, the op ``op`` of their session
    (with the op's leading ``params`` after the operands, e.g. compare's ``"lt"``), its
    errors naming ``label`` (default ``tnp.<name>``), the operands as ``operands`` and the
    op's arguments by ``names`` (op's -> ours). One of x1 and x2 may be a Python
    scalar (array API 2024.12), unless ``arrays`` (``matmul``: both become arrays). A bool
    operand beside a number is cast as NumPy promotes it (see :func:`retried`)."""

    def function(x1: Any, x2: Any, /) -> EagerTensor:
        if type(x1) is EagerTensor:
            rt = x1.runtime
        elif type(x2) is EagerTensor:
            rt = x2.runtime
        else:
            rt = runtime_of((x1, x2))
        if type(x1) is not EagerTensor:
            x1 = as_array(rt, x1, public, first) if arrays else lift(rt, x1, public, first)
        if type(x2) is not EagerTensor:
            x2 = as_array(rt, x2, public, second) if arrays else lift(rt, x2, public, second)
        if type(x1) is not EagerTensor and type(x2) is not EagerTensor:
            x1 = as_array(rt, x1, public, first)  # two Python scalars: NumPy's 0-d result
        session = rt.current_session()
        try:
            return getattr(session, op)(x1, x2, *params)
        except TenferroError as exc:  # a bool operand is cast and retried; errors name x1 and x2
            return retried(exc, session, op, x1, x2, params, public, names)

    public = label or f"tnp.{name}"
    first, second = operands

    return _named(function, name, doc)


def _named(function: Any, name: str, doc: str) -> Any:
    function.__name__ = function.__qualname__ = name
    function.__module__ = "tenferro.numpy"
    function.__doc__ = doc
    return function
