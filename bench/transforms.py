"""The function transforms against PyTorch, JAX and NumPy: ``python bench/transforms.py [--profile]``.

Workloads (issue 13, Performance), each timed with :func:`tenferro.benchmark.alternate`
(alternating blocks, median ratio of neighbouring blocks) against each comparison in turn:

- ``tf.value_and_grad`` of an MLP training loss (DESIGN §11's: a tanh layer, log_softmax,
  the mean of the labels' log-probabilities picked by integer indexing), parameters a dict
  of NumPy arrays; against ``torch.autograd.grad`` on leaf tensors (1 thread),
  ``jax.value_and_grad`` without jit, and the same gradient written by hand in NumPy
  (the limit for NumPy kernels). Targets: ≤ 1.1× PyTorch, ≤ 1.0× JAX.
- ``tf.jvp`` of the seed f(x) = Σ sin(x)·x² at N = 10⁶ against the forward pass alone
  (``f`` with tenferro.numpy on a plain array). Target: ≤ 1.5×.
- ``tf.hessian`` of the seed at N = 100 against ``torch.autograd.functional.hessian`` and
  ``torch.func.hessian`` (vmap over the basis, as tf.hessian's). Targets: ≤ 1.2×, ≤ 1.0×;
  and of logsumexp(A x) and a 50-d Gaussian log-likelihood through cholesky against
  ``torch.func.hessian`` (issue 26). Targets: ≤ 1.0×. A last row times the Gaussian's
  Hessian under ``tf.jit`` (traced once, then its plan; docs/jit.md).

JAX runs in this process, after the other pairs (its worker threads idle between calls).
``--profile`` prints where tenferro's time goes (cProfile).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import benchmark

BATCH, INPUTS, HIDDEN, CLASSES = 64, 16, 32, 10


def mlp_data() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = {
        "W1": rng.standard_normal((INPUTS, HIDDEN)) / 4,
        "b1": np.zeros(HIDDEN),
        "W2": rng.standard_normal((HIDDEN, CLASSES)) / 6,
    }
    return params, rng.standard_normal((BATCH, INPUTS)), rng.integers(0, CLASSES, BATCH)


def mlp_loss(xp: Any, log_softmax: Callable[..., Any]) -> Callable[..., Any]:
    """DESIGN §11's loss, for a NumPy-like module ``xp``."""

    def loss(params: dict[str, Any], x: Any, y: Any) -> Any:
        h = xp.tanh(x @ params["W1"] + params["b1"])
        logp = log_softmax(h @ params["W2"], axis=-1)
        return -xp.mean(logp[xp.arange(x.shape[0]), y])

    return loss


def mlp() -> dict[str, Callable[[], Any]]:
    params, x, y = mlp_data()
    value_and_grad = tf.value_and_grad(mlp_loss(tnp, tf.nn.log_softmax))
    impls = {"tenferro": lambda: value_and_grad(params, x, y), "numpy": lambda: _mlp_by_hand(params, x, y)}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        leaves = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
        xt, yt = torch.tensor(x), torch.tensor(y)
        torch_loss = mlp_loss(torch, lambda z, axis: torch.log_softmax(z, dim=axis))

        def torch_value_and_grad() -> Any:
            value = torch_loss(leaves, xt, yt)
            return value, torch.autograd.grad(value, list(leaves.values()))

        impls["torch"] = torch_value_and_grad
    if importlib.util.find_spec("jax"):
        import jax

        jax.config.update("jax_enable_x64", True)
        jax_value_and_grad = jax.value_and_grad(mlp_loss(jax.numpy, jax.nn.log_softmax))
        impls["jax"] = lambda: jax.block_until_ready(jax_value_and_grad(params, x, y))
    return impls


def _mlp_by_hand(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1, keepdims=True)
    logp = shifted - np.log(total)
    rows = np.arange(x.shape[0])
    value = -logp[rows, y].mean()
    g_logp = np.zeros_like(logp)
    g_logp[rows, y] = -1 / x.shape[0]
    g_logits = g_logp - e / total * g_logp.sum(axis=-1, keepdims=True)
    g_hidden = (g_logits @ params["W2"].T) * (1 - h * h)
    return value, {"W1": x.T @ g_hidden, "b1": g_hidden.sum(axis=0), "W2": h.T @ g_logits}


def seed(x: Any) -> Any:
    return tnp.sum(tnp.sin(x) * x * x)


