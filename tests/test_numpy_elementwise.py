"""tenferro.numpy's element-wise functions: values against NumPy, gradients against finite
differences and PyTorch, the tnp form bitwise equal to the session form, errors, and
recording on the session of a non-default runtime."""

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError
from tenferro.numpy import _elementwise

#: tnp name -> NumPy's function of the same meaning (where the names differ).
NUMPY_NAME = {
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "atan2": "arctan2",
    "bitwise_invert": "invert",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "pow": "power",
}
#: Where each unary function is defined and smooth (a real input in that interval).
DOMAIN = {"acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 3.0)}
POSITIVE = {"log", "log1p", "log2", "log10", "sqrt", "reciprocal"}
BITWISE = {"bitwise_invert", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor"}
BITWISE |= {"bitwise_left_shift", "bitwise_right_shift", "logical_and", "logical_or", "logical_xor"}
#: Functions with no derivative, or zero almost everywhere: values only.
FLAT = {"ceil", "floor", "round", "trunc", "sign", "signbit", "isfinite", "isinf", "isnan"}
UNARY_FLOAT = sorted(set(_elementwise.UNARY) - BITWISE)
BINARY_FLOAT = sorted(set(_elementwise.BINARY) - BITWISE)


def numpy_function(name):
    return getattr(np, NUMPY_NAME.get(name, name))


def sample(name, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = DOMAIN.get(name, (0.2, 2.0) if name in POSITIVE else (-2.0, 2.0))
    return rng.uniform(lo, hi, shape)


@pytest.mark.parametrize("name", UNARY_FLOAT)
def test_unary_values_match_numpy(name):
    x = sample(name)
    got = getattr(tnp, name)(tnp.asarray(x))
    want = numpy_function(name)(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", BINARY_FLOAT + sorted(_elementwise.COMPARISONS))
def test_binary_values_match_numpy(name):
    x1, x2 = sample(name, seed=1), sample(name, (4,), seed=2)  # broadcasting
    if name in ("pow",):
        x1 = np.abs(x1)
    got = getattr(tnp, name)(tnp.asarray(x1), tnp.asarray(x2))
    want = numpy_function(name)(x1, x2)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(BITWISE))
def test_bitwise_values_match_numpy(name):
    rng = np.random.default_rng(3)
    x1, x2 = rng.integers(-50, 50, (3, 4)), rng.integers(0, 5, (3, 4))
    if name.startswith("logical"):
        x1, x2 = x1 > 0, x2 > 2
    f = getattr(tnp, name)
    got = f(tnp.asarray(x1)) if name in _elementwise.UNARY else f(tnp.asarray(x1), tnp.asarray(x2))
    want = numpy_function(name)(x1) if name in _elementwise.UNARY else numpy_function(name)(x1, x2)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("name", [n for n in UNARY_FLOAT if n not in FLAT])
def test_unary_gradients_match_finite_differences(name):
    x0 = sample(name, (5,))
    f = getattr(tnp, name)
    x = tf.variable(x0)
    rt = x.runtime
    (g,) = rt.grad(rt.current_session().reduce_sum(f(x)), [x])
    want = fd_gradient(lambda a: numpy_function(name)(a).sum(), x0)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(set(BINARY_FLOAT) - {"floor_divide", "remainder"}))
def test_binary_gradients_match_finite_differences(name):
    a0, b0 = sample(name, (5,), seed=4), sample(name, (5,), seed=5)
    if name == "pow":
        a0 = np.abs(a0)
    f = getattr(tnp, name)
    a, b = tf.variable(a0), tf.variable(b0)
    rt = a.runtime
    ga, gb = rt.grad(rt.current_session().reduce_sum(f(a, b)), [a, b])
    np.testing.assert_allclose(np.asarray(ga), fd_gradient(lambda t: numpy_function(name)(t, b0).sum(), a0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), fd_gradient(lambda t: numpy_function(name)(a0, t).sum(), b0), rtol=1e-6)


def test_complex_gradients_match_finite_differences():
    z0 = np.array([0.5 + 1.0j, -1.2 + 0.3j, 2.0 - 0.7j])
    for name in ("sin", "exp", "log", "sqrt", "abs", "tanh", "square", "sign"):
        z = tf.variable(z0)
        rt = z.runtime
        s = rt.current_session()
        out = s.reduce_sum(tnp.real(getattr(tnp, name)(z)) * 0.3 + tnp.imag(getattr(tnp, name)(z)))
        (g,) = rt.grad(out, [z])

        def f(a, name=name):
            v = numpy_function(name)(a) if name != "sign" else a / np.abs(a)
            return (np.real(v) * 0.3 + np.imag(v)).sum()

        np.testing.assert_allclose(np.asarray(g), fd_gradient(f, z0), rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["sin", "exp", "tanh", "abs", "sqrt", "log1p", "atan", "conj"])
def test_tnp_form_is_bitwise_the_session_form(rt, name):
    x0 = sample(name, (6,))
    op = _elementwise.UNARY[name]
    with rt.eager_session() as s:
        x = rt.variable_from(x0)
        y_tnp, y_op = getattr(tnp, name)(x), getattr(s, op)(x)
        assert y_tnp.runtime is rt and y_tnp.tracks_grad()
        l_tnp, l_op = s.reduce_sum(s.mul(y_tnp, y_tnp)), s.reduce_sum(s.mul(y_op, y_op))
    (g_tnp,) = rt.grad(l_tnp, [x])
    (g_op,) = rt.grad(l_op, [x])
    assert np.asarray(y_tnp).tobytes() == np.asarray(y_op).tobytes()
    assert np.asarray(g_tnp).tobytes() == np.asarray(g_op).tobytes()


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "atan2", "hypot", "maximum"])
def test_binary_tnp_form_is_bitwise_the_session_form(rt, name):
    a0, b0 = np.abs(sample(name, (6,), seed=6)) + 0.1, sample(name, (6,), seed=7)
    op = _elementwise.BINARY[name]
    with rt.eager_session() as s:
        a, b = rt.variable_from(a0), rt.variable_from(b0)
        y_tnp, y_op = getattr(tnp, name)(a, b), getattr(s, op)(a, b)
        assert y_tnp.runtime is rt and y_tnp.tracks_grad()
        l_tnp, l_op = s.reduce_sum(y_tnp), s.reduce_sum(y_op)
    g_tnp = rt.grad(l_tnp, [a, b])
    g_op = rt.grad(l_op, [a, b])
    assert np.asarray(y_tnp).tobytes() == np.asarray(y_op).tobytes()
    for one, other in zip(g_tnp, g_op):
        assert np.asarray(one).tobytes() == np.asarray(other).tobytes()


