"""slogdet + solve of a 500×500 SPD matrix, value and gradient: ``python bench/linalg.py [--quick]``.

The issue's workload (issue 10, Performance; target ≤ 1.2× PyTorch, 1 thread): with A a
500×500 symmetric positive definite variable and b a vector variable,

    loss = logabsdet(A) + sum(solve(A, b))

and its gradient in A and b, against the same in PyTorch (``torch.linalg.slogdet``,
``torch.linalg.solve``), alternating blocks (``tenferro.benchmark.alternate``), as the
median ratio with its quartiles. BLAS runs on one thread on both sides (OPENBLAS_NUM_THREADS
and OMP_NUM_THREADS are set to 1 before NumPy loads; ``torch.set_num_threads(1)``).

The flop count is the LAPACK work: PyTorch factorises A twice in the forward pass (one LU
for slogdet, one for solve) and in the backward solves against diag(g) with slogdet's LU
(2n³) and against g with solve's. tenferro's LU cache (``tenferro/plugins/linalg/solve_lu.py``)
factorises A once for both ops and their VJPs; the second row times tenferro with the cache
off (every op and VJP factorises again), to show what it buys.

The machine is shared and noisy: read the ratio with its quartiles.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

from tenferro import CpuEngine, EagerRuntime, benchmark  # noqa: E402
from tenferro.plugins.linalg import solve_lu  # noqa: E402

N = 500


def problem(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = (q * rng.uniform(1.0, 3.0, n)) @ q.T
    return (a + a.T) / 2, rng.standard_normal(n)


def tenferro_step(n: int):
    rt, eng = EagerRuntime(), CpuEngine.serial()
    a_value, b_value = problem(n)
    a, b = rt.variable_from(a_value), rt.variable_from(b_value)

    def body(s):
        _, logabsdet = s.slogdet(a)
        return s.add(logabsdet, s.reduce_sum(s.solve(a, b), None))

    def step():
        loss = rt.with_eager_session(eng, body)
        return rt.grad(loss, [a, b], engine=eng)

    return step


def torch_step(n: int):
    import torch

    torch.set_num_threads(1)
    a_value, b_value = problem(n)
    a = torch.tensor(a_value, requires_grad=True)
    b = torch.tensor(b_value, requires_grad=True)

    def step():
        loss = torch.linalg.slogdet(a)[1] + torch.linalg.solve(a, b).sum()
        return torch.autograd.grad(loss, [a, b])

    return step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 100×100 matrix and short blocks (a smoke run)")
    args = parser.parse_args()
    n = 100 if args.quick else N
    blocks, seconds = (3, 0.05) if args.quick else (benchmark.BLOCKS, benchmark.BLOCK_S)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: no time ratio")
        return 0
    ours, theirs = tenferro_step(n), torch_step(n)
    for got, want in zip(ours(), theirs()):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-8, atol=1e-10)
    print(f"logabsdet(A) + sum(solve(A, b)), value and gradient, A {n}×{n} SPD (torch 1 thread, BLAS 1 thread):")
    fast_size = solve_lu.FAST_SIZE
    for label in ("tenferro (LU shared)", "tenferro, LU cache off"):
        if "off" in label:
            solve_lu.FAST_SIZE = 10**9  # every single matrix takes np.linalg: no factorisation kept
        try:
            tf_blocks, torch_blocks = benchmark.alternate([ours, theirs], blocks, seconds)
        finally:
            solve_lu.FAST_SIZE = fast_size
        q = benchmark.spread([x / y for x, y in zip(tf_blocks, torch_blocks)])
        print(
            f"  {label:<24} {statistics.median(tf_blocks) * 1e3:7.2f} ms, torch "
            f"{statistics.median(torch_blocks) * 1e3:7.2f} ms: ratio {q['median']:.3f} "
            f"(quartiles {q['q1']:.3f}–{q['q3']:.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
