"""``tenferro.scipy.signal`` and autograd's ``convolve``: values equal scipy's (and
HIPS autograd's, where autograd is installed) in every mode, method, rank and dtype; gradients in both
arguments against finite differences, real and complex, first and second order; errors
naming the function and the argument."""

import numpy as np
import pytest
import scipy.signal as ss
from conftest import fd_gradient

import tenferro as tf
import tenferro.numpy as tnp
import tenferro.scipy.signal as tss
from tenferro import ArgumentError, DTypeError, ShapeMismatch
from tenferro.autograd.test_util import check_grads

RNG = np.random.default_rng(7)
#: (in1's shape, in2's shape): 1-d to 3-d, either operand the larger, even and odd lengths.
SHAPES = [((7,), (3,)), ((2,), (5,)), ((4, 5), (2, 3)), ((2, 3), (3, 4)), ((3, 4, 2), (2, 2, 2))]


def _data(shape, complex_=False):
    x = RNG.normal(size=shape)
    return x + 1j * RNG.normal(size=shape) if complex_ else x


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("complex_", [False, True])
def test_values_are_scipys(name, complex_):
    checked = 0
    for s1, s2 in SHAPES:
        a, v = _data(s1, complex_), _data(s2, complex_)
        for mode in ("full", "same", "valid"):
            for method in ("direct", "fft", "auto"):
                try:
                    expected = getattr(ss, name)(a, v, mode, method=method)
                except ValueError:  # 'valid' with neither operand the larger on every axis
                    with pytest.raises(ShapeMismatch, match=f"tenferro.scipy.signal.{name}: in mode 'valid'"):
                        getattr(tss, name)(a, v, mode, method)
                    continue
                got = np.asarray(getattr(tss, name)(a, v, mode, method))
                assert got.shape == expected.shape and got.dtype == expected.dtype
                np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
                checked += 1
    assert checked >= 36


@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_2d_values_with_scipys_windows_and_fillvalue(name):
    for complex_ in (False, True):
        for s1, s2 in [((4, 5), (2, 3)), ((2, 3), (3, 4)), ((5, 4), (4, 2))]:
            a, v = _data(s1, complex_), _data(s2, complex_)
            for mode in ("full", "same", "valid"):
                for fill in (0, 1.5):
                    try:
                        expected = getattr(ss, name)(a, v, mode, fillvalue=fill)
                    except ValueError:
                        continue
                    got = np.asarray(getattr(tss, name)(a, v, mode, fillvalue=fill))
                    assert got.shape == expected.shape
                    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_dtypes_ranks_and_empty():
    a32, v32 = np.float32([1, 2, 3, 4]), np.float32([0.5, -1])
    for method in ("direct", "fft"):
        got = tss.convolve(a32, v32, method=method)
        assert got.dtype == ss.convolve(a32, v32, method=method).dtype == np.float32
    assert float(tss.convolve(np.float64(2.0), np.float64(3.0))) == 6.0  # 0-d: the product, as scipy's
    mixed = tss.correlate(np.array([1.0, 2.0]), np.array([1j, 1.0]))
    np.testing.assert_allclose(np.asarray(mixed), ss.correlate([1.0, 2.0], [1j, 1.0]))


def test_integers_give_scipys_integers_by_every_method():
    """scipy rounds its FFT result for integer inputs and casts it back: integers in,
    exact integers of the inputs' dtype out, whatever the method."""
    for dtype in (np.int64, np.int32, np.uint8):
        a = (np.arange(1, 40) % 7).astype(dtype).reshape(3, 13)  # no uint8 overflow: at most 6·12
        v = np.array([[3, 1, 2], [1, 4, 1]], dtype)
        for name in ("convolve", "correlate"):
            for mode in ("full", "same", "valid"):
                for method in ("direct", "fft", "auto"):
                    expected = getattr(ss, name)(a, v, mode, method=method)
                    got = getattr(tss, name)(a, v, mode, method)
                    assert got.dtype == expected.dtype == dtype, (name, mode, method)
                    assert np.array_equal(np.asarray(got), expected), (name, mode, method)


