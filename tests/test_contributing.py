"""CONTRIBUTING.md cannot rot: the plugin its python blocks build passes the conformance
suite, its other blocks run and print what they say, its check table lists the suite's
checks, and neither it nor the example plugin imports tenferro beyond tenferro.extend."""

import ast
import contextlib
import importlib
import io
import pathlib
import re
import subprocess
import sys

import pytest
from conftest import PLAIN_OP_CHECKS

from tenferro import CpuEngine, EagerRuntime
from tenferro.testing.checks import CHECKS
from tenferro.testing.conformance import check_plugin

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
EXAMPLE = ROOT / "examples" / "tenferro-mathx"
#: The first line of every python block that is part of the guide's plugin module.
MODULE_HEADER = "# src/mymath/__init__.py"


def blocks(language):
    return re.findall(rf"^```{language}\n(.*?)^```", GUIDE, re.S | re.M)


MODULE_SOURCE = "\n\n".join(block for block in blocks("python") if block.startswith(MODULE_HEADER))


@pytest.fixture(scope="module")
def guide_dir(tmp_path_factory):
    """A directory holding the package ``mymath`` assembled from the guide's blocks, on
    sys.path while the tests of this module run."""
    root = tmp_path_factory.mktemp("guide")
    (root / "mymath").mkdir()
    (root / "mymath" / "__init__.py").write_text(MODULE_SOURCE, encoding="utf-8")
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("mymath", None)


# The checks each of the guide's ops gets: all five are differentiable, all declare
# residuals (lerp's are implied by linear=True), leaky_relu alone declares kinks, lerp alone
# linearity (and so a derived forward-mode rule), clogcosh alone accepts complex inputs.
EVERY_OP = PLAIN_OP_CHECKS
OPS = {"logcosh", "lerp", "sum_squares", "leaky_relu", "clogcosh"}
ON_COMPLEX = {
    "complex_forward",
    "complex64",
    "complex_engine_neutral",
    "complex_dask_engine",
    "complex_vjp_fd",
    "complex_vjp2_fd",
    "complex_vjp_shapes",
    "complex_jvp_fd",
    "complex_residuals",
    "complex_jit",
}


def test_the_guide_plugin_passes_the_suite(guide_dir):
    mymath = importlib.import_module("mymath")
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[mymath])
    outcomes = check_plugin("mymath", rt=rt, max_examples=5)
    expected = {(op, check) for op in OPS for check in EVERY_OP}
    expected |= {("leaky_relu", "kinks"), ("lerp", "linear"), ("lerp", "jvp")}
    expected |= {("clogcosh", check) for check in ON_COMPLEX}
    assert {(o.op, o.check) for o in outcomes} == expected  # 5 × 15 + 3 + 10 = 88, none skipped
    assert {o.status for o in outcomes} == {"passed"}


@pytest.mark.parametrize("index", range(len([b for b in blocks("python") if not b.startswith(MODULE_HEADER)])))
def test_the_other_python_blocks_run_and_print_what_they_say(guide_dir, index):
    block = [b for b in blocks("python") if not b.startswith(MODULE_HEADER)][index]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, f"CONTRIBUTING.md python block {index}", "exec"), {})
    assert printed.getvalue().strip() in block


def test_the_check_command_loads_the_guide_plugin(guide_dir):
    """The guide's `tenferro check mymath --load mymath`, from the package's directory, on a
    slice of the items (the whole suite runs in-process above)."""
    command = ["check", "mymath", "--load", "mymath", "-q", "-k", "lerp and forward", "--max-examples", "2"]
    assert "tenferro check mymath --load mymath" in GUIDE
    run = subprocess.run([sys.executable, "-m", "tenferro", *command], cwd=guide_dir, capture_output=True, text=True)
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr


def test_the_pyproject_blocks_name_the_module_the_guide_builds():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project, package_data = (tomllib.loads(block) for block in blocks("toml"))
    assert project["project"]["entry-points"]["tenferro"] == {"mymath": "mymath"}
    assert package_data["tool"]["setuptools"]["package-data"] == {"mymath": ["tenferro-xfail.txt"]}


# Checks the guide describes ahead of the branches that add them to the suite. Strict, like
# tenferro-xfail.txt: once a check exists, its entry here must go.
PENDING_CHECKS: set[str] = set()


def test_the_check_table_lists_the_suite_checks():
    listed = re.findall(r"^\| `(\w+)` \|", GUIDE, re.M)
    assert len(listed) == len(set(listed))
    assert set(listed) - set(CHECKS) == PENDING_CHECKS
    assert set(CHECKS) <= set(listed)


def test_the_core_layers_are_those_test_layers_enforces():
    from test_layers import LAYERS

    section = GUIDE[GUIDE.index("## Working on the core") :]
    items = re.findall(r"^ {1,2}\d+\. (.+?)(?=^ {1,2}\d+\. |^- )", section, re.S | re.M)
    described = [(item.split(":")[0].replace("`", ""), set(re.findall(r"`(\w+)\.py`", item))) for item in items]
    assert described == LAYERS


# -- a plugin imports tenferro.extend and nothing else of tenferro ---------------------------
INTERNAL_IMPORT = re.compile(
    r"^\s*(?:from|import)\s+tenferro\.(?:core|plugins|testing)\b|^\s*from\s+tenferro\s+import\s.*\b(?:core|plugins|testing)\b",
    re.M,
)
DOCUMENTS = [
    "CONTRIBUTING.md",
    *sorted(str(p.relative_to(ROOT)) for p in EXAMPLE.rglob("*") if p.suffix in {".py", ".md", ".toml"}),
]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_no_import_of_tenferro_internals(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert INTERNAL_IMPORT.findall(text) == []


def tenferro_modules_imported(source):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "tenferro")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] == "tenferro":
            if node.module == "tenferro":  # from tenferro import extend, or a top-level name
                yield from (f"tenferro.{alias.name}" for alias in node.names)
            else:
                yield node.module


@pytest.mark.parametrize(
    "source",
    [MODULE_SOURCE, *(p.read_text(encoding="utf-8") for p in sorted(EXAMPLE.rglob("*.py")))],
    ids=["CONTRIBUTING.md", *(p.name for p in sorted(EXAMPLE.rglob("*.py")))],
)
def test_plugin_code_imports_nothing_of_tenferro_but_extend(source):
    assert set(tenferro_modules_imported(source)) == {"tenferro.extend"}
