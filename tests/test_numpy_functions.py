"""tenferro.numpy's statistical, manipulation, searching, sorting, set, indexing and
utility functions: values against NumPy, gradients against finite differences, the tnp
form bitwise equal to the session form, and errors that name the function."""

import re

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from conftest import fd_gradient, run_docs_example
from hypothesis import given
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, AxisError, DTypeError, ShapeMismatch
from tenferro.core.errors import TenferroError

RNG = np.random.default_rng(12)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((2, 4))
POS = RNG.uniform(0.5, 2.0, (3, 4))

#: id -> (the tnp call, the same call on a session, the NumPy call); each takes an array
#: argument (a NumPy array for NumPy, an EagerTensor otherwise) and, for the session, s.
CASES = {
    "sum": (lambda x: tnp.sum(x), lambda s, x: s.reduce_sum(x), np.sum),
    "sum_axis": (lambda x: tnp.sum(x, axis=1), lambda s, x: s.reduce_sum(x, 1), lambda a: np.sum(a, axis=1)),
    "sum_keepdims": (
        lambda x: tnp.sum(x, axis=(0, 1), keepdims=True),
        lambda s, x: s.reduce_sum(x, (0, 1), True),
        lambda a: np.sum(a, axis=(0, 1), keepdims=True),
    ),
    "prod": (lambda x: tnp.prod(x, axis=0), lambda s, x: s.reduce_prod(x, 0), lambda a: np.prod(a, axis=0)),
    "mean": (lambda x: tnp.mean(x, axis=-1), lambda s, x: s.reduce_mean(x, -1), lambda a: np.mean(a, axis=-1)),
    "max": (lambda x: tnp.max(x, axis=0), lambda s, x: s.reduce_max(x, 0), lambda a: np.max(a, axis=0)),
    "min": (lambda x: tnp.min(x), lambda s, x: s.reduce_min(x), np.min),
    "var": (
        lambda x: tnp.var(x, axis=1, correction=1),
        lambda s, x: s.var(x, 1, 1),
        lambda a: np.var(a, axis=1, ddof=1),
    ),
    "std": (
        lambda x: tnp.std(x, correction=0.5, keepdims=True),
        lambda s, x: s.std(x, None, 0.5, True),
        lambda a: np.std(a, ddof=0.5, keepdims=True),
    ),
    "cumulative_sum": (
        lambda x: tnp.cumulative_sum(x, axis=1, include_initial=True),
        lambda s, x: s.cumulative_sum(x, 1, True),
        lambda a: np.concatenate([np.zeros((3, 1)), np.cumsum(a, axis=1)], axis=1),
    ),
    "cumulative_prod": (
        lambda x: tnp.cumulative_prod(x, axis=0),
        lambda s, x: s.cumulative_prod(x, 0),
        lambda a: np.cumprod(a, axis=0),
    ),
    "cumsum": (lambda x: tnp.cumsum(x), lambda s, x: s.cumulative_sum(s.reshape(x, (-1,))), np.cumsum),
    "cumprod": (lambda x: tnp.cumprod(x, 1), lambda s, x: s.cumulative_prod(x, 1), lambda a: np.cumprod(a, 1)),
    "reshape": (lambda x: tnp.reshape(x, (2, -1)), lambda s, x: s.reshape(x, (2, -1)), lambda a: a.reshape(2, -1)),
    "permute_dims": (lambda x: tnp.permute_dims(x, (1, 0)), lambda s, x: s.permute_dims(x, (1, 0)), np.transpose),
    "transpose": (lambda x: tnp.transpose(x), lambda s, x: s.transpose(x), np.transpose),
    "expand_dims": (
        lambda x: tnp.expand_dims(x, 1),
        lambda s, x: s.expand_dims(x, 1),
        lambda a: np.expand_dims(a, 1),
    ),
    "squeeze": (
        lambda x: tnp.squeeze(tnp.expand_dims(x, 0), axis=0),
        lambda s, x: s.squeeze(s.expand_dims(x, 0), 0),
        lambda a: a,
    ),
    "flip": (lambda x: tnp.flip(x, axis=1), lambda s, x: s.flip(x, 1), lambda a: np.flip(a, 1)),
    "moveaxis": (
        lambda x: tnp.moveaxis(x, 0, -1),
        lambda s, x: s.moveaxis(x, 0, -1),
        lambda a: np.moveaxis(a, 0, -1),
    ),
    "roll": (
        lambda x: tnp.roll(x, (1, -2), axis=(0, 1)),
        lambda s, x: s.roll(x, (1, -2), (0, 1)),
        lambda a: np.roll(a, (1, -2), axis=(0, 1)),
    ),
    "repeat": (
        lambda x: tnp.repeat(x, np.array([1, 0, 2]), axis=0),
        lambda s, x: s.repeat(x, (1, 0, 2), 0),
        lambda a: np.repeat(a, [1, 0, 2], axis=0),
    ),
    "tile": (lambda x: tnp.tile(x, (2, 1)), lambda s, x: s.tile(x, (2, 1)), lambda a: np.tile(a, (2, 1))),
    "broadcast_to": (
        lambda x: tnp.broadcast_to(x, (2, 3, 4)),
        lambda s, x: s.broadcast_to(x, (2, 3, 4)),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
    ),
    "concat": (
        lambda x: tnp.concat([x, B], axis=0),
        lambda s, x: s.concat([x, x._rt.constant_from(B)], 0),
        lambda a: np.concatenate([a, B]),
    ),
    "concatenate_none": (
        lambda x: tnp.concatenate((x, B), None),
        lambda s, x: s.concat([x, x._rt.constant_from(B)], None),
        lambda a: np.concatenate([a, B], axis=None),
    ),
    "stack": (
        lambda x: tnp.stack([x, x * 2.0], axis=1),
        lambda s, x: s.stack([x, s.mul(x, 2.0)], 1),
        lambda a: np.stack([a, a * 2.0], axis=1),
    ),
    "sort": (
        lambda x: tnp.sort(x, axis=0, descending=True),
        lambda s, x: s.sort(x, 0, True),
        lambda a: -np.sort(-a, axis=0),
    ),
    "take": (
        lambda x: tnp.take(x, np.array([2, 0, 2]), axis=0),
        lambda s, x: s.take(x, x._rt.constant_from(np.array([2, 0, 2])), 0),
        lambda a: np.take(a, [2, 0, 2], axis=0),
    ),
    "take_along_axis": (
        lambda x: tnp.take_along_axis(x, np.array([[0], [3], [1]]), axis=1),
        lambda s, x: s.take_along_axis(x, x._rt.constant_from(np.array([[0], [3], [1]])), 1),
        lambda a: np.take_along_axis(a, np.array([[0], [3], [1]]), axis=1),
    ),
    "where": (
        lambda x: tnp.where(x > 0, x, 0.5),
        lambda s, x: s.where_select(s.compare(x, 0, "gt"), x, 0.5),
        lambda a: np.where(a > 0, a, 0.5),
    ),
    "diff": (
        lambda x: tnp.diff(x, n=2),
        lambda s, x: s.sub(
            s.sub(s.slice(x, (slice(None), slice(2, None))), s.slice(x, (slice(None), slice(1, -1)))),
            s.sub(s.slice(x, (slice(None), slice(1, -1))), s.slice(x, (slice(None), slice(None, -2)))),
        ),
        lambda a: np.diff(a, n=2),
    ),
    "diff_pend": (
        lambda x: tnp.diff(x, axis=0, prepend=B[:1], append=2.0),
        None,
        lambda a: np.diff(a, axis=0, prepend=B[:1], append=2.0),
    ),
}
DIFFERENTIABLE = list(CASES)


