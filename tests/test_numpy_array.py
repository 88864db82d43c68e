"""``EagerTensor`` as the array API's array object: NumPy's indexing forms against NumPy,
their gradients, the functional update ``x.at[key]``, immutability, the attributes, and the
methods that delegate to ``tenferro.numpy``."""

import math

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, run_docs_example, torch
from hypothesis import given
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, AxisError, CpuEngine, EagerRuntime, ShapeMismatch, TenferroError

A = np.arange(120.0).reshape(2, 3, 4, 5)

#: Keys of every form, for an array of A's shape; each against NumPy.
KEYS = [
    0,
    -1,
    slice(None),
    slice(1, None),
    (1, 2),
    (slice(None, None, -1), 0, slice(1, 3)),
    Ellipsis,
    (Ellipsis, 1),
    (None, 1, Ellipsis, None, 2),
    (1, 2, 3, 4),
    np.int64(1),
    np.array(1),
    (slice(np.int64(1), None),),
    [1, 0, 1],
    range(2),
    np.array([[0, 1], [1, 1]]),
    [],
    (slice(None), []),
    (Ellipsis, [0, 0, 4]),
    (slice(None), [0, 1], [1, 2]),  # adjacent arrays: their axes stay in place
    (slice(None), 0, slice(None), [1, 2]),  # an int and an array apart: broadcast axes first
    (0, slice(None), [1, 2]),
    (slice(None), [0], None, [1]),  # None separates
    ([0], Ellipsis, [1]),  # so does ...
    (slice(None), [0], Ellipsis, [1]),  # even an empty one
    (np.array([[0], [1]]), np.array([0, 1, 2]), 0),  # broadcast together
    (slice(1, None), [2, 0], slice(None, None, 2), [[1], [3]]),
    A > 50,
    (A > 50)[..., 0],
    (A > 50)[:, 0, 0, 0],
    (slice(None), np.ones((3, 4), bool)),
    (np.array([True, False]), [0]),
    (np.array([True, False]), slice(None), [2, 0]),
    True,
    False,
    np.True_,
    (True, 0),
    (0, True),
    (slice(None), True, [0, 1]),
]


@pytest.mark.parametrize("key", KEYS, ids=lambda k: repr(k)[:40])
def test_getitem_equals_numpy(key):
    x = tf.variable(A)
    out = x[key]
    expected = A[key]
    assert type(out) is tf.EagerTensor and out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.tracks_grad()


def _tensor_items(key):
    """The key with every array as a tenferro array (ints as 0-d int tensors)."""
    items = key if type(key) is tuple else (key,)
    out = []
    for item in items:
        if isinstance(item, (np.ndarray, list)) or type(item) is int:
            out.append(tf.constant(np.asarray(item if not isinstance(item, list) or item else np.zeros(0, int))))
        else:
            out.append(item)
    return tuple(out)


@pytest.mark.parametrize("key", [k for k in KEYS if type(k) is not bool], ids=lambda k: repr(k)[:40])
def test_tenferro_arrays_as_keys_equal_numpy(key):
    x = tf.constant(A)
    np.testing.assert_array_equal(np.asarray(x[_tensor_items(key)]), A[key])


# -- hypothesis: shapes and keys -----------------------------------------------------------------
@st.composite
def shapes_and_keys(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    items = []
    axis = 0
    arrays = draw(st.booleans())
    while axis < len(shape) and draw(st.integers(0, 3)):
        n = shape[axis]
        choices = ["slice", "none"] + (["int"] if n else []) + (["array", "mask"] if arrays else [])
        kind = draw(st.sampled_from(choices))
        if kind == "slice":
            bounds = st.none() | st.integers(-n - 2, n + 2)
            step = st.none() | st.integers(-3, 3).filter(bool)
            items.append(slice(draw(bounds), draw(bounds), draw(step)))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "array":
            if not n:
                continue
            size = draw(st.integers(0, 3))
            items.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)), dtype=np.int64))
        else:
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        axis += 1
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return shape, tuple(items)


def _numpy_or_error(a, key):
    try:
        return a[key]
    except IndexError:
        return IndexError


