"""The functions of ``tenferro.nn`` (its docstring says what they are), on the ``nn`` plugin's ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.arguments import size
from ..core.eager import EagerTensor, value_out
from ..core.errors import ArgumentError
from ..core.tensor import MAX_ELEMENTS
from ..numpy._dispatch import array_arg, integer_array, lift, run, runtime_of, unary
from ..numpy._dtypes import as_dtype

relu = unary("relu", "relu", "max(x, 0); its derivative at 0 is 0 (PyTorch's and JAX's).", "tf.nn.relu")
silu = unary("silu", "silu", "x·sigmoid(x) (swish).", "tf.nn.silu")
sigmoid = unary("sigmoid", "sigmoid", "1/(1 + e**-x), without overflow.", "tf.nn.sigmoid")


def gelu(x: Any, approximate: bool = False) -> EagerTensor:
    """x·Φ(x), or its tanh approximation with ``approximate=True``."""
    if not isinstance(approximate, (bool, np.bool_)):
        raise ArgumentError(f"tf.nn.gelu: approximate must be True or False, got {approximate!r}")
    x = array_arg(x, "tf.nn.gelu")
    s = x.runtime.current_session()
    return run("tf.nn.gelu", None, s.gelu, x, "tanh" if approximate else "none")


def softplus(x: Any, *, beta: float = 1.0, threshold: float = 20.0) -> EagerTensor:
    """log(1 + exp(beta·x))/beta, and x itself where beta·x > threshold (PyTorch's)."""
    x = array_arg(x, "tf.nn.softplus")
    s = x.runtime.current_session()
    beta, threshold = _number(beta, "tf.nn.softplus", "beta"), _number(threshold, "tf.nn.softplus", "threshold")
    return run("tf.nn.softplus", None, s.softplus, x, beta, threshold)


def softmax(x: Any, axis: int = -1) -> EagerTensor:
    """exp(x)/sum(exp(x)) over ``axis``, without overflow."""
    x = array_arg(x, "tf.nn.softmax")
    s = x.runtime.current_session()
    return run("tf.nn.softmax", None, s.softmax, x, axis)


def log_softmax(x: Any, axis: int = -1) -> EagerTensor:
    """x - logsumexp(x) over ``axis``, without overflow."""
    x = array_arg(x, "tf.nn.log_softmax")
    s = x.runtime.current_session()
    return run("tf.nn.log_softmax", None, s.log_softmax, x, axis)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> EagerTensor:
    """log(sum(exp(x))) over ``axis`` (None: all), without overflow; its gradient is softmax."""
    x = array_arg(x, "tf.nn.logsumexp")
    s = x.runtime.current_session()
    return run("tf.nn.logsumexp", None, s.logsumexp, x, axis, keepdims)


def layer_norm(x: Any, weight: Any = None, bias: Any = None, *, axis: Any = -1, eps: float = 1e-5) -> EagerTensor:
    """(x - mean)/sqrt(var + eps)·weight + bias over ``axis`` (an int or a tuple); no
    weight or bias: 1 and 0."""
    x = array_arg(x, "tf.nn.layer_norm")
    s = x.runtime.current_session()
    rt = x.runtime
    weight = 1.0 if weight is None else lift(rt, weight, "tf.nn.layer_norm", "weight")
    bias = 0.0 if bias is None else lift(rt, bias, "tf.nn.layer_norm", "bias")
    return run(
        "tf.nn.layer_norm", None, s.layer_norm, x, weight, bias, eps=_number(eps, "tf.nn.layer_norm", "eps"), axes=axis
    )


def rms_norm(x: Any, weight: Any = None, *, axis: Any = -1, eps: float | None = None) -> EagerTensor:
    """x/sqrt(mean(x²) + eps)·weight over ``axis``; eps None is x's machine epsilon."""
    x = array_arg(x, "tf.nn.rms_norm")
    s = x.runtime.current_session()
    weight = 1.0 if weight is None else lift(x.runtime, weight, "tf.nn.rms_norm", "weight")
    return run("tf.nn.rms_norm", None, s.rms_norm, x, weight, eps=_number(eps, "tf.nn.rms_norm", "eps"), axes=axis)


def _number(value: Any, function: str, argument: str) -> Any:
    """A parameter the op takes as a number (``eps``, ``beta``): a 0-d tensor's value, which
    a function transform refuses to read when it differentiates it (the op has no
    derivative in its parameters)."""
    if type(value) is not EagerTensor:
        return value
    if value.ndim != 0:
        raise ArgumentError(f"{function}: {argument} must be a number, got a tensor of shape {list(value.shape)}")
    return value_out(value, f"{function} reads {argument} as a Python number").item()


def one_hot(labels: Any, num_classes: int, *, dtype: Any = np.float64) -> EagerTensor:
    """A constant of shape labels.shape + (num_classes,): 1 at each label, 0 elsewhere (a
    label outside [0, num_classes) gives a row of zeros, as ``jax.nn.one_hot``)."""
    rt = runtime_of((labels,))
    dtype = as_dtype(dtype, "tf.nn.one_hot")
    num_classes = size(num_classes, "tf.nn.one_hot", "num_classes")
    if type(labels) is EagerTensor and labels.dtype.kind in "iu" and labels.tracks_grad():
        # labels tf.vmap maps over (integers track only in its trace): ops it can replay
        s = rt.current_session()
        classes = rt.constant_from(np.arange(num_classes, dtype=labels.dtype))
        return s.astype(s.compare(s.expand_dims(labels, -1), classes, "eq"), dtype)
    values = integer_array(labels, "tf.nn.one_hot", "labels", "labels")
    if values.size * num_classes > MAX_ELEMENTS:
        raise ArgumentError(
            f"tf.nn.one_hot: {values.size} labels of {num_classes} classes make more elements than memory can address"
        )
    return rt.constant_from((values[..., None] == np.arange(num_classes)).astype(dtype))
