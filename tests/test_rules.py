"""The rule vocabulary as the core applies it: declarations change what runs."""

import math

import numpy as np
import pytest
from conftest import plugin_of

from tenferro import ArgumentError, CpuEngine, EagerRuntime, KernelError, OpSpec, RuleError


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


def test_a_per_input_rule_of_a_broadcasting_op_is_pointed_at_unbroadcast():
    spec = OpSpec(name="plus_nb", inputs=("a", "b"), forward=np.add, vjps=(lambda s, g, out, a, b: g,) * 2)
    rt = _runtime(spec)
    a, b = rt.variable_from(np.ones((2, 3))), rt.variable_from(np.ones(3))
    with pytest.raises(RuleError, match=r"input 1 \('b'\) of type f64\[3\].*OpSpec\(unbroadcast=tenferro.extend"):
        _sum(rt, lambda s: s.plus_nb(a, b)).backward()
    # not for an op that did not broadcast: a reduction whose rule forgot to spread g back
    rt = _runtime(OpSpec(name="total", inputs=("x",), forward=np.sum, vjps=(lambda s, g, out, x: g,)))
    x = rt.variable_from(np.ones(3))
    with pytest.raises(RuleError, match=r"f64\[\] for input 0 .*\(sum broadcast axes back"):
        rt.with_eager_session(lambda s: s.total(x)).backward()


def test_a_rule_of_the_wrong_signature_is_told_how_rules_are_called():
    """A rule that forgets ``out`` fails in the call itself: the RuleError says how the
    sweep calls the op's rules, not only Python's count of positional arguments."""
    rt = _runtime(
        OpSpec(
            name="scaled",
            inputs=("x",),
            params={"k": 2.0},
            forward=lambda x, k: x * k,
            vjps=(lambda s, g, x, k: s.mul(g, k),),
        )
    )
    x = rt.variable_from([1.0, 2.0])
    with pytest.raises(
        RuleError, match=r"multiple values for argument .k.\. Its rules are called as rule\(s, g, out, x, k=\.\.\.\)"
    ):
        _sum(rt, lambda s: s.scaled(x)).backward()
    # an error inside a rule is not mistaken for one of its signature
    rt = _runtime(OpSpec(name="bad", inputs=("x",), forward=np.sin, vjps=(lambda s, g, out, x: len(3),)))
    x = rt.variable_from([1.0])
    with pytest.raises(RuleError, match="has no len.*The op's result was") as info:
        _sum(rt, lambda s: s.bad(x)).backward()
    assert "called as" not in str(info.value)
    # nor one a C function raises on its arguments (no frame of its own, a signature it takes)
    rt = _runtime(OpSpec(name="hyp", inputs=("x",), forward=np.sin, vjps=(math.hypot,)))
    x = rt.variable_from([1.0])
    with pytest.raises(RuleError, match="must be real number") as info:
        _sum(rt, lambda s: s.hyp(x)).backward()
    assert "called as" not in str(info.value)


def test_a_rule_that_raises_on_a_result_of_its_inputs_shape_is_blamed_not_the_forward_kernel():
    def rule(s, g, out, x):
        raise ValueError("the rule's own mistake")

    rt = _runtime(OpSpec(name="blamed", inputs=("x",), forward=np.sin, vjps=(rule,)))
    x = rt.variable_from([1.0, 2.0])
    with pytest.raises(RuleError) as info:
        _sum(rt, lambda s: s.blamed(x)).backward()
    assert str(info.value) == (
        "the VJP of blamed (plugin 'rules') failed: the rule's own mistake. The op's result was f64[2] from inputs "
        "(f64[2]), the inputs' shape, and the VJP rule raised on them: the fault is in the rule"
    )


def test_a_rule_reading_an_input_its_residuals_omit_is_told_which_inputs_are_not_kept():
    """The op a rule calls on the missing value names its own argument; the RuleError also
    says which inputs of the rule's op the trace keeps no value of."""
    spec = OpSpec(
        name="sp_z",
        inputs=("z", "w"),
        forward=lambda z, w: np.logaddexp(0, z) * w,
        residuals=("w",),
        vjps=(lambda s, g, out, z, w: s.mul(s.mul(g, w), s.exp(z)), None),
        accepts="f",
    )
    rt = _runtime(spec)
    x = rt.variable_from([0.5, -1.0])
    loss = _sum(rt, lambda s: s.sp_z(s.neg(x), rt.constant_from([1.0, 2.0])))
    with pytest.raises(RuleError, match="the VJP of sp_z .*exp: argument 'x'.*sp_z keeps no value of 'z', 'out'"):
        rt.grad(loss, x)


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


def test_a_rule_of_several_results_runs_once_with_every_cotangent_none_for_results_without():
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
    assert calls == [(True, True)]  # one call, with both results' cotangents