@pytest.mark.parametrize("case", CASES)
def test_values_match_numpy(rt, case):
    function, _, reference = CASES[case]
    got = function(rt.variable_from(A))
    np.testing.assert_allclose(np.asarray(got), reference(A), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", DIFFERENTIABLE)
def test_gradients_match_finite_differences(rt, case):
    function = CASES[case][0]
    x = rt.variable_from(A)
    out = function(x)
    weights = np.cos(np.arange(np.asarray(out).size)).reshape(out.shape)
    grad = rt.grad(tnp.sum(out * weights), x)
    want = fd_gradient(lambda a: float(np.sum(np.asarray(function(rt.constant_from(a))) * weights)), A)
    np.testing.assert_allclose(np.asarray(grad), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][1] is not None])
def test_tnp_form_equals_session_form_bitwise(rt, case):
    function, session_form, _ = CASES[case]
    x = rt.variable_from(A)
    by_tnp = function(x)
    with rt.eager_session() as s:
        by_session = session_form(s, x)
        weights = rt.constant_from(np.sin(np.arange(np.asarray(by_session).size)).reshape(by_session.shape))
        session_loss = s.reduce_sum(s.mul(by_session, weights))
    session_grad = rt.grad(session_loss, x)
    tnp_grad = rt.grad(tnp.sum(by_tnp * weights), x)
    assert by_tnp.dtype == by_session.dtype and by_tnp.tracks_grad()
    np.testing.assert_array_equal(np.asarray(by_tnp), np.asarray(by_session))
    np.testing.assert_array_equal(np.asarray(tnp_grad), np.asarray(session_grad))


