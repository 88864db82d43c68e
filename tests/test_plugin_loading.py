"""Loading is fail-safe and strict on request (DESIGN §8): each way a plugin can fail to load
is a named outcome, the other plugins keep working, and strict loading makes it an error.

Installed plugins are real entry points: a throwaway distribution (a ``.dist-info`` folder
with ``entry_points.txt``) in a temporary directory on ``sys.path``."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import plugin_of, with_dependents

from tenferro import CpuEngine, EagerRuntime, OpSpec, PluginError, PluginWarning, hookimpl
from tenferro.core.loading import load_registry

BLOCK_ENV = "TENFERRO_BLOCK_PLUGINS"


def _op(name):
    return OpSpec(name=name, inputs=("x",), forward=np.negative, vjp=lambda s, g, inputs, out: (s.neg(g),))


def _loaded_with_warning(match, plugins=(), **kwargs):
    """The registry, fail-safe, and the one PluginWarning it gave."""
    with pytest.warns(PluginWarning) as caught:
        registry = load_registry(plugins, **kwargs)
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert match in message, message
    return registry, message


def _builtins_work(registry):
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    x = rt.variable_from(np.array([1.0, 2.0]))
    rt.with_eager_session(lambda s: s.reduce_mean(s.mul(x, x), None)).backward()
    np.testing.assert_allclose(x.grad().to_numpy(), [1.0, 2.0])


def test_the_builtin_plugins_load_clean(monkeypatch):
    monkeypatch.delenv(BLOCK_ENV, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry = load_registry(strict=True)
    assert registry.broken == {}
    assert {"core", "elementwise", "reduce"} <= set(registry.plugins)
    _builtins_work(registry)


def test_a_misspelled_hook_is_named_with_the_hook_it_meant():
    class Typo:
        @hookimpl
        def tenferro_register_op(self, registrar):  # one letter short
            registrar.add(_op("typo_op"))

    registry, message = _loaded_with_warning("plugin 'Typo'", [Typo()])
    assert "defines hook 'tenferro_register_op', which tenferro does not have" in message
    assert "did you mean 'tenferro_register_ops'?" in message
    assert f"{BLOCK_ENV}=Typo" in message
    assert "typo_op" not in registry and "Typo" in registry.broken
    _builtins_work(registry)


def test_a_misspelled_hook_parameter_is_named():
    class Misnamed:
        @hookimpl
        def tenferro_register_ops(self, registar):
            registar.add(_op("misnamed_op"))

    registry, message = _loaded_with_warning(
        "plugin 'Misnamed' cannot be registered: PluginValidationError", [Misnamed()]
    )
    assert "Argument(s) {'registar'} are declared in the hookimpl but can not be found in the hookspec" in message
    assert "misnamed_op" not in registry


def test_a_plugin_with_no_hookimpl_is_reported():
    class Unmarked:
        def tenferro_register_ops(self, registrar):  # @hookimpl forgotten
            registrar.add(_op("unmarked_op"))

    class Empty:
        pass

    registry, message = _loaded_with_warning("plugin 'Unmarked' has no @hookimpl function", [Unmarked()])
    assert "its tenferro_register_ops is not marked @hookimpl" in message
    _, message = _loaded_with_warning("plugin 'Empty' has no @hookimpl function", [Empty()])
    assert "define @hookimpl tenferro_register_ops(registrar)" in message
    _builtins_work(registry)


def test_an_installed_plugin_that_raises_on_import_is_skipped(install):
    install("tenferro-broken", {"broken": "broken_on_import"}, {"broken_on_import": "import no_such_module\n"})
    registry, message = _loaded_with_warning("plugin 'broken' (tenferro-broken 1.0) failed to import")
    assert "(entry point 'broken_on_import'): ModuleNotFoundError: No module named 'no_such_module'" in message
    assert f"{BLOCK_ENV}=broken skips it" in message
    assert registry.broken["broken"].problem.startswith("failed to import")
    _builtins_work(registry)


def test_one_installed_plugin_failing_leaves_the_next_one_loading(install):
    install("tenferro-aaa", {"aaa": "aaa_broken"}, {"aaa_broken": "raise RuntimeError('boom')\n"})
    install(
        "tenferro-zzz",
        {"zzz": "zzz_fine"},
        {
            "zzz_fine": """
            import numpy as np
            from tenferro.extend import OpSpec, hookimpl

            @hookimpl
            def tenferro_register_ops(registrar):
                registrar.add(OpSpec(name="zzz_neg", inputs=("x",), forward=np.negative))
            """
        },
    )
    registry, _ = _loaded_with_warning("plugin 'aaa' (tenferro-aaa 1.0) failed to import")
    assert registry["zzz_neg"].plugin == "zzz"
    assert registry.plugins["zzz"].shipped == "tenferro-zzz 1.0"


def test_two_distributions_with_one_plugin_name(install):
    source = """
        import numpy as np
        from tenferro.extend import OpSpec, hookimpl

        @hookimpl
        def tenferro_register_ops(registrar):
            registrar.add(OpSpec(name="{op}", inputs=("x",), forward=np.negative))
        """
    install("twin-a", {"twin": "twin_a"}, {"twin_a": source.format(op="from_a")})
    install("twin-b", {"twin": "twin_b"}, {"twin_b": source.format(op="from_b")})
    registry, message = _loaded_with_warning("plugin 'twin' (twin-")
    loaded, other = registry.plugins["twin"], registry.broken["twin"]
    assert {loaded.distribution, other.distribution} == {"twin-a", "twin-b"}
    assert message.startswith(f"plugin 'twin' ({other.shipped}) is not loaded: {loaded.shipped} has a plugin named")
    assert registry.of_plugin("twin")[0].name == f"from_{loaded.distribution[-1]}"


def test_a_hook_that_raises_costs_only_its_plugin():
    class Crashing:
        @hookimpl
        def tenferro_register_ops(self, registrar):
            registrar.add(_op("added_before_the_crash"))
            raise RuntimeError("boom")

    registry, message = _loaded_with_warning(
        "plugin 'Crashing' failed while registering its ops: RuntimeError: boom", [Crashing()]
    )
    assert "added_before_the_crash" not in registry  # a plugin failing part-way adds nothing
    _builtins_work(registry)


def test_a_bad_spec_leaves_out_its_whole_plugin():
    bad = OpSpec(name="9lives", inputs=("x",), forward=np.negative)
    registry, message = _loaded_with_warning(
        "plugin 'shoddy' registered a bad spec for op '9lives'", [plugin_of("shoddy", _op("fine_op"), bad)]
    )
    assert "fine_op" not in registry and registry.broken["shoddy"].problem.startswith("registered a bad spec")


def test_a_third_party_reusing_a_builtin_op_name_never_takes_it(install):
    """Even installed first on sys.path, the third party does not take the built-in's
    short name (its op keeps its qualified name), and the advice never says to block
    elementwise."""
    install(
        "aaa-first-on-path",
        {"aaa": "aaa_sin"},
        {
            "aaa_sin": """
            import numpy as np
            from tenferro.extend import OpSpec, hookimpl

            @hookimpl
            def tenferro_register_ops(registrar):
                registrar.add(OpSpec(name="sin", inputs=("x",), forward=np.sin))
            """
        },
    )
    registry, message = _loaded_with_warning("plugin 'aaa' (aaa-first-on-path 1.0) adds op 'sin'")
    assert "which plugin 'elementwise' (tenferro " in message and "s.sin stays elementwise's" in message
    assert BLOCK_ENV not in message
    assert registry["sin"].plugin == "elementwise" and registry["aaa.sin"].plugin == "aaa" and not registry.broken
    _builtins_work(registry)


def test_between_third_parties_the_first_by_name_keeps_an_op_name():
    for order in (
        [plugin_of("beta", _op("shared")), plugin_of("alpha", _op("shared"))],
        [plugin_of("alpha", _op("shared")), plugin_of("beta", _op("shared"))],
    ):
        registry, message = _loaded_with_warning("plugin 'beta' adds op 'shared', which plugin 'alpha'", order)
        assert registry["shared"].plugin == "alpha"


def test_strict_loading_makes_each_failure_a_plugin_error(monkeypatch):
    class Crashing:
        @hookimpl
        def tenferro_register_ops(self, registrar):
            raise RuntimeError("boom")

    expected = "plugin 'Crashing' failed while registering its ops: RuntimeError: boom \\(loading is strict"
    with pytest.raises(PluginError, match=expected) as info:
        load_registry([Crashing()], strict=True)
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(PluginError, match=expected):
        EagerRuntime(plugins=[Crashing()], strict=True)
    monkeypatch.setenv("TENFERRO_STRICT_PLUGINS", "1")
    with pytest.raises(PluginError, match=expected):
        load_registry([Crashing()])
    with pytest.warns(PluginWarning):  # strict=False wins over the environment
        load_registry([Crashing()], strict=False)


def _requiring(name, *required, op=None):
    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registrar):
            registrar.requires(*required)
            registrar.add(_op(op or f"{name}_op"))

    Plugin.__name__ = name
    return Plugin()


def test_blocking_elementwise_leaves_out_reduce_instead_of_breaking_its_backward(monkeypatch):
    """reduce_mean's VJP divides with elementwise's div: without elementwise, reduce is
    left out when the registry is built, not a RuleError in the middle of a backward pass."""
    # the other plugins that need elementwise (nn, ...) are blocked too: one warning, reduce's
    blocked = sorted(name for name in with_dependents("elementwise") if name != "reduce")
    monkeypatch.setenv(BLOCK_ENV, ",".join(blocked))
    registry, message = _loaded_with_warning("plugin 'reduce' (tenferro ")
    assert "requires plugin 'elementwise', which is blocked" in message
    assert f"{BLOCK_ENV}={','.join(blocked)},reduce skips it" in message
    assert "reduce_mean" not in registry and registry.broken["reduce"].problem.startswith("requires")
    with pytest.raises(PluginError, match="plugin 'reduce' .*requires plugin 'elementwise', which is blocked"):
        load_registry(strict=True)


def test_a_required_plugin_that_is_not_installed():
    registry, message = _loaded_with_warning(
        "plugin 'needy' requires plugin 'nowhere', which is not installed",
        [_requiring("needy", "elementwise", "nowhere")],
    )
    assert "needy_op" not in registry
    assert load_registry([_requiring("content", "elementwise", "reduce")]).plugins["content"].requires == (
        "elementwise",
        "reduce",
    )


def test_a_plugin_left_out_leaves_out_the_plugins_that_require_it():
    """zeta requires alpha, which requires a plugin that is not installed: alpha is left
    out, then zeta, though zeta registered before alpha was found wanting."""
    plugins = [_requiring("zeta", "alpha"), _requiring("alpha", "nowhere")]
    with pytest.warns(PluginWarning) as caught:
        registry = load_registry(plugins)
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("plugin 'alpha' requires plugin 'nowhere', which is not installed")
    assert messages[1].startswith("plugin 'zeta' requires plugin 'alpha', which failed to load")
    assert {"alpha", "zeta"} <= set(registry.broken) and "zeta_op" not in registry


@pytest.mark.parametrize("strict", ["", "1"])
def test_the_diagnostic_commands_list_a_broken_plugin_without_a_traceback(install, strict):
    site = install("tenferro-broken", {"broken": "broken_on_import"}, {"broken_on_import": "1 / 0\n"})
    env = {**os.environ, "PYTHONPATH": str(site), "TENFERRO_STRICT_PLUGINS": strict}
    env.pop(BLOCK_ENV, None)

    def run(*command):
        return subprocess.run([sys.executable, "-m", "tenferro", *command], capture_output=True, text=True, env=env)

    plugins = run("plugins")
    assert plugins.returncode == 1 and "Traceback" not in plugins.stdout + plugins.stderr
    lines = plugins.stdout.splitlines()
    assert any(line.startswith("reduce ") and "ops (requires elementwise): reduce_sum" in line for line in lines)
    broken = [line for line in lines if line.startswith("broken ")]
    assert broken == [
        "broken         tenferro-broken 1.0    broken, left out: failed to import (entry point 'broken_on_import'): "
        "ZeroDivisionError: division by zero"
    ]
    assert f"{BLOCK_ENV}=broken skips them" in lines[-1]
    ops = run("ops")
    assert ops.returncode == 0 and "Traceback" not in ops.stdout + ops.stderr
    assert any(line.startswith("elementwise") and "sin(x)" in line for line in ops.stdout.splitlines())
    assert ops.stderr == (
        "left out: plugin 'broken' (tenferro-broken 1.0) failed to import (entry point 'broken_on_import'): "
        "ZeroDivisionError: division by zero (`tenferro plugins` lists it)\n"
    )


def test_the_conformance_suite_loads_strictly(install):
    from tenferro.testing.conformance import conformance_runtime

    install("tenferro-broken", {"broken": "broken_on_import"}, {"broken_on_import": "1 / 0\n"})
    with pytest.raises(PluginError, match="plugin 'broken' \\(tenferro-broken 1.0\\) failed to import"):
        conformance_runtime([plugin_of("extra", _op("extra_neg"))])


def test_a_strict_runtime_refuses_a_default_registry_that_left_a_plugin_out(monkeypatch):
    """The default registry is built once per process, fail-safe; a strict runtime asking
    for it afterwards still gets a PluginError naming the plugin left out."""
    from tenferro.core import loading

    class Empty:
        pass

    with pytest.warns(PluginWarning):
        partial = load_registry([Empty()])
    monkeypatch.setattr(loading, "_DEFAULT", [partial])
    assert EagerRuntime().registry is partial
    with pytest.raises(PluginError, match="plugin 'Empty' has no @hookimpl function.*\\(loading is strict"):
        EagerRuntime(strict=True)


def test_an_installed_plugin_passed_again_is_loaded_once_without_a_word():
    from tenferro.plugins import reduce

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry = load_registry([reduce], strict=True)
    assert "reduce" in registry.plugins and not registry.broken


def test_an_installed_plugin_passed_again_under_another_name_says_the_name_it_has():
    from tenferro.plugins import reduce

    with pytest.raises(
        PluginError, match="plugin 'sums' is not loaded: its module is loaded already, as plugin 'reduce'"
    ):
        load_registry([("sums", reduce)], strict=True)
    with pytest.warns(PluginWarning, match="as plugin 'reduce'; use that name"):
        registry = load_registry([("sums", reduce)], strict=False)
    assert "reduce" in registry.plugins and "sums" in registry.broken


def test_a_plugin_warning_points_at_the_line_that_built_the_registry():
    """Not at tenferro's loader: the user's EagerRuntime() or load_registry() call."""
    with pytest.warns(PluginWarning) as caught:
        load_registry(blocked=["elementwise"])  # every plugin that needs elementwise warns, from here
    assert {w.filename for w in caught} == {__file__}
    assert {w.lineno for w in caught} == {sys._getframe().f_lineno - 2}
