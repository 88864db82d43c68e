"""Logistic regression by gradient descent, written for HIPS autograd (only the imports
differ). `result` is the trained weights."""

import tenferro.autograd.numpy as np
from tenferro.autograd import grad
from tenferro.autograd.test_util import check_grads


def sigmoid(x):
    return 0.5 * (np.tanh(x) + 1)


def loss(weights, inputs, targets):
    preds = sigmoid(np.dot(inputs, weights))
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities))


rng = np.random.RandomState(0)
inputs = rng.randn(40, 3)
targets = np.dot(inputs, np.array([1.5, -2.0, 0.5])) + 0.3 * rng.randn(40) > 0

weights = np.zeros(3)
check_grads(loss, modes=["rev"])(weights, inputs, targets)
gradient = grad(loss)
for _ in range(200):
    weights -= 0.01 * gradient(weights, inputs, targets)

result = weights
if __name__ == "__main__":
    print("trained loss:", loss(weights, inputs, targets), "weights:", weights)
