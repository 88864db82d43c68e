"""The pluggy registry: built-ins load through entry points like third-party plugins; bad
plugins are reported by name (strict here; fail-safe loading is in test_plugin_loading.py);
the core knows no op by name."""

import ast
import pathlib

import numpy as np
import pytest
from conftest import plugin_of, with_dependents

import tenferro
from tenferro import CpuEngine, EagerRuntime, OpNameClash, OpSpec, PluginError, PluginWarning, Tensor, hookimpl
from tenferro.core.loading import load_registry


def _op(name, **kwargs):
    return OpSpec(name=name, inputs=("x",), forward=np.negative, **kwargs)


def test_builtin_families_come_from_the_entry_point_group():
    registry = load_registry()
    assert registry.plugins["elementwise"].distribution == "tenferro"
    assert registry.plugins["reduce"].version == tenferro.__version__
    assert registry["sin"].plugin == "elementwise"
    assert registry["reduce_sum"].plugin == "reduce"
    assert registry["add_any"].plugin == "core"


def test_no_entry_points_means_only_the_core_op():
    registry = load_registry(entry_points=False)
    assert [spec.name for spec in registry] == ["add_any", "alias"]


def test_a_plugin_module_passed_directly_is_named_as_its_entry_point_is():
    """By the last part of its module name, so reduce's requires("elementwise") is met."""
    from tenferro.plugins import elementwise, reduce

    registry = load_registry([reduce, elementwise], entry_points=False, strict=True)
    assert registry["reduce_mean"].plugin == "reduce" and registry.plugins["reduce"].requires == ("elementwise",)


def test_duplicate_op_names_keep_both_ops_and_name_both_plugins():
    """Not a failure, not even under strict loading: the built-in keeps the short name."""
    with pytest.warns(OpNameClash, match="plugin 'mine' adds op 'sin', which plugin 'elementwise' \\(tenferro"):
        registry = load_registry([plugin_of("mine", _op("sin"))], strict=True)
    assert registry["sin"].plugin == "elementwise" and registry["mine.sin"].plugin == "mine"


def test_blocked_plugins_are_not_loaded(monkeypatch):
    with pytest.warns(PluginWarning, match="plugin 'reduce' .* requires plugin 'elementwise', which is blocked"):
        others = [name for name in with_dependents("elementwise") if name != "reduce"]  # they would warn too
        assert "sin" not in load_registry(blocked=others)
    monkeypatch.setenv("TENFERRO_BLOCK_PLUGINS", ",".join(with_dependents("reduce", "elementwise")))
    registry = load_registry(strict=True)
    assert "sin" not in registry and "reduce_sum" not in registry and "add_any" in registry
    assert {"reduce", "elementwise"}.isdisjoint(registry.plugins)
    # blocking lets a plugin replace a built-in op
    assert load_registry([plugin_of("mine", _op("sin"))], strict=True)["sin"].plugin == "mine"


@pytest.mark.parametrize(
    "spec, message",
    [
        (_op("9lives"), "'9lives' is not a valid Python identifier"),
        (_op("_private"), "must not start with an underscore"),
        (OpSpec(name="f", inputs=("x", "x"), forward=np.add), "must be distinct"),
        (OpSpec(name="f", inputs=(), forward=np.add), "at least one tensor input"),
        (_op("f", accepts="xyz"), "dtype kinds"),
        (_op("needs_grad"), "is a session attribute"),
        (OpSpec(name="f", inputs=("a", "b"), forward=np.add, variadic=True), "a variadic op has one input"),
        (_op("f", variadic=True, vjps=(lambda s, g, out, x: g,)), "and a whole-op vjp, not per-input vjps"),
        # a miscounted vjps is named as such, not as the differentiable flags it implies
        (OpSpec(name="f", inputs=("a", "b"), forward=np.add, vjps=(lambda s, g, out, a, b: g,)), "vjps has 1 rules"),
        (OpSpec(name="f", inputs=("x",), forward=np.negative, vjps=(lambda s, g, out, x: g,) * 2), "vjps has 2 rules"),
    ],
)
def test_bad_specs_are_rejected_naming_the_plugin(spec, message):
    with pytest.raises(PluginError, match=message) as info:
        EagerRuntime(plugins=[plugin_of("shoddy", spec)], entry_points=False, strict=True)
    if "clash" not in message:
        assert "plugin 'shoddy'" in str(info.value)


