"""Fit a logistic regression with ``scipy.optimize.minimize`` and tenferro's gradients.

The loss is written once with ``tenferro.numpy``; ``tf.grad(loss)`` is the ``jac`` SciPy
asks for, ``tf.value_and_grad(loss)`` with ``jac=True`` gives both in one pass, and
``tf.hessian(loss)`` is a ``hess``. What they return are constants (they carry no
gradient), so SciPy's internals (``np.atleast_1d``, in-place updates of its own arrays)
treat them as the NumPy arrays of their values. Each fit is checked against the same
method run with the gradient written by hand in NumPy, and a plain gradient-descent loop
ends the example with ``w -= lr * g`` into a NumPy array.

Run it with ``python examples/scipy_minimize.py``; each line prints a method, the loss it
reached and how far its minimum is from the hand-written gradient's.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
import scipy.special

import tenferro as tf
import tenferro.numpy as tnp

SAMPLES, FEATURES, RIDGE = 500, 5, 1e-2

rng = np.random.default_rng(0)
X = rng.normal(size=(SAMPLES, FEATURES))
y = (rng.random(SAMPLES) < scipy.special.expit(X @ rng.normal(size=FEATURES))).astype(float)


def loss(w: np.ndarray) -> tf.EagerTensor:
    """Mean logistic loss plus a small ridge term, with tenferro.numpy (it records)."""
    z = X @ w
    return tnp.mean(tnp.logaddexp(0.0, z) - y * z) + 0.5 * RIDGE * tnp.sum(w * w)


def numpy_loss(w: np.ndarray) -> float:
    z = X @ w
    return float(np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * RIDGE * np.sum(w * w))


def numpy_grad(w: np.ndarray) -> np.ndarray:
    """The gradient by hand, to check tenferro's against."""
    return X.T @ (scipy.special.expit(X @ w) - y) / SAMPLES + RIDGE * w


def numpy_hess(w: np.ndarray) -> np.ndarray:
    p = scipy.special.expit(X @ w)
    return (X.T * (p * (1 - p))) @ X / SAMPLES + RIDGE * np.eye(FEATURES)


#: method -> (tenferro's fun and derivatives, the hand-written ones), as minimize takes them.
WAYS = {
    "L-BFGS-B": ({"fun": loss, "jac": tf.grad(loss)}, {"fun": numpy_loss, "jac": numpy_grad}),
    "BFGS": ({"fun": tf.value_and_grad(loss), "jac": True}, {"fun": numpy_loss, "jac": numpy_grad}),
    "trust-exact": (
        {"fun": loss, "jac": tf.grad(loss), "hess": tf.hessian(loss)},
        {"fun": numpy_loss, "jac": numpy_grad, "hess": numpy_hess},
    ),
}


def fits() -> list[tuple[str, float, float]]:
    """(method, loss reached, max |w - w with the hand-written derivatives|) for each way in."""
    w0 = np.zeros(FEATURES)
    rows = []
    for method, (tenferro_way, numpy_way) in WAYS.items():
        got = scipy.optimize.minimize(x0=w0, method=method, options={"gtol": 1e-9}, **tenferro_way)
        want = scipy.optimize.minimize(x0=w0, method=method, options={"gtol": 1e-9}, **numpy_way)
        rows.append((method, float(got.fun), float(np.max(np.abs(got.x - want.x)))))
    return rows


def gradient_descent(steps: int = 200, lr: float = 2.0) -> float:
    """Plain gradient descent on a NumPy array, updated in place by tenferro's gradient."""
    w = np.zeros(FEATURES)
    grad = tf.grad(loss)
    for _ in range(steps):
        w -= lr * grad(w)  # a constant: NumPy writes its value into w
    return numpy_loss(w)


if __name__ == "__main__":
    for method, value, gap in fits():
        print(f"{method:12s} loss {value:.10f}  max|w - w_numpy| {gap:.1e}")
    print(f"{'descent':12s} loss {gradient_descent():.10f}")
