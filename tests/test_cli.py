"""The `tenferro` command: tour (with and without comparison libraries) and ops."""

import pathlib
import re
import subprocess
import sys

import pytest

from tenferro.cli import main


def _tour_lines(capsys):
    assert main(["tour"]) == 0
    return capsys.readouterr().out.splitlines()


def test_tour_shows_the_front_end_first_with_the_seed_numbers(capsys):
    """The README's one-screen API and the transforms, then the seed page's session API."""
    lines = _tour_lines(capsys)
    out = "\n".join(lines)
    for line in [
        "== 1. the front end: NumPy code, recorded as it runs",
        "x = tf.variable(xs); p = tnp.sin(x) * x**2; loss = p.sum()",
        "loss.backward(): x.grad() = [1.972602, 1.993120, 2.013449, ...]  max|x.grad() - exact| = 0.000e+00",
        "len(grads) = 1  p.grad() = None  (only variables have a gradient slot)",
        "x - 0.1 * x.grad(): an EagerTensor, max|. - (xs - 0.1*exact)| = 0.000e+00",
        "gf = rt.grad(loss, x): gf == x.grad() bitwise: True",
        "rt.grad(tnp.sum(gf * v), x), a Hessian-vector product: max|hvp - exact| = 1.776e-15",
        "y = np.sin(x) * np.sum(x): y.tracks_grad() = True  (NumPy's own functions record too)",
        "np.asarray(x): ndarray, writeable False  (the exit: no gradient past it)",
        "== 2. function transforms, as JAX names them",
        "tf.grad(f)(xs): max|. - exact| = 0.000e+00",
        "tf.hessian(f)(xs[:5]): shape (5, 5), max|diagonal - f''| = 0.000e+00, off the diagonal 0 nonzeros",
        "tf.grad(tf.grad(lambda x: x**3))(2.0) = 12.0  (transforms nest)",
        "tf.vmap(tf.grad(lambda xi: sin(xi)*xi**2))(xs), per element: max|. - exact| = 0.000e+00",
        "tf.jit(tf.grad(f)), called 3 times: 1 trace, 2 replays of its plan, each == tf.grad(f)(xs) bitwise: True",
        "tf.grad(lambda x: float(tnp.sum(x)))(xs): expected error: ArgumentError: float(x): the result of reduce_sum "
        "is computed from the arguments grad is differentiating",
    ]:
        assert line in out, line
    seed = lines.index(
        "# the seed page, with its session API: rt = EagerRuntime(), eng = CpuEngine.serial(), ops are s.<op>"
    )
    assert lines.index("== 2. function transforms, as JAX names them") < seed < lines.index("== 3. the same gradient")


def test_tour_runs_the_seed_page_with_its_numbers(capsys):
    out = "\n".join(_tour_lines(capsys))
    for line in [
        "x.grad() = [1.972602, 1.993120, 2.013449, ...]  max|x.grad() - exact| = 0.000e+00",
        "p.grad() = None  loss.grad() = None",
        "loss.backward(eng) again: no error",
        "x.grad() = [3.945205, 3.986240, 4.026898, ...]  x.grad() == 2*first bitwise: True",
        "p.backward(eng): expected error: NonScalarGrad: grad requires a scalar output, got shape [1000]",
        "p.backward_with(eng, v): max|x.grad() - v*g_exact| = 8.882e-16",
        "p.backward_with(eng, ones) == loss.backward(eng) bitwise: True",
        "p.backward_with(eng, v of other_rt): expected error: ContextMismatch: backward_with: the cotangent v belongs "
        "to other_rt, not to rt",
        "gf == first bitwise: True  x.grad() = None  gf.tracks_grad() = True",
        "hvp = rt.grad(eng, sum(gf*v), x): max|hvp - exact| = 1.776e-15",
        "rt.grad(eng, loss, p): expected error: GradInactive: grad is inactive",
        "grads = y.backward(eng): no error, len(grads) == 0, x.grad() = None",
        "grad of sum(x.detach(eng)*x) == x: bitwise 1000/1000",
        "  c = mul a a",
    ]:
        assert line in out, line


