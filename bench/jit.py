"""``tf.jit``'s replayed plans against PyTorch eager: ``python bench/jit.py [--only TEXT]``.

Workloads (issue 27, item 2), each timed with :func:`tenferro.benchmark.alternate`
(alternating blocks, median ratio of neighbouring blocks; PyTorch on one thread), the
jitted function called on the same arguments as the eager one, after its first call:

- ``tf.jit(tf.value_and_grad(mlp))`` of a batch-1 MLP 8→8→1. Target ≤ 0.15 × PyTorch.
- the seed's Hessian-vector product (f(x) = Σ sin(x)·x², N = 10³). Target ≤ 0.5 ×.
- a 300-op elementwise chain (100 × sin, mul, add) at N = 10³, forward and backward.
  Target ≤ 0.5 ×.
- one SGD step of an MLP 784→256→10 on a batch of 128 (tanh, log_softmax). Target ≤ 0.75 ×.
- an attention block (64 × 32, softmax) forward and backward. Target ≤ 0.5 ×.
- the seed's gradient at N = 10⁶ against hand-written NumPy. Target ≤ 0.9 ×.
- the first (tracing) call against one eager call of ``value_and_grad`` of the batch-1
  MLP. Target ≤ 3 ×.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from transform_overhead import _torch, mlp, small_mlp_data, torch_small_mlp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import benchmark

Impls = dict[str, Callable[[], Any]]
RNG = np.random.default_rng(0)


def _jitted(fun: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    jitted = tf.jit(fun)
    jitted(*args)  # traced here, not in the timing
    return lambda: jitted(*args)


def batch1_mlp() -> Impls:
    """transform_overhead.py's batch-1 MLP, its value_and_grad jitted."""
    params, x = small_mlp_data()
    impls = {"tenferro": _jitted(tf.value_and_grad(lambda p, x: mlp(tnp, p, x)), params, x)}
    if theirs := torch_small_mlp(params, x):
        impls["torch"] = theirs
    return impls


def seed(xp: Any, x: Any) -> Any:
    return (xp.sin(x) * x * x).sum()


def hvp() -> Impls:
    xs, vs = benchmark.seed_x(1_000), benchmark.seed_v(1_000)
    impls = {"tenferro": _jitted(lambda x, v: tf.hvp(lambda x: seed(tnp, x), (x,), (v,)), xs, vs)}
    if torch := _torch():
        vt = torch.tensor(vs)

        def theirs() -> Any:
            x = torch.tensor(xs, requires_grad=True)
            (g,) = torch.autograd.grad(seed(torch, x), x, create_graph=True)
            return torch.autograd.grad((g * vt).sum(), x)

        impls["torch"] = theirs
    return impls


def chain(xp: Any, x: Any) -> Any:
    for _ in range(benchmark.CHAIN_STEPS):
        x = xp.sin(x) * 1.01 + 0.1
    return x.sum()


def chain_grad() -> Impls:
    xs = benchmark.seed_x(1_000)
    impls = {"tenferro": _jitted(tf.grad(lambda x: chain(tnp, x)), xs)}
    if torch := _torch():

        def theirs() -> Any:
            x = torch.tensor(xs, requires_grad=True)
            chain(torch, x).backward()
            return x.grad

        impls["torch"] = theirs
    return impls


def mlp_loss(xp: Any, log_softmax: Callable[..., Any], params: dict[str, Any], x: Any, y: Any) -> Any:
    h = xp.tanh(x @ params["W1"] + params["b1"])
    return -(log_softmax(h @ params["W2"] + params["b2"], axis=-1) * y).sum() / x.shape[0]


def mlp_step() -> Impls:
    params = {
        "W1": RNG.standard_normal((784, 256)) / 28.0,
        "b1": np.zeros(256),
        "W2": RNG.standard_normal((256, 10)) / 16.0,
        "b2": np.zeros(10),
    }
    x, y = RNG.standard_normal((128, 784)), np.eye(10)[RNG.integers(0, 10, 128)]

    def step(params: dict[str, Any], x: Any, y: Any) -> Any:
        loss, grads = tf.value_and_grad(lambda p: mlp_loss(tnp, tf.nn.log_softmax, p, x, y))(params)
        return loss, tf.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    impls = {"tenferro": _jitted(step, params, x, y)}
    if torch := _torch():
        theirs_params = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
        xt, yt = torch.tensor(x), torch.tensor(y)

        def theirs() -> Any:
            loss = mlp_loss(torch, lambda z, axis: torch.log_softmax(z, dim=axis), theirs_params, xt, yt)
            grads = torch.autograd.grad(loss, list(theirs_params.values()))
            with torch.no_grad():
                return loss, [p - 0.1 * g for p, g in zip(theirs_params.values(), grads)]

        impls["torch"] = theirs
    return impls


def attention(xp: Any, softmax: Callable[..., Any], q: Any, k: Any, v: Any) -> Any:
    return (softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1) @ v).sum()


def attention_grad() -> Impls:
    q, k, v = (RNG.standard_normal((64, 32)) for _ in range(3))
    impls = {"tenferro": _jitted(tf.grad(lambda q, k, v: attention(tnp, tf.nn.softmax, q, k, v), (0, 1, 2)), q, k, v)}
    if torch := _torch():
        given = [torch.tensor(a) for a in (q, k, v)]

        def theirs() -> Any:
            leaves = [a.clone().requires_grad_(True) for a in given]
            loss = attention(torch, lambda z, axis: torch.softmax(z, dim=axis), *leaves)
            return torch.autograd.grad(loss, leaves)

        impls["torch"] = theirs
    return impls


def big_seed_grad() -> Impls:
    xs = benchmark.seed_x(1_000_000)
    return {"tenferro": _jitted(tf.grad(lambda x: seed(tnp, x)), xs), "numpy": benchmark.numpy_impls(1_000_000)["grad"]}


def first_call() -> Impls:
    params, x = small_mlp_data()
    value_and_grad = tf.value_and_grad(lambda p, x: mlp(tnp, p, x))
    return {"tenferro": lambda: tf.jit(value_and_grad)(params, x), "eager": lambda: value_and_grad(params, x)}


#: name -> (implementations, {comparison: target ratio or None}).
WORKLOADS: dict[str, tuple[Callable[[], Impls], dict[str, float | None]]] = {
    "jit value_and_grad MLP 1x8-8-1": (batch1_mlp, {"torch": 0.15}),
    "jit hvp seed, N=1e3": (hvp, {"torch": 0.5}),
    "jit 300-op chain grad, N=1e3": (chain_grad, {"torch": 0.5}),
    "jit MLP step 128x784-256-10": (mlp_step, {"torch": 0.75}),
    "jit attention 64x32 grad": (attention_grad, {"torch": 0.5}),
    "jit seed grad, N=1e6": (big_seed_grad, {"numpy": 0.9}),
    "first (tracing) call, MLP 1x8-8-1": (first_call, {"eager": 3.0}),
}


if __name__ == "__main__":
    benchmark.pairs_main(WORKLOADS, __doc__)
