"""``tenferro.scipy.integrate``: ``odeint``, differentiable by the adjoint method, as
``jax.experimental.ode.odeint`` and HIPS autograd's ``autograd.scipy.integrate.odeint``.

The forward solve is scipy.integrate.odeint (LSODA) on the values. The derivative with
respect to ``y0``, ``t`` and ``args`` solves the augmented system [y, ȳ, t̄, ārgs]
backwards from each time point to the one before, again with scipy's LSODA, its dynamics
the vector-Jacobian products of ``func`` computed by ``tf.vjp`` (JAX's algorithm). That
backward solve is itself a call of this ``odeint``, so a second derivative runs the
adjoint method on the augmented system (through ``tf.vjp`` of ``tf.vjp`` of ``func``), as
in JAX. The whole is a ``tf.custom_vjp`` function: reverse mode only (forward mode is
refused, ``NotDifferentiable``). See docs/scipy-signal-integrate.md.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import optree

from .. import numpy as tnp
from ..core.eager import EagerTensor, held, holds_tracked
from ..core.errors import ArgumentError, DTypeError, TenferroError
from ..core.tensor import Tensor, read
from ..core.tracing import note_read
from ..numpy._dispatch import runtime_in
from ..transforms import custom_vjp, vjp

__all__ = ["IntegrationError", "odeint"]

_NAME = "tenferro.scipy.integrate.odeint"
#: LSODA's own default tolerances (scipy's 1.49012e-8), which jax's odeint rounds to 1.4e-8.
_TOL = 1.49012e-8


class IntegrationError(TenferroError, ArithmeticError):
    """LSODA did not reach a time point (too much work for ``mxstep``, a tolerance it cannot
    meet, a singular Jacobian): the message is scipy's."""


class _Options:
    """The solver's settings, one static argument of the custom function (hashable, shown
    in a trace as ``odeint-options``)."""

    __slots__ = ("rtol", "atol", "mxstep", "hmax")

    def __init__(self, rtol: float, atol: float, mxstep: int, hmax: float):
        self.rtol, self.atol, self.mxstep, self.hmax = rtol, atol, mxstep, hmax

    def __repr__(self) -> str:
        return f"odeint-options(rtol={self.rtol}, atol={self.atol}, mxstep={self.mxstep}, hmax={self.hmax})"


def odeint(
    func: Callable[..., Any],
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float = _TOL,
    atol: float = _TOL,
    mxstep: float = math.inf,
    hmax: float = math.inf,
) -> Any:
    """The solution of dy/dt = func(y, t, *args), y(t[0]) = y0, at the times ``t`` (1-d,
    strictly monotonic), as ``jax.experimental.ode.odeint``: an array (or a pytree like
    ``y0``) whose leaves have a leading axis of len(t). ``func`` takes tenferro arrays (y
    shaped as y0, t a 0-d float64 array, the ``args`` as given) and returns dy/dt shaped
    as y. ``y0`` and ``t`` compute in float64 (as scipy's); ``args`` are pytrees of
    arrays, differentiable where they are floats. ``mxstep`` bounds LSODA's steps between
    two time points, ``hmax`` its step size. Differentiable in ``y0``, ``t`` and ``args``
    (reverse mode, any order) by the adjoint method; a tensor that tracks gradients and
    that ``func`` closes over instead of taking it in ``args`` is refused, and so, when a
    derivative is taken, is a ``func`` written with NumPy (it must use tenferro.numpy)."""
    if not callable(func):
        raise ArgumentError(f"{_NAME}: argument 'func' must be callable (func(y, t, *args) -> dy/dt), got {func!r}")
    options = _Options(
        _tolerance(rtol, "rtol"), _tolerance(atol, "atol"), _steps(mxstep), _positive(hmax, "hmax", allow_inf=True)
    )
    y0 = optree.tree_map(lambda leaf: _state_leaf(leaf), y0)
    if not optree.tree_leaves(y0):
        raise ArgumentError(f"{_NAME}: argument 'y0' holds no array")
    t = _times(t)
    _probe(func, y0, t, args, differentiated=holds_tracked((y0, t, args)))
    return _solution(func, options, y0, t, args)


