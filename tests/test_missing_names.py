"""A name a newcomer brings from NumPy, PyTorch or JAX that tenferro spells otherwise, or
does not have, is an UnknownName (an AttributeError) that says what to write; and the
conveniences those habits expect (tf.no_grad, tf.stop_gradient, LinAlgError) exist."""

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import UnknownName


@pytest.mark.parametrize(
    "get, message",
    [
        (lambda: tnp.asanyarray, r"tnp has no 'asanyarray'; write tnp\.asarray"),
        (lambda: tnp.put, r"tnp has no 'put'; write x\.at\[indices\]\.set\(values\)"),
        (lambda: tnp.sinn, r"tnp has no 'sinn'; did you mean tnp\.sin or"),
        (lambda: tnp.i0, r"tnp has no 'i0' yet; NumPy's numpy\.i0 is not in tenferro\.numpy"),
        (lambda: tnp.linalg.choleski, r"tnp\.linalg has no 'choleski'; did you mean tnp\.linalg\.cholesky\?"),
        (lambda: tnp.fft.fftt, r"tnp\.fft has no 'fftt'; did you mean tnp\.fft\.fft"),
        (lambda: tf.no_gard, r"tf has no 'no_gard'; did you mean tf\.no_grad\?"),
        (lambda: tf.tensor, r"tf has no 'tensor'; write tf\.variable\(a\) \(requires grad\) or tf\.constant\(a\)"),
        (lambda: tf.nn.relu6, r"tf\.nn has no 'relu6'; did you mean tf\.nn\.relu"),
    ],
)
def test_a_missing_name_says_what_to_write(get, message):
    with pytest.raises(UnknownName, match=message) as info:
        get()
    assert isinstance(info.value, AttributeError)


def test_a_protocol_probe_is_a_plain_attribute_miss():
    assert not hasattr(tnp, "__wrapped__")
    with pytest.raises(AttributeError) as info:
        tf.__path_hooks__  # noqa: B018
    assert not isinstance(info.value, UnknownName)


def test_tf_no_grad_pauses_the_default_runtime():
    x = tf.variable(np.array([1.0, 2.0]))
    with tf.no_grad():
        y = tnp.sum(x * x)
    assert not y.tracks_grad()
    assert tnp.sum(x * x).tracks_grad()


def test_tf_stop_gradient_is_a_constant_of_the_value():
    x = tf.variable(np.array([1.0, 2.0]))
    g = tf.grad(lambda a: tnp.sum(tf.stop_gradient(a) * a))(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 2.0])
    assert not tf.stop_gradient(x).tracks_grad()
    with pytest.raises(tf.ArgumentError, match="tf.stop_gradient: x must be a tenferro array"):
        tf.stop_gradient(np.ones(2))


def test_a_singular_matrix_is_numpys_linalg_error_too():
    with pytest.raises(np.linalg.LinAlgError, match=r"tnp\.linalg\.inv: x is a singular matrix"):
        tnp.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(tnp.linalg.NotPositiveDefinite):
        tnp.linalg.cholesky(-np.eye(2))
    assert issubclass(tnp.linalg.SingularMatrix, tf.ArgumentError)


@pytest.mark.parametrize(
    "name, message",
    [
        ("numpy", r"EagerTensor has no 'numpy'; write np\.asarray\(x\)"),
        ("requires_grad", r"EagerTensor has no 'requires_grad'; write x\.tracks_grad\(\)"),
        ("shap", r"EagerTensor has no 'shap'; did you mean EagerTensor\.shape"),
    ],
)
def test_a_missing_tensor_attribute_says_what_to_write(name, message):
    x = tf.variable(np.array([1.0, 2.0]))
    with pytest.raises(UnknownName, match=message):
        getattr(x, name)
    assert not hasattr(x, "__array_interface__")  # NumPy's protocol probes stay plain misses


def test_backward_takes_pytorchs_keywords():
    x = tf.variable(np.array([1.0, 2.0]))
    tnp.sum(x * x).backward(retain_graph=True)  # the trace is always kept: accepted, changes nothing
    np.testing.assert_array_equal(np.asarray(x.grad()), [2.0, 4.0])
    (x * x).backward(gradient=tf.constant(np.array([1.0, 0.5])))  # backward_with(v)
    np.testing.assert_array_equal(np.asarray(x.grad()), [4.0, 6.0])
    with pytest.raises(tf.ArgumentError, match=r"create_graph=True\): .* use rt\.grad\(loss, x\) or tf\.grad"):
        tnp.sum(x * x).backward(create_graph=True)
    with pytest.raises(tf.ArgumentError, match=r"backward: its argument is the engine .* backward\(gradient=v\)"):
        (x * x).backward(np.ones(2))
    np.testing.assert_array_equal(np.asarray(x.grad()), [4.0, 6.0])  # the refused calls wrote nothing
