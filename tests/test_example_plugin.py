"""The third-party example in examples/tenferro-mathx passes the conformance suite.

CI also pip-installs it and runs `tenferro check mathx` (the entry-point path); here it is
loaded directly, so the test needs no install step.
"""

import pathlib
import subprocess
import sys

import numpy as np
import pytest
from conftest import PLAIN_OP_CHECKS, with_dependents

from tenferro import CpuEngine, EagerRuntime, PluginError
from tenferro.core.loading import load_registry
from tenferro.testing.conformance import check_plugin

SOURCE = pathlib.Path(__file__).parents[1] / "examples" / "tenferro-mathx" / "src"


@pytest.fixture(scope="module")
def mathx_rt():
    """A runtime with the example loaded from its source (an installed copy is blocked)."""
    sys.path.insert(0, str(SOURCE))
    try:
        import tenferro_mathx

        registry = load_registry([("mathx_source", tenferro_mathx)], blocked=["mathx"])
        yield EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    finally:
        sys.path.remove(str(SOURCE))


# The checks every mathx op gets: all four are differentiable and declare residuals, and
# none is linear. soft_threshold alone declares kinks, so it alone gets the kinks check.
EVERY_OP = PLAIN_OP_CHECKS
OPS = {"logit", "xlogy", "soft_threshold", "entropy"}


def test_example_plugin_passes_the_suite(mathx_rt):
    outcomes = check_plugin("mathx_source", rt=mathx_rt, max_examples=5)
    expected = {(op, check) for op in OPS for check in EVERY_OP} | {("soft_threshold", "kinks")}
    assert {(o.op, o.check) for o in outcomes} == expected  # 4 × 15 + 1 = 61, none skipped
    assert len(outcomes) == 61 and {o.status for o in outcomes} == {"passed"}


def test_example_op_names_are_not_builtin_op_names(mathx_rt):
    """A built-in family that grows should not take the example's names (the example's ops
    would then be reached by their qualified names alone, with a warning), and the example
    must not shadow a built-in."""
    builtin = {spec.name for spec in mathx_rt.registry if spec.plugin != "mathx_source"}
    assert not OPS & builtin


def test_soft_threshold_gives_zero_gradient_on_the_threshold(mathx_rt):
    """The convention its Kink declares: 0 at |x| = threshold (PyTorch's softshrink)."""
    x = mathx_rt.variable_from(np.array([-2.0, -1.0, 0.5, 1.0, 3.0]))
    loss = mathx_rt.with_eager_session(lambda s: s.reduce_sum(s.soft_threshold(x), None))
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), [1.0, 0.0, 0.0, 0.0, 1.0])


def test_the_example_declares_the_plugins_its_rules_use(monkeypatch):
    """Blocking elementwise (whose ops the rules call) fails when the registry is built,
    naming both plugins, not in the middle of a backward pass (strict loading: otherwise
    the plugin would be skipped with a warning)."""
    monkeypatch.setenv("TENFERRO_STRICT_PLUGINS", "1")
    sys.path.insert(0, str(SOURCE))
    try:
        import tenferro_mathx

        with pytest.raises(PluginError, match=r"(?s)mathx_source.*elementwise"):
            blocked = {"mathx", *with_dependents("elementwise", "reduce")}
            load_registry([("mathx_source", tenferro_mathx)], blocked=sorted(blocked))
    finally:
        sys.path.remove(str(SOURCE))


def test_example_ops_are_session_methods(mathx_rt):
    x = mathx_rt.variable_from(np.array([0.5, 0.25]))
    loss = mathx_rt.with_eager_session(lambda s: s.reduce_sum(s.logit(x), None))
    loss.backward()
    np.testing.assert_allclose(x.grad().to_numpy(), [4.0, 16.0 / 3.0], rtol=1e-15)
    p = mathx_rt.constant_from(np.array([[0.5, 0.5], [0.25, 0.0]]))
    out = np.asarray(mathx_rt.with_eager_session(lambda s: s.entropy(p)))
    np.testing.assert_allclose(out, [np.log(2.0), 0.25 * np.log(4.0)], rtol=1e-15)


def test_tenferro_check_and_plugins_commands():
    run = [sys.executable, "-m", "tenferro"]
    ok = subprocess.run(
        [*run, "check", "reduce", "--max-examples", "2", "-q", "-k", "reduce_sum"], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "30 passed" in ok.stdout  # 18 checks, 12 of them also on complex samples
    listing = subprocess.run([*run, "plugins"], capture_output=True, text=True, check=True).stdout
    assert listing.splitlines()[0].startswith("core ")
    assert any(line.startswith("reduce ") and "reduce_sum" in line for line in listing.splitlines())
    missing = subprocess.run([*run, "check", "nope", "-q"], capture_output=True, text=True)
    assert missing.returncode != 0 and "no plugin named 'nope' is loaded" in missing.stdout + missing.stderr
