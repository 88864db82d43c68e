"""The first four derivatives of tanh by nesting elementwise_grad, written for HIPS autograd.
`result` stacks them on a grid."""

import tenferro.autograd.numpy as np
from tenferro.autograd import elementwise_grad as egrad


def tanh(x):
    return (1.0 - np.exp(-2 * x)) / (1.0 + np.exp(-(2 * x)))


x = np.linspace(-3, 3, 61)
derivatives = [egrad(tanh), egrad(egrad(tanh)), egrad(egrad(egrad(tanh))), egrad(egrad(egrad(egrad(tanh))))]
result = np.stack([d(x) for d in derivatives])

t = np.tanh(x)  # the closed forms: 1 - t², -2t(1 - t²), ...
assert np.allclose(result[0], 1 - t**2) and np.allclose(result[1], -2 * t * (1 - t**2))
if __name__ == "__main__":
    print("max |4th derivative| on [-3, 3]:", np.max(np.abs(result[3])))