def test_tour_labels_every_error_it_provokes_as_expected_and_shows_no_object_addresses(capsys):
    lines = _tour_lines(capsys)
    import tenferro

    kinds = [name for name in tenferro.__all__ if name.endswith(("Error", "Grad", "Mismatch", "Inactive"))]
    errors = [line for line in lines if any(kind in line for kind in kinds)]
    assert len(errors) == 4 and all(": expected error: " in line for line in errors), errors
    assert not any("raises" in line or re.search(r"0x[0-9a-f]{4,}", line) for line in lines)
    numbers = [int(m.group(1)) for line in lines if (m := re.match(r"== (\d+)\. ", line))]
    assert numbers == list(range(1, 11))


def test_tour_speaks_python_not_rust(capsys):
    """Errors print as `expected error: Type: message`, lengths as len(); no Rust Ok/Err/.len()."""
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
    from tenferro.core.loading import default_registry

    assert main(["ops"]) == 0
    lines = capsys.readouterr().out.splitlines()
    registry = default_registry()
    ops, plugins = len(registry), len(registry.plugins)
    internal = sum(spec.internal for spec in registry)
    complex_ = sum(any("c" in kinds for kinds in spec.accepts) for spec in registry)
    assert lines[-1] == (
        f"{ops} ops from {plugins} plugins; {internal} (internal) exist for other ops' VJPs; "
        f"{complex_} (complex) accept complex inputs"
    )
    assert any(line.startswith("reduce") and "reduce_sum(x, axes=None, keepdims=False)" in line for line in lines)
    assert any(line.startswith("elementwise") and "compare(a, b, op)" in line for line in lines)


def test_ops_marks_the_ops_that_exist_only_for_vjps(capsys):
    from tenferro.core.loading import default_registry

    assert main(["ops"]) == 0
    marked = {line.split()[1].split("(")[0] for line in capsys.readouterr().out.splitlines() if "  (internal) " in line}
    assert marked == {spec.name for spec in default_registry() if spec.internal}
    assert {"add_any", "sum_to", "expand_to", "prod_except", "prod_except_vjp", "slice_scatter"} <= marked
    assert not {"reduce_sum", "mul", "softmax"} & marked
    assert {"scatter_add_to", "dynamic_pad", "scatter_winners", "filled"} <= marked  # the index family's


def test_ops_marks_the_ops_that_accept_complex_inputs(capsys):
    assert main(["ops"]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if line.startswith("elementwise ")}
    assert "(complex) a * b." in lines["mul(a,"]
    assert "(complex)" not in lines["maximum(a,"]


def test_ops_prints_the_conventions_each_op_declares_at_its_kinks(capsys):
    assert main(["ops"]) == 0
    lines = capsys.readouterr().out.splitlines()
    following = {line.split()[1]: lines[i + 1].strip() for i, line in enumerate(lines[:-1]) if not line[0].isspace()}
    assert following["abs(x)"] == "kink: abs(x=[0.0, -0.0]) with g=1.0 gives x: [0.0, 0.0]"
    assert (
        following["maximum(a,"] == "kink: maximum(a=[1.0, 1.0, 3.0], b=1.0) with g=1.0 gives a: [0.5, 0.5, 1.0], b: 1.0"
    )
    assert following["sqrt(x)"] == "kink: sqrt(x=[0.0]) with g=1.0 gives x: [inf]"
    assert not following["sin(x)"].startswith("kink:")


def _tenferro(*args, cwd):
    """The tenferro command run as its console script runs it: the working directory is not
    on sys.path unless tenferro puts it there (python -I; `python -m` would add it)."""
    main = "import sys; from tenferro.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-I", "-c", main, *args], capture_output=True, text=True, cwd=cwd)


