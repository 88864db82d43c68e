"""The index plugin: values against NumPy and PyTorch, accumulation at repeated indices,
negative and out-of-range indices, scatter's conventions (PyTorch's scatter_reduce), stable
sorts, constants, and cross-entropy written with take_along_axis."""

import numpy as np
import pytest
from conftest import needs_torch, torch

from tenferro import ArgumentError, AxisError, DTypeError, ShapeMismatch, Tensor

X = np.arange(24.0).reshape(2, 3, 4) / 7 - 1


def const(rt, a):
    return rt.constant_from(Tensor.from_numpy(np.asarray(a)))


def var(rt, a):
    return rt.variable_from(Tensor.from_numpy(np.asarray(a, dtype=np.float64)))


def call(rt, op, *args, **params):
    return np.asarray(rt.with_eager_session(lambda s: getattr(s, op)(*args, **params)))


def grad_of(rt, op, x, *args, g=None, **params):
    """The gradient of <g, op(x, *args)> with respect to x (g of ones by default)."""
    xv = var(rt, x)

    def body(s):
        out = getattr(s, op)(xv, *args, **params)
        weights = np.ones(out.shape) if g is None else g
        return s.reduce_sum(s.mul(out, const(rt, weights)), None)

    loss = rt.with_eager_session(body)
    loss.backward()
    return xv.grad().to_numpy()


# -- values against NumPy ----------------------------------------------------------------------
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_matches_numpy_with_negative_indices(rt, axis):
    n = X.size if axis is None else X.shape[axis]
    indices = np.array([[0, -1], [n - 1, -n]])
    np.testing.assert_array_equal(
        call(rt, "take", const(rt, X), const(rt, indices), axis=axis), np.take(X, indices, axis)
    )


def test_gather_is_numpy_integer_array_indexing(rt):
    i, j = np.array([[0, 2], [1, -1]]), np.array([[3, 0], [-4, 1]])
    coords = np.stack([i, j], axis=-1)
    np.testing.assert_array_equal(call(rt, "gather", const(rt, X), const(rt, coords), axis=1), X[:, i, j])
    np.testing.assert_array_equal(call(rt, "gather", const(rt, X), const(rt, coords[..., :1]), axis=-2), X[:, i])
    rows = np.stack([np.array([1, 0]), np.array([2, 2]), np.array([3, 0])], axis=-1)  # x[[1, 0], [2, 2], [3, 0]]
    np.testing.assert_array_equal(call(rt, "gather", const(rt, X), const(rt, rows)), X[[1, 0], [2, 2], [3, 0]])


