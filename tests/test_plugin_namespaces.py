"""An op name two plugins add keeps both ops: an upgrade of tenferro whose family takes a
plugin's op name never takes the plugin away. The short name goes to tenferro's own
plugins first, then to the first plugin by name; every op is reached by its qualified
name ``plugin.op`` (``s.op("specialx.softmax")``), and one OpNameClash warning says so.

The clashing plugin is tests/clashing_plugin.py, installed as a real distribution (see
the ``install`` fixture)."""

import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import plugin_of

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import CpuEngine, EagerRuntime, OpNameClash, OpSpec, PluginError, UnknownOp
from tenferro.core.loading import load_registry
from tenferro.core.registry import Registry

SOURCE = pathlib.Path(__file__).with_name("clashing_plugin.py")
X = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]])


@pytest.fixture
def specialx(install):
    """The site directory where tenferro-specialx is installed."""
    return install("tenferro-specialx", {"specialx": "tenferro_specialx"}, {"tenferro_specialx": SOURCE.read_text()})


def _loaded(**kwargs):
    """The registry and the one OpNameClash it warned."""
    with pytest.warns(OpNameClash) as caught:
        registry = load_registry(**kwargs)
    assert len(caught) == 1, [str(w.message) for w in caught]
    return registry, caught[0].message


def _softmax(x, base=np.e):
    e = base**x
    return e / e.sum(axis=-1, keepdims=True)


def test_a_plugin_whose_op_name_a_builtin_takes_keeps_all_its_ops(specialx):
    registry, clash = _loaded()
    assert registry.broken == {}
    assert registry["softmax"].plugin == "nn" and registry["nn.softmax"] is registry["softmax"]
    assert registry["specialx.softmax"].plugin == "specialx" and registry["specialx.softmax"].name == "specialx.softmax"
    assert registry.plugins["specialx"].ops == ["specialx.softmax", "specialx_only"]
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    x = rt.variable_from(X)
    with rt.eager_session() as s:
        np.testing.assert_allclose(s.softmax(x).value().to_numpy(), _softmax(X), rtol=1e-14)
        np.testing.assert_allclose(s.op("nn.softmax")(x).value().to_numpy(), _softmax(X), rtol=1e-14)
        np.testing.assert_allclose(s.op("softmax")(x).value().to_numpy(), _softmax(X), rtol=1e-14)
        np.testing.assert_allclose(s.op("specialx.softmax")(x).value().to_numpy(), _softmax(X, 2.0), rtol=1e-14)
        np.testing.assert_array_equal(s.specialx_only(x).value().to_numpy(), 3 * X + 1)
        np.testing.assert_array_equal(s.op("specialx.specialx_only")(x).value().to_numpy(), 3 * X + 1)
        w = rt.constant_from(np.array([[1.0, 0.0, 2.0], [0.5, 0.5, -1.0]]))
        loss = s.reduce_sum(s.mul(s.op("specialx.softmax")(x), w), None)
    loss.backward()
    y = _softmax(X, 2.0)  # d/dx Σ w·y = ln 2 · y · (w − Σ w·y), its rule calling built-in ops by name
    wv = w.value().to_numpy()
    np.testing.assert_allclose(x.grad().to_numpy(), np.log(2) * y * (wv - (wv * y).sum(-1, keepdims=True)), rtol=1e-12)
    nn = registry.plugins["nn"].shipped
    assert str(clash) == (
        f"plugin 'specialx' (tenferro-specialx 1.0) adds op 'softmax', which plugin 'nn' ({nn}) has too: "
        "s.softmax stays nn's (tenferro's own plugins keep their op names); specialx's loaded all the same, "
        "as s.op('specialx.softmax'). warnings.filterwarnings('ignore', category=tenferro.OpNameClash) silences this"
    )
    assert (clash.plugin, clash.holder, clash.ops) == ("specialx", "nn", ("softmax",))


