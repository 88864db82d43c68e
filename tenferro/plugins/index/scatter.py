"""``scatter``: the functional update ``x.at[indices].<mode>(updates)``, one op whose
``mode`` picks a row of :data:`MODES` (the kernel's update and the two VJP rules).

Indices are ``gather``'s (the ``"nd"`` layout, see :mod:`.positions`); updates broadcast
to the positions they point at. Conventions (PyTorch's ``scatter_reduce`` with
``include_self=True``, as data in the spec's kinks):

- ``set``: where indices repeat, the last update wins (NumPy's assignment); x gets no
  gradient where it was overwritten, and only the winning update gets one.
- ``add``: repeated indices accumulate; the VJP is g for x and gather(g) for the updates.
- ``mul``: the gradient is exact where values are zero (leave-one-out products of the
  updates landing together, no division by zero); second derivatives are exact away from
  zeros.
- ``min``/``max``: the cotangent of each result element is split evenly among x's element
  and every update that equals the result there.

The result has x's dtype: updates of another dtype are cast to it as they are written
(NumPy's ``ufunc.at``; PyTorch requires equal dtypes), and min/max compare them with the
result after that cast, so an f64 update in an f32 x gets its gradient (in f64).

Complex values: set, add and mul take a complex x (with complex or real updates; the rules
are g·conj(∂), and a real update gets a real cotangent). Complex updates into a real x are
refused (their imaginary part would be dropped), and so are min and max on complex values:
complex numbers have no order.

The helper ops the rules use are here too: ``scatter_winners`` and ``filled``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    DTypeError,
    EngineError,
    ErrorInput,
    Kink,
    OpSpec,
    ShapeMismatch,
    check_shape,
    conj,
    is_chunked,
    tangent_sum,
    unbroadcast,
)

from . import batch_rules, samples
from .gathers import broadcast_updates, check_fits, scatter_add_to
from .positions import IndexOutOfRange, index_tuple, normalize, picked_shape


@dataclass(frozen=True)
class Mode:
    """One way of combining an update with what is there: the kernel's ``update(out, where,
    updates)`` (in place on a fresh copy of x), the rules for x and the updates, and the
    forward-mode rule ``jvp(s, t_x, t_updates, x, indices, updates, out, axis)`` (tangents
    None for zero)."""

    update: Callable[[Any, tuple[Any, ...], Any], None]
    x_rule: Callable[..., Any]
    updates_rule: Callable[..., Any]
    jvp: Callable[..., Any]


def _ufunc_at(ufunc: np.ufunc) -> Callable[[Any, tuple[Any, ...], Any], None]:
    return lambda out, where, updates: ufunc.at(out, where, updates)


def _assign(out: Any, where: tuple[Any, ...], updates: Any) -> None:
    out[where] = updates


# -- rules: rule(s, g, x, indices, updates, out, axis) -> the cotangent ------------------------
def _is_scalar(value: Any) -> bool:
    """A Python number update (the core hands a rule a NumPy scalar as a 0-d tensor)."""
    return not hasattr(value, "shape")


def _tensor(s: Any, g: Any, value: Any) -> Any:
    """A Python-number update as a 0-d tensor of g's dtype (it broadcasts like the number)."""
    return s.filled(g, value, ()) if _is_scalar(value) else value


def _real_dtype(dtype: np.dtype) -> np.dtype:
    """float64 for complex128, float32 for complex64, dtype itself for a real dtype."""
    return np.empty(0, dtype).real.dtype


