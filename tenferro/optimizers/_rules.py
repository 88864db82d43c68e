"""The update formulas, one rule each (see ``_functional``), and the optimizers made of
them. docs/optimizers.md states every formula; the tests hold them to ``torch.optim`` (the
functional forms) and to ``autograd.misc.optimizers`` (the driver forms).

Each rule is written in the order of operations of the library it follows bitwise:
PyTorch's for SGD, HIPS autograd's for Adam and RMSprop (whose numbers PyTorch's match to
rounding), so that the driver forms give autograd's numbers exactly.
"""

from __future__ import annotations

import numpy as np

from tenferro.core.errors import ArgumentError

from ._functional import Optimizer, Rule, hyper, optimizer


def sgd(step_size: float = 1e-3, momentum: float = 0.0, nesterov: bool = False) -> Optimizer:
    """Stochastic gradient descent with optional (Nesterov) momentum, ``torch.optim.SGD``'s:
    ``buf = momentum·buf + g``; ``u = -step_size·(g + momentum·buf if nesterov else buf)``
    (``u = -step_size·g`` without momentum)."""
    name = "tf.optimizers.sgd"
    lr, mu = hyper(name, "step_size", step_size), hyper(name, "momentum", momentum)
    if not isinstance(nesterov, bool):
        raise ArgumentError(f"{name}: nesterov must be True or False, got {nesterov!r}", argument="nesterov")
    if nesterov and mu == 0:
        raise ArgumentError(f"{name}: nesterov=True needs momentum > 0 (as PyTorch's)", argument="nesterov")

    def rule(g, p, moments, t):
        if not mu:
            return -lr * g, ()
        (buf,) = moments
        buf = mu * buf + g
        return -lr * (g + mu * buf if nesterov else buf), (buf,)

    return optimizer(name, rule, 1 if mu else 0)


def rmsprop(step_size: float = 1e-2, gamma: float = 0.99, eps: float = 1e-8, initial_scale: float = 0.0) -> Optimizer:
    """RMSprop, ``torch.optim.RMSprop``'s (``gamma`` is its ``alpha``): ``s = gamma·s +
    (1 - gamma)·g²``; ``u = -step_size·g / (√s + eps)``, ``s`` starting at ``initial_scale``
    (PyTorch's 0; HIPS autograd's ``rmsprop`` starts at 1)."""
    return named_rmsprop("tf.optimizers.rmsprop", step_size, gamma, eps, initial_scale)


def named_rmsprop(name: str, step_size: float, gamma: float, eps: float, initial_scale: float) -> Optimizer:
    """:func:`rmsprop`, its errors naming ``name`` (the driver form's is HIPS autograd's)."""
    lr, gamma, eps = hyper(name, "step_size", step_size), hyper(name, "gamma", gamma, 1.0), hyper(name, "eps", eps)
    initial = hyper(name, "initial_scale", initial_scale)

    def rule(g, p, moments, t):
        (s,) = moments
        s = s * gamma + g**2 * (1 - gamma)
        return -lr * g / (np.sqrt(s) + eps), (s,)

    return optimizer(name, rule, 1, initial)


def adam(step_size: float = 1e-3, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """Adam (Kingma and Ba), ``torch.optim.Adam``'s: ``m = (1 - b1)·g + b1·m``;
    ``v = (1 - b2)·g² + b2·v``; ``u = -step_size·m̂ / (√v̂ + eps)`` with ``m̂ = m / (1 - b1ᵗ)``,
    ``v̂ = v / (1 - b2ᵗ)`` at step t = 1, 2, ..."""
    return named_adam("tf.optimizers.adam", step_size, b1, b2, eps)


def adamw(
    step_size: float = 1e-3, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, weight_decay: float = 1e-2
) -> Optimizer:
    """AdamW (Loshchilov and Hutter), ``torch.optim.AdamW``'s: Adam's update plus the
    decoupled weight decay ``-step_size·weight_decay·p``; ``update`` needs ``params``."""
    name = "tf.optimizers.adamw"
    adam_rule, decay = _adam_rule(name, step_size, b1, b2, eps), step_size * hyper(name, "weight_decay", weight_decay)

    def rule(g, p, moments, t):
        u, moments = adam_rule(g, p, moments, t)
        return u - decay * p, moments

    return optimizer(name, rule, 2, needs_params=True)


def named_adam(name: str, step_size: float, b1: float, b2: float, eps: float) -> Optimizer:
    """:func:`adam`, its errors naming ``name``."""
    return optimizer(name, _adam_rule(name, step_size, b1, b2, eps), 2)


def _adam_rule(name: str, step_size: float, b1: float, b2: float, eps: float) -> Rule:
    lr, eps = hyper(name, "step_size", step_size), hyper(name, "eps", eps)
    b1, b2 = hyper(name, "b1", b1, 1.0, open_high=True), hyper(name, "b2", b2, 1.0, open_high=True)

    def rule(g, p, moments, t):
        m, v = moments
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * (g**2) + b2 * v
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        return -lr * m_hat / (np.sqrt(v_hat) + eps), (m, v)

    return rule


def autograd_sgd(step_size: float, mass: float) -> Optimizer:
    """HIPS autograd's ``sgd``, whose ``mass`` decays a velocity: ``v = mass·v - (1 - mass)·g``;
    ``u = step_size·v`` (PyTorch's SGD with momentum=mass and dampening=mass, but for the first
    step, where PyTorch's buffer is g itself)."""
    name = "tf.optimizers.drivers.sgd"
    lr, mass = hyper(name, "step_size", step_size), hyper(name, "mass", mass, 1.0)

    def rule(g, p, moments, t):
        (v,) = moments
        v = mass * v - (1.0 - mass) * g
        return lr * v, (v,)

    return optimizer(name, rule, 1)
