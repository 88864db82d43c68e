"""A value a transform differentiates keeps tenferro's refusal when NumPy swallows it
(``a[0] = x[0]``, ``a.fill``, ``np.fromiter``, ``np.nditer`` replace the error of the
conversion they call with one of their own), and the errors of NumPy dispatch name what
the user called: a ufunc by its own module (``scipy.special.gammaincinv``), the exit of a call on a
list (``np.hstack``) by the list. Also: ``fftfreq``'s spacing differentiates, ``stack``
takes its axis by position, shape arguments take 0-d integer tensors."""

import numpy as np
import pytest
import scipy.special

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError

X0 = np.array([1.0, 2.0, 3.0])
REFUSAL = "is computed from the arguments grad is differentiating; a NumPy array or Python number made from it"


def _assign(x):
    a = np.zeros(3)
    a[0] = x[0]


def _fill(x):
    np.zeros(3).fill(x[0])


def _from_iterator(x):
    np.fromiter(x, float)


def _iterate(x):
    np.nditer(x)


def _assign_slice(x):
    a = np.zeros(3)
    a[:] = x


@pytest.mark.parametrize(
    "leak, numpys",
    [
        (_assign, "setting an array element with a sequence"),
        (_fill, "setting an array element with a sequence"),
        (_from_iterator, "setting an array element with a sequence"),
        (_iterate, "Iterator operand is flagged as writeable"),
        (_assign_slice, None),
    ],
    ids=["a[0] = x[0]", "a.fill(x[0])", "np.fromiter(x, float)", "np.nditer(x)", "a[:] = x"],
)
def test_a_refusal_numpy_swallows_reaches_the_user_as_tenferros(leak, numpys):
    def f(x):
        leak(x)
        return tnp.sum(x)

    with pytest.raises(ArgumentError) as info:
        tf.grad(f)(X0)
    assert REFUSAL in str(info.value)
    if numpys is not None:
        assert numpys in str(info.value)  # and what NumPy said instead, for the user who searches for it
        assert numpys in str(info.value.__cause__)


def test_an_error_after_a_caught_refusal_is_left_as_it_is():
    """Only the error that replaced the refusal is replaced: a user who catches NumPy's
    error and fails later for another reason sees that reason."""

    def f(x):
        try:
            _assign(x)
        except ValueError:
            pass
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        tf.grad(f)(X0)


def test_outside_a_transform_the_numpy_exits_read_the_value():
    x = tf.variable(X0)
    a = np.zeros(3)
    a[0] = x[0]
    np.testing.assert_array_equal(a, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.fromiter(x, float), X0)


@pytest.mark.parametrize(
    "call, words",
    [
        (
            lambda x: scipy.special.gammaincinv(1.0, x),
            ["scipy.special.gammaincinv on a tenferro array", "np.asarray(x)"],
        ),
    ],
    ids=["gammaincinv"],
)
def test_a_call_with_no_equivalent_names_what_the_user_called_and_its_exit(call, words):
    """scipy.special's ufuncs were refused as 'np.<name>' (those tenferro.scipy.special
    lacks still are, by their own module). (np.hstack, np.logspace, np.geomspace and
    np.median, refused here before, now record: tests/test_numpy_coverage.py.)"""
    with pytest.raises(ArgumentError) as info:
        call(tf.variable(X0))
    for word in words:
        assert word in str(info.value)
    assert "np.gammaincinv" not in str(info.value)


def test_a_ufunc_that_is_not_numpys_is_not_taken_for_numpys_of_its_name():
    """A ufunc named like a NumPy one (numba's, np.frompyfunc's) is another function."""
    twice = np.frompyfunc(lambda v: 2 * v, 1, 1)
    with pytest.raises(ArgumentError, match="the ufunc"):
        twice(tf.variable(X0))
    with pytest.raises(ArgumentError, match=r"scipy\.special\.expm1 on a tenferro array"):
        scipy.special.expm1(tf.variable(X0))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fftfreq_differentiates_in_its_spacing(name):
    """tnp.fft.fftfreq(4, d=<tracked>) said 'constant_from: got an EagerTensor'."""
    ours, numpys = getattr(tnp.fft, name), getattr(np.fft, name)
    for n, d in ((4, 0.5), (5, 0.1), (1, 3.0)):
        got = ours(n, d=tnp.asarray(d))
        np.testing.assert_array_equal(np.asarray(got), numpys(n, d))
        assert got.dtype == np.float64
    g = tf.grad(lambda d: tnp.sum(ours(6, d=d) ** 2))(0.5)
    h = 1e-6
    fd = ((numpys(6, 0.5 + h) ** 2).sum() - (numpys(6, 0.5 - h) ** 2).sum()) / (2 * h)
    assert float(np.asarray(g)) == pytest.approx(fd, rel=1e-7)
    np.testing.assert_array_equal(np.asarray(ours(tnp.asarray(4))), numpys(4))


def test_fftfreq_refuses_what_is_not_a_spacing_naming_it():
    with pytest.raises(ArgumentError, match=r"tnp\.fft\.fftfreq: d must be a real number \(a 0-d tensor\)"):
        tnp.fft.fftfreq(4, d=tnp.ones(2))
    with pytest.raises(ArgumentError, match=r"tnp\.fft\.fftfreq: d must be a real number, got 'a'"):
        tnp.fft.fftfreq(4, d="a")
    with pytest.raises(ArgumentError, match=r"tnp\.fft\.rfftfreq: n is 10+, which does not fit in a 64-bit integer"):
        tnp.fft.rfftfreq(10**30)


def test_stack_and_concat_take_the_axis_by_position_as_numpy():
    """tnp.stack([x, y], -1) said 'stack() takes 1 positional argument but 2 were given'."""
    x, y = tf.variable(np.ones((2, 3))), tnp.zeros((2, 3))
    np.testing.assert_array_equal(np.asarray(tnp.stack([x, y], -1)), np.stack([np.ones((2, 3)), np.zeros((2, 3))], -1))
    np.testing.assert_array_equal(
        np.asarray(tnp.concat([x, y], 1)), np.concatenate([np.ones((2, 3)), np.zeros((2, 3))], 1)
    )
    assert tnp.stack([x, y], axis=1).shape == (2, 2, 3)


@pytest.mark.parametrize(
    "call, shape",
    [
        (lambda x, n: tnp.reshape(x, n), (6,)),
        (lambda x, n: tnp.reshape(x, (tnp.asarray(2), -1)), (2, 3)),
        (lambda x, n: x.reshape(n), (6,)),
        (lambda x, n: tnp.broadcast_to(tnp.ones(1), n), (6,)),
        (lambda x, n: tnp.tile(tnp.ones(1), n), (6,)),
    ],
    ids=["reshape", "reshape tuple", "x.reshape", "broadcast_to", "tile"],
)
def test_shape_arguments_take_a_0d_integer_tensor(call, shape):
    assert call(tf.variable(np.ones(6)), tnp.prod(tnp.asarray((2, 3)))).shape == shape


def test_a_float_tensor_is_not_a_shape_argument():
    with pytest.raises(ArgumentError, match=r"tnp\.reshape: argument 'shape' is a float64 tensor of shape \[\]"):
        tnp.reshape(tnp.ones(6), tnp.asarray(6.0))