def test_functions_record_on_the_open_session_of_their_runtime(rt):
    with rt.eager_session() as s:
        x = rt.variable_from(np.array([0.5, 1.5]))
        y = tnp.clip(tnp.exp(tnp.multiply(x, 2.0)), min=1.0, max=5.0)
        assert y.runtime is rt and y.tracks_grad()
        assert "clamp" in repr(y.trace())
        loss = s.reduce_sum(y)
    (g,) = rt.grad(loss, [x])
    np.testing.assert_allclose(np.asarray(g), [2 * np.exp(1.0), 0.0])


def test_python_scalar_operands():
    x = tnp.asarray(np.array([1, 2, 3], np.int8))
    assert tnp.add(x, 1).dtype == tnp.int8
    assert tnp.add(2, x).dtype == tnp.int8
    assert tnp.multiply(tnp.asarray(np.float32([1.5])), 2.0).dtype == tnp.float32
    assert tnp.less(x, 2).dtype == tnp.bool
    np.testing.assert_array_equal(np.asarray(tnp.subtract(10, x)), [9, 8, 7])
    assert np.asarray(tnp.add(1.0, 2.0)).shape == ()  # two scalars: NumPy's 0-d result


def test_aliases_are_the_same_functions():
    for alias, name in _elementwise.ALIASES.items():
        assert getattr(tnp, alias) is getattr(tnp, name), alias
    assert tnp.pow.__name__ == "pow" and tnp.acos.__module__ == "tenferro.numpy"


