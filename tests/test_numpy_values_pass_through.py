"""Arrays that carry no gradient (constants, the results of ``tf.grad`` and
``tf.value_and_grad``, values computed under ``no_grad``) pass through NumPy and SciPy as
NumPy arrays would: a NumPy call tenferro cannot record (``np.atleast_1d``, ``out=`` into
a NumPy array, ``scipy.optimize``'s internals) runs on their values. Only what would drop a
gradient is refused: a tracked array, and a tenferro array written into."""

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError

RIDGE = 0.1
#: Tight enough for 1e-8 agreement, loose enough that BFGS's line search never runs out of precision.
OPTIONS = {"gtol": 1e-6}
NO_EQUIVALENT = "tenferro.numpy has no equivalent, so NumPy cannot record it"
OUT_REFUSED = "the result is a new tenferro array (values are immutable), so there is nothing to write into"
EXIT_REFUSED = "is computed from the arguments grad is differentiating"


def _problem(seed, n=60, d=4):
    """A logistic regression with a small ridge term (a unique minimum) and its loss with
    tenferro and its gradient by hand with NumPy."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (rng.random(n) < scipy.special.expit(0.5 * X @ rng.normal(size=d))).astype(float)

    def loss(w):
        z = X @ w
        return tnp.sum(tnp.logaddexp(0.0, z) - y * z) + 0.5 * RIDGE * tnp.sum(w * w)

    def numpy_loss(w):
        z = X @ w
        return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * RIDGE * np.sum(w * w)

    def numpy_grad(w):
        return X.T @ (scipy.special.expit(X @ w) - y) + RIDGE * w

    return loss, numpy_loss, numpy_grad, np.zeros(d)


def _check_same_minimum(got, want):
    assert got.success and want.success, (got.message, want.message)
    np.testing.assert_allclose(got.x, want.x, rtol=0, atol=1e-8)
    assert abs(float(got.fun) - float(want.fun)) <= 1e-8


@pytest.mark.parametrize("method", ["L-BFGS-B", "BFGS"])
def test_minimize_with_tf_grad_as_jac_finds_the_minimum_of_a_numpy_gradient(method):
    """minimize(f, x0, jac=tf.grad(f)) failed in np.atleast_1d of the gradient."""
    loss, numpy_loss, numpy_grad, w0 = _problem(0)
    got = scipy.optimize.minimize(loss, w0, jac=tf.grad(loss), method=method, options=OPTIONS)
    want = scipy.optimize.minimize(numpy_loss, w0, jac=numpy_grad, method=method, options=OPTIONS)
    _check_same_minimum(got, want)
    assert type(got.x) is np.ndarray and type(got.jac) is np.ndarray


@pytest.mark.parametrize("method", ["L-BFGS-B", "BFGS"])
def test_minimize_with_value_and_grad_and_jac_true_finds_the_minimum_of_a_numpy_gradient(method):
    """minimize(tf.value_and_grad(f), x0, jac=True) failed in np.atleast_1d of the gradient."""
    loss, numpy_loss, numpy_grad, w0 = _problem(1)
    got = scipy.optimize.minimize(tf.value_and_grad(loss), w0, jac=True, method=method, options=OPTIONS)
    want = scipy.optimize.minimize(
        lambda w: (numpy_loss(w), numpy_grad(w)), w0, jac=True, method=method, options=OPTIONS
    )
    _check_same_minimum(got, want)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 80), d=st.integers(1, 6), jac=st.booleans())
def test_minimize_with_tenferro_gradients_matches_numpy_gradients_on_any_logistic_regression(seed, n, d, jac):
    loss, numpy_loss, numpy_grad, w0 = _problem(seed, n, d)
    if jac:
        got = scipy.optimize.minimize(tf.value_and_grad(loss), w0, jac=True, method="BFGS", options=OPTIONS)
    else:
        got = scipy.optimize.minimize(loss, w0, jac=tf.grad(loss), method="BFGS", options=OPTIONS)
    want = scipy.optimize.minimize(numpy_loss, w0, jac=numpy_grad, method="BFGS", options=OPTIONS)
    _check_same_minimum(got, want)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.sampled_from([(), (1,), (3,), (2, 3)]),
    lr=st.floats(1e-4, 10.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_an_sgd_step_writes_a_gradient_into_a_numpy_array(shape, lr, seed):
    """W -= lr * g, with g = tf.grad(f)(W), failed: np.subtract(..., out=...) refused."""
    rng = np.random.default_rng(seed)
    W0 = rng.normal(size=shape)
    g = tf.grad(lambda w: tnp.sum(tnp.sin(w) * w))(W0)
    want = W0 - lr * (np.cos(W0) * W0 + np.sin(W0))
    W = W0.copy()
    before = W
    W -= lr * g
    assert W is before and type(W) is np.ndarray  # written in place, as into a NumPy array
    np.testing.assert_allclose(W, want, rtol=1e-14, atol=1e-14)
    total = np.zeros(shape)
    assert np.add(total, g, out=total) is total
    np.testing.assert_array_equal(total, np.asarray(g))


@given(shape=st.sampled_from([(), (1,), (4,), (2, 3)]))
def test_np_atleast_1d_of_a_gradient_is_numpys_of_its_value(shape):
    """np.atleast_1d(tf.grad(f)(x)) was refused: tenferro.numpy has no atleast_1d."""
    x = np.full(shape, 0.5)
    g = tf.grad(lambda w: tnp.sum(w**3))(x)
    got = np.atleast_1d(g)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.atleast_1d(3 * x**2))
    one, two = np.atleast_1d(g, g)
    np.testing.assert_array_equal(one, two)


def _computed_without_recording():
    with tf.no_grad():
        return tf.variable(np.array([1.0, 2.0])) * 2.0


UNTRACKED = {
    "constant": lambda: tnp.asarray([1.0, 2.0]),
    "grad": lambda: tf.grad(lambda w: tnp.sum(w * w))(np.array([0.5, 1.0])),
    "value_and_grad": lambda: tf.value_and_grad(lambda w: tnp.sum(w * w))(np.array([0.5, 1.0]))[1],
    "no_grad": _computed_without_recording,
}


@pytest.mark.parametrize("kind", list(UNTRACKED))
def test_numpy_and_scipy_functions_run_on_the_values_of_arrays_that_carry_no_gradient(kind):
    a = UNTRACKED[kind]()
    v = np.asarray(a)
    assert not a.tracks_grad() and type(v) is np.ndarray
    for got, want in [
        (np.atleast_2d(a), np.atleast_2d(v)),
        (np.hstack([a, v]), np.hstack([v, v])),
        (np.median(a), np.median(v)),
        (np.add.reduceat(a, [0, 1]), np.add.reduceat(v, [0, 1])),
        (np.sin(a, where=v > 1.5, out=np.zeros(2)), np.sin(v, where=v > 1.5, out=np.zeros(2))),
        (scipy.special.gammaincinv(1.5, a / 3), scipy.special.gammaincinv(1.5, v / 3)),  # not in tenferro.scipy.special
        (scipy.linalg.norm(a), scipy.linalg.norm(v)),
    ]:
        assert type(got) is type(want)
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.concatenate([a, v]), np.concatenate([v, v]))  # tnp.concat: a constant
    assert float(a[1]) == v[1] and float(tnp.reshape(a[:1], (1, 1))) == v[0]


def test_a_numpy_call_on_a_gradient_inside_a_transform_runs_on_its_value():
    """A constant inside a transform passes through NumPy; the result is a constant there."""
    c = tnp.asarray([1.0, 4.0])
    g = tf.grad(lambda x: tnp.sum(x * np.atleast_1d(np.median(c))))(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [2.5, 2.5])


def test_a_numpy_error_on_values_is_numpys_own_not_chained_to_a_refusal():
    g = tf.grad(lambda w: tnp.sum(w * w))(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="could not be broadcast") as info:
        np.add(np.zeros(3), g, out=np.zeros(3))
    assert not isinstance(info.value, ArgumentError) and info.value.__context__ is None


# -- what would drop a gradient keeps its refusal -------------------------------------------
def _inner_gradient_into_numpy(x):
    inner = tf.grad(lambda w: tnp.sum(w**3))(x)  # tracked: the outer grad differentiates it
    return tnp.sum(np.real_if_close(inner))


def _sgd_step_with_a_tracked_gradient(x):
    W = np.zeros(2)
    W -= 0.1 * x
    return tnp.sum(x)


TRACKED = [
    (  # (np.atleast_1d and np.median, refused here before, now record: tests/test_numpy_coverage.py)
        "real_if_close",
        lambda x: tnp.sum(np.real_if_close(x)),
        ["np.real_if_close", NO_EQUIVALENT, "np.real_if_close(np.asarray(x))"],
    ),
    ("fix", lambda x: tnp.sum(np.fix(x * 2.0)), ["np.fix", NO_EQUIVALENT]),
    ("W -= lr * x", _sgd_step_with_a_tracked_gradient, ["np.subtract(..., out=...)", OUT_REFUSED, "a = a + x"]),
    ("np.add out=", lambda x: np.add(np.zeros(2), x, out=np.zeros(2)), ["np.add(..., out=...)", OUT_REFUSED]),
    (
        "scipy.special",
        lambda x: tnp.sum(scipy.special.gammaincinv(1.5, x / 3)),
        ["scipy.special.gammaincinv on a tenferro array"],
    ),
    ("grad of grad", _inner_gradient_into_numpy, ["np.real_if_close", NO_EQUIVALENT]),
    ("float", lambda x: float(tnp.sum(x)), ["float(x)", EXIT_REFUSED]),
    ("np.asarray", lambda x: np.asarray(x), ["np.asarray(x)", EXIT_REFUSED]),
]


@pytest.mark.parametrize("name, f, words", TRACKED, ids=[case[0] for case in TRACKED])
def test_a_tracked_argument_inside_a_transform_is_refused_with_its_message(name, f, words):
    with pytest.raises(ArgumentError) as info:
        tf.grad(f)(np.array([1.0, 2.0]))
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("name", ["variable", "result of a variable"])
def test_a_tracked_argument_outside_a_transform_is_refused_by_numpy_dispatch(name):
    """backward() would lose the part through NumPy: refused as before, not read silently."""
    x = tf.variable(np.array([1.0, 2.0]))
    a = x if name == "variable" else x * 2.0
    with pytest.raises(ArgumentError, match=NO_EQUIVALENT):
        np.real_if_close(a)
    with pytest.raises(ArgumentError, match="nothing to write into"):
        W = np.zeros(2)
        W -= 0.1 * a


def test_a_tenferro_array_written_into_is_refused_even_without_a_gradient():
    c = tnp.asarray([1.0, 2.0])
    with pytest.raises(ArgumentError, match="nothing to write into"):
        np.sin(np.zeros(2), out=c)
    with pytest.raises(ArgumentError, match=r"np\.add\.at\(x, indices, \.\.\.\) writes into x in place"):
        np.add.at(c, [0], 1.0)
    with pytest.raises(ArgumentError, match=r"np\.copyto on a tenferro array"):
        np.copyto(c, np.zeros(2))
    np.testing.assert_array_equal(np.asarray(c), [1.0, 2.0])
