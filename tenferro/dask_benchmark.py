"""`tenferro bench --engine dask`: gradients on a DaskEngine beside the same gradients written
by hand with dask.array, alternately on one LocalCluster (the ratio as docs/behaviour.md
prescribes, see :func:`tenferro.benchmark.alternate`), and their peak memory per worker.

Two workloads: ``seed`` (the seed page's gradient of sum(sin(x)·x²), N elements) and
``logistic`` (the gradient of a logistic regression's mean loss in its FEATURES weights,
N elements of data: N / FEATURES samples). Their data are made on the workers from an
``arange`` inside each call and each gradient is reduced or small, so no N-sized array
passes through this process and a worker holds a few chunks at a time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro import CpuEngine, EagerRuntime, Tensor
from tenferro.core.eager import slot

from .benchmark import (
    BLOCK_S,
    Impl,
    alternate,
    away_from_the_working_directory,
    ratio_cell,
    seed_body,
    size_label,
    spread,
    tenferro_impls,
)

#: Elements per chunk (8 MB of float64), workers, and alternating blocks per ratio.
DASK_CHUNKS, DASK_WORKERS, DASK_BLOCKS = 1_000_000, 2, 5
#: The logistic regression's features, and the weights its gradient is taken at.
FEATURES = 8
W0 = np.linspace(-0.5, 0.5, FEATURES)


def seed_impls(n: int, client: Any, chunks: int) -> dict[str, Impl]:
    """The seed gradient at N = n on ``client``'s cluster: tenferro on a DaskEngine, and the
    same gradient by hand with dask.array (each reduced to its sum on the cluster)."""
    import dask.array as da

    from tenferro import DaskEngine

    rt, eng = EagerRuntime(), DaskEngine(client, chunks=chunks)

    def xs() -> Any:
        return -2 + 4 * da.arange(n, chunks=chunks) / (n - 1)

    def grad() -> Any:
        x = rt.variable_from(xs())
        _, loss = rt.with_eager_session(eng, seed_body(x))
        loss.backward(eng)
        return client.compute(slot(x).sum()).result()  # the slot's dask array, reduced on the cluster

    def by_hand() -> Any:
        x = xs()
        sx, x2 = da.sin(x), x * x
        return client.compute((da.cos(x) * x2 + 2 * x * sx).sum()).result()

    return {"tenferro": grad, "dask": by_hand}


def _logistic_data(xp: Any, n: int, chunks: int) -> tuple[Any, Any]:
    """Features X (n / FEATURES samples × FEATURES, a deterministic spread in [-1, 1]) and
    labels y = ±1, of ``xp`` (dask.array, chunks of whole samples, or NumPy)."""
    samples = n // FEATURES
    i = (xp.arange(samples, chunks=max(chunks // FEATURES, 1)) if xp is not np else np.arange(samples))[:, None]
    x = xp.sin(0.001 * i * np.arange(1, FEATURES + 1) + np.arange(FEATURES))
    y = xp.where(xp.sin(0.7 * i[:, 0]) > 0, 1.0, -1.0)
    return x, y


def _logistic_body(rt: EagerRuntime, x: Any, y: Any, w: Any) -> Callable[[Any], Any]:
    def body(s: Any) -> Any:  # mean(softplus(-y · Xw)): the negative log-likelihood per sample
        return s.reduce_mean(s.softplus(s.neg(s.mul(rt.constant_from(y), s.matmul(rt.constant_from(x), w)))), None)

    return body


def logistic_impls(n: int, client: Any, chunks: int) -> dict[str, Impl]:
    """The logistic regression's gradient in its weights, data of n elements on the
    cluster: tenferro on a DaskEngine (``loss.backward``) and by hand with dask.array
    (Xᵀ(-y·σ(-y·Xw)) / samples); each gradient, FEATURES numbers, comes back."""
    import dask.array as da

    from tenferro import DaskEngine

    rt, eng = EagerRuntime(), DaskEngine(client, chunks=chunks)

    def grad() -> Any:
        x, y = _logistic_data(da, n, chunks)
        w = rt.variable_from(Tensor.from_numpy(W0))
        rt.with_eager_session(eng, _logistic_body(rt, x, y, w)).backward(eng)
        return client.compute(slot(w)).result()

    def by_hand() -> Any:
        x, y = _logistic_data(da, n, chunks)
        return client.compute(x.T @ (-y / (1 + da.exp(y * (x @ W0)))) / x.shape[0]).result()

    return {"tenferro": grad, "dask": by_hand}


def logistic_cpu(n: int) -> Impl:
    """The logistic regression's gradient on CpuEngine, its data NumPy arrays made once."""
    rt, eng = EagerRuntime(), CpuEngine.serial()
    x, y = _logistic_data(np, n, n)

    def grad() -> Any:
        w = rt.variable_from(Tensor.from_numpy(W0))
        rt.with_eager_session(eng, _logistic_body(rt, x, y, w)).backward(eng)
        return slot(w)

    return grad


#: workload -> (its title, its two implementations on a cluster, its gradient on CpuEngine)
WORKLOADS: dict[str, tuple[str, Callable[[int, Any, int], dict[str, Impl]], Callable[[int], Impl]]] = {
    "seed": ("seed gradient", seed_impls, lambda n: tenferro_impls(n)["grad"]),
    "logistic": (f"logistic regression's gradient ({FEATURES} features)", logistic_impls, logistic_cpu),
}


