"""NumPy's own functions on EagerTensors: ``np.sin(x)``, ``np.sum(x, axis=0)``,
``np_array * x`` and ``np.linalg.solve(a, x)`` run the ``tenferro.numpy`` function of the
same name (NumPy's protocols ``__array_ufunc__`` and ``__array_function__``), so
unmodified NumPy code records.

The function is looked up by name when called (``np.arccos`` -> ``tnp.acos``, where the
names differ, through the small tables below), and NumPy's arguments are passed on by
name, after renaming the few that differ (``ddof`` -> ``correction``). A NumPy call with
no exact tenferro equivalent (``np.atleast_1d``, ``out=``) raises :class:`NoEquivalent`, an
:class:`ArgumentError` (a ``TypeError``, as NumPy's own refusal and JAX's are) that names
it and the way out (``np.asarray(x)``, the explicit exit from the trace), where it would
lose a gradient: for a tracked argument, and for a tenferro array it would write into.
Arrays that carry no gradient (constants, a transform's results) are NumPy's to compute
on, as their values (``_on_values``), so SciPy's internals take them as NumPy arrays.
``np.asarray`` and ``np.array`` use ``__array__`` and are never dispatched.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.eager import EagerTensor, holds_tracked, in_rules
from ..core.errors import ArgumentError, AxisError, DTypeError, TenferroError

__all__: list[str] = []

#: NumPy ufunc name -> ``tenferro.numpy`` name, where tnp has no function of NumPy's name
#: (tnp has NumPy's aliases, ``arccos`` beside ``acos``, so most names are found as they are).
UFUNC_NAMES = {"rint": "round"}
#: ``ufunc.reduce`` / ``ufunc.accumulate`` -> the ``tenferro.numpy`` reduction.
REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
ACCUMULATE = {"add": "cumulative_sum", "multiply": "cumulative_prod"}
#: A ufunc keyword NumPy may pass -> the value that changes nothing.
UFUNC_NEUTRAL: dict[str, Any] = {
    "where": True,
    "casting": "same_kind",
    "order": "K",
    "subok": True,
    "dtype": None,
    "signature": None,
}

#: (NumPy module, name) -> ``tenferro.numpy`` name, where they differ.
FUNCTION_NAMES = {("numpy", "amax"): "max", ("numpy", "amin"): "min", ("numpy", "around"): "round"}
#: NumPy argument -> the ``tenferro.numpy`` keyword; None: ignored, it changes only how
#: NumPy computes (``optimize`` of einsum, the ``kind`` of sorting algorithm).
RENAMES: dict[str, str | None] = {
    "ddof": "correction",
    "a_min": "min",
    "a_max": "max",
    "newshape": "shape",
    "optimize": None,
    "kind": None,
}
#: NumPy functions that only look at shapes or dtypes: run NumPy's own code (tensors read
#: as their dtype where NumPy takes a dtype just as well).
INSPECT = frozenset({"shape", "ndim", "size", "iscomplexobj", "isrealobj"})
AS_DTYPE = frozenset({"result_type", "can_cast"})
#: NumPy functions with no derivative whose results are plain values (a bool, a string, a
#: file): computed by NumPy on ``np.asarray`` of the tensors, the gradient has nothing to lose.
CONSTANT = frozenset(
    {
        "allclose",
        "isclose",
        "array_equal",
        "array_equiv",
        "array_repr",
        "array_str",
        "array2string",
        "save",
        "savez",
        "savez_compressed",
        "savetxt",
        "shares_memory",
        "may_share_memory",
        "min_scalar_type",
        "iscomplex",
        "isreal",
    }
)
#: NumPy functions that write into their first argument: a tenferro array there is refused,
#: whatever it carries (tenferro arrays are immutable).
WRITES = frozenset({"copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal"})
#: What to write instead, for functions and ufuncs users reach for that have no equivalent.
HINTS = {
    "np.median": "tnp.sort and indexing the middle",
    "np.percentile": "tnp.sort and indexing",
    "np.quantile": "tnp.sort and indexing",
    "np.nanmean": "tnp.where(tnp.isnan(x), 0, x)",
    "np.nansum": "tnp.where(tnp.isnan(x), 0, x)",
    "np.hstack": "tnp.concat(arrays, axis=1) (axis=0 for 1-D arrays)",
    "np.vstack": "tnp.concat of the arrays as 2-D ones, axis=0",
    "np.column_stack": "tnp.stack(arrays, axis=1) of 1-D arrays",
    "np.logspace": "base ** tnp.linspace(start, stop, num), which differentiates in start and stop",
    "np.geomspace": "tnp.exp(tnp.linspace(tnp.log(start), tnp.log(stop), num)) for positive bounds",
    "np.copyto": "tnp.full(shape, x, dtype=...) in place of np.full, or x.at[key].set(values) (tenferro arrays are "
    "immutable)",
}


class NoEquivalent(ArgumentError):
    """A NumPy call tenferro cannot record: refused for arrays that carry a gradient,
    computed by NumPy on the values of those that carry none (see ``_on_values``)."""


_MISSING: Any = object()
_NDARRAY_UFUNC = np.ndarray.__array_ufunc__
#: ``tenferro.numpy``, set by ``install`` (it imports this module).
_tnp: Any = None


def install(cls: type[EagerTensor]) -> None:
    """Put ``__array_ufunc__`` and ``__array_function__`` on ``cls``."""
    global _tnp
    _tnp = sys.modules[__name__.rpartition(".")[0]]
    cls.__array_ufunc__ = _array_ufunc  # type: ignore[attr-defined]
    cls.__array_function__ = _array_function  # type: ignore[attr-defined]


# -- ufuncs -------------------------------------------------------------------------------
def _array_ufunc(self: EagerTensor, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``np.sin(x)``, ``np_array * x`` (NumPy's operator calls ``np.multiply``) and
    ``np.add.reduce(x)``: the ``tenferro.numpy`` function (see the module docstring)."""
    for value in inputs:
        if (
            type(value) is not EagerTensor
            and getattr(type(value), "__array_ufunc__", _NDARRAY_UFUNC) is not _NDARRAY_UFUNC
        ):
            return NotImplemented  # another array library's type: let it answer
    try:
        name = ufunc.__name__
        if getattr(np, name, None) is not ufunc:  # not NumPy's own (scipy.special's, numba's): a name means nothing
            special = _scipy_special(ufunc) if method == "__call__" else None
            if special is not None:
                if kwargs:
                    _check_ufunc_kwargs(f"scipy.special.{name}", kwargs)
                return special(*inputs)
            call = _ufunc_call(ufunc) if method == "__call__" else f"{_ufunc_call(ufunc)}.{method}"
            raise _no_equivalent(call, inputs)
        if method == "__call__":
            if kwargs:
                if name == "vecdot" and "axis" in kwargs:  # the gufunc's axis: tnp.vecdot takes one too
                    rest = dict(kwargs)
                    return _vecdot(inputs, rest.pop("axis"), rest)
                _check_ufunc_kwargs(f"np.{name}", kwargs)
            return _ufunc_function(name, inputs)(*inputs)
        call = f"np.{name}.{method}"
        if method == "reduce" or method == "accumulate":
            return _reduce(call, name, method, inputs[0], kwargs)
        if method == "outer":
            return _outer(call, name, inputs, kwargs)
        if method == "at":
            raise NoEquivalent(
                f"{call}(x, indices, ...) writes into x in place, and tenferro arrays are immutable; use the "
                f"functional update x.at[indices].add(values) (or .set, .multiply, .min, .max), which records"
            )
        raise _no_equivalent(call, inputs)
    except NoEquivalent as exc:
        refusal = exc  # NumPy computes outside the handler: its own errors are not chained to the refusal
    written = inputs[:1] if method == "at" else kwargs.get("out", ())
    return _on_values(refusal, getattr(ufunc, method), inputs, kwargs, written)


