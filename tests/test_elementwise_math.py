"""The grown elementwise family: values against NumPy, gradients and conventions (kinks,
poles, jumps) against PyTorch, and its errors."""

import math

import numpy as np
import pytest

from tenferro import ArgumentError, DTypeError

#: tenferro's name -> PyTorch's, where they differ.
TORCH_NAMES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "bitwise_invert": "bitwise_not",
}

UNARY = {
    "positive": (np.positive, [-1.5, -0.0, 2.0]),
    "exp2": (np.exp2, [-2.0, 0.0, 0.5, 3.0]),
    "log2": (np.log2, [0.25, 1.0, 3.0]),
    "log10": (np.log10, [0.01, 1.0, 30.0]),
    "sinh": (np.sinh, [-2.0, 0.0, 1.5]),
    "cosh": (np.cosh, [-2.0, 0.0, 1.5]),
    "arcsin": (np.arcsin, [-0.9, 0.0, 0.5]),
    "arccos": (np.arccos, [-0.9, 0.0, 0.5]),
    "arctan": (np.arctan, [-4.0, 0.0, 0.5]),
    "arcsinh": (np.arcsinh, [-4.0, 0.0, 0.5]),
    "arccosh": (np.arccosh, [1.5, 2.0, 10.0]),
    "arctanh": (np.arctanh, [-0.9, 0.0, 0.5]),
    "floor": (np.floor, [-1.5, -0.5, 0.5, 2.0]),
    "ceil": (np.ceil, [-1.5, -0.5, 0.5, 2.0]),
    "trunc": (np.trunc, [-1.5, -0.5, 0.5, 2.0]),
    "round": (np.round, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.6]),
}
BINARY = {
    "arctan2": (np.arctan2, [1.0, -1.0, 0.5, -2.0], [2.0, -3.0, -0.5, 0.0]),
    "logaddexp": (np.logaddexp, [1.0, -1000.0, 800.0], [2.0, -1000.0, 800.0]),
    "hypot": (np.hypot, [3.0, 1e300, -1.0], [4.0, 1e300, 0.5]),
    "copysign": (np.copysign, [1.0, -2.0, 3.0], [-1.0, 0.0, -0.0]),
    "remainder": (np.remainder, [5.0, -5.0, 5.0, -5.0, 0.5], [2.0, 2.0, -2.0, -2.0, 0.3]),
    "floor_divide": (np.floor_divide, [5.0, -5.0, 5.0, -5.0, 0.5], [2.0, 2.0, -2.0, -2.0, 0.3]),
}


def _value(rt, op, *args):
    consts = [rt.constant_from(np.asarray(a)) for a in args]
    return np.asarray(rt.with_eager_session(lambda s: getattr(s, op)(*consts)))


def _grads(rt, op, *args):
    variables = [rt.variable_from(np.asarray(a, dtype=np.float64)) for a in args]
    loss = rt.with_eager_session(lambda s: s.reduce_sum(getattr(s, op)(*variables), None))
    return [np.asarray(g) for g in rt.grad(loss, variables)]


def _torch_grads(torch, op, *args):
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    getattr(torch, TORCH_NAMES.get(op, op))(*tensors).sum().backward()
    return [t.grad.numpy() for t in tensors]


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_values_match_numpy(rt, op):
    fn, xs = UNARY[op]
    np.testing.assert_array_equal(_value(rt, op, xs), fn(np.asarray(xs)))


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_values_match_numpy(rt, op):
    fn, a, b = BINARY[op]
    np.testing.assert_array_equal(_value(rt, op, a, b), fn(np.asarray(a), np.asarray(b)))


