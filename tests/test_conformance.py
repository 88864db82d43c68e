"""The conformance suite: every built-in op passes it, and it catches broken plugins."""

import dataclasses
import os
import pathlib
import subprocess
import sys

import broken_plugins
import numpy as np
import pytest
from conftest import plugin_of

from tenferro import ArgumentError, EagerRuntime, OpSpec
from tenferro.core.loading import default_registry
from tenferro.testing import derivative_checks, strategies
from tenferro.testing.checks import CHECKS
from tenferro.testing.conformance import (
    ConformanceFailure,
    check_op,
    check_plugin,
    conformance_runtime,
    current_settings,
    expected_failures,
    run_check,
    selected,
)
from tenferro.testing.oracle import CONVERGED, COTANGENT, NOT_CONVERGED, Comparison, FiniteDifference
from tenferro.testing.profiles import ENGINE_SWEEP_EXAMPLES, SWEEP_EXAMPLES, current_profile

RT = conformance_runtime()
#: The plugins tenferro ships (others may be installed, e.g. the example plugin).
BUILTIN_PLUGINS = [name for name, info in RT.registry.plugins.items() if info.distribution == "tenferro"]
BUILTIN = list(selected(RT.registry, BUILTIN_PLUGINS))


def _param(spec, check):
    reason = expected_failures(RT.registry, spec.plugin).get((spec.name, check.name))
    missing = check.skip_reason(spec)  # (dask_engine without dask)
    marks = [pytest.mark.xfail(reason=reason, strict=True, raises=ConformanceFailure)] if reason else []
    marks = [pytest.mark.skip(reason=missing)] if missing else marks
    return pytest.param(spec, check, id=f"{spec.plugin}::{spec.name}::{check.name}", marks=marks)


@pytest.mark.parametrize("spec, check", [_param(spec, check) for spec, check in BUILTIN])
def test_builtin_op_conforms(spec, check):
    examples = ENGINE_SWEEP_EXAMPLES if check.name.endswith("dask_engine") else SWEEP_EXAMPLES
    run_check(RT, spec, check, current_settings(examples.get(current_profile())))


def test_every_builtin_op_gets_the_derivative_checks():
    checked = {(spec.name, check.name) for spec, check in BUILTIN}
    shipped = {spec for spec, _ in BUILTIN}
    for spec in shipped:
        for name in ("forward", "no_mutation", "deterministic", "error_inputs", "float32", "engine_neutral"):
            assert (spec.name, name) in checked
        if spec.has_rules:
            for name in ("vjp_fd", "vjp2_fd", "jvp_fd", "vjp_shapes", "zero_cotangent"):
                assert (spec.name, name) in checked, (spec.name, name)
            # residuals=None keeps every value: nothing to check
            assert ((spec.name, "residuals") in checked) == (spec.residuals is not None)
            assert ((spec.name, "kinks") in checked) == bool(spec.kinks)
            assert ((spec.name, "jvp") in checked) == (spec.jvp is not None)
        assert ((spec.name, "linear") in checked) == spec.linear
        assert ((spec.name, "multilinear") in checked) == spec.multilinear
    linear = {spec.name for spec in shipped if spec.linear}
    assert {"add", "sub", "neg", "reduce_sum", "broadcast_to", "sum_to"} <= linear
    multilinear = {"mul", "cross", "dot_general", "einsum", "matmul", "tensordot"}
    assert multilinear | {"vecdot", "outer"} <= {spec.name for spec in shipped if spec.multilinear}
    assert len(BUILTIN) > 300


def test_every_builtin_op_whose_doc_states_a_convention_declares_its_kinks():
    stating = {spec.name for spec, _ in BUILTIN if "convention" in spec.doc.lower()}
    assert {"sqrt", "abs", "pow", "maximum", "minimum", "reduce_max", "reduce_min", "floor", "hypot"} <= stating
    assert all(RT.registry[name].kinks for name in stating | {"sign", "clamp"})


BROKEN = pathlib.Path(__file__).parent

