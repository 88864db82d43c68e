"""The shape plugin: values against NumPy, views (no copies, nothing kept in the trace),
slicing's NumPy semantics and its scatter VJP, error messages, and Rosenbrock by slicing."""

import numpy as np
import pytest
import scipy.optimize

from tenferro import AxisError, ShapeMismatch, Tensor
from tenferro.core.tensor import Hollow
from tenferro.extend import ArgumentError

X = np.arange(24.0).reshape(2, 3, 4)
M = np.arange(20.0).reshape(4, 5)

#: (op, tensor, params, what NumPy gives)
CASES = [
    ("reshape", X, {"shape": (6, -1)}, X.reshape(6, -1)),
    ("reshape", X, {"shape": 24}, X.reshape(24)),
    ("permute_dims", X, {"axes": (2, 0, 1)}, X.transpose(2, 0, 1)),
    ("permute_dims", X, {"axes": (-1, 0, 1)}, X.transpose(2, 0, 1)),
    ("transpose", X, {}, X.transpose()),
    ("transpose", X, {"axes": (1, 0, 2)}, X.transpose(1, 0, 2)),
    ("expand_dims", X, {"axis": -1}, np.expand_dims(X, -1)),
    ("expand_dims", X, {"axis": (0, 4)}, np.expand_dims(X, (0, 4))),
    ("squeeze", X.reshape(1, 2, 1, 12), {}, X.reshape(2, 12)),
    ("squeeze", X.reshape(1, 2, 1, 12), {"axis": -2}, X.reshape(1, 2, 12)),
    ("moveaxis", X, {"source": 0, "destination": -1}, np.moveaxis(X, 0, -1)),
    ("moveaxis", X, {"source": (0, 1), "destination": (2, 0)}, np.moveaxis(X, (0, 1), (2, 0))),
    ("flip", X, {}, np.flip(X)),
    ("flip", X, {"axis": (0, 2)}, np.flip(X, (0, 2))),
    ("diagonal", X, {"offset": 1, "axis1": 1, "axis2": 2}, np.diagonal(X, 1, 1, 2)),
    ("diagonal", M, {"offset": -2}, np.diagonal(M, -2)),
    ("roll", X, {"shift": 5}, np.roll(X, 5)),
    ("roll", X, {"shift": (1, -2), "axis": (0, 2)}, np.roll(X, (1, -2), (0, 2))),
    ("repeat", X, {"repeats": 2, "axis": 1}, np.repeat(X, 2, 1)),
    ("repeat", X, {"repeats": (0, 3, 1), "axis": 1}, np.repeat(X, (0, 3, 1), 1)),
    ("repeat", M, {"repeats": 2}, np.repeat(M, 2)),
    ("tile", M, {"reps": (2, 1, 3)}, np.tile(M, (2, 1, 3))),
    ("tile", X, {"reps": 2}, np.tile(X, 2)),
    (
        "pad",
        M,
        {"pad_width": ((1, 0), (2, 3)), "constant_values": -1.0},
        np.pad(M, ((1, 0), (2, 3)), constant_values=-1),
    ),
    ("pad", M, {"pad_width": 1}, np.pad(M, 1)),
    ("tril", X, {"k": -1}, np.tril(X, -1)),
    ("triu", M, {"k": 2}, np.triu(M, 2)),
]


