"""The README's Python blocks run as written and compute what their comments say.

A block of ``>>>`` lines is a doctest (its printed values are checked); any other block is
run as a script. Tracebacks point at README.md's own line numbers.
"""

import doctest
import pathlib
import re

import numpy as np
import pytest
from conftest import exact_grad, exact_hvp

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def python_blocks():
    """(first line number, code) of every ```python block in README.md."""
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start(1)) + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


def run_script(line, code):
    namespace = {"__name__": "readme"}
    exec(compile("\n" * (line - 1) + code, str(README), "exec"), namespace)
    return namespace


SCRIPTS = [(line, code) for line, code in python_blocks() if not code.lstrip().startswith(">>>")]
DOCTESTS = [(line, code) for line, code in python_blocks() if code.lstrip().startswith(">>>")]


def test_readme_has_the_api_block_and_the_column_major_example():
    assert SCRIPTS and DOCTESTS
    # the headline builds data the NumPy way: from_vec_col_major copied for 2-D data
    # gives wrong values silently, so it is shown only beside its warning
    assert "from_vec_col_major" not in SCRIPTS[0][1]
    assert any("from_vec_col_major" in code for _, code in DOCTESTS)


@pytest.mark.parametrize("line, code", SCRIPTS, ids=[f"README.md:{line}" for line, _ in SCRIPTS])
def test_script_block_runs(line, code):
    run_script(line, code)


@pytest.mark.parametrize("line, code", DOCTESTS, ids=[f"README.md:{line}" for line, _ in DOCTESTS])
def test_doctest_block_prints_what_it_shows(line, code):
    test = doctest.DocTestParser().get_doctest(code, {}, "README", str(README), line - 1)
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_api_block_computes_what_its_comments_say(capsys):
    line, code = SCRIPTS[0]
    ns = run_script(line, code)
    x, p, loss, grads, xs = ns["x"], ns["p"], ns["loss"], ns["grads"], ns["xs"]
    # x = rt.variable_from(xs): a requires-grad leaf holding xs in NumPy's order
    assert x.is_variable() and np.array_equal(np.asarray(x), xs)
    # backward adds cos(x)·x² + 2x·sin(x) into x's slot; non-variables have no slot
    assert np.max(np.abs(x.grad().to_numpy() - exact_grad(xs))) <= 4.441e-16
    assert len(grads) == 1 and p.grad() is None and loss.grad() is None
    # rt.grad is differentiable again: hv is the Hessian-vector product with v = cos(i)
    assert ns["gf"].tracks_grad()
    assert np.max(np.abs(np.asarray(ns["hv"]) - exact_hvp(xs, np.cos(np.arange(len(xs)))))) <= 2.0**-49
    # the recorded program, one op per line
    assert "  c = mul a a" in capsys.readouterr().out