def _scipy_special(ufunc: np.ufunc) -> Callable[..., Any] | None:
    """The ``tenferro.scipy.special`` function of a scipy.special ufunc (``scipy.special.erf``),
    or None for one it does not have."""
    namespace = sys.modules.get("scipy.special")
    if namespace is None or getattr(namespace, ufunc.__name__, None) is not ufunc:
        return None
    from ..scipy import special

    return getattr(special, ufunc.__name__) if ufunc.__name__ in special.__all__ else None


def _ufunc_call(ufunc: np.ufunc) -> str:
    """How the user called a ufunc that is not NumPy's: by its module (``scipy.special.erf``)."""
    for module in ("scipy.special",):
        namespace = sys.modules.get(module)
        if namespace is not None and getattr(namespace, ufunc.__name__, None) is ufunc:
            return f"{module}.{ufunc.__name__}"
    return f"the ufunc {ufunc.__name__!r}"


def _ufunc_function(name: str, inputs: tuple[Any, ...] = ()) -> Callable[..., Any]:
    function = getattr(_tnp, UFUNC_NAMES.get(name, name), None)
    if function is None:
        function = getattr(_tnp, name, None)
        if function is None:
            if name == "divmod":
                return divmod_pair
            raise _no_equivalent(f"np.{name}", inputs)
    return function