def test_take_along_axis_and_boolean_mask_and_dynamic_slice_match_numpy(rt):
    idx = np.array([[[3, 0]], [[-1, 1]]]).repeat(3, axis=1)
    np.testing.assert_array_equal(
        call(rt, "take_along_axis", const(rt, X), const(rt, idx), axis=2), np.take_along_axis(X, idx % 4, axis=2)
    )
    mask = np.array([[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(call(rt, "boolean_mask", const(rt, X), const(rt, mask)), X[mask])
    np.testing.assert_array_equal(
        call(rt, "dynamic_slice", const(rt, X), const(rt, np.array([-1, 1, 0])), sizes=(1, 2, 3)), X[1:, 1:3, 0:3]
    )
    np.testing.assert_array_equal(call(rt, "argwhere", const(rt, X > 0.5)), np.argwhere(X > 0.5))
    rows, cols, depths = call(rt, "nonzero", const(rt, X > 0.5))  # a tuple, one index array per axis
    for ours, numpys in zip((rows, cols, depths), np.nonzero(X > 0.5)):
        np.testing.assert_array_equal(ours, numpys)


def test_unsigned_indices_are_accepted_and_get_no_gradient(rt):
    x, indices = var(rt, [1.0, 2.0, 3.0]), const(rt, np.array([2, 2, 0], dtype=np.uint8))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.take(x, indices), None))
    grads = loss.backward()
    assert len(grads) == 1 and not indices.tracks_grad()
    np.testing.assert_array_equal(x.grad().to_numpy(), [1.0, 0.0, 2.0])


# -- repeated indices accumulate --------------------------------------------------------------
def test_repeated_indices_accumulate_in_every_read(rt):
    x = np.array([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(grad_of(rt, "take", x, const(rt, np.array([0, 0, -3, 2]))), [3.0, 0.0, 1.0])
    np.testing.assert_array_equal(grad_of(rt, "gather", x, const(rt, np.array([[1], [1], [-2]]))), [0.0, 3.0, 0.0])
    along = grad_of(rt, "take_along_axis", x, const(rt, np.array([2, 2, 2, 0])), axis=0)
    np.testing.assert_array_equal(along, [1.0, 0.0, 3.0])


def test_scatter_add_accumulates_repeated_indices(rt):
    x, at = np.zeros(3), np.array([[0], [0], [2], [0]])
    out = call(rt, "scatter", const(rt, x), const(rt, at), const(rt, np.array([1.0, 2.0, 3.0, 4.0])), mode="add")
    np.testing.assert_array_equal(out, [7.0, 0.0, 3.0])


def _add_at_on_zeros(updates, where, shape):
    out = np.zeros(shape, np.asarray(updates).dtype)
    np.add.at(out, where, updates)
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.uint16])
def test_scatter_add_to_fast_path_is_bitwise_add_at(dtype, index_dtype):
    """scatter_add_to's 1-D float64 path (np.bincount) adds in np.add.at's order: the same
    bits, signed zeros, infinities and NaNs included; other dtypes take np.add.at itself."""
    from tenferro.plugins.index.gathers import scatter_add_to

    rng = np.random.default_rng(0)
    n = 50
    indices = rng.integers(0, n, 400).astype(index_dtype)
    updates = (rng.standard_normal(400) * 10.0 ** rng.integers(-20, 20, 400)).astype(dtype)
    big = np.finfo(dtype).max
    updates[:40] = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -big], dtype), 40)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, max + max
        pairs = [
            (scatter_add_to(updates, indices, (n,), None, "take"), _add_at_on_zeros(updates, indices, (n,))),
            (scatter_add_to(updates, indices, (n,), 0, "take"), _add_at_on_zeros(updates, indices, (n,))),
            (scatter_add_to(updates, indices[:, None], (n,)), _add_at_on_zeros(updates, indices, (n,))),
            (scatter_add_to(updates[:1], indices, (n,), 0, "take"), _add_at_on_zeros(updates[:1], indices, (n,))),
            (scatter_add_to(updates[:0], indices[:0], (n,), 0, "take"), np.zeros(n, dtype)),
        ]
    for got, want in pairs:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


def test_take_gradient_into_x_flattened_is_a_fresh_array():
    """The VJP of take(x, i) (axis None) is the zeros it added into, not a reshaped view of
    them: a view reaching a variable would cost the sweep a copy of x's size."""
    from tenferro.plugins.index.gathers import scatter_add_to

    indices = np.array([0, 5, 5, -1])
    for shape in [(6,), (2, 3)]:
        got = scatter_add_to(np.ones(4), indices, shape, None, "take")
        assert got.base is None and got.shape == shape
        np.testing.assert_array_equal(got.reshape(-1), [1.0, 0.0, 0.0, 0.0, 0.0, 3.0])


def test_gather_second_derivative_goes_through_scatter_add(rt):
    """d/dx of <w, grad_x sum(take(x, i)**2)>: the gradient's own derivative, by rt.grad."""
    x, at, w = var(rt, [1.0, 2.0, 3.0]), const(rt, np.array([0, 0, 2])), const(rt, np.array([1.0, 10.0, 100.0]))
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.take(x, at), s.take(x, at)), None)), x)
    np.testing.assert_array_equal(np.asarray(g), [4.0, 0.0, 6.0])  # 2·x·count
    hvp = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, w), None)), x)
    np.testing.assert_array_equal(np.asarray(hvp), [4.0, 0.0, 200.0])


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "op, args, params, message",
    [
        (
            "take",
            ([1.0, 2.0, 3.0], [0, 3]),
            {},
            "take: argument 'indices' holds the index 3, out of range for x flattened of length 3",
        ),
        (
            "take",
            (X, [-5]),
            {"axis": 2},
            "take: argument 'indices' holds the index -5, out of range for axis 2 of length 4",
        ),
        (
            "gather",
            (X, [[0, 3]]),
            {"axis": 0},
            "gather: argument 'indices' holds the index 3, out of range for axis 1 of length 3",
        ),
        ("take_along_axis", ([1.0, 2.0], [2]), {"axis": 0}, "index 2, out of range for axis 0 of length 2"),
        ("dynamic_slice", (X, [0, 0, 2]), {"sizes": (1, 1, 3)}, "'start' holds the index 2 for axis 2 of length 4"),
    ],
)
def test_out_of_range_is_an_error_naming_op_argument_index_and_axis_never_a_wrap(rt, op, args, params, message):
    with pytest.raises(ArgumentError, match=message.replace("(", "\\(")) as info:
        call(rt, op, *(const(rt, a) for a in args), **params)
    assert isinstance(info.value, IndexError)  # like NumPy's own