@pytest.mark.parametrize("op, value, params, expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_and_gradients_match_numpy(rt, op, value, params, expected):
    """The value is NumPy's; the gradient of <w, op(x)> is the transpose applied to w, which
    for a pure rearrangement is: each input element gets the sum of w over its copies."""
    x = rt.variable_from(value)
    w = np.random.default_rng(0).standard_normal(expected.shape)
    out, loss = rt.with_eager_session(
        lambda s: (y := getattr(s, op)(x, **params), s.reduce_sum(s.mul(y, rt.constant_from(w)), None))
    )
    np.testing.assert_array_equal(np.asarray(out), expected)
    # the same rearrangement applied to element labels tells where each output came from
    labels = np.arange(value.size, dtype=np.float64).reshape(value.shape) + 1
    with rt.no_grad():
        params_zero = {**params, "constant_values": 0.0} if op == "pad" else params
        where = np.asarray(rt.with_eager_session(lambda s: getattr(s, op)(rt.constant_from(labels), **params_zero)))
    expected_grad = np.zeros(value.size)
    np.add.at(expected_grad, (where[where > 0] - 1).astype(int), w[where > 0])
    np.testing.assert_allclose(np.asarray(rt.grad(loss, x)), expected_grad.reshape(value.shape), rtol=1e-13)


VIEWS = [
    ("reshape", {"shape": (4, 6)}),
    ("permute_dims", {"axes": (2, 0, 1)}),
    ("transpose", {}),
    ("expand_dims", {"axis": 1}),
    ("squeeze", {"axis": None}),
    ("moveaxis", {"source": 2, "destination": 0}),
    ("flip", {"axis": 1}),
    ("diagonal", {}),
    ("slice", {"index": (slice(None, None, -1), None, 1, Ellipsis)}),
]


@pytest.mark.parametrize("op, params", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_ops_return_read_only_views_and_keep_no_values(rt, op, params):
    x = rt.variable_from(X)
    y, out = rt.with_eager_session(lambda s: (y := s.mul(x, 2.0), getattr(s, op)(y, **params)))
    value = np.asarray(out)
    assert np.shares_memory(value, np.asarray(y))  # a view: no copy
    assert not value.flags.writeable
    with pytest.raises(ValueError):
        value[...] = 0
    spec = rt.registry[op]
    assert spec.returns_view and spec.linear and spec.residuals == ()
    node = out._node  # the trace keeps the input's shape, not its value, and not the result
    assert isinstance(node.inputs[0]._value, Hollow) and node.value is None


def test_a_chain_of_views_copies_nothing(rt):
    x = rt.variable_from(np.arange(24.0))
    out = rt.with_eager_session(
        lambda s: s.squeeze(
            s.slice(s.permute_dims(s.reshape(x, (2, 3, 4)), (2, 0, 1)), (slice(1, None), None, 0)), axis=1
        )
    )
    np.testing.assert_array_equal(np.asarray(out), np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)[1:, 0])
    assert np.shares_memory(np.asarray(out), np.asarray(x))


# -- slicing -------------------------------------------------------------------------------------
V = np.arange(10.0)
KEYS = [
    slice(2, 8, 3),
    slice(None, None, -1),
    slice(8, 2, -2),
    slice(-3, None),
    slice(-100, 100),  # clipped
    slice(100, None),  # empty
    slice(None, -100, -1),  # empty
    slice(5, -100, -1),
    3,
    -1,
    (None, slice(1, 3)),
    (Ellipsis, None),
    ((None, None, -3),),  # a slice spelled (start, stop, step)
    ((1, 100, 4), None),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_slice_is_numpy_basic_indexing_and_its_gradient_is_a_scatter(rt, key):
    items = key if isinstance(key, tuple) else (key,)
    numpy_key = tuple(slice(*i) if isinstance(i, tuple) else i for i in items)
    x = rt.variable_from(V)
    out, loss = rt.with_eager_session(lambda s: (y := s.slice(x, key), s.reduce_sum(s.mul(y, y), None)))
    np.testing.assert_array_equal(np.asarray(out), V[numpy_key])
    expected = np.zeros_like(V)
    expected[numpy_key] = 2 * V[numpy_key]
    grad = rt.grad(loss, x)
    np.testing.assert_array_equal(np.asarray(grad), expected)


def test_slice_on_several_axes_with_new_axes_and_ellipsis(rt):
    x = rt.constant_from(X)
    for key in [(1, Ellipsis, slice(None, None, -2)), (None, slice(1, None), None, 2), (Ellipsis, 0, None), ()]:
        np.testing.assert_array_equal(np.asarray(rt.with_eager_session(lambda s, k=key: s.slice(x, k))), X[key])
    # an int index gives a 0-d view, not a NumPy scalar copy
    point = rt.with_eager_session(lambda s: s.slice(x, (1, 2, 3)))
    assert point.shape == () and np.shares_memory(np.asarray(point), np.asarray(x))


def test_slice_gradient_is_a_scatter_not_a_mask_product(rt):
    x = rt.variable_from(V)
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.sin(s.slice(x, slice(1, None, 2))), None))
    grad = rt.grad(loss, x)
    lines = str(grad.trace()).splitlines()
    # every op but the last works on the 5 selected elements; the last writes them into zeros
    assert all("f64[5]" in line for line in lines[2:-2])
    assert lines[-2].lstrip().startswith("f = slice_scatter[shape=(10,)") and lines[-2].endswith("f64[10]")
    expected = np.zeros(10)
    expected[1::2] = np.cos(V[1::2])
    np.testing.assert_array_equal(np.asarray(grad), expected)


