"""The Python blocks of README.md and docs/behaviour.md run as written, and the README's
headline computes what its comments say.

A block of ``>>>`` lines is a doctest (its printed values are checked); any other block is
run as a script. Tracebacks point at the document's own line numbers.
"""

import doctest
import pathlib
import re

import numpy as np
import pytest
from conftest import exact_grad, exact_hvp

import tenferro as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCUMENTS = [README, ROOT / "docs" / "behaviour.md"]


def python_blocks(path):
    """(first line number, code) of every ```python block in the document at ``path``."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start(1)) + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)
    ]


def run_script(path, line, code):
    namespace = {"__name__": "readme"}
    exec(compile("\n" * (line - 1) + code, str(path), "exec"), namespace)
    return namespace


BLOCKS = [(path, line, code) for path in DOCUMENTS for line, code in python_blocks(path)]
SCRIPTS = [block for block in BLOCKS if not block[2].lstrip().startswith(">>>")]
DOCTESTS = [block for block in BLOCKS if block[2].lstrip().startswith(">>>")]


def ids(blocks):
    return [f"{path.relative_to(ROOT)}:{line}" for path, line, _ in blocks]


def _readme_block(marker):
    """(line, code) of the README's python block that contains ``marker``."""
    return next((line, code) for line, code in python_blocks(README) if marker in code)


def test_readme_has_the_api_blocks_and_the_column_major_example():
    blocks = python_blocks(README)
    front, seed = blocks[0][1], blocks[1][1]
    assert "import tenferro.numpy as tnp" in front and "with_eager_session" in seed
    doctests = [code for _, code in blocks if code.lstrip().startswith(">>>")]
    # the headlines build data the NumPy way: from_vec_col_major copied for 2-D data
    # gives wrong values silently, so it is shown only beside its warning
    assert "from_vec_col_major" not in front and "from_vec_col_major" not in seed
    assert "from_vec_col_major" in doctests[0]


@pytest.mark.parametrize("path, line, code", SCRIPTS, ids=ids(SCRIPTS))
def test_script_block_runs(path, line, code):
    run_script(path, line, code)


@pytest.mark.parametrize("path, line, code", DOCTESTS, ids=ids(DOCTESTS))
def test_doctest_block_prints_what_it_shows(path, line, code):
    test = doctest.DocTestParser().get_doctest(code, {}, path.name, str(path), line - 1)
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_front_end_block_computes_what_its_comments_say(capsys):
    line, code = _readme_block("import tenferro.numpy as tnp")
    ns = run_script(README, line, code)
    x, p, loss, grads, xs = ns["x"], ns["p"], ns["loss"], ns["grads"], ns["xs"]
    assert x.is_variable() and np.array_equal(np.asarray(x), xs)
    # backward adds cos(x)·x² + 2x·sin(x) into x's slot; non-variables have no slot
    assert np.max(np.abs(x.grad().to_numpy() - exact_grad(xs))) <= 4.441e-16
    assert len(grads) == 1 and p.grad() is None and loss.grad() is None
    assert float(loss) == float(np.asarray(loss))
    # a gradient is a Tensor with NumPy's arithmetic; beside x the step is recorded
    assert type(ns["g"]) is tf.Tensor and type(ns["x1"]) is tf.EagerTensor and ns["x1"].tracks_grad()
    assert np.array_equal(np.asarray(ns["x1"]), xs - 0.1 * np.asarray(ns["g"]))
    # rt.grad is differentiable again: hv is the Hessian-vector product with v = cos(i)
    assert ns["gf"].tracks_grad()
    assert np.max(np.abs(np.asarray(ns["hv"]) - exact_hvp(xs, np.cos(np.arange(len(xs)))))) <= 2.0**-49
    # NumPy's functions recorded; np.asarray is the exit
    assert ns["y"].tracks_grad() and type(ns["x0"]) is np.ndarray
    assert "mul" in capsys.readouterr().out


def test_session_block_computes_what_its_comments_say(capsys):
    line, code = _readme_block("with_eager_session")
    ns = run_script(README, line, code)
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


def test_transforms_block_computes_what_its_comments_say():
    line, code = _readme_block("tf.value_and_grad(loss)")
    ns = run_script(README, line, code)
    xs = ns["xs"]
    assert set(ns["grads"]) == {"W1", "b1", "W2"} and ns["grads"]["W1"].shape == (4, 8)
    assert not ns["params"]["W1"].tracks_grad()  # the update is a constant: no history
    assert np.max(np.abs(np.asarray(ns["g"]) - exact_grad(xs))) <= 4.441e-16
    assert float(ns["d2"]) == 12.0
    assert np.isclose(float(ns["tangent"]), float(np.sum(exact_grad(xs))), rtol=1e-14)
    assert np.asarray(ns["H"]).shape == (5, 5)


def _front():
    text = README.read_text(encoding="utf-8")
    return text[: text.index("## The API in one screen")]


def test_readme_says_how_long_its_test_command_takes_and_names_the_heavier_profile():
    from hypothesis import settings

    from tenferro.testing.profiles import SWEEP_EXAMPLES  # registers the profiles too

    front = _front()
    minutes = re.search(r"Run the tests \([^)]*?about (\d+) minutes on two idle cores", front)
    assert minutes and int(minutes.group(1)) <= 5
    assert 'pip install -e ".[test,dask]" && pytest\n' in front
    stated = re.search(
        r"`pytest` runs (\d+) hypothesis examples per property, new ones each run \(the `dev`\s+profile\), "
        r"and (\d+) per check in the sweep of the built-in ops' conformance checks \([\d ]+\s+items\); "
        r"CI sets `CI=1` for the same, derandomised \(the `ci` profile\)\.\s+"
        r"`TENFERRO_HYPOTHESIS_PROFILE=thorough pytest` runs (\d+) everywhere \(about (\d+) minutes\) and\s+"
        r"`nightly` (\d+)",
        front,
    )
    assert stated, "the README's sentence on the profiles"
    dev, sweep, thorough, _, nightly = map(int, stated.groups())
    assert dev == settings.get_profile("dev").max_examples == settings.get_profile("ci").max_examples
    assert sweep == SWEEP_EXAMPLES["dev"] == SWEEP_EXAMPLES["ci"]
    assert (thorough, nightly) == (
        settings.get_profile("thorough").max_examples,
        settings.get_profile("nightly").max_examples,
    )


def test_readme_defines_its_words_where_they_first_appear_and_says_what_is_not_there_yet():
    front = _front()
    for word in ("slots", "runtime", "engine", "session", "implicit session"):
        assert f"*{word}*" in front, word
    missing = front[front.index("**Not there yet**") :]
    for thing in ("vmap", "jit", "GPU", "EngineError", "tenferro.scipy"):
        assert thing in missing, thing
    # there since issue 26 (the transforms' section names it, and its policies since they exist)
    transforms = README.read_text(encoding="utf-8").split("### Function transforms")[1].split("\n## ")[0]
    assert "`tf.checkpoint(f)`" in transforms and "policy=" in transforms
    assert "runs the others once per" in missing and "policy" not in missing
    assert "custom_vjp" not in missing  # there since issue 24: the transforms' section shows it
