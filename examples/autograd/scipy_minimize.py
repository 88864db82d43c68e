"""Maximum likelihood of a Gaussian's mean and log standard deviation with
scipy.optimize.minimize, the gradient from value_and_grad (jac=True) and from grad
(jac=...), written for HIPS autograd. `result` is the two solutions."""

import scipy.optimize

import tenferro.autograd.numpy as np
from tenferro.autograd import grad, value_and_grad


def negative_log_likelihood(params, data):
    mean, log_std = params[0], params[1]
    return np.sum(0.5 * ((data - mean) / np.exp(log_std)) ** 2 + log_std)


data = np.random.RandomState(2).normal(3.0, 0.5, size=200)
start = np.array([0.0, 0.0])
both = scipy.optimize.minimize(value_and_grad(negative_log_likelihood), start, args=(data,), jac=True)
apart = scipy.optimize.minimize(negative_log_likelihood, start, args=(data,), jac=grad(negative_log_likelihood))

result = np.array([both.x, apart.x])
assert np.allclose(result[0], [np.mean(data), np.log(np.std(data))], atol=1e-5)
assert np.allclose(result[1], result[0], atol=1e-5)
if __name__ == "__main__":
    print("mean, std:", both.x[0], np.exp(both.x[1]))