def _probe(func: Callable[..., Any], y0: Any, t: Any, args: tuple[Any, ...], differentiated: bool) -> None:
    """func called once at (y0, t[0]) on constants, as the solve calls it, and, where a
    derivative will be taken, once more under ``tf.vjp``, as the adjoint calls it: a func
    that reads its arguments as NumPy arrays (written with NumPy, scipy's style) fails that
    second call, at this call of odeint rather than inside the backward pass."""
    leaves, spec = optree.tree_flatten(y0)
    rt = _runtime(leaves, t, args)
    y = optree.tree_unflatten(spec, [rt.constant_from(_value(leaf)) for leaf in leaves])
    time = rt.constant_from(np.float64(_value(t)[0]))
    constant_args = optree.tree_map(lambda leaf: _constant(rt, leaf), args)
    _raveled(_called(func, y, time, *constant_args), spec, [tuple(np.shape(leaf)) for leaf in leaves])
    if not differentiated:
        return
    _, floats, rebuild = _split_args(constant_args)
    try:
        vjp(lambda y, time, *leaves: func(y, time, *rebuild(leaves)), y, time, *floats)
    except ArgumentError as exc:  # the plain call above worked: what failed is reading a tracked value
        raise ArgumentError(
            f"{_NAME}: argument 'func' cannot be differentiated: odeint's derivative (the adjoint method) "
            f"differentiates func, and func read a value it was given as a NumPy array or number (a func written "
            f"with NumPy, scipy's style); write func with tenferro.numpy (tnp.sin, tnp.stack, ...). A NumPy func "
            f"works where nothing is differentiated. (Under tf.vjp, func raised: {exc})",
            argument="func",
        ) from exc


def _called(func: Callable[..., Any], *arguments: Any) -> Any:
    """func(y, t, *args), an error of its own (a wrong number of parameters, NumPy's) as an
    ArgumentError naming odeint and func, with the error as its cause."""
    try:
        return func(*arguments)
    except TenferroError:
        raise
    except Exception as exc:
        raise ArgumentError(
            f"{_NAME}: argument 'func' raised {type(exc).__name__}: {exc} (odeint calls func(y, t, *args) with "
            f"{len(arguments) - 2} args after y and t)",
            argument="func",
        ) from exc


def _runtime(leaves: list[Any], t: Any, args: tuple[Any, ...]) -> Any:
    """The runtime of the tensors among the arguments, else the default one."""
    rt = runtime_in([*leaves, t, *optree.tree_leaves(args)])
    return tnp.asarray(0.0).runtime if rt is None else rt


def _solution(func: Callable[..., Any], options: _Options, y0: Any, t: Any, args: tuple[Any, ...]) -> Any:
    """The solve on the values, and the custom function that records it (y0, t float64)."""
    values = _solve(func, options, y0, t, args)
    return _odeint(func, options, values, y0, t, *args)


# -- the forward solve, on values ---------------------------------------------------------------
def _solve(func: Callable[..., Any], options: _Options, y0: Any, t: Any, args: tuple[Any, ...]) -> list[np.ndarray]:
    """One array per leaf of y0, of shape (len(t), *leaf.shape): scipy's LSODA on the
    values, func called on constants."""
    import scipy.integrate

    leaves, spec = optree.tree_flatten(y0)
    rt = _runtime(leaves, t, args)
    shapes = [tuple(np.shape(leaf)) for leaf in leaves]
    sizes = [math.prod(shape) for shape in shapes]
    start = np.concatenate([np.ravel(_value(leaf)) for leaf in leaves]).astype(np.float64)
    constant_args = optree.tree_map(lambda leaf: _constant(rt, leaf), args)
    times = np.asarray(_value(t), dtype=np.float64)

    def unravel(flat: np.ndarray) -> Any:
        parts, at = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(rt.constant_from(flat[at : at + size].reshape(shape)))
            at += size
        return optree.tree_unflatten(spec, parts)

    def rhs(flat: np.ndarray, time: float) -> np.ndarray:
        dy = _called(func, unravel(flat), rt.constant_from(np.float64(time)), *constant_args)
        return _raveled(dy, spec, shapes)

    if len(times) == 1:
        solution = start[None, :]
    else:
        with warnings.catch_warnings():  # scipy's warning of a failure this function raises as an error
            warnings.simplefilter("ignore", scipy.integrate.ODEintWarning)
            solution, info = scipy.integrate.odeint(
                rhs,
                start,
                times,
                rtol=options.rtol,
                atol=options.atol,
                mxstep=options.mxstep,
                hmax=0.0 if math.isinf(options.hmax) else options.hmax,
                full_output=True,
            )
        if info["message"] != "Integration successful.":
            raise IntegrationError(f"{_NAME}: LSODA failed: {info['message']} (see rtol, atol, mxstep, hmax)")
    out, at = [], 0
    for shape, size in zip(shapes, sizes):
        out.append(solution[:, at : at + size].reshape((len(times), *shape)))
        at += size
    return out