def test_a_plugin_that_raises_while_registering():
    class Crashing:
        @hookimpl
        def tenferro_register_ops(self, registrar):
            raise RuntimeError("boom")

    with pytest.raises(PluginError, match="plugin 'Crashing' failed while registering its ops: RuntimeError: boom"):
        load_registry([Crashing()], entry_points=False, strict=True)


def test_a_plugin_written_with_the_old_parameter_name_loads_unchanged():
    class OldStyle:
        @hookimpl
        def tenferro_register_ops(self, registry):  # the hook parameter's name before registrar
            registry.add(_op("old_style_neg"))

    assert load_registry([OldStyle()], entry_points=False, strict=True)["old_style_neg"].plugin == "OldStyle"


def test_a_runtime_with_an_extra_plugin_calls_its_ops():
    def double_vjp(s, g, inputs, out):
        return (s.mul(g, 2.0),)

    plugin = plugin_of("doubling", OpSpec(name="double", inputs=("x",), forward=lambda x: 2 * x, vjp=double_vjp))
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[plugin])
    x = rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0])))
    rt.with_eager_session(lambda s: s.reduce_sum(s.double(x), None)).backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), [2.0, 2.0])
    assert rt.registry["double"].plugin == "doubling"


def test_params_given_positionally_in_part_take_their_defaults_for_the_rest():
    def scale(x, factor, offset=0.0, twice=False):
        return (x * factor + offset) * (2 if twice else 1)

    spec = OpSpec(
        name="scale", inputs=("x",), params={"factor": tenferro.REQUIRED, "offset": 0.0, "twice": False}, forward=scale
    )
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[plugin_of("scaling", spec)])
    x = rt.constant_from(Tensor.from_numpy(np.array([1.0, 2.0])))
    with rt.eager_session() as s:
        np.testing.assert_array_equal(np.asarray(s.scale(x, 3.0)), [3.0, 6.0])
        np.testing.assert_array_equal(np.asarray(s.scale(x, 3.0, 1.0)), [4.0, 7.0])
        np.testing.assert_array_equal(np.asarray(s.scale(x, 3.0, 1.0, True)), [8.0, 14.0])
        with pytest.raises(tenferro.ArgumentError, match="scale is missing argument 'factor'"):
            s.scale(x)
        with pytest.raises(tenferro.ArgumentError, match="scale takes at most 4 arguments"):
            s.scale(x, 3.0, 1.0, True, 5)


def test_session_methods_carry_signature_and_doc():
    import inspect

    rt = EagerRuntime(engine=CpuEngine.serial())
    with rt.eager_session() as s:
        assert str(inspect.signature(s.reduce_sum)) == "(x, axes=None, keepdims=False)"
        assert "Sum over `axes`" in s.reduce_sum.__doc__
        assert "plugin 'reduce'" in s.reduce_sum.__doc__


def test_the_core_knows_no_op_by_name():
    """No string in tenferro/core names a plugin op, and no op is called on a session there
    (add_any is the core's own)."""
    op_names = {spec.name for spec in load_registry() if spec.plugin != "core"}
    core = pathlib.Path(tenferro.__file__).parent / "core"
    used = set()
    for path in core.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.add(node.value)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in ("s", "session", "self"):
                    used.add(node.attr)
    assert used & op_names == set()


def test_a_kink_must_give_one_arg_and_one_cotangent_per_input():
    bad = tenferro.Kink((np.zeros(1), np.zeros(1)), (np.zeros(1),))
    with pytest.raises(PluginError, match="plugin 'mine' registered a bad spec for op 'neg2': kinks must be Kink"):
        load_registry([plugin_of("mine", _op("neg2", kinks=(bad,)))], entry_points=False, strict=True)


