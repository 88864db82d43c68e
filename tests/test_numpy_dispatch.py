"""NumPy's own functions on EagerTensors (``__array_ufunc__``/``__array_function__``): they
run the ``tenferro.numpy`` function and record, with values and gradients bitwise equal to
the tnp form; ``ndarray op EagerTensor`` records in both orders; calls with no equivalent
raise an ArgumentError naming the call and the ``np.asarray`` exit."""

import pathlib

import numpy as np
import pytest
from conftest import run_docs_example

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, TenferroError

X = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
A = np.array([[1.5, 0.25, -2.0], [3.0, -0.5, 1.0]])

#: (name, NumPy call, the tenferro.numpy form it must equal), each of (x, a).
RECORDED = [
    ("sin", lambda x, a: np.sin(x), lambda x, a: tnp.sin(x)),
    ("sin * sum", lambda x, a: np.sin(x) * np.sum(x), lambda x, a: tnp.sin(x) * tnp.sum(x)),
    ("multiply", lambda x, a: np.multiply(a, x), lambda x, a: tnp.multiply(a, x)),
    ("arccos", lambda x, a: np.arccos(x / 3), lambda x, a: tnp.acos(x / 3)),
    ("power", lambda x, a: np.power(x, 3), lambda x, a: tnp.pow(x, 3)),
    ("absolute", lambda x, a: np.absolute(x), lambda x, a: tnp.abs(x)),
    ("true_divide", lambda x, a: np.true_divide(a, x), lambda x, a: tnp.divide(a, x)),
    ("conjugate", lambda x, a: np.conjugate(x), lambda x, a: tnp.conj(x)),
    ("arctan2", lambda x, a: np.arctan2(x, a), lambda x, a: tnp.atan2(x, a)),
    ("maximum", lambda x, a: np.maximum(x, a), lambda x, a: tnp.maximum(x, a)),
    ("exp where=True", lambda x, a: np.exp(x, where=True), lambda x, a: tnp.exp(x)),
    ("matmul", lambda x, a: np.matmul(a, np.transpose(x)), lambda x, a: tnp.matmul(a, tnp.permute_dims(x, (1, 0)))),
    ("add.reduce", lambda x, a: np.add.reduce(x), lambda x, a: tnp.sum(x, axis=0)),
    (
        "add.reduce None",
        lambda x, a: np.add.reduce(x, axis=None, keepdims=True),
        lambda x, a: tnp.sum(x, keepdims=True),
    ),
    ("maximum.reduce", lambda x, a: np.maximum.reduce(x, axis=1), lambda x, a: tnp.max(x, axis=1)),
    ("multiply.accumulate", lambda x, a: np.multiply.accumulate(x, 1), lambda x, a: tnp.cumulative_prod(x, axis=1)),
    ("add.outer", lambda x, a: np.add.outer(x, a[0]), lambda x, a: tnp.reshape(x, (2, 3, 1)) + a[0]),
    ("divmod", lambda x, a: np.divmod(x, 0.3), lambda x, a: (tnp.floor_divide(x, 0.3), tnp.remainder(x, 0.3))),
    ("sum axis", lambda x, a: np.sum(x, axis=0), lambda x, a: tnp.sum(x, axis=0)),
    ("sum keepdims", lambda x, a: np.sum(x, 1, keepdims=True), lambda x, a: tnp.sum(x, axis=1, keepdims=True)),
    ("mean dtype", lambda x, a: np.mean(x, dtype=np.float32), lambda x, a: tnp.mean(tnp.astype(x, tnp.float32))),
    ("std ddof", lambda x, a: np.std(x, axis=0, ddof=1), lambda x, a: tnp.std(x, axis=0, correction=1)),
    ("amax", lambda x, a: np.amax(x, axis=-1), lambda x, a: tnp.max(x, axis=-1)),
    ("clip", lambda x, a: np.clip(x, 0.0, 1.0), lambda x, a: tnp.clip(x, min=0.0, max=1.0)),
    ("clip a_max", lambda x, a: np.clip(x, a_min=None, a_max=a), lambda x, a: tnp.clip(x, max=a)),
    ("concatenate", lambda x, a: np.concatenate([x, a], axis=1), lambda x, a: tnp.concat([x, a], axis=1)),
    ("stack", lambda x, a: np.stack([a, x]), lambda x, a: tnp.stack([a, x])),
    ("transpose", lambda x, a: np.transpose(x), lambda x, a: tnp.permute_dims(x, (1, 0))),
    (
        "transpose axes",
        lambda x, a: np.transpose(x[None], (2, 0, 1)),
        lambda x, a: tnp.permute_dims(x[None], (2, 0, 1)),
    ),
    ("swapaxes", lambda x, a: np.swapaxes(x, 0, -1), lambda x, a: tnp.permute_dims(x, (1, 0))),
    ("reshape", lambda x, a: np.reshape(x, (3, 2)), lambda x, a: tnp.reshape(x, (3, 2))),
    ("ravel", lambda x, a: np.ravel(x), lambda x, a: tnp.reshape(x, (-1,))),
    ("squeeze", lambda x, a: np.squeeze(x[None]), lambda x, a: tnp.squeeze(x[None], axis=(0,))),
    ("where", lambda x, a: np.where(a > 0, x, 0.0), lambda x, a: tnp.where(a > 0, x, 0.0)),
    ("mean where=True", lambda x, a: np.mean(x, axis=0, where=True), lambda x, a: tnp.mean(x, axis=0)),
    ("cumsum flat", lambda x, a: np.cumsum(x), lambda x, a: tnp.cumulative_sum(tnp.reshape(x, (-1,)), axis=0)),
    ("cumsum axis", lambda x, a: np.cumsum(x, axis=1), lambda x, a: tnp.cumulative_sum(x, axis=1)),
    ("einsum", lambda x, a: np.einsum("ij,ij->i", x, a, optimize=True), lambda x, a: tnp.einsum("ij,ij->i", x, a)),
    ("dot", lambda x, a: np.dot(x, a.T), lambda x, a: tnp.dot(x, a.T)),
    ("tensordot", lambda x, a: np.tensordot(x, a, axes=2), lambda x, a: tnp.tensordot(x, a, axes=2)),
    ("trace", lambda x, a: np.trace(x[:, :2]), lambda x, a: tnp.linalg.trace(x[:, :2])),
    ("round", lambda x, a: np.round(x * 3), lambda x, a: tnp.round(x * 3)),
    ("sort", lambda x, a: np.sort(x, kind="stable"), lambda x, a: tnp.sort(x)),
    ("copy", lambda x, a: np.copy(x), lambda x, a: x.copy()),
    ("round decimals", lambda x, a: np.round(x, 2), lambda x, a: x.round(2)),
    ("around decimals", lambda x, a: np.around(x, -1), lambda x, a: x.round(-1)),
    (
        "concatenate dtype",
        lambda x, a: np.concatenate([x, a], dtype=np.float32),
        lambda x, a: tnp.concat([tnp.astype(x, tnp.float32), tnp.astype(tnp.asarray(a), tnp.float32)]),
    ),
    (
        "stack dtype",
        lambda x, a: np.stack((a, x), dtype=np.float32),
        lambda x, a: tnp.stack([tnp.astype(tnp.asarray(a), tnp.float32), tnp.astype(x, tnp.float32)]),
    ),
    (
        "einsum dtype",
        lambda x, a: np.einsum("ij,ij->i", x, a, dtype=np.float32, casting="same_kind"),
        lambda x, a: tnp.einsum("ij,ij->i", tnp.astype(x, tnp.float32), tnp.astype(tnp.asarray(a), tnp.float32)),
    ),
    ("sort axis None", lambda x, a: np.sort(x, axis=None), lambda x, a: tnp.sort(tnp.reshape(x, (-1,)))),
    (
        "argsort axis None",
        lambda x, a: (np.argsort(x, axis=None), x),
        lambda x, a: (tnp.argsort(tnp.reshape(x, (-1,))), x),
    ),
    ("vecdot axis", lambda x, a: np.vecdot(x, a, axis=0), lambda x, a: tnp.vecdot(x, a, axis=0)),
    (
        "vecdot axis ranks",
        lambda x, a: np.vecdot(x[:, None], a[:, 0], axis=0),
        lambda x, a: tnp.vecdot(tnp.moveaxis(x[:, None], 0, -1), a[:, 0]),
    ),
    ("linalg.norm", lambda x, a: np.linalg.norm(x), lambda x, a: tnp.linalg.norm(x)),
    ("linalg.solve", lambda x, a: np.linalg.solve(a[:, :2], x), lambda x, a: tnp.linalg.solve(a[:, :2], x)),
    ("linalg.svd values", lambda x, a: np.linalg.svd(x, compute_uv=False), lambda x, a: tnp.linalg.svdvals(x)),
    ("fft.fft", lambda x, a: np.abs(np.fft.fft(x)), lambda x, a: tnp.abs(tnp.fft.fft(x))),
]


