"""The training loop of ``train_value_and_grad.py`` with its step under ``tf.jit``.

The step (``tf.value_and_grad`` of the cross-entropy, then the SGD update) is traced on
its first call and replayed as a compiled plan on every later one: the forward pass, the
backward pass and the update as one straight-line list of NumPy kernel calls, with bitwise
the eager step's numbers. The labels are an integer array argument, traced like the
inputs (indexing by them records ops). The last batch of an epoch is shorter (600 is not
a multiple of 64): a second signature, so the step is traced twice in all
(``step.cache_info()``).

Run it with ``python examples/train_jit.py``; it prints the loss every few epochs, then
the time per step eagerly and jitted (the jitted one with its two traces), and checks that
both loops end on the same parameters.
"""

from __future__ import annotations

import time

import numpy as np
from train_value_and_grad import EPOCHS, LR, init, loss, spiral

import tenferro as tf

BATCH = 64


def sgd_step(params: dict, x: np.ndarray, labels: np.ndarray) -> tuple[tf.EagerTensor, dict]:
    value, grads = tf.value_and_grad(loss)(params, x, labels)
    return value, tf.tree_map(lambda p, g: p - LR * g, params, grads)


def train(step, seed: int = 0, log: bool = True) -> tuple[dict, float]:
    """Minibatch SGD with ``step``; the parameters and the seconds per step."""
    rng = np.random.default_rng(seed)
    x, labels = spiral(rng)
    params = init(rng)
    steps, start = 0, time.perf_counter()
    for epoch in range(EPOCHS):
        order = rng.permutation(len(x))
        for begin in range(0, len(x), BATCH):
            batch = order[begin : begin + BATCH]
            _, params = step(params, x[batch], labels[batch])
            steps += 1
        if log and (epoch % 10 == 0 or epoch == EPOCHS - 1):
            print(f"epoch {epoch:3d}  loss {float(loss(params, x, labels)):.4f}")
    return params, (time.perf_counter() - start) / steps


if __name__ == "__main__":
    train(sgd_step, log=False)  # the process's first ops (loading the plugins) outside the timings
    step = tf.jit(sgd_step)
    jitted, jitted_seconds = train(step)
    eager, eager_seconds = train(sgd_step, log=False)
    print(f"per step: eager {eager_seconds * 1e6:.0f} us, jitted {jitted_seconds * 1e6:.0f} us; {step.cache_info()}")
    same = all(
        np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(tf.flatten(eager)[0], tf.flatten(jitted)[0])
    )
    print(f"both loops end on the same parameters: {same}")
