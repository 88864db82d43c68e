"""A softmax classifier whose log-sum-exp is a primitive with a VJP of its own (autograd's
extend API), trained by gradient descent, written for HIPS autograd. `result` is the
trained weights' loss path; the Hessian of the primitive checks second order."""

import tenferro.autograd.numpy as np
from tenferro.autograd import grad, hessian
from tenferro.autograd.extend import defvjp, primitive


@primitive
def logsumexp(x):
    """Log-sum-exp along the last axis, stable."""
    max_x = np.max(x, axis=-1, keepdims=True)
    return np.squeeze(max_x, -1) + np.log(np.sum(np.exp(x - max_x), axis=-1))


def logsumexp_vjp(ans, x):
    return lambda g: np.expand_dims(g, -1) * np.exp(x - np.expand_dims(ans, -1))


defvjp(logsumexp, logsumexp_vjp)


def loss(W, inputs, labels):
    logits = np.dot(inputs, W)
    return -np.sum(logits * labels - np.expand_dims(logsumexp(logits), -1) * labels)


rng = np.random.RandomState(1)
inputs = rng.randn(30, 4)
labels = np.eye(3)[rng.randint(0, 3, 30)]
W = np.zeros((4, 3))
losses = []
for _ in range(50):
    W = W - 0.05 * grad(loss)(W, inputs, labels)
    losses.append(loss(W, inputs, labels))

z = np.array([0.5, 1.0, -2.0])
softmax = np.exp(z) / np.sum(np.exp(z))
assert np.allclose(hessian(logsumexp)(z), np.diag(softmax) - np.outer(softmax, softmax))
result = np.array(losses)
if __name__ == "__main__":
    print("loss:", losses[0], "->", losses[-1])