def _parts(out):
    return list(out) if isinstance(out, tuple) else [out]


def _grad(out, x):
    """The gradient of the sum of every float part of ``out`` with respect to x."""
    total = sum(tnp.sum(part) for part in _parts(out) if part.tracks_grad())
    return np.asarray(tf.default_runtime().grad(total, x))


@pytest.mark.parametrize("name, by_numpy, by_tnp", RECORDED, ids=[case[0] for case in RECORDED])
def test_numpy_calls_record_and_equal_the_tnp_form_bitwise(name, by_numpy, by_tnp):
    x = tf.variable(X)
    got, want = by_numpy(x, A), by_tnp(x, A)
    assert type(got) is type(want)
    for g, w in zip(_parts(got), _parts(want)):
        assert type(g) is tf.EagerTensor and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        assert g.tracks_grad() == w.tracks_grad()
    assert any(part.tracks_grad() for part in _parts(got))
    np.testing.assert_array_equal(_grad(got, x), _grad(want, x))


BINARY = [
    ("+", np.add, tnp.add),
    ("-", np.subtract, tnp.subtract),
    ("*", np.multiply, tnp.multiply),
    ("/", np.divide, tnp.divide),
    ("**", np.power, tnp.pow),
    ("//", np.floor_divide, tnp.floor_divide),
    ("%", np.remainder, tnp.remainder),
    ("<", np.less, tnp.less),
    ("==", np.equal, tnp.equal),
]