def test_predicates_and_logical_ops_match_numpy(rt):
    x = np.array([0.0, -0.0, 1.5, -np.inf, np.inf, np.nan, -np.nan])
    for op in ("isnan", "isinf", "isfinite", "signbit", "logical_not"):
        np.testing.assert_array_equal(_value(rt, op, x), getattr(np, op)(x))
    y = x[::-1].copy()
    for op in ("logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(_value(rt, op, x, y), getattr(np, op)(x, y))


def test_bitwise_ops_match_numpy_on_integers_and_bools(rt):
    a, b = np.array([-7, 0, 12, 255], np.int64), np.array([3, 5, -1, 1], np.int64)
    for op, fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]:
        np.testing.assert_array_equal(_value(rt, op, a, b), fn(a, b))
        bools = np.array([True, False, True]), np.array([True, True, False])
        assert _value(rt, op, *bools).dtype == np.bool_
    np.testing.assert_array_equal(_value(rt, "bitwise_invert", a), ~a)
    shifts = np.array([0, 1, 3, 4], np.int64)
    np.testing.assert_array_equal(_value(rt, "bitwise_left_shift", a, shifts), a << shifts)
    np.testing.assert_array_equal(_value(rt, "bitwise_right_shift", a, shifts), a >> shifts)
    u = np.array([1, 200], np.uint8)
    assert _value(rt, "bitwise_left_shift", u, np.array([1, 1], np.uint8)).tolist() == [2, 144]


# -- against PyTorch ------------------------------------------------------------------------
#: Off any kink: each op's gradient at ordinary points.
SMOOTH = {op: (xs,) for op, (_, xs) in UNARY.items()} | {op: (a, b) for op, (_, a, b) in BINARY.items()}
SMOOTH["logaddexp"] = ([1.0, -3.0, 20.0], [2.0, -3.0, -20.0])
SMOOTH["copysign"] = ([1.0, -2.0, 3.0], [-1.0, 2.0, -0.5])
del SMOOTH["floor_divide"]  # PyTorch does not differentiate it: tested below
SMOOTH["remainder"] = ([5.5, -5.5, 5.5, -5.5, 0.5], [2.0, 2.0, -2.0, -2.0, 0.3])
SMOOTH["round"] = ([-2.4, -1.6, 0.3, 2.6],)

#: The conventions: points where the op is not differentiable (or has a pole), as kinks.
KINKS = {
    "floor": ([-1.0, 0.0, -0.0, 2.0],),
    "ceil": ([-1.0, 0.0, 2.0],),
    "trunc": ([-1.0, 0.0, 2.0],),
    "round": ([-2.5, -0.5, 0.5, 1.5],),
    "remainder": ([4.0, -4.0, 3.0, 0.0, 4.0, -0.0], [2.0, 2.0, 1.5, 2.0, -2.0, -1.0]),
    "copysign": ([0.0, -0.0, 2.0, -2.0, 2.0, 0.0], [1.0, 1.0, -1.0, -0.0, 0.0, -0.0]),
    "hypot": ([0.0, 0.0, 3.0], [0.0, -0.0, 0.0]),
    "arctan2": ([0.0, -0.0, 0.0, 1.0], [0.0, 0.0, -0.0, 0.0]),
    "arcsin": ([-1.0, 1.0],),
    "arccos": ([-1.0, 1.0],),
    "arccosh": ([1.0],),
    "arctanh": ([-1.0, 1.0],),
    "log2": ([0.0],),
    "log10": ([0.0],),
    "logaddexp": ([-np.inf, np.inf, 0.0, -np.inf], [-np.inf, np.inf, 0.0, 1.0]),
}


@pytest.mark.parametrize("op, args", [*SMOOTH.items(), *KINKS.items()], ids=[*SMOOTH, *(f"{k}-kink" for k in KINKS)])
def test_gradients_and_conventions_match_pytorch(rt, op, args):
    torch = pytest.importorskip("torch")
    ours, theirs = _grads(rt, op, *args), _torch_grads(torch, op, *args)
    for mine, torchs in zip(ours, theirs):
        np.testing.assert_allclose(mine, torchs, rtol=1e-14, atol=0, equal_nan=True)
        numbers = ~np.isnan(torchs)  # the signs of zeros too (a nan's sign bit means nothing)
        np.testing.assert_array_equal(np.signbit(mine)[numbers], np.signbit(torchs)[numbers])