def test_dtype_rules_of_the_standard():
    z = tnp.asarray(np.array([3 + 4j, -1j], np.complex64))
    assert tnp.abs(z).dtype == tnp.float32
    assert tnp.real(z).dtype == tnp.float32 and tnp.imag(z).dtype == tnp.float32
    np.testing.assert_allclose(np.asarray(tnp.sign(z)), [0.6 + 0.8j, -1j], rtol=1e-6)
    i = tnp.asarray(np.array([-2, 3], np.int16))
    for name in ("ceil", "floor", "trunc", "round", "sign", "abs", "square", "negative"):
        assert getattr(tnp, name)(i).dtype == tnp.int16, name


def test_round_of_complex_rounds_each_part():
    z = np.array([1.5 - 2.5j, 0.4 + 3.6j])
    got = tnp.round(tnp.asarray(z))
    assert got.dtype == tnp.complex128
    np.testing.assert_array_equal(np.asarray(got), np.round(z))


def test_clip_values_match_numpy():
    x0 = np.array([-3.0, -1.0, 0.0, 2.0, np.nan, 7.0])
    x = tnp.asarray(x0)
    for lo, hi in ((-1.0, 2.0), (None, 2.0), (-1.0, None), (np.array([0.0, -2, 0, 0, 0, 8]), 5.0)):
        got = tnp.clip(x, min=lo, max=hi)
        np.testing.assert_array_equal(np.asarray(got), np.clip(x0, lo, hi))
    assert tnp.clip(x) is x
    u = tnp.asarray(np.array([0, 5, 200], np.uint8))
    assert tnp.clip(u, min=1).dtype == tnp.uint8
    np.testing.assert_array_equal(np.asarray(tnp.clip(u, min=1, max=300)), [1, 5, 200])
    np.testing.assert_array_equal(np.asarray(tnp.clip(u, max=7)), [0, 5, 7])


@needs_torch
def test_clip_gradient_matches_torch():
    x0, lo0 = np.array([-3.0, -1.0, 0.5, 2.0, 4.0]), np.array([-1.0, -1.0, 0.0, 0.0, 0.0])
    x, lo = tf.variable(x0), tf.variable(lo0)
    rt = x.runtime
    gx, glo = rt.grad(rt.current_session().reduce_sum(tnp.clip(x, min=lo, max=2.0)), [x, lo])
    tx, tlo = torch.tensor(x0, requires_grad=True), torch.tensor(lo0, requires_grad=True)
    torch.clamp(tx, min=tlo, max=torch.tensor(2.0)).sum().backward()
    np.testing.assert_array_equal(np.asarray(gx), tx.grad.numpy())
    np.testing.assert_array_equal(np.asarray(glo), tlo.grad.numpy())


