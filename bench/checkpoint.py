"""What ``tf.checkpoint`` saves and costs: ``python bench/checkpoint.py [--layers 32] [--width 1024] [--batch 64]``.

The gradient (``tf.grad``, with respect to every weight and bias) of the loss Σ h² of a
tanh MLP, ``h ← tanh(h @ W + b)`` per layer, unchecked and with a checkpoint around each
layer and around each block of k layers (``tf.checkpoint`` of the block's function, its
weights passed as arguments), and with ``policy=tf.checkpoint_policies.dots_saveable``
(``--blocks 4:dots``: the products kept, the tanh computed again). Issue 26's targets: peak
memory ≤ 0.35× and time ≤ 1.5× the unchecked gradient's.

- **Peak memory**, with tracemalloc, of one gradient call (parameters and input made
  before, as tenferro constants, so the call copies none): the total, and the total less
  the gradients it returns (which every variant holds alike: 8 MB per 1024 × 1024 weight),
  the working memory that checkpointing can change. Checked bitwise against the unchecked
  gradient.
- **CPU time** (``time.process_time``), the median of ``--repeats`` runs taken in turn
  (unchecked, then each variant, and again), and the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp


def layer(h: Any, w: Any, b: Any) -> Any:
    return tnp.tanh(h @ w + b)


def run_layers(h: Any, params: list[tuple[Any, Any]]) -> Any:
    for w, b in params:
        h = layer(h, w, b)
    return h


#: The policies a variant may name (``--blocks 4:dots``).
POLICIES = {"": None, "dots": tf.checkpoint_policies.dots_saveable}


def runner(blocks: tuple[int, ...], policy: str = "") -> Callable[..., Any]:
    """The layers run with a checkpoint around each ``blocks[0]`` layers, inside each of
    them one around each ``blocks[1]`` layers, and so on (``()``: no checkpoint), each with
    the policy named ``policy``."""
    if not blocks:
        return run_layers
    inner = tf.checkpoint(runner(blocks[1:], policy), policy=POLICIES[policy])

    def run(h: Any, params: list[tuple[Any, Any]]) -> Any:
        for start in range(0, len(params), blocks[0]):
            h = inner(h, params[start : start + blocks[0]])
        return h

    return run


def loss_of(variant: tuple[tuple[int, ...], str]) -> Callable[..., Any]:
    run = runner(*variant)
    return lambda params, x: tnp.sum(run(x, params) ** 2)


def data(layers: int, width: int, batch: int) -> tuple[list[tuple[Any, Any]], Any]:
    rng = np.random.default_rng(0)
    params = [
        (
            tf.constant(rng.standard_normal((width, width)) / np.sqrt(width)),
            tf.constant(0.1 * rng.standard_normal(width)),
        )
        for _ in range(layers)
    ]
    return params, tf.constant(rng.standard_normal((batch, width)))


def traced(work: Callable[[], Any]) -> tuple[int, int, Any]:
    """Traced bytes still held after one call of ``work``, the peak during it, and what it
    returned (tracemalloc counts what the call allocates only)."""
    gc.collect()
    tracemalloc.start()
    try:
        got = work()
        now, top = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return now, top, got


def _leaves(tree: Any) -> list[Any]:
    import optree  # noqa: PLC0415 - tenferro's pytree library

    return optree.tree_leaves(tree)


def _variants(spec: str) -> dict[str, tuple[tuple[int, ...], str]]:
    variants: dict[str, tuple[tuple[int, ...], str]] = {"unchecked": ((), "")}
    for item in spec.split(","):
        sizes, _, policy = item.partition(":")
        blocks = tuple(map(int, sizes.split("/")))
        name = " in ".join("each layer" if k == 1 else f"each {k} layers" for k in reversed(blocks))
        variants[name + (f", {policy} kept" if policy else "")] = (blocks, policy)
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument(
        "--blocks",
        default="1,2,4,8,8/2,1:dots,4:dots",
        help="checkpointed block sizes, comma-separated; 8/2: 2 inside 8; 4:dots: with dots_saveable",
    )
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    params, x = data(args.layers, args.width, args.batch)
    weights = [w for w, _ in params]
    variants = _variants(args.blocks)
    print(
        f"gradient of a {args.layers}-layer, width-{args.width} tanh MLP, batch {args.batch}, float64 "
        f"(NumPy {np.__version__})\n"
    )
    rows: dict[str, list[float]] = {}
    reference: list[Any] = []
    for name, variant in variants.items():
        loss = loss_of(variant)
        # what the forward pass keeps for the backward one: tf.variable parameters, loss computed
        variables = [(tf.variable(w), tf.variable(b)) for w, b in params]
        kept, _, out = traced(lambda loss=loss, variables=variables: loss(variables, x))
        del out, variables
        # tf.grad with respect to every weight and bias: the gradients are 8 MB a weight
        _, full, got = traced(lambda loss=loss: tf.grad(loss)(params, x))
        # with respect to the input and the biases (the weights constants): activations dominate
        _, partial, _ = traced(
            lambda loss=loss: tf.grad(lambda x, bs: loss(list(zip(weights, bs)), x), argnums=(0, 1))(
                x, [b for _, b in params]
            )
        )
        if reference:
            for a, b in zip(_leaves(got), reference):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))  # bitwise the unchecked numbers
        else:
            reference = _leaves(got)
        rows[name] = [kept, full, partial]
        del got
    grads = {name: tf.grad(loss_of(variant)) for name, variant in variants.items()}
    times: dict[str, list[float]] = {name: [] for name in grads}
    for _ in range(args.repeats):  # interleaved: one call of each, in turn
        for name, g in grads.items():
            gc.collect()
            start = time.process_time()
            g(params, x)
            times[name].append(time.process_time() - start)
    base = rows["unchecked"]
    header = ["kept by fwd MB", "peak, all MB", "peak, x & b MB", "CPU s"]
    print(f"{'':32}" + "".join(f"{h:>16} {'ratio':>6}" for h in header))
    for name, row in rows.items():
        cells = [(v / 2**20, v / u) for v, u in zip(row, base)]
        ratio = statistics.median(t / u for t, u in zip(times[name], times["unchecked"]))
        cells.append((statistics.median(times[name]), ratio))
        print(f"{name:32}" + "".join(f"{v:16.2f} {r:6.2f}" for v, r in cells))
    print(
        "\nkept by fwd: traced bytes held after the loss is computed from tf.variable parameters (the trace);"
        "\npeak, all: tf.grad with respect to every weight and bias (its gradients alone are "
        f"{sum(np.asarray(g).nbytes for g in reference) / 2**20:.0f} MB);"
        "\npeak, x & b: tf.grad with respect to the input and the biases, the weights constants;"
        f"\nCPU s: median of {args.repeats} interleaved runs of the full tf.grad, ratio the median of per-round"
        " ratios; every variant's gradients are bitwise the unchecked ones."
    )


if __name__ == "__main__":
    main()
