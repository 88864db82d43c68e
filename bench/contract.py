"""The contract family against PyTorch: ``python bench/contract.py [--profile]``.

Workloads (issue 10, Performance), each timed with :func:`tenferro.benchmark.alternate`
(alternating blocks, median ratio) against PyTorch on one thread:

- an MLP training step (batch 128, 784→256→10, tanh, softmax cross-entropy with
  ``log_softmax`` and ``take_along_axis``), value and gradient of all four parameters;
- a 3-operand einsum ``ij,jk,kl->il`` (sizes 200–400), forward + backward, against
  ``torch.einsum``, and tenferro's forward + backward against NumPy's
  ``einsum(optimize=True)`` forward three times (the issue's bound).

``--profile`` prints where tenferro's time goes (cProfile). NumPy's BLAS is limited to one
thread too (``OPENBLAS_NUM_THREADS=1`` etc., set before NumPy is imported unless already
set): PyTorch runs on one thread, and OpenBLAS's threads on a busy 2-core machine made a
128×784×256 matmul 10× slower.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from tenferro import CpuEngine, EagerRuntime, benchmark  # noqa: E402


def mlp(rt: EagerRuntime, batch: int = 128, sizes: tuple = (784, 256, 10)) -> tuple:
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((batch, sizes[0]))
    labels = rng.integers(0, sizes[2], batch)
    w1_0 = rng.standard_normal(sizes[:2]) / np.sqrt(sizes[0])
    w2_0 = rng.standard_normal(sizes[1:]) / np.sqrt(sizes[1])
    b1_0, b2_0 = np.zeros(sizes[1]), np.zeros(sizes[2])
    x, idx = rt.constant_from(x0), rt.constant_from(labels[:, None])
    params = [rt.variable_from(p) for p in (w1_0, b1_0, w2_0, b2_0)]

    def loss(s):
        w1, b1, w2, b2 = params
        h = s.tanh(s.add(s.matmul(x, w1), b1))
        logp = s.log_softmax(s.add(s.matmul(h, w2), b2), 1)
        return s.mul(s.reduce_sum(s.take_along_axis(logp, idx, 1), None), -1.0 / batch)

    def ours() -> None:
        for p in params:
            p.clear_grad()
        rt.with_eager_session(loss).backward()

    xt, lt = torch.tensor(x0), torch.tensor(labels)
    tparams = [torch.tensor(p, requires_grad=True) for p in (w1_0, b1_0, w2_0, b2_0)]

    def theirs() -> None:
        w1, b1, w2, b2 = tparams
        for p in tparams:
            p.grad = None
        F.cross_entropy(torch.tanh(xt @ w1 + b1) @ w2 + b2, lt).backward()

    return ours, theirs


def _chain_arrays(shape: tuple = (200, 300, 400, 250)) -> list:
    rng = np.random.default_rng(1)
    i, j, k, m = shape
    return [rng.standard_normal(s) for s in ((i, j), (j, k), (k, m))]


def einsum3(rt: EagerRuntime) -> tuple:
    arrays = _chain_arrays()
    ops = [rt.variable_from(a) for a in arrays]
    weights = rt.constant_from(np.random.default_rng(2).standard_normal((arrays[0].shape[0], arrays[2].shape[1])))

    def ours() -> None:
        for t in ops:
            t.clear_grad()
        rt.with_eager_session(
            lambda s: s.vecdot(s.reshape(s.einsum(ops, "ij,jk,kl->il"), (-1,)), s.reshape(weights, (-1,)))
        ).backward()

    tops = [torch.tensor(a, requires_grad=True) for a in arrays]
    tw = torch.tensor(np.asarray(weights))

    def theirs() -> None:
        for t in tops:
            t.grad = None
        (torch.einsum("ij,jk,kl->il", *tops) * tw).sum().backward()

    return ours, theirs


def einsum3_numpy(rt: EagerRuntime) -> tuple:
    ours, _ = einsum3(rt)
    arrays = _chain_arrays()

    def numpy_x3() -> None:
        for _ in range(3):
            np.einsum("ij,jk,kl->il", *arrays, optimize=True)

    return ours, numpy_x3


WORKLOADS = {
    "MLP step 128x784-256-10, value+grad vs torch": (mlp, 1.1),
    "einsum ij,jk,kl->il fwd+bwd vs torch.einsum": (einsum3, 1.1),
    "einsum ij,jk,kl->il fwd+bwd vs numpy fwd x3": (einsum3_numpy, 1.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile tenferro's side of each workload")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rt = EagerRuntime(engine=CpuEngine.serial())
    print(f"{'workload':<48}{'tenferro ms':>12}{'other ms':>10}{'ratio':>8}  target")
    for name, (make, target) in WORKLOADS.items():
        ours, theirs = make(rt)
        ours_blocks, theirs_blocks = benchmark.alternate([ours, theirs])
        ratio = benchmark.spread([a / b for a, b in zip(ours_blocks, theirs_blocks)])
        ms = [benchmark.spread(blocks)["median"] * 1e3 for blocks in (ours_blocks, theirs_blocks)]
        print(
            f"{name:<48}{ms[0]:>12.3f}{ms[1]:>10.3f}{ratio['median']:>8.2f}  <= {target} "
            f"[{ratio['q1']:.2f}, {ratio['q3']:.2f}]"
        )
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(lambda fn=ours: [fn() for _ in range(20)])
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
