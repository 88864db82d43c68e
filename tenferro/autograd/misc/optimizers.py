"""``autograd.misc.optimizers``: ``sgd``, ``rmsprop`` and ``adam``, autograd's driver forms
(``tf.optimizers.drivers``: autograd's signatures, defaults and numbers), returning the
final parameters as autograd does, NumPy arrays."""

from __future__ import annotations

from typing import Any

from tenferro.optimizers import drivers

from ..differential_operators import _plain

__all__ = ["adam", "rmsprop", "sgd"]


def sgd(
    grad: Any, x: Any, callback: Any = None, num_iters: int = 200, step_size: float = 0.1, mass: float = 0.9
) -> Any:
    """Autograd's sgd with momentum (``mass``)."""
    return _plain(drivers.sgd(grad, x, callback, num_iters, step_size, mass))


def rmsprop(
    grad: Any,
    x: Any,
    callback: Any = None,
    num_iters: int = 100,
    step_size: float = 0.1,
    gamma: float = 0.9,
    eps: float = 10**-8,
) -> Any:
    """Autograd's RMSprop."""
    return _plain(drivers.rmsprop(grad, x, callback, num_iters, step_size, gamma, eps))


def adam(
    grad: Any,
    x: Any,
    callback: Any = None,
    num_iters: int = 100,
    step_size: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 10**-8,
) -> Any:
    """Autograd's Adam."""
    return _plain(drivers.adam(grad, x, callback, num_iters, step_size, b1, b2, eps))
