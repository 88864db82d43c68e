"""``tf.vmap`` has JAX's semantics (axes over pytrees, None, negative axes, keyword
arguments, axis_size), gives bitwise the numbers of a loop over the examples, and composes
with the other transforms both ways (docs/transforms.md, "Mapping over a batch")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, AxisError, ShapeMismatch

RNG = np.random.default_rng(0)
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5)
W = RNG.normal(size=3)


def loss(w, x, y):
    return (tnp.tanh(tnp.dot(x, w)) - y) ** 2


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_per_example_gradients_equal_a_loop_of_grad_bitwise():
    got = tf.vmap(tf.grad(loss), in_axes=(None, 0, 0))(W, X, Y)
    same(got, np.stack([np.asarray(tf.grad(loss)(W, X[i], Y[i])) for i in range(5)]))


def test_grad_of_a_vmapped_function_is_the_gradient_of_the_loop():
    def total(w, f):
        return tnp.sum(f(w))

    mapped = tf.grad(lambda w: total(w, lambda w: tf.vmap(loss, in_axes=(None, 0, 0))(w, X, Y)))(W)
    looped = tf.grad(lambda w: total(w, lambda w: tnp.stack([loss(w, X[i], Y[i]) for i in range(5)])))(W)
    same(mapped, looped)


def test_jacrev_and_jvp_compose_with_vmap_both_ways():
    f = lambda x: tnp.sin(x) * tnp.sum(x**2)  # noqa: E731
    same(tf.vmap(tf.jacrev(f))(X), np.stack([np.asarray(tf.jacrev(f)(x)) for x in X]))
    same(tf.jacrev(tf.vmap(f))(X)[1, :, 1, :], tf.jacrev(f)(X[1]))
    tangents = np.ones_like(X)
    _, pushed = tf.jvp(tf.vmap(f), (X,), (tangents,))
    same(pushed, tf.vmap(lambda x, t: tf.jvp(f, (x,), (t,))[1])(X, tangents))


def test_backward_through_vmap_fills_the_variables_slot():
    w = tf.variable(W)
    tnp.sum(tf.vmap(loss, in_axes=(None, 0, 0))(w, X, Y)).backward()
    same(w.grad(), tf.grad(lambda w: tnp.sum(tnp.stack([loss(w, X[i], Y[i]) for i in range(5)])))(W))


def test_pytrees_prefix_axes_negative_axes_keywords_and_out_axes():
    params = {"a": X, "b": X.T}

    def f(p, scale, *, shift):
        return {"sum": p["a"] * scale + shift, "t": p["b"]}

    out = tf.vmap(f, in_axes=({"a": 0, "b": -1}, None), out_axes={"sum": 1, "t": 0})(params, 2.0, shift=Y)
    assert out["sum"].shape == (3, 5) and out["t"].shape == (5, 3)
    same(out["sum"], (X * 2.0 + Y[:, None]).T)
    same(out["t"], X)


def test_nested_vmap_maps_two_axes():
    grid = RNG.normal(size=(4, 5, 3))
    same(tf.vmap(tf.vmap(lambda v: tnp.sum(v * W)))(grid), np.sum(grid * W, axis=-1))


def test_unmapped_arguments_axis_size_and_unmapped_outputs():
    out = tf.vmap(lambda w: w * 2.0, in_axes=None, axis_size=3)(W)
    same(out, np.stack([W * 2.0] * 3))
    same(tf.vmap(lambda x, w: w, in_axes=(0, None), out_axes=None)(X, W), W)


@pytest.mark.parametrize("size", [0, 1])
def test_size_zero_and_size_one_batches(size):
    batch = X[:size]
    out = tf.vmap(lambda x: tnp.sum(x**2) * x, in_axes=0)(batch)
    assert out.shape == (size, 3)
    same(out, np.sum(batch**2, axis=1, keepdims=True) * batch)
    g = tf.vmap(tf.grad(loss), in_axes=(None, 0, 0))(W, batch, Y[:size])
    assert g.shape == (size, 3)


@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=3, max_side=4), elements=st.floats(-3, 3)),
    st.integers(-2, 1),
)
def test_any_axis_equals_the_loop_over_it(batch, axis):
    f = lambda x: tnp.cumsum(tnp.exp(x) * x, axis=-1)  # noqa: E731
    moved = np.moveaxis(batch, axis, 0)
    same(tf.vmap(f, in_axes=axis)(batch), np.stack([np.asarray(f(x)) for x in moved]) if len(moved) else f(moved))


def test_errors_name_what_is_wrong():
    with pytest.raises(ShapeMismatch, match=r"vmap: the mapped axes differ in size .* size 5 on axis 0.* size 4"):
        tf.vmap(lambda x, y: x * y)(X, X[:4])
    with pytest.raises(ShapeMismatch, match="axis_size is 2"):
        tf.vmap(lambda x: x, axis_size=2)(X)
    with pytest.raises(ArgumentError, match="nothing is mapped"):
        tf.vmap(lambda x: x, in_axes=None)(X)
    with pytest.raises(ArgumentError, match="in_axes has 1 entries, but the function was called with 2"):
        tf.vmap(lambda x, y: x, in_axes=(0,))(X, X)
    with pytest.raises(ArgumentError, match=r"in_axes of argument 0 \(\{'a': 0\}\) is not a prefix"):
        tf.vmap(lambda p: p["a"], in_axes=({"a": 0},))({"a": X, "b": X})
    with pytest.raises(AxisError, match="has 2 axes, so it cannot be mapped over axis 2"):
        tf.vmap(lambda x: x, in_axes=2)(X)
    with pytest.raises(ArgumentError, match="in_axes must hold ints or None, got 'x'"):
        tf.vmap(lambda x: x, in_axes="x")
    with pytest.raises(ArgumentError, match="out_axes None, but it differs between examples"):
        tf.vmap(lambda x: x, out_axes=None)(X)
    with pytest.raises(ArgumentError, match="must be callable"):
        tf.vmap(3)
