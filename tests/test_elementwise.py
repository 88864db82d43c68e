"""Conventions of the elementwise plugin at kinks, ties and poles, and broadcasting."""

import numpy as np
import pytest

from tenferro import CpuEngine, DTypeError, EagerRuntime, Tensor


def _grads(rt, fn, *arrays):
    variables = [rt.variable_from(Tensor.from_numpy(np.asarray(a, dtype=np.float64))) for a in arrays]
    loss = rt.with_eager_session(lambda s: s.reduce_sum(fn(s, *variables), None))
    grads = rt.grad(loss, variables)
    return [np.asarray(g) for g in grads]


def test_abs_and_sign_at_zero(rt):
    (g,) = _grads(rt, lambda s, x: s.abs(x), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [-1.0, 0.0, 1.0])
    (g,) = _grads(rt, lambda s, x: s.sign(x), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0])


def test_sqrt_derivative_at_zero_is_inf(rt):
    (g,) = _grads(rt, lambda s, x: s.sqrt(x), [0.0, 4.0])
    np.testing.assert_array_equal(g, [np.inf, 0.25])


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_ties_split_evenly(rt, op):
    ga, gb = _grads(rt, lambda s, a, b: getattr(s, op)(a, b), [1.0, 2.0, 3.0], [1.0, 5.0, 0.0])
    wins = [0.0, 0.0, 1.0] if op == "maximum" else [0.0, 1.0, 0.0]
    np.testing.assert_array_equal(ga, [0.5, *wins[1:]])
    np.testing.assert_array_equal(gb, [0.5, *(1 - np.array(wins[1:]))])


def test_clamp_routes_the_cotangent_to_the_argument_that_is_the_result_ties_to_x(rt):
    x = [-2.0, 0.5, 3.0, 0.0, 1.0, 0.0, 2.0, 1.5, 5.0]
    lo = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0]  # the last four: lo == hi and lo > hi
    hi = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    gx, glo, ghi = _grads(rt, lambda s, x, lo, hi: s.clamp(x, lo, hi), x, lo, hi)
    np.testing.assert_array_equal(gx, [0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(glo, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(ghi, [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0])


def test_clamp_gradients_match_torch_except_where_torch_drops_them():
    torch = pytest.importorskip("torch")
    rt = EagerRuntime(engine=CpuEngine.serial())
    x, lo, hi = [-2.0, 0.5, 3.0, 0.0, 1.0, 2.0, 1.5, 5.0], [0.0] * 5 + [1.0, 2.0, 2.0], [1.0] * 8
    ours = _grads(rt, lambda s, x, lo, hi: s.clamp(x, lo, hi), x, lo, hi)
    tensors = [torch.tensor(v, requires_grad=True) for v in (x, lo, hi)]
    torch.clamp(*tensors).sum().backward()
    for mine, theirs in zip(ours, tensors):
        np.testing.assert_array_equal(mine, theirs.grad.numpy())
    # x < lo == hi: PyTorch gives no gradient to anything; tenferro gives it to hi (the result)
    grads = _grads(rt, lambda s, x, lo, hi: s.clamp(x, lo, hi), [0.0], [1.0], [1.0])
    np.testing.assert_array_equal(np.concatenate(grads), [0.0, 0.0, 1.0])


def test_clamp_with_scalar_bounds(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([-2.0, 0.5, 3.0])))
    out = rt.with_eager_session(lambda s: s.clamp(x, -1.0, 1.0))
    np.testing.assert_array_equal(np.asarray(out), [-1.0, 0.5, 1.0])


def test_where_select_sends_cotangents_to_the_chosen_side(rt):
    cond = rt.constant_from(Tensor.from_numpy(np.array([True, False, True])))
    ga, gb = _grads(rt, lambda s, a, b: s.where_select(cond, a, b), [1.0, 2.0, 3.0], [4.0])
    np.testing.assert_array_equal(ga, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gb, [1.0])


def test_compare_gives_bool_and_accepts_symbols(rt):
    a = rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0, 3.0])))
    out = rt.with_eager_session(lambda s: [s.compare(a, 2.0, op) for op in ("<", "le", "==", "ne", ">=", "gt")])
    table = [np.asarray(o).tolist() for o in out]
    assert table == [
        [True, False, False],
        [True, True, False],
        [False, True, False],
        [True, False, True],
        [False, True, True],
        [False, False, True],
    ]