def divmod_pair(x1: Any, x2: Any) -> tuple[Any, Any]:
    """``np.divmod`` and ``divmod(x, y)``: NumPy defines it as the pair (floor_divide,
    remainder)."""
    return _tnp.floor_divide(x1, x2), _tnp.remainder(x1, x2)


def _vecdot(inputs: tuple[Any, ...], axis: Any, kwargs: dict[str, Any]) -> Any:
    """``np.vecdot(x1, x2, axis=a)``: ``tnp.vecdot``. NumPy's gufunc counts a non-negative
    axis from the start of each operand, the standard from the end: where the operands'
    ranks differ, each one's axis is moved last first."""
    if kwargs:
        _check_ufunc_kwargs("np.vecdot", kwargs)
    x1, x2 = inputs
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and axis >= 0 and np.ndim(x1) != np.ndim(x2):
        for name, x in (("x1", x1), ("x2", x2)):
            if axis >= np.ndim(x):
                raise AxisError(
                    f"np.vecdot(..., axis={axis}): axis {axis} is out of range for {name} with {np.ndim(x)} dims "
                    f"(NumPy counts a non-negative axis from the start of each operand)"
                )
        x1, x2 = _tnp.moveaxis(x1, int(axis), -1), _tnp.moveaxis(x2, int(axis), -1)
        axis = -1
    return _tnp.vecdot(x1, x2, axis=axis)


def _check_ufunc_kwargs(call: str, kwargs: dict[str, Any]) -> None:
    for key, value in kwargs.items():
        neutral = UFUNC_NEUTRAL.get(key, _MISSING)
        if neutral is not _MISSING and type(value) is type(neutral) and value == neutral:
            continue
        if key == "out":
            raise _out_refused(call)
        if key == "where":
            raise NoEquivalent(
                f"{call}(..., where=mask) on a tenferro array: tenferro computes every element; select "
                f"afterwards with tnp.where(mask, {call}(x), other), which records"
            )
        if key == "dtype" or key == "casting":
            raise NoEquivalent(
                f"{call}(..., {key}={_show(value)}) on a tenferro array: cast the operands first "
                f"(tnp.astype(x, dtype)), then call {call} without {key}="
            )
        raise NoEquivalent(
            f"{call}(..., {key}={_show(value)}) on a tenferro array is not supported; call it without {key}="
        )


def _reduce(call: str, name: str, method: str, x: Any, kwargs: dict[str, Any]) -> Any:
    """``np.add.reduce(x, axis=0)`` -> ``tnp.sum(x, axis=0)``; ``np.add.accumulate`` ->
    ``tnp.cumulative_sum``. NumPy's default axis for both is 0."""
    target = (REDUCE if method == "reduce" else ACCUMULATE).get(name)
    if target is None:
        known = ", ".join(
            f"np.{u}.{method} (tnp.{t})" for u, t in (REDUCE if method == "reduce" else ACCUMULATE).items()
        )
        raise NoEquivalent(
            f"{call} on a tenferro array has no tenferro.numpy equivalent (these do: {known}); compute it on "
            f"np.asarray(x), the explicit exit (a NumPy array; the gradient stops there)"
        )
    kwargs = dict(kwargs)  # NumPy's own, kept whole for NumPy to compute on values (see _on_values)
    options: dict[str, Any] = {"axis": kwargs.pop("axis", 0)}
    if method == "reduce":
        options["keepdims"] = kwargs.pop("keepdims", False)
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        if target in ("max", "min", "all", "any"):
            raise NoEquivalent(f"{call}(..., dtype=...): tnp.{target} takes no dtype; cast x first (tnp.astype)")
        options["dtype"] = dtype
    for key, value in kwargs.items():
        if key == "where" and value is True:
            continue
        if key == "out":
            raise _out_refused(call)
        raise NoEquivalent(
            f"{call}(..., {key}=...) on a tenferro array: tnp.{target} takes no {key}; call tnp.{target} "
            f"and combine afterwards (e.g. tnp.where(mask, x, 0) before a sum)"
        )
    return getattr(_tnp, target)(x, **options)