def test_check_lists_each_item_it_skipped_and_why():
    tests = pathlib.Path(__file__).parent  # --load finds broken_plugins here, in the working directory
    result = _tenferro("check", "bare", "--load", "bare=broken_plugins:BARE", cwd=tests)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "14 skipped" in result.stdout
    assert "SKIPPED bare::bare_neg::error_inputs - Skipped: the spec declares no error_inputs" in result.stdout


def test_check_runs_no_file_of_the_working_directory_as_a_pytest_plugin(tmp_path):
    """A file there named like a pytest plugin module (hypothesis's) must not be imported."""
    marker = tmp_path / "IMPORTED"
    (tmp_path / "_hypothesis_pytestplugin.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    result = _tenferro(
        "check", "elementwise", "-k", "neg and forward and not complex", "--max-examples", "1", cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert not marker.exists()


def test_module_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "tenferro", "ops"], capture_output=True, text=True, check=True)
    assert "where_select(cond, a, b)" in result.stdout


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


def test_check_of_a_plugin_that_is_not_there_is_a_usage_error_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["check", "nope"], ["check", "mine", "--load", "no_such_module_here"]):
        result = subprocess.run([sys.executable, "-m", "tenferro", *args], capture_output=True, text=True)
        output = result.stdout + result.stderr
        assert result.returncode != 0
        assert "ERROR: tenferro conformance:" in output
        assert "INTERNALERROR" not in output and "Traceback" not in output


def test_check_with_load_leaves_sys_path_as_it_found_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    main(["check", "mine", "--load", "no_such_module_here", "-q"])
    assert sys.path == before


def test_check_takes_several_plugin_names_separated_by_spaces(monkeypatch):
    seen = {}
    monkeypatch.setattr("tenferro.cli._check", lambda args: seen.update(vars(args)) or 0)
    # _check is looked up when the parser is built, so patch before calling main
    assert main(["check", "shape", "index", "nn", "-k", "concat"]) == 0
    assert seen["plugins"] == "shape,index,nn" and seen["pytest_args"] == ["-k", "concat"]


def test_check_help_says_where_pytest_options_go(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "-k EXPR selects checks" in " ".join(capsys.readouterr().out.split())


#: Modules a working directory may hold by accident, each leaving a marker when imported
#: (numpy.py also fails, as a stray file of that name would).
STRAY = {
    "numpy.py": "raise ImportError('the numpy.py of the working directory was imported')",
    "pickle.py": "",
}


def _stray_modules(directory):
    for name, body in STRAY.items():
        marker = directory / f"IMPORTED-{name}"
        (directory / name).write_text(f"open({str(marker)!r}, 'a').close()\n{body}\n")


def _solo(tmp_path):
    from tenferro import benchmark

    assert len(benchmark.solo("numpy", [("grad", 10)], blocks=2, seconds=0.001)[0]) == 2


def _dask_bench(tmp_path):
    pytest.importorskip("distributed")
    path = tmp_path / "out" / "d.json"
    path.parent.mkdir()
    args = ["bench", "--engine", "dask", "--n", "1e3", "--chunks", "500", "--json", "out/d.json"]
    assert main(args) == 0
    assert path.exists()  # a relative --json path still means the caller's directory


@pytest.mark.parametrize("command", [_solo, _dask_bench], ids=["bench-solo-process", "bench-dask-workers"])
def test_no_python_the_cli_starts_imports_a_module_of_the_working_directory(tmp_path, monkeypatch, command):
    """`python -m` and `python -c` put the working directory first on sys.path: a process
    `tenferro bench` starts (a library timed in a process of its own, a LocalCluster's
    workers and their resource tracker) must not pick up a numpy.py or pickle.py there."""
    _stray_modules(tmp_path)
    monkeypatch.chdir(tmp_path)
    command(tmp_path)
    assert sorted(path.name for path in tmp_path.glob("IMPORTED-*")) == []
    assert pathlib.Path.cwd() == tmp_path
