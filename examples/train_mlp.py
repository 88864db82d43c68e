"""Train a small MLP with tenferro's front end: a full training loop in plain NumPy style.

A two-layer tanh network classifies a synthetic three-armed spiral (NumPy's seeded RNG).
The parameters are ``tf.variable``s; the model is written with operators,
``tenferro.numpy`` functions and ``tf.nn.log_softmax``, so every step records on the
default runtime, and
``loss.backward()`` (no engine, no session) fills each parameter's gradient slot.

When to clear gradients: each ``backward`` adds into the slots, as in PyTorch, which is
what accumulating over micro-batches relies on (two backward calls per update below).
Values are immutable, so an update makes new variables from the old values and their
gradients (``tf.variable(p - lr * p.grad())`` under ``no_grad``: ``p.grad()`` is a plain
``Tensor``, a constant beside ``p``, and ``tf.variable`` of a tensor takes its value, not its history),
and a new variable starts with an empty slot; ``p.clear_grad()`` is needed only for a
variable that is kept for another step.

Run it with ``python examples/train_mlp.py``; it prints the loss once per epoch.
"""

from __future__ import annotations

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp

CLASSES, PER_CLASS, HIDDEN = 3, 200, 32
EPOCHS, BATCH, LR, ACCUMULATE = 60, 50, 0.5, 2


def spiral(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points on three noisy spiral arms (inputs of shape (600, 2)) and their one-hot arm."""
    r = np.tile(np.linspace(0.0, 1.0, PER_CLASS), CLASSES)
    arm = np.repeat(np.arange(CLASSES), PER_CLASS)
    theta = arm * 2 * np.pi / CLASSES + 4.0 * r + 0.2 * rng.normal(size=r.shape)
    x = np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1)
    return x, np.eye(CLASSES)[arm]


def init(rng: np.random.Generator) -> dict[str, tf.EagerTensor]:
    """The parameters, as variables of the default runtime."""
    return {
        "W1": tf.variable(rng.normal(size=(2, HIDDEN))),
        "b1": tf.variable(np.zeros(HIDDEN)),
        "W2": tf.variable(rng.normal(size=(HIDDEN, CLASSES)) / np.sqrt(HIDDEN)),
        "b2": tf.variable(np.zeros(CLASSES)),
    }


def loss_fn(params: dict[str, tf.EagerTensor], x: np.ndarray, y: np.ndarray) -> tf.EagerTensor:
    """Mean cross-entropy of the network on the batch (x, one-hot y): NumPy arrays mix
    freely with tenferro arrays and become constants."""
    h = tnp.tanh(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    return -tnp.mean(tnp.sum(tf.nn.log_softmax(logits, axis=-1) * y, axis=-1))


def train(seed: int = 0, log: bool = True) -> list[float]:
    """Minibatch gradient descent; the loss on the whole data set after each epoch."""
    rng = np.random.default_rng(seed)
    x, y = spiral(rng)
    params = init(rng)
    rt = tf.default_runtime()
    losses = []
    for epoch in range(EPOCHS + 1):
        with rt.no_grad():  # evaluation only: nothing to record
            losses.append(float(loss_fn(params, x, y)))
        if log and epoch % 5 == 0:
            print(f"epoch {epoch:3d}  loss {losses[-1]:.4f}")
        if epoch == EPOCHS:
            break
        order = rng.permutation(len(x))
        for start in range(0, len(x), BATCH * ACCUMULATE):
            # ACCUMULATE micro-batches per update: each backward adds into the slots.
            for micro in range(start, start + BATCH * ACCUMULATE, BATCH):
                batch = order[micro : micro + BATCH]
                loss = loss_fn(params, x[batch], y[batch]) / ACCUMULATE
                loss.backward()
            # The update: new variables (empty slots) from the old values and their summed
            # gradients. Keeping a variable for another step would need p.clear_grad() here.
            with rt.no_grad():
                params = {name: tf.variable(p - LR * p.grad()) for name, p in params.items()}
    return losses


if __name__ == "__main__":
    train()