#: The checks that run an op's rules (on samples that have something to differentiate);
#: dask_engine takes a VJP on a DaskEngine beside CpuEngine's.
RUNS_RULES = {"vjp_fd", "vjp2_fd", "jvp_fd", "vjp_shapes", "zero_cotangent", "no_mutation", "deterministic"}
RUNS_RULES |= {"dask_engine"}

#: plugin object in broken_plugins.py -> (the checks that must fail, a phrase of the report)
CAUGHT = {
    # a wrong VJP makes forward mode wrong too, where the op has no jvp rule (it is transposed)
    "VJP_OFF": ({"vjp_fd", "jvp_fd"}, "vjp_off::sin_off::vjp_fd failed"),
    # a rule's result the sweep rejects fails every check that runs the rules, as it fails users
    "NO_UNBROADCAST": (RUNS_RULES, "a cotangent must have its input's shape and dtype (sum broadcast axes back"),
    "MUTATING_FORWARD": (None, "the forward kernel wrote into input 0 ('x')"),
    "WRONG_COUNT": (RUNS_RULES, "the VJP of sin_two (plugin 'wrong_count') returned 2 cotangents for 1 inputs"),
    "ZERO_SECOND_ORDER": ({"vjp2_fd"}, "second order along input 0 ('x'): AD 0 vs finite differences"),
    "KINK_SAMPLER": ({"vjp_fd", "vjp2_fd", "jvp_fd"}, "or the sample sits on a kink the strategy should avoid"),
    "OUT_OF_DOMAIN": ({"vjp_fd", "jvp_fd"}, "the op gave nan or inf within the finite-difference step"),
    # forward mode transposes the VJP, so a VJP that is not differentiable in g is wrong there too
    "SOMETIMES_WRONG_SECOND_ORDER": ({"vjp2_fd", "jvp_fd"}, "second order along the cotangent u: AD"),
    "UNDECLARED_RESIDUAL": ({"residuals", "jvp_fd"}, "residuals=('out',) does not list it"),
    "ASTYPE_METHOD": ({"engine_neutral"}, "ndarray.astype, which another engine's array lacks; use tenferro.extend.ca"),
    # (and dask's arrays refuse the conversion: the engine never gathers silently)
    "COERCING": ({"engine_neutral", "dask_engine"}, "the kernel converted its array argument to a NumPy array (np"),
    "NUMPY_RESULT": ({"engine_neutral"}, "given duck arrays, the kernel returned a numpy.ndarray: it made a new"),
    "MIXED": ({"engine_neutral"}, "the kernel passed a NumPy array of its own making (float64["),
    "SHIFT_DECLARED_LINEAR": (
        {"linear", "jvp", "jvp_fd"},
        "declares linear=True (linear in x together), but f(αx + βy) differs",
    ),
    "SQUARE_DECLARED_MULTILINEAR": (
        {"multilinear", "jvp", "jvp_fd"},
        "declares multilinear=True (linear in b with the other inputs",
    ),
    "WRONG_TRANSPOSE": ({"linear", "jvp", "vjp_fd"}, "but its VJP is not its transpose in x: ⟨u, f(v)⟩ = "),
    "JVP_OFF": ({"jvp", "jvp_fd"}, "along input 0 ('x'): ⟨u, JVP(v)⟩ = "),
    "TANH_BOTH_OFF": ({"vjp_fd", "vjp2_fd", "jvp_fd"}, "forward mode along input 0 ('x'): AD"),
    "JVP_READS_DROPPED": ({"jvp_fd"}, "at a node that keeps only residuals=('out',) the rule read another value"),
    "FORGOT_CONJ": ({"complex_vjp_fd", "complex_jvp_fd"}, "forgot_conj::mul_unconjugated::complex_vjp_fd failed"),
    "WRONG_AT_KINK": (
        {"kinks"},
        "at the kink abs_kinked(x=[0.0, -0.5]) with g=1.0 gives x: [0.0, -1.0]: input 0 ('x') got [1.0, -1.0]",
    ),
}