def test_an_op_named_like_a_session_attribute_is_a_bad_spec_not_a_broken_runtime():
    from tenferro.core.session import EagerSession
    from tenferro.core.spec import RESERVED_NAMES

    assert RESERVED_NAMES == {name for name in dir(EagerSession) if not name.startswith("_")}
    with pytest.warns(PluginWarning, match="'needs_grad' is a session attribute"):
        registry = load_registry([plugin_of("clashing", _op("needs_grad"), _op("fine_op"))])
    rt = EagerRuntime(registry=registry)  # the other plugins keep working
    assert "needs_grad" not in registry and "sin" in registry
    assert rt.with_eager_session(CpuEngine.serial(), lambda s: s.needs_grad(1.0)) is False


def test_an_array_param_default_does_not_break_a_runtime():
    spec = OpSpec(
        name="scaled", inputs=("x",), forward=lambda x, w: np.multiply(x, w[0]), params={"w": np.array([2.0, 5.0])}
    )
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=load_registry([plugin_of("arrays", spec)], strict=True))
    x = rt.constant_from([1.0, 3.0])
    assert np.asarray(rt.with_eager_session(lambda s: s.scaled(x))).tolist() == [2.0, 6.0]


def test_a_misspelled_opspec_field_is_named_with_the_field_meant():
    with pytest.raises(PluginError, match="OpSpec has no field 'residual'; did you mean 'residuals'"):
        OpSpec(name="f", inputs=("x",), forward=np.sin, residual=("x",))


def test_a_session_method_leads_to_its_op_and_the_op_runs_as_the_method_does():
    """s.mul.op is mul's Op (issue 24): the object that calls the op and applies its rules;
    calling it on a session is the session method, bitwise, and its node records it."""
    from tenferro.core.op import Op

    rt = EagerRuntime(engine=CpuEngine.serial())
    x, w = rt.variable_from(np.linspace(-1.0, 2.0, 5)), rt.variable_from(np.cos(np.arange(5.0)))
    with rt.eager_session() as s:
        op = s.mul.op
        assert isinstance(op, Op) and op.spec is rt.registry["mul"] and repr(op) == "<Op mul of plugin 'elementwise'>"
        by_method, by_op = s.mul(x, w), op(s, x, w)
        assert by_op._node.op is op and by_method._node.op is op
    np.testing.assert_array_equal(np.asarray(by_op), np.asarray(by_method))
    ct_x, ct_w = op.vjp(rt.current_session(), by_op._node, rt.constant_from(np.ones(5)))
    np.testing.assert_array_equal(np.asarray(ct_x), np.asarray(w))
    np.testing.assert_array_equal(np.asarray(ct_w), np.asarray(x))


def test_an_op_added_after_a_runtime_exists_is_callable_at_once():
    """Regression: ``registry.add`` after a runtime (and so its session class) was made left the
    op in the registry but not on the sessions: ``s.ste2`` said "no op named 'ste2' is
    registered; did you mean 'ste2'". The registry now tells the session class, which installs
    the op's method there and then, on the implicit session and on sessions opened later."""
    registry = load_registry(entry_points=False)
    rt = EagerRuntime(registry=registry)
    x = rt.variable_from(np.array([0.3, 2.0]))
    ste = OpSpec(name="ste2", inputs=("x",), forward=np.round, vjps=(lambda s, g, out, x: g,))
    assert registry.add(ste, "late").name == "ste2"
    y = rt.current_session().ste2(x)
    assert y.value().to_numpy().tolist() == [0.0, 2.0]
    assert rt.current_session().op("late.ste2") is not None
    y.backward_with(CpuEngine.serial(), Tensor.from_numpy(np.array([1.0, 1.0])))
    assert x.grad().to_numpy().tolist() == [1.0, 1.0]
    with rt.eager_session(CpuEngine.serial()) as s:
        assert s.ste2.op.spec.plugin == "late"
    clash = OpSpec(name="ste2", inputs=("x",), forward=np.round, vjps=(lambda s, g, out, x: g,))
    assert registry.add(clash, "later").name == "later.ste2"  # a taken short name: its qualified name
    assert rt.current_session().op("later.ste2")(x).value().to_numpy().tolist() == [0.0, 2.0]