@pytest.mark.parametrize("symbol, _, function", BINARY, ids=[case[0] for case in BINARY])
def test_ndarray_operator_eager_tensor_records_in_both_orders(symbol, _, function):
    x, a = tf.variable(np.abs(X) + 0.5), np.abs(A) + 0.25
    for got, want in [
        (eval(f"a {symbol} x"), function(a, x)),  # ndarray's operator calls the ufunc: dispatched
        (eval(f"x {symbol} a"), function(x, a)),  # EagerTensor's operator
    ]:
        assert type(got) is tf.EagerTensor and got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert got.tracks_grad() == want.tracks_grad() == (want.dtype.kind == "f")
        if got.tracks_grad():
            np.testing.assert_array_equal(_grad(got, x), _grad(want, x))


def test_matmul_and_numpy_scalars_in_both_orders():
    x = tf.variable(X)
    for got, want in [(A.T @ x, tnp.matmul(A.T, x)), (np.float64(2.0) * x, tnp.multiply(2.0, x))]:
        assert got.tracks_grad()
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        np.testing.assert_array_equal(_grad(got, x), _grad(want, x))


def test_numpy_calls_inside_a_session_record_on_it():
    rt = tf.EagerRuntime(engine=tf.CpuEngine.serial())
    x = rt.variable_from(X)
    with rt.eager_session():
        y = np.sum(np.sin(x) * A)
    assert "sin" in str(y.trace()) and y.tracks_grad()


