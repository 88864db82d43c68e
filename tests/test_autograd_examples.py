"""examples/autograd/: programs written for HIPS autograd, whose imports alone name
tenferro.autograd, run; where autograd is installed, each also runs with `autograd` in its
imports, and both give the same numbers."""

import pathlib
import re

import numpy as np
import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parents[1] / "examples" / "autograd").glob("*.py"))


def _run(source: str, name: str) -> dict:
    namespace = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def test_there_are_five_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_an_example_runs_and_gives_autograds_numbers(path):
    source = path.read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if re.match(r"(import|from) ", line)]
    assert any("tenferro.autograd" in line for line in imports)
    assert "tenferro" not in "\n".join(line for line in source.splitlines() if line not in imports)  # only imports
    ours = _run(source, f"examples.autograd.{path.stem}")["result"]
    assert isinstance(ours, np.ndarray)
    pytest.importorskip("autograd")
    theirs = _run(source.replace("tenferro.autograd", "autograd"), f"autograd_{path.stem}")["result"]
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
