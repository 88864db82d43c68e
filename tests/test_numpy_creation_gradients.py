"""Creation functions built from a tenferro value keep its derivative: the fill value of
``full``/``full_like`` (also by NumPy dispatch), the bounds of ``linspace`` and ``arange``
(JAX's and autograd's answers), with NumPy's values bitwise; counts and shapes may be 0-d
integer tensors; too large a shape, a bad ``device`` and DLPack data tenferro cannot hold
are TenferroErrors naming the function."""

import numpy as np
import pytest
from conftest import fd_gradient
from hypothesis import given
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, ContextMismatch, ShapeMismatch, TenferroError


def _number(x):
    return float(np.asarray(x))


def test_full_is_differentiable_in_its_fill_value():
    assert _number(tf.grad(lambda a: tnp.sum(tnp.full((3,), a)))(2.0)) == 3.0  # JAX and autograd: 3
    assert _number(tf.grad(lambda a: tnp.sum(tnp.full((2, 3), a) ** 2))(1.5)) == 18.0
    g = tf.grad(lambda v: tnp.sum(tnp.full((4, 2), v) * np.arange(8.0).reshape(4, 2)))(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(g), [12.0, 16.0])  # a fill array broadcasts, as jnp.full's
    x = tf.variable(np.array(0.5))
    y = tnp.full((3,), x)
    assert y.tracks_grad() and y.runtime is x.runtime
    np.testing.assert_array_equal(np.asarray(y), np.full(3, 0.5))


def test_full_like_is_differentiable_in_its_fill_value_not_in_x():
    def f(x, a):
        return tnp.sum(tnp.full_like(x, a) * x)

    x0, a0 = np.array([1.0, 2.0, 4.0]), 3.0
    gx, ga = tf.grad(f, argnums=(0, 1))(x0, a0)
    np.testing.assert_array_equal(np.asarray(gx), np.full(3, a0))  # through the product only
    assert _number(ga) == x0.sum()
    assert tnp.full_like(np.zeros(2, np.float32), tf.variable(np.array(1.0))).dtype == np.float32


def test_numpy_full_like_dispatches_and_differentiates_in_its_fill_value():
    assert _number(tf.grad(lambda a: tnp.sum(np.full_like(tnp.zeros(3), a)))(2.0)) == 3.0
    g = tf.grad(lambda x: tnp.sum(np.full_like(x, x[0])))(np.array([1.0, 5.0, 7.0]))
    np.testing.assert_array_equal(np.asarray(g), [3.0, 0.0, 0.0])


def test_full_casts_a_tracked_fill_value_to_the_dtype_asked():
    y = tnp.full((2,), tf.variable(np.array(1.25)), dtype=tnp.float32)
    assert y.dtype == np.float32 and y.tracks_grad()
    z = tnp.full((2,), tf.variable(np.array(2.75)), dtype=tnp.int64)  # no derivative by nature
    np.testing.assert_array_equal(np.asarray(z), [2, 2])


def test_full_refuses_a_fill_value_that_does_not_broadcast_or_mixes_runtimes():
    with pytest.raises(ShapeMismatch, match=r"tnp\.full: fill_value has shape \[3\].*shape \[2\]"):
        tnp.full((2,), tf.variable(np.ones(3)))
    other = tf.EagerRuntime().variable_from(np.array(1.0))
    with pytest.raises(ContextMismatch, match=r"tnp\.full_like: fill_value belongs to"):
        tnp.full_like(tnp.zeros(2), other)
    with pytest.raises(ArgumentError, match=r"tnp\.full: cannot fill"):
        tnp.full((2,), np.ones(3))
    with pytest.raises(ArgumentError, match=r"tnp\.full: fill_value must be a number"):
        tnp.full((2,), "a")


def test_full_takes_numpy_arrays_as_numpy_does():
    for fill in (np.float32(2.0), np.array([1, 2]), [[1.0], [2.0]]):
        got, want = tnp.full((2, 2), fill), np.full((2, 2), fill)
        assert got.dtype == want.dtype and not got.tracks_grad()
        np.testing.assert_array_equal(np.asarray(got), want)


def test_linspace_with_a_tenferro_bound_is_numpys_values():
    """It recursed forever (tnp.linspace called np.linspace, which dispatched back)."""
    got = tnp.linspace(tnp.asarray(0.0), 1.0, 3)
    np.testing.assert_array_equal(np.asarray(got), [0.0, 0.5, 1.0])
    x = tf.variable(np.array([0.0, 1.0]))
    np.testing.assert_array_equal(np.asarray(np.linspace(x[0], x[1], 5)), np.linspace(0.0, 1.0, 5))
    assert np.linspace(x[0], x[1]).shape == (50,)  # NumPy's default num
    samples, step = np.linspace(x[0], x[1], 5, retstep=True)
    assert samples.tracks_grad() and _number(step) == 0.25


@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_differentiates_in_start_and_stop(endpoint):
    weights = np.arange(1.0, 6.0)
    b0 = np.array([0.5, 2.0])
    g = tf.grad(lambda b: tnp.sum(tnp.linspace(b[0], b[1], 5, endpoint=endpoint) * weights))(b0)
    want = fd_gradient(lambda b: (np.linspace(b[0], b[1], 5, endpoint=endpoint) * weights).sum(), b0)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-8)
    assert _number(tf.grad(lambda a: tnp.sum(np.linspace(a, 1.0, 5)))(0.0)) == 2.5  # JAX: 2.5


