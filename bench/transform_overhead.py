"""What a transform costs beside the core's spelling of the same program, and beside
PyTorch: ``python bench/transform_overhead.py [--only TEXT]``.

Workloads (issue 27, item 1), each timed with :func:`tenferro.benchmark.alternate`
(alternating blocks, median ratio of neighbouring blocks) against each comparison:

- ``tf.grad`` of the seed f(x) = Σ sin(x)·x² at N = 10³, against ``tf.variable`` +
  ``backward`` + ``x.grad()`` and against PyTorch's ``backward``. Targets: ≤ 1.1 × the
  core, ≤ 1.05 × PyTorch.
- ``tf.hvp`` of the seed, against ``rt.grad`` of ⟨``rt.grad``, v⟩ and PyTorch's
  ``create_graph=True``. Targets: ≤ 1.1 × the core, ≤ 1.1 × PyTorch.
- ``tf.value_and_grad`` of a batch-1 MLP 8→8→1 with NumPy parameters, against
  ``backward`` on variables and ``torch.autograd.grad``. Targets: ≤ 1.1 × the core,
  ≤ 1.2 × PyTorch.
- A logistic regression on 10 000 × 20 NumPy data fitted by ``scipy.optimize.minimize``
  (L-BFGS-B, ``jac=True``, 30 iterations) with ``tf.value_and_grad``: the data as NumPy
  arrays, and made ``tf.constant`` once (``constant``); PyTorch the same. Target: ≤ 1.2 ×
  PyTorch.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.optimize

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import benchmark

Impls = dict[str, Callable[[], Any]]


def _torch() -> Any:
    if not importlib.util.find_spec("torch"):
        return None
    import torch  # noqa: PLC0415 - an optional comparison

    torch.set_num_threads(1)
    return torch


def seed(x: Any) -> Any:
    return tnp.sum(tnp.sin(x) * x * x)


def grad() -> Impls:
    xs = benchmark.seed_x(1_000)
    grad_f = tf.grad(seed)

    def core() -> Any:
        x = tf.variable(xs)
        seed(x).backward()
        return x.grad()

    impls = {"tenferro": lambda: grad_f(xs), "core": core}
    if torch := _torch():

        def torch_grad() -> Any:
            x = torch.tensor(xs, requires_grad=True)
            (torch.sin(x) * x * x).sum().backward()
            return x.grad

        impls["torch"] = torch_grad
    return impls


def hvp() -> Impls:
    xs, vs = benchmark.seed_x(1_000), benchmark.seed_v(1_000)
    rt, v = tf.default_runtime(), tf.constant(vs)

    def core() -> Any:
        x = tf.variable(xs)
        return rt.grad(tnp.sum(rt.grad(seed(x), x) * v), x)

    impls = {"tenferro": lambda: tf.hvp(seed, (xs,), (vs,)), "core": core}
    if torch := _torch():
        vt = torch.tensor(vs)

        def torch_hvp() -> Any:
            x = torch.tensor(xs, requires_grad=True)
            (g,) = torch.autograd.grad((torch.sin(x) * x * x).sum(), x, create_graph=True)
            return torch.autograd.grad((g * vt).sum(), x)

        impls["torch"] = torch_hvp
    return impls


def mlp(xp: Any, params: dict[str, Any], x: Any) -> Any:
    return (xp.tanh(x @ params["W1"] + params["b1"]) @ params["W2"]).sum()


def small_mlp_data() -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The batch-1 MLP 8→8→1's parameters (NumPy arrays) and input (bench/jit.py's too)."""
    rng = np.random.default_rng(0)
    params = {"W1": rng.standard_normal((8, 8)), "b1": np.zeros(8), "W2": rng.standard_normal((8, 1))}
    return params, rng.standard_normal((1, 8))


def torch_small_mlp(params: dict[str, np.ndarray], x: np.ndarray) -> Callable[[], Any] | None:
    """PyTorch's value and gradients of the batch-1 MLP (None without PyTorch)."""
    torch = _torch()
    if torch is None:
        return None
    xt = torch.tensor(x)

    def torch_value_and_grad() -> Any:
        leaves = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
        loss = mlp(torch, leaves, xt)
        return loss, torch.autograd.grad(loss, list(leaves.values()))

    return torch_value_and_grad


def small_mlp() -> Impls:
    params, x = small_mlp_data()
    value_and_grad = tf.value_and_grad(lambda p, x: mlp(tnp, p, x))

    def core() -> Any:
        leaves = {k: tf.variable(v) for k, v in params.items()}
        loss = mlp(tnp, leaves, x)
        loss.backward()
        return loss, {k: v.grad() for k, v in leaves.items()}

    impls = {"tenferro": lambda: value_and_grad(params, x), "core": core}
    if theirs := torch_small_mlp(params, x):
        impls["torch"] = theirs
    return impls


def logistic_loss(softplus: Callable[[Any], Any], w: Any, data: Any, labels: Any) -> Any:
    z = data @ w
    return (softplus(z) - labels * z).mean()


def logistic_regression() -> Impls:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((10_000, 20))
    labels = (data @ rng.standard_normal(20) + rng.standard_normal(10_000) > 0).astype(float)
    value_and_grad = tf.value_and_grad(lambda w, d, y: logistic_loss(lambda z: tnp.logaddexp(0.0, z), w, d, y))

    def fit(fun: Callable[[np.ndarray], Any]) -> Callable[[], Any]:
        options = {"maxiter": 30}
        return lambda: scipy.optimize.minimize(fun, np.zeros(20), jac=True, method="L-BFGS-B", options=options)

    def ours(d: Any, y: Any) -> Callable[[np.ndarray], Any]:
        def fun(w: np.ndarray) -> tuple[float, np.ndarray]:
            value, g = value_and_grad(w, d, y)
            return float(value), np.asarray(g)

        return fun

    impls = {"tenferro": fit(ours(data, labels)), "constant": fit(ours(tf.constant(data), tf.constant(labels)))}
    if torch := _torch():
        dt, yt = torch.tensor(data), torch.tensor(labels)

        def theirs(w: np.ndarray) -> tuple[float, np.ndarray]:
            wt = torch.tensor(w, requires_grad=True)
            value = logistic_loss(torch.nn.functional.softplus, wt, dt, yt)
            (g,) = torch.autograd.grad(value, wt)
            return float(value), g.numpy()

        impls["torch"] = fit(theirs)
    return impls


#: name -> (implementations, {comparison: target ratio or None}).
WORKLOADS: dict[str, tuple[Callable[[], Impls], dict[str, float | None]]] = {
    "tf.grad seed, N=1e3": (grad, {"core": 1.1, "torch": 1.05}),
    "tf.hvp seed, N=1e3": (hvp, {"core": 1.1, "torch": 1.1}),
    "value_and_grad MLP 1x8-8-1": (small_mlp, {"core": 1.1, "torch": 1.2}),
    "logistic regression L-BFGS-B": (logistic_regression, {"constant": None, "torch": 1.2}),
}


if __name__ == "__main__":
    benchmark.pairs_main(WORKLOADS, __doc__)
