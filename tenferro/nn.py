"""``tenferro.nn``: the neural-network functions of the front end, as ``jax.nn`` names them
(``tf.nn.log_softmax(logits, axis=-1)``), on the ``nn`` plugin's ops and the current
session of their arguments (see ``tenferro.numpy``).

Pinned choices: ``gelu(x, approximate=False)`` is the exact erf form by default
(PyTorch's default; ``jax.nn.gelu`` defaults to the tanh approximation); ``softplus``
follows PyTorch's ``beta``/``threshold``; ``one_hot`` returns a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.eager import EagerTensor
from .core.errors import ArgumentError
from .numpy._dispatch import lift, runtime_of, unary

__all__ = [
    "gelu",
    "layer_norm",
    "log_softmax",
    "logsumexp",
    "one_hot",
    "relu",
    "rms_norm",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
]

relu = unary("relu", "relu", "max(x, 0); its derivative at 0 is 0 (PyTorch's and JAX's).")
silu = unary("silu", "silu", "x·sigmoid(x) (swish).")
sigmoid = unary("sigmoid", "sigmoid", "1/(1 + e**-x), without overflow.")


def _tensor(x: Any, function: str) -> tuple[EagerTensor, Any]:
    """``x`` as a tensor of its runtime (a NumPy array becomes a constant) and the session."""
    rt = runtime_of((x,))
    x = lift(rt, x, f"tf.nn.{function}")
    if type(x) is not EagerTensor:
        x = rt.constant_from(x)
    return x, rt.current_session()


def gelu(x: Any, approximate: bool = False) -> EagerTensor:
    """x·Φ(x), or its tanh approximation with ``approximate=True``."""
    if not isinstance(approximate, (bool, np.bool_)):
        raise ArgumentError(f"tf.nn.gelu: approximate must be True or False, got {approximate!r}")
    x, s = _tensor(x, "gelu")
    return s.gelu(x, "tanh" if approximate else "none")


def softplus(x: Any, *, beta: float = 1.0, threshold: float = 20.0) -> EagerTensor:
    """log(1 + exp(beta·x))/beta, and x itself where beta·x > threshold (PyTorch's)."""
    x, s = _tensor(x, "softplus")
    return s.softplus(x, beta, threshold)


def softmax(x: Any, axis: int = -1) -> EagerTensor:
    """exp(x)/sum(exp(x)) over ``axis``, without overflow."""
    x, s = _tensor(x, "softmax")
    return s.softmax(x, axis)


def log_softmax(x: Any, axis: int = -1) -> EagerTensor:
    """x - logsumexp(x) over ``axis``, without overflow."""
    x, s = _tensor(x, "log_softmax")
    return s.log_softmax(x, axis)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> EagerTensor:
    """log(sum(exp(x))) over ``axis`` (None: all), without overflow; its gradient is softmax."""
    x, s = _tensor(x, "logsumexp")
    return s.logsumexp(x, axis, keepdims)


def layer_norm(x: Any, weight: Any = None, bias: Any = None, *, axis: Any = -1, eps: float = 1e-5) -> EagerTensor:
    """(x - mean)/sqrt(var + eps)·weight + bias over ``axis`` (an int or a tuple); no
    weight or bias: 1 and 0."""
    x, s = _tensor(x, "layer_norm")
    rt = x._rt
    weight = 1.0 if weight is None else lift(rt, weight, "tf.nn.layer_norm", "weight")
    bias = 0.0 if bias is None else lift(rt, bias, "tf.nn.layer_norm", "bias")
    return s.layer_norm(x, weight, bias, eps=eps, axes=axis)


def rms_norm(x: Any, weight: Any = None, *, axis: Any = -1, eps: float | None = None) -> EagerTensor:
    """x/sqrt(mean(x²) + eps)·weight over ``axis``; eps None is x's machine epsilon."""
    x, s = _tensor(x, "rms_norm")
    weight = 1.0 if weight is None else lift(x._rt, weight, "tf.nn.rms_norm", "weight")
    return s.rms_norm(x, weight, eps=eps, axes=axis)


def one_hot(labels: Any, num_classes: int, *, dtype: Any = np.float64) -> EagerTensor:
    """A constant of shape labels.shape + (num_classes,): 1 at each label, 0 elsewhere (a
    label outside [0, num_classes) gives a row of zeros, as ``jax.nn.one_hot``)."""
    rt = runtime_of((labels,))
    values = np.asarray(labels._held() if type(labels) is EagerTensor else labels)
    if values.dtype.kind not in "iu":
        raise ArgumentError(f"tf.nn.one_hot: labels must be integers, got {values.dtype}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) or num_classes < 0:
        raise ArgumentError(f"tf.nn.one_hot: num_classes must be a non-negative int, got {num_classes!r}")
    return rt.constant_from((values[..., None] == np.arange(num_classes)).astype(dtype))
