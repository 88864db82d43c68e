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

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, ContextMismatch, TenferroError
from ..core.runtime import EagerRuntime, default_runtime
from ..core.session import EagerSession
from ..core.tensor import Tensor

#: Python scalars the session's ops take as constant operands as they are.
SCALARS = (bool, int, float, complex)


def runtime_of(args: tuple[Any, ...]) -> EagerRuntime:
    """The runtime of the first EagerTensor among ``args`` (or at any depth inside a list or
    tuple argument), else the default runtime."""
    for arg in args:
        if type(arg) is EagerTensor:
            return arg._rt
        if isinstance(arg, (list, tuple)):
            rt = runtime_in(arg)
            if rt is not None:
                return rt
    return default_runtime()


def runtime_in(items: list[Any] | tuple[Any, ...]) -> EagerRuntime | None:
    """The runtime of the first EagerTensor at any depth of a nested sequence, or None."""
    for item in items:
        if type(item) is EagerTensor:
            return item._rt
        if isinstance(item, (list, tuple)):
            rt = runtime_in(item)
            if rt is not None:
                return rt
    return None


def session_of(*args: Any) -> EagerSession:
    """The session an op on ``args`` runs in: the current one of their runtime."""
    return runtime_of(args).current_session()


def array_arg(value: Any, function: str, argument: str = "x") -> EagerTensor:
    """``value`` as an EagerTensor: as it is, or lifted onto the default runtime (a Python
    scalar becomes a 0-d constant, as NumPy makes it). For functions whose argument must be
    an array; call it only when ``type(value) is not EagerTensor`` (the fast path)."""
    rt = runtime_of((value,)) if isinstance(value, (list, tuple)) else default_runtime()
    value = lift(rt, value, function, argument)
    return value if type(value) is EagerTensor else rt.constant_from(value)


def renamed(exc: TenferroError, function: str, names: Mapping[str, str] | None = None) -> TenferroError:
    """``exc``, an op's error (``"inv: a has shape ..."``), as the same error class naming
    what the user called (``"tnp.linalg.inv: x has shape ..."``): the op's name replaced by
    ``function``, and the op's argument names by the function's (``names``: op's -> ours;
    ``'axes'`` is always the standard's ``'axis'``)."""
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
    return new


#: The standard's names of the operands of binary functions, for the ops' ``a`` and ``b``.
OPERANDS = {"a": "x1", "b": "x2"}


def call(function: str, op: str, x: Any, *params: Any) -> Any:
    """The op ``op`` on the array ``x`` with ``params``, on x's current session, its errors
    naming ``function``: the body of the namespace functions that take one array."""
    if type(x) is not EagerTensor:
        x = array_arg(x, function)
    rt = x._rt
    session = rt.current_session()
    try:
        return getattr(session, op)(x, *params)
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
            item = lift(rt, item, function, f"{argument}[{index}]")
            if type(item) is not EagerTensor:
                item = rt.constant_from(item)
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
        return EagerTensor(value._array, rt)
    if isinstance(value, (np.ndarray, np.generic, list, tuple)) or hasattr(value, "__array__"):
        try:
            array = np.array(value)
        except Exception as exc:
            raise ArgumentError(f"{function}: argument {argument!r} is not an array ({exc})") from None
        if array.dtype.kind not in "biufc":
            raise ArgumentError(
                f"{function}: argument {argument!r} has dtype {array.dtype}; tenferro arrays are bool, "
                f"integer, float or complex"
            )
        return rt.constant_from(array)
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
        if value._rt is not rt:
            raise ContextMismatch(
                f"{function}: argument {argument!r} holds a tensor of another runtime ({value._rt!r}, not {rt!r}); "
                f"move it with that runtime's values first"
            )
        leaf = value
    else:
        leaf = lift(rt, value, function, argument)
        if type(leaf) is not EagerTensor:  # a Python number: NumPy's np.array types it (float64, int64, ...)
            leaf = rt.constant_from(np.array(leaf))
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


def unary(name: str, op: str, doc: str) -> Callable[[Any], EagerTensor]:
    """The function ``name(x, /)`` of the namespace, the op ``op`` of x's session."""

    def function(x: Any, /) -> EagerTensor:
        if type(x) is EagerTensor:
            rt = x._rt
        else:
            rt = default_runtime()
            x = lift(rt, x, public)
            if type(x) is not EagerTensor:  # a Python scalar: a 0-d array, as NumPy makes it
                x = rt.constant_from(x)
        session = rt._here.session  # current_session(), inlined on the hot path
        try:
            return getattr(rt._implicit if session is None else session, op)(x)
        except TenferroError as exc:
            raise renamed(exc, public) from None

    public = f"tnp.{name}"

    return _named(function, name, doc)


def binary(name: str, op: str, doc: str, *params: Any) -> Callable[[Any, Any], EagerTensor]:
    """The function ``name(x1, x2, /)`` of the namespace, the op ``op`` of their session
    (with the op's leading ``params`` after the operands, e.g. compare's ``"lt"``). One of
    x1 and x2 may be a Python scalar (array API 2024.12)."""

    def function(x1: Any, x2: Any, /) -> EagerTensor:
        if type(x1) is EagerTensor:
            rt = x1._rt
        elif type(x2) is EagerTensor:
            rt = x2._rt
        else:
            rt = default_runtime()
        if type(x1) is not EagerTensor:
            x1 = lift(rt, x1, public, "x1")
        if type(x2) is not EagerTensor:
            x2 = lift(rt, x2, public, "x2")
        if type(x1) is not EagerTensor and type(x2) is not EagerTensor:
            x1 = rt.constant_from(x1)  # two Python scalars: NumPy's 0-d result
        session = rt._here.session  # current_session(), inlined on the hot path
        try:
            return getattr(rt._implicit if session is None else session, op)(x1, x2, *params)
        except TenferroError as exc:  # the op's operands are a and b, the standard's x1 and x2
            raise renamed(exc, public, OPERANDS) from None

    public = f"tnp.{name}"

    return _named(function, name, doc)


def _named(function: Any, name: str, doc: str) -> Any:
    function.__name__ = function.__qualname__ = name
    function.__module__ = "tenferro.numpy"
    function.__doc__ = doc
    return function
