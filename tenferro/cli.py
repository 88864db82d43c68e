"""The ``tenferro`` command: ``tour`` (the seed page, run), ``ops`` (what is registered) and
``bench`` (timings beside NumPy, PyTorch, JAX and HIPS autograd)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _tour(args: argparse.Namespace) -> int:
    from . import tour

    ours = tour.run()
    if args.compare:
        from . import tour_compare

        tour_compare.run(ours)
    return 0


def _ops(args: argparse.Namespace) -> int:
    from .core.registry import default_registry

    registry = default_registry()
    specs = sorted(registry, key=lambda spec: (spec.plugin, spec.name))
    width = max(len(spec.signature) for spec in specs)
    for spec in specs:
        print(f"{spec.plugin:<12} {spec.signature:<{width}}  {spec.summary}")
    print(f"{len(specs)} ops from {len(registry.plugins)} plugins")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from . import benchmark

    libraries = [name.strip() for name in args.libraries.split(",")] if args.libraries else None
    return benchmark.main(quick=args.quick, json_path=args.json, only=args.only, libraries=libraries)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tenferro", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    tour = commands.add_parser("tour", help="run the seed page end to end and print its numbers")
    tour.add_argument("--compare", action="store_true", help="also run PyTorch and JAX where installed")
    tour.set_defaults(run=_tour)
    ops = commands.add_parser("ops", help="list every registered op with its plugin and signature")
    ops.set_defaults(run=_ops)
    bench = commands.add_parser("bench", help="time tenferro beside NumPy, PyTorch, JAX and HIPS autograd")
    bench.add_argument("--quick", action="store_true", help="tiny sizes and few repeats (a smoke test)")
    bench.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    bench.add_argument("--only", default="", metavar="TEXT", help="only the workloads whose title contains TEXT")
    bench.add_argument("--libraries", metavar="A,B", help="compare only these (default: every importable one)")
    bench.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