def test_pow_conventions(rt):
    ga, gb = _grads(rt, lambda s, a, b: s.pow(a, b), [0.0, 0.0, 2.0, -8.0], [0.0, 2.0, 0.0, 0.5])
    np.testing.assert_array_equal(ga[:3], [0.0, 0.0, 0.0])
    assert np.isnan(gb[3])
    np.testing.assert_array_equal(gb[:3], [0.0, 0.0, np.log(2.0)])


@pytest.mark.parametrize("exponent", [2, 2.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_square_differentiates_in_one_op_with_the_general_rules_bits(rt, exponent, dtype):
    """x ** 2's VJP is g·(2·x): one mul for 2·x, not pow(x, 1) then a mul (a real x ** 1 is
    x bitwise, so the numbers are the general rule's; -0.0, inf and subnormals included),
    and its second derivative is 2 exactly."""
    values = np.array([-1.5, 0.0, -0.0, 2.0, np.inf, 3e-310, 1e-30], dtype=dtype)
    x = rt.variable_from(Tensor.from_numpy(values))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.pow(x, exponent), 3.0), None))
    g = rt.grad(loss, x)
    general = (3.0 * (np.power(values, exponent - 1) * exponent)).astype(dtype)
    assert np.asarray(g).tobytes() == general.tobytes()
    assert "pow" not in str(g.trace())  # (the trace of g holds the two muls alone)
    second = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(g, None)), x)
    np.testing.assert_array_equal(np.asarray(second), np.full(values.shape, 6.0, dtype))


def test_pow_second_derivative_in_b_at_b_zero(rt):
    a = rt.variable_from(Tensor.from_numpy(np.array([2.0])))
    b = rt.variable_from(Tensor.from_numpy(np.array([0.0])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.pow(a, b), None))
    ga = rt.grad(loss, a)
    # d/db (b a^(b-1)) = a^(b-1) (1 + b log a) = 1/2 at a = 2, b = 0
    np.testing.assert_allclose(np.asarray(rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(ga, None)), b)), [0.5])


def test_binary_cotangents_come_back_in_each_input_shape(rt):
    ga, gb = _grads(rt, lambda s, a, b: s.mul(a, b), np.ones((2, 1, 3)), np.arange(4.0).reshape(4, 1))
    assert ga.shape == (2, 1, 3) and gb.shape == (4, 1)
    np.testing.assert_array_equal(ga, np.full((2, 1, 3), 6.0))
    np.testing.assert_array_equal(gb, np.full((4, 1), 6.0))


def test_astype_float32_round_trip_gradient(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([1.5, 2.5])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.astype(x, "float32"), 2.0), None))
    assert loss.dtype == np.float32
    loss.backward()
    assert x.grad().dtype == np.float64
    np.testing.assert_array_equal(x.grad().to_numpy(), [2.0, 2.0])


def test_integer_inputs_compute_but_are_constants(rt):
    n = rt.constant_from(Tensor.from_numpy(np.array([1, 2, 4])))
    out = rt.with_eager_session(lambda s: [s.sin(n), s.square(n), s.reciprocal(n), s.div(n, 2)])
    assert [o.dtype for o in out] == [np.float64, np.int64, np.float64, np.float64]
    np.testing.assert_array_equal(np.asarray(out[2]), [1.0, 0.5, 0.25])


def test_ieee_results_without_warnings(rt):
    import warnings

    x = rt.constant_from(Tensor.from_numpy(np.array([0.0, -1.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = rt.with_eager_session(lambda s: s.log(x))
    assert np.asarray(out)[0] == -np.inf and np.isnan(np.asarray(out)[1])


def test_pow_with_a_huge_integer_base_differentiates(rt):
    x = rt.variable_from(np.array([0.5, 1.0]))
    rt.with_eager_session(lambda s: s.reduce_sum(s.pow(2**100, x), None)).backward()
    np.testing.assert_allclose(x.grad().to_numpy(), 2.0 ** (100 * np.array([0.5, 1.0])) * 100 * np.log(2), rtol=1e-13)


def test_add_any_refuses_mixed_dtypes_at_the_call(rt):
    a, b = rt.constant_from(np.zeros(2)), rt.constant_from(np.zeros(2, np.float32))
    with pytest.raises(DTypeError, match="add_any does not promote"):
        rt.with_eager_session(lambda s: s.add_any(a, b))
