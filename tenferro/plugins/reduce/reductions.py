"""Reductions over ``axes`` (None = all, an int, or a tuple; reduced axes are dropped, or
kept as size 1 with ``keepdims=True``).

Every rule spreads the cotangent back with ``expand_to`` (given the same ``keepdims``);
every forward-mode rule sums the tangent, weighted as the VJP weights the cotangent.
The products live in :mod:`.product`, which needs more care at zeros.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    NO_ORDER,
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    InputRule,
    Kink,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    TenferroError,
    batching,
    cast,
    normalize_axes,
    reduced,
)

from .axes import check_keepdims, kept_shape


def spread(s: Any, g: Any, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """The cotangent of a reduction broadcast back over the reduced axes of ``x`` (all
    params positional: the session's fast path)."""
    return s.expand_to(g, x.shape, axes, keepdims)


def count_of(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    """How many elements a reduction over ``axes`` combines."""
    return math.prod(shape[a] for a in axes)  # Python ints: exact, and 2 µs less than np.prod


def _sum_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, keepdims: bool) -> Any:
    return spread(s, g, x, normalize_axes(axes, x.ndim, "reduce_sum"), keepdims)


def _mean_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, keepdims: bool) -> Any:
    axes = normalize_axes(axes, x.ndim, "reduce_mean")
    return spread(s, s.div(g, count_of(x.shape, axes)), x, axes, keepdims)


def _extremum_rule(name: str) -> InputRule:
    def rule(s: Any, g: Any, out: Any, x: Any, axes: Any, keepdims: bool) -> Any:
        # The cotangent goes to the elements equal to the extremum, split evenly among ties.
        axes = normalize_axes(axes, x.ndim, name)
        hit = s.compare(x, spread(s, out, x, axes, keepdims), "eq")
        weight = s.where_select(hit, x.dtype.type(1), x.dtype.type(0))
        share = s.div(g, s.reduce_sum(weight, axes, keepdims))
        return s.mul(weight, spread(s, share, x, axes, keepdims))

    return rule


def _extremum_jvp(name: str) -> Any:
    def jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any, keepdims: bool) -> Any:
        # the mean of the tangent over the elements tied for the extremum
        (t,), (x,) = tangents, inputs
        if t is None:
            return None
        axes = normalize_axes(axes, x.ndim, name)
        hit = s.compare(x, spread(s, out, x, axes, keepdims), "eq")
        weight = s.where_select(hit, x.dtype.type(1), x.dtype.type(0))
        return s.div(s.reduce_sum(s.mul(weight, t), axes, keepdims), s.reduce_sum(weight, axes, keepdims))

    return jvp


def _logsumexp_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any, keepdims: bool) -> Any:
    """sum(softmax(x)·t) over the axes."""
    (t,), (x,) = tangents, inputs
    if t is None:
        return None
    axes = normalize_axes(axes, x.ndim, "logsumexp")
    return s.reduce_sum(s.mul(t, s.exp(s.sub(x, spread(s, out, x, axes, keepdims)))), axes, keepdims)


def _logsumexp_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, keepdims: bool) -> Any:
    axes = normalize_axes(axes, x.ndim, "logsumexp")
    softmax = s.exp(s.sub(x, spread(s, out, x, axes, keepdims)))
    return s.mul(spread(s, g, x, axes, keepdims), softmax)