def jvp() -> dict[str, Callable[[], Any]]:
    n = 1_000_000
    xs, vs = benchmark.seed_x(n), benchmark.seed_v(n)
    return {"tenferro": lambda: tf.jvp(seed, (xs,), (vs,)), "forward": lambda: seed(xs)}


def hessian() -> dict[str, Callable[[], Any]]:
    xs = benchmark.seed_x(100)
    hess = tf.hessian(seed)
    impls = {"tenferro": lambda: hess(xs)}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        xt = torch.tensor(xs)
        impls["torch"] = lambda: torch.autograd.functional.hessian(lambda x: (torch.sin(x) * x * x).sum(), xt)
        torch_func_hessian = torch.func.hessian(lambda x: (torch.sin(x) * x * x).sum())
        impls["torch.func"] = lambda: torch_func_hessian(xt)
    if importlib.util.find_spec("jax"):
        import jax

        jax.config.update("jax_enable_x64", True)
        jax_hessian = jax.hessian(lambda x: jax.numpy.sum(jax.numpy.sin(x) * x * x))
        impls["jax"] = lambda: jax.block_until_ready(jax_hessian(xs))
    return impls


def hessian_logsumexp() -> dict[str, Callable[[], Any]]:
    """The Hessian of logsumexp(A x), A 100 × 100."""
    rng = np.random.default_rng(0)
    a, xs = rng.standard_normal((100, 100)) / 10, rng.standard_normal(100)
    impls = {"tenferro": lambda: tf.hessian(lambda x: tnp.log(tnp.sum(tnp.exp(a @ x))))(xs)}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        at, xt = torch.tensor(a), torch.tensor(xs)
        theirs = torch.func.hessian(lambda x: torch.logsumexp(at @ x, 0))
        impls["torch.func"] = lambda: theirs(xt)
    return impls


def hessian_gaussian() -> dict[str, Callable[[], Any]]:
    """The Hessian in the mean of a 50-d Gaussian log-likelihood, through a Cholesky factor
    (of a covariance that depends on the mean) and a triangular solve."""
    import tenferro.scipy.linalg as tsl

    rng = np.random.default_rng(0)
    m = rng.standard_normal((50, 50))
    cov, y, mean = m @ m.T / 50 + np.eye(50), rng.standard_normal(50), np.zeros(50)

    def loglik(mu: Any) -> Any:
        factor = tnp.linalg.cholesky(tnp.asarray(cov) + tnp.outer(mu, mu) * 0.01)
        z = tsl.solve_triangular(factor, y - mu, lower=True)
        return -0.5 * tnp.sum(z * z) - tnp.sum(tnp.log(tnp.diagonal(factor)))

    jitted = tf.jit(tf.hessian(loglik))
    jitted(mean)  # traced here, not in the timing
    impls = {"tenferro": lambda: tf.hessian(loglik)(mean), "jit": lambda: jitted(mean)}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        ct, yt, mt = torch.tensor(cov), torch.tensor(y), torch.tensor(mean)

        def theirs(mu: Any) -> Any:
            factor = torch.linalg.cholesky(ct + torch.outer(mu, mu) * 0.01)
            z = torch.linalg.solve_triangular(factor, (yt - mu)[:, None], upper=False)[:, 0]
            return -0.5 * (z * z).sum() - torch.log(torch.diagonal(factor)).sum()

        hessian_of = torch.func.hessian(theirs)
        impls["torch.func"] = lambda: hessian_of(mt)
    return impls


#: name -> (implementations, {comparison: target ratio or None}); JAX last (see the doc).
WORKLOADS: dict[str, tuple[Callable[[], dict[str, Callable[[], Any]]], dict[str, float | None]]] = {
    f"value_and_grad MLP ({BATCH}x{INPUTS}-{HIDDEN}-{CLASSES})": (mlp, {"numpy": None, "torch": 1.1, "jax": 1.0}),
    "jvp seed, N=1e6": (jvp, {"forward": 1.5}),
    "hessian seed, N=100": (hessian, {"torch": 1.2, "torch.func": 1.0, "jax": None}),
    "hessian logsumexp(A x), N=100": (hessian_logsumexp, {"torch.func": 1.0}),
    "hessian 50-d Gaussian (cholesky)": (hessian_gaussian, {"torch.func": 1.0}),
    # the same Hessian under tf.jit: its traces once, then a plan (no target: how much jit adds)
    "jit hessian 50-d Gaussian (cholesky)": (lambda: benchmark.jit_as_ours(hessian_gaussian()), {"torch.func": None}),
}


if __name__ == "__main__":
    benchmark.pairs_main(WORKLOADS, __doc__)