@pytest.mark.parametrize("attr", sorted(CAUGHT))
def test_broken_plugins_are_caught_by_the_named_check(pytester, attr):
    pytester.syspathinsert(BROKEN)
    name = attr.lower()
    result = pytester.runpytest(
        f"--tenferro-conformance={name}",
        f"--tenferro-load={name}=broken_plugins:{attr}",
        "--tenferro-max-examples=5",
        "--tenferro-profile=ci",
        "-p",
        "no:cacheprovider",
    )
    failing, phrase = CAUGHT[attr]
    failed = {line.split("::")[2].split(" ")[0] for line in result.outlines if line.startswith(f"FAILED {name}::")}
    if failing is None:  # a mutating forward breaks nearly everything; no_mutation says why
        assert "no_mutation" in failed
    else:
        assert failed == failing
    assert phrase in result.stdout.str()
    assert f"rerun: tenferro check {name} --load {name}=broken_plugins:{attr} -k '" in result.stdout.str()


@pytest.mark.parametrize(
    "attr, name, failure",
    [
        ("KINK_SAMPLER", "relu_sampled_on_kink", "\n    on the sample args=(array("),  # the values, not strategy code
        ("OUT_OF_DOMAIN", "log_anywhere", "had to be rejected"),
    ],
    ids=["mismatch", "rejections"],
)
def test_a_report_shows_the_sample_and_a_rerun_command_not_hypothesis_advice(pytester, attr, name, failure):
    """A plugin author has no test function to put @seed(...) or @reproduce_failure(...)
    on: the report prints the failing sample's values and the command that reruns the item."""
    pytester.syspathinsert(BROKEN)
    result = pytester.runpytest(
        "--tenferro-conformance=broken",
        f"--tenferro-load=broken=broken_plugins:{attr}",
        "--tenferro-profile=dev",
        "--tenferro-max-examples=10",
        "-k",
        "vjp_fd",
        "-p",
        "no:cacheprovider",
    )
    out = result.stdout.str()
    assert failure in out
    assert "@seed" not in out and "reproduce_failure" not in out and "to this test" not in out
    command = f"rerun: tenferro check broken --load broken=broken_plugins:{attr} -k '{name} and vjp_fd' --profile dev"
    assert f"{command} --hypothesis-seed=" in out


def _offplugin(pytester, xfail: str, off: str = "", sample: str = "") -> None:
    """A plugin package ``offplugin`` with one op, sin_off (sin, its VJP scaled by ``off``),
    and the expected-failure file ``xfail``."""
    pytester.syspathinsert()
    package = pytester.mkpydir("offplugin")
    package.joinpath("__init__.py").write_text(
        "import numpy as np\n"
        "from tenferro import OpSpec, hookimpl\n"
        "from tenferro.testing.strategies import unary\n"
        "@hookimpl\n"
        "def tenferro_register_ops(registry):\n"
        "    registry.add(OpSpec(name='sin_off', inputs=('x',), forward=np.sin, reference=np.sin,\n"
        f"        vjp=lambda s, g, i, o: (s.mul(g, s.cos(i[0])){off},){sample}))\n"
    )
    package.joinpath("tenferro-xfail.txt").write_text(xfail)