def _logsumexp(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """log(sum(exp(x))) shifted by the max so that nothing overflows; -inf over no elements.
    Integers are taken as float64 (like np.mean's result)."""
    if x.dtype.kind != "f":
        x = cast(x, np.float64)
    # (initial=, for a slice of no elements, only where there is one: dask's max takes none;
    # the ufunc's method is np.max's 3 µs of dispatch less)
    if 0 in x.shape:
        shift = reduced(np.maximum, x, axis=axis, keepdims=True, initial=-np.inf)
    else:
        shift = reduced(np.maximum, x, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    return np.log(np.sum(np.exp(x - shift), axis=axis)) + np.squeeze(shift, axis=axis)


def _mean(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """np.mean's value (the same sum, then one division) without its "Mean of empty slice"
    warning: the mean over no elements is nan, silently, like every other IEEE result."""
    count = math.prod(x.shape[a] for a in axis)
    total = reduced(np.add, x, axis=axis, dtype=None if x.dtype.kind in "fc" else np.float64)
    return np.true_divide(total, count)


def ufunc_reduce_for_floats(ufunc: np.ufunc, general: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """``ufunc.reduce`` for floats (np.sum and np.prod add ~2 µs of dispatch per call on
    small tensors); the NumPy function for integers, which it widens to the platform int."""

    method = ufunc.reduce  # (called directly on NumPy's arrays: every reduction's hot path)

    def kernel(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
        if x.dtype.kind not in "fc":
            return general(x, axis=axis)
        return method(x, axis=axis) if type(x) is np.ndarray else reduced(ufunc, x, axis=axis)

    return kernel


def _extremum(ufunc: np.ufunc) -> Callable[..., np.ndarray]:
    """reduce_max's or reduce_min's kernel: ``ufunc.reduce`` over ``axis``."""

    method = ufunc.reduce

    def kernel(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
        return method(x, axis=axis) if type(x) is np.ndarray else reduced(ufunc, x, axis=axis)

    return kernel


def explain_empty(name: str) -> Callable[..., TenferroError | None]:
    def explain(x: np.ndarray, axes: Any = None, keepdims: bool = False) -> TenferroError | None:
        reduced = normalize_axes(axes, x.ndim, name)
        if any(x.shape[a] == 0 for a in reduced):
            return ShapeMismatch(f"{name}: cannot reduce over an axis of size 0 (the result has no value)")
        return None

    return explain


def reduction_errors(name: str, bools: bool = False, keepdims: bool = True) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        x = np.zeros((2, 3))
        cases = [
            ErrorInput((x,), {"axes": 2}, AxisError, "out of range"),
            ErrorInput((x,), {"axes": (1, -1)}, AxisError, "same axis twice"),
            ErrorInput((x,), {"axes": 0.5}, AxisError, "tuple of ints"),
        ]
        if keepdims:
            cases.append(ErrorInput((x,), {"axes": 0, "keepdims": 1}, ArgumentError, "keepdims must be True or False"))
        if not bools:
            cases.append(ErrorInput((np.zeros(2, bool),), {"axes": None}, DTypeError, "argument 'x' has dtype bool"))
        if name in ("reduce_max", "reduce_min"):
            cases.append(ErrorInput((np.zeros(2, complex),), {}, DTypeError, "complex numbers have no order"))
        return cases

    return errors


def reduction(
    name: str,
    kernel: Callable[..., np.ndarray],
    rule: InputRule | None,
    reference: Callable[..., np.ndarray],
    doc: str,
    sample: Callable[[], Any] | None = None,
    explain: Callable[..., TenferroError | None] | None = None,
    second_order: bool = True,
    residuals: tuple[str, ...] | None = None,
    accepts: str = "fiu",
    kinks: tuple[Kink, ...] = (),
    linear: bool = False,
    complex_sample: Callable[[], Any] | None = None,
    refuses: dict[str, str] | None = None,
    jvp: Callable[..., Any] | None = None,
) -> OpSpec:
    """Spec of an op ``name(x, axes=None, keepdims=False)`` computed by
    ``kernel(x, axis=<normalized axes>)`` (reduced axes dropped; ``keepdims`` reshapes)."""

    def forward(x: np.ndarray, axes: Any = None, keepdims: bool = False) -> np.ndarray:
        axis = normalize_axes(axes, x.ndim, name)
        out = kernel(x, axis=axis)
        if keepdims is not False and check_keepdims(keepdims, name):
            out = np.reshape(out, kept_shape(x.shape, axis, True))
        return out

    return OpSpec(
        name=name,
        inputs=("x",),
        params={"axes": None, "keepdims": False},
        forward=forward,
        vjps=None if rule is None else (rule,),
        jvp=jvp,
        linear=linear,
        accepts=accepts,
        explain=explain,
        sample=sample or samples(),
        reference=reference,
        error_inputs=reduction_errors(name, bools="b" in accepts),
        second_order=second_order,
        residuals=residuals,
        doc=doc,
        kinks=kinks,
        complex_sample=complex_sample,
        refuses=refuses or {},
        batch=batching.over_axes("axes"),
    )


def _tied(extreme: float) -> tuple[Kink, ...]:
    """Ties for the extreme value split the cotangent evenly: two in a row of a matrix, three
    in a vector."""
    rows = np.array([[extreme, extreme, 0.0], [0.0, 2 * extreme, 2 * extreme]])
    halves = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    return (
        Kink((rows,), (halves,), {"axes": 1}),
        Kink((rows,), (halves,), {"axes": 1, "keepdims": True}),
        Kink((np.full(3, extreme),), (np.full(3, 1 / 3),)),
    )


def with_keepdims(strategy: Any) -> Any:
    """``strategy``'s samples, each with ``keepdims`` drawn as well."""
    from hypothesis import strategies as st

    return st.tuples(strategy, st.booleans()).map(
        lambda pair: SampleInput(pair[0].args, {**pair[0].params, "keepdims": pair[1]})
    )


def samples(**kwargs: Any) -> Callable[[], Any]:
    """Sample factory: an array, an ``axes`` argument (see ``strategies.reduction``) and
    ``keepdims``."""

    def make() -> Any:
        from tenferro.testing.strategies import reduction as reduction_sample

        return with_keepdims(reduction_sample(**kwargs))

    return make


def sequential_reference(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A reference that reduces one axis at a time (a different summation order)."""

    def reference(x: np.ndarray, axes: Any = None, keepdims: bool = False) -> np.ndarray:
        axis = normalize_axes(axes, np.ndim(x), "reference")
        shape = np.shape(x)
        for a in sorted(axis, reverse=True):
            x = fn(x, a)
        return np.asarray(x).reshape(kept_shape(shape, axis, True)) if keepdims else np.asarray(x)

    return reference


SPECS = [
    reduction(
        "reduce_sum",
        ufunc_reduce_for_floats(np.add, np.sum),
        _sum_rule,
        sequential_reference(lambda x, a: np.add.reduce(x, axis=a)),
        "Sum over `axes` (None = all). Bools count: the sum of a bool tensor is an integer, as in NumPy.",
        accepts="biufc",
        linear=True,
    ),
    reduction(
        "reduce_mean",
        _mean,
        _mean_rule,
        sequential_reference(lambda x, a: np.add.reduce(x, axis=a) / x.shape[a]),
        "Mean over `axes` (None = all).",
        accepts="fiuc",
        linear=True,
    ),
    reduction(
        "reduce_max",
        _extremum(np.maximum),
        _extremum_rule("reduce_max"),
        sequential_reference(lambda x, a: np.maximum.reduce(x, axis=a)),
        "Max over `axes`. Convention: the cotangent is split evenly among the elements tied for the max.",
        samples(distinct=True),
        explain_empty("reduce_max"),
        residuals=("x", "out"),
        kinks=_tied(2.0),
        refuses=NO_ORDER,
        jvp=_extremum_jvp("reduce_max"),
    ),
    reduction(
        "reduce_min",
        _extremum(np.minimum),
        _extremum_rule("reduce_min"),
        sequential_reference(lambda x, a: np.minimum.reduce(x, axis=a)),
        "Min over `axes`. Convention: the cotangent is split evenly among the elements tied for the min.",
        samples(distinct=True),
        explain_empty("reduce_min"),
        residuals=("x", "out"),
        kinks=_tied(-2.0),
        refuses=NO_ORDER,
        jvp=_extremum_jvp("reduce_min"),
    ),
    reduction(
        "logsumexp",
        _logsumexp,
        _logsumexp_rule,
        sequential_reference(lambda x, a: np.log(np.sum(np.exp(x), axis=a))),
        "log(sum(exp(x))) over `axes`, without overflow; its gradient is the softmax.",
        samples(low=-20.0, high=20.0),
        residuals=("x", "out"),
        jvp=_logsumexp_jvp,
        refuses={
            "c": "complex logsumexp is not implemented (PyTorch's is log Σ exp(z) on the principal branch); "
            "write s.log(s.reduce_sum(s.exp(z), axes)) or reduce s.real(z) on purpose"
        },
    ),
]