def test_logaddexp_gradient_with_one_infinite_operand_is_not_nan_and_differentiates_twice(rt):
    """sigmoid(a - b), PyTorch's formula: 1 to a +inf operand, 0 to a -inf one (exp(a - out)
    was exp(inf - inf) = nan there)."""
    args = ([np.inf, 1.0, np.inf, -np.inf], [-np.inf, np.inf, 2.0, 3.0])
    ga, gb = _grads(rt, "logaddexp", *args)
    np.testing.assert_array_equal(ga, [1.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(gb, [0.0, 1.0, 0.0, 1.0])
    torch = pytest.importorskip("torch")
    for mine, torchs in zip((ga, gb), _torch_grads(torch, "logaddexp", *args)):
        np.testing.assert_array_equal(mine, torchs)
    # second order, at ordinary points: d²/da² logaddexp = s(1 - s), s = sigmoid(a - b)
    a, b = rt.variable_from(np.array([0.5, -1.0])), rt.variable_from(np.array([1.5, 2.0]))
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.logaddexp(a, b), None)), a)
    h = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(g, None)), a)
    sig = 1 / (1 + np.exp(-(np.array([0.5, -1.0]) - np.array([1.5, 2.0]))))
    np.testing.assert_allclose(np.asarray(h), sig * (1 - sig), rtol=1e-14)


def test_values_at_the_edges_match_pytorch(rt):
    torch = pytest.importorskip("torch")
    a, b = np.array([5.0, -5.0, 5.0, -5.0, -0.0, 1e-300]), np.array([2.0, 2.0, -2.0, -2.0, 3.0, np.inf])
    for op in ("remainder", "floor_divide", "copysign", "hypot", "arctan2", "logaddexp"):
        expected = getattr(torch, TORCH_NAMES.get(op, op))(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_array_equal(_value(rt, op, a, b), expected, err_msg=op)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    np.testing.assert_array_equal(_value(rt, "round", halves), torch.round(torch.tensor(halves)).numpy())


def test_floor_divide_has_a_zero_gradient_where_pytorch_has_none(rt):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="not implemented"):
        _torch_grads(torch, "floor_divide", [5.0], [2.0])
    for grad in _grads(rt, "floor_divide", [5.0, 4.0], [2.0, 2.0]):
        np.testing.assert_array_equal(grad, [0.0, 0.0])


def test_remainder_second_derivative_in_b_is_zero(rt):
    """d/db remainder = -floor_divide(a, b), itself constant in (a, b): the second
    derivative is 0, and the chain does not fail on a missing rule."""
    a, b = rt.variable_from(np.array([5.5])), rt.variable_from(np.array([2.0]))
    gb = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.remainder(a, b), None)), b)
    np.testing.assert_array_equal(np.asarray(gb), [-2.0])
    second = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(gb, None)), [a, b])
    assert all(g is None or not np.any(np.asarray(g)) for g in second)


@pytest.mark.parametrize("op", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "cosh", "log10", "exp2"])
def test_second_derivatives_match_pytorch(rt, op):
    torch = pytest.importorskip("torch")
    xs = [1.5, 3.0] if op == "arccosh" else [0.5, 0.25] if op == "log10" else [-0.5, 0.25]
    x = rt.variable_from(np.array(xs))
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(getattr(s, op)(x), None)), x)
    ours = np.asarray(rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(g, None)), x))
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(getattr(torch, TORCH_NAMES.get(op, op))(t).sum(), t, create_graph=True)
    (theirs,) = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-13)


