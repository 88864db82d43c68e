"""Forward mode's fallback for an op without a jvp rule: the VJP transposed (core/forward.py)."""

import numpy as np
import pytest
from conftest import plugin_of

import tenferro as tf
from tenferro import EagerRuntime, NotDifferentiable, OpSpec


def _picky_vjp(s, g, inputs, out):
    """scale(x) = 2x, whose VJP refuses, as eigh's does at a degenerate spectrum, only
    where a nonzero cotangent would have to flow."""
    if np.any(np.asarray(g) != 0):
        raise NotDifferentiable("scale: refused where the cotangent is nonzero")
    return (s.mul(g, 2.0),)


def _scaled_runtime():
    spec = OpSpec(name="scale", inputs=("x",), forward=lambda x: 2 * x, vjp=_picky_vjp, accepts="f")
    return EagerRuntime(plugins=[plugin_of("picky", spec)])


def test_the_transposed_vjp_meets_a_rule_that_refuses_nonzero_cotangents():
    """Forward mode cannot know which parts of a result will be used, so the fallback runs
    the VJP on a cotangent of ones: a rule that refuses a nonzero cotangent refuses in
    forward mode too, instead of giving a number computed from a zero cotangent."""
    rt = _scaled_runtime()
    x = rt.constant_from(np.array([1.0, 2.0]))
    with pytest.raises(NotDifferentiable, match="scale: refused"):
        tf.jvp(lambda x: rt.current_session().scale(x), (x,), (np.ones(2),))


def test_the_transposed_vjp_is_the_jvp_of_a_linear_op():
    spec = OpSpec(name="twice", inputs=("x",), forward=lambda x: 2 * x, vjp=lambda s, g, i, o: (s.mul(g, 2.0),))
    rt = EagerRuntime(plugins=[plugin_of("twice", spec)])
    x = rt.constant_from(np.array([1.0, -3.0]))
    out, tangent = tf.jvp(lambda x: rt.current_session().twice(x), (x,), (np.array([0.5, 4.0]),))
    assert np.array_equal(np.asarray(out), [2.0, -6.0]) and np.array_equal(np.asarray(tangent), [1.0, 8.0])


def _detached_vjp(s, g, inputs, out):
    """A wrong rule: its cotangent is 3, whatever g is (g cut off through a NumPy value)."""
    return (s.mul(s.runtime.constant_from(np.ones(g.shape)), 3.0),)


def test_a_vjp_that_cuts_the_cotangent_off_is_a_rule_error_in_forward_mode():
    """Forward mode transposes the VJP as a function of g; a rule whose cotangent does not
    come from g would transpose to a zero tangent, silently: it is refused, naming the op."""
    spec = OpSpec(name="triple", inputs=("x",), forward=lambda x: 3 * x, vjp=_detached_vjp, accepts="f")
    rt = EagerRuntime(plugins=[plugin_of("detached", spec)])
    x = rt.constant_from(np.array([3.0]))
    with pytest.raises(tf.RuleError, match="the VJP of triple .* not computed from the cotangent g"):
        tf.jvp(lambda v: rt.current_session().triple(v), (x,), (np.array([1.0]),))


def test_a_jvp_of_the_wrong_type_is_named_with_the_type_it_returned():
    """A jvp rule that forgets to broadcast (or cast) its tangent to the result's type: the
    RuleError gives the type it returned beside the result's, and the helper that fixes it."""

    def jvp(s, tangents, inputs, out):  # a's tangent alone, as broadcast a had it: f64[2,1]
        return s.mul(tangents[0], 0.5)

    spec = OpSpec(name="mix", inputs=("a", "b"), forward=lambda a, b: (a + b) / 2, vjps=(None, None), jvp=jvp)
    rt = EagerRuntime(plugins=[plugin_of("mix", spec)])
    b = rt.constant_from(np.ones(3))
    with pytest.raises(tf.RuleError, match=r"returned a constant of type f64\[2,1\]; .* type f64\[2,3\].*tangent_sum"):
        tf.jvp(lambda a: rt.current_session().mix(a, b), (rt.constant_from(np.ones((2, 1))),), (np.ones((2, 1)),))
