"""``tenferro.nn``: jax.nn's names on the nn plugin's ops, bitwise equal to the session forms."""

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, CpuEngine, EagerRuntime

X = np.linspace(-3, 3, 12).reshape(3, 4)


def _pairs(rt, x):
    w = np.linspace(0.5, 2.0, 4)
    front = [
        tf.nn.relu(x),
        tf.nn.silu(x),
        tf.nn.sigmoid(x),
        tf.nn.gelu(x),
        tf.nn.gelu(x, approximate=True),
        tf.nn.softplus(x, beta=2.0),
        tf.nn.softmax(x, axis=0),
        tf.nn.log_softmax(x),
        tf.nn.logsumexp(x, axis=1, keepdims=True),
        tf.nn.layer_norm(x, w, 0.5),
        tf.nn.rms_norm(x, axis=(0, 1)),
    ]
    wc = rt.constant_from(w)
    with rt.eager_session() as s:
        session = [
            s.relu(x),
            s.silu(x),
            s.sigmoid(x),
            s.gelu(x, "none"),
            s.gelu(x, "tanh"),
            s.softplus(x, 2.0, 20.0),
            s.softmax(x, 0),
            s.log_softmax(x, -1),
            s.logsumexp(x, 1, True),
            s.layer_norm(x, wc, 0.5),
            s.rms_norm(x, 1.0, axes=(0, 1)),
        ]
    return front, session


def test_nn_functions_equal_the_session_ops_bitwise_with_their_gradients():
    rt = EagerRuntime(engine=CpuEngine.serial())
    for k in range(11):
        x = rt.variable_from(X)
        front, session = _pairs(rt, x)
        np.testing.assert_array_equal(np.asarray(front[k]), np.asarray(session[k]))
        s = rt.current_session()  # outside any session: the implicit one
        weights = rt.constant_from(np.cos(np.arange(np.asarray(front[k]).size)).reshape(front[k].shape))
        g_front = rt.grad(s.reduce_sum(s.mul(front[k], weights), None), x)
        g_session = rt.grad(s.reduce_sum(s.mul(session[k], weights), None), x)
        np.testing.assert_array_equal(np.asarray(g_front), np.asarray(g_session))


def test_nn_functions_take_numpy_arrays_as_constants_of_the_default_runtime():
    y = tf.nn.softmax(X)
    assert y.runtime is tf.default_runtime() and not y.tracks_grad()
    np.testing.assert_allclose(np.asarray(y).sum(axis=-1), 1.0)


def test_one_hot_is_a_constant_with_zero_rows_outside_the_classes():
    out = tf.nn.one_hot(np.array([0, 2, 5]), 3)
    np.testing.assert_array_equal(np.asarray(out), [[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    assert out.dtype == np.float64 and not out.tracks_grad()
    with pytest.raises(ArgumentError, match="one_hot: labels must be integers"):
        tf.nn.one_hot(np.array([0.5]), 3)


def test_gelu_approximate_is_a_bool():
    with pytest.raises(ArgumentError, match="gelu: approximate must be True or False, got 'tanh'"):
        tf.nn.gelu(tf.constant(X), approximate="tanh")


def test_one_hot_refuses_dtypes_tenferro_does_not_hold_as_tnp_does():
    with pytest.raises(tf.DTypeError, match=r"tf\.nn\.one_hot: dtype="):
        tf.nn.one_hot(np.array([0, 1]), 2, dtype=np.float16)
    with pytest.raises(tf.DTypeError, match=r"tf\.nn\.one_hot: dtype="):
        tf.nn.one_hot(np.array([0, 1]), 2, dtype="not a dtype")
    labels = tnp.asarray([2, 0], dtype=tnp.int32)  # a tenferro array of labels, read through np.asarray
    out = tf.nn.one_hot(labels, 3, dtype=tnp.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), [[0, 0, 1], [1, 0, 0]])


def test_nn_errors_name_the_nn_function():
    with pytest.raises(tf.DTypeError, match=r"^tf\.nn\.relu: argument 'x' has dtype bool"):
        tf.nn.relu(tnp.asarray([True]))
    with pytest.raises(tf.TenferroError, match=r"^tf\.nn\.softmax: "):
        tf.nn.softmax(tnp.asarray([1.0, 2.0]), axis=3)
    with pytest.raises(tf.ArgumentError, match=r"^tf\.nn\.softmax: argument 'x' is a str"):
        tf.nn.softmax("a")
