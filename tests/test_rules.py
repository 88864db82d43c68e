"""The rule vocabulary as the core applies it: declarations change what runs."""

import numpy as np
import pytest
from conftest import plugin_of

from tenferro import CpuEngine, EagerRuntime, KernelError, OpSpec, RuleError


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


def _extremes_spec(calls):
    """extremes(x) -> (min, max) of all of x: an op with two results."""

    def vjp(s, g, inputs, out):
        calls.append(tuple(gi is not None for gi in g))
        (x,) = inputs
        low, high = out
        total = None
        for gi, value in zip(g, out):
            if gi is not None:
                hit = s.where_select(s.compare(x, value, "eq"), 1.0, 0.0)
                term = s.mul(hit, gi)
                total = term if total is None else s.add(total, term)
        return (total,)

    return OpSpec(
        name="extremes",
        inputs=("x",),
        forward=lambda x: (np.min(x), np.max(x)),
        vjp=vjp,
        multiple_results=True,
    )


def test_a_rule_of_several_results_gets_one_cotangent_per_result_none_for_the_others():
    calls = []
    rt = _runtime(_extremes_spec(calls))
    x = rt.variable_from(np.array([3.0, -1.0, 2.0]))
    low, high = rt.with_eager_session(lambda s: s.extremes(x))
    assert low.tracks_grad() and high.tracks_grad()
    np.testing.assert_array_equal(np.asarray(rt.grad(_sum(rt, lambda s: s.mul(high, 2.0)), x)), [2.0, 0.0, 0.0])
    assert calls == [(False, True)]  # the max's cotangent only; the min got none
    calls.clear()
    both = _sum(rt, lambda s: s.sub(high, low))
    np.testing.assert_array_equal(np.asarray(rt.grad(both, x)), [1.0, -1.0, 0.0])
    assert sorted(calls) == [(False, True), (True, False)]  # one call per result with a cotangent


def test_a_kernel_of_several_results_must_return_a_tuple():
    spec = OpSpec(name="lonely", inputs=("x",), forward=lambda x: x * 1.0, multiple_results=True)
    rt = _runtime(spec)
    x = rt.constant_from(np.ones(2))
    with pytest.raises(KernelError, match="lonely .*must return a tuple or list of arrays"):
        rt.with_eager_session(lambda s: s.lonely(x))
