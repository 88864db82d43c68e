"""The benchmark runs (tiny sizes); timings are never asserted."""

import json

from tenferro import benchmark
from tenferro.cli import main


def test_quick_benchmark_reports_every_workload(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--libraries", "tenferro,numpy", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    for title, *_ in benchmark.WORKLOADS:
        assert title in out
    assert "peak memory, grad N=1000" in out
    report = json.loads(path.read_text())
    assert [row["workload"] for row in report["rows"]] == [w[0] for w in benchmark.WORKLOADS]
    assert all(row["times_us"]["tenferro"] > 0 and row["times_us"]["numpy"] > 0 for row in report["rows"])
    assert report["peak_memory_bytes"]["tenferro"] > 0


def test_every_implementation_computes_the_same_gradient():
    """The libraries are compared on the same numbers: each returns the seed gradient."""
    import numpy as np

    n = 50
    expected = np.cos(benchmark.seed_x(n)) * benchmark.seed_x(n) ** 2 + 2 * benchmark.seed_x(n) * np.sin(
        benchmark.seed_x(n)
    )
    for library in ("tenferro", "numpy"):
        impls = benchmark.LIBRARIES[library](n, 16)
        np.testing.assert_allclose(np.asarray(impls["grad"]()), expected, rtol=1e-14)
        np.testing.assert_allclose(np.asarray(impls["vjp"]()), benchmark.seed_v(n) * expected, rtol=1e-13, atol=1e-15)
    tenferro_chain = np.asarray(benchmark.LIBRARIES["tenferro"](n, 16)["chain"]())
    np.testing.assert_allclose(tenferro_chain, benchmark.LIBRARIES["numpy"](n, 16)["chain"](), rtol=1e-13)
    tenferro_hvp = np.asarray(benchmark.LIBRARIES["tenferro"](n, 16)["hvp"]())
    np.testing.assert_allclose(tenferro_hvp, benchmark.LIBRARIES["numpy"](n, 16)["hvp"](), rtol=1e-12, atol=1e-14)


def test_unknown_library_is_refused():
    import pytest

    with pytest.raises(SystemExit, match="not importable here: mxnet"):
        main(["bench", "--quick", "--libraries", "tenferro,mxnet"])