@given(shapes_and_keys())
def test_getitem_equals_numpy_for_any_key(case):
    shape, key = case
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    expected = _numpy_or_error(a, key)
    x = tf.constant(a)
    if expected is IndexError:  # index arrays that do not broadcast together
        with pytest.raises(AxisError):
            x[key]
        return
    out = x[key]
    assert out.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(out), expected)


@given(shapes_and_keys(), st.sampled_from(["set", "add", "multiply", "min", "max"]))
def test_at_equals_numpy_for_any_key(case, method):
    shape, key = case
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    picked = _numpy_or_error(a, key)
    if picked is IndexError:
        return
    values = np.linspace(-3.0, 50.0, picked.size).reshape(picked.shape)
    expected = a.copy()
    if method == "set":
        expected[key] = values  # NumPy's assignment: the last of repeated positions wins
    else:
        ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[method]
        ufunc.at(expected, key, values)  # every update combines
    out = getattr(tf.constant(a).at[key], method)(values)
    np.testing.assert_array_equal(np.asarray(out), expected)


# -- gradients -----------------------------------------------------------------------------------
GRAD_KEYS = [
    1,
    (slice(None), 1, slice(None, None, -2)),
    [1, 1, 0],
    (slice(None), [0, 2, 2], [1, 1, 3]),
    (0, slice(None), [1, 1]),
    A > 60,
    (slice(None), np.array([True, False, True])),
    (None, [[0], [1]], Ellipsis, [4, 4]),
]


def _weights(shape):
    return np.cos(np.arange(math.prod(shape), dtype=np.float64)).reshape(shape)