def _sample_rss(dask_worker: Any) -> int:
    """Start sampling this worker process's resident memory every 5 ms (run on each
    worker; ``ru_maxrss`` will not do: a process started by fork and exec keeps its
    parent's peak). Returns the resident memory now, bytes."""
    import threading

    import psutil

    process, stop = psutil.Process(), threading.Event()
    state = dask_worker._tenferro_rss = {"peak": process.memory_info().rss, "stop": stop}

    def sample() -> None:
        while not stop.wait(0.005):
            state["peak"] = max(state["peak"], process.memory_info().rss)

    threading.Thread(target=sample, daemon=True).start()
    return state["peak"]


def _peak_rss(dask_worker: Any) -> int:
    """Stop the sampling of :func:`_sample_rss`; the peak it saw, bytes."""
    state = dask_worker._tenferro_rss
    state["stop"].set()
    return state["peak"]


def _cluster(workers: int) -> Any:
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    return cluster, Client(cluster)


def dask_worker_peaks(workload: str, n: int, chunks: int, workers: int) -> dict[str, dict[str, float]]:
    """Resident memory of a worker (the largest, MiB) before and at its peak while each
    implementation runs once, on a fresh cluster each (sampled every 5 ms)."""
    peaks = {}
    for name in ("tenferro", "dask"):
        cluster, client = _cluster(workers)
        try:
            impl = WORKLOADS[workload][1](n, client, chunks)[name]
            before = max(client.run(_sample_rss).values()) / 2**20
            impl()
            peaks[name] = {"before": before, "peak": max(client.run(_peak_rss).values()) / 2**20}
        finally:
            client.close()
            cluster.close()
    return peaks


def dask_main(
    sizes: list[int],
    chunks: int = DASK_CHUNKS,
    workers: int = DASK_WORKERS,
    memory: bool = False,
    json_path: str | None = None,
    out: Callable[[str], None] = print,
    workload: str = "seed",
) -> int:
    """Time a workload's gradient on a DaskEngine against the same gradient by hand with
    dask.array, alternately on one LocalCluster, at each N of ``sizes``; beside it
    CpuEngine's (in this process) for the engine's overhead; with ``memory``, each one's
    peak memory per worker on a fresh cluster."""
    if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
        raise SystemExit("tenferro bench --engine dask needs the dask extra: pip install -e '.[dask]'")
    json_path = json_path and os.path.abspath(json_path)
    with away_from_the_working_directory():  # the workers are Python processes this starts
        rows = _dask_rows(workload, sizes, chunks, workers, memory, out)
    if json_path:
        report = {"engine": "dask", "workload": workload, "workers": workers, "chunks": chunks, "rows": rows}
        with open(json_path, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


def _dask_rows(
    workload: str, sizes: list[int], chunks: int, workers: int, memory: bool, out: Callable[[str], None]
) -> list[Any]:
    """``dask_main``'s table, printed through ``out``, and its rows."""
    title, impls_of, cpu_of = WORKLOADS[workload]
    cluster, client = _cluster(workers)
    rows = []
    try:
        out(f"{title} on a LocalCluster of {workers} workers (1 thread each), chunks of {chunks} elements;")
        out(f"median time per call, ms; {DASK_BLOCKS} alternating blocks of >= {BLOCK_S} s each")
        out(f"{'N':>8}{'DaskEngine':>12}{'dask by hand':>14}{'ratio (IQR)':>20}{'CpuEngine':>11}{'overhead':>10}")
        for n in sizes:
            impls = impls_of(n, client, chunks)
            ours, theirs = alternate([impls["tenferro"], impls["dask"]], DASK_BLOCKS, BLOCK_S)
            ratio = spread([a / b for a, b in zip(ours, theirs)])
            row: dict[str, Any] = {
                "n": n,
                "tenferro_dask_ms": statistics.median(ours) * 1e3,
                "dask_by_hand_ms": statistics.median(theirs) * 1e3,
                "ratio": ratio,
            }
            if n <= 10**7:  # CpuEngine holds every value in this process: only where that fits easily
                cpu = alternate([cpu_of(n)], DASK_BLOCKS, BLOCK_S)[0]
                row["tenferro_cpu_ms"] = statistics.median(cpu) * 1e3
                row["overhead"] = row["tenferro_dask_ms"] / row["tenferro_cpu_ms"]
            cpu_cells = (
                f"{row['tenferro_cpu_ms']:>11.1f}{row['overhead']:>9.1f}x"
                if "overhead" in row
                else f"{'-':>11}{'-':>10}"
            )
            out(
                f"{size_label(n):>8}{row['tenferro_dask_ms']:>12.1f}{row['dask_by_hand_ms']:>14.1f}"
                f"{ratio_cell(ratio):>20}{cpu_cells}"
            )
            rows.append(row)
    finally:
        client.close()
        cluster.close()
    if memory:
        for row in rows:
            row["peak_worker_mib"] = dask_worker_peaks(workload, row["n"], chunks, workers)
            peaks = row["peak_worker_mib"]
            out(
                f"resident memory of a worker, N={size_label(row['n'])}: DaskEngine {peaks['tenferro']['peak']:.0f} "
                f"MiB at its peak ({peaks['tenferro']['before']:.0f} before), dask by hand "
                f"{peaks['dask']['peak']:.0f} MiB ({peaks['dask']['before']:.0f} before)"
            )
    return rows
