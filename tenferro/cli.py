"""The ``tenferro`` command: ``tour`` (the front end, then the seed page, run), ``ops`` and ``plugins`` (what is
registered), ``check`` (the conformance suite) and ``bench`` (timings beside NumPy,
PyTorch, JAX and HIPS autograd)."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import pathlib
import sys
import tempfile
import warnings
from collections.abc import Sequence

from .core.errors import PluginWarning
from .core.registry import Registry, short_name


def _tour(args: argparse.Namespace) -> int:
    from . import tour

    ours = tour.run()
    if args.compare:
        from . import tour_compare

        tour_compare.run(ours)
    return 0


def _registry() -> Registry:
    """The default registry, loaded fail-safe whatever TENFERRO_STRICT_PLUGINS says: these
    commands show what loaded and what did not, so a broken plugin is listed, not warned
    about with a source line (or raised with a traceback)."""
    from .core.loading import default_registry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)
        return default_registry(strict=False)


def _qualified_only(registry: Registry) -> dict[str, list[str]]:
    """Short name -> the qualified names of the ops that lost it to another plugin's op."""
    lost: dict[str, list[str]] = {}
    for spec in registry:
        if spec.name != short_name(spec):
            lost.setdefault(short_name(spec), []).append(spec.name)
    return lost


def _ops(args: argparse.Namespace) -> int:
    registry = _registry()
    specs = sorted(registry, key=lambda spec: (spec.plugin, spec.name))
    width = max(len(spec.signature) for spec in specs)
    lost = _qualified_only(registry)
    for spec in specs:
        short = short_name(spec)
        if spec.name != short:
            mark = f"(s.{short} is {registry[short].plugin}'s) "
        else:
            mark = f"(holds s.{short}; also {', '.join(lost[short])}) " if short in lost else ""
        mark += "(internal) " if spec.internal else ""
        mark += "(complex) " if any("c" in kinds for kinds in spec.accepts) else ""
        print(f"{spec.plugin:<12} {spec.signature:<{width}}  {mark}{spec.summary}")
        for kink in spec.kinks:  # the conventions the conformance suite checks
            print(f"{'':<12}   kink: {kink.describe(spec.name, [spec.input_name(i) for i in range(len(kink.args))])}")
    internal = sum(spec.internal for spec in specs)
    print(
        f"{len(specs)} ops from {len(registry.plugins)} plugins; {internal} (internal) exist for other ops' VJPs; "
        f"{sum(any('c' in kinds for kinds in spec.accepts) for spec in specs)} (complex) accept complex inputs"
        + _reached_only_by_qualified_name(sum(map(len, lost.values())))
    )
    for info in registry.broken.values():
        print(f"left out: {info.sentence} (`tenferro plugins` lists it)", file=sys.stderr)
    return 0


def _reached_only_by_qualified_name(count: int) -> str:
    if not count:
        return ""
    ops = (
        "1 op reached only by its qualified name"
        if count == 1
        else f"{count} ops reached only by their qualified names"
    )
    return f"; {ops}, another plugin holding the short name (s.op('plugin.op'))"


def _plugins(args: argparse.Namespace) -> int:
    from .core.loading import BLOCK_ENV, STRICT_ENV

    registry = _registry()
    for info in registry.plugins.values():
        requires = f" (requires {', '.join(info.requires)})" if info.requires else ""
        shipped = info.shipped or "(not installed: loaded directly)"
        print(f"{info.name:<14} {shipped:<22} {len(info.ops):>3} ops{requires}: {' '.join(info.ops)}")
    for short, names in _qualified_only(registry).items():
        others = ", ".join(f"{name.rpartition('.')[0]}'s is s.op({name!r})" for name in names)
        print(f"op {short!r}: s.{short} is {registry[short].plugin}'s; {others}")
    for info in registry.broken.values():
        print(f"{info.name:<14} {info.shipped or '(loaded directly)':<22} broken, left out: {info.problem}")
    blocked = os.environ.get(BLOCK_ENV, "")
    print(f"blocked by {BLOCK_ENV}: {blocked}" if blocked else f"(set {BLOCK_ENV}=name,... to skip plugins)")
    if registry.broken:
        names = ",".join(filter(None, [blocked, *registry.broken]))
        print(f"{len(registry.broken)} broken: {BLOCK_ENV}={names} skips them; {STRICT_ENV}=1 makes them errors")
    return 1 if registry.broken else 0


