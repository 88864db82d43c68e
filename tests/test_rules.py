"""The rule vocabulary as the core applies it: declarations change what runs."""

import numpy as np
import pytest
from conftest import plugin_of

from tenferro import CpuEngine, EagerRuntime, OpSpec, RuleError


def _runtime(*specs):
    from tenferro.plugins import elementwise, reduce

    return EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, plugin_of("rules", *specs)])


def _sum(rt, fn):
    return rt.with_eager_session(lambda s: s.reduce_sum(fn(s), None))


def test_an_input_declared_not_differentiable_gets_no_gradient():
    calls = []

    def rule_b(s, g, out, a, b):
        calls.append("b")
        return g

    rt = _runtime(
        OpSpec(
            name="plus",
            inputs=("a", "b"),
            forward=np.add,
            vjps=(lambda s, g, out, a, b: g, rule_b),
            differentiable=(True, False),
        )
    )
    a, b = rt.variable_from([1.0]), rt.variable_from([2.0])
    grads = _sum(rt, lambda s: s.plus(a, b)).backward()
    assert a in grads and calls == []
    assert b not in grads or np.all(grads[b].to_numpy() == 0)


def test_a_linear_op_keeps_its_non_differentiable_inputs_and_its_int_cast_has_no_tangent():
    spec = OpSpec(
        name="pick",
        inputs=("cond", "a"),
        forward=lambda cond, a: np.where(cond, a, 0.0),
        vjps=(None, lambda s, g, out, cond, a: s.where_select(cond, g, 0.0)),
        linear=True,
        accepts=("b", "f"),
    )
    assert spec.residuals == ("cond",)  # the rule reads cond's value, not a's
    rt = _runtime(spec)
    a = rt.variable_from([1.0, 2.0])
    cond = rt.constant_from([True, False])
    rt.with_eager_session(lambda s: s.reduce_sum(s.pick(cond, s.add(a, 0.0)), None)).backward()
    np.testing.assert_array_equal(a.grad().to_numpy(), [1.0, 0.0])
    astype = rt.registry["astype"]
    with rt.eager_session() as s:
        x = rt.constant_from([3.9, 1.0])
        out = s.astype(x, "int64")
        assert astype.jvp(s, (rt.constant_from([1.0, 1.0]),), (x,), out, dtype="int64") is None


def test_a_rule_returning_a_hollow_value_is_blamed_on_its_op():
    rt = _runtime(OpSpec(name="echo", inputs=("x",), forward=np.sin, residuals=(), vjps=(lambda s, g, out, x: x,)))
    x = rt.variable_from([1.0, 2.0])
    loss = _sum(rt, lambda s: s.echo(s.add(x, 0.0)))
    with pytest.raises(
        RuleError, match="the VJP of echo .* returned, for input 0 .*whose value the trace did not keep"
    ):
        loss.backward()