def _outer(call: str, name: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.multiply.outer(a, b)`` is ``np.multiply(a[..., None, ...], b)``: a reshaped
    to its shape followed by one axis of 1 per axis of b, then broadcast."""
    if kwargs:
        _check_ufunc_kwargs(call, kwargs)
    function = _ufunc_function(name)
    a, b = inputs
    if type(a) is not EagerTensor:
        a = _tnp.asarray(a)
    a = _tnp.reshape(a, (*a.shape, *(1,) * np.ndim(b)))
    return function(a, b)


# -- functions ----------------------------------------------------------------------------
def _array_function(
    self: EagerTensor, func: Callable[..., Any], types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``np.sum(x)``, ``np.linalg.solve(a, x)``: the ``tenferro.numpy`` function (see the
    module docstring)."""
    for kind in types:
        if kind is not EagerTensor and not issubclass(kind, np.ndarray):
            return NotImplemented  # another array library's type: let it answer
    module, name = func.__module__, func.__name__
    call = f"{module.replace('numpy', 'np', 1)}.{name}"
    if module == "numpy":
        if name in INSPECT:
            return func._implementation(*args, **kwargs)  # type: ignore[attr-defined]
        if name in AS_DTYPE:
            return func(*[a.dtype if type(a) is EagerTensor else a for a in args], **kwargs)
    out = kwargs.get("out")
    written = (*(out if type(out) is tuple else (out,)), *(args[:1] if name in WRITES else ()))
    if (
        not holds_tracked(args)
        and not holds_tracked(kwargs)
        and not any(type(v) is EagerTensor for v in written)
        and not any(type(a) is EagerTensor and in_rules(a.runtime) for a in args)
    ):
        # nothing would be lost: NumPy's own function on the values, as on any library's data
        # (scipy.optimize passes np.atleast_1d's result to Fortran, which takes ndarrays only);
        # not inside a derivative rule, whose values are tensors on purpose
        return func(*_exit(args), **_exit(kwargs))
    try:
        special = SPECIAL.get((module, name))
        if special is not None:
            return special(call, func, args, kwargs)
        namespace = _namespace(module)
        target = None if namespace is None else getattr(namespace, FUNCTION_NAMES.get((module, name), name), None)
        if target is not None:
            return _call(call, func, target, args, kwargs)
        if module == "numpy" and name in CONSTANT:
            return func(*_exit(args), **_exit(kwargs))
        raise _no_equivalent(call, args)
    except NoEquivalent as exc:
        refusal = exc  # NumPy computes outside the handler: its own errors are not chained to the refusal
    return _on_values(refusal, func, args, kwargs, written)


def _namespace(module: str) -> Any:
    if module == "numpy":
        return _tnp
    if module == "numpy.linalg":
        return getattr(_tnp, "linalg", None)
    if module == "numpy.fft":
        return getattr(_tnp, "fft", None)
    return None


def _call(
    call: str, func: Callable[..., Any], target: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``target`` called with NumPy's arguments ``args, kwargs`` of ``func``: its leading
    positional-only parameters by position, the others by (renamed) keyword; an argument
    equal to NumPy's default is left out (``out=None``, ``keepdims=<no value>``, ``norm=None``).
    The signatures are read once per function (see ``_plan``); binding errors are worded
    only when the call fails."""
    names, variadic, leading, accepts, defaults = _PLANS.get((func, target)) or _plan(func, target)
    positional: list[Any] = list(args) if variadic else []  # np.einsum(*operands), np.meshgrid(*xi)
    keywords: dict[str, Any] = {}
    cast = casting = None
    pairs: Any = () if variadic else zip(names, args)
    if kwargs:
        pairs = [*pairs, *sorted(kwargs.items(), key=lambda item: _position(names, item[0]))]
    for key, value in pairs:
        slot = len(positional)
        if slot < leading and slot < len(names) and names[slot] == key:
            positional.append(value)
            continue
        default = defaults.get(key, _MISSING)
        if value is default or (type(value) is type(default) and type(value) in _PLAIN and value == default):
            continue
        if key == "where" and value is True:  # every element, NumPy's default
            continue
        renamed = key if key in accepts else RENAMES.get(key, key)  # tnp.cov takes NumPy's own ddof
        if renamed is None:
            continue
        if renamed not in accepts:
            if key == "dtype" and positional:  # np.mean(x, dtype=float32): compute in that dtype
                cast = value
                continue
            if key == "casting":  # the rule for that cast (np.concatenate, np.einsum)
                casting = value
                continue
            if key == "out":
                raise _out_refused(call)
            raise NoEquivalent(
                f"{call}(..., {key}={_show(value)}) on a tenferro array: {_name(target)} takes no {key!r}; "
                f"call it without {key}=, or compute on np.asarray(x), the explicit exit (a NumPy array; "
                f"the gradient stops there)"
            )
        keywords[renamed] = value
    if not variadic and len(args) > len(names):
        _bind(call, func, args, kwargs)  # too many arguments for NumPy itself: its words
    if cast is not None:
        rule = (
            casting
            or defaults.get("casting")
            or ("safe" if "casting" in _signature(func).parameters or variadic else "unsafe")
        )
        positional = [_cast(value, cast, rule, call) for value in positional]
    try:
        return target(*positional, **keywords)
    except TypeError as exc:
        if isinstance(exc, TenferroError):
            raise
        _bind(call, func, args, kwargs)  # NumPy's own arguments are wrong: say so
        try:
            _signature(target).bind(*positional, **keywords)
        except TypeError as why:
            raise ArgumentError(f"{call} on a tenferro array, as {_name(target)}: {why}") from None
        raise


def _cast(value: Any, dtype: Any, casting: str, call: str) -> Any:
    """A positional argument cast to ``dtype`` for NumPy's ``dtype=`` (which computes in that
    dtype) under NumPy's ``casting`` rule: an array, each array of a sequence
    (``np.concatenate([x, y], dtype=...)``), never a string (einsum's subscripts) or a
    Python number."""
    if type(value) is list or type(value) is tuple:
        return [
            _cast(_tnp.asarray(item) if type(item) in (list, tuple) else item, dtype, casting, call) for item in value
        ]
    if type(value) is EagerTensor or isinstance(value, (np.ndarray, np.generic)):
        if not np.can_cast(value.dtype, dtype, casting):
            raise DTypeError(
                f"{call}(..., dtype={_show(dtype)}): an operand of dtype {value.dtype} cannot be cast to "
                f"{np.dtype(dtype)} under casting={casting!r} (NumPy's rule); cast it first (tnp.astype) or pass a "
                f"looser casting= ('same_kind', 'unsafe')"
            )
        return _tnp.asarray(value, dtype=dtype)
    return value


#: (NumPy function, tnp function) -> what ``_call`` needs of their signatures.
_PLANS: dict[Any, tuple[tuple[str, ...], bool, int, frozenset[str], dict[str, Any]]] = {}
_PLAIN = (bool, int, float, str)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _plan(func: Callable[..., Any], target: Callable[..., Any]) -> Any:
    """NumPy's positional parameter names, whether it takes ``*args``, the number of the
    target's positional-only parameters, the target's parameter names, NumPy's defaults."""
    numpy = _signature(func).parameters.values()
    accepts = _signature(target).parameters
    plan = (
        tuple(p.name for p in numpy if p.kind in _POSITIONAL),
        any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in numpy),
        sum(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in accepts.values()),
        frozenset(accepts),
        {p.name: p.default for p in numpy},
    )
    _PLANS[func, target] = plan
    return plan


def _position(names: tuple[str, ...], key: str) -> int:
    return names.index(key) if key in names else len(names)


def _bind(call: str, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
    try:
        return _signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        raise ArgumentError(f"{call}: {exc}") from None


_SIGNATURES: dict[Any, inspect.Signature] = {}


def _signature(function: Callable[..., Any]) -> inspect.Signature:
    signature = _SIGNATURES.get(function)
    if signature is None:
        signature = _SIGNATURES[function] = inspect.signature(function)
    return signature


def _name(target: Any) -> str:
    module = getattr(target, "__module__", "") or ""
    prefix = next((p for p in ("linalg", "fft") if module.endswith(p) or f".{p}." in module), None)
    return f"tnp.{prefix}.{target.__name__}" if prefix else f"tnp.{target.__name__}"


def _show(value: Any) -> str:
    if isinstance(value, (EagerTensor, np.ndarray)):
        return "..."
    if isinstance(value, type) and issubclass(value, np.generic):
        return f"np.{np.dtype(value).name}"
    return repr(value)


def _exit(values: Any, refusal: NoEquivalent | None = None) -> Any:
    """``values`` with every EagerTensor (also inside a list, tuple or dict) as a NumPy
    array; ``refusal`` raised, where given, for one that carries a gradient."""
    if type(values) is EagerTensor:
        if refusal is not None and values.tracks_grad():
            raise refusal
        return np.asarray(values)
    if type(values) is dict:
        return {key: _exit(value, refusal) for key, value in values.items()}
    if type(values) in (list, tuple):
        return type(values)(_exit(value, refusal) for value in values)
    return values


def _on_values(
    refusal: NoEquivalent, compute: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], written: Any
) -> Any:
    """NumPy's ``compute(*args, **kwargs)`` on the values of the tenferro arrays among them,
    for a call tenferro cannot record (``refusal`` says why) whose arrays carry no gradient
    (constants, a transform's results, values computed under ``no_grad``): it runs as on
    NumPy arrays and returns NumPy's result, as nothing is lost. ``refusal`` is raised for
    an array that tracks a gradient (it would silently stop there) and for a tenferro array
    among ``written``, the arrays the call writes into (tenferro arrays are immutable)."""
    if any(type(value) is EagerTensor for value in written):
        raise refusal
    return compute(*_exit(args, refusal), **_exit(kwargs, refusal))


def _out_refused(call: str) -> NoEquivalent:
    return NoEquivalent(
        f"{call}(..., out=...) with a tenferro array: the result is a new tenferro array (values are "
        f"immutable), so there is nothing to write into; use the returned array (for a NumPy "
        f"array a, write a = a + x rather than a += x)"
    )


def _no_equivalent(call: str, args: tuple[Any, ...] = ()) -> NoEquivalent:
    hint = HINTS.get(call)
    also = f", or write it with {hint}" if hint else ""
    return NoEquivalent(
        f"{call} on a tenferro array: tenferro.numpy has no equivalent, so NumPy cannot record it; call "
        f"{_on_numpy_arrays(call, args)}, the explicit exit (a NumPy array; the gradient stops there){also}"
    )


def _on_numpy_arrays(call: str, args: tuple[Any, ...]) -> str:
    """The call as it reads on NumPy arrays: ``np.median(np.asarray(x))``,
    ``np.hstack([np.asarray(a) for a in arrays])``; other arguments as ``...``."""
    shown = [
        "np.asarray(x)"
        if type(value) is EagerTensor
        else "[np.asarray(a) for a in arrays]"
        if isinstance(value, (list, tuple)) and any(type(item) is EagerTensor for item in value)
        else "..."
        for value in args
    ]
    while shown and shown[-1] == "...":
        shown.pop()
    if not shown:
        shown = ["np.asarray(x)"]
    if shown.count("np.asarray(x)") > 1:
        numbers = iter(range(1, len(shown) + 1))
        shown = [f"np.asarray(x{next(numbers)})" if part == "np.asarray(x)" else part for part in shown]
    more = ", ..." if len(shown) < len(args) else ""
    return f"{call}({', '.join(shown)}{more})"


# -- NumPy functions whose arguments differ from the tenferro.numpy function's -------------
def _bound(call: str, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    bound = _bind(call, func, args, kwargs)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    if arguments.get("out", None) is not None:
        raise _out_refused(call)
    return arguments


def _swapaxes(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.swapaxes(a, axis1, axis2)``: ``x.swapaxes``'s implementation."""
    from .._array import swap_axes

    a = _bound(call, func, args, kwargs)
    return swap_axes(_tnp.asarray(a["a"]), a["axis1"], a["axis2"], f"{call}(x, {a['axis1']!r}, {a['axis2']!r})")


def _ravel(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    a = _bound(call, func, args, kwargs)
    if a["order"] != "C":
        raise NoEquivalent(f"{call}(..., order={a['order']!r}): tenferro arrays are row-major; order='C' only")
    return _tnp.reshape(a["a"], (-1,))


def _round(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.round(a, decimals)``: ``x.round``'s implementation (NumPy's scaling)."""
    from .._array import round_to

    a = _bound(call, func, args, kwargs)
    return round_to(_tnp.asarray(a["a"]), a["decimals"], call)


def _flattened(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.sort(a, axis=None)``, ``np.argsort(a, axis=None)``: NumPy sorts a flattened;
    the standard's functions take an int axis."""
    a = _bound(call, func, args, kwargs)
    x = a.pop("a")
    if a.get("axis", -1) is None:
        x, a["axis"] = _tnp.reshape(x, (-1,)), -1
    return _call(call, func, getattr(_tnp, func.__name__), (x,), a)


def _trace(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.trace(a, offset, axis1=0, axis2=1)``: ``tnp.linalg.trace`` takes the last two axes."""
    a = _bound(call, func, args, kwargs)
    x = a["a"]
    if (a["axis1"], a["axis2"]) != (np.ndim(x) - 2, np.ndim(x) - 1):
        x = _tnp.moveaxis(x, (a["axis1"], a["axis2"]), (-2, -1))
    options = {} if a["dtype"] is None else {"dtype": a["dtype"]}
    return _tnp.linalg.trace(x, offset=a["offset"], **options)


def _unique(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    a = _bound(call, func, args, kwargs)
    extra = [k for k in ("return_index", "return_inverse", "return_counts") if a[k]] + (
        ["axis"] if a["axis"] is not None else []
    )
    if extra:
        raise NoEquivalent(
            f"{call}(..., {'=..., '.join(extra)}=...) on a tenferro array: use tnp.unique_all, "
            f"tnp.unique_inverse or tnp.unique_counts (the array API's forms)"
        )
    return _tnp.unique_values(a["ar"])


def _svd(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.linalg.svd(a, compute_uv=False)`` is ``tnp.linalg.svdvals``."""
    a = _bound(call, func, args, kwargs)
    if a["hermitian"]:
        raise NoEquivalent(f"{call}(..., hermitian=True) on a tenferro array: call it without hermitian=")
    if not a["compute_uv"]:
        return _tnp.linalg.svdvals(a["a"])
    return _tnp.linalg.svd(a["a"], full_matrices=a["full_matrices"])


def _where(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.where(condition)`` alone is NumPy's ``nonzero(condition)``."""
    if len(args) == 1 and not kwargs:
        return _tnp.nonzero(args[0])
    return _call(call, func, _tnp.where, args, kwargs)


def _copy(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.copy(x)``: ``x.copy()``, a recorded identity."""
    a = _bound(call, func, args, kwargs)
    if a["order"] not in ("C", "K", "A"):
        raise NoEquivalent(f"{call}(..., order={a['order']!r}): tenferro arrays are row-major; order='C' only")
    return _tnp.asarray(a["a"]).copy()


def _linspace(call: str, func: Any, args: Any, kwargs: Any) -> Any:
    """``np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)``:
    ``tnp.linspace``'s samples (and their step with ``retstep``), which differentiate in
    tenferro bounds."""
    from ._creation import spaced
    from ._dtypes import check_device

    a = _bound(call, func, args, kwargs)
    check_device(a.get("device"), call)
    samples, step = spaced(call, a["start"], a["stop"], a["num"], a["endpoint"], a["dtype"], a["axis"])
    return (samples, step) if a["retstep"] else samples


SPECIAL: dict[tuple[str, str], Callable[..., Any]] = {
    ("numpy", "swapaxes"): _swapaxes,
    ("numpy", "ravel"): _ravel,
    ("numpy", "round"): _round,
    ("numpy", "around"): _round,
    ("numpy", "trace"): _trace,
    ("numpy", "unique"): _unique,
    ("numpy.linalg", "svd"): _svd,
    ("numpy", "copy"): _copy,
    ("numpy", "sort"): _flattened,
    ("numpy", "argsort"): _flattened,
    ("numpy", "where"): _where,
    ("numpy", "linspace"): _linspace,
}
