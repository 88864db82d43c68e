"""slogdet + solve, value and gradient: ``python bench/linalg.py [--quick | --small]``.

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

``--small`` is issue 23's case instead: the same loss of a 20×20 matrix against HIPS
autograd (skipped cleanly without it), with BLAS's default threads, first on the cores as
they are, then with one busy process per core started here (what a loaded machine does to
threaded BLAS). Blocks alternate as above; each reports wall and CPU time (this process,
all its threads: BLAS threads spinning count). The rows: tenferro as it is (a 20×20 matrix
takes np.linalg) and tenferro with the old FAST_SIZE 16 (SciPy's LAPACK and its own
OpenBLAS), each timed in a pair of its own with autograd (np.linalg): SciPy's threads go on
spinning after their calls and would slow whatever is timed next.
"""

import os
import sys

SMALL = "--small" in sys.argv  # BLAS's default threads: the case is what they do to small matrices
if not SMALL:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

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


def autograd_step(n: int):
    import autograd
    import autograd.numpy as anp

    a_value, b_value = problem(n)
    grad = autograd.grad(lambda a, b: anp.linalg.slogdet(a)[1] + anp.sum(anp.linalg.solve(a, b)), argnum=(0, 1))
    return lambda: grad(a_value, b_value)


def with_fast_size(step, size: int):
    """``step`` run with solve_lu.FAST_SIZE set to ``size`` (16: SciPy's LAPACK from 16×16 on, as before)."""

    def run():
        kept, solve_lu.FAST_SIZE = solve_lu.FAST_SIZE, size
        try:
            return step()
        finally:
            solve_lu.FAST_SIZE = kept

    return run


def _busy() -> None:
    while True:
        pass


def _timed_blocks(fns, blocks: int, seconds: float) -> list[list[tuple[float, float]]]:
    """(wall, CPU) per call of each function, block by block, alternating as benchmark.alternate does."""

    def block(fn):
        calls, wall, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < seconds:
            fn()
            calls += 1
        return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls

    for fn in fns:
        block(fn)
    out: list[list[tuple[float, float]]] = [[] for _ in fns]
    for round_ in range(blocks):
        for i in range(len(fns)) if round_ % 2 == 0 else reversed(range(len(fns))):
            out[i].append(block(fns[i]))
    return out


def small(blocks: int, seconds: float) -> int:
    try:
        import autograd  # noqa: F401
    except ImportError:
        print("HIPS autograd is not installed (pip install autograd): no --small ratio")
        return 0
    n = 20
    ours, theirs = tenferro_step(n), autograd_step(n)
    rows = [("tenferro", ours), ("tenferro, FAST_SIZE 16", with_fast_size(tenferro_step(n), 16))]
    for got, want in zip(ours(), theirs()):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    print(f"logabsdet(A) + sum(solve(A, b)), gradient, A {n}×{n} SPD, BLAS default threads, against autograd:")
    cores = os.cpu_count() or 1
    for busy in (0, cores):
        spinners = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(busy)]
        for p in spinners:
            p.start()
        try:  # each tenferro row in a pair of its own with autograd: SciPy's spinning threads outlive their calls
            pairs = [(label, _timed_blocks([step, theirs], blocks, seconds)) for label, step in rows]
        finally:
            for p in spinners:
                p.terminate()
        print(f"  {busy} busy processes on {cores} cores:")
        for label, (mine, other) in pairs:
            wall = benchmark.spread([x[0] / y[0] for x, y in zip(mine, other)])
            cpu = benchmark.spread([x[1] / y[1] for x, y in zip(mine, other)])
            us = [statistics.median(x[k] for x in side) * 1e6 for side in (mine, other) for k in (0, 1)]
            print(
                f"    {label:<24} {us[0]:7.0f} µs wall {us[1]:7.0f} µs CPU, autograd {us[2]:6.0f} µs wall "
                f"{us[3]:6.0f} µs CPU: ratio wall {wall['median']:.2f} ({wall['q1']:.2f}–{wall['q3']:.2f}), "
                f"CPU {cpu['median']:.2f} ({cpu['q1']:.2f}–{cpu['q3']:.2f})"
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 100×100 matrix and short blocks (a smoke run)")
    parser.add_argument("--small", action="store_true", help="issue 23's 20×20 case against autograd, busy cores")
    args = parser.parse_args()
    if args.small:
        return small(*((3, 0.05) if args.quick else (benchmark.BLOCKS, benchmark.BLOCK_S)))
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