def test_functions_record_on_an_open_session(rt):
    x = rt.variable_from(POS)
    with rt.eager_session() as s:
        out = tnp.prod(tnp.flip(x, axis=0), axis=1)
    assert "reduce_prod[axes=1]" in str(out.trace()) and "flip[axis=0]" in str(out.trace())
    del s


def test_dtype_argument_casts_before_reducing(rt):
    small = rt.constant_from(np.array([100, 100, 100], dtype=np.int8))
    assert tnp.sum(small).dtype == np.int64 and int(tnp.sum(small)) == 300  # the standard's default
    assert tnp.sum(small, dtype=tnp.int16).dtype == np.int16
    assert tnp.prod(small, dtype=np.float64).dtype == np.float64 and float(tnp.prod(small, dtype=np.float64)) == 1e6
    assert tnp.sum(rt.constant_from(np.arange(3, dtype=np.uint8))).dtype == np.uint64
    assert tnp.cumulative_sum(small, dtype=tnp.int32).dtype == np.int32
    x = rt.variable_from(np.array([1.0, 2.0], dtype=np.float32))
    total = tnp.sum(x, dtype=tnp.float64)
    assert total.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(rt.grad(total, x)), [1.0, 1.0])


def test_numpy_aliases_flatten_where_numpy_does(rt):
    x = rt.constant_from(A)
    np.testing.assert_allclose(np.asarray(tnp.cumprod(x)), np.cumprod(A))
    np.testing.assert_array_equal(np.asarray(tnp.transpose(x, (1, 0))), A.T)
    parts = tnp.split(x, [1, 3], axis=1)
    assert isinstance(parts, list) and [p.shape for p in parts] == [(3, 1), (3, 2), (3, 1)]
    assert [p.shape for p in tnp.unstack(x, axis=1)] == [(3,)] * 4


def test_broadcast_arrays_and_reshape_copy(rt):
    x = rt.variable_from(A)
    out = tnp.broadcast_arrays(x, np.ones((2, 1, 1)), 1.0)
    assert [o.shape for o in out] == [(2, 3, 4)] * 3
    assert tnp.reshape(x, (4, 3), copy=False).shape == (4, 3)
    assert tnp.reshape(x, 12, copy=True).shape == (12,)
    with pytest.raises(ShapeMismatch, match="tnp.reshape: copy=False"):
        tnp.reshape(tnp.permute_dims(x, (1, 0)), (12,), copy=False)
    with pytest.raises(ShapeMismatch, match="tnp.broadcast_arrays"):
        tnp.broadcast_arrays(x, np.ones(3))


def test_searching_functions_are_constants(rt):
    x = rt.variable_from(np.array([[1.0, 3.0, 3.0], [0.0, -2.0, 5.0]]))
    for got, want in [
        (tnp.argmax(x), 5),
        (tnp.argmax(x, axis=1, keepdims=True), [[1], [2]]),
        (tnp.argmin(x, axis=0), [1, 1, 0]),
        (tnp.count_nonzero(x, axis=1), [3, 2]),
        (tnp.argsort(x, axis=1, descending=True), [[1, 2, 0], [2, 0, 1]]),
        (tnp.searchsorted(np.array([1.0, 2.0, 2.0, 4.0]), np.array([2.0, 5.0, 0.0])), [1, 4, 0]),
        (tnp.searchsorted(np.array([1.0, 2.0, 2.0, 4.0]), np.array([2.0]), side="right"), [3]),
        (tnp.searchsorted(np.array([4.0, 1.0, 2.0]), np.array([3.0]), sorter=np.array([1, 2, 0])), [2]),
    ]:
        assert not got.tracks_grad() and got.dtype == np.int64
        np.testing.assert_array_equal(np.asarray(got), want)
    rows, cols = tnp.nonzero(x)
    np.testing.assert_array_equal(np.asarray(rows), [0, 0, 0, 1, 1])
    np.testing.assert_array_equal(np.asarray(cols), [0, 1, 2, 1, 2])
    assert tnp.all(x, axis=1).dtype == np.bool_ and np.asarray(tnp.any(x == 5.0)).item()