def test_the_warning_points_at_the_line_that_built_the_registry_and_its_filter_silences_it(specialx):
    with pytest.warns(OpNameClash) as caught:
        load_registry()
    assert (caught[0].filename, caught[0].lineno) == (__file__, sys._getframe().f_lineno - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=tf.OpNameClash)  # as the warning says
        assert "specialx.softmax" in load_registry()


def test_a_clash_is_not_a_failure_under_strict_loading(specialx, monkeypatch):
    registry, _ = _loaded(strict=True)
    assert "specialx.softmax" in registry and registry.broken == {}
    monkeypatch.setenv("TENFERRO_STRICT_PLUGINS", "1")
    registry, _ = _loaded()
    assert "specialx_only" in registry


def test_tenferro_numpy_nn_and_the_operators_keep_the_builtin_ops(specialx):
    registry, _ = _loaded()
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    x = rt.variable_from(X)
    np.testing.assert_allclose(tf.nn.softmax(x).value().to_numpy(), _softmax(X), rtol=1e-14)
    np.testing.assert_allclose(tnp.sum(tnp.exp(x) * 2.0 - x).value().to_numpy(), (np.exp(X) * 2 - X).sum(), rtol=1e-14)
    # the implicit session, outside any session, reaches the qualified name too
    np.testing.assert_allclose(rt.current_session().op("specialx.softmax")(x).value().to_numpy(), _softmax(X, 2.0))


def test_the_conformance_suite_checks_an_op_by_its_qualified_name(specialx):
    from tenferro.testing.conformance import check_op, check_plugin

    registry, _ = _loaded(strict=True)
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    outcomes = check_plugin("specialx", rt=rt, max_examples=5)
    assert {o.op for o in outcomes} == {"specialx.softmax", "specialx_only"}
    assert {o.status for o in outcomes} == {"passed"}
    (forward,) = check_op("specialx.softmax", rt, checks=["forward"])
    assert (forward.plugin, forward.op, forward.status) == ("specialx", "specialx.softmax", "passed")


def test_an_expected_failure_listed_by_the_name_the_plugin_registered_still_applies(specialx):
    """Its tenferro-xfail.txt says ``softmax``, as it did before nn took the name."""
    from tenferro.testing.conformance import expected_failures

    (specialx / "tenferro-xfail.txt").write_text("softmax::vjp2_fd: a reason\n")
    registry, _ = _loaded()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert expected_failures(registry, "specialx") == {("specialx.softmax", "vjp2_fd"): "a reason"}


def test_the_commands_show_both_ops_and_who_holds_the_short_name(specialx):
    env = {**os.environ, "PYTHONPATH": str(specialx)}

    def run(*command):
        done = subprocess.run([sys.executable, "-m", "tenferro", *command], capture_output=True, text=True, env=env)
        assert "Traceback" not in done.stdout + done.stderr
        return done

    plugins = run("plugins")
    assert plugins.returncode == 0, plugins.stdout  # a clash is no broken plugin
    lines = plugins.stdout.splitlines()
    (line,) = [line for line in lines if line.startswith("specialx ")]
    assert "tenferro-specialx 1.0" in line and line.endswith(
        "2 ops (requires elementwise, reduce): specialx.softmax specialx_only"
    )
    assert "op 'softmax': s.softmax is nn's; specialx's is s.op('specialx.softmax')" in lines
    ops = run("ops").stdout.splitlines()
    (nn,) = [line for line in ops if line.startswith("nn ") and " softmax(x, axis=-1)" in line]
    (sx,) = [line for line in ops if line.startswith("specialx ") and " specialx.softmax(x, axis=-1)" in line]
    assert "(holds s.softmax; also specialx.softmax)" in nn and "(s.softmax is nn's)" in sx
    assert "1 op reached only by its qualified name" in ops[-1]


