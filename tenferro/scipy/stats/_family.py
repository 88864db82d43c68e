"""How a univariate distribution of ``tenferro.scipy.stats`` becomes its functions: one
:class:`Univariate` (its standard form's formulas, support and valid parameters) and
:func:`module` makes ``logpdf``/``pdf``/``cdf``/... with scipy's signatures
(``norm.logpdf(x, loc=0, scale=1)``, ``t.cdf(x, df, loc=0, scale=1)``,
``poisson.logpmf(k, mu, loc=0)``) and scipy's values where scipy's generic code puts them:
-inf (logpdf) or 0 (pdf) outside the support, 0 or 1 for cdf and sf beyond it, nan for
invalid parameters (scale <= 0, df <= 0, p outside [0, 1], ...) or a nan argument.

Every function is a composition of ``tenferro.numpy`` and ``tenferro.scipy.special``, so
each differentiates to every order. Outside the support and at invalid parameters the
formulas are evaluated at a safe point (the double-``where``), so the masked-off branch
sends zeros, never nan, to the gradient.
"""

from __future__ import annotations

import inspect
import math
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import numpy as tnp
from ...core.eager import EagerTensor, holds_tracked
from ...core.errors import ArgumentError, DTypeError, NotDifferentiable, ShapeMismatch
from ...core.recording import paused
from ...numpy._dispatch import as_array, runtime_of

#: A formula of the standard form: ``f(z, *shapes)`` on tenferro arrays.
Formula = Callable[..., Any]

PREFIX = "tenferro.scipy.stats."
_DENSITIES = ("logpdf", "pdf", "logpmf", "pmf")
_BELOW = ("cdf", "logcdf")
#: Each function's value below and above the support (densities: the same on both sides).
_OUTSIDE = {
    "logpdf": (-math.inf, -math.inf),
    "pdf": (0.0, 0.0),
    "logpmf": (-math.inf, -math.inf),
    "pmf": (0.0, 0.0),
    "cdf": (0.0, 1.0),
    "logcdf": (-math.inf, 0.0),
    "sf": (1.0, 0.0),
    "logsf": (0.0, -math.inf),
}
#: What a function computes, for its docstring.
_WHAT = {
    "logpdf": "the log of the probability density",
    "pdf": "the probability density",
    "logpmf": "the log of the probability mass",
    "pmf": "the probability mass",
    "cdf": "the distribution function P(X <= x)",
    "logcdf": "the log of the distribution function",
    "sf": "the survival function 1 - cdf, accurate where cdf is near 1",
    "logsf": "the log of the survival function",
    "ppf": "the quantile function, the inverse of cdf on [0, 1]",
    "isf": "the inverse of sf on [0, 1]",
}


@dataclass(frozen=True)
class Univariate:
    """A distribution by its standard form (loc 0, scale 1): ``formulas`` maps function
    names to ``f(z, *shapes)``; ``support`` is (low, high) or a function of the shape
    parameters giving it; ``valid(*shapes)`` the parameters scipy accepts (a bool array);
    ``safe`` one valid value per shape parameter (where invalid ones are replaced before the
    formulas run); ``discrete`` for a distribution on the integers (``k``, shapes, ``loc``:
    no ``scale``, and a non-integer k outside the support); ``open_support`` where scipy's
    densities exclude the support's ends (lognorm at 0); ``refused`` maps a function to
    the shape parameters it has no derivative in (a call with one tracking a gradient
    raises NotDifferentiable naming the function and the argument)."""

    name: str
    shapes: tuple[str, ...]
    support: tuple[float, float] | Callable[..., tuple[Any, Any]]
    formulas: Mapping[str, Formula]
    valid: Callable[..., Any] | None = None
    safe: tuple[float, ...] = ()
    discrete: bool = False
    open_support: bool = False
    doc: str = ""
    refused: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def functions(self) -> dict[str, Formula]:
        """The formulas with the ones scipy derives by default: pdf = exp(logpdf) (pmf),
        logcdf = log(cdf) and logsf = log(sf) (for a continuous distribution log1p(-sf)
        and log1p(-cdf) beyond the median, as scipy's)."""
        found = dict(self.formulas)
        density = "pmf" if self.discrete else "pdf"
        if "log" + density in found and density not in found:
            found[density] = lambda z, *p, f=found["log" + density]: tnp.exp(f(z, *p))
        for log, plain, other in (("logcdf", "cdf", "sf"), ("logsf", "sf", "cdf")):
            if plain in found and log not in found:
                if self.discrete or other not in found:
                    found[log] = lambda z, *p, f=found[plain]: tnp.log(f(z, *p))
                else:
                    found[log] = lambda z, *p, f=found[plain], g=found[other]: _log_either(f(z, *p), g(z, *p))
        return found


def _log_either(value: Any, complement: Any) -> Any:
    """log(value), as log1p(-complement) where value >= 1/2 (scipy's continuous logcdf and
    logsf switch at the median, where both are accurate); each branch is evaluated where
    it is finite, so the other sends no nan to the gradient."""
    low = value < 0.5
    return tnp.where(low, tnp.log(tnp.where(low, value, 1.0)), tnp.log1p(-tnp.where(low, 0.0, complement)))


