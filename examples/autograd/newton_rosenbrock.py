"""Newton's method on the Rosenbrock function with its exact Hessian, written for HIPS
autograd. `result` is the path of iterates."""

import tenferro.autograd.numpy as np
from tenferro.autograd import grad, hessian


def rosenbrock(x):
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2


x = np.array([-1.2, 1.0])
path = [x]
for _ in range(8):
    x = x - np.linalg.solve(hessian(rosenbrock)(x), grad(rosenbrock)(x))
    path.append(x)

result = np.array(path)
assert np.allclose(result[-1], [1.0, 1.0])
if __name__ == "__main__":
    print("iterates:\n", result)