@needs_torch
@pytest.mark.parametrize("name", ["asinh", "expm1", "log10", "tan", "cosh", "logaddexp", "copysign", "hypot"])
def test_gradients_match_torch(name):
    a0, b0 = sample(name, (5,), seed=8), sample(name, (5,), seed=9)
    f = getattr(tnp, name)
    binary = name in _elementwise.BINARY
    a, b = tf.variable(a0), tf.variable(b0)
    rt = a.runtime
    out = rt.current_session().reduce_sum(f(a, b) if binary else f(a))
    grads = rt.grad(out, [a, b] if binary else [a])
    ta, tb = torch.tensor(a0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    tfun = getattr(torch, name)
    (tfun(ta, tb) if binary else tfun(ta)).sum().backward()
    np.testing.assert_allclose(np.asarray(grads[0]), ta.grad.numpy(), rtol=1e-12)
    if binary and name != "copysign":  # torch's copysign has no gradient in b either; both 0
        np.testing.assert_allclose(np.asarray(grads[1]), tb.grad.numpy(), rtol=1e-12)


def test_nextafter_is_a_numpy_constant():
    x = tf.variable(np.array([1.0, 2.0]))
    got = tnp.nextafter(x, 3.0)
    np.testing.assert_array_equal(np.asarray(got), np.nextafter([1.0, 2.0], 3.0))
    assert not got.tracks_grad()
    assert tnp.nextafter(tnp.asarray(np.float32([1])), tnp.asarray(np.float32([0]))).dtype == tnp.float32
    with pytest.raises(DTypeError, match="tnp.nextafter"):
        tnp.nextafter(tnp.asarray([1, 2]), 3)


def test_errors_name_the_function_and_argument():
    with pytest.raises(DTypeError, match=r"tnp\.sin: argument 'x' has dtype bool"):
        tnp.sin(tnp.asarray([True]))
    with pytest.raises(DTypeError, match=r"tnp\.atan2: argument 'x1'"):
        tnp.atan2(tnp.asarray([1j]), 1.0)  # a bool x1 is NumPy's promotion to float64, complex is refused
    with pytest.raises(ArgumentError, match=r"tnp\.exp: argument 'x' is a str"):
        tnp.exp("a")
    with pytest.raises(ArgumentError, match=r"tnp\.add: argument 'x2' is a dict"):
        tnp.add(tnp.asarray([1.0]), {})
    with pytest.raises(DTypeError, match=r"tnp\.less"):
        tnp.less(tnp.asarray([1j]), 0)
    with pytest.raises(DTypeError, match=r"tnp\.clip"):
        tnp.clip(tnp.asarray([1j]), min=0)


def test_numpy_and_list_arguments_become_constants():
    x = tf.variable(np.array([1.0, 2.0]))
    y = tnp.multiply(np.array([3.0, 4.0]), x)
    assert y.tracks_grad()
    np.testing.assert_array_equal(np.asarray(tnp.sqrt([4.0, 9.0])), [2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(tnp.negative(2)), -2)


#: Bool operands beside numbers, as NumPy promotes them: (call, NumPy's call) on x = [0.5, 2].
BOOL_BESIDE_NUMBERS = [
    ("mask_times_x", lambda x, m: x * m, lambda x, m: x * m),
    ("x_times_mask", lambda x, m: m * x, lambda x, m: m * x),
    ("mask_minus_x", lambda x, m: m - x, lambda x, m: m - x),
    ("x_over_mask_plus_one", lambda x, m: x / (m + 1.5), lambda x, m: x / (m + 1.5)),
    ("mask_times_python_float", lambda x, m: m * 2.5, lambda x, m: m * 2.5),
    ("mask_plus_python_int", lambda x, m: m + 2, lambda x, m: m + 2),
    ("x_times_python_bool", lambda x, m: x * True, lambda x, m: x * True),
    ("tnp_multiply", lambda x, m: tnp.multiply(x, m), lambda x, m: np.multiply(x, m)),
    ("tnp_maximum", lambda x, m: tnp.maximum(m, x), lambda x, m: np.maximum(m, x)),
    ("tnp_matmul", lambda x, m: tnp.matmul(m, x), lambda x, m: np.matmul(m, x)),
    ("int32_times_mask", lambda x, m: tnp.astype(x, tnp.int32) * m, lambda x, m: x.astype(np.int32) * m),
]


@pytest.mark.parametrize("name, f, by_numpy", BOOL_BESIDE_NUMBERS, ids=[case[0] for case in BOOL_BESIDE_NUMBERS])
def test_bool_operands_promote_as_numpys(name, f, by_numpy):
    x = tf.variable(np.array([0.5, 2.0]))
    out = f(x, x > 1)
    expected = by_numpy(np.array([0.5, 2.0]), np.array([False, True]))
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.parametrize("name, f, by_numpy", BOOL_BESIDE_NUMBERS, ids=[case[0] for case in BOOL_BESIDE_NUMBERS])
def test_a_numpy_bool_operand_promotes_as_numpys(name, f, by_numpy):
    """The mask a NumPy array (``preds * targets`` with boolean targets): the operators cast
    it when they lift it, the functions when the op refuses it; the same numbers either way."""
    x = tf.variable(np.array([0.5, 2.0]))
    out = f(x, np.array([False, True]))
    expected = by_numpy(np.array([0.5, 2.0]), np.array([False, True]))
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_a_numpy_mask_beside_integers_and_in_comparisons_is_numpys():
    xi, mask = tf.constant(np.arange(4)), np.array([True, False, True, True])
    for got, expected in [
        (xi & mask, np.arange(4) & mask),
        (xi << mask, np.arange(4) << mask),
        (tf.constant(np.arange(4.0)) > mask, np.arange(4.0) > mask),
        (tf.constant(np.arange(4.0) + 1j) * mask, (np.arange(4.0) + 1j) * mask),
    ]:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_a_mask_times_x_has_the_masks_gradient():
    x = tf.variable(np.array([0.5, 2.0, 3.0]))
    tnp.sum(x * (x > 1)).backward()
    np.testing.assert_array_equal(np.asarray(x.grad()), [0.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "name, by_numpy",
    [("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod), ("var", np.var), ("std", np.std)],
)
def test_reductions_of_bool_arrays_are_numpys(name, by_numpy):
    b = np.array([[True, False, True], [True, True, True]])
    for axis in (None, 1):
        out = getattr(tnp, name)(tnp.asarray(b), axis=axis)
        assert out.dtype == by_numpy(b, axis=axis).dtype
        np.testing.assert_allclose(np.asarray(out), by_numpy(b, axis=axis))
    pred, y = tnp.asarray([1, 2, 3, 4]), tnp.asarray([1, 0, 3, 0])
    assert float(np.mean(pred == y)) == 0.5  # an accuracy, through NumPy's mean too


def test_refused_operand_dtypes_name_the_operator_and_its_operands():
    x = tnp.asarray([1.0, 2.0])
    with pytest.raises(DTypeError, match=r"^operator &: argument 'self' has dtype"):
        x & 1
    with pytest.raises(DTypeError, match=r"^operator <<: argument 'self' has dtype"):
        1 << x
    with pytest.raises(DTypeError, match=r"^operator -: argument 'self' has dtype bool"):
        (x > 1) - (x > 1)  # NumPy refuses bool - bool too
    with pytest.raises(DTypeError, match=r"^tnp\.bitwise_and: argument 'x1' has dtype"):
        tnp.bitwise_and(x, 1)


@pytest.mark.parametrize(
    "lo, hi",
    [(1.5, 3), (1, 3.5), (1.5, None), (None, 2.5), (-1e30, 1e30), (1, 3), (-(2**70), 2**70), (np.float64(1.5), 3)],
)
def test_clip_of_integers_by_float_bounds_is_numpys_float64_never_rounded_bounds(lo, hi):
    values = np.array([3, 1, 2, 0, 5, 4])
    for dtype in (np.int64, np.int32, np.uint8):
        x = values.astype(dtype)
        out = tnp.clip(tnp.asarray(x), lo, hi)
        if type(lo) is int and type(hi) is int and not (-(2**63) <= lo and hi < 2**63):
            expected = np.clip(x, np.iinfo(dtype).min, np.iinfo(dtype).max)  # NumPy refuses ints out of range
        else:
            expected = np.clip(x, lo, hi)
        assert out.dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(out), expected)