def test_between_third_parties_the_first_by_name_keeps_the_short_name_and_both_are_reached():
    def neg_times(factor):
        return OpSpec(name="shared", inputs=("x",), forward=lambda x: np.multiply(x, factor))

    for order in (
        [plugin_of("beta", neg_times(3.0)), plugin_of("alpha", neg_times(2.0))],
        [plugin_of("alpha", neg_times(2.0)), plugin_of("beta", neg_times(3.0))],
    ):
        registry, clash = _loaded(plugins=order)
        assert registry["shared"].plugin == "alpha" and registry["beta.shared"].name == "beta.shared"
        assert "s.shared stays alpha's (the first plugin by name keeps an op name)" in str(clash)
        assert "beta's loaded all the same, as s.op('beta.shared')" in str(clash)
        rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
        one = rt.constant_from(np.ones(1))
        with rt.eager_session() as s:
            called = [s.shared(one), s.op("alpha.shared")(one), s.op("beta.shared")(one)]
            assert [t.value().to_numpy()[0] for t in called] == [2.0, 2.0, 3.0]


def test_one_warning_per_pair_of_plugins_names_every_op():
    ops = [OpSpec(name=name, inputs=("x",), forward=np.negative) for name in ("sin", "cos", "mine")]
    registry, clash = _loaded(plugins=[plugin_of("trig", *ops)])
    assert clash.ops == ("sin", "cos") and clash.holder == "elementwise"
    assert "adds ops 'sin' and 'cos', which plugin 'elementwise'" in str(clash)
    assert "s.sin and s.cos stay elementwise's" in str(clash)
    assert "as s.op('trig.sin') and s.op('trig.cos')" in str(clash)
    assert registry.plugins["trig"].ops == ["trig.sin", "trig.cos", "mine"]


def test_a_linear_op_that_lost_its_short_name_differentiates_itself_in_forward_mode():
    """Its derived jvp calls the op by name: by the qualified one, not the holder's."""
    spec = OpSpec(
        name="neg",
        inputs=("x",),
        forward=lambda x: np.multiply(x, -2.0),
        vjps=(lambda s, g, out, x: s.mul(g, -2.0),),
        linear=True,
    )
    registry, _ = _loaded(plugins=[plugin_of("doubler", spec)])
    rt = EagerRuntime(engine=CpuEngine.serial(), registry=registry)
    x = rt.constant_from(np.array([1.0, -3.0]))
    out, tangent = tf.jvp(lambda x: rt.current_session().op("doubler.neg")(x), (x,), (np.array([0.5, 4.0]),))
    np.testing.assert_array_equal(np.asarray(out), [-2.0, 6.0])
    np.testing.assert_array_equal(np.asarray(tangent), [-1.0, -8.0])


def test_an_op_twice_from_one_plugin_stays_an_error():
    with pytest.raises(PluginError, match="plugin 'twice' added op 'shared' twice"):
        load_registry(
            [plugin_of("twice", *[OpSpec(name="shared", inputs=("x",), forward=np.negative)] * 2)], strict=True
        )
    registry = Registry()
    registry.add(OpSpec(name="shared", inputs=("x",), forward=np.negative), "mine")
    with pytest.raises(PluginError, match="plugin 'mine' added op 'shared' twice"):
        registry.add(OpSpec(name="shared", inputs=("x",), forward=np.negative), "mine")


def test_s_op_of_a_name_no_plugin_registered_is_an_unknown_op(rt):
    with rt.eager_session() as s:
        with pytest.raises(UnknownOp, match="no op named 'sinn' is registered; did you mean 'sin'"):
            s.op("sinn")
        with pytest.raises(
            UnknownOp, match="no op named 'elementwise.sinn' is registered; did you mean 'elementwise.sin'"
        ):
            s.op("elementwise.sinn")
        with pytest.raises(UnknownOp, match="no op named 'runtime' is registered"):
            s.op("runtime")  # a session attribute is no op
        assert s.op("elementwise.sin") == s.sin
