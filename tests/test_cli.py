"""The `tenferro` command: tour (with and without comparison libraries) and ops."""

import subprocess
import sys

import pytest

from tenferro.cli import main


def test_tour_prints_every_section_with_the_seed_numbers(capsys):
    assert main(["tour"]) == 0
    out = capsys.readouterr().out
    for line in [
        "x.grad() = [1.972602, 1.993120, 2.013449, ...]  max|x.grad() - exact| = 0.000e+00",
        "p.grad() = None  loss.grad() = None",
        "loss.backward(eng) again: no error",
        "x.grad() = [3.945205, 3.986240, 4.026898, ...]  x.grad() == 2*first bitwise: True",
        "p.backward(eng): raises NonScalarGrad: grad requires a scalar output, got shape [1000]",
        "p.backward_with(eng, v): max|x.grad() - v*g_exact| = 8.882e-16",
        "p.backward_with(eng, ones) == loss.backward(eng) bitwise: True",
        "p.backward_with(eng, v of another runtime): raises ContextMismatch: backward_with: the cotangent v",
        "gf == first bitwise: True  x.grad() = None  gf.tracks_grad() = True",
        "hvp = rt.grad(eng, sum(gf*v), x): max|hvp - exact| = 1.776e-15",
        "rt.grad(eng, loss, p): raises GradInactive: grad is inactive",
        "grads = y.backward(eng): no error, len(grads) == 0, x.grad() = None",
        "grad of sum(x.detach(eng)*x) == x: bitwise 1000/1000",
        "  c = mul a a",
    ]:
        assert line in out, line


def test_tour_speaks_python_not_rust(capsys):
    """Errors print as `raises Type: message`, lengths as len(); no Rust Ok/Err/.len()."""
    assert main(["tour"]) == 0
    out = capsys.readouterr().out
    for rust in ["Ok", "Err(", ".len()"]:
        assert rust not in out, rust


def test_tour_compare_says_when_libraries_are_missing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "jax", None)
    assert main(["tour", "--compare"]) == 0
    out = capsys.readouterr().out
    assert "== compare (checked with torch 2.13.0 CPU and jax[cpu] 0.10.2" in out
    # the CPU build: PyPI's default torch wheel on Linux bundles CUDA, gigabytes of it
    cpu = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert f"# PyTorch: not installed (to compare, the CPU build: {cpu})" in out
    assert '# JAX: not installed (to compare: pip install "jax[cpu]==0.10.2")' in out


def test_ops_lists_every_op_with_plugin_and_signature(capsys):
    from tenferro.core.registry import default_registry

    assert main(["ops"]) == 0
    lines = capsys.readouterr().out.splitlines()
    registry = default_registry()
    assert lines[-1] == f"{len(registry)} ops from {len(registry.plugins)} plugins"
    assert any(line.startswith("reduce") and "reduce_sum(x, axes=None)" in line for line in lines)
    assert any(line.startswith("elementwise") and "compare(a, b, op)" in line for line in lines)


def test_module_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "tenferro", "ops"], capture_output=True, text=True, check=True)
    assert "where_select(cond, a, b)" in result.stdout


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2