@pytest.mark.parametrize(
    "entry, error",
    [
        ("sin_off::jvp: no rule", "check 'jvp' does not apply to 'sin_off'"),
        ("sin_off::vjp_df: typo", "expected 'op::check: reason' with a known check"),
    ],
)
def test_an_expected_failure_that_can_never_run_is_a_usage_error(pytester, entry, error):
    """A stale or misspelled entry of tenferro-xfail.txt would be ignored for ever: it is
    refused, naming the file and line, as a usage error (not a pytest INTERNALERROR)."""
    _offplugin(pytester, f"# known\n{entry}\n")
    result = pytester.runpytest(
        "--tenferro-conformance=offplugin", "--tenferro-load=offplugin", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: tenferro conformance: *tenferro-xfail.txt:2: *{error}*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_an_expected_failure_for_an_op_no_plugin_registers_is_a_warning(pytester):
    """Stale, or registered only with an optional dependency: said, not fatal."""
    _offplugin(pytester, "nosuchop::forward: gone\n")
    result = pytester.runpytest(
        "--tenferro-conformance=offplugin", "--tenferro-load=offplugin", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*tenferro-xfail.txt:1: no loaded plugin registers op 'nosuchop'*"])


def test_plugins_of_one_package_share_its_expected_failure_file(pytester):
    """The file sits beside the module: two plugin modules of one package read the same
    file, and each takes its own ops' entries without refusing the other's."""
    pytester.syspathinsert()
    package = pytester.mkpydir("twoplug")
    for name, factor in (("a", "1.001"), ("b", "1.0")):
        package.joinpath(f"{name}.py").write_text(
            "import numpy as np\n"
            "from tenferro import OpSpec, hookimpl\n"
            "from tenferro.testing.strategies import unary\n"
            "@hookimpl\n"
            "def tenferro_register_ops(registry):\n"
            f"    registry.add(OpSpec(name='{name}_sin', inputs=('x',), forward=np.sin, reference=np.sin,\n"
            f"        vjp=lambda s, g, i, o: (s.mul(g, s.cos(i[0])) * {factor},), sample=lambda: unary()))\n"
        )
    package.joinpath("tenferro-xfail.txt").write_text("a_sin::vjp_fd: 0.1 % off\na_sin::jvp_fd: transposes it\n")
    result = pytester.runpytest(
        "--tenferro-conformance=a,b",
        "--tenferro-load=a=twoplug.a",
        "--tenferro-load=b=twoplug.b",
        "--tenferro-max-examples=5",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=24, xfailed=2, skipped=2)  # skipped: no error_inputs


def test_the_dev_profile_is_randomised_in_a_ci_environment_too():
    """With CI set, hypothesis loads its own derandomised profile on import; --tenferro-profile
    dev must still mean random samples (and a seed to rerun them with)."""
    probe = "import tenferro.testing.profiles, hypothesis; print(hypothesis.settings.get_profile('dev').derandomize)"
    env = {**os.environ, "CI": "1"}
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env).stdout == "False\n"


def test_a_plain_pytest_runs_as_many_examples_as_ci_and_the_heavier_profile_is_chosen_on_purpose():
    """The default outside CI (a newcomer's ``pytest``) costs what CI's run costs: the same
    number of examples, only randomised; ``thorough`` and ``nightly`` run more."""
    from hypothesis import settings

    dev, ci = settings.get_profile("dev"), settings.get_profile("ci")
    assert dev.max_examples == ci.max_examples == 15
    assert not dev.derandomize and ci.derandomize
    assert settings.get_profile("thorough").max_examples > ci.max_examples
    assert settings.get_profile("nightly").max_examples > settings.get_profile("thorough").max_examples


def test_the_profile_options_offer_every_profile(capsys):
    from tenferro.cli import main
    from tenferro.testing.plugin import pytest_addoption
    from tenferro.testing.profiles import PROFILES

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "{" + ",".join(PROFILES) + "}" in capsys.readouterr().out
    seen = {}

    class Group:
        def addoption(self, name, **kwargs):
            seen[name] = kwargs

    class Parser:
        def getgroup(self, *args):
            return Group()

    pytest_addoption(Parser())
    assert tuple(seen["--tenferro-profile"]["choices"]) == PROFILES


def test_expected_failures_are_strict(pytester):
    xfail = (
        "# known problems\nsin_off::vjp_fd: the VJP is 0.1 % off\nsin_off::jvp_fd: forward mode transposes that VJP\n"
        "sin_off::forward: claimed, but it passes\n"
    )
    _offplugin(pytester, xfail, off=" * 1.001", sample=", sample=lambda: unary()")
    result = pytester.runpytest(
        "--tenferro-conformance=offplugin",
        "--tenferro-load=offplugin",
        "--tenferro-max-examples=5",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=10, xfailed=2, failed=1, skipped=1)  # skipped: no error_inputs
    result.stdout.fnmatch_lines(["FAILED offplugin::sin_off::forward - [[]XPASS(strict)[]] claimed, but it passes"])


def test_python_api(pytester):
    outcomes = check_op(default_registry()["sin"], rt=RT, max_examples=3)
    assert {o.status for o in outcomes} == {"passed"} and len(outcomes) == 28  # 17, 11 also on complex samples
    assert outcomes[0].id == "elementwise::sin::forward"
    broken = conformance_runtime([("vjp_off", broken_plugins.VJP_OFF)])
    with pytest.raises(ConformanceFailure, match="2 of 14 checks failed") as info:
        check_plugin("vjp_off", rt=broken, max_examples=5)
    assert "vjp_off::sin_off::vjp_fd failed" in str(info.value)
    with pytest.raises(ConformanceFailure, match="no plugin named 'nope' is loaded"):
        check_plugin("nope", rt=RT)


def test_the_python_api_refuses_a_runtime_or_op_the_checks_cannot_use():
    """An author's own runtime without a default engine, an op the runtime does not hold
    and an unknown check name are each one ArgumentError saying what to pass, not every
    check failing for the same reason (or with plugin '' in its id)."""
    with pytest.raises(ArgumentError, match="default engine"):
        check_plugin("vjp_off", rt=EagerRuntime(plugins=[("vjp_off", broken_plugins.VJP_OFF)]))
    unloaded = broken_plugins.VJP_OFF.spec
    with pytest.raises(ArgumentError, match=r"holds no op 'sin_off'.*conformance_runtime\(plugins="):
        check_op(unloaded, rt=RT)
    with pytest.raises(ArgumentError, match="give an OpSpec or an op name, got int"):
        check_op(3, rt=RT)
    with pytest.raises(ArgumentError, match="no check named 'vjp_df'"):
        check_op(RT.registry["sin"], rt=RT, checks=["vjp_df"])
    # the spec as the plugin module holds it: checked under its plugin's name; an op's name
    # will do, and checks may come from a generator
    rt = conformance_runtime([("vjp_off", broken_plugins.VJP_OFF)])
    (outcome,) = check_op(unloaded, rt=rt, checks=["forward"], max_examples=3)
    assert outcome.id == "vjp_off::sin_off::forward" and outcome.status == "passed"
    outcomes = check_op("sin_off", rt=rt, checks=(name for name in ["forward", "vjp_shapes"]), max_examples=3)
    assert [o.id for o in outcomes] == ["vjp_off::sin_off::forward", "vjp_off::sin_off::vjp_shapes"]
    # the fields of the spec given are the ones checked (a copy without a reference skips forward)
    (outcome,) = check_op(dataclasses.replace(unloaded, reference=None), rt=rt, checks=["forward"])
    assert outcome.status == "skipped" and "no reference" in outcome.message


def test_checks_a_spec_cannot_run_are_skipped_with_the_reason(pytester):
    """No sample, reference or error_inputs: each check that needs one is an explicit skip
    saying what is missing, not a crash ('NoneType' is not callable) or a silent gap."""
    rt = conformance_runtime([("bare", broken_plugins.BARE)])
    outcomes = {o.check: o for o in check_plugin("bare", rt=rt, max_examples=3)}
    assert len(outcomes) == 14 and {o.status for o in outcomes.values()} == {"skipped"}
    no_sample = "the spec declares no sample (a strategy of valid inputs; see tenferro.testing.strategies)"
    assert outcomes["vjp_fd"].message == f"bare::bare_neg::vjp_fd: {no_sample}"
    assert outcomes["forward"].message.endswith("; no reference (an independent NumPy implementation)")
    assert outcomes["error_inputs"].message.endswith("declares no error_inputs (calls that must raise a TenferroError)")

    pytester.syspathinsert(BROKEN)
    result = pytester.runpytest(
        "--tenferro-conformance=bare",
        "--tenferro-load=bare=broken_plugins:BARE",
        "-p",
        "no:cacheprovider",
        "-rs",
        "--no-fold-skipped",
    )
    result.assert_outcomes(skipped=14)
    result.stdout.fnmatch_lines([f"SKIPPED bare::bare_neg::vjp_shapes - Skipped: {no_sample}"])


def test_the_pytest_plugin_is_inert_unless_asked(pytester):
    pytester.makepyfile("def test_one():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    probe = "import sys, tenferro.testing.plugin; print('hypothesis' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"


def test_conformance_ids_select_with_k(pytester):
    result = pytester.runpytest(
        "--tenferro-conformance=reduce",
        "-k",
        "reduce_sum and vjp_fd and not complex",
        "--tenferro-max-examples=3",
        "-p",
        "no:cacheprovider",
        "-v",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*reduce::reduce_sum::vjp_fd PASSED*"])


def test_float32_check_uses_rounded_inputs():
    """float32 results are compared with float64 on the same rounded inputs, so a
    steep function (tan near its pole) is not blamed for the input's rounding."""
    from tenferro.core.registry import SampleInput
    from tenferro.testing.harness import forward

    x = np.array([1.3], np.float32)
    f32 = forward(RT, RT.registry["tan"], SampleInput((x,)))
    f64 = forward(RT, RT.registry["tan"], SampleInput((x.astype(np.float64),)))
    assert f32.dtype == np.float32
    assert abs(float(f32[0]) - float(f64[0])) < 64 * np.finfo(np.float32).eps * abs(float(f64[0]))


#: a · exp(b) · exp(-b): its value ignores b, up to rounding
IGNORES_B = OpSpec(
    name="ignores_b",
    inputs=("a", "b"),
    forward=lambda a, b: a * np.exp(b) * np.exp(-b),
    vjp=lambda s, g, inputs, out: (g, None),
    sample=lambda: strategies.same_shape_arrays(2),
)


def test_a_zero_derivative_through_rounding_noise_passes_vjp_fd():
    """Along b the value is constant but for rounding: finite differences must converge to
    0, not reject the sample as if it had left the op's domain."""
    rt = conformance_runtime([broken_plugins._OnePlugin(IGNORES_B)])
    run_check(rt, rt.registry["ignores_b"], CHECKS["vjp_fd"], current_settings(max_examples=10))


#: scale·x with a param whose default a sample leaves out; its jvp rule names the param
#: without a default, as a recorded node hands it every param
SCALED = OpSpec(
    name="scaled",
    inputs=("x",),
    params={"scale": 2.0},
    forward=lambda x, scale=2.0: x * scale,
    vjps=(lambda s, g, out, x, scale: s.mul(g, scale),),
    jvp=lambda s, tangents, inputs, out, scale: s.mul(tangents[0], scale),
    residuals=(),
    sample=lambda: strategies.unary(),
)


@pytest.mark.parametrize("check", ["jvp", "jvp_fd"])
def test_the_jvp_checks_give_a_rule_every_param_with_its_default(check):
    """The jvp check called the rule with the sample's params only, so a rule taking a
    param the sample left to its default raised TypeError; forward mode passes them all."""
    rt = conformance_runtime([broken_plugins._OnePlugin(SCALED)])
    run_check(rt, rt.registry["scaled"], CHECKS[check], current_settings(max_examples=5))


def _oracle_proving_only(proving):
    """A stand-in for an oracle check whose finite differences converge (to 1, against AD 0)
    only for the directions ``proving(only)``, and do not converge for the others."""

    def oracle(rt, spec, sample, seed, only=None):
        if proving(only):
            return Comparison(0.0, FiniteDifference(1.0, 1e-12, CONVERGED), 1e-6)
        return Comparison(0.0, FiniteDifference(np.nan, np.nan, NOT_CONVERGED), np.nan)

    return oracle


@pytest.mark.parametrize(
    "proving, reported",
    [
        (lambda only: only is None, "second order (moving every input and the cotangent together): AD 0 vs"),
        (lambda only: only in (None, COTANGENT), "second order along the cotangent u: AD 0 vs"),
    ],
)
def test_a_proven_second_order_mismatch_is_reported_whatever_localising_finds(monkeypatch, proving, reported):
    """Moving x and u together proves the VJP's derivative wrong. Moving them one at a time
    (to say which is wrong) may not converge, e.g. for a derivative that is exactly 0 along
    x: the proven mismatch must still be reported, not the sample rejected."""
    monkeypatch.setattr(derivative_checks, "check_second_order", _oracle_proving_only(proving))
    with pytest.raises(ConformanceFailure) as info:
        run_check(RT, RT.registry["sin"], CHECKS["vjp2_fd"], current_settings(max_examples=3))
    assert reported in str(info.value) and "rejected" not in str(info.value)


def test_a_proven_first_order_mismatch_is_reported_when_another_input_does_not_converge(monkeypatch):
    monkeypatch.setattr(derivative_checks, "check_first_order", _oracle_proving_only(lambda only: only == 1))
    with pytest.raises(ConformanceFailure) as info:
        run_check(RT, RT.registry["add_any"], CHECKS["vjp_fd"], current_settings(max_examples=3))
    assert "input 1 ('b'): AD 0 vs finite differences 1" in str(info.value)


def test_the_suite_runs_an_ops_rules_as_the_sweep_does():
    """A rule that passes a raw array is reported with the advice a rule needs, in every
    check that runs rules (they all call them through the sweep's own Op.input_vjp)."""
    import broken_plugins

    rt = conformance_runtime([("raw_rule", broken_plugins.RAW_ARRAY_RULE)])
    with pytest.raises(ConformanceFailure) as info:
        check_plugin("raw_rule", rt=rt, max_examples=3)
    report = str(info.value)
    assert "inside a VJP rule, compute with the session's ops" in report
    assert "rt.constant_from" not in report


def test_the_suite_says_which_of_its_own_ops_are_missing(monkeypatch):
    import broken_plugins
    from conftest import with_dependents

    # a fresh registry reads the block list (the default one is cached)
    monkeypatch.setenv("TENFERRO_BLOCK_PLUGINS", ",".join(with_dependents("reduce")))
    with pytest.raises(ConformanceFailure, match="'reduce_sum' is not loaded; do not block those plugins"):
        conformance_runtime([("vjp_off", broken_plugins.VJP_OFF)])


def test_the_adjoint_check_allows_the_rounding_of_an_op_that_cancels_inside():
    """lerp = a + w·(b − a) at w = 1 + 1/64 rounds at the scale of its input and returns
    1/64 of it: the tolerance must follow the inputs' size, as the additive check's does
    (the randomised profile once failed the CONTRIBUTING guide's lerp here)."""
    from tenferro import CpuEngine, EagerRuntime
    from tenferro.core.spec import SampleInput
    from tenferro.plugins import elementwise
    from tenferro.testing.exact_checks import _check_adjoint

    lerp = OpSpec(
        name="lerp",
        inputs=("a", "b"),
        params={"weight": 0.5},
        forward=lambda a, b, weight=0.5: np.add(a, np.multiply(weight, np.subtract(b, a))),
        vjps=(lambda s, g, out, a, b, weight: s.mul(g, 1.0 - weight), lambda s, g, out, a, b, weight: s.mul(g, weight)),
        linear=True,
        accepts="f",
    )
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, plugin_of("lerp", lerp)])
    for shape in ((), (3,), (4, 5)):
        sample = SampleInput((np.zeros(shape), 0.0), {"weight": 1.015625})
        for seed in range(300):
            _check_adjoint(rt, lerp, sample, [0, 1], np.random.default_rng(seed), "declares linear=True")


def test_the_sweeps_examples_follow_the_profile_hypothesis_has_loaded():
    """--hypothesis-profile=thorough loads the profile without setting the environment: the
    sweep read the environment, so it stayed at 6 examples under thorough."""
    from hypothesis import settings

    before = current_profile()
    try:
        settings.load_profile("thorough")
        assert SWEEP_EXAMPLES.get(current_profile()) is None  # the profile's own 25
        settings.load_profile("ci")
        assert SWEEP_EXAMPLES.get(current_profile()) == 6
    finally:
        settings.load_profile(before)


def test_the_dask_engine_check_is_a_skip_with_the_extra_to_install_where_dask_is_missing(monkeypatch):
    """Without the dask extra the check cannot run: each op reports it skipped, saying what
    to install, so a plugin's expected-failure entry for it stays valid there."""
    for name in ("dask_engine", "complex_dask_engine"):
        monkeypatch.setitem(CHECKS, name, dataclasses.replace(CHECKS[name], requires=("dask", lambda: False)))
    outcomes = {o.check: o for o in check_op(default_registry()["sin"], rt=RT, max_examples=2)}
    reason = "dask is not installed (the dask extra: pip install -e '.[dask]')"
    for name in ("dask_engine", "complex_dask_engine"):
        assert outcomes[name].status == "skipped" and outcomes[name].message.endswith(reason), outcomes[name]
    assert outcomes["engine_neutral"].status == "passed"