REFUSED = [
    ("np.real_if_close", lambda x: np.real_if_close(x), ["np.real_if_close", "np.asarray(x)", "gradient"]),
    ("np.i0", lambda x: np.i0(x), ["np.i0(np.asarray(x))"]),
    ("np.fix", lambda x: np.fix(x), ["np.fix", "np.asarray(x)"]),
    ("out=", lambda x: np.sin(x, out=np.empty(X.shape)), ["np.sin", "out=", "immutable"]),
    ("a += x", lambda x: np.add(A.copy(), x, out=A.copy()), ["np.add", "out=", "a = a + x"]),
    ("where=", lambda x: np.sin(x, where=A > 0), ["np.sin", "where=", "tnp.where"]),
    ("dtype=", lambda x: np.add(x, 1, dtype=np.float32), ["np.add", "dtype=", "tnp.astype"]),
    ("reduce", lambda x: np.subtract.reduce(x), ["np.subtract.reduce", "np.add.reduce (tnp.sum)"]),
    ("reduce out", lambda x: np.add.reduce(x, out=np.empty(3)), ["np.add.reduce", "out="]),
    ("reduceat", lambda x: np.add.reduceat(x, [0, 1]), ["np.add.reduceat", "np.asarray(x)"]),
    ("at", lambda x: np.add.at(x, [0], 1.0), ["np.add.at", "immutable", "x.at[indices].add"]),
    ("sum initial", lambda x: np.sum(x, initial=1.0), ["np.sum", "initial", "tnp.sum"]),
    ("sum out", lambda x: np.sum(x, out=np.empty(())), ["np.sum", "out="]),
    ("round decimals float", lambda x: np.round(x, 1.5), ["np.round", "decimals=1.5", "int"]),
    ("unique counts", lambda x: np.unique(x, return_counts=True), ["np.unique", "tnp.unique_counts"]),
    ("svd hermitian", lambda x: np.linalg.svd(x, hermitian=True), ["np.linalg.svd", "hermitian"]),
]


@pytest.mark.parametrize("name, call, words", REFUSED, ids=[case[0] for case in REFUSED])
def test_numpy_calls_without_an_equivalent_are_refused_naming_the_call_and_the_exit(name, call, words):
    with pytest.raises(ArgumentError) as info:
        call(tf.variable(X))
    assert isinstance(info.value, (TenferroError, TypeError))
    for word in words:
        assert word in str(info.value)


def test_np_asarray_is_the_explicit_exit():
    x = tf.variable(X)
    for exit in (np.asarray(x), np.array(x), np.asarray(np.sin(x))):
        assert type(exit) is np.ndarray
    np.testing.assert_array_equal(np.asarray(x), X)
    assert type(np.median(np.asarray(x))) is np.float64  # the exit's value is NumPy's to compute with
    np.testing.assert_array_equal(np.asarray(np.sin(x)), np.sin(X))


def test_functions_that_only_inspect_just_work():
    x = tf.variable(X)
    assert np.shape(x) == (2, 3) and np.ndim(x) == 2 and np.size(x) == 6
    assert np.result_type(x, np.float32) == np.float64 and np.can_cast(x, np.float32) is False
    assert np.iscomplexobj(x) is False and np.isrealobj(x) is True
    assert np.allclose(x, X) and np.array_equal(x, X)
    np.testing.assert_allclose(x, X)


def test_another_array_librarys_type_is_left_to_answer():
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other's ufunc"

        def __array_function__(self, func, types, args, kwargs):
            return "other's function"

    x = tf.variable(X)
    assert np.add(x, Other()) == "other's ufunc"
    assert np.concatenate([x, Other()]) == "other's function"


def test_the_docs_example_runs_and_its_gradient_is_right(capsys):
    scope = run_docs_example("## NumPy's own functions")
    x, a = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(scope["x"].grad().to_numpy(), np.cos(x) * a + x / np.linalg.norm(x), rtol=1e-15)
    assert type(scope["y"]) is np.ndarray