def test_a_rule_that_computes_with_a_missing_cotangent_is_told_none_means_zero():
    def vjp(s, g, inputs, out):  # forgets that a result nobody used has no cotangent
        return (s.add(s.mul(g[0], 1.0), s.mul(g[1], 1.0)),)

    spec = OpSpec(name="pair", inputs=("x",), forward=lambda x: (x * 1.0, x * 2.0), vjp=vjp, multiple_results=True)
    rt = _runtime(spec)
    x = rt.variable_from(np.ones(2))
    first, _ = rt.with_eager_session(lambda s: s.pair(x))
    with pytest.raises(RuleError, match="the VJP of pair .*is a NoneType; .*None stands for a zero"):
        rt.grad(_sum(rt, lambda s: s.mul(first, 1.0)), x)


def test_a_kernel_of_several_results_must_return_a_tuple():
    spec = OpSpec(name="lonely", inputs=("x",), forward=lambda x: x * 1.0, multiple_results=True)
    rt = _runtime(spec)
    x = rt.constant_from(np.ones(2))
    with pytest.raises(KernelError, match="lonely .*must return a tuple or list of arrays"):
        rt.with_eager_session(lambda s: s.lonely(x))


def test_the_gradient_through_many_results_takes_one_rule_call_not_one_per_result(monkeypatch):
    """unstack of n rows, all used: one VJP of the whole op (a stack), not n of them (O(n²))."""
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(np.arange(12.0).reshape(6, 2))

    def total(s):
        rows = s.unstack(x)
        out = rows[0]
        for row in rows[1:]:
            out = s.add(out, row)
        return s.reduce_sum(out, None)

    loss = rt.with_eager_session(total)
    calls = []
    stack = rt._session_class.stack  # the rule of unstack stacks the rows' cotangents

    def counting(self, *args, **kwargs):
        calls.append(1)
        return stack(self, *args, **kwargs)

    monkeypatch.setattr(rt._session_class, "stack", counting)
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), np.ones((6, 2)))
    assert len(calls) == 1


def test_a_trace_with_several_results_is_freed_without_the_cycle_collector():
    import gc
    import weakref

    rt = _runtime(_extremes_spec([]))
    x = rt.variable_from(np.array([3.0, -1.0, 2.0]))
    gc.disable()
    try:
        low, high = rt.with_eager_session(lambda s: s.extremes(s.mul(x, 2.0)))
        kept = weakref.ref(high._node.parents[0].inputs[0]._value)  # a value the call's node keeps
        del low, high
        assert kept() is None  # freed by reference counting: results point at the call, not back
    finally:
        gc.enable()


def test_a_rule_that_refuses_a_point_raises_not_differentiable_unwrapped():
    from tenferro import NotDifferentiable

    def refuse(s, g, out, x):
        raise NotDifferentiable("picky: no derivative at a degenerate point (indices 0 and 1)")

    rt = _runtime(OpSpec(name="picky", inputs=("x",), forward=lambda x: x * 1.0, vjps=(refuse,)))
    x = rt.variable_from(np.ones(2))
    loss = _sum(rt, lambda s: s.picky(x))
    with pytest.raises(NotDifferentiable, match="^picky: no derivative at a degenerate point"):
        loss.backward()


def test_the_derived_jvp_of_a_linear_op_takes_a_param_named_like_its_own_arguments():
    """The core's derived forward-mode rule must not reserve param names (NumPy's fftn has s)."""
    spec = OpSpec(
        name="scaled_by_s",
        inputs=("x",),
        params={"s": 1.0},
        forward=lambda x, s: np.multiply(x, s),
        linear=True,
        vjps=(lambda sess, g, out, x, s: sess.mul(g, s),),
    )
    rt = _runtime(spec)
    x, tangent = rt.constant_from(np.ones(2)), rt.constant_from(np.array([1.0, -3.0]))
    jvp = rt.with_eager_session(lambda sess: spec.jvp(sess, [tangent], (x,), np.ones(2), s=2.0))
    np.testing.assert_array_equal(np.asarray(jvp), [2.0, -6.0])


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda s, x: s.arctan2(x, np.float64(2.0)), 2.0 / (np.array([1.0, 2.0]) ** 2 + 4.0)),
        (lambda s, x: s.outer(x, np.float64(2.0)), [2.0, 2.0]),
        (lambda s, x: s.clamp(x, np.float64(0.0), np.float64(1.5)), [1.0, 0.0]),
        (lambda s, x: s.pow(x, np.float64(2.0)), [2.0, 4.0]),
        (lambda s, x: s.mul(x, np.float32(3.0)), [3.0, 3.0]),
    ],
)
def test_a_numpy_scalar_operand_reaches_the_rules_as_a_0d_constant(call, expected):
    """NumPy scalars have a shape, so rules that tell tensors from Python numbers by it met
    a scalar where they expected a tensor (arctan2, outer and clamp failed in backward)."""
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(np.array([1.0, 2.0]))
    rt.with_eager_session(lambda s: s.reduce_sum(s.reshape(call(s, x), (-1,)), None)).backward()
    np.testing.assert_allclose(x.grad().to_numpy(), expected, rtol=1e-15)


