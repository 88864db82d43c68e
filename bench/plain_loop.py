"""Check the harness against a plain loop: ``python bench/plain_loop.py [--calls K]``.

Times PyTorch's and tenferro's seed gradient at N = 1000 in a plain ``for _ in range(k)``
loop with ``time.perf_counter`` (the two libraries one after the other, a few times over,
garbage collector on) and with the harness of ``tenferro bench``
(:func:`tenferro.benchmark.alternate`), and prints both. They should agree within a few
percent; the exit status is 1 if a time or the ratio differs by more than TOLERANCE.
"""

import argparse
import statistics
import sys
import time

from tenferro import benchmark

TOLERANCE = 0.05


def plain_loop(fn: benchmark.Impl, calls: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="calls per plain loop")
    parser.add_argument("--repeats", type=int, default=5, help="plain loops per library")
    args = parser.parse_args()
    fns = {lib: benchmark.LIBRARIES[lib](1000)["grad"] for lib in ("tenferro", "torch")}
    loops: dict[str, list[float]] = {lib: [] for lib in fns}
    for _ in range(args.repeats):
        for lib, fn in fns.items():
            loops[lib].append(plain_loop(fn, args.calls))
    blocks = dict(zip(fns, benchmark.alternate(list(fns.values()))))
    plain = {lib: statistics.median(times) for lib, times in loops.items()}
    harness = {lib: statistics.median(times) for lib, times in blocks.items()}
    plain["ratio"] = plain["tenferro"] / plain["torch"]
    harness["ratio"] = benchmark.spread([a / b for a, b in zip(blocks["tenferro"], blocks["torch"])])["median"]
    print(f"seed grad, N=1e3: plain loop = median of {args.repeats} loops of {args.calls} calls; harness = ", end="")
    print(f"median of {benchmark.BLOCKS} alternating blocks of >= {benchmark.BLOCK_S} s")
    print(f"{'':<16}{'plain loop':>12}{'harness':>12}{'difference':>12}")
    worst = 0.0
    for key, label, scale, digits in (
        ("tenferro", "tenferro (µs)", 1e6, 1),
        ("torch", "torch (µs)", 1e6, 1),
        ("ratio", "tenferro/torch", 1, 3),
    ):
        difference = harness[key] / plain[key] - 1
        worst = max(worst, abs(difference))
        cells = "".join(f"{value * scale:>12.{digits}f}" for value in (plain[key], harness[key]))
        print(f"{label:<16}{cells}{difference:>+12.1%}")
    print(f"agree within {TOLERANCE:.0%}: {'yes' if worst <= TOLERANCE else 'NO'}")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