@pytest.mark.parametrize("key", GRAD_KEYS, ids=lambda k: repr(k)[:40])
def test_getitem_gradient_equals_finite_differences(key):
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(np.sin(A))
    w = _weights(np.sin(A)[key].shape)
    s = rt.current_session()
    s.reduce_sum(x[key] * w, None).backward()
    expected = fd_gradient(lambda a: np.sum(a[key] * w), np.sin(A))
    np.testing.assert_allclose(x.grad().to_numpy(), expected, atol=1e-8)


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("key", [(1, slice(0, 2)), ([0, 2, 0], 3), (np.array([[True, False, True, False]] * 3),)])
def test_at_gradients_in_x_and_values_equal_finite_differences(key, method):
    a = np.sin(np.arange(12.0)).reshape(3, 4) * 3.0
    v0 = np.cos(np.arange(a[key].size, dtype=np.float64)).reshape(a[key].shape) * 2.0
    w = _weights(a.shape)

    def numpy_form(a, v):
        out = a.copy()
        if method == "set":
            out[key] = v
        else:
            {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[method].at(out, key, v)
        return np.sum(out * w)

    rt = EagerRuntime(engine=CpuEngine.serial())
    x, v = rt.variable_from(a), rt.variable_from(v0)
    out = getattr(x.at[key], method)(v)
    rt.current_session().reduce_sum(out * w, None).backward()
    np.testing.assert_allclose(x.grad().to_numpy(), fd_gradient(lambda a_: numpy_form(a_, v0), a), atol=1e-7)
    np.testing.assert_allclose(v.grad().to_numpy(), fd_gradient(lambda v_: numpy_form(a, v_), v0), atol=1e-7)


@needs_torch
def test_at_add_and_set_with_repeated_indices_equal_torch_index_put():
    a = np.sin(np.arange(12.0)).reshape(3, 4)
    rows, cols = np.array([0, 2, 0, 1]), np.array([1, 3, 1, 0])
    v0 = np.array([1.0, 2.0, 3.0, 4.0])
    w = _weights(a.shape)
    for method, accumulate in (("add", True), ("set", False)):
        x, v = tf.variable(a), tf.variable(v0)
        out = getattr(x.at[rows, cols], method)(v)
        tf.default_runtime().current_session().reduce_sum(out * w, None).backward()
        tx = torch.tensor(a, requires_grad=True)
        tv = torch.tensor(v0, requires_grad=True)
        tout = tx.index_put((torch.tensor(rows), torch.tensor(cols)), tv, accumulate=accumulate)
        (tout * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(np.asarray(out), tout.detach().numpy())
        np.testing.assert_allclose(x.grad().to_numpy(), tx.grad.numpy())
        if accumulate:  # torch's index_put without accumulate leaves the gradient of a repeat undefined
            np.testing.assert_allclose(v.grad().to_numpy(), tv.grad.numpy())
        else:  # the last of a repeated position wins and alone gets the gradient
            np.testing.assert_array_equal(v.grad().to_numpy(), [0.0, w[2, 3], w[0, 1], w[1, 0]])


def test_set_keeps_the_last_of_repeated_positions_and_add_accumulates():
    x = tf.constant(np.zeros(3))
    np.testing.assert_array_equal(np.asarray(x.at[[0, 0, 2]].set([1.0, 2.0, 3.0])), [2.0, 0.0, 3.0])
    np.testing.assert_array_equal(np.asarray(x.at[[0, 0, 2]].add([1.0, 2.0, 3.0])), [3.0, 0.0, 3.0])


def test_indexing_forms_equal_session_forms_bitwise():
    rt = EagerRuntime(engine=CpuEngine.serial())
    a = np.sin(A)
    w = rt.constant_from(_weights((2, 2, 5)))
    rows, cols = np.array([0, 1]), np.array([2, 0])

    def front_end(x):
        return x[:, rows, cols], x.at[1, rows].add(x[0, cols])

    def session_form(s, x):
        sliced = s.gather(x, rt.constant_from(np.stack([rows, cols], -1)), 1)
        coordinates = np.stack(np.broadcast_arrays(1, rows[:, None, None], np.arange(4)[:, None], np.arange(5)), -1)
        updates = s.take(s.slice(x, 0), rt.constant_from(cols), 0)
        added = s.scatter(x, rt.constant_from(coordinates), updates, 0, "add")
        return sliced, added

    results = []
    for form in ("front end", "session"):
        x = rt.variable_from(a)
        with rt.eager_session() as s:
            picked, updated = front_end(x) if form == "front end" else session_form(s, x)
            loss = s.add(s.reduce_sum(s.mul(picked, w), None), s.reduce_sum(s.mul(updated, updated), None))
        loss.backward()
        results.append((np.asarray(picked), np.asarray(updated), x.grad().to_numpy()))
    for mine, theirs in zip(*results):
        np.testing.assert_array_equal(mine, theirs)


def test_basic_keys_are_one_slice_op_and_arrays_one_gather():
    x = tf.variable(A)

    def ops(y):
        return [line.split()[2].split("[")[0] for line in str(y.trace()).splitlines() if " = " in line]

    assert ops(x[1, ::2]) == ["slice"]
    assert ops(x[:, [0, 1], [1, 2]]) == ["gather"]
    assert ops(x[[0, 1]]) == ["take"]
    assert ops(x[A > 3]) == ["boolean_mask"]
    assert ops(x[0, :, [1, 2]]) == ["moveaxis", "gather"]
    assert ops(x.at[:, [0, 1]].add(1.0)) == ["scatter"]


def test_iteration_records_each_item_like_indexing():
    x = tf.variable(np.arange(6.0).reshape(3, 2))
    items = list(x)
    assert len(items) == 3 and all(item.tracks_grad() for item in items)
    np.testing.assert_array_equal(np.asarray(items[2]), [4.0, 5.0])
    with pytest.raises(ArgumentError, match="0-d"):
        iter(tf.constant(1.0))


# -- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key, match",
    [
        ((0, 0, 0, 0, 0), r"x\[0, 0, 0, 0, 0\] of a tensor of shape \[2, 3, 4, 5\]: the key indexes 5 axes"),
        (2, "index 2 is out of range for axis 0 of size 2"),
        ((slice(None), -4), "index -4 is out of range for axis 1 of size 3"),
        ([0, 5], "an index array holds 5, out of range for axis 0 of size 2"),
        ((slice(None), slice(None), np.array([1, -9])), "holds -9, out of range for axis 2 of size 4"),
        (1.5, "1.5 is not a valid index"),
        ([1.0], "not an integer or boolean array"),
        (np.array([0.0]), "has dtype float64"),
        ("a", "'a' is not a valid index"),
        ((Ellipsis, Ellipsis), "only one ellipsis"),
        (slice(0.5, 2), "slice bounds and steps must be integers"),
        (slice(None, None, 0), "step cannot be zero"),
        (np.ones(3, bool), r"boolean mask of shape \[3\] must equal the shape \[2\]"),
        (([0, 1], [0, 1, 2]), r"do not broadcast together \(shapes \(2,\) \(3,\)\)"),
    ],
)
def test_bad_keys_are_index_errors_that_name_the_key_and_the_shape(key, match):
    x = tf.constant(A)
    with pytest.raises(AxisError, match=match) as info:
        x[key]
    assert isinstance(info.value, IndexError) and isinstance(info.value, TenferroError)


def test_setitem_is_refused_and_shows_the_at_form():
    x = tf.variable(np.zeros(3))
    with pytest.raises(ArgumentError, match=r"immutable.*x = x\.at\[key\]\.set\(v\)"):
        x[0] = 1.0


def test_at_errors():
    x = tf.constant(np.zeros((2, 3)))
    with pytest.raises(ShapeMismatch, match=r"values of shape \[2\] do not broadcast to the shape \[3\]"):
        x.at[0].set(np.ones(2))
    with pytest.raises(AxisError, match=r"x\.at\[5\]"):
        x.at[5].add(1.0)
    with pytest.raises(ArgumentError, match="mode='clip' is not supported"):
        x.at[0].set(1.0, mode="clip")
    with pytest.raises(ArgumentError, match="no argument 'wrap'"):
        x.at[0].set(1.0, wrap=True)
    assert np.asarray(x.at[0].set(1.0, indices_are_sorted=True, unique_indices=True))[0, 0] == 1.0
    np.testing.assert_array_equal(np.asarray(x.at[:, 1].get()), [0.0, 0.0])


# -- attributes ----------------------------------------------------------------------------------
def test_size_transposes_device_and_namespace():
    x = tf.variable(A)
    assert x.size == 120 and tf.constant(np.zeros((0, 3))).size == 0 and tf.constant(1.0).size == 1
    assert x.T.shape == (5, 4, 3, 2) and x.mT.shape == (2, 3, 5, 4)  # T reverses all axes (NumPy's)
    np.testing.assert_array_equal(np.asarray(x.mT), np.swapaxes(A, -1, -2))
    assert x.T.tracks_grad() and x.mT.tracks_grad()
    with pytest.raises(ShapeMismatch, match="at least 2 dims"):
        _ = tf.constant(np.zeros(3)).mT
    assert x.device == "cpu" and x.to_device("cpu") is x
    with pytest.raises(ArgumentError, match="one device, 'cpu'"):
        x.to_device("cuda")
    assert x.__array_namespace__() is tnp and x.__array_namespace__(api_version="2023.12") is tnp
    with pytest.raises(ArgumentError, match="2024.12"):
        x.__array_namespace__(api_version="2019.01")


def test_real_and_imag_record():
    z = tf.variable(np.array([1.0 + 2.0j, -3.0 + 0.5j]))
    s = tf.default_runtime().current_session()
    s.reduce_sum(s.add(s.mul(z.real, 2.0), s.mul(z.imag, 3.0)), None).backward()
    np.testing.assert_array_equal(z.grad().to_numpy(), [2.0 + 3.0j, 2.0 + 3.0j])
    np.testing.assert_array_equal(np.asarray(tf.constant(np.ones(2)).imag), [0.0, 0.0])


def test_item_and_tolist_read_the_value():
    x = tf.variable(np.arange(6.0).reshape(2, 3))
    assert x[1, 2].item() == 5.0 and type(x[1, 2].item()) is float
    assert x.item(4) == 4.0 and x.item((0, 1)) == 1.0
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(ShapeMismatch, match="one element"):
        x.item()
    with pytest.raises(AxisError):
        x.item(6)


def test_dlpack_exports_the_value_read_only():
    x = tf.variable(np.arange(3.0))
    out = np.from_dlpack(x)
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    assert not out.flags.writeable  # the value cannot be changed through the export
    assert x.__dlpack_device__() == (1, 0)
    capsule = x.__dlpack__()  # a consumer without DLPack 1.0 gets a copy
    assert capsule is not None
    with pytest.raises(BufferError, match="copy"):
        x.__dlpack__(copy=False)


@needs_torch
def test_dlpack_to_torch():
    x = tf.variable(np.arange(3.0))
    np.testing.assert_array_equal(torch.from_dlpack(x).numpy(), [0.0, 1.0, 2.0])


# -- methods -------------------------------------------------------------------------------------
def _have(*names):
    missing = [name for name in names if not hasattr(tnp, name)]
    return pytest.mark.skipif(bool(missing), reason=f"tenferro.numpy has no {', '.join(missing)} yet")


@_have("sum", "mean", "prod", "max", "min", "std", "var")
@pytest.mark.parametrize("method", ["sum", "mean", "prod", "max", "min", "std", "var"])
def test_reduction_methods_take_numpy_arguments(method):
    a = np.sin(A)
    x = tf.variable(a)
    for args, kwargs in [((), {}), ((1,), {}), ((), {"axis": (0, 2), "keepdims": True}), ((-1, None, None, True), {})]:
        if method in ("max", "min") and len(args) == 4:
            args = (-1, None, True)
        if method in ("std", "var") and len(args) == 4:
            args = (-1, None, None, 0, True)
        np.testing.assert_allclose(np.asarray(getattr(x, method)(*args, **kwargs)), getattr(a, method)(*args, **kwargs))
    if method in ("std", "var"):
        np.testing.assert_allclose(np.asarray(getattr(x, method)(ddof=1)), getattr(a, method)(ddof=1))
    with pytest.raises(ArgumentError, match="immutable"):
        getattr(x, method)(out=np.zeros(()))


@_have("sum")
def test_a_method_equals_the_function_bitwise():
    a = np.sin(A)
    grads = []
    for form in ("method", "function"):
        x = tf.variable(a)
        loss = x.sum(axis=1).sum() if form == "method" else tnp.sum(tnp.sum(x, axis=1))
        loss.backward()
        grads.append((np.asarray(loss), x.grad().to_numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


@_have("any", "all", "argmax", "argmin", "cumsum", "cumprod")
def test_searching_and_cumulative_methods():
    a = np.sin(A)
    x = tf.constant(a)
    for method in ("any", "all", "argmax", "argmin", "cumsum", "cumprod"):
        for args in ((), (1,)):
            np.testing.assert_allclose(np.asarray(getattr(x, method)(*args)), getattr(a, method)(*args))


@_have("reshape", "permute_dims", "squeeze")
def test_shape_methods():
    x = tf.variable(A)
    assert x.reshape(6, 20).shape == (6, 20) and x.reshape((4, -1)).shape == (4, 30)
    assert x.transpose().shape == (5, 4, 3, 2) and x.transpose(1, 0, 3, 2).shape == (3, 2, 5, 4)
    assert x.transpose((3, 2, 1, 0)).shape == (5, 4, 3, 2)
    assert x.flatten().shape == (120,) and x.ravel().shape == (120,)
    assert tf.constant(np.zeros((1, 3, 1))).squeeze().shape == (3,)
    assert tf.constant(np.zeros((1, 3, 1))).squeeze(0).shape == (3, 1)
    np.testing.assert_array_equal(np.asarray(x.swapaxes(0, 2)), A.swapaxes(0, 2))
    np.testing.assert_array_equal(np.asarray(x.swapaxes(-1, 1)), A.swapaxes(-1, 1))
    with pytest.raises(AxisError, match="axis2=4"):
        x.swapaxes(0, 4)
    with pytest.raises(ArgumentError, match="C-ordered"):
        x.reshape(120, order="F")


@_have("astype", "clip", "round", "conj")
def test_elementwise_methods():
    a = np.linspace(-2.0, 2.0, 7)
    x = tf.constant(a)
    assert x.astype(np.float32).dtype == np.float32 and x.astype("int64").dtype == np.int64
    np.testing.assert_array_equal(np.asarray(x.clip(-1.0, 1.0)), a.clip(-1.0, 1.0))
    np.testing.assert_array_equal(np.asarray(x.clip(max=0.5)), a.clip(max=0.5))
    np.testing.assert_array_equal(np.asarray(x.round()), a.round())
    b = np.array([1.2345, -2.5551, 1250.0, 0.125])
    for decimals in (1, 2, -2):
        np.testing.assert_array_equal(np.asarray(tf.constant(b).round(decimals)), b.round(decimals))
    assert tf.constant(np.sin(A)).mean(dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(tf.constant(a * 1j).conj()), (a * 1j).conj())


@_have("dot")
def test_dot_method():
    a, b = np.sin(A[0]), np.cos(A[0, 0].T)
    np.testing.assert_allclose(np.asarray(tf.constant(a).dot(b)), a.dot(b))


def test_methods_reject_unknown_and_repeated_arguments():
    x = tf.constant(A)
    with pytest.raises(ArgumentError, match=r"x.sum\(\) has no argument 'initial'"):
        x.sum(initial=0.0)
    with pytest.raises(ArgumentError, match="twice"):
        x.sum(0, axis=0)
    with pytest.raises(ArgumentError, match="at most 4 arguments"):
        x.sum(0, None, None, False, 1)


def test_indexing_a_tensor_outside_a_session_uses_the_callers_session():
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(A)
    with rt.eager_session() as s:
        y = x[:, [0, 1]]
        assert s.reduce_sum(y, None).tracks_grad()
    rt.current_session().reduce_sum(y, None).backward()
    expected = np.zeros_like(A)
    expected[:, [0, 1]] = 1.0
    np.testing.assert_array_equal(x.grad().to_numpy(), expected)


def test_the_docs_example_runs_and_its_gradient_is_right():
    scope = run_docs_example("## The array object")
    a = np.arange(12.0).reshape(3, 4)
    y = a.copy()
    np.add.at(y, (np.array([0, 2, 2]), 0), 10.0)
    expected = fd_gradient(
        lambda b: np.sum(b[[0, 2, 2], 1:3] ** 2) + np.sum(b[a > 6.0]) + np.mean(_added(b) ** 2), a, h=1e-4
    )
    np.testing.assert_array_equal(np.asarray(scope["y"]), y)
    np.testing.assert_allclose(scope["x"].grad().to_numpy(), expected, rtol=1e-7)


def _added(b):
    out = b.copy()
    np.add.at(out, (np.array([0, 2, 2]), 0), 10.0)
    return out


def test_slice_bounds_may_be_0d_integer_tensors():
    """x[a:b] with tenferro integers as bounds, as the array API's tests write them."""
    x = tf.variable(np.arange(6.0))
    start, stop = tnp.asarray(1), tnp.asarray(4)
    out = x[start:stop]
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])
    assert out.tracks_grad()


def test_format_of_a_one_element_tensor_uses_the_spec_and_a_larger_one_refuses_a_spec():
    x = tf.variable(np.array([[0.123456, 2.5], [3.0, -1.0]]))
    loss = x.sum()
    assert f"{loss:.4f}" == "4.6235" and f"{x[0, :1]:.2e}" == "1.23e-01"
    assert f"{x}" == str(x) and format(loss) == str(loss)
    with pytest.raises(ArgumentError, match=r"format\(x, '.3f'\) of a tensor of shape \[2, 2\]"):
        f"{x:.3f}"


def test_python_round_is_the_round_method_and_records():
    x = tf.variable(np.array([0.123456, 2.5, -1.55]))
    for got, want in [(round(x, 2), x.round(2)), (round(x), x.round()), (round(x, -1), x.round(-1))]:
        assert type(got) is tf.EagerTensor and got.tracks_grad()
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(round(x, 2)), np.round(np.asarray(x), 2))
    with pytest.raises(ArgumentError, match=r"round\(x, ...\)\(decimals=1.5\)"):
        round(x, 1.5)