@given(
    st.integers(0, 6),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2]),
    st.sampled_from([np.float64, np.float32, np.int32, None]),
)
def test_linspace_of_array_bounds_matches_numpy_bitwise(num, endpoint, axis, dtype):
    start, stop = np.array([1.0, -2.0, 0.0]), np.array([[3.0], [5e-324]])  # 0 to 5e-324: a step that underflows
    want = np.linspace(start, stop, num, endpoint=endpoint, axis=axis, dtype=dtype)
    for a, b in ((tf.variable(start), stop), (start, tf.variable(stop)), (start, stop)):
        got = tnp.linspace(a, b, num, endpoint=endpoint, axis=axis, dtype=dtype)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_linspace_of_complex_and_integer_tensor_bounds():
    z = tnp.linspace(tnp.asarray(1j), tnp.asarray(2.0 + 0j), 4)
    np.testing.assert_array_equal(np.asarray(z), np.linspace(1j, 2.0, 4))
    n = tnp.linspace(tnp.asarray(0), tnp.asarray(10), 4)
    assert n.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(n), np.linspace(0, 10, 4))


def test_arange_differentiates_in_tensor_start_and_step():
    def f(start, step):
        return tnp.sum(tnp.arange(start, 3.0, step) ** 2)

    g_start, g_step = tf.grad(f, argnums=(0, 1))(0.5, 0.75)  # 0.5, 1.25, 2.0, 2.75
    points = 0.5 + 0.75 * np.arange(4)
    assert _number(g_start) == pytest.approx(2 * points.sum())
    assert _number(g_step) == pytest.approx((2 * points * np.arange(4)).sum())
    np.testing.assert_array_equal(np.asarray(tnp.arange(tnp.asarray(0.5), 3.0, 0.75)), np.arange(0.5, 3.0, 0.75))


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda n: tnp.zeros(n), np.zeros(6)),
        (lambda n: tnp.ones((2, n)), np.ones((2, 6))),
        (lambda n: tnp.empty((n,)), np.zeros(6)),
        (lambda n: tnp.full(n, 1.5), np.full(6, 1.5)),
        (lambda n: tnp.eye(n, n - 1), np.eye(6, 5)),
        (lambda n: tnp.arange(n), np.arange(6)),
        (lambda n: tnp.linspace(0.0, 1.0, n), np.linspace(0.0, 1.0, 6)),
        (lambda n: tnp.zeros(tnp.asarray([2, 3])), np.zeros((2, 3))),
    ],
    ids=["zeros", "ones", "empty", "full", "eye", "arange", "linspace", "1-d shape"],
)
def test_counts_and_shapes_take_a_0d_integer_tensor(call, want):
    """tnp.zeros(tnp.prod((2, 3))) refused the 0-d int64 tensor 6 as a shape."""
    got = call(tnp.prod(tnp.asarray((2, 3))))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.dtype == want.dtype


def test_a_float_tensor_is_not_a_shape():
    with pytest.raises(ArgumentError, match=r"tnp\.zeros: shape must be an int.*float64 tensor of shape \[\]"):
        tf.grad(lambda a: tnp.sum(tnp.zeros(a)))(2.0)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: tnp.zeros((2**40, 2**40)), "tnp.zeros: an array of shape [1099511627776, 1099511627776]"),
        (lambda: tnp.ones(2**70), "tnp.ones: an array of shape [1180591620717411303424]"),
        (lambda: tnp.full((2**62, 4), 1.0), "tnp.full: an array of shape"),
        (
            lambda: tnp.arange(10**30, dtype=tnp.float32),
            "tnp.arange: an array of shape [1000000000000000000000000000000]",
        ),
        (lambda: tnp.eye(2**40), "tnp.eye: an array of shape"),
        (lambda: tnp.linspace(0, 1, 2**62), "tnp.linspace: an array of shape"),
    ],
    ids=["zeros", "ones", "full", "arange", "eye", "linspace"],
)
def test_too_large_a_creation_is_a_tenferro_error_naming_the_function(call, words):
    """tnp.zeros((2**40, 2**40)) was NumPy's raw ValueError, tnp.arange(10**30,
    dtype=float32) a raw TypeError of np.isfinite."""
    with pytest.raises(TenferroError) as info:
        call()
    assert words in str(info.value)


def test_an_allocation_the_machine_refuses_is_a_tenferro_memory_error(monkeypatch):
    def refuse(*args, **kwargs):
        raise MemoryError("Unable to allocate")

    monkeypatch.setattr(np, "ones", refuse)
    with pytest.raises(TenferroError, match=r"tnp\.ones: an array of shape \[3\].*more than this machine") as info:
        tnp.ones(3)
    assert isinstance(info.value, MemoryError)


@pytest.mark.parametrize("device", [np.zeros(2), ["cpu"], 0])
def test_a_device_that_is_not_cpu_is_refused_naming_the_function(device):
    """device=<array> was NumPy's raw 'truth value of an array is ambiguous'."""
    for call in (
        lambda: tnp.zeros(3, device=device),
        lambda: tnp.full(3, 1.0, device=device),
        lambda: tnp.linspace(0, 1, 3, device=device),
    ):
        with pytest.raises(ArgumentError, match=r"tnp\.\w+: device=.* is not a device of tenferro\.numpy"):
            call()


def test_from_dlpack_of_data_dlpack_cannot_carry_is_a_tenferro_error():
    """A structured array raised DLPack's raw BufferError."""
    with pytest.raises(ArgumentError, match=r"tnp\.from_dlpack: x \(a ndarray\) cannot be exported by DLPack"):
        tnp.from_dlpack(np.zeros(3, dtype=[("a", float), ("b", int)]))
