"""tf.flatten: a pytree as one float64 vector and back (ravel_pytree, autograd's flatten),
with its shapes and dtypes, differentiable through both directions."""

import numpy as np
import optree
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError, ShapeMismatch

LEAVES = hnp.arrays(
    st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3),
    elements={"allow_nan": False, "allow_infinity": False, "min_value": -100, "max_value": 100},
)
TREES = st.recursive(
    LEAVES | st.floats(-10, 10),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(st.text("abc", min_size=1, max_size=2), kids, max_size=3)
        | st.tuples(kids, kids)
    ),
    max_leaves=6,
)


@given(TREES)
def test_unflatten_gives_the_tree_back_with_its_shapes_and_dtypes(tree):
    vector, unflatten = tf.flatten(tree)
    expected = [np.asarray(x) for x in optree.tree_leaves(tree)]  # optree's order: dict keys sorted
    assert vector.dtype == np.float64 and vector.shape == (sum(x.size for x in expected),)
    np.testing.assert_array_equal(np.asarray(vector), np.concatenate([x.ravel() for x in expected] + [np.zeros(0)]))
    back = unflatten(vector)
    assert optree.tree_structure(back) == optree.tree_structure(tree)
    for got, want in zip(optree.tree_leaves(back), expected):
        assert isinstance(got, tf.EagerTensor) and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_the_order_is_hips_autograds():
    flatten = pytest.importorskip("autograd.misc.flatten").flatten
    tree = {"b": [np.arange(3.0), 2.5], "a": (np.ones((2, 2)), {"z": 1.0, "y": np.array([7.0])})}
    np.testing.assert_array_equal(np.asarray(tf.flatten(tree)[0]), flatten(tree)[0])


def test_gradients_flow_through_flatten_and_unflatten():
    tree = {"w": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": 0.5}
    vector, unflatten = tf.flatten(tree)

    def loss(v):
        p = unflatten(v)
        return tnp.sum(p["w"] ** 2) * p["b"]

    np.testing.assert_allclose(np.asarray(tf.grad(loss)(vector)), [30.0, 1.0, 2.0, 3.0, 4.0])  # b first: sorted
    g = tf.grad(lambda t: tnp.sum(tf.flatten(t)[0] ** 3))(tree)
    np.testing.assert_allclose(np.asarray(g["w"]), 3 * tree["w"] ** 2)
    assert float(g["b"]) == 0.75


def test_a_float32_leaf_comes_back_float32_and_takes_a_float32_gradient():
    x = tf.variable(np.array([1.5, 2.5], np.float32))
    vector, unflatten = tf.flatten([x])
    assert vector.dtype == np.float64
    (back,) = unflatten(vector * 2)
    assert back.dtype == np.float32
    tnp.sum(back).backward()
    assert x.grad().dtype == np.float32 and x.grad().to_numpy().tolist() == [2.0, 2.0]


def test_bad_trees_and_vectors_are_refused_by_name():
    with pytest.raises(ArgumentError, match=r"tf\.flatten: tree at \['a'\] is a str"):
        tf.flatten({"a": "x"})
    with pytest.raises(DTypeError, match=r"tf\.flatten: tree at \[0\] is c128\[1\]; the vector is float64"):
        tf.flatten([np.array([1j])])
    other = tf.EagerRuntime().constant_from(np.ones(2))
    with pytest.raises(ArgumentError, match=r"tf\.flatten: tree at \[1\] belongs to"):
        tf.flatten([tnp.ones(2), other])
    _, unflatten = tf.flatten([np.ones(2), 1.0])
    with pytest.raises(ShapeMismatch, match=r"unflatten: v is f64\[2\], but the flattened tree is f64\[3\]"):
        unflatten(np.ones(2))
    with pytest.raises(ArgumentError, match="unflatten: v is a str"):
        unflatten("abc")


def test_an_empty_tree_is_an_empty_vector():
    vector, unflatten = tf.flatten({})
    assert vector.shape == (0,) and vector.dtype == np.float64 and unflatten(vector) == {}
