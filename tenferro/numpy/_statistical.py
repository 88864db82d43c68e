"""The array API's statistical functions (``sum``, ``mean``, ``var``, ``cumulative_sum``...)
and NumPy's ``cumsum``/``cumprod``, each the ``reduce`` op of the current session.

The standard calls the reduced axes ``axis`` (an int, a tuple or None) where the ops say
``axes``; errors name the function (``tnp.sum``), not the op. ``dtype=`` (sum, prod,
cumulative_*) casts x before reducing, as the standard asks (to avoid overflow); with None
the result dtype is the op's, which is the standard's (NumPy's: small integers sum to int64
or uint64, floats keep their dtype).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import DTypeError, TenferroError
from ._dispatch import _named, array_arg, renamed

__all__ = [
    "cumulative_prod",
    "cumulative_sum",
    "cumprod",
    "cumsum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]

Axis = int | tuple[int, ...] | None

#: For the ops that refuse bool: the dtype NumPy computes a bool x in (mean, var, std:
#: float64; prod: int64; max, min: as 0/1, the result back to bool, NumPy's any/all).
BOOL_AS = {
    "reduce_mean": np.dtype(np.float64),
    "var": np.dtype(np.float64),
    "std": np.dtype(np.float64),
    "reduce_prod": np.dtype(np.int64),
    "cumulative_prod": np.dtype(np.int64),
    "reduce_max": np.dtype(np.uint8),
    "reduce_min": np.dtype(np.uint8),
}


def _bool_retried(
    exc: TenferroError, session: Any, op: str, x: EagerTensor, args: tuple[Any, ...], function: str
) -> Any:
    """``op(x, *args)``, which raised ``exc``, again on a bool x cast as NumPy computes it
    (``BOOL_AS``), so ``mean(pred == y)`` is the accuracy; else ``exc`` naming ``function``."""
    if isinstance(exc, DTypeError) and x.dtype == np.bool_ and op in BOOL_AS:
        wanted = BOOL_AS[op]
        try:
            result = getattr(session, op)(session.astype(x, wanted), *args)
            return session.astype(result, np.bool_) if wanted == np.uint8 else result
        except TenferroError as again:
            exc = again
    raise renamed(exc, function) from None


def _in_dtype(s: Any, op: str, x: EagerTensor, params: tuple[Any, ...], wanted: np.dtype) -> EagerTensor:
    """The op on x cast to ``wanted`` first, its result cast back where the op widens it
    (an integer sum is int64): the standard's ``dtype=`` of sum, prod and the cumulatives."""
    if x.dtype != wanted:
        x = s.astype(x, wanted)
    result = getattr(s, op)(x, *params)
    return result if result.dtype == wanted else s.astype(result, wanted)


def dtype_of(dtype: Any, function: str) -> np.dtype:
    """The NumPy dtype a ``dtype=`` argument names (a tnp dtype, a NumPy dtype or its name)."""
    try:
        resolved = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):  # (np.dtype("01") parses it as a Python literal)
        resolved = None
    if resolved is None or resolved.kind not in "biufc":
        raise DTypeError(
            f"{function}: argument 'dtype' is {dtype!r}; pass a dtype of tenferro.numpy (tnp.float64, "
            f"tnp.int64, ...) or None"
        )
    return resolved


def _reduction(name: str, op: str, doc: str) -> Callable[..., EagerTensor]:
    """``name(x, /, *, axis=None, keepdims=False)``: the op ``op(x, axes, keepdims)``."""
    function = f"tnp.{name}"

    def reduction(x: Any, /, *, axis: Axis = None, keepdims: bool = False) -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, function)
        rt = x.runtime
        session = rt.current_session()
        try:
            if axis is None and keepdims is False:  # the op's defaults: its fastest call
                return getattr(session, op)(x)
            return getattr(session, op)(x, axis, keepdims)
        except TenferroError as exc:
            return _bool_retried(exc, session, op, x, (axis, keepdims), function)

    return _named(reduction, name, doc)