def _raveled(dy: Any, spec: Any, shapes: list[tuple[int, ...]]) -> np.ndarray:
    """func's result as one float64 vector, checked against y's structure and shapes; a
    result that tracks a gradient (func closed over a variable) is refused."""
    leaves, got = optree.tree_flatten(dy)
    if got != spec:
        raise ArgumentError(f"{_NAME}: func returned {got}, but y is {spec}: dy/dt must have y's structure")
    flat = []
    for leaf, shape in zip(leaves, shapes):
        if type(leaf) is EagerTensor and leaf.tracks_grad():
            raise ArgumentError(
                f"{_NAME}: func's result tracks a gradient: it closes over a tensor that tracks gradients, whose "
                f"derivative odeint could not give; pass that tensor in args (func(y, t, *args))"
            )
        value = np.asarray(_value(leaf))
        if value.dtype.kind == "c":
            raise DTypeError(f"{_NAME}: func returned a complex dy/dt; odeint (LSODA) solves real systems only")
        if value.shape != shape:
            raise ArgumentError(f"{_NAME}: func returned dy/dt of shape {list(value.shape)} for y of {list(shape)}")
        flat.append(np.ravel(value))
    return np.concatenate(flat).astype(np.float64, copy=False)


# -- the custom function: its output the known solution, its rule the adjoint method ------------
def _known(func: Callable[..., Any], options: _Options, values: Any, y0: Any, t: Any, *args: Any) -> Any:
    """The solution already computed (``values``), as y0's structure of float64 arrays."""
    rt = runtime_in([*optree.tree_leaves(y0), t])
    arrays = [tnp.asarray(v) if rt is None else rt.constant_from(v) for v in values]
    return optree.tree_unflatten(optree.tree_structure(y0), arrays)


_known.__name__ = _known.__qualname__ = _NAME  # the name a trace and the custom function's errors show
_odeint = custom_vjp(_known, nondiff_argnums=(0, 1, 2))


def _known_fwd(func: Callable[..., Any], options: _Options, values: Any, y0: Any, t: Any, *args: Any) -> Any:
    return _known(func, options, values, y0, t, *args), (y0, t, args)


def _adjoint(func: Callable[..., Any], options: _Options, values: Any, residuals: Any, g: Any) -> tuple[Any, ...]:
    """JAX's adjoint sweep: from the last time point back to the first, t̄ᵢ = ⟨func(yᵢ, tᵢ),
    gᵢ⟩ and the augmented system [y, ȳ, t̄₀, ārgs] solved backwards over [tᵢ, tᵢ₋₁] (in
    negated time, so that its times increase as t does), gᵢ₋₁ added to ȳ at each point."""
    y0, t, args = residuals
    ys = _odeint(func, options, values, y0, t, *args)  # the solution again, recorded where y0, t, args are
    fixed, floats, rebuild = _split_args(args)
    count = len(t)

    def point(tree: Any, i: int) -> Any:
        return optree.tree_map(lambda leaf: leaf[i], tree)

    def flat_func(y: Any, time: Any, *leaves: Any) -> Any:
        return func(y, time, *rebuild(leaves))

    def augmented(state: Any, minus_t: Any, *leaves: Any) -> Any:
        y, y_bar = state[0], state[1]
        dy, pull = vjp(flat_func, y, -minus_t, *leaves)
        y_bar_dot, t_bar_dot, *leaves_bar = pull(y_bar)
        return (optree.tree_map(tnp.negative, dy), y_bar_dot, t_bar_dot, tuple(leaves_bar))

    y_bar = point(g, count - 1)
    t0_bar = tnp.zeros((), dtype=np.float64)
    dtypes = [np.asarray(_value(leaf)).dtype for leaf in floats]
    leaves_bar = tuple(tnp.zeros(np.shape(_value(leaf)), dtype=dtype) for leaf, dtype in zip(floats, dtypes))
    times_bar = []
    for i in range(count - 1, 0, -1):
        y_i = point(ys, i)
        t_bar = _inner(func(y_i, t[i], *args), point(g, i))
        times_bar.append(t_bar)
        t0_bar = t0_bar - t_bar
        state = (y_i, y_bar, t0_bar, leaves_bar)
        solved = _solution(augmented, options, state, tnp.stack([-t[i], -t[i - 1]]), tuple(floats))
        _, y_bar, t0_bar, leaves_bar = optree.tree_map(lambda leaf: leaf[1], solved)
        y_bar = optree.tree_map(tnp.add, y_bar, point(g, i - 1))
    times_bar.append(t0_bar)
    # The augmented solve is float64 (LSODA's): each cotangent in its argument's dtype (float32 args).
    leaves_bar = [bar if bar.dtype == dtype else tnp.astype(bar, dtype) for bar, dtype in zip(leaves_bar, dtypes)]
    args_bar = rebuild(leaves_bar, zeros_for=fixed)
    return (y_bar, tnp.stack(times_bar[::-1]), *args_bar)


_odeint.defvjp(_known_fwd, _adjoint)


