"""Per-example gradients with ``tf.vmap(tf.grad(loss))``: ``python bench/vmap.py``.

An MLP 784→256→10 and a small one, 16→32→10 (tanh, log_softmax, one-hot float labels), a
batch of 128 examples, the
gradient of each example's loss with respect to the parameters: against a Python loop of
``tf.grad`` over the examples and ``torch.func.vmap(torch.func.grad)`` (1 thread). Targets
(issue 26): ≥ 10 × faster than the loop, ≤ 1.2 × torch.func. A last row times the small
one under ``tf.jit`` (traced once, then its plan; docs/jit.md).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import benchmark

BATCH, INPUTS, HIDDEN, CLASSES = 128, 784, 256, 10


def data(inputs: int, hidden: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = {
        "W1": rng.standard_normal((inputs, hidden)) / np.sqrt(inputs),
        "b1": np.zeros(hidden),
        "W2": rng.standard_normal((hidden, CLASSES)) / np.sqrt(hidden),
    }
    labels = np.eye(CLASSES)[rng.integers(0, CLASSES, BATCH)]
    return params, rng.standard_normal((BATCH, inputs)), labels


def loss(xp: Any, log_softmax: Callable[..., Any]) -> Callable[..., Any]:
    def one(params: dict[str, Any], x: Any, y: Any) -> Any:
        h = xp.tanh(x @ params["W1"] + params["b1"])
        return -(log_softmax(h @ params["W2"], axis=-1) * y).sum()

    return one


def per_example(inputs: int = INPUTS, hidden: int = HIDDEN) -> dict[str, Callable[[], Any]]:
    params, x, y = data(inputs, hidden)
    one = loss(tnp, tf.nn.log_softmax)
    mapped = tf.vmap(tf.grad(one), in_axes=(None, 0, 0))
    grad = tf.grad(one)
    jitted = tf.jit(mapped)
    jitted(params, x, y)  # traced here, not in the timing
    impls = {
        "tenferro": lambda: mapped(params, x, y),
        "loop": lambda: [grad(params, x[i], y[i]) for i in range(BATCH)],
        "jit": lambda: jitted(params, x, y),
    }
    if importlib.util.find_spec("torch"):
        import torch
        from torch.func import grad as torch_grad
        from torch.func import vmap as torch_vmap

        torch.set_num_threads(1)
        theirs = {k: torch.tensor(v) for k, v in params.items()}
        xt, yt = torch.tensor(x), torch.tensor(y)
        torch_one = loss(torch, lambda z, axis: torch.log_softmax(z, dim=axis))
        torch_mapped = torch_vmap(torch_grad(torch_one), in_dims=(None, 0, 0))
        impls["torch"] = lambda: torch_mapped(theirs, xt, yt)
    return impls


WORKLOADS = {
    f"per-example grads MLP ({BATCH}x{INPUTS}-{HIDDEN}-{CLASSES})": (per_example, {"loop": 0.1, "torch": 1.2}),
    f"per-example grads MLP ({BATCH}x16-32-{CLASSES})": (lambda: per_example(16, 32), {"loop": 0.1, "torch": 1.2}),
    # tf.jit of the same vmap: the two traces once, then its plan (no target: how much jit adds)
    f"jit per-example grads ({BATCH}x16-32-{CLASSES})": (
        lambda: {k: v for k, v in benchmark.jit_as_ours(per_example(16, 32)).items() if k != "loop"},
        {"torch": None},
    ),
}


if __name__ == "__main__":
    benchmark.pairs_main(WORKLOADS, __doc__)
