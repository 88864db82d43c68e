"""`tenferro bench`: tenferro beside hand-written NumPy, PyTorch, JAX and HIPS autograd.

A ratio is measured as docs/behaviour.md prescribes: tenferro and one other library are
timed alternately, in blocks of calls lasting at least BLOCK_S each, BLOCKS blocks each,
with the garbage collector on, and the figure is the median of the ratios of neighbouring
blocks, with their interquartile range as the spread (see :func:`alternate`). Libraries
with worker threads (JAX) are timed in a process of their own (see :func:`solo`). The
hand-written NumPy gradient is the limit for a NumPy engine; the other libraries are
timed when importable (PyTorch on one thread, JAX without jit). Nothing here is a test.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

import tenferro.numpy as tnp
from tenferro import CpuEngine, EagerRuntime, Tensor, default_runtime

Impl = Callable[[], Any]
#: Seconds a block of calls lasts at least, and blocks per library in each pair.
BLOCK_S, BLOCKS = 0.1, 15
#: Libraries with worker threads, timed in a process of their own.
SOLO = ("jax",)
#: The chain workload: CHAIN_STEPS × (sin, mul, add) = 300 ops on a CHAIN_SIZE-vector, then a sum.
CHAIN_STEPS, CHAIN_SIZE = 100, 16
CHAIN_OPS = 3 * CHAIN_STEPS


def seed_x(n: int) -> np.ndarray:
    return -2 + 4 * np.arange(n) / (n - 1)


def seed_v(n: int) -> np.ndarray:
    return np.cos(np.arange(n))


# -- tenferro ------------------------------------------------------------------------------
def seed_body(x: Any) -> Callable[[Any], Any]:
    def body(s: Any) -> Any:
        p = s.mul(s.sin(x), s.mul(x, x))
        return p, s.reduce_sum(p, None)

    return body


def tenferro_impls(n: int) -> dict[str, Impl]:
    rt, eng = EagerRuntime(), CpuEngine.serial()
    xs, vs = seed_x(n), seed_v(n)
    v = rt.constant_from(Tensor.from_numpy(vs))

    def grad() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        _, loss = rt.with_eager_session(eng, seed_body(x))
        loss.backward(eng)
        return x.grad()

    def hvp() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        _, loss = rt.with_eager_session(eng, seed_body(x))
        gf = rt.grad(eng, loss, x)
        gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, v), None))
        return rt.grad(eng, gv, x)

    def vjp() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        p, _ = rt.with_eager_session(eng, seed_body(x))
        p.backward_with(eng, v)
        return x.grad()

    def chain() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))

        def body(s: Any) -> Any:
            y = x
            for _ in range(CHAIN_STEPS):
                y = s.add(s.mul(s.sin(y), 1.01), 0.1)
            return s.reduce_sum(y, None)

        rt.with_eager_session(eng, body).backward(eng)
        return x.grad()

    # The front end: the same programs outside any session, on the default runtime.
    front = default_runtime()
    front.variable_from(xs)  # build the default runtime before timing

    def tnp_grad() -> Any:
        x = front.variable_from(xs)
        tnp.sum(tnp.sin(x) * x * x).backward()
        return x.grad()

    def operator_chain() -> Any:
        x = front.variable_from(xs)
        y = x
        for _ in range(CHAIN_STEPS):
            y = tnp.sin(y) * 1.01 + 0.1
        tnp.sum(y).backward()
        return x.grad()

    return {
        "grad": grad,
        "hvp": hvp,
        "vjp": vjp,
        "chain": chain,
        "tnp_grad": tnp_grad,
        "operator_chain": operator_chain,
    }


# -- hand-written NumPy: the limit ---------------------------------------------------------
def numpy_impls(n: int) -> dict[str, Impl]:
    xs, vs = seed_x(n), seed_v(n)

    def grad() -> Any:
        x = xs.copy()
        sx, x2 = np.sin(x), x * x
        (sx * x2).sum()
        return np.cos(x) * x2 + 2 * x * sx

    def hvp() -> Any:
        x = xs.copy()
        sx, cx, x2 = np.sin(x), np.cos(x), x * x
        (sx * x2).sum()
        return (-sx * x2 + 4 * x * cx + 2 * sx) * vs

    def vjp() -> Any:
        x = xs.copy()
        sx, x2 = np.sin(x), x * x
        sx * x2
        return vs * (np.cos(x) * x2 + 2 * x * sx)

    def chain() -> Any:
        y, saved = xs.copy(), []
        for _ in range(CHAIN_STEPS):
            saved.append(y)
            y = np.sin(y) * 1.01 + 0.1
        y.sum()
        g = np.ones_like(y)
        for y_in in reversed(saved):
            g = g * 1.01 * np.cos(y_in)
        return g

    return {"grad": grad, "hvp": hvp, "vjp": vjp, "chain": chain}


# -- comparison libraries (optional) -----------------------------------------------------------
def torch_impls(n: int) -> dict[str, Impl]:
    import torch

    torch.set_num_threads(1)
    xs, vs = seed_x(n), seed_v(n)
    v = torch.tensor(vs)

    def grad() -> Any:
        x = torch.tensor(xs, requires_grad=True)
        (torch.sin(x) * x * x).sum().backward()
        return x.grad

    def hvp() -> Any:
        x = torch.tensor(xs, requires_grad=True)
        (gf,) = torch.autograd.grad((torch.sin(x) * x * x).sum(), x, create_graph=True)
        (hv,) = torch.autograd.grad((gf * v).sum(), x)
        return hv

    def vjp() -> Any:
        x = torch.tensor(xs, requires_grad=True)
        (torch.sin(x) * x * x).backward(gradient=v)
        return x.grad

    def chain() -> Any:
        x = torch.tensor(xs, requires_grad=True)
        y = x
        for _ in range(CHAIN_STEPS):
            y = torch.sin(y) * 1.01 + 0.1
        y.sum().backward()
        return x.grad

    return {"grad": grad, "hvp": hvp, "vjp": vjp, "chain": chain}


def _functional(xp: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]:
    """The seed's sin(x)·x², its sum, and the chain, written for a NumPy-like module (the
    functional libraries differentiate functions, not recorded tensors)."""

    def p(x: Any) -> Any:
        return xp.sin(x) * x * x

    def f(x: Any) -> Any:
        return xp.sum(p(x))

    def chain(x: Any) -> Any:
        for _ in range(CHAIN_STEPS):
            x = xp.sin(x) * 1.01 + 0.1
        return xp.sum(x)

    return p, f, chain


def jax_impls(n: int) -> dict[str, Impl]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    xs, v = seed_x(n), jnp.asarray(seed_v(n))
    p, f, chain = _functional(jnp)
    return {
        "grad": lambda: jax.grad(f)(xs).block_until_ready(),
        "hvp": lambda: jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(xs).block_until_ready(),
        "vjp": lambda: jax.vjp(p, xs)[1](v)[0].block_until_ready(),
        "chain": lambda: jax.grad(chain)(xs).block_until_ready(),
    }


def autograd_impls(n: int) -> dict[str, Impl]:
    import autograd.numpy as anp
    from autograd import grad, make_vjp

    xs, vs = seed_x(n), seed_v(n)
    p, f, chain = _functional(anp)
    return {
        "grad": lambda: grad(f)(xs),
        "hvp": lambda: grad(lambda x: anp.dot(grad(f)(x), vs))(xs),
        "vjp": lambda: make_vjp(p)(xs)[0](vs),
        "chain": lambda: grad(chain)(xs),
    }


LIBRARIES: dict[str, Callable[[int], dict[str, Impl]]] = {
    "tenferro": tenferro_impls,
    "numpy": numpy_impls,
    "torch": torch_impls,
    "jax": jax_impls,
    "autograd": autograd_impls,
}


# -- measurement ---------------------------------------------------------------------------
def block_mean(fn: Impl, seconds: float) -> float:
    """Mean time per call of ``fn`` over a block of calls lasting at least ``seconds``."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def alternate(fns: list[Impl], blocks: int = BLOCKS, seconds: float = BLOCK_S) -> list[list[float]]:
    """The block means of each function, timed alternately after one warm-up block each.
    Round i runs one block of every function, in reverse order on odd rounds (A B, B A,
    A B, ...), so block i of one function is a neighbour in time of block i of the other
    and a steady drift of the machine favours neither. The garbage collector stays on, as
    users run: a collection is part of the cost of the calls that caused it."""
    for fn in fns:
        block_mean(fn, seconds)
    means: list[list[float]] = [[] for _ in fns]
    for round_ in range(blocks):
        order = range(len(fns)) if round_ % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            means[i].append(block_mean(fns[i], seconds))
    return means


