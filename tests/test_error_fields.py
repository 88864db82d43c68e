"""Errors carry what they say as fields (op, plugin, argument; a RuleError's rule, input and
unkept), and the core decides by those fields, never by a message's wording."""

import pickle

import numpy as np
import pytest
from conftest import plugin_of

import tenferro as tf
from tenferro import ArgumentError, CpuEngine, DTypeError, EagerRuntime, KernelError, OpSpec, RuleError, ShapeMismatch
from tenferro import numpy as tnp


def _runtime(*specs):
    from tenferro.plugins import elementwise, reduce

    return EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, plugin_of("fields", *specs)])


def _sum(rt, fn):
    return rt.with_eager_session(lambda s: s.reduce_sum(fn(s), None))


def test_a_call_error_names_its_op_plugin_and_argument_as_fields():
    rt = EagerRuntime(engine=CpuEngine.serial())
    with rt.eager_session() as s:
        with pytest.raises(ArgumentError) as info:
            s.mul(rt.constant_from([1.0]), [2.0])
        assert (info.value.op, info.value.plugin, info.value.argument) == ("mul", "elementwise", "b")
        with pytest.raises(DTypeError) as info:
            s.floor(rt.constant_from(np.array([1j])))
        assert (info.value.op, info.value.argument) == ("floor", "x")
        with pytest.raises(ArgumentError) as info:
            s.sin(rt.constant_from([1.0]), bogus=1)
        assert (info.value.op, info.value.argument) == ("sin", "bogus")


def test_a_rule_error_names_the_op_the_rule_and_the_input_at_fault():
    spec = OpSpec(name="wide", inputs=("a", "b"), forward=np.add, vjps=(lambda s, g, out, a, b: g,) * 2)
    rt = _runtime(spec)
    a, b = rt.variable_from(np.ones((2, 3))), rt.variable_from(np.ones(3))
    with pytest.raises(RuleError) as info:
        _sum(rt, lambda s: s.wide(a, b)).backward()
    error = info.value
    assert (error.op, error.plugin, error.rule, error.input, error.unkept) == ("wide", "fields", "vjp", "b", False)


def test_a_rule_reading_an_unkept_value_is_marked_unkept():
    rt = _runtime(OpSpec(name="echo", inputs=("x",), forward=np.sin, residuals=(), vjps=(lambda s, g, out, x: x,)))
    x = rt.variable_from([1.0, 2.0])
    with pytest.raises(RuleError) as info:
        _sum(rt, lambda s: s.echo(s.add(x, 0.0))).backward()
    assert (info.value.op, info.value.rule, info.value.input, info.value.unkept) == ("echo", "vjp", "x", True)


def test_a_jvp_rule_error_names_the_jvp_and_a_transposed_vjp_error_the_vjp():
    tw = OpSpec(
        name="tw",
        inputs=("x",),
        forward=np.sin,
        vjps=(lambda s, g, out, x: s.mul(g, s.cos(x)),),
        jvp=lambda s, tangents, inputs, out: np.ones(1),
    )
    cut = OpSpec(  # its cotangent is not computed from g: forward mode cannot transpose it
        name="cut", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: (s.mul(inputs[0], 3.0),)
    )
    rt = EagerRuntime(plugins=[plugin_of("fields", tw, cut)])
    for name, rule, argument in (("tw", "jvp", None), ("cut", "vjp", "x")):
        with pytest.raises(RuleError) as info:
            tf.jvp(lambda x, n=name: getattr(rt.current_session(), n)(x), (rt.constant_from([1.0]),), (np.ones(1),))
        error = info.value
        assert (error.op, error.plugin, error.rule, error.input) == (name, "fields", rule, argument)


def test_a_rule_error_whose_text_names_a_vjp_is_still_blamed_on_the_rule_that_raised_it():
    """Whether a rule's RuleError already names the op at fault is read from its fields:
    a plugin's own RuleError mentioning "the VJP of" in its text (it passed through
    unwrapped, naming no op, before) is wrapped in one naming the op."""

    def rule(s, g, out, x):
        raise RuleError("the VJP of my helper is not implemented for this case")

    rt = _runtime(OpSpec(name="quoted", inputs=("x",), forward=np.sin, vjps=(rule,)))
    x = rt.variable_from([1.0])
    with pytest.raises(RuleError, match=r"^the VJP of quoted \(plugin 'fields'\) failed: the VJP of my helper") as info:
        _sum(rt, lambda s: s.quoted(x)).backward()
    assert (info.value.op, info.value.rule) == ("quoted", "vjp")


def test_an_error_a_kernel_or_explain_raises_is_given_its_op():
    def kernel(x):
        raise ShapeMismatch("picky: x must be square")

    rt = _runtime(
        OpSpec(name="picky", inputs=("x",), forward=kernel, vjps=(lambda s, g, out, x: g,)),
        OpSpec(
            name="told",
            inputs=("x",),
            forward=lambda x: np.linalg.inv(x),
            vjps=(lambda s, g, out, x: g,),
            explain=lambda x: ShapeMismatch("told: x must be invertible"),
        ),
    )
    with rt.eager_session() as s:
        for name in ("picky", "told"):
            with pytest.raises(ShapeMismatch) as info:
                getattr(s, name)(rt.constant_from(np.zeros((2, 2))))
            assert (info.value.op, info.value.plugin) == (name, "fields")

    def unexplained(x):
        raise ValueError("no")

    rt = _runtime(OpSpec(name="plain", inputs=("x",), forward=unexplained, vjps=(lambda s, g, out, x: g,)))
    with pytest.raises(KernelError) as info:
        rt.with_eager_session(lambda s: s.plain(rt.constant_from([1.0])))
    assert (info.value.op, info.value.plugin) == ("plain", "fields")


def test_an_op_error_renamed_for_the_function_called_keeps_its_fields():
    """x.at[...] and tnp functions say an op's error in the words of what the user called;
    the error still says which op failed, and names the argument as the function does."""
    x = tnp.zeros(4)
    with pytest.raises(DTypeError, match=r"^x.at\[\.\.\.\]\.set: the updates are complex") as info:
        x.at[tnp.asarray([0, 1])].set(tnp.asarray([1j, 2j]))
    assert (info.value.op, info.value.plugin) == ("scatter", "index")
    with pytest.raises(DTypeError, match=r"^tnp.floor_divide: argument 'x2'") as info:
        tnp.floor_divide(tnp.ones(1), tnp.asarray([1j]))
    assert (info.value.op, info.value.argument) == ("floor_divide", "x2")  # the op's 'b'


def test_fields_survive_pickling():
    error = RuleError("the VJP of f failed", op="f", plugin="p", rule="vjp", input="x", unkept=True)
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.op, copy.plugin, copy.rule, copy.input, copy.unkept) == (
        "the VJP of f failed",
        "f",
        "p",
        "vjp",
        "x",
        True,
    )
    plain = pickle.loads(pickle.dumps(ArgumentError("m", op="mul", argument="y")))
    assert (plain.op, plain.plugin, plain.argument) == ("mul", None, "y")
