"""`tenferro bench`: tenferro beside hand-written NumPy, PyTorch, JAX and HIPS autograd.

Every workload is timed in this one process, side by side, with ``time.perf_counter``:
the best of interleaved blocks of calls after a warm-up (see :func:`best_seconds`). The
hand-written NumPy gradient is the limit for a NumPy engine; the other libraries are
timed when importable (PyTorch on one thread, JAX without jit). Targets are ratios
(DESIGN.md section 6); nothing here is a test.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import platform
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tenferro import CpuEngine, EagerRuntime, Tensor

Impl = Callable[[], Any]
#: Rounds of interleaved measurement at most, seconds per block of calls, and the time
#: budget of each implementation.
ROUNDS, BLOCK_S, BUDGET_S = 30, 0.01, 0.6
#: The chain workload: CHAIN_STEPS × (sin, mul, add) = 300 ops on a 16-vector, then a sum.
CHAIN_STEPS = 100
CHAIN_OPS = 3 * CHAIN_STEPS


def seed_x(n: int) -> np.ndarray:
    return -2 + 4 * np.arange(n) / (n - 1)


def seed_v(n: int) -> np.ndarray:
    return np.cos(np.arange(n))


# -- tenferro ------------------------------------------------------------------------------
def _seed_body(x: Any) -> Callable[[Any], Any]:
    def body(s: Any) -> Any:
        p = s.mul(s.sin(x), s.mul(x, x))
        return p, s.reduce_sum(p, None)

    return body


def tenferro_impls(n: int, chain_size: int) -> dict[str, Impl]:
    rt, eng = EagerRuntime(), CpuEngine.serial()
    xs, vs = seed_x(n), seed_v(n)
    v = rt.constant_from(Tensor.from_numpy(vs))

    def grad() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        _, loss = rt.with_eager_session(eng, _seed_body(x))
        loss.backward(eng)
        return x.grad()

    def hvp() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        _, loss = rt.with_eager_session(eng, _seed_body(x))
        gf = rt.grad(eng, loss, x)
        gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, v), None))
        return rt.grad(eng, gv, x)

    def vjp() -> Any:
        x = rt.variable_from(Tensor.from_numpy(xs))
        p, _ = rt.with_eager_session(eng, _seed_body(x))
        p.backward_with(eng, v)
        return x.grad()

    chain_x = seed_x(chain_size)

    def chain() -> Any:
        x = rt.variable_from(Tensor.from_numpy(chain_x))

        def body(s: Any) -> Any:
            y = x
            for _ in range(CHAIN_STEPS):
                y = s.add(s.mul(s.sin(y), 1.01), 0.1)
            return s.reduce_sum(y, None)

        rt.with_eager_session(eng, body).backward(eng)
        return x.grad()

    return {"grad": grad, "hvp": hvp, "vjp": vjp, "chain": chain}


# -- hand-written NumPy: the limit ---------------------------------------------------------
def numpy_impls(n: int, chain_size: int) -> dict[str, Impl]:
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

    chain_x = seed_x(chain_size)

    def chain() -> Any:
        y, saved = chain_x.copy(), []
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
def torch_impls(n: int, chain_size: int) -> dict[str, Impl]:
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

    chain_x = seed_x(chain_size)

    def chain() -> Any:
        x = torch.tensor(chain_x, requires_grad=True)
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


def jax_impls(n: int, chain_size: int) -> dict[str, Impl]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    xs, v, chain_x = seed_x(n), jnp.asarray(seed_v(n)), seed_x(chain_size)
    p, f, chain = _functional(jnp)
    return {
        "grad": lambda: jax.grad(f)(xs).block_until_ready(),
        "hvp": lambda: jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(xs).block_until_ready(),
        "vjp": lambda: jax.vjp(p, xs)[1](v)[0].block_until_ready(),
        "chain": lambda: jax.grad(chain)(chain_x).block_until_ready(),
    }


def autograd_impls(n: int, chain_size: int) -> dict[str, Impl]:
    import autograd.numpy as anp
    from autograd import grad, make_vjp

    xs, vs, chain_x = seed_x(n), seed_v(n), seed_x(chain_size)
    p, f, chain = _functional(anp)
    return {
        "grad": lambda: grad(f)(xs),
        "hvp": lambda: grad(lambda x: anp.dot(grad(f)(x), vs))(xs),
        "vjp": lambda: make_vjp(p)(xs)[0](vs),
        "chain": lambda: grad(chain)(chain_x),
    }


LIBRARIES: dict[str, Callable[[int, int], dict[str, Impl]]] = {
    "tenferro": tenferro_impls,
    "numpy": numpy_impls,
    "torch": torch_impls,
    "jax": jax_impls,
    "autograd": autograd_impls,
}


# -- measurement ---------------------------------------------------------------------------
def best_seconds(fns: dict[str, Impl], rounds: int = ROUNDS, budget: float = BUDGET_S) -> dict[str, float]:
    """Time per call of each function: the best of its block means, measured in
    interleaved blocks. Each round runs every function for a block of calls (about BLOCK_S
    long, so its caches are warm) and records the mean; interleaving exposes all functions
    to the same spells of machine noise, and the minimum discards them (noise only ever
    adds time, as the timeit docs note). A function stops after ``budget`` seconds in
    total, but has at least 3 rounds."""
    block = {}
    for name, fn in fns.items():
        start = time.perf_counter()
        for _ in range(3):  # warm-up, and a first estimate of the block size
            fn()
        block[name] = max(1, int(BLOCK_S / ((time.perf_counter() - start) / 3)))
    means: dict[str, list[float]] = {name: [] for name in fns}
    spent = dict.fromkeys(fns, 0.0)
    names = list(fns)
    for round_ in range(rounds):
        # rotate the order each round, so that no library always runs right after the
        # same neighbour (JAX's worker threads, for one, linger after its calls)
        shift = round_ % len(names)
        active = [name for name in names[shift:] + names[:shift] if len(means[name]) < 3 or spent[name] < budget]
        if not active:
            break
        for name in active:
            fn, calls = fns[name], block[name]
            gc.collect()
            gc.disable()  # as timeit does: a collection inside a block is noise, not cost
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            elapsed = time.perf_counter() - start
            gc.enable()
            means[name].append(elapsed / calls)
            spent[name] += elapsed
    return {name: min(values) for name, values in means.items()}


def peak_bytes(fn: Impl) -> int:
    """Peak memory traced while ``fn`` runs (NumPy reports its buffers to tracemalloc)."""
    fn()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@dataclass
class Row:
    workload: str
    times_us: dict[str, float] = field(default_factory=dict)
    target: str = ""
    target_ratio: float | None = None
    per: int = 1

    def ratio(self, library: str) -> float | None:
        ours, theirs = self.times_us.get("tenferro"), self.times_us.get(library)
        return ours / theirs if ours and theirs else None

    def met(self) -> bool | None:
        if self.target_ratio is None or self.ratio(self.target) is None:
            return None
        return self.ratio(self.target) <= self.target_ratio


#: workload -> (impl name, N, target library, target ratio)
WORKLOADS = [
    ("seed grad, N=1e3", "grad", 1_000, "torch", 1.0),
    ("seed grad, N=1e4", "grad", 10_000, "", None),
    ("seed grad, N=1e6", "grad", 1_000_000, "numpy", 1.15),
    ("seed HVP, N=1e3", "hvp", 1_000, "torch", 1.0),
    ("backward_with, N=1e3", "vjp", 1_000, "", None),
    ("300-op chain, per op", "chain", 1_000, "torch", 1.0),
]


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
    uses tiny sizes and few repeats (for the test suite). Returns a JSON-able dict."""
    libraries = libraries or available()
    chain_size = 16
    rows = []
    for title, impl, n, target, ratio in WORKLOADS:
        if only not in title:
            continue
        n = min(n, 100) if quick else n
        row = Row(title, target=target, target_ratio=ratio, per=CHAIN_OPS if impl == "chain" else 1)
        fns = {library: LIBRARIES[library](n, chain_size)[impl] for library in libraries}
        seconds = best_seconds(fns, rounds=3, budget=0.0) if quick else best_seconds(fns)
        row.times_us = {library: seconds[library] * 1e6 / row.per for library in libraries}
        rows.append(row)
    n_mem = 1_000 if quick else 1_000_000
    memory = {lib: peak_bytes(LIBRARIES[lib](n_mem, chain_size)["grad"]) for lib in ("tenferro", "numpy")}
    report = {
        "machine": f"{platform.machine()}, {platform.processor() or platform.system()}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}",
        "libraries": libraries,
        "rows": [asdict(row) | {"met": row.met()} for row in rows],
        "peak_memory_bytes": {"n": n_mem, **memory, "ratio": memory["tenferro"] / memory["numpy"], "target": 1.5},
    }
    for line in format_table(rows, libraries, report["peak_memory_bytes"]):
        out(line)
    return report


def format_table(rows: list[Row], libraries: list[str], memory: dict[str, Any]) -> list[str]:
    head = f"{'workload (µs)':<22}" + "".join(f"{lib:>10}" for lib in libraries) + "   vs numpy  vs torch  target"
    lines = [head, "-" * len(head)]
    for row in rows:
        cells = "".join(f"{row.times_us.get(lib, float('nan')):>10.1f}" for lib in libraries)
        ratios = "".join(
            f"{r:>9.2f}x" if r is not None else f"{'-':>10}" for r in (row.ratio("numpy"), row.ratio("torch"))
        )
        target = (
            f"  <= {row.target_ratio} x {row.target}: {'met' if row.met() else 'MISSED'}" if row.target_ratio else ""
        )
        lines.append(f"{row.workload:<22}{cells}{ratios}{target}")
    ratio = memory["ratio"]
    lines.append(
        f"peak memory, grad N={memory['n']}: tenferro {memory['tenferro'] / 2**20:.1f} MiB, numpy "
        f"{memory['numpy'] / 2**20:.1f} MiB = {ratio:.2f}x  <= 1.5x: {'met' if ratio <= 1.5 else 'MISSED'}"
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