def _set_x(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    return s.scatter(g, indices, 0.0, axis, "set")  # overwritten: no gradient


def _set_updates(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    won = s.scatter_winners(indices, x.shape, axis)
    return s.where_select(won, s.gather(g, indices, axis), 0.0)


def _add_x(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    return g


def _add_updates(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    return s.gather(g, indices, axis)


def _products(s: Any, g: Any, x: Any, indices: Any, updates: Any, axis: int) -> tuple[Any, Any, Any]:
    """Per position of x: how many zero updates land there, and the product of the non-zero
    ones (1 where none land); and which updates are zero."""
    u = _tensor(s, g, updates)
    zero = s.compare(u, 0, "eq")  # a complex u is 0 where both parts are
    zeros = s.scatter_add_to(s.astype(zero, _real_dtype(g.dtype)), indices, x.shape, axis, "nd")
    nonzero_product = s.scatter(s.filled(g, 1.0, x.shape), indices, s.where_select(zero, 1.0, u), axis, "mul")
    return zeros, nonzero_product, zero


def _mul_x(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    zeros, product, _ = _products(s, g, x, indices, updates, axis)
    return s.mul(g, conj(s, s.where_select(s.compare(zeros, 0, "eq"), product, 0.0)))


def _others(s: Any, g: Any, x: Any, indices: Any, updates: Any, axis: int) -> Any:
    """Per update u_j, the product of the other updates landing where it lands: with P the
    product of the non-zero ones there and z how many are zero, P / u_j if z == 0, P for the
    one zero u_j if z == 1, else 0 (no division by a zero). ``g`` gives the dtype."""
    zeros, product, zero = _products(s, g, x, indices, updates, axis)
    z, p = s.gather(zeros, indices, axis), s.gather(product, indices, axis)
    return s.where_select(
        zero,
        s.where_select(s.compare(z, 1, "eq"), p, 0.0),
        s.where_select(s.compare(z, 0, "eq"), s.div(p, s.where_select(zero, 1.0, updates)), 0.0),
    )


def _mul_updates(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    # d out[p] / d u_j = x[p] · (the product of the other updates landing at p)
    others = _others(s, g, x, indices, updates, axis)
    return s.mul(s.gather(s.mul(g, conj(s, x)), indices, axis), conj(s, others))


def _ties(s: Any, dtype: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> tuple[Any, Any, Any]:
    """How many of x's element and the updates equal the result at each position (in
    ``dtype``), and which do. Updates of another dtype than x are compared as the kernel
    wrote them, cast to x's dtype (an f64 update rounded into an f32 x ties with the result
    it made)."""
    x_hit = s.compare(x, out, "eq")
    if hasattr(updates, "dtype") and updates.dtype != x.dtype:
        updates = s.astype(updates, x.dtype)
    updates_hit = s.compare(updates, s.gather(out, indices, axis), "eq")
    count = s.scatter(s.astype(x_hit, dtype), indices, s.astype(updates_hit, dtype), axis, "add")
    return count, x_hit, updates_hit


def _shares(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> tuple[Any, Any, Any]:
    """PyTorch's amax/amin rule: the cotangent split evenly among x's element and the
    updates equal to the result at each position (see :func:`_ties`)."""
    count, x_hit, updates_hit = _ties(s, g.dtype, x, indices, updates, out, axis)
    return s.div(g, count), x_hit, updates_hit


def _extreme_x(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    share, x_hit, _ = _shares(s, g, x, indices, updates, out, axis)
    return s.where_select(x_hit, share, 0.0)


def _extreme_updates(s: Any, g: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    share, _, updates_hit = _shares(s, g, x, indices, updates, out, axis)
    return s.where_select(updates_hit, s.gather(share, indices, axis), 0.0)


# -- forward-mode rules: jvp(s, t_x, t_updates, x, indices, updates, out, axis) -> the tangent --
def _zeros_like(s: Any, t: Any, x: Any) -> Any:
    return s.filled(x, 0.0, x.shape) if t is None else t


def _linear_jvp(mode: str) -> Callable[..., Any]:
    """set and add are linear in (x, updates) together: the op on the tangents."""

    def jvp(s: Any, t_x: Any, t_u: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
        return s.scatter(_zeros_like(s, t_x, x), indices, 0.0 if t_u is None else t_u, axis, mode)

    return jvp


def _mul_jvp(s: Any, t_x: Any, t_u: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    """t_x·(the product of the updates) + x·Σ_j t_u_j·(the product of the others), exact at zeros."""
    terms = [] if t_x is None else [s.scatter(t_x, indices, updates, axis, "mul")]
    if t_u is not None:
        along = s.mul(t_u, _others(s, out, x, indices, updates, axis))
        terms.append(s.mul(x, s.scatter_add_to(along, indices, x.shape, axis, "nd")))
    return tangent_sum(s, terms, out)


def _extreme_jvp(s: Any, t_x: Any, t_u: Any, x: Any, indices: Any, updates: Any, out: Any, axis: int) -> Any:
    """The mean of the tangents of x's element and the updates tied for the result."""
    count, x_hit, updates_hit = _ties(s, out.dtype, x, indices, updates, out, axis)
    mine = s.filled(x, 0.0, x.shape) if t_x is None else s.where_select(x_hit, t_x, 0.0)
    theirs = 0.0 if t_u is None else s.where_select(updates_hit, t_u, 0.0)
    return s.div(s.scatter(mine, indices, theirs, axis, "add"), count)


MODES = {
    "set": Mode(_assign, _set_x, _set_updates, _linear_jvp("set")),
    "add": Mode(_ufunc_at(np.add), _add_x, _add_updates, _linear_jvp("add")),
    "mul": Mode(_ufunc_at(np.multiply), _mul_x, _mul_updates, _mul_jvp),
    "min": Mode(_ufunc_at(np.minimum), _extreme_x, _extreme_updates, _extreme_jvp),
    "max": Mode(_ufunc_at(np.maximum), _extreme_x, _extreme_updates, _extreme_jvp),
}


def _mode(mode: Any) -> Mode:
    if not isinstance(mode, str) or mode not in MODES:
        raise ArgumentError(f"scatter: mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    return MODES[mode]


def _scatter(x: Any, indices: Any, updates: Any, axis: Any = 0, mode: str = "set") -> Any:
    combine = _mode(mode).update
    shape = tuple(np.shape(x))
    axis = normalize(shape, tuple(np.shape(indices)), axis, "nd", "scatter")
    where = index_tuple(shape, indices, axis, "nd", "scatter")
    target = picked_shape(shape, tuple(np.shape(indices)), axis, "nd")
    check_fits(np.shape(updates), target, "scatter")
    x_kind, updates_kind = np.result_type(x).kind, np.result_type(updates).kind
    if x_kind in "iu" and updates_kind == "f":
        raise DTypeError("scatter: the updates are float but x is an integer tensor; cast x to float first")
    if updates_kind == "c" and x_kind != "c":
        raise DTypeError(
            "scatter: the updates are complex but x is real (their imaginary part would be lost); "
            "cast x to complex first (s.astype(x, 'complex128'))"
        )
    if mode in ("min", "max") and "c" in (x_kind, updates_kind):
        raise DTypeError(
            f"scatter: mode {mode!r} compares values, and complex numbers have no order; scatter a real "
            f"key instead (s.real or s.abs of the values)"
        )
    if is_chunked(x, indices, updates):
        return _engine_scatter(x, indices, updates, axis, mode, target)
    out = np.copy(x)
    combine(out, where, broadcast_updates(updates, target))
    return out


def _engine_scatter(x: Any, indices: Any, updates: Any, axis: int, mode: str, target: tuple[int, ...]) -> Any:
    """``scatter`` on an engine's chunked arrays (see :mod:`.chunked`): ``add`` only, as x
    plus the updates scatter-added to zeros (cast to x's dtype first, as ``np.add.at``)."""
    if mode != "add":
        raise EngineError(
            f"scatter: mode {mode!r} has no path on an engine's chunked arrays: dask has no ufunc.at, and which "
            f"of the updates landing at one place wins ('set'), or their product or extreme ('mul', 'min', "
            f"'max'), is not a sum that bincount can take; use mode 'add', or scatter on CpuEngine"
        )
    cast = broadcast_updates(np.asarray(updates, like=x), target).astype(x.dtype)
    return np.add(x, scatter_add_to(cast, indices, tuple(x.shape), axis, "nd"))


def _rule(which: str) -> Callable[..., Any]:
    def rule(s: Any, g: Any, out: Any, x: Any, indices: Any, updates: Any, axis: Any, mode: str) -> Any:
        axis = normalize(x.shape, indices.shape, axis, "nd", "scatter")
        return getattr(MODES[mode], which)(s, g, x, indices, updates, out, axis)

    return rule


def _scatter_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axis: Any, mode: str) -> Any:
    (t_x, _, t_u), (x, indices, updates) = tangents, inputs
    if t_x is None and t_u is None:
        return None
    axis = normalize(x.shape, indices.shape, axis, "nd", "scatter")
    return MODES[mode].jvp(s, t_x, t_u, x, indices, updates, out, axis)


def _scatter_reference(
    x: np.ndarray, indices: np.ndarray, updates: Any, axis: int = 0, mode: str = "set"
) -> np.ndarray:
    combine = {
        "set": lambda a, b: b,
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "min": min,
        "max": max,
    }[mode]
    out = np.array(x)
    axis %= out.ndim
    updates = np.broadcast_to(updates, picked_shape(out.shape, indices.shape, axis, "nd"))
    batch = indices.ndim - 1
    for pos in np.ndindex(*updates.shape):
        target = pos[:axis] + tuple(int(c) for c in indices[pos[axis : axis + batch]]) + pos[axis + batch :]
        out[target] = combine(out[target], updates[pos])
    return out


def _winners(indices: Any, shape: Any, axis: Any = 0) -> Any:
    """For each update position of scatter(x of ``shape``, indices), whether its update is
    the last written to its target (the one that stays, in mode 'set')."""
    shape = check_shape(shape, "scatter_winners")
    axis = normalize(shape, tuple(np.shape(indices)), axis, "nd", "scatter_winners")
    where = index_tuple(shape, indices, axis, "nd", "scatter_winners")[axis:]
    batch = tuple(np.shape(indices))[:-1]
    k = len(where)
    flat = np.reshape(np.ravel_multi_index(where, shape[axis : axis + k]), (-1,))
    order = np.arange(flat.size, like=flat)
    last = np.full_like(flat, -1, shape=(int(np.prod(shape[axis : axis + k], dtype=np.int64)),))
    np.maximum.at(last, flat, order)
    won = np.reshape(np.equal(last[flat], order), (1,) * axis + batch + (1,) * (len(shape) - axis - k))
    return np.broadcast_to(won, picked_shape(shape, tuple(np.shape(indices)), axis, "nd"))


def _filled(like: Any, value: Any, shape: Any) -> Any:
    shape = check_shape(shape, "filled")
    if np.iscomplexobj(value) and np.result_type(like).kind != "c":
        raise DTypeError(
            f"filled: a complex value for a real {np.result_type(like)} tensor would lose its imaginary part"
        )
    return np.full_like(like, value, shape=shape)


def _winners_reference(indices: np.ndarray, shape: tuple[int, ...], axis: int = 0) -> np.ndarray:
    batch = indices.shape[:-1]
    targets = [tuple(int(c) % shape[axis + i] for i, c in enumerate(indices[b])) for b in np.ndindex(*batch)]
    won = np.array([t not in targets[i + 1 :] for i, t in enumerate(targets)], dtype=bool).reshape(batch)
    won = won.reshape((1,) * axis + batch + (1,) * (len(shape) - axis - indices.shape[-1]))
    return np.broadcast_to(won, picked_shape(tuple(shape), indices.shape, axis, "nd"))


_X = np.array([2.0, 3.0, 4.0])
_AT = np.array([[0], [0], [1], [1], [2]])


SPECS = [
    OpSpec(
        name="scatter",
        inputs=("x", "indices", "updates"),
        params={"axis": 0, "mode": "set"},
        forward=_scatter,
        vjps=(_rule("x_rule"), None, _rule("updates_rule")),
        jvp=_scatter_jvp,
        batch=batch_rules.scatter,
        unbroadcast=unbroadcast,
        accepts=("fiuc", "iu", "fiuc"),
        sample=samples.scatter_sample,
        complex_sample=lambda: samples.scatter_sample(complex_=True),
        reference=_scatter_reference,
        error_inputs=lambda: [
            ErrorInput((_X, _AT, np.ones(5)), {"mode": "sum"}, ArgumentError, "mode must be one of"),
            ErrorInput((_X, np.array([[3]]), np.ones(1)), {}, IndexOutOfRange, "index 3, out of range for axis 0"),
            ErrorInput((_X, _AT, np.ones(4)), {}, ShapeMismatch, "do not broadcast to the"),
            ErrorInput((np.arange(3), _AT, np.ones(5)), {"mode": "add"}, DTypeError, "cast x to float"),
            ErrorInput((_X, _AT, np.ones(5) * 1j), {"mode": "add"}, DTypeError, "cast x to complex first"),
            ErrorInput((_X + 0j, _AT, np.ones(5)), {"mode": "max"}, DTypeError, "complex numbers have no order"),
            ErrorInput((_X, _AT, np.ones(5) * 1j), {"mode": "min"}, DTypeError, "x is real"),
        ],
        kinks=(
            # set: the last of repeated indices wins; x gets nothing where it was overwritten
            Kink(
                (np.array([1.0, 2.0]), np.array([[0], [0]]), np.array([5.0, 6.0])),
                (np.array([0.0, 1.0]), None, np.array([0.0, 1.0])),
            ),
            # max (PyTorch's amax, include_self): x[0] ties two updates, thirds each; x[1] wins alone
            Kink(
                (np.array([1.0, 5.0]), np.array([[0], [0], [1]]), np.array([1.0, 1.0, 2.0])),
                (np.array([1 / 3, 1.0]), None, np.array([1 / 3, 1 / 3, 0.0])),
                {"mode": "max"},
            ),
            Kink(
                (np.array([1.0, -5.0]), np.array([[0], [1], [1]]), np.array([0.0, -5.0, 3.0])),
                (np.array([0.0, 0.5]), None, np.array([1.0, 0.5, 0.0])),
                {"mode": "min"},
            ),
            # mul at zeros: exact leave-one-out products
            Kink(
                (_X, _AT, np.array([0.0, 5.0, 0.0, 0.0, 7.0])),
                (np.array([0.0, 0.0, 7.0]), None, np.array([10.0, 0.0, 0.0, 0.0, 4.0])),
                {"mode": "mul"},
            ),
        ),
        doc="x with `updates` combined in where `indices` points (gather's indices), by `mode`: set, add, mul, "
        "min or max; a new array (x.at[indices].<mode>(updates)). Repeats: set keeps the last, the others "
        "combine all. min/max split the cotangent evenly among x and the updates tied for the result "
        "(PyTorch's scatter_reduce, include_self=True); mul's gradient is exact at zeros. Updates are cast to "
        "x's dtype.",
    ),
    OpSpec(
        name="scatter_winners",
        internal=True,
        inputs=("indices",),
        params={"shape": REQUIRED, "axis": 0},
        forward=_winners,
        accepts="iu",
        integer_results=True,
        sample=samples.winners_sample,
        reference=_winners_reference,
        error_inputs=lambda: [ErrorInput((np.array([[3]]),), {"shape": (3,)}, IndexOutOfRange, "holds the index 3")],
        doc="Bool, per update of scatter(x of `shape`, indices, ...): whether it is the last written to its "
        "position (the one mode 'set' keeps). A constant.",
    ),
    OpSpec(
        name="filled",
        internal=True,
        inputs=("like",),
        params={"value": REQUIRED, "shape": REQUIRED},
        forward=_filled,
        vjps=(lambda s, g, out, like, value, shape: None,),
        jvp=lambda s, tangents, inputs, out, value, shape: None,
        accepts="biufc",
        residuals=(),
        sample=samples.filled_sample,
        reference=lambda like, value, shape: np.full(shape, value, np.asarray(like).dtype),
        error_inputs=lambda: [
            ErrorInput((_X,), {"value": 1.0, "shape": (-1,)}, ArgumentError, "non-negative"),
            ErrorInput((_X,), {"value": 1j, "shape": ()}, DTypeError, "a complex value for a real"),
        ],
        doc="An array of `shape` filled with `value`, of like's dtype (its values are not read): a constant.",
    ),
]