def _safe_point(low: float, high: float) -> float:
    """A point inside the support, where masked-off elements are evaluated."""
    if math.isfinite(low) and math.isfinite(high):
        return (low + high) / 2
    if math.isfinite(low):
        return low + 1.0
    return high - 1.0 if math.isfinite(high) else 0.0


def arguments(function: str, names: tuple[str, ...], values: tuple[Any, ...]) -> list[EagerTensor]:
    """The arguments as EagerTensors of one float dtype (the float arrays' dtypes promoted,
    float64 when none is float; Python numbers take it, as weak scalars): complex or
    non-numeric arguments are refused naming the argument, and shapes that do not
    broadcast are a ShapeMismatch listing each argument's."""
    rt = runtime_of(values)
    lifted: list[Any] = []
    for name, value in zip(names, values):
        if isinstance(value, complex):
            value = np.asarray(value)  # refused below, as a complex array
        if type(value) in (int, float, bool):
            lifted.append(float(value))
            continue
        tensor = value if type(value) is EagerTensor else as_array(rt, value, function, name)
        if tensor.dtype.kind == "c":
            raise DTypeError(
                f"{function}: argument {name!r} is complex; the distributions of tenferro.scipy.stats are of real "
                f"numbers (as scipy.stats's)",
                argument=name,
            )
        if tensor.dtype.kind not in "biuf":
            raise DTypeError(
                f"{function}: argument {name!r} has dtype {tensor.dtype}; the distributions of tenferro.scipy.stats "
                f"are of real numbers (as scipy.stats's)",
                argument=name,
            )
        lifted.append(tensor)
    tensors = [v for v in lifted if type(v) is EagerTensor]
    try:
        np.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        listed = ", ".join(f"{list(np.shape(v))} ({n})" for n, v in zip(names, lifted))
        raise ShapeMismatch(f"{function}: shapes {listed} do not broadcast together") from None
    floats = [t.dtype for t in tensors if t.dtype.kind == "f"]
    dtype = np.result_type(*floats) if floats else np.dtype(np.float64)
    return [
        rt.constant_from(np.asarray(v, dtype))
        if type(v) is float
        else (v if v.dtype == dtype else tnp.astype(v, dtype))
        for v in lifted
    ]


def _support(dist: Univariate, shapes: list[Any]) -> tuple[Any, Any]:
    return dist.support(*shapes) if callable(dist.support) else dist.support


def _evaluate(dist: Univariate, kind: str, formula: Formula, args: list[EagerTensor]) -> EagerTensor:
    """``kind`` of ``dist`` at ``args`` = (x, *shapes, loc[, scale]), with scipy's values
    outside the support and at invalid parameters."""
    count = len(dist.shapes)
    x, shapes, loc = args[0], args[1 : 1 + count], args[1 + count]
    scale = None if dist.discrete else args[2 + count]
    valid = dist.valid(*shapes) if dist.valid is not None else None
    if scale is not None:
        valid = scale > 0 if valid is None else tnp.logical_and(valid, scale > 0)
    if valid is not None:
        shapes = [tnp.where(valid, p, safe) for p, safe in zip(shapes, dist.safe)]
    low, high = _support(dist, shapes)
    if kind in ("ppf", "isf"):
        return _quantile(dist, kind, formula, x, shapes, loc, scale, valid, low, high)
    z = tnp.subtract(x, loc)
    if dist.discrete:
        # constant between the integers: k and loc get zeros (floor's derivative) and never reach a shape
        # parameter of gammaincc or betainc, which refuse one
        z = z.detach()
    if scale is not None:
        scale = tnp.where(valid, scale, 1.0)
        z = tnp.divide(z, scale)
    if dist.discrete and kind not in _DENSITIES:
        z = tnp.floor(z)  # cdf(k) = cdf(floor(k)), as scipy's
    if kind in _DENSITIES:
        inside = tnp.logical_and(
            (z > low) if dist.open_support else (z >= low), (z < high) if dist.open_support else (z <= high)
        )
        if dist.discrete:
            inside = tnp.logical_and(inside, tnp.floor(z) == z)
    else:
        inside = tnp.logical_and(z > low if not dist.discrete else z >= low, z < high)
    # the discrete supports start at a finite integer (binom's ends at n, a tensor)
    safe = low if dist.discrete else _safe_point(low, high)
    at = tnp.where(inside, tnp.floor(z) if dist.discrete else z, safe)
    value = formula(at, *shapes)
    if scale is not None and kind == "logpdf":
        value = tnp.subtract(value, tnp.log(scale))
    elif scale is not None and kind == "pdf":
        value = tnp.divide(value, scale)
    below, above = _OUTSIDE[kind]
    if kind in _DENSITIES:
        outside: Any = below
    else:
        beyond = (z >= high) if kind in _BELOW else ((z < low) if dist.discrete else (z <= low))
        outside = tnp.where(beyond, above if kind in _BELOW else below, below if kind in _BELOW else above)
    value = tnp.where(inside, value, outside)
    bad = tnp.isnan(z)
    if valid is not None:
        bad = tnp.logical_or(bad, tnp.logical_not(valid))
    return tnp.where(bad, math.nan, value)


