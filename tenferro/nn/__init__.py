"""``tenferro.nn``: the neural-network functions of the front end, as ``jax.nn`` names them
(``tf.nn.log_softmax(logits, axis=-1)``), on the ``nn`` plugin's ops and the current
session of their arguments (see ``tenferro.numpy``).

Pinned choices: ``gelu(x, approximate=False)`` is the exact erf form by default
(PyTorch's default; ``jax.nn.gelu`` defaults to the tanh approximation); ``softplus``
follows PyTorch's ``beta``/``threshold``; ``one_hot`` returns a constant.
"""

from ._functions import (
    gelu,
    layer_norm,
    log_softmax,
    logsumexp,
    one_hot,
    relu,
    rms_norm,
    sigmoid,
    silu,
    softmax,
    softplus,
)

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


def __getattr__(name: str) -> object:
    from ..core.errors import UnknownName

    raise UnknownName.of("tf.nn", name, __all__)