def test_slice_triples_are_hashable_params(rt):
    x = rt.constant_from(V)
    key = ((None, None, -1), None)
    hash(key)
    out = rt.with_eager_session(lambda s: s.slice(x, key))
    np.testing.assert_array_equal(np.asarray(out), V[::-1, None])


def test_rosenbrock_by_slicing_matches_scipy():
    """sum(100 (x[1:] - x[:-1]²)² + (1 - x[:-1])²): gradient = rosen_der, Hessian = rosen_hess."""
    from tenferro import CpuEngine, EagerRuntime

    rt = EagerRuntime(engine=CpuEngine.serial())
    values = np.random.default_rng(1).uniform(-2, 2, 50)

    def rosen(s, x):
        head, tail = s.slice(x, slice(None, -1)), s.slice(x, slice(1, None))
        a = s.sub(tail, s.mul(head, head))
        b = s.sub(1.0, head)
        return s.reduce_sum(s.add(s.mul(100.0, s.mul(a, a)), s.mul(b, b)), None)

    x = rt.variable_from(values)
    loss = rt.with_eager_session(lambda s: rosen(s, x))
    assert float(np.asarray(loss)) == pytest.approx(scipy.optimize.rosen(values), rel=1e-14)
    loss.backward()
    np.testing.assert_allclose(x.grad().to_numpy(), scipy.optimize.rosen_der(values), rtol=1e-13, atol=1e-12)
    g = rt.grad(loss, x)
    v = np.random.default_rng(2).standard_normal(50)
    hv = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, rt.constant_from(v)), None)), x)
    np.testing.assert_allclose(np.asarray(hv), scipy.optimize.rosen_hess(values) @ v, rtol=1e-12, atol=1e-10)


# -- errors --------------------------------------------------------------------------------------
ERRORS = [
    (
        "reshape",
        np.zeros(6),
        {"shape": (4, 2)},
        ShapeMismatch,
        "reshape: cannot reshape a tensor of shape [6] (6 elements) to [4, 2] (8 elements)",
    ),
    ("reshape", np.zeros(6), {"shape": (4, -1)}, ShapeMismatch, "6 elements do not split into parts of 4"),
    ("permute_dims", X, {"axes": (0, 1)}, AxisError, "axes (0, 1) has 2 entries for a tensor with 3 dims"),
    ("permute_dims", X, {"axes": (0, 1, 3)}, AxisError, "permute_dims: axis 3 is out of range for a tensor with 3"),
    ("expand_dims", X, {"axis": 5}, AxisError, "axis 5 is out of range for a tensor with 4 dims"),
    ("squeeze", X, {"axis": 1}, ShapeMismatch, "squeeze: axis 1 has size 3, not 1 (shape [2, 3, 4])"),
    ("moveaxis", X, {"source": 3, "destination": 0}, AxisError, "source 3 is out of range for a tensor with 3 dims"),
    ("flip", X, {"axis": -4}, AxisError, "axis -4 is out of range for a tensor with 3 dims"),
    ("diagonal", np.zeros(3), {}, AxisError, "at least 2 dims, got 1"),
    ("tril", np.zeros(3), {}, AxisError, "at least 2 dims"),
    ("slice", X, {"index": (0, 0, 0, 0)}, AxisError, "indexes 4 axes, but the tensor has 3 dims"),
    ("slice", X, {"index": (0, 5)}, AxisError, "index 5 is out of range for axis 1 of size 3"),
    ("slice", X, {"index": slice(None, None, 0)}, ArgumentError, "step cannot be 0"),
    ("slice", X, {"index": np.array([0, 1])}, ArgumentError, "use the index family"),
    ("slice", X, {"index": True}, ArgumentError, "index items must be"),
    ("repeat", X, {"repeats": (1, 2), "axis": 1}, ShapeMismatch, "2 repeats for axis 1 of 3 elements"),
    ("pad", X, {"pad_width": 1, "mode": "edge"}, ArgumentError, "mode 'edge' is not supported"),
]


@pytest.mark.parametrize("op, value, params, error, message", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_name_what_was_asked_and_the_shapes(rt, op, value, params, error, message):
    x = rt.variable_from(value)
    with pytest.raises(error) as info:
        rt.with_eager_session(lambda s: getattr(s, op)(x, **params))
    assert message in str(info.value)


def test_integer_tensors_pass_through_views(rt):
    ints = rt.constant_from(np.arange(6).reshape(2, 3))
    out = rt.with_eager_session(lambda s: s.transpose(s.slice(ints, (Ellipsis, slice(None, None, -1)))))
    np.testing.assert_array_equal(np.asarray(out), np.arange(6).reshape(2, 3)[:, ::-1].T)
    assert np.asarray(out).dtype == np.int64


def test_gradients_of_views_of_float32_stay_float32(rt):
    x = rt.variable_from(np.ones((2, 3), np.float32))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.slice(s.transpose(x), (slice(None, None, -1),)), None))
    assert rt.grad(loss, x).dtype == np.float32


