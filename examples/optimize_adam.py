"""Fit a model with ``tf.optimizers``, in both its forms: optax's ``init``/``update`` loop
(Adam with PyTorch's formulas) and HIPS autograd's driver ``tf.optimizers.drivers.adam``.

A two-layer tanh network regresses y = sin(3x) on 100 points. The parameters are a dict of
NumPy arrays; ``tf.value_and_grad`` gives the loss and the gradients in the same
structure, the optimizer the new parameters, as constants: nothing is recorded between
steps. The driver form runs the same Adam from the same start, with ``tf.flatten``'s
vector shown in its callback, and ends on the same parameters, bitwise.

Run it with ``python examples/optimize_adam.py``; it prints the loss every 100 steps.
"""

from __future__ import annotations

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp

HIDDEN, STEPS, STEP_SIZE = 16, 600, 0.02


def data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-1.0, 1.0, 100)[:, None]
    return x, np.sin(3 * x) + 0.05 * rng.normal(size=x.shape)


def init(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "W1": rng.normal(size=(1, HIDDEN)),
        "b1": np.zeros(HIDDEN),
        "W2": rng.normal(size=(HIDDEN, 1)) / np.sqrt(HIDDEN),
        "b2": np.zeros(1),
    }


def loss(params: dict, x: np.ndarray, y: np.ndarray) -> tf.EagerTensor:
    h = tnp.tanh(x @ params["W1"] + params["b1"])
    return tnp.mean((h @ params["W2"] + params["b2"] - y) ** 2)


def fit(params: dict, x: np.ndarray, y: np.ndarray, log: bool = True) -> dict:
    """optax's loop: init once, then update and apply the updates each step."""
    opt = tf.optimizers.adam(step_size=STEP_SIZE)
    state = opt.init(params)
    step = tf.value_and_grad(loss)
    for i in range(STEPS):
        value, grads = step(params, x, y)
        if log and i % 100 == 0:
            print(f"step {i:4d}  loss {float(value):.4f}")
        updates, state = opt.update(grads, state, params)
        params = tf.optimizers.apply_updates(params, updates)
    if log:
        print(f"step {STEPS:4d}  loss {float(loss(params, x, y)):.4f}")
    return params


def fit_with_the_driver(params: dict, x: np.ndarray, y: np.ndarray, log: bool = True) -> dict:
    """HIPS autograd's form: a gradient function of (params, iteration) and a callback."""

    def callback(params: dict, i: int, g: dict) -> None:
        if log and i % 200 == 0:
            vector, _ = tf.flatten(g)
            norm = float(tnp.linalg.vector_norm(vector))
            print(f"driver step {i:4d}  loss {float(loss(params, x, y)):.4f}  |grad| {norm:.4f}")

    return tf.optimizers.drivers.adam(
        lambda p, i: tf.grad(loss)(p, x, y), params, callback, num_iters=STEPS, step_size=STEP_SIZE
    )


def main() -> None:
    rng = np.random.default_rng(0)
    x, y = data(rng)
    start = init(rng)
    ours = fit(start, x, y)
    driven = fit_with_the_driver(start, x, y)
    same = all(np.array_equal(np.asarray(ours[k]), np.asarray(driven[k])) for k in ours)
    print(f"both forms end on the same parameters: {same}")


if __name__ == "__main__":
    main()