def solo(
    library: str, jobs: list[tuple[str, int]], blocks: int = BLOCKS, seconds: float = BLOCK_S
) -> list[list[float]]:
    """The block means of ``library`` on each (implementation, N) job, timed in a Python
    process of its own running this module, so that its worker threads (JAX's) share no
    process with the libraries timed here."""
    spec = json.dumps({"library": library, "jobs": jobs, "blocks": blocks, "seconds": seconds})
    with away_from_the_working_directory():
        done = subprocess.run([sys.executable, "-m", __name__, spec], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"timing {library} in a process of its own failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


@contextlib.contextmanager
def away_from_the_working_directory() -> Iterator[None]:
    """Work in an empty temporary directory meanwhile: ``python -m`` and ``python -c`` put
    the working directory first on ``sys.path``, so a Python process started here (the
    process of :func:`solo`, a LocalCluster's workers and their resource tracker) would
    import the caller's ``numpy.py`` or ``pickle.py``. An empty directory isolates them on
    every Python version (``-P`` is 3.11's) and leaves the installed packages, ``PYTHONPATH``
    and the user's site-packages reachable, as ``-I`` would not."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="tenferro-bench-") as empty:
        os.chdir(empty)
        try:
            yield
        finally:
            os.chdir(here)


def _solo_here(library: str, jobs: list[tuple[str, int]], blocks: int, seconds: float) -> list[list[float]]:
    return [alternate([LIBRARIES[library](n)[impl]], blocks, seconds)[0] for impl, n in jobs]


def spread(values: list[float]) -> dict[str, float]:
    """Median and quartiles."""
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return {"median": median, "q1": q1, "q3": q3}


def print_pairs(
    workloads: dict[str, tuple[Callable[[], dict[str, Impl]], dict[str, float | None]]],
    only: str = "",
    profile: Callable[[Impl], None] | None = None,
) -> None:
    """Time each workload's ``"tenferro"`` implementation against each of its comparisons
    (:func:`alternate`) and print a row per pair: the median block times, the median ratio
    with its interquartile range, and the verdict against the target ratio (None: none).
    ``workloads`` maps a name to (a function making the implementations, {comparison:
    target}); a comparison that is not installed is left out. The bench scripts' table."""
    print(f"{'workload':<36}{'vs':>9}{'tenferro µs':>13}{'theirs µs':>11}{'ratio':>7}  [IQR]         target")
    for name, (make, comparisons) in workloads.items():
        if only not in name:
            continue
        impls = make()
        ours = impls["tenferro"]
        for other, target in comparisons.items():
            if other not in impls:
                continue
            ours_blocks, theirs_blocks = alternate([ours, impls[other]])
            ratio = spread([a / b for a, b in zip(ours_blocks, theirs_blocks)])
            us = [spread(blocks)["median"] * 1e6 for blocks in (ours_blocks, theirs_blocks)]
            verdict = "" if target is None else f"<= {target}: {'met' if ratio['median'] <= target else 'MISSED'}"
            print(
                f"{name:<36}{other:>9}{us[0]:>13.1f}{us[1]:>11.1f}{ratio['median']:>7.2f}  "
                f"[{ratio['q1']:.2f}, {ratio['q3']:.2f}]  {verdict}",
                flush=True,
            )
        if profile is not None:
            profile(ours)


def _profiled(ours: Impl) -> None:
    import cProfile  # noqa: PLC0415 - only with --profile
    import pstats  # noqa: PLC0415

    profile = cProfile.Profile()
    profile.runcall(lambda: [ours() for _ in range(50)])
    pstats.Stats(profile).sort_stats("tottime").print_stats(15)


def jit_as_ours(impls: dict[str, Impl]) -> dict[str, Impl]:
    """A workload's ``"jit"`` implementation as its ``"tenferro"`` one, beside the comparisons
    (the bench scripts' rows of how much ``tf.jit`` adds to a transform)."""
    return {"tenferro": impls["jit"], **{k: v for k, v in impls.items() if k not in ("tenferro", "jit")}}


def pairs_main(workloads: dict[str, tuple[Callable[[], dict[str, Impl]], dict[str, float | None]]], doc: str) -> None:
    """The command line of a bench script made of :func:`print_pairs` workloads: ``--only
    TEXT`` and ``--profile`` (cProfile of tenferro's side of each workload)."""
    import argparse  # noqa: PLC0415 - the scripts' command line only

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile tenferro's side of each workload")
    parser.add_argument("--only", default="", help="run only the workloads whose name contains this text")
    args = parser.parse_args()
    print_pairs(workloads, args.only, _profiled if args.profile else None)


def peak_bytes(fn: Impl) -> int:
    """Peak memory traced while ``fn`` runs (NumPy reports its buffers to tracemalloc)."""
    fn()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- workloads and the report ----------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    name: str
    impl: str
    n: int
    target: str = ""  # the library the target ratio is against
    target_ratio: float | None = None
    theirs: str = ""  # the other libraries' impl, when tenferro's is a variant of it (the front end)

    @property
    def their_impl(self) -> str:
        return self.theirs or self.impl

    @property
    def per(self) -> int:
        """Calls per timed run: the chain is reported per op."""
        return CHAIN_OPS if self.their_impl == "chain" else 1

    def size(self, quick: bool) -> int:
        """N, or a small N for a quick run."""
        return max(self.n // 100, 10) if quick else self.n

    def title(self, n: int) -> str:
        return f"{self.name}, per op" if self.per > 1 else f"{self.name}, N={size_label(n)}"


def size_label(n: int) -> str:
    """1000 -> '1e3'; sizes that are not a power of ten of at least 1000 as they are."""
    exponent = len(str(n)) - 1
    return f"1e{exponent}" if n >= 1000 and n == 10**exponent else str(n)


WORKLOADS = [
    Workload("seed grad", "grad", 1_000, "torch", 1.0),
    Workload("seed grad", "grad", 10_000),
    Workload("seed grad", "grad", 1_000_000, "numpy", 1.15),
    Workload("seed HVP", "hvp", 1_000, "torch", 1.0),
    Workload("backward_with", "vjp", 1_000),
    Workload("300-op chain", "chain", CHAIN_SIZE, "torch", 1.0),
    Workload("seed grad, tnp", "tnp_grad", 1_000, "torch", 1.1, theirs="grad"),
    Workload("chain, operators", "operator_chain", CHAIN_SIZE, "torch", 1.2, theirs="chain"),
]
MEMORY_N, MEMORY_TARGET = 1_000_000, 1.5


@dataclass
class Row:
    workload: str
    n: int
    per: int  # calls are reported per op for the chain
    #: median time per call (per op), µs
    times_us: dict[str, float] = field(default_factory=dict)
    #: tenferro's time ÷ the library's: median and quartiles of the per-block ratios, and
    #: tenferro's median time in that pair
    ratios: dict[str, dict[str, float]] = field(default_factory=dict)
    target: str = ""
    target_ratio: float | None = None
    met: bool | None = None  # None: no target, or a quick run (targets are for the full sizes)


def time_row(
    workload: Workload, n: int, libraries: list[str], solo_means: dict[str, list[float]], blocks: int, seconds: float
) -> Row:
    """Time tenferro against each in-process library in its own alternating pair (or alone,
    if there is none); a solo library's per-block ratios are tenferro's median time over
    each of its blocks, since the two were not timed side by side."""
    ours = tenferro_impls(n)[workload.impl]
    impls = {
        lib: LIBRARIES[lib](n)[workload.their_impl] for lib in libraries if lib not in solo_means and lib != "tenferro"
    }
    means: dict[str, list[float]] = {"tenferro": [] if impls else alternate([ours], blocks, seconds)[0]}
    per = workload.per
    ratios: dict[str, dict[str, float]] = {}
    for lib, fn in impls.items():
        tenferro, means[lib] = alternate([ours, fn], blocks, seconds)
        means["tenferro"] += tenferro
        ratios[lib] = spread([a / b for a, b in zip(tenferro, means[lib])])
        ratios[lib]["tenferro_us"] = statistics.median(tenferro) * 1e6 / per  # its time in this pair
    median = statistics.median(means["tenferro"])
    for lib, theirs in solo_means.items():
        means[lib], ratios[lib] = theirs, spread([median / b for b in theirs]) | {"tenferro_us": median * 1e6 / per}
    return Row(
        workload.title(n),
        n,
        per,
        times_us={lib: statistics.median(means[lib]) * 1e6 / per for lib in libraries},
        ratios=ratios,
        target=workload.target,
        target_ratio=workload.target_ratio,
    )


def available() -> list[str]:
    """Libraries installed here, tenferro and numpy first (found without importing them)."""
    return ["tenferro", "numpy"] + [name for name in ("torch", "jax", "autograd") if importlib.util.find_spec(name)]


def run(
    quick: bool = False,
    libraries: list[str] | None = None,
    only: str = "",
    out: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Time every workload (whose title contains ``only``) for every library; ``quick``
    uses small sizes and short blocks (a smoke test) and judges no target. Returns a
    JSON-able dict."""
    libraries = ["tenferro", *[lib for lib in libraries or available() if lib != "tenferro"]]
    blocks, seconds = (3, 0.002) if quick else (BLOCKS, BLOCK_S)
    chosen = [(w, w.size(quick)) for w in WORKLOADS if only in w.title(w.size(quick))]
    solo_means = {
        lib: solo(lib, [(w.their_impl, n) for w, n in chosen], blocks, seconds) for lib in libraries if lib in SOLO
    }
    out(f"median time per call, µs (per op for the chain); {blocks} blocks of >= {seconds} s per library and pair")
    out(f"{'workload':<22}" + "".join(f"{lib:>10}" for lib in libraries))
    rows = []
    for i, (workload, n) in enumerate(chosen):
        row = time_row(workload, n, libraries, {lib: means[i] for lib, means in solo_means.items()}, blocks, seconds)
        if row.target_ratio is not None and not quick and row.target in row.ratios:
            row.met = row.ratios[row.target]["median"] <= row.target_ratio
        out(f"{row.workload:<22}" + "".join(f"{row.times_us[lib]:>10.1f}" for lib in libraries))
        rows.append(row)
    n_mem = MEMORY_N // 100 if quick else MEMORY_N
    memory = {lib: peak_bytes(LIBRARIES[lib](n_mem)["grad"]) for lib in ("tenferro", "numpy")}
    memory_ratio = memory["tenferro"] / memory["numpy"]
    report = {
        "machine": f"{platform.machine()}, {platform.processor() or platform.system()}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}",
        "versions": {lib: importlib.metadata.version(lib) for lib in libraries},
        "method": {"blocks": blocks, "block_seconds": seconds, "solo": [lib for lib in libraries if lib in SOLO]},
        "quick": quick,
        "libraries": libraries,
        "rows": [asdict(row) for row in rows],
        "peak_memory_bytes": {
            "n": n_mem,
            **memory,
            "ratio": memory_ratio,
            "target": MEMORY_TARGET,
            "met": None if quick else memory_ratio <= MEMORY_TARGET,
        },
    }
    for line in format_ratios(rows, libraries[1:], report["peak_memory_bytes"], quick):
        out(line)
    return report


def verdict(met: bool | None, quick: bool) -> str:
    return "n/a (quick)" if quick else {True: "met", False: "MISSED", None: ""}[met]


def ratio_cell(ratio: dict[str, float] | None) -> str:
    return f"{ratio['median']:.2f} ({ratio['q1']:.2f}-{ratio['q3']:.2f})" if ratio else "-"


def format_ratios(rows: list[Row], others: list[str], memory: dict[str, Any], quick: bool) -> list[str]:
    """tenferro ÷ each library: median (interquartile range) of the per-block ratios."""
    head = f"{'tenferro / library':<22}" + "".join(f"{lib:>21}" for lib in others) + "   target"
    lines = ["", head, "-" * len(head)]
    for row in rows:
        cells = "".join(f"{ratio_cell(row.ratios.get(lib)):>21}" for lib in others)
        target = f"   <= {row.target_ratio} x {row.target}: {verdict(row.met, quick)}" if row.target_ratio else ""
        lines.append(f"{row.workload:<22}{cells}{target}")
    lines.append(
        f"peak memory, grad N={size_label(memory['n'])}: tenferro {memory['tenferro'] / 2**20:.1f} MiB, numpy "
        f"{memory['numpy'] / 2**20:.1f} MiB = {memory['ratio']:.2f}x   <= {memory['target']}x: "
        f"{verdict(memory['met'], quick)}"
    )
    return lines


def main(quick: bool = False, json_path: str | None = None, only: str = "", libraries: list[str] | None = None) -> int:
    missing = sorted(set(libraries or []) - set(available()))
    if missing:
        raise SystemExit(f"tenferro bench: not importable here: {', '.join(missing)} (known: {', '.join(LIBRARIES)})")
    report = run(quick=quick, only=only, libraries=libraries)
    if json_path:
        with open(json_path, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":  # the process of its own of `solo`: a JSON job spec in, block means out
    print(json.dumps(_solo_here(**json.loads(sys.argv[1]))))
