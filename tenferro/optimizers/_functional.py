"""The optimizers' functional form, as optax's: an :class:`Optimizer` is a pair of pure
functions, ``init(params)`` and ``update(grads, state, params)``, over pytrees of float
arrays; :func:`apply_updates` adds the updates to the parameters.

Each optimizer is one *rule*: the update of one leaf from its gradient, its parameter, its
moments (arrays shaped like the parameter) and the 1-based step number, written with
NumPy's operators on the leaves' values (engine-neutral: a dask array computes as a dask
array). The pytree work, the checks and the wrapping of results into constants are here
once, for every rule. A step records nothing: its results are constants.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, NamedTuple

import numpy as np
import optree

from tenferro.core.eager import EagerTensor, held, value_out
from tenferro.core.errors import ArgumentError, DTypeError, ShapeMismatch
from tenferro.core.runtime import EagerRuntime
from tenferro.core.tensor import Tensor, describe, seal
from tenferro.transforms._trees import as_value, runtime_of_trees, where_in

#: ``rule(g, p, moments, t) -> (update, moments)``: one leaf's step (see the module doc).
Rule = Callable[[Any, Any, tuple[Any, ...], int], tuple[Any, tuple[Any, ...]]]


class State(NamedTuple):
    """An optimizer's state, a pytree: ``count``, the steps taken, and ``moments``, one tree
    shaped like the parameters per moment the rule keeps (momentum: 1, RMSprop: 1, Adam: 2)."""

    count: int
    moments: tuple[Any, ...]


class Optimizer(NamedTuple):
    """optax's ``GradientTransformation``: ``state = opt.init(params)``, then
    ``updates, state = opt.update(grads, state, params)`` each step and
    ``params = tf.optimizers.apply_updates(params, updates)``."""

    init: Callable[[Any], State]
    update: Callable[..., tuple[Any, State]]


def optimizer(name: str, rule: Rule, moments: int, initial: float = 0.0, needs_params: bool = False) -> Optimizer:
    """The :class:`Optimizer` of ``rule``, which keeps ``moments`` moment arrays per leaf,
    each starting at ``initial``; ``name`` (``tf.optimizers.adam``) is what errors name."""

    def init(params: Any) -> State:
        leaves, spec = optree.tree_flatten(params)
        rt = runtime_of_trees([params])
        values = [_read(leaf, rt, f"{name}.init", params, i, "params", False) for i, leaf in enumerate(leaves)]
        trees = tuple(
            optree.tree_unflatten(spec, [_constant(np.full_like(v, initial), rt) for v in values])
            for _ in range(moments)
        )
        return State(0, trees)

    def update(grads: Any, state: State, params: Any = None) -> tuple[Any, State]:
        where = f"{name}.update"
        if not (isinstance(state, State) and isinstance(state.count, int) and len(state.moments) == moments):
            raise ArgumentError(
                f"{where}: state must be the State that {name}.init (or the last update) returned, got "
                f"{type(state).__name__}",
                argument="state",
            )
        if needs_params and params is None:
            raise ArgumentError(f"{where}: params are needed (the weight decay reads them)", argument="params")
        g_leaves, spec = optree.tree_flatten(grads)
        rt = runtime_of_trees([grads, params])
        like = [_leaves_like(where, tree, spec, "state") for tree in state.moments]
        p_leaves = None if params is None else _leaves_like(where, params, spec, "params")
        t = state.count + 1
        updates, new_moments = [], []
        for i, leaf in enumerate(g_leaves):
            g = _read(leaf, rt, where, grads, i, "grads")
            p = None if p_leaves is None else _read(p_leaves[i], rt, where, params, i, "params")
            m = tuple(_read(tree[i], rt, where, state.moments[k], i, "state") for k, tree in enumerate(like))
            for other, what in ((p, "params"), *((v, "state") for v in m)):
                if other is not None:
                    _same_kind(where, g, other, grads, i, what)
            u, m = rule(g, p, m, t)
            updates.append(_constant(u, rt))
            new_moments.append([_constant(v, rt) for v in m])
        trees = tuple(optree.tree_unflatten(spec, [m[k] for m in new_moments]) for k in range(len(state.moments)))
        return optree.tree_unflatten(spec, updates), State(t, trees)

    init.__doc__ = f"The state {name} starts from for ``params`` (a pytree of float arrays)."
    update.__doc__ = (
        f"``updates, state = update(grads, state, params=None)``: one step of {name}; the updates are a tree "
        f"shaped like grads, to add to the parameters (``apply_updates``)."
    )
    return Optimizer(init, update)


def apply_updates(params: Any, updates: Any) -> Any:
    """``params + updates`` leaf by leaf (optax's ``apply_updates``): the new parameters, as
    constants of the parameters' runtime; nothing is recorded."""
    where = "tf.optimizers.apply_updates"
    u_leaves, spec = optree.tree_flatten(updates)
    p_leaves = _leaves_like(where, params, spec, "params", "updates")
    rt = runtime_of_trees([params, updates])
    new = []
    for i, (p_leaf, u_leaf) in enumerate(zip(p_leaves, u_leaves)):
        p, u = _read(p_leaf, rt, where, params, i, "params"), _read(u_leaf, rt, where, updates, i, "updates")
        _same_kind(where, u, p, updates, i, "params", "updates")
        new.append(_constant(p + u, rt))
    return optree.tree_unflatten(spec, new)


def hyper(function: str, name: str, value: Any, high: float = math.inf, open_high: bool = False) -> float:
    """A hyper-parameter: a finite real number in ``[0, high]`` (``[0, high)`` if ``open_high``)."""
    span = f"in [0, {high}{')' if open_high else ']'}" if high != math.inf else ">= 0"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ArgumentError(f"{function}: {name} must be a real number {span}, got {value!r}", argument=name)
    if not (math.isfinite(value) and 0 <= value <= high) or (open_high and value == high):
        raise ArgumentError(f"{function}: {name} must be {span}, got {value!r}", argument=name)
    return float(value)


def _read(leaf: Any, rt: EagerRuntime, where: str, tree: Any, index: int, what: str, computes: bool = True) -> Any:
    """The value of a float leaf, without a copy: an EagerTensor's as held (where the caller
    ``computes`` with it, refused if a transform is differentiating it: the step would drop
    that derivative), a NumPy array or a Tensor as it is; anything else checked as the
    transforms check their arguments."""
    if type(leaf) is EagerTensor and leaf.runtime is rt:
        value = value_out(leaf, where) if computes else held(leaf)
    elif type(leaf) is np.ndarray or isinstance(leaf, Tensor):
        value = np.asarray(leaf)
    else:
        value = as_value(leaf, rt, where, lambda: where_in(where, what, tree, index), "parameter")
    if value.dtype not in (np.float32, np.float64):
        raise DTypeError(
            f"{where}: {where_in(where, what, tree, index)} has dtype {value.dtype}; parameters and gradients are "
            f"float32 or float64 arrays (cast an integer array with astype(float); split a complex one into real "
            f"and imaginary parts)",
            argument=what,
        )
    return value


def _leaves_like(where: str, tree: Any, spec: Any, what: str, given: str = "grads") -> Sequence[Any]:
    """The leaves of ``tree``, which must have the structure ``spec`` of ``given``."""
    leaves, tree_spec = optree.tree_flatten(tree)
    if tree_spec != spec:
        raise ShapeMismatch(
            f"{where}: {given} has the structure {spec}, but {what} has {tree_spec}; pass {given} shaped like the "
            f"parameters the optimizer was initialised with",
            argument=given,
        )
    return leaves


def _same_kind(where: str, value: Any, other: Any, tree: Any, index: int, what: str, given: str = "grads") -> None:
    if value.shape != other.shape:
        raise ShapeMismatch(
            f"{where}: {where_in(where, given, tree, index)} is {describe(value.shape, value.dtype)}, but its "
            f"{what} leaf is {describe(other.shape, other.dtype)}",
            argument=given,
        )
    if value.dtype != other.dtype:
        raise DTypeError(
            f"{where}: {where_in(where, given, tree, index)} is {describe(value.shape, value.dtype)}, but its "
            f"{what} leaf is {describe(other.shape, other.dtype)}; cast one to the other's dtype",
            argument=given,
        )


def _constant(value: Any, rt: EagerRuntime) -> EagerTensor:
    """A computed value as a constant of ``rt``, without a copy (NumPy gives a 0-d result
    as a scalar, made a 0-d array here)."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    return EagerTensor(seal(value), rt)


def constants(tree: Any, where: str, what: str) -> Any:
    """``tree``'s float leaves as constants of their runtime: a NumPy array copied (the
    caller may write into it later), a tenferro array's value shared (it is immutable)."""
    leaves, spec = optree.tree_flatten(tree)
    rt = runtime_of_trees([tree])
    values = [_read(leaf, rt, where, tree, i, what) for i, leaf in enumerate(leaves)]
    copied = [v.copy() if type(leaf) is np.ndarray else v for leaf, v in zip(leaves, values)]
    return optree.tree_unflatten(spec, [_constant(v, rt) for v in copied])