def test_numpy_scalars_keep_numpy_promotion_and_alone_are_still_refused():
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.constant_from(np.ones(2, np.float32))
    assert rt.with_eager_session(lambda s: s.mul(x, np.float64(2.0))).dtype == np.float64  # NEP 50: strong
    assert rt.with_eager_session(lambda s: s.mul(x, 2.0)).dtype == np.float32  # a Python float is weak
    with pytest.raises(ArgumentError, match="every argument is a scalar"):
        rt.with_eager_session(lambda s: s.mul(np.float64(1.0), np.float64(2.0)))


def _wave(calls, keeps_out=False):
    """wave(x) = sin(x), its derivative cos(x) made through ``derived``; ``calls`` counts
    how often it is computed. With ``keeps_out`` the rule reads the result (``out``)."""
    from tenferro.extend import derived

    def rule(s, g, out, x):
        def compute(x):
            calls.append(1)
            return s.cos(x)

        return s.mul(g, derived(out, 0, compute, x))

    return OpSpec(
        name="wave",
        inputs=("x",),
        forward=np.sin,
        vjps=(rule,),
        residuals=("x", "out") if keeps_out else ("x",),
    )


def test_a_derived_value_is_computed_once_per_node_where_recorded_and_reused():
    calls = []
    rt = _runtime(_wave(calls))
    xs = np.array([0.3, -1.2, 2.0])
    x = rt.variable_from(xs)
    loss = _sum(rt, lambda s: s.mul(s.wave(x), s.wave(x)))  # two nodes
    g1 = rt.grad(loss, x)  # records: each node keeps its cos(x)
    assert len(calls) == 2
    g2 = rt.grad(loss, x)
    assert len(calls) == 2 and np.array_equal(np.asarray(g1), np.asarray(g2))
    # the second derivative flows through the kept value: d/dx sum(2 sin cos) = 2 cos 2x
    hessian_diagonal = rt.grad(_sum(rt, lambda s: s.mul(g1, 1.0)), x)
    np.testing.assert_allclose(np.asarray(hessian_diagonal), 2 * np.cos(2 * xs), rtol=1e-14)


def test_a_derived_value_is_not_kept_by_a_backward_pass_nor_where_the_rule_reads_out():
    calls = []
    rt = _runtime(_wave(calls))
    x = rt.variable_from([0.5, 1.5])
    loss = _sum(rt, lambda s: s.wave(x))
    loss.backward()
    loss.backward()
    assert len(calls) == 2 and getattr(loss._node.parents[0], "derived", None) is None  # nothing recorded, nothing kept
    reads_out = []
    rt = _runtime(_wave(reads_out, keeps_out=True))
    x = rt.variable_from([0.5, 1.5])
    loss = _sum(rt, lambda s: s.wave(x))
    rt.grad(loss, x)
    rt.grad(loss, x)
    assert len(reads_out) == 2  # kept, it would hold the node that holds it


def test_a_derived_value_made_from_the_cotangent_is_never_kept_stale():
    """``derived`` is for values of the op's inputs; a rule that passes it the cotangent (or
    anything else it computed) gets the value computed each time, never the one a sweep
    with another cotangent kept."""
    from tenferro.extend import derived

    def rule(s, g, out, x):
        return derived(out, "g·σ(x)", s.mul, g, s.sigmoid(x))  # misuse: made from g

    spec = OpSpec(
        name="softplus_stale", inputs=("x",), forward=lambda x: np.logaddexp(0, x), vjps=(rule,), residuals=("x",)
    )
    rt = _runtime(spec)
    xs = np.array([0.5, -1.0])
    x = rt.variable_from(xs)
    y = rt.with_eager_session(lambda s: s.softplus_stale(x))
    for weights in ([1.0, 1.0], [10.0, -3.0]):
        w = rt.constant_from(weights)
        loss = _sum(rt, lambda s, w=w: s.mul(y, w))
        np.testing.assert_allclose(np.asarray(rt.grad(loss, x)), np.array(weights) / (1 + np.exp(-xs)), rtol=1e-15)
    assert y._node.derived is None


def test_a_hessian_vector_product_leaves_no_cycle_for_the_collector():
    import gc
    import weakref

    from tenferro.plugins import elementwise, reduce

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce])
    x = rt.variable_from(np.linspace(-1.0, 1.0, 5))
    v = rt.constant_from(np.ones(5))
    gc.disable()
    try:
        loss = _sum(rt, lambda s: s.mul(s.sin(x), s.mul(x, x)))
        gf = rt.grad(loss, x)
        sin_node = loss._node.parents[0].parents[0]
        assert sin_node.spec.name == "sin" and getattr(sin_node, "derived", None)  # cos(x), kept
        kept = weakref.ref(sin_node.derived[0]._value)
        hvp = rt.grad(_sum(rt, lambda s, gf=gf: s.mul(gf, v)), x)
        del loss, gf, sin_node, hvp
        assert kept() is None  # freed by reference counting
    finally:
        gc.enable()