#: Calls with a Python list holding tracked arrays, with x = [1, 2], and the gradient of
#: the sum of their result with respect to x (NumPy semantics: the list is an array).
LISTS_OF_TRACKED = [
    ("operator", lambda x: x * [x[0], 1.0], [2.0, 1.0]),
    ("reflected", lambda x: [x[0], 1.0] * x, [2.0, 1.0]),
    ("matmul", lambda x: tnp.matmul([x[0], x[1]], x), [2.0, 4.0]),
    ("concat", lambda x: tnp.concat([x, [x[0]]]), [2.0, 1.0]),
    ("at_set", lambda x: x.at[:].set([x[1], x[0]]) * [1.0, 3.0], [3.0, 1.0]),
    ("clip", lambda x: tnp.clip(x, [x[1], x[1]]), [0.0, 2.0]),
    ("sum", lambda x: tnp.sum([x[0], x[1]]), [1.0, 1.0]),
    ("nested", lambda x: tnp.sum(tnp.asarray([[x[0], 2], [3.0, x[1] * x[1]]])), [1.0, 4.0]),
    ("softmax", lambda x: tf.nn.softmax([x[0], x[1]]) * [1.0, 0.0], [0.19661193, -0.19661193]),
    ("einsum", lambda x: tnp.einsum("i,i->", [x[0], x[1]], x), [2.0, 4.0]),
    ("tensordot", lambda x: tnp.tensordot([x[0], 1.0], x, axes=1), [2.0, 1.0]),
]


@pytest.mark.parametrize("name, f, expected", LISTS_OF_TRACKED, ids=[case[0] for case in LISTS_OF_TRACKED])
def test_a_list_holding_tracked_arrays_records_and_is_never_a_silent_constant(name, f, expected):
    x = tf.variable(np.array([1.0, 2.0]))
    out = f(x)
    assert out.tracks_grad()
    np.testing.assert_allclose(_grad(out, x), expected, rtol=1e-7)


def test_a_list_of_arrays_stacks_with_numpys_dtype_promotion():
    x = tf.variable(np.array([1.0, 2.0], np.float32))
    assert (x * [x[0], 1.0]).dtype == np.array([np.float32(1), 1.0]).dtype  # a Python float in a list is float64
    i = tnp.asarray([1, 2], dtype=tnp.int32)
    assert tnp.add([i[0], 2], 1).dtype == np.int64  # a Python int in a list is int64, as np.array([...])
    with tf.default_runtime().no_grad():  # not tracked: still the stack of the values
        np.testing.assert_array_equal(np.asarray(x * [x[1], x[0]]), [2.0, 2.0])


def test_a_list_holding_a_tensor_of_another_runtime_raises_context_mismatch():
    other = tf.EagerRuntime()
    y = other.variable_from(np.array([1.0, 2.0]))
    x = tf.variable(np.array([1.0, 2.0]))
    for call in (lambda: x * [y[0], 1.0], lambda: tnp.add(x, [y[0], 1.0]), lambda: tnp.concat([x, [y[0]]])):
        with pytest.raises(tf.ContextMismatch):
            call()


def test_numpy_dtype_argument_casts_each_array_and_never_a_non_array():
    """np.concatenate/np.stack cast each array of their sequence, np.einsum its operands
    (not the subscripts string), with NumPy's values in that dtype and NumPy's casting rule."""
    x = tf.variable(X)
    for got, want in [
        (np.concatenate([x, A], dtype=np.float32), np.concatenate([X, A], dtype=np.float32)),
        (np.stack([x, x], axis=1, dtype=np.complex128), np.stack([X, X], axis=1, dtype=np.complex128)),
        (np.einsum("i,i->i", x[0], x[0], dtype=np.complex128), np.einsum("i,i->i", X[0], X[0], dtype=np.complex128)),
        (
            np.einsum("i,i->i", x[0], A[0], dtype=np.float32, casting="same_kind"),
            np.einsum("i,i->i", X[0], A[0], dtype=np.float32, casting="same_kind"),
        ),
    ]:
        assert got.dtype == want.dtype and got.tracks_grad()
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    with pytest.raises(tf.DTypeError, match=r"np.einsum\(..., dtype=np.float32\).*float64.*casting='safe'"):
        np.einsum("i,i->i", x[0], x[0], dtype=np.float32)  # NumPy refuses it too (its default rule)
    with pytest.raises(tf.DTypeError, match=r"np.concatenate.*int64.*'same_kind'"):
        np.concatenate([x, x], dtype=np.int64)


