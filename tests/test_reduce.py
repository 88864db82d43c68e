"""The reduce plugin: axes conventions, products with zeros, ties, overflow."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro import ArgumentError, AxisError, GradInactive, NotDifferentiable, Tensor

X = np.arange(24.0).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "axes, shape",
    [(None, ()), (0, (3, 4)), (-1, (2, 3)), ((0, 2), (3,)), ((2, 0), (3,)), ((), (2, 3, 4)), ([1], (2, 4))],
)
def test_axes_forms_and_dropped_axes(rt, axes, shape):
    x = rt.constant_from(Tensor.from_numpy(X))
    for op, ref in [("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_mean", np.mean)]:
        out = rt.with_eager_session(lambda s, op=op: getattr(s, op)(x, axes))
        assert out.shape == shape
        ref_axes = tuple(axes) if isinstance(axes, list) else axes
        np.testing.assert_array_equal(np.asarray(out), ref(X, axis=ref_axes))


def _hessian(rt, fn, values):
    """Full Hessian of fn by rt.grad of rt.grad, one row per unit vector."""
    x = rt.variable_from(Tensor.from_numpy(np.asarray(values, dtype=np.float64)))
    g = rt.grad(rt.with_eager_session(lambda s: fn(s, x)), x)
    rows = []
    for i in range(len(values)):
        e = rt.constant_from(Tensor.from_numpy(np.eye(len(values))[i]))
        row = rt.with_eager_session(lambda s, e=e: s.reduce_sum(s.mul(g, e), None))
        try:
            rows.append(np.asarray(rt.grad(row, x)))
        except GradInactive:  # this row of the Hessian does not depend on x: zero
            rows.append(np.zeros(len(values)))
    return np.asarray(g), np.array(rows)


def _brute_hessian_of_prod(values):
    n = len(values)
    h = np.zeros((n, n))
    for i in range(n):
        for k in range(n):
            if i != k:
                h[i, k] = np.prod(np.delete(values, [i, k]))
    return h


@pytest.mark.parametrize(
    "values",
    [[2.0, 3.0, 5.0, 7.0], [0.0, 3.0, 5.0, 7.0], [0.0, 3.0, 0.0, 7.0], [0.0, 0.0, 0.0, 7.0], [1e-300, 1.0, 1e300, 2.0]],
)
def test_prod_gradient_and_hessian_are_exact_with_zeros(rt, values):
    g, h = _hessian(rt, lambda s, x: s.reduce_prod(x, None), values)
    expected = np.array([np.prod(np.delete(values, i)) for i in range(len(values))])
    np.testing.assert_array_equal(g, expected)
    np.testing.assert_allclose(h, _brute_hessian_of_prod(np.array(values)), rtol=1e-15, atol=0)


def test_prod_third_derivative_raises_instead_of_lying(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([0.0, 2.0, 3.0])))
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_prod(x, None)), x)
    h = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(g, None)), x)
    with pytest.raises(NotDifferentiable, match="op prod_except_vjp \\(plugin 'reduce'\\) has no VJP rule"):
        rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(h, None)), x)


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.sampled_from([0.0, 1.0, -2.0, 0.5]),
    ),
    st.data(),
)
def test_prod_except_vjp_matches_brute_force_on_zero_heavy_inputs(x, data):
    from tenferro.core.loading import default_registry
    from tenferro.testing.strategies import axes_for

    spec = default_registry()["prod_except_vjp"]
    axes = data.draw(axes_for(x.ndim))
    g = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(-2, 2)))
    np.testing.assert_allclose(spec.forward(x, g, axes), spec.reference(x, g, axes), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("op, pick", [("reduce_max", np.max), ("reduce_min", np.min)])
def test_extremum_ties_split_evenly(rt, op, pick):
    values = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0]])
    x = rt.variable_from(Tensor.from_numpy(values))
    out = rt.with_eager_session(lambda s: s.reduce_sum(getattr(s, op)(x, 1), None))
    g = np.asarray(rt.grad(out, x))
    expected = (values == pick(values, axis=1, keepdims=True)) / np.sum(
        values == pick(values, axis=1, keepdims=True), axis=1, keepdims=True
    )
    np.testing.assert_array_equal(g, expected)
    assert g[0].tolist() == ([0.0, 0.5, 0.5, 0.0] if op == "reduce_max" else [0.0, 0.0, 0.0, 1.0])


def test_logsumexp_does_not_overflow(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([1000.0, 1000.0, -np.inf])))
    out = rt.with_eager_session(lambda s: s.logsumexp(x, None))
    assert float(np.asarray(out)) == pytest.approx(1000.0 + np.log(2.0))
    np.testing.assert_allclose(np.asarray(rt.grad(out, x)), [0.5, 0.5, 0.0])


def test_mean_gradient_divides_by_the_count(rt):
    x = rt.variable_from(Tensor.from_numpy(np.ones((2, 5), np.float32)))
    out = rt.with_eager_session(lambda s: s.reduce_sum(s.reduce_mean(x, 1), None))
    g = rt.grad(out, x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(g), np.full((2, 5), 0.2, np.float32))


def test_empty_max_is_a_shape_error(rt):
    from tenferro import ShapeMismatch

    x = rt.constant_from(Tensor.from_numpy(np.zeros((0, 3))))
    with pytest.raises(ShapeMismatch, match="reduce_max: cannot reduce over an axis of size 0"):
        rt.with_eager_session(lambda s: s.reduce_max(x, 0))
    assert rt.with_eager_session(lambda s: s.reduce_sum(x, 0)).shape == (3,)


def test_logsumexp_of_integers_is_float64(rt):
    x = rt.constant_from(np.array([[1, 2, 3], [-1000, 0, 1000]]))
    out = rt.with_eager_session(lambda s: s.logsumexp(x, 1))
    assert out.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), [np.log(np.exp([1, 2, 3]).sum()), 1000.0], rtol=1e-15)


def test_mean_of_nothing_is_nan_without_a_warning(rt):
    x = rt.variable_from(np.zeros((0, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = rt.with_eager_session(lambda s: s.reduce_mean(x, 0))
    assert np.all(np.isnan(np.asarray(out))) and out.shape == (3,)


def test_mean_matches_numpy_bitwise(rt):
    values = np.random.default_rng(1).standard_normal((7, 5))
    for dtype in (np.float64, np.float32, np.int64):
        x = rt.constant_from((values * 10).astype(dtype))
        for axes in (None, 0, 1):
            ours = np.asarray(rt.with_eager_session(lambda s, x=x, axes=axes: s.reduce_mean(x, axes)))
            theirs = np.mean(np.asarray(x), axis=axes)
            assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


def test_sum_of_bools_counts_like_numpy(rt):
    a = rt.constant_from(np.array([0.5, 2.0, 3.0]))
    b = rt.constant_from(np.array([1.0, 1.0, 4.0]))
    count = rt.with_eager_session(lambda s: s.reduce_sum(s.compare(a, b, "lt"), None))
    assert np.asarray(count).dtype == np.sum(np.array([True])).dtype and int(np.asarray(count)) == 2


REDUCTIONS = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_mean", "logsumexp", "var", "std"]


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("axes", [None, 1, (0, 2), ()])
def test_keepdims_keeps_reduced_axes_as_size_one_and_its_gradient_matches(rt, op, axes):
    x = rt.variable_from(np.random.default_rng(0).standard_normal((2, 3, 4)))
    dropped = rt.with_eager_session(lambda s: getattr(s, op)(x, axes))
    kept = rt.with_eager_session(lambda s: getattr(s, op)(x, axes, keepdims=True))
    reduced = range(3) if axes is None else np.atleast_1d(axes)
    assert kept.shape == tuple(1 if i in reduced else n for i, n in enumerate((2, 3, 4)))
    np.testing.assert_array_equal(np.asarray(kept).reshape(dropped.shape), np.asarray(dropped))
    g_dropped = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.square(getattr(s, op)(x, axes)), None)), x)
    g_kept = rt.grad(
        rt.with_eager_session(lambda s: s.reduce_sum(s.square(getattr(s, op)(x, axes, keepdims=True)), None)), x
    )
    np.testing.assert_array_equal(np.asarray(g_kept), np.asarray(g_dropped))


def test_keepdims_result_broadcasts_against_its_input(rt):
    x = rt.variable_from(np.arange(6.0).reshape(2, 3))
    centered = rt.with_eager_session(lambda s: s.sub(x, s.reduce_mean(x, 1, True)))
    np.testing.assert_array_equal(np.asarray(centered), [[-1.0, 0.0, 1.0]] * 2)


@pytest.mark.parametrize("op, ref", [("var", np.var), ("std", np.std)])
@pytest.mark.parametrize("correction", [0, 1, 2.5])
def test_var_and_std_match_numpy_ddof_and_torch(rt, op, ref, correction):
    values = np.random.default_rng(2).standard_normal((4, 6))
    x = rt.variable_from(values)
    for axes in (None, 0, (1,)):
        out = rt.with_eager_session(lambda s, axes=axes: getattr(s, op)(x, axes, correction))
        np.testing.assert_allclose(np.asarray(out), ref(values, axis=axes, ddof=correction), rtol=1e-14)
    torch = pytest.importorskip("torch")
    xt = torch.tensor(values, requires_grad=True)
    getattr(torch, op)(xt, dim=1, correction=correction).sum().backward()
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(getattr(s, op)(x, 1, correction), None)), x)
    np.testing.assert_allclose(np.asarray(g), xt.grad.numpy(), rtol=1e-13)


def test_var_of_integers_is_float64_and_too_few_elements_give_inf_or_nan_silently(rt):
    x = rt.constant_from(np.array([[1, 2, 3], [4, 4, 4]]))
    out = rt.with_eager_session(lambda s: s.var(x, 1))
    assert out.dtype == np.float64 and np.asarray(out).tolist() == [2 / 3, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = rt.with_eager_session(lambda s: s.var(rt.constant_from(np.array([1.0])), None, 1))
    assert np.isnan(float(np.asarray(one)))


@pytest.mark.parametrize("op", ["var", "std"])
def test_correction_above_the_count_gives_inf_not_a_negative_variance(rt, op):
    values = np.arange(6.0).reshape(2, 3)
    x = rt.variable_from(values)
    out = rt.with_eager_session(lambda s: getattr(s, op)(x, 1, 5))
    with warnings.catch_warnings():  # NumPy warns "Degrees of freedom <= 0"; tenferro is silent
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = getattr(np, op)(values, axis=1, ddof=5)
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert np.all(np.isposinf(np.asarray(out)))
    if op == "var":  # the gradient 2(x - mean)/0 keeps the sign of x - mean (not flipped by N - 5 < 0)
        g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.var(x, 1, 5), None)), x)
        np.testing.assert_array_equal(np.asarray(g)[:, [0, 2]], [[-np.inf, np.inf]] * 2)


@pytest.mark.parametrize("values", [[1.0, 1.0, 1.0], [1e-200, 2e-200, 3e-200]])
def test_std_gradient_is_zero_where_std_is_zero_or_underflows_as_torch(rt, values):
    x = rt.variable_from(np.array(values))
    out = rt.with_eager_session(lambda s: s.std(x, None))
    assert float(np.asarray(out)) == 0.0
    g = rt.grad(out, x)
    np.testing.assert_array_equal(np.asarray(g), np.zeros(3))
    torch = pytest.importorskip("torch")
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch.std(xt, correction=0).backward()
    np.testing.assert_array_equal(np.asarray(g), xt.grad.numpy())
    # and the second derivative there is finite, not nan
    h = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, g), None)), x)
    assert np.all(np.isfinite(np.asarray(h)))


@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod_match_numpy(rt, include_initial):
    values = np.random.default_rng(4).standard_normal((3, 5))
    x = rt.constant_from(values)
    for op, ref in [("cumulative_sum", np.cumulative_sum), ("cumulative_prod", np.cumulative_prod)]:
        for axis in (0, 1, -1):
            out = rt.with_eager_session(lambda s, op=op, axis=axis: getattr(s, op)(x, axis, include_initial))
            np.testing.assert_allclose(np.asarray(out), ref(values, axis=axis, include_initial=include_initial))


def _brute_cumprod_jacobian(values):
    n = len(values)
    jac = np.zeros((n, n))
    for k in range(n):
        for j in range(k + 1):
            jac[k, j] = np.prod(np.delete(values[: k + 1], j))
    return jac


@pytest.mark.parametrize("values", [[2.0, 3.0, 5.0, 7.0], [0.0, 3.0, 5.0, 7.0], [2.0, 0.0, 0.0, 7.0], [0.0] * 4])
def test_cumulative_prod_gradient_is_exact_with_zeros(rt, values):
    x = rt.variable_from(np.array(values))
    g = np.array([1.0, -2.0, 0.5, 3.0])
    out = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.cumulative_prod(x), rt.constant_from(g)), None))
    np.testing.assert_array_equal(np.asarray(rt.grad(out, x)), g @ _brute_cumprod_jacobian(np.array(values)))


def test_cumulative_prod_hessian_is_exact_with_zeros(rt):
    values = [0.0, 3.0, 0.0, 2.0]
    _, h = _hessian(rt, lambda s, x: s.reduce_sum(s.cumulative_prod(x), None), values)
    expected = sum(
        np.pad(_brute_hessian_of_prod(np.array(values[: k + 1])), (0, 3 - k)) for k in range(4)
    )  # each prefix's Hessian, in the top-left block
    np.testing.assert_array_equal(h, expected)


def test_cumulative_sum_gradient_is_the_reversed_cumulative_sum(rt):
    x = rt.variable_from(np.zeros(4))
    c = rt.constant_from(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    out = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.cumulative_sum(x, include_initial=True), c), None))
    assert np.asarray(rt.grad(out, x)).tolist() == [14.0, 12.0, 9.0, 5.0]


def test_cumulative_axis_is_required_beyond_one_dim(rt):
    from tenferro import AxisError

    with pytest.raises(AxisError, match="cumulative_sum: axis is required for a tensor with 2 dims"):
        rt.with_eager_session(lambda s: s.cumulative_sum(rt.constant_from(np.zeros((2, 2)))))


def test_argmax_and_argmin_take_the_first_of_ties_as_numpy(rt):
    values = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0], [-1.0, -5.0, 0.0, -5.0]])
    x = rt.variable_from(values)
    for op, ref in [("argmax", np.argmax), ("argmin", np.argmin)]:
        for axis, keepdims in [(None, False), (0, False), (1, True), (-1, False)]:
            out = rt.with_eager_session(lambda s, op=op, a=axis, k=keepdims: getattr(s, op)(x, a, k))
            assert out.dtype.kind == "i" and not out.tracks_grad()
            np.testing.assert_array_equal(np.asarray(out), ref(values, axis=axis, keepdims=keepdims))
    assert np.asarray(rt.with_eager_session(lambda s: s.argmax(x, 1))).tolist() == [1, 0, 2]


def test_any_all_count_nonzero_are_constants(rt):
    values = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]])
    x = rt.variable_from(values)
    for op, ref in [("any", np.any), ("all", np.all), ("count_nonzero", np.count_nonzero)]:
        for axes, keepdims in [(None, False), (1, True), ((0, 1), False)]:
            out = rt.with_eager_session(lambda s, op=op, a=axes, k=keepdims: getattr(s, op)(x, a, k))
            assert not out.tracks_grad()
            np.testing.assert_array_equal(np.asarray(out), ref(values, axis=axes, keepdims=keepdims))


def test_a_bool_or_float_axis_is_rejected_even_after_its_int_was_normalised():
    """normalize_axes caches results by value, and True == 1 == 1.0: the cache must not let
    a bool or a float through because 1 was seen before."""
    from tenferro.extend import AxisError, normalize_axes

    assert normalize_axes(1, 2, "op") == (1,) and normalize_axes((1,), 2, "op") == (1,)
    for bad in (True, 1.0, (True,), (1.0,), np.float64(1.0)):
        with pytest.raises(AxisError, match="axes must be None, an int or a tuple of ints"):
            normalize_axes(bad, 2, "op")


def test_expand_to_rejects_a_bool_axis_or_keepdims_after_their_int_was_seen(rt):
    """expand_to caches its layout by value; True == 1 must not reach 1's entry."""
    g = rt.constant_from(np.ones(3))
    with rt.eager_session() as s:
        assert s.expand_to(g, (3, 4), (1,), False).shape == (3, 4)
        with pytest.raises(AxisError, match="axes must be None, an int or a tuple of ints"):
            s.expand_to(g, (3, 4), (True,), False)
        with pytest.raises(ArgumentError, match="keepdims must be True or False"):
            s.expand_to(g, (3, 4), (1,), 0)