def test_sort_errors_name_sort_and_descending_must_be_a_bool(rt):
    with pytest.raises(AxisError, match=r"^sort: axis -1 is out of range for a tensor with 0 dims"):
        call(rt, "sort", const(rt, np.array(1.0)))
    for op in ("sort", "argsort"):
        for bad in ("yes", 1, None):
            with pytest.raises(ArgumentError, match=rf"^{op}: descending must be True or False, got {bad!r}"):
                call(rt, op, const(rt, np.array([2.0, 1.0])), descending=bad)
    assert call(rt, "sort", const(rt, np.array([1.0, 2.0])), descending=np.bool_(True)).tolist() == [2.0, 1.0]


def test_dynamic_slice_errors_name_its_param_sizes(rt):
    for bad in [(-1, 2), (1.0, 2), "ab", (True, 1)]:
        with pytest.raises(ArgumentError, match=r"^dynamic_slice: sizes must be a sequence of non-negative ints"):
            call(rt, "dynamic_slice", const(rt, np.zeros((2, 3))), const(rt, np.array([0, 0])), sizes=bad)
    window = call(
        rt, "dynamic_slice", const(rt, np.arange(6.0).reshape(2, 3)), const(rt, np.array([1, 1])), sizes=[1, 2]
    )
    assert window.tolist() == [[4.0, 5.0]]


def test_scatter_out_of_range_names_the_axis(rt):
    with pytest.raises(IndexError, match="scatter: argument 'indices' holds the index -4, out of range for axis 0"):
        call(rt, "scatter", const(rt, np.zeros(3)), const(rt, np.array([[-4]])), 1.0)


def test_float_indices_and_shape_errors_are_clear(rt):
    with pytest.raises(DTypeError, match="take: argument 'indices' has dtype f64"):
        call(rt, "take", const(rt, X), const(rt, np.array([0.0])))
    with pytest.raises(ShapeMismatch, match="updates of shape \\[2\\] do not broadcast to the \\[3\\] positions"):
        call(rt, "scatter", const(rt, np.zeros(3)), const(rt, np.array([[0], [1], [2]])), const(rt, np.ones(2)))


# -- scatter's conventions, against PyTorch's scatter_reduce ----------------------------------------
_TORCH_REDUCE = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax"}