def test_where_takes_scalars_and_nonbool_conditions(rt):
    x = rt.constant_from(np.array([1, 2, 3], dtype=np.int8))
    assert tnp.where(np.array([True, False, True]), x, 0).dtype == np.int8
    np.testing.assert_array_equal(np.asarray(tnp.where(np.array([1, 0, 2]), 1.5, 2.5)), [1.5, 2.5, 1.5])


def test_unique_functions_count_each_nan_apart_and_signed_zeros_together(rt):
    a = np.array([[2.0, np.nan, 2.0], [np.nan, 0.0, -0.0]])
    values, indices, inverse, counts = tnp.unique_all(a)
    np.testing.assert_array_equal(np.asarray(values), [0.0, 2.0, np.nan, np.nan])
    np.testing.assert_array_equal(np.asarray(counts), [2, 2, 1, 1])
    np.testing.assert_array_equal(np.asarray(indices), [4, 0, 1, 3])
    assert inverse.shape == a.shape
    np.testing.assert_array_equal(np.asarray(values)[np.asarray(inverse)], a)
    assert tnp.unique_counts(a).counts.dtype == np.int64
    assert tnp.unique_inverse(a).inverse_indices.shape == (2, 3)
    assert tnp.unique_values(np.array([3, 1, 3])).shape == (2,)


def test_sort_gradient_routes_through_the_stable_order(rt):
    x = rt.variable_from(np.array([2.0, 1.0, 2.0]))
    grad = rt.grad(tnp.sum(tnp.sort(x) * np.array([1.0, 10.0, 100.0])), x)
    np.testing.assert_array_equal(np.asarray(grad), [10.0, 1.0, 100.0])


def test_diff_of_bools_and_higher_orders(rt):
    np.testing.assert_array_equal(np.asarray(tnp.diff(np.array([True, True, False]))), [False, True])
    assert tnp.diff(rt.constant_from(np.arange(3.0)), n=5).shape == (0,)
    assert tnp.diff(rt.constant_from(np.arange(3.0)), n=0).shape == (3,)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda x: tnp.sum(x, axis=2), AxisError, "tnp.sum: axis 2"),
        (lambda x: tnp.mean(x, axis=(0, 0)), AxisError, "tnp.mean"),
        (lambda x: tnp.var(x, axis=-3), AxisError, "tnp.var"),
        (lambda x: tnp.cumulative_sum(x), AxisError, "tnp.cumulative_sum: axis is required"),
        (lambda x: tnp.sum(x, dtype="text"), DTypeError, "tnp.sum: argument 'dtype'"),
        (lambda x: tnp.argmax(x, axis=5), AxisError, "tnp.argmax"),
        (lambda x: tnp.flip(x, axis=3), AxisError, "tnp.flip"),
        (lambda x: tnp.squeeze(x, axis=0), ShapeMismatch, "tnp.squeeze"),
        (lambda x: tnp.concat(x), ArgumentError, "tnp.concat: argument 'arrays'"),
        (lambda x: tnp.concat([x, np.ones((2, 2))]), ShapeMismatch, "tnp.concat"),
        (lambda x: tnp.stack([x, "text"]), ArgumentError, "tnp.stack: argument 'arrays[1]'"),
        (lambda x: tnp.reshape(x, (5,)), ShapeMismatch, "tnp.reshape"),
        (lambda x: tnp.reshape(x, (12,), copy="no"), ArgumentError, "tnp.reshape: argument 'copy'"),
        (lambda x: tnp.reshape(x, (2.0, 6)), ArgumentError, "tnp.reshape: argument 'shape'"),
        (lambda x: tnp.broadcast_to(x, "shape"), ArgumentError, "tnp.broadcast_to: argument 'shape'"),
        (lambda x: tnp.tile(x, None), ArgumentError, "tnp.tile: argument 'repetitions'"),
        (lambda x: tnp.repeat(x, np.array([1.5])), ArgumentError, "tnp.repeat: argument 'repeats'"),
        (lambda x: tnp.sort(x, stable=None), ArgumentError, "tnp.sort: argument 'stable'"),
        (lambda x: tnp.searchsorted(x, x), ShapeMismatch, "tnp.searchsorted: x1 must be 1-D"),
        (lambda x: tnp.searchsorted(x[0], x, side="middle"), ArgumentError, "tnp.searchsorted: argument 'side'"),
        (lambda x: tnp.diff(x, n=-1), ArgumentError, "tnp.diff: argument 'n'"),
        (lambda x: tnp.diff(x, axis=2), AxisError, "tnp.diff: axis 2"),
        (lambda x: tnp.diff(x[0, 0]), AxisError, "tnp.diff: x is 0-d"),
        (lambda x: tnp.take(x, np.array([0.5])), TenferroError, "tnp.take"),
        (lambda x: tnp.nonzero(x[0, 0]), ShapeMismatch, "tnp.nonzero"),
        (lambda x: tnp.sum("text"), ArgumentError, "tnp.sum: argument 'x'"),
        (lambda x: tnp.all(x, axis=4), AxisError, "tnp.all"),
    ],
)
def test_errors_name_the_function_and_argument(rt, call, error, words):
    with pytest.raises(error, match=re.escape(words)):
        call(rt.variable_from(A))