def _inner(a: Any, b: Any) -> Any:
    """⟨a, b⟩ summed over every leaf of two pytrees of one structure."""
    total = None
    for x, y in zip(optree.tree_leaves(a), optree.tree_leaves(b)):
        term = tnp.sum(tnp.multiply(x, y))
        total = term if total is None else total + term
    return total


def _split_args(args: tuple[Any, ...]) -> tuple[list[bool], list[Any], Callable[..., Any]]:
    """The float leaves of args (the ones the adjoint differentiates), which leaves are not
    (integers, bools: passed as they are), and the function that puts args back together
    from the float leaves (or, with ``zeros_for``, makes args' cotangents: None for the others)."""
    leaves, spec = optree.tree_flatten(args)
    fixed = [np.asarray(_value(leaf)).dtype.kind not in "fc" for leaf in leaves]
    floats = [leaf for leaf, f in zip(leaves, fixed) if not f]

    def rebuild(float_leaves: Any, zeros_for: Any = None) -> Any:
        it = iter(float_leaves)
        merged = [(None if zeros_for is not None else leaf) if f else next(it) for leaf, f in zip(leaves, fixed)]
        return optree.tree_unflatten(spec, merged)

    return fixed, floats, rebuild


# -- arguments ---------------------------------------------------------------------------------
def _value(leaf: Any) -> Any:
    if type(leaf) is EagerTensor:
        note_read(leaf, "odeint")
        return read(held(leaf))
    if isinstance(leaf, Tensor):
        return np.asarray(leaf)
    return leaf


def _constant(rt: Any, leaf: Any) -> Any:
    """An argument of func as the forward solve passes it: a constant of its value (an
    array), or the Python value as it is."""
    if type(leaf) is EagerTensor or isinstance(leaf, (Tensor, np.ndarray)):
        return rt.constant_from(_value(leaf))
    return leaf


def _state_leaf(leaf: Any) -> Any:
    """A leaf of y0 as a float64 array (tracked where it was)."""
    kind = np.asarray(_value(leaf)).dtype.kind if _is_array(leaf) else None
    if kind is None or kind not in "biuf":
        what = "complex" if kind == "c" else type(leaf).__name__
        error = DTypeError if kind == "c" else ArgumentError
        raise error(f"{_NAME}: argument 'y0' must hold real arrays (LSODA solves real systems), got a {what}")
    leaf = leaf if type(leaf) is EagerTensor else tnp.asarray(_value(leaf))
    return leaf if leaf.dtype == np.float64 else tnp.astype(leaf, np.float64)


def _is_array(leaf: Any) -> bool:
    return isinstance(leaf, (EagerTensor, Tensor, np.ndarray, np.generic, bool, int, float, complex))


def _times(t: Any) -> Any:
    if not _is_array(t) and not isinstance(t, (list, tuple)):
        raise ArgumentError(f"{_NAME}: argument 't' must be a 1-d array of time points, got {type(t).__name__}")
    value = np.asarray(_value(t) if _is_array(t) else [_value(x) for x in t])
    if value.ndim != 1 or value.size == 0 or value.dtype.kind not in "iuf":
        raise ArgumentError(
            f"{_NAME}: argument 't' must be a non-empty 1-d real array of time points, got "
            f"{value.dtype}{list(value.shape)}"
        )
    steps = np.diff(value.astype(np.float64))
    if not (np.all(steps > 0) or np.all(steps < 0)):
        raise ArgumentError(f"{_NAME}: argument 't' must be strictly increasing or strictly decreasing")
    if not np.all(np.isfinite(value)):
        raise ArgumentError(f"{_NAME}: argument 't' must be finite")
    t = t if type(t) is EagerTensor else tnp.asarray(value)
    return t if t.dtype == np.float64 else tnp.astype(t, np.float64)


def _tolerance(value: Any, name: str) -> float:
    return _positive(value, name, allow_inf=False)


def _positive(value: Any, name: str, allow_inf: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"{_NAME}: argument {name!r} must be a positive number, got {value!r}")
    value = float(value)
    if not value > 0 or (math.isinf(value) and not allow_inf) or math.isnan(value):
        raise ArgumentError(f"{_NAME}: argument {name!r} must be a positive finite number, got {value!r}")
    return value


def _steps(value: Any) -> int:
    """mxstep as LSODA takes it: a positive int (inf: no bound, LSODA's largest)."""
    if isinstance(value, (float, np.floating)) and math.isinf(value) and value > 0:
        return int(np.iinfo(np.int32).max)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ArgumentError(f"{_NAME}: argument 'mxstep' must be a positive int (or inf), got {value!r}")
    return int(min(value, np.iinfo(np.int32).max))