def test_numpy_sort_and_argsort_with_axis_none_flatten_first():
    x = tf.variable(X)
    np.testing.assert_array_equal(np.asarray(np.sort(x, axis=None)), np.sort(X, axis=None))
    np.testing.assert_array_equal(np.asarray(np.argsort(x, axis=None)), np.argsort(X, axis=None, kind="stable"))
    g = tf.default_runtime().grad(tnp.sum(np.sort(x, axis=None) * np.arange(6.0)), x)
    want = np.zeros(6)
    want[np.argsort(X, axis=None, kind="stable")] = np.arange(6.0)
    np.testing.assert_array_equal(np.asarray(g), want.reshape(X.shape))


def test_numpy_vecdot_takes_its_axis_as_numpy_counts_it():
    x = tf.variable(X)
    for x1, x2, a1, a2 in [(x, A, X, A), (x[:, None], A[:, 0], X[:, None], A[:, 0])]:
        for axis in (0, -1) if x1.ndim == 2 else (0,):
            np.testing.assert_allclose(np.asarray(np.vecdot(x1, x2, axis=axis)), np.vecdot(a1, a2, axis=axis))
    with pytest.raises(tf.AxisError, match=r"np.vecdot.*axis 1 .*x2"):
        np.vecdot(x, A[0], axis=1)


def test_numpy_round_and_swapaxes_share_the_methods_implementation():
    x = tf.variable(X)
    np.testing.assert_array_equal(np.asarray(np.round(x, 1)), np.round(X, 1))
    with pytest.raises(tf.AxisError, match=r"np.swapaxes\(x, 0, 5\): axis2=5 is not an axis of a 2-dim tensor"):
        np.swapaxes(x, 0, 5)
    with pytest.raises(tf.AxisError, match=r"x.swapaxes\(0, 5\): axis2=5"):
        x.swapaxes(0, 5)


#: NumPy functions that never dispatch (they read ``__array__``): each returns a plain
#: NumPy array of the value, the exit from the trace (docs/numpy.md, "NumPy's own functions").
EXITS = [np.asarray, np.array, np.asanyarray, np.ascontiguousarray, np.asfortranarray, np.require]
EXITS += [np.asarray_chkfinite]


@pytest.mark.parametrize("exit", EXITS, ids=[f.__name__ for f in EXITS])
def test_numpy_conversions_that_are_exits_return_plain_ndarrays(exit):
    x = tf.variable(X)
    got = exit(x)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, X)
    assert exit.__name__ in _numpy_functions_docs()


def _numpy_functions_docs():
    """The section \"NumPy's own functions\" of docs/numpy.md."""
    text = (pathlib.Path(__file__).parent.parent / "docs" / "numpy.md").read_text()
    start = text.index("## NumPy's own functions")
    return text[start : text.index("\n## ", start + 1)]


def test_a_numpy_function_of_arrays_that_carry_no_gradient_is_numpys_own():
    """np.where(x > 0) of a comparison (a constant) gives NumPy's index arrays, as for any
    library's data (scipy.optimize hands np.atleast_1d's result to Fortran); with a tracked
    argument the same call records."""
    x = tf.variable(X)
    got = np.where(x > 0)
    want = np.where(X > 0)
    assert all(type(g) is np.ndarray for g in got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert type(np.atleast_1d(tf.constant(X))) is np.ndarray
    assert type(np.atleast_1d(x)) is tf.EagerTensor and np.atleast_1d(x).tracks_grad()
