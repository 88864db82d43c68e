"""The nn family against PyTorch: ``python bench/nn.py [--profile]``.

Workloads (issue 9, Performance): softmax cross-entropy over a (512, 1000) batch and
layer_norm over (256, 1024), each forward + backward, timed with
:func:`tenferro.benchmark.alternate` (alternating blocks, median ratio) against
``F.cross_entropy`` and ``F.layer_norm`` on one thread. The cross-entropy picks each row's
label with the index family's ``take_along_axis`` (``-mean(take_along_axis(log_softmax(z),
labels[:, None]))``). ``--profile`` prints where tenferro's time goes (cProfile).
"""

import argparse
import cProfile
import pstats

import numpy as np
import torch
import torch.nn.functional as F

from tenferro import CpuEngine, EagerRuntime, benchmark


def cross_entropy(rt: EagerRuntime, rows: int = 512, classes: int = 1000) -> tuple:
    rng = np.random.default_rng(0)
    logits, labels = rng.standard_normal((rows, classes)), rng.integers(0, classes, rows)
    picks = rt.constant_from(labels[:, None])
    z = rt.variable_from(logits)

    def ours() -> None:
        z.clear_grad()
        loss = rt.with_eager_session(
            lambda s: s.neg(s.reduce_mean(s.take_along_axis(s.log_softmax(z, 1), picks, 1), None))
        )
        loss.backward()

    zt, lt = torch.tensor(logits, requires_grad=True), torch.tensor(labels)

    def theirs() -> None:
        zt.grad = None
        F.cross_entropy(zt, lt).backward()

    return ours, theirs


def layer_norm(rt: EagerRuntime, rows: int = 256, width: int = 1024) -> tuple:
    rng = np.random.default_rng(1)
    values, w0, b0 = rng.standard_normal((rows, width)), rng.standard_normal(width), rng.standard_normal(width)
    x, w, b = rt.variable_from(values), rt.variable_from(w0), rt.variable_from(b0)
    c = rt.constant_from(rng.standard_normal((rows, width)))

    def ours() -> None:
        for t in (x, w, b):
            t.clear_grad()
        rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.layer_norm(x, w, b, (width,)), c), None)).backward()

    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (values, w0, b0))
    ct = torch.tensor(np.asarray(c))

    def theirs() -> None:
        for t in (xt, wt, bt):
            t.grad = None
        (F.layer_norm(xt, (width,), wt, bt) * ct).sum().backward()

    return ours, theirs


WORKLOADS = {
    "softmax cross-entropy (512, 1000), fwd+bwd": cross_entropy,
    "layer_norm (256, 1024), fwd+bwd": layer_norm,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile tenferro's side of each workload")
    parser.add_argument("--only", default="", help="run only the workloads whose name contains this text")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rt = EagerRuntime(engine=CpuEngine.serial())
    print(f"{'workload':<46}{'tenferro ms':>12}{'torch ms':>10}{'ratio':>8}  (target <= 1.2)")
    for name, make in WORKLOADS.items():
        if args.only not in name:
            continue
        ours, theirs = make(rt)
        ours_blocks, theirs_blocks = benchmark.alternate([ours, theirs])
        ratio = benchmark.spread([a / b for a, b in zip(ours_blocks, theirs_blocks)])
        ms = [benchmark.spread(blocks)["median"] * 1e3 for blocks in (ours_blocks, theirs_blocks)]
        print(f"{name:<46}{ms[0]:>12.3f}{ms[1]:>10.3f}{ratio['median']:>8.2f}  [{ratio['q1']:.2f}, {ratio['q3']:.2f}]")
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(lambda fn=ours: [fn() for _ in range(50)])
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
