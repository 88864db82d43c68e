"""The driver forms of HIPS autograd's ``autograd.misc.optimizers``, with its signatures,
defaults and numbers: ``adam(grad, x0, callback=None, num_iters=100, ...)`` calls
``grad(x, i)`` for the gradient at iteration ``i``, ``callback(x, i, g)`` before each
step, and returns the final parameters, a pytree shaped like ``x0`` of tenferro constants.

Each runs one functional optimizer (``_rules``) in a loop; autograd flattens the tree into
one vector first, which changes no number (every formula is elementwise) but copies every
parameter twice a step: here the leaves are updated where they are.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from numbers import Integral
from typing import Any

from tenferro.core.errors import ArgumentError, TenferroError
from tenferro.numpy._dispatch import renamed

from ._functional import Optimizer, apply_updates, constants
from ._rules import autograd_sgd, named_adam, named_rmsprop

INT64_MAX = 2**63 - 1
#: ``grad(x, i)``: the gradient, a pytree shaped like x, at iteration i.
GradFn = Callable[[Any, int], Any]
#: ``callback(x, i, g)``: called with the parameters and their gradient before each step.
Callback = Callable[[Any, int, Any], Any]


def sgd(
    grad: GradFn,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 200,
    step_size: float = 0.1,
    mass: float = 0.9,
) -> Any:
    """Stochastic gradient descent with momentum as autograd's: ``v = mass·v - (1 - mass)·g``,
    ``x = x + step_size·v``, v starting at 0 (``mass`` is not PyTorch's momentum: see
    docs/optimizers.md)."""
    name = "tf.optimizers.drivers.sgd"
    return _drive(name, autograd_sgd(step_size, mass), grad, x, callback, num_iters)


def rmsprop(
    grad: GradFn,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 100,
    step_size: float = 0.1,
    gamma: float = 0.9,
    eps: float = 10**-8,
) -> Any:
    """RMSprop as autograd's: ``s = gamma·s + (1 - gamma)·g²``, ``x = x - step_size·g / (√s +
    eps)``, s starting at 1 (PyTorch's at 0)."""
    name = "tf.optimizers.drivers.rmsprop"
    return _drive(name, named_rmsprop(name, step_size, gamma, eps, 1.0), grad, x, callback, num_iters)


def adam(
    grad: GradFn,
    x: Any,
    callback: Callback | None = None,
    num_iters: int = 100,
    step_size: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 10**-8,
) -> Any:
    """Adam as autograd's (and ``tf.optimizers.adam``'s): ``m = (1 - b1)·g + b1·m``,
    ``v = (1 - b2)·g² + b2·v``, ``x = x - step_size·m̂ / (√v̂ + eps)`` with bias-corrected
    ``m̂ = m / (1 - b1ⁱ⁺¹)``, ``v̂ = v / (1 - b2ⁱ⁺¹)``."""
    name = "tf.optimizers.drivers.adam"
    return _drive(name, named_adam(name, step_size, b1, b2, eps), grad, x, callback, num_iters)


def _drive(name: str, opt: Optimizer, grad: Any, x: Any, callback: Any, num_iters: Any) -> Any:
    _check_function(name, "grad", grad, "a function grad(x, i)")
    if callback is not None:
        _check_function(name, "callback", callback, "None or a function callback(x, i, g)")
    if isinstance(num_iters, bool) or not isinstance(num_iters, Integral) or not 0 <= num_iters <= INT64_MAX:
        raise ArgumentError(f"{name}: num_iters must be an int in [0, 2**63), got {num_iters!r}", argument="num_iters")
    x = constants(x, name, "x")
    state = opt.init(x)
    for i in range(int(num_iters)):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        try:
            updates, state = opt.update(g, state, x)
        except TenferroError as exc:  # the step's error, as the driver the user called
            raise renamed(exc, name) from None
        x = apply_updates(x, updates)
    return x


def _check_function(name: str, argument: str, function: Any, wanted: str) -> None:
    """``function`` must be callable with ``wanted``'s positional arguments (where Python can
    tell: a builtin without a signature is called as it is)."""
    arity = wanted.count(",") + 1
    if not callable(function):
        raise ArgumentError(f"{name}: {argument} must be {wanted}, got {type(function).__name__}", argument=argument)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*range(arity))
    except TypeError as exc:
        raise ArgumentError(
            f"{name}: {argument} must be {wanted}, taking {arity} positional arguments; {function!r} cannot ({exc})",
            argument=argument,
        ) from None
