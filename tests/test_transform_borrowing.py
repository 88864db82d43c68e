"""``tf.grad`` and ``tf.value_and_grad`` read large NumPy arguments in place instead of
copying them, and still nothing they return or record changes when the caller later
writes into those arrays (docs/transforms.md, "NumPy arguments")."""

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro.transforms._borrow import BORROWED_BYTES

ROWS = BORROWED_BYTES // (8 * 4) + 1  # a (ROWS, 4) float64 array is borrowed


@pytest.fixture
def data():
    return np.random.default_rng(0).standard_normal((ROWS, 4))


def loss(w, X):
    return tnp.sum((X @ w) ** 2)


def test_a_large_numpy_argument_is_read_only_while_the_function_runs_and_writable_after(data):
    seen = []

    def f(w, X):
        seen.append(X.flags.writeable)
        return loss(w, X)

    tf.grad(f)(np.ones(4), data)
    assert seen == [False] and data.flags.writeable


def test_writing_into_a_borrowed_argument_inside_the_function_raises_and_leaves_it_writable(data):
    def f(w, X):
        value = loss(w, X)
        X[0, 0] = 5.0  # would change the value recorded for the gradient
        return value

    with pytest.raises(ValueError, match="read-only"):
        tf.grad(f)(np.ones(4), data)
    assert data.flags.writeable


def test_writing_into_numpy_data_after_the_call_changes_no_gradient(data):
    w = np.linspace(-1.0, 1.0, 4)
    expected = 2 * data.T @ (data @ w)
    value, g = tf.value_and_grad(loss)(w, data)
    data[:] = 0.0
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-12)
    assert float(value) > 0


def test_a_borrowed_differentiated_argument_gives_a_gradient_of_its_own(data):
    g = tf.grad(lambda x: tnp.sum(x * x))(data)
    assert not np.shares_memory(np.asarray(g), data)
    before = np.asarray(g).copy()
    data *= 3.0
    np.testing.assert_array_equal(np.asarray(g), before)


def test_a_result_that_is_a_view_of_a_borrowed_argument_is_copied(data):
    def f(w, X):
        return loss(w, X), tnp.reshape(X, (-1,))  # reshape's kernel returns a view of X

    (_, flat), _ = tf.value_and_grad(f, has_aux=True)(np.ones(4), data)
    kept = data.reshape(-1).copy()
    data[:2] = -1.0
    np.testing.assert_array_equal(np.asarray(flat), kept)


def test_a_gradient_equal_to_the_data_does_not_share_its_memory(data):
    w = np.ones((ROWS, 4))
    g = tf.grad(lambda w, X: tnp.sum(w * X))(w, data)  # the gradient is X itself
    np.testing.assert_array_equal(np.asarray(g), data)
    assert not np.shares_memory(np.asarray(g), data) and not np.shares_memory(np.asarray(g), w)


def test_a_record_that_outlives_the_call_keeps_no_borrowed_memory(data):
    """The function closes over a variable, so the gradient is recorded (differentiable in
    v): the values its record keeps must not change when the data does."""
    v = tf.variable(np.array([1.0, -2.0, 0.5, 3.0]))
    w = np.linspace(-1.0, 1.0, 4)

    def f(w, X):
        return tnp.sum((X @ w) * (X @ v))

    g = tf.grad(f)(w, data)
    assert g.tracks_grad()
    expected_g = data.T @ (data @ np.asarray(v))
    expected_dv = data.T @ (data @ np.ones(4))  # d/dv of sum(g) = X^T X 1
    data[:] = 7.0  # after the call: the record must not see it
    np.testing.assert_allclose(np.asarray(g), expected_g, rtol=1e-12)
    tnp.sum(g).backward()
    np.testing.assert_allclose(v.grad().to_numpy(), expected_dv, rtol=1e-12)
    assert data.flags.writeable


def test_nested_transforms_borrow_once_and_agree_with_copies(data):
    def inner(w, X):
        return tnp.sum(tf.grad(loss)(w, X) ** 2)

    w = np.linspace(-1.0, 1.0, 4)
    got = np.asarray(tf.grad(inner)(w, data))
    copied = np.asarray(tf.grad(inner)(w, data[:, :]))  # a view is never borrowed: copied as before
    np.testing.assert_array_equal(got, copied)
    A = data.T @ data
    np.testing.assert_allclose(got, 8 * A @ A @ w, rtol=1e-10)
    assert data.flags.writeable


def test_views_small_and_read_only_arrays_are_copied_and_keep_their_flags(data):
    view, small, frozen = data[:, :2], np.ones((4, 2)), data.copy()
    frozen.setflags(write=False)
    seen = []

    def f(w, V, S, F):
        seen.append((V.flags.writeable, S.flags.writeable, F.flags.writeable))
        return tnp.sum(V @ w) + tnp.sum(S @ w) + tnp.sum(F[:, :2] @ w)

    tf.grad(f)(np.ones(2), view, small, frozen)
    assert seen == [(True, True, False)]
    assert view.flags.writeable and small.flags.writeable and not frozen.flags.writeable


def test_the_function_raising_gives_the_arrays_back(data):
    def f(w, X):
        loss(w, X)
        raise RuntimeError("user error")

    with pytest.raises(RuntimeError, match="user error"):
        tf.value_and_grad(f)(np.ones(4), data)
    assert data.flags.writeable
    data[0, 0] = 1.0  # writable indeed


@pytest.mark.parametrize(
    "transform",
    [
        lambda w, X: tf.jacrev(loss)(w, X),
        lambda w, X: tf.jacfwd(loss)(w, X),
        lambda w, X: tf.hessian(loss)(w, X),
        lambda w, X: tf.jvp(lambda w: tf.grad(loss)(w, X), (w,), (np.ones(4),))[1],
        lambda w, X: tf.hvp(lambda w: loss(w, X), (w,), (np.ones(4),)),
    ],
    ids=["jacrev", "jacfwd", "hessian", "jvp", "hvp"],
)
def test_every_transform_that_returns_numbers_borrows_and_keeps_them(transform, data):
    w = np.linspace(-1.0, 1.0, 4)
    expected = np.asarray(transform(w, data.copy()[:, :]))  # a view: copied, never borrowed
    got = transform(w, data)
    data[:] = 0.0
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert data.flags.writeable


def test_a_jvp_whose_tangent_is_tracked_keeps_no_borrowed_memory(data):
    """The tangent is a variable, so the pushed tangent is recorded and outlives the call:
    the values it was computed from must not change when the primal's array does."""
    t = tf.variable(np.ones((ROWS, 4)))
    _, pushed = tf.jvp(lambda x: tnp.sum(tnp.sin(x) * x), (data,), (t,))
    expected = np.cos(data) * data + np.sin(data)  # d pushed / d t
    data[:] = 0.0
    pushed.backward()
    np.testing.assert_allclose(t.grad().to_numpy(), expected, rtol=1e-12)
    assert data.flags.writeable