def test_transpose_and_permute_dims_share_one_definition(rt):
    t, p = rt.registry["transpose"], rt.registry["permute_dims"]
    assert t.forward.__qualname__ == p.forward.__qualname__  # one factory, two names
    x = rt.constant_from(Tensor.from_numpy(X))
    a = rt.with_eager_session(lambda s: s.transpose(x))
    b = rt.with_eager_session(lambda s: s.permute_dims(x, (2, 1, 0)))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_the_example_of_docs_shape_md_runs(capsys):
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "shape.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(block, "docs/shape.md", "exec"), {})
    assert capsys.readouterr().out.strip() == str(np.tile([0.0, 1.0], 6))


@pytest.mark.parametrize(
    "op, arrays, axis, expected",
    [
        ("concat", [X, X[:, :1]], 1, np.concatenate([X, X[:, :1]], 1)),
        ("concatenate", [M, M], -1, np.concatenate([M, M], -1)),
        ("concat", [X, M], None, np.concatenate([X.ravel(), M.ravel()])),
        ("stack", [M, M + 1, M + 2], 1, np.stack([M, M + 1, M + 2], 1)),
        ("stack", [M], -1, np.stack([M], -1)),
    ],
)
def test_joins_take_a_list_and_split_their_gradient_back(rt, op, arrays, axis, expected):
    variables = [rt.variable_from(a) for a in arrays]
    weights = np.cos(np.arange(expected.size)).reshape(expected.shape)
    with rt.eager_session() as s:
        out = getattr(s, op)(variables, axis=axis)
        loss = s.reduce_sum(s.mul(out, rt.constant_from(weights)), None)
    np.testing.assert_array_equal(np.asarray(out), expected)
    loss.backward()
    # the gradient of <w, join(xs)> is w cut back into one piece per input
    start = 0
    for position, (a, v) in enumerate(zip(arrays, variables)):
        if op == "stack":
            piece = np.take(weights, position, axis=axis)
        elif axis is None:
            piece = weights[start : start + a.size].reshape(a.shape)
        else:
            piece = np.take(weights, range(start, start + a.shape[axis]), axis=axis)
        start += a.size if axis is None else (a.shape[axis] if op != "stack" else 0)
        np.testing.assert_array_equal(v.grad().to_numpy(), piece)


def test_a_join_of_float32_and_float64_promotes_and_casts_each_gradient_back(rt):
    a = rt.variable_from(np.ones((2, 2), np.float32))
    b = rt.variable_from(np.ones((2, 1)))
    with rt.eager_session() as s:
        out = s.concat([a, b], axis=1)
        loss = s.reduce_sum(s.mul(out, 2.0), None)
    assert out.dtype == np.float64
    loss.backward()
    assert a.grad().dtype == np.float32 and b.grad().dtype == np.float64
    np.testing.assert_array_equal(a.grad().to_numpy(), np.full((2, 2), 2.0, np.float32))


def test_a_join_says_what_its_list_must_be(rt):
    x = rt.constant_from(M)
    with rt.eager_session() as s:
        with pytest.raises(ArgumentError, match=r"concat: argument 'arrays' must be a list or tuple of tensors"):
            s.concat(x)
        with pytest.raises(ArgumentError, match="stack: argument 'arrays' is empty"):
            s.stack([])
        with pytest.raises(ArgumentError, match=r"argument 'arrays\[1\]' is a ndarray; wrap arrays"):
            s.concat([x, M])
        with pytest.raises(ShapeMismatch, match=r"same number of dims, got shapes \[4, 5\], \[5\]"):
            s.concat([x, rt.constant_from(np.zeros(5))])