def _typed_reduction(name: str, op: str, doc: str) -> Callable[..., EagerTensor]:
    """``name(x, /, *, axis=None, dtype=None, keepdims=False)``: x cast to ``dtype``, then
    the op ``op(x, axes, keepdims)`` (its result cast too where the op widens integers)."""
    function = f"tnp.{name}"

    def reduction(x: Any, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, function)
        rt = x.runtime
        s = rt.current_session()
        try:
            if dtype is None:
                if axis is None and keepdims is False:
                    return getattr(s, op)(x)
                return getattr(s, op)(x, axis, keepdims)
            return _in_dtype(s, op, x, (axis, keepdims), dtype_of(dtype, function))
        except TenferroError as exc:
            return _bool_retried(exc, s, op, x, (axis, keepdims), function)

    return _named(reduction, name, doc)


def _spread(name: str, op: str, doc: str) -> Callable[..., EagerTensor]:
    """``name(x, /, *, axis=None, correction=0.0, keepdims=False)``: the op
    ``op(x, axes, correction, keepdims)`` (var, std; correction is NumPy's ddof)."""
    function = f"tnp.{name}"

    def spread(x: Any, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, function)
        rt = x.runtime
        session = rt.current_session()
        try:
            return getattr(session, op)(x, axis, correction, keepdims)
        except TenferroError as exc:
            return _bool_retried(exc, session, op, x, (axis, correction, keepdims), function)

    return _named(spread, name, doc)


def _cumulative(name: str, op: str, doc: str, flatten: bool) -> Callable[..., EagerTensor]:
    """The standard's ``name(x, /, *, axis=None, dtype=None, include_initial=False)``, or
    (``flatten``) NumPy's ``name(a, /, axis=None, dtype=None)``, which runs over the
    flattened array when axis is None."""
    function = f"tnp.{name}"

    def run(x: Any, axis: int | None, dtype: Any, include_initial: bool) -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, function)
        rt = x.runtime
        s = rt.current_session()
        try:
            if flatten and axis is None and x.ndim != 1:
                x = s.reshape(x, (-1,))
            if dtype is None:
                return getattr(s, op)(x, axis, include_initial)
            return _in_dtype(s, op, x, (axis, include_initial), dtype_of(dtype, function))
        except TenferroError as exc:
            return _bool_retried(exc, s, op, x, (axis, include_initial), function)

    if flatten:

        def numpy_form(a: Any, /, axis: int | None = None, dtype: Any = None) -> EagerTensor:
            return run(a, axis, dtype, False)

        return _named(numpy_form, name, doc)

    def standard_form(
        x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
    ) -> EagerTensor:
        return run(x, axis, dtype, include_initial)

    return _named(standard_form, name, doc)


sum = _typed_reduction("sum", "reduce_sum", "Sum over `axis` (None: all), cast to `dtype` first if given.")  # noqa: A001
prod = _typed_reduction("prod", "reduce_prod", "Product over `axis`, exact gradient at zeros.")
mean = _reduction("mean", "reduce_mean", "Arithmetic mean over `axis` (None: all).")
max = _reduction("max", "reduce_max", "Maximum over `axis`; ties share the gradient evenly.")  # noqa: A001
min = _reduction("min", "reduce_min", "Minimum over `axis`; ties share the gradient evenly.")  # noqa: A001
var = _spread("var", "var", "Variance over `axis`, divided by N - correction (NumPy's ddof).")
std = _spread("std", "std", "Standard deviation over `axis`, sqrt(var); gradient 0 where it is 0.")
cumulative_sum = _cumulative(
    "cumulative_sum", "cumulative_sum", "Running sum along `axis` (required beyond 1-D).", False
)
cumulative_prod = _cumulative(
    "cumulative_prod", "cumulative_prod", "Running product along `axis` (required beyond 1-D).", False
)
cumsum = _cumulative("cumsum", "cumulative_sum", "NumPy's cumsum: axis None runs over the flattened array.", True)
cumprod = _cumulative("cumprod", "cumulative_prod", "NumPy's cumprod: axis None runs over the flattened array.", True)