def test_float32_stays_float32_in_every_function_and_mode():
    """scipy's dtypes: float32 in, float32 out, in every mode and method, and in the 2-d
    functions with any fill value, which takes the result's dtype (an integer result pads
    with int(1.5); int32 stays int32)."""
    a, v = RNG.normal(size=(4, 5)).astype(np.float32), RNG.normal(size=(2, 3)).astype(np.float32)
    for mode in ("full", "same", "valid"):
        for name in ("convolve", "correlate"):
            for method in ("direct", "fft", "auto"):
                got = getattr(tss, name)(a, v, mode, method)
                assert got.dtype == getattr(ss, name)(a, v, mode, method=method).dtype == np.float32
        for name in ("convolve2d", "correlate2d"):
            for fill in (0, 1.5, np.float64(1.5), 2):
                expected = getattr(ss, name)(a, v, mode, fillvalue=fill)
                got = getattr(tss, name)(a, v, mode, fillvalue=fill)
                assert got.dtype == expected.dtype == np.float32, (name, mode, fill)
                np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-5)
            ints = (np.arange(12, dtype=np.int32).reshape(3, 4), np.array([[1, -2], [3, 1]], np.int32))
            expected = getattr(ss, name)(*ints, mode, fillvalue=1.5)
            got = getattr(tss, name)(*ints, mode, fillvalue=1.5)
            assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def test_empty_operands_give_the_modes_shape_of_zeros():
    """Every element an empty sum: zeros of the mode's shape, where scipy answers (its 2-d
    functions, its N-d direct path; its 1-d and FFT paths raise), in the result's dtype, on
    the operands' runtime and connected to them (their gradients zeros); both operands empty
    on one axis in mode 'full' is a ShapeMismatch, as scipy's "negative dimensions"."""
    other = tf.EagerRuntime()
    cases = [((0, 2), (1, 2)), ((2, 0), (1, 1)), ((3, 3), (0, 2)), ((0, 2), (0, 2)), ((0, 2), (3, 2))]
    for s1, s2 in cases:
        for dtype in (np.float32, np.int32):
            a, v = np.ones(s1, dtype), np.full(s2, 2, dtype)
            for mode in ("full", "same", "valid"):
                for name in ("convolve", "correlate", "convolve2d", "correlate2d"):
                    flat = name.endswith("2d")
                    try:
                        expected = getattr(ss, name)(a, v, mode, **({"fillvalue": 2} if flat else {"method": "direct"}))
                    except ValueError:
                        continue
                    got = getattr(tss, name)(other.constant_from(a), v, mode, **({"fillvalue": 2} if flat else {}))
                    assert got.runtime is other and got.dtype == expected.dtype, (name, s1, s2, mode)
                    assert got.shape == expected.shape and np.array_equal(np.asarray(got), expected)
    with pytest.raises(ShapeMismatch, match="convolve: in mode 'full' in1 and in2 cannot both be empty on one axis"):
        tss.convolve(np.ones((0, 2)), np.ones((0, 2)))
    assert tss.correlate(np.array([]), np.array([1.0])).shape == (0,)  # 1-d too (scipy's np.convolve refuses)
    grads = tf.grad(lambda x, y: tnp.sum(tss.convolve(x, y, "valid")), argnums=(0, 1))(np.ones((3, 3)), np.ones((0, 2)))
    assert [np.asarray(g).tolist() for g in grads] == [np.zeros((3, 3)).tolist(), np.zeros((0, 2)).tolist()]


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_gradients_in_both_arguments_against_finite_differences(name, mode):
    """Real and complex, direct and FFT: ∂/∂Re + i·∂/∂Im of Re Σ w·f (tenferro's convention)."""
    function, reference = getattr(tss, name), getattr(ss, name)
    for complex_ in (False, True):
        a, v = _data((4, 3), complex_), _data((2, 3), complex_)
        w = _data(reference(a, v, mode).shape, True)
        for method in ("direct", "fft"):

            def loss(x, y, method=method, w=w):
                return tnp.real(tnp.sum(function(x, y, mode, method) * w))

            def plain(x, y, w=w):
                return np.real(np.sum(reference(x, y, mode) * w))

            grads = tf.grad(loss, argnums=(0, 1))(a, v)
            ga = fd_gradient(lambda x, v=v, plain=plain: plain(x, v), a)
            gv = fd_gradient(lambda y, a=a, plain=plain: plain(a, y), v)
            np.testing.assert_allclose(np.asarray(grads[0]), ga, atol=1e-7)
            np.testing.assert_allclose(np.asarray(grads[1]), gv, atol=1e-7)


@pytest.mark.parametrize("method", ["direct", "fft"])
def test_second_order_in_both_modes_of_differentiation(method):
    """autograd's check_grads: VJP and JVP and their own derivatives, against finite
    differences, of a function nonlinear in the signal (so the second order is not zero)."""
    v, a = _data((2, 3)), _data((3, 4))
    check_grads(lambda x: tss.correlate(tnp.sin(x), v, "same", method) ** 2, order=2)(a)
    check_grads(lambda y: tss.convolve2d(a, y * y, "full", fillvalue=0.5), order=2)(v)