@pytest.mark.parametrize(
    "op, params, expected",
    [
        ("split", {"indices_or_sections": 2, "axis": 1}, np.split(M[:, :4], 2, 1)),
        ("split", {"indices_or_sections": (1, 3), "axis": -2}, np.split(M[:, :4], (1, 3), -2)),
        ("unstack", {"axis": 1}, list(np.moveaxis(M[:, :4], 1, 0))),
    ],
)
def test_splits_return_a_tuple_of_views_and_join_their_gradients(rt, op, params, expected):
    x = rt.variable_from(M[:, :4])
    with rt.eager_session() as s:
        pieces = getattr(s, op)(x, **params)
        loss = s.reduce_sum(s.mul(pieces[-1], pieces[-1]), None)  # only the last piece is used
    assert isinstance(pieces, tuple) and len(pieces) == len(expected)
    for piece, want in zip(pieces, expected):
        np.testing.assert_array_equal(np.asarray(piece), want)
        assert np.shares_memory(piece._value, x._value) and not piece._value.flags.writeable
    loss.backward()
    grad = np.zeros_like(M[:, :4])  # 2·piece where the last piece sits, zeros elsewhere
    views = np.split(grad, params["indices_or_sections"], params["axis"]) if op == "split" else grad.swapaxes(0, 1)
    views[-1][...] = 2 * expected[-1]
    np.testing.assert_array_equal(x.grad().to_numpy(), grad)


@pytest.mark.parametrize("points", [(-1,), (1, -1), (-5, 2), (2, 2), (0, 3), (1, 7)])
def test_split_reads_negative_and_outside_cut_points_as_numpy_and_differentiates(rt, points):
    values = M[:2, :3]
    x = rt.variable_from(values)
    with rt.eager_session() as s:
        pieces = s.split(x, points, 1)
        weights = [rt.constant_from(np.full(np.shape(p), i + 1.0)) for i, p in enumerate(pieces)]
        loss = s.reduce_sum(s.concat([s.mul(p, w) for p, w in zip(pieces, weights)], 1), None)
    expected = np.split(values, points, 1)
    assert [np.asarray(p).tolist() for p in pieces] == [e.tolist() for e in expected]
    grad = np.concatenate([np.full(e.shape, i + 1.0) for i, e in enumerate(expected)], 1)
    np.testing.assert_array_equal(np.asarray(rt.grad(loss, x)), grad)


@pytest.mark.parametrize("points", [(2, 1), (-1, 1)])
def test_split_rejects_decreasing_cut_points_before_its_gradient_fails(rt, points):
    x = rt.variable_from(M[:2, :3])
    with rt.eager_session() as s, pytest.raises(ArgumentError, match=r"split: the cut points .* increasing order"):
        s.split(x, points, 1)


def test_a_split_differentiates_twice(rt):
    x = rt.variable_from(M[:, :4])

    def cross(s):
        a, b = s.split(x, 2, axis=1)
        return s.reduce_sum(s.mul(a, b), None)

    g = rt.grad(rt.with_eager_session(cross), x)  # (b, a) side by side
    np.testing.assert_array_equal(np.asarray(g), np.concatenate([M[:, 2:4], M[:, :2]], 1))
    h = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, x), None)), x)
    np.testing.assert_array_equal(np.asarray(h), 2 * np.asarray(g))


def test_a_trace_lists_a_call_with_several_results_on_one_line(rt):
    x = rt.variable_from(M[:, :4])
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.unstack(x, 1)[2], None))
    assert "  _, _, b, _ = unstack[axis=1] a" in loss.trace()  # _: a result the program does not read


def test_reshape_remembers_its_checked_target_but_not_for_a_bool_entry(rt):
    """reshape keeps each (shape, argument shape)'s checked target: a shape that once
    passed is not checked again, and ``(True, 6)``, equal to ``(1, 6)`` as a dict key, is
    refused still (a bool is no size); squeeze's one axis and its VJP's expand_dims take
    their fast paths with the same results and errors."""
    x = rt.variable_from(Tensor.from_numpy(np.arange(6.0)))
    for _ in range(2):
        out = rt.with_eager_session(lambda s: s.reshape(x, (1, 6)))
        assert out.shape == (1, 6)
    with pytest.raises(ArgumentError, match="sequence of non-negative ints"):
        rt.with_eager_session(lambda s: s.reshape(x, (True, 6)))
    with pytest.raises(ShapeMismatch, match="the number of elements must stay the same"):
        rt.with_eager_session(lambda s: s.reshape(x, (1, 7)))
    with pytest.raises(AxisError, match="axis must be an int"):
        rt.with_eager_session(lambda s: s.expand_dims(x, (True,)))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.squeeze(s.reshape(x, (1, 6)), 0), x), None))
    np.testing.assert_array_equal(np.asarray(rt.grad(loss, x)), 2 * np.arange(6.0))
