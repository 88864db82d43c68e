"""The functions of tenferro's top level that it defines itself: ``tf.variable`` and
``tf.constant`` (leaves of the default runtime), ``tf.no_grad``, ``tf.stop_gradient`` and
``tf.tree_map``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import optree

from .core.eager import EagerTensor, held
from .core.errors import ArgumentError, TenferroError
from .core.runtime import default_runtime
from .core.tensor import as_tensor, read
from .numpy._dispatch import renamed


def no_grad() -> AbstractContextManager[None]:
    """``with tf.no_grad():`` ops of the default runtime compute without recording
    (``torch.no_grad``): ``tf.default_runtime().no_grad()``. A runtime of your own has its
    own switch, ``rt.no_grad()``."""
    return default_runtime().no_grad()


def stop_gradient(x: EagerTensor) -> EagerTensor:
    """x's value as a constant, through which no derivative flows (``jax.lax.stop_gradient``,
    ``x.detach()``); x on its own runtime."""
    if type(x) is not EagerTensor:
        raise ArgumentError(f"tf.stop_gradient: x must be a tenferro array, got {type(x).__name__}")
    return x.detach()


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``f`` applied leaf by leaf to pytrees of one structure, the result in that structure
    (``jax.tree.map``; optree's, the pytrees of the transforms): how a parameter update on
    ``tf.value_and_grad``'s gradients reads, ``tf.tree_map(lambda p, g: p - lr * g, params, grads)``."""
    return optree.tree_map(f, tree, *rest)


def variable(a: object) -> EagerTensor:
    """A variable of the default runtime (``default_runtime().variable_from(a)``): a leaf
    whose gradient ``backward()`` adds into its slot, as ``torch.tensor(a, requires_grad=True)``.
    An EagerTensor gives its value (a new leaf without its history), so an SGD step reads
    ``p = tf.variable(p - lr * p.grad())``."""
    return _made(default_runtime().variable_from, a, "tf.variable")


def constant(a: object) -> EagerTensor:
    """A constant of the default runtime (``default_runtime().constant_from(a)``); an
    EagerTensor gives its value, a Tensor (such as ``p.grad()``) itself."""
    return _made(default_runtime().constant_from, a, "tf.constant")


def _made(make: Callable[[object], EagerTensor], a: object, function: str) -> EagerTensor:
    """``make(a)``, its error naming ``function`` (what the user called) rather than the
    runtime method it calls."""
    try:
        return make(_value_of(a))
    except TenferroError as exc:
        raise renamed(exc, function) from None


def _value_of(a: object) -> object:
    """An EagerTensor's value on purpose (the history is dropped by request, so a function
    transform does not refuse it as it refuses ``np.asarray``), anything else as it is."""
    return as_tensor(read(held(a))) if isinstance(a, EagerTensor) else a
