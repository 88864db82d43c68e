"""Train a small model the JAX way: ``tf.value_and_grad`` over a pytree of parameters and a
plain SGD update, no variables, no gradient slots.

A two-layer tanh network classifies the three-armed spiral of ``train_mlp.py``. The
parameters are a nested dict of NumPy arrays (``{"hidden": {"W", "b"}, "out": {"W", "b"}}``);
``tf.value_and_grad(loss)(params, x, y)`` returns the loss and gradients in the same
structure, and ``tf.tree_map`` applies the update leaf by leaf. Nothing is recorded
between steps: a transform of a function of plain arrays returns constants, so the loop
keeps no history however long it runs.

Run it with ``python examples/train_value_and_grad.py``; it prints the loss every few epochs.
"""

from __future__ import annotations

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp

CLASSES, PER_CLASS, HIDDEN = 3, 200, 32
EPOCHS, BATCH, LR = 60, 50, 0.5


def spiral(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points on three noisy spiral arms (inputs of shape (600, 2)) and their arm (an int label)."""
    r = np.tile(np.linspace(0.0, 1.0, PER_CLASS), CLASSES)
    arm = np.repeat(np.arange(CLASSES), PER_CLASS)
    theta = arm * 2 * np.pi / CLASSES + 4.0 * r + 0.2 * rng.normal(size=r.shape)
    return np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1), arm


def init(rng: np.random.Generator) -> dict[str, dict[str, np.ndarray]]:
    """The parameters: a pytree of NumPy arrays."""
    return {
        "hidden": {"W": rng.normal(size=(2, HIDDEN)), "b": np.zeros(HIDDEN)},
        "out": {"W": rng.normal(size=(HIDDEN, CLASSES)) / np.sqrt(HIDDEN), "b": np.zeros(CLASSES)},
    }


def loss(params: dict, x: np.ndarray, labels: np.ndarray) -> tf.EagerTensor:
    """Mean cross-entropy: DESIGN §11's loss, the labels' log-probabilities picked by indexing."""
    h = tnp.tanh(x @ params["hidden"]["W"] + params["hidden"]["b"])
    logp = tf.nn.log_softmax(h @ params["out"]["W"] + params["out"]["b"], axis=-1)
    return -tnp.mean(logp[tnp.arange(x.shape[0]), labels])


def train(seed: int = 0, log: bool = True) -> list[float]:
    """Minibatch SGD; the loss on the whole data set every epoch."""
    rng = np.random.default_rng(seed)
    x, labels = spiral(rng)
    params = init(rng)
    step = tf.value_and_grad(loss)
    losses = []
    for epoch in range(EPOCHS):
        order = rng.permutation(len(x))
        for start in range(0, len(x), BATCH):
            batch = order[start : start + BATCH]
            _, grads = step(params, x[batch], labels[batch])
            params = tf.tree_map(lambda p, g: p - LR * g, params, grads)
        losses.append(float(loss(params, x, labels)))
        if log and (epoch % 5 == 0 or epoch == EPOCHS - 1):
            print(f"epoch {epoch:3d}  loss {losses[-1]:.4f}")
    return losses


if __name__ == "__main__":
    train()