@needs_torch
@pytest.mark.parametrize("mode", ["add", "mul", "min", "max"])
@pytest.mark.parametrize(
    "x, at, updates",
    [
        ([1.0, 5.0, -2.0, 0.0], [0, 0, 1, 3, 3, 3], [1.0, 1.0, 2.0, 0.0, 0.0, -1.0]),  # ties, zeros
        ([2.0, 0.0, 3.0, 4.0], [2, 2, 0, 1, 1, 2], [0.0, 5.0, 2.0, 0.0, 7.0, 3.0]),  # one zero, two zeros
        ([0.5, -1.5, 2.5], [1, 1, 1], [-1.5, -1.5, 4.0]),
    ],
)
def test_scatter_values_and_gradients_match_torch_scatter_reduce(rt, mode, x, at, updates):
    g = np.array([1.0, -2.0, 0.5, 3.0][: len(x)])
    xv, uv = var(rt, x), var(rt, updates)
    loss = rt.with_eager_session(
        lambda s: s.reduce_sum(
            s.mul(s.scatter(xv, const(rt, np.array(at)[:, None]), uv, mode=mode), const(rt, g)), None
        )
    )
    loss.backward()
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tu = torch.tensor(updates, dtype=torch.float64, requires_grad=True)
    out = tx.scatter_reduce(0, torch.tensor(at), tu, _TORCH_REDUCE[mode], include_self=True)
    (out * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(np.asarray(loss), float((out * torch.tensor(g)).sum().detach()), rtol=1e-15)
    np.testing.assert_allclose(xv.grad().to_numpy(), tx.grad.numpy(), rtol=1e-14, atol=0)
    np.testing.assert_allclose(uv.grad().to_numpy(), tu.grad.numpy(), rtol=1e-14, atol=0)


def test_scatter_mul_gradient_at_zeros_is_exact_without_nan(rt):
    """Leave-one-out products, not out / u: no 0/0 where an update is zero."""
    at = const(rt, np.array([[0], [0], [0], [1]]))
    uv = var(rt, [0.0, 3.0, 5.0, 0.0])
    loss = rt.with_eager_session(
        lambda s: s.reduce_sum(s.scatter(const(rt, np.array([2.0, 7.0])), at, uv, mode="mul"), None)
    )
    loss.backward()
    np.testing.assert_array_equal(uv.grad().to_numpy(), [30.0, 0.0, 0.0, 7.0])


def test_scatter_set_keeps_the_last_repeat_and_routes_its_gradient(rt):
    xv, uv = var(rt, [1.0, 2.0, 3.0]), var(rt, [10.0, 20.0, 30.0])
    at = const(rt, np.array([[2], [0], [2]]))
    out = rt.with_eager_session(lambda s: s.scatter(xv, at, uv))
    np.testing.assert_array_equal(np.asarray(out), [20.0, 2.0, 30.0])
    out.backward_with(const(rt, np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(xv.grad().to_numpy(), [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(uv.grad().to_numpy(), [0.0, 1.0, 3.0])


def test_scatter_broadcasts_updates_and_keeps_x_dtype(rt):
    x = np.zeros((2, 3), np.float32)
    out = rt.with_eager_session(
        lambda s: s.scatter(const(rt, x), const(rt, np.array([[1], [1]])), 2.5, axis=1, mode="add")
    )
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), [[0, 5, 0], [0, 5, 0]])
    uv = var(rt, [[1.0]])  # broadcast to the (2, 2) positions; its gradient sums them
    loss = rt.with_eager_session(
        lambda s: s.reduce_sum(
            s.scatter(const(rt, np.zeros((2, 3))), const(rt, np.array([[0], [2]])), uv, axis=1), None
        )
    )
    loss.backward()
    np.testing.assert_array_equal(uv.grad().to_numpy(), [[4.0]])


@pytest.mark.parametrize("mode, won", [("max", [1.0, 0.0, 1.0]), ("min", [0.0, 1.0, 0.0])])
def test_scatter_min_max_f64_updates_into_f32_x_get_their_gradient(rt, mode, won):
    """The f64 updates are rounded into the f32 result; they tie with it as written."""
    xv = rt.variable_from(np.zeros(2, np.float32))
    uv = var(rt, [0.1, -0.3, 0.7])
    out = rt.with_eager_session(lambda s: s.scatter(xv, const(rt, np.array([[0], [1], [1]])), uv, mode=mode))
    assert out.dtype == np.float32
    out.backward_with(const(rt, np.ones(2, np.float32)))
    assert uv.grad().dtype == np.float64
    np.testing.assert_array_equal(uv.grad().to_numpy(), won)
    np.testing.assert_array_equal(xv.grad().to_numpy(), [0.0, 0.0] if mode == "max" else [1.0, 0.0])


# -- sort and argsort -----------------------------------------------------------------------------
TIES = np.array([[3.0, 1.0, 3.0, 2.0, 1.0], [0.0, 0.0, -1.0, 0.0, 5.0]])


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argsort_is_stable_like_numpy_and_torch(rt, descending, axis):
    order = call(rt, "argsort", const(rt, TIES), axis=axis, descending=descending)
    if not descending:
        np.testing.assert_array_equal(order, np.argsort(TIES, axis=axis, kind="stable"))
    if torch is not None:
        expected = torch.sort(torch.tensor(TIES), dim=axis, descending=descending, stable=True).indices
        np.testing.assert_array_equal(order, expected.numpy())


@needs_torch
@pytest.mark.parametrize("descending", [False, True])
def test_sort_gradient_at_ties_matches_torch(rt, descending):
    g = np.arange(10.0).reshape(2, 5) ** 2
    ours = grad_of(rt, "sort", TIES, g=g, axis=1, descending=descending)
    t = torch.tensor(TIES, requires_grad=True)
    (torch.sort(t, dim=1, descending=descending, stable=True).values * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(ours, t.grad.numpy())


def test_integer_and_bool_results_are_constants(rt):
    x = var(rt, [3.0, 1.0, 2.0])
    order, where, (nonzero,) = rt.with_eager_session(lambda s: (s.argsort(x), s.argwhere(x), s.nonzero(x)))
    assert not order.tracks_grad() and order.dtype == np.int64
    assert not where.tracks_grad() and where.shape == (3, 1)
    assert not nonzero.tracks_grad() and nonzero.dtype == np.int64
    spec = rt.registry["argsort"]
    assert spec.integer_results and not any(spec.differentiable)
    assert rt.registry["boolean_mask"].differentiable == (True, False)


# -- cross-entropy with take_along_axis ------------------------------------------------------------
LOGITS = np.array([[1.0, -2.0, 0.5, 3.0], [0.0, 0.1, -0.3, 2.0], [-1.0, 4.0, 1.0, 1.5]])
LABELS = np.array([3, 0, 1])


def _cross_entropy(rt, logits):
    n, c = LOGITS.shape
    labels = const(rt, LABELS[:, None])

    def body(s):
        log_softmax = s.sub(logits, s.expand_to(s.logsumexp(logits, 1), (n, c), (1,)))
        return s.neg(s.reduce_mean(s.take_along_axis(log_softmax, labels, axis=1), None))

    return rt.with_eager_session(body)


def test_cross_entropy_gradient_matches_finite_differences(rt):
    logits = var(rt, LOGITS)
    _cross_entropy(rt, logits).backward()
    step, fd = 1e-6, np.zeros_like(LOGITS)
    with rt.no_grad():
        for i in np.ndindex(*LOGITS.shape):
            e = np.zeros_like(LOGITS)
            e[i] = step
            up, down = _cross_entropy(rt, const(rt, LOGITS + e)), _cross_entropy(rt, const(rt, LOGITS - e))
            fd[i] = (float(np.asarray(up)) - float(np.asarray(down))) / (2 * step)
    np.testing.assert_allclose(logits.grad().to_numpy(), fd, rtol=0, atol=1e-9)


@needs_torch
def test_cross_entropy_value_gradient_and_hvp_match_torch(rt):
    logits = var(rt, LOGITS)
    loss = _cross_entropy(rt, logits)
    g = rt.grad(loss, logits)
    v = np.cos(np.arange(LOGITS.size)).reshape(LOGITS.shape)
    hvp = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, const(rt, v)), None)), logits)
    t = torch.tensor(LOGITS, requires_grad=True)
    t_loss = torch.nn.functional.cross_entropy(t, torch.tensor(LABELS))
    (t_g,) = torch.autograd.grad(t_loss, t, create_graph=True)
    (t_hvp,) = torch.autograd.grad((t_g * torch.tensor(v)).sum(), t)
    np.testing.assert_allclose(float(np.asarray(loss)), float(t_loss.detach()), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(g), t_g.detach().numpy(), rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(np.asarray(hvp), t_hvp.numpy(), rtol=1e-13, atol=1e-16)


def test_scatter_broadcasts_updates_along_a_trailing_axis_like_numpy_assignment(rt):
    """NumPy 2.4's ufunc.at broadcast such updates wrongly and read past their buffer."""
    x, idx = np.zeros(4), np.arange(4).reshape(2, 2, 1)
    up = rt.variable_from(np.array([1.0, 2.0]))
    for mode, expected in (("add", [1.0, 2.0, 1.0, 2.0]), ("set", [1.0, 2.0, 1.0, 2.0])):
        out = rt.with_eager_session(
            lambda s, mode=mode: s.scatter(rt.constant_from(x), rt.constant_from(idx), up, 0, mode)
        )
        np.testing.assert_array_equal(np.asarray(out), expected)
    zeros, same = rt.constant_from(np.zeros(1)), rt.constant_from(np.zeros((2, 2, 1), np.int64))
    repeated = rt.with_eager_session(lambda s: s.scatter(zeros, same, up, 0, "add"))
    np.testing.assert_array_equal(np.asarray(repeated), [6.0])
    repeated.backward_with(rt.constant_from([1.0]))
    np.testing.assert_array_equal(up.grad().to_numpy(), [2.0, 2.0])
    back = rt.with_eager_session(
        lambda s: s.scatter_add_to(up, rt.constant_from(np.arange(4).reshape(2, 2, 1)), (4,), 0, "nd")
    )
    np.testing.assert_array_equal(np.asarray(back), [1.0, 2.0, 1.0, 2.0])