# -- no gradients: bool and integer results --------------------------------------------------
def test_predicates_of_a_tracked_float_are_constants_that_select(rt):
    """isfinite(x) of a variable is a bool constant, usable as where_select's mask (before
    square: 0·2x would be nan at inf, here as in PyTorch)."""
    x = rt.variable_from(np.array([1.0, np.inf, 2.0, np.nan]))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.square(s.where_select(s.isfinite(x), x, 0.0)), None))
    np.testing.assert_array_equal(np.asarray(rt.grad(loss, x)), [2.0, 0.0, 4.0, 0.0])
    flags = rt.with_eager_session(lambda s: [s.isnan(x), s.signbit(x), s.logical_and(x, s.isfinite(x))])
    assert all(np.asarray(f).dtype == np.bool_ for f in flags)


@pytest.mark.parametrize(
    "op", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
)
def test_bitwise_ops_on_floats_are_dtype_errors_naming_the_argument(rt, op):
    ints, floats = rt.constant_from(np.array([1, 2])), rt.constant_from(np.array([1.0, 2.0]))
    with pytest.raises(DTypeError, match=rf"{op}: argument 'a' has dtype f64; {op} accepts .*integer"):
        rt.with_eager_session(lambda s: getattr(s, op)(floats, ints))
    with pytest.raises(DTypeError, match=rf"{op}: argument 'b' has dtype f64"):
        rt.with_eager_session(lambda s: getattr(s, op)(ints, floats))
    with pytest.raises(DTypeError, match=rf"{op}: argument 'b' has dtype float"):
        rt.with_eager_session(lambda s: getattr(s, op)(ints, 1.5))


NUMPY_NAMES = {"bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift"} | {
    op: op for op in ("bitwise_and", "bitwise_or", "bitwise_xor")
}


@pytest.mark.parametrize(
    "op", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
)
def test_bitwise_ops_on_int64_with_uint64_are_dtype_errors_naming_both_not_kernel_errors(rt, op):
    signed, unsigned = rt.constant_from(np.array([1, 2], np.int64)), rt.constant_from(np.array([1, 3], np.uint64))
    with pytest.raises(DTypeError, match=rf"{op}: a has dtype i64 and b has u64, .*cast one of them with astype"):
        rt.with_eager_session(lambda s: getattr(s, op)(signed, unsigned))
    with pytest.raises(DTypeError, match=rf"{op}: a has dtype u64 and b has i64"):
        rt.with_eager_session(lambda s: getattr(s, op)(unsigned, signed))
    small = rt.constant_from(np.array([1, 3], np.uint8))  # int64 holds uint8: fine, as in NumPy
    out = rt.with_eager_session(lambda s: getattr(s, op)(signed, small))
    np.testing.assert_array_equal(np.asarray(out), getattr(np, NUMPY_NAMES[op])(np.array([1, 2]), np.array([1, 3])))


def test_bitwise_invert_of_a_float_is_a_dtype_error(rt):
    with pytest.raises(DTypeError, match="bitwise_invert: argument 'x' has dtype f64"):
        rt.with_eager_session(lambda s: s.bitwise_invert(rt.constant_from(np.array([1.0]))))


@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_by_zero_is_an_error_not_a_silent_zero(rt, op):
    a, b = rt.constant_from(np.array([3, 4])), rt.constant_from(np.array([2, 0]))
    with pytest.raises(ArgumentError, match=f"{op}: integer division by zero"):
        rt.with_eager_session(lambda s: getattr(s, op)(a, b))
    floats = _value(rt, op, np.array([3.0, -4.0]), np.array([0.0, 0.0]))  # IEEE: no error
    assert not np.isfinite(floats).any()


def test_rounding_keeps_float32_and_integers(rt):
    assert _value(rt, "floor", np.array([1.5], np.float32)).dtype == np.float32
    np.testing.assert_array_equal(_value(rt, "round", np.array([3, -2])), [3, -2])
    assert math.isnan(_value(rt, "remainder", np.array(1.0), np.array(0.0)))
