"""Complex numbers against PyTorch: ``python bench/complex.py [--n N] [--profile]``.

Workload (issue 11, Performance): the complex seed gradient, Σ|sin(z)·z²|² for a complex128
z of N = 10⁶ elements, forward + backward, timed with :func:`tenferro.benchmark.alternate`
(alternating blocks, median ratio) against the same expression in PyTorch on one thread.
Both sides write |w|² as ``abs(w)`` squared, the way the issue states the loss. Target:
≤ 1.2× PyTorch. ``--profile`` prints where tenferro's time goes (cProfile).
"""

import argparse
import cProfile
import os
import pstats

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tenferro import CpuEngine, EagerRuntime, benchmark  # noqa: E402


def complex_seed(rt: EagerRuntime, n: int) -> tuple:
    rng = np.random.default_rng(0)
    values = rng.uniform(-1.0, 1.0, n) + 1j * rng.uniform(-1.0, 1.0, n)
    z = rt.variable_from(values)

    def ours() -> None:
        z.clear_grad()
        rt.with_eager_session(lambda s: s.reduce_sum(s.square(s.abs(s.mul(s.sin(z), s.mul(z, z)))), None)).backward()

    zt = torch.tensor(values, requires_grad=True)

    def theirs() -> None:
        zt.grad = None
        (torch.sin(zt) * zt * zt).abs().square().sum().backward()

    def check() -> None:
        ours()
        theirs()
        np.testing.assert_allclose(z.grad().to_numpy(), zt.grad.numpy(), rtol=1e-10, atol=1e-12)

    return ours, theirs, check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**6, help="elements of z (default 10^6)")
    parser.add_argument("--profile", action="store_true", help="cProfile tenferro's side")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rt = EagerRuntime(engine=CpuEngine.serial())
    ours, theirs, check = complex_seed(rt, args.n)
    check()  # the same gradient on both sides before anything is timed
    ours_blocks, theirs_blocks = benchmark.alternate([ours, theirs])
    ratio = benchmark.spread([a / b for a, b in zip(ours_blocks, theirs_blocks)])
    ms = [benchmark.spread(blocks)["median"] * 1e3 for blocks in (ours_blocks, theirs_blocks)]
    name = f"complex seed grad N={args.n:.0e}"
    print(f"{'workload':<34}{'tenferro ms':>12}{'torch ms':>10}{'ratio':>8}  (target <= 1.2)")
    print(f"{name:<34}{ms[0]:>12.3f}{ms[1]:>10.3f}{ratio['median']:>8.2f}  [{ratio['q1']:.2f}, {ratio['q3']:.2f}]")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [ours() for _ in range(10)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