def test_numpy_arrays_and_lists_are_accepted_on_the_default_runtime():
    out = tnp.mean([[1.0, 2.0], [3.0, 5.0]], axis=0)
    assert out._rt is tf.default_runtime()
    np.testing.assert_array_equal(np.asarray(out), [2.0, 3.5])


def test_the_docs_example_runs_and_its_gradient_is_right(capsys):
    scope = run_docs_example("## Statistical, manipulation")
    np.testing.assert_array_equal(scope["x"].grad().to_numpy(), [[-3.0, 0.0, 3.0], [-3.0, 1.0, 4.0]])


@pytest.mark.parametrize(
    "function",
    [
        lambda z: tnp.prod(z, axis=0),
        lambda z: tnp.cumsum(z),
        lambda z: tnp.mean(z, axis=1, keepdims=True),
        lambda z: tnp.where(np.array([True, False, True, False]), z, 1j),
        lambda z: tnp.diff(tnp.roll(z, 1, axis=1)),
        lambda z: tnp.take(tnp.var(z, axis=0), np.array([3, 3, 0])),
    ],
)
def test_complex_gradients_match_finite_differences(rt, function):
    z0 = A[:2] + 1j * B

    def loss(z):
        out = function(z)
        return tnp.sum(tnp.real(out * tnp.conj(out)))

    z = rt.variable_from(z0)
    grad = rt.grad(loss(z), z)
    want = fd_gradient(lambda a: float(np.asarray(loss(rt.constant_from(a)))), z0)
    np.testing.assert_allclose(np.asarray(grad), want, rtol=1e-6, atol=1e-6)


REDUCTIONS = {
    "sum": np.sum,
    "prod": np.prod,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "var": np.var,
    "std": np.std,
    "all": np.all,
    "any": np.any,
    "count_nonzero": np.count_nonzero,
}


@st.composite
def reduction_calls(draw):
    """A function of the reduction table, an array, and an axis argument for it (None, an
    int, or a tuple of distinct axes, negative ones too) with keepdims."""
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    array = draw(hnp.arrays(np.float64, shape, elements=st.floats(-3, 3).map(lambda v: round(v, 1))))
    ndim = len(shape)
    axis = draw(
        st.none()
        | st.integers(-ndim, ndim - 1)
        | st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(
            lambda axes: tuple(a - ndim if a % 2 else a for a in axes)
        )
    )
    return draw(st.sampled_from(sorted(REDUCTIONS))), array, axis, draw(st.booleans())


@given(reduction_calls())
def test_reductions_match_numpy_for_any_axis(call):
    name, array, axis, keepdims = call
    got = getattr(tnp, name)(array, axis=axis, keepdims=keepdims)
    want = REDUCTIONS[name](array, axis=axis, keepdims=keepdims)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