def _check(args: argparse.Namespace) -> int:
    try:
        import pytest
    except ImportError:
        print(
            "tenferro check needs pytest and hypothesis: pip install -e '.[test]' in a tenferro clone "
            "(or pip install '/path/to/tenferro[test]')",
            file=sys.stderr,
        )
        return 2
    ours = any(ep.value == "tenferro.testing.plugin" for ep in importlib.metadata.entry_points(group="pytest11"))
    with tempfile.TemporaryDirectory() as empty:
        # an empty rootdir: only the generated conformance items run, no project tests
        pathlib.Path(empty, "pytest.ini").write_text("[pytest]\n")
        argv = [empty, f"--tenferro-conformance={args.plugins}", "-p", "no:cacheprovider"]
        argv += ["-rsx", "--no-fold-skipped"]  # list each item not checked (or expected to fail), and why
        # tenferro is imported already (this command is tenferro), so pytest cannot rewrite it
        argv += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
        argv += [] if ours else ["-p", "tenferro.testing.plugin"]
        argv += [f"--tenferro-load={load}" for load in args.load]
        argv += [f"--tenferro-max-examples={args.max_examples}"] if args.max_examples else []
        argv += [f"--tenferro-profile={args.profile}"] if args.profile else []
        here = os.getcwd()
        if args.load:  # --load may name a module of the current directory: look there last,
            sys.path.append(here)  # so no file there can stand in for a pytest plugin pytest imports
        os.chdir(empty)  # test ids are reported relative to the working directory
        try:
            return int(pytest.main(argv + args.pytest_args))
        finally:
            os.chdir(here)
            if args.load:
                sys.path.remove(here)  # main() may be called again in this process (tests do)


def _bench(args: argparse.Namespace) -> int:
    from . import benchmark

    if args.engine == "dask":
        from . import dask_benchmark

        sizes = [int(float(n)) for n in args.n.split(",")] if args.n else [10**6]
        return dask_benchmark.dask_main(
            sizes, args.chunks, args.workers, memory=args.memory, json_path=args.json, workload=args.workload
        )
    if args.n or args.memory or args.workload != "seed":
        raise SystemExit("tenferro bench: --n, --memory and --workload go with --engine dask")
    libraries = [name.strip() for name in args.libraries.split(",")] if args.libraries else None
    return benchmark.main(quick=args.quick, json_path=args.json, only=args.only, libraries=libraries)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tenferro", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    tour = commands.add_parser("tour", help="the front end on one program, then the seed page, with its numbers")
    tour.add_argument("--compare", action="store_true", help="also run PyTorch and JAX where installed")
    tour.set_defaults(run=_tour)
    ops = commands.add_parser("ops", help="list every registered op with its plugin and signature")
    ops.set_defaults(run=_ops)
    plugins = commands.add_parser(
        "plugins",
        help="list every plugin with its distribution, version and ops, and each broken one with why "
        "(exit status 1 when one is broken)",
    )
    plugins.set_defaults(run=_plugins)
    check = commands.add_parser(
        "check",
        help="run the conformance suite on plugins (needs the test extra)",
        epilog="Other arguments go on to pytest: -k EXPR selects checks (e.g. -k 'sin and vjp_fd'), -x stops at "
        "the first failure, -v names each check as it runs.",
    )
    check.add_argument("plugins", help="plugin names (separated by spaces or commas), or 'all'")
    check.add_argument(
        "--load", action="append", default=[], metavar="[NAME=]MODULE[:ATTR]", help="an uninstalled plugin"
    )
    check.add_argument("--max-examples", type=int, metavar="N", help="hypothesis examples per check")
    check.add_argument("--profile", choices=["dev", "ci", "thorough", "nightly"], help="hypothesis profile")
    check.set_defaults(run=_check)  # other arguments go on to pytest, e.g. -k sin -x
    bench = commands.add_parser("bench", help="time tenferro beside NumPy, PyTorch, JAX and HIPS autograd")
    bench.add_argument("--quick", action="store_true", help="small sizes, short blocks, no verdicts (a smoke test)")
    bench.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    bench.add_argument("--only", default="", metavar="TEXT", help="workloads whose title has TEXT (chain: per op)")
    bench.add_argument("--libraries", metavar="A,B", help="compare only these (default: every importable one)")
    bench.add_argument(
        "--engine", choices=["cpu", "dask"], default="cpu", help="dask: a gradient on a DaskEngine (dask extra)"
    )
    bench.add_argument("--n", metavar="N[,N]", help="with --engine dask: sizes, e.g. 1e6,1e7 (default 1e6)")
    bench.add_argument("--chunks", type=int, default=1_000_000, metavar="K", help="with --engine dask: chunk elements")
    bench.add_argument("--workers", type=int, default=2, metavar="W", help="with --engine dask: LocalCluster workers")
    bench.add_argument("--memory", action="store_true", help="with --engine dask: peak memory per worker, too")
    bench.add_argument(
        "--workload",
        choices=["seed", "logistic"],
        default="seed",
        help="with --engine dask: the seed gradient, or a logistic regression's (8 features, N elements of data)",
    )
    bench.set_defaults(run=_bench)
    args, extra = parser.parse_known_args(argv)
    if extra and args.run is not _check:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.run is _check:  # `tenferro check shape index`: further plugin names, before pytest's arguments
        known = {ep.name for ep in importlib.metadata.entry_points(group="tenferro")}
        known |= {load.partition("=")[0] for load in args.load if "=" in load}
        while extra and extra[0] in known:
            args.plugins += "," + extra.pop(0)
    args.pytest_args = extra
    try:
        return args.run(args)
    except BrokenPipeError:  # e.g. `tenferro tour | head`: the reader left, nothing is wrong
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