def _quantile(
    dist: Univariate,
    kind: str,
    formula: Formula,
    q: Any,
    shapes: list[Any],
    loc: Any,
    scale: Any,
    valid: Any,
    low: Any,
    high: Any,
) -> EagerTensor:
    """ppf or isf: ``formula(q)·scale + loc`` for 0 < q < 1, the support's ends at 0 and 1
    (an infinite end a constant, so no 0·inf reaches the gradient), nan elsewhere."""
    scale = tnp.where(valid, scale, 1.0)
    inside = tnp.logical_and(q > 0, q < 1)
    value = tnp.add(tnp.multiply(formula(tnp.where(inside, q, 0.5), *shapes), scale), loc)
    first, last = (low, high) if kind == "ppf" else (high, low)

    def end(bound: float) -> Any:
        return tnp.add(tnp.multiply(scale, bound), loc) if math.isfinite(bound) else bound

    value = tnp.where(inside, value, tnp.where(q == 0, end(first), tnp.where(q == 1, end(last), math.nan)))
    bad = tnp.logical_or(tnp.logical_not(valid), tnp.isnan(loc))
    return tnp.where(bad, math.nan, value)


def _signature(dist: Univariate, kind: str) -> inspect.Signature:
    first = "q" if kind in ("ppf", "isf") else ("k" if dist.discrete else "x")
    kind_ = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(first, kind_), *(inspect.Parameter(s, kind_) for s in dist.shapes)]
    params.append(inspect.Parameter("loc", kind_, default=0.0))
    if not dist.discrete:
        params.append(inspect.Parameter("scale", kind_, default=1.0))
    return inspect.Signature(params, return_annotation=EagerTensor)


def bind(function: str, signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``args`` and ``kwargs`` bound to ``signature``, defaults applied: a missing or
    unknown argument is an ArgumentError naming ``function`` and showing its signature."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        short = function.removeprefix(PREFIX)
        raise ArgumentError(f"{function}: {exc}; its signature is {short}{signature}") from None
    bound.apply_defaults()
    return bound


def _refuse_tracked(function: str, argument: str, value: EagerTensor) -> None:
    """A NotDifferentiable naming ``function`` and ``argument`` if ``value`` tracks a
    gradient while its runtime records: the argument is a shape parameter of an incomplete
    gamma or beta function or stdtr, which have no derivative there. Raised at the call, so
    the error names what the user called, not the special function's own argument."""
    if holds_tracked(value) and value.runtime not in paused():
        raise NotDifferentiable(
            f"{function}: no derivative in the argument {argument!r} (it is a shape parameter of an incomplete "
            f"gamma or beta function or of stdtr, whose derivatives there are series with no closed form; JAX and "
            f"HIPS autograd refuse them too); it tracks a gradient here: pass {argument} as a constant "
            f"(tf.stop_gradient({argument}) or a NumPy array), or compute under no_grad",
            argument=argument,
        )


def _function(dist: Univariate, kind: str, formula: Formula) -> Callable[..., EagerTensor]:
    name = f"{PREFIX}{dist.name}.{kind}"
    signature = _signature(dist, kind)
    names = tuple(signature.parameters)
    refused = dist.refused.get(kind, ())

    def function(*args: Any, **kwargs: Any) -> EagerTensor:
        bound = bind(name, signature, args, kwargs)
        args = arguments(name, names, tuple(bound.arguments.values()))
        for argument in refused:
            _refuse_tracked(name, argument, args[names.index(argument)])
        return _evaluate(dist, kind, formula, args)

    function.__name__ = function.__qualname__ = kind
    function.__module__ = PREFIX + dist.name
    function.__signature__ = signature  # type: ignore[attr-defined]
    note = f" Differentiable in every argument but {', '.join(refused)} (NotDifferentiable)." if refused else ""
    if dist.discrete:
        note += " k and loc take no gradient (zeros: the function is constant between integers)."
    function.__doc__ = f"{dist.name}.{kind}{signature}: {_WHAT[kind]}, as scipy.stats.{dist.name}.{kind}.{note}"
    return function


def module(name: str, doc: str, functions: Mapping[str, Callable[..., Any]], parent: str) -> types.ModuleType:
    """A module ``parent.name`` holding ``functions``, registered in ``sys.modules`` so that
    ``import tenferro.scipy.stats.norm`` works as ``import jax.scipy.stats.norm`` does."""
    made = types.ModuleType(f"{parent}.{name}", doc)
    for fname, function in functions.items():
        setattr(made, fname, function)
    made.__all__ = sorted(functions)  # type: ignore[attr-defined]
    sys.modules[made.__name__] = made
    return made


def univariate(dist: Univariate) -> types.ModuleType:
    """The module of ``dist``'s functions."""
    functions = {kind: _function(dist, kind, formula) for kind, formula in dist.functions().items()}
    return module(dist.name, dist.doc, functions, PREFIX.rstrip("."))
