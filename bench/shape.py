"""Shape ops on 10⁶ elements: ``python bench/shape.py [--quick]``.

The issue's workload (issue 9, Performance): a chain of view ops — reshape, slice,
permute_dims, expand_dims, squeeze — on 10⁶ float64 elements, then a sum, forward and
backward.

1. **Peak memory** (tracemalloc, which sees NumPy's buffers) of the forward pass and of
   forward + backward, in units of the input's size (8 MB), beside what the same chain
   costs when every op copies (the counterfactual: one buffer per op). The forward makes
   no copy at all; the backward makes one array of the input's size: the zero-filled
   scatter of the slice's VJP, which is the gradient itself. Every other VJP in the chain
   is a view again. (The core then copies a view that reaches a variable: see the output.)
2. **Time** of forward + backward against PyTorch (1 thread) with the same chain,
   alternating blocks (``tenferro.benchmark.alternate``), as the median ratio.

The machine is shared and noisy: read the ratio with its quartiles.
"""

import argparse
import statistics
import sys

import numpy as np

from tenferro import CpuEngine, EagerRuntime, benchmark

N = 10**6
SIDE = 1000


def tenferro_chain(n: int, flat: bool = True):
    """The chain on a variable of n elements, flat (the chain starts with a reshape) or
    already square (it does not)."""
    rt, eng = EagerRuntime(), CpuEngine.serial()
    side = int(round(n**0.5))
    x = rt.variable_from(np.random.default_rng(0).standard_normal(side * side).reshape((-1,) if flat else (side, side)))

    def body(s):
        y = s.reshape(x, (side, side)) if flat else x
        y = s.slice(y, (slice(1, -1), slice(None, None, 2)))
        y = s.permute_dims(y, (1, 0))
        y = s.squeeze(s.expand_dims(y, 0), 0)
        return y, s.reduce_sum(y, None)

    def forward():
        with rt.no_grad():
            return rt.with_eager_session(eng, body)

    def forward_backward():
        x.clear_grad()
        _, loss = rt.with_eager_session(eng, body)
        loss.backward(eng)
        return x.grad()

    def copying():  # the same chain if every op copied (NumPy, one buffer per op)
        v = np.asarray(x).reshape(side, side).copy()
        v = v[1:-1, ::2].copy()
        v = v.transpose(1, 0).copy()
        v = np.expand_dims(v, 0).copy()
        return np.squeeze(v, 0).copy().sum()

    return x, body, forward, forward_backward, copying, rt, eng


def torch_chain(n: int, flat: bool = True):
    import torch

    torch.set_num_threads(1)
    side = int(round(n**0.5))
    xs = np.random.default_rng(0).standard_normal(side * side).reshape((-1,) if flat else (side, side))
    x = torch.tensor(xs, requires_grad=True)

    def forward_backward():
        x.grad = None
        y = x.reshape(side, side)[1:-1, ::2].permute(1, 0).unsqueeze(0).squeeze(0)
        y.sum().backward()
        return x.grad

    return forward_backward


def check_views(rt, eng, x, body) -> None:
    """Every op of the chain returns a view of x (shares its memory)."""
    y, _ = rt.with_eager_session(eng, body)
    assert np.shares_memory(np.asarray(y), np.asarray(x)), "the chain copied"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10⁴ elements and short blocks (a smoke run)")
    args = parser.parse_args()
    n = 10**4 if args.quick else N
    blocks, seconds = (3, 0.02) if args.quick else (benchmark.BLOCKS, benchmark.BLOCK_S)
    x, body, forward, forward_backward, copying, rt, eng = tenferro_chain(n)
    check_views(rt, eng, x, body)
    unit = n * 8
    print(f"chain reshape → slice → permute_dims → expand_dims → squeeze → sum on {n:,} float64 ({unit / 1e6:.0f} MB)")
    print("peak memory above what exists before the call, in units of the input's size:")
    rows = [
        ("tenferro forward (5 view ops)", benchmark.peak_bytes(forward)),
        ("tenferro forward + backward", benchmark.peak_bytes(forward_backward)),
        ("NumPy, every op copying (forward only)", benchmark.peak_bytes(copying)),
        ("tenferro fwd + bwd, x already square", benchmark.peak_bytes(tenferro_chain(n, flat=False)[3])),
    ]
    for label, peak in rows:
        print(f"  {label:<42} {peak / unit:6.3f} × ({peak / 1e6:7.3f} MB)")
    print(
        "  (backward: 1× is the slice's zero-filled scatter, the gradient itself; every other VJP is a view.\n"
        "   When x is flat, the gradient reaching x is a reshape view of that scatter, and the core's reverse\n"
        "   sweep gives a variable a fresh copy of any view (sweep._fresh: one copy in backward), +1×;\n"
        "   with x already square no view reaches x and the backward costs the scatter alone.)"
    )
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: no time ratio")
        return 0
    print("forward + backward time (median of alternating blocks, torch 1 thread):")
    for flat, label in [(True, "x flat (chain starts with reshape)"), (False, "x already square")]:
        ours, theirs = tenferro_chain(n, flat)[3], torch_chain(n, flat)
        np.testing.assert_allclose(np.asarray(ours()), theirs().numpy())
        tf_blocks, torch_blocks = benchmark.alternate([ours, theirs], blocks, seconds)
        q = benchmark.spread([a / b for a, b in zip(tf_blocks, torch_blocks)])
        print(
            f"  {label:<36} tenferro {statistics.median(tf_blocks) * 1e3:7.3f} ms, torch "
            f"{statistics.median(torch_blocks) * 1e3:7.3f} ms: ratio {q['median']:.3f} "
            f"(quartiles {q['q1']:.3f}–{q['q3']:.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