def test_python_divmod_is_numpys_divmod_in_both_orders():
    x = tf.variable(np.array([0.7, -2.5, 3.0]))
    for got, want in [(divmod(x, 0.3), np.divmod(x, 0.3)), (divmod(2.0, x), np.divmod(2.0, x))]:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    q, r = divmod(x, 0.3)
    assert r.tracks_grad()
    np.testing.assert_array_equal(np.asarray(tf.default_runtime().grad(r.sum(), x)), np.ones(3))


def test_copy_method_records_an_identity_for_every_dtype():
    x = tf.variable(np.array([1.0, -2.0]))
    y = x.copy()
    assert y is not x and y.tracks_grad() and "astype" in str(y.trace())
    np.testing.assert_array_equal(np.asarray(tf.default_runtime().grad((y * y).sum(), x)), [2.0, -4.0])
    mask = tnp.asarray([True, False])
    assert mask.copy().dtype == mask.dtype and np.asarray(mask.copy()).tolist() == [True, False]
    with pytest.raises(ArgumentError, match="order"):
        x.copy(order="F")


def test_argsort_method_takes_numpys_arguments():
    a = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]])
    x = tf.variable(a)
    np.testing.assert_array_equal(np.asarray(x.argsort()), np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(np.asarray(x.argsort(0, kind="quicksort")), np.argsort(a, 0, kind="stable"))
    np.testing.assert_array_equal(np.asarray(x.argsort(axis=None)), np.argsort(a, axis=None, kind="stable"))
    with pytest.raises(ArgumentError, match="order"):
        x.argsort(order="f")


def test_repeat_method_is_tnp_repeat_and_records():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = tf.variable(a)
    for got, want in [(x.repeat(2), a.repeat(2)), (x.repeat([1, 2], axis=0), a.repeat([1, 2], axis=0))]:
        np.testing.assert_array_equal(np.asarray(got), want)
    assert x.repeat(2, axis=1).tracks_grad()
    np.testing.assert_array_equal(np.asarray(tf.default_runtime().grad(x.repeat(3).sum(), x)), np.full((2, 2), 3.0))


BASIC_AT_KEYS = [(slice(None),), (0, 0), (None, Ellipsis, slice(None, None, -2)), (slice(1, 3), None, 2), (-1,)]


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("key", BASIC_AT_KEYS, ids=lambda k: repr(k)[:30])
def test_basic_at_updates_take_the_cheap_paths_with_numpys_values_and_right_gradients(key, method):
    """Basic keys skip the coordinates of all of x: a small region scatters at its own
    coordinates, a large one is slice_scatter and elementwise ops. Both keep the values and
    the gradients (in x and in broadcast values) of the general path."""
    a = np.sin(np.arange(24.0)).reshape(4, 6) * 3.0
    region = a[key].shape
    v0 = np.cos(np.arange(math.prod(region[-1:]), dtype=np.float64)).reshape(region[-1:]) * 2.0  # broadcast
    w = _weights(a.shape)
    ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}.get(method)

    def numpy_form(a, v):
        out = a.copy()
        if ufunc is None:
            out[key] = v
        else:
            out[key] = ufunc(out[key], v)
        return out

    rt = EagerRuntime(engine=CpuEngine.serial())
    x, v = rt.variable_from(a), rt.variable_from(v0)
    out = getattr(x.at[key], method)(v)
    np.testing.assert_array_equal(np.asarray(out), numpy_form(a, v0))
    rt.current_session().reduce_sum(out * w, None).backward()
    gx = fd_gradient(lambda a_: np.sum(numpy_form(a_, v0) * w), a)
    gv = fd_gradient(lambda v_: np.sum(numpy_form(a, v_) * w), v0)
    np.testing.assert_allclose(x.grad().to_numpy(), gx, atol=1e-7)
    np.testing.assert_allclose(v.grad().to_numpy(), gv, atol=1e-7)
    ops = [line.split()[2].split("[")[0] for line in str(out.trace()).splitlines() if " = " in line]
    small = math.prod(region) * 8 <= a.size
    assert ("scatter" in ops, "slice_scatter" in ops) == (small, not small)


def test_basic_at_update_of_an_integer_array_with_a_value_out_of_its_range_is_refused():
    with pytest.raises(ArgumentError, match=r"x.at\[:\].set: the value 1000 does not fit in x's dtype int8"):
        tnp.zeros(20, dtype=tnp.int8).at[:].set(1000)
    np.testing.assert_array_equal(np.asarray(tnp.zeros(3, dtype=tnp.uint8).at[1:].add(255)), [0, 255, 255])
