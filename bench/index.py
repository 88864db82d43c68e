"""Index ops on 10⁶ elements against PyTorch (1 thread): ``python bench/index.py [--quick]``.

The issue's workload (issue 9, Performance: slicing + gather + scatter-add on 10⁶
elements, forward + backward, ≤ 1.2× PyTorch), as three rows, each a loss sum(w · ...)
and its backward:

- **gather**: ``take(x, i)`` of a float64 vector of 10⁶ at 10⁶ random indices (with
  repeats); its backward is a scatter-add. PyTorch: ``index_select`` and ``gather``
  (the same numbers; both are timed, the faster one is the ratio's denominator).
- **scatter-add**: ``scatter(x, i, u, mode="add")``; its backward is a gather for u and
  the cotangent itself for x. PyTorch: ``scatter_add`` (``index_add`` timed too).
- **combined** (the issue's row): ``x[1::2]`` of a vector of 10⁶ (``slice``, a view), 10⁶
  random reads of it (``take``), scatter-added into a second variable of 10⁶ at 10⁶
  random positions (``scatter(..., mode="add")``); the backward runs the three VJPs:
  a gather, a scatter-add into the slice's 5·10⁵ and the slice's zero-filled scatter.
  PyTorch: basic slicing, then ``index_select`` + ``index_add`` or ``gather`` +
  ``scatter_add``.

Each ratio is tenferro's time over PyTorch's, timed in alternating blocks
(``tenferro.benchmark.alternate``): the median of neighbouring blocks' ratios with its
quartiles. The machine is shared and noisy: read the ratio with its quartiles.
"""

import argparse
import statistics
import sys

import numpy as np

from tenferro import CpuEngine, EagerRuntime, benchmark

N = 10**6


def data(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal(n), rng.integers(0, n, n), rng.standard_normal(n), rng.standard_normal(n)


def combined_data(n: int) -> np.ndarray:
    """The combined row's second index vector: n reads of x[1::2] (n // 2 elements)."""
    return np.random.default_rng(1).integers(0, n // 2, n)


def tenferro_impls(n: int) -> dict:
    rt, eng = EagerRuntime(), CpuEngine.serial()
    xs, idx, us, ws = data(n)
    x, u = rt.variable_from(xs), rt.variable_from(us)
    i, w, at = rt.constant_from(idx), rt.constant_from(ws), rt.constant_from(idx[:, None])

    def gather():
        x.clear_grad()
        loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(s.take(x, i), w), None))
        loss.backward(eng)
        return x.grad()

    def scatter_add():
        x.clear_grad()
        u.clear_grad()
        loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(s.scatter(x, at, u, mode="add"), w), None))
        loss.backward(eng)
        return x.grad(), u.grad()

    j = rt.constant_from(combined_data(n))

    def combined():
        x.clear_grad()
        u.clear_grad()

        def body(s):
            picked = s.take(s.slice(x, ((1, None, 2),)), j)  # x[1::2][j]
            return s.reduce_sum(s.mul(s.scatter(u, at, picked, mode="add"), w), None)

        rt.with_eager_session(eng, body).backward(eng)
        return x.grad(), u.grad()

    return {"gather": gather, "scatter-add": scatter_add, "combined": combined}


def torch_impls(n: int) -> dict:
    import torch

    torch.set_num_threads(1)
    xs, idx, us, ws = (torch.from_numpy(a) for a in data(n))
    x, u = xs.clone().requires_grad_(), us.clone().requires_grad_()

    def index_select():
        x.grad = None
        (torch.index_select(x, 0, idx) * ws).sum().backward()
        return x.grad

    def gather():
        x.grad = None
        (torch.gather(x, 0, idx) * ws).sum().backward()
        return x.grad

    def scatter_add():
        x.grad = u.grad = None
        (x.scatter_add(0, idx, u) * ws).sum().backward()
        return x.grad, u.grad

    def index_add():
        x.grad = u.grad = None
        (x.index_add(0, idx, u) * ws).sum().backward()
        return x.grad, u.grad

    j = torch.from_numpy(combined_data(n))

    def combined_index():
        x.grad = u.grad = None
        (u.index_add(0, idx, torch.index_select(x[1::2], 0, j)) * ws).sum().backward()
        return x.grad, u.grad

    def combined_scatter():
        x.grad = u.grad = None
        (u.scatter_add(0, idx, torch.gather(x[1::2], 0, j)) * ws).sum().backward()
        return x.grad, u.grad

    return {
        "gather": {"index_select": index_select, "gather": gather},
        "scatter-add": {"scatter_add": scatter_add, "index_add": index_add},
        "combined": {"index_select+index_add": combined_index, "gather+scatter_add": combined_scatter},
    }


def check_same_numbers(n: int) -> None:
    """The two sides compute the same gradients (else the ratio means nothing)."""
    ours, theirs = tenferro_impls(n), torch_impls(n)
    np.testing.assert_allclose(np.asarray(ours["gather"]()), theirs["gather"]["index_select"]().numpy(), rtol=1e-12)
    for row, name in [("scatter-add", "scatter_add"), ("combined", "index_select+index_add")]:
        for a, b in zip(ours[row](), theirs[row][name]()):
            np.testing.assert_allclose(np.asarray(a), b.numpy(), rtol=1e-12)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few short blocks (a smoke test, not a measurement)")
    args = parser.parse_args(argv)
    blocks, seconds = (3, 0.02) if args.quick else (benchmark.BLOCKS, max(benchmark.BLOCK_S, 0.3))
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: nothing to compare with")
        return 0
    check_same_numbers(10**4)
    ours, theirs = tenferro_impls(N), torch_impls(N)
    print(f"index ops, N = {N}, forward + backward; ratio = tenferro / PyTorch (1 thread), median [q1, q3]")
    for row, fn in ours.items():
        names = list(theirs[row])
        means = benchmark.alternate([fn, *theirs[row].values()], blocks, seconds)
        best = min(range(len(names)), key=lambda k: statistics.median(means[k + 1]))
        ratios = benchmark.spread([a / b for a, b in zip(means[0], means[best + 1])])
        times = ", ".join(f"torch.{name} {statistics.median(m) * 1e3:.2f} ms" for name, m in zip(names, means[1:]))
        print(
            f"  {row:<12} tenferro {statistics.median(means[0]) * 1e3:.2f} ms, {times}: "
            f"{ratios['median']:.2f}x [{ratios['q1']:.2f}, {ratios['q3']:.2f}] vs torch.{names[best]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