def test_complex_second_derivative():
    """The gradient of a real loss of a complex convolution, differentiated again: against
    finite differences of the first gradient (itself checked above)."""
    a, v, u = _data((5,), True), _data((3,), True), _data((5,), True)

    def loss(x):
        return tnp.sum(tnp.abs(tss.correlate(x, v, "same")) ** 2)

    def inner(x):
        return tnp.real(tnp.sum(tnp.conj(u) * tf.grad(loss)(x)))

    second = np.asarray(tf.grad(inner)(a))
    expected = fd_gradient(lambda x: float(inner(x)), a, h=1e-5)
    np.testing.assert_allclose(second, expected, atol=1e-6)


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: tss.convolve([1.0], [1.0], "middle"), ArgumentError, "convolve: argument 'mode' is 'middle'"),
        (lambda: tss.correlate([1.0], [1.0], method="fast"), ArgumentError, "correlate: argument 'method' is 'fast'"),
        (lambda: tss.convolve(np.ones((2, 2)), np.ones(2)), ShapeMismatch, "in1 and in2 must have the same rank"),
        (lambda: tss.convolve(np.ones((3, 1)), np.ones((1, 3)), "valid"), ShapeMismatch, "at least as large"),
        (lambda: tss.convolve([True], [1.0]), ArgumentError, "argument 'in1' has dtype bool"),
        (lambda: tss.convolve2d(np.ones(3), np.ones(2)), ShapeMismatch, "convolve2d: in1 and in2 must both be 2-d"),
        (lambda: tss.correlate2d(np.ones((2, 2)), np.ones((1, 1)), boundary="wrap"), ArgumentError, "not supported"),
        (lambda: tss.convolve2d(np.ones((2, 2)), np.ones((1, 1)), fillvalue=[1, 2]), ArgumentError, "fillvalue"),
        (lambda: tss.convolve2d(np.ones((2, 2)), np.ones((1, 1)), fillvalue=1j), DTypeError, "'fillvalue' is complex"),
    ],
)
def test_errors_name_the_function_and_argument(call, error, fragment):
    with pytest.raises(error, match="tenferro.scipy.signal.") as info:
        call()
    assert fragment in str(info.value)


def test_autograd_convolve_with_axes_and_dot_axes():
    """autograd's convnet layer: convolve over the image axes, sum over the channels."""
    import tenferro.autograd as ta
    import tenferro.autograd.scipy.signal as asig

    x, w = _data((2, 3, 6, 5)), _data((3, 4, 3, 2))
    spec = {"axes": ([2, 3], [2, 3]), "dot_axes": ([1], [0])}
    plain = asig.convolve(x, w, mode="valid", **spec)
    assert type(plain) is np.ndarray and plain.shape == (2, 4, 4, 4)
    loops = np.zeros((2, 4, 4, 4))
    for i in range(2):
        for f in range(4):
            for c in range(3):
                loops[i, f] += ss.convolve(x[i, c], w[c, f], "valid")
    np.testing.assert_allclose(plain, loops, atol=1e-12)
    grad = ta.grad(lambda w: ta.numpy.sum(asig.convolve(x, w, mode="full", **spec) ** 2))(w)
    expected = fd_gradient(lambda w: np.sum(asig.convolve(x, w, mode="full", **spec) ** 2), w)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-5)
    with pytest.raises(ArgumentError, match="autograd.scipy.signal.convolve: argument 'axes'"):
        asig.convolve(x, w, axes=([2, 9], [2, 3]))
    autograd = pytest.importorskip("autograd.scipy.signal")
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(
            asig.convolve(x, w, mode=mode, **spec), autograd.convolve(x, w, mode=mode, **spec), atol=1e-12
        )


def test_autograd_convolve_shares_the_windows_and_checks():
    """autograd's convolve takes its modes' windows and its argument checks from
    tenferro.scipy.signal: the same numbers as its convolve, the same words for its errors."""
    import tenferro.autograd.scipy.signal as asig

    for s1, s2 in SHAPES:
        a, v = _data(s1), _data(s2)
        for mode in ("full", "same", "valid"):
            if mode == "valid" and not (np.all(np.greater_equal(s1, s2)) or np.all(np.less_equal(s1, s2))):
                with pytest.raises(ShapeMismatch, match="in mode 'valid' one of A and B must be at least") as info:
                    asig.convolve(a, v, mode=mode)
                assert info.value.argument == "B"
                continue
            np.testing.assert_allclose(asig.convolve(a, v, mode=mode), np.asarray(tss.convolve(a, v, mode, "direct")))
    with pytest.raises(ArgumentError, match="convolve: argument 'mode' is 'middle'; pass one of 'full', 'same'"):
        asig.convolve(np.ones(2), np.ones(2), mode="middle")
